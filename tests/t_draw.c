/*
 * Draws (lib/est/draw.h): allocation and its refusals, the Gaussian draw
 * of i.i.d. projections against the standard normal by Monte Carlo (mean
 * and second moment within 3 standard errors), block-orthogonal columns
 * orthogonal to rounding with norms chi-distributed (mean square d within
 * 3 standard errors), and the column norms against a loop written here.
 */
#include <math.h>
#include <stdlib.h>

#include "tap.h"
#include "est/draw.h"
#include "base/rng.h"

#define D 8
#define M 512

/* Mean and standard error of the mean of the n values x. */
static void mean_se(const double *x, size_t n, double *mean, double *se)
{
	double s = 0.0, ss = 0.0;
	size_t k;

	for (k = 0; k < n; k++)
		s += x[k];
	*mean = s / (double)n;
	for (k = 0; k < n; k++)
		ss += (x[k] - *mean) * (x[k] - *mean);
	*se = sqrt(ss / (double)(n - 1) / (double)n);
}

static void test_alloc(void)
{
	struct rfx_draw *w = rfx_draw_alloc(D, M);

	ok(w && w->d == D && w->cap == M && w->ncols == 0 && w->omega && w->k,
	   "alloc: dimension, capacity, no columns in use, arrays");
	ok(!rfx_draw_alloc(0, M) && !rfx_draw_alloc(D, 0) && !rfx_draw_alloc(-3, 5),
	   "alloc: d < 1 or cap < 1 gives NULL");
	rfx_draw_free(w);
	rfx_draw_free(NULL);
	ok(1, "free: NULL is a no-op");
}

static void test_iid(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(2385, 7, 0, 0);
	struct rfx_draw *w = rfx_draw_alloc(D, M);
	struct rfx_err err = { 0 };
	double *sq = malloc((size_t)D * M * sizeof(double));
	double mean, se, cn[M], worst = 0.0;
	int l, m, rc;

	rc = rfx_draw_gaussian(r, RFX_PROJ_IID, NULL, M, w, &err);
	ok(rc == RFX_OK && w->ncols == M, "gaussian iid: draws M columns");
	mean_se(w->omega, (size_t)D * M, &mean, &se);
	is_within_se(mean, se, 0.0, 3.0, "gaussian iid: entries have mean 0");
	for (m = 0; m < D * M; m++)
		sq[m] = w->omega[m] * w->omega[m];
	mean_se(sq, (size_t)D * M, &mean, &se);
	is_within_se(mean, se, 1.0, 3.0, "gaussian iid: entries have variance 1");
	rfx_draw_colnorms(w, 3, 100, cn);
	for (m = 0; m < 100; m++) {
		double s = 0.0;

		for (l = 0; l < D; l++)
			s += w->omega[l * M + 3 + m] * w->omega[l * M + 3 + m];
		worst = fmax(worst, fabs(cn[m] - s) / s);
	}
	ok(worst <= TEST_TOL1, "colnorms: columns 3..102 against a loop (worst %g)", worst);
	ok(rfx_draw_gaussian(r, RFX_PROJ_IID, NULL, M + 1, w, &err) != RFX_OK,
	   "gaussian: more columns than the capacity is an error");
	free(sq);
	rfx_draw_free(w);
	gsl_rng_free(r);
}

static void test_ort(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(2385, 8, 0, 0);
	struct rfx_draw *w = rfx_draw_alloc(D, M);
	struct rfx_err err = { 0 };
	double cn[M], mean, se, worst = 0.0;
	int a, b, l, rc;

	rc = rfx_draw_gaussian(r, RFX_PROJ_ORT, NULL, M, w, &err);
	ok(rc == RFX_OK, "gaussian ort: draws");
	rfx_draw_colnorms(w, 0, M, cn);
	/* Columns within a block of d are orthogonal. */
	for (a = 0; a < D; a++)
		for (b = a + 1; b < D; b++) {
			double dot = 0.0;

			for (l = 0; l < D; l++)
				dot += w->omega[l * M + a] * w->omega[l * M + b];
			worst = fmax(worst, fabs(dot) / sqrt(cn[a] * cn[b]));
		}
	ok(worst <= TEST_TOL3, "gaussian ort: a block's columns are orthogonal (worst cosine %g)",
	   worst);
	/* Norms are those of Gaussian vectors: E |omega|^2 = d. */
	mean_se(cn, M, &mean, &se);
	is_within_se(mean, se, (double)D, 3.0, "gaussian ort: mean squared column norm is d");
	rfx_draw_free(w);
	gsl_rng_free(r);
}

int main(void)
{
	test_alloc();
	test_iid();
	test_ort();
	return done_testing();
}

/*
 * Draws and feature matrices: allocation, the log-to-scaled conversion that
 * most estimators use, and the one pairwise estimate every Monte Carlo
 * evaluation goes through.
 */
#include "featmap.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

struct rfx_draw *rfx_draw_alloc(int d, int cap)
{
	struct rfx_draw *w;

	if (d < 1 || cap < 1)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->d = d;
	w->cap = cap;
	w->omega = calloc((size_t)d * (size_t)cap, sizeof(double));
	w->k = calloc((size_t)d * (size_t)cap, sizeof(unsigned));
	w->pws = rfx_proj_ws_alloc(d);
	if (!w->omega || !w->k || !w->pws) {
		rfx_draw_free(w);
		return NULL;
	}
	return w;
}

void rfx_draw_free(struct rfx_draw *w)
{
	if (!w)
		return;
	free(w->omega);
	free(w->k);
	rfx_proj_ws_free(w->pws);
	free(w);
}

struct rfx_featmat *rfx_featmat_alloc(size_t n, int D)
{
	struct rfx_featmat *F;
	size_t nd = n * (size_t)D;

	if (n == 0 || D < 1)
		return NULL;
	F = calloc(1, sizeof(*F));
	if (!F)
		return NULL;
	F->cap_n = n;
	F->cap_D = D;
	F->re = malloc(nd * sizeof(double));
	F->im = malloc(nd * sizeof(double));
	F->lscale = malloc(n * sizeof(double));
	F->work = malloc(nd * sizeof(double));
	F->work2 = malloc(n * sizeof(double));
	F->cwork = malloc((size_t)D * sizeof(double));
	if (!F->re || !F->im || !F->lscale || !F->work || !F->work2 ||
	    !F->cwork) {
		rfx_featmat_free(F);
		return NULL;
	}
	return F;
}

void rfx_featmat_free(struct rfx_featmat *F)
{
	if (!F)
		return;
	free(F->re);
	free(F->im);
	free(F->lscale);
	free(F->work);
	free(F->work2);
	free(F->cwork);
	free(F);
}

void rfx_featmat_from_log(struct rfx_featmat *F, size_t n, int D,
			  const double *lmod, const double *ph)
{
	size_t i;
	int j;

	F->n = n;
	F->D = D;
	F->is_complex = ph != NULL;
	for (i = 0; i < n; i++) {
		const double *lm = lmod + i * (size_t)D;
		double *re = F->re + i * (size_t)D;
		double *im = F->im + i * (size_t)D;
		double m = -INFINITY;

		for (j = 0; j < D; j++)
			if (lm[j] > m)
				m = lm[j];
		if (m == -INFINITY)
			m = 0.0;
		F->lscale[i] = m;
		for (j = 0; j < D; j++) {
			double a = exp(lm[j] - m);

			if (ph) {
				double p = ph[i * (size_t)D + j];

				re[j] = a * cos(p);
				im[j] = a * sin(p);
			} else {
				re[j] = a;
				im[j] = 0.0;
			}
		}
	}
}

void rfx_featmat_estimate(const struct rfx_featmat *F1, size_t i,
			  const struct rfx_featmat *F2, size_t k,
			  double *logabs, int *sign)
{
	const double *r1 = F1->re + i * (size_t)F1->D;
	const double *r2 = F2->re + k * (size_t)F2->D;
	double s = 0.0;
	int j, D = F1->D;

	for (j = 0; j < D; j++)
		s += r1[j] * r2[j];
	if (F1->is_complex && F2->is_complex) {
		const double *i1 = F1->im + i * (size_t)D;
		const double *i2 = F2->im + k * (size_t)D;

		for (j = 0; j < D; j++)
			s -= i1[j] * i2[j];
	}
	*sign = (s > 0.0) - (s < 0.0);
	*logabs = s != 0.0 ? log(fabs(s)) + F1->lscale[i] + F2->lscale[k]
			   : -INFINITY;
}

void rfx_featmat_project(struct rfx_featmat *F, const struct rfx_draw *w,
			 const double *X, size_t n, int col0, int ncols)
{
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, ncols,
		    w->d, 1.0, X, w->d, w->omega + col0, w->cap, 0.0, F->work,
		    ncols);
}

void rfx_draw_colnorms(const struct rfx_draw *w, int col0, int ncols,
		       double *out)
{
	int l, m;

	for (m = 0; m < ncols; m++)
		out[m] = 0.0;
	for (l = 0; l < w->d; l++) {
		const double *row = w->omega + (size_t)l * (size_t)w->cap + col0;

		for (m = 0; m < ncols; m++)
			out[m] += row[m] * row[m];
	}
}

void rfx_rownorms(const double *X, size_t n, int d, double *out)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)d;
		double s = 0.0;

		for (l = 0; l < d; l++)
			s += x[l] * x[l];
		out[i] = s;
	}
}

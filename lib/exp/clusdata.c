/*
 * HRF appendix H.3's synthetic clusters: rotated means, signs searched
 * to reach the target losses s, Gaussian points, one scale. See clusdata.h
 * for the construction and the streams.
 */
#include "exp/clusdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "est/clushyb.h"
#include "proj/proj.h"
#include "base/rng.h"

#define NPAT 8

/* Whether pattern p makes x_i and y_j (i, j in 0, 1) agree in sign. */
static int match(int p, int q)
{
	int i = q >> 1, j = q & 1;
	int sx = i == 0 ? 1 : (p & 1) ? -1 : 1;
	int sy = (p >> (1 + j)) & 1 ? 1 : -1;

	return sx == sy;
}

static double objective(const double cur[4], const double t[4])
{
	double f = 0.0;
	int q;

	for (q = 0; q < 4; q++)
		f += (cur[q] - t[q]) * (cur[q] - t[q]);
	return f;
}

/* cur after coordinate l moves from pattern p0 to p1 (C: 4 x d). */
static void moved(const double *C, int d, int l, int p0, int p1,
		  const double in[4], double out[4])
{
	int q;

	for (q = 0; q < 4; q++)
		out[q] = in[q] + C[q * d + l] * (match(p1, q) - match(p0, q));
}

/* Sums of the contributions C (4 x d) of the patterns. */
static void sums(const double *C, int d, const int *pattern, double s[4])
{
	int q, l;

	for (q = 0; q < 4; q++) {
		s[q] = 0.0;
		for (l = 0; l < d; l++)
			if (match(pattern[l], q))
				s[q] += C[q * d + l];
	}
}

/*
 * Steepest descent from pattern: single-coordinate moves, then moves of
 * two coordinates when no single one helps; strict decrease, so it ends.
 * Returns the objective reached.
 */
static double descend(const double *C, int d, const double t[4], int *pattern)
{
	double cur[4], f;

	sums(C, d, pattern, cur);
	f = objective(cur, t);
	for (;;) {
		double best = f, tmp[4], tmp2[4];
		int bl = -1, bp = 0, bl2 = -1, bp2 = 0, l, p, l2, p2;

		for (l = 0; l < d; l++)
			for (p = 0; p < NPAT; p++) {
				double g;

				if (p == pattern[l])
					continue;
				moved(C, d, l, pattern[l], p, cur, tmp);
				g = objective(tmp, t);
				if (g < best) {
					best = g;
					bl = l;
					bp = p;
				}
			}
		if (bl < 0)
			for (l = 0; l < d; l++)
				for (p = 0; p < NPAT; p++) {
					if (p == pattern[l])
						continue;
					moved(C, d, l, pattern[l], p, cur, tmp);
					for (l2 = l + 1; l2 < d; l2++)
						for (p2 = 0; p2 < NPAT; p2++) {
							double g;

							if (p2 == pattern[l2])
								continue;
							moved(C, d, l2, pattern[l2], p2, tmp, tmp2);
							g = objective(tmp2, t);
							if (g < best) {
								best = g;
								bl = l;
								bp = p;
								bl2 = l2;
								bp2 = p2;
							}
						}
				}
		if (bl < 0 || !(best < f))
			return f;
		moved(C, d, bl, pattern[bl], bp, cur, cur);
		pattern[bl] = bp;
		if (bl2 >= 0) {
			moved(C, d, bl2, pattern[bl2], bp2, cur, cur);
			pattern[bl2] = bp2;
		}
		f = best;
	}
}

int rfx_clusdata_signs(const gsl_rng *r, const double *a, const double *b,
		       int d, const double t[4], int starts, int *pattern,
		       double s[4], struct rfx_err *err)
{
	double *C = malloc(4 * (size_t)d * sizeof(double)), fbest = INFINITY;
	int *p = malloc((size_t)d * sizeof(int)), l, q, k;

	if (starts < 1) {
		free(C);
		free(p);
		return rfx_error(err, RFX_EINVAL,
				 "the sign search needs a start, got %d", starts);
	}
	if (!C || !p) {
		free(C);
		free(p);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	for (q = 0; q < 4; q++)
		for (l = 0; l < d; l++)
			C[q * d + l] = 4.0 * a[(q >> 1) * d + l] * b[(q & 1) * d + l];
	for (k = 0; k < starts; k++) {
		double f;

		/* Start 0 from no match at all; the others from a few random ones. */
		for (l = 0; l < d; l++)
			p[l] = k && gsl_rng_uniform(r) < 0.1 ?
				       (int)gsl_rng_uniform_int(r, NPAT) : 0;
		f = descend(C, d, t, p);
		if (f < fbest) {
			fbest = f;
			memcpy(pattern, p, (size_t)d * sizeof(int));
		}
	}
	/* The sums afresh, free of the updates' rounding. */
	sums(C, d, pattern, s);
	free(C);
	free(p);
	return RFX_OK;
}

void rfx_clusdata_release(struct rfx_clusdata *D)
{
	free(D->X);
	free(D->Y);
	free(D->mu);
	free(D->nu);
	D->X = D->Y = D->mu = D->nu = NULL;
}

static int check_config(const struct rfx_clusdata_config *c,
			struct rfx_err *err)
{
	int q;

	if (c->d < 1 || c->points < 1)
		return rfx_error(err, RFX_EINVAL,
				 "clustered data need d >= 1 and points >= 1, got %d and %zu",
				 c->d, c->points);
	if (!(c->sigma >= 0.0 && isfinite(c->sigma)))
		return rfx_error(err, RFX_EINVAL,
				 "sigma must be finite and >= 0, got %g", c->sigma);
	if (!(c->mean_sd > 0.0 && isfinite(c->mean_sd)))
		return rfx_error(err, RFX_EINVAL,
				 "the sd of X0, Y0 must be finite and > 0, got %g",
				 c->mean_sd);
	if (!(c->norm > 0.0 && isfinite(c->norm)))
		return rfx_error(err, RFX_EINVAL,
				 "the norm r must be finite and > 0, got %g", c->norm);
	for (q = 0; q < 4; q++)
		if (!(c->s[q] >= 0.0 && isfinite(c->s[q])))
			return rfx_error(err, RFX_EINVAL,
					 "target s must be finite and >= 0, got %g",
					 c->s[q]);
	return RFX_OK;
}

/* out = O v for O d x d row-major. */
static void matvec(const double *O, const double *v, int d, double *out)
{
	int i, l;

	for (i = 0; i < d; i++) {
		double s = 0.0;

		for (l = 0; l < d; l++)
			s += O[(size_t)i * (size_t)d + l] * v[l];
		out[i] = s;
	}
}

/* The points of one cluster with signed scaled mean m (stream r). */
static void cluster_points(const gsl_rng *r, const struct rfx_clusdata_config *c,
			   const double *m, double scale, double *out)
{
	int d = c->d, l;
	size_t i;

	for (i = 0; i < c->points; i++) {
		double *x = out + i * (size_t)d, nn = 0.0;

		for (l = 0; l < d; l++) {
			double g = gsl_ran_gaussian_ziggurat(r, 1.0);

			if (c->scaling == RFX_CLUSDATA_MEAN) {
				x[l] = m[l] + scale * c->sigma * g;
			} else {
				x[l] = m[l] / scale + c->sigma * g;
				nn += x[l] * x[l];
			}
		}
		if (c->scaling == RFX_CLUSDATA_SPHERE)
			for (l = 0; l < d; l++)
				x[l] = nn > 0.0 ? c->norm * x[l] / sqrt(nn) : 0.0;
	}
}

int rfx_clusdata_make(const struct rfx_clusdata_config *c,
		      struct rfx_clusdata *D, struct rfx_err *err)
{
	int d = c->d, ret, l, i, *pat = NULL;
	size_t dd;
	double *X0 = NULL, *Y0 = NULL, *O = NULL, *a = NULL, *b = NULL;
	double nx0 = 0.0, ny0 = 0.0;
	struct rfx_proj_ws *ws = NULL;
	gsl_rng *r = NULL;

	memset(D, 0, sizeof(*D));
	ret = check_config(c, err);
	if (ret)
		return ret;
	dd = (size_t)d;
	D->d = d;
	D->nx = D->ny = 2 * c->points;
	D->X = malloc(D->nx * dd * sizeof(double));
	D->Y = malloc(D->ny * dd * sizeof(double));
	D->mu = malloc(2 * dd * sizeof(double));
	D->nu = malloc(2 * dd * sizeof(double));
	X0 = malloc(dd * sizeof(double));
	Y0 = malloc(dd * sizeof(double));
	O = malloc(dd * dd * sizeof(double));
	a = calloc(2 * dd, sizeof(double));
	b = calloc(2 * dd, sizeof(double));
	pat = malloc(dd * sizeof(int));
	ws = rfx_proj_ws_alloc(d);
	r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "clustered", .what = "data", .i = (uint64_t)c->id });
	if (!D->X || !D->Y || !D->mu || !D->nu || !X0 || !Y0 || !O || !a ||
	    !b || !pat || !ws || !r) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for %zu points in R^%d", 4 * c->points, d);
		goto out;
	}
	for (l = 0; l < d; l++)
		X0[l] = gsl_ran_gaussian_ziggurat(r, c->mean_sd);
	for (l = 0; l < d; l++)
		Y0[l] = gsl_ran_gaussian_ziggurat(r, c->mean_sd);
	for (l = 0; l < d; l++) {
		nx0 += X0[l] * X0[l];
		ny0 += Y0[l] * Y0[l];
	}
	D->cx = c->norm / sqrt(nx0 + d * c->sigma * c->sigma);
	D->cy = c->norm / sqrt(ny0 + d * c->sigma * c->sigma);
	/* Rotations in the order O_11, O_21 (x means), O_12, O_22 (y means). */
	for (i = 0; i < 4; i++) {
		double *m = i < 2 ? D->mu + (size_t)i * dd : D->nu + (size_t)(i - 2) * dd;

		ret = rfx_proj_haar(r, d, O, ws, err);
		if (ret)
			goto out;
		matvec(O, i < 2 ? X0 : Y0, d, m);
		for (l = 0; l < d; l++)
			m[l] *= i < 2 ? D->cx : D->cy;
	}
	for (l = 0; l < 2 * d; l++) {
		a[l] = fabs(D->mu[l]);
		b[l] = fabs(D->nu[l]);
	}
	ret = rfx_clusdata_signs(r, a, b, d, c->s, RFX_CLUSDATA_STARTS, pat, D->s,
				 err);
	if (ret)
		goto out;
	/* Signs relative to the sign the rotation gave x_1l. */
	for (l = 0; l < d; l++) {
		double base = D->mu[l] < 0.0 ? -1.0 : 1.0;
		int p = pat[l];

		D->mu[l] = base * a[l];
		D->mu[dd + l] = base * (p & 1 ? -1.0 : 1.0) * a[dd + l];
		D->nu[l] = base * (p & 2 ? 1.0 : -1.0) * b[l];
		D->nu[dd + l] = base * (p & 4 ? 1.0 : -1.0) * b[dd + l];
	}
	for (i = 0; i < 4; i++) {
		const double *m = i < 2 ? D->mu + (size_t)i * dd : D->nu + (size_t)(i - 2) * dd;
		double *out = i < 2 ? D->X + (size_t)i * c->points * dd
				    : D->Y + (size_t)(i - 2) * c->points * dd;

		rfx_rng_set_key(r, c->seed, &(struct rfx_rng_key){
			.exp = "clustered", .what = "data", .i = (uint64_t)c->id,
			.j = 1 + (uint64_t)i });
		cluster_points(r, c, m, i < 2 ? D->cx : D->cy, out);
	}
	ret = RFX_OK;
out:
	if (ret)
		rfx_clusdata_release(D);
	free(X0);
	free(Y0);
	free(O);
	free(a);
	free(b);
	free(pat);
	rfx_proj_ws_free(ws);
	if (r)
		gsl_rng_free(r);
	return ret;
}

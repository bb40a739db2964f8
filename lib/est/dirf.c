/*
 * DIRF helpers: the positive shift and the feature loop shared by PoisRF and
 * GeomRF. The loop runs coordinate by coordinate so that each log|x_l| is
 * taken once per input, not once per feature.
 */
#include "est/dirf.h"

#include <math.h>
#include <stdlib.h>

#include "num/logmath.h"
#include "num/setstats.h"

int rfx_dirf_fit_shift(struct rfx_params *p, const char *name,
		       const double *X, size_t nx, const double *Y, size_t ny,
		       struct rfx_err *err)
{
	struct rfx_setstats *st;
	int ret, l;

	if (p->given & RFX_P(RFX_PARAM_C))
		return p->c ? RFX_OK
			    : rfx_error(err, RFX_EINVAL, "%s: shift c is not set",
					name);
	st = rfx_setstats_alloc(p->d);
	if (!st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_setstats_compute(st, X, nx, Y, ny, NULL, err);
	if (!ret && !p->c) {
		p->c = malloc((size_t)p->d * sizeof(double));
		if (!p->c)
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	if (!ret)
		for (l = 0; l < p->d; l++)
			p->c[l] = st->min_xy[l] - RFX_DIRF_EPS;
	rfx_setstats_free(st);
	return ret;
}

int rfx_dirf_fit_begin(struct rfx_params *p, const char *name, int shifted,
		       enum rfx_param id, const double *X, size_t nx,
		       const double *Y, size_t ny, int M,
		       struct rfx_setstats **st, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, name, X, nx, Y, ny, M, err);

	*st = NULL;
	if (ret)
		return ret;
	if (shifted && (ret = rfx_dirf_fit_shift(p, name, X, nx, Y, ny, err)))
		return ret;
	if (p->given & RFX_P(id))
		return RFX_OK;
	*st = rfx_setstats_alloc(p->d);
	if (!*st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_setstats_compute(*st, X, nx, Y, ny, shifted ? p->c : NULL, err);
	if (ret) {
		rfx_setstats_free(*st);
		*st = NULL;
	}
	return ret;
}

/*
 * Row i of rfx_dirf_features: log-moduli into lm, and into neg 1 where an
 * odd number of odd powers of negative coordinates makes the feature
 * negative, else 0. Coordinate by coordinate, so that each log|x_l| is
 * taken once per input, and branch-free over the features so that the
 * loops vectorise (omega is mostly 0 for small rates, in no pattern a
 * branch predictor could learn: the branchy loop spent most of Tables
 * 6.2-6.3's time here). A zero count adds nothing, even where log|x_l|
 * is -inf; a positive one there makes the feature's log-modulus -inf, an
 * exact zero.
 */
RFX_SIMD_CLONES
static void dirf_row(const struct rfx_draw *w, const double *x, int M,
		     const double *shift, double base, double g,
		     const double *colconst, double ls, double *lm, double *neg)
{
	int d = w->d, l, m;
	double xx = 0.0, c;

#pragma omp simd
	for (m = 0; m < M; m++) {
		lm[m] = colconst[m];
		neg[m] = 0.0;
	}
	for (l = 0; l < d; l++) {
		const double *om = w->omega + (size_t)l * (size_t)w->cap;
		double z = shift ? x[l] - shift[l] : x[l];
		double lz = z != 0.0 ? log(fabs(z)) + g : -INFINITY;

		xx += z * z;
#pragma omp simd
		for (m = 0; m < M; m++) {
			double t = om[m] * lz;

			lm[m] += om[m] != 0.0 ? t : 0.0;
		}
		if (z < 0.0) {
#pragma omp simd
			for (m = 0; m < M; m++) {
				double odd = om[m] - 2.0 * floor(0.5 * om[m]);

				neg[m] = odd == 1.0 ? 1.0 - neg[m] : neg[m];
			}
		}
	}
	c = base - 0.5 * xx + ls;
#pragma omp simd
	for (m = 0; m < M; m++)
		lm[m] += c;
}

void rfx_dirf_features(struct rfx_featmat *F, const struct rfx_draw *w,
		       const double *X, size_t n, int M, const double *shift,
		       double base, double g, const double *colconst)
{
	double ls = -0.5 * log((double)M);
	size_t i;

	for (i = 0; i < n; i++)
		dirf_row(w, X + i * (size_t)w->d, M, shift, base, g, colconst, ls,
			 F->work + i * (size_t)M, F->im + i * (size_t)M);
	rfx_featmat_from_log_signed(F, n, M, F->work, F->im);
}

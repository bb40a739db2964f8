/*
 * DIRF helpers: the positive shift and the feature loop shared by PoisRF and
 * GeomRF. The loop runs coordinate by coordinate so that each log|x_l| is
 * taken once per input, not once per feature.
 */
#include "dirf.h"

#include <math.h>
#include <stdlib.h>

#include "logmath.h"
#include "setstats.h"

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

void rfx_dirf_features(struct rfx_featmat *F, const struct rfx_draw *w,
		       const double *X, size_t n, int M, const double *shift,
		       double base, double g, const double *colconst)
{
	int d = w->d, l, m;
	double ls = -0.5 * log((double)M);
	size_t i;

	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)d;
		double *lm = F->work + i * (size_t)M;
		double *ph = F->im + i * (size_t)M;
		double xx = 0.0;

		for (m = 0; m < M; m++) {
			lm[m] = colconst[m];
			ph[m] = 0.0;
		}
		for (l = 0; l < d; l++) {
			const double *om = w->omega + (size_t)l * (size_t)w->cap;
			double z = shift ? x[l] - shift[l] : x[l];
			double lz = z != 0.0 ? log(fabs(z)) + g : -INFINITY;

			xx += z * z;
			for (m = 0; m < M; m++) {
				double k = om[m];

				if (k == 0.0)
					continue;
				lm[m] += k * lz;
				/* Odd powers of negative coordinates flip the sign. */
				if (z < 0.0 && k - 2.0 * floor(0.5 * k) == 1.0)
					ph[m] = ph[m] == 0.0 ? RFX_PI : 0.0;
			}
		}
		for (m = 0; m < M; m++)
			lm[m] += base - 0.5 * xx + ls;
	}
	/* Phases are 0 or pi: cos gives the sign exactly; the features are real. */
	rfx_featmat_from_log(F, n, M, F->work, F->im);
	F->is_complex = 0;
}

/*
 * Geometric random features (thesis sec. 6.4.2): the DIRF of eq. 6.16 with
 * omega_l i.i.d., P(omega_l = k) = q (1 - q)^k, i.e.
 *   f(omega, x) = q^{-d/2} e^{-|x|^2/2} prod_l x_l^{omega_l} (1-q)^{-omega_l/2} (omega_l!)^{-1/2}.
 * Since sum_k q (1-q)^k c^{2k} (1-q)^{-2k} / (k!)^2 = q I0(2|c|/sqrt(1-q)),
 *   E (f(x) f(y))^2 = q^{-d} e^{-|x|^2-|y|^2} prod_l I0(2 (1-q)^{-1/2} |x_l y_l|)
 * (Theorem 17, eq. 6.19, re-derived), so
 *   Var = K^2 (q^{-d} e^{-2 x.y} prod_l I0(...) - 1)
 * and log Var = -|x-y|^2 + log expm1(-d log q - 2 x.y + sum_l log I0(...))
 * - log M (the exponent is >= 0 since Var >= 0), the product of I0's summed
 * in logs by lib/num/bessel.c. Factoring K^2 out keeps the result accurate
 * where |x|^2 + |y|^2 dwarfs the difference of the two terms. q is fitted by Brent
 * minimisation (GSL, 100 iterations as in sec. 6.6.1) of the q-dependent
 * part -d log q + sum_l log I0(2 a_l/sqrt(1-q)), a_l the mean of |x_l y_l|
 * over pairs (eq. 6.20), after a grid search brackets the minimum.
 *
 * GeomRF+ applies the same to x - c, y - c (sec. 6.4.3).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>

#include "num/bessel.h"
#include "est/dirf.h"
#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"
#include "num/setstats.h"

/* q in logit coordinates u: q = 1/(1 + e^{-u}), searched over [-U, U]. */
#define U_MAX 30.0
#define U_GRID 121

struct geom_obj {
	int d;
	const double *a;    /* mean |x_l y_l| per coordinate */
	const double *ones; /* d ones, the other factor of the Bessel sum */
};

static double geom_q(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

static double geom_obj_f(double u, void *par)
{
	const struct geom_obj *o = par;
	double q = geom_q(u);
	/* 1 - q = 1/(1 + e^u), so 1/sqrt(1-q) = sqrt(1 + e^u) without cancelling. */
	double scale = 2.0 * sqrt(1.0 + exp(u));

	/* one call for the d terms: one log, not d */
	return -o->d * log(q) +
	       rfx_bessel_sum_log_i0_prod(o->a, o->ones, scale, (size_t)o->d);
}

static int geom_minimize(int d, const double *a, double *q_out,
			 struct rfx_err *err)
{
	struct geom_obj o = { d, a, NULL };
	gsl_function F = { geom_obj_f, &o };
	gsl_min_fminimizer *mz = NULL;
	double best = HUGE_VAL, ub = 0.0, f[U_GRID], *ones;
	int k, kb = 0, it, ret = RFX_OK;

	ones = malloc((size_t)d * sizeof(double));
	if (!ones)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (k = 0; k < d; k++)
		ones[k] = 1.0;
	o.ones = ones;
	for (k = 0; k < U_GRID; k++) {
		double u = -U_MAX + 2.0 * U_MAX * k / (U_GRID - 1);

		f[k] = geom_obj_f(u, &o);
		if (f[k] < best) {
			best = f[k];
			kb = k;
		}
	}
	ub = -U_MAX + 2.0 * U_MAX * kb / (U_GRID - 1);
	if (kb == 0 || kb == U_GRID - 1 || !(f[kb] < f[kb - 1]) ||
	    !(f[kb] < f[kb + 1])) {
		/* Monotone on the grid (all a_l = 0 pushes q to 1): take the edge. */
		*q_out = geom_q(ub);
		goto out;
	}
	mz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
	if (!mz) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	if (gsl_min_fminimizer_set_with_values(
		    mz, &F, ub, f[kb], ub - 2.0 * U_MAX / (U_GRID - 1), f[kb - 1],
		    ub + 2.0 * U_MAX / (U_GRID - 1), f[kb + 1])) {
		ret = rfx_error(err, RFX_ENUMERIC, "geom: cannot bracket q");
		goto out;
	}
	for (it = 0; it < 100; it++) {
		if (gsl_min_fminimizer_iterate(mz))
			break;
		if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(mz),
					  gsl_min_fminimizer_x_upper(mz), 1e-10,
					  0.0) == GSL_SUCCESS)
			break;
	}
	*q_out = geom_q(gsl_min_fminimizer_x_minimum(mz));
out:
	if (mz)
		gsl_min_fminimizer_free(mz);
	free(ones);
	return ret;
}

static int geom_fit_common(struct rfx_params *p, const char *name, int shifted,
			   const double *X, size_t nx, const double *Y,
			   size_t ny, int M, struct rfx_err *err)
{
	struct rfx_setstats *st;
	int ret = rfx_dirf_fit_begin(p, name, shifted, RFX_PARAM_Q, X, nx, Y, ny,
				     M, &st, err);

	if (ret)
		return ret;
	if (!st)
		return p->q > 0.0 && p->q < 1.0
			       ? RFX_OK
			       : rfx_error(err, RFX_EINVAL,
					   "%s: q must be in (0, 1)", name);
	rfx_bessel_init();
	ret = geom_minimize(p->d, st->mean_absxy, &p->q, err);
	rfx_setstats_free(st);
	return ret;
}

static int geom_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return geom_fit_common(p, "geom", 0, X, nx, Y, ny, M, err);
}

static int geom_plus_fit(struct rfx_params *p, const double *X, size_t nx,
			 const double *Y, size_t ny, int M,
			 struct rfx_err *err)
{
	return geom_fit_common(p, "geom+", 1, X, nx, Y, ny, M, err);
}

/*
 * The Bessel sums of the whole block go to out first (one call, the pairs
 * as vector lanes), then one vectorised pass turns them into
 * log-variances in place.
 */
RFX_SIMD_CLONES
static int geom_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	double q = p->q, lm = log((double)M), scale, lq;
	int d = b->d;
	size_t k, np = b->nx * b->ny;

	if (!(q > 0.0 && q < 1.0))
		return rfx_error(err, RFX_EINVAL, "geom: q must be in (0, 1)");
	scale = 2.0 / sqrt(1.0 - q);
	lq = -d * log(q);
	rfx_bessel_sum_log_i0_pairs(b->X, b->nx, b->Y, b->ny, (size_t)d, scale,
				    out);
#pragma omp simd
	for (k = 0; k < np; k++) {
		double e = lq + out[k] - 2.0 * b->xy[k];

		out[k] = e > 0.0 ? e : 0.0;
	}
	rfx_vmath_logexpm1(out, out, np);
#pragma omp simd
	for (k = 0; k < np; k++)
		out[k] = -b->dd[k] + out[k] - lm;
	return RFX_OK;
}

static int geom_draw(const gsl_rng *r, enum rfx_proj proj,
		     const struct rfx_params *p, int M, struct rfx_draw *w,
		     struct rfx_err *err)
{
	int l, m;

	(void)proj;
	if (!(p->q > 0.0 && p->q < 1.0))
		return rfx_error(err, RFX_EINVAL, "geom: q must be in (0, 1)");
	/*
	 * Failures before the first success by inversion, k = floor(log U /
	 * log(1 - q)) with U in (0, 1]: P(k >= n) = (1 - q)^n exactly, and k
	 * stays a double. GSL's gsl_ran_geometric returns an unsigned int,
	 * which wraps once the mean 1/q passes 4e9 (q ~ 1e-13 is a fitted
	 * value for large inputs).
	 */
	double l1q = log1p(-p->q);

	for (l = 0; l < w->d; l++)
		for (m = 0; m < M; m++)
			w->omega[(size_t)l * (size_t)w->cap + m] =
				floor(log(1.0 - gsl_rng_uniform(r)) / l1q);
	w->ncols = M;
	return RFX_OK;
}

/*
 * log k! for the counts below GSL_SF_FACT_NMAX + 1, from gsl_sf_lnfact
 * itself, so the same bits: below that GSL takes the log of its table of
 * k! on every call, and in rfx variance's Monte Carlo (16 inputs, d = 64,
 * M = 8, 10^5 draws) the d M calls per draw took about a tenth of the
 * four DIRF methods' time.
 */
static double lnfact_tab[GSL_SF_FACT_NMAX + 1];
static pthread_once_t lnfact_once = PTHREAD_ONCE_INIT;

static void lnfact_init(void)
{
	unsigned k;

	for (k = 0; k <= GSL_SF_FACT_NMAX; k++)
		lnfact_tab[k] = gsl_sf_lnfact(k);
}

static int geom_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	int l, m;

	(void)side;
	(void)err;
	pthread_once(&lnfact_once, lnfact_init);
	/* Per draw: -(1/2) sum_l log(omega_l!). */
	for (m = 0; m < M; m++)
		F->cwork[m] = 0.0;
	for (l = 0; l < w->d; l++)
		for (m = 0; m < M; m++) {
			double k = w->omega[(size_t)l * (size_t)w->cap + m];

			F->cwork[m] -= 0.5 * (k <= GSL_SF_FACT_NMAX
						      ? lnfact_tab[(unsigned)k]
						      : gsl_sf_lnfact((unsigned)k));
		}
	rfx_dirf_features(F, w, X, n, M, p->c, -0.5 * p->d * log(p->q),
			  -0.5 * log1p(-p->q), F->cwork);
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_geom = {
	.name = "geom",
	.title = "GeomRF (thesis sec. 6.4.2)",
	/* geomrf: the thesis' name (sec. 6.4.2, "GeomRFs") */
	.aliases = "geomrf",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "q: Brent minimisation of the variance",
	.flags = RFX_EST_DISCRETE,
	.params = RFX_P(RFX_PARAM_Q),
	.fit = geom_fit,
	.log_variance = geom_log_variance,
	.draw = geom_draw,
	.features = geom_features,
};

const struct rfx_estimator_type rfx_est_geom_plus = {
	.name = "geom+",
	.title = "GeomRF+ (thesis sec. 6.4.3)",
	/* geomrf+: the thesis' name (sec. 6.4.3, "GeomRF+") */
	.aliases = "geomrf+",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "q: Brent minimisation; c: shift making the inputs positive (thesis sec. 6.4.3)",
	.flags = RFX_EST_POSITIVE | RFX_EST_DISCRETE | RFX_EST_SHIFTED,
	.params = RFX_P(RFX_PARAM_Q) | RFX_P(RFX_PARAM_C),
	.fit = geom_plus_fit,
	.log_variance = geom_log_variance,
	.draw = geom_draw,
	.features = geom_features,
};

/*
 * Poisson random features (thesis sec. 6.4.1): the DIRF of eq. 6.16 with
 * omega_l ~ Poisson(lambda) i.i.d., i.e.
 *   f(omega, x) = exp(lambda d/2 - |x|^2/2) prod_l x_l^{omega_l} lambda^{-omega_l/2},
 * the same map for x and y. With E c^omega = exp(lambda (c - 1)),
 *   E (f(x) f(y))^2 = exp(lambda d + lambda^{-1} sum_l x_l^2 y_l^2 - |x|^2 - |y|^2)
 * (Theorem 16, eq. 6.17, re-derived), so
 *   Var = e^{lambda d + S/lambda - |x|^2 - |y|^2} - K^2
 *       = K^2 (e^{lambda d + S/lambda - 2 x.y} - 1),
 * S = sum_l x_l^2 y_l^2 (one dgemm per block); the exponent is >= 0 by
 * Cauchy-Schwarz, and log Var = -|x-y|^2 + log expm1(...) - log M keeps
 * its accuracy when |x|^2 + |y|^2 is so large that subtracting K^2 in the
 * first form would lose everything.
 * lambda* = sqrt(S/d) minimises it; fitted on sets with S the mean of
 * eq. 6.18.
 *
 * PoisRF+ (sec. 6.4.3) applies the same to x - c, y - c with c below every
 * coordinate of both sets, which leaves K unchanged and makes the features
 * positive.
 */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>

#include "est/dirf.h"
#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"
#include "num/setstats.h"

/*
 * lambda* is 0 when every x_l y_l vanishes; a floor keeps the features
 * defined (the variance there is ~0 either way).
 */
#define LAMBDA_MIN 1e-12

/*
 * GSL draws Poisson counts as unsigned int: beyond a rate of ~1e9 they
 * would wrap (and its sampler stops terminating), so larger rates, which
 * only inputs with |x_l y_l| of order 1e9 and more produce, are refused.
 */
#define LAMBDA_MAX 1e9

static int lambda_check(const struct rfx_params *p, const char *name,
			struct rfx_err *err)
{
	if (p->lambda > LAMBDA_MAX)
		return rfx_error(err, RFX_EINVAL,
				 "%s: lambda = %g exceeds %g (Poisson counts must fit in 32 bits); the inputs are too large for Poisson features",
				 name, p->lambda, LAMBDA_MAX);
	return RFX_OK;
}

/*
 * The largest exponent lambda d + S/lambda a given lambda may meet on
 * these sets: beyond it log expm1 of it, the log-variance, left double
 * range (lambda = 1e-300 against inputs of 1e75: inf).
 */
#define EXPONENT_MAX 1e300

/*
 * Whether a given lambda keeps lambda d + S/lambda within EXPONENT_MAX
 * for every pair of the sets (shifted by c when not NULL): S <= sum_l
 * max_i x_il^2 max_j y_jl^2.
 */
static int lambda_fits_sets(const struct rfx_params *p, const char *name,
			    const double *X, size_t nx, const double *Y,
			    size_t ny, const double *c, struct rfx_err *err)
{
	double *mx = calloc(2 * (size_t)p->d, sizeof(double)), *my, smax = 0.0;
	size_t i;
	int l;

	if (!mx)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	my = mx + p->d;
	for (i = 0; i < nx + ny; i++) {
		const double *z = i < nx ? X + i * (size_t)p->d
					 : Y + (i - nx) * (size_t)p->d;
		double *m = i < nx ? mx : my;

		for (l = 0; l < p->d; l++) {
			double v = z[l] - (c ? c[l] : 0.0);

			m[l] = v * v > m[l] ? v * v : m[l];
		}
	}
	for (l = 0; l < p->d; l++)
		smax += mx[l] * my[l];
	free(mx);
	if (!(p->lambda * p->d + smax / p->lambda <= EXPONENT_MAX))
		return rfx_error(err, RFX_EINVAL,
				 "%s: lambda = %g is too small for these inputs (sum x_l^2 y_l^2 up to %g): the log-variance would pass %g",
				 name, p->lambda, smax, EXPONENT_MAX);
	return RFX_OK;
}

static int pois_fit_common(struct rfx_params *p, const char *name, int shifted,
			   const double *X, size_t nx, const double *Y,
			   size_t ny, int M, struct rfx_err *err)
{
	struct rfx_setstats *st;
	int ret = rfx_dirf_fit_begin(p, name, shifted, RFX_PARAM_LAMBDA, X, nx,
				     Y, ny, M, &st, err);

	if (ret)
		return ret;
	if (!st) {
		if (!(p->lambda > 0.0 && isfinite(p->lambda)))
			return rfx_error(err, RFX_EINVAL,
					 "%s: lambda must be positive", name);
		ret = lambda_check(p, name, err);
		return ret ? ret
			   : lambda_fits_sets(p, name, X, nx, Y, ny,
					      shifted ? p->c : NULL, err);
	}
	p->lambda = sqrt(st->mean_x2y2 / p->d);
	if (p->lambda < LAMBDA_MIN)
		p->lambda = LAMBDA_MIN;
	rfx_setstats_free(st);
	return lambda_check(p, name, err);
}

static int pois_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return pois_fit_common(p, "pois", 0, X, nx, Y, ny, M, err);
}

static int pois_plus_fit(struct rfx_params *p, const double *X, size_t nx,
			 const double *Y, size_t ny, int M,
			 struct rfx_err *err)
{
	return pois_fit_common(p, "pois+", 1, X, nx, Y, ny, M, err);
}

RFX_SIMD_CLONES
static int pois_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	double lam = p->lambda, lm = log((double)M);
	size_t i, j, ny = b->ny;

	if (!(lam > 0.0) || !b->has_x2y2)
		return rfx_error(err, RFX_EINVAL, "pois: lambda not fitted");
	for (i = 0; i < b->nx; i++) {
		const double *x2y2 = b->x2y2 + i * ny, *dd = b->dd + i * ny;
		const double *xy = b->xy + i * ny;
		double *o = out + i * ny;
		double c = lam * p->d, ilam = 1.0 / lam; /* no division per pair */

#pragma omp simd
		for (j = 0; j < ny; j++) {
			double e = c + x2y2[j] * ilam - 2.0 * xy[j];

			o[j] = e > 0.0 ? e : 0.0;
		}
		rfx_vmath_logexpm1(o, o, ny);
#pragma omp simd
		for (j = 0; j < ny; j++)
			o[j] = -dd[j] + o[j] - lm;
	}
	return RFX_OK;
}

/*
 * Poisson(mu) counts for mu <= 10 the way gsl_ran_poisson draws them there
 * (Knuth's method: uniforms multiplied until the product falls to
 * e^{-mu} or below; the count is the number of factors less one), with
 * e^{-mu} taken once for all d M counts instead of once per count: the
 * same uniforms in the same order, so the same counts and the same state
 * of r after them (t_est_dirf compares them with GSL's). In rfx
 * variance's Monte Carlo (d M = 512 counts per draw) the exp per count
 * was a fifth of PoisRF's time. Above 10 GSL's own reduction runs.
 */
static double pois_count(const gsl_rng *r, double emu)
{
	double prod = 1.0, k = 0.0;

	do {
		prod *= gsl_rng_uniform(r);
		k += 1.0;
	} while (prod > emu);
	return k - 1.0;
}

static int pois_draw(const gsl_rng *r, enum rfx_proj proj,
		     const struct rfx_params *p, int M, struct rfx_draw *w,
		     struct rfx_err *err)
{
	double emu = exp(-p->lambda);
	int l, m;

	(void)proj;
	if (!(p->lambda > 0.0 && p->lambda <= LAMBDA_MAX))
		return rfx_error(err, RFX_EINVAL,
				 "pois: lambda not fitted or above %g", LAMBDA_MAX);
	for (l = 0; l < w->d; l++)
		for (m = 0; m < M; m++)
			w->omega[(size_t)l * (size_t)w->cap + m] =
				p->lambda <= 10.0
					? pois_count(r, emu)
					: (double)gsl_ran_poisson(r, p->lambda);
	w->ncols = M;
	return RFX_OK;
}

static int pois_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	int m;

	(void)side;
	(void)err;
	for (m = 0; m < M; m++)
		F->cwork[m] = 0.0;
	rfx_dirf_features(F, w, X, n, M, p->c, 0.5 * p->lambda * p->d,
			  -0.5 * log(p->lambda), F->cwork);
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_pois = {
	.name = "pois",
	.title = "PoisRF (thesis sec. 6.4.1)",
	/* poisrf: the thesis' name (sec. 6.4.1, "PoisRFs") */
	.aliases = "poisrf",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "lambda: closed form (thesis sec. 6.4.1)",
	.flags = RFX_EST_DISCRETE | RFX_EST_X2Y2,
	.params = RFX_P(RFX_PARAM_LAMBDA),
	.fit = pois_fit,
	.log_variance = pois_log_variance,
	.draw = pois_draw,
	.features = pois_features,
};

const struct rfx_estimator_type rfx_est_pois_plus = {
	.name = "pois+",
	.title = "PoisRF+ (thesis sec. 6.4.3)",
	/* poisrf+: the thesis' name (sec. 6.4.3, "PoisRFs+") */
	.aliases = "poisrf+",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "lambda: closed form; c: shift making the inputs positive (thesis sec. 6.4.3)",
	.flags = RFX_EST_POSITIVE | RFX_EST_DISCRETE | RFX_EST_X2Y2 |
		 RFX_EST_SHIFTED,
	.params = RFX_P(RFX_PARAM_LAMBDA) | RFX_P(RFX_PARAM_C),
	.fit = pois_plus_fit,
	.log_variance = pois_log_variance,
	.draw = pois_draw,
	.features = pois_features,
};

/*
 * Generalized exponential random features (GERF, thesis sec. 6.3) and their
 * optimal positive special case (OPRF, the features of FAVOR++).
 *
 *   f1 = D exp(A|w|^2 + B w.x + C|x|^2),  f2 = D exp(A|w|^2 + tB w.y + C|y|^2)
 *
 * with w ~ N(0, I_d), t in {-1, +1} and, for unbiasedness (Theorem 13,
 * eq. 6.12), Re(1 - 4A) > 0, B = sqrt(t(1 - 4A)), C = -(t + 1)/2,
 * D = (1 - 4A)^{d/4}. A = 0, t = -1 is TrigRF and A = 0, t = +1 is PosRF.
 *
 * Variance (Theorem 14, eq. 6.13, re-derived: with u = f1 f2,
 * Var Re u = (Re E u^2 + E|u|^2)/2 - K^2 and both moments are Gaussian
 * integrals E exp(a|w|^2 + b w.z) = (1 - 2a)^{-d/2} exp(b^2|z|^2/(2(1-2a)))):
 *
 *   Var = (1/2) e^{-(t+1)(|x|^2+|y|^2)} (Re(a1 e^{a2 v}) + a3 e^{a4 v}) - K^2,
 *   v = |x + t y|^2, a1 = (1-4A)^d (1-8A)^{-d/2}, a2 = 2t(1-4A)/(1-8A),
 *   a3 = (|1-4A|^2/(1-8ReA))^{d/2}, a4 = (|1-4A| + t(1-4ReA))/(1-8ReA),
 *
 * finite iff Re(1 - 8A) > 0. Powers of complex numbers use the principal
 * logarithm, which is what the Gaussian integral gives for Re(1-2a) > 0.
 * For real A, a1 = a3 and log a1 = d log(1-4A) - (d/2) log(1-8A)
 * = -(d/2) log1p(-(u/(1-u))^2) with u = 4A (since (1-2u)/(1-u)^2
 * = 1 - u^2/(1-u)^2), a form without cancellation as A -> 0 (used while
 * |u/(1-u)| < 1/2, the logs beyond); call it la.
 * With t = +1 the variance collapses to
 *   Var = K^2 expm1(la + |x + y|^2/(1-8A)),
 * and with t = -1 (a2 + 1 = -1/(1-8A), a4 + 1 = 1, v = |x - y|^2), writing
 * e^p + e^q - 2 = 2(e^m cosh h - 1) with m, h the half sum and difference,
 *   Var = K^2 (expm1(m) cosh h + 2 sinh^2(h/2)) = K^2 expm1(m + log cosh h),
 *   m = la - 4Av/(1-8A),  h = -v(1-4A)/(1-8A) (only |h| matters).
 * Both are exact even when the variance is many orders below K^2 (tiny
 * inputs, where the general form's 1/2 + 1/2 - 1 loses everything).
 *
 * OPRF takes t = +1 and the real A minimising that variance (Theorem 15,
 * eq. 6.14): A = (1 - 1/rho)/8 with rho the positive root of
 * 2v rho^2 + (2v + d) rho - d = 0, written as 2d / (b + sqrt(b^2 + 8vd)),
 * b = 2v + d, which stays accurate as v -> 0 (rho -> 1, PosRF).
 * GERF minimises over complex A and both t numerically (GSL Nelder-Mead,
 * from several starts including A = 0 and the OPRF point) and keeps the
 * best, as the thesis does with L-BFGS-B (sec. 6.6.1). Both fit from the
 * set statistics of eq. 6.15.
 */
#include <complex.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"
#include "num/setstats.h"

struct gerf_consts {
	int t;                  /* -1 or +1 */
	int real;               /* A real: the cancellation-free forms */
	double la;              /* log a1 = log a3 for real A */
	double complex log_a1;  /* log a1 */
	double complex a2;
	double log_a3, a4;
	double complex log_d;   /* log D */
	double complex b;       /* B */
	double c;               /* C */
	double a_re, a_im;      /* A */
};

/*
 * The largest |Re A| taken: 8A must stay finite (A = -1e308 made 1 - 8A
 * inf, and OPRF's variance read e^-inf = 0 where it is e^705 at -1e307);
 * a fitted A stays far inside (inputs of 1e75 give |A| near 1e150). The
 * log-variance grows as |Im A| |x + t y|^2, and |x + t y|^2 reaches 4e156
 * for inputs within 1e75 (d <= 10^6): |Im A| <= 1e140 keeps it finite
 * (A = 0.1 - 1e200 i gave NaN at |y| = 1e75).
 */
#define GERF_A_MAX 1e300
#define GERF_IM_MAX 1e140

static int gerf_check_a(const char *name, double a_re, double a_im,
			struct rfx_err *err)
{
	if (!(1.0 - 8.0 * a_re > 0.0) || !isfinite(a_im))
		return rfx_error(err, RFX_EINVAL,
				 "%s: variance is infinite unless Re(1 - 8A) > 0, got A = %g%+gi",
				 name, a_re, a_im);
	if (!(fabs(a_re) <= GERF_A_MAX && fabs(a_im) <= GERF_IM_MAX))
		return rfx_error(err, RFX_EINVAL,
				 "%s: A must have |Re A| <= %g and |Im A| <= %g, got A = %g%+gi",
				 name, GERF_A_MAX, GERF_IM_MAX, a_re, a_im);
	return RFX_OK;
}

static void gerf_consts_init(struct gerf_consts *k, double a_re, double a_im,
			     int t, int d)
{
	double complex A = a_re + I * a_im;
	double complex one4 = 1.0 - 4.0 * A, one8 = 1.0 - 8.0 * A;
	double r8 = 1.0 - 8.0 * a_re, m4 = cabs(one4);

	k->t = t;
	k->a_re = a_re;
	k->a_im = a_im;
	k->real = a_im == 0.0;
	{
		/*
		 * log1p(-u^2) near A = 0; far from it (OPRF at huge inputs
		 * has A -> -inf, where u rounds to -1) the logs themselves.
		 */
		double u = 4.0 * a_re / (1.0 - 4.0 * a_re);

		k->la = fabs(u) < 0.5 ? -0.5 * d * log1p(-u * u)
				      : d * log(1.0 - 4.0 * a_re) -
						0.5 * d * log(r8);
	}
	k->log_a1 = d * clog(one4) - 0.5 * d * clog(one8);
	k->a2 = 2.0 * t * one4 / one8;
	k->log_a3 = 0.5 * d * (2.0 * log(m4) - log(r8));
	k->a4 = (m4 + t * (1.0 - 4.0 * a_re)) / r8;
	k->log_d = 0.25 * d * clog(one4);
	k->b = csqrt(t * one4);
	k->c = -(t + 1) / 2.0;
}

/*
 * The block loop, vectorised: the exact real-A, t = +1 form, or the general
 * three-term signed sum with the complex constants split into real parts.
 */
RFX_SIMD_CLONES
static int gerf_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	struct gerf_consts k;
	size_t i, j, ny = b->ny;
	double lm = log((double)M);
	int ret = gerf_check_a("gerf", p->A_re, p->A_im, err);

	if (ret)
		return ret;
	gerf_consts_init(&k, p->A_re, p->A_im, p->t, p->d);
	for (i = 0; i < b->nx; i++) {
		const double *dd = b->dd + i * ny, *ss = b->ss + i * ny;
		double *o = out + i * ny;

		if (k.real && k.t == 1) {
			double la = k.la, c2 = 1.0 / (1.0 - 8.0 * k.a_re);

#pragma omp simd
			for (j = 0; j < ny; j++) {
				double e = la + c2 * ss[j];

				o[j] = e > 0.0 ? e : 0.0;
			}
			rfx_vmath_logexpm1(o, o, ny);
#pragma omp simd
			for (j = 0; j < ny; j++)
				o[j] = -dd[j] + o[j] - lm;
		} else if (k.real) {
			double la = k.la, r8 = 1.0 - 8.0 * k.a_re;
			double cm = 4.0 * k.a_re / r8, ch = (1.0 - 4.0 * k.a_re) / r8;

			/*
			 * expm1(m) cosh h + 2 sinh^2(h/2) = e^{m + log cosh h} - 1,
			 * so log Var/K^2 = logexpm1(m + log cosh h): two terms
			 * of opposite sign (m < 0) are then added as logs, whose
			 * sum is accurate to eps (|m| + log cosh h) instead of
			 * eps cosh h, and it takes four transcendental calls
			 * instead of twelve. log cosh h = log1p(2 sinh^2(h/2)),
			 * sinh from expm1, keeps small h exact; from h = 40 on
			 * it is h - log 2 to within e^-80. ch > 0 (Re(1 - 8A) >
			 * 0 gives 1 - 4A > 1/2), so h >= 0.
			 */
#pragma omp simd
			for (j = 0; j < ny; j++) {
				double m = la - cm * dd[j], h = ch * dd[j];
				double hc = h < 40.0 ? h : 40.0, e = expm1(0.5 * hc);
				double sh = 0.5 * (e + e / (e + 1.0));
				double lc = h < 40.0 ? log1p(2.0 * sh * sh)
						     : h - RFX_LN2;
				double a = m + lc;

				o[j] = a > 0.0 ? a : 0.0;
			}
			rfx_vmath_logexpm1(o, o, ny);
			/*
			 * Below a = 1e-290 the sum m + log cosh h has lost its
			 * terms to underflow (log cosh h ~ h^2/2 vanishes for
			 * |x - y| < 1e-77: GERF's A = 0 gave -inf where TrigRF
			 * has e^-1468). There, Var/K^2 = expm1(m) cosh h +
			 * 2 sinh^2(h/2) as a signed sum of logs; both terms are
			 * tiny, so nothing cancels that matters above e^-1400.
			 */
			for (j = 0; j < ny; j++) {
				double m = la - cm * dd[j], h = ch * dd[j];

				if (o[j] > log(1e-290) || !(h < 1e-100))
					continue;
				o[j] = rfx_logsum3(log(fabs(expm1(m))),
						   m > 0.0 ? 1.0 : (m < 0.0 ? -1.0 : 0.0),
						   RFX_LN2 + 2.0 * log(0.5 * h), 1.0,
						   -INFINITY, 0.0);
			}
#pragma omp simd
			for (j = 0; j < ny; j++)
				o[j] = -dd[j] + o[j] - lm;
		} else {
			/*
			 * Relative to K^2 = e^{-|x-y|^2}: with v = |x + t y|^2,
			 * -(t+1)(|x|^2+|y|^2) + |x-y|^2 = -t v, so
			 * Var = K^2 (Re e^{T1} + e^{T3} - 1) with
			 * T1 = log a1 - log 2 + (a2 - t) v, T3 likewise with a3, a4.
			 */
			double l1r = creal(k.log_a1) - RFX_LN2, l1i = cimag(k.log_a1);
			double a2r = creal(k.a2) - k.t, a2i = cimag(k.a2);
			double l3 = k.log_a3 - RFX_LN2, a4 = k.a4 - k.t;
			const double *vv = k.t == 1 ? ss : dd;

#pragma omp simd
			for (j = 0; j < ny; j++) {
				double cs = cos(l1i + a2i * vv[j]);
				double l0 = l1r + a2r * vv[j] + log(fabs(cs));
				double s0 = cs > 0.0 ? 1.0 : (cs < 0.0 ? -1.0 : 0.0);

				o[j] = -dd[j] + rfx_logsum3(l0, s0, l3 + a4 * vv[j], 1.0,
							    0.0, -1.0) - lm;
			}
		}
	}
	return RFX_OK;
}

/*
 * log of the second moment E (Re f1 f2)^2 at set statistics s (mean of
 * |x|^2 + |y|^2) and v (mean |x + t y|^2): the part of the variance that
 * depends on A and t (K^2 does not), the thesis' fitting objective.
 */
static double gerf_log_m2(double a_re, double a_im, int t, int d, double s,
			  double v)
{
	struct gerf_consts k;
	double complex L1;
	double L3, r;

	gerf_consts_init(&k, a_re, a_im, t, d);
	L1 = k.log_a1 + k.a2 * v;
	L3 = k.log_a3 + k.a4 * v;
	r = 1.0 + exp(creal(L1) - L3) * cos(cimag(L1));
	if (!(r > 0.0) || !isfinite(L3))
		return HUGE_VAL;
	return -(t + 1) * s - RFX_LN2 + L3 + log(r);
}

/*
 * OPRF's rho* (eq. 6.14) in the cancellation-free form, with b factored
 * out of the square root so that b^2 cannot overflow for huge v.
 */
static double oprf_rho(double v, int d)
{
	double b = 2.0 * v + d;

	return 2.0 * d / (b * (1.0 + sqrt(1.0 + 8.0 * v * d / b / b)));
}

static double oprf_a(double v, int d)
{
	return (1.0 - 1.0 / oprf_rho(v, d)) / 8.0;
}

struct gerf_obj {
	int t, d;
	double s, v;
};

/* Unconstrained coordinates (u, b): A = (1 - e^u)/8 + i b, so 1 - 8ReA > 0. */
static double gerf_obj_f(const gsl_vector *x, void *par)
{
	const struct gerf_obj *o = par;
	double u = gsl_vector_get(x, 0), bi = gsl_vector_get(x, 1);

	if (!isfinite(u) || !isfinite(bi) || u > 700.0 || u < -700.0)
		return HUGE_VAL;
	return gerf_log_m2((1.0 - exp(u)) / 8.0, bi, o->t, o->d, o->s, o->v);
}

/* Nelder-Mead from (a_re, a_im); returns the best objective and its A. */
static int gerf_minimize(struct gerf_obj *o, double a_re, double a_im,
			 double *best_re, double *best_im, double *best_f,
			 struct rfx_err *err)
{
	const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
	gsl_multimin_fminimizer *mz = NULL;
	gsl_vector *x = NULL, *step = NULL;
	gsl_multimin_function fn;
	int it, status = GSL_CONTINUE, ret = RFX_ENOMEM;

	fn.n = 2;
	fn.f = gerf_obj_f;
	fn.params = o;
	mz = gsl_multimin_fminimizer_alloc(T, 2);
	x = gsl_vector_alloc(2);
	step = gsl_vector_alloc(2);
	if (!mz || !x || !step) {
		ret = rfx_error(err, RFX_ENOMEM, "gerf: out of memory");
		goto out;
	}
	gsl_vector_set(x, 0, log(1.0 - 8.0 * a_re));
	gsl_vector_set(x, 1, a_im);
	gsl_vector_set(step, 0, 0.5);
	gsl_vector_set(step, 1, 0.05);
	/*
	 * A start whose simplex meets an infinite objective (far outside the
	 * useful range for extreme statistics) is skipped; the fit fails only
	 * if no start works.
	 */
	if (!isfinite(gsl_vector_get(x, 0)) ||
	    gsl_multimin_fminimizer_set(mz, &fn, x, step)) {
		ret = RFX_OK;
		goto out;
	}
	for (it = 0; it < 2000 && status == GSL_CONTINUE; it++) {
		if (gsl_multimin_fminimizer_iterate(mz))
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(mz),
						1e-12);
	}
	if (mz->fval < *best_f) {
		double u = gsl_vector_get(mz->x, 0);

		*best_f = mz->fval;
		*best_re = (1.0 - exp(u)) / 8.0;
		*best_im = gsl_vector_get(mz->x, 1);
	}
	ret = RFX_OK;
out:
	gsl_multimin_fminimizer_free(mz);
	gsl_vector_free(x);
	gsl_vector_free(step);
	return ret;
}

static int fit_stats(struct rfx_setstats **st, const struct rfx_params *p,
		     const double *X, size_t nx, const double *Y, size_t ny,
		     struct rfx_err *err)
{
	int ret;

	*st = rfx_setstats_alloc(p->d);
	if (!*st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_setstats_compute(*st, X, nx, Y, ny, NULL, err);
	if (ret) {
		rfx_setstats_free(*st);
		*st = NULL;
	}
	return ret;
}

/*
 * log Var (in K^2 = e^{-v_-} units of the statistics: the constant that
 * m2 - Var does not depend on A or t, since v_+ + v_- = 2 s) of one
 * candidate at the set statistics v_- = mean |x - y|^2 and
 * v_+ = mean |x + y|^2, through gerf_log_variance's forms on a one-pair
 * block of those values: for real A they are exact even when the
 * variance is far below K^2, where log m2 (the search's objective) is
 * log K^2 to the last bit and cannot rank candidates. The general form
 * for complex A computes K^2 (e^{T1} + e^{T3} - 1) and keeps only the
 * digits above eps: a complex candidate whose Var/K^2 is below 1e-9 is
 * not trusted (HUGE_VAL), so that an exact real form decides there.
 * Candidates the forms cannot rank are HUGE_VAL.
 */
static double gerf_stat_log_var(const struct rfx_params *p, double a_re,
				double a_im, int t, double vm, double vp)
{
	struct rfx_params q = *p;
	struct rfx_block b;
	struct rfx_err err;
	double lv = HUGE_VAL;

	memset(&b, 0, sizeof(b));
	b.d = p->d;
	b.nx = b.ny = 1;
	b.dd = &vm;
	b.ss = &vp;
	q.A_re = a_re;
	q.A_im = a_im;
	q.t = t;
	if (gerf_log_variance(&q, &b, 1, &lv, &err) || isnan(lv))
		return HUGE_VAL;
	if (a_im != 0.0 && !(lv + vm > log(1e-9)))
		return HUGE_VAL;
	/*
	 * An exactly zero variance is real at A = 0 (TrigRF for x = y); at
	 * other A it is an exponent that underflowed (statistics below
	 * 1e-300), not a variance.
	 */
	if (lv == -INFINITY && (a_re != 0.0 || a_im != 0.0))
		return HUGE_VAL;
	return lv;
}

static int gerf_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	struct rfx_setstats *st = NULL;
	int ret, ti, t;
	double best_f = HUGE_VAL, best_re = 0.0, best_im = 0.0, s;
	int best_t = 1;

	ret = rfx_params_check_dim(p, "gerf", X, nx, Y, ny, M, err);
	if (ret)
		return ret;
	if ((p->given & RFX_P(RFX_PARAM_A)) &&
	    (ret = gerf_check_a("gerf", p->A_re, p->A_im, err)))
		return ret;
	if ((p->given & RFX_P(RFX_PARAM_A)) && (p->given & RFX_P(RFX_PARAM_T)))
		return RFX_OK;
	ret = fit_stats(&st, p, X, nx, Y, ny, err);
	if (ret)
		return ret;
	s = st->mean_xx + st->mean_yy;
	for (ti = 0; ti < 2; ti++) {
		struct gerf_obj o;
		double f0 = HUGE_VAL, re = 0.0, im = 0.0;

		t = ti ? 1 : -1;
		if ((p->given & RFX_P(RFX_PARAM_T)) && t != p->t)
			continue;
		o.t = t;
		o.d = p->d;
		o.s = s;
		o.v = rfx_setstats_mean_sum2(st, t);
		if (p->given & RFX_P(RFX_PARAM_A)) {
			f0 = gerf_log_m2(p->A_re, p->A_im, t, p->d, o.s, o.v);
			re = p->A_re;
			im = p->A_im;
		} else {
			/*
			 * Starts: TrigRF/PosRF (A = 0), the OPRF optimum over
			 * real A for this t's v, and small imaginary parts on
			 * both sides (the objective oscillates in Im A).
			 */
			double starts[4][2] = { { 0.0, 0.0 },
						{ oprf_a(o.v, p->d), 0.0 },
						{ 0.0, 0.01 },
						{ 0.0, -0.01 } };
			int k;

			for (k = 0; k < 4; k++) {
				ret = gerf_minimize(&o, starts[k][0], starts[k][1],
						    &re, &im, &f0, err);
				if (ret)
					goto out;
			}
		}
		if (f0 < best_f) {
			best_f = f0;
			best_re = re;
			best_im = im;
			best_t = t;
		}
	}
	if (!(best_f < HUGE_VAL)) {
		ret = rfx_error(err, RFX_ENUMERIC,
				"gerf: no finite-variance parameters found");
		goto out;
	}
	/*
	 * The simplex stops near Im A = 0 rather than on it when the real axis
	 * is optimal; snap to it then, so the exact real-A form applies. Not
	 * a given A: --param A=0.01,0.5 without t ran as A = 0.01.
	 */
	if (!(p->given & RFX_P(RFX_PARAM_A)) && best_im != 0.0 &&
	    gerf_log_m2(best_re, 0.0, best_t, p->d, s,
			rfx_setstats_mean_sum2(st, best_t)) <= best_f + 1e-12)
		best_im = 0.0;
	/*
	 * A fit is never worse than the points it contains: TrigRF (A = 0,
	 * t = -1), PosRF (A = 0, t = +1) and OPRF, ranked with the search's
	 * result by the variance's exact forms (gerf_stat_log_var). For tiny
	 * inputs every candidate's m2 rounds to K^2 and the search wanders:
	 * it ended at e^-39 where TrigRF has e^-182 (issue 21).
	 */
	if (!(p->given & RFX_P(RFX_PARAM_A))) {
		double vm = rfx_setstats_mean_sum2(st, -1);
		double vp = rfx_setstats_mean_sum2(st, 1);
		const struct {
			double re, im;
			int t;
		} c[4] = { { best_re, best_im, best_t }, { 0.0, 0.0, -1 },
			   { 0.0, 0.0, 1 }, { oprf_a(vp, p->d), 0.0, 1 } };
		double best_lv = HUGE_VAL;
		int k, kb = 0;

		for (k = 0; k < 4; k++) {
			double lv;

			if ((p->given & RFX_P(RFX_PARAM_T)) && c[k].t != p->t)
				continue;
			lv = gerf_stat_log_var(p, c[k].re, c[k].im, c[k].t, vm,
					       vp);
			/* ties keep the search's point (k = 0 comes first) */
			if (lv < best_lv) {
				best_lv = lv;
				kb = k;
			}
		}
		best_re = c[kb].re;
		best_im = c[kb].im;
		best_t = c[kb].t;
	}
	p->A_re = best_re;
	p->A_im = best_im;
	p->t = best_t;
	ret = RFX_OK;
out:
	rfx_setstats_free(st);
	return ret;
}

static int oprf_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	struct rfx_setstats *st = NULL;
	int ret = rfx_params_check_dim(p, "oprf", X, nx, Y, ny, M, err);

	if (ret)
		return ret;
	p->t = 1;
	p->A_im = 0.0;
	if (p->given & RFX_P(RFX_PARAM_A))
		return gerf_check_a("oprf", p->A_re, 0.0, err);
	ret = fit_stats(&st, p, X, nx, Y, ny, err);
	if (ret)
		return ret;
	p->A_re = oprf_a(rfx_setstats_mean_sum2(st, 1), p->d);
	rfx_setstats_free(st);
	return RFX_OK;
}

/*
 * One row of gerf_features' general case: from the projections pr and
 * |x|^2 = xx, the log-moduli into lm and the phases into ph. Cloned so
 * that it runs 8 wide: every entry is still the same sums and products
 * in the same order (-std=c11 contracts nothing), so the bytes are those
 * of the scalar loop. lm is F->re, converted in place by
 * rfx_featmat_from_log. With the scalar loop writing back into F->work,
 * the gerf runs of Tables 6.2-6.3 on chess took 0.87 CPU-s instead of
 * 0.62 (3 seeds).
 */
RFX_SIMD_CLONES
static void log_row(const double *pr, double xx, const double *cw, int M,
		    double ldr, double ldi, double c, double a_re, double a_im,
		    double br, double bi, double *lm, double *ph)
{
	double r0 = ldr + c * xx;
	int m;

#pragma omp simd
	for (m = 0; m < M; m++) {
		ph[m] = ldi + a_im * cw[m] + bi * pr[m];
		lm[m] = r0 + a_re * cw[m] + br * pr[m];
	}
}

/*
 * log f = log D + A|w|^2 + (t if side 2) B w.x + C|x|^2 - log(M)/2, its real
 * part the log-modulus and its imaginary part the phase. For real A and
 * t = +1 (OPRF) B is real and the features are positive: the fused map of
 * lib/est/featmap.c with b = B, column constants A|w_m|^2, c = C and
 * e = log D - log(M)/2. Otherwise the log-moduli and phases are written in
 * real arithmetic and converted by rfx_featmat_from_log.
 */
static int gerf_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	struct gerf_consts k;
	double complex bb;
	double ls = -0.5 * log((double)M);
	double br, bi, ldr, ldi;
	size_t i;
	int m, ret = gerf_check_a("gerf", p->A_re, p->A_im, err);

	if (ret)
		return ret;
	gerf_consts_init(&k, p->A_re, p->A_im, p->t, p->d);
	bb = side == 1 ? k.b : k.t * k.b;
	rfx_draw_colnorms(w, 0, M, F->cwork);
	if (k.real && k.t == 1) {
		for (m = 0; m < M; m++)
			F->cwork[m] *= p->A_re;
		rfx_featmat_exp(F, w, X, n, M, creal(bb), F->cwork, k.c,
				creal(k.log_d) + ls);
		return RFX_OK;
	}
	br = creal(bb);
	bi = cimag(bb);
	ldr = creal(k.log_d) + ls;
	ldi = cimag(k.log_d);
	rfx_featmat_project(F, w, X, n, 0, M);
	rfx_rownorms(X, n, w->d, F->work2);
	for (i = 0; i < n; i++)
		log_row(F->work + i * (size_t)M, F->work2[i], F->cwork, M, ldr,
			ldi, k.c, p->A_re, p->A_im, br, bi, F->re + i * (size_t)M,
			F->im + i * (size_t)M);
	rfx_featmat_from_log(F, n, M, F->re, F->im);
	return RFX_OK;
}

/*
 * OPRF's map in float32 (lib/est/featmap32.c): b = B and e = log D -
 * log(M)/2 as above, c = C, the column constants A |w_m|^2 of the float
 * projections.
 */
static int oprf_features32(const struct rfx_params *p,
			   const struct rfx_draw32 *w, int side,
			   const float *X, size_t n, int M,
			   struct rfx_featmat32 *F, struct rfx_err *err)
{
	struct gerf_consts k;
	int ret = gerf_check_a("oprf", p->A_re, 0.0, err);

	(void)side; /* t = +1: both sides alike */
	if (ret)
		return ret;
	gerf_consts_init(&k, p->A_re, 0.0, 1, p->d);
	rfx_draw32_colnorms(w, M, p->A_re, F->cwork);
	rfx_featmat32_exp(F, w, X, n, M, (float)creal(k.b), F->cwork, k.c,
			  creal(k.log_d) - 0.5 * log((double)M));
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_gerf = {
	.name = "gerf",
	.title = "GERF (thesis sec. 6.3)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "A, t: numerical optimum of the variance (thesis eqs. 6.14-6.20)",
	.flags = RFX_EST_COMPLEX,
	.params = RFX_P(RFX_PARAM_A) | RFX_P(RFX_PARAM_T),
	.fit = gerf_fit,
	.log_variance = gerf_log_variance,
	.draw = rfx_draw_gaussian,
	.features = gerf_features,
};

const struct rfx_estimator_type rfx_est_oprf = {
	.name = "oprf",
	.title = "OPRF, FAVOR++ (thesis sec. 6.3, Theorem 15)",
	/* favor++: the thesis' name for OPRFs in attention (sec. 6.6.2, 6.6.3) */
	.aliases = "favor++",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "A: closed form rho* (thesis Theorem 15)",
	.flags = RFX_EST_POSITIVE,
	.params = RFX_P(RFX_PARAM_A),
	.fit = oprf_fit,
	.log_variance = gerf_log_variance,
	.draw = rfx_draw_gaussian,
	.features = gerf_features,
	.features32 = oprf_features32,
};

/*
 * TrigRF, PosRF, GERF and OPRF: closed forms against Monte Carlo, the
 * special cases of GERF, OPRF's optimality over real A, GERF's numerical
 * optimum, and the log-domain range (x.y ~ 250, far pairs).
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>

#include "tap.h"
#include "est_check.h"
#include "num/logmath.h"

static const double x3[3] = { 0.31, -0.22, 0.47 };
static const double y3[3] = { 0.12, 0.38, -0.26 };

/*
 * Independent closed forms, derived in the comments of the estimators but
 * written here from scratch in plain doubles (valid at moderate norms):
 *   TrigRF  Var = (1 - K^2)^2 / 2M
 *   PosRF   Var = (exp(4 x.y) - K^2) / M
 */
static double dot(const double *a, const double *b, int d)
{
	double s = 0.0;

	for (int l = 0; l < d; l++)
		s += a[l] * b[l];
	return s;
}

static void test_mc(void)
{
	struct rfx_params p;
	double xs[3], ys[3];

	rfx_params_init(&p, 3);
	check_estimator_mc(&rfx_est_trig, &p, x3, y3, 1, 40000, 11, "d=3 M=1");
	check_estimator_mc(&rfx_est_pos, &p, x3, y3, 1, 40000, 12, "d=3 M=1");
	check_estimator_mc(&rfx_est_pos, &p, x3, y3, 5, 20000, 13, "d=3 M=5");
	check_estimator_mc(&rfx_est_oprf, &p, x3, y3, 1, 40000, 14, "d=3 M=1");
	check_estimator_mc(&rfx_est_oprf, &p, x3, y3, 4, 20000, 15, "d=3 M=4");
	check_estimator_mc(&rfx_est_gerf, &p, x3, y3, 1, 40000, 16,
			   "d=3 M=1 fitted");
	/* A complex A with t = -1 and with t = +1, given by the user. */
	p.A_re = -0.05;
	p.A_im = 0.07;
	p.t = -1;
	p.given = RFX_P(RFX_PARAM_A) | RFX_P(RFX_PARAM_T);
	check_estimator_mc(&rfx_est_gerf, &p, x3, y3, 1, 40000, 17,
			   "A=-0.05+0.07i t=-1");
	p.t = 1;
	check_estimator_mc(&rfx_est_gerf, &p, x3, y3, 1, 40000, 18,
			   "A=-0.05+0.07i t=+1");
	/* Larger norms: the estimators' variances differ by orders here. */
	for (int l = 0; l < 3; l++) {
		xs[l] = 2.0 * x3[l];
		ys[l] = 2.0 * y3[l];
	}
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	check_estimator_mc(&rfx_est_trig, &p, xs, ys, 2, 40000, 19, "2x norms");
	check_estimator_mc(&rfx_est_pos, &p, xs, ys, 2, 40000, 20, "2x norms");
	check_estimator_mc(&rfx_est_oprf, &p, xs, ys, 2, 40000, 21, "2x norms");
	rfx_params_release(&p);
}

static void test_closed_forms(void)
{
	struct rfx_params p;
	double K = exp(rfx_kernel_gauss_log(x3, y3, 3));
	double xy = dot(x3, y3, 3);

	rfx_params_init(&p, 3);
	is_approx(check_log_var(&rfx_est_trig, &p, x3, y3, 3),
		  log((1 - K * K) * (1 - K * K) / 6.0), TEST_TOL2,
		  "trig: (1 - K^2)^2 / 2M (eq. 2.12), not (1 - K^2)/2M (eq. 2.10)");
	is_approx(check_log_var(&rfx_est_pos, &p, x3, y3, 3),
		  log((exp(4 * xy) - K * K) / 3.0), TEST_TOL2,
		  "pos: (e^{4xy} - K^2)/M (eq. 4.4)");
	/* GERF special cases: A = 0, t = -1 is TrigRF; A = 0, t = +1 PosRF. */
	p.A_re = p.A_im = 0.0;
	p.t = -1;
	is_approx(check_log_var(&rfx_est_gerf, &p, x3, y3, 3),
		  log((1 - K * K) * (1 - K * K) / 6.0), TEST_TOL3,
		  "gerf A=0 t=-1 equals TrigRF");
	p.t = 1;
	is_approx(check_log_var(&rfx_est_gerf, &p, x3, y3, 3),
		  log((exp(4 * xy) - K * K) / 3.0), TEST_TOL3,
		  "gerf A=0 t=+1 equals PosRF");
	/* The general complex branch at real A, t=+1 agrees with the exact one. */
	p.A_re = -0.1;
	p.A_im = 1e-300;
	{
		double general = check_log_var(&rfx_est_gerf, &p, x3, y3, 1);

		p.A_im = 0.0;
		is_approx(general, check_log_var(&rfx_est_gerf, &p, x3, y3, 1),
			  1e-9, "gerf: complex-A form agrees with the real t=+1 form");
	}
	rfx_params_release(&p);
}

/* log Var of GERF with real A, t = +1, for the Brent search below. */
struct oprf_obj {
	const double *x, *y;
	int d;
};

static double oprf_obj(double a, void *par)
{
	const struct oprf_obj *o = par;
	struct rfx_params p;
	double v;

	rfx_params_init(&p, o->d);
	p.A_re = a;
	p.t = 1;
	v = check_log_var(&rfx_est_gerf, &p, o->x, o->y, 1);
	rfx_params_release(&p);
	return v;
}

static void test_oprf_optimal(void)
{
	static const double x[4] = { 0.9, -0.4, 1.3, 0.25 };
	static const double y[4] = { 0.7, 0.35, 0.8, -0.6 };
	struct oprf_obj o = { x, y, 4 };
	struct rfx_params p;
	struct rfx_err err;
	gsl_min_fminimizer *mz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
	gsl_function F = { oprf_obj, &o };
	double a, lv_oprf;
	int it;

	rfx_params_init(&p, 4);
	ok(!rfx_est_oprf.fit(&p, x, 1, y, 1, 1, &err), "oprf fits a pair");
	lv_oprf = check_log_var(&rfx_est_oprf, &p, x, y, 1);
	gsl_min_fminimizer_set(mz, &F, -0.2, -2.0, 0.12);
	for (it = 0; it < 200; it++) {
		gsl_min_fminimizer_iterate(mz);
		if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(mz),
					  gsl_min_fminimizer_x_upper(mz), 1e-12,
					  0.0) == GSL_SUCCESS)
			break;
	}
	a = gsl_min_fminimizer_x_minimum(mz);
	is_approx(p.A_re, a, 1e-6,
		  "oprf: closed-form A = (1 - 1/rho*)/8 (eq. 6.14) is the Brent minimiser over real A");
	ok(lv_oprf <= oprf_obj(a, &o) + 1e-12,
	   "oprf: its variance is the minimum over real A (%.12g <= %.12g)",
	   lv_oprf, oprf_obj(a, &o));
	ok(p.A_re < 0.0, "oprf: A* < 0, so the features are bounded");
	gsl_min_fminimizer_free(mz);
	rfx_params_release(&p);
}

static void test_gerf_optimum(void)
{
	static const double x[4] = { 0.9, -0.4, 1.3, 0.25 };
	static const double y[4] = { -0.7, 0.35, 0.8, -0.6 };
	struct rfx_params p, q;
	struct rfx_err err;
	double best = HUGE_VAL, lv, lv_oprf, lv_trig;
	int t;

	rfx_params_init(&p, 4);
	rfx_params_init(&q, 4);
	ok(!rfx_est_gerf.fit(&p, x, 1, y, 1, 1, &err), "gerf fits a pair");
	lv = check_log_var(&rfx_est_gerf, &p, x, y, 1);
	ok(!rfx_est_oprf.fit(&q, x, 1, y, 1, 1, &err), "oprf fits the pair");
	lv_oprf = check_log_var(&rfx_est_oprf, &q, x, y, 1);
	lv_trig = check_log_var(&rfx_est_trig, &q, x, y, 1);
	ok(lv <= lv_oprf + 1e-9 && lv <= lv_trig + 1e-9,
	   "gerf optimum %.6g is no worse than OPRF %.6g and TrigRF %.6g", lv,
	   lv_oprf, lv_trig);
	/* An independent brute-force search over a grid of complex A. */
	for (t = -1; t <= 1; t += 2)
		for (double ar = -1.5; ar < 0.124; ar += 0.005)
			for (double ai = -0.5; ai <= 0.5; ai += 0.005) {
				double v;

				q.A_re = ar;
				q.A_im = ai;
				q.t = t;
				v = check_log_var(&rfx_est_gerf, &q, x, y, 1);
				if (v < best)
					best = v;
			}
	ok(lv <= best + 1e-3,
	   "gerf numerical optimum %.8g is at least as good as a 0.005 grid over complex A and t (%.8g)",
	   lv, best);
	rfx_params_release(&p);
	rfx_params_release(&q);
}

static void test_log_domain(void)
{
	struct rfx_params p;
	double x[64], y[64], xy = 0.0, dd = 0.0, lv;
	int l;

	/* PosRF with x.y = 250: Var = K^2 expm1(|x + y|^2) ~ e^{1000 - ...}. */
	for (l = 0; l < 64; l++) {
		x[l] = 2.0 + 0.01 * l;
		y[l] = 250.0 / 64.0 / x[l];
		xy += x[l] * y[l];
		dd += (x[l] - y[l]) * (x[l] - y[l]);
	}
	rfx_params_init(&p, 64);
	lv = check_log_var(&rfx_est_pos, &p, x, y, 1);
	/* |x + y|^2 = dd + 4 xy; expm1 of it is exp of it to double precision. */
	is_approx(lv, -dd + dd + 4 * xy, 1e-12,
		  "pos at x.y = 250: log Var = 4 x.y - ... = %.10g, finite", lv);
	ok(isfinite(lv) && lv > 700, "pos log-variance exceeds double range (%.1f)",
	   lv);
	/* OPRF on a far pair: K^2 = e^{-dd}, far below double range. */
	for (l = 0; l < 64; l++) {
		x[l] = 3.0;
		y[l] = -2.0 + 0.05 * l;
	}
	ok(!rfx_est_oprf.fit(&p, x, 1, y, 1, 1, NULL), "oprf fits a far pair");
	lv = check_log_var(&rfx_est_oprf, &p, x, y, 1);
	ok(isfinite(lv) && lv < -700, "oprf on a far pair: log Var %.1f finite",
	   lv);
	rfx_params_release(&p);
}

/*
 * Real A at tiny inputs, where the variance is many orders below K^2 and
 * the general form (e^T1 + e^T3)/2 - 1 cancels to nothing, and at A far
 * below 0 (OPRF's fit at huge inputs). The expected values come from the
 * moments written from first principles, not from the estimator's form:
 *   t = +1: E u^2 = (1-4A)^d (1-8A)^{-d/2} e^{-2(|x|^2+|y|^2)}
 *                   e^{2(1-4A)|x+y|^2/(1-8A)},
 *   t = -1: E (Re u)^2 = (1-4A)^d (1-8A)^{-d/2} (1 + e^{-2(1-4A)|x-y|^2/(1-8A)})/2,
 * Var = that - e^{-|x-y|^2}, evaluated with Python's decimal module at
 * 700 digits for x = s (0.3, 1.1, -0.4), y = s (0.9, -0.2, 0.5), M = 1.
 */
static void test_tiny(void)
{
	static const struct {
		double s;           /* input scale */
		const char *a, *t;  /* parameters */
		double want;        /* log Var */
	} c[] = {
		{ 1e-4, "A=1e-9", "t=-1", -35.682658073626330 },
		{ 1e-8, "A=1e-9", "t=-1", -38.268477883211543 },
		{ 1e-6, "A=-0.01", "t=-1", -6.1088773722841472 },
		{ 1e-8, "A=-1e-12", "t=1", -36.025996568433852 },
		{ 1e-30, "A=0.001", "t=1", -10.629420523679969 },
		{ 1.0, "A=-1e10", "t=1", 32.718497165835103 },
		{ 1.0, "A=-1e10", "t=-1", 34.941038926856647 },
	};
	static const double xu[3] = { 0.3, 1.1, -0.4 }, yu[3] = { 0.9, -0.2, 0.5 };
	struct rfx_params p;
	struct rfx_err err;
	size_t k;
	int l;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		double x[3], y[3], lv;

		for (l = 0; l < 3; l++) {
			x[l] = c[k].s * xu[l];
			y[l] = c[k].s * yu[l];
		}
		rfx_params_init(&p, 3);
		if (rfx_params_parse(&p, &rfx_est_gerf, c[k].a, &err) ||
		    rfx_params_parse(&p, &rfx_est_gerf, c[k].t, &err))
			diag("%s", err.msg);
		lv = check_log_var(&rfx_est_gerf, &p, x, y, 1);
		is_approx(lv, c[k].want, 1e-12, "gerf %s %s at inputs ~%g: log Var %.15g",
			  c[k].a, c[k].t, c[k].s, lv);
		rfx_params_release(&p);
	}
}

static void test_errors(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double lv;
	struct rfx_block *b = rfx_block_alloc(3, 1, 1);

	rfx_params_init(&p, 3);
	ok(rfx_params_parse(&p, &rfx_est_gerf, "A=0.2", &err) == RFX_OK,
	   "A=0.2 parses");
	ok(rfx_est_gerf.fit(&p, x3, 1, y3, 1, 1, &err) == RFX_EINVAL &&
		   strstr(err.msg, "Re(1 - 8A)"),
	   "gerf with Re(1-8A) <= 0 is rejected: %s", err.msg);
	rfx_estimator_block(&rfx_est_gerf, &p, b, x3, 1, y3, 1, &err);
	ok(rfx_est_gerf.log_variance(&p, b, 1, &lv, &err) == RFX_EINVAL,
	   "log_variance rejects it too");
	ok(rfx_params_parse(&p, &rfx_est_oprf, "A=1,2", &err) == RFX_EINVAL,
	   "oprf takes a real A only: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_gerf, "t=0", &err) == RFX_EINVAL,
	   "t must be -1 or 1: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_oprf, "q=0.5", &err) == RFX_EINVAL &&
		   strstr(err.msg, "oprf has no parameter 'q'"),
	   "unknown parameter names the estimator: %s", err.msg);
	rfx_block_free(b);
	rfx_params_release(&p);
}

/*
 * The largest A. For real A -> -inf the second moment of OPRF (written
 * from the Gaussian integral E exp(a|w|^2 + b.w) = (1-2a)^{-d/2}
 * exp(|b|^2 / 2(1-2a))) over K^2 is (1-4A)^d (1-8A)^{-d/2} e^{8A|x+y|^2 /
 * (1-8A) + 2x.y} -> (2|A|)^{d/2} e^{2x.y - |x+y|^2}: so the log variance
 * at A = -1e300 exceeds that at -1e299 by (d/2) log 10, to rounding. A
 * beyond 1e300 is refused: at -1e308, 8A overflowed and the variance
 * read 0. A given A is kept when t is fitted (it ran as its real part).
 */
static void test_large_a(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double lv[2];
	int k;

	for (k = 0; k < 2; k++) {
		rfx_params_init(&p, 3);
		rfx_params_parse(&p, &rfx_est_oprf, k ? "A=-1e299" : "A=-1e300",
				 &err);
		lv[k] = rfx_est_oprf.fit(&p, x3, 1, y3, 1, 4, &err) == RFX_OK
				? check_log_var(&rfx_est_oprf, &p, x3, y3, 4)
				: NAN;
		rfx_params_release(&p);
	}
	ok(isfinite(lv[0]) && fabs(lv[0] - lv[1] - 1.5 * log(10.0)) < 1e-9,
	   "OPRF at A = -1e300 and -1e299: log variances %.17g and %.17g, "
	   "(3/2) log 10 apart", lv[0], lv[1]);
	rfx_params_init(&p, 3);
	rfx_params_parse(&p, &rfx_est_oprf, "A=-1e301", &err);
	rfx_err_clear(&err);
	ok(rfx_est_oprf.fit(&p, x3, 1, y3, 1, 4, &err) == RFX_EINVAL &&
		   strstr(err.msg, "1e+300"),
	   "A = -1e301 is refused: %s", err.msg);
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	rfx_params_parse(&p, &rfx_est_gerf, "A=0.01,0.5", &err);
	ok(rfx_est_gerf.fit(&p, x3, 1, y3, 1, 4, &err) == RFX_OK &&
		   p.A_re == 0.01 && p.A_im == 0.5,
	   "a given complex A is kept while t is fitted: %g%+gi", p.A_re,
	   p.A_im);
	rfx_params_release(&p);
}

/*
 * The fit contains A = 0 with t = -1 (TrigRF) and t = +1 (PosRF), so it is
 * never worse than either at the same budget, whatever the inputs' scale
 * (issue 21: for inputs of length 1e-20 the search ended at e^-39 where
 * TrigRF has e^-182). TrigRF's own file gives the t = -1 reference; the
 * t = +1 one is GERF with those parameters given.
 */
static void test_fit_contains_special_cases(void)
{
	static const struct {
		double x[2], y[2];
		const char *what;
	} c[] = {
		{ { 1e-20, 2e-20 }, { 2e-20, -1e-20 }, "tiny (1e-20)" },
		{ { 3e-160, -1e-160 }, { 2e-160, 5e-160 }, "tiny (1e-160)" },
		{ { 0.31, -0.22 }, { 0.12, 0.38 }, "generic" },
		{ { 2.1, 1.3 }, { -1.7, 0.4 }, "obtuse, larger" },
		{ { 14.2, -9.1 }, { 11.5, -8.7 }, "huge, close" },
		{ { 14.2, -9.1 }, { -13.9, 9.3 }, "huge, opposite" },
	};
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct rfx_params p, q;
		struct rfx_err err;
		double lv, lt, lp;
		int M = 4;

		rfx_params_init(&p, 2);
		rfx_params_init(&q, 2);
		if (rfx_est_gerf.fit(&p, c[k].x, 1, c[k].y, 1, M, &err)) {
			ok(0, "gerf %s: fit (%s)", c[k].what, err.msg);
			goto next;
		}
		lv = check_log_var(&rfx_est_gerf, &p, c[k].x, c[k].y, M);
		lt = check_log_var(&rfx_est_trig, &q, c[k].x, c[k].y, M);
		q.A_re = q.A_im = 0.0;
		q.t = 1;
		q.given = RFX_P(RFX_PARAM_A) | RFX_P(RFX_PARAM_T);
		lp = check_log_var(&rfx_est_gerf, &q, c[k].x, c[k].y, M);
		ok(lv <= lt + 1e-9 * fabs(lt) && lv <= lp + 1e-9 * fabs(lp),
		   "gerf %s: fitted log Var %.10g <= TrigRF %.10g, A = 0 t = +1 %.10g",
		   c[k].what, lv, lt, lp);
next:
		rfx_params_release(&p);
		rfx_params_release(&q);
	}
}

int main(void)
{
	gsl_set_error_handler_off();
	test_closed_forms();
	test_mc();
	test_oprf_optimal();
	test_gerf_optimum();
	test_log_domain();
	test_tiny();
	test_errors();
	test_large_a();
	test_fit_contains_special_cases();
	return done_testing();
}

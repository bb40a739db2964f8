/*
 * Complex exponential estimators (HRF sec. 2.3 and appendix H): the closed
 * form against Monte Carlo for real and complex diagonal A, the special
 * cases A = iI (TrigRF) and A = I (PosRF), the zero-variance condition of
 * eqs. 17-18, and the fitted diagonals against eqs. 85-88.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "est_check.h"
#include "num/logmath.h"

static const double x3[3] = { 0.31, -0.22, 0.47 };
static const double y3[3] = { 0.12, 0.38, -0.26 };

static void test_mc(void)
{
	struct rfx_params p;

	rfx_params_init(&p, 3);
	check_estimator_mc(&rfx_est_cexp, &p, x3, y3, 4, 40000, 101,
			   "fitted real A");
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	rfx_params_parse(&p, &rfx_est_cexp_c, "a=0.8:0.3,1.2:-0.5,0.4:0.9", NULL);
	check_estimator_mc(&rfx_est_cexp_c, &p, x3, y3, 4, 40000, 102,
			   "a complex A");
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	rfx_params_parse(&p, &rfx_est_cexp, "a=1.5,0.7,2", NULL);
	check_estimator_mc(&rfx_est_cexp, &p, x3, y3, 2, 40000, 103,
			   "a real A, M = 2");
	rfx_params_release(&p);
}

/*
 * A = iI gives TrigRF, A = I gives PosRF (HRF sec. 2.3): the same closed
 * forms (each estimator's own code) for two pairs.
 */
static void test_special_cases(void)
{
	static const double xs[3] = { 0.9, -0.4, 1.3 }, ys[3] = { -0.7, 0.35, 0.8 };
	struct rfx_params p, q;
	int k;

	for (k = 0; k < 2; k++) {
		const double *x = k ? xs : x3, *y = k ? ys : y3;

		rfx_params_init(&p, 3);
		rfx_params_init(&q, 3);
		rfx_params_parse(&p, &rfx_est_cexp_c, "a=0:1,0:1,0:1", NULL);
		is_approx(check_log_var(&rfx_est_cexp_c, &p, x, y, 3),
			  check_log_var(&rfx_est_trig, &q, x, y, 3), 1e-10,
			  "A = iI is TrigRF (pair %d)", k);
		rfx_params_parse(&p, &rfx_est_cexp, "a=1,1,1", NULL);
		is_approx(check_log_var(&rfx_est_cexp, &p, x, y, 3),
			  check_log_var(&rfx_est_pos, &q, x, y, 3), 1e-10,
			  "A = I is PosRF (pair %d)", k);
		rfx_params_release(&p);
		rfx_params_release(&q);
	}
}

/*
 * Eqs. 17-18: zero variance when A x + A^{-1} y = 0. cexp-c fitted to a
 * pair with x_l y_l of both signs solves it exactly (eqs. 85-87); the real
 * fit (eq. 88) cannot where x_l y_l > 0. The estimates of every draw then
 * coincide.
 */
static void test_zero_variance(void)
{
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(104, 0, 0, 0);
	double lv, K = exp(rfx_kernel_gauss_log(x3, y3, 3));

	rfx_params_init(&p, 3);
	ok(!rfx_est_cexp_c.fit(&p, x3, 1, y3, 1, 8, &err), "cexp-c fits the pair");
	ok(p.a_re[0] == 0.0 && fabs(p.a_im[0] - sqrt(0.12 / 0.31)) < 1e-15 &&
		   fabs(p.a_re[1] - sqrt(0.38 / 0.22)) < 1e-15 && p.a_im[1] == 0.0,
	   "eqs. 86-87: a = i sqrt(y/x) when x y > 0, sqrt(-y/x) when x y < 0");
	lv = check_log_var(&rfx_est_cexp_c, &p, x3, y3, 8);
	ok(lv < 2 * log(K) - 60.0, "zero variance at the fitted pair (log Var %.1f, rounding)",
	   lv);
	rfx_mc_pairs(&rfx_est_cexp_c, &p, RFX_PROJ_IID, 8, x3, y3, 1, 1000, r, &mc,
		     &err);
	ok(fabs(mc.mean - K) < 1e-13 * K && mc.log_var < 2 * log(K) - 60.0,
	   "Monte Carlo: every estimate is K = %.12g (sample log Var %.1f)", K,
	   mc.log_var);
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	ok(!rfx_est_cexp.fit(&p, x3, 1, y3, 1, 8, &err), "cexp (real A) fits the pair");
	lv = check_log_var(&rfx_est_cexp, &p, x3, y3, 8);
	ok(lv > 2 * log(K) - 20.0,
	   "the real diagonal leaves a variance (log Var %.2f): x_0 y_0 > 0", lv);
	rfx_params_release(&p);
	gsl_rng_free(r);
}

/* l(a) = (a x + y/a)^2 for one coordinate, for the Brent search below. */
struct loss_arg {
	double x, y;
};

static double loss(double la, void *par)
{
	const struct loss_arg *o = par;
	double a = exp(la), z = a * o->x + o->y / a;

	return z * z;
}

/*
 * Eq. 88: the real a minimising |A x + A^{-1} y|^2 coordinate by coordinate
 * is sqrt(|y/x|); checked against Brent's method on log a, for the centres
 * of two sets.
 */
static void test_real_fit(void)
{
	static const double X[6] = { 0.5, -1.2, 0.3, 0.7, -0.8, 0.9 };
	static const double Y[6] = { 0.4, 0.6, 0.2, 0.1, 0.5, 1.1 };
	struct rfx_params p;
	struct rfx_err err;
	double worst = 0.0;
	int l;

	rfx_params_init(&p, 3);
	ok(!rfx_est_cexp.fit(&p, X, 2, Y, 2, 4, &err), "cexp fits two sets");
	for (l = 0; l < 3; l++) {
		struct loss_arg o = { 0.5 * (X[l] + X[3 + l]), 0.5 * (Y[l] + Y[3 + l]) };
		gsl_function F = { loss, &o };
		gsl_min_fminimizer *mz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
		int it;

		gsl_min_fminimizer_set(mz, &F, log(0.9), log(1e-3), log(1e3));
		for (it = 0; it < 200; it++) {
			gsl_min_fminimizer_iterate(mz);
			if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(mz),
						  gsl_min_fminimizer_x_upper(mz),
						  1e-10, 0.0) == GSL_SUCCESS)
				break;
		}
		if (fabs(loss(log(p.a_re[l]), &o) -
			 loss(gsl_min_fminimizer_x_minimum(mz), &o)) > worst)
			worst = fabs(loss(log(p.a_re[l]), &o) -
				     loss(gsl_min_fminimizer_x_minimum(mz), &o));
		gsl_min_fminimizer_free(mz);
	}
	ok(worst < 1e-9,
	   "eq. 88 at the centres is the minimum of l(A) over real diagonals (Brent, max difference %.2g)",
	   worst);
	rfx_params_release(&p);
}

/*
 * Centres whose ratio leaves double range, though both are in the input
 * range (|x_l| from 2.2e-308 to 1e75): y_0 / x_0 = 1e9 / 1e-300 overflows,
 * and the fit gave a = inf and an infinite variance. Eq. 88's
 * a = sqrt(|y/x|) = sqrt(1e9) / sqrt(1e-300) = 3.16227766016838e154 is
 * finite; eqs. 86-87 give i times it (x_0 y_0 > 0), and then Z = 0 in
 * every coordinate, so cexp-c is exact there again.
 */
static void test_far_ratio(void)
{
	static const double x[2] = { 1e-300, 0.3 }, y[2] = { 1e9, 0.45 };
	const double want = sqrt(1e9) * 1e150;
	struct rfx_params p;
	struct rfx_err err;
	double lv, lk = rfx_kernel_gauss_log(x, y, 2);

	rfx_params_init(&p, 2);
	if (!ok(!rfx_est_cexp.fit(&p, x, 1, y, 1, 8, &err), "cexp fits the far pair"))
		return;
	ok(fabs(p.a_re[0] / want - 1.0) < 1e-14 && p.a_im[0] == 0.0,
	   "cexp: a_0 = sqrt(|y_0 / x_0|) = %.6g where the ratio overflows", p.a_re[0]);
	lv = check_log_var(&rfx_est_cexp, &p, x, y, 8);
	ok(isfinite(lv), "cexp: a finite log-variance there (%.6g)", lv);
	rfx_params_release(&p);
	rfx_params_init(&p, 2);
	if (!ok(!rfx_est_cexp_c.fit(&p, x, 1, y, 1, 8, &err), "cexp-c fits the far pair"))
		return;
	ok(p.a_re[0] == 0.0 && fabs(p.a_im[0] / want - 1.0) < 1e-14,
	   "cexp-c: a_0 = i sqrt(y_0 / x_0) there (%.6g i)", p.a_im[0]);
	lv = check_log_var(&rfx_est_cexp_c, &p, x, y, 8);
	ok(lv < 2 * lk - 60.0, "cexp-c: zero variance there, to rounding (log Var %.6g)", lv);
	rfx_params_release(&p);
}

/*
 * Centres that nearly cancel. Rows 1e30, -1e30 and 1e-300 of coordinate
 * 0 have the centre 1e-300/3, so eq. 88 gives a_0 = sqrt(1 / (1e-300/3))
 * = 1.73e150 against y_0 = 1, and a_0 x_0 reaches 1.73e180 on the first
 * row: (a x)^2 overflows, the features came out NaN (cexp-c) or 0 (cexp)
 * and the closed form non-finite. A given a within [1e-70, 1e70] keeps
 * |a x_l| and |y_l / a| within 1e145 for inputs within 1e75, so a fitted
 * one is held to the same: beyond it, fitting is refused by name (and
 * the other way round for the y's). Rows of 1e-10 and -1e-10 beside
 * 1e-300 keep |a x| at 1.73e140: fitted, and every closed form and
 * feature finite.
 */
static void test_cancelling_centres(void)
{
	static const double big[6] = { 1e30, 1.0, -1e30, 1.0, 1e-300, 1.0 };
	static const double small[6] = { 1e-10, 1.0, -1e-10, 1.0, 1e-300, 1.0 };
	static const double ones[6] = { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 };
	const struct rfx_estimator_type *const es[2] = { &rfx_est_cexp,
							 &rfx_est_cexp_c };
	struct rfx_params p;
	struct rfx_err err;
	int k, side;

	for (k = 0; k < 2; k++) {
		const struct rfx_estimator_type *e = es[k];

		for (side = 0; side < 2; side++) {
			int ret;

			rfx_params_init(&p, 2);
			ret = side ? e->fit(&p, ones, 3, big, 3, 8, &err)
				   : e->fit(&p, big, 3, ones, 3, 8, &err);
			ok(ret == RFX_EINVAL && strstr(err.msg, "cannot fit a") &&
				   !strchr(err.msg, '\n'),
			   "%s: centres that cancel on the %s side are refused: %s",
			   e->name, side ? "y" : "x", ret ? err.msg : "(fitted)");
			rfx_params_release(&p);
		}
		rfx_params_init(&p, 2);
		if (ok(!e->fit(&p, small, 3, ones, 3, 8, &err),
		       "%s: |a x| up to 1.7e140 is fitted", e->name)) {
			struct rfx_block *b = rfx_block_alloc(2, 3, 3);
			int D = rfx_estimator_feature_dim(e, &p, 8), bad = 0;
			struct rfx_draw *w = rfx_draw_alloc(2, D);
			struct rfx_featmat *F = rfx_featmat_alloc(3, D);
			gsl_rng *r = rfx_rng_alloc_stream(107, 0, 0, 0);
			double lv[9];
			size_t q;
			int ret;

			ok(fabs(hypot(p.a_re[0], p.a_im[0]) / (sqrt(3.0) * 1e150) - 1.0) < 1e-14,
			   "%s: |a_0| = sqrt(3) 1e150, eq. 88 on the centre 1e-300/3 (%.6g)",
			   e->name, hypot(p.a_re[0], p.a_im[0]));
			if (!b || !w || !F || !r ||
			    rfx_estimator_block(e, &p, b, small, 3, ones, 3, &err) ||
			    e->log_variance(&p, b, 8, lv, &err))
				bad = -1;
			for (q = 0; !bad && q < 9; q++)
				bad += isnan(lv[q]) || lv[q] == INFINITY;
			for (side = 1; !bad && side <= 2; side++) {
				if (e->draw(r, RFX_PROJ_IID, &p, 8, w, &err) ||
				    e->features(&p, w, side, side == 1 ? small : ones, 3,
						8, F, &err)) {
					bad = -1;
					break;
				}
				for (q = 0; q < 3 * (size_t)D; q++)
					bad += !isfinite(F->re[q]) ||
					       (F->is_complex && !isfinite(F->im[q]));
				for (q = 0; q < 3; q++)
					bad += !isfinite(F->lscale[q]);
			}
			ok(bad == 0, "%s: there every log-variance is finite or -inf and every feature finite (%d bad)",
			   e->name, bad);
			/*
			 * That a maps other inputs: 1e30 takes |a x| to
			 * 1.7e180 on side 1, and 1 / a takes the rows of
			 * 1e-10 to |x / a| = 5.8e-161 but 1e30 (on the
			 * y's) fine; refused by name where the reach passes.
			 */
			ret = e->features(&p, w, 1, big, 3, 8, F, &err);
			ok(ret == RFX_EINVAL && strstr(err.msg, "too large for the sets"),
			   "%s: features of inputs beyond the fitted a's reach are refused: %s",
			   e->name, ret ? err.msg : "(mapped)");
			ret = rfx_estimator_block(e, &p, b, big, 3, ones, 3, &err);
			ret = ret ? ret : e->log_variance(&p, b, 8, lv, &err);
			ok(ret == RFX_EINVAL && strstr(err.msg, "too large for the sets"),
			   "%s: so is their closed form: %s", e->name,
			   ret ? err.msg : "(computed)");
			rfx_block_free(b);
			rfx_draw_free(w);
			rfx_featmat_free(F);
			if (r)
				gsl_rng_free(r);
		}
		rfx_params_release(&p);
	}
}

static void test_errors(void)
{
	struct rfx_params p;
	struct rfx_err err;

	rfx_params_init(&p, 3);
	ok(rfx_params_parse(&p, &rfx_est_cexp, "a=1,0,2", &err) == RFX_EINVAL,
	   "a zero diagonal entry (A singular) is rejected: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_cexp, "a=1,2", &err) == RFX_EINVAL,
	   "a of the wrong length is rejected: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_cexp_c, "a=1:x,2,3", &err) == RFX_EINVAL,
	   "a malformed entry is rejected: %s", err.msg);
	rfx_params_release(&p);
}

/*
 * HRF sec. 2.3 says A = I gives SM^{++}, the positive estimator of eq. 3;
 * it gives the one-sided exp(w.x) estimator (PosRF, above), whose variance
 * is that of eq. 3's cosh estimator (posh) over (1 - e^{-|x+y|^2})/2
 * (docs/ERRATA.md, H6). And the reason rfx's clustered experiment reads
 * the paper's FAVOR+ there as PosRF: posh's variance is below TrigRF's
 * exactly when x.y < 0 (2 sinh^2(|x+y|^2/2) against 2 sinh^2(|x-y|^2/2),
 * relative to SM^2), where the small s of HRF H.3 puts the clusters.
 * Closed forms at M = 1 for 400 pairs in R^3 with x.y of both signs.
 */
static void test_favor_reading(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(105, 0, 0, 0);
	double worst = 0.0;
	int k, order = 1, neg = 0;

	for (k = 0; k < 400; k++) {
		double x[3], y[3], xy = 0.0, ss = 0.0;
		struct rfx_params p, q;
		double lc, lp, lt;
		int l;

		for (l = 0; l < 3; l++) {
			x[l] = gsl_ran_gaussian(r, 0.6);
			y[l] = gsl_ran_gaussian(r, 0.6);
			xy += x[l] * y[l];
			ss += (x[l] + y[l]) * (x[l] + y[l]);
		}
		rfx_params_init(&p, 3);
		rfx_params_init(&q, 3);
		rfx_params_parse(&p, &rfx_est_cexp, "a=1,1,1", NULL);
		lc = check_log_var(&rfx_est_cexp, &p, x, y, 1);
		lp = check_log_var(&rfx_est_posh, &q, x, y, 1);
		lt = check_log_var(&rfx_est_trig, &q, x, y, 1);
		if (fabs(lc - lp + log(0.5 * -expm1(-ss))) > worst)
			worst = fabs(lc - lp + log(0.5 * -expm1(-ss)));
		order &= (lp < lt) == (xy < 0.0);
		neg += xy < 0.0;
		rfx_params_release(&p);
		rfx_params_release(&q);
	}
	ok(worst < 1e-12,
	   "A = I: Var = Var(posh) / ((1 - e^{-|x+y|^2})/2), not eq. 3's (off by %.2g)",
	   worst);
	ok(order && neg > 100 && neg < 300,
	   "posh's variance is below trig's iff x.y < 0 (%d of 400 pairs negative)", neg);
	gsl_rng_free(r);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_mc();
	test_special_cases();
	test_favor_reading();
	test_zero_variance();
	test_real_fit();
	test_far_ratio();
	test_cancelling_centres();
	test_errors();
	return done_testing();
}

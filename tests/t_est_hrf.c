/*
 * The HRF paper's estimators (posh, ang, ang-ind, gauss-hyb): closed forms
 * against Monte Carlo through both the feature maps and the estimate fast
 * path, the angular hybrid's vanishing variance at theta = 0 and pi, the
 * moments of lambda^ (Lemma 3.2, eqs. 72-73), the symmetry of Lemma 3.4,
 * and eq. 47 of HRF appendix D.2 against Monte Carlo.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "est_check.h"
#include "num/logmath.h"

static const double x3[3] = { 0.31, -0.22, 0.47 };
static const double y3[3] = { 0.12, 0.38, -0.26 };
static const double xb[3] = { 0.62, -0.44, 0.94 };
static const double yb[3] = { -0.5, 0.28, -0.71 };

/* Monte Carlo through the feature maps, against the closed form. */
static void check_features_mc(const struct rfx_estimator_type *e,
			      struct rfx_params *p, const double *x,
			      const double *y, int M, long R, unsigned long seed,
			      const char *label)
{
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(seed, 9, 9, 9);
	double lv = check_log_var(e, p, x, y, M);

	if (rfx_mc_pairs_features(e, p, RFX_PROJ_IID, M, x, y, 1, R, r, &mc,
				  &err))
		ok(0, "%s %s: features Monte Carlo (%s)", e->name, label, err.msg);
	else
		is_within_se(mc.log_var, mc.log_var_se, lv, 4.0,
			     "%s %s: log-variance %.6g matches Monte Carlo of the feature maps",
			     e->name, label, lv);
	gsl_rng_free(r);
}

static void test_mc(void)
{
	const struct rfx_estimator_type *es[] = { &rfx_est_posh, &rfx_est_ang,
						  &rfx_est_ang_ind,
						  &rfx_est_gauss_hyb,
						  &rfx_est_gauss_hyb_ind };
	/*
	 * RFX_TEST_SCALE=small (make valgrind): a quarter of the draws; the
	 * checks are z-scores on the sample's own standard error.
	 */
	long re = tap_small() ? 10000 : 40000, rf = tap_small() ? 5000 : 20000;
	int k;

	for (k = 0; k < 5; k++) {
		struct rfx_params p;

		rfx_params_init(&p, 3);
		check_estimator_mc(es[k], &p, x3, y3, 4, re, 60 + k, "small norms");
		check_features_mc(es[k], &p, x3, y3, 4, rf, 70 + k, "small norms");
		rfx_params_release(&p);
		rfx_params_init(&p, 3);
		if (es[k] != &rfx_est_posh)
			rfx_params_parse(&p, es[k], "m1=3", NULL),
				rfx_params_parse(&p, es[k], "m3=2", NULL);
		check_estimator_mc(es[k], &p, xb, yb, 12, re, 80 + k,
				   "obtuse, larger norms");
		check_features_mc(es[k], &p, xb, yb, 12, rf, 90 + k,
				  "obtuse, larger norms");
		rfx_params_release(&p);
	}
}

/*
 * The estimate hook and the feature maps are two implementations of the
 * same estimator: for one draw they agree to rounding (HRF Lemma 2.3).
 */
static void test_estimate_equals_features(void)
{
	const struct rfx_estimator_type *es[] = { &rfx_est_hyb, &rfx_est_ang,
						  &rfx_est_ang_ind,
						  &rfx_est_gauss_hyb,
						  &rfx_est_hyb_ind,
						  &rfx_est_gauss_hyb_ind };
	static const double X[6] = { 0.4, -0.1, 0.7, -0.9, 0.3, 0.05 };
	static const double Y[6] = { -0.3, 0.5, 0.25, 0.2, 0.8, -1.1 };
	int k;

	for (k = 0; k < 6; k++) {
		struct rfx_params p;
		struct rfx_err err;
		struct rfx_draw *w = rfx_draw_alloc(3, 512);
		struct rfx_featmat *F1 = rfx_featmat_alloc(2, 512);
		struct rfx_featmat *F2 = rfx_featmat_alloc(2, 512);
		struct rfx_featmat *R1 = rfx_featmat_alloc(2, 1024);
		struct rfx_featmat *R2 = rfx_featmat_alloc(2, 1024);
		gsl_rng *r = rfx_rng_alloc_stream(11, k, 0, 0);
		double worst = 0.0, worst_real = 0.0;
		int rep, q;

		rfx_params_init(&p, 3);
		rfx_params_parse(&p, es[k], "m1=4", NULL);
		rfx_params_parse(&p, es[k], "m3=3", NULL);
		es[k]->fit(&p, X, 2, Y, 2, 0, &err);
		for (rep = 0; rep < 30; rep++) {
			double la[2];
			signed char sg[2];

			es[k]->draw(r, RFX_PROJ_IID, &p, 0, w, &err);
			es[k]->features(&p, w, 1, X, 2, 0, F1, &err);
			es[k]->features(&p, w, 2, Y, 2, 0, F2, &err);
			es[k]->estimate(&p, w, X, Y, 2, 0, la, sg, &err);
			rfx_featmat_to_real(F1, 1, R1, &err);
			rfx_featmat_to_real(F2, 2, R2, &err);
			for (q = 0; q < 2; q++) {
				double lf, e1, e2, e3 = 0.0;
				int s, j;

				rfx_featmat_estimate(F1, q, F2, q, &lf, &s);
				e1 = s * exp(lf);
				e2 = sg[q] * exp(la[q]);
				if (fabs(e1 - e2) > worst)
					worst = fabs(e1 - e2);
				/* The real maps' plain dot product, by hand. */
				for (j = 0; j < R1->D; j++)
					e3 += R1->re[q * (size_t)R1->D + j] *
					      R2->re[q * (size_t)R2->D + j];
				e3 *= exp(R1->lscale[q] + R2->lscale[q]);
				if (fabs(e3 - e2) > worst_real)
					worst_real = fabs(e3 - e2);
			}
		}
		ok(worst < 1e-13, "%s: feature maps and estimate agree for 30 draws (max difference %.2g)",
		   es[k]->name, worst);
		ok(worst_real < 1e-13 && R1->D == R2->D,
		   "%s: the dot product of the real maps (%d features) is the estimate from its parts (max difference %.2g)",
		   es[k]->name, R1->D, worst_real);
		gsl_rng_free(r);
		rfx_draw_free(w);
		rfx_featmat_free(F1);
		rfx_featmat_free(F2);
		rfx_featmat_free(R1);
		rfx_featmat_free(R2);
		rfx_params_release(&p);
	}
}

/* Same-length inputs at angle theta in R^2: x = r e1, y = r (cos, sin). */
static void pair_at(double r, double th, double *x, double *y)
{
	x[0] = r;
	x[1] = 0.0;
	y[0] = r * cos(th);
	y[1] = r * sin(th);
}

/*
 * HRF sec. 2.4 / Lemma 3.2: for same-length inputs the angular hybrid is
 * exact at theta = 0 (lambda^ = 0, T exact) and theta = pi (lambda^ = 1, P
 * exact); TrigRF is not exact at pi, nor posh at 0.
 */
static void test_vanishing(void)
{
	struct rfx_params p;
	double x[2], y[2], lv0, lvpi;

	rfx_params_init(&p, 2);
	rfx_params_parse(&p, &rfx_est_ang, "m1=10", NULL);
	rfx_params_parse(&p, &rfx_est_ang, "m3=1", NULL);
	pair_at(1.3, 0.0, x, y);
	lv0 = check_log_var(&rfx_est_ang, &p, x, y, 0);
	/* y = -x exactly (cos pi, sin pi in doubles would leave 1e-16). */
	pair_at(1.3, 0.0, x, y);
	y[0] = -x[0];
	y[1] = -x[1];
	lvpi = check_log_var(&rfx_est_ang, &p, x, y, 0);
	ok(lv0 == -INFINITY && lvpi == -INFINITY,
	   "ang, |x| = |y|: variance exactly 0 at theta = 0 and pi (log %g, %g)",
	   lv0, lvpi);
	/*
	 * Near theta = 0 the variance is ~ Var lambda^ Var P ~ (theta/pi) Var P:
	 * a hundredfold smaller angle gives a hundredfold smaller variance.
	 */
	pair_at(1.3, 1e-6, x, y);
	lv0 = check_log_var(&rfx_est_ang, &p, x, y, 0);
	pair_at(1.3, 1e-8, x, y);
	is_approx(lv0 - check_log_var(&rfx_est_ang, &p, x, y, 0), log(100.0), 1e-4,
		  "ang: variance linear in theta near 0 (log Var %.2f at 1e-6)", lv0);
	pair_at(1.3, RFX_PI, x, y);
	ok(check_log_var(&rfx_est_trig, &p, x, y, 10) > -3.0 &&
		   isfinite(check_log_var(&rfx_est_posh, &p, x, x, 10)),
	   "while TrigRF at theta = pi and posh at theta = 0 are not exact");
	rfx_params_release(&p);
}

/* Lemma 3.2: E lambda^ = q, E lambda^2 = q (q - q/n + 1/n), q = theta/pi. */
static void test_lambda_moments(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(21, 0, 0, 0);
	double x[2], y[2], th = 1.1, q = th / RFX_PI, s1 = 0.0, s2 = 0.0;
	const int n = 3, R = 200000;
	int k, i;

	pair_at(1.0, th, x, y);
	for (k = 0; k < R; k++) {
		double lam = 0.0;

		for (i = 0; i < n; i++) {
			double w0 = gsl_ran_gaussian(r, 1.0), w1 = gsl_ran_gaussian(r, 1.0);
			double sx = w0 * x[0] + w1 * x[1], sy = w0 * y[0] + w1 * y[1];

			lam += (sx > 0) != (sy > 0) ? 1.0 / n : 0.0;
		}
		s1 += lam;
		s2 += lam * lam;
	}
	s1 /= R;
	s2 /= R;
	/* lambda^ = Binomial(n, q)/n: Var = q(1-q)/n, and its square's. */
	is_within_se(s1, sqrt(q * (1 - q) / n / R), q, 4.0,
		     "Lemma 3.2: E lambda^ = theta/pi = %.4f", q);
	{
		double m2 = q * (q - q / n + 1.0 / n), m4 = 0.0;
		int j;

		/* E lambda^4 from the binomial distribution, for the SE. */
		for (j = 0; j <= n; j++)
			m4 += gsl_ran_binomial_pdf((unsigned)j, q, (unsigned)n) *
			      pow((double)j / n, 4.0);
		is_within_se(s2, sqrt((m4 - m2 * m2) / R), m2, 4.0,
			     "Lemma 3.2: E lambda^2 = q (q - q/n + 1/n) = %.4f", m2);
	}
	gsl_rng_free(r);
}

/*
 * Gaussian lambda (eqs. 69, 72-73): lambda^ = 1/rho - (1/(n rho)) sum
 * cos(sigma t.(x - y)); its first two moments against simulation.
 */
static void test_gauss_lambda(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(22, 0, 0, 0);
	double x[2], y[2], sigma = 0.8, rho = 0.6, s1 = 0.0, s2 = 0.0, dd, e1, e2;
	double lam, v, el2, e1m2;
	const int n = 2, R = 200000;
	int k, i;

	pair_at(1.0, 1.7, x, y);
	dd = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]);
	for (k = 0; k < R; k++) {
		double l = 1.0 / rho;

		for (i = 0; i < n; i++) {
			double t0 = gsl_ran_gaussian(r, 1.0), t1 = gsl_ran_gaussian(r, 1.0);

			l -= cos(sigma * (t0 * (x[0] - y[0]) + t1 * (x[1] - y[1]))) /
			     (n * rho);
		}
		s1 += 1.0 - l;
		s2 += (1.0 - l) * (1.0 - l);
	}
	s1 /= R;
	s2 /= R;
	e1 = exp(-0.5 * sigma * sigma * dd);
	e2 = exp(-sigma * sigma * dd);
	lam = (1.0 - e1) / rho;
	v = (1.0 - e2) * (1.0 - e2) / (2.0 * n * rho * rho);
	el2 = lam * lam + v;
	e1m2 = ((1.0 - rho) - e1) * ((1.0 - rho) - e1) / (rho * rho) + v;
	is_within_se(s1, sqrt(v / R), 1.0 - lam, 4.0,
		     "eq. 67: E(1 - lambda^) = 1 - (1 - e^{-sigma^2 |x-y|^2/2})/rho");
	/* Var of (1 - l)^2 bounded by its fourth moment; 2 v' is generous. */
	is_within_se(s2, sqrt(4.0 * e1m2 * v / R + 2.0 * v * v / R), e1m2, 4.0,
		     "eq. 73: E(1 - lambda^)^2 = ((1 - rho) - e^{-sigma^2|x-y|^2/2})^2/rho^2 + (1 - e^{-sigma^2|x-y|^2})^2/(2 n rho^2)");
	ok(fabs(el2 - (1.0 - 2.0 * (1.0 - lam) + e1m2)) < 1e-12,
	   "eqs. 72 and 73 are consistent: E lambda^2 = 1 - 2 E(1 - lambda^) + E(1 - lambda^)^2");
	gsl_rng_free(r);
}

/*
 * Lemma 3.4: eps_theta(trig) = eps_(pi - theta)(++) =
 * (1/sqrt(2m)) e^{2 r^2 sin^2(theta/2)} (1 - e^{-4 r^2 sin^2(theta/2)}),
 * where eps^2 = MSE_SM / SM^2 = Var_K e^{|x-y|^2} for same-length inputs.
 */
static void test_symmetry(void)
{
	struct rfx_params p;
	double worst = 0.0, worst_cf = 0.0;
	const int m = 7;
	int k;

	rfx_params_init(&p, 2);
	for (k = 1; k < 30; k++) {
		double th = RFX_PI * k / 30.0, r = 1.4, x[2], y[2], dd, lt, lp, cf;
		double s2 = sin(0.5 * th) * sin(0.5 * th);

		pair_at(r, th, x, y);
		dd = 4.0 * r * r * s2;
		lt = 0.5 * (check_log_var(&rfx_est_trig, &p, x, y, m) + dd);
		pair_at(r, RFX_PI - th, x, y);
		lp = 0.5 * (check_log_var(&rfx_est_posh, &p, x, y, m) +
			    4.0 * r * r * cos(0.5 * th) * cos(0.5 * th));
		cf = -0.5 * log(2.0 * m) + 2.0 * r * r * s2 +
		     log(-expm1(-4.0 * r * r * s2));
		if (fabs(lt - lp) > worst)
			worst = fabs(lt - lp);
		if (fabs(lt - cf) > worst_cf)
			worst_cf = fabs(lt - cf);
	}
	ok(worst < 1e-12, "Lemma 3.4: log eps_theta(trig) = log eps_(pi-theta)(posh) (max difference %.2g)",
	   worst);
	ok(worst_cf < 1e-12, "Lemma 3.4: and both equal eq. 25 (max difference %.2g)",
	   worst_cf);
	rfx_params_release(&p);
}

/*
 * HRF eq. 47 (same-length inputs) prints the TrigRF term's coefficient as
 * (theta/pi)(1 - 1/n - theta/pi + theta/(n pi)), which is E[lambda^(1 -
 * lambda^)], where eq. 45 and Theorem 3.1 give E(1 - lambda^)^2 =
 * (1 - theta/pi)(1 - theta/pi + theta/(n pi)). Monte Carlo of the angular
 * hybrid at r = 0.9, theta = 2.0, m = 2, n = 1 decides (with n = 1 the
 * printed coefficient vanishes, so eq. 47 omits the TrigRF term entirely).
 */
static void test_eq47(void)
{
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(23, 0, 0, 0);
	double x[2], y[2], th = 2.0, rr = 0.9, q = th / RFX_PI, n = 1, m = 2;
	double c2 = cos(0.5 * th) * cos(0.5 * th), s2 = 1.0 - c2;
	double ta, tb, printed, ours, lk2;

	pair_at(rr, th, x, y);
	/* MSE in softmax units (eq. 47), then Var_K = MSE e^{-(|x|^2+|y|^2)}. */
	ta = q * (q - q / n + 1.0 / n) / (2 * m) *
	     exp(8 * rr * rr * c2 - 2 * rr * rr) *
	     pow(-expm1(-4 * rr * rr * c2), 2);
	tb = exp(2 * rr * rr) * pow(-expm1(-4 * rr * rr * s2), 2) / (2 * m);
	printed = ta + q * (1 - 1 / n - q + q / n) * tb;
	ours = ta + (1 - q) * (1 - q + q / n) * tb;
	lk2 = -2 * rr * rr;
	rfx_params_init(&p, 2);
	rfx_params_parse(&p, &rfx_est_ang, "m1=2", NULL);
	rfx_params_parse(&p, &rfx_est_ang, "m3=1", NULL);
	is_approx(check_log_var(&rfx_est_ang, &p, x, y, 0), log(ours) + lk2, 1e-10,
		  "ang: closed form equals eq. 45 for same-length inputs");
	rfx_mc_pairs(&rfx_est_ang, &p, RFX_PROJ_IID, 0, x, y, 1, 200000, r, &mc,
		     &err);
	is_within_se(mc.log_var, mc.log_var_se, log(ours) + lk2, 4.0,
		     "ang: Monte Carlo matches eq. 45");
	ok(fabs(mc.log_var - log(printed) - lk2) > 8.0 * mc.log_var_se,
	   "ang: Monte Carlo rejects eq. 47 as printed (%.1f se away)",
	   fabs(mc.log_var - log(printed) - lk2) / mc.log_var_se);
	rfx_params_release(&p);
	gsl_rng_free(r);
}

static void test_counts(void)
{
	struct rfx_params p;

	rfx_params_init(&p, 2);
	/* m = n = 2: 3 x 6 = 18 and 5 x 6 = 30 entries; m = n = 3 would exceed. */
	ok(rfx_estimator_features(&rfx_est_ang, &p, 6) == 6 &&
		   rfx_estimator_features(&rfx_est_ang, &p, 24) == 18 &&
		   rfx_estimator_features(&rfx_est_gauss_hyb, &p, 45) == 30,
	   "HRF hybrids: (n + 1)(m + 2m) angular, (2n + 1)(m + 2m) Gaussian entries");
	rfx_params_parse(&p, &rfx_est_ang, "m1=10", NULL);
	rfx_params_parse(&p, &rfx_est_ang, "m3=1", NULL);
	ok(rfx_estimator_features(&rfx_est_ang, &p, 0) == 60,
	   "ang with m = 10, n = 1 (HRF Fig 1): 60 feature entries");
	ok(rfx_estimator_feature_dim(&rfx_est_posh, &p, 8) == 16,
	   "posh: 2 M real features");
	rfx_params_release(&p);
}

/*
 * Theorem F.1 (HRF appendix F) gives the Gaussian hybrid's MSE without a
 * covariance term (eq. 71) and says it "remains the same" when trig and
 * posh share projections. Shared projections add
 * 2 E[lambda^(1 - lambda^)] Cov(T, P), Cov = K^2 (cos(|x|^2 - |y|^2) - 1)/m,
 * zero only for |x| = |y|. At a pair with |x|^2 - |y|^2 = 0.99 Monte Carlo
 * of the shared estimator rejects eq. 71.
 */
static void test_f1_shared(void)
{
	static const double x[2] = { 1.2, 0.0 }, y[2] = { -0.6, 0.3 };
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(24, 0, 0, 0);
	const int m = 3, n = 4;
	double dd = 1.8 * 1.8 + 0.09, zz = 0.6 * 0.6 + 0.09, K2 = exp(-dd), sigma = 1.0;
	double rho, lam, v, el2, e1m2, vt, vp, eq71;

	rfx_params_init(&p, 2);
	rfx_params_parse(&p, &rfx_est_gauss_hyb, "m1=3", NULL);
	rfx_params_parse(&p, &rfx_est_gauss_hyb, "m3=4", NULL);
	ok(!rfx_est_gauss_hyb.fit(&p, x, 1, y, 1, 1, &err) && p.m1 == 3 && p.m3 == 4,
	   "gauss-hyb fits the pair with m = 3, n = 4 given");
	rho = p.rho;
	/* eqs. 72-73 and Lemma 2.2, in Gaussian-kernel units. */
	lam = -expm1(-0.5 * sigma * sigma * dd) / rho;
	v = pow(-expm1(-sigma * sigma * dd), 2) / (2.0 * n * rho * rho);
	el2 = lam * lam + v;
	e1m2 = (1.0 - lam) * (1.0 - lam) + v;
	vt = pow(1.0 - K2, 2) / (2.0 * m);
	vp = K2 * exp(zz) * pow(-expm1(-zz), 2) / (2.0 * m);
	eq71 = el2 * vp + e1m2 * vt;
	/*
	 * RFX_TEST_SCALE=small: 400000 draws. The distance in se (printed)
	 * grows as sqrt(R), from about 18 at 1e6: still beyond 8 at 4e5.
	 */
	rfx_mc_pairs(&rfx_est_gauss_hyb, &p, RFX_PROJ_IID, 1, x, y, 1,
		     tap_small() ? 400000 : 1000000, r, &mc, &err);
	ok(isfinite(mc.log_var) && isfinite(eq71) && mc.log_var_se > 0.0 &&
		   fabs(mc.log_var - log(eq71)) > 8.0 * mc.log_var_se,
	   "Theorem F.1: shared projections change the MSE at |x| != |y| (MC log Var %.4f, eq. 71 %.4f, %.0f se apart)",
	   mc.log_var, log(eq71), fabs(mc.log_var - log(eq71)) / mc.log_var_se);
	is_within_se(mc.log_var, mc.log_var_se,
		     log(eq71 + 2.0 * (lam - el2) * K2 * (cos(1.44 - 0.45) - 1.0) / m),
		     4.0, "eq. 71 plus the covariance term matches Monte Carlo");
	rfx_params_release(&p);
	gsl_rng_free(r);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_mc();
	test_estimate_equals_features();
	test_vanishing();
	test_lambda_moments();
	test_gauss_lambda();
	test_symmetry();
	test_eq47();
	test_f1_shared();
	test_counts();
	return done_testing();
}

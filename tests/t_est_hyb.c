/*
 * HybRF (shared projections): the closed form of Theorem 12 against Monte
 * Carlo, its limits at theta = 0 and pi, the feature map against the
 * estimator written from its parts (eq. 6.4), the feature counting, and
 * the two forms of the closed form (terms in doubles for blocks within
 * range, in logs otherwise) against each other for every hybrid kind.
 */
#include <limits.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <quadmath.h>

#include "tap.h"
#include "est_check.h"
#include "num/logmath.h"

static void test_mc(void)
{
	static const double x[3] = { 0.31, -0.22, 0.47 };
	static const double y[3] = { 0.12, 0.38, -0.26 };
	static const double x2[3] = { 0.62, -0.44, 0.94 };
	static const double y2[3] = { -0.5, 0.28, -0.71 };
	struct rfx_params p;

	rfx_params_init(&p, 3);
	check_estimator_mc(&rfx_est_hyb, &p, x, y, 4, 40000, 31, "M=4 (1,1,1)");
	check_estimator_mc(&rfx_est_hyb, &p, x2, y2, 4, 40000, 32,
			   "obtuse pair, larger norms");
	rfx_params_release(&p);
	rfx_params_init(&p, 3);
	p.m1 = 3;
	p.m3 = 2;
	p.given = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	check_estimator_mc(&rfx_est_hyb, &p, x2, y2, 18, 40000, 33,
			   "M1 = M2 = 3, M3 = 2");
	rfx_params_release(&p);
}

/*
 * Sharing the projections of T and P (hyb-2) lowers the variance by
 * 2(pq - v)K^2(1 - cos(|x|^2 - |y|^2))/M1 against independent ones (hyb-1,
 * eq. 6.9). For this pair with M1 = 1, M3 = 8 the two differ by ~45% in
 * variance; Monte Carlo of the shared-projection estimator must match the
 * hyb-2 closed form and sit many standard errors away from eq. 6.9, which
 * is written out independently here in plain doubles.
 */
static void test_shared_projection(void)
{
	static const double x[3] = { 0.22, 0.44, -0.77 };
	static const double y[3] = { -0.04, 0.05, -0.03 };
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(34, 0, 0, 0);
	double xx = 0, yy = 0, xy = 0, K2, th, pp, qq, v, vt, vp, hyb1;
	int l;

	for (l = 0; l < 3; l++) {
		xx += x[l] * x[l];
		yy += y[l] * y[l];
		xy += x[l] * y[l];
	}
	K2 = exp(-(xx + yy - 2 * xy));
	th = acos(xy / sqrt(xx * yy));
	qq = th / RFX_PI;
	pp = 1 - qq;
	v = pp * qq / 8;
	vt = (1 - K2) * (1 - K2) / 2;
	vp = exp(4 * xy) - K2;
	hyb1 = (pp * pp + v) * vt + (qq * qq + v) * vp;
	rfx_params_init(&p, 3);
	p.m1 = 1;
	p.m3 = 8;
	p.given = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	check_estimator_mc(&rfx_est_hyb, &p, x, y, 18, 40000, 35,
			   "M1 = 1, M3 = 8, shared projections");
	rfx_mc_pairs(&rfx_est_hyb, &p, RFX_PROJ_IID, 18, x, y, 1, 40000, r, &mc,
		     &err);
	ok((log(hyb1) - mc.log_var) / mc.log_var_se > 8.0,
	   "MC rejects the independent-projection variance (eq. 6.9): %.2f se away",
	   (log(hyb1) - mc.log_var) / mc.log_var_se);
	/*
	 * hyb-ind is eq. 6.9: its closed form is the hand-written hyb1, and
	 * Monte Carlo of its own feature maps (T and P on their own
	 * projections) matches it.
	 */
	is_approx(check_log_var(&rfx_est_hyb_ind, &p, x, y, 18), log(hyb1), 1e-12,
		  "hyb-ind: closed form is eq. 6.9 written out (%.10g)", log(hyb1));
	check_estimator_mc(&rfx_est_hyb_ind, &p, x, y, 18, 40000, 36,
			   "M1 = 1, M3 = 8, independent projections");
	gsl_rng_free(r);
	rfx_params_release(&p);
}

/*
 * At theta = 0 (y a positive multiple of x) the angle estimate is exactly
 * 1, so HybRF is TrigRF with M1 features; at theta = pi it is PosRF.
 */
static void test_limits(void)
{
	static const double x[3] = { 0.3, -0.2, 0.5 };
	double y[3], z[3];
	struct rfx_params p, q;
	int l;

	for (l = 0; l < 3; l++) {
		y[l] = 1.7 * x[l];
		z[l] = -0.6 * x[l];
	}
	rfx_params_init(&p, 3);
	rfx_params_init(&q, 3);
	rfx_est_hyb.fit(&p, x, 1, y, 1, 4, NULL);
	is_approx(check_log_var(&rfx_est_hyb, &p, x, y, 4),
		  check_log_var(&rfx_est_trig, &q, x, y, 1), 1e-10,
		  "theta = 0: HybRF variance is TrigRF's with M1 = 1");
	is_approx(check_log_var(&rfx_est_hyb, &p, x, z, 4),
		  check_log_var(&rfx_est_pos, &q, x, z, 1), 1e-10,
		  "theta = pi: HybRF variance is PosRF's with M1 = 1");
	rfx_params_release(&p);
	rfx_params_release(&q);
}

/*
 * The dot product of the feature maps (6.6, 6.7) equals (6.4) computed from
 * the same draw's parts: (1/2)(1 + a) T + (1/2)(1 - a) P.
 */
static void test_featuremap(void)
{
	static const double x[4] = { 0.4, -0.1, 0.7, 0.2 };
	static const double y[4] = { -0.3, 0.5, 0.25, -0.45 };
	const int m1 = 3, m3 = 2, d = 4;
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_draw *w = rfx_draw_alloc(d, 64);
	struct rfx_featmat *F1 = rfx_featmat_alloc(1, 64);
	struct rfx_featmat *F2 = rfx_featmat_alloc(1, 64);
	gsl_rng *r = rfx_rng_alloc_stream(7, 0, 0, 0);
	double worst = 0.0;
	int rep;

	rfx_params_init(&p, d);
	p.m1 = m1;
	p.m3 = m3;
	p.given = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	ok(rfx_estimator_features(&rfx_est_hyb, &p, 0) == 2 * (m3 + 1) * m1,
	   "feature dimension is (M3 + 1)(M1 + M2) = %d", 2 * (m3 + 1) * m1);
	for (rep = 0; rep < 50; rep++) {
		double T = 0.0, P = 0.0, a = 0.0, want, la, xx = 0, yy = 0;
		int s, m, k, l;

		rfx_est_hyb.draw(r, RFX_PROJ_IID, &p, 0, w, &err);
		rfx_est_hyb.features(&p, w, 1, x, 1, 0, F1, &err);
		rfx_est_hyb.features(&p, w, 2, y, 1, 0, F2, &err);
		rfx_featmat_estimate(F1, 0, F2, 0, &la, &s);
		for (l = 0; l < d; l++) {
			xx += x[l] * x[l];
			yy += y[l] * y[l];
		}
		for (m = 0; m < m1; m++) {
			double px = 0, py = 0;

			for (l = 0; l < d; l++) {
				px += w->omega[l * w->cap + m] * x[l];
				py += w->omega[l * w->cap + m] * y[l];
			}
			T += cos(px - py) / m1;
			P += exp(px + py - xx - yy) / m1;
		}
		for (k = 0; k < m3; k++) {
			double px = 0, py = 0;

			for (l = 0; l < d; l++) {
				px += w->omega[l * w->cap + m1 + k] * x[l];
				py += w->omega[l * w->cap + m1 + k] * y[l];
			}
			a += (px > 0 ? 1 : -1) * (py > 0 ? 1 : -1) / (double)m3;
		}
		want = 0.5 * (1 + a) * T + 0.5 * (1 - a) * P;
		if (fabs(s * exp(la) - want) > worst)
			worst = fabs(s * exp(la) - want);
	}
	ok(worst < 1e-13, "Re(x_hyb . y_hyb) equals eq. 6.4 from the parts (max error %.2g)",
	   worst);
	gsl_rng_free(r);
	rfx_draw_free(w);
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	rfx_params_release(&p);
}

static void test_counting(void)
{
	struct rfx_params p;
	struct rfx_err err;
	static const double x[2] = { 0.1, 0.2 }, y[2] = { 0.3, -0.1 };

	rfx_params_init(&p, 2);
	ok(rfx_estimator_features(&rfx_est_hyb, &p, 4) == 4,
	   "budget 4: M1 = M2 = M3 = 1 (thesis sec. 6.6.1)");
	ok(rfx_estimator_features(&rfx_est_hyb, &p, 12) == 12,
	   "budget 12: M1 = M2 = M3 = 2");
	ok(rfx_estimator_features(&rfx_est_hyb, &p, 64) == 60,
	   "budget 64: the largest 2m(m+1) <= 64 is 60 (m = 5)");
	ok(rfx_est_hyb.fit(&p, x, 1, y, 1, 3, &err) == RFX_OK && p.m1 == 1 &&
		   p.m3 == 1,
	   "budget 3: at least M1 = M2 = M3 = 1 (4 features, reported as used)");
	/*
	 * The largest budget: m(m + 1) <= (2^31 - 1)/2 up to m = 32767
	 * (32767 * 32768 = 1073709056; 32768 * 32769 = 1073774592 is above
	 * 1073741823). The search once overflowed int and never ended.
	 */
	p.m1 = p.m3 = 0;
	p.given = 0;
	ok(rfx_estimator_features(&rfx_est_hyb, &p, INT_MAX) == 2147418112,
	   "budget 2^31 - 1: 2m(m + 1) with m = 32767, 2147418112");
	/* gauss-hyb's (2 m3 + 1) 3 m1 at m1 = m3 = 10^6 is 6e12: no int holds it */
	p.m1 = p.m3 = 1000000;
	p.given = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	ok(rfx_estimator_features(&rfx_est_gauss_hyb, &p, 64) == INT_MAX,
	   "m1 = m3 = 10^6: more features than an int holds, reported as INT_MAX");
	rfx_params_release(&p);
}

/*
 * The closed form of a block whose inputs are all within range is formed
 * in doubles; one input out of range (here a zero y, where theta is
 * undefined) sends the whole block to the log-domain form. The pairs the
 * two blocks share must agree to rounding, for every hybrid kind, with
 * close, orthogonal and nearly opposite pairs and norms from 0.1 to 3.
 */
static void test_linear_form(void)
{
	static const struct rfx_estimator_type *const es[] = {
		&rfx_est_hyb, &rfx_est_ang, &rfx_est_ang_ind, &rfx_est_gauss_hyb,
		&rfx_est_hyb_ind, &rfx_est_gauss_hyb_ind
	};
	enum { N = 24, D = 5 };
	static double X[N * D], Y[(N + 1) * D], lin[N * N], lg[N * (N + 1)];
	struct rfx_block *b = rfx_block_alloc(D, N, N + 1);
	gsl_rng *r = rfx_rng_alloc_stream(35, 0, 0, 0);
	struct rfx_err err;
	int k, i, j, l;

	for (i = 0; i < N; i++) {
		double sx = 0.1 + 2.9 * i / (N - 1.0);

		for (l = 0; l < D; l++) {
			X[i * D + l] = sx * (gsl_rng_uniform(r) - 0.5);
			/* every third y close to x, every third close to -x */
			Y[i * D + l] = i % 3 == 0 ? X[i * D + l] * 1.001
				     : i % 3 == 1 ? -X[i * D + l] * 0.999
						  : sx * (gsl_rng_uniform(r) - 0.5);
		}
	}
	for (l = 0; l < D; l++)
		Y[N * D + l] = 0.0;
	for (k = 0; k < 6; k++) {
		struct rfx_params p;
		double worst = 0.0;
		int ret;

		rfx_params_init(&p, D);
		ret = es[k]->fit(&p, X, N, Y, N, 12, &err) ||
		      rfx_estimator_block(es[k], &p, b, X, N, Y, N, &err) ||
		      es[k]->log_variance(&p, b, 12, lin, &err) ||
		      rfx_estimator_block(es[k], &p, b, X, N, Y, N + 1, &err) ||
		      es[k]->log_variance(&p, b, 12, lg, &err);
		for (i = 0; i < N && !ret; i++)
			for (j = 0; j < N; j++) {
				double a = lin[i * N + j], c = lg[i * (N + 1) + j];
				double e = fabs(a - c) / (fabs(c) > 1.0 ? fabs(c) : 1.0);

				worst = e > worst || !(e == e) ? e : worst;
			}
		diag("%s: largest relative difference %.3g", es[k]->name, worst);
		ok(!ret && worst <= 1e-12,
		   "%s: the double and log forms agree on %d pairs", es[k]->name,
		   N * N);
		if (ret)
			diag("%s", err.msg);
		rfx_params_release(&p);
	}
	rfx_block_free(b);
	gsl_rng_free(r);
}

/*
 * Theorem 12 (hyb) and HRF eqs. 67-79 (gauss-hyb, eq. 46's cosh P) at
 * m1 = m3 = 1, evaluated directly from the coordinates in binary128
 * (libquadmath: 113-bit significands, so the cancellations that cost
 * doubles their digits here cost these only as many of their 34): an
 * independent evaluation of the same derivation.
 */
static double quad_log_var(int gauss, double sigma, double rho,
			   const double *x, const double *y, int d)
{
	__float128 s2 = (__float128)sigma * sigma;
	__float128 xx = 0, yy = 0, xy = 0, dd = 0, ss = 0, K2, vt, vp, cv;
	__float128 q, v, wl2, wt2, wc, pi = M_PIq;
	int l;

	for (l = 0; l < d; l++) {
		__float128 a = x[l], b = y[l];

		xx += a * a;
		yy += b * b;
		xy += a * b;
		dd += (a - b) * (a - b);
		ss += (a + b) * (a + b);
	}
	K2 = expq(-dd);
	vt = (1 - K2) * (1 - K2) / 2;
	if (gauss) {
		__float128 e2 = -expm1q(-s2 * dd);

		vp = K2 * expq(ss) * (1 - expq(-ss)) * (1 - expq(-ss)) / 2;
		q = -expm1q(-s2 * dd / 2) / (__float128)rho;
		v = e2 * e2 / (2 * (__float128)rho * (__float128)rho);
	} else {
		vp = K2 * expm1q(ss);
		q = acosq(xy / sqrtq(xx * yy)) / pi;
		v = q * (1 - q);
	}
	cv = K2 * (cosq(xx - yy) - 1);
	wl2 = q * q + v;
	wt2 = (1 - q) * (1 - q) + v;
	wc = 2 * (q * (1 - q) - v);
	return (double)logq(wl2 * vp + wt2 * vt + wc * cv);
}

/*
 * Pairs far from the papers' settings (issue 21): nearly equal inputs for
 * the Gaussian hybrid's lambda (1 - exp(small) lost its digits), inputs of
 * very different lengths for the angle (pi/2 came out pi), and angles
 * near 0 and pi (acos of the cosine loses half the digits).
 */
static void test_extreme_pairs(void)
{
	static const struct {
		int gauss;
		double x[2], y[2];
		const char *what;
	} c[] = {
		{ 1, { 1, 0 }, { 1, 1e-9 }, "gauss-hyb, |x - y|^2 = 1e-18" },
		{ 1, { 1, 0 }, { 1, 1e-6 }, "gauss-hyb, |x - y|^2 = 1e-12" },
		{ 1, { 0.7, -0.2 }, { 0.7, -0.2 + 3e-8 }, "gauss-hyb, generic" },
		{ 0, { 1e-20, 0 }, { 0, 1 }, "hyb, lengths 1e-20 and 1" },
		{ 0, { 1e-12, 0 }, { 0, 1 }, "hyb, lengths 1e-12 and 1" },
		{ 0, { 1, 0 }, { 1, 2.5e-7 }, "hyb, angle 2.5e-7" },
		{ 0, { 1, 0 }, { -1, 3.1e-7 }, "hyb, angle pi - 3.1e-7" },
		{ 0, { 1e-15, 2e-23 }, { 0.8, 1.3e-8 }, "hyb, short x, angle ~0" },
		{ 0, { 0.3, -0.45 }, { -0.3, 0.45 + 1e-9 }, "hyb, near-opposite" },
	};
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		const struct rfx_estimator_type *e =
			c[k].gauss ? &rfx_est_gauss_hyb : &rfx_est_hyb;
		struct rfx_params p;
		struct rfx_err err;
		double lv, want;

		rfx_params_init(&p, 2);
		if (e->fit(&p, c[k].x, 1, c[k].y, 1, c[k].gauss ? 9 : 4,
			   &err)) {
			ok(0, "%s: fit (%s)", c[k].what, err.msg);
			rfx_params_release(&p);
			continue;
		}
		lv = check_log_var(e, &p, c[k].x, c[k].y, c[k].gauss ? 9 : 4);
		want = quad_log_var(c[k].gauss, 1.0, p.rho, c[k].x, c[k].y, 2);
		is_approx(lv, want, 1e-12,
			  "%s: log Var %.12g, binary128 %.12g", c[k].what, lv,
			  want);
		rfx_params_release(&p);
	}
}

/*
 * The Gaussian hybrid's fitted rho = 1 - exp(-sigma^2 (|x|^2 + |y|^2)) at
 * tiny sigma: against binary128 (whose exponent reaches 1e-4932, so
 * nothing underflows there) while rho is a normal double, refused below,
 * where it once lost its digits and then fell back to 1 (log Var 2.3
 * off at sigma = 1e-170).
 */
static void test_tiny_sigma(void)
{
	static const double x[2] = { 0.6, 0.8 }, y[2] = { 0.8, 0.6 };
	static const double tx[2] = { 1e-160, 0 }, ty[2] = { 0, 1e-160 };
	static const double fine[] = { 1e-100, 1e-150, 1e-153 };
	static const double under[] = { 1e-154, 1e-160, 1e-170, 1e-300 };
	struct rfx_params p;
	struct rfx_err err = { 0 };
	size_t k;

	for (k = 0; k < sizeof fine / sizeof fine[0]; k++) {
		__float128 s2 = (__float128)fine[k] * fine[k];
		double rho = (double)-expm1q(-s2 * 2); /* |x|^2 + |y|^2 = 2 */
		double lv;

		rfx_params_init(&p, 2);
		p.sigma = fine[k];
		p.given |= RFX_P(RFX_PARAM_SIGMA);
		if (rfx_est_gauss_hyb.fit(&p, x, 1, y, 1, 9, &err)) {
			ok(0, "sigma = %g: fit (%s)", fine[k], err.msg);
			rfx_params_release(&p);
			continue;
		}
		lv = check_log_var(&rfx_est_gauss_hyb, &p, x, y, 9);
		is_approx(p.rho / rho, 1.0, 1e-15,
			  "sigma = %g: fitted rho %g", fine[k], p.rho);
		is_approx(lv, quad_log_var(1, fine[k], rho, x, y, 2), 1e-12,
			  "sigma = %g: log Var %.15g as binary128's", fine[k],
			  lv);
		rfx_params_release(&p);
	}
	for (k = 0; k < sizeof under / sizeof under[0]; k++) {
		rfx_params_init(&p, 2);
		p.sigma = under[k];
		p.given |= RFX_P(RFX_PARAM_SIGMA);
		ok(rfx_est_gauss_hyb_ind.fit(&p, x, 1, y, 1, 9, &err) ==
				   RFX_EINVAL &&
			   strstr(err.msg, "cannot fit rho"),
		   "sigma = %g: rho would underflow, refused (%s)", under[k],
		   err.msg);
		rfx_params_release(&p);
	}
	rfx_params_init(&p, 2);
	ok(rfx_est_gauss_hyb.fit(&p, tx, 1, ty, 1, 9, &err) == RFX_EINVAL,
	   "inputs of norm 1e-160, sigma 1: refused (%s)", err.msg);
	rfx_params_release(&p);
	rfx_params_init(&p, 2);
	p.rho = 0.5;
	p.given |= RFX_P(RFX_PARAM_RHO);
	ok(rfx_est_gauss_hyb.fit(&p, tx, 1, ty, 1, 9, &err) == RFX_OK &&
		   p.rho == 0.5,
	   "the same inputs with a given rho: accepted");
	rfx_params_release(&p);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_mc();
	test_shared_projection();
	test_limits();
	test_featuremap();
	test_counting();
	test_linear_form();
	test_extreme_pairs();
	test_tiny_sigma();
	return done_testing();
}

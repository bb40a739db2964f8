/*
 * Tests for lib/est/clushyb.c, the cluster-adapted hybrids of HRF appendix H:
 *  - eq. 21 by hand, and its minimum over real diagonal A (eq. 88, the
 *    closed form 4 sum max(0, x y)) against GSL's BFGS minimisation;
 *  - the zero-one hybrid (Definition H.2) equals, on every pair, the base
 *    CE estimator of its pair of clusters written out from eqs. 90-92 with
 *    the same projections (real and complex A, blocks straddling clusters);
 *  - with the complex A of eqs. 85-87 every estimate at the centres is
 *    exact (zero variance), with the real A it is not;
 *  - the Gaussian mixture (Definition H.1): its lambdas estimate
 *    exp(-l(A_q)/(2 tau^2)) and the whole estimator is unbiased (Monte
 *    Carlo, 4 standard errors);
 *  - error paths.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>

#include "est/clushyb.h"
#include "base/rng.h"
#include "tap.h"

#define D 5

/* Estimate (a, k) of a block from rows r0..: val cf e^{rs} (clushyb.h). */
static double est_of(const struct rfx_clushyb_maps *m, size_t r0, size_t a,
		     size_t k, const double *val, const double *rs)
{
	int c = rfx_clushyb_row_cluster(m, r0 + a);

	return val[a * m->ny + k] * m->cf[(size_t)c * m->ny + k] * exp(rs[a]);
}

/* Two clusters of x's (3 and 4 points) and of y's (2 and 5), sorted. */
static const size_t XOFF[3] = { 0, 3, 7 }, YOFF[3] = { 0, 2, 7 };

/* Points around centres with both signs of x_l y_l; means into Cx, Cy. */
static void make_sets(double *X, double *Y, double *Cx, double *Cy,
		      double spread, unsigned long seed)
{
	static const double cx[2][D] = { { 0.6, -0.3, 0.45, 0.2, -0.5 },
					 { -0.4, 0.35, 0.3, -0.25, 0.55 } };
	static const double cy[2][D] = { { 0.5, 0.4, -0.35, 0.3, 0.25 },
					 { -0.3, -0.45, 0.2, 0.6, -0.4 } };
	gsl_rng *r = rfx_rng_alloc_stream(seed, 0, 0, 0);
	int i, l, c;

	for (i = 0; i < 7; i++) {
		c = i < 3 ? 0 : 1;
		for (l = 0; l < D; l++)
			X[i * D + l] = cx[c][l] + spread * gsl_ran_gaussian(r, 1.0);
		c = i < 2 ? 0 : 1;
		for (l = 0; l < D; l++)
			Y[i * D + l] = cy[c][l] + spread * gsl_ran_gaussian(r, 1.0);
	}
	for (c = 0; c < 2; c++)
		for (l = 0; l < D; l++) {
			double sx = 0.0, sy = 0.0;

			for (i = (int)XOFF[c]; i < (int)XOFF[c + 1]; i++)
				sx += X[i * D + l];
			for (i = (int)YOFF[c]; i < (int)YOFF[c + 1]; i++)
				sy += Y[i * D + l];
			Cx[c * D + l] = sx / (double)(XOFF[c + 1] - XOFF[c]);
			Cy[c * D + l] = sy / (double)(YOFF[c + 1] - YOFF[c]);
		}
	gsl_rng_free(r);
}

/* 1. Eq. 21 by hand and its minimum over real diagonal A. */
struct lossarg {
	const double *x, *y;
	int d;
};

/* l(b) = sum (e^b x + e^-b y)^2 over b = log a, and its gradient. */
static double lf(const gsl_vector *b, void *par)
{
	const struct lossarg *o = par;
	double s = 0.0;
	int l;

	for (l = 0; l < o->d; l++) {
		double a = exp(gsl_vector_get(b, (size_t)l));
		double z = a * o->x[l] + o->y[l] / a;

		s += z * z;
	}
	return s;
}

static void ldf(const gsl_vector *b, void *par, gsl_vector *g)
{
	const struct lossarg *o = par;
	int l;

	for (l = 0; l < o->d; l++) {
		double a = exp(gsl_vector_get(b, (size_t)l));
		double z = a * o->x[l] + o->y[l] / a, dz = a * o->x[l] - o->y[l] / a;

		gsl_vector_set(g, (size_t)l, 2.0 * z * dz);
	}
}

static void lfdf(const gsl_vector *b, void *par, double *f, gsl_vector *g)
{
	*f = lf(b, par);
	ldf(b, par, g);
}

static void test_loss(void)
{
	static const double x1[2] = { 1.0, 1.0 }, y1[2] = { 1.0, 1.0 };
	static const double xs[8] = { 0.7, -0.4, 0.25, 1.3, -0.9, 0.05, 0.6, -0.35 };
	static const double ys[8] = { 0.3, 0.8, 0.55, -0.2, -0.65, 0.4, 1.1, 0.15 };
	struct rfx_params p;
	struct rfx_err err;
	struct lossarg o = { xs, ys, 8 };
	gsl_multimin_function_fdf F = { lf, ldf, lfdf, 8, &o };
	gsl_multimin_fdfminimizer *mz =
		gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, 8);
	gsl_vector *b0 = gsl_vector_calloc(8);
	double want = 0.0, fitted, numeric;
	int it, l;

	/* a = (2, i), x = y = (1, 1): (2 + 1/2)^2 + |i + 1/i|^2 = 6.25 + 0. */
	rfx_params_init(&p, 2);
	rfx_params_parse(&p, &rfx_est_cexp_c, "a=2:0,0:1", NULL);
	is_approx(rfx_clushyb_loss(&p, x1, y1, 2), 6.25, TEST_TOL1,
		  "eq. 21 by hand: a = (2, i), x = y = (1, 1) gives 6.25");
	rfx_params_release(&p);

	/* By hand: x y = 0.21, -0.32, 0.1375, -0.26, 0.585, 0.02, 0.66, -0.0525. */
	want = 4.0 * (0.21 + 0.1375 + 0.585 + 0.02 + 0.66);
	is_approx(rfx_clushyb_loss_min(xs, ys, 8), want, TEST_TOL2,
		  "l* = 4 sum max(0, x_l y_l) = %.4f", want);
	rfx_params_init(&p, 8);
	ok(!rfx_est_cexp.fit(&p, xs, 1, ys, 1, 4, &err), "cexp fits A to (x, y) by eq. 88");
	fitted = rfx_clushyb_loss(&p, xs, ys, 8);
	gsl_multimin_fdfminimizer_set(mz, &F, b0, 0.1, 0.1);
	for (it = 0; it < 2000; it++) {
		if (gsl_multimin_fdfminimizer_iterate(mz))
			break;
		if (gsl_multimin_test_gradient(mz->gradient, 1e-13) == GSL_SUCCESS)
			break;
	}
	numeric = mz->f;
	diag("BFGS: %d iterations, l = %.15g; eq. 88: %.15g", it, numeric, fitted);
	is_approx(fitted, numeric, 1e-9,
		  "l(A) at eq. 88's A equals BFGS's minimum over real diagonal A");
	ok(fitted <= numeric * (1.0 + 1e-12), "BFGS finds nothing below eq. 88's value");
	is_approx(fitted, want, TEST_TOL2, "and both equal the closed form");
	for (l = 0; l < 8; l++)
		if (fabs(p.a_re[l] - exp(gsl_vector_get(mz->x, (size_t)l))) >
		    1e-5 * p.a_re[l])
			break;
	ok(l == 8, "the minimiser is eq. 88's a_l = sqrt|y_l / x_l| (to 1e-5)");
	rfx_params_release(&p);
	gsl_vector_free(b0);
	gsl_multimin_fdfminimizer_free(mz);
}

/*
 * The CE estimate of SM(x, y) for diagonal a with projections omega
 * (column m of w), written from eqs. 90-92: (1/M) sum_m
 * exp(w.(A x) - (A x)^2/2) exp(w.(A^{-1} y) - (A^{-1} y)^2/2), real part.
 */
static double ce_direct(const struct rfx_params *p, const struct rfx_draw *w,
			int M, const double *x, const double *y)
{
	double s = 0.0;
	int m, l;

	for (m = 0; m < M; m++) {
		double complex e = 0.0;

		for (l = 0; l < D; l++) {
			double complex a = p->a_re[l] + I * p->a_im[l];
			double complex u = a * x[l], v = y[l] / a;
			double om = w->omega[(size_t)l * (size_t)w->cap + (size_t)m];

			e += om * (u + v) - 0.5 * (u * u + v * v);
		}
		s += creal(cexp(e));
	}
	return s / M;
}

/*
 * 2. Zero-one hybrid = base estimator per pair. The maps draw base q's M
 * projections as the (q + 1)-th Gaussian draw of the stream; the same
 * stream replayed gives them to ce_direct. Blocks of 2 rows straddle the
 * cluster boundary at row 3.
 */
static void test_zero_one(int complex_a)
{
	enum { M = 6, BR = 2 };
	double X[7 * D], Y[7 * D], Cx[2 * D], Cy[2 * D], val[BR * 7], ls[BR];
	struct rfx_clushyb *h = rfx_clushyb_alloc(RFX_CLUSHYB_ZERO_ONE, D, 2, 2,
						  complex_a, 1.0, NULL);
	struct rfx_clushyb_maps *m;
	struct rfx_draw *w[4];
	struct rfx_err err;
	gsl_rng *r = rfx_rng_alloc_stream(77, 1, 2, 3), *r2 = rfx_rng_alloc_stream(77, 1, 2, 3);
	double worst = 0.0;
	size_t r0, a, k;
	int q;

	make_sets(X, Y, Cx, Cy, 0.2, 5);
	ok(h && !rfx_clushyb_fit(h, Cx, Cy, X, 7, Y, 7, M, &err),
	   "%s A: fitted to the four pairs of centres", complex_a ? "complex" : "real");
	m = rfx_clushyb_maps_alloc(h, XOFF, YOFF, M, 0, BR);
	ok(m && !rfx_clushyb_maps_draw(m, r, X, Y, &err), "maps of one draw");
	for (q = 0; q < 4; q++) {
		w[q] = rfx_draw_alloc(D, M);
		rfx_draw_gaussian(r2, RFX_PROJ_IID, NULL, M, w[q], NULL);
	}
	for (r0 = 0; r0 < 7; r0 += BR) {
		size_t B = 7 - r0 < BR ? 7 - r0 : BR;

		rfx_clushyb_maps_block(m, r0, B, val, ls, &err);
		for (a = 0; a < B; a++)
			for (k = 0; k < 7; k++) {
				int i = r0 + a < 3 ? 0 : 1, j = k < 2 ? 0 : 1;
				double want = ce_direct(&h->p[i * 2 + j], w[i * 2 + j], M,
							X + (r0 + a) * D, Y + k * D);
				double got = est_of(m, r0, a, k, val, ls);
				double e = fabs(got - want) / fabs(want);

				if (e > worst)
					worst = e;
			}
	}
	ok(worst < 1e-12,
	   "%s A: every pair's estimate is its pair of clusters' CE estimate (rel. %.2g)",
	   complex_a ? "complex" : "real", worst);
	for (q = 0; q < 4; q++)
		rfx_draw_free(w[q]);
	rfx_clushyb_maps_free(m);
	rfx_clushyb_free(h);
	gsl_rng_free(r);
	gsl_rng_free(r2);
}

/*
 * 3. Points at the centres (spread 0): with the complex A of eqs. 85-87,
 * A_q x_i + A_q^{-1} y_j = 0, so every draw's estimate is SM(x, y) = e^{x.y}
 * exactly (eq. 17); with the real A of eq. 88 the pairs with some
 * x_l y_l > 0 keep a variance.
 */
static void test_zero_variance(void)
{
	enum { M = 8, R = 50 };
	double X[7 * D], Y[7 * D], Cx[2 * D], Cy[2 * D], val[7 * 7], ls[7];
	int complex_a;

	make_sets(X, Y, Cx, Cy, 0.0, 6);
	for (complex_a = 1; complex_a >= 0; complex_a--) {
		struct rfx_clushyb *h = rfx_clushyb_alloc(RFX_CLUSHYB_ZERO_ONE, D, 2, 2,
							  complex_a, 1.0, NULL);
		struct rfx_clushyb_maps *m;
		gsl_rng *r = rfx_rng_alloc_stream(78, 0, 0, 0);
		double worst = 0.0;
		int t;
		size_t a, k;

		rfx_clushyb_fit(h, Cx, Cy, X, 7, Y, 7, M, NULL);
		m = rfx_clushyb_maps_alloc(h, XOFF, YOFF, M, 0, 7);
		for (t = 0; t < R; t++) {
			rfx_clushyb_maps_draw(m, r, X, Y, NULL);
			rfx_clushyb_maps_block(m, 0, 7, val, ls, NULL);
			for (a = 0; a < 7; a++)
				for (k = 0; k < 7; k++) {
					double sm = 0.0, e;
					int l;

					for (l = 0; l < D; l++)
						sm += X[a * D + l] * Y[k * D + l];
					e = fabs(est_of(m, 0, a, k, val, ls) - exp(sm)) / exp(sm);
					if (e > worst)
						worst = e;
				}
		}
		if (complex_a)
			ok(worst < 1e-13,
			   "complex A at the centres: all %d x 49 estimates exact (rel. %.2g)",
			   R, worst);
		else
			ok(worst > 1e-3,
			   "real A at the centres: estimates vary (rel. error up to %.2g)", worst);
		rfx_clushyb_maps_free(m);
		rfx_clushyb_free(h);
		gsl_rng_free(r);
	}
}

/*
 * 4. Gaussian mixture: over R draws, (a) lambda_q's estimate averages to
 * exp(-l(A_q; x, y)/(2 tau^2)) with l from rfx_clushyb_loss (checked in
 * 1), for real and complex A; (b) the whole estimate averages to SM.
 * Each within 4 standard errors of the R estimates.
 */
static void test_gmix(int complex_a)
{
	enum { M = 4, N = 3, R = 6000 };
	static const size_t pairs[3][2] = { { 0, 0 }, { 4, 1 }, { 2, 6 } };
	double X[7 * D], Y[7 * D], Cx[2 * D], Cy[2 * D], val[7 * 7], ls[7];
	double tau = 0.8, sum[3] = { 0 }, sum2[3] = { 0 }, lam[3][4] = { { 0 } },
	       lam2[3][4] = { { 0 } };
	struct rfx_clushyb *h = rfx_clushyb_alloc(RFX_CLUSHYB_GMIX, D, 2, 2, complex_a,
						  tau, &rfx_est_trig);
	struct rfx_clushyb_maps *m;
	struct rfx_err err;
	gsl_rng *r = rfx_rng_alloc_stream(79, (uint64_t)complex_a, 0, 0);
	int t, c, q, lam_ok = 1, est_ok = 1;

	make_sets(X, Y, Cx, Cy, 0.15, 7);
	ok(h && !rfx_clushyb_fit(h, Cx, Cy, X, 7, Y, 7, M, &err),
	   "Gaussian mixture, %s A: fitted", complex_a ? "complex" : "real");
	m = rfx_clushyb_maps_alloc(h, XOFF, YOFF, M, N, 7);
	for (t = 0; t < R; t++) {
		rfx_clushyb_maps_draw(m, r, X, Y, NULL);
		rfx_clushyb_maps_block(m, 0, 7, val, ls, NULL);
		for (c = 0; c < 3; c++) {
			size_t a = pairs[c][0], k = pairs[c][1];
			double e = est_of(m, 0, a, k, val, ls);

			sum[c] += e;
			sum2[c] += e * e;
			for (q = 0; q < 4; q++) {
				double la;
				int sg;

				rfx_featmat_estimate(m->L1[q], a, m->L2[q], k, &la, &sg);
				lam[c][q] += sg * exp(la);
				lam2[c][q] += exp(2 * la);
			}
		}
	}
	for (c = 0; c < 3; c++) {
		const double *x = X + pairs[c][0] * D, *y = Y + pairs[c][1] * D;
		double sm = 0.0, mean = sum[c] / R, se = sqrt((sum2[c] / R - mean * mean) / R);
		int l;

		for (l = 0; l < D; l++)
			sm += x[l] * y[l];
		sm = exp(sm);
		if (fabs(mean - sm) > 4.0 * se) {
			est_ok = 0;
			diag("pair %d: mean %.6g +- %.2g, SM %.6g", c, mean, se, sm);
		}
		for (q = 0; q < 4; q++) {
			double want = exp(-rfx_clushyb_loss(&h->p[q], x, y, D) / (2 * tau * tau));
			double lm = lam[c][q] / R, lse = sqrt((lam2[c][q] / R - lm * lm) / R);

			if (fabs(lm - want) > 4.0 * lse) {
				lam_ok = 0;
				diag("pair %d, q %d: lambda %.6g +- %.2g, want %.6g", c, q, lm,
				     lse, want);
			}
		}
	}
	ok(lam_ok, "%s A: lambda_q estimates exp(-|A_q x + A_q^{-1} y|^2 / 2 tau^2) (3 pairs x 4)",
	   complex_a ? "complex" : "real");
	ok(est_ok, "%s A: the Gaussian-mixture hybrid is unbiased (3 pairs, %d draws)",
	   complex_a ? "complex" : "real", R);
	rfx_clushyb_maps_free(m);
	rfx_clushyb_free(h);
	gsl_rng_free(r);
}

static void test_errors(void)
{
	static const size_t bad_off[3] = { 0, 3, 3 };
	double X[7 * D], Y[7 * D], Cx[2 * D], Cy[2 * D], val[49], ls[7];
	struct rfx_clushyb *h;
	struct rfx_clushyb_maps *m;
	struct rfx_err err;

	make_sets(X, Y, Cx, Cy, 0.1, 8);
	ok(!rfx_clushyb_alloc(RFX_CLUSHYB_GMIX, D, 2, 2, 0, 0.0, &rfx_est_trig) &&
	   !rfx_clushyb_alloc(RFX_CLUSHYB_GMIX, D, 2, 2, 0, 1.0, NULL) &&
	   !rfx_clushyb_alloc(RFX_CLUSHYB_GMIX, D, 2, 2, 0, 1.0, &rfx_est_ang) &&
	   !rfx_clushyb_alloc(RFX_CLUSHYB_ZERO_ONE, 0, 2, 2, 0, 1.0, NULL),
	   "alloc: tau 0, no SM^_0, a hybrid SM^_0, d = 0 are refused");
	h = rfx_clushyb_alloc(RFX_CLUSHYB_ZERO_ONE, D, 2, 2, 0, 1.0, NULL);
	Cx[3] = NAN;
	rfx_err_clear(&err);
	ok(rfx_clushyb_fit(h, Cx, Cy, X, 7, Y, 7, 4, &err) == RFX_EINVAL,
	   "a NaN centre is RFX_EINVAL (%s)", err.msg);
	Cx[3] = 0.1;
	rfx_clushyb_fit(h, Cx, Cy, X, 7, Y, 7, 4, NULL);
	ok(!rfx_clushyb_maps_alloc(h, bad_off, YOFF, 4, 0, 7),
	   "maps: an empty cluster is refused");
	m = rfx_clushyb_maps_alloc(h, XOFF, YOFF, 4, 0, 3);
	{
		gsl_rng *r = rfx_rng_alloc_stream(80, 0, 0, 0);

		rfx_clushyb_maps_draw(m, r, X, Y, NULL);
		gsl_rng_free(r);
	}
	rfx_err_clear(&err);
	ok(rfx_clushyb_maps_block(m, 5, 3, val, ls, &err) == RFX_EINVAL &&
	   rfx_clushyb_maps_block(m, 0, 4, val, ls, NULL) == RFX_EINVAL,
	   "block: rows past the set or above brows are RFX_EINVAL (%s)", err.msg);
	rfx_clushyb_maps_free(m);
	rfx_clushyb_free(h);
	rfx_clushyb_free(NULL);
	rfx_clushyb_maps_free(NULL);
}

int main(void)
{
	gsl_set_error_handler_off();
	plan(7 + 2 * 3 + 2 + 2 * 3 + 4);
	test_loss();
	test_zero_one(0);
	test_zero_one(1);
	test_zero_variance();
	test_gmix(0);
	test_gmix(1);
	test_errors();
	return done_testing();
}

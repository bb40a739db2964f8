/*
 * Tests for lib/eval/svm.c. Every expectation is derived here, not taken from
 * a run: two 1-D problems whose optimum is worked out by hand below, the
 * optimality conditions of a random problem computed in this file (w
 * rebuilt from the dual variables, primal = dual objective, the KKT
 * complementarity of each point), a separable set classified without
 * error, one-vs-rest on planted clusters, reproducibility at any thread
 * count, and every error path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_randist.h>

#include "base/rng.h"
#include "eval/svm.h"
#include "tap.h"

#define SEED 20221121UL

static gsl_rng *stream(int test)
{
	gsl_rng *r = rfx_rng_alloc_stream(SEED, 0x5356, (uint64_t)test, 0);

	if (!r) {
		printf("Bail out! cannot allocate a generator\n");
		exit(1);
	}
	return r;
}

static struct rfx_svm_ws *ws_alloc(size_t n)
{
	struct rfx_svm_ws *ws = rfx_svm_ws_alloc(n);

	if (!ws) {
		printf("Bail out! cannot allocate a workspace\n");
		exit(1);
	}
	return ws;
}

/* y_i (w . x_i + w[d] B), computed here in double. */
static double margin(const float *X, int d, const int *y, size_t i,
		     const double *w, double B)
{
	double s = w[d] * B;
	int l;

	for (l = 0; l < d; l++)
		s += w[l] * X[i * (size_t)d + (size_t)l];
	return y[i] * s;
}

/*
 * Points x = 0 (y = -1) and x = 2 (y = +1), B = 1. With Q_11 = 1, Q_22 =
 * 5, Q_12 = -1 (Q_ij = y_i y_j (x_i x_j + 1)) the dual is strictly
 * convex, so the optimum is unique.
 *   Large C: the hard margin, min (w^2 + b^2)/2 s.t. -b >= 1, 2w + b >= 1:
 *   b = -1 and w = 1 (any b < -1 needs w = (1 - b)/2 and costs more), and
 *   from w = 2 a_2, b = a_2 - a_1: a = (3/2, 1/2).
 *   C = 0.1: at a = (C, C) the dual gradients 1 - (a_1 - a_2) = 1 and
 *   1 - 4 a_2 - (a_2 - a_1) = 0.6 are both positive, so both bounds are
 *   active: a = (0.1, 0.1), w = 0.2, b = 0.
 */
static void test_closed_form(void)
{
	static const float X[2] = { 0.0f, 2.0f };
	static const int y[2] = { -1, 1 };
	struct rfx_svm_params p;
	struct rfx_svm_stats st;
	struct rfx_svm_ws *ws = ws_alloc(2);
	struct rfx_err err;
	gsl_rng *r = stream(1);
	double w[2];
	const double *a;

	rfx_svm_params_init(&p);
	p.C = 10.0;
	p.eps = 1e-12;
	p.max_iter = 100000;
	ok(rfx_svm_train(r, X, 2, 1, y, &p, w, ws, &st, &err) == RFX_OK,
	   "1-D hard margin trains");
	a = rfx_svm_ws_alpha(ws);
	ok(st.converged, "1-D hard margin converges (%d epochs)", st.epochs);
	is_approx(w[0], 1.0, 1e-9, "1-D hard margin: w = 1");
	is_approx(w[1], -1.0, 1e-9, "1-D hard margin: b = -1");
	is_approx(a[0], 1.5, 1e-9, "1-D hard margin: a_1 = 3/2");
	is_approx(a[1], 0.5, 1e-9, "1-D hard margin: a_2 = 1/2");

	p.C = 0.1;
	ok(rfx_svm_train(r, X, 2, 1, y, &p, w, ws, &st, &err) == RFX_OK &&
		   st.converged, "1-D soft margin trains and converges");
	is_approx(w[0], 0.2, 1e-12, "1-D soft margin: w = 2C = 0.2");
	is_approx(w[1], 0.0, 1e-12, "1-D soft margin: b = 0");
	ok(a[0] == 0.1 && a[1] == 0.1, "1-D soft margin: both a_i at C");

	/*
	 * From a = 0 the first point visited has G = -1, so the first
	 * epoch's projected gradients span at least 1 > eps: one epoch
	 * cannot pass the test.
	 */
	p.C = 10.0;
	p.max_iter = 1;
	ok(rfx_svm_train(r, X, 2, 1, y, &p, w, ws, &st, &err) == RFX_OK &&
		   st.epochs == 1 && !st.converged,
	   "the epoch cap stops an unconverged run and says so");
	rfx_svm_ws_free(ws);
	gsl_rng_free(r);
}

/*
 * A random overlapping problem: n points in R^3 labelled by a noisy
 * hyperplane. At the optimum of the dual, with w = sum y_i a_i x~_i:
 * the primal 1/2|w|^2 + C sum hinge equals the dual sum a - 1/2 |w|^2,
 * and each point satisfies complementarity: a_i = 0 => margin >= 1,
 * 0 < a_i < C => margin = 1, a_i = C => margin <= 1. Tolerances: the
 * dual CD stops at max PG - min PG <= 1e-9, so margins are within about
 * 1e-9 of the conditions; 1e-6 leaves room for float inputs summed in
 * double.
 */
static void test_optimality(void)
{
	enum { N = 60, D = 3 };
	float X[N * D];
	int y[N], i, l, bad_kkt = 0, nfree = 0, nbound = 0, ret;
	struct rfx_svm_params p;
	struct rfx_svm_stats st;
	struct rfx_svm_ws *ws = ws_alloc(N);
	struct rfx_err err;
	gsl_rng *r = stream(2);
	double w[D + 1], wa[D + 1] = { 0 }, hinge = 0.0, ww = 0.0, wwa = 0.0,
		suma = 0.0, maxdiff = 0.0;
	const double *a;

	for (i = 0; i < N; i++) {
		double s = 0.37;

		for (l = 0; l < D; l++) {
			X[i * D + l] = (float)gsl_ran_gaussian(r, 1.0);
			s += (l + 1.0) * X[i * D + l];
		}
		y[i] = s + gsl_ran_gaussian(r, 1.5) > 0.0 ? 1 : -1;
	}
	rfx_svm_params_init(&p);
	p.C = 1.3;
	p.bias = 0.8;
	p.eps = 1e-9;
	p.max_iter = 1000000;
	ret = rfx_svm_train(r, X, N, D, y, &p, w, ws, &st, &err);
	ok(ret == RFX_OK && st.converged, "random problem converges (%d epochs)",
	   st.epochs);
	a = rfx_svm_ws_alpha(ws);
	for (i = 0; i < N; i++) {
		double m;

		for (l = 0; l < D; l++)
			wa[l] += y[i] * a[i] * X[i * D + l];
		wa[D] += y[i] * a[i] * p.bias;
		suma += a[i];
		m = margin(X, D, y, (size_t)i, w, p.bias);
		hinge += m < 1.0 ? 1.0 - m : 0.0;
		if (a[i] < 0.0 || a[i] > p.C)
			bad_kkt++;
		else if (a[i] == 0.0)
			bad_kkt += m < 1.0 - 1e-6;
		else if (a[i] == p.C)
			bad_kkt += m > 1.0 + 1e-6, nbound++;
		else
			bad_kkt += fabs(m - 1.0) > 1e-6, nfree++;
	}
	for (l = 0; l <= D; l++) {
		double t = fabs(wa[l] - w[l]);

		maxdiff = t > maxdiff ? t : maxdiff;
		ww += w[l] * w[l];
		wwa += wa[l] * wa[l];
	}
	ok(maxdiff < 1e-9, "w = sum y_i a_i x~_i (max difference %.3g)", maxdiff);
	is_approx(0.5 * ww + p.C * hinge, suma - 0.5 * wwa, 1e-7,
		  "primal objective = dual objective (strong duality)");
	ok(bad_kkt == 0, "KKT complementarity for all %d points (%d free, %d at C)",
	   N, nfree, nbound);
	ok(nfree > 0 && nbound > 0, "the problem has free and bounded a_i");
	rfx_svm_ws_free(ws);
	gsl_rng_free(r);
}

/* Two clusters 6 apart with unit spread: separable, so large C fits all. */
static void test_separable(void)
{
	enum { N = 200, D = 5 };
	float X[N * D];
	int y[N], i, l, wrong = 0;
	struct rfx_svm_params p;
	struct rfx_svm_stats st;
	struct rfx_svm_ws *ws = ws_alloc(N);
	struct rfx_err err;
	gsl_rng *r = stream(3);
	double w[D + 1];

	for (i = 0; i < N; i++) {
		y[i] = i % 2 ? 1 : -1;
		for (l = 0; l < D; l++)
			X[i * D + l] = (float)(gsl_ran_gaussian(r, 0.5) +
					       (l == 0 ? 3.0 * y[i] : 0.0));
	}
	rfx_svm_params_init(&p);
	p.C = 1000.0;
	p.eps = 1e-6;
	p.max_iter = 100000;
	ok(rfx_svm_train(r, X, N, D, y, &p, w, ws, &st, &err) == RFX_OK &&
		   st.converged, "separable set converges");
	for (i = 0; i < N; i++)
		wrong += margin(X, D, y, (size_t)i, w, p.bias) <= 0.0;
	ok(wrong == 0, "separable set: 100%% training accuracy (%d wrong)", wrong);
	rfx_svm_ws_free(ws);
	gsl_rng_free(r);
}

/*
 * Three clusters at the corners of a triangle of side 10 with spread 0.5
 * in R^2: one-vs-rest separates them (each class is linearly separable
 * from the other two), so every point is predicted right. The same stream
 * gives the same weights, bit for bit, on 1 and 2 threads.
 */
static void test_ovr(void)
{
	enum { N = 150, D = 2, K = 3 };
	static const double centre[K][D] = { { 0, 0 }, { 10, 0 }, { 5, 8.66 } };
	float X[N * D];
	int y[N], pred[N], i, wrong = 0;
	struct rfx_svm_params p;
	struct rfx_svm_stats st[K];
	struct rfx_err err;
	gsl_rng *r = stream(4);
	double W1[K * (D + 1)], W2[K * (D + 1)];

	for (i = 0; i < N; i++) {
		y[i] = i % K;
		X[i * D] = (float)(centre[y[i]][0] + gsl_ran_gaussian(r, 0.5));
		X[i * D + 1] = (float)(centre[y[i]][1] + gsl_ran_gaussian(r, 0.5));
	}
	rfx_svm_params_init(&p);
	p.C = 10.0;
	p.eps = 1e-4;
	p.max_iter = 100000;
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	ok(rfx_svm_train_ovr(X, N, D, y, K, &p, SEED, &(struct rfx_rng_key){ .exp = "t_svm", .i = 7 }, W1, st, &err) == RFX_OK,
	   "one-vs-rest trains");
	ok(st[0].converged && st[1].converged && st[2].converged,
	   "every class converges");
	rfx_svm_predict(W1, K, D, p.bias, X, N, pred);
	for (i = 0; i < N; i++)
		wrong += pred[i] != y[i];
	ok(wrong == 0, "one-vs-rest: 100%% on three separated clusters (%d wrong)",
	   wrong);
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	ok(rfx_svm_train_ovr(X, N, D, y, K, &p, SEED, &(struct rfx_rng_key){ .exp = "t_svm", .i = 7 }, W2, NULL, &err) ==
			   RFX_OK &&
		   !memcmp(W1, W2, sizeof(W1)),
	   "one-vs-rest: same weights on 1 and 2 threads");
	{
		static const double Wt[2 * 3] = { 1, 0, 0, -1, 0, 0.5 };
		static const float xt[3 * 2] = { 1, 1, 0, 0, -3, 7 };
		int pt[3];

		/* scores: (1, 0.5), (0, 0.5), (-3, 0.5) */
		rfx_svm_predict(Wt, 2, 2, 1.0, xt, 3, pt);
		ok(pt[0] == 0 && pt[1] == 1 && pt[2] == 1,
		   "predict takes the argmax of w_k . [x, B]");
	}
	gsl_rng_free(r);
}

static void test_errors(void)
{
	float X[4] = { 0.0f, 2.0f, 1.0f, 3.0f };
	int y[4] = { -1, 1, -1, 1 }, yk[4] = { 0, 1, 2, 1 };
	struct rfx_svm_params p;
	struct rfx_svm_ws *ws = ws_alloc(4), *small = ws_alloc(2);
	struct rfx_err err;
	gsl_rng *r = stream(6);
	double w[2], W[3 * 2];

	rfx_svm_params_init(&p);
	ok(rfx_svm_train(r, X, 0, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "n = 0 is an error: %s", err.msg);
	ok(rfx_svm_train(r, X, 4, 0, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "d = 0 is an error: %s", err.msg);
	p.C = 0.0;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "C = 0 is an error: %s", err.msg);
	p.C = -1.0;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "C < 0 is an error");
	p.C = NAN;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "C = NaN is an error");
	rfx_svm_params_init(&p);
	p.eps = 0.0;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "eps = 0 is an error");
	rfx_svm_params_init(&p);
	p.max_iter = 0;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "max_iter = 0 is an error");
	rfx_svm_params_init(&p);
	X[2] = NAN;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL &&
		   strstr(err.msg, "point 2"),
	   "a NaN feature is an error naming the point: %s", err.msg);
	ok(rfx_svm_train_ovr(X, 4, 1, yk, 3, &p, SEED, &(struct rfx_rng_key){ .exp = "t_svm" }, W, NULL, &err) ==
		   RFX_EINVAL, "one-vs-rest refuses a NaN feature too");
	X[2] = INFINITY;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "an infinite feature is an error");
	X[2] = 1.0f;
	y[3] = 2;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "a binary label other than +-1 is an error: %s", err.msg);
	y[3] = 1;
	ok(rfx_svm_train(r, X, 4, 1, y, &p, w, small, NULL, &err) == RFX_EINVAL,
	   "a workspace too small is an error");
	ok(rfx_svm_train(NULL, X, 4, 1, y, &p, w, ws, NULL, &err) == RFX_EINVAL,
	   "a missing generator is an error");
	ok(rfx_svm_train_ovr(X, 4, 1, yk, 1, &p, SEED, &(struct rfx_rng_key){ .exp = "t_svm" }, W, NULL, &err) ==
		   RFX_EINVAL, "one-vs-rest with K = 1 is an error");
	ok(rfx_svm_train_ovr(X, 4, 1, yk, 2, &p, SEED, &(struct rfx_rng_key){ .exp = "t_svm" }, W, NULL, &err) ==
		   RFX_EINVAL, "one-vs-rest with a label >= K is an error: %s",
	   err.msg);
	ok(rfx_svm_ws_alloc(0) == NULL, "a workspace for 0 points is NULL");
	rfx_svm_ws_free(NULL);
	rfx_svm_ws_free(ws);
	rfx_svm_ws_free(small);
	gsl_rng_free(r);
}

int main(void)
{
	plan(39);
	test_closed_form();
	test_optimality();
	test_separable();
	test_ovr();
	test_errors();
	return done_testing();
}

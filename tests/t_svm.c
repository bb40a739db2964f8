/*
 * Tests for lib/eval/svm.c. Every expectation is derived here, not taken from
 * a run: two 1-D problems whose optimum is worked out by hand below, the
 * optimality conditions of a random problem computed in this file (w
 * rebuilt from the dual variables, primal = dual objective, the KKT
 * complementarity of each point), a separable set classified without
 * error, one-vs-rest on planted clusters, reproducibility at any thread
 * count, every error path, and the arithmetic kernels: the scalar one
 * against the summation order written out here, every other one against
 * the scalar one bit for bit.
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

/*
 * The order of svm.c's dot as its comment states it, written out here:
 * s_j sums w_l x_l over l = j mod 4 in the whole blocks of four, in
 * increasing l, the tail goes to s_0, and the result is
 * ((s_0 + s_1) + s_2) + s_3.
 */
static double dot_spec(const double *w, const float *x, int d)
{
	double s[4] = { 0.0, 0.0, 0.0, 0.0 }, t;
	int l;

	for (l = 0; l < (d & ~3); l++)
		s[l % 4] += w[l] * (double)x[l];
	for (; l < d; l++)
		s[0] += w[l] * (double)x[l];
	t = 0.0 + s[0]; /* as svm.c: a -0 sum becomes +0 */
	t = t + s[1];
	t = t + s[2];
	return t + s[3];
}

/* w . x summed left to right: another order, to show that order shows. */
static double dot_seq(const double *w, const float *x, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		s += w[l] * (double)x[l];
	return s;
}

#define KMAX 67  /* lengths 0..KMAX: every tail, several whole blocks */
#define KOFF 3   /* start offsets 0..KOFF-1: unaligned loads */

/* Values spread over 12 decades, so that every rounding shows. */
static void fill(gsl_rng *r, double *w, float *x, float *z, int n)
{
	int l;

	for (l = 0; l < n; l++) {
		w[l] = gsl_ran_gaussian(r, 1.0) * pow(10.0, gsl_ran_flat(r, -6, 6));
		x[l] = (float)(gsl_ran_gaussian(r, 1.0) *
			       pow(10.0, gsl_ran_flat(r, -3, 3)));
		z[l] = (float)gsl_ran_gaussian(r, 1.0);
	}
}

/*
 * The kernel k against the scalar one s, bit for bit: dot, dot2, axpy
 * and axpy_dot at every length 0..KMAX and start offset, on values whose
 * sums round differently in any other order; nothing written at w[d].
 */
static void test_kernel(const struct rfx_svm_kernel *k,
			const struct rfx_svm_kernel *s, gsl_rng *r)
{
	double w[KMAX + KOFF + 1], w1[KMAX + KOFF + 1], w2[KMAX + KOFF + 1];
	float x[KMAX + KOFF], z[KMAX + KOFF];
	int d, o, rep, bad_dot = 0, bad_dot2 = 0, bad_axpy = 0, bad_fused = 0;

	for (rep = 0; rep < 20; rep++)
		for (o = 0; o < KOFF; o++)
			for (d = 0; d <= KMAX; d++) {
				double u = gsl_ran_gaussian(r, 1.0), a, b;

				fill(r, w, x, z, KMAX + KOFF);
				/* the whole of w is compared below: set its last too */
				w[KMAX + KOFF] = 0.0;
				w[o + d] = 2.385;
				a = s->dot(w + o, x + o, d, z);
				b = k->dot(w + o, x + o, d, z);
				bad_dot += memcmp(&a, &b, sizeof(a)) != 0;
				{
					double a2, b2;

					a = s->dot2(w + o, x + o, z + o, d, &a2, x, z);
					b = k->dot2(w + o, x + o, z + o, d, &b2, x, z);
					bad_dot2 += memcmp(&a, &b, sizeof(a)) != 0 ||
						    memcmp(&a2, &b2, sizeof(a2)) != 0;
				}

				memcpy(w1, w, sizeof(w));
				memcpy(w2, w, sizeof(w));
				s->axpy(w1 + o, u, x + o, d, z);
				k->axpy(w2 + o, u, x + o, d, z);
				bad_axpy += memcmp(w1, w2, sizeof(w)) != 0 ||
					    w2[o + d] != 2.385;

				memcpy(w1, w, sizeof(w));
				memcpy(w2, w, sizeof(w));
				a = s->axpy_dot(w1 + o, u, x + o, z + o, d, x);
				b = k->axpy_dot(w2 + o, u, x + o, z + o, d, x);
				bad_fused += memcmp(&a, &b, sizeof(a)) != 0 ||
					     memcmp(w1, w2, sizeof(w)) != 0 ||
					     w2[o + d] != 2.385;
			}
	ok(bad_dot == 0, "%s: dot equals the scalar kernel bit for bit, lengths "
	   "0..%d (%d differ)", k->name, KMAX, bad_dot);
	ok(bad_dot2 == 0, "%s: two dots in one pass equal the scalar kernel's "
	   "bit for bit (%d differ)", k->name, bad_dot2);
	ok(bad_axpy == 0, "%s: w += u x equals the scalar kernel bit for bit "
	   "(%d differ)", k->name, bad_axpy);
	ok(bad_fused == 0, "%s: the update fused with the next dot equals the "
	   "scalar update then dot bit for bit (%d differ)", k->name, bad_fused);
}

/*
 * The scalar kernel follows the order its comment states (dot_spec) and
 * its fused step is an update then a dot (tested on its own terms);
 * that order matters for these values (dot_seq differs on some); every
 * other kernel this CPU runs matches the scalar one bit for bit.
 */
static void test_kernels(void)
{
	static const char *const names[] = { "avx2", NULL };
	struct rfx_svm_kernel s, k;
	struct rfx_err err;
	double w[KMAX], w1[KMAX];
	float x[KMAX], z[KMAX];
	gsl_rng *r = stream(7);
	int d, i, bad = 0, reordered = 0;

	ok(rfx_svm_kernel_find("scalar", &s, &err) == RFX_OK,
	   "the scalar kernel always runs (in use: %s)", rfx_svm_kernel_name());
	for (i = 0; i < 50; i++)
		for (d = 0; d <= KMAX; d++) {
			double a, b, c, u = gsl_ran_gaussian(r, 1.0);
			int l;

			fill(r, w, x, z, KMAX);
			a = s.dot(w, x, d, x);
			b = dot_spec(w, x, d);
			bad += memcmp(&a, &b, sizeof(a)) != 0;
			reordered += a != dot_seq(w, x, d);
			a = s.dot2(w, x, z, d, &c, x, z);
			b = dot_spec(w, x, d);
			bad += memcmp(&a, &b, sizeof(a)) != 0;
			b = dot_spec(w, z, d);
			bad += memcmp(&c, &b, sizeof(c)) != 0;
			memcpy(w1, w, sizeof(w));
			c = s.axpy_dot(w1, u, x, z, d, x);
			for (l = 0; l < d; l++)
				w[l] = w[l] + u * (double)x[l];
			b = dot_spec(w, z, d);
			bad += memcmp(w, w1, sizeof(w)) != 0 ||
			       memcmp(&c, &b, sizeof(c)) != 0;
		}
	ok(bad == 0, "scalar: dot, dot2 and the fused step in the stated order "
	   "(%d differ)", bad);
	ok(reordered > 0, "summing in another order changes %d of %d results",
	   reordered, 50 * (KMAX + 1));
	for (i = 0; names[i]; i++) {
		rfx_err_clear(&err);
		if (rfx_svm_kernel_find(names[i], &k, &err)) {
			skip(err.msg);
			skip(err.msg);
			skip(err.msg);
			skip(err.msg);
			continue;
		}
		test_kernel(&k, &s, r);
	}
	ok(rfx_svm_kernel_find("sse9", &k, &err) == RFX_EINVAL,
	   "an unknown kernel is an error: %s", err.msg);
	gsl_rng_free(r);
}

int main(void)
{
	plan(47);
	test_closed_form();
	test_optimality();
	test_separable();
	test_ovr();
	test_errors();
	test_kernels();
	return done_testing();
}

/*
 * The public C interface (include/rfx.h, lib/api/rfx.c), through that
 * header alone, as a program built against the installed library sees it:
 * the estimator and projection lists, every error path of the model
 * calls, TrigRF's features and variance against their closed forms worked
 * out below, the softmax factor, the float32 and log-scaled outputs
 * against the double ones, reproducibility from the seed, the same bytes
 * at one thread and at two, separate models used from two threads at
 * once, and large outputs (streaming stores, inputs checked in chunks).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "tap.h"
#include <rfx.h>

#define N 40   /* inputs */
#define DIM 5  /* their dimension */

static double X[N * DIM], Y[N * DIM];

/* Deterministic inputs of norm about 1 ("high entropy" values, GSL style). */
static void make_inputs(void)
{
	int i;

	for (i = 0; i < N * DIM; i++) {
		X[i] = 0.45 * sin(2.385 * i + 0.3);
		Y[i] = 0.41 * cos(1.713 * i - 0.7);
	}
}

static int has(const char *msg, const char *part)
{
	return strstr(msg, part) != NULL;
}

static void test_lists(void)
{
	const struct rfx_estimator_type *e;
	struct rfx_err err;
	char buf[64];
	int i, found = 1, n;

	for (i = 0; (e = rfx_estimator_at(i)); i++)
		if (rfx_estimator_find(rfx_estimator_name(e), NULL) != e)
			found = 0;
	n = i;
	ok(n >= 15 && found, "%d estimators, each found by its name", n);
	ok(rfx_estimator_at(-1) == NULL && rfx_estimator_at(n) == NULL,
	   "rfx_estimator_at is NULL outside 0..%d", n - 1);
	rfx_err_clear(&err);
	e = rfx_estimator_find("fourier", &err);
	ok(!e && err.code == RFX_EINVAL && has(err.msg, "fourier") &&
		   has(err.msg, "oprf"),
	   "an unknown name is RFX_EINVAL naming it and the valid ones: %s",
	   err.msg);
	e = rfx_estimator_find("gerf", NULL);
	rfx_estimator_params(e, buf, sizeof(buf));
	ok(!strcmp(buf, "A,t") && (rfx_estimator_flags(e) & RFX_ESTIMATOR_COMPLEX),
	   "gerf: parameters A,t, complex (got '%s')", buf);
	e = rfx_estimator_find("oprf", NULL);
	ok((rfx_estimator_flags(e) & RFX_ESTIMATOR_POSITIVE) &&
		   !strncmp(rfx_estimator_title(e), "OPRF", 4),
	   "oprf: positive, titled OPRF... ('%s')", rfx_estimator_title(e));
	ok(!strcmp(rfx_projection_at(0), "iid") &&
		   !strcmp(rfx_projection_at(1), "ort") &&
		   rfx_projection_at(-1) == NULL && rfx_projection_at(99) == NULL,
	   "projection kinds from iid, ort, NULL outside");
	ok(strlen(rfx_version()) >= 5 && strchr(rfx_version(), '.'),
	   "version '%s'", rfx_version());
}

/* Allocates a model or NULL, recording err. */
static int alloc_fails(const char *method, int d, int M, const char *proj,
		       const char *kernel, const char *part)
{
	struct rfx_err err;
	struct rfx_model *m;

	rfx_err_clear(&err);
	m = rfx_model_alloc(method, d, M, proj, kernel, &err);
	rfx_model_free(m);
	if (m || err.code != RFX_EINVAL || !has(err.msg, part)) {
		diag("    code %d, message '%s'", err.code, err.msg);
		return 0;
	}
	return 1;
}

static void test_errors(void)
{
	struct rfx_err err;
	struct rfx_model *m;
	double out[2 * 8 * 2], bad[DIM];
	int i;

	ok(alloc_fails("nope", DIM, 8, NULL, NULL, "nope"), "unknown estimator");
	ok(alloc_fails("trig", 0, 8, NULL, NULL, "dimension"), "d = 0");
	ok(alloc_fails("trig", DIM, 0, NULL, NULL, "features"), "M = 0");
	ok(alloc_fails("trig", DIM, 8, "orthogonal", NULL, "orthogonal"),
	   "unknown projection kind");
	ok(alloc_fails("trig", DIM, 8, NULL, "laplace", "laplace"),
	   "unknown kernel");
	ok(alloc_fails("pois", DIM, 8, "ort", NULL, "iid"),
	   "a discrete estimator refuses projection ort");
	ok(alloc_fails("trig", 41, 8, "sobol", NULL, "40"),
	   "sobol beyond its 40 dimensions");
	ok(alloc_fails(NULL, DIM, 8, NULL, NULL, "estimator"), "no method");
	rfx_model_free(NULL);
	ok(1, "rfx_model_free(NULL) is a no-op");

	m = rfx_model_alloc("oprf", DIM, 8, "ort", NULL, &err);
	ok(m != NULL, "oprf model");
	if (!m)
		return;
	ok(rfx_model_dim(m) == 0, "no dimension before the fit");
	ok(rfx_model_draw(m, 1, &err) == RFX_EINVAL && has(err.msg, "fit"),
	   "draw before fit: %s", err.msg);
	ok(rfx_model_log_variance(m, X, 1, Y, 1, out, &err) == RFX_EINVAL,
	   "variance before fit: %s", err.msg);
	ok(rfx_model_set_param(m, "B=1", &err) == RFX_EINVAL,
	   "unknown parameter B: %s", err.msg);
	ok(rfx_model_set_param(m, "A=abc", &err) == RFX_EINVAL,
	   "A=abc: %s", err.msg);
	ok(rfx_model_fit(m, X, 0, Y, 1, &err) == RFX_EINVAL,
	   "fit to no input: %s", err.msg);
	for (i = 0; i < DIM; i++)
		bad[i] = 0.1;
	bad[3] = NAN;
	ok(rfx_model_fit(m, bad, 1, Y, 1, &err) == RFX_EINVAL &&
		   has(err.msg, "not finite"),
	   "fit to NaN: %s", err.msg);
	bad[3] = 2e75;
	ok(rfx_model_fit(m, X, 1, bad, 1, &err) == RFX_EINVAL &&
		   has(err.msg, "beyond"),
	   "fit to 2e75: %s", err.msg);
	ok(rfx_model_fit(m, X, N, Y, N, &err) == RFX_OK && rfx_model_dim(m) == 8,
	   "fit; 8 real columns");
	ok(rfx_model_features(m, 1, X, 1, out, &err) == RFX_EINVAL &&
		   has(err.msg, "draw"),
	   "features before draw: %s", err.msg);
	ok(rfx_model_draw(m, 5, &err) == RFX_OK, "draw");
	ok(rfx_model_features(m, 3, X, 1, out, &err) == RFX_EINVAL &&
		   has(err.msg, "side"),
	   "side 3: %s", err.msg);
	bad[3] = INFINITY;
	ok(rfx_model_features(m, 1, bad, 1, out, &err) == RFX_EINVAL &&
		   has(err.msg, "not finite"),
	   "features of inf: %s", err.msg);
	ok(rfx_model_features(m, 1, X, 0, NULL, &err) == RFX_OK,
	   "features of no input");
	ok(rfx_kernel_log("cauchy", X, 1, Y, 1, DIM, out, &err) == RFX_EINVAL &&
		   has(err.msg, "cauchy"),
	   "unknown kernel of rfx_kernel_log: %s", err.msg);
	ok(rfx_model_set_param(m, "A=-0.1", &err) == RFX_OK &&
		   rfx_model_features(m, 1, X, 1, out, &err) == RFX_EINVAL,
	   "setting a parameter discards the draw");
	rfx_model_free(m);
}

/* A fitted and drawn model, or NULL after a failed test. */
static struct rfx_model *model(const char *method, int M, const char *proj,
			       const char *kernel, unsigned long long seed)
{
	struct rfx_err err;
	struct rfx_model *m = rfx_model_alloc(method, DIM, M, proj, kernel, &err);

	if (!m || rfx_model_fit(m, X, N, Y, N, &err) ||
	    rfx_model_draw(m, seed, &err)) {
		ok(0, "%s model: %s", method, err.msg);
		rfx_model_free(m);
		return NULL;
	}
	return m;
}

/*
 * TrigRF with M complex features: row i is [cos(w_j.x_i), sin(w_j.x_i)] /
 * sqrt(M), so its squared norm is sum_j (cos^2 + sin^2)/M = 1 exactly, on
 * both sides. Its estimate of K(x, y) is the mean of cos(w_j.(x - y)) with
 * w ~ N(0, I): E cos(w.z) = e^{-|z|^2/2} = K, E cos^2 = (1 + E cos 2w.z)/2
 * = (1 + K^4)/2, so Var = (1 + K^4)/2 - K^2 = (1 - K^2)^2 / 2 per feature
 * and (1 - K^2)^2 / (2M) for M.
 */
static void test_trig(void)
{
	enum { M = 16 };
	struct rfx_err err;
	struct rfx_model *m = model("trig", M, "ort", NULL, 11);
	double F1[N * 2 * M], F2[N * 2 * M], lv[N * N], lk[N * N];
	double worst = 0.0, worstv = 0.0;
	int i, k, j;

	if (!m)
		return;
	ok(rfx_model_dim(m) == 2 * M, "trig: 2M real columns");
	ok(!rfx_model_features(m, 1, X, N, F1, &err) &&
		   !rfx_model_features(m, 2, X, N, F2, &err),
	   "trig features, both sides");
	for (i = 0; i < N; i++) {
		double s = 0.0;

		for (j = 0; j < 2 * M; j++)
			s += F1[i * 2 * M + j] * F1[i * 2 * M + j];
		worst = fmax(worst, fabs(s - 1.0));
	}
	ok(worst < 1e-14, "trig: every row has norm 1 (worst error %.2g)", worst);
	ok(!memcmp(F1, F2, sizeof(F1)), "trig: side 2's real map is side 1's");
	ok(!rfx_model_log_variance(m, X, N, Y, N, lv, &err) &&
		   !rfx_kernel_log("gauss", X, N, Y, N, DIM, lk, &err),
	   "log variance and log K of %d x %d pairs", N, N);
	for (i = 0; i < N; i++)
		for (k = 0; k < N; k++) {
			double K2 = exp(2.0 * lk[i * N + k]);
			double want = 2.0 * log1p(-K2) - log(2.0 * M);

			worstv = fmax(worstv, fabs(lv[i * N + k] - want));
		}
	ok(worstv < 1e-12, "trig: log Var = log((1 - K^2)^2 / 2M) (worst %.2g)",
	   worstv);
	rfx_model_free(m);
}

static void test_kernel(void)
{
	/* x - y = (0.5, 3, -4, 0, 0): |x - y|^2 = 25.25; x.y = -4.5 by hand */
	static const double x[DIM] = { 1.0, 2.0, -1.0, 0.0, 0.0 };
	static const double y[DIM] = { 0.5, -1.0, 3.0, 0.0, 0.0 };
	double g, s;

	rfx_kernel_log("gauss", x, 1, y, 1, DIM, &g, NULL);
	rfx_kernel_log("softmax", x, 1, y, 1, DIM, &s, NULL);
	is_approx(g, -12.625, TEST_TOL0, "log K = -|x - y|^2/2 = -12.625");
	is_approx(s, -4.5, TEST_TOL0, "log SM = x.y = -4.5");
}

/*
 * The same draw seen as double, float, log-scaled and softmax features;
 * the seed fixes the bytes and another seed changes them.
 */
static void test_outputs(void)
{
	enum { M = 12 };
	struct rfx_err err;
	struct rfx_model *m = model("oprf", M, "ort", NULL, 3);
	struct rfx_model *same = model("oprf", M, "ort", NULL, 3);
	struct rfx_model *other = model("oprf", M, "ort", NULL, 4);
	struct rfx_model *soft = model("oprf", M, "ort", "softmax", 3);
	static double F[N * M], G[N * M], H[N * M], L[N * M], ls[N], S[N * M];
	static float F32[N * M];
	double wl = 0.0, ws = 0.0;
	int i, j, f32ok = 1;

	if (!m || !same || !other || !soft)
		goto out;
	ok(!rfx_model_features(m, 1, X, N, F, &err) &&
		   !rfx_model_features(same, 1, X, N, G, &err) &&
		   !rfx_model_features(other, 1, X, N, H, &err),
	   "oprf features of three models");
	ok(!memcmp(F, G, sizeof(F)), "the same seed gives the same bytes");
	ok(memcmp(F, H, sizeof(F)) != 0, "another seed gives other features");
	ok(!rfx_model_features_f32(m, 1, X, N, F32, &err), "float32 features");
	for (i = 0; i < N * M; i++)
		if (F32[i] != (float)F[i])
			f32ok = 0;
	ok(f32ok, "float32 features are the doubles rounded once");
	ok(!rfx_model_features_log(m, 1, X, N, L, ls, &err), "log-scaled features");
	for (i = 0; i < N; i++)
		for (j = 0; j < M; j++) {
			double v = L[i * M + j] * exp(ls[i]);

			wl = fmax(wl, fabs(v - F[i * M + j]) / fabs(F[i * M + j]));
		}
	ok(wl < 1e-15, "log-scaled times e^scale is the feature (worst %.2g)", wl);
	ok(!rfx_model_features(soft, 1, X, N, S, &err), "softmax features");
	/* SM = e^{|x|^2/2} K e^{|y|^2/2}: each map gains e^{|x|^2/2} */
	for (i = 0; i < N; i++) {
		double xx = 0.0;

		for (j = 0; j < DIM; j++)
			xx += X[i * DIM + j] * X[i * DIM + j];
		for (j = 0; j < M; j++)
			ws = fmax(ws, fabs(S[i * M + j] / (F[i * M + j] * exp(0.5 * xx)) - 1.0));
	}
	ok(ws < 1e-14, "softmax features are e^{|x|^2/2} times the Gaussian ones (worst %.2g)",
	   ws);
out:
	rfx_model_free(m);
	rfx_model_free(same);
	rfx_model_free(other);
	rfx_model_free(soft);
}

/*
 * The float32 path (rfx_model_features_float). Where the estimator has a
 * float32 map, each feature is within the bound of lib/est/featmap32.h
 * of the float64 one: with u = 2^-24, |w.x| off by (d + 2) u sum|w_l x_l|
 * <= (d + 2) u 6 |x|_1 (|w_l| < 6 for all 60 Gaussian entries of these
 * draws: each exceeds it with probability 2e-9), an absolute error for
 * trig's cos and sin (plus 2u, then the 1/sqrt(M) scale and the output's
 * rounding u), a relative one for the positive maps (plus the same for
 * |x|^2, and 3u for expf, the scale and the output). Elsewhere (ang) the
 * float64 features of the widened inputs, rounded once. Errors: NaN
 * input, NULL, before the draw.
 */
static void test_float_path(void)
{
	enum { M = 12 };
	const double u = 0x1p-24;
	struct rfx_err err;
	struct rfx_model *t = model("trig", M, "iid", NULL, 5);
	struct rfx_model *o = model("oprf", M, "ort", "softmax", 5);
	struct rfx_model *a = model("ang", M, "iid", NULL, 5);
	struct rfx_model *nd = rfx_model_alloc("pos", DIM, M, NULL, NULL, &err);
	static float X32[N * DIM], F32[N * 4 * M], nanx[DIM];
	static double Xw[N * DIM], F64[N * 4 * M];
	double wt = 0.0, wo = 0.0;
	int i, j, good;

	if (!t || !o || !a || !nd)
		goto out;
	for (i = 0; i < N * DIM; i++) {
		X32[i] = (float)X[i];
		Xw[i] = X32[i];
	}
	ok(rfx_model_float_native(t) && rfx_model_float_native(o) &&
	   !rfx_model_float_native(a) && !rfx_model_float_native(NULL),
	   "float32 maps: trig and oprf have one, ang not");
	good = !rfx_model_features_float(t, 2, X32, N, F32, &err) &&
	       !rfx_model_features(t, 2, X, N, F64, &err);
	for (i = 0; good && i < N; i++) {
		double l1 = 0.0;

		for (j = 0; j < DIM; j++)
			l1 += fabs(X[i * DIM + j]);
		for (j = 0; j < 2 * M; j++) {
			double e = fabs(F32[i * 2 * M + j] - F64[i * 2 * M + j]);
			double b = ((DIM + 2) * u * 6.0 * l1 + 2.0 * u) / sqrt(M) + u;

			wt = fmax(wt, e / b);
		}
	}
	ok(good && wt <= 1.0, "trig float32 path (side 2) within its bound of "
	   "float64 (worst %.2g of it)", wt);
	good = !rfx_model_features_float(o, 1, X32, N, F32, &err) &&
	       !rfx_model_features(o, 1, X, N, F64, &err);
	for (i = 0; good && i < N; i++) {
		double l1 = 0.0, xx = 0.0;

		for (j = 0; j < DIM; j++) {
			l1 += fabs(X[i * DIM + j]);
			xx += X[i * DIM + j] * X[i * DIM + j];
		}
		for (j = 0; j < M; j++) {
			double f = F64[i * M + j];
			double b = (DIM + 2) * u * (6.0 * l1 + 2.0 * xx) + 4.0 * u;

			wo = fmax(wo, fabs(F32[i * M + j] - f) / (b * f));
		}
	}
	ok(good && wo <= 1.0, "oprf softmax float32 path within its relative "
	   "bound of float64 (worst %.2g of it)", wo);
	good = !rfx_model_features_float(a, 1, X32, N, F32, &err) &&
	       !rfx_model_features(a, 1, Xw, N, F64, &err);
	for (i = 0; good && i < N * rfx_model_dim(a); i++)
		good &= F32[i] == (float)F64[i];
	ok(good, "ang (no float32 map): the float64 features of the widened "
	   "inputs, rounded once");
	nanx[2] = NAN;
	ok(rfx_model_features_float(t, 1, nanx, 1, F32, &err) == RFX_EINVAL &&
	   has(err.msg, "not finite"), "float32 path: NaN input is RFX_EINVAL");
	ok(rfx_model_features_float(t, 1, NULL, 3, F32, &err) == RFX_EINVAL,
	   "float32 path: NULL input is RFX_EINVAL");
	ok(rfx_model_features_float(nd, 1, X32, N, F32, &err) == RFX_EINVAL &&
	   has(err.msg, "before fit"), "float32 path before the fit: RFX_EINVAL");
out:
	rfx_model_free(t);
	rfx_model_free(o);
	rfx_model_free(a);
	rfx_model_free(nd);
}

/*
 * The draws of a seed are keyed by the estimator's name, not by what the
 * caller typed: an alias ("favor+", Performers' name for PosRF) draws
 * what "pos" draws.
 */
static void test_alias_stream(void)
{
	enum { M = 6 };
	struct rfx_err err;
	struct rfx_model *a = model("pos", M, "ort", NULL, 17);
	struct rfx_model *b = model("favor+", M, "ort", NULL, 17);
	static double F[N * M], G[N * M];

	if (a && b)
		ok(!rfx_model_features(a, 1, X, N, F, &err) &&
			   !rfx_model_features(b, 1, X, N, G, &err) &&
			   !memcmp(F, G, sizeof(F)),
		   "an alias draws its estimator's stream");
	rfx_model_free(a);
	rfx_model_free(b);
}

/* A large map: 2000 rows, so that several chunks run on several threads. */
#define BIG 2000
struct job {
	const char *method; /* estimator */
	double *out;        /* BIG x dim features */
	int ret;            /* status */
};

static double BX[BIG * DIM];

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct rfx_err err;
	struct rfx_model *m = rfx_model_alloc(j->method, DIM, 64, "ort", NULL, &err);

	j->ret = !m || rfx_model_fit(m, BX, BIG, BX, BIG, &err) ||
		 rfx_model_draw(m, 99, &err) ||
		 rfx_model_features(m, 1, BX, BIG, j->out, &err);
	rfx_model_free(m);
	return NULL;
}

static void test_threads(void)
{
	static const char *methods[2] = { "trig", "oprf" };
	double *serial[2], *one[2], *conc[2];
	struct job jobs[2];
	pthread_t th[2];
	int k, i, same1 = 1, same2 = 1, nt = omp_get_max_threads();

	for (i = 0; i < BIG * DIM; i++)
		BX[i] = 0.5 * sin(0.731 * i + 0.2);
	for (k = 0; k < 2; k++) {
		serial[k] = malloc(sizeof(double) * BIG * 128);
		one[k] = malloc(sizeof(double) * BIG * 128);
		conc[k] = malloc(sizeof(double) * BIG * 128);
		if (!serial[k] || !one[k] || !conc[k]) {
			ok(0, "out of memory");
			return; /* the test ends here: no need to free */
		}
	}
	omp_set_num_threads(nt > 1 ? nt : 2);
	for (k = 0; k < 2; k++) {
		struct job j = { methods[k], serial[k], 0 };

		run_job(&j);
		ok(!j.ret, "%s: %d x 64 features on %d threads", methods[k], BIG,
		   nt > 1 ? nt : 2);
	}
	omp_set_num_threads(1);
	for (k = 0; k < 2; k++) {
		struct job j = { methods[k], one[k], 0 };

		run_job(&j);
		if (j.ret || memcmp(one[k], serial[k], sizeof(double) * BIG *
				    (k ? 64 : 128)))
			same1 = 0;
	}
	ok(same1, "one thread gives the same bytes");
	omp_set_num_threads(nt > 1 ? nt : 2);
	for (k = 0; k < 2; k++) {
		jobs[k].method = methods[k];
		jobs[k].out = conc[k];
		jobs[k].ret = 0;
		if (pthread_create(&th[k], NULL, run_job, &jobs[k])) {
			ok(0, "cannot start a thread");
			return;
		}
	}
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		if (jobs[k].ret || memcmp(conc[k], serial[k], sizeof(double) * BIG *
					  (k ? 64 : 128)))
			same2 = 0;
	}
	ok(same2, "two models on two threads at once give the same bytes");
	for (k = 0; k < 2; k++) {
		free(serial[k]);
		free(one[k]);
		free(conc[k]);
	}
}

/*
 * Outputs of 16 MiB or more are written with streaming stores (lib/api/
 * rfx.c): a 4096 x 512 trig output (16 MiB) in one call must have the
 * bytes of two calls of 2048 rows (8 MiB each, plain stores; the chunks
 * of 128 rows are the same), also at an address 8 bytes off the 16-byte
 * alignment the stores want, and the same for the float32 path at 8192
 * rows. And the inputs are checked in the parallel chunks: with bad
 * entries in two chunks, the error names the first in row order.
 */
static void test_large_outputs(void)
{
	enum { R = 4096, MT = 256, W = 2 * MT, D2 = 64 };
	struct rfx_err err;
	struct rfx_model *t = rfx_model_alloc("trig", D2, MT, "iid", NULL, &err);
	double *x = malloc(sizeof(double) * 2 * R * D2);
	double *a = malloc(sizeof(double) * (R * W + 1));
	double *b = malloc(sizeof(double) * R * W);
	float *x32 = malloc(sizeof(float) * 2 * R * D2);
	float *a32 = malloc(sizeof(float) * (2 * R * W + 1));
	float *b32 = malloc(sizeof(float) * 2 * R * W);
	size_t i;
	int good;

	if (!t || !x || !a || !b || !x32 || !a32 || !b32) {
		ok(0, "large outputs: out of memory");
		goto out;
	}
	for (i = 0; i < 2 * (size_t)R * D2; i++) {
		x[i] = 0.13 * sin(1.917 * (double)i + 0.4);
		x32[i] = (float)x[i];
	}
	if (rfx_model_fit(t, x, R, x, R, &err) || rfx_model_draw(t, 3, &err)) {
		ok(0, "large outputs: %s", err.msg);
		goto out;
	}
	omp_set_num_threads(2);
	good = !rfx_model_features(t, 1, x, R, a, &err) &&
	       !rfx_model_features(t, 1, x, R / 2, b, &err) &&
	       !rfx_model_features(t, 1, x + R / 2 * D2, R / 2, b + R / 2 * W,
				   &err);
	ok(good && !memcmp(a, b, sizeof(double) * R * W),
	   "a 16 MiB output (streaming stores) has the bytes of two 8 MiB ones");
	good = !rfx_model_features(t, 2, x, R, a + 1, &err) &&
	       !rfx_model_features(t, 2, x, R / 2, b, &err) &&
	       !rfx_model_features(t, 2, x + R / 2 * D2, R / 2, b + R / 2 * W,
				   &err);
	ok(good && !memcmp(a + 1, b, sizeof(double) * R * W),
	   "the same, side 2, at an output 8 bytes off 16-byte alignment");
	good = !rfx_model_features_float(t, 1, x32, 2 * R, a32 + 1, &err) &&
	       !rfx_model_features_float(t, 1, x32, R, b32, &err) &&
	       !rfx_model_features_float(t, 1, x32 + R * D2, R, b32 + R * W,
					 &err);
	ok(good && !memcmp(a32 + 1, b32, sizeof(float) * 2 * R * W),
	   "float32 path: a 16 MiB output has the bytes of two 8 MiB ones");
	x[1500 * D2 + 7] = 2e75;
	x[3000 * D2 + 2] = NAN;
	ok(rfx_model_features(t, 1, x, R, a, &err) == RFX_EINVAL &&
		   has(err.msg, "row 1500 column 7 is 2e+75, beyond"),
	   "bad entries in two chunks: the first is named: %s", err.msg);
	x[1500 * D2 + 7] = -INFINITY;
	x[3000 * D2 + 2] = 2e75;
	ok(rfx_model_features(t, 1, x, R, a, &err) == RFX_EINVAL &&
		   has(err.msg, "row 1500 column 7 is not finite (-inf)"),
	   "and a non-finite one first: %s", err.msg);
	x32[4000 * D2 + 63] = NAN;
	x32[7000 * D2] = INFINITY;
	ok(rfx_model_features_float(t, 1, x32, 2 * R, a32, &err) == RFX_EINVAL &&
		   has(err.msg, "row 4000 column 63 is not finite"),
	   "float32 path: the first bad entry is named: %s", err.msg);
out:
	rfx_model_free(t);
	free(x);
	free(a);
	free(b);
	free(x32);
	free(a32);
	free(b32);
}

/*
 * A GSL allocation that fails inside a call is an error, not GSL's
 * default handler (print and abort), which this program leaves in place
 * as a caller of the library would. An ort draw in dimension 5 x 10^6
 * asks GSL for its d x d QR block, 200 TB: more than x86-64's 128 TB of
 * user address space, so malloc fails whatever the overcommit policy.
 * Before the library turned the handler off, this aborted (the Python
 * binding's interpreter with it). An iid draw needs no such block: in the
 * same dimension it runs, and as trig's M features of x = 0 are
 * cos 0 = 1 and sin 0 = 0 over sqrt(M), their squares sum to k(0, 0) = 1
 * (until the workspace made its squares for every kind, it was out of
 * memory too).
 */
static void test_gsl_failure(void)
{
	const int d = 5000000, M = 2;
	struct rfx_err err = { 0 };
	struct rfx_model *m = rfx_model_alloc("trig", d, 1, "ort", "gauss", &err);
	double *x = calloc((size_t)d, sizeof(double)), phi[8], sq = 0.0;
	int ret = -1, j, D = 0;

	if (m && x && rfx_model_fit(m, x, 1, x, 1, &err) == RFX_OK)
		ret = rfx_model_draw(m, 1, &err);
	ok(ret == RFX_ENOMEM && strstr(err.msg, "out of memory") &&
		   strstr(err.msg, "ort"),
	   "an ort draw whose QR block GSL cannot allocate: RFX_ENOMEM, no "
	   "abort (%d: %s)", ret, err.msg);
	rfx_model_free(m);
	err.msg[0] = '\0';
	m = rfx_model_alloc("trig", d, M, "iid", "gauss", &err);
	ret = -1;
	if (m && x && rfx_model_fit(m, x, 1, x, 1, &err) == RFX_OK &&
	    rfx_model_draw(m, 1, &err) == RFX_OK &&
	    (D = rfx_model_dim(m)) >= M && D <= 8)
		ret = rfx_model_features(m, 1, x, 1, phi, &err);
	for (j = 0; ret == RFX_OK && j < D; j++)
		sq += phi[j] * phi[j];
	ok(ret == RFX_OK && fabs(sq - 1.0) < 1e-15,
	   "an iid draw in the same dimension runs: |phi(0)|^2 = %.17g, 1 "
	   "(%d: %s)", sq, ret, err.msg);
	rfx_model_free(m);
	free(x);
}

int main(void)
{
	make_inputs();
	test_lists();
	test_errors();
	test_trig();
	test_kernel();
	test_outputs();
	test_float_path();
	test_alias_stream();
	test_threads();
	test_large_outputs();
	test_gsl_failure();
	return done_testing();
}

/*
 * The linear SVM of svm.h: argument checks, dual coordinate descent for
 * one binary problem (Hsieh et al. 2008, Algorithm 1 with the shrinking
 * of their sec. 3.2; the stopping rule is checked on all coordinates
 * before a run ends), one-vs-rest over the classes in parallel, and
 * prediction.
 */
#include "eval/svm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/rng.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RFX_SVM_X86 1
#include <immintrin.h>
#endif

struct rfx_svm_ws {
	size_t cap;      /* points */
	double *alpha;   /* dual variables */
	double *qd;      /* Q_ii = |x~_i|^2 */
	size_t *order;   /* visit order of the current epoch */
	int *yb;         /* +-1 labels of a one-vs-rest problem */
};

void rfx_svm_params_init(struct rfx_svm_params *p)
{
	p->C = 1.0;
	p->bias = 1.0;
	p->eps = 0.1;
	p->max_iter = 1000;
}

struct rfx_svm_ws *rfx_svm_ws_alloc(size_t n)
{
	struct rfx_svm_ws *ws;

	if (n == 0)
		return NULL;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->cap = n;
	ws->alpha = malloc(n * sizeof(double));
	ws->qd = malloc(n * sizeof(double));
	ws->order = malloc(n * sizeof(size_t));
	ws->yb = malloc(n * sizeof(int));
	if (!ws->alpha || !ws->qd || !ws->order || !ws->yb) {
		rfx_svm_ws_free(ws);
		return NULL;
	}
	return ws;
}

void rfx_svm_ws_free(struct rfx_svm_ws *ws)
{
	if (!ws)
		return;
	free(ws->alpha);
	free(ws->qd);
	free(ws->order);
	free(ws->yb);
	free(ws);
}

const double *rfx_svm_ws_alpha(const struct rfx_svm_ws *ws)
{
	return ws->alpha;
}

/*
 * The arithmetic of a coordinate step, in kernels of one instruction set
 * each: dot, w . x in the four partial sums described below; dot2, two
 * such dots with one w in one pass (this step's and the next one's, two
 * independent chains of adds); axpy, the update w += u x; and axpy_dot,
 * the update followed by the dot of the updated w with the next row, in
 * one pass over w (train_core uses it when a step changes w and another
 * follows). Each also brings the rows at pf (and pf2) into the cache for
 * the steps after (a hint, pf may equal x).
 *
 * Every kernel performs the same floating-point operations in the same
 * order, so they give the same bits and the choice never shows in a
 * result: the products w_l x_l (x_l widened exactly to double) are
 * rounded once, then added, never fused into one FMA (the AVX kernels'
 * targets do not enable FMA, and -std=c11 already sets -ffp-contract=off
 * for the plain one); dot's partial sums s_j add the products of l = j
 * mod 4 in increasing l, so the four lanes of one 256-bit register are
 * s_0..s_3, and the update is elementwise, so its vector width is free.
 * tests/t_svm.c compares every kernel with the scalar one bit for bit.
 */

/*
 * w . x in four partial sums, s_j over the l = j mod 4 of the whole
 * blocks of four, the tail in s_0, added as ((s_0 + s_1) + s_2) + s_3:
 * the order an OpenMP simd reduction had in the SSE2 build, written out
 * so that it no longer depends on the compiler's choice of vector
 * length. Without -ffast-math the compiler may not reassociate it, so
 * the result is the same for every build and thread count.
 */
static double dot(const double *w, const float *x, int d)
{
	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s = 0.0;
	int l, m = d & ~3;

	for (l = 0; l < m; l += 4) {
		s0 += w[l] * (double)x[l];
		s1 += w[l + 1] * (double)x[l + 1];
		s2 += w[l + 2] * (double)x[l + 2];
		s3 += w[l + 3] * (double)x[l + 3];
	}
	for (; l < d; l++)
		s0 += w[l] * (double)x[l];
	s += s0;
	s += s1;
	s += s2;
	return s + s3;
}

/* w += u x, elementwise: vectorising it changes no bytes. */
static void axpy(double *w, double u, const float *x, int d)
{
	int l;

#pragma omp simd
	for (l = 0; l < d; l++)
		w[l] += u * (double)x[l];
}

/*
 * Asks for the row the next coordinate step reads while this one is
 * worked on: the rows are visited in random order, so the hardware
 * prefetcher cannot guess them, and on large problems (USPS at D = 10 d
 * is 75 MB of features) each step otherwise waits for its row to come
 * from L3 or memory. A hint only: the arithmetic is unchanged.
 */
static void prefetch_row(const float *x, int d)
{
	const char *p = (const char *)x, *end = (const char *)(x + d);

	for (; p < end; p += 64)
		__builtin_prefetch(p, 0, 3);
}

/* The portable kernel: the plain loops above. */
static double dot_scalar(const double *w, const float *x, int d,
			 const float *pf)
{
	prefetch_row(pf, d);
	return dot(w, x, d);
}

static double dot2_scalar(const double *w, const float *x, const float *z,
			  int d, double *wz, const float *pf, const float *pf2)
{
	prefetch_row(pf, d);
	prefetch_row(pf2, d);
	*wz = dot(w, z, d);
	return dot(w, x, d);
}

static void axpy_scalar(double *w, double u, const float *x, int d,
			const float *pf)
{
	prefetch_row(pf, d);
	axpy(w, u, x, d);
}

static double axpy_dot_scalar(double *w, double u, const float *x,
			      const float *z, int d, const float *pf)
{
	prefetch_row(pf, d);
	axpy(w, u, x, d);
	return dot(w, z, d);
}

#ifdef RFX_SVM_X86
/*
 * The AVX2 kernel: one __m256d holds s_0..s_3 (lane j, s_j), so a block
 * of four is one multiply and one add. The prefetches of pf are spread
 * over the loop, a line (16 floats) every 16 entries, so that the next
 * row streams in while this one is computed instead of all at once
 * before it (a burst of 300 prefetches stalls once the line fill
 * buffers are full: perf put 3/4 of train_core's time on that loop), and
 * into L2 only (T1), so that w (41 KB at USPS, D = 10 d) keeps L1.
 * Measured on random rows of a 150 MB matrix (the USPS case), d = 5120:
 * 0.25 ns an entry from cache, 0.41 with these prefetches, 0.47 with
 * T0, 0.63 with none.
 */
#define AVX2 static inline __attribute__((always_inline, target("avx2")))

/*
 * The lines of pf the loop over l < m did not ask for (it asked at each
 * multiple of 16), and the one holding the last entry.
 */
AVX2 void pf_tail(const float *pf, int m, int d)
{
	int l;

	for (l = (m + 15) & ~15; l < d; l += 16)
		_mm_prefetch((const char *)(pf + l), _MM_HINT_T1);
	if (d > 0)
		_mm_prefetch((const char *)(pf + d - 1), _MM_HINT_T1);
}

/* w[l..l+3] x[l..l+3], each product rounded once. */
AVX2 __m256d prod4(const double *w, const float *x)
{
	return _mm256_mul_pd(_mm256_loadu_pd(w), _mm256_cvtps_pd(_mm_loadu_ps(x)));
}

/* w[l..l+3] += u x[l..l+3]: a multiply, then an add; the new w returned. */
AVX2 __m256d upd4(double *w, __m256d u, const float *x)
{
	__m256d v = _mm256_add_pd(_mm256_loadu_pd(w),
				  _mm256_mul_pd(u, _mm256_cvtps_pd(_mm_loadu_ps(x))));

	_mm256_storeu_pd(w, v);
	return v;
}

/* The tail l..d-1 into s_0, then ((s_0 + s_1) + s_2) + s_3, as dot. */
AVX2 double finish(__m256d acc, const double *w, const float *x, int l, int d)
{
	double s[4], t = 0.0;

	_mm256_storeu_pd(s, acc);
	for (; l < d; l++)
		s[0] += w[l] * (double)x[l];
	t += s[0];
	t += s[1];
	t += s[2];
	return t + s[3];
}

__attribute__((target("avx2")))
static double dot_avx2(const double *w, const float *x, int d, const float *pf)
{
	__m256d acc = _mm256_setzero_pd();
	int l, m = d & ~3;

	for (l = 0; l < m; l += 4) {
		if (!(l & 15))
			_mm_prefetch((const char *)(pf + l), _MM_HINT_T1);
		acc = _mm256_add_pd(acc, prod4(w + l, x + l));
	}
	pf_tail(pf, m, d);
	return finish(acc, w, x, m, d);
}

__attribute__((target("avx2")))
static double dot2_avx2(const double *w, const float *x, const float *z,
			int d, double *wz, const float *pf, const float *pf2)
{
	__m256d ax = _mm256_setzero_pd(), az = _mm256_setzero_pd();
	int l, m = d & ~3;

	for (l = 0; l < m; l += 4) {
		__m256d v = _mm256_loadu_pd(w + l);

		if (!(l & 15)) {
			_mm_prefetch((const char *)(pf + l), _MM_HINT_T1);
			_mm_prefetch((const char *)(pf2 + l), _MM_HINT_T1);
		}
		ax = _mm256_add_pd(ax, _mm256_mul_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(x + l))));
		az = _mm256_add_pd(az, _mm256_mul_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(z + l))));
	}
	pf_tail(pf, m, d);
	pf_tail(pf2, m, d);
	*wz = finish(az, w, z, m, d);
	return finish(ax, w, x, m, d);
}

__attribute__((target("avx2")))
static void axpy_avx2(double *w, double u, const float *x, int d,
		      const float *pf)
{
	__m256d uu = _mm256_set1_pd(u);
	int l, m = d & ~3;

	for (l = 0; l < m; l += 4) {
		if (!(l & 15))
			_mm_prefetch((const char *)(pf + l), _MM_HINT_T1);
		upd4(w + l, uu, x + l);
	}
	for (; l < d; l++)
		w[l] += u * (double)x[l];
	pf_tail(pf, m, d);
}

__attribute__((target("avx2")))
static double axpy_dot_avx2(double *w, double u, const float *x,
			    const float *z, int d, const float *pf)
{
	__m256d uu = _mm256_set1_pd(u), acc = _mm256_setzero_pd();
	int l, m = d & ~3;

	for (l = 0; l < m; l += 4) {
		__m256d v;

		if (!(l & 15))
			_mm_prefetch((const char *)(pf + l), _MM_HINT_T1);
		v = upd4(w + l, uu, x + l);
		acc = _mm256_add_pd(acc,
				    _mm256_mul_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(z + l))));
	}
	for (; l < d; l++)
		w[l] += u * (double)x[l];
	pf_tail(pf, m, d);
	return finish(acc, w, z, m, d);
}
#endif

static const struct rfx_svm_kernel scalar = {
	"scalar", dot_scalar, dot2_scalar, axpy_scalar, axpy_dot_scalar
};

#ifdef RFX_SVM_X86
static const struct rfx_svm_kernel avx2 = {
	"avx2", dot_avx2, dot2_avx2, axpy_avx2, axpy_dot_avx2
};
#endif

/* The kernels, portable first; NULL-terminated. */
static const struct rfx_svm_kernel *const kernels[] = {
	&scalar,
#ifdef RFX_SVM_X86
	&avx2,
#endif
	NULL
};

static int kernel_runs(const struct rfx_svm_kernel *k)
{
#ifdef RFX_SVM_X86
	if (k == &avx2)
		return __builtin_cpu_supports("avx2") != 0;
#endif
	(void)k;
	return 1;
}

/* The best kernel this CPU runs (the last that runs); benign race. */
static const struct rfx_svm_kernel *impl(void)
{
	static const struct rfx_svm_kernel *best;
	const struct rfx_svm_kernel *const *k;
	const struct rfx_svm_kernel *b = &scalar;

	if (best)
		return best;
	for (k = kernels; *k; k++)
		if (kernel_runs(*k))
			b = *k;
	best = b;
	return b;
}

const char *rfx_svm_kernel_name(void)
{
	return impl()->name;
}

int rfx_svm_kernel_find(const char *name, struct rfx_svm_kernel *k,
			struct rfx_err *err)
{
	const struct rfx_svm_kernel *const *p, *q;

	for (p = kernels; (q = *p); p++)
		if (!strcmp(q->name, name ? name : "")) {
			if (!kernel_runs(q))
				return rfx_error(err, RFX_EINVAL,
						 "svm kernel '%s' needs %s, which this CPU lacks",
						 name, name);
			*k = *q;
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL,
			 "unknown svm kernel '%s', expected scalar or avx2",
			 name ? name : "");
}

static int check_params(const struct rfx_svm_params *p, struct rfx_err *err)
{
	if (!p)
		return rfx_error(err, RFX_EINVAL, "svm: missing parameters");
	if (!(p->C > 0.0) || !isfinite(p->C))
		return rfx_error(err, RFX_EINVAL,
				 "svm: C must be positive and finite, got %g", p->C);
	if (!(p->eps > 0.0) || !isfinite(p->eps))
		return rfx_error(err, RFX_EINVAL,
				 "svm: eps must be positive and finite, got %g", p->eps);
	if (!isfinite(p->bias))
		return rfx_error(err, RFX_EINVAL, "svm: bias must be finite, got %g",
				 p->bias);
	if (p->max_iter < 1)
		return rfx_error(err, RFX_EINVAL,
				 "svm: max_iter must be at least 1, got %d", p->max_iter);
	return RFX_OK;
}

/* The checks of the points shared by both trainers. */
static int check_points(const float *X, size_t n, int d, const int *y,
			struct rfx_err *err)
{
	size_t i;
	int l;

	if (n == 0 || d < 1)
		return rfx_error(err, RFX_EINVAL,
				 "svm: needs points and d >= 1, got n = %zu, d = %d", n, d);
	if (!X || !y)
		return rfx_error(err, RFX_EINVAL, "svm: missing points or labels");
	for (i = 0; i < n; i++)
		for (l = 0; l < d; l++)
			if (!isfinite(X[i * (size_t)d + (size_t)l]))
				return rfx_error(err, RFX_EINVAL,
						 "svm: feature %d of point %zu is not finite",
						 l, i);
	return RFX_OK;
}

/*
 * Q_ii = |x~_i|^2 = B^2 + |x_i|^2 of every point: the same for every
 * class of a one-vs-rest problem, so computed once for all of them.
 */
static void diag_q(const float *X, size_t n, int d, double B, double *qd)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		const float *x = X + i * (size_t)d;
		double q = B * B;

		for (l = 0; l < d; l++)
			q += (double)x[l] * x[l];
		qd[i] = q;
	}
}

/* The row of the point at place t of order, or dflt past the active set. */
static const float *row(const float *X, const size_t *order, size_t t,
			size_t active, int d, const float *dflt)
{
	return t < active ? X + order[t] * (size_t)d : dflt;
}

/*
 * Algorithm 1 of Hsieh et al. on checked arguments with labels ws->yb
 * and the diagonal qd of diag_q.
 */
static void train_core(const gsl_rng *r, const float *X, size_t n, int d,
		       const double *qd, const struct rfx_svm_params *p, double *w,
		       struct rfx_svm_ws *ws, struct rfx_svm_stats *stats)
{
	const double C = p->C, B = p->bias;
	const int *y = ws->yb;
	double pgmax_old = HUGE_VAL, pgmin_old = -HUGE_VAL; /* shrinking bounds */
	const struct rfx_svm_kernel *k = impl();
	size_t known = SIZE_MAX;  /* the point whose w . x is wk (none) */
	double wk = 0.0, wx;
	size_t i, s, active = n;  /* the active set: order[0..active-1] */
	int ep;

	memset(w, 0, ((size_t)d + 1) * sizeof(double));
	for (i = 0; i < n; i++) {
		ws->alpha[i] = 0.0;
		ws->order[i] = i;
	}
	stats->converged = 0;
	for (ep = 0; ep < p->max_iter; ep++) {
		/*
		 * Both start at 0, so the test below also bounds max |PG|:
		 * from -inf and +inf (LIBLINEAR) an epoch whose projected
		 * gradients are all equal and nonzero would pass, which on
		 * large problems never happens (some a_i sit at a bound with
		 * PG = 0) but on two points does.
		 */
		double pgmax = 0.0, pgmin = 0.0;

		/* a fresh uniform order (Fisher-Yates), as the paper's sec. 3.1 */
		for (s = active - 1; s > 0; s--) {
			size_t j = (size_t)gsl_rng_uniform_int(r, (unsigned long)s + 1);
			size_t t = ws->order[s];

			ws->order[s] = ws->order[j];
			ws->order[j] = t;
		}
		for (s = 0; s < active;) {
			const float *x, *z;
			double G, PG = 0.0, a, na, delta;

			i = ws->order[s];
			x = X + i * (size_t)d;
			if (i == known) {
				wx = wk;
			} else if (s + 1 < active) {
				/*
				 * This step's w . x and the next one's together:
				 * two independent chains of adds in one pass over
				 * w instead of one chain waiting on its row, and a
				 * step without an update (most of them once the
				 * a_i settle) leaves wk valid.
				 */
				z = row(X, ws->order, s + 1, active, d, x);
				known = ws->order[s + 1];
				wx = k->dot2(w, x, z, d, &wk,
					     row(X, ws->order, s + 2, active, d, z),
					     row(X, ws->order, s + 3, active, d, z));
			} else {
				wx = k->dot(w, x, d, x);
			}
			a = ws->alpha[i];
			/* the partial derivative of f: y_i w . x~_i - 1 */
			G = y[i] * (wx + w[d] * B) - 1.0;
			/*
			 * Shrinking (the paper's sec. 3.2): a variable at a
			 * bound whose gradient points out of the box by more
			 * than last epoch's extreme projected gradient is
			 * likely to stay there, so it leaves the active set
			 * (swapped to its end) until the final check.
			 */
			if ((a == 0.0 && G > pgmax_old) || (a == C && G < pgmin_old)) {
				active--;
				ws->order[s] = ws->order[active];
				ws->order[active] = i;
				continue;
			}
			s++;
			if (a == 0.0)
				PG = G < 0.0 ? G : 0.0;
			else if (a == C)
				PG = G > 0.0 ? G : 0.0;
			else
				PG = G;
			pgmax = PG > pgmax ? PG : pgmax;
			pgmin = PG < pgmin ? PG : pgmin;
			if (fabs(PG) <= 1e-12)
				continue;
			/*
			 * The exact minimiser along a_i, clipped to the box;
			 * with Q_ii = 0 f is linear in a_i and goes to an end.
			 */
			if (qd[i] > 0.0) {
				na = a - G / qd[i];
				na = na < 0.0 ? 0.0 : na > C ? C : na;
			} else {
				na = G < 0.0 ? C : 0.0;
			}
			delta = (na - a) * y[i];
			ws->alpha[i] = na;
			if (delta == 0.0)
				continue;
			w[d] += delta * B;
			if (s == active) {
				k->axpy(w, delta, x, d, x);
				known = SIZE_MAX;
				continue;
			}
			/*
			 * The next step's w . x in the same pass over w as the
			 * update (the same operations as an update then a dot),
			 * and the row after it on its way into the cache.
			 */
			z = X + ws->order[s] * (size_t)d;
			known = ws->order[s];
			wk = k->axpy_dot(w, delta, x, z, d,
					 row(X, ws->order, s + 1, active, d, z));
		}
		if (pgmax - pgmin <= p->eps) {
			/* converged on the active set: done only if that was all */
			if (active == n) {
				stats->converged = 1;
				ep++;
				break;
			}
			active = n;
			pgmax_old = HUGE_VAL;
			pgmin_old = -HUGE_VAL;
			continue;
		}
		pgmax_old = pgmax > 0.0 ? pgmax : HUGE_VAL;
		pgmin_old = pgmin < 0.0 ? pgmin : -HUGE_VAL;
	}
	stats->epochs = ep;
}

int rfx_svm_train(const gsl_rng *r, const float *X, size_t n, int d,
		  const int *y, const struct rfx_svm_params *p, double *w,
		  struct rfx_svm_ws *ws, struct rfx_svm_stats *stats,
		  struct rfx_err *err)
{
	struct rfx_svm_stats st;
	size_t i;
	int ret;

	if ((ret = check_params(p, err)) || (ret = check_points(X, n, d, y, err)))
		return ret;
	if (!r || !w || !ws)
		return rfx_error(err, RFX_EINVAL,
				 "svm: missing generator, weights or workspace");
	if (ws->cap < n)
		return rfx_error(err, RFX_EINVAL,
				 "svm: workspace for %zu points, got %zu", ws->cap, n);
	for (i = 0; i < n; i++) {
		if (y[i] != 1 && y[i] != -1)
			return rfx_error(err, RFX_EINVAL,
					 "svm: label of point %zu must be +1 or -1, got %d",
					 i, y[i]);
		ws->yb[i] = y[i];
	}
	diag_q(X, n, d, p->bias, ws->qd);
	train_core(r, X, n, d, ws->qd, p, w, ws, stats ? stats : &st);
	return RFX_OK;
}

int rfx_svm_train_ovr(const float *X, size_t n, int d, const int *y, int K,
		      const struct rfx_svm_params *p, uint64_t seed,
		      const struct rfx_rng_key *key, double *W,
		      struct rfx_svm_stats *stats, struct rfx_err *err)
{
	double *qd;
	size_t i;
	int k, ret, nomem = 0;

	if ((ret = check_params(p, err)) || (ret = check_points(X, n, d, y, err)))
		return ret;
	if (K < 2 || !W)
		return rfx_error(err, RFX_EINVAL,
				 "svm: one-vs-rest needs K >= 2 classes and weights, got K = %d",
				 K);
	for (i = 0; i < n; i++)
		if (y[i] < 0 || y[i] >= K)
			return rfx_error(err, RFX_EINVAL,
					 "svm: label of point %zu must be in 0..%d, got %d", i,
					 K - 1, y[i]);
	qd = malloc(n * sizeof(double));
	if (!qd)
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for one-vs-rest on %zu points", n);
	diag_q(X, n, d, p->bias, qd);
#pragma omp parallel for schedule(dynamic) reduction(| : nomem)
	for (k = 0; k < K; k++) {
		struct rfx_svm_ws *ws = rfx_svm_ws_alloc(n);
		struct rfx_rng_key kk = *key;
		gsl_rng *r;

		kk.j = (uint64_t)k;
		r = rfx_rng_alloc_key(seed, &kk);
		struct rfx_svm_stats st;
		size_t q;

		if (ws && r) {
			for (q = 0; q < n; q++)
				ws->yb[q] = y[q] == k ? 1 : -1;
			train_core(r, X, n, d, qd, p, W + (size_t)k * ((size_t)d + 1), ws,
				   stats ? &stats[k] : &st);
		} else {
			nomem = 1;
		}
		rfx_svm_ws_free(ws);
		if (r)
			gsl_rng_free(r);
	}
	free(qd);
	if (nomem)
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for one-vs-rest on %zu points", n);
	return RFX_OK;
}

void rfx_svm_predict(const double *W, int K, int d, double B, const float *X,
		     size_t n, int *out)
{
	const struct rfx_svm_kernel *kern = impl();
	long i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < (long)n; i++) {
		const float *x = X + (size_t)i * (size_t)d;
		/* the next point's row while the last class is scored */
		const float *nx = i + 1 < (long)n ? x + d : x;
		double best = -HUGE_VAL;
		int k, arg = 0;

		for (k = 0; k < K; k++) {
			const double *w = W + (size_t)k * ((size_t)d + 1);
			double s = kern->dot(w, x, d, k + 1 < K ? x : nx) + w[d] * B;

			if (s > best) {
				best = s;
				arg = k;
			}
		}
		out[i] = arg;
	}
}

/*
 * The public C interface of include/rfx.h: a thin layer over the estimator
 * registry (lib/est), the projection samplers (lib/proj), the random
 * streams (lib/base/rng) and the pair blocks (lib/num), with opaque
 * handles. It adds no numerics of its own beyond the softmax kernel's
 * e^{|x|^2/2} factor (SM = e^{|x|^2/2} e^{|y|^2/2} K) and the real form
 * of complex features; `rfx features` (cli/features.c) is a client of
 * this same file, so that the library and the command give the same bytes
 * for the same seed.
 *
 * This is the top layer (docs/HACKING.md): nothing in lib/ includes it.
 * Its function names are those of the public header, not rfx_rfx_*.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "base/rng.h"
#include "num/blas.h"
#include "num/block.h"
#include "num/kernel.h"
#include "num/vmath.h"
#include "est/estimator.h"
#include "est/featmap.h"
#include "proj/proj.h"

/* after lib/base/err.h, whose definitions it then shares */
#include <rfx.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The public flag bits are the registry's. */
_Static_assert(RFX_ESTIMATOR_POSITIVE == RFX_EST_POSITIVE, "flag drift");
_Static_assert(RFX_ESTIMATOR_COMPLEX == RFX_EST_COMPLEX, "flag drift");
_Static_assert(RFX_ESTIMATOR_DISCRETE == RFX_EST_DISCRETE, "flag drift");
_Static_assert(RFX_ESTIMATOR_SHIFTED == RFX_EST_SHIFTED, "flag drift");
_Static_assert(RFX_ESTIMATOR_PAIRED == RFX_EST_PAIRED, "flag drift");

#ifndef RFX_LIB_VERSION
#define RFX_LIB_VERSION "unknown"
#endif

struct rfx_model {
	const struct rfx_estimator_type *e; /* the estimator */
	struct rfx_params p;   /* its parameters (fixed ones in p.given) */
	int d;                 /* input dimension */
	int M;                 /* budget, in the estimator's unit */
	enum rfx_proj proj;    /* projection kind */
	int softmax;           /* kernel SM instead of K */
	int fitted;            /* p is fitted and validated */
	int D;                 /* feature columns of the estimator (complex or real) */
	int Dr;                /* real output columns */
	struct rfx_draw *w;    /* the draw, NULL until rfx_model_draw */
	struct rfx_draw32 *w32; /* w rounded to float, for the float32 path */
};

const char *rfx_version(void)
{
	return RFX_LIB_VERSION;
}

const struct rfx_estimator_type *rfx_estimator_at(int i)
{
	const struct rfx_estimator_type *const *list = rfx_estimator_list();
	int k;

	if (i < 0)
		return NULL;
	for (k = 0; k < i && list[k]; k++)
		;
	return list[k];
}

const char *rfx_estimator_name(const struct rfx_estimator_type *e)
{
	return e ? e->name : NULL;
}

const char *rfx_estimator_title(const struct rfx_estimator_type *e)
{
	return e ? e->title : NULL;
}

unsigned rfx_estimator_flags(const struct rfx_estimator_type *e)
{
	return e ? e->flags & (RFX_ESTIMATOR_POSITIVE | RFX_ESTIMATOR_COMPLEX |
			       RFX_ESTIMATOR_DISCRETE | RFX_ESTIMATOR_SHIFTED |
			       RFX_ESTIMATOR_PAIRED)
		 : 0u;
}

size_t rfx_estimator_params(const struct rfx_estimator_type *e, char *buf,
			    size_t n)
{
	size_t len = 0;
	int id;

	if (n)
		buf[0] = '\0';
	if (!e)
		return 0;
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		const char *name = rfx_param_name((enum rfx_param)id);
		size_t k = strlen(name);

		if (!(e->params & RFX_P(id)))
			continue;
		if (len && len + 1 < n)
			strcat(buf, ",");
		len += len ? 1 : 0;
		if (len + k < n)
			strcat(buf, name);
		len += k;
	}
	return len;
}

const char *rfx_projection_at(int i)
{
	/* enum rfx_proj runs from RFX_PROJ_IID to RFX_PROJ_HALTON_SCR */
	if (i < 0 || i > (int)RFX_PROJ_HALTON_SCR)
		return NULL;
	return rfx_proj_name((enum rfx_proj)i);
}

/*
 * GSL's own error handler prints and aborts; the library reports GSL's
 * failures through return values instead (rfx's main turns the handler
 * off). So the first model or kernel call turns it off too, unless the
 * program has set a handler of its own: a failed allocation inside GSL
 * (a draw's d x d workspace at d = 10^6) is then RFX_ENOMEM, where it
 * aborted the Python interpreter.
 */
static pthread_once_t gsl_quiet = PTHREAD_ONCE_INIT;

static void gsl_quiet_once(void)
{
	gsl_error_handler_t *prev = gsl_set_error_handler_off();

	if (prev)
		gsl_set_error_handler(prev);
}

/*
 * OpenBLAS's thread count is process-wide: the first of concurrent
 * feature calls sets it to one and the last restores it, so that two
 * threads with separate models cannot restore it under each other.
 */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_users;  /* calls inside the guard */
static int blas_saved;  /* what the first one saved */

static void blas_enter(void)
{
	pthread_mutex_lock(&blas_lock);
	if (blas_users++ == 0)
		blas_saved = rfx_blas_single_begin();
	pthread_mutex_unlock(&blas_lock);
}

static void blas_leave(void)
{
	pthread_mutex_lock(&blas_lock);
	if (--blas_users == 0)
		rfx_blas_single_end(blas_saved);
	pthread_mutex_unlock(&blas_lock);
}

/*
 * Whether all n values are finite and within RFX_INPUT_MAX (NaN is not):
 * one comparison per value in a loop that vectorises, where a return at
 * the first bad value does not. The messages come from the loops below,
 * run only when this fails.
 */
static int values_ok(const double *v, size_t n)
{
	size_t i;
	double bad = 0.0; /* a count: GCC 12 vectorises it, not an int's | */

#pragma omp simd reduction(+ : bad)
	for (i = 0; i < n; i++)
		bad += !(fabs(v[i]) <= RFX_INPUT_MAX);
	return bad == 0.0;
}

/* The same for floats: finite (every float is within RFX_INPUT_MAX). */
static int values_ok32(const float *v, size_t n)
{
	size_t i;
	int bad = 0;

#pragma omp simd reduction(| : bad)
	for (i = 0; i < n; i++)
		bad |= !(fabsf(v[i]) <= FLT_MAX);
	return !bad;
}

/*
 * RFX_OK when every entry of X (n x d) is finite and within RFX_INPUT_MAX;
 * otherwise RFX_EINVAL naming the first bad entry in row-major order.
 */
static int check_inputs(const double *X, size_t n, int d, const char *what,
			struct rfx_err *err)
{
	size_t i;
	int l;

	if (n && !X)
		return rfx_error(err, RFX_EINVAL, "%s is NULL", what);
	if (values_ok(X, n * (size_t)d))
		return RFX_OK;
	for (i = 0; i < n; i++)
		for (l = 0; l < d; l++) {
			double v = X[i * (size_t)d + (size_t)l];

			if (!isfinite(v))
				return rfx_error(err, RFX_EINVAL,
						 "%s row %zu column %d is not finite (%g)",
						 what, i, l, v);
			if (fabs(v) > RFX_INPUT_MAX)
				return rfx_error(err, RFX_EINVAL,
						 "%s row %zu column %d is %g, beyond +-%g",
						 what, i, l, v, RFX_INPUT_MAX);
		}
	return RFX_OK;
}

/* The same for float inputs: finite (every float is within RFX_INPUT_MAX). */
static int check_inputs32(const float *X, size_t n, int d, struct rfx_err *err)
{
	size_t i;
	int l;

	if (n && !X)
		return rfx_error(err, RFX_EINVAL, "X is NULL");
	if (values_ok32(X, n * (size_t)d))
		return RFX_OK;
	for (i = 0; i < n; i++)
		for (l = 0; l < d; l++)
			if (!isfinite(X[i * (size_t)d + (size_t)l]))
				return rfx_error(err, RFX_EINVAL,
						 "X row %zu column %d is not finite (%g)",
						 i, l, (double)X[i * (size_t)d + (size_t)l]);
	return RFX_OK;
}

/* Which kernel: "gauss" (or NULL) gives 0, "softmax" 1, else -1. */
static int kernel_parse(const char *kernel)
{
	if (!kernel || !strcmp(kernel, "gauss"))
		return 0;
	if (!strcmp(kernel, "softmax"))
		return 1;
	return -1;
}

struct rfx_model *rfx_model_alloc(const char *method, int d, int n_features,
				  const char *projection, const char *kernel,
				  struct rfx_err *err)
{
	const struct rfx_estimator_type *e;
	struct rfx_model *m;
	enum rfx_proj proj = RFX_PROJ_IID;
	int softmax = kernel_parse(kernel);

	pthread_once(&gsl_quiet, gsl_quiet_once);
	if (!method) {
		rfx_error(err, RFX_EINVAL, "no estimator named");
		return NULL;
	}
	e = rfx_estimator_find(method, err);
	if (!e)
		return NULL;
	if (d < 1) {
		rfx_error(err, RFX_EINVAL, "dimension must be positive, got %d", d);
		return NULL;
	}
	if (n_features < 1) {
		rfx_error(err, RFX_EINVAL,
			  "number of features must be positive, got %d",
			  n_features);
		return NULL;
	}
	if (softmax < 0) {
		rfx_error(err, RFX_EINVAL,
			  "unknown kernel '%s' (valid: gauss, softmax)", kernel);
		return NULL;
	}
	if (projection && rfx_proj_parse(projection, &proj, err))
		return NULL;
	if ((e->flags & RFX_EST_DISCRETE) && proj != RFX_PROJ_IID) {
		rfx_error(err, RFX_EINVAL,
			  "%s draws discrete features: projection '%s' does not apply (use iid)",
			  e->name, projection);
		return NULL;
	}
	if (rfx_proj_check(proj, d, err))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		return NULL;
	}
	m->e = e;
	m->d = d;
	m->M = n_features;
	m->proj = proj;
	m->softmax = softmax;
	rfx_params_init(&m->p, d);
	return m;
}

void rfx_model_free(struct rfx_model *m)
{
	if (!m)
		return;
	rfx_draw_free(m->w);
	rfx_draw32_free(m->w32);
	rfx_params_release(&m->p);
	free(m);
}

/* Forgets the fit's validation and the draw (both depend on parameters). */
static void model_reset(struct rfx_model *m)
{
	rfx_draw_free(m->w);
	rfx_draw32_free(m->w32);
	m->w = NULL;
	m->w32 = NULL;
	m->fitted = 0;
	m->D = m->Dr = 0;
}

/*
 * RFX_OK when m exists and has reached the state call needs: a fit
 * (need_draw 0) or a draw as well (need_draw 1); RFX_EINVAL saying what
 * is missing otherwise.
 */
static int model_ready(const struct rfx_model *m, int need_draw,
		       const char *call, struct rfx_err *err)
{
	if (!m)
		return rfx_error(err, RFX_EINVAL, "no model");
	if (!m->fitted)
		return rfx_error(err, RFX_EINVAL,
				 "%s: %s before fit (fit the parameters first)",
				 m->e->name, call);
	if (need_draw && !m->w)
		return rfx_error(err, RFX_EINVAL,
				 "%s: %s before draw (fit, then draw)", m->e->name,
				 call);
	return RFX_OK;
}

int rfx_model_set_param(struct rfx_model *m, const char *assignment,
			struct rfx_err *err)
{
	if (!m || !assignment)
		return rfx_error(err, RFX_EINVAL, "no model or no assignment");
	model_reset(m);
	return rfx_params_parse(&m->p, m->e, assignment, err);
}

int rfx_model_fit(struct rfx_model *m, const double *X, size_t nx,
		  const double *Y, size_t ny, struct rfx_err *err)
{
	int ret, D;

	if (!m)
		return rfx_error(err, RFX_EINVAL, "no model");
	model_reset(m);
	if (nx < 1 || ny < 1)
		return rfx_error(err, RFX_EINVAL,
				 "fit needs at least one input on each side, got %zu and %zu",
				 nx, ny);
	ret = check_inputs(X, nx, m->d, "X", err);
	if (!ret)
		ret = check_inputs(Y, ny, m->d, "Y", err);
	if (!ret)
		ret = m->e->fit(&m->p, X, nx, Y, ny, m->M, err);
	if (ret)
		return ret;
	D = rfx_estimator_feature_dim(m->e, &m->p, m->M);
	if (D < 1)
		return rfx_error(err, RFX_EINVAL, "%s: no features for M = %d",
				 m->e->name, m->M);
	m->D = D;
	m->Dr = (m->e->flags & RFX_EST_COMPLEX) ? 2 * D : D;
	m->fitted = 1;
	return RFX_OK;
}

size_t rfx_model_params(const struct rfx_model *m, char *buf, size_t n)
{
	char tmp[8192];
	size_t len;

	if (!m) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	/* rfx_params_format truncates; the full length needs a big buffer */
	len = rfx_params_format(&m->p, m->e, tmp, sizeof(tmp));
	if (n) {
		size_t k = len < n - 1 ? len : n - 1;

		memcpy(buf, tmp, k);
		buf[k] = '\0';
	}
	return len;
}

int rfx_model_draw(struct rfx_model *m, unsigned long long seed,
		   struct rfx_err *err)
{
	gsl_rng *r;
	int ret;

	if ((ret = model_ready(m, 0, "draw", err)))
		return ret;
	if (!m->w) {
		int cols = m->D > m->M ? m->D : m->M;

		m->w = rfx_draw_alloc(m->d, cols);
		if (!m->w)
			return rfx_error(err, RFX_ENOMEM,
					 "out of memory for %d projection%s in dimension %d",
					 cols, cols == 1 ? "" : "s", m->d);
	}
	/*
	 * Keyed by names, as every stream of rfx (lib/base/rng.h,
	 * docs/HACKING.md): the estimator's registry name (an alias draws
	 * what its name draws) and the projection kind, so that no list's
	 * order and no other estimator moves these draws.
	 */
	r = rfx_rng_alloc_key((uint64_t)seed, &(struct rfx_rng_key){
		.exp = "features", .what = "draws",
		.name = { m->e->name, rfx_proj_name(m->proj) } });
	if (!r)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = m->e->draw(r, m->proj, &m->p, m->M, m->w, err);
	gsl_rng_free(r);
	/* the float32 path's projections: this draw, rounded once */
	rfx_draw32_free(m->w32);
	m->w32 = NULL;
	if (!ret && m->e->features32 && !(m->w32 = rfx_draw32_alloc(m->w)))
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for the float32 draw");
	if (ret) {
		rfx_draw_free(m->w);
		m->w = NULL;
	}
	return ret;
}

int rfx_model_dim(const struct rfx_model *m)
{
	return m && m->fitted ? m->Dr : 0;
}

enum out_kind { OUT_F64, OUT_F32, OUT_LOG };

/*
 * Outputs of at least this many bytes are written with streaming
 * (non-temporal) stores: they do not fit the caches, and a plain store to
 * a line that is not cached first reads the line from memory (read for
 * ownership), which doubles the traffic. On the 2-core development VM a
 * 256 MiB output reused from an earlier call (rfx.Model's spare) takes
 * 20 ms to fill with streaming stores against 69 ms with plain ones.
 * Below the threshold the output stays cached for the caller to read.
 */
#define STREAM_MIN_BYTES ((size_t)16 << 20)

/*
 * o[j] = v[j] * s for j < k, each product rounded as in plain C; stream
 * writes past the caches (SSE2 streaming stores: the same bytes, and the
 * caller calls rfx_vmath_nt_fence before the output is read). Written
 * once for both precisions: T the element, V its SSE2 vector of W
 * elements, SUF the intrinsics' suffix (pd, ps).
 */
#ifdef __SSE2__
#define SCALE_STREAM(T, V, W, SUF)					\
	if (stream && !((uintptr_t)o & (sizeof(T) - 1))) {		\
		V vs = _mm_set1_##SUF(s);				\
									\
		for (; ((uintptr_t)(o + j) & 15) && j < k; j++)		\
			o[j] = v[j] * s;				\
		for (; j + W <= k; j += W)				\
			_mm_stream_##SUF(o + j, _mm_mul_##SUF(_mm_loadu_##SUF(v + j), vs)); \
	}
#else
#define SCALE_STREAM(T, V, W, SUF) (void)stream;
#endif
#define DEFINE_SCALE_STORE(NAME, T, V, W, SUF)				\
	static void NAME(T *o, const T *v, T s, int k, int stream)	\
	{								\
		int j = 0;						\
									\
		SCALE_STREAM(T, V, W, SUF)				\
		for (; j < k; j++)					\
			o[j] = v[j] * s;				\
	}

DEFINE_SCALE_STORE(scale_store, double, __m128d, 2, pd)
DEFINE_SCALE_STORE(scale_store32, float, __m128, 4, ps)
#undef DEFINE_SCALE_STORE
#undef SCALE_STREAM

/*
 * Row i of F (rows scaled by e^{ls}) as real features into o (m->Dr
 * entries, double or float), scaled unless kind is OUT_LOG: the real
 * parts, then sg times the imaginary parts (zeros for real features of a
 * complex estimator). An entry is re e^{ls}; when e^{ls} overflows, the
 * product goes through the log so that an exact zero stays 0 (not
 * 0 * inf). The common case is two plain loops the compiler vectorises,
 * or streaming stores (stream, double output).
 */
static void write_row(const struct rfx_model *m, const struct rfx_featmat *F,
		      size_t i, double ls, double sg, enum out_kind kind,
		      int stream, void *o)
{
	const double *re = F->re + i * (size_t)F->D;
	const double *im = F->im + i * (size_t)F->D;
	double s = kind == OUT_LOG ? 1.0 : exp(ls), si = sg * s;
	double *od = o;
	float *of = o;
	int D = F->D, j;

	if (!isfinite(s)) {
		for (j = 0; j < m->Dr; j++) {
			double v = j < D ? re[j] : F->is_complex ? sg * im[j - D] : 0.0;

			if (v != 0.0)
				v = copysign(exp(log(fabs(v)) + ls), v);
			if (kind == OUT_F32)
				((float *)o)[j] = (float)v;
			else
				((double *)o)[j] = v;
		}
		return;
	}
	if (kind == OUT_F32) {
		for (j = 0; j < D; j++)
			of[j] = (float)(re[j] * s);
		if (F->is_complex)
			for (j = 0; j < D; j++)
				of[D + j] = (float)(im[j] * si);
		else
			for (j = D; j < m->Dr; j++)
				of[j] = 0.0f;
		return;
	}
	scale_store(od, re, s, D, stream);
	if (F->is_complex)
		scale_store(od + D, im, si, D, stream);
	else
		for (j = D; j < m->Dr; j++)
			od[j] = 0.0;
}

/*
 * Row i of the float32 map G as real float features into o: as write_row,
 * in float where the scale e^{ls} is a normal float (one rounding of the
 * scale, one of the product), else each entry through the log in double
 * (a scale beyond float range: features that overflow to inf or are
 * below FLT_MIN, rounded once).
 */
static void write_row32(const struct rfx_model *m,
			const struct rfx_featmat32 *G, size_t i, double ls,
			double sg, int stream, float *o)
{
	const float *re = G->re + i * (size_t)G->D;
	const float *im = G->im + i * (size_t)G->D;
	double s = exp(ls);
	int D = G->D, j;

	if (s >= FLT_MIN && s <= FLT_MAX) {
		float sf = (float)s, si = (float)(sg * s);

		scale_store32(o, re, sf, D, stream);
		if (G->is_complex)
			scale_store32(o + D, im, si, D, stream);
		else
			for (j = D; j < m->Dr; j++)
				o[j] = 0.0f;
		return;
	}
	for (j = 0; j < m->Dr; j++) {
		double v = j < D ? re[j] : G->is_complex ? sg * im[j - D] : 0.0;

		if (v != 0.0)
			v = copysign(exp(log(fabs(v)) + ls), v);
		o[j] = (float)v;
	}
}

/*
 * The feature matrix of rfx_model_features and its variants. The rows go
 * in chunks of rfx_featmat_block_rows(D) over the OpenMP threads, each
 * chunk checked (finite, within RFX_INPUT_MAX) and computed by the
 * estimator's map into a per-thread feature matrix that stays in cache,
 * then written out scaled: one pass over the inputs and one over the
 * output. The chunks are fixed by row index and each runs on one BLAS
 * thread, so the bytes do not depend on the thread count.
 *
 * The check runs in the chunks, where the rows are read into cache for
 * the product anyway, rather than in a serial pass before them (3% of a
 * Python transform at L = 65536, d = 64). A bad chunk stops the others
 * from starting theirs and the first bad entry in row order is then found
 * serially, so the error names the same entry as a check up front; the
 * output is then partly written (rfx.h: unspecified on error).
 *
 * X32 (instead of X) gives float inputs: the estimator's float32 map when
 * it has one (then out is float), else each chunk widened to double and
 * the float64 map (kind OUT_F32).
 */
static int features_run(const struct rfx_model *m, int side, const double *X,
			const float *X32, size_t n, void *out, double *lscale,
			enum out_kind kind, struct rfx_err *err)
{
	size_t C, nchunks, k;
	int ret = RFX_OK, d, cap, native, stream, bad = 0;
	double sg = side == 2 ? -1.0 : 1.0;
	size_t esz = kind == OUT_F32 ? sizeof(float) : sizeof(double);

	if ((ret = model_ready(m, 1, "features", err)))
		return ret;
	if (side != 1 && side != 2)
		return rfx_error(err, RFX_EINVAL,
				 "side must be 1 (x) or 2 (y), got %d", side);
	if (n && (!out || (kind == OUT_LOG && !lscale)))
		return rfx_error(err, RFX_EINVAL, "no output array");
	if (n == 0)
		return RFX_OK;
	if (!X && !X32)
		return rfx_error(err, RFX_EINVAL, "X is NULL");
	d = m->d;
	native = X32 && m->e->features32 && m->w32;
	C = rfx_featmat_block_rows(m->D > m->M ? m->D : m->M);
	nchunks = (n + C - 1) / C;
	cap = m->D > m->M ? m->D : m->M;
	stream = n * (size_t)m->Dr * esz >= STREAM_MIN_BYTES;
	blas_enter();
	/* one chunk runs on the calling thread: no team to wake for it */
#pragma omp parallel if (nchunks > 1)
	{
		struct rfx_featmat *F = native ? NULL : rfx_featmat_alloc(C, cap);
		struct rfx_featmat32 *G = native ? rfx_featmat32_alloc(C, cap) : NULL;
		int widen = X32 && (!native || m->softmax);
		double *Xd = widen ? malloc(C * (size_t)d * sizeof(double)) : NULL;
		struct rfx_err terr;
		int tret = (native ? !G : !F) || (widen && !Xd) ? RFX_ENOMEM : RFX_OK;

		rfx_err_clear(&terr);
		if (tret)
			rfx_error(&terr, RFX_ENOMEM,
				  "out of memory for %zu x %d features", C, cap);
#pragma omp for schedule(dynamic)
		for (k = 0; k < nchunks; k++) {
			size_t i0 = k * C, rows = n - i0 < C ? n - i0 : C, i;
			const double *Xc = X ? X + i0 * (size_t)d : Xd;
			int stop;

#pragma omp atomic read
			stop = bad;
			if (tret || stop)
				continue;
			if (X ? !values_ok(Xc, rows * (size_t)d)
			      : !values_ok32(X32 + i0 * (size_t)d, rows * (size_t)d)) {
#pragma omp atomic write
				bad = 1;
				continue;
			}
			if (widen) /* the float64 map or softmax's |x|^2 */
				for (i = 0; i < rows * (size_t)d; i++)
					Xd[i] = X32[i0 * (size_t)d + i];
			tret = native ? m->e->features32(&m->p, m->w32, side,
							 X32 + i0 * (size_t)d,
							 rows, m->M, G, &terr)
				      : m->e->features(&m->p, m->w, side, Xc,
						       rows, m->M, F, &terr);
			if (tret)
				continue;
			/*
			 * A complex estimator may give real features for some
			 * parameters (GERF with real A and t = 1): their
			 * imaginary columns are then zeros, so that the width
			 * is the estimator's whatever the fit.
			 */
			if (native ? G->D != m->D || G->n != rows
				   : F->D != m->D || F->n != rows ||
					     (F->is_complex &&
					      !(m->e->flags & RFX_EST_COMPLEX)))
				RFX_BUG("%s: map of %zu rows, expected %zu x %d",
					m->e->name, native ? G->n : F->n, rows,
					m->D);
			for (i = 0; i < rows; i++) {
				double ls = native ? G->lscale[i] : F->lscale[i];
				char *o = (char *)out + (i0 + i) * (size_t)m->Dr * esz;

				if (m->softmax) {
					const double *x = Xc + i * (size_t)d;
					double xx = 0.0;
					int l;

					for (l = 0; l < d; l++)
						xx += x[l] * x[l];
					ls += 0.5 * xx;
				}
				if (kind == OUT_LOG)
					lscale[i0 + i] = ls;
				if (native)
					write_row32(m, G, i, ls, sg, stream, (float *)o);
				else
					write_row(m, F, i, ls, sg, kind, stream, o);
			}
		}
		if (stream) /* this thread's streaming stores, before the join */
			rfx_vmath_nt_fence();
		rfx_featmat_free(F);
		rfx_featmat32_free(G);
		free(Xd);
		if (tret) {
#pragma omp critical(rfx_api_err)
			if (!ret) {
				ret = tret;
				if (err)
					*err = terr;
			}
		}
	}
	blas_leave();
	if (bad) {
		/* the first bad entry in row order, as a check up front names it */
		ret = X32 ? check_inputs32(X32, n, d, err)
			  : check_inputs(X, n, d, "X", err);
		if (!ret)
			RFX_BUG("features: a chunk of X failed its check, X did not");
	}
	return ret;
}

int rfx_model_features(const struct rfx_model *m, int side, const double *X,
		       size_t n, double *out, struct rfx_err *err)
{
	return features_run(m, side, X, NULL, n, out, NULL, OUT_F64, err);
}

int rfx_model_features_f32(const struct rfx_model *m, int side,
			   const double *X, size_t n, float *out,
			   struct rfx_err *err)
{
	return features_run(m, side, X, NULL, n, out, NULL, OUT_F32, err);
}

int rfx_model_features_float(const struct rfx_model *m, int side,
			     const float *X, size_t n, float *out,
			     struct rfx_err *err)
{
	if (!X && n)
		return rfx_error(err, RFX_EINVAL, "X is NULL");
	return features_run(m, side, NULL, X, n, out, NULL, OUT_F32, err);
}

int rfx_model_float_native(const struct rfx_model *m)
{
	return m && m->e->features32 ? 1 : 0;
}

int rfx_model_features_log(const struct rfx_model *m, int side,
			   const double *X, size_t n, double *out,
			   double *lscale, struct rfx_err *err)
{
	return features_run(m, side, X, NULL, n, out, lscale, OUT_LOG, err);
}

int rfx_model_log_variance(const struct rfx_model *m, const double *X,
			   size_t nx, const double *Y, size_t ny, double *out,
			   struct rfx_err *err)
{
	struct rfx_block *b = NULL;
	int ret;
	size_t i, k;

	if ((ret = model_ready(m, 0, "variance", err)))
		return ret;
	if (nx == 0 || ny == 0)
		return RFX_OK;
	if (!out)
		return rfx_error(err, RFX_EINVAL, "no output array");
	ret = check_inputs(X, nx, m->d, "X", err);
	if (!ret)
		ret = check_inputs(Y, ny, m->d, "Y", err);
	if (ret)
		return ret;
	b = rfx_block_alloc(m->d, nx, ny);
	if (!b)
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for %zu x %zu pairs", nx, ny);
	ret = rfx_estimator_block(m->e, &m->p, b, X, nx, Y, ny, err);
	if (!ret)
		ret = m->e->log_variance(&m->p, b, m->M, out, err);
	if (!ret && m->softmax) {
		/* the block's norms are of the shifted inputs: recompute */
		for (i = 0; i < nx; i++) {
			double xx = 0.0, yy;
			int l;

			for (l = 0; l < m->d; l++)
				xx += X[i * m->d + l] * X[i * m->d + l];
			for (k = 0; k < ny; k++) {
				yy = 0.0;
				for (l = 0; l < m->d; l++)
					yy += Y[k * m->d + l] * Y[k * m->d + l];
				out[i * ny + k] = rfx_kernel_var_gauss_to_softmax_log(
					out[i * ny + k], xx, yy);
			}
		}
	}
	rfx_block_free(b);
	return ret;
}

int rfx_kernel_log(const char *kernel, const double *X, size_t nx,
		   const double *Y, size_t ny, int d, double *out,
		   struct rfx_err *err)
{
	int which = kernel_parse(kernel), ret;
	size_t i, k;

	pthread_once(&gsl_quiet, gsl_quiet_once);
	if (which < 0)
		return rfx_error(err, RFX_EINVAL,
				 "unknown kernel '%s' (valid: gauss, softmax)",
				 kernel);
	if (d < 1)
		return rfx_error(err, RFX_EINVAL,
				 "dimension must be positive, got %d", d);
	if (nx && ny && !out)
		return rfx_error(err, RFX_EINVAL, "no output array");
	ret = check_inputs(X, nx, d, "X", err);
	if (!ret)
		ret = check_inputs(Y, ny, d, "Y", err);
	if (ret)
		return ret;
	for (i = 0; i < nx; i++)
		for (k = 0; k < ny; k++) {
			const double *x = X + i * (size_t)d;
			const double *y = Y + k * (size_t)d;

			out[i * ny + k] = which ? rfx_kernel_softmax_log(x, y, d)
						: rfx_kernel_gauss_log(x, y, d);
		}
	return RFX_OK;
}

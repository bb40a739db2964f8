/*
 * Array log, log(e^a - 1) and log(1 - e^a), sin and cos, exp(x - m), and
 * sin, cos and exp in single precision: see
 * vmath.h. The portable kernel (the scalar functions of lib/num/logmath.h
 * in loops that GCC vectorises through libmvec) and the choice of kernel;
 * the AVX-512 and AVX2 kernels are lib/num/vmath_avx512.c and
 * lib/num/vmath_avx2.c.
 */
#include "num/vmath.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "num/logmath.h"
#include "num/vmath_x86.h"


/*
 * The generic kernel: the scalar functions of logmath.h in loops that GCC
 * vectorises through libmvec.
 */
#define GENERIC_MAP(NAME, F)						\
	RFX_SIMD_CLONES							\
	static void NAME(double *y, const double *x, size_t n)		\
	{								\
		size_t k;						\
									\
		_Pragma("omp simd")					\
		for (k = 0; k < n; k++)					\
			y[k] = F(x[k]);					\
	}

GENERIC_MAP(log_generic, log)
GENERIC_MAP(logexpm1_generic, rfx_logexpm1)
GENERIC_MAP(log1mexp_generic, rfx_log1mexp)
#undef GENERIC_MAP

/*
 * sin and cos in both precisions (libmvec's sin and cos, sinf and cosf).
 * Separate loops: in one, GCC would call a scalar sincos (no vector
 * form). Both are taken of |x| and sin times x's sign, so that sin is
 * odd and cos even bit for bit (libmvec's cos(-x) and cos x differ by an
 * ulp near multiples of pi; the feature maps make the conjugate side from
 * negated projections, vmath.h). |x| goes through a chunk on the stack:
 * GCC folds cos(fabs(x)) back into cos(x).
 */
#define GENERIC_SINCOS(T, NAME, SIN, COS, FABS, COPYSIGN)		\
	RFX_SIMD_CLONES							\
	static void NAME(T *s, T *c, const T *x, size_t n)		\
	{								\
		T a[256];						\
		size_t k, j, m;						\
									\
		for (k = 0; k < n; k += m) {				\
			m = n - k < 256 ? n - k : 256;			\
			_Pragma("omp simd")				\
			for (j = 0; j < m; j++)				\
				a[j] = FABS(x[k + j]);			\
			_Pragma("omp simd")				\
			for (j = 0; j < m; j++)				\
				s[k + j] = COPYSIGN((T)1, x[k + j]) *	\
					   SIN(a[j]);			\
			_Pragma("omp simd")				\
			for (j = 0; j < m; j++)				\
				c[k + j] = COS(a[j]);			\
		}							\
	}

GENERIC_SINCOS(double, sincos_generic, sin, cos, fabs, copysign)
GENERIC_SINCOS(float, sincosf_generic, sinf, cosf, fabsf, copysignf)
#undef GENERIC_SINCOS

/*
 * exp(x - m) through libmvec's vector exp, which hands every lane below
 * about -709 (a subnormal or 0 result, and -inf) to the scalar exp: that
 * cost more than the vector calls (the DIRFs and PosRF of Tables 6.2-6.3,
 * whose log-moduli span thousands). So the vector exp only sees exponents
 * from -708 up: below that, exp(u) = exp(u + 708) e^-708, and below -746
 * it is 0. Separate loops: in one, GCC turns exp(u < MIN ? u - MIN : u)
 * into a select between two exps, which calls exp on every lane again.
 */
#define EXP_FAST_MIN -708.0
#define EXP_ZERO_BELOW -746.0

RFX_SIMD_CLONES
static void exp_shift_generic(double *y, const double *x, double m, size_t n)
{
	const double low = exp(EXP_FAST_MIN);
	size_t k;

#pragma omp simd
	for (k = 0; k < n; k++) {
		double u = x[k] - m;

		y[k] = !(u < EXP_FAST_MIN) ? u /* NaN too */
		       : u >= EXP_ZERO_BELOW ? u - EXP_FAST_MIN : 0.0;
	}
#pragma omp simd
	for (k = 0; k < n; k++)
		y[k] = exp(y[k]);
#pragma omp simd
	for (k = 0; k < n; k++) {
		double u = x[k] - m;

		y[k] = !(u < EXP_FAST_MIN) ? y[k]
		       : u >= EXP_ZERO_BELOW ? y[k] * low : 0.0;
	}
}

/*
 * expf(x - m) with the lanes below the normal range (EXPF_ZERO_BELOW,
 * whose results would be subnormal) set to 0, and clamped before the
 * vector expf so that it hands no lane to the scalar expf. The same three
 * loops as exp_shift_generic's, but not its template: float flushes what
 * double scales back from its fast band (vmath.h's contracts differ).
 */
#define EXPF_ZERO_BELOW -87.33f

RFX_SIMD_CLONES
static void expf_shift_generic(float *y, const float *x, float m, size_t n)
{
	size_t k;

#pragma omp simd
	for (k = 0; k < n; k++) {
		float u = x[k] - m;

		y[k] = u < EXPF_ZERO_BELOW ? 0.0f : u; /* NaN passes */
	}
#pragma omp simd
	for (k = 0; k < n; k++)
		y[k] = expf(y[k]);
#pragma omp simd
	for (k = 0; k < n; k++)
		y[k] = x[k] - m < EXPF_ZERO_BELOW ? 0.0f : y[k];
}

static const struct rfx_vmath_kernel generic = {
	"generic", log_generic, logexpm1_generic, log1mexp_generic,
	sincos_generic, exp_shift_generic, sincosf_generic, expf_shift_generic,
	sincosf_generic, expf_shift_generic, sincos_generic, exp_shift_generic
};

/* The kernels, portable first; NULL-terminated. */
static const struct rfx_vmath_kernel *const kernels[] = {
	&generic,
#ifdef RFX_VMATH_X86
	&rfx_vmath_avx2,
	&rfx_vmath_avx512,
#endif
	NULL
};

static int kernel_runs(const struct rfx_vmath_kernel *k)
{
#ifdef RFX_VMATH_X86
	if (!strcmp(k->name, "avx512"))
		return __builtin_cpu_supports("avx512f") != 0;
	if (!strcmp(k->name, "avx2"))
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("fma");
#endif
	return 1;
}

/* *k with its NULL entries filled from the generic kernel (vmath_x86.h) */
static void kernel_complete(struct rfx_vmath_kernel *k)
{
#define FILL(F) (k->F = k->F ? k->F : generic.F)
	FILL(log);
	FILL(logexpm1);
	FILL(log1mexp);
	FILL(sincos);
	FILL(exp_shift);
	FILL(sincosf);
	FILL(expf_shift);
#undef FILL
	/* a kernel without streaming stores: its plain functions */
	k->sincosf_nt = k->sincosf_nt ? k->sincosf_nt : k->sincosf;
	k->expf_shift_nt = k->expf_shift_nt ? k->expf_shift_nt : k->expf_shift;
	k->sincos_nt = k->sincos_nt ? k->sincos_nt : k->sincos;
	k->exp_shift_nt = k->exp_shift_nt ? k->exp_shift_nt : k->exp_shift;
}

/* The best kernel this CPU runs (the last that runs), completed, once. */
static pthread_once_t pick_once = PTHREAD_ONCE_INIT;
static struct rfx_vmath_kernel chosen;

static void pick(void)
{
	const struct rfx_vmath_kernel *const *k;
	const struct rfx_vmath_kernel *b = &generic;

	for (k = kernels; *k; k++)
		if (kernel_runs(*k))
			b = *k;
	chosen = *b;
	kernel_complete(&chosen);
}

static const struct rfx_vmath_kernel *impl(void)
{
	pthread_once(&pick_once, pick);
	return &chosen;
}

void rfx_vmath_log(double *y, const double *x, size_t n)
{
	impl()->log(y, x, n);
}

void rfx_vmath_logexpm1(double *y, const double *a, size_t n)
{
	impl()->logexpm1(y, a, n);
}

void rfx_vmath_log1mexp(double *y, const double *a, size_t n)
{
	impl()->log1mexp(y, a, n);
}

void rfx_vmath_sincos(double *s, double *c, const double *x, size_t n)
{
	impl()->sincos(s, c, x, n);
}

void rfx_vmath_exp_shift(double *y, const double *x, double m, size_t n)
{
	impl()->exp_shift(y, x, m, n);
}

void rfx_vmath_sincosf(float *s, float *c, const float *x, size_t n)
{
	impl()->sincosf(s, c, x, n);
}

void rfx_vmath_expf_shift(float *y, const float *x, float m, size_t n)
{
	impl()->expf_shift(y, x, m, n);
}

void rfx_vmath_nt_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_sfence();
#endif
}

void rfx_vmath_sincosf_nt(float *s, float *c, const float *x, size_t n)
{
	impl()->sincosf_nt(s, c, x, n);
}

void rfx_vmath_expf_shift_nt(float *y, const float *x, float m, size_t n)
{
	impl()->expf_shift_nt(y, x, m, n);
}

void rfx_vmath_sincos_nt(double *s, double *c, const double *x, size_t n)
{
	impl()->sincos_nt(s, c, x, n);
}

void rfx_vmath_exp_shift_nt(double *y, const double *x, double m, size_t n)
{
	impl()->exp_shift_nt(y, x, m, n);
}

const char *rfx_vmath_kernel_name(void)
{
	return impl()->name;
}

int rfx_vmath_kernel_find(const char *name, struct rfx_vmath_kernel *k,
			  struct rfx_err *err)
{
	const struct rfx_vmath_kernel *const *p, *q;

	for (p = kernels; (q = *p); p++)
		if (!strcmp(q->name, name)) {
			if (!kernel_runs(q))
				return rfx_error(err, RFX_EINVAL,
						 "vmath kernel '%s' needs %s, "
						 "which this CPU lacks", name,
						 !strcmp(name, "avx2") ?
						 "avx2 and fma" : "avx512f");
			*k = *q;
			kernel_complete(k);
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL,
			 "unknown vmath kernel '%s', expected generic, avx2 or avx512",
			 name);
}

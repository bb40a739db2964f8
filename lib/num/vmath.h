/*
 * Array forms of the log-domain functions the closed-form variances spend
 * their time in (thesis sec. 6.6.1, Fig 6.4: a log and an expm1 for every
 * pair of every method), and sin and cos together for TrigRF's feature
 * map (a third of its time went to libmvec's separate sin and cos). On
 * AVX-512 CPUs they run a kernel written for it: table lookups in
 * registers (no gathers), polynomials by FMA, for the composites the
 * expm1 and the log in one pass, for sin and cos one shared reduction.
 * On CPUs with AVX2 and FMA but not AVX-512, the feature maps' functions
 * (exp, sin and cos in both precisions) run the same reductions on 4
 * doubles or 8 floats (lib/num/vmath_avx2.c). Elsewhere, and for the AVX2
 * kernel's log-domain composites, they are loops over lib/num/logmath.h's
 * functions (glibc's libmvec).
 *
 * Accuracy (tests/t_vmath.c, against long double): log within 1.5 ulp;
 * log(e^a - 1) and log(1 - e^a) within 5e-16 max(1, |result|), the
 * absolute accuracy a sum of logs needs (as rfx_logexpm1 and rfx_log1mexp,
 * which go through -expm1 the same way); sin and cos within 3 ulp on
 * AVX-512 and AVX2 (glibc's scalar functions beyond |x| = 2^20), libmvec's
 * 4 ulp elsewhere; exp within 1.5 ulp on AVX-512 and AVX2, 4 elsewhere.
 * Results can differ in the last bits between the kernels, never between
 * runs or thread counts.
 *
 * y may be x (in place). Every function here is thread-safe.
 */
#ifndef RFX_VMATH_H
#define RFX_VMATH_H

#include <stddef.h>

#include "base/err.h"

/* y[k] = log(x[k]), k < n: -inf at 0, NaN below 0, +inf at +inf. */
void rfx_vmath_log(double *y, const double *x, size_t n);

/*
 * y[k] = log(e^a[k] - 1) for a[k] >= 0 (rfx_logexpm1): -inf at 0, finite
 * far beyond e^a's range, NaN for a[k] < 0.
 */
void rfx_vmath_logexpm1(double *y, const double *a, size_t n);

/* y[k] = log(1 - e^a[k]) for a[k] <= 0 (rfx_log1mexp): -inf at 0. */
void rfx_vmath_log1mexp(double *y, const double *a, size_t n);

/*
 * s[k] = sin(x[k]) and c[k] = cos(x[k]), k < n, the pair TrigRF's feature
 * map needs. c may be x; s must not overlap x or c. NaN for +-inf and NaN.
 * In every kernel sin is odd and cos even bit for bit (so is sincosf):
 * the feature maps make the conjugate side, e^{-i w.x}, from the negated
 * projections.
 */
void rfx_vmath_sincos(double *s, double *c, const double *x, size_t n);

/*
 * y[k] = exp(x[k] - m), k < n: the scaled features of the exponential
 * maps (m is a row's largest log-modulus). 0 below the double range
 * (x[k] - m < -745.2), +inf above it; subnormal results are exact to
 * within an ulp of the subnormal grid (libmvec's vector exp would hand
 * those lanes to the scalar exp, slowly). y must not overlap x.
 */
void rfx_vmath_exp_shift(double *y, const double *x, double m, size_t n);

/*
 * Single precision, for the float32 feature maps (lib/est/featmap32.h):
 * s[k] = sinf(x[k]) and c[k] = cosf(x[k]), k < n, within 2 ulp (float)
 * on AVX-512 and AVX2 (glibc's sinf and cosf beyond |x| = 2^16), libmvec's 4 ulp
 * elsewhere; NaN for +-inf and NaN. c may be x; s must not overlap x or c.
 */
void rfx_vmath_sincosf(float *s, float *c, const float *x, size_t n);

/*
 * y[k] = expf(x[k] - m), k < n, within 1.5 ulp (float) on AVX-512 and AVX2, 4
 * elsewhere: +inf above the float range (x[k] - m > 88.72), and 0 below
 * its normal range (x[k] - m < -87.33, where the result would be
 * subnormal: flushed so that no lane takes a microcode assist, see
 * vmath_avx512.c). A row's features scaled by its largest are never
 * above 1, so only the flush applies to them: features below 2^-126
 * times the row's largest are 0 in float32. y must not overlap x.
 */
void rfx_vmath_expf_shift(float *y, const float *x, float m, size_t n);

/*
 * The same four with streaming (non-temporal) stores of the outputs that
 * lie on 64-byte lines, for outputs far larger than the caches that are
 * not read again soon: a line is written without first being read (the
 * float32 maps at L = 65536 spend a fifth less time, the float64 ones
 * about a sixth). The same values;
 * the generic and AVX2 kernels' are the plain functions (on a Zen 3,
 * streaming stores made the trig map half as slow again). Streaming stores are
 * weakly ordered: call rfx_vmath_nt_fence after a batch of them, before
 * the data is handed to another thread.
 */
void rfx_vmath_sincosf_nt(float *s, float *c, const float *x, size_t n);
void rfx_vmath_expf_shift_nt(float *y, const float *x, float m, size_t n);
void rfx_vmath_sincos_nt(double *s, double *c, const double *x, size_t n);
void rfx_vmath_exp_shift_nt(double *y, const double *x, double m, size_t n);

/* Orders the streaming stores before every later store (sfence; no-op elsewhere). */
void rfx_vmath_nt_fence(void);

/* The functions of one kernel, for the tests and benchmarks. */
struct rfx_vmath_kernel {
	const char *name;
	void (*log)(double *y, const double *x, size_t n);
	void (*logexpm1)(double *y, const double *a, size_t n);
	void (*log1mexp)(double *y, const double *a, size_t n);
	void (*sincos)(double *s, double *c, const double *x, size_t n);
	void (*exp_shift)(double *y, const double *x, double m, size_t n);
	void (*sincosf)(float *s, float *c, const float *x, size_t n);
	void (*expf_shift)(float *y, const float *x, float m, size_t n);
	void (*sincosf_nt)(float *s, float *c, const float *x, size_t n);
	void (*expf_shift_nt)(float *y, const float *x, float m, size_t n);
	void (*sincos_nt)(double *s, double *c, const double *x, size_t n);
	void (*exp_shift_nt)(double *y, const double *x, double m, size_t n);
};

/* The name of the kernel in use: "generic", "avx2" or "avx512". */
const char *rfx_vmath_kernel_name(void);

/*
 * Sets *k to the kernel called name. RFX_EINVAL when the name is unknown
 * or this build or CPU lacks the kernel.
 */
int rfx_vmath_kernel_find(const char *name, struct rfx_vmath_kernel *k,
			  struct rfx_err *err);

#endif

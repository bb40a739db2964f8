/*
 * Fast log of the modified Bessel function I0 for the geometric random
 * features, whose variance (thesis eq. 6.19) is a product of d values of
 * I0 per pair: a full L x L variance map needs ~10^10 of them, too many for
 * gsl_sf_bessel_I0_scaled at 50-80 ns each.
 *
 * rfx_bessel_sum_log_i0_prod(a, b, scale, n) returns sum_k log I0(z_k),
 * z_k = scale |a_k b_k|, through polynomial approximations whose
 * coefficients are computed at start-up (from the power series of I0 and
 * from GSL's I0, so none are transcribed), evaluated branch-free so the
 * loop vectorises, with one log per call instead of one per element.
 * Accuracy: each log I0(z) is within 1e-13 max(1, log I0(z)) for all
 * finite z >= 0, and within 1e-15 as measured against GSL over [0, 1e4]
 * and at huge z (tests/t_bessel.c). Speed, d = 64, AVX2 or AVX-512: about
 * 1 ns per element when all z <= 2, 1.3 when all z <= 8, 2.5 when all
 * z > 8 and 3-3.5 when both (bench/bench_bessel.c); the all-pairs form
 * rfx_bessel_sum_log_i0_pairs, which a variance map uses, about 2.5 times
 * less, and with AVX2 or AVX-512 (kernels in intrinsics, with wider
 * expansions for the ranges a tile of pairs spans) 0.65-2 ns per element
 * from z <= 2 to z in [0, 30] (AVX2 on a Zen 3: 0.62-1.8).
 *
 * Every function here is thread-safe.
 */
#ifndef RFX_BESSEL_H
#define RFX_BESSEL_H

#include <stddef.h>

#include "base/err.h"

/*
 * Computes the expansion coefficients and picks the kernel for this CPU;
 * idempotent and thread-safe (pthread_once). The other functions call it
 * themselves; calling it first only moves the ~0.2 ms of set-up.
 */
void rfx_bessel_init(void);

/*
 * log I0(z) for finite z (I0 is even: |z| is used); +inf for infinite z,
 * NaN for NaN. It is the sum below with n = 1, so it agrees with it.
 */
double rfx_bessel_log_i0(double z);

/*
 * sum_{k<n} log I0(scale * |a_k b_k|): the geometric-variance inner loop,
 * with a and b two input rows of n = d entries and scale = 2 (1-q)^{-1/2}.
 * The products must be finite (a NaN gives NaN, an overflow to +inf gives
 * +inf). 0 for n = 0. The error is at most the terms' (above) summed;
 * adding up loses nothing measurable (2e-16 relative at n = 1e5).
 */
double rfx_bessel_sum_log_i0_prod(const double *a, const double *b,
				  double scale, size_t n);

/*
 * out[r] = sum_{k<n} log I0(scale |a_k B[r n + k]|) for the nr rows of B
 * (nr x n row-major): the same sums as rfx_bessel_sum_log_i0_prod, row by
 * row, with the final logs of many rows taken together (faster).
 */
void rfx_bessel_sum_log_i0_rows(const double *a, const double *B, size_t nr,
				size_t n, double scale, double *out);

/*
 * out[i nb + j] = sum_{k<n} log I0(scale |A[i n + k] B[j n + k]|) for
 * every pair of the na rows of A and the nb rows of B (both row-major,
 * n entries per row): the sums of rfx_bessel_sum_log_i0_prod for all
 * pairs, the form a variance map needs, several times faster (the
 * pairs are the vector lanes). They agree with the per-call sums to
 * rounding, not bit for bit. scale |A[i n + k]| must be finite too. It
 * allocates a tile of 1.5 n KiB (falling back to the slower per-row form
 * when that fails, or when too few pairs would fill it).
 */
void rfx_bessel_sum_log_i0_pairs(const double *A, size_t na, const double *B,
				 size_t nb, size_t n, double scale,
				 double *out);

/*
 * Kernels: rfx_bessel_sum_log_i0_prod is compiled for several instruction
 * sets ("generic": any CPU; "avx2": AVX2 and FMA; "avx512": AVX-512F and
 * FMA) and uses the best one this CPU runs. They agree to rounding (the
 * FMA ones round differently), so results can differ in the last bits
 * between machines.
 */
typedef double rfx_bessel_sum_fn(const double *a, const double *b,
				 double scale, size_t n);

typedef void rfx_bessel_pairs_fn(const double *A, size_t na, const double *B,
				 size_t nb, size_t n, double scale,
				 double *out);

/* The name of the kernel in use. */
const char *rfx_bessel_kernel_name(void);

/*
 * Sets *fn to the kernel called name, for the tests and benchmarks that
 * check each one. RFX_EINVAL when the name is unknown or when this build
 * or CPU lacks that kernel.
 */
int rfx_bessel_kernel_find(const char *name, rfx_bessel_sum_fn **fn,
			   struct rfx_err *err);

/* The same for that kernel's rfx_bessel_sum_log_i0_pairs. */
int rfx_bessel_pairs_find(const char *name, rfx_bessel_pairs_fn **fn,
			  struct rfx_err *err);

#endif

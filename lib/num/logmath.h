/*
 * Log-domain arithmetic. Variances in the random-feature studies span about
 * e^-1200 to e^+1400, far outside double range, so every closed form is
 * evaluated as a logarithm. These helpers keep the differences that occur
 * there (1 - K^2, e^a - e^b, expm1 of a large argument) accurate.
 *
 * They are branch-free so that loops over the pairs of a block vectorise:
 * the math functions below are redeclared as OpenMP SIMD functions, which
 * GCC maps to glibc's libmvec (vector exp, log, ... within 4 ulp, special
 * values handled), and the hot loops carry "#pragma omp simd" and
 * RFX_SIMD_CLONES (AVX-512 and AVX2 clones chosen at run time, plain
 * x86-64 otherwise; libmvec's 8-lane functions take about two thirds of
 * the time of its 4-lane ones per element).
 */
#ifndef RFX_LOGMATH_H
#define RFX_LOGMATH_H

#include <math.h>

/* M_LN2 and M_PI are not in strict C11/POSIX. */
#define RFX_LN2 0.693147180559945309417232121458176568
#define RFX_PI 3.14159265358979323846264338327950288

#pragma omp declare simd notinbranch
double exp(double);
#pragma omp declare simd notinbranch
double log(double);
#pragma omp declare simd notinbranch
double expm1(double);
#pragma omp declare simd notinbranch
double log1p(double);
#pragma omp declare simd notinbranch
double acos(double);
#pragma omp declare simd notinbranch
double asin(double);
#pragma omp declare simd notinbranch
double cos(double);
#pragma omp declare simd notinbranch
double sin(double);
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
float cosf(float);
#pragma omp declare simd notinbranch
float sinf(float);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__SANITIZE_ADDRESS__)
#define RFX_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define RFX_SIMD_CLONES_ON 1 /* num/isa.c names the clone in use */
#else
#define RFX_SIMD_CLONES
#endif

/*
 * log(1 - e^a) for a <= 0; -inf at a = 0. Through -expm1(a), which is
 * accurate relative to itself for every a, so the result has a small
 * absolute error everywhere (what a sum of logs needs).
 */
#pragma omp declare simd notinbranch
static inline double rfx_log1mexp(double a)
{
	return log(-expm1(a));
}

/* log(e^a - 1) for a >= 0, i.e. log(expm1(a)) without overflow. */
#pragma omp declare simd notinbranch
static inline double rfx_logexpm1(double a)
{
	return a + log(-expm1(-a));
}

/* log(e^a + e^b). */
static inline double rfx_logaddexp(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -INFINITY)
		return -INFINITY;
	return m + log1p(exp(-fabs(a - b)));
}

/*
 * log(e^a - e^b) for a >= b; -inf when a == b (and when rounding puts b
 * above a, where the true difference is below the precision of a).
 */
#pragma omp declare simd notinbranch
static inline double rfx_logsubexp(double a, double b)
{
	double d = b - a;

	return a + log(-expm1(d < 0.0 ? d : 0.0));
}

/*
 * log(sum_k s_k e^{l_k}) for signs s_k in {-1, 0, +1}, for sums known to be
 * non-negative (a variance written as a difference of moments). Returns
 * -inf for an exact zero; rounding can only push a tiny true value to
 * -inf, never produce NaN.
 */
static inline double rfx_logsum_signed(const double *l, const double *s,
				       int n)
{
	double m = -INFINITY, acc = 0.0;
	int k;

	for (k = 0; k < n; k++)
		if (s[k] != 0.0 && l[k] > m)
			m = l[k];
	if (m == -INFINITY)
		return -INFINITY;
	for (k = 0; k < n; k++)
		if (s[k] != 0.0)
			acc += s[k] * exp(l[k] - m);
	return acc > 0.0 ? m + log(acc) : -INFINITY;
}

/*
 * The three-term form of rfx_logsum_signed used per pair by the hybrid and
 * GERF variances, branch-free: log(s0 e^{l0} + s1 e^{l1} + s2 e^{l2}) with
 * every l finite or -inf. Terms with s = 0 must have l = -inf.
 */
#pragma omp declare simd notinbranch
static inline double rfx_logsum3(double l0, double s0, double l1, double s1,
				 double l2, double s2)
{
	/*
	 * Written so that GCC keeps it branch-free and vectorises it: ternaries
	 * rather than fmax (a call), a finite floor on the scale instead of a
	 * test for -inf, and log(0) = -inf instead of a final select (GCC
	 * would sink the log call into the branch).
	 */
	double m01 = l0 > l1 ? l0 : l1;
	double m = m01 > l2 ? m01 : l2;
	double mm = m > -1e300 ? m : -1e300;
	double acc = s0 * exp(l0 - mm) + s1 * exp(l1 - mm) + s2 * exp(l2 - mm);

	return mm + log(acc > 0.0 ? acc : 0.0);
}

/*
 * A running log(sum_k e^{v_k}) over a stream of terms: scale m (the
 * largest term so far) and acc = sum e^{v_k - m}. Start from
 * { -INFINITY, 0.0 }; -inf terms (zeros) are skipped, and an empty or
 * all-zero sum is -inf. A +inf term makes the sum +inf for good (the
 * scale m stays there with acc = 1: a second one would have added
 * e^(inf - inf), NaN).
 */
struct rfx_lse {
	double m, acc;
};

static inline void rfx_lse_add(struct rfx_lse *l, double v)
{
	if (v == -INFINITY || l->m == INFINITY)
		return;
	if (v > l->m) {
		l->acc = l->acc * exp(l->m - v) + 1.0;
		l->m = v;
	} else {
		l->acc += exp(v - l->m);
	}
}

static inline double rfx_lse_value(const struct rfx_lse *l)
{
	return l->m == -INFINITY ? -INFINITY : l->m + log(l->acc);
}

#endif

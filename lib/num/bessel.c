/*
 * log I0 for the geometric random features, fast enough for every pair of
 * a variance map. The variance (thesis eq. 6.19) holds prod_l I0(z_l) with
 * z_l = 2 (1 - q)^{-1/2} |x_l y_l|, so the hot operation is a sum of d
 * values of log I0. It takes no log per element: each element contributes
 * a factor near 1 to a product (and some an additive part), and one log of
 * the product per call finishes the sum.
 *
 * Two approximations, split at Z0 = 8 (as GSL's I0 is), with t = z^2:
 *
 *   z <= Z0  I0(z) = P(t), P a polynomial. I0 is even and entire,
 *            I0(z) = sum_k (t/4)^k / (k!)^2 (A&S 9.6.10), so polynomials
 *            in t converge fast: 16 coefficients on [0, 64], 9 on [0, 4].
 *   z >  Z0  I0(z) = e^z (2 pi z)^{-1/2} (1 + 1/(8z) + ...) (A&S 9.7.1).
 *            With u = Z0/z in (0, 1) and H(u) = I0s(z)^2 z / Z0, where
 *            I0s = e^-z I0 is GSL's scaled I0, H is smooth on [0, 1]
 *            (20 coefficients) and
 *              log I0(z) = z + (log u + log H(u)) / 2.
 *            log u takes no log either: u = mu 2^E with mu in [1, 2) read
 *            from its bits; E goes to an integer sum and mu H to the
 *            product, whose log is then halved.
 *
 * The coefficients are computed at start-up, not transcribed: each
 * polynomial interpolates its function at Chebyshev points (near-minimax,
 * Trefethen, Approximation Theory and Approximation Practice, ch. 8 and
 * 16) in long double, and is converted to powers of t or u so that a
 * kernel spends one FMA per coefficient. P comes from the series above,
 * whose terms are all positive, so it is exact to long double and
 * independent of GSL; H comes from gsl_sf_bessel_I0_scaled. P's monomial
 * coefficients are all positive, so evaluating it has no cancellation;
 * for H, sum_k |h_k| u^k is at most 1.5 H(u). With these degrees each
 * log I0 is within ~1e-15 of GSL (whose own error is of that size),
 * against the 1e-13 required.
 *
 * Speed. Elements go in blocks of 64. A first pass stores t and finds the
 * block's largest t. If every z <= 2 (expected to be the usual case: z is
 * a product of two coordinates) only the 9-coefficient P runs; if every
 * z <= Z0 only the 16-coefficient one; if every z > Z0 only H; otherwise
 * both run for every element and are combined without a branch
 * (step_mixed). The loops keep W independent partial results (FOR_LANES)
 * so that they vectorise without reductions, and are compiled three
 * times: SSE2, AVX2+FMA and AVX-512F+FMA; rfx_bessel_init picks the best
 * one the CPU runs (__builtin_cpu_supports). That is done by hand rather
 * than with target_clones because the project builds with -std=c11, which
 * turns FP contraction off: a clone would use no FMA unless the source
 * called fma(), and fma() in the baseline clone is a slow library call. So
 * the FMA instantiations write __builtin_fma, the baseline a*b + c.
 */
#include "num/bessel.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sf_bessel.h>

#include "num/logmath.h"
#include "num/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define LN2 0.693147180559945309417232121458176568 /* log 2 */
#define PI_L 3.141592653589793238462643383279502884L /* pi in long double */

#define Z0 8.0          /* split between the two expansions */
#define ZA 2.0          /* tier A: a cheaper P for blocks with all z <= ZA */
#define NA 9            /* coefficients of P on [0, ZA^2] */
#define NB 16           /* coefficients of P on [0, Z0^2] */
#define NL 20           /* coefficients of H on u in [0, 1] */
#define CHUNK 64        /* block size: bounds each block's product */
#define NMAX 29         /* largest of NA, NB, NL, N12, N24 */
/* The all-pairs form's extra expansions of P (see tile_row). */
#define Z1 1.0          /* z <= Z1: N1 coefficients on [0, Z1^2] */
#define N1 8
#define Z4 4.0          /* z <= Z4: N4 coefficients on [0, Z4^2] */
#define N4 12
#define Z12 12.0        /* z <= Z12: N12 coefficients on [0, Z12^2] */
#define N12 19
#define Z24 24.0        /* AVX-512 pairs kernel: z <= Z24, N24 coefficients */
#define N24 29
#define ZL16 16.0       /* and every z >= ZL16: H on u in [0, Z0/ZL16], NL16 */
#define NL16 12
#define WMAX 8          /* most lanes of partial results, see FOR_LANES */

/*
 * The tables: written once by init_once (under pthread_once, which also
 * publishes them to every thread that passes through it), read-only after.
 */
static double pa[NA];   /* I0(sqrt t) ~ sum pa[k] t^k on [0, ZA^2] */
static double pb[NB];   /* I0(sqrt t) 2^-sigma ~ sum pb[k] t^k, [0, Z0^2] */
static double p1[N1];   /* I0(sqrt t) ~ sum p1[k] t^k on [0, Z1^2] */
static double p4[N4];   /* I0(sqrt t) ~ sum p4[k] t^k on [0, Z4^2] */
static double p12[N12]; /* I0(sqrt t) 2^-rho ~ sum p12[k] t^k, [0, Z12^2] */
static double c_12;     /* rho log 2: undoes the scaling of p12 */
static double p24[N24]; /* I0(sqrt t) 2^-rho24 ~ sum p24[k] t^k, [0, Z24^2] */
static double c_24;     /* rho24 log 2 */
static double hl16[NL16]; /* H(u) 2^tau ~ sum hl16[k] u^k on [0, Z0/ZL16] */
static double hl[NL];   /* H(u) 2^tau ~ sum hl[k] u^k on [0, 1] */
static double c_b;      /* sigma log 2: undoes the scaling of pb */
static double c_l;      /* -tau/2 log 2: undoes the scaling of hl */
static double c_m;      /* per-element constant of a mixed block, below */
static double t_top;    /* Z0^2 and 1, the clamps of step_mixed, as */
static double u_top;    /* variables on purpose (see there) */

static const struct kernel *impl; /* the kernel for this CPU */

static pthread_once_t once = PTHREAD_ONCE_INIT;

/*
 * Fitting (start-up only)
 */

/* I0(sqrt t) from A&S 9.6.10; all terms positive, so no cancellation. */
static long double i0_series(long double t)
{
	long double s = 1.0L, term = 1.0L; /* partial sum, current term */
	int k;

	for (k = 1; k < 400; k++) {
		term *= t / (4.0L * k * k);
		s += term;
		if (term < 1e-22L * s)
			break;
	}
	return s;
}

/* H(u) = I0s(z)^2 z / Z0 at z = Z0/u; u > 0, as Chebyshev points are inner. */
static long double h_gsl(long double u)
{
	double z = Z0 / (double)u;
	long double s = gsl_sf_bessel_I0_scaled(z);

	return s * s * ((long double)z / Z0);
}

/*
 * Monomial coefficients coef[0..n-1] (times mult) of the polynomial that
 * interpolates f at the n Chebyshev points of the first kind on [lo, hi].
 * The Chebyshev coefficients come from the discrete orthogonality of the
 * cosines; T_k(alpha x + beta) is then expanded by T_{k+1} = 2yT_k - T_{k-1}.
 */
static void fit_monomial(long double (*f)(long double), long double lo,
			 long double hi, int n, long double mult, double *coef)
{
	long double fv[NMAX], c[NMAX];   /* node values, Chebyshev coefs */
	long double tk[NMAX + 1] = { 0 }, tkm1[NMAX + 1] = { 0 }, tn[NMAX + 1];
	long double p[NMAX] = { 0 };     /* result, powers of x */
	long double alpha = 2.0L / (hi - lo), beta = -(hi + lo) / (hi - lo);
	int j, k, i;

	for (j = 0; j < n; j++) {
		long double y = cosl(PI_L * (j + 0.5L) / n);

		fv[j] = f(lo + (hi - lo) * (y + 1.0L) / 2.0L);
	}
	for (k = 0; k < n; k++) {
		long double s = 0.0L;

		for (j = 0; j < n; j++)
			s += fv[j] * cosl(PI_L * k * (j + 0.5L) / n);
		c[k] = (k ? 2.0L : 1.0L) * s / n;
	}
	tk[0] = 1.0L; /* T_0 */
	for (k = 0; k < n; k++) {
		long double two = k ? 2.0L : 1.0L; /* T_1 = y T_0, then 2y */

		for (i = 0; i <= k; i++)
			p[i] += c[k] * tk[i];
		for (i = 0; i <= k + 1; i++)
			tn[i] = 0.0L;
		for (i = 0; i <= k; i++) {
			tn[i + 1] += two * alpha * tk[i];
			tn[i] += two * beta * tk[i];
			if (k)
				tn[i] -= tkm1[i];
		}
		for (i = 0; i <= k + 1; i++) {
			tkm1[i] = tk[i];
			tk[i] = tn[i];
		}
	}
	for (i = 0; i < n; i++)
		coef[i] = (double)(p[i] * mult);
}

/* Horner's rule in double: the kernels' polynomial, for the constants. */
static double horner(const double *c, int n, double x)
{
	double s = c[n - 1];
	int i;

	for (i = n - 2; i >= 0; i--)
		s = s * x + c[i];
	return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * fit_monomial for wide ranges, where long double is not enough: the
 * Chebyshev coefficients are exact to 2^-64 of the largest value, and
 * I0(24) = 2^31 I0(0), so P would be off by 1e-10 near t = 0. Here the
 * polynomial interpolates at the same nodes (rounded to long double),
 * built by divided differences and expanded to powers of t in __float128
 * (113 bits; GCC and Clang provide its arithmetic on x86-64 without any
 * library), with the values from the power series in the same precision.
 */
static __float128 i0_series_q(__float128 t)
{
	__float128 s = 1, term = 1; /* partial sum, current term */
	int k;

	for (k = 1; k < 400; k++) {
		term *= t / (4 * (__float128)k * k);
		s += term;
		if (term < s * 1e-36)
			break;
	}
	return s;
}

static void fit_monomial_q(long double lo, long double hi, int n,
			   long double mult, double *coef)
{
	__float128 x[NMAX], d[NMAX], p[NMAX + 1]; /* nodes, differences, result */
	int j, k;

	for (j = 0; j < n; j++) {
		long double y = cosl(PI_L * (j + 0.5L) / n);

		x[j] = lo + (hi - lo) * (y + 1.0L) / 2.0L;
		d[j] = i0_series_q(x[j]) * mult;
	}
	for (k = 1; k < n; k++)
		for (j = n - 1; j >= k; j--)
			d[j] = (d[j] - d[j - 1]) / (x[j] - x[j - k]);
	/* Newton form to powers: p = d[n-1]; p = p (t - x[k]) + d[k], k down */
	for (k = 0; k <= n; k++)
		p[k] = 0;
	p[0] = d[n - 1];
	for (k = n - 2; k >= 0; k--) {
		for (j = n - 1 - k; j >= 1; j--)
			p[j] = p[j - 1] - x[k] * p[j];
		p[0] = d[k] - x[k] * p[0];
	}
	for (j = 0; j < n; j++)
		coef[j] = (double)p[j];
}
#endif

/*
 * Kernels. Each is instantiated once per instruction set by sum_body's
 * callers at the end of the file; `fused` is a constant there.
 */

#define MADD(x, y, z) (fused ? __builtin_fma((x), (y), (z)) : (x) * (y) + (z))

/* Chain j of poly: sum_m c[2m + j] y^m by Horner's rule (n, j constant). */
static inline __attribute__((always_inline)) double
chain(const double *c, const int n, const int j, double y, const int fused)
{
	int m = (n - 1 - j) / 2; /* highest power of y in chain j */
	double s = c[2 * m + j];

#pragma GCC unroll 16
	for (m = m - 1; m >= 0; m--)
		s = MADD(s, y, c[2 * m + j]);
	return s;
}

/*
 * sum_{k<n} c[k] x^k as even and odd parts in x^2 (the first step of
 * Estrin's scheme, Knuth TAOCP vol. 2, 4.6.4): two independent chains of
 * n/2 FMAs instead of one of n - 1, so short 64-element loops are less
 * bound by FMA latency (four chains measured no faster). For P all terms
 * are positive, as in Horner's rule.
 */
static inline __attribute__((always_inline)) double
poly(const double *c, const int n, double x, const int fused)
{
	double x2 = x * x;

	return MADD(chain(c, n, 1, x2, fused), x, chain(c, n, 0, x2, fused));
}

/*
 * Bits of u = Z0/z in (0, 1]: mu = u 2^-E in [1, 2) and the biased E.
 * u is normal: z <= DBL_MAX gives u >= Z0/DBL_MAX > DBL_MIN for Z0 >= 4.
 */
static inline __attribute__((always_inline)) double
split_u(double u, int64_t *ebiased)
{
	uint64_t bits, mb;
	double mu;

	memcpy(&bits, &u, sizeof bits);
	mb = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	memcpy(&mu, &mb, sizeof mu);
	*ebiased = (int64_t)(bits >> 52);
	return mu;
}

/*
 * The per-element steps of the four kinds of block. Each updates the
 * partial results of one lane (below), element i.
 */

/*
 * Range scan: t = z^2 into the block's buffer (the small kinds need only
 * t) and the largest t. fl(z^2) is monotonic in z and fl(z^2) > Z0^2
 * exactly when z > Z0, so t decides as z would.
 */
static inline __attribute__((always_inline)) void
step_range(const double *a, const double *b, double scale, size_t i,
	   double *tbuf, double *hi)
{
	double y = a[i] * b[i] * scale, t = y * y;

	tbuf[i] = t;
	*hi = t > *hi ? t : *hi;
}

/* The smallest t, needed only when the largest is above Z0^2. */
static inline __attribute__((always_inline)) void
step_min(double t, double *lo)
{
	*lo = t < *lo ? t : *lo;
}

/* Every z within the range of the P in c: the factor is P(z^2). */
static inline __attribute__((always_inline)) void
step_small(double t, const double *c, const int nc, double *prod,
	   const int fused)
{
	*prod *= poly(c, nc, t, fused);
}

/*
 * Every z > Z0: log I0(z) = z + (log(mu H(u) 2^tau) + E log 2)/2 + c_l,
 * so the factor is mu H 2^tau, z goes to the sum and E to the exponents.
 */
static inline __attribute__((always_inline)) void
step_large(double z, double *prod, double *acc, int64_t *e,
	   const int fused)
{
	double u = Z0 / z, mu;
	int64_t eb;

	mu = split_u(u, &eb);
	*prod *= mu * poly(hl, NL, u, fused);
	*acc += z;
	*e += eb;
}

/*
 * A block with z on both sides of Z0: both polynomials for every element,
 * each with its argument clamped into its range (t <= Z0^2, u <= 1), and
 * no select on the results: the factor is P(t)^2 mu H(u) for all z.
 * Small z have u = 1, so mu = 1, E = 0 and the factor is P(t)^2 H(1);
 * large z have t = Z0^2 (fl(z^2) > Z0^2 for z > Z0) and the factor is
 * P(Z0^2)^2 mu H(u). With both P(Z0^2) and H(1) fixed, log I0(z) is
 * max(z - Z0, 0) + (log F + E log 2)/2 + c_m for either kind of element.
 * (u = Z0/z < 1 exactly when z > Z0, since division rounds correctly.)
 *
 * Each clamp selects on its own value, against bounds that GCC does not
 * know (t_top, u_top are variables): when a select can be folded on one
 * side (t_c = t < 64 ? t : 64, so t_c^2 is 4096 there) or depends on a
 * value computed only for it, GCC moves the computation into a branch,
 * which -ftrapping-math then forbids to if-convert, and the loop does not
 * vectorise without AVX-512's masks.
 */
static inline __attribute__((always_inline)) void
step_mixed(double z, double *prod, double *acc, int64_t *e,
	   const int fused)
{
	double t = z * z, u = Z0 / z, dz = z - Z0, p, mu;
	int64_t eb;

	t = t < t_top ? t : t_top;
	u = u < u_top ? u : u_top;
	dz = dz > 0.0 ? dz : 0.0;
	p = poly(pb, NB, t, fused);
	mu = split_u(u, &eb);
	*prod *= (p * p) * (mu * poly(hl, NL, u, fused));
	*acc += dz;
	*e += eb;
}

/*
 * Runs STEP for elements 0..m-1 of a block, element i into lane i mod W:
 * W independent partial results, kept in arrays, so that the loop over a
 * group of W elements vectorises without a reduction. (An omp simd
 * reduction over the block does the same in principle, but GCC 12 builds
 * and folds its per-lane copies with scalar loops through memory, which
 * for 64-element calls costs more than the polynomials.)
 */
#define FOR_LANES(w, m, STEP)						\
	do {								\
		size_t k_, j_;						\
									\
		for (k_ = 0; k_ + (w) <= (m); k_ += (w)) {		\
			_Pragma("omp simd")				\
			for (j_ = 0; j_ < (size_t)(w); j_++)		\
				STEP(k_ + j_, j_);			\
		}							\
		for (j_ = 0; k_ + j_ < (m); j_++)			\
			STEP(k_ + j_, j_);				\
	} while (0)

/*
 * Product, sum, maximum and minimum of w lanes (w a power of 2), pairwise,
 * overwriting x.
 */
static inline __attribute__((always_inline)) double
lanes_prod(double *x, const int w)
{
	int h, j;

	for (h = w / 2; h >= 1; h /= 2)
		for (j = 0; j < h; j++)
			x[j] *= x[j + h];
	return x[0];
}

static inline __attribute__((always_inline)) double
lanes_sum(double *x, const int w)
{
	int h, j;

	for (h = w / 2; h >= 1; h /= 2)
		for (j = 0; j < h; j++)
			x[j] += x[j + h];
	return x[0];
}

static inline __attribute__((always_inline)) double
lanes_max(double *x, const int w)
{
	int h, j;

	for (h = w / 2; h >= 1; h /= 2)
		for (j = 0; j < h; j++)
			x[j] = x[j + h] > x[j] ? x[j + h] : x[j];
	return x[0];
}

static inline __attribute__((always_inline)) double
lanes_min(double *x, const int w)
{
	int h, j;

	for (h = w / 2; h >= 1; h /= 2)
		for (j = 0; j < h; j++)
			x[j] = x[j + h] < x[j] ? x[j + h] : x[j];
	return x[0];
}

/*
 * *s + *c += x, compensated (Neumaier's improvement of Kahan summation,
 * Z. Angew. Math. Mech. 54, 1974): the z sums of many blocks add up with
 * an error of a few ulps, not one per block.
 */
static inline void neumaier_add(double *s, double *c, double x)
{
	double t = *s + x;

	if (fabs(t) < HUGE_VAL) /* else inf - inf would make c a NaN */
		*c += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
	*s = t;
}

/*
 * x = m 2^e with m in [1, 2): returns m and adds e to *ex, so a running
 * product never leaves the double range. Non-finite x (from a NaN or
 * infinite input) is returned as is, so that it reaches the result.
 */
static inline double renorm(double x, int64_t *ex)
{
	uint64_t bits;

	if (!(x > 0.0 && x < HUGE_VAL))
		return x;
	memcpy(&bits, &x, sizeof bits);
	*ex += (int64_t)(bits >> 52) - 1023;
	bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	memcpy(&x, &bits, sizeof x);
	return x;
}

/*
 * sum_k log I0(scale |a_k b_k|), block by block. The blocks' factors are
 * multiplied into one running product, so the whole sum costs one log.
 * Factors per element stay within 2^-10..2^10, so a block's product
 * (its square root for the large and mixed kinds) stays in range.
 */
static inline __attribute__((always_inline)) double
sum_body(const double *a, const double *b, double scale, size_t n,
	 const int w, const int fused, double *pm_out)
{
	double zs = 0.0, zc = 0.0; /* sum of the blocks' z sums, its error */
	size_t nb = 0, nl = 0, nm = 0; /* elements in pb, large, mixed blocks */
	double pm = 1.0;  /* running product of the block factors, in [1, 2) */
	int64_t pe = 0;   /* its binary exponent */
	int64_t eu = 0;   /* sum of the (unbiased) exponents E of u */
	size_t c0;
	int j;

	scale = fabs(scale);
	for (c0 = 0; c0 < n; c0 += CHUNK) {
		const double *ca = a + c0, *cb = b + c0;
		size_t m = n - c0 < CHUNK ? n - c0 : CHUNK;
		double tbuf[CHUNK];                    /* the block's z^2 */
		double hi[WMAX], lo[WMAX], prod[WMAX], acc[WMAX]; /* lanes */
		int64_t e[WMAX], esum = 0;
		double tmax, tmin, f;

		for (j = 0; j < w; j++) {
			hi[j] = 0.0;
			lo[j] = HUGE_VAL;
			prod[j] = 1.0;
			acc[j] = 0.0;
			e[j] = 1023;
		}
#define STEP(i, l) step_range(ca, cb, scale, i, tbuf, &hi[l])
		FOR_LANES(w, m, STEP);
#undef STEP
		tmax = lanes_max(hi, w);

/* z of element i, as in step_range */
#define Z(i) (fabs(ca[i] * cb[i] * scale))
		if (tmax <= ZA * ZA) {
#define STEP(i, l) step_small(tbuf[i], pa, NA, &prod[l], fused)
			FOR_LANES(w, m, STEP);
#undef STEP
			f = lanes_prod(prod, w);
		} else if (tmax <= Z0 * Z0) {
#define STEP(i, l) step_small(tbuf[i], pb, NB, &prod[l], fused)
			FOR_LANES(w, m, STEP);
#undef STEP
			f = lanes_prod(prod, w);
			nb += m;
		} else {
#define STEP(i, l) step_min(tbuf[i], &lo[l])
			FOR_LANES(w, m, STEP);
#undef STEP
			tmin = lanes_min(lo, w);
			if (tmin > Z0 * Z0) {
#define STEP(i, l) step_large(Z(i), &prod[l], &acc[l], &e[l], fused)
				FOR_LANES(w, m, STEP);
#undef STEP
				nl += m;
			} else {
#define STEP(i, l) step_mixed(Z(i), &prod[l], &acc[l], &e[l], fused)
				FOR_LANES(w, m, STEP);
#undef STEP
				nm += m;
			}
			/* lanes start at 1023 each */
			for (j = 0; j < w; j++)
				esum += e[j] - 1023;
			f = sqrt(lanes_prod(prod, w));
			neumaier_add(&zs, &zc, lanes_sum(acc, w));
			eu += esum - 1023 * (int64_t)m;
		}
#undef Z
		pm = renorm(pm * f, &pe);
	}
	/* With pm_out the caller takes log(pm) itself (many at once). */
	if (pm_out)
		*pm_out = pm;
	return (zs + zc) + ((double)nb * c_b + (double)nl * c_l +
			    (double)nm * c_m) +
	       0.5 * LN2 * (double)eu +
	       ((pm_out ? 0.0 : log(pm)) + (double)pe * LN2);
}

/*
 * Row after row of B against a, the logs of the rows' products taken
 * together in a vectorised loop (pm is in [1, 2)): one scalar log per pair
 * was a fifth of a geometric variance map.
 */
#define ROWS_CHUNK 64

static inline __attribute__((always_inline)) void
rows_body(const double *a, const double *B, size_t nr, size_t n,
	  double scale, double *out, const int w, const int fused)
{
	double pm[ROWS_CHUNK];
	size_t r0, r;

	for (r0 = 0; r0 < nr; r0 += ROWS_CHUNK) {
		size_t m = nr - r0 < ROWS_CHUNK ? nr - r0 : ROWS_CHUNK;

		for (r = 0; r < m; r++)
			out[r0 + r] = sum_body(a, B + (r0 + r) * n, scale, n, w,
					       fused, &pm[r]);
#pragma omp simd
		for (r = 0; r < m; r++)
			out[r0 + r] += log(pm[r]);
	}
}

/*
 * All pairs of two sets of rows at once (rfx_bessel_sum_log_i0_pairs),
 * the form a variance map needs. The work is turned around: JT rows of B
 * are transposed into a tile, and for a row a of A and a coordinate l the
 * JT elements z_j = s |B_jl|, s = scale |a_l|, are the lanes of one loop.
 * All lanes share s, so s times the tile's largest (and smallest) |B_jl|
 * decides the kind of the whole loop, with one scalar comparison: the
 * range scan of sum_body, its per-block reductions and most of its mixed
 * blocks (one large z there forces both polynomials on 64 elements) go
 * away. The coordinates of each CHUNK are sorted by kind first and each
 * kind then runs as one loop over its coordinates, so the kinds do not
 * cost a mispredicted branch each. t = s^2 B_jl^2 and u = Z0/z = (Z0/s)
 * / |B_jl| use squares and reciprocals that the tile holds, so no element
 * divides. Factors accumulate per lane in two products, one for the small
 * kinds and one (whose log is halved) for the large and mixed ones,
 * renormalised after each CHUNK as in sum_body, where the z sums are
 * compensated too. The tile lives on the heap, n JT entries per array.
 */
#define JT 64           /* rows of B per tile: the lanes */

/*
 * Kinds of a coordinate: the largest z at most Z1, ZA, Z4, Z0 or Z12 (one
 * P each, fewer coefficients for a narrower range), every z above Z0
 * (H), or both sides (both, as in sum_body's mixed blocks). P on [0,
 * Z12^2] takes the place of both where it can: 19 coefficients instead
 * of 36 (wider, the monomial form loses digits).
 */
enum { K_1, K_A, K_4, K_B, K_LARGE, K_12, K_MIXED, K_COUNT, K_SKIP = K_COUNT };

struct pair_tile {
	double *y;      /* n x JT: |B_jl| at [l JT + j] */
	double *yy;     /* B_jl^2 */
	double *yr;     /* 1/|B_jl| (inf for 0) */
	double *yymax;  /* n: largest B_jl^2 over the lanes */
	double *ymin;   /* n: smallest |B_jl| */
	int *fin;       /* n: every |B_jl| finite, so a zero a_l adds 0 */
};

/* Allocates the tile for rows of n; NULL on OOM. */
static struct pair_tile *tile_alloc(size_t n)
{
	struct pair_tile *T = malloc(sizeof(*T));

	if (!T)
		return NULL;
	/* 3 n JT doubles are a whole number of cache lines, as aligned_alloc wants */
	T->y = aligned_alloc(64, 3 * n * JT * sizeof(double));
	T->yymax = malloc(2 * n * sizeof(double));
	T->fin = malloc(n * sizeof(int));
	if (!T->y || !T->yymax || !T->fin) {
		free(T->y);
		free(T->yymax);
		free(T->fin);
		free(T);
		return NULL;
	}
	T->yy = T->y + n * JT;
	T->yr = T->yy + n * JT;
	T->ymin = T->yymax + n;
	return T;
}

static void tile_free(struct pair_tile *T)
{
	free(T->y);
	free(T->yymax);
	free(T->fin);
	free(T);
}

/*
 * Rows j0..j0+m-1 of B into tile T; lanes m..JT-1 repeat row j0+m-1, so
 * that they stay finite and leave the extremes alone.
 */
static inline __attribute__((always_inline)) void
tile_fill(struct pair_tile *T, const double *B, size_t j0, size_t m,
	  size_t n)
{
	size_t l, j;

	for (l = 0; l < n; l++) {
		double hi = 0.0, lo = HUGE_VAL;
		int fin = 1;

		for (j = 0; j < JT; j++) {
			size_t r = j0 + (j < m ? j : m - 1);
			double v = fabs(B[r * n + l]), vv = v * v;

			T->y[l * JT + j] = v;
			T->yy[l * JT + j] = vv;
			T->yr[l * JT + j] = 1.0 / v;
			hi = vv > hi ? vv : hi;
			lo = v < lo ? v : lo;
			fin &= v < HUGE_VAL; /* false for inf and NaN */
		}
		T->yymax[l] = hi;
		T->ymin[l] = lo;
		T->fin[l] = fin;
	}
}

/*
 * x = m 2^e with m in [1, 2) as in renorm, lane-wise and branch-free:
 * returns m, adds e to *ex; non-finite or zero x pass unchanged.
 */
static inline __attribute__((always_inline)) double
renorm_lane(double x, int64_t *ex)
{
	uint64_t bits, mb;
	double m;
	int ok = x > 0.0 && x < HUGE_VAL;

	memcpy(&bits, &x, sizeof bits);
	mb = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	memcpy(&m, &mb, sizeof m);
	*ex += ok ? (int64_t)(bits >> 52) - 1023 : 0;
	return ok ? m : x;
}

/* One row a against tile T: the JT sums, lanes 0..m-1 into out. */
static inline __attribute__((always_inline)) void
tile_row(const double *a, const struct pair_tile *T, size_t n, double scale,
	 double *out, size_t m, const int fused)
{
	double pf[JT], ph[JT];  /* full and halved products, in range */
	double acc[JT];         /* z sum since the last checkpoint */
	double zs[JT], zc[JT];  /* compensated z sum, its error */
	int64_t ef[JT], eh[JT]; /* exponents: of pf, of ph and the u's */
	double cnt[K_COUNT] = { 0.0 }; /* coordinates per kind */
	double sv[CHUNK];       /* s of each coordinate of the chunk */
	unsigned char kind[CHUNK]; /* of each coordinate of the chunk */
	unsigned char idx[K_COUNT + 1][CHUNK]; /* the chunk's coordinates by kind */
	size_t nk[K_COUNT + 1], l0, l1, l, k, j;
	double fv[JT];

	for (j = 0; j < JT; j++) {
		pf[j] = ph[j] = 1.0;
		acc[j] = zs[j] = zc[j] = 0.0;
		ef[j] = eh[j] = 0;
	}
	for (l0 = 0; l0 < n; l0 = l1) {
		l1 = n - l0 < CHUNK ? n : l0 + CHUNK;
		/*
		 * The kind of each coordinate, computed rather than branched
		 * on (which kind comes next is data, and a mispredicted branch
		 * per coordinate cost a quarter of the time); a NaN compares
		 * false everywhere, lands in K_1 and propagates through P.
		 */
		for (l = l0; l < l1; l++) {
			double s = scale * fabs(a[l]), tmax = s * s * T->yymax[l];
			int base = (tmax > Z1 * Z1) + (tmax > ZA * ZA) +
				   (tmax > Z4 * Z4) + (tmax > Z0 * Z0);
			int wide = (base == K_LARGE) & !(s * T->ymin[l] > Z0);
			int skip = (s == 0.0) & T->fin[l]; /* every z is 0 */

			sv[l - l0] = s;
			kind[l - l0] = (unsigned char)(skip ? K_SKIP
						       : base + wide * (1 + (tmax > Z12 * Z12)));
		}
		/*
		 * The lists by kind, with the eight counts packed in one
		 * integer, a byte each (CHUNK < 256): indexed counters in
		 * memory chained every coordinate through a store and a load.
		 */
		{
			uint64_t cnts = 0;

			for (l = 0; l < l1 - l0; l++) {
				unsigned sh = 8u * kind[l];

				idx[kind[l]][(cnts >> sh) & 0xff] = (unsigned char)l;
				cnts += (uint64_t)1 << sh;
			}
			for (k = 0; k <= K_COUNT; k++)
				nk[k] = (size_t)((cnts >> (8 * k)) & 0xff);
		}
/* The coordinates of kind K: P with coefficients C, N of them, t = s^2 y^2. */
#define SMALL_KIND(K, C, N)						\
		for (k = 0; k < nk[K]; k++) {				\
			const double *yy = T->yy + (l0 + idx[K][k]) * JT; \
			double s2 = sv[idx[K][k]] * sv[idx[K][k]];	\
									\
			_Pragma("omp simd")				\
			for (j = 0; j < JT; j++)			\
				pf[j] *= poly(C, N, s2 * yy[j], fused);	\
		}
		SMALL_KIND(K_1, p1, N1)
		SMALL_KIND(K_A, pa, NA)
		SMALL_KIND(K_4, p4, N4)
		SMALL_KIND(K_B, pb, NB)
		SMALL_KIND(K_12, p12, N12)
#undef SMALL_KIND
		for (k = 0; k < nk[K_LARGE]; k++) {
			size_t o = (l0 + idx[K_LARGE][k]) * JT;
			const double *y = T->y + o, *yr = T->yr + o;
			double s = sv[idx[K_LARGE][k]], r = Z0 / s;

#pragma omp simd
			for (j = 0; j < JT; j++) {
				double u = r * yr[j], mu;
				int64_t eb;

				mu = split_u(u, &eb);
				ph[j] *= mu * poly(hl, NL, u, fused);
				acc[j] += s * y[j];
				eh[j] += eb - 1023;
			}
		}
		for (k = 0; k < nk[K_MIXED]; k++) {
			size_t o = (l0 + idx[K_MIXED][k]) * JT;
			const double *y = T->y + o, *yr = T->yr + o;
			double s = sv[idx[K_MIXED][k]], r = Z0 / s;

#pragma omp simd
			for (j = 0; j < JT; j++) {
				double z = s * y[j], t = z * z, u = r * yr[j];
				double dz = z - Z0, p, mu;
				int64_t eb;

				/*
				 * As step_mixed, with u from the reciprocal and
				 * clamps that keep a NaN (there, the block's
				 * range scan would have sent it to a kind that
				 * does).
				 */
				t = t > t_top ? t_top : t;
				u = u > u_top ? u_top : u;
				dz = dz < 0.0 ? 0.0 : dz;
				p = poly(pb, NB, t, fused);
				mu = split_u(u, &eb);
				ph[j] *= (p * p) * (mu * poly(hl, NL, u, fused));
				acc[j] += dz;
				eh[j] += eb - 1023;
			}
		}
		for (k = 0; k < K_COUNT; k++)
			cnt[k] += (double)nk[k];
		/* checkpoint: products back to [1, 2), z sums compensated */
#pragma omp simd
		for (j = 0; j < JT; j++) {
			double x = acc[j], t = zs[j] + x;
			double c = fabs(zs[j]) >= fabs(x) ? (zs[j] - t) + x
							  : (x - t) + zs[j];

			zc[j] += fabs(t) < HUGE_VAL ? c : 0.0;
			zs[j] = t;
			acc[j] = 0.0;
			pf[j] = renorm_lane(pf[j], &ef[j]);
			ph[j] = renorm_lane(ph[j], &eh[j]);
		}
	}
	{
		double cst = cnt[K_B] * c_b + cnt[K_12] * c_12 +
			     cnt[K_LARGE] * c_l + cnt[K_MIXED] * c_m;

#pragma omp simd
		for (j = 0; j < JT; j++)
			fv[j] = log(pf[j] * sqrt(ph[j]));
		for (j = 0; j < m; j++)
			out[j] = (zs[j] + zc[j]) + cst +
				 LN2 * ((double)ef[j] + 0.5 * (double)eh[j]) +
				 fv[j];
	}
}

/*
 * Tiles when there are enough pairs to fill them (and the tile could be
 * allocated), else row by row.
 */
static inline __attribute__((always_inline)) void
pairs_body(const double *A, size_t na, const double *B, size_t nb, size_t n,
	   double scale, double *out, const int w, const int fused)
{
	struct pair_tile *T = NULL;
	size_t i, j0;

	scale = fabs(scale);
	if (n > 0 && na >= 4 && nb >= JT / 2)
		T = tile_alloc(n);
	if (!T) {
		for (i = 0; i < na; i++)
			rows_body(A + i * n, B, nb, n, scale, out + i * nb, w,
				  fused);
		return;
	}
	for (j0 = 0; j0 < nb; j0 += JT) {
		size_t m = nb - j0 < JT ? nb - j0 : JT;

		tile_fill(T, B, j0, m, n);
		for (i = 0; i < na; i++)
			tile_row(A + i * n, T, n, scale, out + i * nb + j0, m,
				 fused);
	}
	tile_free(T);
}

typedef void rows_fn(const double *a, const double *B, size_t nr, size_t n,
		     double scale, double *out);
typedef rfx_bessel_pairs_fn pairs_fn;

static rfx_bessel_sum_fn sum_generic;
static rows_fn rows_generic;
static pairs_fn pairs_generic;
#if defined(__x86_64__) && defined(__GNUC__)
#define RFX_BESSEL_X86 1
static rfx_bessel_sum_fn sum_avx2;
static rfx_bessel_sum_fn sum_avx512;
static rows_fn rows_avx2;
static rows_fn rows_avx512;
static pairs_fn pairs_avx2;
static pairs_fn pairs_avx512;
#endif

#ifdef RFX_BESSEL_X86
/*
 * The all-pairs form for AVX-512, in intrinsics: the same arithmetic as
 * tile_row, element for element and in the same order, so the sums are
 * bit for bit those of the loops above, in 60-80% of the time. What
 * GCC makes of tile_row keeps the 64 lanes' products in memory (arrays it
 * does not promote to registers), so each coordinate's loop loads,
 * multiplies and stores all of them, and it sorts the coordinates by kind
 * one at a time in scalar code. Here each kind's loop holds its lanes' accumulators in registers
 * (all 64 products for P; for H the product, z sum and exponent of 16
 * lanes at a time), and the coordinates are classified 8 at a time, their
 * kind lists built with compress instructions. vgetmantpd and vgetexppd
 * split u and renormalise the products (split_u and renorm_lane by
 * hand elsewhere). The exponents are counted in doubles: integers far
 * below 2^53, so the sums are the same.
 */
#define X512 __attribute__((always_inline, target("avx512f,fma"))) inline

/*
 * This kernel's kinds: tile_row's, and X_24, the coordinates whose largest
 * z is at most Z24 with some at most Z0, which tile_row counts as mixed:
 * one P of N24 coefficients instead of P and H (16 and 20, and the split
 * of u), most of the mixed coordinates of the Fig 6.4 sets; and X_L16,
 * the large coordinates whose z are all at least ZL16, where H needs
 * NL16 coefficients instead of NL (u <= 1/2).
 * Chunks of XCHUNK coordinates between the checkpoints: 32 factors of
 * p24 stay in the double range, 64 might not.
 */
enum { X_24 = K_COUNT, X_L16, X_COUNT };
#ifndef XCHUNK
#define XCHUNK 32
#endif

static X512 __m512d x512_chain(const double *c, const int n, const int j,
			       __m512d y)
{
	int m = (n - 1 - j) / 2; /* highest power of y in chain j */
	__m512d s = _mm512_set1_pd(c[2 * m + j]);

#pragma GCC unroll 16
	for (m = m - 1; m >= 0; m--)
		s = _mm512_fmadd_pd(s, y, _mm512_set1_pd(c[2 * m + j]));
	return s;
}

/* poly with fused = 1, on 8 lanes. */
static X512 __m512d x512_poly(const double *c, const int n, __m512d x)
{
	__m512d x2 = _mm512_mul_pd(x, x);

	return _mm512_fmadd_pd(x512_chain(c, n, 1, x2), x,
			       x512_chain(c, n, 0, x2));
}

/* mu in [1, 2) of normal u > 0, as split_u (vgetexppd gives its E). */
static X512 __m512d x512_mant(__m512d u)
{
	return _mm512_getmant_pd(u, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
}

/*
 * renorm_lane on 8 lanes: x to [1, 2), its exponent added to *e; zero
 * and non-finite lanes unchanged.
 */
static X512 __m512d x512_renorm(__m512d x, __m512d *e)
{
	__mmask8 ok = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GT_OQ) &
		      _mm512_cmp_pd_mask(x, _mm512_set1_pd(HUGE_VAL),
					 _CMP_LT_OQ);

	*e = _mm512_mask_add_pd(*e, ok, *e, _mm512_getexp_pd(x));
	return _mm512_mask_mov_pd(x, ok, x512_mant(x));
}

/*
 * One row's partial results for 8 lanes, as tile_row's arrays (its
 * int64_t exponents in doubles). Interleaved so that setting them up is a
 * handful of stores: as separate arrays GCC turned the zeroing into five
 * rep stos, which cost as much as a cheap coordinate.
 */
struct x512_lanes {
	__m512d pf, ph;   /* full and halved products */
	__m512d acc;      /* z sum since the last checkpoint */
	__m512d zs, zc;   /* compensated z sum, its error */
	__m512d ef, eh;   /* exponents of pf, of ph and the u's */
};

/*
 * The coordinates of one kind with P of n coefficients c: for each, t =
 * s^2 B_jl^2 and every lane's product pf times P(t).
 */
static X512 void x512_small(struct x512_lanes *S, const struct pair_tile *T,
			    const double *sv, const int32_t *list, size_t cnt,
			    size_t l0, const double *c, const int n)
{
	__m512d p[8];
	size_t k;
	int v;

	if (!cnt)
		return;
	for (v = 0; v < 8; v++)
		p[v] = S[v].pf;
	for (k = 0; k < cnt; k++) {
		const double *yy = T->yy + (l0 + (size_t)list[k]) * JT;
		double s = sv[list[k]];
		__m512d s2 = _mm512_set1_pd(s * s);

#pragma GCC unroll 8
		for (v = 0; v < 8; v++)
			p[v] = _mm512_mul_pd(
				p[v], x512_poly(c, n, _mm512_mul_pd(
							  s2, _mm512_load_pd(yy + 8 * v))));
	}
	for (v = 0; v < 8; v++)
		S[v].pf = p[v];
}

/*
 * The coordinates of kind K_LARGE (mixed 0), K_MIXED (mixed 1) or X_L16
 * (mixed 2, K_LARGE with every z >= ZL16, a shorter H), as
 * tile_row's loops of those kinds, XL vectors of lanes at a time: with
 * more, their products, sums and exponents and the 20 to 36 coefficients
 * do not fit in the registers, and GCC keeps the accumulators on the
 * stack. sr holds Z0/s of each coordinate of the chunk.
 */
#define XL 2

static X512 void x512_large(struct x512_lanes *S, const struct pair_tile *T,
			    const double *sv, const double *sr,
			    const int32_t *list, size_t cnt, size_t l0,
			    const int mixed)
{
	__m512d q[XL], ac[XL], e[XL];
	const __m512d z0 = _mm512_set1_pd(Z0), tt = _mm512_set1_pd(t_top);
	const __m512d ut = _mm512_set1_pd(u_top), zero = _mm512_setzero_pd();
	const __m512d umin = _mm512_set1_pd(DBL_MIN);
	size_t k;
	int v, h;

	if (!cnt)
		return;
	for (h = 0; h < JT / 8; h += XL) {
		for (v = 0; v < XL; v++) {
			q[v] = S[h + v].ph;
			ac[v] = S[h + v].acc;
			e[v] = S[h + v].eh;
		}
		for (k = 0; k < cnt; k++) {
			size_t o = (l0 + (size_t)list[k]) * JT + 8 * (size_t)h;
			const double *y = T->y + o, *yr = T->yr + o;
			__m512d vs = _mm512_set1_pd(sv[list[k]]);
			__m512d vr = _mm512_set1_pd(sr[list[k]]);

#pragma GCC unroll 4
			for (v = 0; v < XL; v++) {
				/*
				 * An infinite z underflows u to 0, where
				 * split_u reads E = -1023 and mu = 1 and
				 * vgetexppd -inf: from the smallest normal
				 * up both agree, and the z sum carries the
				 * +inf. (max returns u when u is a NaN.)
				 */
				__m512d u = _mm512_max_pd(
					umin, _mm512_mul_pd(vr, _mm512_load_pd(yr + 8 * v)));
				__m512d z = _mm512_mul_pd(vs, _mm512_load_pd(y + 8 * v));
				__m512d f;

				if (mixed == 1) {
					/*
					 * The clamps of tile_row: min and max
					 * return their second operand when
					 * either is a NaN, so a NaN stays.
					 */
					__m512d t = _mm512_min_pd(tt, _mm512_mul_pd(z, z));
					__m512d p;

					u = _mm512_min_pd(ut, u);
					z = _mm512_max_pd(zero, _mm512_sub_pd(z, z0));
					p = x512_poly(pb, NB, t);
					f = _mm512_mul_pd(_mm512_mul_pd(p, p),
							  _mm512_mul_pd(x512_mant(u),
									x512_poly(hl, NL, u)));
				} else if (mixed == 2) {
					f = _mm512_mul_pd(x512_mant(u),
							  x512_poly(hl16, NL16, u));
				} else {
					f = _mm512_mul_pd(x512_mant(u),
							  x512_poly(hl, NL, u));
				}
				q[v] = _mm512_mul_pd(q[v], f);
				ac[v] = _mm512_add_pd(ac[v], z);
				e[v] = _mm512_add_pd(e[v], _mm512_getexp_pd(u));
			}
		}
		for (v = 0; v < XL; v++) {
			S[h + v].ph = q[v];
			S[h + v].acc = ac[v];
			S[h + v].eh = e[v];
		}
	}
}

/* tile_row on AVX-512: the same sums, bit for bit. */
static X512 void tile_row_x512(const double *a, const struct pair_tile *T,
			       size_t n, double scale, double *out, size_t m)
{
	struct x512_lanes S[JT / 8];    /* lanes 8 v .. 8 v + 7 in S[v] */
	double pv[JT] __attribute__((aligned(64))); /* pf^2 ph, then its log */
	double cnt[X_COUNT] = { 0.0 };  /* coordinates per kind */
	double sv[XCHUNK + 8];          /* s of each coordinate of the chunk */
	double sr[XCHUNK + 8];          /* Z0/s of each */
	int32_t kl[X_COUNT][XCHUNK + 16]; /* the chunk's coordinates by kind */
	size_t nk[X_COUNT], l0, l1, l;
	const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7,
					      6, 5, 4, 3, 2, 1, 0);
	const __m512d vscale = _mm512_set1_pd(scale);
	const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
	int k, v;

	for (v = 0; v < JT / 8; v++) {
		S[v].pf = S[v].ph = one;
		S[v].acc = S[v].zs = S[v].zc = S[v].ef = S[v].eh = zero;
	}
	for (l0 = 0; l0 < n; l0 = l1) {
		size_t n_K_1 = 0, n_K_A = 0, n_K_4 = 0, n_K_B = 0;
		size_t n_K_LARGE = 0, n_K_12 = 0, n_K_MIXED = 0, n_X_24 = 0;
		size_t n_X_L16 = 0;

		l1 = n - l0 < XCHUNK ? n : l0 + XCHUNK;
		/*
		 * The kinds of 8 coordinates at once, by the comparisons of
		 * tile_row (a NaN compares false everywhere and lands in K_1),
		 * appended to the kinds' lists by compressing their indices.
		 */
		for (l = l0; l < l1; l += 8) {
			__mmask8 live = l1 - l >= 8 ? 0xff
						    : (__mmask8)((1u << (l1 - l)) - 1);
			__m512d s = _mm512_mul_pd(
				vscale, _mm512_abs_pd(_mm512_maskz_loadu_pd(live, a + l)));
			__m512d tmax = _mm512_mul_pd(
				_mm512_mul_pd(s, s),
				_mm512_maskz_loadu_pd(live, T->yymax + l));
			__m512d smin = _mm512_mul_pd(
				s, _mm512_maskz_loadu_pd(live, T->ymin + l));
			__m512i fin = _mm512_maskz_loadu_epi32((__mmask16)live,
							       T->fin + l);
			__mmask8 g1, gA, g4, g0, g12, g24, big, big16, skip, act;
			__mmask8 km[X_COUNT];
			__m512i li = _mm512_add_epi32(
				_mm512_set1_epi32((int)(l - l0)), iota);

#define GT(x, c) _mm512_cmp_pd_mask((x), _mm512_set1_pd(c), _CMP_GT_OQ)
			g1 = GT(tmax, Z1 * Z1);
			gA = GT(tmax, ZA * ZA);
			g4 = GT(tmax, Z4 * Z4);
			g0 = GT(tmax, Z0 * Z0);
			g12 = GT(tmax, Z12 * Z12);
			g24 = GT(tmax, Z24 * Z24);
			big = GT(smin, Z0);
			big16 = GT(smin, ZL16);
#undef GT
			/*
			 * Skipped as well: coordinates whose every t is at most
			 * 2^-53, where P(t) = 1 + t/4 + ... rounds to exactly 1
			 * (so skipping them changes nothing), unless a lane is
			 * not finite (it must reach the result). GeomRF+ shifts the
			 * inputs by 1e-8 below their minimum, so the pixels that
			 * are 0 in all MNIST images give such coordinates.
			 */
			skip = (_mm512_cmp_pd_mask(s, zero, _CMP_EQ_OQ) |
				_mm512_cmp_pd_mask(tmax, _mm512_set1_pd(0x1p-53),
						   _CMP_LE_OQ)) &
			       (__mmask8)_mm512_test_epi32_mask(fin, fin);
			act = live & (__mmask8)~skip;
			km[K_1] = act & (__mmask8)~g1;
			km[K_A] = act & g1 & (__mmask8)~gA;
			km[K_4] = act & gA & (__mmask8)~g4;
			km[K_B] = act & g4 & (__mmask8)~g0;
			km[K_LARGE] = act & g0 & big & (__mmask8)~big16;
			km[X_L16] = act & big16;
			km[K_12] = act & g0 & (__mmask8)~big & (__mmask8)~g12;
			km[X_24] = act & g0 & (__mmask8)~big & g12 & (__mmask8)~g24;
			km[K_MIXED] = act & g0 & (__mmask8)~big & g24;
			_mm512_storeu_pd(sv + (l - l0), s);
			/* Z0/s, which only H needs; a division is slow */
			if (km[K_LARGE] | km[K_MIXED] | km[X_L16])
				_mm512_storeu_pd(sr + (l - l0),
						 _mm512_div_pd(_mm512_set1_pd(Z0), s));
			/*
			 * Written out kind by kind, so that the counts stay
			 * in registers (a loop over an array of them went
			 * through memory), and only for the kinds present:
			 * most sets use few of them, so the test is mostly
			 * predicted.
			 */
#define APPEND(k)							\
			if (km[k]) {					\
				__m512i c_ = _mm512_maskz_compress_epi32( \
					(__mmask16)km[k], li);		\
									\
				_mm256_storeu_si256((__m256i *)(kl[k] + n_##k), \
						    _mm512_castsi512_si256(c_)); \
				n_##k += (size_t)__builtin_popcount(km[k]); \
			}
			APPEND(K_1);
			APPEND(K_A);
			APPEND(K_4);
			APPEND(K_B);
			APPEND(K_LARGE);
			APPEND(K_12);
			APPEND(K_MIXED);
			APPEND(X_24);
			APPEND(X_L16);
#undef APPEND
		}
		nk[K_1] = n_K_1;
		nk[K_A] = n_K_A;
		nk[K_4] = n_K_4;
		nk[K_B] = n_K_B;
		nk[K_LARGE] = n_K_LARGE;
		nk[K_12] = n_K_12;
		nk[K_MIXED] = n_K_MIXED;
		nk[X_24] = n_X_24;
		nk[X_L16] = n_X_L16;
		x512_small(S, T, sv, kl[K_1], nk[K_1], l0, p1, N1);
		x512_small(S, T, sv, kl[K_A], nk[K_A], l0, pa, NA);
		x512_small(S, T, sv, kl[K_4], nk[K_4], l0, p4, N4);
		x512_small(S, T, sv, kl[K_B], nk[K_B], l0, pb, NB);
		x512_small(S, T, sv, kl[K_12], nk[K_12], l0, p12, N12);
		x512_small(S, T, sv, kl[X_24], nk[X_24], l0, p24, N24);
		x512_large(S, T, sv, sr, kl[K_LARGE], nk[K_LARGE], l0, 0);
		x512_large(S, T, sv, sr, kl[K_MIXED], nk[K_MIXED], l0, 1);
		x512_large(S, T, sv, sr, kl[X_L16], nk[X_L16], l0, 2);
		for (k = 0; k < X_COUNT; k++)
			cnt[k] += (double)nk[k];
		/*
		 * checkpoint: products back to [1, 2), z sums compensated;
		 * without H in the chunk the z sums and ph have not changed
		 * (the same values as the full step, which would add 0).
		 */
		if (!(nk[K_LARGE] | nk[K_MIXED] | nk[X_L16])) {
			for (v = 0; v < JT / 8; v++)
				S[v].pf = x512_renorm(S[v].pf, &S[v].ef);
			continue;
		}
		for (v = 0; v < JT / 8; v++) {
			__m512d x = S[v].acc, zs = S[v].zs, t = _mm512_add_pd(zs, x);
			__mmask8 first = _mm512_cmp_pd_mask(_mm512_abs_pd(zs),
							    _mm512_abs_pd(x),
							    _CMP_GE_OQ);
			__mmask8 fin = _mm512_cmp_pd_mask(_mm512_abs_pd(t),
							  _mm512_set1_pd(HUGE_VAL),
							  _CMP_LT_OQ);
			__m512d c = _mm512_add_pd(_mm512_sub_pd(x, t), zs);

			c = _mm512_mask_add_pd(c, first, _mm512_sub_pd(zs, t), x);
			S[v].zc = _mm512_mask_add_pd(S[v].zc, fin, S[v].zc, c);
			S[v].zs = t;
			S[v].acc = zero;
			S[v].pf = x512_renorm(S[v].pf, &S[v].ef);
			S[v].ph = x512_renorm(S[v].ph, &S[v].eh);
		}
	}
	{
		double cst = cnt[K_B] * c_b + cnt[K_12] * c_12 +
			     cnt[K_LARGE] * c_l + cnt[K_MIXED] * c_m +
			     cnt[X_24] * c_24 + cnt[X_L16] * c_l;
		const __m512d vc = _mm512_set1_pd(cst), l2 = _mm512_set1_pd(LN2);
		const __m512d half = _mm512_set1_pd(0.5);

		/*
		 * log(pf sqrt(ph)) as log(pf^2 ph)/2: both in [1, 2) after
		 * the checkpoint, so no overflow, and no square root (a
		 * vsqrtpd costs as much as several coordinates' products).
		 */
		for (v = 0; v < JT / 8; v++)
			_mm512_store_pd(pv + 8 * v,
					_mm512_mul_pd(_mm512_mul_pd(S[v].pf, S[v].pf),
						      S[v].ph));
		rfx_vmath_log(pv, pv, JT);
		/* tile_row's sum, in its order */
		for (v = 0; v < JT / 8 && 8 * (size_t)v < m; v++) {
			__m512d r = _mm512_add_pd(_mm512_add_pd(S[v].zs, S[v].zc), vc);
			__mmask8 live = m - 8 * (size_t)v >= 8
						? 0xff
						: (__mmask8)((1u << (m - 8 * (size_t)v)) - 1);

			r = _mm512_add_pd(
				r, _mm512_mul_pd(l2, _mm512_add_pd(
							     S[v].ef,
							     _mm512_mul_pd(half, S[v].eh))));
			r = _mm512_add_pd(r, _mm512_mul_pd(half, _mm512_load_pd(pv + 8 * v)));
			_mm512_mask_storeu_pd(out + 8 * v, live, r);
		}
	}
}

/* pairs_body with tile_row_x512. */
__attribute__((target("avx512f,fma")))
static void pairs_x512(const double *A, size_t na, const double *B,
		       size_t nb, size_t n, double scale, double *out)
{
	struct pair_tile *T = NULL;
	size_t i, j0;

	scale = fabs(scale);
	if (n > 0 && na >= 4 && nb >= JT / 2)
		T = tile_alloc(n);
	if (!T) {
		for (i = 0; i < na; i++)
			rows_body(A + i * n, B, nb, n, scale, out + i * nb, 8, 1);
		return;
	}
	for (j0 = 0; j0 < nb; j0 += JT) {
		size_t m = nb - j0 < JT ? nb - j0 : JT;

		tile_fill(T, B, j0, m, n);
		for (i = 0; i < na; i++)
			tile_row_x512(A + i * n, T, n, scale, out + i * nb + j0, m);
	}
	tile_free(T);
}
#undef X512
#endif

/*
 * The kernels, best last; a kernel runs where the CPU has both features
 * (NULL: none needed). __builtin_cpu_supports also checks that the OS
 * saves the vector registers.
 */
struct kernel {
	const char *name;                /* for rfx_bessel_kernel_find */
	rfx_bessel_sum_fn *fn;
	rows_fn *rows;
	pairs_fn *pairs;
	const char *feature1, *feature2; /* __builtin_cpu_supports names */
};

static const struct kernel kernels[] = {
	{ "generic", sum_generic, rows_generic, pairs_generic, NULL, NULL },
#ifdef RFX_BESSEL_X86
	{ "avx2", sum_avx2, rows_avx2, pairs_avx2, "avx2", "fma" },
	{ "avx512", sum_avx512, rows_avx512, pairs_avx512, "avx512f", "fma" },
#endif
	{ NULL, NULL, NULL, NULL, NULL, NULL }
};

static int cpu_has(const char *feature)
{
	if (!feature)
		return 1;
#ifdef RFX_BESSEL_X86
	/* __builtin_cpu_supports wants a string literal */
	if (!strcmp(feature, "avx2"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(feature, "fma"))
		return __builtin_cpu_supports("fma");
	if (!strcmp(feature, "avx512f"))
		return __builtin_cpu_supports("avx512f");
#endif
	return 0;
}

static int kernel_runs(const struct kernel *k)
{
	return cpu_has(k->feature1) && cpu_has(k->feature2);
}

static void init_once(void)
{
	int sigma, tau, rho; /* binary scalings that centre the factors on 1 */
	double pb_z0;   /* scaled P at t = Z0^2 */
	const struct kernel *k;

	/*
	 * P on [0, Z0^2] lies in [1, I0(Z0) = 427.6]; scaling it by 2^-sigma
	 * centres log2 of the factor on 0, so that 64 of them (or their
	 * squares in a mixed block) never overflow. Likewise mu H 2^tau, with
	 * H in [1/(2 pi Z0), H(1) = I0s(Z0)^2] ~ 2^-5.6 and mu in [1, 2).
	 */
	sigma = (int)lround(0.5 * log2(gsl_sf_bessel_I0(Z0)));
	tau = -(int)lround(2.0 * log2(gsl_sf_bessel_I0_scaled(Z0)) + 0.5);
	fit_monomial(i0_series, 0.0L, ZA * ZA, NA, 1.0L, pa);
	fit_monomial(i0_series, 0.0L, Z0 * Z0, NB, ldexpl(1.0L, -sigma), pb);
	/*
	 * The all-pairs form's narrower and wider P: I0 <= I0(4) = 11.3 needs
	 * no scaling; I0(12) = 18949 is centred like pb, by 2^-rho.
	 */
	rho = (int)lround(0.5 * log2(gsl_sf_bessel_I0(Z12)));
	fit_monomial(i0_series, 0.0L, Z1 * Z1, N1, 1.0L, p1);
	fit_monomial(i0_series, 0.0L, Z4 * Z4, N4, 1.0L, p4);
	fit_monomial(i0_series, 0.0L, Z12 * Z12, N12, ldexpl(1.0L, -rho),
		     p12);
	p1[0] = p4[0] = 1.0;
	p12[0] = ldexp(1.0, -rho);
	c_12 = rho * LN2;
	/*
	 * And the AVX-512 kernel's widest P: I0(24) = 2.2e9 = 2^31, centred
	 * by 2^-16, so a factor lies in [2^-16, 2^15.1]; that kernel renews
	 * its products every 32 coordinates, which keeps 32 of them in range.
	 * Its 29 coefficients are all but three positive, so the monomial form
	 * still evaluates to within 1e-15 (tests/t_bessel.c); they need the
	 * extended precision of fit_monomial_q.
	 */
#ifdef RFX_BESSEL_X86
	{
		int rho24 = (int)lround(0.5 * log2(gsl_sf_bessel_I0(Z24)));

		fit_monomial_q(0.0L, Z24 * Z24, N24, ldexpl(1.0L, -rho24),
			       p24);
		p24[0] = ldexp(1.0, -rho24);
		c_24 = rho24 * LN2;
	}
#endif
	fit_monomial(h_gsl, 0.0L, 1.0L, NL, ldexpl(1.0L, tau), hl);
	/*
	 * H is smooth on [0, 1] but not analytic at 0; on [0, 1/2] (z >= 16)
	 * 12 coefficients reach 2e-16, against 20 on [0, 1].
	 */
	fit_monomial(h_gsl, 0.0L, (long double)(Z0 / ZL16), NL16,
		     ldexpl(1.0L, tau), hl16);
	/*
	 * P(0) = I0(0) = 1 exactly, so log I0(0) comes out exactly 0 (the
	 * fits' constant terms are within an ulp of it anyway).
	 */
	pa[0] = 1.0;
	pb[0] = ldexp(1.0, -sigma);

	t_top = Z0 * Z0;
	u_top = 1.0;
	c_b = sigma * LN2;
	c_l = -0.5 * tau * LN2;
	/*
	 * c_m from a large element, Z0 - log P(Z0^2) + c_l, and from a small
	 * one, c_b - log H(1)/2, agree up to the fits' errors at Z0 (4e-16
	 * apart); their mean halves that error for both.
	 */
	pb_z0 = horner(pb, NB, Z0 * Z0);
	c_m = 0.5 * ((Z0 - log(pb_z0) + c_l) +
		     (c_b - 0.5 * log(horner(hl, NL, 1.0))));

#ifdef RFX_BESSEL_X86
	__builtin_cpu_init();
#endif
	for (k = kernels; k->name; k++)
		if (kernel_runs(k))
			impl = k;
}

void rfx_bessel_init(void)
{
	pthread_once(&once, init_once);
}

double rfx_bessel_sum_log_i0_prod(const double *a, const double *b,
				  double scale, size_t n)
{
	rfx_bessel_init();
	return impl->fn(a, b, scale, n);
}

void rfx_bessel_sum_log_i0_rows(const double *a, const double *B, size_t nr,
				size_t n, double scale, double *out)
{
	rfx_bessel_init();
	impl->rows(a, B, nr, n, scale, out);
}

void rfx_bessel_sum_log_i0_pairs(const double *A, size_t na, const double *B,
				 size_t nb, size_t n, double scale,
				 double *out)
{
	rfx_bessel_init();
	impl->pairs(A, na, B, nb, n, scale, out);
}

double rfx_bessel_log_i0(double z)
{
	double one = 1.0;

	rfx_bessel_init();
	return impl->fn(&z, &one, 1.0, 1);
}

const char *rfx_bessel_kernel_name(void)
{
	rfx_bessel_init();
	return impl->name;
}

/* The kernel called name, or NULL and an error. */
static const struct kernel *kernel_lookup(const char *name,
					  struct rfx_err *err)
{
	const struct kernel *k;
	char names[64] = "";  /* the valid names, for the message */
	size_t off = 0;

	rfx_bessel_init();
	for (k = kernels; k->name; k++) {
		if (strcmp(k->name, name))
			continue;
		if (!kernel_runs(k)) {
			rfx_error(err, RFX_EINVAL,
				  "bessel kernel '%s' needs %s and %s, "
				  "which this CPU lacks", name, k->feature1,
				  k->feature2);
			return NULL;
		}
		return k;
	}
	for (k = kernels; k->name; k++) {
		int r = snprintf(names + off, sizeof names - off, "%s%s",
				 off ? ", " : "", k->name);

		if (r < 0 || (size_t)r >= sizeof names - off)
			break;
		off += (size_t)r;
	}
	rfx_error(err, RFX_EINVAL,
		  "unknown bessel kernel '%s', expected one of: %s", name,
		  names);
	return NULL;
}

int rfx_bessel_kernel_find(const char *name, rfx_bessel_sum_fn **fn,
			   struct rfx_err *err)
{
	const struct kernel *k = kernel_lookup(name, err);

	if (!k)
		return RFX_EINVAL;
	*fn = k->fn;
	return RFX_OK;
}

int rfx_bessel_pairs_find(const char *name, rfx_bessel_pairs_fn **fn,
			  struct rfx_err *err)
{
	const struct kernel *k = kernel_lookup(name, err);

	if (!k)
		return RFX_EINVAL;
	*fn = k->pairs;
	return RFX_OK;
}

/*
 * The instantiations. Each inlines sum_body with its own instruction set,
 * so the loops vectorise to 2, 4 or 8 lanes.
 */
static double sum_generic(const double *a, const double *b, double scale,
			  size_t n)
{
	return sum_body(a, b, scale, n, 2, 0, NULL);
}

#ifdef RFX_BESSEL_X86
__attribute__((target("avx2,fma")))
static double sum_avx2(const double *a, const double *b, double scale,
		       size_t n)
{
	return sum_body(a, b, scale, n, 4, 1, NULL);
}

__attribute__((target("avx512f,fma")))
static double sum_avx512(const double *a, const double *b, double scale,
			 size_t n)
{
	return sum_body(a, b, scale, n, 8, 1, NULL);
}
#endif

static void rows_generic(const double *a, const double *B, size_t nr,
			 size_t n, double scale, double *out)
{
	rows_body(a, B, nr, n, scale, out, 2, 0);
}

#ifdef RFX_BESSEL_X86
__attribute__((target("avx2,fma")))
static void rows_avx2(const double *a, const double *B, size_t nr, size_t n,
		      double scale, double *out)
{
	rows_body(a, B, nr, n, scale, out, 4, 1);
}

__attribute__((target("avx512f,fma")))
static void rows_avx512(const double *a, const double *B, size_t nr,
			size_t n, double scale, double *out)
{
	rows_body(a, B, nr, n, scale, out, 8, 1);
}
#endif

static void pairs_generic(const double *A, size_t na, const double *B,
			  size_t nb, size_t n, double scale, double *out)
{
	pairs_body(A, na, B, nb, n, scale, out, 2, 0);
}

#ifdef RFX_BESSEL_X86
__attribute__((target("avx2,fma")))
static void pairs_avx2(const double *A, size_t na, const double *B,
		       size_t nb, size_t n, double scale, double *out)
{
	pairs_body(A, na, B, nb, n, scale, out, 4, 1);
}

__attribute__((target("avx512f,fma")))
static void pairs_avx512(const double *A, size_t na, const double *B,
			 size_t nb, size_t n, double scale, double *out)
{
	pairs_x512(A, na, B, nb, n, scale, out);
}
#endif

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


#include "num/bessel_impl.h"

/*
 * The tables: written once by init_once (under pthread_once, which also
 * publishes them to every thread that passes through it), read-only after.
 */
double pa[NA];   /* I0(sqrt t) ~ sum pa[k] t^k on [0, ZA^2] */
double pb[NB];   /* I0(sqrt t) 2^-sigma ~ sum pb[k] t^k, [0, Z0^2] */
double p1[N1];   /* I0(sqrt t) ~ sum p1[k] t^k on [0, Z1^2] */
double p4[N4];   /* I0(sqrt t) ~ sum p4[k] t^k on [0, Z4^2] */
double p12[N12]; /* I0(sqrt t) 2^-rho ~ sum p12[k] t^k, [0, Z12^2] */
double c_12;     /* rho log 2: undoes the scaling of p12 */
double p24[N24]; /* I0(sqrt t) 2^-rho24 ~ sum p24[k] t^k, [0, Z24^2] */
double c_24;     /* rho24 log 2 */
double hl16[NL16]; /* H(u) 2^tau ~ sum hl16[k] u^k on [0, Z0/ZL16] */
double hl[NL];   /* H(u) 2^tau ~ sum hl[k] u^k on [0, 1] */
double c_b;      /* sigma log 2: undoes the scaling of pb */
double c_l;      /* -tau/2 log 2: undoes the scaling of hl */
double c_m;      /* per-element constant of a mixed block, below */
double t_top;    /* Z0^2 and 1, the clamps of step_mixed, as */
double u_top;    /* variables on purpose (see there) */

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

struct pair_tile *rfx_bessel_tile_alloc(size_t n)
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

void rfx_bessel_tile_free(struct pair_tile *T)
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
		T = rfx_bessel_tile_alloc(n);
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
	rfx_bessel_tile_free(T);
}

typedef void rows_fn(const double *a, const double *B, size_t nr, size_t n,
		     double scale, double *out);
typedef rfx_bessel_pairs_fn pairs_fn;

static rfx_bessel_sum_fn sum_generic;
static rows_fn rows_generic;
static pairs_fn pairs_generic;
#ifdef RFX_BESSEL_X86
static rfx_bessel_sum_fn sum_avx2;
static rfx_bessel_sum_fn sum_avx512;
static pairs_fn pairs_avx512;
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
	{ "avx2", sum_avx2, rfx_bessel_rows_avx2, rfx_bessel_pairs_x256, "avx2", "fma" },
	{ "avx512", sum_avx512, rfx_bessel_rows_avx512, pairs_avx512, "avx512f", "fma" },
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
	 * And the intrinsics kernels' widest P (AVX2 and AVX-512): I0(24) =
	 * 2.2e9 = 2^31, centred by 2^-16, so a factor lies in [2^-16,
	 * 2^15.1]; those kernels renew their products every 32 coordinates,
	 * which keeps 32 of them in range.
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
/*
 * Exported to bessel_avx2.c and bessel_avx512.c, as is tile_fill for
 * each below: their pairs kernels fall back to the rows form.
 */
__attribute__((target("avx2,fma")))
void rfx_bessel_rows_avx2(const double *a, const double *B, size_t nr,
			  size_t n, double scale, double *out)
{
	rows_body(a, B, nr, n, scale, out, 4, 1);
}

__attribute__((target("avx512f,fma")))
void rfx_bessel_rows_avx512(const double *a, const double *B, size_t nr,
			    size_t n, double scale, double *out)
{
	rows_body(a, B, nr, n, scale, out, 8, 1);
}

__attribute__((target("avx2,fma")))
void rfx_bessel_tile_fill_avx2(struct pair_tile *T, const double *B,
			       size_t j0, size_t m, size_t n)
{
	tile_fill(T, B, j0, m, n);
}

__attribute__((target("avx512f,fma")))
void rfx_bessel_tile_fill_avx512(struct pair_tile *T, const double *B,
				 size_t j0, size_t m, size_t n)
{
	tile_fill(T, B, j0, m, n);
}
#endif

static void pairs_generic(const double *A, size_t na, const double *B,
			  size_t nb, size_t n, double scale, double *out)
{
	pairs_body(A, na, B, nb, n, scale, out, 2, 0);
}

#ifdef RFX_BESSEL_X86
__attribute__((target("avx512f,fma")))
static void pairs_avx512(const double *A, size_t na, const double *B,
			 size_t nb, size_t n, double scale, double *out)
{
	rfx_bessel_pairs_x512(A, na, B, nb, n, scale, out);
}
#endif

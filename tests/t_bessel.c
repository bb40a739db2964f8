/*
 * Tests of lib/num/bessel.c. GSL is the independent reference: log I0(z) =
 * z + log gsl_sf_bessel_I0_scaled(z) up to z = 1e4, and the asymptotic
 * series beyond. Checked: a dense grid over [0, 50] and the seams of the
 * approximation, log-spaced points up to 1e4 and huge arguments, known
 * values, the product sum for vectors that reach every kind of block (all
 * small, all large, mixed, longer than a block) with every kernel this CPU
 * runs, the all-pairs form with every kernel (tiles, partial tiles, the
 * per-row fallback, every kind of coordinate, the vector kernels' wide
 * kinds over several chunks, non-finite input), the error
 * path of rfx_bessel_kernel_find, and start-up from many threads at once
 * (which must come first, before anything initialises).
 *
 * The bound for each log I0(z) is 1e-13 max(1, log I0(z)), i.e. 1e-13
 * relative in I0 for moderate z; the measured maximum is printed as a
 * diagnostic (about 1e-15). The all-pairs form's polynomials are fitted
 * at start-up in long double; where long double arithmetic has only
 * double's precision (valgrind runs x87 code at 64 bits, make valgrind)
 * that fit is good to about 1e-11, and its checks take PAIRS_TOL_DOUBLE.
 */
#include "num/bessel.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_bessel.h>

#define TOL 1e-13      /* error bound per log I0, times max(1, log I0) */
#define PAIRS_TOL_DOUBLE 1e-10 /* the pairs' bound without extended long double */
#define LOG_2PI 1.837877066409345483560659472811235279722794947275566825634

static const char *const kernel_names[] = { "generic", "avx2", "avx512", NULL };

/*
 * log I0(z) from GSL, or for z > 1e4 from A&S 9.7.1 to two terms, whose
 * next one, 225/(3072 z^3), is below 1e-13 there (1e-17 of log I0).
 */
static double ref_log_i0(double z)
{
	z = fabs(z);
	if (z <= 1e4)
		return z + log(gsl_sf_bessel_I0_scaled(z));
	return z - 0.5 * (LOG_2PI + log(z)) +
	       log1p(1.0 / (8.0 * z) + 9.0 / (128.0 * z * z));
}

/*
 * The all-pairs bounds: TOL against GSL and 4e-15 against the per-call
 * sums where long double arithmetic is wider than double,
 * PAIRS_TOL_DOUBLE for both where it is not. Errors in the
 * tiling (a tile of the wrong kind, a lost seam) are far beyond either.
 */
static double pairs_tol = TOL;
static double pairs_prod_tol = 4e-15; /* against the per-call sums, per (n + 1) */

static int long_double_extended(void)
{
	volatile long double one = 1.0L, quarter_ulp = DBL_EPSILON / 4.0;

	return one + quarter_ulp != one;
}

/* The bound on |got - ref| for one log I0(z) of value ref. */
static double bound(double ref)
{
	return TOL * (ref > 1.0 ? ref : 1.0);
}

/*
 * sum_k log I0(scale |a_k b_k|) from GSL, and the summed bounds. The sum
 * is compensated (Neumaier 1974): plain summation of 1e5 terms would be
 * off by more than the bound.
 */
static double ref_sum(const double *a, const double *b, double scale,
		      size_t n, double *tol)
{
	double s = 0.0, c = 0.0;
	size_t k;

	*tol = 0.0;
	for (k = 0; k < n; k++) {
		double r = ref_log_i0(fabs(scale) * fabs(a[k] * b[k]));
		double t = s + r;

		c += fabs(s) >= fabs(r) ? (s - t) + r : (r - t) + s;
		s = t;
		*tol += bound(r);
	}
	return s + c;
}

/* Fills x with n standard normals, about a tenth of them zeroed. */
static void fill_gauss(const gsl_rng *r, double *x, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		x[k] = gsl_rng_uniform(r) < 0.1 ? 0.0
						: gsl_ran_gaussian(r, 1.0);
}

/*
 * First of all: the library initialises lazily, so many threads making
 * their first call at once race for the set-up. All must agree, bit for
 * bit, and with GSL.
 */
static void test_threads(void)
{
	enum { NT = 8, N = 64 };
	double x[N], y[N], got[NT], want, tol;
	int k, nt = 0, same = 1, all_ok = 1;

	for (k = 0; k < N; k++) {
		x[k] = 0.173 * (k % 17) - 1.2;
		y[k] = 0.291 * (k % 11) - 1.1;
	}
	want = ref_sum(x, y, 2.385, N, &tol);
#pragma omp parallel num_threads(NT)
	{
		int t = omp_get_thread_num();

		got[t] = rfx_bessel_sum_log_i0_prod(x, y, 2.385, N);
		if (t == 0)
			nt = omp_get_num_threads();
	}
	for (k = 0; k < nt; k++) {
		same &= got[k] == got[0];
		all_ok &= fabs(got[k] - want) <= tol;
	}
	ok(nt > 1 && same && all_ok,
	   "first calls from %d threads agree and match GSL", nt);

	/* rfx_bessel_init itself, concurrently and again: nothing changes */
#pragma omp parallel num_threads(NT)
	rfx_bessel_init();
	ok(rfx_bessel_sum_log_i0_prod(x, y, 2.385, N) == got[0],
	   "rfx_bessel_init is idempotent");
}

/* Exact and series values. */
static void test_known(void)
{
	double z = 1e-3, t = z * z / 4.0;

	ok(rfx_bessel_log_i0(0.0) == 0.0, "log I0(0) = 0 exactly");
	/* I0(z) = 1 + t + t^2/4 + t^3/36 + ..., t = z^2/4 (A&S 9.6.10) */
	is_approx(rfx_bessel_log_i0(z),
		  log1p(t + t * t / 4.0 + t * t * t / 36.0), TEST_TOL1,
		  "log I0(1e-3) from the series (absolute)");
	ok(rfx_bessel_log_i0(-2.385) == rfx_bessel_log_i0(2.385),
	   "log I0 is even");
	ok(rfx_bessel_log_i0(HUGE_VAL) == HUGE_VAL, "log I0(inf) = inf");
	ok(isnan(rfx_bessel_log_i0(NAN)), "log I0(nan) is nan");
	ok(rfx_bessel_sum_log_i0_prod(NULL, NULL, 1.0, 0) == 0.0,
	   "empty sum is 0");
}

/*
 * One kernel against GSL on z: the dense grid over [0, 50], the seams at
 * 2 and 8 (block kinds change there) with their neighbours, log-spaced
 * points to 1e4, and huge z.
 */
static void test_grid(const char *name, rfx_bessel_sum_fn *fn)
{
	static const double seams[] = { 2.0, 8.0 };
	static const double huge[] = { 1e5, 1e6, 1e100, 1e300, 1e308 };
	double one = 1.0, worst = 0.0, zworst = 0.0;
	int i, s, k, n = 0;

#define CHECK(zv)							\
	do {								\
		double z_ = (zv), r_ = ref_log_i0(z_);			\
		double e_ = fabs(fn(&z_, &one, 1.0, 1) - r_) /		\
			    (r_ > 1.0 ? r_ : 1.0);			\
									\
		if (!(e_ <= worst)) {					\
			worst = e_;					\
			zworst = z_;					\
		}							\
		n++;							\
	} while (0)

	for (i = 0; i < 100000; i++)
		CHECK(50.0 * (i + 0.385) / 100000.0);
	for (s = 0; s < 2; s++) {
		double z = seams[s];

		CHECK(z);
		for (k = 0; k < 4; k++) {
			double lo = nextafter(z, 0.0), hi = nextafter(z, 100.0);

			CHECK(lo);
			CHECK(hi);
			z = k & 1 ? lo : hi;
		}
	}
	for (i = 0; i <= 2000; i++)
		CHECK(50.0 * pow(1e4 / 50.0, i / 2000.0));
	for (i = 0; i < (int)(sizeof huge / sizeof huge[0]); i++)
		CHECK(huge[i]);
#undef CHECK

	diag("%s: max |error| / max(1, log I0) = %.3g at z = %.17g over %d z",
	     name, worst, zworst, n);
	ok(worst <= TOL, "%s: log I0 within %g max(1, log I0) of GSL", name,
	   TOL);
}

/* z_k = scale |a_k b_k| with b_k = 1 and a_k from lo to hi, in order. */
static void fill_ramp(double *a, double *b, size_t n, double lo, double hi)
{
	size_t k;

	for (k = 0; k < n; k++) {
		a[k] = lo + (hi - lo) * (k + 0.385) / n;
		b[k] = k & 1 ? 1.0 : -1.0;
	}
}

static int check_sum(rfx_bessel_sum_fn *fn, const double *a,
		     const double *b, double scale, size_t n, double *relerr)
{
	double tol, want = ref_sum(a, b, scale, n, &tol);
	double got = fn(a, b, scale, n);

	*relerr = fabs(got - want) / (tol / TOL);
	return fabs(got - want) <= tol;
}

/*
 * One kernel's sum against the sum of GSL's logs: random vectors of
 * lengths 1, 3, 64, 1000 at scales 0.5, 2, 100 (with zeros, and with huge
 * entries), vectors made to reach each kind of block, and vectors long
 * enough that the running product must be renormalised.
 */
static void test_sums(const char *name, rfx_bessel_sum_fn *fn,
		      const gsl_rng *r)
{
	static const size_t lens[] = { 1, 3, 64, 1000 };
	static const double scales[] = { 0.5, 2.0, 100.0 };
	enum { NBIG = 100000 };
	static double a[NBIG], b[NBIG];
	double err, worst = 0.0;
	int li, si, pass = 1;
	size_t k;

	for (li = 0; li < 4; li++) {
		for (si = 0; si < 3; si++) {
			size_t n = lens[li];

			fill_gauss(r, a, n);
			fill_gauss(r, b, n);
			pass &= check_sum(fn, a, b, scales[si], n, &err);
			worst = err > worst ? err : worst;
			/* huge entries: z up to ~1e200 */
			for (k = 0; k < n; k += 3)
				a[k] *= 1e100;
			for (k = 1; k < n; k += 5)
				b[k] *= 1e100;
			pass &= check_sum(fn, a, b, scales[si], n, &err);
			worst = err > worst ? err : worst;
			/* negative scale: |scale| is used */
			pass &= check_sum(fn, a, b, -scales[si], n, &err);
			worst = err > worst ? err : worst;
		}
	}
	diag("%s: random sums: max |error| / sum of max(1, log I0) = %.3g",
	     name, worst);
	ok(pass, "%s: random sums match GSL", name);

	/* each kind of block, and one block of each kind in turn */
	fill_ramp(a, b, 64, 0.0, 2.0);
	ok(check_sum(fn, a, b, 1.0, 64, &err), "%s: all z <= 2", name);
	fill_ramp(a, b, 64, 0.0, 8.0);
	ok(check_sum(fn, a, b, 1.0, 64, &err), "%s: all z <= 8", name);
	fill_ramp(a, b, 64, 8.001, 1e4);
	ok(check_sum(fn, a, b, 1.0, 64, &err), "%s: all z > 8", name);
	fill_ramp(a, b, 64, 0.0, 30.0);
	ok(check_sum(fn, a, b, 1.0, 64, &err), "%s: z both sides of 8",
	   name);
	fill_ramp(a, b, 64, 7.9, 8.1);
	ok(check_sum(fn, a, b, 1.0, 64, &err), "%s: z near 8", name);
	fill_ramp(a, b, 64 * 4 + 5, 0.0, 40.0);
	ok(check_sum(fn, a, b, 1.0, 64 * 4 + 5, &err),
	   "%s: several blocks of each kind", name);

	/* NBIG equal factors: 2^(4.7 NBIG) unless renormalised */
	fill_ramp(a, b, NBIG, 7.9, 7.9);
	ok(check_sum(fn, a, b, 1.0, NBIG, &err), "%s: %d z = 7.9", name,
	   NBIG);
	fill_ramp(a, b, NBIG, 1.9, 1.9);
	ok(check_sum(fn, a, b, 1.0, NBIG, &err), "%s: %d z = 1.9", name,
	   NBIG);
	fill_ramp(a, b, NBIG, 0.0, 1e4);
	ok(check_sum(fn, a, b, 1.0, NBIG, &err), "%s: %d z over [0, 1e4]",
	   name, NBIG);
	fill_ramp(a, b, NBIG, 9.0, 9.0);
	ok(check_sum(fn, a, b, 1.0, NBIG, &err), "%s: %d z = 9", name,
	   NBIG);

	/* non-finite input reaches the result */
	fill_ramp(a, b, 64, 0.0, 1.0);
	a[17] = NAN;
	ok(isnan(fn(a, b, 1.0, 64)), "%s: a NaN gives NaN", name);
	a[17] = 1e200;
	b[17] = 1e200;
	ok(fn(a, b, 1.0, 64) == HUGE_VAL, "%s: an infinite z gives +inf",
	   name);
}

/* Kernels agree with each other, not just with GSL. */
static void test_agree(const gsl_rng *r)
{
	double a[1000], b[1000], ref, worst = 0.0;
	rfx_bessel_sum_fn *fn;
	int i, trial;

	for (trial = 0; trial < 50; trial++) {
		double scale = 0.1 * (trial + 1);

		fill_gauss(r, a, 1000);
		fill_gauss(r, b, 1000);
		ref = rfx_bessel_sum_log_i0_prod(a, b, scale, 1000);
		for (i = 0; kernel_names[i]; i++) {
			double d;

			if (rfx_bessel_kernel_find(kernel_names[i], &fn, NULL))
				continue;
			d = fabs(fn(a, b, scale, 1000) - ref) /
			    (fabs(ref) > 1.0 ? fabs(ref) : 1.0);
			worst = d > worst ? d : worst;
		}
	}
	diag("kernels differ by at most %.3g relative", worst);
	ok(worst <= 1e-14, "kernels agree to 1e-14");
}

/*
 * The row form gives the sums of the per-call form: 150 rows (more than
 * one chunk of 64) of d = 64, mixing small, medium and large z, and a
 * row of zeros (sum exactly 0).
 */
static void test_rows(const gsl_rng *r)
{
	enum { NR = 150, D = 64 };
	static double a[D], B[NR * D], out[NR];
	double worst = 0.0;
	int i, k;

	for (k = 0; k < D; k++)
		a[k] = gsl_ran_gaussian(r, 2.0);
	for (i = 0; i < NR; i++)
		for (k = 0; k < D; k++)
			B[i * D + k] = i == 7 ? 0.0 : gsl_ran_gaussian(r, 0.5 + i % 5);
	rfx_bessel_sum_log_i0_rows(a, B, NR, D, 3.0, out);
	for (i = 0; i < NR; i++) {
		double want = rfx_bessel_sum_log_i0_prod(a, B + i * D, 3.0, D);
		double e = fabs(out[i] - want) / (want > 1.0 ? want : 1.0);

		if (e > worst)
			worst = e;
	}
	ok(worst < 1e-14 && out[7] == 0.0,
	   "rows: equal to the per-call sums (worst relative %.2g), zero row exact",
	   worst);
}

/*
 * One kernel's all-pairs form against GSL, pair by pair, and against the
 * per-call sums: na x nb sets with n coordinates at a scale, and B's rows
 * in tiles of 32 (the last partial) unless there are too few.
 */
static int check_pairs(rfx_bessel_pairs_fn *fn, const double *A, size_t na,
		       const double *B, size_t nb, size_t n, double scale,
		       double *out, double *worst_gsl, double *worst_prod)
{
	size_t i, j;
	int pass = 1;

	fn(A, na, B, nb, n, scale, out);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++) {
			double tol, want, prod, got, e, ep;

			/*
			 * RFX_TEST_SCALE=small (make valgrind, where the GSL
			 * references take most of the time): every 7th pair
			 * in row-major order. With nb prime to 7 (83) that
			 * still meets every row and every column, so every
			 * lane of every tile.
			 */
			if (tap_small() && (i * nb + j) % 7)
				continue;
			want = ref_sum(A + i * n, B + j * n, scale, n, &tol);
			prod = rfx_bessel_sum_log_i0_prod(A + i * n, B + j * n,
							  scale, n);
			got = out[i * nb + j];
			e = fabs(got - want) / (tol / TOL);
			/* both round once or twice per factor of a product */
			ep = fabs(got - prod) /
			     ((fabs(prod) > 1.0 ? fabs(prod) : 1.0) *
			      (double)(n + 1));

			pass &= fabs(got - want) <= tol / TOL * pairs_tol &&
				ep <= pairs_prod_tol;
			*worst_gsl = e > *worst_gsl ? e : *worst_gsl;
			*worst_prod = ep > *worst_prod ? ep : *worst_prod;
		}
	return pass;
}

/*
 * The all-pairs form one element at a time (n = 1): B's rows are the z of
 * a grid, so its tiles hold 32 neighbouring z and each takes the kind of
 * its range, seams included; shuffled, the tiles span wide ranges and
 * take the wider kinds (mixed among them). Each log I0 against GSL.
 */
static void test_pairs_grid(const char *name, rfx_bessel_pairs_fn *fn)
{
	static const double seams[] = { 1.0, 2.0, 4.0, 8.0, 12.0, 24.0 };
	static const double huge[] = { 1e5, 1e6, 1e100, 1e300, 1e308 };
	enum { NG = 60000 };
	static double z[NG], zs[NG], out[4 * NG];
	double one[4] = { 1.0, -1.0, 1.0, 1.0 }, worst = 0.0, zworst = 0.0;
	size_t n = 0, k, i, pass;

	for (k = 0; k < 40000; k++)
		z[n++] = 50.0 * (k + 0.385) / 40000.0;
	for (k = 0; k < sizeof(seams) / sizeof(seams[0]); k++) {
		double lo = seams[k], hi = seams[k];

		z[n++] = seams[k];
		for (i = 0; i < 8; i++) {
			lo = nextafter(lo, 0.0);
			hi = nextafter(hi, 100.0);
			z[n++] = lo;
			z[n++] = hi;
		}
	}
	for (k = 0; k <= 2000; k++)
		z[n++] = 50.0 * pow(1e4 / 50.0, k / 2000.0);
	for (k = 0; k < 5; k++)
		z[n++] = huge[k];
	for (pass = 0; pass < 2; pass++) {
		/* 7919 is prime, so k -> 7919 k mod n permutes */
		for (k = 0; k < n; k++)
			zs[k] = pass ? z[(k * 7919) % n] : z[k];
		fn(one, 4, zs, n, 1, 1.0, out);
		for (i = 0; i < 4; i++)
			for (k = 0; k < n; k++) {
				double r = ref_log_i0(zs[k]);
				double e = fabs(out[i * n + k] - r) /
					   (r > 1.0 ? r : 1.0);

				if (!(e <= worst)) {
					worst = e;
					zworst = zs[k];
				}
			}
	}
	diag("%s: pairs, one z each: max |error| / max(1, log I0) = %.3g at "
	     "z = %.17g over %zu z, sorted and shuffled", name, worst, zworst,
	     n);
	ok(worst <= pairs_tol, "%s: pairs: each log I0 within %g max(1, log I0) "
	   "of GSL, tiles of every kind", name, pairs_tol);
}

static void test_pairs(const char *name, rfx_bessel_pairs_fn *fn,
		       const gsl_rng *r)
{
	enum { NA = 37, NB = 83, NMAXC = 150 };
	static const size_t lens[] = { 1, 3, 64, 150 };
	static const double scales[] = { 0.5, 2.0, 8.0, 100.0 };
	static double A[NA * NMAXC], B[NB * NMAXC], out[NA * NB];
	double wg = 0.0, wp = 0.0;
	size_t k, i, j;
	int li, si, pass = 1, zero = 1, nan_ok = 1;

	for (li = 0; li < 4; li++)
		for (si = 0; si < 4; si++) {
			size_t n = lens[li];

			fill_gauss(r, A, NA * n);
			fill_gauss(r, B, NB * n);
			pass &= check_pairs(fn, A, NA, B, NB, n, scales[si], out,
					    &wg, &wp);
			/* too few pairs for tiles: the per-row form */
			pass &= check_pairs(fn, A, 3, B, 5, n, scales[si], out,
					    &wg, &wp);
			/* huge entries in a few coordinates, z up to ~1e200 */
			for (k = 0; k < NA * n; k += 7)
				A[k] *= 1e100;
			for (k = 1; k < NB * n; k += 11)
				B[k] *= 1e100;
			pass &= check_pairs(fn, A, NA, B, NB, n, -scales[si],
					    out, &wg, &wp);
		}
	diag("%s: pairs: max |error| / sum of max(1, log I0) = %.3g, "
	     "max relative difference from the per-call sums %.3g (n + 1)",
	     name, wg, wp);
	ok(pass, "%s: all-pairs sums match GSL and the per-call sums", name);

	/* rows of equal coordinates: one kind of coordinate per case */
	{
		static const double zs[] = { 0.7, 1.9, 3.5, 5.0, 7.99, 8.01,
					     11.9, 20.0, 50.0 };
		int q, kinds = 1;

		for (q = 0; q < 9; q++) {
			for (k = 0; k < NA * 64; k++)
				A[k] = sqrt(zs[q]) * (k & 1 ? 1.0 : -1.0);
			for (k = 0; k < NB * 64; k++)
				B[k] = sqrt(zs[q]) * (0.2 + 0.8 * (k % 3) / 2.0);
			kinds &= check_pairs(fn, A, NA, B, NB, 64, 1.0, out, &wg,
					     &wp);
		}
		ok(kinds, "%s: pairs: coordinates of every kind, and mixed",
		   name);
	}

	/* zero rows give exactly 0; NaN rows and columns give NaN */
	fill_gauss(r, A, NA * 64);
	fill_gauss(r, B, NB * 64);
	for (k = 0; k < 64; k++) {
		A[5 * 64 + k] = 0.0;
		B[40 * 64 + k] = 0.0;
	}
	fn(A, NA, B, NB, 64, 3.0, out);
	for (j = 0; j < NB; j++)
		zero &= out[5 * NB + j] == 0.0;
	/*
	 * A zero row of B shares its tile's kind (its z = 0 may go through
	 * the large formula's constants), so it is 0 to rounding only.
	 */
	for (i = 0; i < NA; i++)
		zero &= fabs(out[i * NB + 40]) <= 64 * 1e-15;
	ok(zero, "%s: pairs: a zero row of A gives exactly 0, of B 0 to "
	   "rounding", name);
	A[9 * 64 + 17] = NAN;
	B[70 * 64 + 3] = NAN;
	fn(A, NA, B, NB, 64, 3.0, out);
	for (i = 0; i < NA; i++)
		for (j = 0; j < NB; j++) {
			int want_nan = i == 9 || j == 70;

			nan_ok &= want_nan ? isnan(out[i * NB + j])
					   : isfinite(out[i * NB + j]);
		}
	ok(nan_ok, "%s: pairs: NaN reaches exactly its row and column", name);
	A[9 * 64 + 17] = 1e200;
	B[70 * 64 + 3] = 0.0;
	B[71 * 64 + 17] = 1e200;
	fn(A, NA, B, NB, 64, 3.0, out);
	ok(out[9 * NB + 71] == HUGE_VAL && isfinite(out[9 * NB + 70]) &&
	   isfinite(out[8 * NB + 71]),
	   "%s: pairs: an infinite z gives +inf for that pair only", name);
}

/*
 * The wide kinds of the vector kernels (bessel_avx2.c, bessel_avx512.c):
 * coordinates whose z reach into (12, 24] with some at most 8 (one P on
 * [0, 24^2]) and coordinates whose z are all at least 16 (a shorter H),
 * beside plain large ones, over 150 coordinates: several chunks between
 * renormalisations, in which a lane whose z are all tiny multiplies 32
 * factors of 2^-16 (64 would leave the double range). Then NaN in a lane
 * of each of those kinds, an infinite z in a coordinate of large z only,
 * and rows of tiny entries (every t below 2^-53, skipped) with a NaN.
 * The other kernels take their own kinds on the same data.
 */
static void test_pairs_wide(const char *name, rfx_bessel_pairs_fn *fn,
			    const gsl_rng *r)
{
	enum { NA = 37, NB = 83, N = 150 };
	static double A[NA * N], B[NB * N], out[NA * NB];
	double wg = 0.0, wp = 0.0;
	size_t i, j, l;
	int nan_ok = 1, inf_ok = 1, tiny_ok = 1;

	/*
	 * z = |a b| <= 1.04 * 23 < 24; B's rows 0 mod 4 are tiny, 1 mod 4
	 * near 23, so every tile of rows has both in every coordinate.
	 */
	for (i = 0; i < NA * N; i++)
		A[i] = (0.9 + 0.14 * gsl_rng_uniform(r)) * (i & 1 ? 1.0 : -1.0);
	for (j = 0; j < NB; j++)
		for (l = 0; l < N; l++)
			B[j * N + l] = j % 4 == 0 ? 1e-3 * (1.0 + 0.385 * (l % 5))
				     : j % 4 == 1 ? 22.9 + 0.1 * gsl_rng_uniform(r)
						  : 23.0 * gsl_rng_uniform(r);
	ok(check_pairs(fn, A, NA, B, NB, N, 1.0, out, &wg, &wp),
	   "%s: pairs: z up to 24 with tiny ones, %d coordinates", name, N);

	/* every z >= 16, but for every third coordinate (z from 10) */
	for (i = 0; i < NA * N; i++)
		A[i] = 1.0 + 0.3 * gsl_rng_uniform(r);
	for (j = 0; j < NB; j++)
		for (l = 0; l < N; l++)
			B[j * N + l] = (l % 3 ? 16.0 : 10.0) + 24.0 * gsl_rng_uniform(r);
	ok(check_pairs(fn, A, NA, B, NB, N, 1.0, out, &wg, &wp),
	   "%s: pairs: all z >= 16 (and > 8) over %d coordinates", name, N);
	diag("%s: wide pairs: max |error| / sum of max(1, log I0) = %.3g, "
	     "max relative difference from the per-call sums %.3g (n + 1)",
	     name, wg, wp);

	/*
	 * NaN in column 70 at a coordinate of z >= 16 (1), in column 71 at
	 * one from 10 (0), and in column 72 at one of the first kind (z up
	 * to 18 * 1.3 = 23.4, and tiny).
	 */
	B[70 * N + 1] = NAN;
	B[71 * N + 3] = NAN;
	for (j = 0; j < NB; j++)
		B[j * N + 7] = j % 4 == 0 ? 1e-3 : j % 4 == 1 ? 18.0 : 11.0;
	B[72 * N + 7] = NAN;
	fn(A, NA, B, NB, N, 1.0, out);
	for (i = 0; i < NA; i++)
		for (j = 0; j < NB; j++) {
			int want_nan = j >= 70 && j <= 72;

			nan_ok &= want_nan ? isnan(out[i * NB + j])
					   : isfinite(out[i * NB + j]);
		}
	ok(nan_ok, "%s: pairs: NaN in each wide kind reaches its column", name);
	B[70 * N + 1] = B[71 * N + 3] = 20.0;
	B[72 * N + 7] = 11.0;

	/*
	 * z = 1e200 * 1e200 = inf at a coordinate of z >= 16, and 1.5 *
	 * 1.3e308 = inf at one of z from 9 to 16 (the others of row 6 have
	 * z <= 1.5 * 34, of column 50 at most 1.3 * 1.3e308)
	 */
	A[4 * N + 2] = 1e200;
	B[30 * N + 2] = 1e200;
	A[6 * N + 3] = 1.5;
	B[50 * N + 3] = 1.3e308;
	B[0 * N + 3] = B[64 * N + 3] = 9.0;
	fn(A, NA, B, NB, N, 1.0, out);
	for (i = 0; i < NA; i++)
		for (j = 0; j < NB; j++) {
			int want_inf = (i == 4 && j == 30) || (i == 6 && j == 50);

			inf_ok &= want_inf ? out[i * NB + j] == HUGE_VAL
					   : isfinite(out[i * NB + j]);
		}
	ok(inf_ok, "%s: pairs: an infinite z among large ones gives +inf for "
	   "that pair only", name);

	/* rows of A of 1e-12: t <= 2^-53 everywhere, sums ~1e-22; a NaN stays */
	for (i = 0; i < NA * N; i++)
		A[i] = 1e-12 * (1.0 + gsl_rng_uniform(r));
	B[30 * N + 2] = B[50 * N + 3] = 20.0;
	B[60 * N + 9] = NAN;
	fn(A, NA, B, NB, N, 1.0, out);
	for (i = 0; i < NA; i++)
		for (j = 0; j < NB; j++) {
			double tol, want;

			if (j == 60) {
				tiny_ok &= isnan(out[i * NB + j]);
				continue;
			}
			want = ref_sum(A + i * N, B + j * N, 1.0, N, &tol);
			tiny_ok &= fabs(out[i * NB + j] - want) <= tol;
		}
	ok(tiny_ok, "%s: pairs: tiny z sum to ~0 as GSL's, and a NaN among "
	   "them reaches its column", name);
}

static void test_kernel_find(void)
{
	struct rfx_err err;
	rfx_bessel_sum_fn *fn = NULL;
	const char *name = rfx_bessel_kernel_name();
	double x = 2.385, one = 1.0;

	diag("kernel in use: %s", name);
	ok(rfx_bessel_kernel_find(name, &fn, NULL) == RFX_OK && fn &&
	   fn(&x, &one, 1.0, 1) == rfx_bessel_log_i0(x),
	   "the kernel in use can be found by name");

	rfx_err_clear(&err);
	ok(rfx_bessel_kernel_find("sse9", &fn, &err) == RFX_EINVAL &&
	   err.code == RFX_EINVAL && strstr(err.msg, "'sse9'") &&
	   strstr(err.msg, "generic"),
	   "unknown kernel: RFX_EINVAL naming it and the valid ones");
	diag("message: %s", err.msg);
	ok(rfx_bessel_kernel_find("sse9", &fn, NULL) == RFX_EINVAL,
	   "unknown kernel with err NULL");
	{
		rfx_bessel_pairs_fn *pfn = NULL;
		double a[4 * 2] = { 0.3, -1.2, 2.385, 0.0, 1.5, 4.0, -0.7, 9.0 };
		double b[16 * 2], got[4 * 16], want[4 * 16];
		int k, same = 1;

		for (k = 0; k < 32; k++)
			b[k] = 0.173 * (k % 13) - 0.9;
		ok(rfx_bessel_pairs_find(name, &pfn, NULL) == RFX_OK && pfn &&
		   rfx_bessel_pairs_find("sse9", &pfn, NULL) == RFX_EINVAL,
		   "the pairs kernel in use can be found by name, not 'sse9'");
		rfx_bessel_pairs_find(name, &pfn, NULL);
		pfn(a, 4, b, 16, 2, 1.5, want);
		rfx_bessel_sum_log_i0_pairs(a, 4, b, 16, 2, 1.5, got);
		for (k = 0; k < 64; k++)
			same &= got[k] == want[k];
		ok(same, "rfx_bessel_sum_log_i0_pairs runs that kernel");
	}
}

int main(void)
{
	gsl_rng *r;
	int i;

	gsl_set_error_handler_off();
	test_threads();

	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r) {
		diag("cannot allocate a gsl_rng");
		return 1;
	}
	gsl_rng_set(r, 2385);
	if (!long_double_extended()) {
		pairs_tol = PAIRS_TOL_DOUBLE;
		pairs_prod_tol = PAIRS_TOL_DOUBLE;
		diag("long double arithmetic is double here (valgrind?): "
		     "all-pairs bound %g", pairs_tol);
	}

	test_known();
	test_kernel_find();
	for (i = 0; kernel_names[i]; i++) {
		rfx_bessel_sum_fn *fn;
		struct rfx_err err;

		if (rfx_bessel_kernel_find(kernel_names[i], &fn, &err)) {
			ok(1, "%s # SKIP %s", kernel_names[i], err.msg);
			continue;
		}
		test_grid(kernel_names[i], fn);
		test_sums(kernel_names[i], fn, r);
	}
	for (i = 0; kernel_names[i]; i++) {
		rfx_bessel_pairs_fn *pfn;
		struct rfx_err err;

		if (rfx_bessel_pairs_find(kernel_names[i], &pfn, &err)) {
			ok(1, "%s pairs # SKIP %s", kernel_names[i], err.msg);
			continue;
		}
		test_pairs_grid(kernel_names[i], pfn);
		test_pairs(kernel_names[i], pfn, r);
		test_pairs_wide(kernel_names[i], pfn, r);
	}
	test_agree(r);
	test_rows(r);

	gsl_rng_free(r);
	return done_testing();
}

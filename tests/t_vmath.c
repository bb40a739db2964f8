/*
 * Tests of lib/num/vmath.c, every kernel this CPU runs: log against logl in
 * ulps, over 24 binades around 1, the whole range, subnormals and the
 * points next to 1 and to powers of 2; log(e^a - 1) and log(1 - e^a)
 * against their long double forms, in absolute error over max(1, |y|);
 * special values; the array tails (lengths not a multiple of 8) and in
 * place use; the shortcut for large arguments against the full
 * evaluation, bit for bit; the single-precision sin, cos and exp against
 * sinl, cosl and expl in float ulps; the error path of
 * rfx_vmath_kernel_find.
 */
#include "num/vmath.h"
#include "tap.h"

#include <math.h>
#include <string.h>

#define N 4099 /* odd, so that every call has a tail */

static const char *const kernel_names[] = { "generic", "avx2", "avx512", NULL };

/*
 * A bound in ulps by kernel: each test's comment derives its three. The
 * avx2 kernel's log-domain entries are the generic ones (vmath_x86.h),
 * whose bounds do not depend on the kernel.
 */
static double kbound(const struct rfx_vmath_kernel *k, double generic,
		     double avx2, double avx512)
{
	return !strcmp(k->name, "avx2") ? avx2
	       : !strcmp(k->name, "avx512") ? avx512 : generic;
}

/* 64-bit xorshift, for deterministic inputs (no GSL needed) */
static unsigned long long state = 0x2385bd9f1c3aULL;

static double uniform(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (double)(state >> 11) * (1.0 / 9007199254740992.0);
}

/* |got - want| in units of the last place of want (a double near it). */
static double ulps(double got, long double want)
{
	double w = (double)want;
	double u = nextafter(fabs(w), INFINITY) - fabs(w);

	if (got == w)
		return 0.0;
	return (double)(fabsl((long double)got - want) / u);
}

/*
 * Keeps the worst error seen and where: e and its argument x replace *w
 * and *wx when e is larger, or NaN (a NaN error must fail the bound).
 */
static void worse(double e, double x, double *w, double *wx)
{
	if (!(e <= *w)) {
		*w = e;
		*wx = x;
	}
}

static void test_log(const struct rfx_vmath_kernel *k)
{
	static double x[N], y[N];
	double worst = 0.0, wx = 0.0;
	int pass, i;

	for (pass = 0; pass < 6; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform();

			switch (pass) {
			case 0: x[i] = ldexp(1.0 + u, (int)(48 * uniform()) - 24); break;
			case 1: x[i] = exp((u - 0.5) * 1400.0); break;
			case 2: x[i] = 1.0 + (u - 0.5) * 1e-6; break;
			case 3: x[i] = ldexp(u, -1074 + (int)(50 * uniform())); break;
			case 4: x[i] = 0.5 + 1.5 * u; break;
			default: /* next to 1 and to powers of 2, both sides */
				x[i] = ldexp(1.0 + (i % 2 ? 1 : -1) * ldexp(1.0, -52 + i % 30) * (1 + i % 7),
					     i % 11 - 5);
			}
		}
		k->log(y, x, N);
		for (i = 0; i < N; i++) {
			double e = ulps(y[i], logl((long double)x[i]));

			worse(e, x[i], &worst, &wx);
		}
	}
	diag("%s: log within %.3g ulp (worst at x = %.17g)", k->name, worst, wx);
	ok(worst <= 1.5, "%s: log within 1.5 ulp of logl", k->name);
}

/* log(e^a - 1) and log(1 - e^a) in long double */
static long double ref_logexpm1(double a)
{
	return (long double)a + logl(-expm1l(-(long double)a));
}

static long double ref_log1mexp(double a)
{
	return logl(-expm1l((long double)a));
}

static void test_composites(const struct rfx_vmath_kernel *k)
{
	static double a[N], y[N];
	double w1 = 0.0, w2 = 0.0;
	int pass, i;

	/* the last pass keeps whole vectors on the AVX-512 kernel's middle way */
	for (pass = 0; pass < 6; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform();

			a[i] = pass == 0 ? u * 1e-12 : pass == 1 ? u : pass == 2 ? 5.0 * u
			     : pass == 3 ? 60.0 * u : pass == 4 ? 1e4 * u
			     : 3.5 + 34.0 * u;
		}
		k->logexpm1(y, a, N);
		for (i = 0; i < N; i++) {
			long double r = ref_logexpm1(a[i]);
			double m = fabsl(r) > 1.0L ? (double)fabsl(r) : 1.0;
			double e = (double)fabsl((long double)y[i] - r) / m;

			w1 = e > w1 ? e : w1;
		}
		for (i = 0; i < N; i++)
			a[i] = -a[i];
		k->log1mexp(y, a, N);
		for (i = 0; i < N; i++) {
			long double r = ref_log1mexp(a[i]);
			double m = fabsl(r) > 1.0L ? (double)fabsl(r) : 1.0;
			double e = (double)fabsl((long double)y[i] - r) / m;

			w2 = e > w2 ? e : w2;
		}
	}
	diag("%s: log(e^a - 1) within %.3g, log(1 - e^a) within %.3g, "
	     "times max(1, |y|)", k->name, w1, w2);
	ok(w1 <= 5e-16 && w2 <= 5e-16,
	   "%s: composites within 5e-16 max(1, |y|) of long double", k->name);
}

static void test_specials(const struct rfx_vmath_kernel *k)
{
	double x[7] = { 0.0, -0.0, -1.0, INFINITY, -INFINITY, NAN, 1.0 };
	double a[5] = { 0.0, INFINITY, NAN, 1e-300, 800.0 };
	double b[5] = { 0.0, -INFINITY, NAN, -1e-300, -800.0 };
	double y[7];

	k->log(y, x, 7);
	ok(y[0] == -HUGE_VAL && y[1] == -HUGE_VAL && isnan(y[2]) &&
	   y[3] == HUGE_VAL && isnan(y[4]) && isnan(y[5]) && y[6] == 0.0,
	   "%s: log of 0, -0, -1, inf, -inf, NaN, 1", k->name);
	k->logexpm1(y, a, 5);
	ok(y[0] == -HUGE_VAL && y[1] == HUGE_VAL && isnan(y[2]) &&
	   fabs(y[3] - log(1e-300)) < 1e-13 && y[4] == 800.0,
	   "%s: log(e^a - 1) at 0, inf, NaN, 1e-300, 800", k->name);
	k->log1mexp(y, b, 5);
	ok(y[0] == -HUGE_VAL && y[1] == 0.0 && isnan(y[2]) &&
	   fabs(y[3] - log(1e-300)) < 1e-13 && y[4] == 0.0,
	   "%s: log(1 - e^a) at 0, -inf, NaN, -1e-300, -800", k->name);
}

/*
 * Lengths 0..17 (every tail), in place and not, agree with a long call
 * (to rounding: the generic kernel's tails go through the scalar libm)
 * and write nothing past n.
 */
static void test_arrays(const struct rfx_vmath_kernel *k)
{
	static double a[N], y[N], z[N], full[N];
	int n, i, same = 1;

	for (i = 0; i < N; i++)
		a[i] = 60.0 * uniform();
	k->logexpm1(full, a, N);
	for (n = 0; n <= 17; n++) {
		for (i = 0; i < 20; i++)
			y[i] = z[i] = 12345.0;
		k->logexpm1(y, a, (size_t)n);
		memcpy(z, a, sizeof(double) * (size_t)n);
		k->logexpm1(z, z, (size_t)n);
		for (i = 0; i < n; i++) {
			double m = fabs(full[i]) > 1.0 ? fabs(full[i]) : 1.0;

			same &= fabs(y[i] - full[i]) <= 1e-15 * m &&
				fabs(z[i] - full[i]) <= 1e-15 * m;
		}
		for (i = n; i < 20; i++)
			same &= y[i] == 12345.0 && (i < n || z[i] == 12345.0);
	}
	ok(same, "%s: every tail length, in place too, and nothing written "
	   "past n", k->name);
}

/*
 * Arguments from 37.5 to 40, where the AVX-512 kernel skips the
 * evaluation for vectors of 8: the same values alone (so whole vectors
 * are skipped) and each among 7 small ones (so none is) come out the
 * same, bit for bit.
 */
static void test_shortcut(const struct rfx_vmath_kernel *k)
{
	enum { NS = 1024 };
	static double a[NS], mixed[8 * NS], y[NS], ym[8 * NS];
	int i, j, bits = 1;

	for (i = 0; i < NS; i++) {
		a[i] = 37.5 + 2.5 * i / NS;
		for (j = 0; j < 8; j++)
			mixed[8 * i + j] = j ? 1.0 : a[i];
	}
	k->logexpm1(y, a, NS);
	k->logexpm1(ym, mixed, 8 * NS);
	for (i = 0; i < NS; i++)
		bits &= memcmp(&y[i], &ym[8 * i], sizeof y[i]) == 0;
	for (i = 0; i < NS; i++) {
		a[i] = -a[i];
		mixed[8 * i] = a[i];
		for (j = 1; j < 8; j++)
			mixed[8 * i + j] = -1.0;
	}
	k->log1mexp(y, a, NS);
	k->log1mexp(ym, mixed, 8 * NS);
	for (i = 0; i < NS; i++)
		bits &= memcmp(&y[i], &ym[8 * i], sizeof y[i]) == 0;
	ok(bits, "%s: |a| from 37.5 to 40, alone or among small ones, bit for "
	   "bit the same", k->name);
}

/*
 * sin and cos against sinl and cosl in ulps, over the ranges of TrigRF's
 * projections and beyond: inside [-pi/4, pi/4], out to 2^20, the doubles
 * nearest to multiples of pi/2 (where sin or cos is near 0 and the
 * reduction is tested hardest) and their neighbours, far arguments that
 * the AVX-512 kernel hands to glibc, mixed with near ones in a vector,
 * and tiny ones. The bounds: generic, glibc's 4 ulp for libmvec's
 * functions (its manual's table of errors); avx512, 3 ulp: the reduced
 * argument r is rounded twice (an ulp of r), sin r can be a binade below
 * r (2 ulp of the result), the small part r^3 S(r^2) adds up to 0.4 and
 * the last addition rounds (0.5); at most 2.4 were seen over 4e7
 * arguments. avx2 computes the same operations on 4 lanes: the same 3.
 */
static void test_sincos(const struct rfx_vmath_kernel *k)
{
	static double x[N], s[N], c[N];
	const long double pio2 = 1.5707963267948966192313216916397514L;
	double ws = 0.0, wc = 0.0, wxs = 0.0, wxc = 0.0;
	double bound = kbound(k, 4.0, 3.0, 3.0);
	int pass, i;

	for (pass = 0; pass < 8; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform(), v = 2.0 * uniform() - 1.0;
			long double m = floorl(ldexpl(u, 19 - (i % 20)));

			switch (pass) {
			case 0: x[i] = 0.79 * v; break;
			case 1: x[i] = 10.0 * v; break;
			case 2: x[i] = 1e4 * v; break;
			case 3: x[i] = ldexp(v, 20); break;
			case 4: x[i] = (double)(m * pio2); break;
			case 5: x[i] = nextafter((double)(m * pio2),
						 i % 2 ? INFINITY : -INFINITY);
				break;
			case 6: x[i] = i % 3 ? 3.0 * v
				     : ldexp(v, 20 + (int)(1000 * uniform()));
				break;
			default: x[i] = ldexp(v, -(int)(1070 * uniform())); break;
			}
		}
		k->sincos(s, c, x, N);
		for (i = 0; i < N; i++) {
			double es = ulps(s[i], sinl((long double)x[i]));
			double ec = ulps(c[i], cosl((long double)x[i]));

			worse(es, x[i], &ws, &wxs);
			worse(ec, x[i], &wc, &wxc);
		}
	}
	diag("%s: sin within %.3g ulp (worst at x = %.17g), cos within %.3g "
	     "(at %.17g)", k->name, ws, wxs, wc, wxc);
	ok(ws <= bound && wc <= bound, "%s: sin and cos within %g ulp of sinl "
	   "and cosl", k->name, bound);
}

/*
 * sin and cos of +-0, +-inf and NaN; c in place over x; every tail, equal
 * to a long call to rounding (the generic kernel's tails are scalar). Two
 * of the arguments are past FAR, so that the lanes handed to glibc are
 * read before the vector results overwrite x, in a whole group of
 * vectors (the x86 kernels take several a step) and in the tail.
 */
static void test_sincos_edges(const struct rfx_vmath_kernel *k)
{
	double x[5] = { 0.0, -0.0, INFINITY, -INFINITY, NAN };
	double s[20], c[20], a[20], full_s[20], full_c[20];
	int n, i, ok_all = 1;

	k->sincos(s, c, x, 5);
	ok(s[0] == 0.0 && !signbit(s[0]) && s[1] == 0.0 && signbit(s[1]) &&
	   c[0] == 1.0 && c[1] == 1.0 && isnan(s[2]) && isnan(c[2]) &&
	   isnan(s[3]) && isnan(c[3]) && isnan(s[4]) && isnan(c[4]),
	   "%s: sin and cos of 0, -0, inf, -inf, NaN", k->name);
	for (i = 0; i < 20; i++)
		a[i] = 40.0 * uniform() - 20.0;
	a[3] = 3.0e6;
	a[13] = -7.5e8;
	k->sincos(full_s, full_c, a, 17);
	for (n = 0; n <= 17; n++) {
		double y[20];

		for (i = 0; i < 20; i++)
			s[i] = c[i] = 12345.0;
		memcpy(y, a, sizeof y);
		k->sincos(s, y, y, (size_t)n);
		for (i = 0; i < n; i++)
			ok_all &= fabs(s[i] - full_s[i]) <= 1e-15 &&
				  fabs(y[i] - full_c[i]) <= 1e-15;
		for (i = n; i < 20; i++)
			ok_all &= s[i] == 12345.0 && y[i] == a[i];
	}
	ok(ok_all, "%s: sincos in place (c = x), every tail length, nothing "
	   "written past n", k->name);
}

/*
 * sin is odd and cos even bit for bit, in both precisions (libmvec's cos
 * is not: the generic kernel works on |x|): lib/est/featmap.c and
 * featmap32.c make the conjugate side's features from the negated
 * projections. Over the reduction's ranges: small, moderate, near
 * multiples of pi/2, past 2^20 (glibc's scalar functions) and huge.
 */
#define SYM_N 4096
static void test_sincos_symmetry(const struct rfx_vmath_kernel *k)
{
	static double x[SYM_N], nx[SYM_N], s[SYM_N], c[SYM_N], ns[SYM_N], nc[SYM_N];
	static const double scale[6] = { 1e-3, 40.0, 1e6, 3e9, 1e22, 1.0 };
	int i, bad = 0;

	for (i = 0; i < SYM_N; i++) {
		double u = uniform() - 0.5;

		x[i] = i % 6 == 5 ? (double)(i / 6) * 1.5707963267948966 : u * scale[i % 6];
		nx[i] = -x[i];
	}
	k->sincos(s, c, x, SYM_N);
	k->sincos(ns, nc, nx, SYM_N);
	for (i = 0; i < SYM_N; i++) {
		double m = -s[i];

		bad += memcmp(&m, &ns[i], sizeof m) != 0 ||
		       memcmp(&c[i], &nc[i], sizeof m) != 0;
	}
	ok(bad == 0, "%s: sin(-x) = -sin x and cos(-x) = cos x bit for bit "
	   "(%d of %d differ)", k->name, bad, SYM_N);
	{
		static float xf[SYM_N], nxf[SYM_N], sf[SYM_N], cf[SYM_N],
			nsf[SYM_N], ncf[SYM_N];

		for (i = 0; i < SYM_N; i++) {
			xf[i] = (float)x[i];
			nxf[i] = -xf[i];
		}
		k->sincosf(sf, cf, xf, SYM_N);
		k->sincosf(nsf, ncf, nxf, SYM_N);
		for (i = bad = 0; i < SYM_N; i++) {
			float m = -sf[i];

			bad += memcmp(&m, &nsf[i], sizeof m) != 0 ||
			       memcmp(&cf[i], &ncf[i], sizeof m) != 0;
		}
		ok(bad == 0, "%s: sinf odd and cosf even bit for bit (%d of "
		   "%d differ)", k->name, bad, SYM_N);
	}
}

/*
 * exp(x - m) against expl in ulps (of the subnormal grid below DBL_MIN),
 * from the subnormals (x - m down to -745) to the top of the range, with
 * a shift m that is not a power of 2. The bounds: generic, libmvec's 4
 * ulp (its subnormals come from exp(u + 708) e^-708: three roundings, a
 * few ulp of a normal number, at most about 3 of the subnormal grid);
 * avx512, 1 ulp: 2^(j/16) is in the table in two parts (its error is
 * below 2^-64), r is within 2^-60 of its value, the Taylor series' own
 * error is below 2^-59, hi (e^r - 1) + lo rounds at 2^-6 of an ulp and
 * the last sum at half an ulp; 2^k is exact but for one more rounding
 * into the subnormals. A vector with a lane in the subnormal band takes
 * another way (vexp_low); its other lanes must keep their bits. avx2,
 * 1.25 ulp: e^r = 1 + (r + r^2 q(r)) on |r| <= log(2)/2, whose last sum
 * rounds at half an ulp, the sum before it at a quarter (|r + r^2 q| <
 * 0.42, so its ulp is at most a quarter of e^r's), r's one rounding
 * moves e^r by at most a quarter ulp and the series' own error is below
 * 2^-57; 2^k is exact, and the subnormal band is glibc's exp (0.5 ulp).
 */
static void test_exp_shift(const struct rfx_vmath_kernel *k)
{
	static double x[N], y[N], z[N];
	const double m = 3.25;
	double worst = 0.0, wx = 0.0, bound = kbound(k, 4.0, 1.25, 1.0);
	int pass, i, specials;

	for (pass = 0; pass < 5; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform();

			x[i] = m + (pass == 0 ? 2.0 * u - 1.0 : pass == 1 ? 100.0 * u - 50.0
				    : pass == 2 ? 1417.0 * u - 708.0
				    : pass == 3 ? -708.0 - 37.1 * u
				    : -30.0 * u);
		}
		k->exp_shift(y, x, m, N);
		for (i = 0; i < N; i++) {
			double e = ulps(y[i], expl((long double)(x[i] - m)));

			worse(e, x[i] - m, &worst, &wx);
		}
	}
	diag("%s: exp within %.3g ulp (worst at x - m = %.17g)", k->name, worst, wx);
	ok(worst <= bound, "%s: exp(x - m) within %g ulp of expl", k->name, bound);

	x[0] = -INFINITY; x[1] = INFINITY; x[2] = NAN; x[3] = 710.0 + m;
	x[4] = -746.0 + m; x[5] = m; x[6] = -1e300; x[7] = 1e300; x[8] = -800.0;
	k->exp_shift(y, x, m, 9);
	specials = y[0] == 0.0 && y[1] == HUGE_VAL && isnan(y[2]) &&
		   y[3] == HUGE_VAL && y[4] == 0.0 && y[5] == 1.0 && y[6] == 0.0 &&
		   y[7] == HUGE_VAL && y[8] == 0.0;
	ok(specials, "%s: exp of -inf, inf, NaN, 710, -746, 0, -1e300, 1e300, "
	   "-800 (shifted)", k->name);

	/* every tail length against a long call, nothing written past n */
	for (i = 0; i < 20; i++)
		x[i] = 40.0 * uniform() - 35.0;
	k->exp_shift(z, x, m, 17);
	specials = 1;
	for (pass = 0; pass <= 17; pass++) {
		for (i = 0; i < 20; i++)
			y[i] = 12345.0;
		k->exp_shift(y, x, m, (size_t)pass);
		for (i = 0; i < pass; i++)
			specials &= fabs(y[i] - z[i]) <= 1e-15 * z[i];
		for (i = pass; i < 20; i++)
			specials &= y[i] == 12345.0;
	}
	ok(specials, "%s: exp every tail length, nothing written past n", k->name);

	/*
	 * a lane in the subnormal band (-720) or below it (-800) in every
	 * other group of 8 leaves the rest alone
	 */
	for (i = 0; i < 64; i++)
		x[i] = 60.0 * uniform() - 50.0 + m;
	k->exp_shift(z, x, m, 64);
	for (i = 0; i < 64; i += 16)
		x[i + 3] = (i % 32 ? -800.0 : -720.0) + m;
	k->exp_shift(y, x, m, 64);
	specials = 1;
	for (i = 0; i < 64; i++)
		specials &= i % 16 == 3 ? fabsl(y[i] - expl(x[i] - m)) <= 0x1p-1074L
					: memcmp(&y[i], &z[i], sizeof y[i]) == 0;
	ok(specials, "%s: exp's other lanes keep their bits beside one below "
	   "the normal range", k->name);

	/*
	 * runs of 16 and 32 lanes all below e^-745.2 (the avx2 kernel's
	 * groups: it skips the series there) beside ordinary ones and a run
	 * with one NaN: +0 exactly, and the rest the bits of a call without
	 * them
	 */
	for (i = 0; i < 96; i++)
		x[i] = 60.0 * uniform() - 50.0 + m;
	k->exp_shift(z, x, m, 96);
	for (i = 16; i < 64; i++)
		x[i] = (i % 3 ? -800.0 - 1e3 * uniform() : i % 2 ? -INFINITY
			: -745.3) + m;
	for (i = 80; i < 96; i++)
		x[i] = -900.0 + m;
	x[90] = NAN;
	k->exp_shift(y, x, m, 96);
	specials = 1;
	for (i = 0; i < 96; i++) {
		const double pz = 0.0;

		specials &= i == 90 ? isnan(y[i])
			    : (i >= 16 && i < 64) || i >= 80
			    ? memcmp(&y[i], &pz, sizeof pz) == 0
			    : memcmp(&y[i], &z[i], sizeof y[i]) == 0;
	}
	ok(specials, "%s: exp of runs below e^-745.2 is +0, a NaN among them "
	   "NaN, and the other lanes keep their bits", k->name);
}

/* |got - want| in units of the last place of want as a float. */
static double ulpsf(float got, long double want)
{
	float w = (float)want;
	double u = (double)(nextafterf(fabsf(w), INFINITY) - fabsf(w));

	if (got == w)
		return 0.0;
	return (double)(fabsl((long double)got - want) / u);
}

/*
 * The single-precision sin and cos against sinl and cosl, in float ulps,
 * on the same kinds of arguments as test_sincos (up to the fast path's
 * 2^16 and beyond it, next to multiples of pi/2, tiny). Bounds: generic,
 * libmvec's 4 ulp; avx512, 2: r is within about an ulp of itself (two
 * roundings after the exact first step), the polynomials' own errors are
 * below 0.25 ulp and the last operations round, as in the double kernel;
 * avx2, the same operations on 8 lanes: 2.
 */

/*
 * Whether kernel k's streaming functions SC_NT and EX_NT give the values
 * of the plain SC (sin and cos) and EX (exp shifted) bit for bit, on
 * 64-byte lines and off them, for tails of every length near N: in a
 * block with i, pass, spec and k in scope.
 */
#define NT_SAME(T, SC, SC_NT, EX, EX_NT)				\
	do {								\
		static T a[N + 16] __attribute__((aligned(64)));	\
		static T s1[N + 16] __attribute__((aligned(64)));	\
		static T c1[N + 16] __attribute__((aligned(64)));	\
		static T s2[N + 16] __attribute__((aligned(64)));	\
		static T c2[N + 16] __attribute__((aligned(64)));	\
		int off;						\
									\
		spec = 1;						\
		for (i = 0; i < N + 16; i++)				\
			a[i] = (T)(60.0 * uniform() - 30.0);		\
		for (off = 0; off < 2; off++)				\
			for (pass = N - 40; pass <= N; pass += 13) {	\
				size_t nb = (size_t)pass * sizeof(T);	\
									\
				k->SC(s1 + off, c1 + off, a, (size_t)pass); \
				k->SC_NT(s2 + off, c2 + off, a, (size_t)pass); \
				rfx_vmath_nt_fence();			\
				spec &= !memcmp(s1 + off, s2 + off, nb) && \
					!memcmp(c1 + off, c2 + off, nb); \
				k->EX(s1 + off, a, (T)2.5, (size_t)pass); \
				k->EX_NT(s2 + off, a, (T)2.5, (size_t)pass); \
				rfx_vmath_nt_fence();			\
				spec &= !memcmp(s1 + off, s2 + off, nb); \
			}						\
		ok(spec, "%s: " #SC_NT " and " #EX_NT " give the plain " \
		   "functions' values, aligned or not", k->name);	\
	} while (0)

static void test_sincosf(const struct rfx_vmath_kernel *k)
{
	static float x[N], s[N], c[N];
	const long double pio2 = 1.5707963267948966192313216916397514L;
	double ws = 0.0, wc = 0.0, wxs = 0.0, wxc = 0.0;
	double bound = kbound(k, 4.0, 2.0, 2.0);
	int pass, i, spec;
	float z[5] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN }, zs[5], zc[5];

	for (pass = 0; pass < 8; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform(), v = 2.0 * uniform() - 1.0;
			long double m = floorl(ldexpl(u, 16 - (i % 17)));

			switch (pass) {
			case 0: x[i] = (float)(0.79 * v); break;
			case 1: x[i] = (float)(10.0 * v); break;
			case 2: x[i] = (float)(1e4 * v); break;
			case 3: x[i] = (float)ldexp(v, 16); break;
			case 4: x[i] = (float)(m * pio2); break;
			case 5: x[i] = nextafterf((float)(m * pio2),
						  i % 2 ? INFINITY : -INFINITY);
				break;
			case 6: x[i] = (float)(i % 3 ? 3.0 * v
					       : ldexp(v, 16 + (int)(100 * uniform())));
				break;
			default: x[i] = (float)ldexp(v, -(int)(140 * uniform())); break;
			}
		}
		k->sincosf(s, c, x, N);
		for (i = 0; i < N; i++) {
			double es = ulpsf(s[i], sinl((long double)x[i]));
			double ec = ulpsf(c[i], cosl((long double)x[i]));

			worse(es, x[i], &ws, &wxs);
			worse(ec, x[i], &wc, &wxc);
		}
	}
	diag("%s: sinf within %.3g ulp (worst at x = %.9g), cosf within %.3g "
	     "(at %.9g)", k->name, ws, wxs, wc, wxc);
	ok(ws <= bound && wc <= bound, "%s: sinf and cosf within %g ulp of "
	   "sinl and cosl", k->name, bound);
	k->sincosf(zs, zc, z, 5);
	spec = zs[0] == 0.0f && !signbit(zs[0]) && zs[1] == 0.0f &&
	       signbit(zs[1]) && zc[0] == 1.0f && zc[1] == 1.0f;
	for (i = 2; i < 5; i++)
		spec &= isnan(zs[i]) && isnan(zc[i]);
	ok(spec, "%s: sinf and cosf of 0, -0, inf, -inf, NaN", k->name);
	/*
	 * every tail of 33, in place (c = x), nothing written past n; equal
	 * to the long call within 1e-6 (the generic kernel's tails are
	 * scalar calls); two arguments past FAR, as in test_sincos_edges
	 */
	for (i = 0; i < 40; i++)
		x[i] = (float)(40.0 * uniform() - 20.0);
	x[5] = 1.0e5f;
	x[26] = -3.0e6f;
	k->sincosf(s + 100, c + 100, x, 33);
	spec = 1;
	for (pass = 0; pass <= 33; pass++) {
		float y[40];

		for (i = 0; i < 40; i++)
			s[i] = 12345.0f;
		memcpy(y, x, sizeof y);
		k->sincosf(s, y, y, (size_t)pass);
		for (i = 0; i < pass; i++)
			spec &= fabsf(s[i] - s[100 + i]) <= 1e-6f &&
				fabsf(y[i] - c[100 + i]) <= 1e-6f;
		for (i = pass; i < 40; i++)
			spec &= s[i] == 12345.0f && y[i] == x[i];
	}
	ok(spec, "%s: sincosf in place, every tail length, nothing written "
	   "past n", k->name);
	/* streaming stores: the same values, on lines or not, every tail */
	NT_SAME(float, sincosf, sincosf_nt, expf_shift, expf_shift_nt);
	NT_SAME(double, sincos, sincos_nt, exp_shift, exp_shift_nt);
}

/*
 * expf(x - m) against expl in float ulps over the normal range, with m
 * not a power of 2; 0 below -87.33 (the flushed subnormals), +inf above
 * 88.73, specials, tails. Bounds: avx512 1.5 ulp (the two FMAs make r
 * within an ulp of r, q's error is 0.18 ulp, the + 1 rounds; 2^k exact);
 * avx2 the same (its 2^k, two exact factors); generic, libmvec's 4. Note x - m itself is rounded to float first: the
 * reference is expl of the float difference.
 */
static void test_expf_shift(const struct rfx_vmath_kernel *k)
{
	static float x[N], y[N], z[N];
	const float m = 3.25f;
	double worst = 0.0, wx = 0.0;
	double bound = kbound(k, 4.0, 1.5, 1.5);
	int pass, i, spec;

	for (pass = 0; pass < 4; pass++) {
		for (i = 0; i < N; i++) {
			double u = uniform();

			x[i] = m + (float)(pass == 0 ? 2.0 * u - 1.0
					   : pass == 1 ? 100.0 * u - 50.0
					   : pass == 2 ? 176.0 * u - 87.3
					   : -30.0 * u);
		}
		k->expf_shift(y, x, m, N);
		for (i = 0; i < N; i++) {
			float d = x[i] - m;
			double e;

			if (d < -87.33f)
				continue;
			e = ulpsf(y[i], expl((long double)d));
			worse(e, d, &worst, &wx);
		}
	}
	diag("%s: expf within %.3g ulp (worst at x - m = %.9g)", k->name, worst, wx);
	ok(worst <= bound, "%s: expf(x - m) within %g ulp of expl", k->name, bound);

	x[0] = -INFINITY; x[1] = INFINITY; x[2] = NAN; x[3] = 88.73f + m;
	x[4] = -87.34f + m; x[5] = m; x[6] = -1e30f; x[7] = 1e30f; x[8] = -100.0f + m;
	k->expf_shift(y, x, m, 9);
	spec = y[0] == 0.0f && y[1] == HUGE_VALF && isnan(y[2]) &&
	       y[3] == HUGE_VALF && y[4] == 0.0f && y[5] == 1.0f && y[6] == 0.0f &&
	       y[7] == HUGE_VALF && y[8] == 0.0f;
	ok(spec, "%s: expf of -inf, inf, NaN, 88.73, -87.34, 0, -1e30, 1e30, "
	   "-100 (shifted)", k->name);
	for (i = 0; i < 40; i++)
		x[i] = (float)(40.0 * uniform() - 35.0);
	k->expf_shift(z, x, m, 33);
	spec = 1;
	for (pass = 0; pass <= 33; pass++) {
		for (i = 0; i < 40; i++)
			y[i] = 12345.0f;
		k->expf_shift(y, x, m, (size_t)pass);
		for (i = 0; i < pass; i++)
			spec &= fabsf(y[i] - z[i]) <= 1e-6f * z[i];
		for (i = pass; i < 40; i++)
			spec &= y[i] == 12345.0f;
	}
	ok(spec, "%s: expf every tail length, nothing written past n", k->name);
}

int main(void)
{
	struct rfx_vmath_kernel k;
	struct rfx_err err;
	int i, found = 0;

	diag("kernel in use: %s", rfx_vmath_kernel_name());
	for (i = 0; kernel_names[i]; i++) {
		rfx_err_clear(&err);
		if (rfx_vmath_kernel_find(kernel_names[i], &k, &err)) {
			diag("skipped: %s", err.msg);
			continue;
		}
		found++;
		test_log(&k);
		test_composites(&k);
		test_specials(&k);
		test_arrays(&k);
		test_shortcut(&k);
		test_sincos(&k);
		test_sincos_edges(&k);
		test_sincos_symmetry(&k);
		test_exp_shift(&k);
		test_sincosf(&k);
		test_expf_shift(&k);
	}
	ok(found >= 1, "the generic kernel always runs");
	rfx_err_clear(&err);
	ok(rfx_vmath_kernel_find("sse9", &k, &err) == RFX_EINVAL &&
	   err.code == RFX_EINVAL && strstr(err.msg, "'sse9'"),
	   "unknown kernel: RFX_EINVAL naming it");
	return done_testing();
}

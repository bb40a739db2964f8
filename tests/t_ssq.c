/*
 * Tests of lib/num/ssq.c, sums of squares scaled by a power of 2. The
 * expectations come from two facts, not from the module's output:
 * scaling by 2^k is exact in binary floating point, so in range the
 * result must be the bits of the plain two-pass sum written out below,
 * and out of range it must be 2^k times the in-range result of the
 * same data scaled back; and small cases worked by hand (the sd of
 * 1, 2, 3, 4 is sqrt(5/3); ilogb(8) = 3).
 */
#include <limits.h>
#include <math.h>

#include "num/ssq.h"
#include "tap.h"

/* the plain two-pass sd, in range only */
static double plain_sd(const double *x, size_t n, double m)
{
	double s = 0.0;
	size_t k;

	for (k = 0; k < n; k++)
		s += (x[k] - m) * (x[k] - m);
	return sqrt(s / (double)(n - 1));
}

static double mean_of(const double *x, size_t n)
{
	double s = 0.0;
	size_t k;

	for (k = 0; k < n; k++)
		s += x[k];
	return s / (double)n;
}

static void test_by_hand(void)
{
	const double x[] = { 1, 2, 3, 4 }, a[] = { 3, -8, 0.5 };
	const double b[] = { 1, 1, 1 }, z[] = { 0, 0, 0 };

	is_approx(rfx_ssq_sd(x, 4, 2.5), sqrt(5.0 / 3.0), TEST_TOL0,
		  "sd of 1, 2, 3, 4 is sqrt(5/3)");
	ok(rfx_ssq_exp(a, NULL, 0.0, 3) == 3, "exponent of max |(3, -8, 0.5)| = 8 is 3");
	ok(rfx_ssq_exp(a, b, 0.0, 3) == 3, "exponent of max |a - b| = 9 is 3");
	ok(rfx_ssq_exp(a, NULL, 3.0, 3) == 3, "exponent of max |a - 3| = 11 is 3");
	ok(rfx_ssq_scaled(a, b, 0.0, 3, 3) == (4.0 + 81.0 + 0.25) / 64.0,
	   "sum of ((a - b)/8)^2 = 85.25/64 exactly");
	ok(rfx_ssq_exp(z, NULL, 0.0, 3) == INT_MIN, "all zero: INT_MIN");
	ok(rfx_ssq_exp(a, a, 0.0, 3) == INT_MIN, "a - a: INT_MIN");
	ok(rfx_ssq_exp(a, NULL, 0.0, 0) == INT_MIN, "n = 0: INT_MIN");
	ok(rfx_ssq_scaled(a, NULL, 0.0, 3, INT_MIN) == 0.0, "e = INT_MIN sums to 0");
	ok(rfx_ssq_sd(x, 1, 1.0) == 0.0, "sd of one value is 0");
	ok(rfx_ssq_sd(z, 3, 0.0) == 0.0, "sd of equal values is 0");
}

/* In range: the plain sum's bits, as the scaling is exact. */
static void test_in_range(void)
{
	double x[7];
	size_t k;
	int same = 1, c;

	for (c = 0; c < 50; c++) {
		double m;

		for (k = 0; k < 7; k++)
			x[k] = sin(1.0 + (double)(c * 7 + k)) * pow(10.0, (double)(c % 9 - 4));
		m = mean_of(x, 7);
		same &= rfx_ssq_sd(x, 7, m) == plain_sd(x, 7, m);
	}
	ok(same, "in range the sd is the plain two-pass sd, bit for bit (50 sets)");
}

/*
 * Out of range: the data times 2^k for k = +-1000 has sd exactly 2^k
 * times the sd of the data, where the plain squares overflow (1e301^2)
 * or underflow (1e-301^2 below the smallest subnormal).
 */
static void test_out_of_range(void)
{
	const double x[] = { 0.3, -1.7, 2.2, 0.9, -0.4 };
	const int ks[] = { 1000, -1000, 1020, -1060 };
	double y[5], sd0 = plain_sd(x, 5, mean_of(x, 5));
	size_t k;
	int j;

	for (j = 0; j < 4; j++) {
		double got;

		for (k = 0; k < 5; k++)
			y[k] = ldexp(x[k], ks[j]);
		got = rfx_ssq_sd(y, 5, mean_of(y, 5));
		if (ks[j] >= -1000)
			ok(got == ldexp(sd0, ks[j]), "sd of x 2^%d is sd(x) 2^%d exactly", ks[j], ks[j]);
		else /* the data themselves are subnormal: a few bits lost */
			is_approx(ldexp(got, -ks[j]), sd0, 1e-3,
				  "sd of x 2^%d (subnormal) is sd(x) 2^%d", ks[j], ks[j]);
	}
	/* a sum of n squares near the top: each scaled square is below 4 */
	for (k = 0; k < 5; k++)
		y[k] = k % 2 ? -1.5e308 : 1.5e308;
	ok(isfinite(rfx_ssq_sd(y, 5, 0.0)), "values of 1.5e308 about 0: finite sd");
	is_approx(rfx_ssq_sd(y, 5, 0.0), 1.5e308 * sqrt(5.0 / 4.0), TEST_TOL1,
		  "values of +-1.5e308 about 0: sd 1.5e308 sqrt(5/4)");
}

/* Non-finite values propagate as in the plain sum. */
static void test_nonfinite(void)
{
	const double xi[] = { 1.0, INFINITY, 2.0 }, xn[] = { 1.0, NAN, 2.0 };
	const double nn[] = { NAN, NAN };

	ok(isinf(rfx_ssq_sd(xi, 3, 1.0)), "an infinite value about a finite mean: inf");
	ok(isnan(rfx_ssq_sd(xn, 3, 1.5)), "a NaN value: NaN");
	ok(isnan(rfx_ssq_sd(nn, 2, NAN)), "all NaN (NaN mean): NaN, not 0");
	ok(rfx_ssq_exp(xi, NULL, 0.0, 3) == 0, "an infinite difference: exponent 0");
	ok(rfx_ssq_exp(xn, NULL, 0.0, 3) == 0, "a NaN difference: exponent 0");
}

int main(void)
{
	test_by_hand();
	test_in_range();
	test_out_of_range();
	test_nonfinite();
	return done_testing();
}

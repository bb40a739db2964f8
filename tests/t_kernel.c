/*
 * The Gaussian and softmax kernels and the map between them (lib/num/kernel.h):
 * values on vectors worked out by hand, the conversions of K and of a
 * variance in both directions, and log K for points 1e-9 apart, where the
 * expanded |x|^2 + |y|^2 - 2 x.y has no correct digit left.
 */
#include <math.h>

#include "tap.h"
#include "num/kernel.h"

/*
 * x = (1, 2, -1), y = (0.5, -1, 3), by hand:
 *   x - y = (0.5, 3, -4), |x - y|^2 = 0.25 + 9 + 16 = 25.25, log K = -12.625
 *   x.y = 0.5 - 2 - 3 = -4.5
 *   |x|^2 = 6, |y|^2 = 10.25, so log K + (|x|^2 + |y|^2)/2 = -12.625 + 8.125
 *   = -4.5 = x.y, as K = e^{-|x|^2/2} SM e^{-|y|^2/2} requires.
 */
static const double xa[3] = { 1.0, 2.0, -1.0 };
static const double ya[3] = { 0.5, -1.0, 3.0 };

static void test_values(void)
{
	static const double z[4] = { 0.0, 0.0, 0.0, 0.0 };
	static const double u[4] = { 3.0, 0.0, -4.0, 0.0 };

	is_approx(rfx_kernel_gauss_log(xa, ya, 3), -12.625, TEST_TOL0,
		  "log K(x, y) = -|x - y|^2/2 = -12.625 by hand");
	is_approx(rfx_kernel_softmax_log(xa, ya, 3), -4.5, TEST_TOL0,
		  "log SM(x, y) = x.y = -4.5 by hand");
	is_approx(rfx_kernel_gauss_log(ya, xa, 3), -12.625, TEST_TOL0,
		  "K is symmetric");
	ok(rfx_kernel_gauss_log(xa, xa, 3) == 0.0, "K(x, x) = 1 exactly");
	/* |u|^2 = 25: K(0, u) = e^{-12.5}, SM(0, u) = 1. */
	is_approx(rfx_kernel_gauss_log(z, u, 4), -12.5, TEST_TOL0,
		  "K(0, u) = exp(-|u|^2/2) for |u| = 5");
	ok(rfx_kernel_softmax_log(z, u, 4) == 0.0, "SM(0, u) = 1");
	is_approx(rfx_kernel_softmax_log(u, u, 4), 25.0, TEST_TOL0,
		  "SM(u, u) = exp(|u|^2)");
	/* d = 1: K(2, -1.5) = exp(-3.5^2/2) = exp(-6.125). */
	{
		double a = 2.0, b = -1.5;

		is_approx(rfx_kernel_gauss_log(&a, &b, 1), -6.125, TEST_TOL0,
			  "d = 1: log K(2, -1.5) = -6.125");
		is_approx(rfx_kernel_softmax_log(&a, &b, 1), -3.0, TEST_TOL0,
			  "d = 1: log SM(2, -1.5) = -3");
	}
}

static void test_conversions(void)
{
	double xx = 6.0, yy = 10.25;
	double lk = rfx_kernel_gauss_log(xa, ya, 3);
	double lsm = rfx_kernel_softmax_log(xa, ya, 3);

	is_approx(rfx_kernel_gauss_to_softmax_log(-12.625, xx, yy), -4.5,
		  TEST_TOL0, "Gaussian to softmax: -12.625 + (6 + 10.25)/2 = -4.5");
	is_approx(rfx_kernel_softmax_to_gauss_log(-4.5, xx, yy), -12.625,
		  TEST_TOL0, "softmax to Gaussian: -4.5 - 8.125 = -12.625");
	is_approx(rfx_kernel_gauss_to_softmax_log(lk, xx, yy), lsm, TEST_TOL1,
		  "converted K equals the directly computed SM");
	is_approx(rfx_kernel_softmax_to_gauss_log(lsm, xx, yy), lk, TEST_TOL1,
		  "converted SM equals the directly computed K");
	/* Variances scale with the square of the factor e^{(|x|^2+|y|^2)/2}. */
	is_approx(rfx_kernel_var_gauss_to_softmax_log(-3.0, xx, yy), 13.25,
		  TEST_TOL0, "Var_SM = e^{|x|^2+|y|^2} Var_K: -3 + 16.25 = 13.25");
	is_approx(rfx_kernel_var_softmax_to_gauss_log(13.25, xx, yy), -3.0,
		  TEST_TOL0, "Var_K = e^{-(|x|^2+|y|^2)} Var_SM: 13.25 - 16.25 = -3");
	is_approx(rfx_kernel_var_softmax_to_gauss_log(
			  rfx_kernel_var_gauss_to_softmax_log(-700.5, 300.0, 450.0),
			  300.0, 450.0),
		  -700.5, TEST_TOL0, "variance conversion round trip far out of range");

	/*
	 * A concrete estimator, PosRF (thesis eq. 4.4), whose two variances
	 * are derived independently:
	 *   K estimator  exp(w.x - |x|^2) exp(w.y - |y|^2):
	 *     Var_K = e^{4 x.y} - K^2
	 *   SM estimator exp(w.x - |x|^2/2) exp(w.y - |y|^2/2), E exp(2 w.v)
	 *     = e^{2|v|^2}:  Var_SM = e^{2|x+y|^2 - |x|^2 - |y|^2} - SM^2
	 *     = e^{|x|^2 + |y|^2 + 4 x.y} - e^{2 x.y}.
	 * For the small pair below both are ordinary doubles.
	 */
	{
		static const double x[2] = { 0.3, -0.2 }, y[2] = { 0.1, 0.4 };
		double sx = 0.13, sy = 0.17, xy = 0.03 - 0.08;
		double K = exp(rfx_kernel_gauss_log(x, y, 2));
		double var_k = exp(4 * xy) - K * K;
		double var_sm = exp(sx + sy + 4 * xy) - exp(2 * xy);

		is_approx(rfx_kernel_var_gauss_to_softmax_log(log(var_k), sx, sy),
			  log(var_sm), TEST_TOL3,
			  "PosRF: Var_K converts to the separately derived Var_SM");
		is_approx(rfx_kernel_var_softmax_to_gauss_log(log(var_sm), sx, sy),
			  log(var_k), TEST_TOL3,
			  "PosRF: Var_SM converts back to Var_K");
	}
}

/*
 * Points 2^-30 apart at |x| ~ 2.8 (|x - y| / |x| ~ 4e-10). The offsets are
 * powers of two far above the ulp of x, so y = x + delta is exact and
 *   |x - y|^2 = 2^-60 + 2^-62 + 9 * 2^-64 = 29 * 2^-64,
 *   log K = -29 * 2^-65 = -7.86e-19, exactly representable.
 * The expanded form |x|^2 + |y|^2 - 2 x.y rounds at ~1e-15 and would give
 * 0 or a wrong value with no correct digit; the test wants the exact one.
 */
static void test_close_points(void)
{
	static const double x[3] = { 1.5, -2.25, 0.75 };
	double y[3], want = -29.0 * ldexp(1.0, -65), expanded, xx = 0, yy = 0,
		     xy = 0;
	int l;

	y[0] = x[0] + ldexp(1.0, -30);
	y[1] = x[1] - ldexp(1.0, -31);
	y[2] = x[2] + 3.0 * ldexp(1.0, -32);
	ok(y[0] - x[0] == ldexp(1.0, -30) && x[1] - y[1] == ldexp(1.0, -31) &&
		   y[2] - x[2] == 3.0 * ldexp(1.0, -32),
	   "the offsets are exact (the test's premise)");
	is_approx(rfx_kernel_gauss_log(x, y, 3) / want, 1.0, TEST_TOL1,
		  "log K of points 4e-10 |x| apart: -29 * 2^-65 to full relative precision");
	for (l = 0; l < 3; l++) {
		xx += x[l] * x[l];
		yy += y[l] * y[l];
		xy += x[l] * y[l];
	}
	expanded = -0.5 * (xx + yy - 2 * xy);
	ok(fabs(expanded / want - 1.0) > 1e-3,
	   "premise: the expanded form would be wrong here (%.3g vs %.3g)", expanded, want);
}

int main(void)
{
	test_values();
	test_conversions();
	test_close_points();
	return done_testing();
}

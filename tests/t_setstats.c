/*
 * Set statistics (lib/num/setstats.h): the O((L + L') d) statistics of thesis
 * eqs. 6.15, 6.18 and 6.20 against brute-force O(L L' d) means over every
 * pair (x_i, y_j), for sets of different sizes, with and without a shift;
 * the coordinate minimum; the error paths.
 *
 * Eq. 6.20 is printed with a factor L/L' in front of
 * (sum_i |x_il|)(sum_j |y_jl|); the brute-force mean over pairs below is
 * the definition (1/(L L')) sum_i sum_j |x_il y_jl|, which factorises to
 * (1/(L L')) (sum_i |x_il|)(sum_j |y_jl|) (docs/ERRATA.md). With L != L'
 * the printed factor would be off by (L/L') L L' = L^2, which the test
 * would see.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "base/rng.h"
#include "num/setstats.h"

struct brute {
	double mean_xx, mean_yy, mean_sum2[2], mean_x2y2;
	double mean_absxy[8], min_xy[8];
};

/* The means over all L x L' pairs, by definition. */
static void brute_force(const double *X, size_t nx, const double *Y,
			size_t ny, int d, const double *c, struct brute *b)
{
	size_t i, j;
	int l, t;

	memset(b, 0, sizeof(*b));
	for (l = 0; l < d; l++)
		b->min_xy[l] = INFINITY;
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			double xx = 0, yy = 0, s[2] = { 0, 0 }, x2y2 = 0;

			for (l = 0; l < d; l++) {
				double u = X[i * d + l] - (c ? c[l] : 0);
				double v = Y[j * d + l] - (c ? c[l] : 0);

				xx += u * u;
				yy += v * v;
				s[0] += (u - v) * (u - v);
				s[1] += (u + v) * (u + v);
				x2y2 += u * u * v * v;
				b->mean_absxy[l] += fabs(u * v);
				if (u < b->min_xy[l])
					b->min_xy[l] = u;
				if (v < b->min_xy[l])
					b->min_xy[l] = v;
			}
			b->mean_xx += xx;
			b->mean_yy += yy;
			for (t = 0; t < 2; t++)
				b->mean_sum2[t] += s[t];
			b->mean_x2y2 += x2y2;
		}
	{
		double nn = (double)nx * (double)ny;

		b->mean_xx /= nn;
		b->mean_yy /= nn;
		b->mean_sum2[0] /= nn;
		b->mean_sum2[1] /= nn;
		b->mean_x2y2 /= nn;
		for (l = 0; l < d; l++)
			b->mean_absxy[l] /= nn;
	}
}

static double rel(double got, double want)
{
	return fabs(got - want) / (fabs(want) > 1e-300 ? fabs(want) : 1e-300);
}

static void check_sets(size_t nx, size_t ny, int d, const double *c,
		       gsl_rng *r, const char *label)
{
	double X[40 * 8], Y[40 * 8];
	struct rfx_setstats *s = rfx_setstats_alloc(d);
	struct rfx_err err;
	struct brute b;
	double worst_abs = 0, worst_min = 0;
	size_t i;
	int l, ret;

	/* Different location and scale per set, and per coordinate. */
	for (i = 0; i < nx * d; i++)
		X[i] = gsl_ran_gaussian(r, 1.0 + 0.3 * (i % d)) + 0.4;
	for (i = 0; i < ny * d; i++)
		Y[i] = gsl_ran_gaussian(r, 0.6) - 0.9 + 0.1 * (i % d);
	brute_force(X, nx, Y, ny, d, c, &b);
	ret = rfx_setstats_compute(s, X, nx, Y, ny, c, &err);
	ok(ret == RFX_OK && s->nx == nx && s->ny == ny && s->d == d,
	   "%s: computes (L = %zu, L' = %zu, d = %d)", label, nx, ny, d);
	ok(rel(s->mean_xx, b.mean_xx) < 1e-13 && rel(s->mean_yy, b.mean_yy) < 1e-13,
	   "%s: mean |x|^2, mean |y|^2", label);
	ok(rel(rfx_setstats_mean_sum2(s, 1), b.mean_sum2[1]) < 1e-12,
	   "%s: mean over pairs of |x + y|^2 (6.15, t = +1): %.10g vs %.10g",
	   label, rfx_setstats_mean_sum2(s, 1), b.mean_sum2[1]);
	ok(rel(rfx_setstats_mean_sum2(s, -1), b.mean_sum2[0]) < 1e-12,
	   "%s: mean over pairs of |x - y|^2 (6.15, t = -1): %.10g vs %.10g",
	   label, rfx_setstats_mean_sum2(s, -1), b.mean_sum2[0]);
	ok(rel(s->mean_x2y2, b.mean_x2y2) < 1e-12,
	   "%s: mean over pairs of sum_l x_l^2 y_l^2 (6.18): %.10g vs %.10g",
	   label, s->mean_x2y2, b.mean_x2y2);
	for (l = 0; l < d; l++) {
		double e = rel(s->mean_absxy[l], b.mean_absxy[l]);

		worst_abs = e > worst_abs ? e : worst_abs;
		e = fabs(s->min_xy[l] - b.min_xy[l]);
		worst_min = e > worst_min ? e : worst_min;
	}
	ok(worst_abs < 1e-12,
	   "%s: mean over pairs of |x_l y_l| for every l (6.20 corrected), worst rel. error %.2g",
	   label, worst_abs);
	ok(worst_min == 0.0, "%s: coordinate minimum over both sets", label);
	rfx_setstats_free(s);
}

static void test_against_brute_force(void)
{
	static const double c[8] = { -3.5, 2.0, 0.25, -1.0, 4.0, 0.0, -0.5, 1.5 };
	gsl_rng *r = rfx_rng_alloc_stream(201, 0, 0, 0);

	check_sets(1, 1, 3, NULL, r, "a single pair");
	check_sets(5, 17, 4, NULL, r, "L < L'");
	check_sets(31, 3, 8, NULL, r, "L > L'");
	check_sets(40, 40, 1, NULL, r, "d = 1");
	check_sets(7, 12, 6, c, r, "shifted, L < L'");
	check_sets(23, 9, 8, c, r, "shifted, L > L'");
	gsl_rng_free(r);
}

/*
 * By hand. X = {(1, -2), (3, 0)}, Y = {(-1, 1)} (L = 2, L' = 1):
 *   mean |x|^2 = (5 + 9)/2 = 7, mean |y|^2 = 2
 *   |x + y|^2: (0, -1) -> 1, (2, 1) -> 5; mean 3
 *   |x - y|^2: (2, -3) -> 13, (4, -1) -> 17; mean 15
 *   sum_l x_l^2 y_l^2: 1 + 4 = 5, 9 + 0 = 9; mean 7
 *   |x_l y_l|: l = 0: 1, 3 -> 2; l = 1: 2, 0 -> 1
 *     (the printed 6.20 would give (L/L') (1 + 3)(1) = 8 and (2/1) 2 = 4)
 *   min: l = 0: -1, l = 1: -2.
 * Shifted by c = (1, -1): X - c = {(0, -1), (2, 1)}, Y - c = {(-2, 2)}:
 *   mean |x|^2 = (1 + 5)/2 = 3, |y|^2 = 8, |x + y|^2: 4 + 1, 0 + 9 -> 7,
 *   sum x_l^2 y_l^2: 0 + 4, 16 + 4 -> 12, |x_l y_l|: (0 + 4)/2 = 2,
 *   (2 + 2)/2 = 2, min: (-2, -1).
 */
static void test_by_hand(void)
{
	static const double X[4] = { 1, -2, 3, 0 }, Y[2] = { -1, 1 };
	static const double c[2] = { 1, -1 };
	struct rfx_setstats *s = rfx_setstats_alloc(2);
	struct rfx_err err;

	rfx_setstats_compute(s, X, 2, Y, 1, NULL, &err);
	ok(s->mean_xx == 7 && s->mean_yy == 2, "by hand: mean |x|^2 = 7, |y|^2 = 2");
	ok(rfx_setstats_mean_sum2(s, 1) == 3 && rfx_setstats_mean_sum2(s, -1) == 15,
	   "by hand: mean |x + y|^2 = 3, mean |x - y|^2 = 15");
	ok(s->mean_x2y2 == 7, "by hand: mean sum x_l^2 y_l^2 = 7");
	ok(s->mean_absxy[0] == 2 && s->mean_absxy[1] == 1,
	   "by hand: mean |x_l y_l| = (2, 1), not the printed 6.20's (8, 4)");
	ok(s->min_xy[0] == -1 && s->min_xy[1] == -2, "by hand: min = (-1, -2)");
	rfx_setstats_compute(s, X, 2, Y, 1, c, &err);
	ok(s->mean_xx == 3 && s->mean_yy == 8 && rfx_setstats_mean_sum2(s, 1) == 7,
	   "by hand, shifted: 3, 8, mean |x + y|^2 = 7");
	ok(s->mean_x2y2 == 12 && s->mean_absxy[0] == 2 && s->mean_absxy[1] == 2,
	   "by hand, shifted: 12, (2, 2)");
	ok(s->min_xy[0] == -2 && s->min_xy[1] == -1, "by hand, shifted: min = (-2, -1)");
	rfx_setstats_free(s);
}

/*
 * mean_sum2 clamps at 0: for nearly opposite x, y the expanded
 * mean |x|^2 + |y|^2 + 2 mean x.y rounds to -4.4e-16 for this pair (found
 * by search; the true |x + y|^2 is 1e-31), and a negative "squared norm"
 * would give NaN in the fits' square roots and logs.
 */
static void test_clamp(void)
{
	static const double X[3] = { 0.12710899912151929, 0.79080367264840934,
				     -0.99197678826375713 };
	static const double Y[3] = { -0.12710899912151927, -0.79080367264840956,
				     0.99197678826375735 };
	struct rfx_setstats *s = rfx_setstats_alloc(3);
	struct rfx_err err;
	double xx = 0, yy = 0, xy = 0;
	int l;

	for (l = 0; l < 3; l++) {
		xx += X[l] * X[l];
		yy += Y[l] * Y[l];
		xy += X[l] * Y[l];
	}
	ok(xx + yy + 2 * xy < 0.0,
	   "premise: the expanded |x + y|^2 rounds below 0 here (%.3g)",
	   xx + yy + 2 * xy);
	rfx_setstats_compute(s, X, 1, Y, 1, NULL, &err);
	ok(rfx_setstats_mean_sum2(s, 1) == 0.0,
	   "nearly opposite x, y: mean |x + y|^2 is clamped to 0, never negative");
	rfx_setstats_free(s);
}

static void test_errors(void)
{
	static const double X[4] = { 1, 2, 3, 4 };
	double B[4] = { 1, 2, 3, 4 }, c[2] = { 0, 0 };
	struct rfx_setstats *s = rfx_setstats_alloc(2);
	struct rfx_err err;

	ok(rfx_setstats_alloc(0) == NULL, "alloc: d = 0 is NULL");
	rfx_setstats_free(NULL); /* a no-op; a crash fails the binary */
	rfx_err_clear(&err);
	ok(rfx_setstats_compute(s, X, 0, X, 2, NULL, &err) == RFX_EINVAL &&
		   strstr(err.msg, "empty"),
	   "empty x set is RFX_EINVAL: %s", err.msg);
	ok(rfx_setstats_compute(s, X, 2, X, 0, NULL, &err) == RFX_EINVAL,
	   "empty y set is RFX_EINVAL");
	B[3] = NAN;
	rfx_err_clear(&err);
	ok(rfx_setstats_compute(s, X, 2, B, 2, NULL, &err) == RFX_EINVAL &&
		   strstr(err.msg, "non-finite"),
	   "NaN in y is RFX_EINVAL: %s", err.msg);
	ok(rfx_setstats_compute(s, B, 2, X, 2, NULL, &err) == RFX_EINVAL,
	   "NaN in x is RFX_EINVAL");
	B[3] = 4;
	B[0] = -INFINITY;
	ok(rfx_setstats_compute(s, B, 2, X, 2, NULL, &err) == RFX_EINVAL,
	   "-inf in x is RFX_EINVAL");
	c[1] = NAN;
	ok(rfx_setstats_compute(s, X, 2, X, 2, c, &err) == RFX_EINVAL,
	   "a NaN shift is RFX_EINVAL");
	rfx_setstats_free(s);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_against_brute_force();
	test_by_hand();
	test_clamp();
	test_errors();
	return done_testing();
}

/*
 * Pair blocks (lib/num/block.h): every field against direct coordinate sums
 * written here, for blocks of several shapes (1x1, 3x7, 7x3, 16x5, and a
 * block smaller than its capacity), with and without a shift and x2y2; the
 * cancellation guard for nearly equal and nearly opposite points, where
 * |x -+ y|^2 ~ 1e-20 (|x|^2 + |y|^2) must keep full relative precision; the
 * capacity errors; and the has_x2y2 flag.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "num/block.h"
#include "base/rng.h"

/* Largest relative error |got - want| / max(|want|, floor). */
static double relerr(double got, double want, double floor)
{
	double s = fabs(want) > floor ? fabs(want) : floor;

	return fabs(got - want) / s;
}

/*
 * Compares all fields of b with direct sums over the (shifted) rows of X
 * and Y. Returns the worst relative error over xx, yy, xy, dd, ss, x2y2;
 * the inner products (dgemm) are relative to |x||y|, the natural scale of
 * a rounded dot product.
 */
static double block_error(const struct rfx_block *b, const double *X,
			  size_t nx, const double *Y, size_t ny, int d,
			  const double *c, int x2y2)
{
	double worst = 0.0, e;
	size_t i, j;
	int l;

	for (i = 0; i < nx; i++) {
		double s = 0;

		for (l = 0; l < d; l++) {
			double u = X[i * d + l] - (c ? c[l] : 0.0);

			s += u * u;
		}
		e = relerr(b->xx[i], s, 1e-300);
		worst = e > worst ? e : worst;
	}
	for (j = 0; j < ny; j++) {
		double s = 0;

		for (l = 0; l < d; l++) {
			double u = Y[j * d + l] - (c ? c[l] : 0.0);

			s += u * u;
		}
		e = relerr(b->yy[j], s, 1e-300);
		worst = e > worst ? e : worst;
	}
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			double xy = 0, dd = 0, ss = 0, x2y2v = 0, nxx = 0, nyy = 0;

			for (l = 0; l < d; l++) {
				double u = X[i * d + l] - (c ? c[l] : 0.0);
				double v = Y[j * d + l] - (c ? c[l] : 0.0);

				xy += u * v;
				dd += (u - v) * (u - v);
				ss += (u + v) * (u + v);
				x2y2v += u * u * v * v;
				nxx += u * u;
				nyy += v * v;
			}
			e = fabs(b->xy[i * ny + j] - xy) / sqrt(nxx * nyy);
			worst = e > worst ? e : worst;
			e = relerr(b->dd[i * ny + j], dd, 1e-300);
			worst = e > worst ? e : worst;
			e = relerr(b->ss[i * ny + j], ss, 1e-300);
			worst = e > worst ? e : worst;
			if (x2y2) {
				e = relerr(b->x2y2[i * ny + j], x2y2v, 1e-300);
				worst = e > worst ? e : worst;
			}
		}
	return worst;
}

static void fill(gsl_rng *r, double *v, size_t n, double sigma, double mu)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mu + gsl_ran_gaussian(r, sigma);
}

/*
 * Random blocks of several shapes. The expanded |x|^2 + |y|^2 - 2 x.y is
 * used down to |x - y|^2 = 1e-4 (|x|^2 + |y|^2), where it keeps a relative
 * error below ~1e4 eps ~ 2e-12; random Gaussian pairs sit far from that.
 */
static void test_shapes(void)
{
	static const struct {
		size_t nx, ny, capx, capy;
		int d;
	} shapes[] = {
		{ 1, 1, 1, 1, 1 },   { 1, 1, 1, 1, 5 },  { 3, 7, 3, 7, 4 },
		{ 7, 3, 7, 3, 9 },   { 16, 5, 16, 5, 33 }, { 2, 3, 5, 8, 6 },
		{ 1, 9, 4, 9, 2 },
	};
	static const double shift[33] = { 0.5, -1.25, 2.0, 0.125, -0.75, 3.0 };
	gsl_rng *r = rfx_rng_alloc_stream(101, 0, 0, 0);
	struct rfx_err err;
	size_t k;

	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		size_t nx = shapes[k].nx, ny = shapes[k].ny;
		int d = shapes[k].d, x2y2;
		struct rfx_block *b =
			rfx_block_alloc(d, shapes[k].capx, shapes[k].capy);
		double X[16 * 33], Y[16 * 33], Xc[16 * 33];

		fill(r, X, nx * d, 1.3, 0.2);
		fill(r, Y, ny * d, 0.7, -0.4);
		memcpy(Xc, X, sizeof(X));
		for (x2y2 = 0; x2y2 <= 1; x2y2++) {
			int ret = rfx_block_compute(b, X, nx, Y, ny, NULL, x2y2, &err);

			ok(ret == RFX_OK && b->nx == nx && b->ny == ny &&
				   b->has_x2y2 == x2y2 &&
				   block_error(b, X, nx, Y, ny, d, NULL, x2y2) < 1e-11,
			   "%zux%zu block, d = %d, capacity %zux%zu, x2y2 %d: all fields match direct sums",
			   nx, ny, d, shapes[k].capx, shapes[k].capy, x2y2);
			ret = rfx_block_compute(b, X, nx, Y, ny, shift, x2y2, &err);
			ok(ret == RFX_OK && b->has_x2y2 == x2y2 &&
				   block_error(b, X, nx, Y, ny, d, shift, x2y2) < 1e-11,
			   "%zux%zu block, d = %d, x2y2 %d, shifted by c: fields are those of x - c, y - c",
			   nx, ny, d, x2y2);
		}
		ok(!memcmp(X, Xc, nx * (size_t)d * sizeof(double)),
		   "%zux%zu: the shift leaves X untouched",
		   nx, ny);
		rfx_block_free(b);
	}
	gsl_rng_free(r);
}

/*
 * The shift is a translation: |x - y|^2 does not change; |x + y|^2 becomes
 * |x + y - 2c|^2. For x = (1, 2), y = (3, -1), c = (1, 1), by hand:
 * x - c = (0, 1), y - c = (2, -2): xx = 1, yy = 8, xy = -2, dd = 13,
 * ss = 5, x2y2 = 0 + 4 = 4. Unshifted: xx = 5, yy = 10, xy = 1, dd = 13,
 * ss = 17, x2y2 = 9 + 4 = 13.
 */
static void test_shift_by_hand(void)
{
	static const double x[2] = { 1, 2 }, y[2] = { 3, -1 }, c[2] = { 1, 1 };
	struct rfx_block *b = rfx_block_alloc(2, 1, 1);
	struct rfx_err err;

	rfx_block_compute(b, x, 1, y, 1, NULL, 1, &err);
	ok(b->xx[0] == 5 && b->yy[0] == 10 && b->xy[0] == 1 && b->dd[0] == 13 &&
		   b->ss[0] == 17 && b->x2y2[0] == 13,
	   "unshifted 1x1 block by hand: 5, 10, 1, 13, 17, 13");
	ok(b->X == x && b->Y == y, "unshifted: X and Y point at the inputs");
	rfx_block_compute(b, x, 1, y, 1, c, 1, &err);
	ok(b->xx[0] == 1 && b->yy[0] == 8 && b->xy[0] == -2 && b->dd[0] == 13 &&
		   b->ss[0] == 5 && b->x2y2[0] == 4,
	   "shifted by c = (1, 1) by hand: 1, 8, -2, 13, 5, 4");
	ok(b->X != x && b->X[0] == 0 && b->X[1] == 1 && b->Y[0] == 2 &&
		   b->Y[1] == -2,
	   "shifted: X and Y are the shifted copies");
	rfx_block_free(b);
}

/*
 * Nearly equal and nearly opposite points: y = x + delta and z = -x + delta
 * with |delta|^2 ~ 1e-20 |x|^2. The coordinate-wise sums (x_l - y_l)^2 are
 * exact up to rounding of the squares, and the expanded form has no
 * correct digit at this ratio; dd resp. ss must match the coordinate-wise
 * formula to full relative precision, in every position of a block.
 */
static void test_cancellation(void)
{
	const int d = 12;
	const size_t n = 4;
	gsl_rng *r = rfx_rng_alloc_stream(102, 0, 0, 0);
	struct rfx_block *b = rfx_block_alloc(d, n, n);
	struct rfx_err err;
	double X[4 * 12], Y[4 * 12], Z[4 * 12], worst_dd = 0, worst_ss = 0,
					     lost = 0;
	size_t i;
	int l;

	fill(r, X, n * d, 3.0, 0.0);
	for (i = 0; i < n * d; i++) {
		Y[i] = X[i] + 1e-10 * gsl_ran_gaussian(r, 3.0);
		Z[i] = -X[i] + 1e-10 * gsl_ran_gaussian(r, 3.0);
	}
	/* Diagonal pairs (i, i) are the close ones. */
	rfx_block_compute(b, X, n, Y, n, NULL, 0, &err);
	for (i = 0; i < n; i++) {
		double dd = 0, s = 0;
		double e;

		for (l = 0; l < d; l++) {
			double u = X[i * d + l] - Y[i * d + l];

			dd += u * u;
			s += X[i * d + l] * X[i * d + l] + Y[i * d + l] * Y[i * d + l];
		}
		e = relerr(b->dd[i * n + i], dd, 1e-300);
		worst_dd = e > worst_dd ? e : worst_dd;
		if (i == 0)
			diag("close pair: |x - y|^2 / (|x|^2 + |y|^2) = %.3g", dd / s);
		/* How wrong the expanded form is, for the record. */
		e = fabs((b->xx[i] + b->yy[i] - 2 * b->xy[i * n + i]) - dd) / dd;
		lost = e > lost ? e : lost;
	}
	ok(worst_dd < 8 * TEST_TOL0,
	   "nearly equal points: dd to full relative precision (worst %.2g)",
	   worst_dd);
	ok(lost > 1e-2, "premise: the expanded form is off by %.3g here", lost);
	ok(block_error(b, X, n, Y, n, d, NULL, 0) < 1e-11,
	   "the other pairs of that block are unaffected");
	rfx_block_compute(b, X, n, Z, n, NULL, 0, &err);
	for (i = 0; i < n; i++) {
		double ss = 0, e;

		for (l = 0; l < d; l++) {
			double u = X[i * d + l] + Z[i * d + l];

			ss += u * u;
		}
		e = relerr(b->ss[i * n + i], ss, 1e-300);
		worst_ss = e > worst_ss ? e : worst_ss;
	}
	ok(worst_ss < 8 * TEST_TOL0,
	   "nearly opposite points: ss to full relative precision (worst %.2g)",
	   worst_ss);
	/*
	 * Opposite only after the shift: the inputs are X + c and Z + c, far
	 * from opposite themselves; their shifted copies are X and Z (up to the
	 * rounding of adding and subtracting c), whose sums nearly cancel.
	 */
	{
		double Xs[4 * 12], Zs[4 * 12], c[12];

		for (l = 0; l < d; l++)
			c[l] = 0.5 * (l + 1);
		for (i = 0; i < n * d; i++) {
			Xs[i] = X[i] + c[i % d];
			Zs[i] = Z[i] + c[i % d];
		}
		rfx_block_compute(b, Xs, n, Zs, n, c, 0, &err);
		worst_ss = 0;
		for (i = 0; i < n; i++) {
			double ss = 0, e;

			for (l = 0; l < d; l++) {
				double u = (Xs[i * d + l] - c[l]) + (Zs[i * d + l] - c[l]);

				ss += u * u;
			}
			e = relerr(b->ss[i * n + i], ss, 1e-300);
			worst_ss = e > worst_ss ? e : worst_ss;
		}
		ok(worst_ss < 8 * TEST_TOL0,
		   "opposite after the shift: ss of the shifted points to full precision (worst %.2g)",
		   worst_ss);
	}
	/* Exactly equal and exactly opposite points: 0, not a rounding residue. */
	rfx_block_compute(b, X, n, X, n, NULL, 0, &err);
	ok(b->dd[0] == 0.0 && b->dd[n + 1] == 0.0 && b->dd[3 * n + 3] == 0.0,
	   "x = y: dd is exactly 0");
	for (i = 0; i < n * d; i++)
		Z[i] = -X[i];
	rfx_block_compute(b, X, n, Z, n, NULL, 0, &err);
	ok(b->ss[0] == 0.0 && b->ss[n + 1] == 0.0 && b->ss[3 * n + 3] == 0.0,
	   "x = -y: ss is exactly 0");
	rfx_block_free(b);
	gsl_rng_free(r);
}

static void test_errors(void)
{
	static const double X[3 * 2] = { 1, 2, 3, 4, 5, 6 };
	struct rfx_block *b = rfx_block_alloc(2, 2, 3);
	struct rfx_err err;

	ok(rfx_block_alloc(0, 2, 2) == NULL, "alloc: d = 0 is NULL");
	ok(rfx_block_alloc(2, 0, 2) == NULL && rfx_block_alloc(2, 2, 0) == NULL,
	   "alloc: empty capacity is NULL");
	rfx_block_free(NULL); /* a no-op; a crash fails the binary */
	rfx_err_clear(&err);
	ok(rfx_block_compute(b, X, 3, X, 3, NULL, 0, &err) == RFX_EINVAL &&
		   err.code == RFX_EINVAL && strstr(err.msg, "3x3") &&
		   strstr(err.msg, "2x3"),
	   "nx above capacity is RFX_EINVAL: %s", err.msg);
	ok(rfx_block_compute(b, X, 2, X, 3, NULL, 0, &err) == RFX_OK,
	   "exactly the capacity is fine");
	ok(rfx_block_compute(b, X, 1, X, 4, NULL, 0, &err) == RFX_EINVAL,
	   "ny above capacity is RFX_EINVAL");
	ok(rfx_block_compute(b, X, 0, X, 2, NULL, 0, &err) == RFX_EINVAL &&
		   rfx_block_compute(b, X, 2, X, 0, NULL, 0, &err) == RFX_EINVAL,
	   "an empty block is RFX_EINVAL");
	/* has_x2y2 follows the last call, not the first. */
	rfx_block_compute(b, X, 2, X, 3, NULL, 1, &err);
	ok(b->has_x2y2 == 1, "has_x2y2 set when x2y2 is requested");
	rfx_block_compute(b, X, 2, X, 3, NULL, 0, &err);
	ok(b->has_x2y2 == 0, "has_x2y2 cleared by a later call without x2y2");
	rfx_block_free(b);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_shapes();
	test_shift_by_hand();
	test_cancellation();
	test_errors();
	return done_testing();
}

/*
 * Pair blocks. x_i . y_j for the whole block is one matrix product
 * (rfx_gemm_nt); so is sum_l x_il^2 y_jl^2 (of the squared coordinates). The expanded
 * |x|^2 + |y|^2 - 2 x.y loses relative accuracy when x and y nearly cancel
 * (|x - y|^2 << |x|^2 + |y|^2): those pairs, rare in practice, are
 * recomputed coordinate-wise, because the trigonometric variance needs
 * 1 - K^2 to full relative precision and the positive one expm1(|x + y|^2).
 */
#include "num/block.h"

#include <stdlib.h>
#include <string.h>

#include "num/gemm.h"
#include "num/logmath.h"

/* Below this fraction of |x|^2 + |y|^2 the expanded form is recomputed. */
#define CANCEL_FRACTION 1e-4

struct rfx_block *rfx_block_alloc(int d, size_t nx, size_t ny)
{
	struct rfx_block *b;
	size_t np = nx * ny;

	if (d < 1 || nx == 0 || ny == 0)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->d = d;
	b->cap_x = nx;
	b->cap_y = ny;
	b->xx = malloc(nx * sizeof(double));
	b->yy = malloc(ny * sizeof(double));
	b->xy = malloc(np * sizeof(double));
	b->dd = malloc(np * sizeof(double));
	b->ss = malloc(np * sizeof(double));
	b->x2y2 = malloc(np * sizeof(double));
	b->xbuf = malloc(nx * (size_t)d * sizeof(double));
	b->ybuf = malloc(ny * (size_t)d * sizeof(double));
	b->x2buf = malloc(nx * (size_t)d * sizeof(double));
	b->y2buf = malloc(ny * (size_t)d * sizeof(double));
	b->tbuf = malloc(ny * (size_t)d * sizeof(double));
	if (!b->xx || !b->yy || !b->xy || !b->dd || !b->ss || !b->x2y2 ||
	    !b->xbuf || !b->ybuf || !b->x2buf || !b->y2buf || !b->tbuf) {
		rfx_block_free(b);
		return NULL;
	}
	return b;
}

void rfx_block_free(struct rfx_block *b)
{
	if (!b)
		return;
	free(b->xx);
	free(b->yy);
	free(b->xy);
	free(b->dd);
	free(b->ss);
	free(b->x2y2);
	free(b->xbuf);
	free(b->ybuf);
	free(b->x2buf);
	free(b->y2buf);
	free(b->tbuf);
	free(b);
}

static const double *shifted(const double *V, size_t n, int d,
			     const double *c, double *buf)
{
	size_t i;
	int l;

	if (!c)
		return V;
	for (i = 0; i < n; i++)
		for (l = 0; l < d; l++)
			buf[i * (size_t)d + l] = V[i * (size_t)d + l] - c[l];
	return buf;
}

/*
 * |v|^2, in vector partial sums: summed in order, one chained add per
 * coordinate, the norms of a block's 512 rows took as long as the block's
 * |x -+ y|^2 pass over 65536 pairs.
 */
RFX_SIMD_CLONES
static double sqnorm(const double *v, int d)
{
	double s = 0.0;
	int l;

#pragma omp simd reduction(+ : s)
	for (l = 0; l < d; l++)
		s += v[l] * v[l];
	return s;
}

static double sqdist(const double *x, const double *y, int d, double sign)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++) {
		double z = x[l] + sign * y[l];

		s += z * z;
	}
	return s;
}

/*
 * Row i of dd and ss: a vectorised pass for the expanded forms that also
 * counts the pairs to recompute, then, only if there are any, a scalar
 * pass that recomputes them coordinate-wise.
 */
RFX_SIMD_CLONES
static void expanded_row(struct rfx_block *b, size_t i)
{
	size_t j, ny = b->ny;
	double *dr = b->dd + i * ny, *sr = b->ss + i * ny;
	const double *xy = b->xy + i * ny, *yy = b->yy;
	double xx = b->xx[i], bad = 0.0;
	int d = b->d;

#pragma omp simd reduction(+ : bad)
	for (j = 0; j < ny; j++) {
		double s = xx + yy[j], dd = s - 2.0 * xy[j], ss = s + 2.0 * xy[j];

		dr[j] = dd;
		sr[j] = ss;
		bad += (dd < CANCEL_FRACTION * s) | (ss < CANCEL_FRACTION * s);
	}
	if (bad == 0.0)
		return;
	for (j = 0; j < ny; j++) {
		double s = xx + yy[j];

		if (dr[j] < CANCEL_FRACTION * s)
			dr[j] = sqdist(b->X + i * (size_t)d, b->Y + j * (size_t)d,
				       d, -1.0);
		if (sr[j] < CANCEL_FRACTION * s)
			sr[j] = sqdist(b->X + i * (size_t)d, b->Y + j * (size_t)d,
				       d, 1.0);
	}
}

int rfx_block_compute(struct rfx_block *b, const double *X, size_t nx,
		      const double *Y, size_t ny, const double *shift,
		      int need_x2y2, struct rfx_err *err)
{
	int d = b->d;
	size_t i, j;

	if (nx == 0 || ny == 0 || nx > b->cap_x || ny > b->cap_y)
		return rfx_error(err, RFX_EINVAL,
				 "pair block %zux%zu exceeds its capacity %zux%zu",
				 nx, ny, b->cap_x, b->cap_y);
	b->nx = nx;
	b->ny = ny;
	b->X = shifted(X, nx, d, shift, b->xbuf);
	b->Y = shifted(Y, ny, d, shift, b->ybuf);
	for (i = 0; i < nx; i++)
		b->xx[i] = sqnorm(b->X + i * (size_t)d, d);
	for (j = 0; j < ny; j++)
		b->yy[j] = sqnorm(b->Y + j * (size_t)d, d);
	rfx_gemm_nt(nx, ny, (size_t)d, b->X, (size_t)d, b->Y, (size_t)d, b->xy,
		    ny, b->tbuf);
	for (i = 0; i < nx; i++)
		expanded_row(b, i);
	b->has_x2y2 = 0;
	if (need_x2y2) {
		for (i = 0; i < nx * (size_t)d; i++)
			b->x2buf[i] = b->X[i] * b->X[i];
		for (j = 0; j < ny * (size_t)d; j++)
			b->y2buf[j] = b->Y[j] * b->Y[j];
		rfx_gemm_nt(nx, ny, (size_t)d, b->x2buf, (size_t)d, b->y2buf,
			    (size_t)d, b->x2y2, ny, b->tbuf);
		b->has_x2y2 = 1;
	}
	return RFX_OK;
}

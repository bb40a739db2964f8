/*
 * Pair blocks: the per-pair quantities every closed-form variance needs,
 * for all pairs (x_i, y_j) of an nx x ny block at once. Inner products come
 * from one matrix product (lib/num/gemm.h), which is what makes a full L x L variance map
 * cheap; |x - y|^2 and |x + y|^2 are recomputed coordinate-wise where the
 * expanded form |x|^2 + |y|^2 -+ 2 x.y would lose relative accuracy (close
 * or opposite points), because 1 - K^2 and expm1(|x + y|^2) need it.
 */
#ifndef RFX_BLOCK_H
#define RFX_BLOCK_H

#include <stddef.h>

#include "base/err.h"

struct rfx_block {
	int d;             /* dimension */
	size_t nx, ny;     /* block shape; pair (i, j) is entry i * ny + j */
	const double *X;   /* nx x d, the x's as the estimator sees them */
	const double *Y;   /* ny x d */
	double *xx;        /* nx: |x_i|^2 */
	double *yy;        /* ny: |y_j|^2 */
	double *xy;        /* nx * ny: x_i . y_j */
	double *dd;        /* nx * ny: |x_i - y_j|^2 */
	double *ss;        /* nx * ny: |x_i + y_j|^2 */
	double *x2y2;      /* nx * ny: sum_l x_il^2 y_jl^2, when requested */
	int has_x2y2;      /* x2y2 is filled */

	/* private: capacity, buffers for shifted copies, rfx_gemm_nt's */
	size_t cap_x, cap_y;
	double *xbuf, *ybuf, *x2buf, *y2buf, *tbuf;
};

/* Allocates a block for up to nx x ny pairs in dimension d; NULL on OOM. */
struct rfx_block *rfx_block_alloc(int d, size_t nx, size_t ny);

/* Frees; NULL is a no-op. */
void rfx_block_free(struct rfx_block *b);

/*
 * Fills b for X (nx x d) against Y (ny x d), shifted to X - c, Y - c when
 * shift is not NULL; fills x2y2 too when need_x2y2. X and Y must stay
 * valid while b is used when shift is NULL (b points into them).
 * RFX_EINVAL when the shape exceeds the capacity.
 */
int rfx_block_compute(struct rfx_block *b, const double *X, size_t nx,
		      const double *Y, size_t ny, const double *shift,
		      int need_x2y2, struct rfx_err *err);

#endif

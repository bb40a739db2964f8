/*
 * Projection samplers: the random directions omega_1..omega_M in R^d that
 * Gaussian-induced random features project inputs onto.
 *
 *   iid  omega_m ~ N(0, I_d), independent.
 *   ort  block-orthogonal (thesis Algorithm 2, Yu et al. 2016): ceil(M/d)
 *        independent Haar-random orthogonal d x d blocks, the last one
 *        truncated to its first M - d(ceil(M/d) - 1) columns, each column
 *        rescaled by an independent chi(d) norm, so every omega_m is
 *        marginally N(0, I_d) while the columns of a block are orthogonal.
 *        Blocks come from the QR factorisation of a Gaussian matrix with
 *        the columns of Q multiplied by sign(diag R): without that
 *        correction Q is not Haar. Each Householder reflector picks
 *        sign(R_jj) = -sign of the pivot it eliminates, which ties the
 *        signs of Q's diagonal to the data: GSL's Q at d = 5 has
 *        P(Q_jj > 0) = 0.00, 0.08, 0.13, 0.16, 0.84 while every
 *        off-diagonal entry is symmetric (tests/t_proj.c checks diagonals).
 *
 * The M columns drawn from a stream are the first M of the M' > M columns
 * the same stream would give, so studies over M can share draws.
 *
 * Omega is stored d x ld row-major with ld >= col0 + M:
 * component l of omega_m is omega[l * ld + m]. With inputs stored n x d
 * row-major, the projections X Omega are one row-major dgemm.
 */
#ifndef RFX_PROJ_H
#define RFX_PROJ_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "err.h"

enum rfx_proj {
	RFX_PROJ_IID,
	RFX_PROJ_ORT
};

/* Parses "iid" or "ort"; an unknown name is RFX_EINVAL listing the valid ones. */
int rfx_proj_parse(const char *name, enum rfx_proj *out, struct rfx_err *err);

/* "iid" or "ort". */
const char *rfx_proj_name(enum rfx_proj p);

/* Scratch space for sampling in dimension d (QR of d x d blocks). */
struct rfx_proj_ws;

/* Allocates a workspace for dimension d >= 1; NULL when out of memory. */
struct rfx_proj_ws *rfx_proj_ws_alloc(int d);

/* Frees a workspace; NULL is a no-op. */
void rfx_proj_ws_free(struct rfx_proj_ws *ws);

/*
 * Fills columns col0 .. col0+M-1 of omega (d x ld row-major) with M
 * projections of kind p. ws must have been allocated for this d (it may be
 * NULL for iid). Returns
 * RFX_EINVAL for d < 1, M < 1 or col0 + M > ld, RFX_ENUMERIC if a QR
 * factorisation fails.
 */
int rfx_proj_sample(const gsl_rng *r, enum rfx_proj p, int d, int M,
		    double *omega, size_t ld, size_t col0,
		    struct rfx_proj_ws *ws, struct rfx_err *err);

/*
 * A Haar-distributed (uniform on O(d)) orthogonal matrix into Q (d x d
 * row-major): the Q of the QR factorisation of a d x d standard Gaussian
 * matrix with column j multiplied by sign(R_jj) (see above; the same
 * construction as one ort block, without the chi(d) column norms).
 * Consumes d * d Gaussians from r. ws must be for dimension d. RFX_EINVAL
 * for a missing argument or a workspace of another dimension, RFX_ENUMERIC
 * if the QR factorisation fails.
 */
int rfx_proj_haar(const gsl_rng *r, int d, double *Q, struct rfx_proj_ws *ws,
		  struct rfx_err *err);

#endif

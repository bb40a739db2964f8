/*
 * Random draws shared by every estimator.
 *
 * A draw holds the randomness of one M-feature estimator: Gaussian
 * projections (d x cap row-major, see proj.h) and, for the discretely
 * induced features, integer vectors. Feature matrices are made from it
 * (est/featmap.h).
 */
#ifndef RFX_DRAW_H
#define RFX_DRAW_H

#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "proj/proj.h"

struct rfx_draw {
	int d;                  /* input dimension */
	int cap;                /* column capacity */
	int ncols;              /* Gaussian columns in use */
	double *omega;          /* d x cap row-major Gaussian projections */
	unsigned *k;            /* d x cap row-major discrete draws */
	struct rfx_proj_ws *pws; /* QR workspace for block-orthogonal draws */
};

/*
 * The draw of every estimator built on M Gaussian projections (TrigRF,
 * PosRF, GERF, OPRF): columns 0..M-1 of w from projection kind proj. Has
 * the signature of rfx_estimator_type.draw (p is unused).
 */
struct rfx_params;
int rfx_draw_gaussian(const gsl_rng *r, enum rfx_proj proj,
		      const struct rfx_params *p, int M, struct rfx_draw *w,
		      struct rfx_err *err);

/*
 * Allocates a draw for dimension d and up to cap columns (zeroed, no
 * columns in use); NULL for d < 1 or cap < 1 and on OOM. The caller frees
 * it with rfx_draw_free, for which NULL is a no-op.
 */
struct rfx_draw *rfx_draw_alloc(int d, int cap);
void rfx_draw_free(struct rfx_draw *w);

/* |omega_m|^2 for columns col0..col0+ncols-1 of w into out. */
void rfx_draw_colnorms(const struct rfx_draw *w, int col0, int ncols,
		       double *out);

#endif

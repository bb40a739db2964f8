/*
 * Hybrid random features adapted to clustered data (HRF sec. 2.4,
 * appendix H.2): one complex exponential (CE) estimator per pair of
 * cluster centres (x_i, y_j), combined by lambda coefficients.
 *
 * The base estimators (HRF eqs. 90-92) are rfx's cexp (real diagonal A,
 * eq. 88) or cexp-c (complex diagonal A, eqs. 85-87), fitted to the pair
 * of centres: A_ij makes l(A) = |A x_i + A^{-1} y_j|^2 (eq. 21) minimal
 * (real) or zero (complex), so the estimator is exact or nearly so at the
 * centres and accurate near them.
 *
 * Two combinations:
 *  zero-one (Definition H.2, eqs. 101-104; the paper's experiments):
 *    lambda_ij(x, y) = [x in cluster i][y in cluster j], deterministic, so
 *    the estimate of a pair is the base estimator of its pair of clusters.
 *  Gaussian mixture (Definition H.1, eqs. 93-100):
 *    SM^ = sum_ij lambda^_ij SM^_ij + (1 - sum_ij lambda^_ij) SM^_0,
 *    lambda_ij(x, y) = exp(-|A_ij x + A_ij^{-1} y|^2 / (2 tau^2)) estimated
 *    without bias by positive random features, independent of the base
 *    estimators, and SM^_0 a further estimator (trig or pos, say). The
 *    lambdas are the Gaussian kernel K(u, v) of u = B x / tau and
 *    v = -C B^{-1} y / tau with B = diag |a_l| and C = diag cos(2 arg a_l)
 *    (eq. 93): for real a_l (C = 1) this is |a x + y/a|^2 exactly, and for
 *    the imaginary a_l of eq. 86 (C = -1) it is |a x + y/a|^2 =
 *    (|a| x - y/|a|)^2 too, so lambda_ij = 1 at the centres with the
 *    complex A. (Eq. 93 as printed has SM(x/tau, -y/tau), the cross term
 *    of |A x + A^{-1} y|^2 for real diagonal A, where (A x).(A^{-1} y) =
 *    x.y; the features of eqs. 95-96 are those of K(u, v).) rfx's pos
 *    estimator gives K(u, v) from n features.
 * Both are unbiased: the lambdas are independent of the base estimators
 * and sum to 1 (eqs. 98, 102).
 *
 * Pairs of clusters (i, j), i < nq, j < nk, are numbered q = i nk + j.
 * Sets are passed sorted by cluster: rows xoff[i] .. xoff[i+1] - 1 of X
 * are cluster i (xoff[0] = 0, xoff[nq] = nx), and alike for Y.
 *
 * Randomness of one draw (rfx_clushyb_maps_draw), in this order from the
 * generator passed in: the M projections of base estimator q for
 * q = 0 .. nq nk - 1; for the Gaussian mixture then the n projections of
 * lambda q for each q, then the draw of SM^_0.
 */
#ifndef RFX_CLUSHYB_H
#define RFX_CLUSHYB_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "est/estimator.h"
#include "est/featmap.h"

enum rfx_clushyb_kind {
	RFX_CLUSHYB_ZERO_ONE, /* Definition H.2: cluster-membership lambdas */
	RFX_CLUSHYB_GMIX      /* Definition H.1: Gaussian lambdas, plus SM^_0 */
};

/*
 * HRF eq. 21 for a diagonal A = diag(a_re + i a_im) (p->a_re, p->a_im):
 * l(A) = |A x + A^{-1} y|^2 = sum_l |a_l x_l + y_l / a_l|^2, the modulus
 * squared (HRF defines |z| for complex z as sqrt(sum |z_l|^2); rfx reads
 * the flattened "|...|2" of eq. 21 as its square, the quantity in the
 * exponent of the CE variance).
 */
double rfx_clushyb_loss(const struct rfx_params *p, const double *x,
			const double *y, int d);

/*
 * The minimum of eq. 21 over real diagonal A, 4 sum_l max(0, x_l y_l):
 * per coordinate (a x + y/a)^2 = a^2 x^2 + 2 x y + y^2/a^2 >= 2|x y| + 2 x y
 * (AM-GM, equality at a^2 = |y/x|, eq. 88), which is 0 when x y < 0 and
 * 4 x y when x y > 0. This is the s of HRF H.1/H.3.
 */
double rfx_clushyb_loss_min(const double *x, const double *y, int d);

struct rfx_clushyb {
	enum rfx_clushyb_kind kind;
	int d, nq, nk;                         /* dimension, clusters of x, of y */
	const struct rfx_estimator_type *base; /* rfx_est_cexp or rfx_est_cexp_c */
	struct rfx_params *p;                  /* nq nk: A_q of pair q */
	double tau;                            /* Gaussian mixture: bandwidth */
	double *bx, *by;                       /* nq nk x d: lambda inputs u = bx x, v = by y */
	const struct rfx_estimator_type *e0;   /* Gaussian mixture: SM^_0 */
	struct rfx_params p0;                  /* its parameters */
};

/*
 * Allocates a hybrid for nq x nk clusters in R^d with base estimator cexp
 * (complex_a = 0) or cexp-c (1); for the Gaussian mixture with bandwidth
 * tau and SM^_0 = e0 (a registry estimator with a plain budget, i.e.
 * without m1/m3; NULL otherwise). NULL on OOM or bad arguments.
 */
struct rfx_clushyb *rfx_clushyb_alloc(enum rfx_clushyb_kind kind, int d,
				      int nq, int nk, int complex_a, double tau,
				      const struct rfx_estimator_type *e0);
void rfx_clushyb_free(struct rfx_clushyb *h);

/*
 * Fits A_q to each pair of centres (Cx: nq x d, Cy: nk x d; eqs. 85-88
 * through the base estimator's fit) and, for the Gaussian mixture, SM^_0
 * to the whole sets X (nx x d) and Y (ny x d), for budget M. Errors are
 * the estimators' (RFX_EINVAL for non-finite input, ...).
 */
int rfx_clushyb_fit(struct rfx_clushyb *h, const double *Cx, const double *Cy,
		    const double *X, size_t nx, const double *Y, size_t ny,
		    int M, struct rfx_err *err);

/* The feature maps of one draw of the hybrid on two sorted sets. */
struct rfx_clushyb_maps {
	const struct rfx_clushyb *h;
	size_t nx, ny;          /* set sizes */
	size_t *xoff, *yoff;    /* nq + 1, nk + 1 cluster offsets (copies) */
	int M, n;               /* base features, lambda features */
	size_t brows;           /* rows per block (rfx_clushyb_maps_block) */
	struct rfx_draw *w;     /* one draw at a time */
	struct rfx_featmat **F1, **F2; /* nq nk: base q on cluster i's x's and j's y's
				  (zero-one) or on all (Gaussian mixture) */
	struct rfx_featmat **L1, **L2; /* Gaussian mixture: lambda q on all */
	struct rfx_featmat *G1, *G2;   /* Gaussian mixture: SM^_0 on all */
	double *hx, *hy;        /* |x_i|^2/2, |y_k|^2/2 (K to SM) */
	double *U, *V;          /* Gaussian mixture: scaled inputs */
	double *buf;            /* Gaussian mixture: (2 nq nk + 1) x brows x ny products */
	double *cf;             /* nq x ny column factors (all 1 for the Gaussian mixture) */
	double *cmax;           /* nq: the log-scale taken out of each row of cf */
	double *ls;             /* Gaussian mixture: brows x ny per-pair log-scales */
};

/*
 * Allocates the maps for sets of nx and ny points sorted by cluster
 * (offsets xoff, yoff), M base features, n lambda features (Gaussian
 * mixture; ignored otherwise) and blocks of up to brows rows. NULL on OOM
 * or bad arguments.
 */
struct rfx_clushyb_maps *rfx_clushyb_maps_alloc(const struct rfx_clushyb *h,
						const size_t *xoff,
						const size_t *yoff, int M, int n,
						size_t brows);
void rfx_clushyb_maps_free(struct rfx_clushyb_maps *m);

/*
 * Draws the hybrid's randomness from r (in the order of the file comment)
 * and computes its feature maps of X (nx x d) and Y (ny x d), sorted as
 * the offsets say.
 */
int rfx_clushyb_maps_draw(struct rfx_clushyb_maps *m, const gsl_rng *r,
			  const double *X, const double *Y, struct rfx_err *err);

/*
 * The estimates of SM(x, y) = exp(x.y) for x rows r0 .. r0 + B - 1 (B <=
 * brows) against every y, in separable scaled form:
 *   est[a ny + k] = val[a ny + k] cf[c ny + k] e^{rs[a]},
 * c = rfx_clushyb_row_cluster(m, r0 + a), m->cf the column factors of the
 * draw (in (0, 1], computed by rfx_clushyb_maps_draw). |val| is at most M
 * (zero-one) or (2 nq nk n + 1) M' (Gaussian mixture, M' the larger
 * feature count), so the magnitude lives in rs and cf and the estimate is
 * never formed out of range. Column factors below e^-745 of their row of
 * cf underflow to 0: a column's estimate is then lost when it is that far
 * below the largest of its row, which changes a sum of squared errors by
 * less than its rounding unless the data span e^745. Uses OpenBLAS: see
 * rfx_featmat_gram for threads.
 */
int rfx_clushyb_maps_block(struct rfx_clushyb_maps *m, size_t r0, size_t B,
			   double *val, double *rs, struct rfx_err *err);

/* The row of m->cf that x row r uses: its cluster (zero-one), or 0. */
int rfx_clushyb_row_cluster(const struct rfx_clushyb_maps *m, size_t r);

#endif

/*
 * Shared machinery of the discretely induced random features (thesis
 * sec. 6.4, eq. 6.16): PoisRF and GeomRF and their positive shifted
 * variants. Internal to lib/est/pois.c and lib/est/geom.c.
 *
 * A DIRF feature of x for a draw omega in N^d is
 *   f(omega, x) = exp(-|x|^2/2) prod_l x_l^{omega_l} (omega_l!)^{-1/2} p_{omega_l}^{-1/2}
 * whose logarithm is base - |x|^2/2 + sum_l omega_l (log|x_l| + g) + h(omega)
 * for constants base, g and a per-draw h; the sign is (-1)^(number of l with
 * x_l < 0 and omega_l odd), and the feature is 0 when some x_l = 0 has
 * omega_l > 0.
 */
#ifndef RFX_DIRF_H
#define RFX_DIRF_H

#include <stddef.h>

#include "est/estimator.h"

/*
 * epsilon of the shift c_l = min_i min(x_il, y_il) - epsilon (sec. 6.4.3);
 * the thesis uses 1e-8 (sec. 6.6.2).
 */
#define RFX_DIRF_EPS 1e-8

/*
 * Sets p->c from the sets unless the user gave it: the coordinate-wise
 * minimum over X and Y minus RFX_DIRF_EPS, so X - c and Y - c are positive.
 */
int rfx_dirf_fit_shift(struct rfx_params *p, const char *name,
		       const double *X, size_t nx, const double *Y, size_t ny,
		       struct rfx_err *err);

struct rfx_setstats;

/*
 * The part of fitting PoisRF(+) and GeomRF(+) they share: checks the
 * inputs, fits the shift c of the "+" variants (shifted != 0), and, unless
 * parameter id was given by the user (then *st = NULL and the caller only
 * validates it), computes the statistics of the (shifted) sets into a new
 * *st for the caller to fit from and free.
 */
int rfx_dirf_fit_begin(struct rfx_params *p, const char *name, int shifted,
		       enum rfx_param id, const double *X, size_t nx,
		       const double *Y, size_t ny, int M,
		       struct rfx_setstats **st, struct rfx_err *err);

/*
 * Fills F with the M DIRF features of the n inputs X (shifted by shift when
 * not NULL) for the draws stored as doubles in w->omega (d x cap):
 * log-modulus base - |x|^2/2 + sum_l omega_lm (log|x_l| + g) + colconst[m]
 * - log(M)/2. Keeps the logs of the last few sets of small inputs
 * (n d <= 65536 each) in F (F->dirf), with copies of X, shift and g: a
 * later call for the same inputs and another draw, as Monte Carlo makes
 * and as kernel regression does for each chunk of its training set,
 * takes no log.
 */
void rfx_dirf_features(struct rfx_featmat *F, const struct rfx_draw *w,
		       const double *X, size_t n, int M, const double *shift,
		       double base, double g, const double *colconst);

#endif

/*
 * The synthetic clustered data of HRF appendix H.3: two clusters of x's
 * and two of y's in R^d (d = 50), with the minimal loss s of eq. 21 over
 * real diagonal A controlled for each of the four pairs of clusters.
 *
 * Construction (H.3, with the choices the paper leaves open marked *):
 *  1. X0, Y0 ~ N(0, zeta^2 I_d) (* zeta = mean_sd);
 *  2. four Haar orthogonal O_ij (rfx_proj_haar); cluster means
 *     X_i = O_i1 X0, Y_j = O_j2 Y0, i, j = 1, 2;
 *  3. (* the scale) every point will be multiplied by c_x = r /
 *     sqrt(|X0|^2 + d sigma^2) (c_y alike), which makes E|x|^2 = r^2:
 *     the scaled means are mu_i = c_x X_i, nu_j = c_y Y_j;
 *  4. signs: keeping every |mu_il| and |nu_jl|, the signs of the entries
 *     are chosen so that s_ij = l*(mu_i, nu_j) is as close as possible to
 *     the targets (rfx_clusdata_signs), l* the minimum of eq. 21 over real
 *     diagonal A (rfx_clushyb_loss_min);
 *  5. points per cluster: mu_i + c_x sigma g, g ~ N(0, I_d) (scaling
 *     "mean"), or r (X_i + sigma g)/|X_i + sigma g| with X_i the signed
 *     unscaled mean (scaling "sphere": every point has length r).
 * Since |X_i| = |X0| whatever the rotation and the signs, both scalings
 * give E|x|^2 = r^2 (exactly for "mean", to O(1/d) for "sphere"). The
 * paper states the targets s (two decimals) but not at which scale; they
 * are met at the scale of the data, where eq. 21 is evaluated.
 *
 * Pairs are ordered (1,1), (1,2), (2,1), (2,2), as the paper lists s.
 *
 * Randomness: the stream keyed ("clustered", "data", id, 0) draws X0, Y0,
 * the four rotations and the sign search's starts, the streams keyed
 * ("clustered", "data", id, 1 + c) the
 * points of cluster c (x1, x2, y1, y2), so a configuration's data depend
 * on its id and settings only.
 */
#ifndef RFX_CLUSDATA_H
#define RFX_CLUSDATA_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "base/err.h"

enum rfx_clusdata_scaling {
	RFX_CLUSDATA_MEAN,   /* one factor per side: E|x|^2 = r^2 */
	RFX_CLUSDATA_SPHERE  /* every point scaled to |x| = r */
};

struct rfx_clusdata_config {
	int id;              /* stream index (1..4: the paper's sets; 0: custom) */
	int d;               /* dimension (50) */
	size_t points;       /* points per cluster (1000) */
	double sigma;        /* cluster standard deviation before scaling */
	double s[4];         /* target l* for pairs 11, 12, 21, 22 */
	double mean_sd;      /* zeta: X0, Y0 ~ N(0, zeta^2 I) */
	double norm;         /* r: root mean square length after scaling */
	enum rfx_clusdata_scaling scaling;
	uint64_t seed;
};

struct rfx_clusdata {
	int d;
	size_t nx, ny;       /* 2 * points each */
	double *X;           /* nx x d: cluster 1's points, then cluster 2's */
	double *Y;           /* ny x d */
	double *mu;          /* 2 x d: scaled signed means of the x clusters */
	double *nu;          /* 2 x d: those of the y clusters */
	double s[4];         /* l*(mu_i, nu_j) reached, pairs 11, 12, 21, 22 */
	double cx, cy;       /* the scale factors of step 3 */
};

/* Starts of the sign search (one from no match, the rest random). */
#define RFX_CLUSDATA_STARTS 24

/*
 * Chooses signs for the entries of two pairs of vectors with magnitudes
 * a (2 x d, the x means) and b (2 x d, the y means) so that
 * s_ij = 4 sum_l a_il b_jl [sign x_il = sign y_jl] approaches t (4
 * targets, pairs 11, 12, 21, 22). Signs are relative to a per-coordinate
 * base sign: pattern[l] in 0..7 gives x_1l = +, x_2l = - if bit 0,
 * y_1l = + if bit 1, y_2l = + if bit 2 (else -); so pattern 0 matches no
 * pair and every pattern matches 0, 2 or 4 pairs (a coordinate serves a
 * row, a column or a diagonal of the 2 x 2 table, never one pair alone).
 * The search minimises sum (s_ij - t_ij)^2 by steepest descent over
 * changes of one coordinate's pattern, then of two, from the all-zero
 * pattern and from starts - 1 random sparse ones drawn from r; the best
 * wins. s gets the values reached. RFX_ENOMEM, or RFX_EINVAL for
 * starts < 1.
 */
int rfx_clusdata_signs(const gsl_rng *r, const double *a, const double *b,
		       int d, const double t[4], int starts, int *pattern,
		       double s[4], struct rfx_err *err);

/*
 * Makes the data of configuration c into D (fields allocated here; release
 * with rfx_clusdata_release). RFX_EINVAL for d < 1, points < 1, sigma,
 * mean_sd or norm not positive and finite, a negative or non-finite
 * target; RFX_ENOMEM; RFX_ENUMERIC if a QR factorisation fails.
 */
int rfx_clusdata_make(const struct rfx_clusdata_config *c,
		      struct rfx_clusdata *D, struct rfx_err *err);

/* Frees the arrays of D (a zeroed D is fine). */
void rfx_clusdata_release(struct rfx_clusdata *D);

#endif

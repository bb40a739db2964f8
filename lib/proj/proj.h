/*
 * Projection samplers: the random directions omega_1..omega_M in R^d that
 * Gaussian-induced random features project inputs onto.
 *
 *   iid        omega_m ~ N(0, I_d), independent.
 *   ort        block-orthogonal (thesis Algorithm 2, Yu et al. 2016, the
 *              ORF paper's eq. 2): ceil(M/d) independent Haar-random
 *              orthogonal d x d blocks, the last one truncated to its first
 *              M - d(ceil(M/d) - 1) columns, each column rescaled by an
 *              independent chi(d) norm, so every omega_m is marginally
 *              N(0, I_d) while the columns of a block are orthogonal.
 *              Blocks come from the QR factorisation of a Gaussian matrix
 *              with the columns of Q multiplied by sign(diag R): without
 *              that correction Q is not Haar. Each Householder reflector
 *              picks sign(R_jj) = -sign of the pivot it eliminates, which
 *              ties the signs of Q's diagonal to the data: GSL's Q at d = 5
 *              has P(Q_jj > 0) = 0.00, 0.08, 0.13, 0.16, 0.84 while every
 *              off-diagonal entry is symmetric (tests/t_proj.c checks
 *              diagonals).
 *   orf-prime  the ORF paper's ORF' (eq. 4): the same Haar blocks scaled by
 *              sqrt(d) instead of chi norms. Every column has length
 *              exactly sqrt(d), so omega_m is uniform on that sphere, not
 *              Gaussian: Gaussian-kernel estimates are biased (Theorem 2).
 *   sorf       SORF (eq. 5): blocks sqrt(d') H D1 H D2 H D3 with H the
 *              normalised Walsh-Hadamard matrix (lib/proj/wht.h) of order d',
 *              the smallest power of 2 >= d, and D1, D2, D3 independent
 *              diagonal matrices of Rademacher signs. The columns of omega
 *              are rows of the block: omega_m . x is the m-th coordinate of
 *              the block applied to x zero-padded to length d', so only
 *              the first d entries of each row are kept. For d = d' the d
 *              columns of a block are orthogonal with length sqrt(d); for
 *              d < d' they are the first d coordinates of such columns (an
 *              input in R^d is a padded input in R^{d'}), with
 *              E |omega_m|^2 = d. Blocks hold d' columns. Biased (Theorem 3).
 *   hdhd, hd   SORF with two (sqrt(d') H D1 H D2) or one (sqrt(d') H D1)
 *              Hadamard-diagonal factor (the ORF paper's Fig 5c). hd's
 *              entries are +-1.
 *   halton, halton-rev, sobol
 *              randomised quasi-Monte Carlo (Yang et al. 2014, Avron et al.
 *              2016): points 1..M of GSL's Halton, reverse-Halton or Sobol
 *              sequence in [0,1)^d, all shifted by one uniform random
 *              vector modulo 1 (Cranley-Patterson rotation) and mapped
 *              through the inverse normal CDF coordinate by coordinate.
 *              Each shifted point is uniform on [0,1)^d, so every omega_m
 *              is marginally N(0, I_d) and estimates stay unbiased, while
 *              the M points keep the sequence's low discrepancy. The
 *              sequences exist for d <= 1229 (Halton) and d <= 40 (Sobol).
 *              Every call restarts the sequence: an estimator that draws
 *              two groups of columns (the hybrids) gets two shifted copies
 *              of the same points, which are not independent.
 *   halton-scr scrambled Halton: coordinate l of point m is the radical
 *              inverse of m in the l-th prime p with its digits (K of them,
 *              enough for m < 2^31) mapped through a uniformly random
 *              permutation of 0..p-1 drawn for that coordinate, then the
 *              random shift and the inverse normal CDF as above. Plain
 *              Halton points are useless in high dimension: for p > M the
 *              coordinate is m/p, so the M points lie on a line in all
 *              those coordinates (at d = 1024 and M = 1024, in 852 of
 *              them); the permutations break that while each coordinate
 *              keeps its one-dimensional stratification (random digit
 *              permutations, in the spirit of Kocis and Whiten's RR2 that
 *              the QMC feature-map papers use). d <= 1229.
 *   simplex    simplex random features (SimRF; Reid, Choromanski,
 *              Likhosherstov and Weller, ICML 2023): blocks of d columns
 *              w_i = r_i R s_i with r_i ~ chi(d) i.i.d., R a Haar orthogonal
 *              matrix (sign-corrected, as ort) and s_1..s_d the unit
 *              vertices of a regular simplex centred at 0, s_i . s_j =
 *              -1/(d-1) for i != j: rfx takes s_i = sqrt(d/(d-1)) (e_i -
 *              1/d), so R s_i = sqrt(d/(d-1)) (R_i - mean of R's columns).
 *              Each R s_i is uniform on the sphere and independent of r_i,
 *              so every column is N(0, I_d). d = 1 has the one vertex 1
 *              (simplex is ort there).
 *   simplex+   SimRF+: the simplex block, then 5 sweeps over i = 1..d in
 *              turn (Gauss-Seidel: each update is used by the next), each
 *              replacing direction u_i by -normalise(sum_{j != i} r_j u_j)
 *              (kept when that sum is 0). The directions then depend on
 *              the norms, but the block is R times a function of the
 *              norms with R Haar and independent of them, so u_i is still
 *              uniform and independent of r_i: columns stay N(0, I_d)
 *              (docs/DERIVATIONS.md).
 *   ort-anti   norm-coupled orthogonal features (Reid et al., ICLR 2025):
 *              ort blocks whose chi(d) norms come in antithetic pairs,
 *              columns (1, 2), (3, 4), ... of each block: r = F^-1(u),
 *              r' = F^-1(1 - u) with u uniform and F the chi(d) CDF (GSL's
 *              chi^2 quantiles, the upper one for 1 - u); an odd d leaves
 *              the last column's norm independent. Each norm is chi(d), so
 *              columns are N(0, I_d).
 *
 * The M columns drawn from a stream are the first M of the M' > M columns
 * the same stream would give, for every kind, so studies over M can share
 * draws.
 *
 * Omega is stored d x ld row-major with ld >= col0 + M:
 * component l of omega_m is omega[l * ld + m]. With inputs stored n x d
 * row-major, the projections X Omega are one row-major dgemm.
 */
#ifndef RFX_PROJ_H
#define RFX_PROJ_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"

enum rfx_proj {
	RFX_PROJ_IID,
	RFX_PROJ_ORT,
	RFX_PROJ_ORF_PRIME,
	RFX_PROJ_SORF,
	RFX_PROJ_HDHD,
	RFX_PROJ_HD,
	RFX_PROJ_HALTON,
	RFX_PROJ_HALTON_REV,
	RFX_PROJ_SOBOL,
	RFX_PROJ_HALTON_SCR,
	RFX_PROJ_SIMPLEX,
	RFX_PROJ_SIMPLEX_PLUS,
	RFX_PROJ_ORT_ANTI
};

/* The description of a result table's projection column (io/table.h). */
#define RFX_DESC_PROJECTION "projection kind of the random directions (iid, ort, sorf, ...)"

/* The names, comma-separated, for help texts and messages. */
#define RFX_PROJ_NAMES \
	"iid, ort, orf-prime, sorf, hdhd, hd, halton, halton-rev, sobol, " \
	"halton-scr, simplex, simplex+, ort-anti"

/* Parses a name of RFX_PROJ_NAMES; an unknown one is RFX_EINVAL listing them. */
int rfx_proj_parse(const char *name, enum rfx_proj *out, struct rfx_err *err);

/* The name of p ("iid", "sorf", ...); "unknown" for a value out of range. */
const char *rfx_proj_name(enum rfx_proj p);

/*
 * 1 when every column is marginally N(0, I_d), so that estimators stay
 * unbiased (iid, ort and the quasi-Monte Carlo kinds); 0 for orf-prime
 * and the Hadamard kinds.
 */
int rfx_proj_gaussian(enum rfx_proj p);

/*
 * Columns per independent block in dimension d: d for ort and orf-prime,
 * the power of 2 d' >= d for sorf, hdhd and hd, 1 for iid, and 0 for the
 * quasi-Monte Carlo kinds (all M columns are one point set).
 */
int rfx_proj_block(enum rfx_proj p, int d);

/*
 * RFX_OK when kind p can sample in dimension d; RFX_EINVAL naming the
 * limit otherwise (d < 1; halton and halton-rev d > 1229, sobol d > 40),
 * so that callers can refuse a configuration before any work.
 */
int rfx_proj_check(enum rfx_proj p, int d, struct rfx_err *err);

/* Scratch space for sampling in dimension d (QR blocks, transforms, sequences). */
struct rfx_proj_ws;

/*
 * Allocates a workspace for dimension d >= 1; NULL when out of memory. It
 * holds O(d) memory until a block kind (ort, orf', simplex, simplex+,
 * ort-anti) or rfx_proj_haar first samples with it, which adds the d x d
 * matrices of the QR factorisation.
 */
struct rfx_proj_ws *rfx_proj_ws_alloc(int d);

/* Frees a workspace; NULL is a no-op. */
void rfx_proj_ws_free(struct rfx_proj_ws *ws);

/*
 * Fills columns col0 .. col0+M-1 of omega (d x ld row-major) with M
 * projections of kind p. ws must have been allocated for this d (it may be
 * NULL for iid). Returns RFX_EINVAL for d < 1, M < 1, col0 + M > ld, a
 * missing workspace or a dimension the sequence does not have (halton
 * and halton-rev d > 1229, sobol d > 40), RFX_ENOMEM when the d x d
 * matrices of a block kind cannot be had, RFX_ENUMERIC if a QR
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
 * for a missing argument or a workspace of another dimension, RFX_ENOMEM
 * when its d x d matrices cannot be had, RFX_ENUMERIC if the QR
 * factorisation fails.
 */
int rfx_proj_haar(const gsl_rng *r, int d, double *Q, struct rfx_proj_ws *ws,
		  struct rfx_err *err);

#endif

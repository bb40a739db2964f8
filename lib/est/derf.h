/*
 * Dense-exponential random features (DERFs; Likhosherstov et al., NeurIPS
 * 2023, "FAVOR#"): the part shared by rfx's three of them, sderf, aderf
 * and saderf (lib/est/sderf.c, aderf.c, saderf.c, which hold the fits).
 * docs/DERIVATIONS.md derives everything below.
 *
 * For the Gaussian kernel K = exp(-|x - y|^2/2) (rfx's convention; the
 * softmax kernel exp(x.y) is K e^{|x|^2/2 + |y|^2/2}) the features are
 *
 *   f_k(w, x) = D exp(w^T A w + w^T B_k x + x^T C_k x - |x|^2/2), k = 1, 2,
 *
 * w ~ N(0, I_d), A symmetric with I - 8A positive definite (finite
 * variance; I - 4A > 0 for the mean), and unbiased iff
 *   B_1^T P B_2 = I,  C_k = -B_k^T P B_k / 2,  D = det(I - 4A)^{1/4},
 * P = (I - 4A)^{-1}. One feature's variance is
 *   Var = K^2 expm1(la + z^T Q P z),  z = B_1 x + B_2 y, Q = (I - 8A)^{-1},
 *   la = log det(I - 4A) - log det(I - 8A)/2 >= 0,
 * a sum of non-negative terms, so it is exact even when Var << K^2.
 *
 * Canonical frame. With A = U diag(a) U^T, the estimator with parameters
 * (A, B_k) on directions w has the law of the one with (diag(a), U^T B_k)
 * on U^T w, for i.i.d. directions and for every rotation-invariant
 * coupling (ort, simplex, ...; quasi-Monte Carlo points stay marginally
 * Gaussian, so unbiased). rfx stores the parameters in that frame: the
 * d + 2 d^2 doubles of p->dense are a (the eigenvalues of A), then B_1
 * and B_2 (d x d row-major, already multiplied by U^T). Then
 * w^T A w = sum_l a_l w_l^2 and x^T C_k x = -sum_l (B_k x)_l^2/(2(1-4a_l)):
 * a feature map costs one extra d x d product per input, X B_k^T (a
 * scaling for SADERF's diagonal B_k; for SDERF one d x d x M product per
 * call, B^T omega, instead).
 */
#ifndef RFX_DERF_H
#define RFX_DERF_H

#include "est/estimator.h"

/* The parts of p->dense (p->dense must be set). */
static inline double *rfx_derf_a(const struct rfx_params *p)
{
	return p->dense;
}

static inline double *rfx_derf_b(const struct rfx_params *p, int k)
{
	return p->dense + p->d + (k == 1 ? 0 : (size_t)p->d * (size_t)p->d);
}

/* Allocates p->dense if it is NULL; RFX_ENOMEM on failure. */
int rfx_derf_alloc(struct rfx_params *p, struct rfx_err *err);

/*
 * RFX_OK when p->dense is set and every 1 - 8 a_l > 0 (O(d), for the
 * hooks); RFX_EINVAL naming the estimator otherwise.
 */
int rfx_derf_check(const struct rfx_params *p, const char *name,
		   struct rfx_err *err);

/*
 * rfx_derf_check and the unbiasedness condition B_1^T P B_2 = I to 1e-8
 * (relative to the largest |B| entries; RFX_ENUMERIC otherwise). O(d^3):
 * the fits call it once on what they produce.
 */
int rfx_derf_check_unbiased(const struct rfx_params *p, const char *name,
			    struct rfx_err *err);

/* la = sum_l log(1 - 4a_l) - log(1 - 8a_l)/2, without cancellation. */
double rfx_derf_la(const double *a, int d);

/* The log_variance and features hooks of all three estimators. */
int rfx_derf_log_variance(const struct rfx_params *p,
			  const struct rfx_block *b, int M, double *out,
			  struct rfx_err *err);
int rfx_derf_features(const struct rfx_params *p, const struct rfx_draw *w,
		      int side, const double *X, size_t n, int M,
		      struct rfx_featmat *F, struct rfx_err *err);
int rfx_derf_features32(const struct rfx_params *p,
			const struct rfx_draw32 *w, int side, const float *X,
			size_t n, int M, struct rfx_featmat32 *F,
			struct rfx_err *err);

/*
 * SDERF's features and features32 hooks: the same features from B^T
 * omega and the row constant -|x|^2 (B_1 = B_2 = B with B^T P B = I
 * makes the per-row terms 2|x|^2; see derf.c).
 */
int rfx_derf_features_sym(const struct rfx_params *p,
			  const struct rfx_draw *w, int side, const double *X,
			  size_t n, int M, struct rfx_featmat *F,
			  struct rfx_err *err);
int rfx_derf_features_sym32(const struct rfx_params *p,
			    const struct rfx_draw32 *w, int side,
			    const float *X, size_t n, int M,
			    struct rfx_featmat32 *F, struct rfx_err *err);

/*
 * The statistics the fits use: second-moment matrices Mx = mean x x^T,
 * My = mean y y^T (d x d, row-major; only their diagonals when diag_only,
 * for saderf's O(d L) fit, the rest then unset) and the means mx, my.
 */
struct rfx_derf_moments {
	int d;
	double *Mx, *My; /* d x d */
	double *mx, *my; /* d */
};

int rfx_derf_moments_init(struct rfx_derf_moments *m, int d,
			  const double *X, size_t nx, const double *Y,
			  size_t ny, int diag_only, struct rfx_err *err);
void rfx_derf_moments_release(struct rfx_derf_moments *m);

/*
 * The fitting objective, the mean over all pairs (x_i, y_j) of
 * log(E f_1^2 f_2^2 / K^2) = la + tr(QP E[z z^T]), from the moments (full
 * matrices): the part of the mean log second moment that depends on the
 * parameters (OPRF's objective, thesis eq. 6.15, for matrices).
 */
double rfx_derf_objective(const struct rfx_params *p,
			  const struct rfx_derf_moments *m);

/*
 * The minimiser over symmetric A of la + tr(Q S) for the d x d symmetric
 * positive semi-definite S (row-major; destroyed): with S = V diag(s) V^T,
 * a_l = (1 - 1/rho_l)/8 with rho_l the positive root of
 * 2 s_l rho^2 + (2 s_l + 1) rho - 1 = 0 (OPRF's eq. 6.14 at d = 1). Sets
 * p->dense to a, B_1 = diag(sqrt(1-4a)) V^T G, B_2 = diag(sqrt(1-4a)) V^T H
 * with G, H d x d (H = G^{-T}), or the identity for NULL.
 */
int rfx_derf_fit_sigma(struct rfx_params *p, double *S, const double *G,
		       const double *H, struct rfx_err *err);

/*
 * Runs fit (an estimator's own fit) in the r = nx + ny dimensional span
 * of the inputs and extends the result to p->d dimensions exactly (see
 * derf.c); for r < d, where it turns O(d^3) into O(d^2 r).
 */
int rfx_derf_fit_reduced(struct rfx_params *p, const double *X, size_t nx,
			 const double *Y, size_t ny, int M,
			 int (*fit)(struct rfx_params *, const double *, size_t,
				    const double *, size_t, int,
				    struct rfx_err *),
			 struct rfx_err *err);

/* OPRF's rho for statistic v in dimension d (positive root, no cancellation). */
double rfx_derf_rho(double v, double d);

#endif

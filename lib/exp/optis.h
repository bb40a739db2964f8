/*
 * Optimal importance sampling of random features ("All Random Features
 * Representations are Equivalent", docs/EQUIVALENCE.md): the data-averaged
 * variances of its Theorem 1 and Corollaries 1-2 for two data sets.
 *
 * Notation: X is nx x d, Y is ny x d (rows are points); D_x and D_y are
 * the empirical distributions of their rows, x ~ D_x and y ~ D_y drawn
 * independently, so E_{x,y} averages over all nx * ny pairs (i, j),
 * including i = j when X and Y are the same set. k is the Gaussian kernel
 * exp(-|x - y|^2/2) or the softmax kernel exp(x.y) (lib/num/kernel.h). All
 * variances are of ONE sample (M = 1); M iid samples divide them by M.
 * Everything is a logarithm (lib/num/logmath.h); -inf means exactly zero.
 */
#ifndef RFX_OPTIS_H
#define RFX_OPTIS_H

#include <stddef.h>

#include "base/err.h"
#include "est/estimator.h"

enum rfx_optis_kernel {
	RFX_OPTIS_GAUSS,   /* K(x, y) = exp(-|x - y|^2 / 2) */
	RFX_OPTIS_SOFTMAX  /* SM(x, y) = exp(x.y) */
};

struct rfx_optis_moments {
	double log_kxx;    /* log E_x k(x, x) */
	double log_kyy;    /* log E_y k(y, y) */
	double log_k2;     /* log E_{x,y} k(x, y)^2 */
	double log_bound;  /* log(E_x k(x,x) E_y k(y,y) - E_{x,y} k(x,y)^2) */
};

/*
 * The representation-free quantities of Corollaries 1 and 2 for X against
 * Y. log_bound is Corollary 1's upper bound on the optimal variance V* of
 * every real scalar representation; when X and Y are the same set it is
 * V* itself (Corollary 2). It is summed pair by pair as
 * k(x,x) k(y,y) (1 - e^{-|x - y|^2}), non-negative terms, so it carries no
 * cancellation even when E k^2 is within rounding of E k(x,x) E k(y,y).
 * RFX_EINVAL for d < 1, an empty set or a non-finite or huge coordinate
 * (rfx_params_check_dim's rules).
 */
int rfx_optis_moments(enum rfx_optis_kernel kern, const double *X, size_t nx,
		      const double *Y, size_t ny, int d,
		      struct rfx_optis_moments *m, struct rfx_err *err);

/*
 * log of the plain-sampling (w ~ p) expected one-sample variance
 * E_{x,y} Var_p of estimator e for kernel kern: the average over the pairs
 * of e's closed-form per-pair variance (e->log_variance, of the Gaussian
 * kernel; times e^{|x|^2 + |y|^2} for the softmax one, lib/num/kernel.h), with
 * e's parameters fitted on X and Y for M = 1. The theorem covers e only
 * when its estimate is a product phi(x, w) phi(y, w) of one real feature
 * (PosRF, OPRF); TrigRF takes the real part of a complex product, which
 * it does not cover (docs/EQUIVALENCE.md). Errors: those of e's fit.
 */
int rfx_optis_plain(const struct rfx_estimator_type *e,
		    enum rfx_optis_kernel kern, const double *X, size_t nx,
		    const double *Y, size_t ny, int d, double *log_v,
		    struct rfx_err *err);

/*
 * The same for the real cosine form of TrigRF, phi(x, (w, b)) =
 * sqrt(2) cos(w.x + b), w ~ N(0, I_d), b ~ U[0, 2 pi), which rfx has no
 * estimator for: per pair Var = 1 - K^2 + K^4/2 for the Gaussian kernel
 * (docs/EQUIVALENCE.md), times e^{|x|^2 + |y|^2} for the softmax one.
 */
int rfx_optis_plain_cos(enum rfx_optis_kernel kern, const double *X,
			size_t nx, const double *Y, size_t ny, int d,
			double *log_v, struct rfx_err *err);

#endif

/*
 * Non-parametric classification by kernel regression with the Gaussian
 * kernel (Nadaraya-Watson, thesis sec. 2.1.1, eq. 2.1), exactly and through
 * random features (Algorithm 1), as in thesis sec. 6.6.2.
 *
 * Notation: L training inputs o_i with classes c_i in 0..n-1, one-hot
 * labels C (L x n, row i = e_{c_i}); a query o* gets the score vector
 *
 *   s(o*)_c = sum_i K(gamma o*, gamma o_i) C_ic        (numerator of 2.1)
 *
 * and the predicted class argmax_c s_c. The denominator of eq. 2.1 is the
 * same positive number for every c and is dropped, which is what lets
 * features of any sign be used (sec. 6.6.2). Eq. 2.1 and Algorithm 1 print
 * the roles of the two sets the other way round; see docs/ERRATA.md, E9.
 *
 * Random features (Algorithm 1): with S2 the features f^(2) of the gamma-
 * scaled training inputs (side 2) and S1 the features f^(1) of the scaled
 * queries (side 1), s = Re(S1 (S2^T C)). rfx features carry a per-row
 * scale e^{lscale} (lib/est/featmap.h); a query row's own scale multiplies
 * all its scores and is irrelevant to the argmax, while training rows'
 * scales weight their rows of S2^T C: they are folded in relative to the
 * largest one, so no weight overflows. Since C is one-hot, S2^T C is the
 * class-wise sum of S2's rows: it is accumulated row by row (L D flops
 * instead of the L D n of a dgemm with C); S1 (S2^T C) is one dgemm for
 * real features and two (Re a Re b - Im a Im b, no conjugation) for complex
 * ones.
 *
 * Classes: the argmax runs over the classes that occur among the training
 * labels (a class without training examples has s_c = 0 identically in the
 * exact method, and would otherwise win against negative estimates); ties
 * go to the lowest class index.
 *
 * PoisRF+ and GeomRF+ act on x - c with the shift c fitted on the
 * training set. Queries are clamped coordinate-wise to x_l >= c_l + 1e-8
 * (RFX_KREG_CLAMP_EPS) before their features are computed, so that their
 * shifted coordinates are positive as well, as sec. 6.6.2 prescribes
 * ("we clamp validation and test input features to be at least epsilon").
 */
#ifndef RFX_KREG_H
#define RFX_KREG_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "est/estimator.h"
#include "proj/proj.h"

/* epsilon of the query clamp for shifted estimators (thesis sec. 6.6.2). */
#define RFX_KREG_CLAMP_EPS 1e-8

/*
 * Exact kernel regression for several gammas at once: pred[g * nq + j] is
 * the class predicted for query j (row j of Q, nq x d) at gammas[g], from
 * the L training rows Xtr (L x d) with labels ytr in 0..nclass-1. Scores
 * are summed in the log domain per class (log-sum-exp), so they stay
 * exact when every kernel value underflows (large gamma: the prediction
 * tends to the nearest neighbour's class). Squared distances come from
 * dgemm blocks of queries, computed once for all gammas. Runs its query
 * blocks in parallel with OpenMP when called outside a parallel region
 * (OpenBLAS single-threaded meanwhile); the result does not depend on the
 * thread count. RFX_EINVAL for empty sets, nclass < 1, a label out of
 * range or a gamma that is not positive and finite; RFX_ENOMEM;
 * RFX_EINTR when cancelled.
 */
int rfx_kreg_exact(const double *Xtr, const int *ytr, size_t L, int d,
		   int nclass, const double *Q, size_t nq, const double *gammas,
		   int ng, int *pred, struct rfx_err *err);

/* A random-feature classifier: one draw of estimator e, trained on a set. */
struct rfx_kreg_rf;

/*
 * Allocates a classifier for estimator e with fitted parameters p (copied;
 * p->d is the dimension), budget M (as for e->draw; the feature maps have
 * rfx_estimator_feature_dim(e, p, M) columns), n classes, processing inputs
 * in chunks of `chunk` rows (0: 1024). NULL with err set when out of
 * memory or for M < 1, nclass < 1.
 */
struct rfx_kreg_rf *rfx_kreg_rf_alloc(const struct rfx_estimator_type *e,
				      const struct rfx_params *p, int M,
				      int nclass, size_t chunk,
				      struct rfx_err *err);

/* Frees; NULL is a no-op. */
void rfx_kreg_rf_free(struct rfx_kreg_rf *k);

/*
 * Replaces the parameters by p (copied; same estimator and dimension), so
 * that one classifier serves every gamma without reallocating. RFX_EINVAL
 * when p needs more feature columns than k was allocated for; the
 * classifier must be trained again before it predicts.
 */
int rfx_kreg_rf_set_params(struct rfx_kreg_rf *k, const struct rfx_params *p,
			   struct rfx_err *err);

/*
 * Draws the estimator's randomness from r (projections proj; ignored by
 * discrete estimators) and accumulates S2^T C over the L training rows
 * Xtr (L x d, already scaled by gamma) with labels ytr. Errors from the
 * estimator's draw and features; RFX_EINVAL for a label out of range.
 */
int rfx_kreg_rf_train(struct rfx_kreg_rf *k, const gsl_rng *r,
		      enum rfx_proj proj, const double *Xtr, const int *ytr,
		      size_t L, struct rfx_err *err);

/*
 * Scores of the nq queries Q (nq x d, scaled by gamma): the random-feature
 * estimate of s(o*_j)_c is S[j * nclass + c] * exp(lscale[j]) (lscale may
 * be NULL when only the argmax matters). Queries are clamped first for
 * shifted estimators (Q itself is not changed).
 */
int rfx_kreg_rf_scores(struct rfx_kreg_rf *k, const double *Q, size_t nq,
		       double *S, double *lscale, struct rfx_err *err);

/* Predicted classes of the nq queries Q (argmax of the scores) into pred. */
int rfx_kreg_rf_predict(struct rfx_kreg_rf *k, const double *Q, size_t nq,
			int *pred, struct rfx_err *err);

/* Feature columns in use (HybRF: 2 (M3 + 1) M1 <= M). */
int rfx_kreg_rf_features(const struct rfx_kreg_rf *k);

/* Number of correct predictions: entries with pred[j] == y[j]. */
size_t rfx_kreg_correct(const int *pred, const int *y, size_t n);

#endif

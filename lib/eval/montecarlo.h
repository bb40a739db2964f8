/*
 * Empirical (Monte Carlo) evaluation of any registered estimator: R
 * independent draws of the M-feature estimator for given pairs, their
 * sample mean and variance, with standard errors.
 *
 * Estimates are carried as (log|value|, sign) so that pairs whose kernel
 * or variance is far outside double range are still handled; summaries
 * rescale by the largest estimate before summing.
 *
 * The variance's standard error uses the sample fourth central moment,
 * se(s^2) = sqrt((m4 - s^4 (R - 3)/(R - 1)) / R), and is carried to the log
 * scale by the delta method, se(log s^2) = se(s^2) / s^2. For heavy-tailed
 * estimators (PosRF at large norms) the fourth moment itself is unreliable
 * and so is this error bar: the sample variance then typically sits below
 * the analytic one.
 */
#ifndef RFX_MONTECARLO_H
#define RFX_MONTECARLO_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "est/estimator.h"

struct rfx_mc_result {
	long R;            /* draws */
	double mean;       /* sample mean of the estimates */
	double mean_se;    /* its standard error */
	double log_var;    /* log of the sample variance (-inf if all equal) */
	double log_var_se; /* delta-method standard error of log_var */
};

/*
 * Summarises R estimates given as log|e_r| (logabs) and sign (sgn) with
 * stride between consecutive draws.
 */
void rfx_mc_summarize(const double *logabs, const signed char *sgn, size_t R,
		      size_t stride, struct rfx_mc_result *res);

/*
 * Draws R independent M-feature estimators of e (parameters p, projection
 * proj) from r and evaluates each on the P pairs (X[k], Y[k]), k < P (X, Y
 * are P x d row-major); res[k] summarises pair k. Every pair sees the same
 * draws, so results for different pairs are correlated but each is a valid
 * summary. Checks rfx_cancel_requested() between draws (RFX_EINTR).
 */
int rfx_mc_pairs(const struct rfx_estimator_type *e,
		 const struct rfx_params *p, enum rfx_proj proj, int M,
		 const double *X, const double *Y, size_t P, long R,
		 const gsl_rng *r, struct rfx_mc_result *res,
		 struct rfx_err *err);

/*
 * The raw estimates behind rfx_mc_pairs: R draws from r, each evaluated
 * on the P pairs; draw q's estimate for pair k goes to logabs[q P + k]
 * (log|value|, -inf for 0) and sign[q P + k] (-1, 0, +1). The arrays hold
 * R P entries. Consumes r exactly as rfx_mc_pairs does.
 */
int rfx_mc_estimates(const struct rfx_estimator_type *e,
		     const struct rfx_params *p, enum rfx_proj proj, int M,
		     const double *X, const double *Y, size_t P, long R,
		     const gsl_rng *r, double *logabs, signed char *sign,
		     struct rfx_err *err);

/*
 * rfx_mc_pairs through the feature maps even where the estimator has a
 * faster estimate hook: tests use it to check the maps.
 */
int rfx_mc_pairs_features(const struct rfx_estimator_type *e,
			  const struct rfx_params *p, enum rfx_proj proj,
			  int M, const double *X, const double *Y, size_t P,
			  long R, const gsl_rng *r, struct rfx_mc_result *res,
			  struct rfx_err *err);

#endif

/*
 * Monte Carlo evaluation: draw the estimator's randomness R times, compute
 * the features of the inputs, evaluate each pair's estimate, and summarise
 * the R estimates per pair. The only estimator-specific code is behind the
 * registry's draw/features hooks, so this checks every closed form against
 * the same machinery.
 */
#include "eval/montecarlo.h"

#include <math.h>
#include <stdlib.h>

#include "base/cancel.h"

void rfx_mc_summarize(const double *logabs, const signed char *sgn, size_t R,
		      size_t stride, struct rfx_mc_result *res)
{
	double scale = -INFINITY, mean = 0.0, m2 = 0.0, m4 = 0.0, var, se2;
	size_t r;

	res->R = (long)R;
	for (r = 0; r < R; r++)
		if (sgn[r * stride] && logabs[r * stride] > scale)
			scale = logabs[r * stride];
	if (scale == -INFINITY || R < 2) {
		/* All estimates are zero (or a single draw): no spread. */
		res->mean = 0.0;
		res->mean_se = 0.0;
		res->log_var = -INFINITY;
		res->log_var_se = 0.0;
		if (R == 1 && scale != -INFINITY)
			res->mean = sgn[0] * exp(logabs[0]);
		return;
	}
	/* Two passes on the rescaled values: mean, then central moments. */
	for (r = 0; r < R; r++)
		if (sgn[r * stride])
			mean += sgn[r * stride] * exp(logabs[r * stride] - scale);
	mean /= (double)R;
	for (r = 0; r < R; r++) {
		double e = sgn[r * stride] ? sgn[r * stride] *
						     exp(logabs[r * stride] - scale)
					   : 0.0;
		double z = (e - mean) * (e - mean);

		m2 += z;
		m4 += z * z;
	}
	var = m2 / (double)(R - 1);
	m4 /= (double)R;
	/*
	 * Beyond e^709 the mean and its error overflow to +-inf (log_var is
	 * still exact); an exact zero mean stays 0 rather than 0 * inf = NaN.
	 */
	res->mean = mean != 0.0 ? mean * exp(scale) : 0.0;
	res->mean_se = sqrt(var / (double)R) * exp(scale);
	if (!(var > 0.0)) {
		res->log_var = -INFINITY;
		res->log_var_se = 0.0;
		return;
	}
	res->log_var = log(var) + 2.0 * scale;
	/* R is unsigned: R - 3 must be formed in double (R = 2 is allowed). */
	se2 = (m4 - var * var * ((double)R - 3.0) / ((double)R - 1.0)) /
	      (double)R;
	res->log_var_se = se2 > 0.0 ? sqrt(se2) / var : 0.0;
}

static int mc_estimates(const struct rfx_estimator_type *e,
			const struct rfx_params *p, enum rfx_proj proj, int M,
			const double *X, const double *Y, size_t P, long R,
			const gsl_rng *r, double *labs, signed char *sg,
			int via_features, struct rfx_err *err)
{
	struct rfx_draw *w = NULL;
	struct rfx_featmat *F1 = NULL, *F2 = NULL;
	int ret = RFX_ENOMEM, D;
	long q;
	size_t k;

	if (R < 1)
		return rfx_error(err, RFX_EINVAL,
				 "Monte Carlo needs at least 1 draw, got %ld", R);
	if (P == 0)
		return rfx_error(err, RFX_EINVAL, "Monte Carlo needs pairs");
	D = rfx_estimator_feature_dim(e, p, M);
	if (D < 1)
		return rfx_error(err, RFX_EINVAL, "%s: no features for M = %d",
				 e->name, M);
	/* Feature dimension D can exceed M only by construction errors. */
	w = rfx_draw_alloc(p->d, D > M ? D : M);
	if (!e->estimate || via_features) {
		F1 = rfx_featmat_alloc(P, D > M ? D : M);
		F2 = rfx_featmat_alloc(P, D > M ? D : M);
	}
	if (!w || ((!e->estimate || via_features) && (!F1 || !F2))) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for %ld Monte Carlo draws", R);
		goto out;
	}
	for (q = 0; q < R; q++) {
		if ((q & 63) == 0 && rfx_cancel_requested()) {
			ret = rfx_error(err, RFX_EINTR, "interrupted");
			goto out;
		}
		ret = e->draw(r, proj, p, M, w, err);
		if (ret)
			goto out;
		if (e->estimate && !via_features) {
			ret = e->estimate(p, w, X, Y, P, M, labs + (size_t)q * P,
					  sg + (size_t)q * P, err);
			if (ret)
				goto out;
			continue;
		}
		ret = e->features(p, w, 1, X, P, M, F1, err);
		if (ret)
			goto out;
		ret = e->features(p, w, 2, Y, P, M, F2, err);
		if (ret)
			goto out;
		for (k = 0; k < P; k++) {
			int s;

			rfx_featmat_estimate(F1, k, F2, k, &labs[(size_t)q * P + k],
					     &s);
			sg[(size_t)q * P + k] = (signed char)s;
		}
	}
	ret = RFX_OK;
out:
	rfx_draw_free(w);
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	return ret;
}

int rfx_mc_estimates(const struct rfx_estimator_type *e,
		     const struct rfx_params *p, enum rfx_proj proj, int M,
		     const double *X, const double *Y, size_t P, long R,
		     const gsl_rng *r, double *logabs, signed char *sign,
		     struct rfx_err *err)
{
	return mc_estimates(e, p, proj, M, X, Y, P, R, r, logabs, sign, 0,
			    err);
}

static int mc_pairs(const struct rfx_estimator_type *e,
		    const struct rfx_params *p, enum rfx_proj proj, int M,
		    const double *X, const double *Y, size_t P, long R,
		    const gsl_rng *r, struct rfx_mc_result *res, int via_features,
		    struct rfx_err *err)
{
	double *labs = NULL;
	signed char *sg = NULL;
	int ret;
	size_t k;

	if (R < 2)
		return rfx_error(err, RFX_EINVAL,
				 "Monte Carlo needs at least 2 draws, got %ld", R);
	if (P == 0)
		return rfx_error(err, RFX_EINVAL, "Monte Carlo needs pairs");
	labs = malloc((size_t)R * P * sizeof(double));
	sg = malloc((size_t)R * P);
	if (!labs || !sg) {
		free(labs);
		free(sg);
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for %ld Monte Carlo draws", R);
	}
	ret = mc_estimates(e, p, proj, M, X, Y, P, R, r, labs, sg,
			   via_features, err);
	if (!ret)
		for (k = 0; k < P; k++)
			rfx_mc_summarize(labs + k, sg + k, (size_t)R, P, &res[k]);
	free(labs);
	free(sg);
	return ret;
}

int rfx_mc_pairs(const struct rfx_estimator_type *e,
		 const struct rfx_params *p, enum rfx_proj proj, int M,
		 const double *X, const double *Y, size_t P, long R,
		 const gsl_rng *r, struct rfx_mc_result *res,
		 struct rfx_err *err)
{
	return mc_pairs(e, p, proj, M, X, Y, P, R, r, res, 0, err);
}

int rfx_mc_pairs_features(const struct rfx_estimator_type *e,
			  const struct rfx_params *p, enum rfx_proj proj,
			  int M, const double *X, const double *Y, size_t P,
			  long R, const gsl_rng *r, struct rfx_mc_result *res,
			  struct rfx_err *err)
{
	return mc_pairs(e, p, proj, M, X, Y, P, R, r, res, 1, err);
}

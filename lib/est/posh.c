/*
 * The positive random features of the HRF paper (eq. 3 and Lemma 2.2),
 * which it calls FAVOR+: each projection w gives the pair of features
 * exp(+w.x) and exp(-w.x) (each times 1/sqrt 2), so one feature's product
 * is cosh(w.(x + y)) and the estimator of the Gaussian kernel is
 *   (1/M) sum_m cosh(w_m.(x + y)) e^{-|x|^2 - |y|^2}.
 * (The thesis' PosRF, 'pos', is the one-sided exp(w.x) alone.)
 *
 * With z = x + y, E cosh(w.z) = e^{|z|^2/2} and
 * Var cosh(w.z) = (1 + E cosh(2 w.z))/2 - e^{|z|^2} = (e^{|z|^2} - 1)^2/2,
 * so for M projections
 *   Var = K^2 e^{|z|^2} (1 - e^{-|z|^2})^2 / (2M),
 * Lemma 2.2's MSE(SM^{++}) = (2m)^{-1} e^{|z|^2} SM^2 (1 - e^{-|z|^2})^2
 * after the factor e^{-|x|^2-|y|^2} between the two kernels. M counts
 * projections; the map has 2M real features (RFX_EST_PAIRED).
 */
#include <math.h>

#include "est/estimator.h"
#include "num/logmath.h"

static int posh_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return rfx_params_check_dim(p, "posh", X, nx, Y, ny, M, err);
}

RFX_SIMD_CLONES
static int posh_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	size_t k, np = b->nx * b->ny;
	double lm = log(2.0 * M);
	const double *dd = b->dd, *ss = b->ss;

	(void)p;
	(void)err;
#pragma omp simd
	for (k = 0; k < np; k++)
		out[k] = -dd[k] + ss[k] + 2.0 * rfx_log1mexp(-ss[k]) - lm;
	return RFX_OK;
}

static int posh_feature_dim(const struct rfx_params *p, int M)
{
	(void)p;
	return 2 * M;
}

/* exp(+-w.x - |x|^2) / sqrt(2M) from the M projections. */
static int posh_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	(void)p;
	(void)side;
	(void)err;
	rfx_featmat_exp_paired(F, w, X, n, M, -1.0, -0.5 * log(2.0 * M));
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_posh = {
	.name = "posh",
	.title = "HRF's positive estimator, exp(+w.x) and exp(-w.x) (HRF eq. 3)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.flags = RFX_EST_POSITIVE | RFX_EST_PAIRED,
	.params = 0,
	.fit = posh_fit,
	.log_variance = posh_log_variance,
	.feature_dim = posh_feature_dim,
	.draw = rfx_draw_gaussian,
	.features = posh_features,
};

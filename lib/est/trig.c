/*
 * TrigRF (Rahimi & Recht 2007; thesis sec. 2.1.3): f1 = exp(i w.x),
 * f2 = exp(-i w.y), w ~ N(0, I_d), so Re f1 f2 = cos(w.(x - y)).
 *
 * Variance of one feature: E cos^2 - K^2 = (1 + E cos(2 w.z))/2 - K^2 with
 * z = x - y and E cos(2 w.z) = K^4, hence (1 - K^2)^2 / 2 (thesis eq. 2.12;
 * eq. 2.10 drops the square, see docs/ERRATA.md). In logs
 * 2 log(1 - e^{-|x-y|^2}) - log 2M, exact for close points too.
 */
#include <math.h>

#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"

static int trig_fit(struct rfx_params *p, const double *X, size_t nx,
		    const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return rfx_params_check_dim(p, "trig", X, nx, Y, ny, M, err);
}

RFX_SIMD_CLONES
static int trig_log_variance(const struct rfx_params *p,
			     const struct rfx_block *b, int M, double *out,
			     struct rfx_err *err)
{
	size_t k, np = b->nx * b->ny;
	double lm = log(2.0 * M);
	const double *dd = b->dd;

	(void)p;
	(void)err;
#pragma omp simd
	for (k = 0; k < np; k++)
		out[k] = -dd[k];
	rfx_vmath_log1mexp(out, out, np);
#pragma omp simd
	for (k = 0; k < np; k++)
		out[k] = 2.0 * out[k] - lm;
	return RFX_OK;
}

/* Fused projection and sincos, lib/est/featmap.c. */
static int trig_features(const struct rfx_params *p, const struct rfx_draw *w,
			 int side, const double *X, size_t n, int M,
			 struct rfx_featmat *F, struct rfx_err *err)
{
	(void)p;
	(void)err;
	rfx_featmat_trig(F, w, X, n, M, side == 1 ? 1.0 : -1.0,
			 -0.5 * log((double)M));
	return RFX_OK;
}

/* The same in float32 (lib/est/featmap32.c). */
static int trig_features32(const struct rfx_params *p,
			   const struct rfx_draw32 *w, int side, const float *X,
			   size_t n, int M, struct rfx_featmat32 *F,
			   struct rfx_err *err)
{
	(void)p;
	(void)err;
	rfx_featmat32_trig(F, w, X, n, M, side == 1 ? 1.0f : -1.0f,
			   -0.5 * log((double)M));
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_trig = {
	.name = "trig",
	.title = "TrigRF, Rahimi & Recht's random Fourier features (thesis sec. 2.1.3)",
	/* rff: the ORF paper's name (sec. 1, "Random Fourier Features (RFF)") */
	/* trigrf: the thesis' name (sec. 2.1.3, "TrigRFs") */
	.aliases = "rff,trigrf",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.flags = RFX_EST_COMPLEX,
	.params = 0,
	.fit = trig_fit,
	.log_variance = trig_log_variance,
	.draw = rfx_draw_gaussian,
	.features = trig_features,
	.features32 = trig_features32,
};

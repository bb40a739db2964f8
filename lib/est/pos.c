/*
 * PosRF, the positive random features of FAVOR+ (thesis sec. 4.2, eq. 4.2):
 * f1 = exp(w.x - |x|^2), f2 = exp(w.y - |y|^2), w ~ N(0, I_d).
 *
 * E f1 f2 = exp(|x + y|^2/2 - |x|^2 - |y|^2) = K(x, y), and
 * E (f1 f2)^2 = exp(2|x + y|^2 - 2|x|^2 - 2|y|^2) = exp(4 x.y) (eq. 4.4), so
 * Var = exp(4 x.y) - K^2 = K^2 (exp(|x + y|^2) - 1): in logs
 * -|x - y|^2 + log expm1(|x + y|^2) - log M, finite far beyond double range
 * (x.y ~ 250 gives e^1000).
 */
#include <math.h>

#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"

static int pos_fit(struct rfx_params *p, const double *X, size_t nx,
		   const double *Y, size_t ny, int M, struct rfx_err *err)
{
	return rfx_params_check_dim(p, "pos", X, nx, Y, ny, M, err);
}

RFX_SIMD_CLONES
static int pos_log_variance(const struct rfx_params *p,
			    const struct rfx_block *b, int M, double *out,
			    struct rfx_err *err)
{
	size_t k, np = b->nx * b->ny;
	double lm = log((double)M);
	const double *dd = b->dd, *ss = b->ss;

	(void)p;
	(void)err;
	rfx_vmath_logexpm1(out, ss, np);
#pragma omp simd
	for (k = 0; k < np; k++)
		out[k] = -dd[k] + out[k] - lm;
	return RFX_OK;
}

/*
 * log f = w.x - |x|^2 - log(M)/2: the fused map of lib/est/featmap.c with
 * b = 1, no column constants, c = -1 and e = -log(M)/2.
 */
static int pos_features(const struct rfx_params *p, const struct rfx_draw *w,
			int side, const double *X, size_t n, int M,
			struct rfx_featmat *F, struct rfx_err *err)
{
	(void)p;
	(void)side;
	(void)err;
	rfx_featmat_exp(F, w, X, n, M, 1.0, NULL, -1.0, -0.5 * log((double)M));
	return RFX_OK;
}

/* The same in float32 (lib/est/featmap32.c). */
static int pos_features32(const struct rfx_params *p,
			  const struct rfx_draw32 *w, int side, const float *X,
			  size_t n, int M, struct rfx_featmat32 *F,
			  struct rfx_err *err)
{
	(void)p;
	(void)side;
	(void)err;
	rfx_featmat32_exp(F, w, X, n, M, 1.0f, NULL, -1.0, -0.5 * log((double)M));
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_pos = {
	.name = "pos",
	.title = "PosRF, FAVOR+ (thesis sec. 4.2)",
	/* posrf: the thesis' name (sec. 4.2, "PosRFs") */
	/* favor+: the thesis' sec. 4.2 title; FAVOR+ also draws orthogonal projections (--projection ort) */
	.aliases = "posrf,favor+",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.flags = RFX_EST_POSITIVE,
	.params = 0,
	.fit = pos_fit,
	.log_variance = pos_log_variance,
	.draw = rfx_draw_gaussian,
	.features = pos_features,
	.features32 = pos_features32,
};

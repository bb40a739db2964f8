/*
 * Symmetric dense-exponential random features (SDERF, FAVOR#): the DERF
 * of lib/est/derf.h with B_1 = B_2 = B. Unbiasedness B^T P B = I makes
 * B = (I - 4A)^{1/2} O with O orthogonal, and O can be absorbed into A
 * (docs/DERIVATIONS.md), so SDERF is parametrised by A alone:
 *   log(E f_1^2 f_2^2 / K^2) = la(A) + (x + y)^T Q (x + y),  Q = (I - 8A)^{-1},
 * OPRF's la + |x + y|^2/(1 - 8A) with a matrix A. Its mean over all
 * pairs of the two sets is la(A) + tr(Q S), S = mean over pairs of
 * (x + y)(x + y)^T = Mx + My + mx my^T + my mx^T, and the minimiser is
 * diagonal in S's eigenbasis with OPRF's rho (eq. 6.14) at d = 1 for each
 * eigenvalue (rfx_derf_fit_sigma): the global minimum over all
 * symmetric A, proved in docs/DERIVATIONS.md.
 */
#include <stdlib.h>

#include "est/derf.h"

/* S = Mx + My + mx my^T + my mx^T into S (d x d). */
static void pair_moment(const struct rfx_derf_moments *m, double *S)
{
	size_t d = (size_t)m->d, k, l;

	for (k = 0; k < d; k++)
		for (l = 0; l < d; l++)
			S[k * d + l] = m->Mx[k * d + l] + m->My[k * d + l] +
				       m->mx[k] * m->my[l] + m->my[k] * m->mx[l];
}

static int sderf_core(struct rfx_params *p, const double *X, size_t nx,
		     const double *Y, size_t ny, int M, struct rfx_err *err)
{
	struct rfx_derf_moments m;
	double *S;
	int ret;

	(void)M; /* the budget does not enter the fit (docs/DERIVATIONS.md) */
	ret = rfx_derf_moments_init(&m, p->d, X, nx, Y, ny, 0, err);
	if (ret)
		return ret;
	S = malloc((size_t)p->d * (size_t)p->d * sizeof(double));
	if (!S) {
		rfx_derf_moments_release(&m);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	pair_moment(&m, S);
	ret = rfx_derf_fit_sigma(p, S, NULL, NULL, err);
	if (!ret)
		ret = rfx_derf_check_unbiased(p, "sderf", err);
	free(S);
	rfx_derf_moments_release(&m);
	return ret;
}

/*
 * Inputs checked once here: the fit in the inputs' span (fewer inputs than
 * dimensions) sees projected coordinates up to |x|, beyond the
 * per-coordinate range, which the core does not re-check.
 */
static int sderf_fit(struct rfx_params *p, const double *X, size_t nx,
		  const double *Y, size_t ny, int M, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, "sderf", X, nx, Y, ny, M, err);

	if (ret)
		return ret;
	if (nx + ny < (size_t)p->d)
		return rfx_derf_fit_reduced(p, X, nx, Y, ny, M, sderf_core, err);
	return sderf_core(p, X, nx, Y, ny, M, err);
}

const struct rfx_estimator_type rfx_est_sderf = {
	.name = "sderf",
	.title = "SDERF, symmetric dense-exponential features (FAVOR#, Likhosherstov et al. 2023)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "A, B: global optimum from the eigendecomposition of mean (x+y)(x+y)^T (docs/DERIVATIONS.md)",
	.flags = RFX_EST_POSITIVE,
	.params = 0,
	.fit = sderf_fit,
	.log_variance = rfx_derf_log_variance,
	.draw = rfx_draw_gaussian,
	.features = rfx_derf_features_sym,
	.features32 = rfx_derf_features_sym32,
};

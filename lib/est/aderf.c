/*
 * Asymmetric dense-exponential random features (ADERF, FAVOR#): the DERF
 * of lib/est/derf.h with B_1 != B_2. Writing B_1 = (I - 4A)^{1/2} G,
 * unbiasedness gives B_2 = (I - 4A)^{1/2} G^{-T}, and ADERF on (x, y) is
 * SDERF on (G x, G^{-T} y) (the inner products are kept), so for a given
 * G the best A is SDERF's for S_G = mean over pairs of
 * (G x + G^{-T} y)(G x + G^{-T} y)^T (rfx_derf_fit_sigma). rfx takes the
 * balancing G of the second-moment matrices (docs/DERIVATIONS.md):
 *   G Mx G^T = G^{-T} My G^{-1} = Lambda diagonal,
 * from the eigendecompositions Mx = Vx diag(l) Vx^T, S = Mx^{1/2},
 * S My S = W diag(nu) W^T: G = diag(nu^{1/4}) W^T S^{-1},
 * G^{-T} = diag(nu^{-1/4}) W^T S, Lambda = diag(nu^{1/2}). It minimises
 * tr S_G over all invertible G (the trace of the cross term,
 * 2 mx.my, does not depend on G), is exactly optimal at d = 1 and a
 * stationary point for centred sets; it is not proved globally optimal,
 * so the fit also evaluates G = I (SDERF) and keeps whichever has the
 * smaller objective: ADERF is never worse than SDERF on its objective.
 * A ridge eps = 1e-6 of the mean diagonal of Mx, My keeps G finite when a
 * set spans fewer than d dimensions (a single pair).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include "est/derf.h"
#include "num/gemm.h"

/* C = A B for d x d row-major matrices. */
static void mul(size_t d, const double *A, const double *B, double *C)
{
	rfx_gemm(d, d, d, 1.0, A, d, B, d, C, d);
}

/* Eigendecomposition of the symmetric S (destroyed): values, vectors in columns. */
static int eig(size_t d, double *S, double *val, double *vec,
	       struct rfx_err *err)
{
	gsl_matrix_view Sv = gsl_matrix_view_array(S, d, d);
	gsl_vector_view ev = gsl_vector_view_array(val, d);
	gsl_matrix_view Vv = gsl_matrix_view_array(vec, d, d);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(d);
	int s;

	if (!ws)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	s = gsl_eigen_symmv(&Sv.matrix, &ev.vector, &Vv.matrix, ws);
	gsl_eigen_symmv_free(ws);
	if (s)
		return rfx_error(err, RFX_ENUMERIC,
				 "aderf: eigendecomposition of a %zu x %zu moment matrix failed",
				 d, d);
	return RFX_OK;
}

/*
 * The balancing G and H = G^{-T} of Mx + eps I and My + eps I. T1..T3 are
 * d x d scratch, val d.
 */
static int balance(size_t d, const double *Mx, const double *My, double eps,
		   double *G, double *H, double *T1, double *T2, double *T3,
		   double *val, struct rfx_err *err)
{
	size_t k, l;
	int ret;

	/* S = Mx^{1/2} into T2, S^{-1} into T3, from Mx = V diag(l) V^T (V in T1) */
	memcpy(G, Mx, d * d * sizeof(double));
	for (k = 0; k < d; k++)
		G[k * d + k] += eps;
	ret = eig(d, G, val, T1, err);
	if (ret)
		return ret;
	for (k = 0; k < d; k++)
		val[k] = sqrt(fmax(val[k], eps));
	for (k = 0; k < d; k++)
		for (l = 0; l < d; l++) {
			double s = 0.0, si = 0.0;
			size_t j;

			for (j = 0; j < d; j++) {
				double v = T1[k * d + j] * T1[l * d + j];

				s += v * val[j];
				si += v / val[j];
			}
			T2[k * d + l] = s;
			T3[k * d + l] = si;
		}
	/* N = S (My + eps I) S into G, then its eigenvectors W into T1 */
	memcpy(H, My, d * d * sizeof(double));
	for (k = 0; k < d; k++)
		H[k * d + k] += eps;
	mul(d, T2, H, T1);
	mul(d, T1, T2, G);
	ret = eig(d, G, val, T1, err);
	if (ret)
		return ret;
	/* G = diag(nu^{1/4}) W^T S^{-1}, H = diag(nu^{-1/4}) W^T S */
	for (k = 0; k < d; k++)
		for (l = 0; l < d; l++) {
			double g = 0.0, h = 0.0, q = sqrt(sqrt(fmax(val[k], 1e-300)));
			size_t j;

			for (j = 0; j < d; j++) {
				g += T1[j * d + k] * T3[j * d + l];
				h += T1[j * d + k] * T2[j * d + l];
			}
			G[k * d + l] = q * g;
			H[k * d + l] = h / q;
		}
	return RFX_OK;
}

static int aderf_core(struct rfx_params *p, const double *X, size_t nx,
		     const double *Y, size_t ny, int M, struct rfx_err *err)
{
	struct rfx_derf_moments m;
	struct rfx_params q;
	size_t d = (size_t)p->d, k, l;
	double *buf = NULL, *G, *H, *T1, *T2, *T3, *T4, *val, *gx, *hy;
	double tr = 0.0, eps, obj_s, obj_a;
	int ret;

	(void)M; /* the budget does not enter the fit (docs/DERIVATIONS.md) */
	ret = rfx_derf_moments_init(&m, p->d, X, nx, Y, ny, 0, err);
	if (ret)
		return ret;
	rfx_params_init(&q, p->d);
	buf = malloc((6 * d * d + 3 * d) * sizeof(double));
	if (!buf) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	G = buf;
	H = G + d * d;
	T1 = H + d * d;
	T2 = T1 + d * d;
	T3 = T2 + d * d;
	T4 = T3 + d * d;
	val = T4 + d * d;
	gx = val + d;
	hy = gx + d;

	/* SDERF: S = Mx + My + mx my^T + my mx^T */
	for (k = 0; k < d; k++)
		for (l = 0; l < d; l++)
			T1[k * d + l] = m.Mx[k * d + l] + m.My[k * d + l] +
					m.mx[k] * m.my[l] + m.my[k] * m.mx[l];
	ret = rfx_derf_fit_sigma(p, T1, NULL, NULL, err);
	if (ret)
		goto out;
	obj_s = rfx_derf_objective(p, &m);

	for (k = 0; k < d; k++)
		tr += m.Mx[k * d + k] + m.My[k * d + k];
	eps = tr > 0.0 ? 1e-6 * tr / (2.0 * d) : 1.0;
	ret = balance(d, m.Mx, m.My, eps, G, H, T1, T2, T3, val, err);
	if (ret)
		goto out;
	/* S_G = G Mx G^T + H My H^T + (G mx)(H my)^T + (H my)(G mx)^T */
	for (k = 0; k < d; k++) {
		gx[k] = hy[k] = 0.0;
		for (l = 0; l < d; l++) {
			gx[k] += G[k * d + l] * m.mx[l];
			hy[k] += H[k * d + l] * m.my[l];
		}
	}
	mul(d, G, m.Mx, T1);
	rfx_gemm_nt(d, d, d, T1, d, G, d, T2, d, T3);
	mul(d, H, m.My, T1);
	rfx_gemm_nt(d, d, d, T1, d, H, d, T3, d, T4);
	for (k = 0; k < d; k++)
		for (l = 0; l < d; l++)
			T1[k * d + l] = T2[k * d + l] + T3[k * d + l] +
					gx[k] * hy[l] + hy[k] * gx[l];
	ret = rfx_params_copy(&q, p, err);
	if (ret)
		goto out;
	ret = rfx_derf_fit_sigma(&q, T1, G, H, err);
	if (ret)
		goto out;
	obj_a = rfx_derf_objective(&q, &m);
	if (isfinite(obj_a) && obj_a < obj_s &&
	    !rfx_derf_check_unbiased(&q, "aderf", NULL))
		memcpy(p->dense, q.dense, (d + 2 * d * d) * sizeof(double));
	ret = rfx_derf_check_unbiased(p, "aderf", err);
out:
	free(buf);
	rfx_params_release(&q);
	rfx_derf_moments_release(&m);
	return ret;
}

/*
 * Inputs checked once here: the fit in the inputs' span (fewer inputs than
 * dimensions) sees projected coordinates up to |x|, beyond the
 * per-coordinate range, which the core does not re-check.
 */
static int aderf_fit(struct rfx_params *p, const double *X, size_t nx,
		  const double *Y, size_t ny, int M, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, "aderf", X, nx, Y, ny, M, err);

	if (ret)
		return ret;
	if (nx + ny < (size_t)p->d)
		return rfx_derf_fit_reduced(p, X, nx, Y, ny, M, aderf_core, err);
	return aderf_core(p, X, nx, Y, ny, M, err);
}

const struct rfx_estimator_type rfx_est_aderf = {
	.name = "aderf",
	.title = "ADERF, asymmetric dense-exponential features (FAVOR#, Likhosherstov et al. 2023)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "A, B1, B2: balanced second-moment matrices, never worse than sderf (docs/DERIVATIONS.md)",
	.flags = RFX_EST_POSITIVE,
	.params = 0,
	.fit = aderf_fit,
	.log_variance = rfx_derf_log_variance,
	.draw = rfx_draw_gaussian,
	.features = rfx_derf_features,
	.features32 = rfx_derf_features32,
};

/*
 * Simplified asymmetric dense-exponential random features (SADERF,
 * FAVOR#'s cheap variant): the DERF of lib/est/derf.h restricted to
 * A = aI and B_1 = b diag(g), B_2 = b diag(1/g) (unbiased for
 * b^2 = 1 - 4a). With x~ = diag(g) x, y~ = diag(1/g) y (so x~.y~ = x.y),
 * SADERF on (x, y) is OPRF on (x~, y~), and the mean over pairs of the
 * log second moment is
 *   d la(a) + v/(1 - 8a),  v = sum_l (g_l^2 Mx_ll + My_ll/g_l^2) + 2 mx.my.
 * For every a, v is smallest at g_l^4 = My_ll/Mx_ll (AM-GM per
 * coordinate), and then a is OPRF's closed form (eq. 6.14) at this v: the
 * exact minimum over the family, from the diagonal second moments and
 * the means, O(d L). A coordinate where both sets vanish gets g_l = 1
 * (a ridge eps = 1e-6 of the mean diagonal on Mx_ll, My_ll keeps g finite
 * when one set vanishes there).
 */
#include <math.h>
#include <stdlib.h>

#include "est/derf.h"

static int saderf_fit(struct rfx_params *p, const double *X, size_t nx,
		      const double *Y, size_t ny, int M, struct rfx_err *err)
{
	struct rfx_derf_moments m;
	size_t d = (size_t)p->d, l;
	double *a, *B1, *B2, tr = 0.0, eps, v = 0.0, aa, beta;
	int ret = rfx_params_check_dim(p, "saderf", X, nx, Y, ny, M, err);

	if (ret)
		return ret;
	ret = rfx_derf_moments_init(&m, p->d, X, nx, Y, ny, 1, err);
	if (ret)
		return ret;
	ret = rfx_derf_alloc(p, err);
	if (ret)
		goto out;
	for (l = 0; l < d; l++)
		tr += m.Mx[l * d + l] + m.My[l * d + l];
	eps = tr > 0.0 ? 1e-6 * tr / (2.0 * d) : 1.0;
	a = rfx_derf_a(p);
	B1 = rfx_derf_b(p, 1);
	B2 = rfx_derf_b(p, 2);
	for (l = 0; l < d; l++) {
		double mx = m.Mx[l * d + l], my = m.My[l * d + l];
		double g = sqrt(sqrt((my + eps) / (mx + eps)));

		a[l] = g; /* g_l, until a is known */
		v += g * g * mx + my / (g * g) + 2.0 * m.mx[l] * m.my[l];
	}
	v = v > 0.0 ? v : 0.0;
	aa = (1.0 - 1.0 / rfx_derf_rho(v, (double)d)) / 8.0;
	beta = sqrt(1.0 - 4.0 * aa);
	for (l = 0; l < d * d; l++)
		B1[l] = B2[l] = 0.0;
	for (l = 0; l < d; l++) {
		B1[l * d + l] = beta * a[l];
		B2[l * d + l] = beta / a[l];
		a[l] = aa;
	}
	/* B_1^T P B_2 = diag(b g_l (1/(1-4a)) b/g_l) = I by construction: O(d) check */
	for (l = 0; l < d; l++)
		if (!(fabs(B1[l * d + l] * B2[l * d + l] / (1.0 - 4.0 * aa) - 1.0) <= 1e-12)) {
			ret = rfx_error(err, RFX_ENUMERIC,
					"saderf: biased parameters at coordinate %zu", l);
			goto out;
		}
	ret = rfx_derf_check(p, "saderf", err);
out:
	rfx_derf_moments_release(&m);
	return ret;
}

const struct rfx_estimator_type rfx_est_saderf = {
	.name = "saderf",
	.title = "SADERF, simplified asymmetric dense-exponential features (FAVOR#)",
	.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,
	.fit_note = "a, diagonal B: exact optimum of the family, O(dL) (docs/DERIVATIONS.md)",
	.flags = RFX_EST_POSITIVE,
	.params = 0,
	.fit = saderf_fit,
	.log_variance = rfx_derf_log_variance,
	.draw = rfx_draw_gaussian,
	.features = rfx_derf_features,
	.features32 = rfx_derf_features32,
};

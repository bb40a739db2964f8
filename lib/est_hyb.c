/*
 * HybRF, the hybrid of TrigRF and PosRF weighted by an angle estimate
 * (thesis sec. 6.2, eqs. 6.4-6.8, Theorem 12), in the shared-projection
 * variant hyb-2 (omega^(1,m) = omega^(2,m)) that the thesis adopts.
 *
 * With u = (1 + a)/2, a the mean of M3 products sign(w3.x) sign(w3.y)
 * (E a = 1 - 2 theta/pi, Var a = 4 theta(pi - theta)/(M3 pi^2), eq. 6.5),
 * T the M1-feature TrigRF estimate and P the M1-feature PosRF estimate on
 * the same projections, the estimator is u T + (1 - u) P. With p = 1 -
 * theta/pi, q = theta/pi, v = Var u = pq/M3 and u independent of (T, P):
 *
 *   Var = (p^2 + v) Var T + (q^2 + v) Var P + 2 (pq - v) Cov(T, P)
 *
 * and for shared projections Cov(T, P) = K^2 (cos(|x|^2 - |y|^2) - 1)/M1,
 * from E[cos(w.(x-y)) exp(w.(x+y))] = exp(2 x.y) cos(|x|^2 - |y|^2). This is
 * Theorem 12 (eqs. 6.9-6.10) with Var T = (1 - K^2)^2/(2 M1) and
 * Var P = (e^{4x.y} - K^2)/M1; the theorem's "where" clause drops the square
 * of (1 - K^2) and writes K for K^2 (docs/ERRATA.md).
 *
 * Feature map (eqs. 6.6-6.7): [T, a (x) T, P, i a (x) P] / sqrt(2), of
 * dimension (M3 + 1)(M1 + M2) with M2 = M1 (eq. 6.6 prints
 * (M1 + 1)(M2 + M3), which agrees only when M1 = M3). The thesis' fair
 * counting (sec. 6.6.1) uses M1 = M2 = M3 = m, i.e. 2m(m + 1) features; a
 * budget of M gives the largest such m unless m1/m3 are given.
 *
 * If x or y is 0 the sign features vanish, u = 1/2 exactly: p = q = 1/2,
 * v = 0.
 */
#include <math.h>

#include "estimator.h"
#include "logmath.h"

static void hyb_counts(const struct rfx_params *p, int M, int *m1, int *m3)
{
	int m = 0;

	while (2 * (m + 1) * (m + 2) <= M)
		m++;
	*m1 = (p->given & RFX_P(RFX_PARAM_M1)) || p->m1 > 0 ? p->m1 : m;
	*m3 = (p->given & RFX_P(RFX_PARAM_M3)) || p->m3 > 0 ? p->m3 : m;
}

static int hyb_features_used(const struct rfx_params *p, int M)
{
	int m1, m3;

	hyb_counts(p, M, &m1, &m3);
	return 2 * (m3 + 1) * m1;
}

static int hyb_fit(struct rfx_params *p, const double *X, size_t nx,
		   const double *Y, size_t ny, int M, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, "hyb", X, nx, Y, ny, M, err);
	int m1, m3;

	if (ret)
		return ret;
	if (!(p->given & RFX_P(RFX_PARAM_M1)))
		p->m1 = 0;
	if (!(p->given & RFX_P(RFX_PARAM_M3)))
		p->m3 = 0;
	hyb_counts(p, M, &m1, &m3);
	if (m1 < 1 || m3 < 1)
		return rfx_error(err, RFX_EINVAL,
				 "hyb needs at least 4 features (M1 = M2 = M3 = 1), got %d",
				 M);
	p->m1 = m1;
	p->m3 = m3;
	return RFX_OK;
}

static inline __attribute__((always_inline)) double
hyb_log_var1(double xx, double yy, double xy, double dd, double ss, double lm1,
	     double m3)
{
	/*
	 * No short-circuits and no division under a condition (GCC will not
	 * speculate a trapping operation), so that the loop vectorises.
	 */
	int nz = (xx > 0.0) & (yy > 0.0);
	double den = sqrt(xx * yy);
	double c = (nz ? xy : 0.0) / (nz ? den : 1.0); /* pi/2 for x or y = 0 */
	double cc = c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c);
	double qq = acos(cc) / RFX_PI;
	double pp = 1.0 - qq;
	double v0 = pp * qq / m3;
	double v = nz ? v0 : 0.0;
	/* 1 - cos(D) = 2 sin^2(D/2), exact for small D = |x|^2 - |y|^2. */
	double half = fabs(sin(0.5 * (xx - yy)));
	double w = pp * qq - v;
	double l0 = log(pp * pp + v) + 2.0 * rfx_log1mexp(-dd) - lm1 - RFX_LN2;
	double l1 = log(qq * qq + v) - dd + rfx_logexpm1(ss) - lm1;
	/* A vanishing covariance term has log -inf (log 0), not a branch. */
	double l2 = log(4.0 * (w > 0.0 ? w : 0.0) * half * half) - dd - lm1;

	return rfx_logsum3(l0, 1.0, l1, 1.0, l2, -1.0);
}

RFX_SIMD_CLONES
static int hyb_log_variance(const struct rfx_params *p,
			    const struct rfx_block *b, int M, double *out,
			    struct rfx_err *err)
{
	int m1, m3;
	size_t i, j, ny = b->ny;

	hyb_counts(p, M, &m1, &m3);
	if (m1 < 1 || m3 < 1)
		return rfx_error(err, RFX_EINVAL,
				 "hyb needs at least 4 features (M1 = M2 = M3 = 1), got %d",
				 M);
	for (i = 0; i < b->nx; i++) {
		const double *xy = b->xy + i * ny, *dd = b->dd + i * ny;
		const double *ss = b->ss + i * ny, *yy = b->yy;
		double *o = out + i * ny, xx = b->xx[i], lm1 = log((double)m1);

#pragma omp simd
		for (j = 0; j < ny; j++)
			o[j] = hyb_log_var1(xx, yy[j], xy[j], dd[j], ss[j], lm1, m3);
	}
	return RFX_OK;
}

static int hyb_draw(const gsl_rng *r, enum rfx_proj proj,
		    const struct rfx_params *p, int M, struct rfx_draw *w,
		    struct rfx_err *err)
{
	int m1, m3, ret;

	hyb_counts(p, M, &m1, &m3);
	if (m1 + m3 > w->cap)
		return rfx_error(err, RFX_EINVAL, "hyb: draw capacity too small");
	w->ncols = m1 + m3;
	/* The shared trig/pos projections and the angular ones are independent. */
	ret = rfx_proj_sample(r, proj, w->d, m1, w->omega, (size_t)w->cap, 0,
			      w->pws, err);
	if (ret)
		return ret;
	return rfx_proj_sample(r, proj, w->d, m3, w->omega, (size_t)w->cap,
			       (size_t)m1, w->pws, err);
}

static int hyb_features(const struct rfx_params *p, const struct rfx_draw *w,
			int side, const double *X, size_t n, int M,
			struct rfx_featmat *F, struct rfx_err *err)
{
	int m1, m3, D, nc, m, k;
	double sgn = side == 1 ? 1.0 : -1.0;
	double l_t, l_at;
	size_t i;

	hyb_counts(p, M, &m1, &m3);
	D = 2 * (m3 + 1) * m1;
	nc = m1 + m3;
	if (D > F->cap_D)
		return rfx_error(err, RFX_EINVAL, "hyb: feature capacity too small");
	l_t = -0.5 * log(2.0 * m1);
	l_at = -0.5 * log(2.0 * m1 * m3);
	rfx_featmat_project(F, w, X, n, 0, nc);
	rfx_rownorms(X, n, w->d, F->work2);
	/* Log-moduli go to re, phases to im; rfx_featmat_from_log allows that. */
	for (i = 0; i < n; i++) {
		const double *pr = F->work + i * (size_t)nc;
		double *lm = F->re + i * (size_t)D;
		double *ph = F->im + i * (size_t)D;
		double xx = F->work2[i];
		int j = 0;

		for (m = 0; m < m1; m++, j++) {
			lm[j] = l_t;
			ph[j] = sgn * pr[m];
		}
		for (k = 0; k < m3; k++) {
			double s = pr[m1 + k];

			for (m = 0; m < m1; m++, j++) {
				lm[j] = s != 0.0 ? l_at : -INFINITY;
				ph[j] = sgn * pr[m] + (s < 0.0 ? RFX_PI : 0.0);
			}
		}
		for (m = 0; m < m1; m++, j++) {
			lm[j] = pr[m] - xx + l_t;
			ph[j] = 0.0;
		}
		for (k = 0; k < m3; k++) {
			double s = pr[m1 + k];

			for (m = 0; m < m1; m++, j++) {
				lm[j] = s != 0.0 ? pr[m] - xx + l_at : -INFINITY;
				ph[j] = 0.5 * RFX_PI + (s < 0.0 ? RFX_PI : 0.0);
			}
		}
	}
	rfx_featmat_from_log(F, n, D, F->re, F->im);
	return RFX_OK;
}

const struct rfx_estimator_type rfx_est_hyb = {
	.name = "hyb",
	.title = "HybRF",
	.flags = RFX_EST_COMPLEX,
	.params = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3),
	.fit = hyb_fit,
	.log_variance = hyb_log_variance,
	.features_used = hyb_features_used,
	.draw = hyb_draw,
	.features = hyb_features,
};

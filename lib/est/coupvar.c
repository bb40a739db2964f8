/*
 * Exact variances of coupled projections (see coupvar.h and
 * docs/DERIVATIONS.md): hypergeometric series summed in the log domain,
 * one-dimensional quadratures over the polar angle of two independent
 * chi(d) norms or over one of two antithetic norms, and the block
 * bookkeeping that turns pair expectations into the variance of M
 * features.
 */
#include "est/coupvar.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_bessel.h>

#include "est/orfvar.h"
#include "num/block.h"
#include "num/kernel.h"
#include "num/logmath.h"

/* Relative tolerance of the quadratures, and of the result against its use. */
#define QUAD_REL 1e-11
#define GRID 256
#define LIMIT 1000

int rfx_coupvar_has(const struct rfx_estimator_type *e, enum rfx_proj proj)
{
	int est = e == &rfx_est_trig || e == &rfx_est_pos || e == &rfx_est_oprf;

	return est && (proj == RFX_PROJ_IID || proj == RFX_PROJ_ORT ||
		       proj == RFX_PROJ_SIMPLEX || proj == RFX_PROJ_ORT_ANTI);
}

void rfx_coupvar_pairs(enum rfx_proj proj, int d, int M, double *P,
		       double *Panti)
{
	double full = (double)(M / d), r = (double)(M % d);

	*P = *Panti = 0.0;
	if (proj == RFX_PROJ_IID || d < 2)
		return;
	*P = full * d * (d - 1.0) + r * (r - 1.0);
	if (proj == RFX_PROJ_ORT_ANTI)
		*Panti = 2.0 * (full * (double)(d / 2) + floor(r / 2.0));
}

/* log 1F1(d; d/2; z) for z >= 0: its terms are all positive. */
static double log_1f1(int d, double z)
{
	double lt = 0.0, m = 0.0, acc = 1.0, b = 0.5 * d;
	long k;

	if (z == 0.0)
		return 0.0;
	for (k = 0; k < 100000000L; k++) {
		lt += log((d + k) * z / ((b + k) * (k + 1.0)));
		if (lt > m) {
			acc = acc * exp(m - lt) + 1.0;
			m = lt;
		} else {
			acc += exp(lt - m);
		}
		if (k > 2.0 * z && lt < m - 40.0)
			break;
	}
	return m + log(acc);
}

/* log 0F1(; b; w) for w >= 0 (all terms positive). */
static double log_0f1(double b, double w)
{
	double lt = 0.0, m = 0.0, acc = 1.0;
	long k;

	if (w == 0.0)
		return 0.0;
	for (k = 0; k < 100000000L; k++) {
		lt += log(w / ((b + k) * (k + 1.0)));
		if (lt > m) {
			acc = acc * exp(m - lt) + 1.0;
			m = lt;
		} else {
			acc += exp(lt - m);
		}
		if (k > sqrt(w) + 5.0 && lt < m - 40.0)
			break;
	}
	return m + log(acc);
}

/*
 * 0F1(; b; -w) for w >= 0 (the mean of cos(w . z) over a direction): the
 * alternating series while w/b <= 10 (terms bounded by e^{w/b}, so the
 * error is below 2e4 eps), else Gamma(b) (y/2)^{1-b} J_{b-1}(y), y = 2 sqrt(w).
 */
static double neg_0f1(double b, double w)
{
	if (w <= 10.0 * b) {
		double t = 1.0, s = 1.0;
		long k;

		for (k = 0; k < 100000L; k++) {
			t *= -w / ((b + k) * (k + 1.0));
			s += t;
			if (k > w && fabs(t) < 1e-18)
				break;
		}
		return s;
	} else {
		double y = 2.0 * sqrt(w);
		gsl_sf_result J;

		if (gsl_sf_bessel_Jnu_e(b - 1.0, y, &J))
			return NAN;
		return exp(lgamma(b) + (1.0 - b) * log(0.5 * y)) * J.val;
	}
}

/* The log of the chi(d) density at r > 0. */
static double log_chi_pdf(int d, double r)
{
	return (d - 1.0) * log(r) - 0.5 * r * r - (0.5 * d - 1.0) * RFX_LN2 -
	       lgamma(0.5 * d);
}

/* The antithetic partner of r: r'^2 = F^-1(1 - F(r^2)) for chi^2(d), +inf past range. */
static double anti_sq(int d, double r)
{
	double r2 = r * r, u;

	if (r2 <= (double)d) {
		u = gsl_cdf_chisq_P(r2, d);
		return u > 0.0 ? gsl_cdf_chisq_Qinv(u, d) : HUGE_VAL;
	}
	u = gsl_cdf_chisq_Q(r2, d);
	return u > 0.0 ? gsl_cdf_chisq_Pinv(u, d) : 0.0;
}

/* A log-domain integrand: L(t) for t in [a, b]. */
struct lquad {
	double (*L)(double t, void *par);
	void *par;
	double shift; /* subtracted before exp */
};

static double lquad_f(double t, void *par)
{
	const struct lquad *q = par;
	double l = q->L(t, q->par);

	return isfinite(l) || l == -INFINITY ? exp(l - q->shift) : 0.0;
}

/*
 * log of the integral of e^{L} over [a, b]: the maximum of L on a grid is
 * taken out, then GSL's adaptive Gauss-Kronrod to QUAD_REL.
 */
static int log_integral(double (*L)(double, void *), void *par, double a,
			double b, double *out, struct rfx_err *err)
{
	gsl_integration_workspace *ws = gsl_integration_workspace_alloc(LIMIT);
	struct lquad q = { L, par, -INFINITY };
	gsl_function F = { lquad_f, &q };
	double res, abserr;
	int i, s;

	if (!ws)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (i = 0; i <= GRID; i++) {
		double l = L(a + (b - a) * i / GRID, par);

		if (l > q.shift)
			q.shift = l;
	}
	if (!isfinite(q.shift)) {
		gsl_integration_workspace_free(ws);
		return rfx_error(err, RFX_ENUMERIC,
				 "coupled variance: integrand has no finite value");
	}
	s = gsl_integration_qag(&F, a, b, 0.0, QUAD_REL, LIMIT, GSL_INTEG_GAUSS41,
				ws, &res, &abserr);
	gsl_integration_workspace_free(ws);
	if (s || !(res > 0.0))
		return rfx_error(err, RFX_ENUMERIC,
				 "coupled variance: quadrature failed (%s)",
				 s ? gsl_strerror(s) : "zero integral");
	*out = q.shift + log(res);
	return RFX_OK;
}

/* log of the half-range normaliser: int_0^{pi/2} sin^{d-1} = sqrt(pi) G(d/2)/(2 G((d+1)/2)) */
static double log_half_z(int d)
{
	return 0.5 * log(M_PI) + lgamma(0.5 * d) - lgamma(0.5 * (d + 1.0)) -
	       RFX_LN2;
}

struct pos_par {
	int d;
	double A, s2, c, B;
};

/* (d-1) log sin(phi) + log 1F1(d; d/2; s^2 (1 + c sin phi)/2) */
static double pos_phi(double phi, void *par)
{
	const struct pos_par *p = par;
	double sp = sin(phi);

	return (p->d - 1.0) * log(sp) + log_1f1(p->d, 0.5 * p->s2 * (1.0 + p->c * sp));
}

/* log chi(r) + 2A (r^2 + r'^2) + log 0F1(; d/2; s^2 B^2 (r^2 + r'^2)/4) */
static double pos_anti(double r, void *par)
{
	const struct pos_par *p = par;
	double r2p, R2;

	if (!(r > 0.0))
		return -INFINITY;
	r2p = anti_sq(p->d, r);
	if (!isfinite(r2p))
		return -INFINITY;
	R2 = r * r + r2p;
	return log_chi_pdf(p->d, r) + 2.0 * p->A * R2 +
	       log_0f1(0.5 * p->d, 0.25 * p->s2 * p->B * p->B * R2);
}

/* An upper end for r beyond which the antithetic integrands are negligible. */
static double r_max(int d, double shift)
{
	return sqrt((double)d) + 12.0 + 2.0 * shift;
}

int rfx_coupvar_pos_pair(int d, double A, double s2, double c, int anti,
			 double *le, struct rfx_err *err)
{
	struct pos_par p = { d, A, s2, c, 0.0 };
	double li;
	int ret;

	if (d < 1 || !(1.0 - 8.0 * A > 0.0) || !(s2 >= 0.0) || !isfinite(s2) ||
	    !(c > -1.0 - 1e-12 && c < 1.0) || (anti && c != 0.0))
		return rfx_error(err, RFX_EINVAL,
				 "coupled variance: bad arguments d = %d, A = %g, |x+y|^2 = %g, c = %g",
				 d, A, s2, c);
	p.B = sqrt(1.0 - 4.0 * A);
	if (!anti) {
		if (c == 0.0 || d == 1) {
			*le = -s2 + log_1f1(d, 0.5 * s2);
			return RFX_OK;
		}
		ret = log_integral(pos_phi, &p, 0.0, 0.5 * M_PI, &li, err);
		if (ret)
			return ret;
		*le = -s2 + li - log_half_z(d);
		return RFX_OK;
	}
	{
		/* the peak of e^{-r^2(1-4A)/2 + s B r}: r ~ s B/(1 - 4A) */
		double hi = r_max(d, sqrt(s2) * p.B / (1.0 - 4.0 * A));

		for (;;) {
			double lhi = pos_anti(hi, &p), lmid = pos_anti(0.5 * hi, &p);

			if (!(lhi > lmid - 60.0) || hi > 1e6)
				break;
			hi *= 2.0;
		}
		ret = log_integral(pos_anti, &p, 0.0, hi, &li, err);
		if (ret)
			return ret;
		*le = d * log1p(-4.0 * A) - s2 + li;
	}
	return RFX_OK;
}

struct trig_par {
	int d;
	double z, c;
};

/* sin^{d-1} phi [ (C(z q+) + C(z q-))/2 + e^{-z^2} 2 sinh^2(z^2 c sin phi/2) ] */
static double trig_phi(double phi, void *par)
{
	const struct trig_par *p = par;
	double sp = sin(phi), cp, cm, e, u = 0.5 * p->z * p->z * p->c * sp;
	double sh = sinh(u);

	rfx_orfvar_cov(p->z * sqrt(1.0 + p->c * sp), p->d, &cp, &e);
	rfx_orfvar_cov(p->z * sqrt(1.0 - p->c * sp), p->d, &cm, &e);
	return pow(sp, p->d - 1.0) *
	       (0.5 * (cp + cm) + exp(-p->z * p->z) * 2.0 * sh * sh);
}

/* chi(r) 0F1(; d/2; -z^2 (r^2 + r'^2)/4) */
static double trig_anti(double r, void *par)
{
	const struct trig_par *p = par;
	double r2p;

	if (!(r > 0.0))
		return 0.0;
	r2p = anti_sq(p->d, r);
	if (!isfinite(r2p))
		return 0.0;
	return exp(log_chi_pdf(p->d, r)) *
	       neg_0f1(0.5 * p->d, 0.25 * p->z * p->z * (r * r + r2p));
}

static double trig_f(double t, void *par)
{
	const struct trig_par *p = par;

	return p->c == 2.0 ? trig_anti(t, par) : trig_phi(t, par);
}

int rfx_coupvar_trig_pair(int d, double z, double c, int anti, double *C,
			  double *cerr, struct rfx_err *err)
{
	struct trig_par p = { d, z, c };
	gsl_integration_workspace *ws;
	gsl_function F = { trig_f, &p };
	double res, abserr, a = 0.0, b;
	int s;

	if (d < 1 || !(z >= 0.0 && z <= RFX_ORFVAR_Z_MAX) ||
	    !(c > -1.0 - 1e-12 && c < 1.0) || (anti && c != 0.0))
		return rfx_error(err, RFX_EINVAL,
				 "coupled variance: bad arguments d = %d, |x-y| = %g (at most %g), c = %g",
				 d, z, RFX_ORFVAR_Z_MAX, c);
	if (!anti && (c == 0.0 || d == 1)) {
		s = rfx_orfvar_cov(z, d, C, cerr);
		if (s)
			return rfx_error(err, RFX_ENUMERIC,
					 "coupled variance: 1F1 failed at d = %d, z = %g",
					 d, z);
		return RFX_OK;
	}
	if (anti) {
		p.c = 2.0; /* marks the antithetic integrand for trig_f */
		b = r_max(d, 0.0);
	} else {
		b = 0.5 * M_PI;
	}
	ws = gsl_integration_workspace_alloc(LIMIT);
	if (!ws)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	s = gsl_integration_qag(&F, a, b, 1e-15, QUAD_REL, LIMIT,
				GSL_INTEG_GAUSS41, ws, &res, &abserr);
	gsl_integration_workspace_free(ws);
	if (s)
		return rfx_error(err, RFX_ENUMERIC,
				 "coupled variance: quadrature failed (%s)",
				 gsl_strerror(s));
	if (anti) {
		*C = res - exp(-z * z);
		*cerr = abserr + 1e-13;
	} else {
		double nz = exp(log_half_z(d));

		*C = res / nz;
		*cerr = abserr / nz + 1e-13;
	}
	return RFX_OK;
}

int rfx_coupvar_log_variance(const struct rfx_estimator_type *e,
			     const struct rfx_params *p, enum rfx_proj proj,
			     const double *x, const double *y, int M,
			     double *lv, struct rfx_err *err)
{
	struct rfx_block *b = NULL;
	double P, Pa, lv1, lk2, s2 = 0.0, z2 = 0.0, c;
	int d = p->d, l, ret;

	if (!rfx_coupvar_has(e, proj))
		return rfx_error(err, RFX_EINVAL,
				 "no exact variance of %s on %s projections (exact: trig, pos, oprf on iid, ort, simplex, ort-anti)",
				 e->name, rfx_proj_name(proj));
	if (M < 1)
		return rfx_error(err, RFX_EINVAL,
				 "number of features must be positive, got %d", M);
	b = rfx_block_alloc(d, 1, 1);
	if (!b)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_estimator_block(e, p, b, x, 1, y, 1, err);
	if (!ret)
		ret = e->log_variance(p, b, 1, &lv1, err);
	rfx_block_free(b);
	if (ret)
		return ret;
	rfx_coupvar_pairs(proj, d, M, &P, &Pa);
	if (P == 0.0) {
		*lv = lv1 - log((double)M);
		return RFX_OK;
	}
	for (l = 0; l < d; l++) {
		s2 += (x[l] + y[l]) * (x[l] + y[l]);
		z2 += (x[l] - y[l]) * (x[l] - y[l]);
	}
	lk2 = -z2;
	c = proj == RFX_PROJ_SIMPLEX ? -1.0 / (d - 1.0) : 0.0;
	if (e == &rfx_est_trig && z2 == 0.0) {
		/* x = y: every feature is cos 0 = 1, the estimate exact (as iid's -inf) */
		*lv = -INFINITY;
		return RFX_OK;
	}
	if (e == &rfx_est_trig) {
		double C, ce, Ca = 0.0, cea = 0.0, v1 = exp(lv1), tot, errb;

		ret = rfx_coupvar_trig_pair(d, sqrt(z2), c, 0, &C, &ce, err);
		if (!ret && Pa > 0.0)
			ret = rfx_coupvar_trig_pair(d, sqrt(z2), 0.0, 1, &Ca, &cea, err);
		if (ret)
			return ret;
		tot = v1 / M + ((P - Pa) * C + Pa * Ca) / ((double)M * M);
		errb = ((P - Pa) * ce + Pa * cea) / ((double)M * M);
		if (!(tot > 0.0) || !(errb <= 1e-8 * tot))
			return rfx_error(err, RFX_ENUMERIC,
					 "coupled variance of trig not accurate to 1e-8 at |x - y| = %g, d = %d",
					 sqrt(z2), d);
		*lv = log(tot);
		return RFX_OK;
	} else {
		double A = e == &rfx_est_oprf ? p->A_re : 0.0, le, lea = 0.0;
		double l3[3], s3[3];

		ret = rfx_coupvar_pos_pair(d, A, s2, c, 0, &le, err);
		if (!ret && Pa > 0.0)
			ret = rfx_coupvar_pos_pair(d, A, s2, 0.0, 1, &lea, err);
		if (ret)
			return ret;
		/* Var = V1/M + K^2 ((P - Pa) expm1(le) + Pa expm1(lea))/M^2 */
		l3[0] = lv1 - log((double)M);
		s3[0] = 1.0;
		l3[1] = lk2 + log((P - Pa) / ((double)M * M)) +
			(le > 0.0 ? rfx_logexpm1(le) : rfx_log1mexp(le));
		s3[1] = P - Pa > 0.0 && le != 0.0 ? (le > 0.0 ? 1.0 : -1.0) : 0.0;
		l3[2] = Pa > 0.0 ? lk2 + log(Pa / ((double)M * M)) +
					   (lea > 0.0 ? rfx_logexpm1(lea)
						      : rfx_log1mexp(lea))
				 : -INFINITY;
		s3[2] = Pa > 0.0 && lea != 0.0 ? (lea > 0.0 ? 1.0 : -1.0) : 0.0;
		*lv = rfx_logsum_signed(l3, s3, 3);
		if (!isfinite(*lv))
			return rfx_error(err, RFX_ENUMERIC,
					 "coupled variance of %s lost to cancellation at |x + y|^2 = %g",
					 e->name, s2);
	}
	return RFX_OK;
}

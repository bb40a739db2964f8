/*
 * Dense-exponential random features (sderf, aderf, saderf; lib/est/derf.h):
 * unbiasedness and the closed-form variance against Monte Carlo (fitted to
 * a pair and to sets, i.i.d. and orthogonal directions), the scalar case
 * against OPRF (variance, feature maps and fits), optimality of the fits
 * against perturbations of their parameters, and the log domain.
 *
 * Expectations come from outside the DERF code: the kernel from the
 * inputs, variances from Monte Carlo of the feature maps, OPRF's closed
 * form and fit (lib/est/gerf.c), and the fitting objective recomputed here
 * from the definition (mean over pairs of log(E f1^2 f2^2 / K^2), read
 * off the log_variance hook pair by pair).
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "est_check.h"
#include "est/derf.h"

static const double x3[3] = { 0.31, -0.22, 0.47 };
static const double y3[3] = { 0.12, 0.38, -0.26 };

/* Sets: 6 x 4 inputs with different spreads per direction, not centred. */
static const double XS[24] = {
	0.61, -0.12, 0.33, 0.05, 0.42, 0.27, -0.21, 0.11, 0.93, -0.31, 0.14, -0.08,
	0.18, 0.02, 0.51, 0.16, 0.77, -0.44, -0.06, 0.03, 0.25, 0.19, 0.29, -0.13,
};
static const double YS[24] = {
	-0.22, 0.41, 0.07, 0.35, 0.13, -0.62, 0.22, 0.28, -0.35, 0.09, -0.17, 0.44,
	0.04, 0.71, 0.31, -0.05, -0.48, -0.26, 0.12, 0.39, 0.27, 0.55, -0.09, 0.21,
};

static const struct rfx_estimator_type *const derfs[] = {
	&rfx_est_sderf, &rfx_est_aderf, &rfx_est_saderf
};

/* Monte Carlo on one pair with parameters already fitted (to sets). */
static void mc_fitted(const struct rfx_estimator_type *e,
		      const struct rfx_params *p, enum rfx_proj proj,
		      const double *x, const double *y, int M, long R,
		      unsigned long seed, int check_var, const char *label)
{
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(seed, 7, 8, 9);
	double K = exp(rfx_kernel_gauss_log(x, y, p->d));

	if (rfx_mc_pairs(e, p, proj, M, x, y, 1, R, r, &mc, &err)) {
		ok(0, "%s %s: monte carlo (%s)", e->name, label, err.msg);
	} else {
		is_within_se(mc.mean, mc.mean_se, K, 3.0,
			     "%s %s: unbiased, MC mean matches K = %.6g", e->name,
			     label, K);
		if (check_var) {
			double lv = check_log_var(e, p, x, y, M);

			is_within_se(mc.log_var, mc.log_var_se, lv, 3.0,
				     "%s %s: closed-form log-variance %.6g matches MC",
				     e->name, label, lv);
		}
	}
	gsl_rng_free(r);
}

static void test_mc(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double x2[3], y2[3];
	int k, l;

	for (k = 0; k < 3; k++) {
		rfx_params_init(&p, 3);
		check_estimator_mc(derfs[k], &p, x3, y3, 1, 40000, 31 + k,
				   "pair-fitted d=3 M=1");
		check_estimator_mc(derfs[k], &p, x3, y3, 4, 20000, 41 + k,
				   "pair-fitted d=3 M=4");
		rfx_params_release(&p);
	}
	/* x.y > 0 at larger norms: the variances are far from zero. */
	for (l = 0; l < 3; l++) {
		x2[l] = 2.0 * x3[l];
		y2[l] = -1.5 * y3[l] + 0.4;
	}
	for (k = 0; k < 3; k++) {
		rfx_params_init(&p, 3);
		check_estimator_mc(derfs[k], &p, x2, y2, 2, 40000, 51 + k,
				   "pair-fitted, larger norms");
		rfx_params_release(&p);
	}
	/* Fitted to sets, evaluated on a pair of them and on one outside. */
	for (k = 0; k < 3; k++) {
		static const double xo[4] = { 0.5, 0.4, -0.3, 0.2 };
		static const double yo[4] = { 0.1, -0.6, 0.25, 0.45 };

		rfx_params_init(&p, 4);
		if (derfs[k]->fit(&p, XS, 6, YS, 6, 3, &err))
			diag("%s", err.msg);
		mc_fitted(derfs[k], &p, RFX_PROJ_IID, XS + 4, YS + 8, 3, 40000,
			  61 + k, 1, "set-fitted, iid");
		mc_fitted(derfs[k], &p, RFX_PROJ_IID, xo, yo, 1, 40000, 71 + k, 1,
			  "set-fitted, outside pair");
		/* coupled directions: still unbiased (variance is not iid's) */
		mc_fitted(derfs[k], &p, RFX_PROJ_ORT, XS + 4, YS + 8, 4, 20000,
			  81 + k, 0, "set-fitted, ort");
		rfx_params_release(&p);
	}
}

/*
 * The scalar case: a_l = A, B_1 = B_2 = sqrt(1 - 4A) I is OPRF with that
 * A (thesis eq. 6.11-6.13): the same variance and the same features.
 */
static void test_scalar(void)
{
	struct rfx_params po, pd;
	struct rfx_err err;
	struct rfx_draw *w = rfx_draw_alloc(3, 5);
	struct rfx_featmat *F1 = rfx_featmat_alloc(1, 5), *F2 = rfx_featmat_alloc(1, 5);
	gsl_rng *r = rfx_rng_alloc_stream(3, 1, 4, 1);
	double lo, ld, maxdiff = 0.0;
	int l, m, side;

	rfx_params_init(&po, 3);
	rfx_params_init(&pd, 3);
	ok(!rfx_est_oprf.fit(&po, x3, 1, y3, 1, 5, &err), "oprf fits the pair");
	ok(!rfx_derf_alloc(&pd, &err), "dense parameters allocate");
	for (l = 0; l < 3; l++) {
		rfx_derf_a(&pd)[l] = po.A_re;
		for (m = 0; m < 3; m++)
			rfx_derf_b(&pd, 1)[l * 3 + m] = rfx_derf_b(&pd, 2)[l * 3 + m] =
				l == m ? sqrt(1.0 - 4.0 * po.A_re) : 0.0;
	}
	ok(!rfx_derf_check_unbiased(&pd, "derf", &err), "scalar DERF is unbiased");
	lo = check_log_var(&rfx_est_oprf, &po, x3, y3, 5);
	ld = check_log_var(&rfx_est_sderf, &pd, x3, y3, 5);
	is_approx(ld, lo, 1e-13, "scalar DERF log-variance %.15g equals OPRF's", ld);
	rfx_draw_gaussian(r, RFX_PROJ_IID, NULL, 5, w, &err);
	for (side = 1; side <= 2; side++) {
		const double *v = side == 1 ? x3 : y3;

		rfx_est_oprf.features(&po, w, side, v, 1, 5, F1, &err);
		rfx_derf_features(&pd, w, side, v, 1, 5, F2, &err);
		for (m = 0; m < 5; m++) {
			double a = log(F1->re[m]) + F1->lscale[0];
			double b = log(F2->re[m]) + F2->lscale[0];

			maxdiff = fmax(maxdiff, fabs(a - b));
		}
	}
	ok(maxdiff < 1e-13, "scalar DERF log-features equal OPRF's (max diff %.2g)",
	   maxdiff);

	/*
	 * Fits: SADERF on a pair with |x_l| = |y_l| is OPRF (g = 1); SDERF on
	 * sets with S = mean (x + y)(x + y)^T = s I has A = A_OPRF I.
	 */
	{
		static const double xa[3] = { 0.3, -0.5, 0.2 }, ya[3] = { 0.3, 0.5, -0.2 };
		static const double XI2[18] = { 0.7, 0, 0, -0.7, 0, 0, 0, 0.7, 0,
						0, -0.7, 0, 0, 0, 0.7, 0, 0, -0.7 };
		double worst = 0.0;

		ok(!rfx_est_saderf.fit(&pd, xa, 1, ya, 1, 1, &err) &&
			   !rfx_est_oprf.fit(&po, xa, 1, ya, 1, 1, &err),
		   "saderf and oprf fit the pair");
		is_approx(check_log_var(&rfx_est_saderf, &pd, xa, ya, 1),
			  check_log_var(&rfx_est_oprf, &po, xa, ya, 1), 1e-12,
			  "saderf with |x_l| = |y_l| is OPRF");
		ok(!rfx_est_sderf.fit(&pd, XI2, 6, XI2, 6, 1, &err) &&
			   !rfx_est_oprf.fit(&po, XI2, 6, XI2, 6, 1, &err),
		   "sderf and oprf fit sets with isotropic pair moment");
		for (l = 0; l < 3; l++)
			worst = fmax(worst, fabs(rfx_derf_a(&pd)[l] - po.A_re));
		ok(worst < 1e-14 * fabs(po.A_re) + 1e-16,
		   "sderf's A = A_OPRF I on isotropic sets (A_OPRF = %.10g, diff %.2g)",
		   po.A_re, worst);
	}
	rfx_params_release(&po);
	rfx_params_release(&pd);
	rfx_draw_free(w);
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	gsl_rng_free(r);
}

/*
 * The objective from its definition: the mean over all pairs of
 * log(E f1^2 f2^2 / K^2) = log(1 + M Var / K^2), read off log_variance.
 */
static double objective(const struct rfx_params *p, const double *X,
			const double *Y, int n, int d)
{
	double s = 0.0;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double lv = check_log_var(&rfx_est_sderf, p, X + i * d,
						  Y + j * d, 1);
			double lk = rfx_kernel_gauss_log(X + i * d, Y + j * d, d);

			s += log1p(exp(lv - 2.0 * lk));
		}
	return s / ((double)n * n);
}

/*
 * Perturbs fitted canonical parameters keeping unbiasedness: a_l += da_l
 * with row l of both B's scaled by sqrt((1-4a'_l)/(1-4a_l)) (keeps
 * B_1^T P B_2 = I), then B_1 -> B_1 T, B_2 -> B_2 T^{-T}, which keeps it
 * for any invertible T: T = I + E, E Gaussian of scale eps (an ADERF
 * perturbation), or, for sym, the orthogonal Cayley transform
 * T = (I - K)^{-1}(I + K) of the antisymmetric K = (E - E^T)/2, which
 * keeps B_1 = B_2 and rotates A's eigenbasis (an SDERF perturbation).
 */
/* Inverse of the d x d (d <= 4) matrix T into Ti, by Gauss-Jordan. */
static void inverse(int d, const double *T, double *Ti)
{
	double Mtx[4][8];
	int l, k, j;

	for (l = 0; l < d; l++)
		for (k = 0; k < 2 * d; k++)
			Mtx[l][k] = k < d ? T[l * d + k] : (k - d == l);
	for (l = 0; l < d; l++) {
		double piv = Mtx[l][l];

		for (k = 0; k < 2 * d; k++)
			Mtx[l][k] /= piv;
		for (j = 0; j < d; j++)
			if (j != l) {
				double f = Mtx[j][l];

				for (k = 0; k < 2 * d; k++)
					Mtx[j][k] -= f * Mtx[l][k];
			}
	}
	for (l = 0; l < d; l++)
		for (k = 0; k < d; k++)
			Ti[l * d + k] = Mtx[l][k + d];
}

static void perturb(struct rfx_params *q, const struct rfx_params *p,
		    const gsl_rng *r, double eps, int sym)
{
	int d = p->d, l, k, j;
	double E[16] = { 0 }, Ei[16], B1[16], B2[16], Tm[16];

	rfx_params_copy(q, p, NULL);
	for (l = 0; l < d; l++) {
		double a = rfx_derf_a(p)[l], an = a + eps * gsl_ran_gaussian(r, 1.0);
		double f = sqrt((1.0 - 4.0 * an) / (1.0 - 4.0 * a));

		rfx_derf_a(q)[l] = an;
		for (k = 0; k < d; k++) {
			rfx_derf_b(q, 1)[l * d + k] *= f;
			rfx_derf_b(q, 2)[l * d + k] *= f;
		}
	}
	for (l = 0; l < d * d; l++)
		Tm[l] = eps * gsl_ran_gaussian(r, 1.0);
	for (l = 0; l < d; l++)
		for (k = 0; k < d; k++)
			E[l * d + k] = (l == k) + (sym ? 0.5 * (Tm[l * d + k] - Tm[k * d + l])
						       : Tm[l * d + k]);
	if (sym) {
		/* T = (I - K)^{-1} (I + K): E holds I + K, I - K = (I + K)^T */
		double IK[16] = { 0 }, IKi[16];

		for (l = 0; l < d; l++)
			for (k = 0; k < d; k++)
				IK[l * d + k] = E[k * d + l];
		inverse(d, IK, IKi);
		for (l = 0; l < d; l++)
			for (k = 0; k < d; k++) {
				double s = 0.0;

				for (j = 0; j < d; j++)
					s += IKi[l * d + j] * E[j * d + k];
				Tm[l * d + k] = s;
			}
		memcpy(E, Tm, sizeof(Tm));
	}
	inverse(d, E, Ei);
	/* B1 <- B1 T; B2 <- B2 T^{-T} (E holds T) */
	for (l = 0; l < d; l++)
		for (k = 0; k < d; k++) {
			double s1 = 0.0, s2 = 0.0;

			for (j = 0; j < d; j++) {
				s1 += rfx_derf_b(q, 1)[l * d + j] * E[j * d + k];
				s2 += rfx_derf_b(q, 2)[l * d + j] * Ei[k * d + j];
			}
			B1[l * d + k] = s1;
			B2[l * d + k] = s2;
		}
	memcpy(rfx_derf_b(q, 1), B1, (size_t)(d * d) * sizeof(double));
	memcpy(rfx_derf_b(q, 2), B2, (size_t)(d * d) * sizeof(double));
}

/*
 * How many of 200 perturbations of p (perturb, into the scratch q: 100
 * of size 1e-3, 100 of 3e-2) lower the objective on the 6 x 4 sets X, Y
 * below base, by more than rounding; *worst is the smallest change.
 */
static int lowering_perturbations(struct rfx_params *q,
				  const struct rfx_params *p, const gsl_rng *r,
				  const double *X, const double *Y, double base,
				  int sym, double *worst)
{
	int t, bad = 0;

	*worst = HUGE_VAL;
	for (t = 0; t < 200; t++) {
		double o;

		perturb(q, p, r, t < 100 ? 1e-3 : 3e-2, sym);
		o = objective(q, X, Y, 6, 4);
		*worst = fmin(*worst, o - base);
		bad += o < base - 1e-12;
	}
	return bad;
}

static void test_optimal(void)
{
	struct rfx_params p, q, ps;
	struct rfx_derf_moments mom;
	struct rfx_err err;
	gsl_rng *r = rfx_rng_alloc_stream(9, 9, 9, 9);
	double Xc[24], Yc[24], base, worst, os, oa, osa;
	int l, bad;

	rfx_params_init(&p, 4);
	rfx_params_init(&q, 4);
	rfx_params_init(&ps, 4);
	/* rfx_derf_objective is the mean over pairs from the definition */
	ok(!rfx_est_aderf.fit(&p, XS, 6, YS, 6, 1, &err), "aderf fits sets");
	rfx_derf_moments_init(&mom, 4, XS, 6, YS, 6, 0, &err);
	is_approx(rfx_derf_objective(&p, &mom), objective(&p, XS, YS, 6, 4), 1e-10,
		  "the moment form of the objective is its mean over all pairs");
	oa = rfx_derf_objective(&p, &mom);
	ok(!rfx_est_sderf.fit(&ps, XS, 6, YS, 6, 1, &err), "sderf fits sets");
	os = rfx_derf_objective(&ps, &mom);
	ok(oa <= os + 1e-12, "aderf's objective %.10g is no worse than sderf's %.10g",
	   oa, os);
	ok(!rfx_est_saderf.fit(&q, XS, 6, YS, 6, 1, &err), "saderf fits sets");
	osa = rfx_derf_objective(&q, &mom);
	diag("objectives on the sets: sderf %.8g, aderf %.8g, saderf %.8g", os,
	     oa, osa);
	rfx_derf_moments_release(&mom);

	/* SDERF: no perturbation (of a, and of B that keeps the constraint) does better */
	base = objective(&ps, XS, YS, 6, 4);
	bad = lowering_perturbations(&q, &ps, r, XS, YS, base, 1, &worst);
	ok(!bad, "sderf: 200 perturbations of its parameters never lower the objective (min change %.3g)",
	   worst);
	/* ADERF on centred sets: the balanced G is a local minimum */
	for (l = 0; l < 24; l++) {
		Xc[l] = XS[l] - (XS[l % 4] + XS[4 + l % 4] + XS[8 + l % 4] + XS[12 + l % 4] +
				 XS[16 + l % 4] + XS[20 + l % 4]) / 6.0;
		Yc[l] = YS[l] - (YS[l % 4] + YS[4 + l % 4] + YS[8 + l % 4] + YS[12 + l % 4] +
				 YS[16 + l % 4] + YS[20 + l % 4]) / 6.0;
	}
	ok(!rfx_est_aderf.fit(&p, Xc, 6, Yc, 6, 1, &err), "aderf fits centred sets");
	base = objective(&p, Xc, Yc, 6, 4);
	ok(!rfx_est_sderf.fit(&ps, Xc, 6, Yc, 6, 1, &err) &&
		   base < objective(&ps, Xc, Yc, 6, 4) - 1e-3,
	   "aderf beats sderf on centred sets of different shapes (%.6g < %.6g)",
	   base, objective(&ps, Xc, Yc, 6, 4));
	bad = lowering_perturbations(&q, &p, r, Xc, Yc, base, 0, &worst);
	ok(!bad, "aderf on centred sets: 200 perturbations never lower the objective (min change %.3g)",
	   worst);
	rfx_params_release(&p);
	rfx_params_release(&q);
	rfx_params_release(&ps);
	gsl_rng_free(r);
}

/* Tiny inputs: Var << K^2 stays exact (a sum of positive terms). */
static void test_tiny(void)
{
	struct rfx_params p, po;
	struct rfx_err err;
	double x[3], y[3];
	int l;

	for (l = 0; l < 3; l++) {
		x[l] = 1e-9 * x3[l];
		y[l] = 1e-9 * x3[l];
	}
	rfx_params_init(&p, 3);
	rfx_params_init(&po, 3);
	ok(!rfx_est_sderf.fit(&p, x, 1, y, 1, 1, &err) &&
		   !rfx_est_oprf.fit(&po, x, 1, y, 1, 1, &err),
	   "sderf and oprf fit a tiny pair x = y");
	/* x = y: S = (2x)(2x)^T has one eigenvalue |2x|^2, the rest 0 (a = 0) */
	{
		double lv = check_log_var(&rfx_est_sderf, &p, x, y, 1);
		double s = 0.0;

		for (l = 0; l < 3; l++)
			s += 4.0 * x[l] * x[l];
		/* Var = expm1(la + s rho) ~ s rho + ... with rho ~ 1: log Var ~ log s */
		ok(isfinite(lv) && fabs(lv - log(s)) < 1e-6,
		   "sderf at |x| ~ 1e-9: log Var %.12g ~ log |x + y|^2 = %.12g", lv,
		   log(s));
	}
	rfx_params_release(&p);
	rfx_params_release(&po);
}

/*
 * The fit in the span of the inputs (nx + ny < d) is the full fit: a pair
 * against the same pair listed twice (nx + ny = 4 > d = 3, the full
 * eigendecomposition path), same moments, same variance.
 */
static void test_reduced(void)
{
	struct rfx_params p, q;
	struct rfx_err err;
	double X2[6], Y2[6];
	int l;

	for (l = 0; l < 6; l++) {
		X2[l] = x3[l % 3];
		Y2[l] = y3[l % 3];
	}
	rfx_params_init(&p, 3);
	rfx_params_init(&q, 3);
	ok(!rfx_est_sderf.fit(&p, x3, 1, y3, 1, 1, &err) &&
		   !rfx_est_sderf.fit(&q, X2, 2, Y2, 2, 1, &err),
	   "sderf fits a pair in its span and the doubled pair in full");
	is_approx(check_log_var(&rfx_est_sderf, &p, x3, y3, 1),
		  check_log_var(&rfx_est_sderf, &q, x3, y3, 1), 1e-10,
		  "sderf: the fit in the span of the inputs is the full fit");
	is_approx(check_log_var(&rfx_est_sderf, &p, y3, x3, 1),
		  check_log_var(&rfx_est_sderf, &q, y3, x3, 1), 1e-10,
		  "sderf: ... also on another pair (the complement's B = I)");
	rfx_params_release(&p);
	rfx_params_release(&q);
}

/*
 * The products rfx_derf_features keeps in a feature matrix (F->derf)
 * must give the features a fresh matrix computes: for the same inputs
 * again with another draw, on both sides (other B_k), after the inputs
 * change at the same address, and after a refit changes A and B.
 */
static void test_cache(void)
{
	enum { N = 5, D = 4, M = 6 };
	const struct rfx_estimator_type *es[] = { &rfx_est_sderf, &rfx_est_aderf,
						  &rfx_est_saderf };
	double X[N * D], Y[N * D];
	struct rfx_err err;
	int k, rep, i;

	for (i = 0; i < N * D; i++) {
		X[i] = 0.3 * sin(1.0 + i);
		Y[i] = 0.4 * cos(2.0 + 0.5 * i);
	}
	for (k = 0; k < 3; k++) {
		struct kept_check c;

		kept_check_init(&c, es[k], X, Y, N, D, M, 11, &err);
		for (rep = 0; rep < 8; rep++) {
			if (rep == 5) /* the same address, other inputs */
				X[3] = -X[3] + 0.05;
			if (rep == 6) /* other A and B */
				c.ret |= es[k]->fit(&c.p, Y, N, X, N, M, &err);
			kept_check_draw(&c, 1 + (rep >= 2 && rep < 4), X, N, M,
					&err);
		}
		kept_check_done(&c, "products equal a fresh matrix's, also after the inputs or the fit change");
	}
}

/*
 * Large inputs take the maps' block paths (aderf's rows X B_k^T and
 * their terms made a block at a time inside the exp map, saderf's
 * scaled, sderf's map of B^T omega; the product in scratch): every
 * log-feature against the definition,
 *   log f = log D + sum_l a_l w_l^2 + w.t - sum_l t_l^2/(2(1 - 4a_l))
 *           - |x|^2/2 - log(M)/2,  t = B_k x,
 * summed here in long double from the parameters (to 1e-12), and each
 * row's bits against the same rows mapped a few at a time (the small
 * calls go through the kept products of F->derf), on both sides.
 */
static void test_large(void)
{
	enum { N = 9000, D = 8, M = 64, C = 150 };
	static double X[N * D];
	struct rfx_err err;
	int k, side, l;
	size_t i;

	for (i = 0; i < (size_t)N * D; i++)
		X[i] = 0.6 * sin(0.37 * (double)i + 0.11 * (double)(i % 7));
	for (k = 0; k < 3; k++) {
		const struct rfx_estimator_type *e = derfs[k];
		struct rfx_params p;
		struct rfx_draw *w = rfx_draw_alloc(D, M);
		struct rfx_featmat *F = rfx_featmat_alloc(N, M);
		struct rfx_featmat *G = rfx_featmat_alloc(C, M);
		gsl_rng *r = rfx_rng_alloc_stream(29, 1, 2, (unsigned long)k);
		int ret;

		rfx_params_init(&p, D);
		ret = e->fit(&p, X, N / 2, X + (size_t)(N / 2) * D, N / 2, M, &err) ||
		      e->draw(r, RFX_PROJ_ORT, &p, M, w, &err);
		for (side = 1; side <= 2 && !ret; side++) {
			const double *a = rfx_derf_a(&p), *B = rfx_derf_b(&p, side);
			double worst = 0.0;
			int same = 1;

			ret = e->features(&p, w, side, X, N, M, F, &err);
			for (i = 0; i < N && !ret; i++) {
				const double *x = X + i * D;
				long double t[D], rest = 0.0L;
				int m;

				for (l = 0; l < D; l++) {
					int q;

					t[l] = 0.0L;
					for (q = 0; q < D; q++)
						t[l] += (long double)B[l * D + q] * x[q];
					rest += 0.25L * log1pl(-4.0L * a[l]) -
						t[l] * t[l] / (2.0L * (1.0L - 4.0L * a[l])) -
						(long double)x[l] * x[l] / 2.0L;
				}
				rest -= 0.5L * logl((long double)M);
				for (m = 0; m < M; m++) {
					long double lf = rest, got;

					for (l = 0; l < D; l++) {
						long double om = w->omega[l * w->cap + m];

						lf += a[l] * om * om + om * t[l];
					}
					got = logl(F->re[i * M + m]) + F->lscale[i];
					if (fabsl(got - lf) / (1.0L + fabsl(lf)) > worst)
						worst = (double)(fabsl(got - lf) / (1.0L + fabsl(lf)));
				}
			}
			for (i = 0; i < N && !ret; i += C) {
				ret = e->features(&p, w, side, X + i * D, C, M, G, &err);
				same &= !ret &&
					!memcmp(G->re, F->re + i * M, sizeof(double) * C * M) &&
					!memcmp(G->lscale, F->lscale + i, sizeof(double) * C);
			}
			ok(!ret && worst < 1e-12,
			   "%s side %d: %d x %d features of one call match the definition (worst %.2g)",
			   e->name, side, N, M, worst);
			ok(!ret && same,
			   "%s side %d: ... bit for bit the same rows mapped %d at a time",
			   e->name, side, C);
		}
		if (ret)
			ok(0, "%s: %s", e->name, err.msg);
		rfx_params_release(&p);
		rfx_draw_free(w);
		rfx_featmat_free(F);
		rfx_featmat_free(G);
		gsl_rng_free(r);
	}
}

static void test_errors(void)
{
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_block *b = rfx_block_alloc(3, 1, 1);
	double lv;

	rfx_params_init(&p, 3);
	rfx_estimator_block(&rfx_est_sderf, &p, b, x3, 1, y3, 1, &err);
	ok(rfx_est_sderf.log_variance(&p, b, 1, &lv, &err) == RFX_EINVAL &&
		   strstr(err.msg, "not fitted"),
	   "unfitted parameters are refused: %s", err.msg);
	rfx_est_sderf.fit(&p, x3, 1, y3, 1, 1, &err);
	rfx_derf_a(&p)[1] = 0.2;
	ok(rfx_est_sderf.log_variance(&p, b, 1, &lv, &err) == RFX_EINVAL &&
		   strstr(err.msg, "I - 8A"),
	   "an eigenvalue of A above 1/8 is refused: %s", err.msg);
	rfx_derf_a(&p)[1] = 0.01;
	ok(rfx_derf_check_unbiased(&p, "sderf", &err) == RFX_ENUMERIC,
	   "a changed A without B is biased: %s", err.msg);
	ok(rfx_est_aderf.fit(&p, x3, 0, y3, 1, 1, &err) == RFX_EINVAL,
	   "an empty set is refused: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_sderf, "A=0.1", &err) == RFX_EINVAL,
	   "sderf has no user parameters: %s", err.msg);
	rfx_block_free(b);
	rfx_params_release(&p);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_scalar();
	test_cache();
	test_large();
	test_mc();
	test_optimal();
	test_tiny();
	test_reduced();
	test_errors();
	return done_testing();
}

/*
 * Exact variances of coupled projections (lib/est/coupvar.h): the pair
 * expectations against independent closed forms (GSL's 1F1 for ort, the
 * ORF paper's form of lib/est/orfvar.h), the quadratures against those at
 * c -> 0, the pair counts, and the variances of trig, pos and oprf on
 * ort (every M, including partial blocks), simplex and ort-anti against
 * Monte Carlo of the samplers themselves (|emp - exact|/se <= 3, fixed
 * seeds).
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_hyperg.h>

#include "tap.h"
#include "est_check.h"
#include "est/coupvar.h"
#include "est/orfvar.h"

static void test_pairs(void)
{
	double P, Pa;

	rfx_coupvar_pairs(RFX_PROJ_ORT, 4, 11, &P, &Pa);
	ok(P == 2 * 12 + 3 * 2 && Pa == 0, "ort d=4 M=11: P = 2*4*3 + 3*2 = 30");
	rfx_coupvar_pairs(RFX_PROJ_ORT_ANTI, 5, 13, &P, &Pa);
	ok(P == 2 * 20 + 3 * 2 && Pa == 2 * (2 + 2 + 1),
	   "ort-anti d=5 M=13: P = 46, antithetic ordered pairs 2(2+2+1) = 10");
	rfx_coupvar_pairs(RFX_PROJ_IID, 5, 13, &P, &Pa);
	ok(P == 0 && Pa == 0, "iid has no coupled pairs");
}

static void test_closed(void)
{
	static const int ds[] = { 2, 3, 8, 17 };
	static const double s2s[] = { 0.05, 1.3, 7.9, 40.0 };
	size_t i, j;
	double worst = 0.0, worstq = 0.0, worstt = 0.0;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			double le, lq, want = log(gsl_sf_hyperg_1F1(ds[i], 0.5 * ds[i],
								     0.5 * s2s[j])) -
					      s2s[j];

			rfx_coupvar_pos_pair(ds[i], -0.07, s2s[j], 0.0, 0, &le, NULL);
			worst = fmax(worst, fabs(le - want) / fmax(1.0, fabs(want)));
			/* the phi quadrature at c = 1e-13 is the same form */
			rfx_coupvar_pos_pair(ds[i], -0.07, s2s[j], 1e-13, 0, &lq, NULL);
			worstq = fmax(worstq, fabs(lq - want) / fmax(1.0, fabs(want)));
		}
	ok(worst < 1e-12,
	   "pos ort pair: log(E aa'/K^2) = log 1F1(d; d/2; s^2/2) - s^2 (GSL; max rel diff %.2g)",
	   worst);
	ok(worstq < 1e-9,
	   "pos: the phi quadrature at c -> 0 agrees with the closed form (max rel diff %.2g)",
	   worstq);
	for (i = 0; i < 4; i++) {
		double C, e, Cq, eq, z = 1.7;

		rfx_coupvar_trig_pair(ds[i], z, 0.0, 0, &C, &e, NULL);
		rfx_coupvar_trig_pair(ds[i], z, 1e-13, 0, &Cq, &eq, NULL);
		worstt = fmax(worstt, fabs(C - Cq));
	}
	ok(worstt < 1e-10, "trig: the phi quadrature at c -> 0 agrees with ORF's 1F1 (max diff %.2g)",
	   worstt);
	{
		/* trig on ort for every M is orfvar's exact ORF variance */
		static const double x[5] = { 0.3, -0.2, 0.5, 0.1, 0.25 };
		static const double y[5] = { 0.1, 0.4, -0.3, 0.2, -0.15 };
		struct rfx_params p;
		double lv, var, z = 0.0;
		int M, l, good = 1;

		for (l = 0; l < 5; l++)
			z += (x[l] - y[l]) * (x[l] - y[l]);
		z = sqrt(z);
		rfx_params_init(&p, 5);
		for (M = 1; M <= 13; M++) {
			rfx_coupvar_log_variance(&rfx_est_trig, &p, RFX_PROJ_ORT, x, y, M,
						 &lv, NULL);
			rfx_orfvar_ort(z, 5, M, &var, NULL);
			good &= fabs(lv - log(var)) < 1e-10;
		}
		ok(good, "trig on ort, M = 1..13 at d = 5: the ORF paper's exact variance");
		rfx_params_release(&p);
	}
}

/* The exact variance against Monte Carlo of the sampler, for one case. */
static void mc_case(const struct rfx_estimator_type *e, enum rfx_proj proj,
		    const double *x, const double *y, int d, int M, long R,
		    unsigned long seed)
{
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(seed, 11, 12, 13);
	double lv, lviid;

	rfx_params_init(&p, d);
	if (e->fit(&p, x, 1, y, 1, M, &err) ||
	    rfx_coupvar_log_variance(e, &p, proj, x, y, M, &lv, &err) ||
	    rfx_mc_pairs(e, &p, proj, M, x, y, 1, R, r, &mc, &err)) {
		ok(0, "%s on %s d=%d M=%d: %s", e->name, rfx_proj_name(proj), d, M,
		   err.msg);
	} else {
		lviid = check_log_var(e, &p, x, y, M);
		is_within_se(mc.log_var, mc.log_var_se, lv, 3.0,
			     "%s on %s d=%d M=%d: exact log Var %.6f (iid %.6f) matches MC",
			     e->name, rfx_proj_name(proj), d, M, lv, lviid);
	}
	rfx_params_release(&p);
	gsl_rng_free(r);
}

static void test_mc(void)
{
	static const double x4[4] = { 0.31, -0.22, 0.47, 0.12 };
	static const double y4[4] = { 0.12, 0.38, -0.26, 0.2 };
	static const double x5[5] = { 0.3, -0.2, 0.5, 0.1, 0.25 };
	static const double y5[5] = { 0.1, 0.4, -0.3, 0.2, -0.15 };
	static const struct rfx_estimator_type *const es[] = {
		&rfx_est_trig, &rfx_est_pos, &rfx_est_oprf
	};
	static const enum rfx_proj ps[] = { RFX_PROJ_ORT, RFX_PROJ_SIMPLEX,
					    RFX_PROJ_ORT_ANTI };
	size_t i, j;
	unsigned long seed = 100;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			mc_case(es[i], ps[j], x4, y4, 4, 4, 20000, seed++);
			mc_case(es[i], ps[j], x5, y5, 5, 13, 10000, seed++);
		}
}

static void test_errors(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double lv, le;
	static const double x[3] = { 0.1, 0.2, 0.3 };

	rfx_params_init(&p, 3);
	ok(rfx_coupvar_log_variance(&rfx_est_gerf, &p, RFX_PROJ_ORT, x, x, 3, &lv,
				    &err) == RFX_EINVAL &&
		   strstr(err.msg, "no exact variance"),
	   "gerf has no coupled form: %s", err.msg);
	ok(rfx_coupvar_log_variance(&rfx_est_pos, &p, RFX_PROJ_SIMPLEX_PLUS, x, x,
				    3, &lv, &err) == RFX_EINVAL,
	   "simplex+ has no exact form: %s", err.msg);
	ok(rfx_coupvar_pos_pair(3, 0.2, 1.0, 0.0, 0, &le, &err) == RFX_EINVAL,
	   "A >= 1/8 is refused: %s", err.msg);
	ok(rfx_coupvar_pos_pair(3, 0.0, 1.0, -0.5, 1, &le, &err) == RFX_EINVAL,
	   "antithetic norms come with orthogonal directions only: %s", err.msg);
	rfx_params_release(&p);
}

/*
 * x = y: TrigRF's features are cos(w . 0) = 1 whatever the coupling, so
 * the estimate is exact and log Var is -inf (as the i.i.d. closed form
 * says), not a failed quadrature.
 */
static void test_trig_equal(void)
{
	static const double x[3] = { 0.31, -0.12, 0.25 };
	static const enum rfx_proj ps[3] = { RFX_PROJ_ORT, RFX_PROJ_SIMPLEX,
					     RFX_PROJ_ORT_ANTI };
	struct rfx_params p;
	struct rfx_err err;
	int j;

	rfx_params_init(&p, 3);
	for (j = 0; j < 3; j++) {
		double lv = 0.0;
		int ret = rfx_coupvar_log_variance(&rfx_est_trig, &p, ps[j], x, x, 6,
						   &lv, &err);

		ok(ret == RFX_OK && isinf(lv) && lv < 0.0,
		   "trig on %s at x = y: log Var = -inf (got %d, %g)",
		   rfx_proj_name(ps[j]), ret, lv);
	}
	rfx_params_release(&p);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_pairs();
	test_closed();
	test_mc();
	test_errors();
	test_trig_equal();
	return done_testing();
}

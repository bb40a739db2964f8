/*
 * The FLOP model and FLOP matching. Expected counts are worked by hand
 * from the model of lib/eval/cost.h (2 FLOPs per multiply-add of a projection,
 * one per real map entry) and each estimator's construction.
 */
#include <math.h>

#include "tap.h"
#include "eval/cost.h"

static double flops_of(const struct rfx_estimator_type *e, int d, int M,
		       const char *m1, const char *m3, struct rfx_cost *c)
{
	struct rfx_params p;
	struct rfx_err err;
	double f = -1.0;

	rfx_params_init(&p, d);
	if (m1)
		rfx_params_parse(&p, e, m1, NULL);
	if (m3)
		rfx_params_parse(&p, e, m3, NULL);
	if (!rfx_cost_of(e, &p, M, c, &err))
		f = c->flops;
	else
		diag("%s: %s", e->name, err.msg);
	rfx_params_release(&p);
	return f;
}

static void test_model(void)
{
	struct rfx_cost c;

	/* TrigRF, 128 complex features, d = 64: 128 columns, 256 real entries. */
	ok(flops_of(&rfx_est_trig, 64, 128, NULL, NULL, &c) == 2.0 * 64 * 128 + 256 &&
		   c.columns == 128 && c.map_entries == 256,
	   "trig M = 128, d = 64: 2*64*128 + 256 = 16640 FLOPs");
	ok(flops_of(&rfx_est_pos, 64, 128, NULL, NULL, &c) == 2.0 * 64 * 128 + 128,
	   "pos M = 128: 128 real entries, 16512 FLOPs");
	ok(flops_of(&rfx_est_posh, 64, 128, NULL, NULL, &c) == 2.0 * 64 * 128 + 256,
	   "posh M = 128: exp(+w.x) and exp(-w.x) from one projection, 16640 FLOPs");
	/* ang: shared T/P columns m1 plus m3 angular ones; (m3+1)(m1+2m1) complex entries. */
	ok(flops_of(&rfx_est_ang, 3, 0, "m1=4", "m3=3", &c) == 2.0 * 3 * 7 + 2 * 4 * 12 &&
		   c.columns == 7,
	   "ang m1 = 4, m3 = 3, d = 3: 7 columns, 96 real entries, 138 FLOPs");
	ok(flops_of(&rfx_est_ang_ind, 3, 0, "m1=4", "m3=3", &c) == 2.0 * 3 * 11 + 96 &&
		   c.columns == 11,
	   "ang-ind: T and P on their own columns, 2*4 + 3 = 11");
	ok(flops_of(&rfx_est_gauss_hyb, 3, 0, "m1=4", "m3=3", &c) ==
		   2.0 * 3 * 7 + 2 * 7 * 12,
	   "gauss-hyb m1 = 4, m3 = 3: (2*3 + 1)(4 + 8) complex entries");
	ok(flops_of(&rfx_est_pois, 64, 10, NULL, NULL, &c) == 2.0 * 64 * 10 + 10 &&
		   c.columns == 0,
	   "pois M = 10: d multiply-adds per discrete feature, no Gaussian column");
}

static int match(const struct rfx_estimator_type *e, double budget,
		 const char *given, struct rfx_params *p, int *M,
		 struct rfx_err *err)
{
	struct rfx_cost c;

	rfx_params_init(p, 64);
	if (given)
		rfx_params_parse(p, e, given, NULL);
	return rfx_cost_match(e, p, budget, M, &c, err);
}

static void test_match(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double budget = 16640.0; /* trig, M = 128, d = 64 */
	int M = -1;

	ok(!match(&rfx_est_trig, budget, NULL, &p, &M, &err) && M == 128,
	   "trig matched to itself keeps M = 128");
	rfx_params_release(&p);
	/* pos: 129 M <= 16640 gives M = 128 (129 * 129 = 16641). */
	ok(!match(&rfx_est_pos, budget, NULL, &p, &M, &err) && M == 128,
	   "pos: the largest M with 129 M <= 16640 is 128");
	rfx_params_release(&p);
	ok(!match(&rfx_est_pos, budget - 1.0, NULL, &p, &M, &err) && M == 128,
	   "pos at 16639 FLOPs: still 128 (16512)");
	rfx_params_release(&p);
	ok(!match(&rfx_est_pos, 16511.0, NULL, &p, &M, &err) && M == 127,
	   "pos at 16511 FLOPs: 127");
	rfx_params_release(&p);
	/* ang, m1 = m3 = m: 2*64*2m + 2(m+1)3m = 6m^2 + 262m; 35 -> 16520, 36 -> 17208. */
	ok(!match(&rfx_est_ang, budget, NULL, &p, &M, &err) && p.m1 == 35 &&
		   p.m3 == 35 && (p.given & RFX_P(RFX_PARAM_M1)) &&
		   (p.given & RFX_P(RFX_PARAM_M3)) && M == 36 * 105,
	   "ang: m1 = m3 = 35 (6m^2 + 262m <= 16640), marked given, M = %d", M);
	rfx_params_release(&p);
	/* m3 = 8 given: 128 (m1 + 8) + 2*9*3 m1 = 182 m1 + 1024 <= 16640: 85. */
	ok(!match(&rfx_est_ang, budget, "m3=8", &p, &M, &err) && p.m1 == 85 &&
		   p.m3 == 8,
	   "ang with m3 = 8 given: m1 = 85 (182 m1 + 1024 <= 16640)");
	rfx_params_release(&p);
	/* m1 = 16 given: 128 (16 + m3) + 96 (m3 + 1) = 224 m3 + 2144: 64. */
	ok(!match(&rfx_est_ang, budget, "m1=16", &p, &M, &err) && p.m1 == 16 &&
		   p.m3 == 64,
	   "ang with m1 = 16 given: m3 = 64 (224 m3 + 2144 <= 16640)");
	rfx_params_release(&p);
	ok(match(&rfx_est_trig, 100.0, NULL, &p, &M, &err) == RFX_EINVAL,
	   "a budget below one feature is refused: %s", err.msg);
	rfx_params_release(&p);
	ok(match(&rfx_est_trig, -1.0, NULL, &p, &M, &err) == RFX_EINVAL,
	   "a negative budget is refused: %s", err.msg);
	rfx_params_release(&p);
	ok(match(&rfx_est_trig, NAN, NULL, &p, &M, &err) == RFX_EINVAL,
	   "a NaN budget is refused");
	rfx_params_release(&p);
}

/*
 * HRF appendix L: a hybrid map of dimension Theta(m n) costs O(nd + md +
 * mn), a regular map of that dimension O(mnd). At m1 = m3 = 32, d = 64,
 * the angular hybrid's 6336 real entries cost less than a tenth of a
 * TrigRF map with as many real entries.
 */
static void test_appendix_l(void)
{
	struct rfx_cost ch, ct;
	double fh = flops_of(&rfx_est_ang, 64, 0, "m1=32", "m3=32", &ch);
	double ft = flops_of(&rfx_est_trig, 64, (int)ch.map_entries / 2, NULL, NULL,
			     &ct);

	ok(ct.map_entries == ch.map_entries && fh < 0.1 * ft,
	   "ang (32, 32): %.0f FLOPs for %ld entries, trig %.0f for as many",
	   fh, ch.map_entries, ft);
}

int main(void)
{
	test_model();
	test_match();
	test_appendix_l();
	return done_testing();
}

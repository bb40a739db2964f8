/*
 * The experiments of `rfx attention` (lib/exp/attexp.h): the row count and
 * layout of the error study (discrete estimators once, "n/a"), the
 * variants of one draw seeing the same features (the stabilisers' errors
 * equal to rounding, float32 close to float64), draws keyed by the
 * registry (a cell's numbers do not depend on the other methods listed),
 * the errors of a large M below those of a small one, bad configurations,
 * and the timing mode's rows and fits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "tap.h"
#include "base/rng.h"
#include "exp/attexp.h"

#define NL 80
#define ND 4

static double Q[NL * ND], K[NL * ND], V[NL * ND];

static void base(struct rfx_attexp_config *c)
{
	struct rfx_err err;

	memset(c, 0, sizeof(*c));
	c->Q = Q;
	c->K = K;
	c->V = V;
	c->nq = c->nk = NL;
	c->d = c->dv = ND;
	c->methods[0] = rfx_estimator_find("pos", &err);
	c->methods[1] = rfx_estimator_find("pois", &err);
	c->nmethods = 2;
	c->projs[0] = RFX_PROJ_IID;
	c->projs[1] = RFX_PROJ_ORT;
	c->nprojs = 2;
	c->Ms[0] = 4;
	c->Ms[1] = 64;
	c->nM = 2;
	c->stabs[0] = RFX_ATT_STAB_ROW;
	c->nstabs = 1;
	c->neps = 1;
	c->nprec = 1;
	c->draws = 4;
	c->att_rows = 16;
	c->seed = 20221121;
}

int main(void)
{
	struct rfx_attexp_config c;
	struct rfx_attexp_row *rows, *rows2;
	struct rfx_err err;
	gsl_rng *r = rfx_rng_alloc_stream(20221121, 1, 2, 3);
	size_t n, k;
	int ok1;

	for (k = 0; k < NL * ND; k++) {
		Q[k] = 0.5 * gsl_ran_gaussian(r, 1.0);
		K[k] = 0.5 * gsl_ran_gaussian(r, 1.0);
		V[k] = gsl_ran_gaussian(r, 1.0);
	}
	base(&c);
	n = rfx_attexp_rows(&c);
	ok(n == 6, "pos on 2 projections and pois once, 2 M each: 6 rows (%zu)", n);
	rows = calloc(n, sizeof(*rows));
	ok(rfx_attexp_run(&c, rows, NULL, NULL, NULL, &err) == RFX_OK, "run");
	ok(!strcmp(rows[0].method, "pos") && !strcmp(rows[0].proj, "iid") &&
		   rows[0].M == 4 && !strcmp(rows[1].proj, "ort") &&
		   !strcmp(rows[4].method, "pois") && !strcmp(rows[4].proj, "n/a"),
	   "row order: method, M, projection; pois has no projection");
	ok(rows[2].s[3].mean < rows[0].s[3].mean && rows[2].s[0].mean < rows[0].s[0].mean,
	   "M = 64 below M = 4 (att_mse %.3g < %.3g)", rows[2].s[3].mean,
	   rows[0].s[3].mean);
	ok1 = 1;
	for (k = 0; k < n; k++)
		ok1 &= rows[k].s[0].q50 <= rows[k].s[0].q90 && rows[k].s[0].sd >= 0 &&
		       rows[k].s[6].mean == 0.0 && rows[k].s[5].mean == 0.0 &&
		       rows[k].draws == 4 && rows[k].L == NL;
	ok(ok1, "quantiles ordered, positive estimators: no rows non-positive or non-finite");

	/* the same cell alone: draws keyed by the registry, not the list */
	c.methods[0] = c.methods[1];
	c.nmethods = 1;
	rows2 = calloc(rfx_attexp_rows(&c), sizeof(*rows2));
	ok(rfx_attexp_run(&c, rows2, NULL, NULL, NULL, &err) == RFX_OK &&
		   !memcmp(&rows2[0].s, &rows[4].s, sizeof(rows[4].s)),
	   "pois alone gives the numbers it gave beside pos");
	free(rows2);
	free(rows);

	/* variants share the draws */
	base(&c);
	c.nmethods = 1;
	c.nprojs = 1;
	c.nM = 1;
	c.stabs[1] = RFX_ATT_STAB_GLOBAL;
	c.stabs[2] = RFX_ATT_STAB_NONE;
	c.nstabs = 3;
	c.f32[1] = 1;
	c.nprec = 2;
	n = rfx_attexp_rows(&c);
	rows = calloc(n, sizeof(*rows));
	ok(n == 6 && rfx_attexp_run(&c, rows, NULL, NULL, NULL, &err) == RFX_OK,
	   "3 stabilisers x 2 precisions");
	ok1 = 1;
	for (k = 0; k < n; k++) {
		double a = rows[k].s[0].mean, b = rows[k % 2].s[0].mean;

		ok1 &= fabs(a - b) <= (rows[k].f32 ? 1e-5 : 1e-12) * b;
	}
	ok(ok1 && rows[0].f32 == 0 && rows[1].f32 == 1 && !strcmp(rows[2].stab, "global"),
	   "stabilisers agree to rounding, float32 to 1e-5");
	ok(rows[1].s[0].mean != rows[0].s[0].mean, "float32 is not float64");
	free(rows);

	base(&c);
	c.draws = 0;
	ok(rfx_attexp_run(&c, NULL, NULL, NULL, NULL, &err) == RFX_EINVAL, "0 draws: RFX_EINVAL");
	base(&c);
	c.causal = 1;
	c.nk = NL - 1;
	ok(rfx_attexp_run(&c, NULL, NULL, NULL, NULL, &err) == RFX_EINVAL,
	   "causal with nq != nk: RFX_EINVAL");

	{
		static const long Ls[3] = { 64, 128, 256 };
		struct rfx_attexp_time_row tr[18];
		struct rfx_attexp_fit_row fr[6];
		size_t nr, nf;

		ok(rfx_attexp_timing(Ls, 3, 128, 8, 16, &rfx_est_pos, RFX_PROJ_ORT, 1,
				     1, 64, tr, &nr, fr, &nf, &err) == RFX_OK,
		   "timing");
		ok(nr == 16 && nf == 6, "16 rows (exact stops at 128), 6 fits (%zu, %zu)",
		   nr, nf);
		ok1 = 1;
		for (k = 0; k < nr; k++)
			ok1 &= tr[k].seconds > 0.0 && isfinite(tr[k].seconds);
		ok(ok1, "every time positive");
		ok(fr[0].L_from == 64 && fr[0].L_to == 128 && !strcmp(fr[0].what, "exact"),
		   "exact's fit over 64..128");
		ok(rfx_attexp_timing(Ls, 3, 128, 8, 16, &rfx_est_pos, RFX_PROJ_ORT, 0,
				     1, 64, tr, &nr, fr, &nf, &err) == RFX_EINVAL,
		   "0 reps: RFX_EINVAL");
	}
	gsl_rng_free(r);
	return done_testing();
}

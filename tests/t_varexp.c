/*
 * The Fig 6.4 variance experiment (lib/exp/varexp.h) on a small configuration
 * (d = 8, L = 32, 2 samples, 2 gammas, regimes normal and heterogen, every
 * method): byte-identical reruns, thread-count invariance (also with
 * blocks large enough for the tiled geometric sums), rows that do
 * not depend on the rest of the run (the stream keys of the header), pair
 * counts, Monte Carlo against the analytic column, an independent
 * recomputation of the TrigRF and PosRF rows from the sampled inputs, the
 * configuration errors, and cancellation (last: the flag is sticky).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tap.h"
#include "base/cancel.h"
#include "base/rng.h"
#include "exp/varexp.h"

static const enum rfx_regime regimes[2] = { RFX_REGIME_NORMAL,
					    RFX_REGIME_HETEROGEN };
static const double gammas[2] = { 0.5, 1.3 };

static void base_config(struct rfx_varexp_config *c)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();

	memset(c, 0, sizeof(*c));
	c->d = 8;
	c->L = 32;
	c->samples = 2;
	c->budget = 8;
	c->M = 0;
	c->proj = RFX_PROJ_IID;
	c->seed = 20240611;
	/* The thesis' nine, first in the registry. */
	c->nmethods = 9;
	c->methods = all;
	c->nregimes = 2;
	c->regimes = regimes;
	c->ngammas = 2;
	c->gammas = gammas;
}

struct run {
	struct rfx_varexp_row *rows;
	struct rfx_varexp_param *params;
	size_t nrows, nparams;
	int ret;
	struct rfx_err err;
};

static void run(const struct rfx_varexp_config *c, struct run *r)
{
	r->nrows = rfx_varexp_nrows(c);
	r->rows = calloc(r->nrows ? r->nrows : 1, sizeof(*r->rows));
	r->params = calloc(rfx_varexp_max_params(c) + 1, sizeof(*r->params));
	rfx_err_clear(&r->err);
	r->ret = rfx_varexp_run(c, r->rows, r->params, &r->nparams, &r->err);
	if (r->ret)
		diag("run failed: %s", r->err.msg);
}

static void run_free(struct run *r)
{
	free(r->rows);
	free(r->params);
}

static int same_run(const struct run *a, const struct run *b)
{
	return a->ret == 0 && b->ret == 0 && a->nrows == b->nrows &&
	       a->nparams == b->nparams &&
	       !memcmp(a->rows, b->rows, a->nrows * sizeof(*a->rows)) &&
	       !memcmp(a->params, b->params, a->nparams * sizeof(*a->params));
}

static int progress_calls, progress_last, progress_total, progress_monotone;

static void progress(void *ctx, int done, int total)
{
	(void)ctx;
	progress_calls++;
	if (done != progress_last + 1)
		progress_monotone = 0;
	progress_last = done;
	progress_total = total;
}

/* (a) reruns, (b) threads, (d) pair counts, progress. */
static void test_reproducible(struct run *big)
{
	struct rfx_varexp_config c;
	struct run again, t1, t2;
	size_t k;
	int counts = 1;

	base_config(&c);
	c.progress = progress;
	progress_monotone = 1;
	run(&c, big);
	ok(big->ret == RFX_OK && big->nrows == 36,
	   "9 methods x 2 regimes x 2 gammas = %zu rows", big->nrows);
	ok(progress_calls == 8 && progress_last == 8 && progress_total == 8 &&
		   progress_monotone,
	   "progress: called once per task (8), done = 1..8 in order");
	c.progress = NULL;
	run(&c, &again);
	ok(same_run(big, &again), "(a) a rerun gives byte-identical rows and parameters");
#ifdef _OPENMP
	omp_set_num_threads(1);
	run(&c, &t1);
	omp_set_num_threads(2);
	run(&c, &t2);
	ok(same_run(&t1, &t2) && same_run(&t1, big),
	   "(b) 1 and 2 threads give byte-identical rows and parameters");
	run_free(&t1);
	run_free(&t2);
#else
	ok(0, "(b) built without OpenMP");
#endif
	{
		/*
		 * Blocks large enough for the geometric sums' tiles (and the
		 * hybrids' double form), L = 100 in blocks of 64 and 36: the
		 * same on 1 and 2 threads, and, summaries aside, the same
		 * values as blocks of 24, which take the per-row sums.
		 */
		struct run b1, b2, rows24;
		int close = 1;

		c.L = 100;
		c.block = 64;
		c.samples = 1;
#ifdef _OPENMP
		omp_set_num_threads(1);
		run(&c, &b1);
		omp_set_num_threads(2);
		run(&c, &b2);
		ok(same_run(&b1, &b2),
		   "(b) L = 100 in blocks of 64: byte-identical on 1 and 2 threads");
#else
		run(&c, &b1);
		run(&c, &b2);
		ok(0, "(b) built without OpenMP");
#endif
		c.block = 24;
		run(&c, &rows24);
		for (k = 0; k < b1.nrows && !b1.ret && !rows24.ret; k++) {
			double a = b1.rows[k].logvar_mean, r = rows24.rows[k].logvar_mean;
			double sa = b1.rows[k].logvar_std, sr = rows24.rows[k].logvar_std;

			close &= fabs(a - r) <= 1e-12 * (1.0 + fabs(r)) &&
				 fabs(sa - sr) <= 1e-12 * (1.0 + fabs(r));
		}
		ok(close && !b1.ret && !rows24.ret,
		   "blocks of 64 and of 24 agree to 1e-12 (tiled and per-row "
		   "Bessel sums)");
		run_free(&b1);
		run_free(&b2);
		run_free(&rows24);
		c.L = 32;
		c.block = 0;
		c.samples = 2;
	}
	for (k = 0; k < big->nrows; k++) {
		const struct rfx_varexp_row *w = &big->rows[k];

		if (w->n_pairs + w->n_zero != 32L * 32L * 2 || w->n_pairs < 1 ||
		    w->d != 8 || !isfinite(w->logvar_mean) ||
		    !(w->logvar_min <= w->logvar_mean &&
		      w->logvar_mean <= w->logvar_max))
			counts = 0;
	}
	ok(counts, "(d) every row: n_pairs + n_zero = L L samples = 2048, min <= mean <= max");
	/* Row order: regime, gamma, method as given. */
	ok(!strcmp(big->rows[0].method, "trig") &&
		   !strcmp(big->rows[0].regime, "normal") &&
		   big->rows[0].gamma == 0.5 &&
		   !strcmp(big->rows[9].method, "trig") &&
		   big->rows[9].gamma == 1.3 &&
		   !strcmp(big->rows[18].regime, "heterogen") &&
		   !strcmp(big->rows[35].method, "geom+"),
	   "rows ordered by regime, gamma, then method");
	ok(big->rows[0].M == 4 && big->rows[5].M == 8 && big->rows[1].M == 4,
	   "fair counting with budget 8: trig M = 4, pos M = 8, hyb 2 m (m + 1) = 4");
	/* Parameters: gerf A_re, A_im, t; oprf A_re; pois(+) lambda; geom(+) q; hyb m1, m3. */
	ok(big->nparams == 4 * 2 * (2 + 3 + 1 + 1 + 1 + 1 + 1),
	   "parameter rows: %zu = (regime, gamma) x samples x 10", big->nparams);
	run_free(&again);
}

/*
 * (c) A run with one regime, one gamma and one method reproduces that row
 * of the full run byte for byte, for every method.
 */
static void test_row_independence(const struct run *big)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	int m, same = 1;

	for (m = 0; m < 9; m++) {
		struct rfx_varexp_config c;
		struct run one;
		const struct rfx_estimator_type *meth[1] = { all[m] };
		/* Full run: regime heterogen (1), gamma 1.3 (1), method m. */
		size_t idx = (size_t)((1 * 2 + 1) * 9 + m);

		base_config(&c);
		c.nregimes = 1;
		c.regimes = &regimes[1];
		c.ngammas = 1;
		c.gammas = &gammas[1];
		c.nmethods = 1;
		c.methods = meth;
		run(&c, &one);
		if (one.ret || one.nrows != 1 ||
		    memcmp(&one.rows[0], &big->rows[idx], sizeof(one.rows[0]))) {
			same = 0;
			diag("%s: %.17g vs %.17g", all[m]->name, one.rows[0].logvar_mean,
			     big->rows[idx].logvar_mean);
		}
		run_free(&one);
	}
	ok(same, "(c) one regime/gamma/method alone reproduces that row exactly, for all 9 methods");
	/* Pair blocks that do not divide L: same pairs, summed in another order. */
	{
		struct rfx_varexp_config c;
		struct run b7;
		size_t k;
		double worst = 0;
		int counts = 1;

		base_config(&c);
		c.block = 7;
		run(&c, &b7);
		for (k = 0; k < b7.nrows && !b7.ret; k++) {
			double e = fabs(b7.rows[k].logvar_mean - big->rows[k].logvar_mean) /
				   (1 + fabs(big->rows[k].logvar_mean));

			worst = e > worst ? e : worst;
			e = fabs(b7.rows[k].logvar_std - big->rows[k].logvar_std) /
			    (1 + big->rows[k].logvar_std);
			worst = e > worst ? e : worst;
			/* Per-pair values can differ in the last bits: dgemm rounds by shape. */
			e = fabs(b7.rows[k].logvar_min - big->rows[k].logvar_min) /
			    (1 + fabs(big->rows[k].logvar_min));
			worst = e > worst ? e : worst;
			e = fabs(b7.rows[k].logvar_max - big->rows[k].logvar_max) /
			    (1 + fabs(big->rows[k].logvar_max));
			worst = e > worst ? e : worst;
			if (b7.rows[k].n_pairs != big->rows[k].n_pairs ||
			    b7.rows[k].n_zero != big->rows[k].n_zero)
				counts = 0;
		}
		ok(b7.ret == 0 && counts && worst < 1e-12,
		   "7x7 pair blocks (not dividing L = 32): same counts; mean, sd, min, max within %.2g",
		   worst);
		run_free(&b7);
	}
}

static uint64_t bits(double g)
{
	uint64_t u;

	memcpy(&u, &g, sizeof(u));
	return u;
}

/*
 * (f) The TrigRF and PosRF rows recomputed from scratch: the inputs of
 * (regime, gamma, sample) are sampled here from the documented stream
 * (seed, 1, regime, bits(gamma) ^ sample), and every pair's log-variance is
 * written from the closed forms
 *   TrigRF  2 log(1 - e^{-|x-y|^2}) - log(2M)          (eq. 2.12, M = 4)
 *   PosRF   -|x-y|^2 + log(e^{|x+y|^2} - 1) - log M    (eq. 4.4, M = 8)
 * (Var cos(w.z) = (1 - K^2)^2/2; Var PosRF = K^2 (e^{|x+y|^2} - 1)), with
 * |x -+ y|^2 summed coordinate-wise; mean, sample sd, min, max over the
 * 2 x 32 x 32 pairs must match the rows.
 */
static void test_independent_rows(const struct run *big)
{
	const int d = 8, L = 32;
	int ri, gi, meth;
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());
	double *X = malloc(L * d * sizeof(double)), *Y = malloc(L * d * sizeof(double));

	for (meth = 0; meth < 2; meth++)
		for (ri = 0; ri < 2; ri++)
			for (gi = 0; gi < 2; gi++) {
				/* trig is method 0, pos method 5 of the registry. */
				size_t idx = (size_t)((ri * 2 + gi) * 9 + (meth ? 5 : 0));
				const struct rfx_varexp_row *w = &big->rows[idx];
				double sum = 0, sum2 = 0, lo = INFINITY, hi = -INFINITY, mean, sd;
				long n = 0;
				int s, i, j, l;

				for (s = 0; s < 2; s++) {
					struct rfx_err err;

					rfx_rng_set_key(r, 20240611, &(struct rfx_rng_key){
						.exp = "variance", .what = "sets",
						.name = { rfx_regime_name(regimes[ri]) },
						.i = bits(gammas[gi]), .j = (uint64_t)s });
					rfx_regime_sample(r, regimes[ri], gammas[gi], d, L, NULL,
							  X, Y, &err);
					for (i = 0; i < L; i++)
						for (j = 0; j < L; j++) {
							double dd = 0, ss = 0, lv;

							for (l = 0; l < d; l++) {
								double a = X[i * d + l], b = Y[j * d + l];

								dd += (a - b) * (a - b);
								ss += (a + b) * (a + b);
							}
							lv = meth == 0
								     ? 2 * log(-expm1(-dd)) - log(8.0)
								     : -dd + log(expm1(ss)) - log(8.0);
							sum += lv;
							lo = lv < lo ? lv : lo;
							hi = lv > hi ? lv : hi;
							n++;
						}
				}
				mean = sum / n;
				/* Second pass for the sd. */
				for (s = 0; s < 2; s++) {
					struct rfx_err err;

					rfx_rng_set_key(r, 20240611, &(struct rfx_rng_key){
						.exp = "variance", .what = "sets",
						.name = { rfx_regime_name(regimes[ri]) },
						.i = bits(gammas[gi]), .j = (uint64_t)s });
					rfx_regime_sample(r, regimes[ri], gammas[gi], d, L, NULL,
							  X, Y, &err);
					for (i = 0; i < L; i++)
						for (j = 0; j < L; j++) {
							double dd = 0, ss = 0, lv;

							for (l = 0; l < d; l++) {
								double a = X[i * d + l], b = Y[j * d + l];

								dd += (a - b) * (a - b);
								ss += (a + b) * (a + b);
							}
							lv = meth == 0
								     ? 2 * log(-expm1(-dd)) - log(8.0)
								     : -dd + log(expm1(ss)) - log(8.0);
							sum2 += (lv - mean) * (lv - mean);
						}
				}
				sd = sqrt(sum2 / (n - 1));
				ok(!strcmp(w->method, meth ? "pos" : "trig") && w->n_pairs == n &&
					   fabs(w->logvar_mean - mean) <= 1e-11 * (1 + fabs(mean)) &&
					   fabs(w->logvar_std - sd) <= 1e-9 * sd &&
					   fabs(w->logvar_min - lo) <= 1e-11 * (1 + fabs(lo)) &&
					   fabs(w->logvar_max - hi) <= 1e-11 * (1 + fabs(hi)),
				   "(f) %s %s gamma %g: mean %.10g, sd %.6g, min %.6g, max %.6g recomputed independently",
				   meth ? "pos" : "trig", rfx_regime_name(regimes[ri]),
				   gammas[gi], mean, sd, lo, hi);
			}
	free(X);
	free(Y);
	gsl_rng_free(r);
}

/*
 * (e) Monte Carlo column at gamma = 0.1 (all estimators light-tailed):
 * R = 3000 draws on 8 pairs per sample, 2 samples. The pairs of one sample
 * share their draws, so their errors are correlated; the tolerance treats
 * the 2 samples as the only independent units: |mc - analytic| <= 4 se /
 * sqrt(2), se the mean per-pair standard error of log s^2. (The z assuming
 * 16 independent pairs is printed too.) The Monte Carlo log s^2 is biased
 * by about -se^2/2 ~ -3e-4, negligible here.
 */
static void test_monte_carlo(void)
{
	static const enum rfx_regime rg[1] = { RFX_REGIME_NORMAL };
	static const double g[1] = { 0.1 };
	struct rfx_varexp_config c;
	struct run mc;
	size_t k;

	base_config(&c);
	c.nregimes = 1;
	c.regimes = rg;
	c.ngammas = 1;
	c.gammas = g;
	c.mc_R = 3000;
	c.mc_pairs = 8;
	run(&c, &mc);
	ok(mc.ret == RFX_OK, "(e) Monte Carlo run");
	for (k = 0; k < mc.nrows && !mc.ret; k++) {
		const struct rfx_varexp_row *w = &mc.rows[k];
		double diff = w->mc_logvar_mean - w->sub_logvar_mean;
		double tol = 4 * w->mc_logvar_se / sqrt(2.0);

		ok(w->mc_R == 3000 && w->mc_pairs == 16 && w->mc_zero == 0 &&
			   w->mc_logvar_se > 0 && fabs(diff) <= tol &&
			   !strcmp(w->projection, (rfx_estimator_list()[k]->flags &
						   RFX_EST_DISCRETE)
							  ? "discrete"
							  : "iid"),
		   "(e) %s: MC mean log-variance %.4f vs analytic %.4f on the same 16 pairs "
		   "(diff %.4f, tol %.4f; z = %.2f for independent pairs)",
		   w->method, w->mc_logvar_mean, w->sub_logvar_mean, diff, tol,
		   diff / (w->mc_logvar_se / 4.0));
	}
	run_free(&mc);
}

/* (g) Bad configurations are RFX_EINVAL, before any work. */
static void test_errors(void)
{
	static const double bad_g[3] = { 0.0, -1.0, INFINITY };
	static const enum rfx_regime mn[1] = { RFX_REGIME_MNIST };
	struct rfx_varexp_config c;
	struct run r;
	int k;

#define EXPECT_EINVAL(what, stmt)                                              \
	do {                                                                   \
		base_config(&c);                                               \
		stmt;                                                          \
		run(&c, &r);                                                   \
		ok(r.ret == RFX_EINVAL && r.nparams == 0, "(g) %s: %s", what,   \
		   r.err.msg);                                                 \
		run_free(&r);                                                  \
	} while (0)

	EXPECT_EINVAL("d = 0", c.d = 0);
	EXPECT_EINVAL("L = 1", c.L = 1);
	EXPECT_EINVAL("samples = 0", c.samples = 0);
	EXPECT_EINVAL("M < 0", c.M = -3);
	EXPECT_EINVAL("M = 0 and budget 0", c.budget = 0);
	EXPECT_EINVAL("no methods", c.nmethods = 0);
	EXPECT_EINVAL("no regimes", c.nregimes = 0);
	EXPECT_EINVAL("no gammas", c.ngammas = 0);
	for (k = 0; k < 3; k++)
		EXPECT_EINVAL("gamma <= 0 or infinite",
			      (c.gammas = &bad_g[k], c.ngammas = 1));
	EXPECT_EINVAL("mc_R = 1", c.mc_R = 1);
	EXPECT_EINVAL("mc_R < 0", c.mc_R = -10);
	EXPECT_EINVAL("mc_R without pairs", (c.mc_R = 10, c.mc_pairs = 0));
	EXPECT_EINVAL("mnist regime without images", (c.regimes = mn, c.nregimes = 1));
#undef EXPECT_EINVAL
}

/* (h) Cancellation, last: the flag cannot be cleared. */
static void test_cancel(void)
{
	struct rfx_varexp_config c;
	struct run r;

	base_config(&c);
	ok(!rfx_cancel_requested(), "not cancelled before the request");
	rfx_cancel_request();
	ok(rfx_cancel_requested(), "rfx_cancel_request sets the flag");
	run(&c, &r);
	ok(r.ret == RFX_EINTR && strstr(r.err.msg, "interrupt"),
	   "(h) a cancelled run is RFX_EINTR: %s", r.err.msg);
	run_free(&r);
}

int main(void)
{
	struct run big;

	gsl_set_error_handler_off();
	test_reproducible(&big);
	test_row_independence(&big);
	test_independent_rows(&big);
	test_monte_carlo();
	test_errors();
	run_free(&big);
	test_cancel();
	return done_testing();
}

/*
 * rfx optis: plain against optimal importance sampling
 * (docs/EQUIVALENCE.md, lib/exp/optis.h). For each regime it samples a set X
 * (and a set Y, or Y = X with --same) and prints, per estimator, the log
 * of the expected one-sample variance with w ~ p next to the log of the
 * representation-free optimum of Corollary 2 or the bound of Corollary 1.
 * By default x ranges over X and y over Y (two distributions: the bound);
 * --same pools the 2L points and takes x and y from the pool (one
 * distribution: the exact optimum). Output is the TSV table on stdout only; nothing is
 * printed before every number is computed, so a failure prints one error
 * line and no table.
 */
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "est/estimator.h"
#include "opt.h"
#include "exp/optis.h"
#include "output.h"
#include "data/regime.h"
#include "base/rng.h"
#include "exp/varexp.h"

/* The estimators compared: NULL is the cosine form (no rfx estimator). */
static const struct rfx_estimator_type *const methods[] = {
	NULL, &rfx_est_trig, &rfx_est_pos, &rfx_est_oprf
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))
#define NREGIMES 3 /* normal, sphere, heterogen: mnist needs image files */

static const char usage_line[] =
	"[--kernel K] [--gamma G] [--d N] [--L N] [--same] [--seed S]";

static const char summary[] =
	"Plain against optimal importance sampling of random features\n"
	"(docs/EQUIVALENCE.md): per regime (normal, sphere, heterogen)\n"
	"and estimator (cos, trig, pos, oprf), the log of the expected\n"
	"one-sample variance over the pairs of two sampled sets with\n"
	"w ~ p, and the log of the representation-free optimum\n"
	"E k(x,x) E k(y,y) - E k(x,y)^2.";

struct optis_row {
	char regime[RFX_NAME_LEN];
	char method[RFX_NAME_LEN];
	char kernel[RFX_NAME_LEN];
	double gamma;
	int d, L, same;
	double log_plain;    /* log E_{x,y} Var, w ~ p, one sample */
	double log_optimal;  /* log V* (same = 1) or Corollary 1's bound */
	double log_gain;     /* log_plain - log_optimal */
};

static const struct rfx_column optis_cols[] = {
	RFX_COL(optis_row, regime, RFX_COL_STRING),
	RFX_COL(optis_row, method, RFX_COL_STRING),
	RFX_COL(optis_row, kernel, RFX_COL_STRING),
	RFX_COL(optis_row, gamma, RFX_COL_DOUBLE),
	RFX_COL(optis_row, d, RFX_COL_INT), RFX_COL(optis_row, L, RFX_COL_INT),
	RFX_COL(optis_row, same, RFX_COL_INT),
	RFX_COL(optis_row, log_plain, RFX_COL_DOUBLE),
	RFX_COL(optis_row, log_optimal, RFX_COL_DOUBLE),
	RFX_COL(optis_row, log_gain, RFX_COL_DOUBLE),
};
static const struct rfx_schema optis_schema = {
	"optis", "plain against optimal importance sampling",
	sizeof(struct optis_row), RFX_NCOLS(optis_cols), optis_cols
};

/* The rows of regime g: x over X (n x d), y over Y (n x d). */
static int fill_rows(enum rfx_regime g, enum rfx_optis_kernel kern,
		     double gamma, int d, int L, int same, const double *X,
		     const double *Y, size_t n, struct optis_row *row,
		     struct rfx_err *err)
{
	struct rfx_optis_moments m;
	size_t k;
	int ret = rfx_optis_moments(kern, X, n, Y, n, d, &m, err);

	for (k = 0; !ret && k < NMETHODS; k++, row++) {
		const struct rfx_estimator_type *e = methods[k];

		snprintf(row->regime, sizeof(row->regime), "%s", rfx_regime_name(g));
		snprintf(row->method, sizeof(row->method), "%s", e ? e->name : "cos");
		snprintf(row->kernel, sizeof(row->kernel), "%s",
			 kern == RFX_OPTIS_SOFTMAX ? "softmax" : "gauss");
		row->gamma = gamma;
		row->d = d;
		row->L = L;
		row->same = same;
		ret = e ? rfx_optis_plain(e, kern, X, n, Y, n, d, &row->log_plain, err)
			: rfx_optis_plain_cos(kern, X, n, Y, n, d, &row->log_plain, err);
		row->log_optimal = m.log_bound;
		row->log_gain = row->log_plain - m.log_bound;
	}
	return ret;
}

int cmd_optis(int argc, char **argv, const struct rfx_cli *cli)
{
	struct optis_row rows[NREGIMES * NMETHODS];
	const char *kernel = "gauss";
	double gamma = 0.5, *X = NULL;  /* X's L rows, then Y's: the pool */
	int d = 8, L = 64, same = 0, help, npos, g, ret;
	uint64_t seed = RFX_DEFAULT_SEED;
	enum rfx_optis_kernel kern;
	gsl_rng *r = NULL;
	struct rfx_err err;
	struct rfx_opt opts[] = {
		{ "kernel", 0, RFX_OPT_STRING, &kernel, "K",
		  "gauss or softmax (default gauss)", 0 },
		{ "gamma", 0, RFX_OPT_DOUBLE, &gamma, "G",
		  "scale of the regimes' inputs, in (0, 10] (default 0.5)", 0 },
		{ "d", 0, RFX_OPT_INT, &d, "N", "dimension, 1..1024 (default 8)", 0 },
		{ "L", 0, RFX_OPT_INT, &L, "N", "points per set, 1..4096 (default 64)", 0 },
		{ "same", 0, RFX_OPT_FLAG, &same, NULL,
		  "x and y both from the pooled 2L points, where Corollary 2 is exact (default off: x from X, y from Y, Corollary 1's bound)", 0 },
		RFX_OPTION_SEED(&seed),
		RFX_OPTION_END
	};

	(void)cli;
	ret = rfx_cli_parse("optis", usage_line, summary, opts, argc, argv, NULL,
			    0, &npos, &help);
	if (ret || help)
		return ret;
	if (!strcmp(kernel, "gauss"))
		kern = RFX_OPTIS_GAUSS;
	else if (!strcmp(kernel, "softmax"))
		kern = RFX_OPTIS_SOFTMAX;
	else
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "unknown kernel '%s' (valid: gauss softmax)", kernel);
	if (!(gamma > 0.0 && gamma <= 10.0))
		return rfx_cli_fail(RFX_EXIT_USAGE, "--gamma must be in (0, 10], got %g",
				    gamma);
	if (d < 1 || d > 1024)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--d must be in 1..1024, got %d", d);
	if (L < 1 || L > 4096)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--L must be in 1..4096, got %d", L);
	rfx_seed_note(seed);
	X = malloc(2 * (size_t)L * d * sizeof(*X));
	r = rfx_rng_alloc_stream(seed, 0, 0, 0);
	if (!X || !r) {
		ret = rfx_error(&err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (g = 0; g < NREGIMES; g++) {
		rfx_rng_set_stream(r, seed, (uint64_t)g, 0, 0);
		ret = rfx_regime_sample(r, (enum rfx_regime)g, gamma, d, (size_t)L,
					NULL, X, X + (size_t)L * d, &err);
		if (!ret)
			ret = fill_rows((enum rfx_regime)g, kern, gamma, d, L, same, X,
					same ? X : X + (size_t)L * d,
					same ? 2 * (size_t)L : (size_t)L,
					rows + g * NMETHODS, &err);
		if (ret)
			goto out;
	}
	rfx_tsv_print(&optis_schema, rows, NREGIMES * NMETHODS, stdout);
out:
	gsl_rng_free(r);
	free(X);
	if (ret)
		return rfx_cli_fail(ret == RFX_EINVAL ? RFX_EXIT_USAGE : RFX_EXIT_FAIL,
				    "%s", err.msg);
	return RFX_EXIT_OK;
}

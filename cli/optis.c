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
#include <math.h>
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
	"[--kernel K] [--gamma G] [--d N] [--L N] [--same] [--seed S]\n"
	"   or: rfx optis --x-file X [--y-file Y] [--kernel K] [--gamma G] [--attention-scale] [--same]";

static const char summary[] =
	"Plain against optimal importance sampling of random features\n"
	"(docs/EQUIVALENCE.md): per regime (normal, sphere, heterogen)\n"
	"and estimator (cos, trig, pos, oprf), the log of the expected\n"
	"one-sample variance over the pairs of two sampled sets with\n"
	"w ~ p, and the log of the representation-free optimum\n"
	"E k(x,x) E k(y,y) - E k(x,y)^2. --x-file (and --y-file) take your\n"
	"own sets instead (.npy, text or FILE.h5:/dataset; rows are points;\n"
	"without --y-file x and y both range over X, where the optimum is exact).";

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
	RFX_COL(optis_row, regime, RFX_COL_STRING,
		"regime the two sets were sampled from (normal, sphere, heterogen), or file (--x-file)"),
	RFX_COL(optis_row, method, RFX_COL_STRING,
		"estimator (cos, trig, pos, oprf)"),
	RFX_COL(optis_row, kernel, RFX_COL_STRING,
		"kernel: gauss or softmax"),
	RFX_COL(optis_row, gamma, RFX_COL_DOUBLE,
		"kernel scale gamma: inputs x -> gamma x"),
	RFX_COL(optis_row, d, RFX_COL_INT,
		"input dimension"), RFX_COL(optis_row, L, RFX_COL_INT,
		"points per set"),
	RFX_COL(optis_row, same, RFX_COL_INT,
		"1 when x and y range over one pooled set, else 0"),
	RFX_COL(optis_row, log_plain, RFX_COL_DOUBLE,
		"natural log of the one-sample variance with w ~ p, averaged over the pairs"),
	RFX_COL(optis_row, log_optimal, RFX_COL_DOUBLE,
		"natural log of the optimal importance-sampling variance V* (same = 1) or of Corollary 1's bound"),
	RFX_COL(optis_row, log_gain, RFX_COL_DOUBLE,
		"log_plain - log_optimal: natural log of the variance ratio"),
};
static const struct rfx_schema optis_schema = {
	"optis", "plain against optimal importance sampling",
	sizeof(struct optis_row), RFX_NCOLS(optis_cols), optis_cols
};

/* The rows of regime g: x over X (n x d), y over Y (n x d). */
static int fill_rows(const char *regime, enum rfx_optis_kernel kern,
		     double gamma, int d, int L, int same, const double *X,
		     size_t nx, const double *Y, size_t ny, struct optis_row *row,
		     struct rfx_err *err)
{
	struct rfx_optis_moments m;
	size_t k;
	int ret = rfx_optis_moments(kern, X, nx, Y, ny, d, &m, err);

	for (k = 0; !ret && k < NMETHODS; k++, row++) {
		const struct rfx_estimator_type *e = methods[k];

		snprintf(row->regime, sizeof(row->regime), "%s", regime);
		snprintf(row->method, sizeof(row->method), "%s", e ? e->name : "cos");
		snprintf(row->kernel, sizeof(row->kernel), "%s",
			 kern == RFX_OPTIS_SOFTMAX ? "softmax" : "gauss");
		row->gamma = gamma;
		row->d = d;
		row->L = L;
		row->same = same;
		ret = e ? rfx_optis_plain(e, kern, X, nx, Y, ny, d, &row->log_plain, err)
			: rfx_optis_plain_cos(kern, X, nx, Y, ny, d, &row->log_plain, err);
		row->log_optimal = m.log_bound;
		row->log_gain = row->log_plain - m.log_bound;
	}
	return ret;
}

/*
 * The user's sets (issue 16): X from x_file and Y from y_file (or Y = X,
 * one distribution), scaled by gamma and, with attention, by d^-1/4;
 * --same pools X and Y as the regimes' --same pools their two sets.
 */
static int run_files(enum rfx_optis_kernel kern, double gamma, int same,
		     int attention, const char *x_file, const char *y_file)
{
	struct optis_row rows[NMETHODS];
	struct rfx_matrix X, Y;
	struct rfx_err err;
	double *P = NULL, f;
	size_t nx, ny, k;
	int ret;

	rfx_matrix_init(&Y);
	rfx_err_clear(&err);
	if ((ret = rfx_cli_load_matrix(&X, x_file, NULL)))
		return ret;
	if (y_file && (ret = rfx_cli_load_matrix(&Y, y_file, NULL)))
		goto out;
	if (y_file && rfx_matrix_check_same_cols(&X, &Y, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	nx = X.rows;
	ny = y_file ? Y.rows : 0;
	P = malloc((nx + ny) * (size_t)X.cols * sizeof(double));
	if (!P) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	f = gamma * (attention ? pow((double)X.cols, -0.25) : 1.0);
	for (k = 0; k < nx * (size_t)X.cols; k++)
		P[k] = f * X.x[k];
	for (k = 0; k < ny * (size_t)X.cols; k++)
		P[nx * (size_t)X.cols + k] = f * Y.x[k];
	if (!y_file || same)
		/* one distribution (X, or X and Y pooled): Corollary 2 exact */
		ret = fill_rows("file", kern, gamma, X.cols, (int)(nx + ny), 1, P,
				nx + ny, P, nx + ny, rows, &err);
	else
		ret = fill_rows("file", kern, gamma, X.cols, (int)nx, 0, P, nx,
				P + nx * (size_t)X.cols, ny, rows, &err);
	if (ret) {
		ret = rfx_cli_fail(ret == RFX_EINVAL ? RFX_EXIT_USAGE : RFX_EXIT_FAIL,
				   "%s", err.msg);
		goto out;
	}
	rfx_tsv_print(&optis_schema, rows, NMETHODS, stdout);
	ret = RFX_EXIT_OK;
out:
	free(P);
	rfx_matrix_release(&X);
	rfx_matrix_release(&Y);
	return ret;
}

int cmd_optis(int argc, char **argv, const struct rfx_cli *cli)
{
	struct optis_row rows[NREGIMES * NMETHODS];
	const char *x_file = NULL, *y_file = NULL, *output = NULL;
	int attention = 0;
	/* --kernel's choices, in the order of enum rfx_optis_kernel */
	static const char *const kernels[] = { "gauss", "softmax", NULL };
	int kernel = 0;
	double gamma = 0.5, *X = NULL;  /* X's L rows, then Y's: the pool */
	int d = 8, L = 64, same = 0, help, npos, g, ret;
	uint64_t seed = RFX_DEFAULT_SEED;
	enum rfx_optis_kernel kern;
	gsl_rng *r = NULL;
	struct rfx_err err;
	struct rfx_opt opts[] = {
		{ "kernel", 0, RFX_OPT_CHOICE, &kernel, "K",
		  "gauss or softmax (default gauss)", 0, .choices = kernels },
		{ "gamma", 0, RFX_OPT_DOUBLE, &gamma, "G",
		  "scale of the regimes' inputs, in (0, 10] (default 0.5)", 0,
		  RFX_RANGE_ABOVE(0, 10) },
		{ "d", 0, RFX_OPT_INT, &d, "N", "dimension, 1..1024 (default 8)", 0,
		  RFX_RANGE(1, 1024) },
		{ "L", 0, RFX_OPT_INT, &L, "N", "points per set, 1..4096 (default 64)", 0,
		  RFX_RANGE(1, 4096) },
		{ "same", 0, RFX_OPT_FLAG, &same, NULL,
		  "x and y both from the pooled 2L points, where Corollary 2 is exact (default off: x from X, y from Y, Corollary 1's bound)", 0 },
		{ "x-file", 0, RFX_OPT_STRING, &x_file, "FILE",
		  "your x's, one per row: .npy, text or FILE.h5:/dataset (default none: the regimes)", 0 },
		{ "y-file", 0, RFX_OPT_STRING, &y_file, "FILE",
		  "your y's (default: the x's, x and y from one distribution)", 0 },
		{ "attention-scale", 0, RFX_OPT_FLAG, &attention, NULL,
		  "files: scale by d^-1/4 so that x.y is q.k/sqrt(d) (default off)", 0 },
		RFX_OPTION_SEED(&seed),
		RFX_OPTION_OUTPUT(&output, "the table"),
		RFX_OPTION_END
	};
	struct rfx_out out = { NULL };

	ret = rfx_cli_parse("optis", usage_line, summary, opts, argc, argv, NULL,
			    0, &npos, &help);
	if (ret || help)
		return ret;
	if (!x_file && (y_file || attention))
		return rfx_cli_fail(RFX_EXIT_USAGE, "--%s needs --x-file",
				    y_file ? "y-file" : "attention-scale");
	if (x_file && (rfx_opt_seen(opts, "d") || rfx_opt_seen(opts, "L")))
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--%s does not apply to --x-file (the files set it)",
				    rfx_opt_seen(opts, "d") ? "d" : "L");
	if (x_file && !rfx_opt_seen(opts, "gamma"))
		gamma = 1.0; /* the user's sets at their own scale */
	kern = kernel ? RFX_OPTIS_SOFTMAX : RFX_OPTIS_GAUSS;
	if (x_file)
		return run_files(kern, gamma, same, attention, x_file, y_file);
	rfx_seed_note(seed);
	X = malloc(2 * (size_t)L * d * sizeof(*X));
	r = gsl_rng_alloc(rfx_rng_type());
	if (!X || !r) {
		ret = rfx_error(&err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (g = 0; g < NREGIMES; g++) {
		rfx_rng_set_key(r, seed, &(struct rfx_rng_key){
			.exp = "optis", .what = "sets",
			.name = { rfx_regime_name((enum rfx_regime)g) } });
		ret = rfx_regime_sample(r, (enum rfx_regime)g, gamma, d, (size_t)L,
					NULL, X, X + (size_t)L * d, &err);
		if (!ret)
			ret = fill_rows(rfx_regime_name((enum rfx_regime)g), kern,
					gamma, d, L, same, X,
					same ? 2 * (size_t)L : (size_t)L,
					same ? X : X + (size_t)L * d,
					same ? 2 * (size_t)L : (size_t)L,
					rows + g * NMETHODS, &err);
		if (ret)
			goto out;
	}
	ret = rfx_out_open(&out, output, &err);
	if (!ret)
		ret = rfx_out_provenance(&out, cli, seed, &err);
	if (!ret)
		ret = rfx_out_table(&out, &optis_schema, rows, NREGIMES * NMETHODS,
				    stdout, &err);
	if (!ret)
		ret = rfx_out_commit(&out, &err);
	if (ret)
		rfx_out_abort(&out);
out:
	gsl_rng_free(r);
	free(X);
	if (ret)
		return rfx_cli_fail(rfx_cli_exit_code(ret),
				    "%s", err.msg);
	return RFX_EXIT_OK;
}

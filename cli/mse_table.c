/*
 * rfx mse-table: the mean squared error of kernel estimators on dataset
 * pairs (lib/exp/msetable.h) and the ORF paper's curves against z
 * (lib/exp/zcurve.h), in two modes:
 *
 *   table (default)  HRF Table 1 by default (the softmax kernel on wine
 *                    and Boston); with --kernel gauss --ratio LIST the ORF
 *                    paper's Figs 4 and 5c
 *   --vs-z           ORF Figs 2(a)(b) and 3: bias and variance ratio to
 *                    RFF against z = |x - y|/sigma
 *   --z-hist         ORF Fig 2(c): the distribution of z over the pairs
 *                    of datasets (letter, USPS, MNIST by default), at the
 *                    table mode's bandwidth (lib/exp/msetable.h)
 *
 * --check REF.tsv compares the table with a reference made by the same
 * command (make regress): stdout gets the comparison, and the exit status
 * is 1 when a cell differs beyond its tolerance (lib/io/regress.h).
 *
 * Usage errors exit 2 before any draw; run-time failures exit 1; the -o
 * file appears only when everything succeeded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "base/suggest.h"
#include "estimators.h"
#include "data/dataset.h"
#include "est/estimator.h"
#include "exp/msetable.h"
#include "opt.h"
#include "output.h"
#include "io/regress.h"
#include "base/rng.h"
#include "exp/zcurve.h"

#define MAX_METHODS 32
#define MAX_DATA 16
#define MAX_NORMS 8
#define MAX_SCALES 8
#define MAX_ITEMS 64

/* HRF Table 1's columns. */
#define HRF_METHODS \
	"HRF-ort=ang:ort,HRF-iid=ang:iid,ORF-reg=trig:ort,ORF-Had=trig:sorf,Halton-R=trig:halton"

static const char usage_line[] =
	"[--dataset LIST] [--method LIST] [--kernel softmax|gauss] [--norm LIST] "
	"[--features LIST | --ratio LIST] [--pairs P] [--draws S] [--reps R] "
	"[--check REF.tsv] [--seed S] [-o FILE.h5]\n"
	"   or: rfx mse-table --vs-z [--projection LIST] [--d LIST] [--z-max Z] "
	"[--z-steps N] [--mc R] [--seed S] [-o FILE.h5]\n"
	"   or: rfx mse-table --z-hist [--dataset LIST] [--norm LIST] [--sigma S] "
	"[--pad P] [--pairs P] [--z-max Z] [--z-steps N] [--seed S] [-o FILE.h5]";

static const char summary[] =
	"Mean squared error of kernel estimators on pairs of dataset inputs. By\n"
	"default HRF Table 1: the softmax kernel SM(x, y) = exp(x.y) on wine and\n"
	"Boston, inputs z-scored per column and scaled to unit length (--norm),\n"
	"100 random pairs and 10 estimators per repetition, mean and standard\n"
	"deviation over 20 repetitions, for the angular hybrid on orthogonal and\n"
	"iid projections FLOP-matched to TrigRF with 512 features, and TrigRF\n"
	"with 512 features on orthogonal, SORF and randomised Halton projections.\n"
	"A method is [LABEL=]ESTIMATOR[:PROJECTION]. With --kernel gauss and\n"
	"--ratio LIST, the Gaussian kernel at bandwidth sigma (the mean distance\n"
	"to the 50th nearest neighbour, ORF paper sec. 5) against D/d (ORF Figs\n"
	"4, 5c). --vs-z gives ORF Figs 2(a)(b) and 3 (lib/exp/zcurve.h); --z-hist\n"
	"ORF Fig 2(c), the distribution of z = |x - y|/sigma over random pairs of\n"
	"each dataset at that bandwidth, as a density. Datasets: "
	RFX_DATASET_NAMES ".";

/* --kernel, --match, --pad: the choices, indexed by the enums. */
enum { KERNEL_SOFTMAX, KERNEL_GAUSS };
static const char *const kernels[] = { "softmax", "gauss", NULL };
enum { MATCH_FLOPS, MATCH_NONE };
static const char *const matches[] = { "flops", "none", NULL };
enum { PAD_NONE, PAD_POW2 };
static const char *const pads[] = { "none", "pow2", NULL };

struct mt_opts {
	const char *dataset, *method, *norm, *features, *ratio;
	int kernel, match, pad; /* KERNEL_*, MATCH_*, PAD_* */
	const char *baseline, *sigma, *sigma_scale, *data, *check, *output;
	const char *projection, *dlist;
	int vs_z, z_hist, nn_k, z_steps, threads, header;
	long pairs, draws, reps, nn_sample, mc;
	double z_max;
	uint64_t seed;
	struct rfx_strlist params;
};

#define MODE_TABLE 1u
#define MODE_Z 2u
#define MODE_HIST 4u
/* The data options: the table's datasets, with its bandwidth. */
#define MODE_DATA (MODE_TABLE | MODE_HIST)

/* Options of some modes only: in the others they are a usage error. */
static const struct rfx_opt_mode option_modes[] = {
	{ "dataset", MODE_DATA },  { "method", MODE_TABLE },
	{ "kernel", MODE_TABLE },  { "norm", MODE_DATA },
	{ "features", MODE_TABLE }, { "ratio", MODE_TABLE },
	{ "match", MODE_TABLE },   { "baseline", MODE_TABLE },
	{ "sigma", MODE_DATA },    { "sigma-scale", MODE_DATA },
	{ "nn-k", MODE_DATA },
	{ "nn-sample", MODE_DATA }, { "pad", MODE_DATA },
	{ "pairs", MODE_DATA },    { "draws", MODE_TABLE },
	{ "reps", MODE_TABLE },    { "param", MODE_TABLE },
	{ "data", MODE_DATA },     { "check", MODE_TABLE },
	{ "header", MODE_DATA },
	{ "projection", MODE_Z },  { "d", MODE_Z },
	{ "z-max", MODE_Z | MODE_HIST }, { "z-steps", MODE_Z | MODE_HIST },
	{ "mc", MODE_Z },	   { "z-hist", MODE_HIST },
	{ "vs-z", MODE_Z },
};

static int parse_opts(int argc, char **argv, struct mt_opts *o, int *help)
{
	int ret, npos;
	const char *pos[1];
	static char param_help[256]; /* static: the table may outlive this call */
	struct rfx_opt opts[] = {
		{ "dataset", 0, RFX_OPT_STRING, &o->dataset, "LIST",
		  "datasets, comma-separated, or files (.npy, text, FILE.h5:/dataset; rows are inputs) (default wine,boston)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "method", 0, RFX_OPT_STRING, &o->method, "LIST",
		  "[LABEL=]ESTIMATOR[:PROJECTION], comma-separated (default HRF Table 1: "
		  HRF_METHODS ")", 0,
		  .list = RFX_LIST_STRINGS },
		{ "kernel", 0, RFX_OPT_CHOICE, &o->kernel, "K",
		  "softmax or gauss (default softmax)", 0, .choices = kernels },
		{ "norm", 0, RFX_OPT_STRING, &o->norm, "LIST",
		  "input normalisations: " RFX_NORM_NAMES " (default unit; gauss: none)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "features", 0, RFX_OPT_STRING, &o->features, "LIST",
		  "budgets: features of the baseline (default 512)", 0,
		  .list = RFX_LIST_INTS },
		{ "ratio", 0, RFX_OPT_STRING, &o->ratio, "LIST",
		  "budgets as multiples of d instead, D/d, e.g. 1,2,4,6,8,10 (default none: --features)", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "match", 0, RFX_OPT_CHOICE, &o->match, "KIND",
		  "flops: same map cost as the baseline; none: the budget for each (default flops)", 0,
		  .choices = matches },
		{ "baseline", 0, RFX_OPT_STRING, &o->baseline, "METHOD",
		  "FLOP matching: the estimator whose map sets the cost (default trig)", 0 },
		{ "sigma", 0, RFX_OPT_STRING, &o->sigma, "S",
		  "bandwidth: a number, nn for the mean distance to the k-th neighbour, or "
		  "attention for d^(1/4) (x.y / sqrt(d)) (default 1 for softmax, nn for gauss)", 0 },
		RFX_OPTION_HEADER(&o->header, "", "a text --dataset FILE"),
		{ "sigma-scale", 0, RFX_OPT_STRING, &o->sigma_scale, "LIST",
		  "multiply the bandwidth by each factor, one block of rows each (ORF Fig 5ab) (default 1)", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "nn-k", 0, RFX_OPT_INT, &o->nn_k, "K",
		  "the neighbour of --sigma nn (default 50)", 0, RFX_RANGE(1, HUGE_VAL) },
		{ "nn-sample", 0, RFX_OPT_LONG, &o->nn_sample, "N",
		  "inputs averaged by --sigma nn (default 1000)", 0,
		  RFX_RANGE(1, HUGE_VAL) },
		{ "pad", 0, RFX_OPT_CHOICE, &o->pad, "P",
		  "none, or pow2: zero-pad inputs to a power-of-2 dimension (default none)", 0,
		  .choices = pads },
		{ "pairs", 0, RFX_OPT_LONG, &o->pairs, "P",
		  "random pairs per repetition; --z-hist: pairs per dataset (default 100; --z-hist 100000)", 0,
		  RFX_RANGE(1, 100000000) },
		{ "draws", 0, RFX_OPT_LONG, &o->draws, "S",
		  "estimators drawn per repetition (default 10)", 0,
		  RFX_RANGE(1, 1000000) },
		{ "reps", 0, RFX_OPT_LONG, &o->reps, "R",
		  "repetitions, for the mean and standard deviation (default 20)", 0,
		  RFX_RANGE(2, 100000) },
		{ "param", 0, RFX_OPT_MULTI, &o->params, "[M:]NAME=VALUE",
		  param_help, 0 },
		RFX_OPTION_DATA(&o->data),
		{ "check", 0, RFX_OPT_STRING, &o->check, "REF.tsv",
		  "compare with a reference table (make regress); exit 1 if a cell differs (default none)", 0 },
		{ "vs-z", 0, RFX_OPT_FLAG, &o->vs_z, NULL,
		  "ORF Figs 2, 3: bias and variance ratio against z (default off)", 0 },
		{ "z-hist", 0, RFX_OPT_FLAG, &o->z_hist, NULL,
		  "ORF Fig 2(c): the distribution of z = |x - y|/sigma over dataset pairs (default off)", 0 },
		{ "projection", 0, RFX_OPT_STRING, &o->projection, "LIST",
		  "--vs-z: projections, of " RFX_PROJ_NAMES " (default iid,ort,orf-prime,sorf)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "d", 0, RFX_OPT_STRING, &o->dlist, "LIST",
		  "--vs-z: dimensions, D = d features (default 4,8,16,32)", 0,
		  .list = RFX_LIST_INTS },
		{ "z-max", 0, RFX_OPT_DOUBLE, &o->z_max, "Z",
		  "--vs-z, --z-hist: largest z, at most 6 (default 4)", 0, RFX_RANGE_ABOVE(0, 6) },
		{ "z-steps", 0, RFX_OPT_INT, &o->z_steps, "N",
		  "--vs-z: z = z-max k/N, k = 1..N; --z-hist: N bins of width z-max/N (default 40)", 0,
		  RFX_RANGE(1, 10000) },
		{ "mc", 0, RFX_OPT_LONG, &o->mc, "R",
		  "--vs-z: draws per projection and d (default 20000)", 0,
		  RFX_RANGE(2, 100000000) },
		RFX_OPTION_SEED(&o->seed),
		RFX_OPTION_THREADS(&o->threads),
		RFX_OPTION_OUTPUT(&o->output, "the table"),
		RFX_OPTION_END
	};

	rfx_param_help(param_help, sizeof(param_help),
		       "fix a parameter instead of fitting or matching it");
	ret = rfx_cli_parse("mse-table", usage_line, summary, opts, argc, argv,
			    pos, 0, &npos, help);
	if (ret || *help)
		return ret;
	if (o->vs_z && o->z_hist)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--vs-z and --z-hist are two modes: give one");
	ret = rfx_cli_check_modes(opts, option_modes,
				  sizeof(option_modes) / sizeof(option_modes[0]),
				  o->vs_z ? MODE_Z : o->z_hist ? MODE_HIST : MODE_TABLE,
				  o->vs_z ? "--vs-z" : o->z_hist ? "--z-hist" : "the table mode");
	if (ret)
		return ret;
	if (o->z_hist) {
		/* ORF Fig 2(c): the ORF paper's datasets that data/ has, raw */
		if (!rfx_opt_seen(opts, "dataset"))
			o->dataset = "letter,usps,mnist";
		if (!rfx_opt_seen(opts, "pairs"))
			o->pairs = 100000;
		o->kernel = KERNEL_GAUSS;
	}
	if (!o->z_hist && o->pairs > 1000000)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--pairs must be at most 1000000 in the table mode, got %ld",
				    o->pairs);
	if (rfx_opt_seen(opts, "features") && rfx_opt_seen(opts, "ratio"))
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--features and --ratio are two ways to give budgets: "
				    "use one");
	if (!rfx_opt_seen(opts, "norm") && o->kernel == KERNEL_GAUSS)
		o->norm = "none";
	if (!rfx_opt_seen(opts, "sigma"))
		o->sigma = o->kernel == KERNEL_GAUSS ? "nn" : "1";
	return RFX_EXIT_OK;
}

/* Fails with code and the message of err. */
static int fail(int code, const struct rfx_err *err)
{
	return rfx_cli_fail(code, "%s", err->msg);
}

/* ------------------------------------------------------------------------ */
/* --vs-z */

static int run_vs_z(const struct mt_opts *o, const struct rfx_cli *cli)
{
	enum rfx_proj proj[MAX_ITEMS];
	const char *item[MAX_ITEMS];
	char buf[1024];
	int d[MAX_ITEMS], np = 0, nd = 0, k, ret = RFX_EXIT_USAGE;
	double *z = NULL;
	struct rfx_zc_config c;
	struct rfx_zc_row *rows = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	size_t n;

	rfx_err_clear(&err);
	if (rfx_opt_split("projection", o->projection, buf, sizeof(buf), item,
		       MAX_ITEMS, &np, &err))
		return fail(RFX_EXIT_USAGE, &err);
	for (k = 0; k < np; k++)
		if (rfx_proj_parse(item[k], &proj[k], &err))
			return fail(RFX_EXIT_USAGE, &err);
	if (rfx_opt_ints("d", o->dlist, d, MAX_ITEMS, 2, 4096, &nd, &err))
		return fail(RFX_EXIT_USAGE, &err);
	z = malloc((size_t)o->z_steps * sizeof(double));
	if (!z)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	for (k = 0; k < o->z_steps; k++)
		z[k] = o->z_max * (k + 1) / o->z_steps;
	memset(&c, 0, sizeof(c));
	c.nproj = np;
	c.proj = proj;
	c.nd = nd;
	c.d = d;
	c.nz = o->z_steps;
	c.z = z;
	c.R = o->mc;
	c.seed = o->seed;
	c.progress = rfx_progress;
	c.progress_ctx = "mse-table --vs-z";
	/* dimension limits of the projections are usage errors */
	for (k = 0; k < nd * np; k++)
		if (rfx_proj_check(proj[k % np], d[k / np], &err)) {
			free(z);
			return fail(RFX_EXIT_USAGE, &err);
		}
	n = rfx_zc_nrows(&c);
	rows = calloc(n, sizeof(*rows));
	ret = RFX_EXIT_FAIL;
	if (!rows) {
		rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for %zu rows", n);
		goto out;
	}
	if (rfx_out_open(&out, o->output, &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	rfx_seed_note(o->seed);
	if (rfx_zc_run(&c, rows, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &rfx_zc_schema, rows, n, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	free(rows);
	free(z);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* The table mode */

struct mt_state {
	struct rfx_mse_inputs in;  /* the datasets as the table uses them */
	struct rfx_mse_method methods[MAX_METHODS];
	struct rfx_params base[MAX_METHODS];
	int nmethods, inited;
	int features[MAX_ITEMS];
	double ratio[MAX_ITEMS];
	int nbudget;
	char mbuf[4096];  /* the --method items */
	struct rfx_matrix files[MAX_DATA];      /* the --dataset FILEs' rows */
	struct rfx_matrix *fileptr[MAX_DATA];   /* files[k] or NULL (a name) */
	char fname[MAX_DATA][16];               /* a FILE's name in the table */
	const char *lnames[MAX_DATA];           /* the names the library sees */
	int nfiles;                             /* files[0 .. nfiles) inited */
};

static void state_release(struct mt_state *s)
{
	int k;

	for (k = 0; k < s->nfiles; k++)
		if (s->fileptr[k])
			rfx_matrix_release(&s->files[k]);
	rfx_mse_inputs_release(&s->in);
	for (k = 0; k < s->inited; k++)
		rfx_params_release(&s->base[k]);
}

/* Methods, budgets and parameters: usage errors before any data. */
static int parse_methods(const struct mt_opts *o, struct mt_state *s,
			 struct rfx_err *err)
{
	const char *item[MAX_METHODS];
	int used[64] = { 0 }, k, q, n;

	if (rfx_opt_split("method", o->method, s->mbuf, sizeof(s->mbuf), item, MAX_METHODS,
		       &s->nmethods, err))
		return RFX_EINVAL;
	for (k = 0; k < s->nmethods; k++) {
		if (rfx_mse_method_parse(item[k], &s->methods[k], err))
			return RFX_EINVAL;
		for (q = 0; q < k; q++)
			if (!strcmp(s->methods[q].label, s->methods[k].label))
				return rfx_error(err, RFX_EINVAL, "method '%s' listed twice",
						 s->methods[k].label);
		rfx_params_init(&s->base[k], 1);
		s->inited = k + 1;
		s->methods[k].base = &s->base[k];
		for (q = 0; q < o->params.n; q++)
			if (rfx_params_apply(&s->base[k], s->methods[k].e,
					     o->params.item[q], &used[q], err))
				return RFX_EINVAL;
		/* a vector parameter would be for one dimension, datasets differ */
		if (s->base[k].c || s->base[k].a_re)
			return rfx_error(err, RFX_EINVAL,
					 "%s: vector parameters (c, a) cannot be fixed "
					 "for datasets of different dimensions",
					 s->methods[k].label);
	}
	for (q = 0; q < o->params.n; q++)
		if (!used[q])
			return rfx_error(err, RFX_EINVAL,
					 "no listed method has parameter '%s'",
					 o->params.item[q]);
	if (o->ratio) {
		double *v = NULL;

		if (rfx_opt_sweep("ratio", o->ratio, &v, &n, err))
			return RFX_EINVAL;
		for (k = 0; k < n && k < MAX_ITEMS; k++)
			if (!(v[k] > 0.0 && v[k] <= 1000.0)) {
				free(v);
				return rfx_error(err, RFX_EINVAL,
						 "--ratio values must be in (0, 1000], got '%s'",
						 o->ratio);
			}
		if (n > MAX_ITEMS) {
			free(v);
			return rfx_error(err, RFX_EINVAL, "too many items in --ratio");
		}
		memcpy(s->ratio, v, (size_t)n * sizeof(double));
		free(v);
		s->nbudget = n;
	} else if (rfx_opt_ints("features", o->features, s->features, MAX_ITEMS, 1,
			    1000000, &s->nbudget, err)) {
		return RFX_EINVAL;
	}
	return RFX_OK;
}

/*
 * Parses the data options and loads the inputs (rfx_mse_inputs_load).
 * Bad names and values are usage errors (*code 2), load failures
 * run-time errors (rfx_cli_exit_code).
 */
static int load_data(const struct mt_opts *o, const struct rfx_cli *cli,
		     struct mt_state *s, int *code, struct rfx_err *err)
{
	const char *dnames[MAX_DATA], *nnames[MAX_NORMS];
	char dbuf[4096], nbuf[256], dir[4096];
	enum rfx_norm norms[MAX_NORMS];
	struct rfx_mse_inputs_config ic;
	int nd, nn, nsc, k, j, ret;
	double scale[MAX_SCALES];
	char *end;

	*code = RFX_EXIT_USAGE;
	memset(&ic, 0, sizeof(ic));
	if (rfx_opt_split("dataset", o->dataset, dbuf, sizeof(dbuf), dnames, MAX_DATA,
		       &nd, err) ||
	    rfx_opt_split("norm", o->norm, nbuf, sizeof(nbuf), nnames, MAX_NORMS, &nn,
		       err))
		return RFX_EINVAL;
	for (k = 0; k < nd; k++) {
		if (rfx_dataset_index(dnames[k]) < 0 && !rfx_cli_is_file(dnames[k])) {
			char hint[96];

			rfx_suggest_phrase_list(dnames[k], RFX_DATASET_NAMES, hint,
						sizeof(hint));
			return rfx_error(err, RFX_EINVAL,
					 "unknown dataset '%s'%s (valid: %s, or a file)",
					 dnames[k], hint, RFX_DATASET_NAMES);
		}
		for (j = 0; j < k; j++)
			if (!strcmp(dnames[j], dnames[k]))
				return rfx_error(err, RFX_EINVAL,
						 "dataset '%s' listed twice", dnames[k]);
	}
	for (k = 0; k < nn; k++) {
		if (rfx_norm_parse(nnames[k], &norms[k], err))
			return RFX_EINVAL;
		for (j = 0; j < k; j++)
			if (norms[j] == norms[k])
				return rfx_error(err, RFX_EINVAL,
						 "normalisation '%s' listed twice", nnames[k]);
	}
	if (o->sigma_scale) {
		double *v;

		if (rfx_opt_sweep("sigma-scale", o->sigma_scale, &v, &nsc, err))
			return RFX_EINVAL;
		for (k = 0; k < nsc && k < MAX_SCALES; k++)
			scale[k] = v[k];
		free(v);
		if (nsc > MAX_SCALES)
			return rfx_error(err, RFX_EINVAL,
					 "--sigma-scale takes at most %d factors, got %d",
					 MAX_SCALES, nsc);
		for (k = 0; k < nsc; k++)
			if (!(scale[k] > 0.0))
				return rfx_error(err, RFX_EINVAL,
						 "--sigma-scale factors must be positive, got %g",
						 scale[k]);
		/* A reference's cells are keyed without the bandwidth. */
		if (o->check && nsc > 1)
			return rfx_error(err, RFX_EINVAL,
					 "--check compares one bandwidth: give --sigma-scale one factor");
	} else {
		nsc = 1;
		scale[0] = 1.0;
	}
	if (!strcmp(o->sigma, "attention")) {
		ic.sigma_attention = 1; /* d^(1/4) per dataset */
	} else if (strcmp(o->sigma, "nn")) {
		ic.sigma = strtod(o->sigma, &end);
		if (end == o->sigma || *end || !(ic.sigma > 0.0) || !isfinite(ic.sigma))
			return rfx_error(err, RFX_EINVAL,
					 "--sigma must be nn, attention or a positive number, got '%s'",
					 o->sigma);
	}
	rfx_cli_data_dir(o->data, cli, dir, sizeof(dir));
	/*
	 * The user's files are read here, where their paths and checksums
	 * go to the provenance (cli/output.c); the library prepares them
	 * beside the catalogue's datasets.
	 */
	for (k = 0; k < nd; k++) {
		struct rfx_matrix_opts mo = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
		const char *base = strrchr(dnames[k], '/');

		s->lnames[k] = dnames[k];
		if (!rfx_cli_is_file(dnames[k]))
			continue;
		snprintf(s->fname[k], sizeof(s->fname[k]), "%.15s",
			 base ? base + 1 : dnames[k]);
		s->lnames[k] = s->fname[k];
		if (o->header)
			mo.header = RFX_MATRIX_HEADER_YES;
		if (rfx_cli_load_matrix(&s->files[k], dnames[k], &mo)) {
			/* the loader's line is out: report nothing more */
			*code = -RFX_EXIT_FAIL;
			return RFX_EIO;
		}
		s->fileptr[k] = &s->files[k];
		s->nfiles = k + 1;
		ic.files = (const struct rfx_matrix *const *)s->fileptr;
	}
	ic.ndatasets = nd;
	ic.datasets = s->lnames;
	ic.nnorms = nn;
	ic.norms = norms;
	ic.nscales = nsc;
	ic.scales = scale;
	ic.pad_pow2 = o->pad == PAD_POW2;
	ic.nn_k = o->nn_k;
	ic.nn_sample = (size_t)o->nn_sample;
	ic.seed = o->seed;
	ic.dir = dir;
	ret = rfx_mse_inputs_load(&ic, &s->in, err);
	if (ret)
		*code = rfx_cli_exit_code(ret);
	return ret;
}

/* Prints the comparison with the reference; 1 if a cell fails. */
static int check_reference(const struct rfx_tsv *ref,
			   const struct rfx_mse_row *rows, size_t n,
			   const char *path, struct rfx_err *err)
{
	static const char *const keys[] = { "dataset", "norm", "method",
					    "estimator", "projection", "d",
					    "B", "M", "m1", "m3" };
	struct rfx_regress_spec spec = { 10, keys, "mse", "mse_se",
					 RFX_REGRESS_ALPHA };
	struct rfx_tsv *got = rfx_tsv_from_rows(&rfx_mse_schema, rows, n, err);
	struct rfx_regress_row *cmp = NULL;
	size_t nc = 0, nfail = 0;
	int ret;

	if (!got)
		return -1;
	ret = rfx_regress_compare(ref, got, &spec, &cmp, &nc, &nfail, err);
	rfx_tsv_free(got);
	if (ret)
		return -1;
	rfx_tsv_print(&rfx_regress_schema, cmp, nc, stdout);
	free(cmp);
	if (nfail) {
		rfx_error(err, RFX_EINVAL,
			  "regression: %zu of %zu cells differ from '%s' beyond "
			  "their tolerance", nfail, nc, path);
		return 1;
	}
	return 0;
}

static int run_table(const struct mt_opts *o, const struct rfx_cli *cli)
{
	struct mt_state *s = calloc(1, sizeof(*s));
	struct rfx_mse_config c;
	struct rfx_mse_row *rows = NULL;
	struct rfx_tsv *ref = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	int ret = RFX_EXIT_USAGE, code;
	size_t n;

	rfx_err_clear(&err);
	if (!s)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	memset(&c, 0, sizeof(c));
	c.kernel = o->kernel == KERNEL_GAUSS ? RFX_MSE_GAUSS : RFX_MSE_SOFTMAX;
	c.match = o->match == MATCH_FLOPS;
	c.baseline = rfx_estimator_find(o->baseline, &err);
	if (!c.baseline || parse_methods(o, s, &err)) {
		fail(RFX_EXIT_USAGE, &err);
		goto out;
	}
	if (o->check) {
		ref = rfx_tsv_read(o->check, &err);
		if (!ref) {
			ret = fail(RFX_EXIT_FAIL, &err);
			goto out;
		}
	}
	if (load_data(o, cli, s, &code, &err)) {
		/* code < 0: the loader of a user's file printed its line */
		ret = code < 0 ? -code : fail(code, &err);
		goto out;
	}
	c.ndata = s->in.ndata;
	c.data = s->in.data;
	c.nmethods = s->nmethods;
	c.methods = s->methods;
	c.nbudget = s->nbudget;
	c.features = o->ratio ? NULL : s->features;
	c.ratio = o->ratio ? s->ratio : NULL;
	c.pairs = o->pairs;
	c.draws = o->draws;
	c.reps = o->reps;
	c.seed = o->seed;
	c.progress = rfx_progress;
	c.progress_ctx = "mse-table";
	n = rfx_mse_nrows(&c);
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for %zu rows", n);
		goto out;
	}
	/* budgets, projections and ranges: usage errors before any draw */
	if (rfx_mse_plan(&c, rows, &err)) {
		ret = rfx_cli_error(&err);
		goto out;
	}
	ret = RFX_EXIT_FAIL;
	if (rfx_out_open(&out, o->output, &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	rfx_seed_note(o->seed);
	if (rfx_mse_execute(&c, rows, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &rfx_mse_schema, rows, n, ref ? NULL : stdout,
			  &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	if (ref) {
		int bad = check_reference(ref, rows, n, o->check, &err);

		if (bad) {
			fail(RFX_EXIT_FAIL, &err);
			goto out;
		}
	}
	if (rfx_out_commit(&out, &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	rfx_tsv_free(ref);
	free(rows);
	state_release(s);
	free(s);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* --z-hist */

static int run_z_hist(const struct mt_opts *o, const struct rfx_cli *cli)
{
	struct mt_state *s = calloc(1, sizeof(*s));
	struct rfx_mse_zhist_config c;
	struct rfx_mse_zhist_row *rows = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	int ret = RFX_EXIT_FAIL, code;
	size_t n;

	rfx_err_clear(&err);
	if (!s)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	if (load_data(o, cli, s, &code, &err)) {
		/* code < 0: the loader of a user's file printed its line */
		ret = code < 0 ? -code : fail(code, &err);
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.ndata = s->in.ndata;
	c.data = s->in.data;
	c.pairs = o->pairs;
	c.nbins = o->z_steps;
	c.z_max = o->z_max;
	c.seed = o->seed;
	c.progress = rfx_progress;
	c.progress_ctx = "mse-table --z-hist";
	n = rfx_mse_zhist_nrows(&c);
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for %zu rows", n);
		goto out;
	}
	if (rfx_out_open(&out, o->output, &err)) {
		fail(RFX_EXIT_FAIL, &err);
		goto out;
	}
	rfx_seed_note(o->seed);
	if (rfx_mse_zhist_run(&c, rows, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &rfx_mse_zhist_schema, rows, n, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = rfx_cli_error(&err);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	free(rows);
	state_release(s);
	free(s);
	return ret;
}

int cmd_mse_table(int argc, char **argv, const struct rfx_cli *cli)
{
	struct mt_opts o;
	int help = 0, ret;

	memset(&o, 0, sizeof(o));
	o.dataset = "wine,boston";
	o.method = HRF_METHODS;
	o.norm = "unit";
	o.features = "512";
	o.baseline = "trig";
	o.nn_k = 50;
	o.nn_sample = 1000;
	o.pairs = 100;
	o.draws = 10;
	o.reps = 20;
	o.projection = "iid,ort,orf-prime,sorf";
	o.dlist = "4,8,16,32";
	o.z_max = 4.0;
	o.z_steps = 40;
	o.mc = 20000;
	o.seed = RFX_DEFAULT_SEED;
	ret = parse_opts(argc, argv, &o, &help);
	if (ret || help)
		return ret;
	return o.vs_z ? run_vs_z(&o, cli) : o.z_hist ? run_z_hist(&o, cli)
				      : run_table(&o, cli);
}

/*
 * rfx variance: the variance of every Gaussian-kernel estimator, in three
 * modes.
 *
 *   experiment (default)  thesis sec. 6.6.1 / Fig 6.4: regimes x gammas x
 *                         samples of L x L pairs (lib/exp/varexp.c)
 *   pair (--x, --y)       one pair, every method, optional Monte Carlo
 *   map (--map)           analytic maps of Figs 4.1, 6.1, 6.2 (lib/exp/varmap.c)
 *
 * Usage errors (bad options or values) exit 2 before any work; run-time
 * failures exit 1; the -o file appears only when everything succeeded.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cmds.h"
#include "estimators.h"
#include "est/estimator.h"
#include "data/images.h"
#include "num/kernel.h"
#include "eval/montecarlo.h"
#include "opt.h"
#include "output.h"
#include "data/regime.h"
#include "base/rng.h"
#include "exp/varexp.h"
#include "exp/varmap.h"
#include "exp/varpair.h"

#define MAX_METHODS 32
#define MAX_PROJS 16
#define MNIST_FILE "t10k-images-idx3-ubyte.gz"

static const char usage_line[] =
	"[--method LIST] [--regime LIST] [--gamma LIST] [--d N] [--L N] "
	"[--samples N] [--features M] [--projection P] [--mc R] "
	"[--seed S] [-o FILE.h5]\n"
	"   or: rfx variance --x-file X [--y-file Y] [--gamma LIST] [--pairs N] [--kernel K] [--attention-scale] [-o FILE.h5]\n"
	"   or: rfx variance --x LIST --y LIST [--method LIST] [--param NAME=VALUE]... [--mc R]\n"
	"   or: rfx variance --map angle|sum [--method LIST] [--d LIST] [--steps N]";

static const char summary[] =
	"Variance of random-feature estimators of the Gaussian kernel\n"
	"K(x, y) = exp(-|x - y|^2/2): closed forms in the log domain, and Monte\n"
	"Carlo. Without --x/--map it reproduces the thesis' variance comparison\n"
	"(sec. 6.6.1, Fig 6.4): mean and standard deviation of log Var over all\n"
	"L x L pairs of two sampled sets, per method, regime and gamma. With\n"
	"--x-file/--y-file the same statistics on your own sets (.npy, text or\n"
	"FILE.h5:/dataset; rows are inputs), then a ranking of the methods;\n"
	"files of one row each are one pair.";

/* --regime: the parsed list and the text as given (the "regimes" attribute). */
struct regimes {
	enum rfx_regime r[RFX_REGIME_COUNT];
	int n;
	const char *text;
};

enum { MNIST_UNIT, MNIST_STANDARD };
static const char *const mnist_norms[] = { "unit", "standard", NULL };
/* --kernel's choices: o.softmax is the index */
static const char *const kernel_names[] = { "gauss", "softmax", NULL };

struct variance_opts {
	const char *method, *gamma, *output, *x, *y;
	const char *map, *baseline, *data, *dlist;
	const char *x_file, *y_file; /* the user's sets (issue 16) */
	int header, attention_scale, softmax;
	long pairs;            /* --pairs: sampled pairs, 0 for all */
	struct regimes regimes;
	enum rfx_proj proj;     /* --projection outside map mode */
	const char *proj_text;  /* --projection as given (a list in map mode) */
	int mnist_norm;        /* MNIST_* */
	int d;                 /* --d outside map mode, parsed */
	int L, samples, features, budget, threads, steps;
	long mc, mc_pairs;
	uint64_t seed;
	double r_max, w_max;
	struct rfx_strlist params;
};

static int usage_fail(struct rfx_err *err)
{
	return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err->msg);
}

/* RFX_OPT_PARSE for --regime: "all" or a list without repeats. */
static int parse_regimes(const char *list, void *dest, struct rfx_err *err)
{
	struct regimes *g = dest;
	enum rfx_regime *out = g->r;
	int *n = &g->n;
	const char *p = list;
	int k;

	g->text = list;
	*n = 0;
	if (!strcmp(list, "all")) {
		for (k = 0; k < RFX_REGIME_COUNT; k++)
			out[(*n)++] = (enum rfx_regime)k;
		return RFX_OK;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[32];
		int ret;

		if (len == 0 || len >= sizeof(name))
			return rfx_error(err, RFX_EINVAL, "bad regime list '%s'", list);
		memcpy(name, p, len);
		name[len] = '\0';
		if (*n == RFX_REGIME_COUNT)
			return rfx_error(err, RFX_EINVAL, "regime listed twice in '%s'",
					 list);
		ret = rfx_regime_parse(name, &out[*n], err);
		if (ret)
			return ret;
		for (k = 0; k < *n; k++)
			if (out[k] == out[*n])
				return rfx_error(err, RFX_EINVAL,
						 "regime '%s' listed twice", name);
		(*n)++;
		if (!comma)
			return RFX_OK;
		p = comma + 1;
	}
}

/* Applies the --param assignments to method e (rfx_params_apply). */
static int apply_params(const struct rfx_strlist *pl,
			const struct rfx_estimator_type *e,
			struct rfx_params *p, int *used, struct rfx_err *err)
{
	int k, ret;

	for (k = 0; k < pl->n; k++) {
		ret = rfx_params_apply(p, e, pl->item[k], &used[k], err);
		if (ret)
			return ret;
	}
	return RFX_OK;
}

/* Multiplies n rows of d values by f in place. */
static void scale_rows(double *x, size_t n, int d, double f)
{
	size_t k;

	for (k = 0; k < n * (size_t)d; k++)
		x[k] *= f;
}

/*
 * One pair: from --x/--y, or from the one-row files fx, fy (NULL for
 * --x/--y). With --kernel softmax every log value of the Gaussian kernel's
 * estimators gains the factor SM(x, y) = exp(|x|^2/2) K(x, y)
 * exp(|y|^2/2): log_kernel becomes x.y, log Var gains |x|^2 + |y|^2.
 */
static int run_pair(const struct variance_opts *o, const struct rfx_cli *cli,
		    const struct rfx_estimator_type **methods, int nm,
		    const struct rfx_matrix *fx, const struct rfx_matrix *fy)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	struct rfx_varpair_config c;
	struct rfx_varpair_result res = { NULL };
	struct rfx_params base[MAX_METHODS];
	double *x = NULL, *y = NULL;
	int nx, ny, m, k, ret = RFX_EXIT_USAGE;
	int used[64] = { 0 };

	rfx_err_clear(&err);
	for (m = 0; m < nm; m++)
		rfx_params_init(&base[m], 0);
	if (fx) {
		/* one-row files (issue 16): copies, freed below like --x's */
		nx = ny = fx->cols;
		x = malloc((size_t)nx * sizeof(double));
		y = malloc((size_t)nx * sizeof(double));
		if (!x || !y) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
			goto out;
		}
		memcpy(x, fx->x, (size_t)nx * sizeof(double));
		memcpy(y, fy->x, (size_t)nx * sizeof(double));
	} else if (!o->y || !o->x) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--x and --y go together");
		goto out;
	} else if (rfx_opt_doubles("x", o->x, &x, &nx, &err) ||
		   rfx_opt_doubles("y", o->y, &y, &ny, &err)) {
		usage_fail(&err);
		goto out;
	}
	if (o->attention_scale && nx == ny) {
		scale_rows(x, 1, nx, pow((double)nx, -0.25));
		scale_rows(y, 1, nx, pow((double)nx, -0.25));
	}
	if (nx != ny) {
		rfx_cli_fail(RFX_EXIT_USAGE,
			     "--x and --y must have the same length, got %d and %d",
			     nx, ny);
		goto out;
	}
	/* the dimension limits of QMC kinds */
	if (o->mc && rfx_proj_check(o->proj, nx, &err)) {
		usage_fail(&err);
		goto out;
	}
	/* Monte Carlo draws: say how to repeat them, as sampled runs do. */
	if (o->mc)
		rfx_seed_note(o->seed);
	for (m = 0; m < nm; m++) {
		base[m].d = nx;
		if (apply_params(&o->params, methods[m], &base[m], used, &err)) {
			usage_fail(&err);
			goto out;
		}
	}
	for (k = 0; k < o->params.n; k++)
		if (!used[k]) {
			rfx_cli_fail(RFX_EXIT_USAGE,
				     "no listed method has parameter '%s'",
				     o->params.item[k]);
			goto out;
		}
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.y = y;
	c.d = nx;
	c.nmethods = nm;
	c.methods = methods;
	c.base = base;
	c.M = o->features;
	c.budget = o->budget;
	c.mc_R = o->mc;
	c.proj = o->proj;
	c.seed = o->seed;
	c.softmax = o->softmax;
	/* Every parameter is fitted and validated before any output. */
	if (rfx_varpair_run(&c, &res, &err)) {
		ret = rfx_cli_error(&err);
		goto out;
	}
	if (rfx_out_open(&out, o->output, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &res.schema, res.rows, res.nrows, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	rfx_varpair_release(&res);
	for (m = 0; m < nm; m++)
		rfx_params_release(&base[m]);
	free(x);
	free(y);
	return ret;
}

static int run_map(const struct variance_opts *o, const struct rfx_cli *cli,
		   const struct rfx_estimator_type **methods, int nm)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	struct rfx_varmap_config c;
	struct rfx_varmap_row *rows = NULL;
	enum rfx_proj projs[MAX_PROJS];
	int *ds = NULL, nd, ret = RFX_EXIT_USAGE, k;
	size_t n;

	rfx_err_clear(&err);
	memset(&c, 0, sizeof(c));
	if (rfx_varmap_parse(o->map, &c.kind, &err) ||
	    rfx_opt_ints_alloc("d", o->dlist, 1, 1000000, &ds, &nd, &err)) {
		usage_fail(&err);
		goto out;
	}
	c.nd = nd;
	c.ds = ds;
	c.budget = o->budget;
	c.M = o->features;
	c.nmethods = nm;
	c.methods = methods;
	c.baseline = rfx_estimator_find(o->baseline, &err);
	if (!c.baseline) {
		usage_fail(&err);
		goto out;
	}
	{
		const char *item[MAX_PROJS];
		char buf[512];

		if (rfx_opt_split("projection", o->proj_text, buf, sizeof(buf), item,
				  MAX_PROJS, &c.nprojs, &err)) {
			usage_fail(&err);
			goto out;
		}
		for (k = 0; k < c.nprojs; k++)
			if (rfx_proj_parse(item[k], &projs[k], &err)) {
				usage_fail(&err);
				goto out;
			}
		c.projs = projs;
	}
	c.r_max = o->r_max;
	c.w_max = o->w_max;
	c.steps = o->steps;
	for (k = 0; k < nd; k++)
		if (c.kind == RFX_VARMAP_ANGLE && ds[k] < 2) {
			rfx_cli_fail(RFX_EXIT_USAGE,
				     "the angle map needs --d >= 2, got %d", ds[k]);
			goto out;
		}
	if (rfx_out_open(&out, o->output, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	n = rfx_varmap_nrows(&c);
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (rfx_varmap_run(&c, rows, &err)) {
		/* a method without an exact coupled variance: the command line's fault */
		ret = rfx_cli_fail(err.code == RFX_EINVAL ? RFX_EXIT_USAGE : RFX_EXIT_FAIL,
				   "%s", err.msg);
		goto out;
	}
	if (rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &rfx_varmap_schema, rows, n, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	free(rows);
	free(ds);
	return ret;
}

/*
 * Validates user-fixed parameters before any work: each fit checks the
 * values it keeps, so a fit to a small stand-in pair reports them.
 */
static int check_given(const struct rfx_estimator_type **methods,
		       const struct rfx_params *base, int nm,
		       const struct variance_opts *o, struct rfx_err *err)
{
	double *v = malloc((size_t)o->d * sizeof(double));
	int m, k, ret = RFX_OK;

	if (!v)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (k = 0; k < o->d; k++)
		v[k] = 0.1;
	for (m = 0; m < nm && !ret; m++) {
		struct rfx_params p;
		int M = o->features > 0 ? o->features
					: rfx_estimator_fair_features(methods[m], o->budget);

		if (!base[m].given)
			continue;
		rfx_params_init(&p, o->d);
		ret = rfx_params_copy(&p, &base[m], err);
		if (!ret)
			ret = methods[m]->fit(&p, v, 1, v, 1, M, err);
		rfx_params_release(&p);
	}
	free(v);
	return ret;
}

/*
 * The --param values as each method's base parameters (initialised by the
 * caller for dimension o->d), all applied and validated before any work.
 * Returns RFX_EXIT_OK, or RFX_EXIT_USAGE after reporting.
 */
static int fix_params(const struct variance_opts *o,
		      const struct rfx_estimator_type **methods, int nm,
		      struct rfx_params *base)
{
	struct rfx_err err;
	int used[64] = { 0 };
	int k;

	rfx_err_clear(&err);
	for (k = 0; k < nm; k++)
		if (apply_params(&o->params, methods[k], &base[k], used, &err))
			return usage_fail(&err);
	for (k = 0; k < o->params.n; k++)
		if (!used[k])
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "no listed method has parameter '%s'",
					    o->params.item[k]);
	if (o->params.n && check_given(methods, base, nm, o, &err))
		return usage_fail(&err);
	return RFX_EXIT_OK;
}

/* The config fields the experiment and the file mode fill alike. */
static void common_config(struct rfx_varexp_config *c,
			  const struct variance_opts *o, int d,
			  const struct rfx_estimator_type **methods, int nm,
			  const struct rfx_params *base, const double *gammas,
			  int ng)
{
	c->d = d;
	c->budget = o->budget;
	c->M = o->features;
	c->mc_R = o->mc;
	c->mc_pairs = (size_t)o->mc_pairs;
	c->seed = o->seed;
	c->nmethods = nm;
	c->methods = methods;
	c->base = base;
	c->ngammas = ng;
	c->gammas = gammas;
	c->progress = rfx_progress;
	c->progress_ctx = "variance";
}

/* The MNIST test images resized to k x k, k^2 = d (lib/data/images.h). */
static struct rfx_images *load_mnist(const struct variance_opts *o,
				     const struct rfx_cli *cli, int d,
				     struct rfx_err *err)
{
	char dir[4096], path[4200];

	rfx_cli_data_dir(o->data, cli, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, MNIST_FILE);
	return rfx_images_load_square(path, d, o->mnist_norm == MNIST_STANDARD, err);
}

static int run_experiment(const struct variance_opts *o,
			  const struct rfx_cli *cli,
			  const struct rfx_estimator_type **methods, int nm)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	struct rfx_varexp_config c;
	struct rfx_varexp_row *rows = NULL;
	struct rfx_varexp_param *params = NULL;
	struct rfx_images *images = NULL;
	struct rfx_params base[MAX_METHODS];
	const enum rfx_regime *regimes = o->regimes.r;
	double *gammas = NULL;
	int nreg = o->regimes.n, ng, k, d, ret = RFX_EXIT_USAGE;
	size_t np;

	rfx_err_clear(&err);
	memset(&c, 0, sizeof(c));
	d = o->d;
	for (k = 0; k < nm; k++)
		rfx_params_init(&base[k], d);
	if (fix_params(o, methods, nm, base))
		goto out;
	c.proj = o->proj;
	if (rfx_opt_sweep("gamma", o->gamma, &gammas, &ng, &err) ||
	    rfx_proj_check(c.proj, o->d, &err)) {
		usage_fail(&err);
		goto out;
	}
	for (k = 0; k < ng; k++)
		if (!(gammas[k] > 0.0)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "gamma must be positive, got %g",
				     gammas[k]);
			goto out;
		}
	for (k = 0; k < nreg; k++)
		if (regimes[k] == RFX_REGIME_MNIST) {
			images = load_mnist(o, cli, d, &err);
			if (!images) {
				ret = rfx_cli_error(&err);
				goto out;
			}
			if (images->n < 2 * (size_t)o->L) {
				rfx_cli_fail(RFX_EXIT_USAGE,
					     "the mnist regime needs --L <= %zu (half the images), got %d",
					     images->n / 2, o->L);
				goto out;
			}
		}
	common_config(&c, o, d, methods, nm, base, gammas, ng);
	c.L = (size_t)o->L;
	c.samples = o->samples;
	c.nregimes = nreg;
	c.regimes = regimes;
	c.images = images;
	if (rfx_out_open(&out, o->output, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	rows = calloc(rfx_varexp_nrows(&c), sizeof(*rows));
	params = calloc(rfx_varexp_max_params(&c), sizeof(*params));
	if (!rows || !params) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	rfx_seed_note(o->seed);
	if (rfx_varexp_run(&c, rows, params, &np, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, c.mc_R ? &rfx_varexp_mc_schema : &rfx_varexp_schema,
			  rows, rfx_varexp_nrows(&c), stdout, &err) ||
	    rfx_out_table(&out, &rfx_varexp_param_schema, params, np, NULL, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	rfx_images_free(images);
	for (k = 0; k < nm; k++)
		rfx_params_release(&base[k]);
	free(rows);
	free(params);
	free(gammas);
	return ret;
}

/*
 * The user's sets (issue 16): the Fig 6.4 statistics on X x Y per method
 * and gamma, then the ranking, on stdout and in the -o file.
 */
static int run_sets(struct variance_opts *o, const struct rfx_cli *cli,
		    const struct rfx_estimator_type **methods, int nm,
		    const struct rfx_matrix *X, const struct rfx_matrix *Y)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	struct rfx_varexp_config c;
	struct rfx_varexp_sets sets;
	struct rfx_varexp_row *rows = NULL;
	struct rfx_varexp_param *params = NULL;
	struct rfx_varexp_rank *rank = NULL;
	struct rfx_params base[MAX_METHODS];
	double *gammas = NULL;
	int ng = 0, k, ret = RFX_EXIT_USAGE;
	size_t np, nrows;

	rfx_err_clear(&err);
	memset(&c, 0, sizeof(c));
	o->d = X->cols;
	for (k = 0; k < nm; k++)
		rfx_params_init(&base[k], o->d);
	if (fix_params(o, methods, nm, base))
		goto out;
	c.proj = o->proj;
	if (rfx_opt_sweep("gamma", o->gamma, &gammas, &ng, &err) ||
	    (o->mc && rfx_proj_check(c.proj, o->d, &err))) {
		usage_fail(&err);
		goto out;
	}
	for (k = 0; k < ng; k++)
		if (!(gammas[k] > 0.0)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "gamma must be positive, got %g",
				     gammas[k]);
			goto out;
		}
	if (o->mc < 0 || o->mc == 1) {
		rfx_cli_fail(RFX_EXIT_USAGE,
			     "--mc needs 0 (none) or at least 2 draws, got %ld", o->mc);
		goto out;
	}
	if (o->mc_pairs < 1 || o->pairs < 0) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--%s must be positive, got %ld",
			     o->pairs < 0 ? "pairs" : "mc-pairs",
			     o->pairs < 0 ? o->pairs : o->mc_pairs);
		goto out;
	}
	common_config(&c, o, o->d, methods, nm, base, gammas, ng);
	sets.X = X->x;
	sets.nx = X->rows;
	sets.Y = Y->x;
	sets.ny = Y->rows;
	sets.pairs = (size_t)o->pairs;
	sets.softmax = o->softmax;
	nrows = (size_t)ng * (size_t)nm;
	rows = calloc(nrows, sizeof(*rows));
	params = calloc(nrows * 4, sizeof(*params));
	rank = calloc(nrows, sizeof(*rank));
	if (!rows || !params || !rank) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (rfx_out_open(&out, o->output, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	if (o->mc || o->pairs)
		rfx_seed_note(o->seed);
	if (rfx_varexp_run_sets(&c, &sets, rows, params, &np, &err)) {
		ret = rfx_cli_fail(err.code == RFX_EINVAL ? RFX_EXIT_USAGE
							  : RFX_EXIT_FAIL,
				   "%s", err.msg);
		goto out;
	}
	rfx_varexp_rank(rows, nrows, rank);
	if (rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, c.mc_R ? &rfx_varexp_mc_schema : &rfx_varexp_schema,
			  rows, nrows, stdout, &err) ||
	    rfx_out_table(&out, &rfx_varexp_param_schema, params, np, NULL, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	/* the ranking after the table, as rfx dump separates tables */
	fputs("\n\n# ranking\n", stdout);
	if (rfx_out_table(&out, &rfx_varexp_rank_schema, rank, nrows, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	for (k = 0; k < nm; k++)
		rfx_params_release(&base[k]);
	free(rows);
	free(params);
	free(rank);
	free(gammas);
	return ret;
}

/*
 * --x-file and --y-file (Y defaults to X): loads both, checks they share
 * d, applies the attention scale, and runs the set study, or pair mode
 * when both hold one row.
 */
static int run_files(struct variance_opts *o, const struct rfx_cli *cli,
		     const struct rfx_estimator_type **methods, int nm,
		     int gamma_seen)
{
	struct rfx_matrix_opts mo = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
	struct rfx_matrix X, Y;
	struct rfx_err err;
	int ret;

	rfx_matrix_init(&X);
	rfx_matrix_init(&Y);
	rfx_err_clear(&err);
	if (o->header)
		mo.header = RFX_MATRIX_HEADER_YES;
	if ((ret = rfx_cli_load_matrix(&X, o->x_file, &mo)))
		goto out;
	if (o->y_file && (ret = rfx_cli_load_matrix(&Y, o->y_file, &mo)))
		goto out;
	if (o->y_file && rfx_matrix_check_same_cols(&X, &Y, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	if (X.rows == 1 && (!o->y_file || Y.rows == 1)) {
		if (gamma_seen || o->pairs) {
			ret = rfx_cli_fail(RFX_EXIT_USAGE,
					   "--%s does not apply to one-row files (pair mode)",
					   gamma_seen ? "gamma" : "pairs");
			goto out;
		}
		ret = run_pair(o, cli, methods, nm, &X, o->y_file ? &Y : &X);
		goto out;
	}
	if (o->attention_scale) {
		double f = pow((double)X.cols, -0.25);

		scale_rows(X.x, X.rows, X.cols, f);
		if (o->y_file)
			scale_rows(Y.x, Y.rows, Y.cols, f);
	}
	ret = run_sets(o, cli, methods, nm, &X, o->y_file ? &Y : &X);
out:
	rfx_matrix_release(&X);
	rfx_matrix_release(&Y);
	return ret;
}

#define MODE_EXP 1u  /* experiment */
#define MODE_PAIR 2u /* --x, --y */
#define MODE_MAP 4u  /* --map */
#define MODE_FILE 8u /* --x-file, --y-file: sets, or a pair of one-row files */

/*
 * Options that belong to some modes only; passing one in another mode is a
 * usage error rather than silently ignored (--x 1,2 --d 7 used to print
 * d = 2).
 */
static const struct rfx_opt_mode option_modes[] = {
	{ "regime", MODE_EXP },	  { "gamma", MODE_EXP | MODE_FILE },
	{ "L", MODE_EXP },	  { "samples", MODE_EXP },
	{ "mc-pairs", MODE_EXP | MODE_FILE }, { "data", MODE_EXP },
	{ "mnist-norm", MODE_EXP },
	{ "d", MODE_EXP | MODE_MAP },
	{ "mc", MODE_EXP | MODE_PAIR | MODE_FILE },
	{ "projection", MODE_EXP | MODE_PAIR | MODE_FILE | MODE_MAP },
	{ "param", MODE_EXP | MODE_PAIR | MODE_FILE }, { "steps", MODE_MAP },
	{ "pairs", MODE_FILE },	  { "header", MODE_FILE },
	{ "kernel", MODE_PAIR | MODE_FILE },
	{ "attention-scale", MODE_PAIR | MODE_FILE },
	{ "r-max", MODE_MAP },	  { "w-max", MODE_MAP },
	{ "baseline", MODE_MAP },
};

/* Indexed by mode bit, for messages. */
static const char *const mode_names[] = {
	"",
	"the experiment mode",
	"pair mode (--x, --y)",
	"",
	"map mode (--map)",
	"", "", "",
	"the file mode (--x-file, --y-file)"
};

int cmd_variance(int argc, char **argv, const struct rfx_cli *cli)
{
	struct variance_opts o;
	struct rfx_err err;
	const struct rfx_estimator_type *methods[MAX_METHODS];
	const char *pos[1];
	int nm, npos, help, ret, dflt_d, gamma_seen;
	unsigned mode;
	char about[2048], param_help[256];

	memset(&o, 0, sizeof(o));
	o.method = "all";
	o.gamma = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1";
	o.baseline = "pos";
	o.dlist = "64";
	o.mc = -1; /* unset: the mode decides */
	o.seed = RFX_DEFAULT_SEED;
	o.steps = 60;
	o.r_max = 2.0;
	o.w_max = 100.0;
	snprintf(about, sizeof(about), "%s", summary);
	rfx_methods_help(about, sizeof(about), "Methods:",
			 NULL,
			 "(or all; 'rfx help estimators' describes them).");
	rfx_param_help(param_help, sizeof(param_help),
		       "fix a parameter instead of fitting it");
	{
		struct rfx_opt opts[] = {
			{ "method", 0, RFX_OPT_STRING, &o.method, "LIST",
			  "estimators, comma-separated, or all (default all)", 0,
			  .list = RFX_LIST_STRINGS },
			{ "regime", 0, RFX_OPT_PARSE, &o.regimes, "LIST",
			  "normal,sphere,heterogen,mnist or all", 0,
			  .parse = parse_regimes, .dflt = "all",
			  .list = RFX_LIST_STRINGS },
			{ "gamma", 0, RFX_OPT_STRING, &o.gamma, "LIST",
			  "input scales (default 0.1,0.2,...,1)", 0,
			  .list = RFX_LIST_DOUBLES },
			{ "d", 0, RFX_OPT_STRING, &o.dlist, "N",
			  "dimension (default 64; a list for --map sum, default 16,32,64,128)", 0,
			  .list = RFX_LIST_INTS },
			{ "L", 0, RFX_OPT_INT, &o.L, "N", "inputs per set", 0,
			  RFX_RANGE(2, HUGE_VAL), .dflt = "1024" },
			{ "samples", 0, RFX_OPT_INT, &o.samples, "N",
			  "set pairs per regime and gamma", 0, RFX_RANGE(1, HUGE_VAL),
			  .dflt = "5" },
			{ "features", 0, RFX_OPT_INT, &o.features, "M",
			  "features for every method (default: fair counting)", 0,
			  RFX_RANGE(1, HUGE_VAL) },
			{ "budget", 0, RFX_OPT_INT, &o.budget, "B",
			  "fair counting: B real features, B/2 complex", 0,
			  RFX_RANGE(1, HUGE_VAL), .dflt = "8" },
			{ "projection", 0, RFX_OPT_STRING, &o.proj_text, "P",
			  "projections for Monte Carlo: " RFX_PROJ_NAMES
			  "; --map: a list, exact coupled variances", 0,
			  .dflt = "iid" },
			{ "mc", 0, RFX_OPT_LONG, &o.mc, "R",
			  "Monte Carlo draws per pair, 0 for none (default 1000; 0 in pair mode)", 0,
			  RFX_RANGE_OR0(2, HUGE_VAL) },
			{ "mc-pairs", 0, RFX_OPT_LONG, &o.mc_pairs, "P",
			  "pairs per set pair checked by Monte Carlo", 0,
			  RFX_RANGE(1, HUGE_VAL), .dflt = "16" },
			RFX_OPTION_SEED(&o.seed),
			RFX_OPTION_THREADS(&o.threads),
			{ "data", 0, RFX_OPT_STRING, &o.data, "DIR",
			  "data directory for MNIST (default: $RFX_DATA, else data/ next to rfx)", 0 },
			{ "mnist-norm", 0, RFX_OPT_CHOICE, &o.mnist_norm, "N",
			  "mnist pixels: unit ([0, 1]) or standard (z-scored per pixel)", 0,
			  .choices = mnist_norms, .dflt = "unit" },
			{ "x", 0, RFX_OPT_STRING, &o.x, "LIST",
			  "pair mode: x, comma-separated (default none: sampled sets)", 0,
			  .list = RFX_LIST_DOUBLES },
			{ "y", 0, RFX_OPT_STRING, &o.y, "LIST",
			  "pair mode: y, as long as x (default none)", 0,
			  .list = RFX_LIST_DOUBLES },
			{ "x-file", 0, RFX_OPT_STRING, &o.x_file, "FILE",
			  "your x's, one per row: .npy, text (CSV/TSV/blank) or FILE.h5:/dataset (default none)", 0 },
			{ "y-file", 0, RFX_OPT_STRING, &o.y_file, "FILE",
			  "your y's, as --x-file (default: the x's)", 0 },
			{ "pairs", 0, RFX_OPT_LONG, &o.pairs, "N",
			  "files: N pairs drawn at random instead of all (default 0: all pairs)", 0 },
			RFX_OPTION_HEADER(&o.header, "files: ", "a text file"),
			{ "kernel", 0, RFX_OPT_CHOICE, &o.softmax, "K",
			  "gauss, or softmax exp(x.y)", 0, .choices = kernel_names,
			  .dflt = "gauss" },
			{ "attention-scale", 0, RFX_OPT_FLAG, &o.attention_scale, NULL,
			  "scale x and y by d^-1/4 so that x.y is attention's q.k/sqrt(d) (default off)", 0 },
			{ "param", 0, RFX_OPT_MULTI, &o.params, "[M:]NAME=VALUE",
			  param_help, 0 },
			{ "map", 0, RFX_OPT_STRING, &o.map, "KIND",
			  "analytic map: angle (Figs 4.1, 6.1) or sum (Fig 6.2) (default none)", 0 },
			{ "steps", 0, RFX_OPT_INT, &o.steps, "N",
			  "map grid points per axis", 0, RFX_RANGE(2, 100000),
			  .dflt = "60" },
			{ "r-max", 0, RFX_OPT_DOUBLE, &o.r_max, "R",
			  "angle map: largest |x| = |y|", 0, RFX_RANGE_POSITIVE,
			  .dflt = "2" },
			{ "w-max", 0, RFX_OPT_DOUBLE, &o.w_max, "W",
			  "sum map: largest |x + y|^2", 0, RFX_RANGE_POSITIVE,
			  .dflt = "100" },
			{ "baseline", 0, RFX_OPT_STRING, &o.baseline, "METHOD",
			  "map: log_ratio is against this method (default pos)", 0 },
			RFX_OPTION_OUTPUT(&o.output, "the tables"),
			RFX_OPTION_END
		};

		ret = rfx_cli_parse("variance", usage_line, about, opts, argc, argv,
				    pos, 0, &npos, &help);
		if (ret || help)
			return ret;
		dflt_d = !rfx_opt_seen(opts, "d");
		if (o.x && o.map)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--map and --x/--y are different modes");
		if ((o.x_file || o.y_file) && (o.x || o.y || o.map))
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--x-file/--y-file and --%s are different modes",
					    o.map ? "map" : "x/--y");
		if (o.y_file && !o.x_file)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--y-file needs --x-file");
		gamma_seen = rfx_opt_seen(opts, "gamma");
		mode = o.map ? MODE_MAP : o.x_file ? MODE_FILE :
		       (o.x || o.y) ? MODE_PAIR : MODE_EXP;
		ret = rfx_cli_check_modes(opts, option_modes,
					  sizeof(option_modes) / sizeof(option_modes[0]),
					  mode, mode_names[mode]);
		if (ret)
			return ret;
		/*
		 * The experiment shows Monte Carlo beside the closed forms unless
		 * told not to; one pair gets it on request (--mc R).
		 */
		if (!rfx_opt_seen(opts, "mc"))
			o.mc = (o.x || o.y) ? 0 : 1000;
		/* the user's sets are at their own scale unless told */
		if (o.x_file && !gamma_seen)
			o.gamma = "1";
	}
	if (o.output && !*o.output)
		return rfx_cli_fail(RFX_EXIT_USAGE, "-o needs a file name");
	if (rfx_estimator_parse_list(o.method, methods, MAX_METHODS, &nm, &err))
		return usage_fail(&err);
	/* one kind, but a list for the exact coupled maps (run_map) */
	if (!o.map && strchr(o.proj_text, ','))
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--projection takes one kind outside --map, got '%s'",
				    o.proj_text);
	if (!o.map && rfx_proj_parse(o.proj_text, &o.proj, &err))
		return usage_fail(&err);
	if (o.threads > 0)
		rfx_cli_threads(o.threads);
	if (o.map) {
		if (dflt_d)
			o.dlist = strcmp(o.map, "sum") ? "64" : "16,32,64,128";
		return run_map(&o, cli, methods, nm);
	}
	if (o.x_file)
		return run_files(&o, cli, methods, nm, gamma_seen);
	{
		int *ds, nd;

		if (rfx_opt_ints_alloc("d", o.dlist, 1, 1000000, &ds, &nd, &err)) {
			/* Report d <= 0 in the words users expect. */
			double v;
			char *end;

			v = strtod(o.dlist, &end);
			if (*end == '\0' && end != o.dlist && v <= 0)
				return rfx_cli_fail(RFX_EXIT_USAGE,
						    "--d must be positive, got %s",
						    o.dlist);
			return usage_fail(&err);
		}
		o.d = ds[0];
		free(ds);
		if (nd != 1)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--d takes one dimension here (lists are for --map sum)");
	}
	if (o.x || o.y)
		return run_pair(&o, cli, methods, nm, NULL, NULL);
	return run_experiment(&o, cli, methods, nm);
}

/*
 * rfx clustered: hybrid random features adapted to clustered data (HRF
 * sec. 2.4 and appendix H, Fig 6 and Table 3), lib/exp/clustered.h.
 *
 * For each synthetic data set of HRF H.3 (--set 1,2,3,4, or --s with
 * --sigma for another), k-means with k = 2 on the x's and on the y's, then
 * for every method, m and repetition the empirical MSE of the softmax
 * estimates over all pairs. stdout gets the summary over repetitions
 * (table "table3": min and max as in Table 3, mean as in Fig 6); -o also
 * writes the per-repetition MSEs ("mse"), the closed-form expectations
 * ("exact") and the clusters' s and softmax ranges ("clusters").
 *
 * Usage errors exit 2 before any long work (an unreachable s target is
 * found while the data are made, which takes a fraction of a second);
 * run-time failures exit 1; the -o file appears only on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/clustered.h"
#include "cmds.h"
#include "estimators.h"
#include "opt.h"
#include "output.h"
#include "base/rng.h"

#define MAX_METHODS 24
#define MAX_SETS 4

/* HRF H.3: the targets s over the pairs (1,1), (1,2), (2,1), (2,2), and sigma. */
static const struct {
	double s[4];
	double sigma;
} paper_sets[MAX_SETS] = {
	{ { 0.08, 0.05, 0.04, 0.03 }, 1.0 },
	{ { 0.11, 0.09, 0.08, 0.07 }, 1.0 },
	{ { 0.05, 0.03, 0.03, 0.02 }, 3.1622776601683795 },
	{ { 0.07, 0.06, 0.05, 0.04 }, 3.1622776601683795 },
};

/* Defaults: see docs/REPRODUCTION.md for why these values. */
#define DEFAULT_NORM 0.7
#define DEFAULT_MEAN_SD 10.0

static const char usage_line[] =
	"[--set LIST | --s S11,S12,S21,S22 --sigma SIGMA] [--method LIST] [--m LIST] "
	"[--reps R] [--a real|complex] [--norm R] [--mean-sd Z] [--seed S] [-o FILE.h5]";

static const char summary[] =
	"Hybrid random features adapted to clustered data (HRF sec. 2.4, appendix H):\n"
	"for each synthetic set of HRF H.3 (two Gaussian clusters of x's and two of\n"
	"y's in R^50, the loss s = l(A) of eq. 21 controlled per pair of clusters),\n"
	"k-means with k = 2, one complex exponential estimator per pair of centres\n"
	"(A of eq. 88, or eqs. 85-87 with --a complex), and for every method, m and\n"
	"repetition the empirical MSE of the softmax estimates over all pairs.\n"
	"Prints the minimum and maximum over repetitions (HRF Table 3), mean and\n"
	"median (Fig 6); -o adds the per-repetition MSEs, the closed-form expected\n"
	"MSE and each pair of clusters' s and softmax range. Methods: hyb-cluster\n"
	"(Definition H.2), hyb-gmix (Definition H.1), and the registry estimators\n"
	"with a plain budget.";

/* --a and --scaling: the choices, indexed by the enums. */
enum { A_REAL, A_COMPLEX };
static const char *const a_kinds[] = { "real", "complex", NULL };
enum { SCALING_MEAN, SCALING_SPHERE };
static const char *const scalings[] = { "mean", "sphere", NULL };

struct cl_opts {
	const char *sets, *slist, *method, *mlist, *base0, *output;
	int a;       /* A_* */
	int scaling; /* SCALING_* */
	double sigma, norm, mean_sd, tau, s_tol;
	int reps, points, d, lambda, restarts, threads, no_exact;
	uint64_t seed;
};

static int parse_opts(int argc, char **argv, struct cl_opts *o, int *help,
		      struct rfx_opt *opts_out, size_t nopts)
{
	int ret, npos;
	const char *pos[1];
	struct rfx_opt opts[] = {
		{ "set", 0, RFX_OPT_STRING, &o->sets, "LIST",
		  "HRF H.3's data sets, from 1..4 (default 1,2,3,4)", 0,
		  .list = RFX_LIST_INTS },
		{ "s", 0, RFX_OPT_STRING, &o->slist, "S11,S12,S21,S22",
		  "instead of --set: one set with these targets s = l(A), needs --sigma (default none)", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "sigma", 0, RFX_OPT_DOUBLE, &o->sigma, "SIGMA",
		  "with --s: the clusters' standard deviation (default none)", 0 },
		{ "method", 0, RFX_OPT_STRING, &o->method, "LIST",
		  "methods, comma-separated, or all (default hyb-cluster,pos,trig)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "m", 0, RFX_OPT_STRING, &o->mlist, "LIST",
		  "numbers of random features (default 20,50,80,100,120,150,200)", 0,
		  .list = RFX_LIST_INTS },
		{ "reps", 0, RFX_OPT_INT, &o->reps, "R", "repetitions (default 20)", 0,
		  RFX_RANGE(1, 100000) },
		{ "a", 0, RFX_OPT_CHOICE, &o->a, "KIND",
		  "hybrids' diagonal A: real (eq. 88) or complex (eqs. 85-87) (default real)", 0,
		  .choices = a_kinds },
		{ "tau", 0, RFX_OPT_DOUBLE, &o->tau, "T",
		  "hyb-gmix: bandwidth of the Gaussian lambdas (default 1)", 0,
		  RFX_RANGE_POSITIVE },
		{ "base0", 0, RFX_OPT_STRING, &o->base0, "METHOD",
		  "hyb-gmix: the extra base estimator SM_0 (default trig)", 0 },
		{ "lambda-features", 0, RFX_OPT_INT, &o->lambda, "N",
		  "hyb-gmix: features per lambda (default m)", 0,
		  RFX_RANGE(0, RFX_CL_MAX_M) },
		{ "points", 0, RFX_OPT_INT, &o->points, "N",
		  "points per cluster (default 1000)", 0, RFX_RANGE(2, 2500) },
		{ "d", 0, RFX_OPT_INT, &o->d, "N", "dimension (default 50)", 0,
		  RFX_RANGE(2, 1000) },
		{ "norm", 0, RFX_OPT_DOUBLE, &o->norm, "R",
		  "root mean square length of the points after scaling (default 0.7)", 0,
		  RFX_RANGE_ABOVE(0, 10) },
		{ "scaling", 0, RFX_OPT_CHOICE, &o->scaling, "KIND",
		  "mean: one factor per side, E|x|^2 = R^2; sphere: every |x| = R (default mean)", 0,
		  .choices = scalings },
		{ "mean-sd", 0, RFX_OPT_DOUBLE, &o->mean_sd, "Z",
		  "X0, Y0 ~ N(0, Z^2 I) before rotation and scaling (default 10)", 0,
		  RFX_RANGE_ABOVE(0, 1e6) },
		{ "s-tol", 0, RFX_OPT_DOUBLE, &o->s_tol, "T",
		  "largest accepted |s reached - target| (default 0.005)", 0,
		  RFX_RANGE(0, HUGE_VAL) },
		{ "restarts", 0, RFX_OPT_INT, &o->restarts, "N",
		  "k-means restarts (default 10)", 0, RFX_RANGE(1, 1000) },
		{ "no-exact", 0, RFX_OPT_FLAG, &o->no_exact, NULL,
		  "skip the closed-form expected MSE, table exact (default off)", 0 },
		RFX_OPTION_SEED(&o->seed),
		RFX_OPTION_THREADS(&o->threads),
		RFX_OPTION_OUTPUT(&o->output, "every table"),
		RFX_OPTION_END
	};

	/* static: opts_out keeps pointing at the texts */
	static char about[2048];

	snprintf(about, sizeof(about), "%s", summary);
	rfx_methods_help(about, sizeof(about), "Estimators:",
			 rfx_cl_accepts,
			 "('rfx help estimators' describes them).");
	ret = rfx_cli_parse("clustered", usage_line, about, opts, argc, argv,
			    pos, 0, &npos, help);
	if (ret || *help)
		return ret;
	if (sizeof(opts) / sizeof(opts[0]) > nopts)
		return rfx_cli_fail(RFX_EXIT_FAIL, "BUG: option table too large");
	memcpy(opts_out, opts, sizeof(opts));
	return RFX_EXIT_OK;
}

/* Options of the Gaussian-mixture hybrid only. */
static int check_gmix_options(const struct rfx_opt *opts,
			      const struct rfx_cl_method *m, int nm)
{
	static const char *const only[] = { "tau", "base0", "lambda-features" };
	size_t k;
	int q, gmix = 0;

	for (q = 0; q < nm; q++)
		gmix |= !m[q].e && !strcmp(m[q].name, "hyb-gmix");
	for (k = 0; k < sizeof(only) / sizeof(only[0]); k++)
		if (rfx_opt_seen(opts, only[k]) && !gmix)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--%s applies to method hyb-gmix only", only[k]);
	return RFX_EXIT_OK;
}

static int run(const struct cl_opts *o, const struct rfx_cli *cli,
	       struct rfx_cl_config *c)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	struct rfx_cl_state *st = NULL;
	struct rfx_cl_rep_row *reps = NULL;
	struct rfx_cl_sum_row *sums = NULL;
	struct rfx_cl_exact_row *exact = NULL;
	struct rfx_cl_cluster_row *clusters = NULL;
	size_t nexact = 0;
	int ret;

	rfx_err_clear(&err);
	ret = rfx_cl_prepare(c, &st, &err);
	if (ret) {
		ret = rfx_cli_fail(rfx_cli_exit_code(ret),
				   "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_FAIL;
	if (rfx_out_open(&out, o->output, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	reps = calloc(rfx_cl_rep_nrows(c), sizeof(*reps));
	sums = calloc(rfx_cl_sum_nrows(c), sizeof(*sums));
	exact = calloc(rfx_cl_exact_nrows(c) + 1, sizeof(*exact));
	clusters = calloc(rfx_cl_cluster_nrows(c), sizeof(*clusters));
	if (!reps || !sums || !exact || !clusters) {
		rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for %zu rows",
			     rfx_cl_rep_nrows(c));
		goto out;
	}
	rfx_seed_note(o->seed);
	c->progress = rfx_progress;
	c->progress_ctx = "clustered";
	if (rfx_cl_run(st, reps, sums, exact, &nexact, clusters, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &rfx_cl_sum_schema, sums, rfx_cl_sum_nrows(c),
			  stdout, &err) ||
	    rfx_out_table(&out, &rfx_cl_rep_schema, reps, rfx_cl_rep_nrows(c), NULL,
			  &err) ||
	    (c->exact && rfx_out_table(&out, &rfx_cl_exact_schema, exact, nexact,
				       NULL, &err)) ||
	    rfx_out_table(&out, &rfx_cl_cluster_schema, clusters,
			  rfx_cl_cluster_nrows(c), NULL, &err) ||
	    rfx_out_commit(&out, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	rfx_cl_free(st);
	free(reps);
	free(sums);
	free(exact);
	free(clusters);
	return ret;
}

int cmd_clustered(int argc, char **argv, const struct rfx_cli *cli)
{
	struct cl_opts o;
	struct rfx_opt opts[32];
	struct rfx_err err;
	struct rfx_cl_method methods[MAX_METHODS];
	struct rfx_clusdata_config sets[MAX_SETS];
	struct rfx_cl_config c;
	int *ids = NULL, *m = NULL, nsets = 0, nm = 0, nmeth = 0, help = 0, ret, k;
	double *sv = NULL;
	int ns = 0;

	memset(&o, 0, sizeof(o));
	memset(opts, 0, sizeof(opts));
	o.sets = "1,2,3,4";
	o.method = "hyb-cluster,pos,trig";
	o.mlist = "20,50,80,100,120,150,200";
	o.reps = 20;
	o.tau = 1.0;
	o.base0 = "trig";
	o.points = 1000;
	o.d = 50;
	o.norm = DEFAULT_NORM;
	o.mean_sd = DEFAULT_MEAN_SD;
	o.s_tol = 0.005;
	o.restarts = 10;
	o.seed = RFX_DEFAULT_SEED;
	ret = parse_opts(argc, argv, &o, &help, opts, sizeof(opts) / sizeof(opts[0]));
	if (ret || help)
		return ret;
	rfx_err_clear(&err);
	memset(&c, 0, sizeof(c));
	ret = RFX_EXIT_USAGE;
	if (rfx_opt_seen(opts, "s") != rfx_opt_seen(opts, "sigma")) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--s and --sigma go together");
		goto out;
	}
	if (rfx_opt_seen(opts, "s") && rfx_opt_seen(opts, "set")) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--s/--sigma make their own set: drop --set");
		goto out;
	}
	if (rfx_cl_parse_methods(o.method, methods, MAX_METHODS, &nmeth, &err) ||
	    rfx_opt_ints_alloc("m", o.mlist, 1, RFX_CL_MAX_M, &m, &nm, &err)) {
		rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (check_gmix_options(opts, methods, nmeth))
		goto out;
	c.e0 = rfx_estimator_find(o.base0, &err);
	if (!c.e0) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--base0: %s", err.msg);
		goto out;
	}
	if (c.e0->params & RFX_P(RFX_PARAM_M1)) {
		rfx_cli_fail(RFX_EXIT_USAGE,
			     "--base0 '%s' has a two-part budget (m1, m3); take a plain one",
			     o.base0);
		goto out;
	}
	if (rfx_opt_seen(opts, "s")) {
		if (rfx_opt_doubles("s", o.slist, &sv, &ns, &err)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
			goto out;
		}
		if (ns != 4) {
			rfx_cli_fail(RFX_EXIT_USAGE,
				     "--s takes 4 targets (pairs 11, 12, 21, 22), got %d", ns);
			goto out;
		}
		for (k = 0; k < 4; k++)
			if (!(sv[k] >= 0.0)) {
				rfx_cli_fail(RFX_EXIT_USAGE, "--s targets must be >= 0, got %g",
					     sv[k]);
				goto out;
			}
		if (!(o.sigma >= 0.0 && o.sigma <= 1e6)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "--sigma must be in [0, 1e6], got %g",
				     o.sigma);
			goto out;
		}
		nsets = 1;
	} else {
		/* a set listed twice is refused there, as every repeat in a sweep */
		if (rfx_opt_ints_alloc("set", o.sets, 1, MAX_SETS, &ids, &nsets, &err)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
			goto out;
		}
	}
	for (k = 0; k < nsets; k++) {
		struct rfx_clusdata_config *dc = &sets[k];

		memset(dc, 0, sizeof(*dc));
		dc->id = sv ? 0 : ids[k];
		dc->d = o.d;
		dc->points = (size_t)o.points;
		dc->sigma = sv ? o.sigma : paper_sets[ids[k] - 1].sigma;
		memcpy(dc->s, sv ? sv : paper_sets[ids[k] - 1].s, sizeof(dc->s));
		dc->mean_sd = o.mean_sd;
		dc->norm = o.norm;
		dc->scaling = o.scaling == SCALING_SPHERE ? RFX_CLUSDATA_SPHERE
							  : RFX_CLUSDATA_MEAN;
		dc->seed = o.seed;
	}
	c.nsets = nsets;
	c.sets = sets;
	c.nmethods = nmeth;
	c.methods = methods;
	c.nm = nm;
	c.m = m;
	c.reps = o.reps;
	c.complex_a = o.a == A_COMPLEX;
	c.tau = o.tau;
	c.n_lambda = o.lambda;
	c.restarts = o.restarts;
	c.s_tol = o.s_tol;
	c.exact = !o.no_exact;
	c.seed = o.seed;
	ret = run(&o, cli, &c);
out:
	free(ids);
	free(m);
	free(sv);
	return ret;
}

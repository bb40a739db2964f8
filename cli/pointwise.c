/*
 * rfx pointwise: softmax-kernel estimators on same-length pairs (HRF
 * sec. 3-4.1), in three modes (lib/exp/pointwise.h):
 *
 *   estimates (default)  Figs 2 and 5: s estimates per (r, theta)
 *   --map                Fig 1: closed-form MSE over (r, theta)
 *   --max-error          Lemma 3.4 / Theorem 3.5: max-relative-error vs r
 *
 * Budgets: by default every method is FLOP-matched (lib/eval/cost.h) to the
 * baseline's map of --features M features; --match none gives every
 * method M in its own unit instead.
 *
 * Usage errors exit 2 before any work; run-time failures exit 1; the -o
 * file appears only when everything succeeded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "estimators.h"
#include "eval/cost.h"
#include "est/estimator.h"
#include "opt.h"
#include "output.h"
#include "exp/pointwise.h"
#include "base/rng.h"

#define MAX_METHODS 32

static const char usage_line[] =
	"[--method LIST] [--r LIST] [--thetas N] [--mc S] [--features M] "
	"[--match flops|none] [--seed S] [-o FILE.h5]\n"
	"   or: rfx pointwise --map [--method LIST] [--r-max R] [--steps N] [--thetas N]\n"
	"   or: rfx pointwise --max-error [--method LIST] [--r-min R] [--r-max R] [--steps N]";

static const char summary[] =
	"Pointwise estimation of the softmax kernel SM(x, y) = exp(x.y) for\n"
	"inputs of the same length r at angle theta, x = r e1 and\n"
	"y = r (cos theta e1 + sin theta e2) in R^d (HRF sec. 3-4.1). By default\n"
	"it draws --mc estimates per (r, theta) and prints the true value, the\n"
	"mean and 5th/95th percentiles of the estimates and the empirical and\n"
	"analytic relative errors (HRF Figs 2, 5). --map gives the closed-form\n"
	"MSE over (r, theta) (Fig 1); --max-error the max-relative-error over\n"
	"the sphere S(r) with Lemma 3.4's closed form and Theorem 3.5's bound.\n"
	"Every method is FLOP-matched to the baseline's map of M features\n"
	"unless --match none. Valid r: (0, 10] with --mc, (0, 100] otherwise.";

struct pw_opts {
	const char *method, *rlist, *baseline, *match, *output;
	enum rfx_proj proj;
	int map, maxerr, d, thetas, features, steps, threads;
	long mc;
	double r_min, r_max;
	uint64_t seed;
	struct rfx_strlist params;
};

#define MODE_EST 1u
#define MODE_MAP 2u
#define MODE_MAX 4u

/* Options of some modes only: anywhere else they are a usage error. */
static const struct rfx_opt_mode option_modes[] = {
	{ "r", MODE_EST },	   { "mc", MODE_EST },
	{ "projection", MODE_EST }, { "r-max", MODE_MAP | MODE_MAX },
	{ "r-min", MODE_MAX },	   { "steps", MODE_MAP | MODE_MAX },
};

/* Indexed by mode bit, for messages. */
static const char *const mode_names[] = {
	"",
	"the estimates mode",
	"map mode (--map)",
	"",
	"max-error mode (--max-error)"
};

/*
 * Budgets: FLOP-matched to the baseline, or M for every method (hybrids:
 * m1 = M, m3 = 1 unless given, HRF Fig 1's m and n).
 */
static int set_budgets(const struct pw_opts *o,
		       const struct rfx_estimator_type **methods, int nm,
		       struct rfx_params *base, struct rfx_pw_method *pm,
		       struct rfx_err *err)
{
	unsigned both = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	double flops = 0.0;
	int k, ret;

	if (!strcmp(o->match, "flops")) {
		const struct rfx_estimator_type *b = rfx_estimator_find(o->baseline, err);
		struct rfx_params bp;
		struct rfx_cost c;

		if (!b)
			return RFX_EINVAL;
		rfx_params_init(&bp, o->d);
		ret = rfx_cost_of(b, &bp, o->features, &c, err);
		rfx_params_release(&bp);
		if (ret)
			return ret;
		flops = c.flops;
	} else if (strcmp(o->match, "none")) {
		return rfx_error(err, RFX_EINVAL,
				 "unknown --match '%s' (valid: flops, none)", o->match);
	}
	for (k = 0; k < nm; k++) {
		struct rfx_cost c;

		pm[k].e = methods[k];
		pm[k].base = &base[k];
		if (flops > 0.0) {
			ret = rfx_cost_match(methods[k], &base[k], flops, &pm[k].M, &c,
					     err);
		} else {
			if ((methods[k]->params & both) == both) {
				if (!(base[k].given & RFX_P(RFX_PARAM_M1)))
					base[k].m1 = o->features;
				if (!(base[k].given & RFX_P(RFX_PARAM_M3)))
					base[k].m3 = 1;
				base[k].given |= both;
				pm[k].M = rfx_estimator_features(methods[k], &base[k], 0);
			} else {
				pm[k].M = o->features;
			}
			ret = rfx_cost_of(methods[k], &base[k], pm[k].M, &c, err);
		}
		if (ret)
			return ret;
		pm[k].flops = c.flops;
	}
	return RFX_OK;
}

/*
 * Validates the parameters before any work: a fit to a stand-in pair of
 * length 1 at a right angle reports values out of range.
 */
static int check_fits(const struct rfx_pw_method *pm, int nm, int d,
		      struct rfx_err *err)
{
	double *x = calloc((size_t)d, sizeof(double));
	double *y = calloc((size_t)d, sizeof(double));
	int k, ret = RFX_OK;

	if (!x || !y) {
		free(x);
		free(y);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	x[0] = 1.0;
	y[1] = 1.0;
	for (k = 0; k < nm && !ret; k++) {
		struct rfx_params p;

		rfx_params_init(&p, d);
		ret = rfx_params_copy(&p, pm[k].base, err);
		if (!ret)
			ret = pm[k].e->fit(&p, x, 1, y, 1, pm[k].M, err);
		rfx_params_release(&p);
	}
	free(x);
	free(y);
	return ret;
}

/* The length grid of --map (r_max k/steps) and --max-error (r_min..r_max). */
static double *length_grid(const struct pw_opts *o, int *n)
{
	double *r = malloc((size_t)o->steps * sizeof(double));
	int k;

	if (!r)
		return NULL;
	for (k = 0; k < o->steps; k++)
		r[k] = o->map ? o->r_max * (k + 1) / o->steps
			      : o->r_min + (o->r_max - o->r_min) * k / (o->steps - 1);
	*n = o->steps;
	return r;
}

static int run(const struct pw_opts *o, const struct rfx_cli *cli,
	       struct rfx_pw_config *c)
{
	struct rfx_err err;
	struct rfx_out out = { NULL };
	const struct rfx_schema *schema;
	void *rows = NULL;
	size_t n, size;
	int ret = RFX_EXIT_FAIL;

	rfx_err_clear(&err);
	if (o->map) {
		n = rfx_pw_map_nrows(c);
		size = sizeof(struct rfx_pw_map_row);
		schema = &rfx_pw_map_schema;
	} else if (o->maxerr) {
		n = rfx_pw_max_nrows(c);
		size = sizeof(struct rfx_pw_max_row);
		schema = &rfx_pw_max_schema;
	} else {
		n = rfx_pw_est_nrows(c);
		size = sizeof(struct rfx_pw_est_row);
		schema = c->s ? &rfx_pw_est_schema : &rfx_pw_est_ana_schema;
	}
	if (rfx_out_open(&out, o->output, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	rows = calloc(n, size);
	if (!rows) {
		rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for %zu rows", n);
		goto out;
	}
	if (c->s > 0)
		rfx_seed_note(o->seed);
	c->progress = rfx_progress;
	c->progress_ctx = "pointwise";
	if ((o->map ? rfx_pw_map_run(c, rows, &err)
		    : o->maxerr ? rfx_pw_max_run(c, rows, &err)
				: rfx_pw_est_run(c, rows, &err)) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, schema, rows, n, stdout, &err) ||
	    rfx_out_commit(&out, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	free(rows);
	return ret;
}

static int parse_opts(int argc, char **argv, struct pw_opts *o, int *help)
{
	int ret, npos;
	unsigned mode;
	const char *pos[1];
	char about[2048], param_help[256];
	struct rfx_opt opts[] = {
		{ "method", 0, RFX_OPT_STRING, &o->method, "LIST",
		  "estimators, comma-separated, or all (default trig,posh,ang,gauss-hyb,pos,oprf; --map: trig,posh,ang)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "map", 0, RFX_OPT_FLAG, &o->map, NULL,
		  "closed-form MSE over (r, theta) (HRF Fig 1) (default off)", 0 },
		{ "max-error", 0, RFX_OPT_FLAG, &o->maxerr, NULL,
		  "max-relative-error over S(r) vs r (Lemma 3.4, Theorem 3.5) (default off)", 0 },
		{ "r", 0, RFX_OPT_STRING, &o->rlist, "LIST",
		  "lengths (default 1,1.25,1.5)", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "thetas", 0, RFX_OPT_INT, &o->thetas, "N",
		  "angles per length (default 33; --map 60; --max-error 721)", 0 },
		{ "r-min", 0, RFX_OPT_DOUBLE, &o->r_min, "R",
		  "--max-error: smallest length (default 1)", 0 },
		{ "r-max", 0, RFX_OPT_DOUBLE, &o->r_max, "R",
		  "largest length (default 5 for --map, 3 for --max-error)", 0 },
		{ "steps", 0, RFX_OPT_INT, &o->steps, "N",
		  "lengths in the grid (default 40 for --map, 41 for --max-error)", 0 },
		{ "d", 0, RFX_OPT_INT, &o->d, "N", "dimension", 0,
		  RFX_RANGE(2, 100000), .dflt = "64" },
		{ "features", 0, RFX_OPT_INT, &o->features, "M",
		  "features of the baseline, or of every method with --match none (default 128; --map 10)", 0,
		  RFX_RANGE(1, 1000000) },
		{ "baseline", 0, RFX_OPT_STRING, &o->baseline, "METHOD",
		  "FLOP matching: the method whose M-feature map sets the cost (default trig)", 0 },
		{ "match", 0, RFX_OPT_STRING, &o->match, "KIND",
		  "flops: same map cost as the baseline; none: M each, hybrids m1 = M, m3 = 1 (default flops; --map none)", 0 },
		{ "param", 0, RFX_OPT_MULTI, &o->params, "[M:]NAME=VALUE",
		  param_help, 0 },
		{ "mc", 0, RFX_OPT_LONG, &o->mc, "S",
		  "estimates per point, 0 for the analytic columns alone", 0,
		  RFX_RANGE_OR0(2, 100000000), .dflt = "10000" },
		{ "projection", 0, RFX_OPT_PARSE, &o->proj, "P",
		  "projections: " RFX_PROJ_NAMES, 0, .parse = rfx_opt_proj,
		  .dflt = "iid" },
		RFX_OPTION_SEED(&o->seed),
		RFX_OPTION_THREADS(&o->threads),
		RFX_OPTION_OUTPUT(&o->output, "the table"),
		RFX_OPTION_END
	};

	rfx_param_help(param_help, sizeof(param_help),
		       "fix a parameter instead of fitting or matching it");
	snprintf(about, sizeof(about), "%s", summary);
	rfx_methods_help(about, sizeof(about), "Methods:",
			 NULL,
			 "(or all; 'rfx help estimators' describes them).");
	ret = rfx_cli_parse("pointwise", usage_line, about, opts, argc, argv,
			    pos, 0, &npos, help);
	if (ret || *help)
		return ret;
	if (o->map && o->maxerr)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--map and --max-error are different modes");
	mode = o->map ? MODE_MAP : o->maxerr ? MODE_MAX : MODE_EST;
	ret = rfx_cli_check_modes(opts, option_modes,
				  sizeof(option_modes) / sizeof(option_modes[0]),
				  mode, mode_names[mode]);
	if (ret)
		return ret;
	/* Mode defaults for what was not given. */
	if (!rfx_opt_seen(opts, "method"))
		o->method = o->map ? "trig,posh,ang" : "trig,posh,ang,gauss-hyb,pos,oprf";
	if (!rfx_opt_seen(opts, "thetas"))
		o->thetas = o->map ? 60 : o->maxerr ? 721 : 33;
	if (!rfx_opt_seen(opts, "r-max"))
		o->r_max = o->map ? 5.0 : 3.0;
	if (!rfx_opt_seen(opts, "steps"))
		o->steps = o->map ? 40 : 41;
	if (!rfx_opt_seen(opts, "features"))
		o->features = o->map ? 10 : 128;
	if (!rfx_opt_seen(opts, "match"))
		o->match = o->map ? "none" : "flops";
	return RFX_EXIT_OK;
}

int cmd_pointwise(int argc, char **argv, const struct rfx_cli *cli)
{
	struct pw_opts o;
	struct rfx_err err;
	const struct rfx_estimator_type *methods[MAX_METHODS];
	struct rfx_params base[MAX_METHODS];
	struct rfx_pw_method pm[MAX_METHODS];
	struct rfx_pw_config c;
	int used[64] = { 0 };
	double *r = NULL;
	int nm = 0, k, help = 0, ret, nr = 0, inited = 0;

	memset(&o, 0, sizeof(o));
	o.rlist = "1,1.25,1.5";
	o.baseline = "trig";
	o.r_min = 1.0;
	o.seed = RFX_DEFAULT_SEED;
	ret = parse_opts(argc, argv, &o, &help);
	if (ret || help)
		return ret;
	rfx_err_clear(&err);
	memset(&c, 0, sizeof(c));
	ret = RFX_EXIT_USAGE;
	if ((o.map || o.maxerr) &&
	    (o.steps < (o.maxerr ? 2 : 1) || o.steps > 100000 ||
	     !(o.r_max > 0.0) || !(o.r_min > 0.0) ||
	     (o.maxerr && !(o.r_max > o.r_min)))) {
		rfx_cli_fail(RFX_EXIT_USAGE,
			     "--steps must be in %d..100000 and 0 < --r-min < --r-max",
			     o.maxerr ? 2 : 1);
		goto out;
	}
	c.proj = o.proj;
	if (rfx_estimator_parse_list(o.method, methods, MAX_METHODS, &nm, &err) ||
	    rfx_proj_check(c.proj, o.d, &err)) {
		rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	for (k = 0; k < nm; k++)
		rfx_params_init(&base[k], o.d);
	inited = nm;
	for (k = 0; k < nm; k++) {
		int q;

		for (q = 0; q < o.params.n; q++)
			if (rfx_params_apply(&base[k], methods[k], o.params.item[q],
					     &used[q], &err)) {
				rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
				goto out;
			}
	}
	for (k = 0; k < o.params.n; k++)
		if (!used[k]) {
			rfx_cli_fail(RFX_EXIT_USAGE, "no listed method has parameter '%s'",
				     o.params.item[k]);
			goto out;
		}
	if (set_budgets(&o, methods, nm, base, pm, &err) ||
	    check_fits(pm, nm, o.d, &err)) {
		rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (o.map || o.maxerr) {
		r = length_grid(&o, &nr);
		if (!r) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
			goto out;
		}
	} else if (rfx_opt_sweep("r", o.rlist, &r, &nr, &err)) {
		rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	for (k = 0; k < nr; k++)
		if (!(r[k] > 0.0) ||
		    r[k] > (o.map || o.maxerr ? RFX_PW_R_MAX : RFX_PW_R_MAX_MC)) {
			rfx_cli_fail(RFX_EXIT_USAGE, "r = %g is outside (0, %g]", r[k],
				     o.map || o.maxerr ? RFX_PW_R_MAX : RFX_PW_R_MAX_MC);
			goto out;
		}
	if (o.thetas < (o.map ? 1 : o.maxerr ? 3 : 2) || o.thetas > 1000000) {
		rfx_cli_fail(RFX_EXIT_USAGE, "--thetas must be in %d..1000000, got %d",
			     o.map ? 1 : o.maxerr ? 3 : 2, o.thetas);
		goto out;
	}
	c.d = o.d;
	c.nmethods = nm;
	c.methods = pm;
	c.nr = nr;
	c.r = r;
	c.ntheta = o.thetas;
	c.s = o.map || o.maxerr ? 0 : o.mc;
	c.seed = o.seed;
	ret = run(&o, cli, &c);
out:
	for (k = 0; k < inited; k++)
		rfx_params_release(&base[k]);
	free(r);
	return ret;
}

/*
 * rfx attention: the error and the cost of random-feature attention
 * (thesis ch. 3, Figs 3.3 and 3.6) for every estimator of the registry
 * (lib/exp/attexp.h). Error mode: synthetic Q, K, V (a regime of
 * lib/data/regime.h for Q and K, V ~ N(0, 1)), exact attention, and per
 * (method, projection, M, stabiliser, eps, precision) the mean, sd,
 * median and 90% quantile over --draws of each error. --time: wall time
 * of exact attention, random-feature attention and the copy of V as L
 * grows, and the fitted exponents. TSV on stdout, -o for HDF5.
 */
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "opt.h"
#include "output.h"
#include "base/rng.h"
#include "data/regime.h"
#include "exp/attexp.h"

static const char usage_line[] =
	"[--regime R] [--gamma LIST] [--L N] [--d N] [--method LIST] [--projection LIST] [--features LIST] [--draws R] [--causal] [--stabiliser LIST] [--eps LIST] [--precision LIST] [--seed S] [-o FILE.h5]\n"
	"   or: rfx attention --time [--Ls LIST] [--exact-max N] [--d N] [--features M] [--method M] [--reps N] [-o FILE.h5]";

static const char summary[] =
	"Random-feature attention against exact attention (thesis ch. 3):\n"
	"Att = D^-1 A V, A = exp(Q K^T / sqrt d), estimated through eqs.\n"
	"3.1-3.5 by any estimator of the registry on any projection kind,\n"
	"noncausal (Fig 3.1) or causal by prefix sums (eq. 3.6). Q and K are\n"
	"L x d samples of a regime (normal: entries N(0, gamma^2)), V has\n"
	"entries N(0, 1). Per (method, projection, M, stabiliser, eps,\n"
	"precision) row: mean, sd, median and 90% quantile over the draws\n"
	"of the output's relative error (Frobenius, max over rows) and MSE,\n"
	"the MSE of D^-1 A on --att-rows sampled rows, the relative error of\n"
	"D and the fractions of rows with D^ <= 0 and non-finite output.\n"
	"--time gives Fig 3.3 on this CPU instead.";

#define COL(field, type)                                                       \
	{ #field, type, offsetof(struct rfx_attexp_row, field),                \
	  sizeof(((struct rfx_attexp_row *)0)->field) }
#define SCOL(k, name, part)                                                    \
	{ name "_" #part, RFX_COL_DOUBLE,                                      \
	  offsetof(struct rfx_attexp_row, s) +                                 \
		  (k) * sizeof(struct rfx_attexp_stat) +                       \
		  offsetof(struct rfx_attexp_stat, part),                      \
	  sizeof(double) }
#define STATS(k, name)                                                         \
	SCOL(k, name, mean), SCOL(k, name, sd), SCOL(k, name, q50),            \
		SCOL(k, name, q90)
static const struct rfx_column att_cols[] = {
	COL(method, RFX_COL_STRING), COL(proj, RFX_COL_STRING),
	COL(budget, RFX_COL_INT), COL(M, RFX_COL_INT), COL(features, RFX_COL_INT),
	COL(stab, RFX_COL_STRING), COL(eps, RFX_COL_DOUBLE),
	COL(f32, RFX_COL_INT), COL(causal, RFX_COL_INT),
	COL(L, RFX_COL_LONG), COL(d, RFX_COL_LONG), COL(gamma, RFX_COL_DOUBLE),
	COL(draws, RFX_COL_LONG),
	STATS(0, "out_rel_fro"), STATS(1, "out_rel_max"), STATS(2, "out_mse"),
	STATS(3, "att_mse"), STATS(4, "norm_rel"), STATS(5, "frac_nonpos"),
	STATS(6, "frac_nonfinite"), COL(params, RFX_COL_STRING),
};
#undef COL
static const struct rfx_schema att_schema = {
	"attention", "random-feature attention against exact attention",
	sizeof(struct rfx_attexp_row), RFX_NCOLS(att_cols), att_cols
};

#define COL(field, type)                                                       \
	{ #field, type, offsetof(struct rfx_attexp_draw_row, field),           \
	  sizeof(((struct rfx_attexp_draw_row *)0)->field) }
#define ECOL(k, name)                                                          \
	{ name, RFX_COL_DOUBLE,                                                \
	  offsetof(struct rfx_attexp_draw_row, e) + (k) * sizeof(double),      \
	  sizeof(double) }
static const struct rfx_column draw_cols[] = {
	COL(method, RFX_COL_STRING), COL(proj, RFX_COL_STRING),
	COL(budget, RFX_COL_INT), COL(M, RFX_COL_INT), COL(stab, RFX_COL_STRING),
	COL(eps, RFX_COL_DOUBLE), COL(f32, RFX_COL_INT), COL(gamma, RFX_COL_DOUBLE),
	COL(draw, RFX_COL_LONG), ECOL(0, "out_rel_fro"), ECOL(1, "out_rel_max"),
	ECOL(2, "out_mse"), ECOL(3, "att_mse"), ECOL(4, "norm_rel"),
	ECOL(5, "frac_nonpos"), ECOL(6, "frac_nonfinite"),
};
#undef COL
static const struct rfx_schema draw_schema = {
	"attention_draws", "the errors of every draw",
	sizeof(struct rfx_attexp_draw_row), RFX_NCOLS(draw_cols), draw_cols
};

#define COL(field, type)                                                       \
	{ #field, type, offsetof(struct rfx_attexp_time_row, field),           \
	  sizeof(((struct rfx_attexp_time_row *)0)->field) }
static const struct rfx_column time_cols[] = {
	COL(what, RFX_COL_STRING), COL(causal, RFX_COL_INT), COL(L, RFX_COL_LONG),
	COL(d, RFX_COL_INT), COL(M, RFX_COL_INT), COL(seconds, RFX_COL_DOUBLE),
	COL(mbytes, RFX_COL_DOUBLE), COL(peak_mib, RFX_COL_DOUBLE),
};
#undef COL
static const struct rfx_schema time_schema = {
	"attention_time", "wall time of exact and random-feature attention",
	sizeof(struct rfx_attexp_time_row), RFX_NCOLS(time_cols), time_cols
};

#define COL(field, type)                                                       \
	{ #field, type, offsetof(struct rfx_attexp_fit_row, field),            \
	  sizeof(((struct rfx_attexp_fit_row *)0)->field) }
static const struct rfx_column fit_cols[] = {
	COL(what, RFX_COL_STRING), COL(causal, RFX_COL_INT),
	COL(exponent, RFX_COL_DOUBLE), COL(L_from, RFX_COL_LONG),
	COL(L_to, RFX_COL_LONG),
};
#undef COL
static const struct rfx_schema fit_schema = {
	"attention_fit", "exponents of time against L",
	sizeof(struct rfx_attexp_fit_row), RFX_NCOLS(fit_cols), fit_cols
};

struct att_opts {
	const char *regime, *methods, *projs, *features, *match, *stabs, *eps;
	const char *precision, *Ls, *output, *gamma;
	int L, d, dv, causal, time, reps;
	long draws, att_rows, exact_max;
	uint64_t seed;
	struct rfx_strlist params;
};

static int usage(struct rfx_err *err)
{
	return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err->msg);
}

/* Fills the lists of c from the options; RFX_EINVAL naming the option. */
static int parse_lists(const struct att_opts *o, struct rfx_attexp_config *c,
		       struct rfx_err *err)
{
	char buf[1024];
	const char *item[RFX_ATTEXP_MAX];
	double *v = NULL;
	int n, k, ret;

	ret = rfx_estimator_parse_list(o->methods, c->methods, RFX_ATTEXP_MAX,
				       &c->nmethods, err);
	if (!ret)
		ret = rfx_opt_split("projection", o->projs, buf, sizeof(buf), item,
				    RFX_ATTEXP_MAX, &n, err);
	for (k = 0; !ret && k < n; k++)
		ret = rfx_proj_parse(item[k], &c->projs[k], err);
	for (k = 0; !ret && k < n; k++)
		ret = rfx_proj_check(c->projs[k], c->d, err);
	c->nprojs = n;
	if (!ret)
		ret = rfx_opt_ints("features", o->features, c->Ms, RFX_ATTEXP_MAX, 1,
				   4096, &c->nM, err);
	if (!ret)
		ret = rfx_opt_split("stabiliser", o->stabs, buf, sizeof(buf), item,
				    RFX_ATTEXP_MAX, &n, err);
	for (k = 0; !ret && k < n; k++)
		ret = rfx_att_stab_parse(item[k], &c->stabs[k], err);
	c->nstabs = n;
	if (!ret)
		ret = rfx_opt_doubles("eps", o->eps, &v, &n, err);
	if (!ret && n > RFX_ATTEXP_MAX)
		ret = rfx_error(err, RFX_EINVAL, "--eps takes at most %d values",
				RFX_ATTEXP_MAX);
	for (k = 0; !ret && k < n; k++) {
		if (!(v[k] >= 0.0 && v[k] <= 1.0))
			ret = rfx_error(err, RFX_EINVAL, "--eps must be in [0, 1], got %g",
					v[k]);
		c->eps[k] = v[k];
	}
	c->neps = n;
	free(v);
	if (!ret)
		ret = rfx_opt_split("precision", o->precision, buf, sizeof(buf), item,
				    2, &n, err);
	for (k = 0; !ret && k < n; k++) {
		if (!strcmp(item[k], "f64") || !strcmp(item[k], "f32"))
			c->f32[k] = item[k][1] == '3';
		else
			ret = rfx_error(err, RFX_EINVAL,
					"unknown precision '%s' (valid: f64 f32)", item[k]);
	}
	c->nprec = n;
	if (!ret && c->nprec == 2 && c->f32[0] == c->f32[1])
		ret = rfx_error(err, RFX_EINVAL, "--precision lists '%s' twice",
				item[0]);
	if (!ret && strcmp(o->match, "none") && strcmp(o->match, "fair"))
		ret = rfx_error(err, RFX_EINVAL, "unknown --match '%s' (valid: none fair)",
				o->match);
	c->fair = !strcmp(o->match, "fair");
	return ret;
}

static int run_errors(struct att_opts *o, const struct rfx_cli *cli)
{
	struct rfx_attexp_config c;
	struct rfx_attexp_row *rows = NULL;
	struct rfx_attexp_draw_row *dr = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	enum rfx_regime g;
	double *Q = NULL, *K = NULL, *V = NULL, *scr = NULL, *gam = NULL;
	gsl_rng *r = NULL;
	char desc[256];
	int ret = RFX_EXIT_FAIL, ng, ig;
	size_t n, per;

	memset(&c, 0, sizeof(c));
	rfx_err_clear(&err);
	c.d = o->d ? o->d : 16;
	c.dv = o->dv ? o->dv : c.d;
	c.nq = c.nk = (size_t)o->L;
	c.causal = o->causal;
	c.draws = o->draws;
	c.att_rows = (size_t)o->att_rows;
	c.seed = o->seed;
	c.assign = o->params.item;
	c.nassign = o->params.n;
	if (rfx_regime_parse(o->regime, &g, &err) || parse_lists(o, &c, &err) ||
	    rfx_opt_doubles("gamma", o->gamma, &gam, &ng, &err))
		return usage(&err);
	for (ig = 0; ig < ng; ig++)
		if (!(gam[ig] > 0.0 && gam[ig] <= 10.0)) {
			free(gam);
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--gamma must be in (0, 10], got %g", gam[ig]);
		}
	free(gam);
	gam = NULL;
	if (g == RFX_REGIME_MNIST)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "regime 'mnist' is not available here (valid: normal sphere heterogen)");
	if (c.d < 1 || c.d > 1024)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--d must be in 1..1024, got %d", c.d);
	if (c.dv < 1 || c.dv > 1024)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--dv must be in 1..1024, got %d", c.dv);
	if (o->L < 2 || o->L > 1 << 20)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--L must be in 2..1048576, got %d", o->L);
	if (o->draws < 2 || o->draws > 100000)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--draws must be in 2..100000, got %ld",
				    o->draws);
	if (o->att_rows < 0)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--att-rows must be >= 0, got %ld",
				    o->att_rows);
	if (rfx_opt_doubles("gamma", o->gamma, &gam, &ng, &err))
		return usage(&err);
	if (rfx_out_open(&out, o->output, &err)) {
		free(gam);
		return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
	}
	n = (size_t)o->L;
	per = rfx_attexp_rows(&c);
	Q = malloc(n * c.d * sizeof(double));
	K = malloc(n * c.d * sizeof(double));
	V = malloc(n * c.dv * sizeof(double));
	scr = malloc(n * c.dv * sizeof(double));
	rows = calloc(per * (size_t)ng, sizeof(*rows));
	if (o->output)
		dr = calloc(per * (size_t)ng * (size_t)c.draws, sizeof(*dr));
	r = rfx_rng_alloc_stream(o->seed, 0, 0, 0);
	if (!Q || !K || !V || !scr || !rows || !r || (o->output && !dr)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "out of memory for L = %d", o->L);
		goto out;
	}
	rfx_seed_note(o->seed);
	for (ig = 0; ig < ng; ig++) {
		size_t k;

		/* every gamma scales the same standard draws */
		rfx_rng_set_stream(r, o->seed, 0, 0, 0);
		if (rfx_regime_sample(r, g, gam[ig], c.d, n, NULL, Q, K, &err) ||
		    rfx_regime_sample(r, RFX_REGIME_NORMAL, 1.0, c.dv, n, NULL, V, scr,
				      &err))
			break;
		c.Q = Q;
		c.K = K;
		c.V = V;
		if (rfx_attexp_run(&c, rows + (size_t)ig * per,
				   dr ? dr + (size_t)ig * per * (size_t)c.draws : NULL,
				   rfx_progress, "attention", &err))
			break;
		for (k = 0; k < per; k++)
			rows[(size_t)ig * per + k].gamma = gam[ig];
		for (k = 0; dr && k < per * (size_t)c.draws; k++)
			dr[(size_t)ig * per * (size_t)c.draws + k].gamma = gam[ig];
	}
	snprintf(desc, sizeof(desc),
		 "synthetic: Q, K regime %s gamma %s, V N(0,1); L %d d %d dv %d",
		 o->regime, o->gamma, o->L, c.d, c.dv);
	if (ig < ng || rfx_out_provenance(&out, cli, o->seed, &err) ||
	    (out.h5 && rfx_h5out_attr(out.h5, "inputs", desc, &err)) ||
	    rfx_out_table(&out, &att_schema, rows, per * (size_t)ng, stdout, &err) ||
	    rfx_out_table(&out, &draw_schema, dr, dr ? per * (size_t)ng * (size_t)c.draws : 0,
			  NULL, &err) ||
	    rfx_out_commit(&out, &err)) {
		ret = err.code == RFX_EINVAL ? RFX_EXIT_USAGE : RFX_EXIT_FAIL;
		rfx_cli_fail(ret, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	free(Q);
	free(K);
	free(V);
	free(scr);
	free(gam);
	free(rows);
	free(dr);
	if (r)
		gsl_rng_free(r);
	return ret;
}

static int run_time(struct att_opts *o, const struct rfx_cli *cli)
{
	long Ls[RFX_ATTEXP_MAX];
	int iL[RFX_ATTEXP_MAX], nL, k, M, d = o->d ? o->d : 64;
	const struct rfx_estimator_type *e;
	struct rfx_attexp_time_row rows[6 * RFX_ATTEXP_MAX];
	struct rfx_attexp_fit_row fits[6];
	struct rfx_out out = { NULL };
	struct rfx_err err;
	enum rfx_proj proj;
	size_t nr, nf;
	char buf[64];
	const char *item[1];
	int n;

	rfx_err_clear(&err);
	if (rfx_opt_ints("Ls", o->Ls, iL, RFX_ATTEXP_MAX, 2, 1 << 22, &nL, &err) ||
	    rfx_opt_ints("features", o->features, &M, 1, 1, 4096, &n, &err))
		return usage(&err);
	e = rfx_estimator_find(o->methods, &err);
	if (!e)
		return usage(&err);
	if (rfx_opt_split("projection", o->projs, buf, sizeof(buf), item, 1, &n,
			  &err) ||
	    rfx_proj_parse(item[0], &proj, &err))
		return usage(&err);
	if (d < 1 || d > 1024)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--d must be in 1..1024, got %d", d);
	if (o->reps < 1 || o->reps > 100)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--reps must be in 1..100, got %d",
				    o->reps);
	for (k = 0; k < nL; k++)
		Ls[k] = iL[k];
	if (rfx_out_open(&out, o->output, &err))
		return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
	rfx_seed_note(o->seed);
	if (rfx_attexp_timing(Ls, nL, o->exact_max, d, M, e, proj, o->reps, o->seed,
			      Ls[nL / 2], rows, &nr, fits, &nf, &err) ||
	    rfx_out_provenance(&out, cli, o->seed, &err) ||
	    rfx_out_table(&out, &time_schema, rows, nr, stdout, &err) ||
	    rfx_out_table(&out, &fit_schema, fits, nf, stderr, &err) ||
	    rfx_out_commit(&out, &err)) {
		rfx_out_abort(&out);
		return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
	}
	return RFX_EXIT_OK;
}

int cmd_attention(int argc, char **argv, const struct rfx_cli *cli)
{
	struct att_opts o = {
		"normal", NULL, NULL, NULL, "none", "row", "0", "f64",
		"512,1024,2048,4096,8192,16384,32768,65536", NULL, "0.5",
		4096, 0, 0, 0, 0, 3, 10, 256, 32768, RFX_DEFAULT_SEED,
		{ 0, { NULL } }
	};
	int help, npos, ret;
	struct rfx_opt opts[] = {
		{ "regime", 0, RFX_OPT_STRING, &o.regime, "R",
		  "Q and K: normal, sphere or heterogen (lib/data/regime.h; default normal)", 0 },
		{ "gamma", 0, RFX_OPT_STRING, &o.gamma, "LIST",
		  "scales of Q and K, in (0, 10] (default 0.5: normal entries N(0, 1/4))", 0 },
		{ "L", 0, RFX_OPT_INT, &o.L, "N", "tokens, 2..2^20 (default 4096)", 0 },
		{ "d", 0, RFX_OPT_INT, &o.d, "N",
		  "query dimension (default 16; 64 with --time)", 0 },
		{ "dv", 0, RFX_OPT_INT, &o.dv, "N", "value columns (default d)", 0 },
		{ "method", 0, RFX_OPT_STRING, &o.methods, "LIST",
		  "estimators of the registry, or all (default trig; --time: pos)", 0 },
		{ "projection", 0, RFX_OPT_STRING, &o.projs, "LIST",
		  "projection kinds (" RFX_PROJ_NAMES "; default iid,ort; --time: ort)", 0 },
		{ "features", 0, RFX_OPT_STRING, &o.features, "LIST",
		  "budgets M (default 16,32,64,128,256; --time: 256)", 0 },
		{ "match", 0, RFX_OPT_STRING, &o.match, "none|fair",
		  "fair: complex and paired estimators get M/2 (default none)", 0 },
		{ "draws", 0, RFX_OPT_LONG, &o.draws, "R", "draws per cell, >= 2 (default 10)", 0 },
		{ "causal", 0, RFX_OPT_FLAG, &o.causal, NULL,
		  "causal attention (tril(A), eq. 2.17; default noncausal)", 0 },
		{ "stabiliser", 0, RFX_OPT_STRING, &o.stabs, "LIST",
		  "row, global, none (lib/exp/attention.h; default row)", 0 },
		{ "eps", 0, RFX_OPT_STRING, &o.eps, "LIST",
		  "constants added to the stabilised features, in [0, 1] (default 0)", 0 },
		{ "precision", 0, RFX_OPT_STRING, &o.precision, "LIST",
		  "f64 and/or f32 maps and products (default f64)", 0 },
		{ "att-rows", 0, RFX_OPT_LONG, &o.att_rows, "N",
		  "rows of D^-1 A sampled for att_mse, 0 for all (default 256)", 0 },
		{ "param", 0, RFX_OPT_MULTI, &o.params, "[M:]NAME=VALUE",
		  "fix a parameter instead of fitting it (repeatable; default none)", 0 },
		{ "time", 0, RFX_OPT_FLAG, &o.time, NULL,
		  "timing mode: Fig 3.3 on this CPU (default off)", 0 },
		{ "Ls", 0, RFX_OPT_STRING, &o.Ls, "LIST",
		  "--time: sequence lengths (default 2^9..2^16)", 0 },
		{ "exact-max", 0, RFX_OPT_LONG, &o.exact_max, "N",
		  "--time: largest L for exact attention (default 32768)", 0 },
		{ "reps", 0, RFX_OPT_INT, &o.reps, "N", "--time: best of N runs (default 3)", 0 },
		RFX_OPTION_SEED(&o.seed),
		RFX_OPTION_OUTPUT(&o.output, "the table"),
		RFX_OPTION_END
	};

	ret = rfx_cli_parse("attention", usage_line, summary, opts, argc, argv,
			    NULL, 0, &npos, &help);
	if (ret || help)
		return ret;
	if (o.time) {
		static const char *const err_only[] = { "regime", "gamma", "L", "dv",
			"match", "draws", "causal", "stabiliser", "eps", "precision",
			"att-rows", "param" };
		size_t k;

		for (k = 0; k < sizeof(err_only) / sizeof(err_only[0]); k++)
			if (rfx_opt_seen(opts, err_only[k]))
				return rfx_cli_fail(RFX_EXIT_USAGE,
						    "--%s does not apply to --time", err_only[k]);
		o.methods = o.methods ? o.methods : "pos";
		o.projs = o.projs ? o.projs : "ort";
		o.features = o.features ? o.features : "256";
		return run_time(&o, cli);
	}
	{
		static const char *const time_only[] = { "Ls", "exact-max", "reps" };
		size_t k;

		for (k = 0; k < sizeof(time_only) / sizeof(time_only[0]); k++)
			if (rfx_opt_seen(opts, time_only[k]))
				return rfx_cli_fail(RFX_EXIT_USAGE,
						    "--%s applies only to --time", time_only[k]);
	}
	o.methods = o.methods ? o.methods : "trig";
	o.projs = o.projs ? o.projs : "iid,ort";
	o.features = o.features ? o.features : "16,32,64,128,256";
	return run_errors(&o, cli);
}

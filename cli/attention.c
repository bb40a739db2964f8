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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "opt.h"
#include "output.h"
#include "base/rng.h"
#include "data/matrix.h"
#include "data/regime.h"
#include "exp/attexp.h"

static const char usage_line[] =
	"[--regime R] [--gamma LIST] [--L N] [--d N] [--method LIST] [--projection LIST] [--features LIST] [--draws R] [--causal] [--stabiliser LIST] [--eps LIST] [--precision LIST] [--seed S] [-o FILE.h5]\n"
	"   or: rfx attention --q-file Q [--k-file K] [--v-file V] [--header] [--method LIST] [--projection LIST] [--features LIST] [--draws R] [--causal] [-o FILE.h5]\n"
	"   or: rfx attention --time [--Ls LIST] [--exact-max N] [--d N] [--features M] [--method M] [--reps N] [-o FILE.h5]";

static const char summary[] =
	"Random-feature attention against exact attention (thesis ch. 3):\n"
	"Att = D^-1 A V, A = exp(Q K^T / sqrt d), estimated through eqs.\n"
	"3.1-3.5 by any estimator of the registry on any projection kind,\n"
	"noncausal (Fig 3.1) or causal by prefix sums (eq. 3.6). Q and K are\n"
	"L x d samples of a regime (normal: entries N(0, gamma^2)), V has\n"
	"entries N(0, 1); or they come from files (--q-file; K defaults to\n"
	"Q, V to K). Per (method, projection, M, stabiliser, eps,\n"
	"precision) row: mean, sd, median and 90% quantile over the draws\n"
	"of the output's relative error (Frobenius, max over rows) and MSE,\n"
	"the MSE of D^-1 A on --att-rows sampled rows, the relative error of\n"
	"D and the fractions of rows with D^ <= 0 and non-finite output.\n"
	"--time gives Fig 3.3 on this CPU instead.";

/*
 * The error statistics of a row: struct rfx_attexp_stat k (mean, sd, q50,
 * q90 over the draws) of the error named name (rfx_att_error_names), and
 * one draw's error k; what says what the error is. Each ends in a comma,
 * for the lists ATT_ERRORS makes.
 */
#define SCOL(k, name, part, what, stat)                                        \
	{ name "_" #part, RFX_COL_DOUBLE,                                      \
	  offsetof(struct rfx_attexp_row, s) +                                 \
		  (k) * sizeof(struct rfx_attexp_stat) +                       \
		  offsetof(struct rfx_attexp_stat, part),                      \
	  sizeof(double), stat " over the draws of " what }
#define STATS(k, name, what)                                                   \
	SCOL(k, name, mean, what, "mean"),                                     \
	SCOL(k, name, sd, what, "standard deviation"),                         \
	SCOL(k, name, q50, what, "median"),                                    \
	SCOL(k, name, q90, what, "90% quantile"),
#define ECOL(k, name, what)                                                    \
	{ name, RFX_COL_DOUBLE,                                                \
	  offsetof(struct rfx_attexp_draw_row, e) + (k) * sizeof(double),      \
	  sizeof(double), what " in this draw" },
/*
 * The errors of struct rfx_att_errors, in rfx_att_error_names order, as
 * X(k, name, what) for the summary columns (STATS) and the draw's (ECOL).
 */
#define ATT_ERRORS(X)                                                          \
	X(0, "out_rel_fro",                                                    \
	  "the output's relative error |O^ - O|_F / |O|_F (finite rows)")      \
	X(1, "out_rel_max",                                                    \
	  "the output's largest row relative error max_i |O^_i - O_i| / |O_i|") \
	X(2, "out_mse", "the output's mean squared error (finite rows' entries)") \
	X(3, "att_mse",                                                        \
	  "the MSE of the normalised attention A^_ij/D^_i on --att-rows sampled rows") \
	X(4, "norm_rel", "the normaliser's mean relative error |D^_i - D_i| / D_i") \
	X(5, "frac_nonpos", "the fraction of rows with a normaliser D^_i <= 0") \
	X(6, "frac_nonfinite", "the fraction of rows with a non-finite output") \
	X(7, "log_norm_rel",                                                   \
	  "the natural log of norm_rel, finite where norm_rel is inf (beyond e^709)")
/* Columns att and draw share. */
#define GAMMA_DESC \
	"the regime's scale gamma of Q and K (normal: entries N(0, gamma^2)); NaN for files"
#define ATT_METHOD(row)                                                        \
	RFX_COL(row, method, RFX_COL_STRING,                                   \
		RFX_DESC_METHOD),     \
	RFX_COL(row, proj, RFX_COL_STRING,                                     \
		"projection kind (iid, ort, sorf, ...); n/a for discrete estimators"), \
	RFX_COL(row, budget, RFX_COL_INT,                                      \
		"the --features value (real features with --match fair)"),     \
	RFX_COL(row, M, RFX_COL_INT, "budget passed to the estimator")
#define ATT_VARIANT(row)                                                       \
	RFX_COL(row, stab, RFX_COL_STRING,                                     \
		"stabiliser of the feature map (--stabiliser)"),               \
	RFX_COL(row, eps, RFX_COL_DOUBLE,                                      \
		"regulariser eps of the normaliser (--eps)"),                  \
	RFX_COL(row, f32, RFX_COL_INT,                                         \
		"1 when the features were computed in float32, else 0")

static const struct rfx_column att_cols[] = {
	ATT_METHOD(rfx_attexp_row),
	RFX_COL(rfx_attexp_row, features, RFX_COL_INT,
		"real feature columns of each map"),
	ATT_VARIANT(rfx_attexp_row),
	RFX_COL(rfx_attexp_row, causal, RFX_COL_INT,
		"1 for causal (prefix-sum) attention, else 0"),
	RFX_COL(rfx_attexp_row, L, RFX_COL_LONG, "keys: rows of K (and of Q for sampled inputs)"),
	RFX_COL(rfx_attexp_row, d, RFX_COL_LONG, "input dimension: columns of Q and K"),
	RFX_COL(rfx_attexp_row, gamma, RFX_COL_DOUBLE,
		GAMMA_DESC),
	RFX_COL(rfx_attexp_row, draws, RFX_COL_LONG, "draws of the features summarised"),
	ATT_ERRORS(STATS)
	RFX_COL(rfx_attexp_row, params, RFX_COL_STRING,
		"the method's fitted parameters as NAME=VALUE;NAME=VALUE (- if none)"),
};
static const struct rfx_schema att_schema = {
	"attention", "random-feature attention against exact attention",
	sizeof(struct rfx_attexp_row), RFX_NCOLS(att_cols), att_cols
};

static const struct rfx_column draw_cols[] = {
	ATT_METHOD(rfx_attexp_draw_row),
	ATT_VARIANT(rfx_attexp_draw_row),
	RFX_COL(rfx_attexp_draw_row, gamma, RFX_COL_DOUBLE,
		GAMMA_DESC),
	RFX_COL(rfx_attexp_draw_row, draw, RFX_COL_LONG, "draw index, 0-based"),
	ATT_ERRORS(ECOL)
};
static const struct rfx_schema draw_schema = {
	"attention_draws", "the errors of every draw",
	sizeof(struct rfx_attexp_draw_row), RFX_NCOLS(draw_cols), draw_cols
};

static const struct rfx_column time_cols[] = {
	RFX_COL(rfx_attexp_time_row, what, RFX_COL_STRING,
		"exact, rf (random-feature attention) or floor (a copy of V)"),
	RFX_COL(rfx_attexp_time_row, causal, RFX_COL_INT,
		"1 for causal (prefix-sum) attention, else 0"),
	RFX_COL(rfx_attexp_time_row, L, RFX_COL_LONG, "tokens"),
	RFX_COL(rfx_attexp_time_row, d, RFX_COL_INT, "input dimension"),
	RFX_COL(rfx_attexp_time_row, M, RFX_COL_INT, "random features"),
	RFX_COL(rfx_attexp_time_row, seconds, RFX_COL_DOUBLE,
		"wall time, best of --reps runs, seconds"),
	RFX_COL(rfx_attexp_time_row, mbytes, RFX_COL_DOUBLE,
		"memory the computation's buffers take, MiB"),
	RFX_COL(rfx_attexp_time_row, peak_mib, RFX_COL_DOUBLE,
		"peak resident memory the computation added, MiB (NaN off Linux)"),
};
static const struct rfx_schema time_schema = {
	"attention_time", "wall time of exact and random-feature attention",
	sizeof(struct rfx_attexp_time_row), RFX_NCOLS(time_cols), time_cols
};

static const struct rfx_column fit_cols[] = {
	RFX_COL(rfx_attexp_fit_row, what, RFX_COL_STRING, "exact, rf or floor"),
	RFX_COL(rfx_attexp_fit_row, causal, RFX_COL_INT,
		"1 for causal (prefix-sum) attention, else 0"),
	RFX_COL(rfx_attexp_fit_row, exponent, RFX_COL_DOUBLE,
		"slope of log time on log L (natural logs; 1 is linear in L)"),
	RFX_COL(rfx_attexp_fit_row, L_from, RFX_COL_LONG, "smallest L of the fit"),
	RFX_COL(rfx_attexp_fit_row, L_to, RFX_COL_LONG, "largest L of the fit"),
};
static const struct rfx_schema fit_schema = {
	"attention_fit", "exponents of time against L",
	sizeof(struct rfx_attexp_fit_row), RFX_NCOLS(fit_cols), fit_cols
};

struct att_opts {
	const char *regime, *methods, *projs, *features, *match, *stabs, *eps;
	const char *precision, *Ls, *output, *gamma;
	const char *q_file, *k_file, *v_file;
	int L, d, dv, causal, time, reps;
	long draws, att_rows, exact_max;
	uint64_t seed;
	struct rfx_strlist params;
	int header;
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
		ret = rfx_opt_sweep("eps", o->eps, &v, &n, err);
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

/*
 * The user's Q (q_file), K (k_file, default Q) and V (v_file, default K)
 * through issue 16's loader, which notes each file for the provenance.
 * Fills c's inputs and shapes; RFX_EXIT_OK or the exit status after one
 * error line.
 */
static int load_files(const struct att_opts *o, struct rfx_matrix *mq,
		      struct rfx_matrix *mk, struct rfx_matrix *mv,
		      struct rfx_attexp_config *c)
{
	struct rfx_matrix_opts mo = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
	struct rfx_err err;
	int ret;

	if (o->header)
		mo.header = RFX_MATRIX_HEADER_YES;
	rfx_err_clear(&err);
	if ((ret = rfx_cli_load_matrix(mq, o->q_file, &mo)) ||
	    (o->k_file && (ret = rfx_cli_load_matrix(mk, o->k_file, &mo))) ||
	    (o->v_file && (ret = rfx_cli_load_matrix(mv, o->v_file, &mo))))
		return ret;
	/* shapes that do not fit are the files' problem: exit 1, as variance */
	if (o->k_file && rfx_matrix_check_same_cols(mq, mk, &err))
		return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
	c->Q = mq->x;
	c->nq = mq->rows;
	c->d = mq->cols;
	c->K = o->k_file ? mk->x : mq->x;
	c->nk = o->k_file ? mk->rows : mq->rows;
	c->V = o->v_file ? mv->x : c->K;
	c->dv = o->v_file ? mv->cols : c->d;
	if (o->v_file && mv->rows != c->nk)
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "'%s' has %zu rows but there are %zu keys", o->v_file,
				    mv->rows, c->nk);
	if (c->causal && c->nq != c->nk)
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "--causal needs as many queries as keys, got %zu and %zu",
				    c->nq, c->nk);
	return RFX_EXIT_OK;
}

static int run_errors(struct att_opts *o, const struct rfx_cli *cli)
{
	struct rfx_attexp_config c;
	struct rfx_attexp_row *rows = NULL;
	struct rfx_attexp_draw_row *dr = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	struct rfx_matrix mq, mk, mv;
	enum rfx_regime g = RFX_REGIME_NORMAL;
	double *Q = NULL, *K = NULL, *V = NULL, *scr = NULL, *gam = NULL;
	gsl_rng *r = NULL;
	int ret = RFX_EXIT_FAIL, ng = 1, ig, files = o->q_file != NULL;
	size_t n = 0, per;

	memset(&c, 0, sizeof(c));
	rfx_err_clear(&err);
	rfx_matrix_init(&mq);
	rfx_matrix_init(&mk);
	rfx_matrix_init(&mv);
	c.d = o->d ? o->d : 16;
	c.dv = o->dv ? o->dv : c.d;
	c.nq = c.nk = (size_t)o->L;
	c.causal = o->causal;
	c.draws = o->draws;
	c.att_rows = (size_t)o->att_rows;
	c.seed = o->seed;
	c.assign = o->params.item;
	c.nassign = o->params.n;
	if (files && (ret = load_files(o, &mq, &mk, &mv, &c)))
		goto out;
	ret = RFX_EXIT_USAGE;
	if ((!files && rfx_regime_parse(o->regime, &g, &err)) ||
	    parse_lists(o, &c, &err) ||
	    (!files && rfx_opt_sweep("gamma", o->gamma, &gam, &ng, &err))) {
		usage(&err);
		goto out;
	}
	for (ig = 0; ig < ng && !files; ig++)
		if (!(gam[ig] > 0.0 && gam[ig] <= 10.0)) {
			rfx_cli_fail(ret, "--gamma must be in (0, 10], got %g", gam[ig]);
			goto out;
		}
	if (!files && g == RFX_REGIME_MNIST) {
		rfx_cli_fail(ret, "regime 'mnist' is not available here (valid: normal sphere heterogen)");
		goto out;
	}
	if (c.d < 1 || c.d > 1024 || c.dv < 1 || c.dv > 1024) {
		rfx_cli_fail(ret, "%s must be in 1..1024, got %d", c.d < 1 || c.d > 1024 ?
			     (files ? "the inputs' d" : "--d") : (files ? "the values' columns" : "--dv"),
			     c.d < 1 || c.d > 1024 ? c.d : c.dv);
		goto out;
	}
	if (!files && (o->L < 2 || o->L > 1 << 20)) {
		rfx_cli_fail(ret, "--L must be in 2..1048576, got %d", o->L);
		goto out;
	}
	if (o->draws < 2 || o->draws > 100000) {
		rfx_cli_fail(ret, "--draws must be in 2..100000, got %ld", o->draws);
		goto out;
	}
	if (o->att_rows < 0) {
		rfx_cli_fail(ret, "--att-rows must be >= 0, got %ld", o->att_rows);
		goto out;
	}
	ret = RFX_EXIT_FAIL;
	if (rfx_out_open(&out, o->output, &err)) {
		rfx_cli_fail(ret, "%s", err.msg);
		goto out;
	}
	per = rfx_attexp_rows(&c);
	rows = calloc(per * (size_t)ng, sizeof(*rows));
	if (o->output)
		dr = calloc(per * (size_t)ng * (size_t)c.draws, sizeof(*dr));
	if (!files) {
		n = (size_t)o->L;
		Q = malloc(n * c.d * sizeof(double));
		K = malloc(n * c.d * sizeof(double));
		V = malloc(n * c.dv * sizeof(double));
		scr = malloc(n * c.dv * sizeof(double));
		r = gsl_rng_alloc(rfx_rng_type()); /* seeded per gamma */
	}
	if (!rows || (o->output && !dr) ||
	    (!files && (!Q || !K || !V || !scr || !r))) {
		rfx_cli_fail(ret, "out of memory for %zu rows", per * (size_t)ng);
		goto out;
	}
	rfx_seed_note(o->seed);
	for (ig = 0; ig < ng; ig++) {
		size_t k, off = (size_t)ig * per;
		double gamma = files ? NAN : gam[ig];

		if (!files) {
			/* every gamma scales the same standard draws */
			struct rfx_rng_key key = { "attention", "inputs",
						   { rfx_regime_name(g) }, 0, 0 };

			rfx_rng_set_key(r, o->seed, &key);
			if (rfx_regime_sample(r, g, gamma, c.d, n, NULL, Q, K, &err) ||
			    rfx_regime_sample(r, RFX_REGIME_NORMAL, 1.0, c.dv, n, NULL, V,
					      scr, &err))
				break;
			c.Q = Q;
			c.K = K;
			c.V = V;
		}
		if (rfx_attexp_run(&c, rows + off,
				   dr ? dr + off * (size_t)c.draws : NULL, rfx_progress,
				   "attention", &err))
			break;
		for (k = 0; k < per; k++)
			rows[off + k].gamma = gamma;
		for (k = 0; dr && k < per * (size_t)c.draws; k++)
			dr[off * (size_t)c.draws + k].gamma = gamma;
	}
	if (ig < ng || rfx_out_provenance(&out, cli, o->seed, &err) ||
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
	rfx_matrix_release(&mq);
	rfx_matrix_release(&mk);
	rfx_matrix_release(&mv);
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

/*
 * The modes and the options that apply to only some of them (the others,
 * method, projection, features, seed and output, apply to all): the error
 * study on sampled inputs or on --q-file, and --time.
 */
enum { MODE_SAMPLED = 1u, MODE_FILES = 2u, MODE_TIME = 4u };
static const struct rfx_opt_mode modes[] = {
	{ "q-file", MODE_FILES },	{ "k-file", MODE_FILES },
	{ "v-file", MODE_FILES },	{ "header", MODE_FILES },
	{ "regime", MODE_SAMPLED },
	{ "gamma", MODE_SAMPLED },	{ "L", MODE_SAMPLED },
	{ "dv", MODE_SAMPLED },		{ "d", MODE_SAMPLED | MODE_TIME },
	{ "match", MODE_SAMPLED | MODE_FILES },
	{ "draws", MODE_SAMPLED | MODE_FILES },
	{ "causal", MODE_SAMPLED | MODE_FILES },
	{ "stabiliser", MODE_SAMPLED | MODE_FILES },
	{ "eps", MODE_SAMPLED | MODE_FILES },
	{ "precision", MODE_SAMPLED | MODE_FILES },
	{ "att-rows", MODE_SAMPLED | MODE_FILES },
	{ "param", MODE_SAMPLED | MODE_FILES },
	{ "Ls", MODE_TIME },		{ "exact-max", MODE_TIME },
	{ "reps", MODE_TIME },
};

int cmd_attention(int argc, char **argv, const struct rfx_cli *cli)
{
	struct att_opts o = {
		"normal", NULL, NULL, NULL, "none", "row", "0", "f64",
		"512,1024,2048,4096,8192,16384,32768,65536", NULL, "0.5",
		NULL, NULL, NULL,
		4096, 0, 0, 0, 0, 3, 10, 256, 32768, RFX_DEFAULT_SEED,
		{ 0, { NULL } }, 0
	};
	int help, npos, ret;
	unsigned mode;
	size_t k;
	struct rfx_opt opts[] = {
		{ "q-file", 0, RFX_OPT_STRING, &o.q_file, "FILE",
		  "queries, one per row: .npy, text or FILE.h5:/dataset (default synthetic)", 0 },
		{ "k-file", 0, RFX_OPT_STRING, &o.k_file, "FILE",
		  "keys, with the queries' columns (default the queries)", 0 },
		{ "v-file", 0, RFX_OPT_STRING, &o.v_file, "FILE",
		  "values, one row per key (default the keys)", 0 },
		RFX_OPTION_HEADER(&o.header, "files: ", "a text file"),
		{ "regime", 0, RFX_OPT_STRING, &o.regime, "R",
		  "Q and K: normal, sphere or heterogen (lib/data/regime.h; default normal)", 0 },
		{ "gamma", 0, RFX_OPT_STRING, &o.gamma, "LIST",
		  "scales of Q and K, in (0, 10] (default 0.5: normal entries N(0, 1/4))", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "L", 0, RFX_OPT_INT, &o.L, "N", "tokens, 2..2^20 (default 4096)", 0 },
		{ "d", 0, RFX_OPT_INT, &o.d, "N",
		  "query dimension (default 16; 64 with --time)", 0 },
		{ "dv", 0, RFX_OPT_INT, &o.dv, "N", "value columns (default d)", 0 },
		{ "method", 0, RFX_OPT_STRING, &o.methods, "LIST",
		  "estimators of the registry, or all (default trig; --time: pos)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "projection", 0, RFX_OPT_STRING, &o.projs, "LIST",
		  "projection kinds (" RFX_PROJ_NAMES "; default iid,ort; --time: ort)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "features", 0, RFX_OPT_STRING, &o.features, "LIST",
		  "budgets M (default 16,32,64,128,256; --time: 256)", 0,
		  .list = RFX_LIST_INTS },
		{ "match", 0, RFX_OPT_STRING, &o.match, "none|fair",
		  "fair: complex and paired estimators get M/2 (default none)", 0 },
		{ "draws", 0, RFX_OPT_LONG, &o.draws, "R", "draws per cell, >= 2 (default 10)", 0 },
		{ "causal", 0, RFX_OPT_FLAG, &o.causal, NULL,
		  "causal attention (tril(A), eq. 2.17; default noncausal)", 0 },
		{ "stabiliser", 0, RFX_OPT_STRING, &o.stabs, "LIST",
		  "row, global, none (lib/exp/attention.h; default row)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "eps", 0, RFX_OPT_STRING, &o.eps, "LIST",
		  "constants added to the stabilised features, in [0, 1] (default 0)", 0,
		  .list = RFX_LIST_DOUBLES },
		{ "precision", 0, RFX_OPT_STRING, &o.precision, "LIST",
		  "f64 and/or f32 maps and products (default f64)", 0,
		  .list = RFX_LIST_STRINGS },
		{ "att-rows", 0, RFX_OPT_LONG, &o.att_rows, "N",
		  "rows of D^-1 A sampled for att_mse, 0 for all (default 256)", 0 },
		{ "param", 0, RFX_OPT_MULTI, &o.params, "[M:]NAME=VALUE",
		  "fix a parameter instead of fitting it (repeatable; default none)", 0 },
		{ "time", 0, RFX_OPT_FLAG, &o.time, NULL,
		  "timing mode: Fig 3.3 on this CPU (default off)", 0 },
		{ "Ls", 0, RFX_OPT_STRING, &o.Ls, "LIST",
		  "--time: sequence lengths (default 2^9..2^16)", 0,
		  .list = RFX_LIST_INTS },
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
	if (!o.time && !o.q_file && (o.k_file || o.v_file))
		return rfx_cli_fail(RFX_EXIT_USAGE, "--%s needs --q-file",
				    o.k_file ? "k-file" : "v-file");
	mode = o.time ? MODE_TIME : o.q_file ? MODE_FILES : MODE_SAMPLED;
	/* "applies only to --time" says more than "does not apply to ..." */
	for (k = 0; !o.time && k < sizeof(modes) / sizeof(modes[0]); k++)
		if (modes[k].modes == MODE_TIME && rfx_opt_seen(opts, modes[k].name))
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--%s applies only to --time", modes[k].name);
	ret = rfx_cli_check_modes(opts, modes, sizeof(modes) / sizeof(modes[0]),
				  mode, mode == MODE_TIME ? "--time"
					: mode == MODE_FILES ? "--q-file"
							     : "sampled inputs");
	if (ret)
		return ret;
	if (o.time) {
		o.methods = o.methods ? o.methods : "pos";
		o.projs = o.projs ? o.projs : "ort";
		o.features = o.features ? o.features : "256";
		return run_time(&o, cli);
	}
	o.methods = o.methods ? o.methods : "trig";
	o.projs = o.projs ? o.projs : "iid,ort";
	o.features = o.features ? o.features : "16,32,64,128,256";
	return run_errors(&o, cli);
}

/*
 * The UCI classification experiment on one dataset: exact kernel
 * regression for every gamma in one pass over the distances, parameter
 * fits per (method, gamma), then (method, gamma, seed) tasks in parallel,
 * each training a random-feature classifier and counting its correct
 * validation and test predictions. Counts are summed afterwards in a fixed
 * order.
 */
#include "exp/uciexp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "num/blas.h"
#include "base/cancel.h"
#include "base/cells.h"
#include "eval/kreg.h"
#include "base/rng.h"


static const struct rfx_column gamma_cols[] = {
	RFX_COL(rfx_uciexp_gamma_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_uciexp_gamma_row, method, RFX_COL_STRING,
		"method name (an estimator, or exact)"),
	RFX_COL(rfx_uciexp_gamma_row, projection, RFX_COL_STRING,
		"projection kind: iid, ort, discrete, or none (exact kernel)"),
	RFX_COL(rfx_uciexp_gamma_row, gamma, RFX_COL_DOUBLE,
		"kernel scale gamma: inputs x -> gamma x"),
	RFX_COL(rfx_uciexp_gamma_row, M, RFX_COL_INT,
		"feature columns (0 for the exact kernel)"),
	RFX_COL(rfx_uciexp_gamma_row, seeds, RFX_COL_INT,
		"feature draws averaged (1 for the exact kernel)"),
	RFX_COL(rfx_uciexp_gamma_row, val_pct, RFX_COL_DOUBLE,
		"mean validation accuracy over the draws, percent"),
	RFX_COL(rfx_uciexp_gamma_row, val_pct_sd, RFX_COL_DOUBLE,
		"standard deviation of the validation accuracy over the draws, percent"),
	RFX_COL(rfx_uciexp_gamma_row, test_pct, RFX_COL_DOUBLE,
		"mean test accuracy over the draws, percent"),
	RFX_COL(rfx_uciexp_gamma_row, test_pct_sd, RFX_COL_DOUBLE,
		"standard deviation of the test accuracy over the draws, percent"),
	RFX_COL(rfx_uciexp_gamma_row, params, RFX_COL_STRING,
		"fitted parameters as NAME=VALUE;NAME=VALUE (- if none)"),
};

static const struct rfx_column summary_cols[] = {
	RFX_COL(rfx_uciexp_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_uciexp_row, method, RFX_COL_STRING,
		"method name (an estimator, or exact)"),
	RFX_COL(rfx_uciexp_row, projection, RFX_COL_STRING,
		"projection kind: iid, ort, discrete, or none (exact kernel)"),
	RFX_COL(rfx_uciexp_row, d, RFX_COL_INT,
		"input dimension"),
	RFX_COL(rfx_uciexp_row, classes, RFX_COL_INT,
		"classes of the dataset"),
	RFX_COL(rfx_uciexp_row, n_train, RFX_COL_LONG,
		"training rows"),
	RFX_COL(rfx_uciexp_row, n_val, RFX_COL_LONG,
		"validation rows"),
	RFX_COL(rfx_uciexp_row, n_test, RFX_COL_LONG,
		"test rows"),
	RFX_COL(rfx_uciexp_row, M, RFX_COL_INT,
		"feature columns (0 for the exact kernel)"),
	RFX_COL(rfx_uciexp_row, seeds, RFX_COL_INT,
		"feature draws averaged (1 for the exact kernel)"),
	RFX_COL(rfx_uciexp_row, gamma, RFX_COL_DOUBLE,
		"the gamma with the best validation accuracy (inputs x -> gamma x)"),
	RFX_COL(rfx_uciexp_row, val_pct, RFX_COL_DOUBLE,
		"mean validation accuracy at that gamma, percent"),
	RFX_COL(rfx_uciexp_row, test_pct, RFX_COL_DOUBLE,
		"mean test accuracy at that gamma, percent"),
	RFX_COL(rfx_uciexp_row, test_pct_se, RFX_COL_DOUBLE,
		"standard error of test_pct, sd / sqrt(seeds), percent"),
};

const struct rfx_schema rfx_uciexp_gamma_schema = {
	"uci_gamma",
	"kernel regression accuracy per method and gamma (thesis sec. 6.6.2)",
	sizeof(struct rfx_uciexp_gamma_row), RFX_NCOLS(gamma_cols), gamma_cols
};

const struct rfx_schema rfx_uciexp_schema = {
	"uci",
	"kernel regression test accuracy at the validated gamma (thesis Tables 6.2, 6.3)",
	sizeof(struct rfx_uciexp_row), RFX_NCOLS(summary_cols), summary_cols
};

const char *rfx_uciexp_projection(const struct rfx_uciexp_method *m)
{
	if (!m->e)
		return "none";
	if (m->e->flags & RFX_EST_DISCRETE)
		return "discrete";
	return rfx_proj_name(m->proj);
}

static int check_config(const struct rfx_uciexp_config *c, struct rfx_err *err)
{
	const struct rfx_uci_split *S = c->split;
	int g;

	if (!S || S->n_train < 1 || S->n_val < 1 || S->n_test < 1 || S->d < 1 ||
	    S->nclass < 1)
		return rfx_error(err, RFX_EINVAL,
				 "the split needs training, validation and test rows");
	if (c->nmethods < 1 || c->ngammas < 1)
		return rfx_error(err, RFX_EINVAL, "nothing to compute");
	if (c->seeds < 1)
		return rfx_error(err, RFX_EINVAL, "seeds must be positive, got %d",
				 c->seeds);
	if (c->budget < 1)
		return rfx_error(err, RFX_EINVAL,
				 "the feature budget must be positive, got %d",
				 c->budget);
	for (g = 0; g < c->ngammas; g++)
		if (!(c->gammas[g] > 0.0) || !isfinite(c->gammas[g]))
			return rfx_error(err, RFX_EINVAL,
					 "gamma must be positive and finite, got %g",
					 c->gammas[g]);
	return RFX_OK;
}

/* Mean and sample standard deviation of n percentages. */
static void mean_sd(const double *v, int n, double *mean, double *sd)
{
	double m = 0.0, s = 0.0;
	int k;

	for (k = 0; k < n; k++)
		m += v[k];
	m /= n;
	for (k = 0; k < n; k++)
		s += (v[k] - m) * (v[k] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(s / (n - 1)) : 0.0;
}

/* Everything a run allocates, released in one place. */
struct run {
	int nm, ng, ns;
	size_t L, nq, d;
	double *Xg;             /* ng x (L + nq) x d: scaled train, then queries */
	double *Q;              /* nq x d: validation then test rows */
	int *yq;                /* nq labels */
	int *pred;              /* ng x nq, exact predictions */
	size_t *ok_val;         /* nm x ng x ns correct validation predictions */
	size_t *ok_test;        /* same, test */
	struct rfx_params *par; /* nm x ng fitted parameters */
	int *Mbud;              /* nm budgets (0 for exact) */
	int *Mcol;              /* nm x ng feature columns */
	int *status;            /* per task */
	struct rfx_err *errs;   /* per task */
};

static void run_free(struct run *R)
{
	int k;

	free(R->Xg);
	free(R->Q);
	free(R->yq);
	free(R->pred);
	free(R->ok_val);
	free(R->ok_test);
	if (R->par)
		for (k = 0; k < R->nm * R->ng; k++)
			rfx_params_release(&R->par[k]);
	free(R->par);
	free(R->Mbud);
	free(R->Mcol);
	free(R->status);
	free(R->errs);
}

static const double *scaled_train(const struct run *R, int g)
{
	return R->Xg + (size_t)g * (R->L + R->nq) * R->d;
}

static const double *scaled_queries(const struct run *R, int g)
{
	return scaled_train(R, g) + R->L * R->d;
}

/* Fits every estimator method at every gamma (in parallel over pairs). */
static int fit_all(const struct rfx_uciexp_config *c, struct run *R,
		   struct rfx_err *err)
{
	int nfit = R->nm * R->ng, t, ret = RFX_OK;

#pragma omp parallel for schedule(dynamic, 1)
	for (t = 0; t < nfit; t++) {
		int m = t / R->ng, g = t % R->ng;
		const struct rfx_estimator_type *e = c->methods[m].e;
		struct rfx_params *p = &R->par[t];

		rfx_params_init(p, (int)R->d);
		if (!e)
			continue;
		R->status[t] = e->fit(p, scaled_train(R, g), R->L, scaled_train(R, g),
				      R->L, R->Mbud[m], &R->errs[t]);
		if (!R->status[t])
			R->Mcol[t] = rfx_estimator_feature_dim(e, p, R->Mbud[m]);
	}
	for (t = 0; t < nfit && !ret; t++)
		if (R->status[t])
			ret = rfx_error(err, R->status[t], "%s, %s at gamma %g: %s",
					c->dataset, c->methods[t / R->ng].e->name,
					c->gammas[t % R->ng], R->errs[t].msg);
	return ret;
}

/* One (method, gamma, seed) task on a thread's classifier. */
static int run_task(const struct rfx_uciexp_config *c, struct run *R,
		    struct rfx_kreg_rf **kr, gsl_rng *rng, int *pred, int m,
		    int g, int s, struct rfx_err *err)
{
	const struct rfx_uciexp_method *me = &c->methods[m];
	const struct rfx_uci_split *S = c->split;
	const struct rfx_params *p = &R->par[m * R->ng + g];
	size_t slot = ((size_t)m * R->ng + g) * R->ns + s;
	const char *pname;
	int ret;

	if (!kr[m]) {
		kr[m] = rfx_kreg_rf_alloc(me->e, p, R->Mbud[m], S->nclass, c->chunk,
					  err);
		if (!kr[m])
			return err->code ? err->code : RFX_ENOMEM;
	}
	ret = rfx_kreg_rf_set_params(kr[m], p, err);
	if (ret)
		return ret;
	/* discrete estimators draw no projections: their key says iid */
	pname = (me->e->flags & RFX_EST_DISCRETE) ? "iid" : rfx_proj_name(me->proj);
	rfx_rng_set_key(rng, c->seed, &(struct rfx_rng_key){
		.exp = "uci-classify", .what = "draws",
		.name = { c->dataset, me->e->name, pname },
		.i = rfx_rng_bits(c->gammas[g]), .j = (uint64_t)s });
	ret = rfx_kreg_rf_train(kr[m], rng, me->proj, scaled_train(R, g),
				S->ytr, R->L, err);
	if (!ret)
		ret = rfx_kreg_rf_predict(kr[m], scaled_queries(R, g), R->nq, pred,
					  err);
	if (ret)
		return ret;
	R->ok_val[slot] = rfx_kreg_correct(pred, R->yq, S->n_val);
	R->ok_test[slot] = rfx_kreg_correct(pred + S->n_val, R->yq + S->n_val,
					    S->n_test);
	return RFX_OK;
}

static int prepare(const struct rfx_uciexp_config *c, struct run *R,
		   struct rfx_err *err)
{
	const struct rfx_uci_split *S = c->split;
	size_t nrow, k;
	int m, g;

	R->nm = c->nmethods;
	R->ng = c->ngammas;
	R->ns = c->seeds;
	R->L = S->n_train;
	R->nq = S->n_val + S->n_test;
	R->d = (size_t)S->d;
	nrow = R->L + R->nq;
	R->Xg = malloc((size_t)R->ng * nrow * R->d * sizeof(double));
	R->Q = malloc(R->nq * R->d * sizeof(double));
	R->yq = malloc(R->nq * sizeof(int));
	R->pred = malloc((size_t)R->ng * R->nq * sizeof(int));
	R->ok_val = calloc((size_t)R->nm * R->ng * R->ns, sizeof(size_t));
	R->ok_test = calloc((size_t)R->nm * R->ng * R->ns, sizeof(size_t));
	R->par = calloc((size_t)R->nm * R->ng, sizeof(*R->par));
	R->Mbud = calloc((size_t)R->nm, sizeof(int));
	R->Mcol = calloc((size_t)R->nm * R->ng, sizeof(int));
	k = (size_t)R->nm * R->ng * R->ns;
	if (k < (size_t)R->nm * R->ng)
		k = (size_t)R->nm * R->ng;
	R->status = calloc(k, sizeof(int));
	R->errs = calloc(k, sizeof(*R->errs));
	if (!R->Xg || !R->Q || !R->yq || !R->pred || !R->ok_val || !R->ok_test ||
	    !R->par || !R->Mbud || !R->Mcol || !R->status || !R->errs)
		return rfx_error(err, RFX_ENOMEM, "out of memory for %s",
				 c->dataset);
	memcpy(R->Q, S->Xva, S->n_val * R->d * sizeof(double));
	memcpy(R->Q + S->n_val * R->d, S->Xte, S->n_test * R->d * sizeof(double));
	memcpy(R->yq, S->yva, S->n_val * sizeof(int));
	memcpy(R->yq + S->n_val, S->yte, S->n_test * sizeof(int));
	for (g = 0; g < R->ng; g++) {
		double *dst = R->Xg + (size_t)g * nrow * R->d, gm = c->gammas[g];

		for (k = 0; k < R->L * R->d; k++)
			dst[k] = gm * S->Xtr[k];
		for (k = 0; k < R->nq * R->d; k++)
			dst[R->L * R->d + k] = gm * R->Q[k];
	}
	for (m = 0; m < R->nm; m++)
		R->Mbud[m] = c->methods[m].e
				     ? rfx_estimator_fair_features(c->methods[m].e,
								   c->budget)
				     : 0;
	return RFX_OK;
}

/*
 * Fills the output rows from the counts; RFX_EINVAL when a parameter text
 * does not fit its column (it is never shortened).
 */
static int summarise(const struct rfx_uciexp_config *c, const struct run *R,
		     struct rfx_uciexp_gamma_row *grows,
		     struct rfx_uciexp_row *rows, double *vv, double *vt,
		     struct rfx_err *err)
{
	const struct rfx_uci_split *S = c->split;
	int m, g, s;

	for (m = 0; m < R->nm; m++) {
		const struct rfx_uciexp_method *me = &c->methods[m];
		int ns = me->e ? R->ns : 1, best = 0;
		double best_val = -1.0;

		for (g = 0; g < R->ng; g++) {
			struct rfx_uciexp_gamma_row *gr = &grows[m * R->ng + g];
			size_t base = ((size_t)m * R->ng + g) * R->ns;

			for (s = 0; s < ns; s++) {
				vv[s] = 100.0 * (double)R->ok_val[base + s] / (double)S->n_val;
				vt[s] = 100.0 * (double)R->ok_test[base + s] /
					(double)S->n_test;
			}
			memset(gr, 0, sizeof(*gr));
			snprintf(gr->dataset, sizeof(gr->dataset), "%s", c->dataset);
			snprintf(gr->method, sizeof(gr->method), "%s",
				 me->e ? me->e->name : "exact");
			snprintf(gr->projection, sizeof(gr->projection), "%s",
				 rfx_uciexp_projection(me));
			gr->gamma = c->gammas[g];
			gr->M = me->e ? R->Mcol[m * R->ng + g] : 0;
			gr->seeds = ns;
			mean_sd(vv, ns, &gr->val_pct, &gr->val_pct_sd);
			mean_sd(vt, ns, &gr->test_pct, &gr->test_pct_sd);
			if (me->e &&
			    rfx_params_format(&R->par[m * R->ng + g], me->e,
					      gr->params, sizeof(gr->params)) >=
				    sizeof(gr->params))
				/* never a silently shortened parameter text */
				return rfx_error(err, RFX_EINVAL,
						 "the parameters of '%s' on '%s' need more than the %zu characters of the params column",
						 me->e->name, c->dataset,
						 sizeof(gr->params) - 1);
			else if (!me->e)
				snprintf(gr->params, sizeof(gr->params), "-");
			if (gr->val_pct > best_val) {
				best_val = gr->val_pct;
				best = g;
			}
		}
		{
			const struct rfx_uciexp_gamma_row *gb = &grows[m * R->ng + best];
			struct rfx_uciexp_row *r = &rows[m];

			memset(r, 0, sizeof(*r));
			memcpy(r->dataset, gb->dataset, sizeof(r->dataset));
			memcpy(r->method, gb->method, sizeof(r->method));
			memcpy(r->projection, gb->projection, sizeof(r->projection));
			r->d = S->d;
			r->classes = S->nclass;
			r->n_train = (long)S->n_train;
			r->n_val = (long)S->n_val;
			r->n_test = (long)S->n_test;
			r->M = gb->M;
			r->seeds = ns;
			r->gamma = gb->gamma;
			r->val_pct = gb->val_pct;
			r->test_pct = gb->test_pct;
			r->test_pct_se = gb->test_pct_sd / sqrt((double)ns);
		}
	}
	return RFX_OK;
}

/* The random-feature sweep: cells (method, gamma, seed). */
struct uci_sweep {
	const struct rfx_uciexp_config *c;
	struct run *R;
	const int *rfidx;  /* the methods with an estimator */
};

/* A thread's classifiers (made on first use), generator and predictions. */
struct uci_ws {
	struct rfx_kreg_rf **kr;
	gsl_rng *rng;
	int *pred;
	int nm;
};

static void uci_ws_free(void *p)
{
	struct uci_ws *w = p;
	int k;

	if (!w)
		return;
	if (w->kr)
		for (k = 0; k < w->nm; k++)
			rfx_kreg_rf_free(w->kr[k]);
	free(w->kr);
	if (w->rng)
		gsl_rng_free(w->rng);
	free(w->pred);
	free(w);
}

static void *uci_ws_alloc(void *ctx)
{
	const struct uci_sweep *sw = ctx;
	struct uci_ws *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->nm = sw->R->nm;
	w->kr = calloc((size_t)w->nm, sizeof(*w->kr));
	w->rng = gsl_rng_alloc(rfx_rng_type());
	w->pred = malloc(sw->R->nq * sizeof(int));
	if (!w->kr || !w->rng || !w->pred) {
		uci_ws_free(w);
		return NULL;
	}
	return w;
}

/* Cell t into out: the correct validation and test predictions. */
static int uci_cell(void *ctx, void *ws, size_t t, void *out,
		    struct rfx_err *err)
{
	const struct uci_sweep *sw = ctx;
	const struct rfx_uciexp_config *c = sw->c;
	struct run *R = sw->R;
	struct uci_ws *w = ws;
	int ti = (int)t, mi = sw->rfidx[ti / (R->ng * R->ns)];
	int g = (ti / R->ns) % R->ng, s = ti % R->ns, ret;
	size_t slot = ((size_t)mi * R->ng + g) * R->ns + s, *o = out;
	struct rfx_err e;

	rfx_err_clear(&e);
	ret = run_task(c, R, w->kr, w->rng, w->pred, mi, g, s, &e);
	if (ret)
		return ret == RFX_EINTR
			       ? rfx_error(err, RFX_EINTR, "interrupted")
			       : rfx_error(err, ret, "%s, %s (%s) at gamma %g: %s",
					   c->dataset, c->methods[mi].e->name,
					   rfx_uciexp_projection(&c->methods[mi]),
					   c->gammas[g], e.msg);
	o[0] = R->ok_val[slot];
	o[1] = R->ok_test[slot];
	return RFX_OK;
}

int rfx_uciexp_run(const struct rfx_uciexp_config *c,
		   struct rfx_uciexp_gamma_row *grows,
		   struct rfx_uciexp_row *rows, struct rfx_err *err)
{
	struct run R;
	int ret, m, nrf = 0, has_exact = 0, ntask, total, done = 0, t;
	int blas_saved, *rfidx = NULL;
	double *vv = NULL, *vt = NULL;

	memset(&R, 0, sizeof(R));
	ret = check_config(c, err);
	if (ret)
		return ret;
	ret = prepare(c, &R, err);
	if (ret)
		goto out;
	rfidx = malloc((size_t)c->nmethods * sizeof(int));
	vv = malloc((size_t)c->seeds * sizeof(double));
	vt = malloc((size_t)c->seeds * sizeof(double));
	if (!rfidx || !vv || !vt) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (m = 0; m < c->nmethods; m++) {
		if (c->methods[m].e)
			rfidx[nrf++] = m;
		else
			has_exact = 1;
	}
	ntask = nrf * R.ng * R.ns;
	total = ntask + has_exact;

	/* Tasks are the parallel unit; one BLAS thread keeps results fixed. */
	blas_saved = rfx_blas_single_begin();
	ret = fit_all(c, &R, err);
	if (!ret && has_exact) {
		int g;

		ret = rfx_kreg_exact(c->split->Xtr, c->split->ytr, R.L, (int)R.d,
				     c->split->nclass, R.Q, R.nq, c->gammas, R.ng,
				     R.pred, err);
		for (m = 0; !ret && m < R.nm; m++) {
			if (c->methods[m].e)
				continue;
			for (g = 0; g < R.ng; g++) {
				size_t slot = ((size_t)m * R.ng + g) * R.ns;
				const int *pr = R.pred + (size_t)g * R.nq;

				R.ok_val[slot] = rfx_kreg_correct(pr, R.yq,
								  c->split->n_val);
				R.ok_test[slot] = rfx_kreg_correct(
					pr + c->split->n_val, R.yq + c->split->n_val,
					c->split->n_test);
			}
		}
		if (!ret && c->progress)
			c->progress(c->progress_ctx, ++done, total);
	}
	if (!ret && ntask > 0) {
		struct uci_sweep sw = { c, &R, rfidx };
		struct rfx_cells cells;
		size_t (*res)[2] = calloc((size_t)ntask, sizeof(*res));

		if (!res)
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		cells = (struct rfx_cells){
			.name = "uci-classify",
			.n = (size_t)ntask,
			.size = sizeof(*res),
			.out = res,
			.ctx = &sw,
			.ws_alloc = uci_ws_alloc,
			.ws_free = uci_ws_free,
			.compute = uci_cell,
			.standalone = 1, /* each dataset's sweep stands alone */
			.progress = c->progress,
			.progress_ctx = c->progress_ctx,
		};
		if (!ret)
			ret = rfx_cells_run(&cells, err);
		for (t = 0; !ret && t < ntask; t++) {
			int mi = rfidx[t / (R.ng * R.ns)];
			int g = (t / R.ns) % R.ng, s = t % R.ns;
			size_t slot = ((size_t)mi * R.ng + g) * R.ns + s;

			R.ok_val[slot] = res[t][0];
			R.ok_test[slot] = res[t][1];
		}
		free(res);
	}
	rfx_blas_single_end(blas_saved);
	if (!ret)
		ret = summarise(c, &R, grows, rows, vv, vt, err);
out:
	run_free(&R);
	free(rfidx);
	free(vv);
	free(vt);
	return ret;
}

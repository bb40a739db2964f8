/*
 * MSE tables (see msetable.h): planning the budgets of every cell, then
 * the repetitions of all cells in parallel, each sampling its pairs and
 * drawing its estimators from streams of its own, then the summaries.
 */
#include "msetable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "blas.h"
#include "block.h"
#include "cancel.h"
#include "cost.h"
#include "montecarlo.h"
#include "rng.h"

#define COL(field, type)                                                       \
	{ #field, type, offsetof(struct rfx_mse_row, field),                   \
	  sizeof(((struct rfx_mse_row *)0)->field) }

static const struct rfx_column mse_cols[] = {
	COL(dataset, RFX_COL_STRING),	 COL(norm, RFX_COL_STRING),
	COL(method, RFX_COL_STRING),	 COL(estimator, RFX_COL_STRING),
	COL(projection, RFX_COL_STRING), COL(d, RFX_COL_INT),
	COL(B, RFX_COL_INT),		 COL(ratio, RFX_COL_DOUBLE),
	COL(M, RFX_COL_INT),		 COL(m1, RFX_COL_INT),
	COL(m3, RFX_COL_INT),		 COL(flops, RFX_COL_DOUBLE),
	COL(sigma, RFX_COL_DOUBLE),	 COL(pairs, RFX_COL_LONG),
	COL(draws, RFX_COL_LONG),	 COL(reps, RFX_COL_LONG),
	COL(kernel_mean, RFX_COL_DOUBLE), COL(mse, RFX_COL_DOUBLE),
	COL(mse_sd, RFX_COL_DOUBLE),	 COL(mse_se, RFX_COL_DOUBLE),
	COL(mse_iid, RFX_COL_DOUBLE),
};
#undef COL

const struct rfx_schema rfx_mse_schema = {
	"mse", "kernel-estimation MSE over dataset pairs",
	sizeof(struct rfx_mse_row), (int)(sizeof(mse_cols) / sizeof(mse_cols[0])),
	mse_cols
};

#define HYB_BOTH (RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3))

int rfx_mse_method_parse(const char *spec, struct rfx_mse_method *m,
			 struct rfx_err *err)
{
	const char *eq = strchr(spec, '='), *body = eq ? eq + 1 : spec;
	const char *colon = strchr(body, ':');
	char name[64];
	size_t len = colon ? (size_t)(colon - body) : strlen(body);
	int ret;

	if (eq && (eq == spec || (size_t)(eq - spec) >= sizeof(m->label)))
		return rfx_error(err, RFX_EINVAL,
				 "bad method label in '%s' (1 to %d characters)", spec,
				 (int)sizeof(m->label) - 1);
	if (len == 0 || len >= sizeof(name))
		return rfx_error(err, RFX_EINVAL, "no estimator in method '%s'", spec);
	memcpy(name, body, len);
	name[len] = '\0';
	m->e = rfx_estimator_find(name, err);
	if (!m->e)
		return RFX_EINVAL;
	m->proj = RFX_PROJ_IID;
	if (colon) {
		ret = rfx_proj_parse(colon + 1, &m->proj, err);
		if (ret)
			return ret;
	}
	if (eq)
		snprintf(m->label, sizeof(m->label), "%.*s", (int)(eq - spec), spec);
	else if ((size_t)snprintf(m->label, sizeof(m->label), "%s:%s", m->e->name,
				  rfx_proj_name(m->proj)) >= sizeof(m->label))
		return rfx_error(err, RFX_EINVAL, "method name '%s' too long", spec);
	return RFX_OK;
}

size_t rfx_mse_nrows(const struct rfx_mse_config *c)
{
	return (size_t)c->ndata * (size_t)c->nmethods * (size_t)c->nbudget;
}

/* Baseline features of budget b for dimension d. */
static int budget(const struct rfx_mse_config *c, int b, int d)
{
	long B = c->features ? c->features[b] : lround(c->ratio[b] * d);

	return B < 1 ? 1 : B > 10000000 ? 10000000 : (int)B;
}

/*
 * The method's parameters for budget B in dimension d: FLOP-matched to the
 * baseline, or M = B (hybrids m1 = B, m3 = 1 unless given). p must be
 * initialised for d and hold the base parameters.
 */
static int size_method(const struct rfx_mse_config *c,
		       const struct rfx_mse_method *m, int d, int B,
		       struct rfx_params *p, int *M, struct rfx_cost *cost,
		       struct rfx_err *err)
{
	int ret;

	if (c->match) {
		const struct rfx_estimator_type *b = c->baseline ? c->baseline
								 : &rfx_est_trig;
		struct rfx_params bp;
		struct rfx_cost bc;

		rfx_params_init(&bp, d);
		ret = rfx_cost_of(b, &bp, B, &bc, err);
		rfx_params_release(&bp);
		if (ret)
			return ret;
		return rfx_cost_match(m->e, p, bc.flops, M, cost, err);
	}
	if ((m->e->params & HYB_BOTH) == HYB_BOTH) {
		if (!(p->given & RFX_P(RFX_PARAM_M1)))
			p->m1 = B;
		if (!(p->given & RFX_P(RFX_PARAM_M3)))
			p->m3 = 1;
		p->given |= HYB_BOTH;
		*M = rfx_estimator_features(m->e, p, 0);
	} else {
		*M = B;
	}
	return rfx_cost_of(m->e, p, *M, cost, err);
}

/* The parameters of a planned row, before fitting. */
static int row_params(const struct rfx_mse_method *m, const struct rfx_mse_row *row,
		      struct rfx_params *p, struct rfx_err *err)
{
	int ret;

	rfx_params_init(p, row->d);
	if (m->base) {
		ret = rfx_params_copy(p, m->base, err);
		if (ret)
			return ret;
		p->d = row->d;
	}
	if ((m->e->params & HYB_BOTH) == HYB_BOTH) {
		p->m1 = row->m1;
		p->m3 = row->m3;
		p->given |= HYB_BOTH;
	}
	return RFX_OK;
}

int rfx_mse_plan(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		 struct rfx_err *err)
{
	int k, i, b, ret;
	size_t n = 0;

	if (c->ndata < 1 || c->nmethods < 1 || c->nbudget < 1)
		return rfx_error(err, RFX_EINVAL, "an MSE table needs datasets, "
				 "methods and budgets");
	if (!c->features && !c->ratio)
		return rfx_error(err, RFX_EINVAL, "no budgets given");
	if (c->pairs < 1 || c->draws < 1 || c->reps < 2)
		return rfx_error(err, RFX_EINVAL,
				 "an MSE table needs pairs >= 1, draws >= 1 and "
				 "repetitions >= 2");
	for (k = 0; k < c->ndata; k++) {
		const struct rfx_mse_data *dd = &c->data[k];
		const struct rfx_dataset *ds = dd->ds;

		if (!(dd->sigma > 0.0) || !isfinite(dd->sigma))
			return rfx_error(err, RFX_EINVAL, "%s: bandwidth must be "
					 "positive, got %g", ds->name, dd->sigma);
		if (ds->n < 2)
			return rfx_error(err, RFX_EINVAL,
					 "%s: pairs need at least 2 inputs", ds->name);
		if (c->kernel == RFX_MSE_SOFTMAX) {
			double m2 = rfx_dataset_max_norm2(ds) / (dd->sigma * dd->sigma);

			if (!(m2 <= RFX_MSE_SM_MAX2))
				return rfx_error(err, RFX_EINVAL,
						 "%s (%s): inputs reach |x|^2 = %g; the "
						 "softmax kernel needs |x|^2 <= %g "
						 "(normalise the inputs)", ds->name,
						 dd->norm, m2, RFX_MSE_SM_MAX2);
		}
		for (i = 0; i < c->nmethods; i++) {
			const struct rfx_mse_method *m = &c->methods[i];

			if (m->base && (m->base->c || m->base->a_re) &&
			    m->base->d != ds->d)
				return rfx_error(err, RFX_EINVAL,
						 "%s: its vector parameters are for d = %d, "
						 "%s has d = %d", m->label, m->base->d,
						 ds->name, ds->d);
			ret = rfx_proj_check(m->proj, ds->d, err);
			if (ret)
				return ret;
			for (b = 0; b < c->nbudget; b++) {
				struct rfx_mse_row *row = &rows[n++];
				struct rfx_params p;
				struct rfx_cost cost;
				int M = 0, B = budget(c, b, ds->d);

				memset(row, 0, sizeof(*row));
				rfx_params_init(&p, ds->d);
				ret = m->base ? rfx_params_copy(&p, m->base, err) : RFX_OK;
				p.d = ds->d;
				if (!ret)
					ret = size_method(c, m, ds->d, B, &p, &M, &cost,
							  err);
				if (ret) {
					rfx_params_release(&p);
					return ret;
				}
				snprintf(row->dataset, sizeof(row->dataset), "%s", ds->name);
				snprintf(row->norm, sizeof(row->norm), "%s",
					 dd->norm ? dd->norm : "none");
				snprintf(row->method, sizeof(row->method), "%s", m->label);
				snprintf(row->estimator, sizeof(row->estimator), "%s",
					 m->e->name);
				snprintf(row->projection, sizeof(row->projection), "%s",
					 rfx_proj_name(m->proj));
				row->d = ds->d;
				row->B = B;
				row->ratio = (double)B / ds->d;
				row->M = M;
				if ((m->e->params & HYB_BOTH) == HYB_BOTH) {
					row->m1 = p.m1;
					row->m3 = p.m3;
				}
				row->flops = cost.flops;
				row->sigma = dd->sigma;
				row->pairs = c->pairs;
				row->draws = c->draws;
				row->reps = c->reps;
				rfx_params_release(&p);
			}
		}
	}
	return RFX_OK;
}

/* FNV-1a: a stable stream key from an estimator's name. */
static uint64_t name_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The closed-form variance of the fitted estimator on iid projections for
 * each pair (X[k], Y[k]), times fac[k]^2, averaged: one block over all
 * P x P combinations, of which the diagonal is used.
 */
static int iid_mse(const struct rfx_mse_method *m, const struct rfx_params *p,
		   int M, const double *X, const double *Y, size_t P,
		   const double *fac, double *out, struct rfx_err *err)
{
	struct rfx_block *b = rfx_block_alloc(p->d, P, P);
	double *lv = malloc(P * P * sizeof(double)), s = 0.0;
	size_t k;
	int ret;

	if (!b || !lv) {
		rfx_block_free(b);
		free(lv);
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu pairs", P);
	}
	ret = rfx_estimator_block(m->e, p, b, X, P, Y, P, err);
	if (!ret)
		ret = m->e->log_variance(p, b, M, lv, err);
	for (k = 0; !ret && k < P; k++)
		s += exp(lv[k * P + k] + 2.0 * log(fac[k]));
	rfx_block_free(b);
	free(lv);
	if (!ret && !isfinite(s))
		ret = rfx_error(err, RFX_ENUMERIC,
				"%s: closed-form variances exceed double range",
				m->label);
	*out = s / (double)P;
	return ret;
}

/* One repetition of one cell: its MSE, the iid closed form, mean kernel. */
static int one_rep(const struct rfx_mse_config *c, const struct rfx_mse_data *dd,
		   const struct rfx_mse_method *m, const struct rfx_mse_row *row,
		   long rep, double *mse, double *miid, double *kmean,
		   struct rfx_err *err)
{
	const struct rfx_dataset *ds = dd->ds;
	size_t P = (size_t)c->pairs, S = (size_t)c->draws, q, k;
	int d = ds->d, l, ret = RFX_ENOMEM, sm = c->kernel == RFX_MSE_SOFTMAX;
	double *X = malloc(P * (size_t)d * sizeof(double));
	double *Y = malloc(P * (size_t)d * sizeof(double));
	double *K = malloc(P * sizeof(double)), *F = malloc(P * sizeof(double));
	double *labs = malloc(P * S * sizeof(double)), sum = 0.0, ks = 0.0;
	signed char *sg = malloc(P * S);
	gsl_rng *rp = NULL, *rd = NULL;
	struct rfx_params p;
	double inv = 1.0 / dd->sigma;

	rfx_params_init(&p, d);
	rp = rfx_rng_alloc_stream(c->seed, 1000 + (uint64_t)dd->id, (uint64_t)rep, 0);
	rd = rfx_rng_alloc_stream(c->seed, 2000 + (uint64_t)dd->id,
				  name_key(m->e->name) ^ ((uint64_t)m->proj << 56),
				  (uint64_t)rep << 32 | (uint64_t)row->B);
	if (!X || !Y || !K || !F || !labs || !sg || !rp || !rd) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu pairs", P);
		goto out;
	}
	for (k = 0; k < P; k++) {
		size_t i = (size_t)gsl_rng_uniform_int(rp, (unsigned long)ds->n);
		size_t j = (size_t)gsl_rng_uniform_int(rp, (unsigned long)ds->n - 1);
		double dd2 = 0.0, xy = 0.0, xx = 0.0, yy = 0.0;

		j += j >= i;
		for (l = 0; l < d; l++) {
			double a = ds->X[i * (size_t)d + (size_t)l] * inv;
			double b = ds->X[j * (size_t)d + (size_t)l] * inv;

			X[k * (size_t)d + (size_t)l] = a;
			Y[k * (size_t)d + (size_t)l] = b;
			dd2 += (a - b) * (a - b);
			xy += a * b;
			xx += a * a;
			yy += b * b;
		}
		/* SM^ - SM = e^{(|x|^2+|y|^2)/2} (K^ - K): F is that factor */
		K[k] = exp(-0.5 * dd2);
		F[k] = sm ? exp(0.5 * (xx + yy)) : 1.0;
		ks += sm ? exp(xy) : K[k];
	}
	ret = row_params(m, row, &p, err);
	if (!ret)
		ret = m->e->fit(&p, X, P, Y, P, row->M, err);
	if (!ret)
		ret = iid_mse(m, &p, row->M, X, Y, P, F, miid, err);
	if (!ret)
		ret = rfx_mc_estimates(m->e, &p, m->proj, row->M, X, Y, P, (long)S,
				       rd, labs, sg, err);
	if (ret)
		goto out;
	for (q = 0; q < S; q++)
		for (k = 0; k < P; k++) {
			double e = sg[q * P + k] ? sg[q * P + k] * exp(labs[q * P + k])
						 : 0.0;
			double t = (e - K[k]) * F[k];

			sum += t * t;
		}
	if (!isfinite(sum)) {
		ret = rfx_error(err, RFX_ENUMERIC,
				"%s on %s: squared errors exceed double range",
				m->label, ds->name);
		goto out;
	}
	*mse = sum / (double)(P * S);
	*kmean = ks / (double)P;
	ret = RFX_OK;
out:
	rfx_params_release(&p);
	free(X);
	free(Y);
	free(K);
	free(F);
	free(labs);
	free(sg);
	if (rp)
		gsl_rng_free(rp);
	if (rd)
		gsl_rng_free(rd);
	return ret;
}

int rfx_mse_run(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		struct rfx_err *err)
{
	int ret = rfx_mse_plan(c, rows, err);

	return ret ? ret : rfx_mse_execute(c, rows, err);
}

int rfx_mse_execute(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		    struct rfx_err *err)
{
	size_t nc = rfx_mse_nrows(c), R = (size_t)c->reps, ntask, t;
	double *mse = NULL, *km = NULL, *mi = NULL;
	int *rets = NULL, *left = NULL, done = 0, ret, saved;
	struct rfx_err *errs = NULL;

	ntask = nc * R;
	mse = malloc(ntask * sizeof(double));
	km = malloc(ntask * sizeof(double));
	mi = malloc(ntask * sizeof(double));
	rets = calloc(ntask, sizeof(int));
	errs = calloc(ntask, sizeof(*errs));
	left = malloc(nc * sizeof(int));
	if (!mse || !km || !mi || !rets || !errs || !left) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells", nc);
		goto out;
	}
	for (t = 0; t < nc; t++)
		left[t] = (int)R;
	saved = rfx_blas_single_begin();
#pragma omp parallel for schedule(dynamic)
	for (t = 0; t < ntask; t++) {
		size_t cell = t / R, per = (size_t)c->nmethods * (size_t)c->nbudget;
		const struct rfx_mse_data *dd = &c->data[cell / per];
		const struct rfx_mse_method *m = &c->methods[cell % per / (size_t)c->nbudget];
		int last;

		if (rfx_cancel_requested()) {
			rets[t] = rfx_error(&errs[t], RFX_EINTR, "interrupted");
			continue;
		}
		rets[t] = one_rep(c, dd, m, &rows[cell], (long)(t % R), &mse[t],
				  &mi[t], &km[t], &errs[t]);
#pragma omp atomic capture
		last = --left[cell];
		if (last == 0 && c->progress) {
#pragma omp critical(rfx_mse_progress)
			c->progress(c->progress_ctx, ++done, (int)nc);
		}
	}
	rfx_blas_single_end(saved);
	for (t = 0; t < ntask; t++)
		if (rets[t]) {
			/* an interruption wins over the errors it may have caused */
			size_t u;

			ret = rets[t];
			*err = errs[t];
			for (u = 0; u < ntask; u++)
				if (rets[u] == RFX_EINTR) {
					ret = RFX_EINTR;
					*err = errs[u];
					break;
				}
			goto out;
		}
	for (t = 0; t < nc; t++) {
		const double *v = mse + t * R;
		double mean = 0.0, ss = 0.0, kmean = 0.0, iid = 0.0;
		size_t q;

		for (q = 0; q < R; q++) {
			mean += v[q];
			kmean += km[t * R + q];
			iid += mi[t * R + q];
		}
		mean /= (double)R;
		for (q = 0; q < R; q++)
			ss += (v[q] - mean) * (v[q] - mean);
		rows[t].mse = mean;
		rows[t].mse_sd = sqrt(ss / (double)(R - 1));
		rows[t].mse_se = rows[t].mse_sd / sqrt((double)R);
		rows[t].kernel_mean = kmean / (double)R;
		rows[t].mse_iid = iid / (double)R;
	}
	ret = RFX_OK;
out:
	free(mse);
	free(km);
	free(mi);
	free(rets);
	free(errs);
	free(left);
	return ret;
}

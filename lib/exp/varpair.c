/*
 * Pair mode of rfx variance (lib/exp/varpair.h): fit each method to the
 * pair, its closed-form log-variance, and Monte Carlo on request. The
 * params text is formatted twice, once to measure it and once into a
 * column sized for the longest, so no row is ever truncated.
 */
#include "exp/varpair.h"
#include "est/coupvar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "eval/montecarlo.h"
#include "num/kernel.h"

#define ALIGN 8 /* records start on 8-byte boundaries */

struct rfx_varpair_row *rfx_varpair_row(const struct rfx_varpair_result *r,
					size_t k)
{
	return (struct rfx_varpair_row *)((char *)r->rows + k * r->schema.row_size);
}

const char *rfx_varpair_params(const struct rfx_varpair_result *r, size_t k)
{
	return (const char *)rfx_varpair_row(r, k) + sizeof(struct rfx_varpair_row);
}

void rfx_varpair_release(struct rfx_varpair_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

/* The schema: the columns of the old fixed row, params sized plen. */
static void make_schema(struct rfx_varpair_result *r, size_t plen, int mc)
{
	static const struct rfx_column head[] = {
		RFX_COL(rfx_varpair_row, method, RFX_COL_STRING,
		RFX_DESC_METHOD)
	};
	static const struct rfx_column tail[] = {
		RFX_COL(rfx_varpair_row, d, RFX_COL_INT,
		"input dimension"),
		RFX_COL(rfx_varpair_row, M, RFX_COL_INT,
		"random features of the estimate (the method's budget)"),
		RFX_COL(rfx_varpair_row, log_kernel, RFX_COL_DOUBLE,
		"natural log of the exact kernel value K(x, y)"),
		RFX_COL(rfx_varpair_row, variance, RFX_COL_DOUBLE,
		"closed-form variance of the M-feature estimate of K(x, y)"),
		RFX_COL(rfx_varpair_row, log_variance, RFX_COL_DOUBLE,
		"natural log of variance"),
		RFX_COL(rfx_varpair_row, closed_form, RFX_COL_STRING,
		"projection kind the closed-form variance is exact for (iid, ort, ...)"),
		RFX_COL(rfx_varpair_row, mc_R, RFX_COL_LONG,
		"Monte Carlo draws of the estimator"),
		RFX_COL(rfx_varpair_row, mc_mean, RFX_COL_DOUBLE,
		"mean of the Monte Carlo estimates of K(x, y)"),
		RFX_COL(rfx_varpair_row, mc_mean_se, RFX_COL_DOUBLE,
		"standard error of mc_mean"),
		RFX_COL(rfx_varpair_row, mc_variance, RFX_COL_DOUBLE,
		"sample variance of the Monte Carlo estimates"),
		RFX_COL(rfx_varpair_row, mc_log_variance, RFX_COL_DOUBLE,
		"natural log of mc_variance"),
		RFX_COL(rfx_varpair_row, mc_log_variance_se, RFX_COL_DOUBLE,
		"standard error of mc_log_variance (delta method), in natural-log units"),
		RFX_COL(rfx_varpair_row, mc_variance_lo, RFX_COL_DOUBLE,
		"lower end of the 95% confidence interval of mc_variance"),
		RFX_COL(rfx_varpair_row, mc_variance_hi, RFX_COL_DOUBLE,
		"upper end of the 95% confidence interval of mc_variance"),
	};
	const int ntail_plain = 6; /* d .. closed_form */
	int n = 0, k;

	r->cols[n++] = head[0];
	r->cols[n].name = "params";
	r->cols[n].type = RFX_COL_STRING;
	r->cols[n].offset = sizeof(struct rfx_varpair_row);
	r->cols[n].desc = "the method's fitted parameters as NAME=VALUE;NAME=VALUE (- if none)";
	r->cols[n++].size = plen;
	for (k = 0; k < (mc ? (int)(sizeof(tail) / sizeof(tail[0])) : ntail_plain);
	     k++)
		r->cols[n++] = tail[k];
	r->schema.name = "pair";
	r->schema.title = mc ? "variance of each estimator for one pair, analytic and Monte Carlo"
			     : "variance of each estimator for one pair";
	r->schema.row_size = (sizeof(struct rfx_varpair_row) + plen + ALIGN - 1) /
			     ALIGN * ALIGN;
	r->schema.ncols = n;
	r->schema.cols = r->cols;
}

/* Budget of method e: the common M, or fair counting. */
static int features(const struct rfx_varpair_config *c,
		    const struct rfx_estimator_type *e)
{
	return c->M > 0 ? c->M : rfx_estimator_fair_features(e, c->budget);
}

/* Fits method m's parameters to the pair into p (initialised here). */
static int fit(const struct rfx_varpair_config *c, int m, struct rfx_params *p,
	       struct rfx_err *err)
{
	const struct rfx_estimator_type *e = c->methods[m];
	int ret;

	rfx_params_init(p, c->d);
	ret = rfx_params_copy(p, &c->base[m], err);
	if (!ret)
		ret = e->fit(p, c->x, 1, c->y, 1, features(c, e), err);
	return ret;
}

int rfx_varpair_run(const struct rfx_varpair_config *c,
		    struct rfx_varpair_result *r, struct rfx_err *err)
{
	struct rfx_params *ps = NULL;
	struct rfx_block *b = NULL;
	gsl_rng *rng = NULL;
	size_t plen = RFX_VARPAIR_PARAMS;
	double sm = 0.0; /* (|x|^2 + |y|^2)/2 for the softmax kernel */
	int m, l, fitted = 0, ret = RFX_ENOMEM;

	memset(r, 0, sizeof(*r));
	ps = calloc((size_t)c->nmethods, sizeof(*ps));
	b = rfx_block_alloc(c->d, 1, 1);
	if (!ps || !b) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	/* Every fit first, to size the params column for the longest text. */
	for (m = 0; m < c->nmethods; m++) {
		size_t need;

		ret = fit(c, m, &ps[m], err);
		fitted = m + 1;
		if (ret)
			goto out;
		need = rfx_params_format(&ps[m], c->methods[m], NULL, 0) + 1;
		if (need > plen)
			plen = need;
	}
	make_schema(r, plen, c->mc_R > 0);
	r->rows = calloc((size_t)c->nmethods, r->schema.row_size);
	if (!r->rows) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	r->nrows = (size_t)c->nmethods;
	if (c->softmax)
		for (l = 0; l < c->d; l++)
			sm += 0.5 * (c->x[l] * c->x[l] + c->y[l] * c->y[l]);
	for (m = 0; m < c->nmethods; m++) {
		const struct rfx_estimator_type *e = c->methods[m];
		struct rfx_varpair_row *row = rfx_varpair_row(r, (size_t)m);
		int M = features(c, e);

		ret = rfx_estimator_block(e, &ps[m], b, c->x, 1, c->y, 1, err);
		if (!ret)
			ret = e->log_variance(&ps[m], b, M, &row->log_variance, err);
		if (ret)
			goto out;
		/*
		 * On coupled projections the exact variance where rfx has it
		 * (lib/est/coupvar.h); closed_form names what it is exact for.
		 */
		snprintf(row->closed_form, sizeof(row->closed_form), "iid");
		if (c->proj != RFX_PROJ_IID && rfx_coupvar_has(e, c->proj)) {
			ret = rfx_coupvar_log_variance(e, &ps[m], c->proj, c->x, c->y,
						       M, &row->log_variance, err);
			if (ret)
				goto out;
			snprintf(row->closed_form, sizeof(row->closed_form), "%s",
				 rfx_proj_name(c->proj));
		}
		snprintf(row->method, sizeof(row->method), "%s", e->name);
		rfx_params_format(&ps[m], e, (char *)rfx_varpair_params(r, (size_t)m),
				  plen);
		row->d = c->d;
		row->M = rfx_estimator_features(e, &ps[m], M);
		row->log_kernel = rfx_kernel_gauss_log(c->x, c->y, c->d) + sm;
		row->log_variance += 2.0 * sm;
		row->variance = exp(row->log_variance);
		if (c->mc_R > 0) {
			struct rfx_mc_result mc;

			if (!rng)
				rng = gsl_rng_alloc(rfx_rng_type());
			if (!rng) {
				ret = rfx_error(err, RFX_ENOMEM, "out of memory");
				goto out;
			}
			rfx_rng_set_key(rng, c->seed, &(struct rfx_rng_key){
				.exp = "variance", .what = "pair", .name = { e->name } });
			ret = rfx_mc_pairs(e, &ps[m], c->proj, M, c->x, c->y, 1,
					   c->mc_R, rng, &mc, err);
			if (ret)
				goto out;
			mc.log_var += 2.0 * sm;
			row->mc_R = c->mc_R;
			row->mc_mean = mc.mean * exp(sm);
			row->mc_mean_se = mc.mean_se * exp(sm);
			row->mc_variance = exp(mc.log_var);
			row->mc_log_variance = mc.log_var;
			row->mc_log_variance_se = mc.log_var_se;
			/*
			 * 95% interval for the variance: normal on the log scale
			 * (delta method), so it never goes negative.
			 */
			row->mc_variance_lo = exp(mc.log_var - 1.96 * mc.log_var_se);
			row->mc_variance_hi = exp(mc.log_var + 1.96 * mc.log_var_se);
		}
	}
	ret = RFX_OK;
out:
	if (rng)
		gsl_rng_free(rng);
	rfx_block_free(b);
	for (m = 0; m < fitted; m++)
		rfx_params_release(&ps[m]);
	free(ps);
	return ret;
}

/*
 * Variance maps: a grid of synthetic pairs, each method fitted to each pair
 * and evaluated through the same closed forms as everything else.
 */
#include "exp/varmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "est/coupvar.h"
#include "num/block.h"
#include "num/kernel.h"
#include "num/logmath.h"

static const struct rfx_column cols[] = {
	RFX_COL(rfx_varmap_row, map, RFX_COL_STRING,
		"the family of pairs: angle (|x| = |y| = r at angle theta) or sum (|x + y|^2 = w)"),
	RFX_COL(rfx_varmap_row, method, RFX_COL_STRING,
		RFX_DESC_METHOD),
	RFX_COL(rfx_varmap_row, d, RFX_COL_INT,
		"input dimension"),
	RFX_COL(rfx_varmap_row, M, RFX_COL_INT,
		"random features of the estimate"),
	RFX_COL(rfx_varmap_row, r, RFX_COL_DOUBLE,
		"norm of the inputs, |x| = |y|"),
	RFX_COL(rfx_varmap_row, theta, RFX_COL_DOUBLE,
		"angle between x and y, radians"),
	RFX_COL(rfx_varmap_row, w, RFX_COL_DOUBLE,
		"|x + y|^2"),
	RFX_COL(rfx_varmap_row, log_kernel, RFX_COL_DOUBLE,
		"natural log of the exact kernel value K(x, y)"),
	RFX_COL(rfx_varmap_row, log_variance, RFX_COL_DOUBLE,
		"natural log of the closed-form variance of the M-feature estimate"),
	RFX_COL(rfx_varmap_row, log_ratio, RFX_COL_DOUBLE,
		"log_variance minus the baseline method's: natural log of the variance ratio"),
	/* last, so that the columns of Figs 4.1, 6.1, 6.2 keep their places */
	RFX_COL(rfx_varmap_row, projection, RFX_COL_STRING,
		"projection kind of the exact variance: iid, or a coupled kind (lib/est/coupvar.h)"),
};

const struct rfx_schema rfx_varmap_schema = {
	"map", "analytic log-variance over synthetic pairs",
	sizeof(struct rfx_varmap_row), (int)(sizeof(cols) / sizeof(cols[0])), cols
};

int rfx_varmap_parse(const char *name, enum rfx_varmap_kind *out,
		     struct rfx_err *err)
{
	if (!strcmp(name, "angle"))
		*out = RFX_VARMAP_ANGLE;
	else if (!strcmp(name, "sum"))
		*out = RFX_VARMAP_SUM;
	else
		return rfx_error(err, RFX_EINVAL,
				 "unknown map '%s' (valid: angle, sum)", name);
	return RFX_OK;
}

size_t rfx_varmap_nrows(const struct rfx_varmap_config *c)
{
	size_t pts = c->kind == RFX_VARMAP_ANGLE
			     ? (size_t)c->steps * (size_t)(c->steps + 1)
			     : (size_t)c->steps;

	return pts * (size_t)c->nd * (size_t)c->nmethods *
	       (size_t)(c->nprojs > 0 ? c->nprojs : 1);
}

/* log Var of e fitted to the pair (x, y); *Mused gets the features used. */
static int pair_log_var(const struct rfx_estimator_type *e,
			const struct rfx_varmap_config *c, enum rfx_proj proj,
			const double *x, const double *y, int d,
			struct rfx_block *b, double *lv, int *Mused,
			struct rfx_err *err)
{
	struct rfx_params p;
	int M = c->M > 0 ? c->M : rfx_estimator_fair_features(e, c->budget);
	int ret;

	rfx_params_init(&p, d);
	ret = e->fit(&p, x, 1, y, 1, M, err);
	if (!ret)
		ret = rfx_estimator_block(e, &p, b, x, 1, y, 1, err);
	if (!ret) {
		*Mused = rfx_estimator_features(e, &p, M);
		ret = e->log_variance(&p, b, M, lv, err);
	}
	/* coupled kinds: the exact variance of lib/est/coupvar.h */
	if (!ret && proj != RFX_PROJ_IID)
		ret = rfx_coupvar_log_variance(e, &p, proj, x, y, M, lv, err);
	rfx_params_release(&p);
	return ret;
}

int rfx_varmap_run(const struct rfx_varmap_config *c,
		   struct rfx_varmap_row *rows, struct rfx_err *err)
{
	static const enum rfx_proj iid_only = RFX_PROJ_IID;
	const enum rfx_proj *projs = c->nprojs > 0 ? c->projs : &iid_only;
	int np = c->nprojs > 0 ? c->nprojs : 1;
	size_t r = 0;
	int di, pi, i, j, m, ret = RFX_OK;

	if (c->steps < 2)
		return rfx_error(err, RFX_EINVAL, "steps must be at least 2, got %d",
				 c->steps);
	if (c->kind == RFX_VARMAP_ANGLE && !(c->r_max > 0.0))
		return rfx_error(err, RFX_EINVAL, "r-max must be positive");
	if (c->kind == RFX_VARMAP_ANGLE && c->r_max < RFX_VARMAP_R_MIN)
		return rfx_error(err, RFX_EINVAL,
				 "r-max must be at least %g, got %g: below, |x|^2 underflows and every variance of the map is 0",
				 RFX_VARMAP_R_MIN, c->r_max);
	if (c->kind == RFX_VARMAP_SUM && !(c->w_max > 0.0))
		return rfx_error(err, RFX_EINVAL, "w-max must be positive");
	/* every method (and the baseline) exact on every coupled kind listed */
	for (pi = 0; pi < np; pi++)
		for (m = -1; m < c->nmethods; m++) {
			const struct rfx_estimator_type *e =
				m < 0 ? c->baseline : c->methods[m];

			if (e && projs[pi] != RFX_PROJ_IID &&
			    !rfx_coupvar_has(e, projs[pi]))
				return rfx_error(err, RFX_EINVAL,
						 "no exact variance of '%s' on '%s' projections (exact: trig, pos, oprf on ort, simplex, ort-anti)",
						 e->name, rfx_proj_name(projs[pi]));
		}
	for (di = 0; di < c->nd; di++) {
		int d = c->ds[di];
		double *x, *y;
		struct rfx_block *b;

		if (d < (c->kind == RFX_VARMAP_ANGLE ? 2 : 1))
			return rfx_error(err, RFX_EINVAL,
					 "the %s map needs d >= %d, got %d",
					 c->kind == RFX_VARMAP_ANGLE ? "angle" : "sum",
					 c->kind == RFX_VARMAP_ANGLE ? 2 : 1, d);
		x = calloc((size_t)d, sizeof(double));
		y = calloc((size_t)d, sizeof(double));
		b = rfx_block_alloc(d, 1, 1);
		if (!x || !y || !b) {
			free(x);
			free(y);
			rfx_block_free(b);
			return rfx_error(err, RFX_ENOMEM, "out of memory");
		}
		for (pi = 0; pi < np && !ret; pi++) {
			for (i = 0; i < (c->kind == RFX_VARMAP_ANGLE ? c->steps : 1) && !ret; i++) {
				double rr = c->r_max * (i + 1) / c->steps;

				for (j = 0; j < c->steps + (c->kind == RFX_VARMAP_ANGLE) && !ret;
				     j++) {
					double th = 0.0, w, lk, lb = 0.0;
					int Mb;

					/*
					 * Grids avoid theta in {0, pi} and w = 0, where some
					 * variances are exactly 0 and their logs -inf.
					 */
					if (c->kind == RFX_VARMAP_ANGLE) {
						th = RFX_PI * (j + 0.5) / (c->steps + 1);
						x[0] = rr;
						y[0] = rr * cos(th);
						y[1] = rr * sin(th);
					} else {
						w = c->w_max * (j + 1) / c->steps;
						rr = 0.5 * sqrt(w);
						x[0] = y[0] = rr;
					}
					/* A grid point is one fit per method: poll here. */
					if (rfx_cancel_requested()) {
						ret = rfx_error(err, RFX_EINTR, "interrupted");
						break;
					}
					w = 2.0 * rr * rr * (1.0 + cos(th));
					lk = rfx_kernel_gauss_log(x, y, d) + 0.0; /* no -0 */
					if (c->baseline) {
						ret = pair_log_var(c->baseline, c, projs[pi], x,
								   y, d, b, &lb, &Mb, err);
						if (ret)
							break;
					}
					for (m = 0; m < c->nmethods && !ret; m++) {
						struct rfx_varmap_row *row = &rows[r++];
						double lv;
						int Mu;

						ret = pair_log_var(c->methods[m], c, projs[pi], x,
								   y, d, b, &lv, &Mu, err);
						if (ret)
							break;
						memset(row, 0, sizeof(*row));
						snprintf(row->map, sizeof(row->map), "%s",
							 c->kind == RFX_VARMAP_ANGLE ? "angle"
										    : "sum");
						snprintf(row->method, sizeof(row->method), "%s",
							 c->methods[m]->name);
						snprintf(row->projection, sizeof(row->projection),
							 "%s", rfx_proj_name(projs[pi]));
						row->d = d;
						row->M = Mu;
						row->r = rr;
						row->theta = th;
						row->w = w;
						row->log_kernel = lk;
						row->log_variance = lv;
						row->log_ratio = c->baseline ? lv - lb : 0.0;
					}
				}
			}
		}
		free(x);
		free(y);
		rfx_block_free(b);
		if (ret)
			return ret;
	}
	return RFX_OK;
}

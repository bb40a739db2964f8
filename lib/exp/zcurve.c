/*
 * The ORF paper's curves against z (see zcurve.h): Monte Carlo of TrigRF
 * on every projection kind, in parallel chunks, and the closed forms.
 */
#include "exp/zcurve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "num/blas.h"
#include "base/cells.h"
#include "est/estimator.h"
#include "eval/montecarlo.h"
#include "est/orfvar.h"
#include "base/rng.h"

static const struct rfx_column zc_cols[] = {
	RFX_COL(rfx_zc_row, projection, RFX_COL_STRING,
		RFX_DESC_PROJECTION),
	RFX_COL(rfx_zc_row, curve, RFX_COL_STRING,
		"mc (Monte Carlo), exact (closed form) or limit (ORF paper eq. 3)"),
	RFX_COL(rfx_zc_row, d, RFX_COL_INT,
		"input dimension (0 for the d -> infinity limit)"),
	RFX_COL(rfx_zc_row, D, RFX_COL_INT,
		"random projections D of the TrigRF estimator (D = d; 0 for the d -> infinity limit)"),
	RFX_COL(rfx_zc_row, z, RFX_COL_DOUBLE,
		"distance |x - y|/sigma"),
	RFX_COL(rfx_zc_row, mean, RFX_COL_DOUBLE,
		"mean estimate of the Gaussian kernel e^{-z^2/2}"),
	RFX_COL(rfx_zc_row, bias, RFX_COL_DOUBLE,
		"mean minus the kernel e^{-z^2/2}"),
	RFX_COL(rfx_zc_row, bias_se, RFX_COL_DOUBLE,
		"standard error of bias (0 for closed forms)"),
	RFX_COL(rfx_zc_row, var, RFX_COL_DOUBLE,
		"variance of the estimate"),
	RFX_COL(rfx_zc_row, var_se, RFX_COL_DOUBLE,
		"standard error of var (delta method; 0 for closed forms)"),
	RFX_COL(rfx_zc_row, ratio, RFX_COL_DOUBLE,
		"var divided by the RFF variance at the same z and D"),
	RFX_COL(rfx_zc_row, ratio_se, RFX_COL_DOUBLE,
		"standard error of ratio (0 for closed forms)"),
	RFX_COL(rfx_zc_row, mse_ratio, RFX_COL_DOUBLE,
		"(var + bias^2) divided by the RFF variance at the same z and D"),
};

const struct rfx_schema rfx_zc_schema = {
	"zcurve", "bias and variance of the Gaussian-kernel estimator against z",
	sizeof(struct rfx_zc_row), (int)(sizeof(zc_cols) / sizeof(zc_cols[0])),
	zc_cols
};

/* Whether lib/est/orfvar.h has a closed form for p. */
static int has_exact(enum rfx_proj p)
{
	return p == RFX_PROJ_IID || p == RFX_PROJ_ORT || p == RFX_PROJ_ORF_PRIME;
}

static int nexact(const struct rfx_zc_config *c)
{
	int i, n = 0;

	for (i = 0; i < c->nproj; i++)
		n += has_exact(c->proj[i]);
	return n;
}

size_t rfx_zc_nrows(const struct rfx_zc_config *c)
{
	return ((size_t)c->nd * (size_t)(c->nproj + nexact(c) + 1) + 1) *
	       (size_t)c->nz;
}

static int check(const struct rfx_zc_config *c, struct rfx_err *err)
{
	int i, k;

	if (c->nproj < 1 || c->nd < 1 || c->nz < 1)
		return rfx_error(err, RFX_EINVAL,
				 "the curves need projections, dimensions and z values");
	if (c->R < 2)
		return rfx_error(err, RFX_EINVAL,
				 "the curves need at least 2 draws, got %ld", c->R);
	for (k = 0; k < c->nd; k++) {
		if (c->d[k] < 2 || c->d[k] > 4096)
			return rfx_error(err, RFX_EINVAL,
					 "d must be in 2..4096, got %d", c->d[k]);
		for (i = 0; i < c->nproj; i++) {
			int ret = rfx_proj_check(c->proj[i], c->d[k], err);

			if (ret)
				return ret;
		}
	}
	for (k = 0; k < c->nz; k++)
		if (!(c->z[k] > 0.0 && c->z[k] <= RFX_ORFVAR_Z_MAX))
			return rfx_error(err, RFX_EINVAL,
					 "z must be in (0, %g], got %g",
					 RFX_ORFVAR_Z_MAX, c->z[k]);
	return RFX_OK;
}

/* x = 0 and y = z u for every z of the grid (nz x d each). */
static int make_pairs(const struct rfx_zc_config *c, int d, double *X,
		      double *Y, struct rfx_err *err)
{
	gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "zcurve", .what = "pairs", .i = (uint64_t)d });
	double n = 0.0, *u = malloc((size_t)d * sizeof(double));
	int k, l;

	if (!r || !u) {
		if (r)
			gsl_rng_free(r);
		free(u);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	for (l = 0; l < d; l++) {
		u[l] = gsl_ran_gaussian(r, 1.0);
		n += u[l] * u[l];
	}
	for (k = 0; k < c->nz; k++)
		for (l = 0; l < d; l++) {
			X[(size_t)k * (size_t)d + (size_t)l] = 0.0;
			Y[(size_t)k * (size_t)d + (size_t)l] = c->z[k] * u[l] / sqrt(n);
		}
	gsl_rng_free(r);
	free(u);
	return RFX_OK;
}

/* The Monte Carlo rows of (projection p, d): R draws in parallel chunks. */
static int mc_rows(const struct rfx_zc_config *c, enum rfx_proj p, int d,
		   struct rfx_zc_row *rows, struct rfx_err *err)
{
	size_t nz = (size_t)c->nz, k;
	long nchunk = (c->R + RFX_ZC_CHUNK - 1) / RFX_ZC_CHUNK, ch;
	double *X = malloc(nz * (size_t)d * sizeof(double));
	double *Y = malloc(nz * (size_t)d * sizeof(double));
	double *labs = malloc((size_t)c->R * nz * sizeof(double));
	signed char *sg = malloc((size_t)c->R * nz);
	int *rets = calloc((size_t)nchunk, sizeof(int)), ret;
	struct rfx_err *errs = calloc((size_t)nchunk, sizeof(*errs));
	struct rfx_params par;

	rfx_params_init(&par, d);
	if (!X || !Y || !labs || !sg || !rets || !errs) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %ld draws", c->R);
		goto out;
	}
	ret = make_pairs(c, d, X, Y, err);
	if (ret)
		goto out;
#pragma omp parallel for schedule(dynamic)
	for (ch = 0; ch < nchunk; ch++) {
		long q0 = ch * RFX_ZC_CHUNK;
		long cnt = c->R - q0 < RFX_ZC_CHUNK ? c->R - q0 : RFX_ZC_CHUNK;
		gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
			.exp = "zcurve", .what = "draws", .name = { rfx_proj_name(p) },
			.i = (uint64_t)d, .j = (uint64_t)ch });

		if (!r) {
			rets[ch] = rfx_error(&errs[ch], RFX_ENOMEM, "out of memory");
			continue;
		}
		rets[ch] = rfx_mc_estimates(&rfx_est_trig, &par, p, d, X, Y, nz,
					    cnt, r, labs + (size_t)q0 * nz,
					    sg + (size_t)q0 * nz, &errs[ch]);
		gsl_rng_free(r);
	}
	for (ch = 0; ch < nchunk; ch++)
		if (rets[ch]) {
			ret = rets[ch];
			*err = errs[ch];
			goto out;
		}
	for (k = 0; k < nz; k++) {
		struct rfx_zc_row *row = &rows[k];
		struct rfx_mc_result m;
		double z = c->z[k], vr = rfx_orfvar_rff(z, d);

		rfx_mc_summarize(labs + k, sg + k, (size_t)c->R, nz, &m);
		snprintf(row->projection, sizeof(row->projection), "%s",
			 rfx_proj_name(p));
		snprintf(row->curve, sizeof(row->curve), "mc");
		row->d = row->D = d;
		row->z = z;
		row->mean = m.mean;
		row->bias = m.mean - exp(-0.5 * z * z);
		row->bias_se = m.mean_se;
		row->var = m.log_var == -INFINITY ? 0.0 : exp(m.log_var);
		row->var_se = row->var * m.log_var_se;
		row->ratio = row->var / vr;
		row->ratio_se = row->var_se / vr;
		row->mse_ratio = (row->var + row->bias * row->bias) / vr;
	}
	ret = RFX_OK;
out:
	rfx_params_release(&par);
	free(X);
	free(Y);
	free(labs);
	free(sg);
	free(rets);
	free(errs);
	return ret;
}

static int exact_row(enum rfx_proj p, int d, double z, struct rfx_zc_row *row,
		     struct rfx_err *err)
{
	double mean = exp(-0.5 * z * z), var = rfx_orfvar_rff(z, d), vr = var;
	int ret = RFX_OK;

	if (p == RFX_PROJ_ORT)
		ret = rfx_orfvar_ort(z, d, d, &var, err);
	else if (p == RFX_PROJ_ORF_PRIME)
		ret = rfx_orfvar_prime(z, d, d, &mean, &var, err);
	if (ret)
		return ret;
	memset(row, 0, sizeof(*row));
	snprintf(row->projection, sizeof(row->projection), "%s", rfx_proj_name(p));
	snprintf(row->curve, sizeof(row->curve), "exact");
	row->d = row->D = d;
	row->z = z;
	row->mean = mean;
	row->bias = mean - exp(-0.5 * z * z);
	row->var = var;
	row->ratio = var / vr;
	row->mse_ratio = (var + row->bias * row->bias) / vr;
	return RFX_OK;
}

static void limit_row(int d, double z, struct rfx_zc_row *row)
{
	memset(row, 0, sizeof(*row));
	snprintf(row->projection, sizeof(row->projection), "ort");
	snprintf(row->curve, sizeof(row->curve), "limit");
	row->d = row->D = d;
	row->z = z;
	row->mean = exp(-0.5 * z * z);
	row->ratio = rfx_orfvar_limit_ratio(z, d, d);
	row->mse_ratio = row->ratio;
	row->var = d > 0 ? row->ratio * rfx_orfvar_rff(z, d) : 0.0;
}

/* Cell t of the Monte Carlo sweep: dimension t / nproj, projection t % nproj. */
static int zc_cell(void *ctx, void *ws, size_t t, void *out,
		   struct rfx_err *err)
{
	const struct rfx_zc_config *c = ctx;

	(void)ws;
	return mc_rows(c, c->proj[t % (size_t)c->nproj],
		       c->d[t / (size_t)c->nproj], out, err);
}

int rfx_zc_run(const struct rfx_zc_config *c, struct rfx_zc_row *rows,
	       struct rfx_err *err)
{
	size_t nz = (size_t)c->nz, n = 0, k;
	int i, j, ret, total = c->nd * c->nproj;
	struct rfx_zc_row *buf;
	struct rfx_cells cells;

	ret = check(c, err);
	if (ret)
		return ret;
	/* the closed forms first: an inaccurate one fails before the draws */
	for (j = 0; j < c->nd; j++) {
		n += (size_t)c->nproj * nz;
		for (i = 0; i < c->nproj; i++) {
			if (!has_exact(c->proj[i]))
				continue;
			for (k = 0; k < nz; k++) {
				ret = exact_row(c->proj[i], c->d[j], c->z[k], &rows[n++],
						err);
				if (ret)
					return ret;
			}
		}
		for (k = 0; k < nz; k++)
			limit_row(c->d[j], c->z[k], &rows[n++]);
	}
	for (k = 0; k < nz; k++)
		limit_row(0, c->z[k], &rows[n++]);
	buf = calloc((size_t)total * nz, sizeof(*buf));
	if (!buf)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	cells = (struct rfx_cells){
		.name = "mse-table-vs-z",
		.n = (size_t)total,
		.size = nz * sizeof(*buf),
		.out = buf,
		.ctx = (void *)c,
		.compute = zc_cell,
		.inner_parallel = 1, /* each cell's chunks run in parallel */
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_blas_cells_run(&cells, err);
	n = 0;
	for (j = 0; j < c->nd && !ret; j++) {
		for (i = 0; i < c->nproj; i++)
			memcpy(&rows[n + (size_t)i * nz],
			       &buf[((size_t)j * (size_t)c->nproj + (size_t)i) * nz],
			       nz * sizeof(*buf));
		n += (size_t)(c->nproj + nexact(c) + 1) * nz;
	}
	free(buf);
	return ret;
}

/*
 * The clustered-data experiment (HRF appendix H): data, k-means, sorted
 * sets, then one task per (set, method, m, repetition) computing the
 * empirical MSE over all pairs from blocks of estimates, and one task per
 * (set, method) for the closed-form expectation. See clustered.h.
 */
#include "exp/clustered.h"
#include "base/suggest.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "num/blas.h"
#include "num/block.h"
#include "base/cancel.h"
#include "base/cells.h"
#include "num/kmeans.h"
#include "num/logmath.h"
#include "base/rng.h"

/* Rows of x's per block of estimates. */
#define BROWS 256
#define KMEANS_MAX_ITER 300
#define CODE_HYB 1000

/* Descriptions several of this file's tables share. */
#define DESC_SET \
	"data configuration id (--set)"
#define DESC_SIGMA \
	"cluster standard deviation sigma before scaling (the set's, or --sigma)"
#define DESC_METHOD \
	"estimator name, or hyb-cluster / hyb-gmix (the cluster-adapted hybrids)"
#define DESC_M \
	"random features per base estimator (the paper's number of random features)"

static const struct rfx_column rep_cols[] = {
	RFX_COL(rfx_cl_rep_row, set, RFX_COL_INT,
		DESC_SET),
	RFX_COL(rfx_cl_rep_row, sigma, RFX_COL_DOUBLE,
		DESC_SIGMA),
	RFX_COL(rfx_cl_rep_row, method, RFX_COL_STRING,
		DESC_METHOD),
	RFX_COL(rfx_cl_rep_row, m, RFX_COL_INT,
		DESC_M),
	RFX_COL(rfx_cl_rep_row, rep, RFX_COL_INT,
		"repetition index, 0-based"),
	RFX_COL(rfx_cl_rep_row, mse, RFX_COL_DOUBLE,
		"empirical MSE of the softmax-kernel estimates over all nx x ny pairs"),
	RFX_COL(rfx_cl_rep_row, log_mse, RFX_COL_DOUBLE,
		"natural log of mse"),
};

static const struct rfx_column sum_cols[] = {
	RFX_COL(rfx_cl_sum_row, set, RFX_COL_INT,
		DESC_SET),
	RFX_COL(rfx_cl_sum_row, sigma, RFX_COL_DOUBLE,
		DESC_SIGMA),
	RFX_COL(rfx_cl_sum_row, s, RFX_COL_STRING,
		"targets l* of the cluster pairs, comma-separated"),
	RFX_COL(rfx_cl_sum_row, method, RFX_COL_STRING,
		DESC_METHOD),
	RFX_COL(rfx_cl_sum_row, m, RFX_COL_INT,
		DESC_M),
	RFX_COL(rfx_cl_sum_row, reps, RFX_COL_INT,
		"repetitions summarised"),
	RFX_COL(rfx_cl_sum_row, mse_min, RFX_COL_DOUBLE,
		"smallest MSE over the repetitions (HRF Table 3)"),
	RFX_COL(rfx_cl_sum_row, mse_max, RFX_COL_DOUBLE,
		"largest MSE over the repetitions (HRF Table 3)"),
	RFX_COL(rfx_cl_sum_row, mse_mean, RFX_COL_DOUBLE,
		"mean MSE over the repetitions (HRF Fig 6)"),
	RFX_COL(rfx_cl_sum_row, mse_median, RFX_COL_DOUBLE,
		"median MSE over the repetitions"),
};

static const struct rfx_column exact_cols[] = {
	RFX_COL(rfx_cl_exact_row, set, RFX_COL_INT,
		DESC_SET),
	RFX_COL(rfx_cl_exact_row, sigma, RFX_COL_DOUBLE,
		DESC_SIGMA),
	RFX_COL(rfx_cl_exact_row, method, RFX_COL_STRING,
		DESC_METHOD),
	RFX_COL(rfx_cl_exact_row, m, RFX_COL_INT,
		DESC_M),
	RFX_COL(rfx_cl_exact_row, mse, RFX_COL_DOUBLE,
		"expected MSE over draws from the closed-form variances: sum over pairs of Var / (nx ny)"),
	RFX_COL(rfx_cl_exact_row, log_mse, RFX_COL_DOUBLE,
		"natural log of mse"),
};

static const struct rfx_column cluster_cols[] = {
	RFX_COL(rfx_cl_cluster_row, set, RFX_COL_INT,
		DESC_SET),
	RFX_COL(rfx_cl_cluster_row, sigma, RFX_COL_DOUBLE,
		DESC_SIGMA),
	RFX_COL(rfx_cl_cluster_row, i, RFX_COL_INT,
		"cluster of x in the pair, 1-based as in the paper"),
	RFX_COL(rfx_cl_cluster_row, j, RFX_COL_INT,
		"cluster of y in the pair, 1-based as in the paper"),
	RFX_COL(rfx_cl_cluster_row, s_target, RFX_COL_DOUBLE,
		"target l* of the pair"),
	RFX_COL(rfx_cl_cluster_row, s_means, RFX_COL_DOUBLE,
		"l* at the generating (scaled) cluster means"),
	RFX_COL(rfx_cl_cluster_row, s_centres, RFX_COL_DOUBLE,
		"l* at the k-means centres (the fitted hybrids' A)"),
	RFX_COL(rfx_cl_cluster_row, nx, RFX_COL_LONG,
		"points of x's cluster i after k-means"),
	RFX_COL(rfx_cl_cluster_row, ny, RFX_COL_LONG,
		"points of y's cluster j after k-means"),
	RFX_COL(rfx_cl_cluster_row, x_moved, RFX_COL_LONG,
		"x points k-means put in the other cluster"),
	RFX_COL(rfx_cl_cluster_row, y_moved, RFX_COL_LONG,
		"y points k-means put in the other cluster"),
	RFX_COL(rfx_cl_cluster_row, sm_min, RFX_COL_DOUBLE,
		"smallest softmax kernel exp(x.y) over the pair's points"),
	RFX_COL(rfx_cl_cluster_row, sm_mean, RFX_COL_DOUBLE,
		"mean softmax kernel exp(x.y) over the pair's points"),
	RFX_COL(rfx_cl_cluster_row, sm_max, RFX_COL_DOUBLE,
		"largest softmax kernel exp(x.y) over the pair's points"),
};

const struct rfx_schema rfx_cl_rep_schema = {
	"mse", "empirical MSE of softmax-kernel estimates over all pairs, per repetition",
	sizeof(struct rfx_cl_rep_row), RFX_NCOLS(rep_cols), rep_cols
};
const struct rfx_schema rfx_cl_sum_schema = {
	"table3", "empirical MSE over repetitions: min, max (HRF Table 3), mean (Fig 6), median",
	sizeof(struct rfx_cl_sum_row), RFX_NCOLS(sum_cols), sum_cols
};
const struct rfx_schema rfx_cl_exact_schema = {
	"exact", "expected MSE over all pairs from the closed-form variances",
	sizeof(struct rfx_cl_exact_row), RFX_NCOLS(exact_cols), exact_cols
};
const struct rfx_schema rfx_cl_cluster_schema = {
	"clusters", "pairs of clusters: s = l* targets and reached, k-means, softmax range",
	sizeof(struct rfx_cl_cluster_row), RFX_NCOLS(cluster_cols), cluster_cols
};

/* ---- methods ------------------------------------------------------- */

static const struct {
	const char *name;
	enum rfx_clushyb_kind kind;
} hybrids[] = {
	{ "hyb-cluster", RFX_CLUSHYB_ZERO_ONE },
	{ "hyb-gmix", RFX_CLUSHYB_GMIX },
};
#define NHYB ((int)(sizeof(hybrids) / sizeof(hybrids[0])))

int rfx_cl_accepts(const struct rfx_estimator_type *e)
{
	return !(e->params & RFX_P(RFX_PARAM_M1));
}

static int valid_names(char *buf, size_t n)
{
	const struct rfx_estimator_type *const *l = rfx_estimator_list();
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < NHYB && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? ", " : "",
					hybrids[k].name);
	for (k = 0; l[k] && len < n; k++)
		if (rfx_cl_accepts(l[k]))
			len += (size_t)snprintf(buf + len, n - len, ", %s", l[k]->name);
	return 0;
}

int rfx_cl_parse_methods(const char *list, struct rfx_cl_method *out, int max,
			 int *n, struct rfx_err *err)
{
	const struct rfx_estimator_type *const *reg = rfx_estimator_list();
	const char *p = list;
	char valid[400];

	*n = 0;
	if (!list || !*list)
		return rfx_error(err, RFX_EINVAL, "no methods given");
	valid_names(valid, sizeof(valid));
	/* "all", as every command's --method: the hybrids, then the registry */
	if (!strcmp(list, "all")) {
		int k, nreg = 0;

		while (reg[nreg])
			nreg++;
		for (k = 0; k < NHYB + nreg; k++) {
			struct rfx_cl_method mt;

			memset(&mt, 0, sizeof(mt));
			if (k < NHYB) {
				mt.name = hybrids[k].name;
				mt.kind = hybrids[k].kind;
				mt.code = CODE_HYB + k;
			} else if (rfx_cl_accepts(reg[k - NHYB])) {
				mt.e = reg[k - NHYB];
				mt.name = mt.e->name;
				mt.code = k - NHYB;
			} else {
				continue;
			}
			if (*n >= max)
				return rfx_error(err, RFX_EINVAL,
						 "more than %d methods", max);
			out[(*n)++] = mt;
		}
		return RFX_OK;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		struct rfx_cl_method mt;
		char name[64];
		int k, found = 0;

		if (len == 0 || len >= sizeof(name))
			return rfx_error(err, RFX_EINVAL,
					 "empty or overlong method name in '%s' (valid: %s)",
					 list, valid);
		memcpy(name, p, len);
		name[len] = '\0';
		memset(&mt, 0, sizeof(mt));
		for (k = 0; k < NHYB && !found; k++)
			if (!strcmp(name, hybrids[k].name)) {
				mt.name = hybrids[k].name;
				mt.kind = hybrids[k].kind;
				mt.code = CODE_HYB + k;
				found = 1;
			}
		for (k = 0; reg[k] && !found; k++)
			if (rfx_estimator_is(reg[k], name)) {
				if (!rfx_cl_accepts(reg[k]))
					return rfx_error(err, RFX_EINVAL,
							 "method '%s' has a two-part budget (m1, m3) and is not for clustered data (valid: %s)",
							 name, valid);
				mt.name = reg[k]->name;
				mt.e = reg[k];
				mt.code = k;
				found = 1;
			}
		if (!found && !strcmp(name, "all"))
			return rfx_error(err, RFX_EINVAL,
					 "'all' stands for every method and comes alone, not in a list");
		if (!found) {
			const char *names[64];
			char hint[96];
			size_t nn = 0;

			for (k = 0; k < NHYB; k++)
				names[nn++] = hybrids[k].name;
			for (k = 0; reg[k] && nn < sizeof(names) / sizeof(names[0]); k++)
				if (rfx_cl_accepts(reg[k]))
					names[nn++] = reg[k]->name;
			rfx_suggest_phrase(name, names, nn, hint, sizeof(hint));
			return rfx_error(err, RFX_EINVAL,
					 "unknown method '%s'%s (valid: %s)", name, hint,
					 valid);
		}
		for (k = 0; k < *n; k++)
			if (out[k].code == mt.code)
				return rfx_error(err, RFX_EINVAL, "method '%s' listed twice",
						 name);
		if (*n >= max)
			return rfx_error(err, RFX_EINVAL, "more than %d methods", max);
		out[(*n)++] = mt;
		if (!comma)
			break;
		p = comma + 1;
	}
	return RFX_OK;
}

/* ---- prepared sets ------------------------------------------------- */

struct cl_set {
	struct rfx_clusdata data;
	int d;
	size_t nx, ny;
	double *X, *Y;          /* sorted by k-means cluster */
	int *gx, *gy;           /* generating cluster of each sorted row */
	size_t xoff[3], yoff[3];
	double *Cx, *Cy;        /* 2 x d k-means centres */
	double *E;              /* nx x ny: exp(x_i . y_k - pmax_i) */
	double *pmax;           /* nx: max_k x_i . y_k */
	double *hx, *hy;        /* |x|^2/2, |y|^2/2 */
	struct rfx_clushyb *hyb[NHYB];
};

struct rfx_cl_state {
	const struct rfx_cl_config *c;
	struct cl_set *sets;
};

static void set_release(struct cl_set *S)
{
	int k;

	rfx_clusdata_release(&S->data);
	free(S->X);
	free(S->Y);
	free(S->gx);
	free(S->gy);
	free(S->Cx);
	free(S->Cy);
	free(S->E);
	free(S->pmax);
	free(S->hx);
	free(S->hy);
	for (k = 0; k < NHYB; k++)
		rfx_clushyb_free(S->hyb[k]);
}

void rfx_cl_free(struct rfx_cl_state *st)
{
	int s;

	if (!st)
		return;
	if (st->sets)
		for (s = 0; s < st->c->nsets; s++)
			set_release(&st->sets[s]);
	free(st->sets);
	free(st);
}

/*
 * Clusters the n points of X (n x d) with k-means, k = 2, and copies them
 * into out sorted by cluster (stable), with the generating cluster of each
 * (the first half of X is cluster 0), the centres and the offsets.
 */
static int cluster_side(const struct rfx_cl_config *c, int id, int side,
			const double *X, size_t n, int d, double *out, int *gen,
			double *centres, size_t off[3], struct rfx_err *err)
{
	struct rfx_kmeans *km = rfx_kmeans_alloc(n, d, 2);
	gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "clustered", .what = "kmeans", .i = (uint64_t)id,
		.j = (uint64_t)side });
	size_t i, pos[2];
	int ret;

	if (!km || !r) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for k-means");
		goto out;
	}
	ret = rfx_kmeans_fit(km, r, X, c->restarts, KMEANS_MAX_ITER, err);
	if (ret)
		goto out;
	off[0] = 0;
	off[1] = km->sizes[0];
	off[2] = n;
	pos[0] = 0;
	pos[1] = km->sizes[0];
	for (i = 0; i < n; i++) {
		size_t at = pos[km->labels[i]]++;

		memcpy(out + at * (size_t)d, X + i * (size_t)d, (size_t)d * sizeof(double));
		gen[at] = i < n / 2 ? 0 : 1;
	}
	memcpy(centres, km->centres, 2 * (size_t)d * sizeof(double));
out:
	rfx_kmeans_free(km);
	if (r)
		gsl_rng_free(r);
	return ret;
}

static int need_hybrid(const struct rfx_cl_config *c, int k)
{
	int q;

	for (q = 0; q < c->nmethods; q++)
		if (!c->methods[q].e && c->methods[q].code == CODE_HYB + k)
			return 1;
	return 0;
}

static int prepare_set(const struct rfx_cl_config *c, int s, struct cl_set *S,
		       struct rfx_err *err)
{
	const struct rfx_clusdata_config *dc = &c->sets[s];
	int ret, q, k, d;
	size_t dd, a;

	ret = rfx_clusdata_make(dc, &S->data, err);
	if (ret)
		return ret;
	for (q = 0; q < 4; q++)
		if (fabs(S->data.s[q] - dc->s[q]) > c->s_tol)
			return rfx_error(err, RFX_EINVAL,
					 "set %d: s = %g for clusters (%d, %d) is out of reach with these scales (closest %.4f, tolerance %g)",
					 dc->id, dc->s[q], 1 + (q >> 1), 1 + (q & 1),
					 S->data.s[q], c->s_tol);
	d = S->d = dc->d;
	dd = (size_t)d;
	S->nx = S->data.nx;
	S->ny = S->data.ny;
	S->X = malloc(S->nx * dd * sizeof(double));
	S->Y = malloc(S->ny * dd * sizeof(double));
	S->gx = malloc(S->nx * sizeof(int));
	S->gy = malloc(S->ny * sizeof(int));
	S->Cx = malloc(2 * dd * sizeof(double));
	S->Cy = malloc(2 * dd * sizeof(double));
	S->E = malloc(S->nx * S->ny * sizeof(double));
	S->pmax = malloc(S->nx * sizeof(double));
	S->hx = malloc(S->nx * sizeof(double));
	S->hy = malloc(S->ny * sizeof(double));
	if (!S->X || !S->Y || !S->gx || !S->gy || !S->Cx || !S->Cy || !S->E || !S->pmax ||
	    !S->hx || !S->hy)
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for set %d (%zu x %zu pairs)", dc->id,
				 S->nx, S->ny);
	ret = cluster_side(c, dc->id, 0, S->data.X, S->nx, d, S->X, S->gx, S->Cx,
			   S->xoff, err);
	if (!ret)
		ret = cluster_side(c, dc->id, 1, S->data.Y, S->ny, d, S->Y, S->gy,
				   S->Cy, S->yoff, err);
	if (ret)
		return ret;
	{
		int saved = rfx_blas_single_begin();

		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S->nx,
			    (int)S->ny, d, 1.0, S->X, d, S->Y, d, 0.0, S->E,
			    (int)S->ny);
		rfx_blas_single_end(saved);
	}
	/*
	 * The true SM = exp(x.y) as e^{pmax_i} times a row of values <= 1, so
	 * that it never overflows and the tasks need no exp of their own.
	 */
	for (a = 0; a < S->nx; a++) {
		double *e = S->E + a * S->ny, mx = -INFINITY;
		size_t j;

		for (j = 0; j < S->ny; j++)
			mx = e[j] > mx ? e[j] : mx;
		S->pmax[a] = mx;
		for (j = 0; j < S->ny; j++)
			e[j] = exp(e[j] - mx);
	}
	rfx_rownorms(S->X, S->nx, d, S->hx);
	rfx_rownorms(S->Y, S->ny, d, S->hy);
	for (q = 0; q < (int)S->nx; q++)
		S->hx[q] *= 0.5;
	for (q = 0; q < (int)S->ny; q++)
		S->hy[q] *= 0.5;
	for (k = 0; k < NHYB; k++) {
		if (!need_hybrid(c, k))
			continue;
		S->hyb[k] = rfx_clushyb_alloc(hybrids[k].kind, d, 2, 2, c->complex_a,
					      c->tau, c->e0);
		if (!S->hyb[k])
			return rfx_error(err, RFX_EINVAL,
					 "cannot set up %s (bandwidth %g, SM_0 %s)",
					 hybrids[k].name, c->tau,
					 c->e0 ? c->e0->name : "none");
		ret = rfx_clushyb_fit(S->hyb[k], S->Cx, S->Cy, S->X, S->nx, S->Y,
				      S->ny, 1, err);
		if (ret)
			return ret;
	}
	return RFX_OK;
}

int rfx_cl_prepare(const struct rfx_cl_config *c, struct rfx_cl_state **out,
		   struct rfx_err *err)
{
	struct rfx_cl_state *st;
	int s, ret = RFX_OK, k;

	*out = NULL;
	if (c->nsets < 1 || c->nmethods < 1 || c->nm < 1)
		return rfx_error(err, RFX_EINVAL, "no sets, methods or feature counts");
	if (c->reps < 1 || c->reps > 1000000)
		return rfx_error(err, RFX_EINVAL,
				 "repetitions must be in 1..1000000, got %d", c->reps);
	for (k = 0; k < c->nm; k++)
		if (c->m[k] < 1 || c->m[k] > RFX_CL_MAX_M)
			return rfx_error(err, RFX_EINVAL,
					 "feature counts must be in 1..%d, got %d",
					 RFX_CL_MAX_M, c->m[k]);
	if (c->restarts < 1 || c->n_lambda < 0 || !(c->s_tol >= 0.0))
		return rfx_error(err, RFX_EINVAL,
				 "k-means restarts >= 1, lambda features >= 0 and s tolerance >= 0 needed");
	for (s = 0; s < c->nsets; s++)
		if (c->sets[s].points < 2)
			return rfx_error(err, RFX_EINVAL,
					 "k-means needs 2 or more points per cluster, got %zu",
					 c->sets[s].points);
	st = calloc(1, sizeof(*st));
	if (!st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	st->c = c;
	st->sets = calloc((size_t)c->nsets, sizeof(*st->sets));
	if (!st->sets) {
		free(st);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	for (s = 0; s < c->nsets && !ret; s++) {
		if (rfx_cancel_requested())
			ret = rfx_error(err, RFX_EINTR, "interrupted");
		else
			ret = prepare_set(c, s, &st->sets[s], err);
	}
	if (ret) {
		rfx_cl_free(st);
		return ret;
	}
	*out = st;
	return RFX_OK;
}

void rfx_cl_set_size(const struct rfx_cl_state *st, int s, size_t *nx,
		     size_t *ny, int *d)
{
	*nx = st->sets[s].nx;
	*ny = st->sets[s].ny;
	*d = st->sets[s].d;
}

/* ---- one draw's estimates, block by block ---------------------------- */

/* The feature maps of one draw of one method on one set. */
struct cl_src {
	const struct cl_set *S;
	const struct rfx_cl_method *mt;
	struct rfx_clushyb_maps *maps;   /* hybrids */
	struct rfx_params p;             /* registry estimator */
	struct rfx_draw *w;
	struct rfx_featmat *F1, *F2;
	double *cf;                      /* registry: ny column factors */
	double cmax;                     /* the log-scale taken out of them */
};

static void src_release(struct cl_src *src)
{
	rfx_clushyb_maps_free(src->maps);
	rfx_params_release(&src->p);
	rfx_draw_free(src->w);
	rfx_featmat_free(src->F1);
	rfx_featmat_free(src->F2);
	free(src->cf);
}

static int hyb_index(const struct rfx_cl_method *mt)
{
	return mt->code - CODE_HYB;
}

/* Draws method mt at m features on set S from r; src is initialised here. */
static int src_draw(const struct rfx_cl_config *c, const struct cl_set *S,
		    const struct rfx_cl_method *mt, int m, const gsl_rng *r,
		    struct cl_src *src, struct rfx_err *err)
{
	int ret, D;

	memset(src, 0, sizeof(*src));
	src->S = S;
	src->mt = mt;
	rfx_params_init(&src->p, S->d);
	if (!mt->e) {
		const struct rfx_clushyb *h = S->hyb[hyb_index(mt)];

		src->maps = rfx_clushyb_maps_alloc(h, S->xoff, S->yoff, m,
						   c->n_lambda ? c->n_lambda : m, BROWS);
		if (!src->maps)
			return rfx_error(err, RFX_ENOMEM,
					 "out of memory for %s with m = %d", mt->name, m);
		return rfx_clushyb_maps_draw(src->maps, r, S->X, S->Y, err);
	}
	ret = mt->e->fit(&src->p, S->X, S->nx, S->Y, S->ny, m, err);
	if (ret)
		return ret;
	D = rfx_estimator_feature_dim(mt->e, &src->p, m);
	src->w = rfx_draw_alloc(S->d, D > m ? D : m);
	src->F1 = rfx_featmat_alloc(S->nx, D > m ? D : m);
	src->F2 = rfx_featmat_alloc(S->ny, D > m ? D : m);
	src->cf = malloc(S->ny * sizeof(double));
	if (!src->w || !src->F1 || !src->F2 || !src->cf)
		return rfx_error(err, RFX_ENOMEM, "out of memory for %s with m = %d",
				 mt->name, m);
	ret = mt->e->draw(r, RFX_PROJ_IID, &src->p, m, src->w, err);
	if (!ret)
		ret = mt->e->features(&src->p, src->w, 1, S->X, S->nx, m, src->F1, err);
	if (!ret)
		ret = mt->e->features(&src->p, src->w, 2, S->Y, S->ny, m, src->F2, err);
	if (!ret) {
		size_t k;

		src->cmax = -INFINITY;
		for (k = 0; k < S->ny; k++) {
			src->cf[k] = src->F2->lscale[k] + S->hy[k];
			src->cmax = src->cf[k] > src->cmax ? src->cf[k] : src->cmax;
		}
		for (k = 0; k < S->ny; k++)
			src->cf[k] = exp(src->cf[k] - src->cmax);
	}
	return ret;
}

/*
 * Estimates of SM for rows r0..r0+B-1 against every y in the separable
 * form of clushyb.h: est = val[a ny + k] cf(a)[k] e^{rs[a]}.
 */
static int src_block(struct cl_src *src, size_t r0, size_t B, double *val,
		     double *rs, struct rfx_err *err)
{
	const struct cl_set *S = src->S;
	size_t a;

	if (src->maps)
		return rfx_clushyb_maps_block(src->maps, r0, B, val, rs, err);
	rfx_featmat_gram(src->F1, r0, B, src->F2, 0, S->ny, val, S->ny);
	for (a = 0; a < B; a++)
		rs[a] = src->F1->lscale[r0 + a] + S->hx[r0 + a] + src->cmax;
	return RFX_OK;
}

/* The column factors of x row r. */
static const double *src_cf(const struct cl_src *src, size_t r)
{
	if (src->maps)
		return src->maps->cf +
		       (size_t)rfx_clushyb_row_cluster(src->maps, r) * src->S->ny;
	return src->cf;
}

/*
 * log sum_k (val_k cf_k e^{rs} - E_k e^{pm})^2 for one row (the estimates
 * against the truth exp(x.y) = E_k e^{pm}), scaled by the larger of the
 * two exponents so that nothing overflows: no exp per pair.
 */
RFX_SIMD_CLONES
static double row_log_sse(const double *val, const double *cf, double rs,
			  const double *E, double pm, size_t n)
{
	double s = rs > pm ? rs : pm, acc = 0.0, c1 = exp(rs - s), c2 = exp(pm - s);
	size_t k;

#pragma omp simd reduction(+ : acc)
	for (k = 0; k < n; k++) {
		double t = val[k] * cf[k] * c1 - E[k] * c2;

		acc += t * t;
	}
	return acc > 0.0 ? 2.0 * s + log(acc) : -INFINITY;
}

static gsl_rng *task_stream(const struct rfx_cl_config *c, int s, int k, int m,
			    int rep)
{
	return rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "clustered", .what = "draws", .name = { c->methods[k].name },
		.i = (uint64_t)c->sets[s].id, .j = ((uint64_t)m << 32) | (uint64_t)rep });
}

/*
 * What task_walk does with one block: rows r0..r0+B-1 of set S's X against
 * every y, estimates val[a ny + k] src_cf(src, r0 + a)[k] e^{ls[a]}.
 */
typedef int (*cl_visit)(void *ctx, const struct cl_set *S,
			const struct cl_src *src, size_t r0, size_t B,
			const double *val, const double *ls, struct rfx_err *err);

/*
 * Draws (set s, method k, m, rep) from its stream and hands the estimates
 * to visit, BROWS rows of X at a time; stops at the first error or an
 * interrupt.
 */
static int task_walk(const struct rfx_cl_state *st, int s, int k, int m,
		     int rep, cl_visit visit, void *ctx, struct rfx_err *err)
{
	const struct cl_set *S = &st->sets[s];
	struct cl_src src;
	double *val = malloc(BROWS * S->ny * sizeof(double));
	double *ls = malloc(BROWS * sizeof(double));
	gsl_rng *r = task_stream(st->c, s, k, m, rep);
	size_t r0;
	int ret;

	memset(&src, 0, sizeof(src));
	if (!val || !ls || !r) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	ret = src_draw(st->c, S, &st->c->methods[k], m, r, &src, err);
	for (r0 = 0; !ret && r0 < S->nx; r0 += BROWS) {
		size_t B = S->nx - r0 < BROWS ? S->nx - r0 : BROWS;

		if (rfx_cancel_requested()) {
			ret = rfx_error(err, RFX_EINTR, "interrupted");
			break;
		}
		ret = src_block(&src, r0, B, val, ls, err);
		if (!ret)
			ret = visit(ctx, S, &src, r0, B, val, ls, err);
	}
out:
	src_release(&src);
	free(val);
	free(ls);
	if (r)
		gsl_rng_free(r);
	return ret;
}

/* Adds each row's log squared error into the struct rfx_lse ctx. */
static int sse_visit(void *ctx, const struct cl_set *S,
		     const struct cl_src *src, size_t r0, size_t B,
		     const double *val, const double *ls, struct rfx_err *err)
{
	struct rfx_lse *tot = ctx;
	size_t a;

	(void)err;
	for (a = 0; a < B; a++)
		rfx_lse_add(tot, row_log_sse(val + a * S->ny, src_cf(src, r0 + a),
					     ls[a], S->E + (r0 + a) * S->ny,
					     S->pmax[r0 + a], S->ny));
	return RFX_OK;
}

/* The empirical log MSE of (set s, method k, m, rep). */
static int task_mse(const struct rfx_cl_state *st, int s, int k, int m, int rep,
		    double *log_mse, struct rfx_err *err)
{
	const struct cl_set *S = &st->sets[s];
	struct rfx_lse tot = { -INFINITY, 0.0 };
	int ret = task_walk(st, s, k, m, rep, sse_visit, &tot, err);

	*log_mse = rfx_lse_value(&tot) - log((double)S->nx * (double)S->ny);
	if (!ret && isnan(*log_mse))
		ret = rfx_error(err, RFX_ENUMERIC, "%s: the MSE is not a number",
				st->c->methods[k].name);
	return ret;
}

/* Writes the estimates into the nx x ny matrix ctx. */
static int est_visit(void *ctx, const struct cl_set *S,
		     const struct cl_src *src, size_t r0, size_t B,
		     const double *val, const double *ls, struct rfx_err *err)
{
	double *est = ctx;
	size_t e;

	(void)err;
	for (e = 0; e < B * S->ny; e++)
		est[r0 * S->ny + e] = val[e] * src_cf(src, r0 + e / S->ny)[e % S->ny] *
				      exp(ls[e / S->ny]);
	return RFX_OK;
}

int rfx_cl_estimates(struct rfx_cl_state *st, int s, int k, int m, int rep,
		     double *est, double *X, double *Y, struct rfx_err *err)
{
	const struct cl_set *S = &st->sets[s];
	int ret = task_walk(st, s, k, m, rep, est_visit, est, err);

	if (!ret && X)
		memcpy(X, S->X, S->nx * (size_t)S->d * sizeof(double));
	if (!ret && Y)
		memcpy(Y, S->Y, S->ny * (size_t)S->d * sizeof(double));
	return ret;
}

/* ---- closed-form expectation --------------------------------------- */

/*
 * log of sum over the pairs (rows r0.. of X x all of Y) of the SM-units
 * variance of e with parameters p at M = 1, added into tot.
 */
static int exact_rows(const struct rfx_estimator_type *e,
		      const struct rfx_params *p, const struct cl_set *S,
		      size_t x0, size_t x1, size_t y0, size_t y1, struct rfx_lse *tot,
		      struct rfx_err *err)
{
	size_t ny = y1 - y0, r0, a, k;
	struct rfx_block *b = rfx_block_alloc(S->d, BROWS, ny);
	double *out = malloc(BROWS * ny * sizeof(double));
	int ret = RFX_OK;

	if (!b || !out) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (r0 = x0; r0 < x1 && !ret; r0 += BROWS) {
		size_t B = x1 - r0 < BROWS ? x1 - r0 : BROWS;

		if (rfx_cancel_requested()) {
			ret = rfx_error(err, RFX_EINTR, "interrupted");
			break;
		}
		ret = rfx_estimator_block(e, p, b, S->X + r0 * (size_t)S->d, B,
					  S->Y + y0 * (size_t)S->d, ny, err);
		if (!ret)
			ret = e->log_variance(p, b, 1, out, err);
		for (a = 0; !ret && a < B; a++)
			for (k = 0; k < ny; k++)
				rfx_lse_add(tot, out[a * ny + k] + 2.0 * (S->hx[r0 + a] +
								      S->hy[y0 + k]));
	}
out:
	rfx_block_free(b);
	free(out);
	return ret;
}

/* log of the mean over pairs of the variance at m = 1; *has = 0 if none. */
static int task_exact(const struct rfx_cl_state *st, int s, int k, double *logc,
		      int *has, struct rfx_err *err)
{
	const struct cl_set *S = &st->sets[s];
	const struct rfx_cl_method *mt = &st->c->methods[k];
	struct rfx_lse tot = { -INFINITY, 0.0 };
	int ret = RFX_OK, q;

	*has = 1;
	if (mt->e) {
		struct rfx_params p;

		rfx_params_init(&p, S->d);
		ret = mt->e->fit(&p, S->X, S->nx, S->Y, S->ny, 1, err);
		if (!ret)
			ret = exact_rows(mt->e, &p, S, 0, S->nx, 0, S->ny, &tot, err);
		rfx_params_release(&p);
	} else if (mt->kind == RFX_CLUSHYB_ZERO_ONE) {
		const struct rfx_clushyb *h = S->hyb[hyb_index(mt)];

		for (q = 0; q < 4 && !ret; q++)
			ret = exact_rows(h->base, &h->p[q], S, S->xoff[q >> 1],
					 S->xoff[(q >> 1) + 1], S->yoff[q & 1],
					 S->yoff[(q & 1) + 1], &tot, err);
	} else {
		*has = 0;
		return RFX_OK;
	}
	*logc = rfx_lse_value(&tot) - log((double)S->nx * (double)S->ny);
	return ret;
}

/* ---- the run --------------------------------------------------------- */

size_t rfx_cl_rep_nrows(const struct rfx_cl_config *c)
{
	return (size_t)c->nsets * (size_t)c->nmethods * (size_t)c->nm * (size_t)c->reps;
}

size_t rfx_cl_sum_nrows(const struct rfx_cl_config *c)
{
	return (size_t)c->nsets * (size_t)c->nmethods * (size_t)c->nm;
}

size_t rfx_cl_exact_nrows(const struct rfx_cl_config *c)
{
	return c->exact ? rfx_cl_sum_nrows(c) : 0;
}

size_t rfx_cl_cluster_nrows(const struct rfx_cl_config *c)
{
	return 4 * (size_t)c->nsets;
}

static void fill_clusters(const struct rfx_cl_state *st, int s,
			  struct rfx_cl_cluster_row *rows)
{
	const struct cl_set *S = &st->sets[s];
	const struct rfx_clusdata_config *dc = &st->c->sets[s];
	long xm = 0, ym = 0;
	size_t a, k;
	int q;

	for (a = 0; a < S->nx; a++)
		xm += S->gx[a] != (a < S->xoff[1] ? 0 : 1);
	for (k = 0; k < S->ny; k++)
		ym += S->gy[k] != (k < S->yoff[1] ? 0 : 1);
	for (q = 0; q < 4; q++) {
		struct rfx_cl_cluster_row *row = &rows[q];
		int i = q >> 1, j = q & 1;
		double lo = INFINITY, hi = -INFINITY;
		struct rfx_lse sum = { -INFINITY, 0.0 };

		memset(row, 0, sizeof(*row));
		row->set = dc->id;
		row->sigma = dc->sigma;
		row->i = i + 1;
		row->j = j + 1;
		row->s_target = dc->s[q];
		row->s_means = S->data.s[q];
		row->s_centres = rfx_clushyb_loss_min(S->Cx + (size_t)i * (size_t)S->d,
						      S->Cy + (size_t)j * (size_t)S->d,
						      S->d);
		row->nx = (long)(S->xoff[i + 1] - S->xoff[i]);
		row->ny = (long)(S->yoff[j + 1] - S->yoff[j]);
		row->x_moved = xm;
		row->y_moved = ym;
		for (a = S->xoff[i]; a < S->xoff[i + 1]; a++)
			for (k = S->yoff[j]; k < S->yoff[j + 1]; k++) {
				double v = log(S->E[a * S->ny + k]) + S->pmax[a];

				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
				rfx_lse_add(&sum, v);
			}
		row->sm_min = exp(lo);
		row->sm_max = exp(hi);
		row->sm_mean = exp(rfx_lse_value(&sum) - log((double)row->nx * (double)row->ny));
	}
}

static void fill_sums(const struct rfx_cl_config *c, const double *lm,
		      struct rfx_cl_sum_row *sums, double *buf)
{
	int s, k, i, t;

	for (s = 0; s < c->nsets; s++)
		for (k = 0; k < c->nmethods; k++)
			for (i = 0; i < c->nm; i++) {
				size_t o = ((size_t)s * (size_t)c->nmethods + (size_t)k) *
					   (size_t)c->nm + (size_t)i;
				struct rfx_cl_sum_row *row = &sums[o];
				const double *v = lm + o * (size_t)c->reps;
				struct rfx_lse tot = { -INFINITY, 0.0 };
				double lo = INFINITY, hi = -INFINITY;

				memset(row, 0, sizeof(*row));
				row->set = c->sets[s].id;
				row->sigma = c->sets[s].sigma;
				snprintf(row->s, sizeof(row->s), "%g,%g,%g,%g",
					 c->sets[s].s[0], c->sets[s].s[1], c->sets[s].s[2],
					 c->sets[s].s[3]);
				snprintf(row->method, sizeof(row->method), "%s",
					 c->methods[k].name);
				row->m = c->m[i];
				row->reps = c->reps;
				for (t = 0; t < c->reps; t++) {
					lo = v[t] < lo ? v[t] : lo;
					hi = v[t] > hi ? v[t] : hi;
					rfx_lse_add(&tot, v[t]);
					buf[t] = v[t];
				}
				gsl_sort(buf, 1, (size_t)c->reps);
				row->mse_min = exp(lo);
				row->mse_max = exp(hi);
				row->mse_mean = exp(rfx_lse_value(&tot) - log((double)c->reps));
				row->mse_median = c->reps % 2 ? exp(buf[c->reps / 2]) :
					0.5 * (exp(buf[c->reps / 2 - 1]) + exp(buf[c->reps / 2]));
			}
}

/* A cell's result: a log MSE (Monte Carlo) or log mean variance (exact). */
struct cl_cell {
	double v;
	int has; /* the closed form exists */
};

/* Cells: the closed forms (set, method) first, then (set, method, m, rep). */
static int cl_cell(void *ctx, void *ws, size_t id, void *out,
		   struct rfx_err *err)
{
	const struct rfx_cl_state *st = ctx;
	const struct rfx_cl_config *c = st->c;
	size_t nexa = c->exact ? (size_t)c->nsets * (size_t)c->nmethods : 0;
	struct cl_cell *o = out;

	(void)ws;
	if (id < nexa)
		return task_exact(st, (int)(id / (size_t)c->nmethods),
				  (int)(id % (size_t)c->nmethods), &o->v, &o->has,
				  err);
	{
		size_t r = id - nexa;
		int rep = (int)(r % (size_t)c->reps);
		int mi = (int)(r / (size_t)c->reps % (size_t)c->nm);
		int k = (int)(r / ((size_t)c->reps * (size_t)c->nm) %
			      (size_t)c->nmethods);
		int si = (int)(r / ((size_t)c->reps * (size_t)c->nm *
				    (size_t)c->nmethods));

		return task_mse(st, si, k, c->m[mi], rep, &o->v, err);
	}
}

/*
 * Features times pairs; a closed form counts as the largest m, so the
 * long cells start first and spread first.
 */
static double cl_cost(void *ctx, size_t id)
{
	const struct rfx_cl_state *st = ctx;
	const struct rfx_cl_config *c = st->c;
	size_t nexa = c->exact ? (size_t)c->nsets * (size_t)c->nmethods : 0;
	int si, mi, mmax = 1, i;

	for (i = 0; i < c->nm; i++)
		mmax = c->m[i] > mmax ? c->m[i] : mmax;
	if (id < nexa) {
		si = (int)(id / (size_t)c->nmethods);
		mi = -1;
	} else {
		size_t r = id - nexa;

		mi = (int)(r / (size_t)c->reps % (size_t)c->nm);
		si = (int)(r / ((size_t)c->reps * (size_t)c->nm *
				(size_t)c->nmethods));
	}
	return (mi < 0 ? (double)mmax : (double)c->m[mi]) *
	       (double)st->sets[si].nx * (double)st->sets[si].ny;
}

int rfx_cl_run(struct rfx_cl_state *st, struct rfx_cl_rep_row *reps,
	       struct rfx_cl_sum_row *sums, struct rfx_cl_exact_row *exact,
	       size_t *nexact, struct rfx_cl_cluster_row *clusters,
	       struct rfx_err *err)
{
	const struct rfx_cl_config *c = st->c;
	size_t nrep = rfx_cl_rep_nrows(c), nsm = (size_t)c->nsets * (size_t)c->nmethods;
	size_t nexa = c->exact ? nsm : 0, ntask = nexa + nrep, t;
	struct cl_cell *res = calloc(ntask ? ntask : 1, sizeof(*res));
	double *lm = malloc((nrep ? nrep : 1) * sizeof(double));
	double *lc = calloc(nsm ? nsm : 1, sizeof(double));
	int *has = calloc(nsm ? nsm : 1, sizeof(int));
	double *buf = malloc((size_t)c->reps * sizeof(double));
	int ret = RFX_OK, s;
	struct rfx_cells cells;

	if (!res || !lm || !lc || !has || !buf) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu tasks", ntask);
		goto out;
	}
	cells = (struct rfx_cells){
		.name = "clustered",
		.n = ntask,
		.size = sizeof(*res),
		.out = res,
		.ctx = st,
		.cost = cl_cost,
		.compute = cl_cell,
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_blas_cells_run(&cells, err);
	if (ret)
		goto out;
	for (t = 0; t < nexa; t++) {
		lc[t] = res[t].v;
		has[t] = res[t].has;
	}
	for (t = 0; t < nrep; t++)
		lm[t] = res[nexa + t].v;
	for (t = 0; t < nrep; t++) {
		struct rfx_cl_rep_row *row = &reps[t];
		int rep = (int)(t % (size_t)c->reps);
		int mi = (int)(t / (size_t)c->reps % (size_t)c->nm);
		int k = (int)(t / ((size_t)c->reps * (size_t)c->nm) % (size_t)c->nmethods);
		int si = (int)(t / ((size_t)c->reps * (size_t)c->nm * (size_t)c->nmethods));

		memset(row, 0, sizeof(*row));
		row->set = c->sets[si].id;
		row->sigma = c->sets[si].sigma;
		snprintf(row->method, sizeof(row->method), "%s", c->methods[k].name);
		row->m = c->m[mi];
		row->rep = rep;
		row->log_mse = lm[t];
		row->mse = exp(lm[t]);
	}
	fill_sums(c, lm, sums, buf);
	*nexact = 0;
	for (t = 0; t < nexa; t++) {
		int i;

		if (!has[t])
			continue;
		for (i = 0; i < c->nm; i++) {
			struct rfx_cl_exact_row *row = &exact[(*nexact)++];

			memset(row, 0, sizeof(*row));
			row->set = c->sets[t / (size_t)c->nmethods].id;
			row->sigma = c->sets[t / (size_t)c->nmethods].sigma;
			snprintf(row->method, sizeof(row->method), "%s",
				 c->methods[t % (size_t)c->nmethods].name);
			row->m = c->m[i];
			row->log_mse = lc[t] - log((double)c->m[i]);
			row->mse = exp(row->log_mse);
		}
	}
	for (s = 0; s < c->nsets; s++)
		fill_clusters(st, s, clusters + 4 * (size_t)s);
out:
	free(res);
	free(lm);
	free(lc);
	free(has);
	free(buf);
	return ret;
}

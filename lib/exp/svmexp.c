/*
 * The ORF Table 2 experiment of svmexp.h: the three datasets' splits, the
 * float random-feature matrices built block by block from the fused
 * TrigRF map, one-vs-rest training and blockwise test classification,
 * and the mean and spread of the accuracy over draws.
 */
#include "exp/svmexp.h"
#include "base/suggest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>

#include "base/cancel.h"
#include "data/dataset.h"
#include "est/featmap.h"
#include "base/cells.h"
#include "base/rng.h"

/* Feature-map rows per block: about 2^20 doubles of each featmat array. */
#define BLOCK_ENTRIES (1u << 20)

/* The splits; n_train = 0: the dataset's separate test file. */
static const struct {
	const char *name;
	size_t n_train;
} splits[] = {
	{ "letter", 16000 },
	{ "usps", 0 },
	{ "mnist", 8000 },
	{ NULL, 0 }
};

static const struct {
	const char *name;
	enum rfx_proj proj;
} methods[] = {
	{ "RFF", RFX_PROJ_IID },
	{ "ORF", RFX_PROJ_ORT },
	{ "SORF", RFX_PROJ_SORF },
	{ NULL, RFX_PROJ_IID }
};

static const struct rfx_column cols[] = {
	RFX_COL(rfx_svmexp_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_svmexp_row, d, RFX_COL_INT,
		"input dimension after padding"),
	RFX_COL(rfx_svmexp_row, ratio, RFX_COL_INT,
		"D / d"),
	RFX_COL(rfx_svmexp_row, D, RFX_COL_INT,
		"projections (2D features)"),
	RFX_COL(rfx_svmexp_row, method, RFX_COL_STRING,
		"RFF, ORF or SORF"),
	RFX_COL(rfx_svmexp_row, projection, RFX_COL_STRING,
		RFX_DESC_PROJECTION),
	RFX_COL(rfx_svmexp_row, sigma, RFX_COL_DOUBLE,
		"Gaussian kernel bandwidth sigma"),
	RFX_COL(rfx_svmexp_row, C, RFX_COL_DOUBLE,
		"SVM cost parameter C"),
	RFX_COL(rfx_svmexp_row, n_train, RFX_COL_LONG,
		"training rows"),
	RFX_COL(rfx_svmexp_row, n_test, RFX_COL_LONG,
		"test rows"),
	RFX_COL(rfx_svmexp_row, seeds, RFX_COL_INT,
		"feature draws averaged"),
	RFX_COL(rfx_svmexp_row, acc_pct, RFX_COL_DOUBLE,
		"mean test accuracy over the draws, percent"),
	RFX_COL(rfx_svmexp_row, acc_pct_sd, RFX_COL_DOUBLE,
		"standard deviation (n - 1) of the test accuracy over the draws, percent"),
	RFX_COL(rfx_svmexp_row, unconverged, RFX_COL_INT,
		"binary SVMs that reached --max-iter, over all draws; a count"),
	RFX_COL(rfx_svmexp_row, max_epochs, RFX_COL_INT,
		"the most epochs a binary SVM took"),
};

const struct rfx_schema rfx_svmexp_schema = {
	"svm_classify",
	"linear SVM test accuracy on random Fourier features (ORF paper Table 2)",
	sizeof(struct rfx_svmexp_row), RFX_NCOLS(cols), cols
};

static const struct rfx_column cost_cols[] = {
	RFX_COL(rfx_svmexp_cost_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_svmexp_cost_row, D, RFX_COL_INT,
		"projections of the validation features (2D features)"),
	RFX_COL(rfx_svmexp_cost_row, C, RFX_COL_DOUBLE,
		"SVM cost parameter C"),
	RFX_COL(rfx_svmexp_cost_row, n_fit, RFX_COL_LONG,
		"rows the SVM was fitted on (80% of the training rows)"),
	RFX_COL(rfx_svmexp_cost_row, n_val, RFX_COL_LONG,
		"validation rows (the other 20%)"),
	RFX_COL(rfx_svmexp_cost_row, val_pct, RFX_COL_DOUBLE,
		"validation accuracy, percent"),
	RFX_COL(rfx_svmexp_cost_row, chosen, RFX_COL_INT,
		"1 for the C the run used, else 0"),
};

const struct rfx_schema rfx_svmexp_cost_schema = {
	"svm_cost",
	"validation accuracy of RFF features per C (80/20 split of the training rows)",
	sizeof(struct rfx_svmexp_cost_row), RFX_NCOLS(cost_cols), cost_cols
};

int rfx_svmexp_method_parse(const char *name, enum rfx_proj *out,
			    struct rfx_err *err)
{
	int k;

	for (k = 0; name && methods[k].name; k++)
		if (!strcasecmp(name, methods[k].name)) {
			*out = methods[k].proj;
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL, "unknown method '%s' (valid: %s)",
			 name ? name : "", RFX_SVMEXP_METHODS);
}

const char *rfx_svmexp_method_name(enum rfx_proj p)
{
	int k;

	for (k = 0; methods[k].name; k++)
		if (methods[k].proj == p)
			return methods[k].name;
	return "?";
}

void rfx_svmexp_data_release(struct rfx_svmexp_data *D)
{
	free(D->Xtr);
	free(D->Xte);
	free(D->ytr);
	free(D->yte);
	memset(D, 0, sizeof(*D));
}

/* Rows r0..r0+n-1 of ds into fresh arrays. */
static int take_rows(const struct rfx_dataset *ds, size_t r0, size_t n,
		     double **X, int **y, struct rfx_err *err)
{
	*X = malloc(n * (size_t)ds->d * sizeof(double));
	*y = malloc(n * sizeof(int));
	if (!*X || !*y)
		return rfx_error(err, RFX_ENOMEM, "out of memory splitting '%s'",
				 ds->name);
	memcpy(*X, ds->X + r0 * (size_t)ds->d, n * (size_t)ds->d * sizeof(double));
	memcpy(*y, ds->y + r0, n * sizeof(int));
	return RFX_OK;
}

static int pow2_at_least(int d)
{
	int p = 1;

	while (p < d)
		p *= 2;
	return p;
}

/*
 * The common tail of the loaders: training rows tr[0..n_train) and test
 * rows te (or tr[n_train..) when te is NULL), padded, cut to max_train
 * and max_test, and the bandwidth from the training rows. out->name and
 * out->id are set. tr and te stay the caller's.
 */
static int split_finish(struct rfx_dataset *tr, struct rfx_dataset *te,
			size_t n_train, size_t max_train, size_t max_test,
			int nn_k, size_t nn_sample, uint64_t seed,
			struct rfx_svmexp_data *out, struct rfx_err *err)
{
	struct rfx_dataset view;
	gsl_rng *r = NULL;
	int ret;

	out->d0 = tr->d;
	out->d = pow2_at_least(tr->d);
	if ((ret = rfx_dataset_pad(tr, out->d, err)) ||
	    (te && (ret = rfx_dataset_pad(te, out->d, err))))
		return ret;
	if (te) {
		out->n_train = tr->n;
		out->n_test = te->n;
		ret = take_rows(tr, 0, tr->n, &out->Xtr, &out->ytr, err);
		if (!ret)
			ret = take_rows(te, 0, te->n, &out->Xte, &out->yte, err);
		out->nclass = tr->nclass > te->nclass ? tr->nclass : te->nclass;
	} else {
		out->n_train = n_train;
		out->n_test = tr->n - n_train;
		ret = take_rows(tr, 0, out->n_train, &out->Xtr, &out->ytr, err);
		if (!ret)
			ret = take_rows(tr, out->n_train, out->n_test, &out->Xte,
					&out->yte, err);
		out->nclass = tr->nclass;
	}
	if (ret)
		return ret;
	if (max_train && max_train < out->n_train)
		out->n_train = max_train;
	if (max_test && max_test < out->n_test)
		out->n_test = max_test;
	/* the bandwidth from the training rows alone: the test rows stay unseen */
	view = *tr;
	view.X = out->Xtr;
	view.n = out->n_train;
	r = rfx_rng_alloc_key(seed, &(struct rfx_rng_key){
		.exp = "svm-classify", .what = "sigma", .name = { out->name } });
	if (!r)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_dataset_nn_sigma(&view, nn_k, nn_sample, r, &out->sigma, err);
	gsl_rng_free(r);
	return ret;
}

int rfx_svmexp_load(const char *name, const char *dir, size_t max_train,
		    size_t max_test, int nn_k, size_t nn_sample, uint64_t seed,
		    struct rfx_svmexp_data *out, struct rfx_err *err)
{
	struct rfx_dataset *tr = NULL, *te = NULL;
	int k, ret = RFX_OK;

	memset(out, 0, sizeof(*out));
	for (k = 0; splits[k].name && strcmp(splits[k].name, name ? name : ""); k++)
		;
	if (!splits[k].name) {
		char hint[96];

		rfx_suggest_phrase_list(name, RFX_SVMEXP_NAMES, hint, sizeof(hint));
		return rfx_error(err, RFX_EINVAL, "unknown dataset '%s'%s (valid: %s)",
				 name ? name : "", hint, RFX_SVMEXP_NAMES);
	}
	tr = rfx_dataset_load_labelled(name, dir, 0, err);
	if (!tr)
		return err->code;
	if (!splits[k].n_train) {
		te = rfx_dataset_load_labelled(name, dir, 1, err);
		if (!te) {
			ret = err->code;
			goto out;
		}
		if (te->d != tr->d) {
			ret = rfx_error(err, RFX_EFORMAT,
					"'%s': test inputs have %d columns, training %d",
					name, te->d, tr->d);
			goto out;
		}
	} else if (tr->n <= splits[k].n_train) {
		ret = rfx_error(err, RFX_EFORMAT,
				"'%s' has %zu rows, the split needs more than %zu", name,
				tr->n, splits[k].n_train);
		goto out;
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->id = rfx_dataset_index(name);
	ret = split_finish(tr, te, splits[k].n_train, max_train, max_test, nn_k,
			   nn_sample, seed, out, err);
out:
	rfx_dataset_free(tr);
	rfx_dataset_free(te);
	if (ret)
		rfx_svmexp_data_release(out);
	return ret;
}

int rfx_svmexp_from(const char *name, int id, const double *X, const int *y,
		    size_t n, int d0, int nclass, size_t max_train,
		    size_t max_test, int nn_k, size_t nn_sample, uint64_t seed,
		    struct rfx_svmexp_data *out, struct rfx_err *err)
{
	struct rfx_dataset *tr;
	size_t *perm = NULL, k, n_train = n * 4 / 5;
	int ret;
	gsl_rng *r;

	memset(out, 0, sizeof(*out));
	if (n_train < 2 || n - n_train < 1)
		return rfx_error(err, RFX_EFORMAT,
				 "'%s' has %zu rows, too few for an 80/20 split", name, n);
	tr = rfx_dataset_from(name, X, n, d0, err);
	if (!tr)
		return err->code;
	perm = malloc(n * sizeof(size_t));
	tr->y = malloc(n * sizeof(int));
	r = rfx_rng_alloc_key(seed, &(struct rfx_rng_key){
		.exp = "svm-classify", .what = "user-split", .name = { name } });
	if (!perm || !tr->y || !r) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory splitting '%s'", name);
		goto out;
	}
	/* a seeded shuffle: a file sorted by class must not test one class */
	for (k = 0; k < n; k++)
		perm[k] = k;
	gsl_ran_shuffle(r, perm, n, sizeof(size_t));
	for (k = 0; k < n; k++) {
		memcpy(tr->X + k * (size_t)d0, X + perm[k] * (size_t)d0,
		       (size_t)d0 * sizeof(double));
		tr->y[k] = y[perm[k]];
	}
	tr->nclass = nclass;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->id = id;
	ret = split_finish(tr, NULL, n_train, max_train, max_test, nn_k, nn_sample,
			   seed, out, err);
out:
	if (r)
		gsl_rng_free(r);
	free(perm);
	rfx_dataset_free(tr);
	if (ret)
		rfx_svmexp_data_release(out);
	return ret;
}

static size_t train_bytes(const struct rfx_svmexp_data *D, int ratio)
{
	return D->n_train * 2 * (size_t)ratio * (size_t)D->d * sizeof(float);
}

int rfx_svmexp_plan(const struct rfx_svmexp_config *c, struct rfx_err *err)
{
	const struct rfx_svmexp_data *D = c->data;
	int k;

	if (c->seeds < 1)
		return rfx_error(err, RFX_EINVAL, "seeds must be at least 1, got %d",
				 c->seeds);
	if (c->nratio < 1 || c->nmethods < 1)
		return rfx_error(err, RFX_EINVAL, "no ratios or no methods");
	for (k = 0; k < c->nratio; k++) {
		if (c->ratio[k] < 1 || c->ratio[k] > 4096)
			return rfx_error(err, RFX_EINVAL,
					 "D/d must be an integer in 1..4096, got %d",
					 c->ratio[k]);
		if (c->max_bytes && train_bytes(D, c->ratio[k]) > c->max_bytes)
			return rfx_error(err, RFX_EINVAL,
					 "%s at D = %dd: the training features take %.1f MB, "
					 "more than the limit of %.1f MB",
					 D->name, c->ratio[k],
					 train_bytes(D, c->ratio[k]) / 1048576.0,
					 c->max_bytes / 1048576.0);
	}
	for (k = 0; k < c->nmethods; k++)
		if (c->proj[k] != RFX_PROJ_IID && c->proj[k] != RFX_PROJ_ORT &&
		    c->proj[k] != RFX_PROJ_SORF)
			return rfx_error(err, RFX_EINVAL,
					 "projection '%s' is not one of Table 2's",
					 rfx_proj_name(c->proj[k]));
	if (!(c->svm.C > 0.0) || !isfinite(c->svm.C))
		return rfx_error(err, RFX_EINVAL, "C must be positive, got %g",
				 c->svm.C);
	return RFX_OK;
}

/*
 * The features z of svmexp.h for the n inputs X (n x d, already divided
 * by sigma) into Z (n x 2D floats), BR rows at a time through F.
 */
static void features(struct rfx_featmat *F, size_t BR,
		     const struct rfx_draw *w, const double *X, size_t n, int d,
		     int D, float *Z)
{
	const double s = 1.0 / sqrt((double)D);
	size_t i0;

	for (i0 = 0; i0 < n; i0 += BR) {
		long cnt = (long)(n - i0 < BR ? n - i0 : BR), i;

		rfx_featmat_trig(F, w, X + i0 * (size_t)d, (size_t)cnt, D, 1.0, 0.0);
#pragma omp parallel for schedule(static)
		for (i = 0; i < cnt; i++) {
			float *z = Z + (i0 + (size_t)i) * 2 * (size_t)D;
			const double *re = F->re + (size_t)i * (size_t)D;
			const double *im = F->im + (size_t)i * (size_t)D;
			int j;

			for (j = 0; j < D; j++) {
				z[j] = (float)(re[j] * s);
				z[D + j] = (float)(im[j] * s);
			}
		}
	}
}

/* X / sigma, a new array. */
static double *scaled(const double *X, size_t n, int d, double sigma)
{
	double *Y = malloc(n * (size_t)d * sizeof(double));
	size_t i;

	if (Y)
		for (i = 0; i < n * (size_t)d; i++)
			Y[i] = X[i] / sigma;
	return Y;
}

/* Cell buffers, sized for the largest D of the run. */
struct cell_ws {
	struct rfx_draw *w;
	struct rfx_featmat *F;
	size_t BR;
	float *Z, *Zt;          /* training features; one test block */
	double *W;              /* K x (2D + 1) */
	int *pred;
	struct rfx_svm_stats *st;
	double *acc;            /* per draw */
};

static void cell_ws_free(struct cell_ws *b)
{
	rfx_draw_free(b->w);
	rfx_featmat_free(b->F);
	free(b->Z);
	free(b->Zt);
	free(b->W);
	free(b->pred);
	free(b->st);
	free(b->acc);
}

static int cell_ws_alloc(struct cell_ws *b, const struct rfx_svmexp_data *Dd,
			 int D, int seeds)
{
	size_t n2 = 2 * (size_t)D;

	memset(b, 0, sizeof(*b));
	b->BR = BLOCK_ENTRIES / (size_t)D;
	b->BR = b->BR < 64 ? 64 : b->BR;
	b->w = rfx_draw_alloc(Dd->d, D);
	b->F = rfx_featmat_alloc(b->BR, D);
	b->Z = malloc(Dd->n_train * n2 * sizeof(float));
	b->Zt = malloc(b->BR * n2 * sizeof(float));
	b->W = malloc((size_t)Dd->nclass * (n2 + 1) * sizeof(double));
	b->pred = malloc(b->BR * sizeof(int));
	b->st = malloc((size_t)Dd->nclass * sizeof(*b->st));
	b->acc = malloc((size_t)seeds * sizeof(double));
	if (!b->w || !b->F || !b->Z || !b->Zt || !b->W || !b->pred || !b->st ||
	    !b->acc) {
		cell_ws_free(b);
		return -1;
	}
	return 0;
}

/* One draw of one cell: the test accuracy in percent into *acc. */
static int one_draw(const struct rfx_svmexp_config *c, const double *Xtr,
		    const double *Xte, enum rfx_proj proj, int D, int s,
		    struct cell_ws *b, struct rfx_svmexp_row *row, double *acc,
		    struct rfx_err *err)
{
	const struct rfx_svmexp_data *Dd = c->data;
	const int n2 = 2 * D;
	gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "svm-classify", .what = "projections",
		.name = { Dd->name, rfx_proj_name(proj) }, .i = (uint64_t)D,
		.j = (uint64_t)s });
	size_t i0, correct = 0, i;
	int ret, k;

	if (!r)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_draw_gaussian(r, proj, NULL, D, b->w, err);
	gsl_rng_free(r);
	if (ret)
		return ret;
	features(b->F, b->BR, b->w, Xtr, Dd->n_train, Dd->d, D, b->Z);
	ret = rfx_svm_train_ovr(b->Z, Dd->n_train, n2, Dd->ytr, Dd->nclass, &c->svm,
				c->seed, &(struct rfx_rng_key){
					.exp = "svm-classify", .what = "visits",
					.name = { Dd->name, rfx_proj_name(proj) },
					.i = (uint64_t)D << 32 | (uint64_t)s },
				b->W, b->st, err);
	if (ret)
		return ret;
	for (k = 0; k < Dd->nclass; k++) {
		row->unconverged += !b->st[k].converged;
		if (b->st[k].epochs > row->max_epochs)
			row->max_epochs = b->st[k].epochs;
	}
	for (i0 = 0; i0 < Dd->n_test; i0 += b->BR) {
		size_t cnt = Dd->n_test - i0 < b->BR ? Dd->n_test - i0 : b->BR;

		features(b->F, b->BR, b->w, Xte + i0 * (size_t)Dd->d, cnt, Dd->d, D,
			 b->Zt);
		rfx_svm_predict(b->W, Dd->nclass, n2, c->svm.bias, b->Zt, cnt, b->pred);
		for (i = 0; i < cnt; i++)
			correct += b->pred[i] == Dd->yte[i0 + i];
	}
	*acc = 100.0 * (double)correct / (double)Dd->n_test;
	return RFX_OK;
}

/* The sweep: cells (ratio q, method m, draw s), draw fastest. */
struct svm_sweep {
	const struct rfx_svmexp_config *c;
	const double *Xtr, *Xte;  /* scaled by sigma */
};

/* A draw's result: its accuracy and its SVMs' convergence. */
struct svm_cell {
	double acc;
	int unconverged, max_epochs;
};

static double svm_cost(void *ctx, size_t t)
{
	const struct svm_sweep *sw = ctx;
	const struct rfx_svmexp_config *c = sw->c;

	return (double)c->ratio[t / ((size_t)c->nmethods * (size_t)c->seeds)];
}

static int svm_cell(void *ctx, void *ws, size_t t, void *out,
		    struct rfx_err *err)
{
	const struct svm_sweep *sw = ctx;
	const struct rfx_svmexp_config *c = sw->c;
	const struct rfx_svmexp_data *Dd = c->data;
	size_t ms = (size_t)c->nmethods * (size_t)c->seeds;
	int q = (int)(t / ms), m = (int)(t / (size_t)c->seeds % (size_t)c->nmethods);
	int s = (int)(t % (size_t)c->seeds), D = c->ratio[q] * Dd->d, ret;
	struct svm_cell *o = out;
	struct rfx_svmexp_row row;
	struct cell_ws b;

	(void)ws;
	if (cell_ws_alloc(&b, Dd, D, c->seeds))
		return rfx_error(err, RFX_ENOMEM, "out of memory for %s at D = %d",
				 Dd->name, D);
	memset(&row, 0, sizeof(row));
	ret = one_draw(c, sw->Xtr, sw->Xte, c->proj[m], D, s, &b, &row, &o->acc,
		       err);
	o->unconverged = row.unconverged;
	o->max_epochs = row.max_epochs;
	cell_ws_free(&b);
	return ret;
}

int rfx_svmexp_run(const struct rfx_svmexp_config *c,
		   struct rfx_svmexp_row *rows, struct rfx_err *err)
{
	const struct rfx_svmexp_data *Dd = c->data;
	double *Xtr = NULL, *Xte = NULL;
	int q, m, s, ret;
	struct svm_cell *res = NULL;
	struct svm_sweep sw;
	struct rfx_cells cells;
	size_t ncell = (size_t)c->nratio * (size_t)c->nmethods * (size_t)c->seeds;

	if ((ret = rfx_svmexp_plan(c, err)))
		return ret;
	Xtr = scaled(Dd->Xtr, Dd->n_train, Dd->d, Dd->sigma);
	Xte = scaled(Dd->Xte, Dd->n_test, Dd->d, Dd->sigma);
	res = calloc(ncell ? ncell : 1, sizeof(*res));
	if (!Xtr || !Xte || !res) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	sw.c = c;
	sw.Xtr = Xtr;
	sw.Xte = Xte;
	cells = (struct rfx_cells){
		.name = "svm-classify",
		.n = ncell,
		.size = sizeof(*res),
		.out = res,
		.ctx = &sw,
		.cost = svm_cost,
		.compute = svm_cell,
		.standalone = !c->picked,
		.inner_parallel = 1, /* a draw's classes run in parallel */
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_cells_run(&cells, err);
	for (q = 0; q < c->nratio && !ret; q++) {
		int D = c->ratio[q] * Dd->d;

		for (m = 0; m < c->nmethods; m++) {
			struct rfx_svmexp_row *row = &rows[q * c->nmethods + m];
			const struct svm_cell *r =
				&res[((size_t)q * (size_t)c->nmethods + (size_t)m) *
				     (size_t)c->seeds];
			double mean = 0.0, ss = 0.0;

			memset(row, 0, sizeof(*row));
			snprintf(row->dataset, sizeof(row->dataset), "%s", Dd->name);
			snprintf(row->method, sizeof(row->method), "%s",
				 rfx_svmexp_method_name(c->proj[m]));
			snprintf(row->projection, sizeof(row->projection), "%s",
				 rfx_proj_name(c->proj[m]));
			row->d = Dd->d;
			row->ratio = c->ratio[q];
			row->D = D;
			row->sigma = Dd->sigma;
			row->C = c->svm.C;
			row->n_train = (long)Dd->n_train;
			row->n_test = (long)Dd->n_test;
			row->seeds = c->seeds;
			for (s = 0; s < c->seeds; s++) {
				row->unconverged += r[s].unconverged;
				if (r[s].max_epochs > row->max_epochs)
					row->max_epochs = r[s].max_epochs;
			}
			/* two passes: the mean, then squares about it */
			for (s = 0; s < c->seeds; s++)
				mean += r[s].acc;
			mean /= c->seeds;
			for (s = 0; s < c->seeds; s++)
				ss += (r[s].acc - mean) * (r[s].acc - mean);
			row->acc_pct = mean;
			row->acc_pct_sd = c->seeds > 1 ? sqrt(ss / (c->seeds - 1)) : 0.0;
		}
	}
out:
	free(res);
	free(Xtr);
	free(Xte);
	return ret;
}

int rfx_svmexp_pick_cost(const struct rfx_svmexp_config *c, const double *grid,
			 int ngrid, double *best, double *val,
			 struct rfx_err *err)
{
	static const enum rfx_proj iid = RFX_PROJ_IID;
	const struct rfx_svmexp_data *D = c->data;
	struct rfx_svmexp_data v = *D;
	struct rfx_svmexp_config vc = *c;
	struct rfx_svmexp_row row;
	int k, b = 0, ret;

	if (ngrid < 1 || D->n_train < 10 || c->nratio < 1)
		return rfx_error(err, RFX_EINVAL,
				 "validating C needs a grid, a ratio and 10 training rows");
	/* the view: fit rows first, validation rows in the place of the test */
	v.n_train = D->n_train - D->n_train / 5;
	v.n_test = D->n_train / 5;
	v.Xte = D->Xtr + v.n_train * (size_t)D->d;
	v.yte = D->ytr + v.n_train;
	vc.data = &v;
	vc.nratio = 1;
	vc.nmethods = 1;
	vc.proj = &iid;
	vc.seeds = 1;
	vc.progress = NULL;
	for (k = 0; k < ngrid; k++) {
		vc.svm.C = grid[k];
		if ((ret = rfx_svmexp_run(&vc, &row, err)))
			return ret;
		val[k] = row.acc_pct;
		if (k == 0 || val[k] > val[b] ||
		    (val[k] == val[b] && grid[k] < grid[b]))
			b = k;
	}
	*best = grid[b];
	return RFX_OK;
}

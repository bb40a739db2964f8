/*
 * MSE tables (see msetable.h): planning the budgets of every cell, then
 * the repetitions of all cells in parallel, each sampling its pairs and
 * drawing its estimators from streams of its own, then the summaries.
 */
#include "exp/msetable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "num/blas.h"
#include "num/block.h"
#include "base/cancel.h"
#include "base/cells.h"
#include "eval/cost.h"
#include "num/gemm.h"
#include "num/logmath.h"
#include "num/ssq.h"
#include "eval/montecarlo.h"
#include "base/rng.h"

static const struct rfx_column mse_cols[] = {
	RFX_COL(rfx_mse_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_mse_row, norm, RFX_COL_STRING,
		"normalisation applied to the dataset's inputs (--norm)"),
	RFX_COL(rfx_mse_row, method, RFX_COL_STRING,
		"method label: estimator and projection as listed in --method"),
	RFX_COL(rfx_mse_row, estimator, RFX_COL_STRING,
		"estimator name from the registry"),
	RFX_COL(rfx_mse_row, projection, RFX_COL_STRING,
		RFX_DESC_PROJECTION),
	RFX_COL(rfx_mse_row, d, RFX_COL_INT,
		"input dimension after padding"),
	RFX_COL(rfx_mse_row, B, RFX_COL_INT,
		"feature budget of the baseline (features)"),
	RFX_COL(rfx_mse_row, ratio, RFX_COL_DOUBLE,
		"B / d"),
	RFX_COL(rfx_mse_row, M, RFX_COL_INT,
		"the method's own budget (features) at budget B"),
	RFX_COL(rfx_mse_row, m1, RFX_COL_INT,
		"hybrid methods' m1 feature count (0 for the others)"),
	RFX_COL(rfx_mse_row, m3, RFX_COL_INT,
		"hybrid methods' m3 feature count (0 for the others)"),
	RFX_COL(rfx_mse_row, flops, RFX_COL_DOUBLE,
		"floating-point operations of the method's feature map for one input (lib/eval/cost.h)"),
	RFX_COL(rfx_mse_row, sigma, RFX_COL_DOUBLE,
		"kernel bandwidth sigma: inputs are used as x / sigma"),
	RFX_COL(rfx_mse_row, pairs, RFX_COL_LONG,
		"pairs (x_i, x_j) sampled per repetition (P)"),
	RFX_COL(rfx_mse_row, draws, RFX_COL_LONG,
		"estimators drawn per repetition (S)"),
	RFX_COL(rfx_mse_row, reps, RFX_COL_LONG,
		"repetitions (R)"),
	RFX_COL(rfx_mse_row, kernel_mean, RFX_COL_DOUBLE,
		"mean exact kernel value over all pairs"),
	RFX_COL(rfx_mse_row, mse, RFX_COL_DOUBLE,
		"mean over repetitions of the mean squared error of the kernel estimates"),
	RFX_COL(rfx_mse_row, mse_sd, RFX_COL_DOUBLE,
		"standard deviation of the MSE over repetitions"),
	RFX_COL(rfx_mse_row, mse_se, RFX_COL_DOUBLE,
		"standard error of mse, mse_sd / sqrt(reps)"),
	RFX_COL(rfx_mse_row, mse_iid, RFX_COL_DOUBLE,
		"closed-form MSE of the same estimator on iid projections, averaged over the same pairs"),
};

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
	int ret, has_proj;

	if (eq && (eq == spec || (size_t)(eq - spec) >= sizeof(m->label)))
		return rfx_error(err, RFX_EINVAL,
				 "bad method label in '%s' (1 to %d characters)", spec,
				 (int)sizeof(m->label) - 1);
	if (len == 0 || len >= sizeof(name))
		return rfx_error(err, RFX_EINVAL, "no estimator in method '%s'", spec);
	memcpy(name, body, len);
	name[len] = '\0';
	m->proj = RFX_PROJ_IID;
	/* "orf" and "sorf" name their projections (rfx_estimator_find_proj) */
	m->e = rfx_estimator_find_proj(name, &m->proj, &has_proj, err);
	if (!m->e)
		return RFX_EINVAL;
	if (colon) {
		enum rfx_proj implied = m->proj;

		ret = rfx_proj_parse(colon + 1, &m->proj, err);
		if (ret)
			return ret;
		if (has_proj && m->proj != implied)
			return rfx_error(err, RFX_EINVAL,
					 "method '%s' names projection %s, not %s", spec,
					 rfx_proj_name(implied), rfx_proj_name(m->proj));
	}
	if (eq)
		snprintf(m->label, sizeof(m->label), "%.*s", (int)(eq - spec), spec);
	else if ((size_t)snprintf(m->label, sizeof(m->label), "%s:%s", m->e->name,
				  rfx_proj_name(m->proj)) >= sizeof(m->label))
		return rfx_error(err, RFX_EINVAL, "method name '%s' too long", spec);
	return RFX_OK;
}

void rfx_mse_inputs_release(struct rfx_mse_inputs *in)
{
	int k;

	for (k = 0; k < in->nowned; k++)
		rfx_dataset_free(in->owned[k]);
	free(in->owned);
	free(in->data);
	memset(in, 0, sizeof(*in));
}

/* The bandwidth of ds: c->sigma, or the mean nn distance (ORF sec. 5). */
static int bandwidth(const struct rfx_mse_inputs_config *c,
		     const struct rfx_dataset *ds, const char *key, double *sigma,
		     struct rfx_err *err)
{
	gsl_rng *r;
	int ret;

	if (c->sigma_attention) {
		*sigma = pow((double)ds->d, 0.25);
		return RFX_OK;
	}
	if (c->sigma > 0.0) {
		*sigma = c->sigma;
		return RFX_OK;
	}
	r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "mse-table", .what = "sigma", .name = { key[0] ? key : ds->name } });
	if (!r)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_dataset_nn_sigma(ds, c->nn_k, c->nn_sample, r, sigma, err);
	gsl_rng_free(r);
	return ret;
}

int rfx_mse_inputs_load(const struct rfx_mse_inputs_config *c,
			struct rfx_mse_inputs *in, struct rfx_err *err)
{
	size_t ncopies = (size_t)c->ndatasets * (size_t)c->nnorms;
	struct rfx_dataset *raw = NULL;
	int k, j, q, ret = RFX_OK;

	memset(in, 0, sizeof(*in));
	in->owned = calloc(ncopies ? ncopies : 1, sizeof(*in->owned));
	in->data = calloc(ncopies * (size_t)c->nscales + 1, sizeof(*in->data));
	if (!in->owned || !in->data) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < c->ndatasets; k++) {
		const struct rfx_matrix *m = c->files ? c->files[k] : NULL;
		/* a user's file: an id past the catalogue's (entries group by id) */
		int id = m ? 100 + k : rfx_dataset_index(c->datasets[k]);
		char key[24] = ""; /* a user file's streams: its rows, not its name */

		if (m) {
			uint64_t h = rfx_rng_hash_bytes(0, &m->rows, sizeof(m->rows));

			h = rfx_rng_hash_bytes(h, &m->cols, sizeof(m->cols));
			h = rfx_rng_hash_bytes(h, m->x, m->rows * m->cols * sizeof(double));
			snprintf(key, sizeof(key), "rows-%016llx", (unsigned long long)h);
		}

		raw = m ? rfx_dataset_from(c->datasets[k], m->x, m->rows, m->cols, err)
			: rfx_dataset_load(c->datasets[k], c->dir, err);
		if (!raw) {
			ret = err && err->code ? err->code : RFX_EIO;
			goto out;
		}
		for (j = 0; j < c->nnorms; j++) {
			struct rfx_dataset *ds = rfx_dataset_from(raw->name, raw->X,
								  raw->n, raw->d, err);
			double base; /* the bandwidth before the factors */

			if (!ds) {
				ret = RFX_ENOMEM;
				goto out;
			}
			in->owned[in->nowned++] = ds;
			rfx_dataset_normalize(ds, c->norms[j]);
			ret = c->pad_pow2
				      ? rfx_dataset_pad(ds, 1 << (int)ceil(log2((double)ds->d)),
							err)
				      : RFX_OK;
			if (!ret)
				ret = bandwidth(c, ds, key, &base, err);
			if (ret)
				goto out;
			for (q = 0; q < c->nscales; q++) {
				struct rfx_mse_data *dd = &in->data[in->ndata++];

				dd->ds = ds;
				dd->norm = rfx_norm_name(c->norms[j]);
				dd->sigma = base * c->scales[q];
				dd->id = id;
				snprintf(dd->key, sizeof(dd->key), "%s", key);
			}
		}
		rfx_dataset_free(raw);
		raw = NULL;
	}
out:
	rfx_dataset_free(raw);
	if (ret)
		rfx_mse_inputs_release(in);
	return ret;
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
			return rfx_error(err, RFX_EFORMAT,
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

/*
 * The closed-form variance of the fitted estimator on iid projections for
 * each pair (X[k], Y[k]), times fac[k]^2, averaged, for each of the nb
 * budgets M[b] into out[b]: one block over all P x P combinations, of
 * which the diagonal is used, shared by the budgets.
 */
static int iid_mse(const struct rfx_mse_method *m, const struct rfx_params *p,
		   const int *M, int nb, const double *X, const double *Y,
		   size_t P, const double *fac, double *out, struct rfx_err *err)
{
	struct rfx_block *b = rfx_block_alloc(p->d, P, P);
	double *lv = malloc(P * P * sizeof(double));
	size_t k;
	int ret, q;

	if (!b || !lv) {
		rfx_block_free(b);
		free(lv);
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu pairs", P);
	}
	ret = rfx_estimator_block(m->e, p, b, X, P, Y, P, err);
	for (q = 0; !ret && q < nb; q++) {
		double s = 0.0;

		ret = m->e->log_variance(p, b, M[q], lv, err);
		for (k = 0; !ret && k < P; k++)
			s += exp(lv[k * P + k] + 2.0 * log(fac[k]));
		if (!ret && !isfinite(s))
			ret = rfx_error(err, RFX_ENUMERIC,
					"%s: closed-form variances exceed double range",
					m->label);
		out[q] = s / (double)P;
	}
	rfx_block_free(b);
	free(lv);
	return ret;
}

/* The name the data's streams are keyed by (msetable.h). */
static const char *data_key(const struct rfx_mse_data *dd)
{
	return dd->key[0] ? dd->key : dd->ds->name;
}

/* The stream of a repetition's pairs, shared by every method (msetable.h). */
static gsl_rng *pair_stream(const struct rfx_mse_config *c,
			    const struct rfx_mse_data *dd, long rep)
{
	return rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "mse-table", .what = "pairs", .name = { data_key(dd) },
		.i = (uint64_t)rep });
}

/* The stream of a cell's draws at budget B (see msetable.h). */
static gsl_rng *draw_stream(const struct rfx_mse_config *c,
			    const struct rfx_mse_data *dd,
			    const struct rfx_mse_method *m, long rep, int B)
{
	return rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "mse-table", .what = "draws",
		.name = { data_key(dd), m->e->name, rfx_proj_name(m->proj) },
		.i = (uint64_t)rep, .j = (uint64_t)B });
}

/*
 * The P pairs of a repetition, as indices into ds: i uniform, j uniform
 * among the others. Every method, budget and bandwidth of the repetition
 * gets these (the stream depends on the dataset and repetition only).
 */
static void pair_indices(const struct rfx_dataset *ds, size_t P,
			 const gsl_rng *rp, size_t *I, size_t *J)
{
	size_t k;

	for (k = 0; k < P; k++) {
		I[k] = (size_t)gsl_rng_uniform_int(rp, (unsigned long)ds->n);
		J[k] = (size_t)gsl_rng_uniform_int(rp, (unsigned long)ds->n - 1);
		J[k] += J[k] >= I[k];
	}
}

/*
 * The pairs scaled by inv = 1/sigma into X and Y (P x d), the true
 * Gaussian kernel K and the factor F that turns K^ - K into SM^ - SM
 * (1 for the Gaussian kernel); returns the sum of the true kernel values.
 */
static double scale_pairs(const struct rfx_dataset *ds, const size_t *I,
			  const size_t *J, size_t P, double inv, int sm,
			  double *X, double *Y, double *K, double *F)
{
	size_t k, d = (size_t)ds->d, l;
	double ks = 0.0;

	for (k = 0; k < P; k++) {
		double dd2 = 0.0, xy = 0.0, xx = 0.0, yy = 0.0;

		for (l = 0; l < d; l++) {
			double a = ds->X[I[k] * d + l] * inv;
			double b = ds->X[J[k] * d + l] * inv;

			X[k * d + l] = a;
			Y[k * d + l] = b;
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
	return ks;
}

/* One repetition of one cell: its MSE, the iid closed form, mean kernel. */
static int one_rep(const struct rfx_mse_config *c, const struct rfx_mse_data *dd,
		   const struct rfx_mse_method *m, const struct rfx_mse_row *row,
		   long rep, double *mse, double *miid, double *kmean,
		   struct rfx_err *err)
{
	const struct rfx_dataset *ds = dd->ds;
	size_t P = (size_t)c->pairs, S = (size_t)c->draws, q, k;
	int d = ds->d, ret = RFX_ENOMEM, sm = c->kernel == RFX_MSE_SOFTMAX;
	double *X = malloc(P * (size_t)d * sizeof(double));
	double *Y = malloc(P * (size_t)d * sizeof(double));
	double *K = malloc(P * sizeof(double)), *F = malloc(P * sizeof(double));
	double *labs = malloc(P * S * sizeof(double)), sum = 0.0, ks = 0.0;
	size_t *I = malloc(2 * P * sizeof(size_t));
	signed char *sg = malloc(P * S);
	gsl_rng *rp = NULL, *rd = NULL;
	struct rfx_params p;

	rfx_params_init(&p, d);
	rp = pair_stream(c, dd, rep);
	rd = draw_stream(c, dd, m, rep, row->B);
	if (!X || !Y || !K || !F || !labs || !I || !sg || !rp || !rd) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu pairs", P);
		goto out;
	}
	pair_indices(ds, P, rp, I, I + P);
	ks = scale_pairs(ds, I, I + P, P, 1.0 / dd->sigma, sm, X, Y, K, F);
	ret = row_params(m, row, &p, err);
	if (!ret)
		ret = m->e->fit(&p, X, P, Y, P, row->M, err);
	if (!ret)
		ret = iid_mse(m, &p, &row->M, 1, X, Y, P, F, miid, err);
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
	free(I);
	free(sg);
	if (rp)
		gsl_rng_free(rp);
	if (rd)
		gsl_rng_free(rd);
	return ret;
}

/*
 * TrigRF's repetitions as a family (see msetable.h): every budget and every
 * bandwidth of one dataset at once. The estimate of pair k with M features
 * is (1/M) sum_{j < M} cos(omega_j . (x_k - y_k) / sigma), so one product
 * Z Omega of the unscaled differences with the largest budget's draw gives
 * every bandwidth's angles, and the running sums over j give every
 * budget's estimate on the way: the projections, products and cosines are
 * done once instead of once per (budget, bandwidth).
 *
 * Columns go in chunks of about FAMILY_CHUNK_ELEMS / P so that the
 * chunk's angles stay in L2 between the product and the cosines.
 */
#define FAMILY_CHUNK_ELEMS 131072

/* sum[k] += sum_j cos(inv U[k, j]) over the P x w chunk U. */
RFX_SIMD_CLONES
static void cos_rowsums(const double *U, size_t P, size_t w, double inv,
			double *sum)
{
	size_t k, j;

	for (k = 0; k < P; k++) {
		const double *u = U + k * w;
		double s = 0.0;

#pragma omp simd reduction(+ : s)
		for (j = 0; j < w; j++)
			s += cos(inv * u[j]);
		sum[k] += s;
	}
}

/* Increasing order of ints, for qsort. */
static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * One repetition of TrigRF on nsig bandwidths (data entries dd[0..nsig-1],
 * all on the same inputs and streams) and the method's nb budgets, whose
 * rows (of the first entry; the others' have the same budgets) are
 * rows[0..nb-1]: results for (s, b) go to mse[s * nb + b] and the same
 * index of miid and kmean.
 */
static int family_rep(const struct rfx_mse_config *c,
		      const struct rfx_mse_data *dd, int nsig,
		      const struct rfx_mse_method *m,
		      const struct rfx_mse_row *rows, long rep,
		      struct rfx_draw **keep, double *mse, double *miid,
		      double *kmean, struct rfx_err *err)
{
	const struct rfx_dataset *ds = dd[0].ds;
	size_t P = (size_t)c->pairs, S = (size_t)c->draws, d = (size_t)ds->d;
	size_t ns = (size_t)nsig, nb = (size_t)c->nbudget, q, k, s, b, l;
	size_t cw, j0, nm;
	int ret = RFX_ENOMEM, sm = c->kernel == RFX_MSE_SOFTMAX, Mmax = 0, Bmax = 0;
	double *X = malloc(P * d * sizeof(double));
	double *Y = malloc(P * d * sizeof(double));
	double *Z = malloc(P * d * sizeof(double));
	double *K = malloc(ns * P * sizeof(double));
	double *F = malloc(ns * P * sizeof(double));
	double *sum = malloc(ns * P * sizeof(double));
	double *sq = calloc(ns * nb, sizeof(double));
	double *U = NULL;
	size_t *I = malloc(2 * P * sizeof(size_t));
	int *Ms = malloc(nb * sizeof(int)), *Mb = malloc(nb * sizeof(int));
	gsl_rng *rp = NULL, *rd = NULL;
	struct rfx_draw *w = NULL;
	struct rfx_params p;

	rfx_params_init(&p, (int)d);
	for (b = 0; b < nb; b++) {
		Mb[b] = rows[b].M;
		if (rows[b].M > Mmax) {
			Mmax = rows[b].M;
			Bmax = rows[b].B;
		}
	}
	/* the distinct budgets, in increasing order: where the sums are read */
	if (Ms) {
		memcpy(Ms, Mb, nb * sizeof(int));
		qsort(Ms, nb, sizeof(int), cmp_int);
	}
	for (nm = 0, b = 0; Ms && b < nb; b++)
		if (b == 0 || Ms[b] != Ms[nm - 1])
			Ms[nm++] = Ms[b];
	cw = FAMILY_CHUNK_ELEMS / (P ? P : 1);
	cw = cw < 64 ? 64 : cw;
	U = malloc(P * cw * sizeof(double));
	rp = pair_stream(c, &dd[0], rep);
	rd = draw_stream(c, &dd[0], m, rep, Bmax);
	/*
	 * The worker's draw from its last repetition when it has this
	 * shape (the draw overwrites every column it has): at MNIST's d =
	 * 1024 and M = 10 d a fresh one was 80 MB of new pages to fault in
	 * per repetition, a tenth of fig_orf4's time.
	 */
	if (*keep && ((*keep)->d != (int)d || (*keep)->cap != Mmax)) {
		rfx_draw_free(*keep);
		*keep = NULL;
	}
	if (!*keep)
		*keep = rfx_draw_alloc((int)d, Mmax);
	w = *keep;
	if (!X || !Y || !Z || !K || !F || !sum || !sq || !U || !I || !Ms || !Mb ||
	    !rp || !rd || !w) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu pairs", P);
		goto out;
	}
	pair_indices(ds, P, rp, I, I + P);
	for (k = 0; k < P; k++)
		for (l = 0; l < d; l++)
			Z[k * d + l] = ds->X[I[k] * d + l] - ds->X[I[P + k] * d + l];
	for (s = 0; s < ns; s++) {
		double ks = scale_pairs(ds, I, I + P, P, 1.0 / dd[s].sigma, sm, X, Y,
					K + s * P, F + s * P);

		/* TrigRF fits nothing: this checks the inputs and M */
		ret = m->e->fit(&p, X, P, Y, P, Mmax, err);
		if (!ret)
			ret = iid_mse(m, &p, Mb, (int)nb, X, Y, P, F + s * P,
				      miid + s * nb, err);
		if (ret)
			goto out;
		for (b = 0; b < nb; b++)
			kmean[s * nb + b] = ks / (double)P;
	}
	for (q = 0; q < S; q++) {
		size_t next = 0; /* index into Ms of the next budget to read */

		if (rfx_cancel_requested()) {
			ret = rfx_error(err, RFX_EINTR, "interrupted");
			goto out;
		}
		ret = m->e->draw(rd, m->proj, &p, Mmax, w, err);
		if (ret)
			goto out;
		memset(sum, 0, ns * P * sizeof(double));
		for (j0 = 0; j0 < (size_t)Mmax;) {
			size_t j1 = j0 + cw < (size_t)Ms[next] ? j0 + cw : (size_t)Ms[next];

			rfx_gemm(P, j1 - j0, d, 1.0, Z, d, w->omega + j0,
				 (size_t)w->cap, U, j1 - j0);
			for (s = 0; s < ns; s++)
				cos_rowsums(U, P, j1 - j0, 1.0 / dd[s].sigma,
					    sum + s * P);
			j0 = j1;
			if (j1 < (size_t)Ms[next])
				continue;
			/* budget Ms[next] complete: every row with that M */
			for (b = 0; b < nb; b++) {
				if (Mb[b] != Ms[next])
					continue;
				for (s = 0; s < ns; s++) {
					const double *Ks = K + s * P, *Fs = F + s * P;
					double acc = 0.0;

					for (k = 0; k < P; k++) {
						double t = (sum[s * P + k] / Mb[b] - Ks[k]) *
							   Fs[k];

						acc += t * t;
					}
					sq[s * nb + b] += acc;
				}
			}
			next++;
		}
	}
	for (s = 0; s < ns; s++)
		for (b = 0; b < nb; b++) {
			if (!isfinite(sq[s * nb + b])) {
				ret = rfx_error(err, RFX_ENUMERIC,
						"%s on %s: squared errors exceed double range",
						m->label, ds->name);
				goto out;
			}
			mse[s * nb + b] = sq[s * nb + b] / (double)(P * S);
		}
	ret = RFX_OK;
out:
	rfx_params_release(&p);
	free(X);
	free(Y);
	free(Z);
	free(K);
	free(F);
	free(sum);
	free(sq);
	free(U);
	free(I);
	free(Ms);
	free(Mb);
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

/*
 * Whether a method's repetitions run as a family (family_rep): TrigRF on
 * any projection kind, whose draws have the prefix property of lib/proj/proj.h.
 */
static int is_family(const struct rfx_mse_method *m)
{
	return m->e == &rfx_est_trig && m->e->draw == rfx_draw_gaussian;
}

/*
 * One unit of work: repetition rep of either one cell (dataset entry k0,
 * method m, budget b) or, for a family method, of all budgets of m on the
 * nk entries k0.. that share their inputs and streams (the bandwidths of
 * --sigma-scale); b is then -1.
 */
struct unit {
	int k0, nk, m, b;
	long rep;
};

/* The units of a run, families first (they are the longest); *n their count. */
static struct unit *plan_units(const struct rfx_mse_config *c, size_t *n)
{
	size_t R = (size_t)c->reps, cap = rfx_mse_nrows(c) * R, u = 0;
	struct unit *U = malloc(cap * sizeof(*U));
	int pass, k, nk, m, b;
	long r;

	if (!U)
		return NULL;
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < c->ndata; k += nk) {
			for (nk = 1; k + nk < c->ndata &&
				     c->data[k + nk].ds == c->data[k].ds &&
				     c->data[k + nk].id == c->data[k].id;
			     nk++)
				;
			for (m = 0; m < c->nmethods; m++) {
				int fam = is_family(&c->methods[m]);

				if (fam != (pass == 0))
					continue;
				for (r = 0; r < c->reps; r++) {
					if (fam) {
						U[u++] = (struct unit){ k, nk, m, -1, r };
						continue;
					}
					for (b = 0; b < nk * c->nbudget; b++)
						U[u++] = (struct unit){ k + b / c->nbudget, 1, m,
									b % c->nbudget, r };
				}
			}
		}
	*n = u;
	return U;
}

/* The sweep: its cells are the units. */
struct mse_sweep {
	const struct rfx_mse_config *c;
	const struct rfx_mse_row *rows;
	const struct unit *units;
	size_t nres;  /* (entry, budget) results per cell, at most */
};

/* A worker's workspace: the draw family_rep keeps between repetitions. */
struct mse_ws {
	struct rfx_draw *w;
};

static void *mse_ws_alloc(void *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(struct mse_ws));
}

static void mse_ws_free(void *ws)
{
	if (ws)
		rfx_draw_free(((struct mse_ws *)ws)->w);
	free(ws);
}

/* Results of a unit: one for a cell, every (entry, budget) for a family. */
static size_t unit_results(const struct rfx_mse_config *c, const struct unit *u)
{
	return u->b >= 0 ? 1 : (size_t)u->nk * (size_t)c->nbudget;
}

static double mse_cost(void *ctx, size_t t)
{
	const struct mse_sweep *sw = ctx;

	return (double)unit_results(sw->c, &sw->units[t]);
}

/*
 * Unit t into out: n mse values, then n closed-form iid MSEs, then n
 * kernel means, n = unit_results (a family's (entry, budget) in order).
 */
static int mse_cell(void *ctx, void *ws, size_t t, void *out,
		    struct rfx_err *err)
{
	const struct mse_sweep *sw = ctx;
	const struct rfx_mse_config *c = sw->c;
	const struct unit *u = &sw->units[t];
	const struct rfx_mse_method *m = &c->methods[u->m];
	size_t per = (size_t)c->nmethods * (size_t)c->nbudget;
	size_t cell0 = (size_t)u->k0 * per + (size_t)u->m * (size_t)c->nbudget;
	size_t n = unit_results(c, u);
	double *v = out;

	if (u->b >= 0)
		return one_rep(c, &c->data[u->k0], m, &sw->rows[cell0 + (size_t)u->b],
			       u->rep, &v[0], &v[1], &v[2], err);
	return family_rep(c, &c->data[u->k0], u->nk, m, &sw->rows[cell0], u->rep,
			  &((struct mse_ws *)ws)->w, v, v + n, v + 2 * n, err);
}

int rfx_mse_execute(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		    struct rfx_err *err)
{
	size_t nc = rfx_mse_nrows(c), R = (size_t)c->reps, ntask = 0, t, i;
	size_t per = (size_t)c->nmethods * (size_t)c->nbudget, nb = (size_t)c->nbudget;
	double *mse = NULL, *km = NULL, *mi = NULL, *res = NULL;
	int ret;
	struct unit *units = NULL;
	struct mse_sweep sw;
	struct rfx_cells cells;

	mse = malloc(nc * R * sizeof(double));
	km = malloc(nc * R * sizeof(double));
	mi = malloc(nc * R * sizeof(double));
	units = plan_units(c, &ntask);
	sw.c = c;
	sw.rows = rows;
	sw.units = units;
	sw.nres = 1;
	for (t = 0; units && t < ntask; t++)
		if (unit_results(c, &units[t]) > sw.nres)
			sw.nres = unit_results(c, &units[t]);
	res = units ? calloc(ntask ? ntask : 1, 3 * sw.nres * sizeof(double)) : NULL;
	if (!mse || !km || !mi || !units || !res) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells", nc);
		goto out;
	}
	cells = (struct rfx_cells){
		.name = "mse-table",
		.n = ntask,
		.size = 3 * sw.nres * sizeof(double),
		.out = res,
		.ctx = &sw,
		.cost = mse_cost,
		.ws_alloc = mse_ws_alloc,
		.ws_free = mse_ws_free,
		.compute = mse_cell,
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_blas_cells_run(&cells, err);
	if (ret)
		goto out;
	/* scatter each unit's results to its cells' repetition slots */
	for (t = 0; t < ntask; t++) {
		const struct unit *u = &units[t];
		const double *v = res + t * 3 * sw.nres;
		size_t n = unit_results(c, u);
		size_t cell0 = (size_t)u->k0 * per + (size_t)u->m * nb;

		for (i = 0; i < n; i++) {
			size_t cell = u->b >= 0 ? cell0 + (size_t)u->b
						: cell0 + i / nb * per + i % nb;
			size_t at = cell * R + (size_t)u->rep;

			mse[at] = v[i];
			mi[at] = v[n + i];
			km[at] = v[2 * n + i];
		}
	}
	for (t = 0; t < nc; t++) {
		const double *v = mse + t * R;
		double mean = 0.0, kmean = 0.0, iid = 0.0;
		size_t q;

		for (q = 0; q < R; q++) {
			mean += v[q];
			kmean += km[t * R + q];
			iid += mi[t * R + q];
		}
		mean /= (double)R;
		rows[t].mse = mean;
		/* scaled squares: MSEs of 1e198 (gauss-hyb at rho = 1e-100) */
		rows[t].mse_sd = rfx_ssq_sd(v, R, mean);
		rows[t].mse_se = rows[t].mse_sd / sqrt((double)R);
		rows[t].kernel_mean = kmean / (double)R;
		rows[t].mse_iid = iid / (double)R;
	}
	ret = RFX_OK;
out:
	free(mse);
	free(km);
	free(mi);
	free(res);
	free(units);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* ORF Fig 2(c): the distribution of z over a dataset's pairs (msetable.h) */

static const struct rfx_column zhist_cols[] = {
	RFX_COL(rfx_mse_zhist_row, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_mse_zhist_row, norm, RFX_COL_STRING,
		"normalisation applied to the dataset's inputs (--norm)"),
	RFX_COL(rfx_mse_zhist_row, d, RFX_COL_INT,
		"input dimension after padding"),
	RFX_COL(rfx_mse_zhist_row, sigma, RFX_COL_DOUBLE,
		"kernel bandwidth sigma: z = |x - y| / sigma"),
	RFX_COL(rfx_mse_zhist_row, pairs, RFX_COL_LONG,
		"pairs (x_i, x_j) drawn (P)"),
	RFX_COL(rfx_mse_zhist_row, z_lo, RFX_COL_DOUBLE,
		"lower end of the bin, z_lo <= z"),
	RFX_COL(rfx_mse_zhist_row, z_hi, RFX_COL_DOUBLE,
		"upper end of the bin, z < z_hi"),
	RFX_COL(rfx_mse_zhist_row, count, RFX_COL_LONG,
		"pairs with z in the bin"),
	RFX_COL(rfx_mse_zhist_row, density, RFX_COL_DOUBLE,
		"count / (P (z_hi - z_lo)): the histogram normalised to area 1 over all z (ORF Fig 2(c))"),
	RFX_COL(rfx_mse_zhist_row, cdf, RFX_COL_DOUBLE,
		"fraction of the P pairs with z < z_hi"),
};

const struct rfx_schema rfx_mse_zhist_schema = {
	"zhist", "distribution of z = |x - y| / sigma over dataset pairs",
	sizeof(struct rfx_mse_zhist_row), RFX_NCOLS(zhist_cols), zhist_cols
};

/* Pairs per chunk: their indices and z, drawn and binned in order. */
#define ZHIST_CHUNK 65536

size_t rfx_mse_zhist_nrows(const struct rfx_mse_zhist_config *c)
{
	return (size_t)c->ndata * (size_t)c->nbins;
}

/* Bins the P pairs of one entry into cnt[0 .. nbins). */
static int zhist_entry(const struct rfx_mse_zhist_config *c,
		       const struct rfx_mse_data *dd, long *cnt, size_t *I,
		       size_t *J, double *z, struct rfx_err *err)
{
	const struct rfx_dataset *ds = dd->ds;
	size_t P = (size_t)c->pairs, d = (size_t)ds->d, done;
	double inv = 1.0 / dd->sigma, scale = (double)c->nbins / c->z_max;
	gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
		.exp = "mse-table", .what = "zhist", .name = { data_key(dd) } });

	if (!r)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (done = 0; done < P; done += ZHIST_CHUNK) {
		long q, n = (long)(P - done < ZHIST_CHUNK ? P - done : ZHIST_CHUNK);

		if (rfx_cancel_requested()) {
			gsl_rng_free(r);
			return rfx_error(err, RFX_EINTR, "interrupted");
		}
		pair_indices(ds, (size_t)n, r, I, J);
#pragma omp parallel for schedule(static)
		for (q = 0; q < n; q++) {
			const double *x = ds->X + I[q] * d, *y = ds->X + J[q] * d;
			double s = 0.0;
			size_t l;

			for (l = 0; l < d; l++)
				s += (x[l] - y[l]) * (x[l] - y[l]);
			z[q] = sqrt(s) * inv;
		}
		for (q = 0; q < n; q++) {
			double b = floor(z[q] * scale); /* the bin of z */

			if (b < (double)c->nbins)
				cnt[(int)b]++;
		}
	}
	gsl_rng_free(r);
	return RFX_OK;
}

int rfx_mse_zhist_run(const struct rfx_mse_zhist_config *c,
		      struct rfx_mse_zhist_row *rows, struct rfx_err *err)
{
	size_t *I = NULL, *J = NULL;
	double *z = NULL;
	long *cnt = NULL;
	int k, b, ret = RFX_OK;

	if (c->ndata < 1 || c->pairs < 1 || c->nbins < 1 ||
	    !(c->z_max > 0.0 && isfinite(c->z_max)))
		return rfx_error(err, RFX_EINVAL, "a z histogram needs datasets, "
				 "pairs >= 1, bins >= 1 and z_max > 0");
	for (k = 0; k < c->ndata; k++)
		if (c->data[k].ds->n < 2 || !(c->data[k].sigma > 0.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: pairs need at least 2 inputs and a "
					 "positive bandwidth", c->data[k].ds->name);
	I = malloc(ZHIST_CHUNK * sizeof(*I));
	J = malloc(ZHIST_CHUNK * sizeof(*J));
	z = malloc(ZHIST_CHUNK * sizeof(*z));
	cnt = malloc((size_t)c->nbins * sizeof(*cnt));
	if (!I || !J || !z || !cnt) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for a z histogram");
		goto out;
	}
	for (k = 0; k < c->ndata; k++) {
		const struct rfx_mse_data *dd = &c->data[k];
		double width = c->z_max / c->nbins;
		long below = 0; /* pairs in the bins so far */

		memset(cnt, 0, (size_t)c->nbins * sizeof(*cnt));
		ret = zhist_entry(c, dd, cnt, I, J, z, err);
		if (ret)
			goto out;
		for (b = 0; b < c->nbins; b++) {
			struct rfx_mse_zhist_row *row = &rows[(size_t)k * c->nbins + b];

			memset(row, 0, sizeof(*row));
			snprintf(row->dataset, sizeof(row->dataset), "%s", dd->ds->name);
			snprintf(row->norm, sizeof(row->norm), "%s", dd->norm);
			row->d = dd->ds->d;
			row->sigma = dd->sigma;
			row->pairs = c->pairs;
			row->z_lo = c->z_max * b / c->nbins;
			row->z_hi = c->z_max * (b + 1) / c->nbins;
			row->count = cnt[b];
			row->density = (double)cnt[b] / ((double)c->pairs * width);
			below += cnt[b];
			row->cdf = (double)below / (double)c->pairs;
		}
		if (c->progress)
			c->progress(c->progress_ctx, k + 1, c->ndata);
	}
out:
	free(I);
	free(J);
	free(z);
	free(cnt);
	return ret;
}

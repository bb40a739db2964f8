/*
 * The Fig 6.4 variance experiment. Each task (regime, gamma, sample) draws
 * its two sets, fits every method, and walks the L x L pairs in blocks:
 * inner products come from one dgemm per block (two for the estimators that
 * need sum_l x_l^2 y_l^2, and again on the shifted sets for PoisRF+ and
 * GeomRF+), then each method's closed form fills a buffer of log-variances
 * that is summarised on the spot. Summaries are (count, mean, M2) triples
 * merged with Chan et al.'s pairwise update, always in the same order.
 */
#include "exp/varexp.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "num/blas.h"
#include "num/block.h"
#include "base/cancel.h"
#include "base/cells.h"
#include "eval/montecarlo.h"
#include "num/logmath.h"
#include "base/rng.h"

#define DEFAULT_BLOCK 256

/* Descriptions several of this file's tables share. */
#define DESC_REGIME \
	"where the input sets come from: a sampled regime (normal, sphere, heterogen, mnist) or file (--x-file, --y-file)"
#define DESC_GAMMA \
	"kernel scale gamma: both sets are multiplied by gamma (x -> gamma x) before the kernel"

#define ANALYTIC_COLUMNS \
	RFX_COL(rfx_varexp_row, method, RFX_COL_STRING, \
		RFX_DESC_METHOD), \
	RFX_COL(rfx_varexp_row, regime, RFX_COL_STRING, \
		DESC_REGIME), \
	RFX_COL(rfx_varexp_row, gamma, RFX_COL_DOUBLE, \
		DESC_GAMMA), \
	RFX_COL(rfx_varexp_row, d, RFX_COL_INT, \
		"input dimension"), \
	RFX_COL(rfx_varexp_row, M, RFX_COL_INT, \
		"random features the estimator used (the budget after fair matching)"), \
	RFX_COL(rfx_varexp_row, n_pairs, RFX_COL_LONG, \
		"pairs (x, y) with a positive closed-form variance, over all samples; a count"), \
	RFX_COL(rfx_varexp_row, n_zero, RFX_COL_LONG, \
		"pairs whose closed-form variance is exactly 0, left out of the logs; a count"), \
	RFX_COL(rfx_varexp_row, logvar_mean, RFX_COL_DOUBLE, \
		"mean over pairs and samples of the natural log of the closed-form variance of the estimate of the kernel value"), \
	RFX_COL(rfx_varexp_row, logvar_std, RFX_COL_DOUBLE, \
		"standard deviation over pairs and samples of that natural log of the variance"), \
	RFX_COL(rfx_varexp_row, logvar_min, RFX_COL_DOUBLE, \
		"smallest natural log of the variance over pairs"), \
	RFX_COL(rfx_varexp_row, logvar_max, RFX_COL_DOUBLE, \
		"largest natural log of the variance over pairs")

static const struct rfx_column analytic_cols[] = { ANALYTIC_COLUMNS };

static const struct rfx_column mc_cols[] = {
	ANALYTIC_COLUMNS,
	RFX_COL(rfx_varexp_row, projection, RFX_COL_STRING,
		RFX_DESC_PROJECTION " of the Monte Carlo draws"),
	RFX_COL(rfx_varexp_row, mc_R, RFX_COL_LONG,
		"Monte Carlo draws of the estimator per checked pair"),
	RFX_COL(rfx_varexp_row, mc_pairs, RFX_COL_LONG,
		"pairs checked by Monte Carlo"),
	RFX_COL(rfx_varexp_row, sub_logvar_mean, RFX_COL_DOUBLE,
		"mean natural log of the closed-form variance over the Monte Carlo pairs only (compare with mc_logvar_mean)"),
	RFX_COL(rfx_varexp_row, mc_logvar_mean, RFX_COL_DOUBLE,
		"mean over the checked pairs of the natural log of the Monte Carlo sample variance"),
	RFX_COL(rfx_varexp_row, mc_logvar_std, RFX_COL_DOUBLE,
		"standard deviation over the checked pairs of that natural log"),
	RFX_COL(rfx_varexp_row, mc_logvar_se, RFX_COL_DOUBLE,
		"mean standard error of one pair's Monte Carlo log variance, in natural-log units"),
	RFX_COL(rfx_varexp_row, mc_zero, RFX_COL_LONG,
		"checked pairs whose Monte Carlo estimates all coincided (sample variance 0); a count"),
};

static const struct rfx_column param_cols[] = {
	RFX_COL(rfx_varexp_param, method, RFX_COL_STRING,
		RFX_DESC_METHOD),
	RFX_COL(rfx_varexp_param, regime, RFX_COL_STRING,
		DESC_REGIME),
	RFX_COL(rfx_varexp_param, gamma, RFX_COL_DOUBLE,
		DESC_GAMMA),
	RFX_COL(rfx_varexp_param, sample, RFX_COL_INT,
		"index of the sampled pair of sets, 0-based"),
	RFX_COL(rfx_varexp_param, param, RFX_COL_STRING,
		"name of the fitted parameter (rfx help estimators)"),
	RFX_COL(rfx_varexp_param, value, RFX_COL_DOUBLE,
		"its fitted value"),
};

const struct rfx_schema rfx_varexp_schema = {
	"variance", "log-variance of random-feature estimators (thesis Fig 6.4)",
	sizeof(struct rfx_varexp_row), RFX_NCOLS(analytic_cols), analytic_cols
};

const struct rfx_schema rfx_varexp_mc_schema = {
	"variance", "log-variance of random-feature estimators, analytic and Monte Carlo",
	sizeof(struct rfx_varexp_row), RFX_NCOLS(mc_cols), mc_cols
};

const struct rfx_schema rfx_varexp_param_schema = {
	"params", "parameters fitted per input set pair",
	sizeof(struct rfx_varexp_param), RFX_NCOLS(param_cols), param_cols
};

/* Running summary of a stream of log-variances. */
struct summary {
	double n, mean, m2, lo, hi;
	long zero;
};

static void summary_init(struct summary *s)
{
	s->n = s->mean = s->m2 = 0.0;
	s->lo = INFINITY;
	s->hi = -INFINITY;
	s->zero = 0;
}

/* Chan, Golub & LeVeque's merge of two (n, mean, M2) summaries. */
static void summary_merge(struct summary *a, const struct summary *b)
{
	double n = a->n + b->n, delta;

	a->zero += b->zero;
	if (b->lo < a->lo)
		a->lo = b->lo;
	if (b->hi > a->hi)
		a->hi = b->hi;
	if (b->n == 0.0)
		return;
	if (a->n == 0.0) {
		a->n = b->n;
		a->mean = b->mean;
		a->m2 = b->m2;
		return;
	}
	delta = b->mean - a->mean;
	a->mean += delta * b->n / n;
	a->m2 += b->m2 + delta * delta * a->n * b->n / n;
	a->n = n;
}

/*
 * Summarises n values; -inf counts as an exact zero variance, NaN or +inf
 * is an error. One pass about a pivot K, the first finite value (the
 * two-pass form, mean first and then the squares about it, read every
 * value twice): with d = x - K, mean = K + sum d / n and M2 = sum d^2 -
 * (sum d)^2 / n. M2 cancels by the factor 1 + (K - mean)^2 / var, about
 * 2 for a K drawn from the values themselves. Summing the d rather than
 * the x also keeps the mean's rounding at the scale of the spread: values
 * all equal to -log 8 up to an ulp summed to a mean 1.5e-13 off, which the
 * two-pass form then reported as the standard deviation. Branch-free so
 * that it vectorises: it runs over every pair of every block.
 */
RFX_SIMD_CLONES
static int summary_of(struct summary *s, const double *v, size_t n)
{
	size_t k;
	double s1 = 0.0, s2 = 0.0, cnt = 0.0, bad = 0.0, piv = 0.0, m2;
	double lo = INFINITY, hi = -INFINITY;

	summary_init(s);
	for (k = 0; k < n; k++)
		if (v[k] > -INFINITY && v[k] < INFINITY) {
			piv = v[k];
			break;
		}
	/*
	 * A NaN or +inf goes into the sums (x - K is NaN or +inf there), so
	 * the test for them is on s1 afterwards, not on every value; the
	 * values themselves are logs, far from overflowing the sums.
	 */
#pragma omp simd reduction(+ : s1, s2, cnt) reduction(min : lo) \
	reduction(max : hi)
	for (k = 0; k < n; k++) {
		double x = v[k];
		/* all selects on comparisons: an int count converted per lane */
		double d = x != -INFINITY ? x - piv : 0.0; /* NaN too */

		cnt += x != -INFINITY ? 1.0 : 0.0;
		s1 += d;
		s2 += d * d;
		lo = x < lo && x != -INFINITY ? x : lo;
		hi = x > hi ? x : hi;
	}
	bad = !(s1 > -INFINITY && s1 < INFINITY);
	if (bad > 0.0)
		return -1;
	s->zero = (long)((double)n - cnt);
	if (cnt == 0.0)
		return 0;
	m2 = s2 - s1 * (s1 / cnt);
	s->n = cnt;
	s->mean = piv + s1 / cnt;
	s->m2 = m2 > 0.0 ? m2 : 0.0;
	s->lo = lo;
	s->hi = hi;
	return 0;
}

static double summary_std(const struct summary *s)
{
	return s->n > 1.0 ? sqrt(s->m2 / (s->n - 1.0)) : 0.0;
}

/* Per (task, method) results, merged over samples afterwards. */
struct task_out {
	struct summary an;     /* all pairs */
	struct summary sub;    /* analytic on the Monte Carlo pairs */
	struct summary mc;     /* Monte Carlo on those pairs */
	double mc_se_sum;      /* sum of the pairs' MC standard errors */
	int M;                 /* the budget M handed to every hook */
	int M_used;            /* features used, for the table */
	struct rfx_params params;
};

/* Per-thread scratch. */
struct worker {
	double *X, *Y, *lv;
	struct rfx_block *base, *shifted, *one;
	gsl_rng *rng;
	struct rfx_mc_result *mcres;
};

static void worker_free(struct worker *w)
{
	free(w->X);
	free(w->Y);
	free(w->lv);
	rfx_block_free(w->base);
	rfx_block_free(w->shifted);
	rfx_block_free(w->one);
	if (w->rng)
		gsl_rng_free(w->rng);
	free(w->mcres);
}

/* n: rows of the worker's X and Y (the sets, or the Monte Carlo pairs). */
static int worker_init(struct worker *w, const struct rfx_varexp_config *c,
		       size_t n, size_t blk)
{
	size_t nd = n * (size_t)c->d;

	memset(w, 0, sizeof(*w));
	w->X = malloc(nd * sizeof(double));
	w->Y = malloc(nd * sizeof(double));
	/* Block values, or the analytic and MC values of the Monte Carlo pairs. */
	w->lv = malloc((blk * blk > 2 * n ? blk * blk : 2 * n) *
		       sizeof(double));
	w->base = rfx_block_alloc(c->d, blk, blk);
	w->shifted = rfx_block_alloc(c->d, blk, blk);
	w->one = rfx_block_alloc(c->d, 1, 1);
	w->rng = gsl_rng_alloc(rfx_rng_type());
	w->mcres = malloc((c->mc_pairs ? c->mc_pairs : 1) *
			  sizeof(struct rfx_mc_result));
	if (!w->X || !w->Y || !w->lv || !w->base || !w->shifted || !w->one ||
	    !w->rng || !w->mcres) {
		worker_free(w);
		return -1;
	}
	return 0;
}

static int method_features(const struct rfx_varexp_config *c,
			   const struct rfx_estimator_type *e)
{
	return c->M > 0 ? c->M : rfx_estimator_fair_features(e, c->budget);
}

/*
 * The Monte Carlo check of one method on the first mc_pairs pairs
 * (x_k, y_k) of the task's sets.
 */
static int task_mc(const struct rfx_varexp_config *c, struct worker *w,
		   const struct rfx_estimator_type *e, struct task_out *o,
		   int M, enum rfx_regime g, double gamma, int s,
		   struct rfx_err *err)
{
	size_t P = c->mc_pairs < c->L ? c->mc_pairs : c->L, k;
	double *an = w->lv, *mcv = w->lv + P;
	enum rfx_proj proj = (e->flags & RFX_EST_DISCRETE) ? RFX_PROJ_IID
							   : c->proj;
	int ret, nmc = 0;

	rfx_rng_set_key(w->rng, c->seed, &(struct rfx_rng_key){
		.exp = "variance", .what = "mc",
		.name = { e->name, rfx_regime_name(g) ? rfx_regime_name(g) : "file" },
		.i = rfx_rng_bits(gamma), .j = (uint64_t)s });
	ret = rfx_mc_pairs(e, &o->params, proj, M, w->X, w->Y, P, c->mc_R,
			   w->rng, w->mcres, err);
	if (ret)
		return ret;
	for (k = 0; k < P; k++) {
		const double *x = w->X + k * (size_t)c->d;
		const double *y = w->Y + k * (size_t)c->d;

		ret = rfx_estimator_block(e, &o->params, w->one, x, 1, y, 1, err);
		if (!ret)
			ret = e->log_variance(&o->params, w->one, M, &an[k], err);
		if (ret)
			return ret;
		if (w->mcres[k].log_var == -INFINITY) {
			o->mc.zero++;
			continue;
		}
		mcv[nmc++] = w->mcres[k].log_var;
		o->mc_se_sum += w->mcres[k].log_var_se;
	}
	{
		struct summary a, m;

		if (summary_of(&a, an, P) || summary_of(&m, mcv, (size_t)nmc))
			return rfx_error(err, RFX_ENUMERIC,
					 "%s: non-finite Monte Carlo log-variance",
					 e->name);
		summary_merge(&o->sub, &a);
		m.zero = 0;
		summary_merge(&o->mc, &m);
	}
	return RFX_OK;
}

/* One block of pairs for block_methods. */
struct blockjob {
	const double *Xb;      /* nx x d */
	size_t nx;
	const double *Yb;      /* ny x d */
	size_t ny;
	const double *xshift;  /* nx per-row additions to log Var, or NULL */
	const double *yshift;  /* ny per-column additions, or NULL */
	int base_need2, shift_need2; /* which blocks need x2y2 */
};

/*
 * Every method's closed form on the pairs of one block, summarised into
 * out[m].an. The dgemms are shared by the methods that see the same
 * inputs. With xshift/yshift, log Var of pair (i, j) gains xshift[i] +
 * yshift[j] (the softmax kernel's factor exp(|x|^2 + |y|^2)).
 */
static int block_methods(const struct rfx_varexp_config *c, struct worker *w,
			 const struct blockjob *job, struct task_out *out,
			 struct rfx_err *err)
{
	const double *shift_done = NULL;
	int base_done = 0, m, ret;
	size_t i, j;

	for (m = 0; m < c->nmethods; m++) {
		const struct rfx_estimator_type *e = c->methods[m];
		const struct rfx_params *p = &out[m].params;
		struct rfx_block *b;
		struct summary sm;

		if (e->flags & RFX_EST_SHIFTED) {
			b = w->shifted;
			if (!shift_done ||
			    memcmp(shift_done, p->c, (size_t)c->d * sizeof(double))) {
				ret = rfx_block_compute(b, job->Xb, job->nx, job->Yb,
							job->ny, p->c, job->shift_need2,
							err);
				if (ret)
					return ret;
				shift_done = p->c;
			}
		} else {
			b = w->base;
			if (!base_done) {
				ret = rfx_block_compute(b, job->Xb, job->nx, job->Yb,
							job->ny, NULL, job->base_need2,
							err);
				if (ret)
					return ret;
				base_done = 1;
			}
		}
		ret = e->log_variance(p, b, out[m].M, w->lv, err);
		if (ret)
			return ret;
		if (job->xshift)
			for (i = 0; i < job->nx; i++)
				for (j = 0; j < job->ny; j++)
					w->lv[i * job->ny + j] += job->xshift[i] +
								  job->yshift[j];
		if (summary_of(&sm, w->lv, job->nx * job->ny))
			return rfx_error(err, RFX_ENUMERIC,
					 "%s: non-finite log-variance", e->name);
		summary_merge(&out[m].an, &sm);
	}
	return RFX_OK;
}

/* Runs one (regime, gamma, sample) task for all methods into out[method]. */
static int run_task(const struct rfx_varexp_config *c, struct worker *w,
		    enum rfx_regime g, double gamma, int s, size_t blk,
		    struct task_out *out, struct rfx_err *err)
{
	size_t L = c->L, i0, j0;
	int m, ret, base_need2 = 0, shift_need2 = 0;

	rfx_rng_set_key(w->rng, c->seed, &(struct rfx_rng_key){
		.exp = "variance", .what = "sets", .name = { rfx_regime_name(g) },
		.i = rfx_rng_bits(gamma), .j = (uint64_t)s });
	ret = rfx_regime_sample(w->rng, g, gamma, c->d, L, c->images, w->X,
				w->Y, err);
	if (ret)
		return ret;
	for (m = 0; m < c->nmethods; m++) {
		const struct rfx_estimator_type *e = c->methods[m];
		int M = method_features(c, e);

		rfx_params_init(&out[m].params, c->d);
		if (c->base && (ret = rfx_params_copy(&out[m].params, &c->base[m],
						       err)))
			return ret;
		ret = e->fit(&out[m].params, w->X, L, w->Y, L, M, err);
		if (ret)
			return ret;
		out[m].M = M;
		out[m].M_used = rfx_estimator_features(e, &out[m].params, M);
		summary_init(&out[m].an);
		summary_init(&out[m].sub);
		summary_init(&out[m].mc);
		out[m].mc_se_sum = 0.0;
		/*
		 * x2y2 for all methods on the same inputs at once: computing
		 * a block without it and again with it repeated the product
		 * x.y and the |x -+ y|^2 pass for every block.
		 */
		if (e->flags & RFX_EST_X2Y2) {
			if (e->flags & RFX_EST_SHIFTED)
				shift_need2 = 1;
			else
				base_need2 = 1;
		}
	}
	for (i0 = 0; i0 < L; i0 += blk) {
		size_t nx = L - i0 < blk ? L - i0 : blk;

		for (j0 = 0; j0 < L; j0 += blk) {
			size_t ny = L - j0 < blk ? L - j0 : blk;
			struct blockjob job = {
				w->X + i0 * (size_t)c->d, nx, w->Y + j0 * (size_t)c->d,
				ny, NULL, NULL, base_need2, shift_need2
			};

			if (rfx_cancel_requested())
				return rfx_error(err, RFX_EINTR, "interrupted");
			ret = block_methods(c, w, &job, out, err);
			if (ret)
				return ret;
		}
	}
	if (c->mc_R > 0)
		for (m = 0; m < c->nmethods; m++) {
			ret = task_mc(c, w, c->methods[m], &out[m], out[m].M, g,
				      gamma, s, err);
			if (ret)
				return ret;
		}
	return RFX_OK;
}

size_t rfx_varexp_nrows(const struct rfx_varexp_config *c)
{
	return (size_t)c->nmethods * (size_t)c->nregimes * (size_t)c->ngammas;
}

size_t rfx_varexp_max_params(const struct rfx_varexp_config *c)
{
	return rfx_varexp_nrows(c) * (size_t)c->samples * 4;
}

/* The checks the experiment and the set study share. */
static int check_common(const struct rfx_varexp_config *c, struct rfx_err *err)
{
	int k;

	if (c->d < 1)
		return rfx_error(err, RFX_EINVAL, "d must be positive, got %d", c->d);
	if (c->M < 0 || (c->M == 0 && c->budget < 1))
		return rfx_error(err, RFX_EINVAL,
				 "number of features must be positive");
	if (c->nmethods < 1 || c->ngammas < 1)
		return rfx_error(err, RFX_EINVAL, "nothing to compute");
	for (k = 0; k < c->ngammas; k++)
		if (!(c->gammas[k] > 0.0) || !isfinite(c->gammas[k]))
			return rfx_error(err, RFX_EINVAL,
					 "gamma must be positive and finite, got %g",
					 c->gammas[k]);
	if (c->mc_R == 1 || c->mc_R < 0)
		return rfx_error(err, RFX_EINVAL,
				 "Monte Carlo needs at least 2 draws, got %ld",
				 c->mc_R);
	if (c->mc_R > 0 && c->mc_pairs < 1)
		return rfx_error(err, RFX_EINVAL, "Monte Carlo needs pairs");
	return RFX_OK;
}

static int check_config(const struct rfx_varexp_config *c, struct rfx_err *err)
{
	if (c->d >= 1 && c->L < 2)
		return rfx_error(err, RFX_EINVAL, "L must be at least 2, got %zu",
				 c->L);
	if (c->d >= 1 && c->samples < 1)
		return rfx_error(err, RFX_EINVAL,
				 "samples must be positive, got %d", c->samples);
	if (c->nregimes < 1)
		return rfx_error(err, RFX_EINVAL, "nothing to compute");
	return check_common(c, err);
}

static void add_param(struct rfx_varexp_param *pr, size_t *np,
		      const char *method, const char *regime, double gamma,
		      int s, const char *name, double value)
{
	struct rfx_varexp_param *q = &pr[(*np)++];

	memset(q, 0, sizeof(*q));
	snprintf(q->method, sizeof(q->method), "%s", method);
	snprintf(q->regime, sizeof(q->regime), "%s", regime);
	q->gamma = gamma;
	q->sample = s;
	snprintf(q->param, sizeof(q->param), "%s", name);
	q->value = value;
}

static void record_params(struct rfx_varexp_param *pr, size_t *np,
			  const struct rfx_estimator_type *e,
			  const struct rfx_params *p, const char *regime,
			  double gamma, int s)
{
	if (e->params & RFX_P(RFX_PARAM_A)) {
		add_param(pr, np, e->name, regime, gamma, s, "A_re", p->A_re);
		if (e->flags & RFX_EST_COMPLEX) {
			add_param(pr, np, e->name, regime, gamma, s, "A_im", p->A_im);
			add_param(pr, np, e->name, regime, gamma, s, "t", p->t);
		}
	}
	if (e->params & RFX_P(RFX_PARAM_LAMBDA))
		add_param(pr, np, e->name, regime, gamma, s, "lambda", p->lambda);
	if (e->params & RFX_P(RFX_PARAM_Q))
		add_param(pr, np, e->name, regime, gamma, s, "q", p->q);
	if (e->params & RFX_P(RFX_PARAM_M1)) {
		add_param(pr, np, e->name, regime, gamma, s, "m1", p->m1);
		add_param(pr, np, e->name, regime, gamma, s, "m3", p->m3);
	}
	if (e->params & RFX_P(RFX_PARAM_SIGMA)) {
		add_param(pr, np, e->name, regime, gamma, s, "sigma", p->sigma);
		add_param(pr, np, e->name, regime, gamma, s, "rho", p->rho);
	}
}

/*
 * A table row from the merged summaries of one (method, regime, gamma):
 * all pairs (an), the Monte Carlo pairs' closed forms (sub) and estimates
 * (mc), and the sum of those pairs' standard errors (se).
 */
static void fill_row(struct rfx_varexp_row *row,
		     const struct rfx_varexp_config *c,
		     const struct rfx_estimator_type *e, const char *regime,
		     double gamma, int M_used, const struct summary *an,
		     const struct summary *sub, const struct summary *mc,
		     double se)
{
	memset(row, 0, sizeof(*row));
	snprintf(row->method, sizeof(row->method), "%s", e->name);
	snprintf(row->regime, sizeof(row->regime), "%s", regime);
	snprintf(row->projection, sizeof(row->projection), "%s",
		 (e->flags & RFX_EST_DISCRETE) ? "discrete" : rfx_proj_name(c->proj));
	row->gamma = gamma;
	row->d = c->d;
	row->M = M_used;
	row->n_pairs = (long)an->n;
	row->n_zero = an->zero;
	row->logvar_mean = an->mean;
	row->logvar_std = summary_std(an);
	row->logvar_min = an->n > 0 ? an->lo : 0.0;
	row->logvar_max = an->n > 0 ? an->hi : 0.0;
	row->mc_R = c->mc_R;
	if (c->mc_R > 0) {
		row->mc_pairs = (long)sub->n;
		row->sub_logvar_mean = sub->mean;
		row->mc_logvar_mean = mc->mean;
		row->mc_logvar_std = summary_std(mc);
		row->mc_logvar_se = mc->n > 0 ? se / mc->n : 0.0;
		row->mc_zero = mc->zero;
	}
}

/* The sweep's context: cells are (regime, gamma, sample) tasks. */
struct sweep {
	const struct rfx_varexp_config *c;
	size_t blk;
};

static void *sweep_ws_alloc(void *ctx)
{
	const struct sweep *sw = ctx;
	struct worker *w = malloc(sizeof(*w));

	if (w && worker_init(w, sw->c, sw->c->L, sw->blk)) {
		free(w);
		return NULL;
	}
	return w;
}

static void sweep_ws_free(void *ws)
{
	if (ws) {
		worker_free(ws);
		free(ws);
	}
}

/*
 * Cell t into out[0..nmethods-1]: the task's summaries, and its fitted
 * parameters as plain values (the owned vectors are freed here, so the
 * buffer has no pointers and can travel between processes).
 */
static int sweep_cell(void *ctx, void *ws, size_t t, void *cell,
		      struct rfx_err *err)
{
	const struct sweep *sw = ctx;
	const struct rfx_varexp_config *c = sw->c;
	struct task_out *out = cell;
	int s = (int)(t % (size_t)c->samples);
	int gi = (int)(t / (size_t)c->samples % (size_t)c->ngammas);
	int ri = (int)(t / ((size_t)c->samples * (size_t)c->ngammas));
	int ret, m;

	ret = run_task(c, ws, c->regimes[ri], c->gammas[gi], s, sw->blk, out,
		       err);
	for (m = 0; m < c->nmethods; m++)
		rfx_params_release(&out[m].params);
	return ret;
}

int rfx_varexp_run(const struct rfx_varexp_config *c,
		   struct rfx_varexp_row *rows, struct rfx_varexp_param *params,
		   size_t *nparams, struct rfx_err *err)
{
	int ntask, nm = c->nmethods, ret, blas_saved;
	size_t blk = c->block ? c->block : DEFAULT_BLOCK;
	struct task_out *outs;
	struct sweep sw;
	struct rfx_cells cells;

	*nparams = 0;
	ret = check_config(c, err);
	if (ret)
		return ret;
	if (blk > c->L)
		blk = c->L;
	ntask = c->nregimes * c->ngammas * c->samples;
	outs = calloc((size_t)ntask * (size_t)nm, sizeof(*outs));
	if (!outs)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	/* Tasks are the parallel unit; one BLAS thread keeps results fixed. */
	blas_saved = rfx_blas_single_begin();
	sw.c = c;
	sw.blk = blk;
	cells = (struct rfx_cells){
		.name = "variance",
		.n = (size_t)ntask,
		.size = (size_t)nm * sizeof(*outs),
		.out = outs,
		.ctx = &sw,
		.ws_alloc = sweep_ws_alloc,
		.ws_free = sweep_ws_free,
		.compute = sweep_cell,
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_cells_run(&cells, err);
	if (!ret) {
		int ri, gi, m, s;
		size_t r = 0;

		for (ri = 0; ri < c->nregimes; ri++)
			for (gi = 0; gi < c->ngammas; gi++)
				for (m = 0; m < nm; m++, r++) {
					const struct rfx_estimator_type *e = c->methods[m];
					struct rfx_varexp_row *row = &rows[r];
					struct summary an, sub, mc;
					double se = 0.0;
					const char *rn = rfx_regime_name(c->regimes[ri]);

					summary_init(&an);
					summary_init(&sub);
					summary_init(&mc);
					for (s = 0; s < c->samples; s++) {
						int tt = (ri * c->ngammas + gi) * c->samples + s;
						struct task_out *o = &outs[(size_t)tt * nm + m];

						summary_merge(&an, &o->an);
						summary_merge(&sub, &o->sub);
						summary_merge(&mc, &o->mc);
						se += o->mc_se_sum;
						record_params(params, nparams, e, &o->params,
							      rn, c->gammas[gi], s);
					}
					fill_row(row, c, e, rn, c->gammas[gi],
						 outs[(size_t)((ri * c->ngammas + gi) *
							       c->samples) * nm + m].M_used,
						 &an, &sub, &mc, se);
				}
	}
	rfx_blas_single_end(blas_saved);
	free(outs);
	return ret;
}

/* ------------------------------------------------------------------------
 * The user's sets (issue 16).
 */

#define SETS_CHUNK 65536 /* sampled pairs per task in --pairs mode */

/* One gamma's scaled sets, squared norms and fitted methods. */
struct sets_gamma {
	const double *X, *Y;   /* the scaled sets (or the originals) */
	double *xn, *yn;       /* |x_i|^2, |y_j|^2 for the softmax factor */
	struct task_out *out;  /* per method: parameters, M */
};

/* The rows of the pairs of sampled chunk t. */
static void chunk_pairs(const struct rfx_varexp_config *c,
			const struct rfx_varexp_sets *s, gsl_rng *r, size_t t,
			size_t *ii, size_t *jj, size_t n)
{
	size_t k;

	rfx_rng_set_key(r, c->seed, &(struct rfx_rng_key){
		.exp = "variance", .what = "file-pairs", .i = (uint64_t)t });
	for (k = 0; k < n; k++) {
		ii[k] = (size_t)gsl_rng_uniform_int(r, s->nx);
		jj[k] = (size_t)gsl_rng_uniform_int(r, s->ny);
	}
}

/*
 * Task t of one gamma: row block t of X against all of Y, or sampled
 * chunk t, summarised per method into tout[m].an.
 */
static int sets_task(const struct rfx_varexp_config *c,
		     const struct rfx_varexp_sets *s, const struct sets_gamma *g,
		     struct worker *w, size_t *ii, size_t *jj, size_t t,
		     size_t blk, int need2[2], struct task_out *tout,
		     struct rfx_err *err)
{
	size_t d = (size_t)c->d, j0, k;
	int m, ret;

	for (m = 0; m < c->nmethods; m++) {
		tout[m] = g->out[m];
		summary_init(&tout[m].an);
	}
	if (!s->pairs) {
		size_t i0 = t * blk, nx = s->nx - i0 < blk ? s->nx - i0 : blk;

		for (j0 = 0; j0 < s->ny; j0 += blk) {
			size_t ny = s->ny - j0 < blk ? s->ny - j0 : blk;
			struct blockjob job = {
				g->X + i0 * d, nx, g->Y + j0 * d, ny,
				s->softmax ? g->xn + i0 : NULL,
				s->softmax ? g->yn + j0 : NULL, need2[0], need2[1]
			};

			if (rfx_cancel_requested())
				return rfx_error(err, RFX_EINTR, "interrupted");
			if ((ret = block_methods(c, w, &job, tout, err)))
				return ret;
		}
		return RFX_OK;
	}
	{
		size_t n = s->pairs - t * SETS_CHUNK < SETS_CHUNK ?
			   s->pairs - t * SETS_CHUNK : SETS_CHUNK;

		chunk_pairs(c, s, w->rng, t, ii, jj, n);
		for (k = 0; k < n; k++) {
			struct blockjob job = {
				g->X + ii[k] * d, 1, g->Y + jj[k] * d, 1,
				s->softmax ? g->xn + ii[k] : NULL,
				s->softmax ? g->yn + jj[k] : NULL, need2[0], need2[1]
			};

			if (k % 1024 == 0 && rfx_cancel_requested())
				return rfx_error(err, RFX_EINTR, "interrupted");
			if ((ret = block_methods(c, w, &job, tout, err)))
				return ret;
		}
	}
	return RFX_OK;
}

/*
 * The Monte Carlo check of one gamma: mc_pairs pairs drawn uniformly
 * (the same for every gamma and method), gathered into the worker's X
 * and Y, then task_mc as in the experiment.
 */
static int sets_mc(const struct rfx_varexp_config *c,
		   const struct rfx_varexp_sets *s, const struct sets_gamma *g,
		   struct worker *w, double gamma, struct rfx_err *err)
{
	size_t P = c->mc_pairs, k, l, d = (size_t)c->d;
	int m, ret;

	rfx_rng_set_key(w->rng, c->seed, &(struct rfx_rng_key){
		.exp = "variance", .what = "file-mc-pairs" });
	for (k = 0; k < P; k++) {
		size_t i = (size_t)gsl_rng_uniform_int(w->rng, s->nx);
		size_t j = (size_t)gsl_rng_uniform_int(w->rng, s->ny);

		memcpy(w->X + k * d, g->X + i * d, d * sizeof(double));
		memcpy(w->Y + k * d, g->Y + j * d, d * sizeof(double));
	}
	for (m = 0; m < c->nmethods; m++) {
		struct task_out *o = &g->out[m];

		ret = task_mc(c, w, c->methods[m], o, o->M, RFX_REGIME_COUNT,
			      gamma, 0, err);
		if (ret)
			return ret;
		if (s->softmax && o->sub.n > 0) {
			/*
			 * task_mc summarised the Gaussian kernel's log Var; the
			 * softmax factor of each pair shifts analytic and Monte
			 * Carlo values alike, by the mean of |x|^2 + |y|^2.
			 */
			double add = 0.0;

			for (k = 0; k < P; k++)
				for (l = 0; l < d; l++)
					add += w->X[k * d + l] * w->X[k * d + l] +
					       w->Y[k * d + l] * w->Y[k * d + l];
			add /= (double)P;
			o->sub.mean += add;
			o->mc.mean += add;
		}
	}
	return RFX_OK;
}

static int check_sets(const struct rfx_varexp_config *c,
		      const struct rfx_varexp_sets *s, struct rfx_err *err)
{
	if (!s->X || !s->Y || s->nx < 1 || s->ny < 1)
		return rfx_error(err, RFX_EINVAL, "the sets need at least one row each");
	return check_common(c, err);
}

/* Scales a set by gamma into a new array (NULL when out of memory). */
static double *scaled(const double *X, size_t n, int d, double gamma)
{
	size_t k, nd = n * (size_t)d;
	double *out = malloc((nd ? nd : 1) * sizeof(double));

	if (out)
		for (k = 0; k < nd; k++)
			out[k] = gamma * X[k];
	return out;
}

static double *sq_norms(const double *X, size_t n, int d)
{
	double *v = malloc(n * sizeof(double));
	size_t i;
	int l;

	if (v)
		for (i = 0; i < n; i++) {
			double acc = 0.0;

			for (l = 0; l < d; l++)
				acc += X[i * (size_t)d + (size_t)l] *
				       X[i * (size_t)d + (size_t)l];
			v[i] = acc;
		}
	return v;
}

/* One gamma of the set study into rows[0..nm-1]. */
static int sets_one_gamma(const struct rfx_varexp_config *c,
			  const struct rfx_varexp_sets *s, double gamma,
			  size_t blk, struct rfx_varexp_row *rows,
			  struct rfx_varexp_param *params, size_t *nparams,
			  struct rfx_err *err)
{
	int nm = c->nmethods, m, ret = RFX_OK, need2[2] = { 0, 0 };
	size_t ntask, t, done = 0;
	double *xs = NULL, *ys = NULL;
	struct sets_gamma g = { NULL, NULL, NULL, NULL, NULL };
	struct task_out *tout = NULL;
	int *status = NULL;
	struct rfx_err *errs = NULL;

	ntask = s->pairs ? (s->pairs + SETS_CHUNK - 1) / SETS_CHUNK
			 : (s->nx + blk - 1) / blk;
	if (gamma != 1.0) {
		xs = scaled(s->X, s->nx, c->d, gamma);
		ys = s->Y == s->X ? xs : scaled(s->Y, s->ny, c->d, gamma);
	}
	g.X = gamma != 1.0 ? xs : s->X;
	g.Y = gamma != 1.0 ? ys : s->Y;
	g.out = calloc((size_t)nm, sizeof(*g.out));
	tout = calloc(ntask * (size_t)nm, sizeof(*tout));
	status = calloc(ntask, sizeof(*status));
	errs = calloc(ntask, sizeof(*errs));
	if (s->softmax) {
		g.xn = sq_norms(g.X, s->nx, c->d);
		g.yn = sq_norms(g.Y, s->ny, c->d);
	}
	if (!g.X || !g.Y || !g.out || !tout || !status || !errs ||
	    (s->softmax && (!g.xn || !g.yn))) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for %zu + %zu rows of d = %d",
				s->nx, s->ny, c->d);
		goto out;
	}
	for (m = 0; m < nm; m++) {
		const struct rfx_estimator_type *e = c->methods[m];
		int M = method_features(c, e);

		rfx_params_init(&g.out[m].params, c->d);
		if ((c->base && (ret = rfx_params_copy(&g.out[m].params, &c->base[m],
						       err))) ||
		    (ret = e->fit(&g.out[m].params, g.X, s->nx, g.Y, s->ny, M,
				  err)))
			goto out;
		g.out[m].M = M;
		g.out[m].M_used = rfx_estimator_features(e, &g.out[m].params, M);
		summary_init(&g.out[m].an);
		summary_init(&g.out[m].sub);
		summary_init(&g.out[m].mc);
		if (e->flags & RFX_EST_X2Y2)
			need2[(e->flags & RFX_EST_SHIFTED) ? 1 : 0] = 1;
	}

#pragma omp parallel
	{
		struct worker w;
		size_t *ii = s->pairs ? malloc(2 * SETS_CHUNK * sizeof(size_t)) : NULL;
		int winit = worker_init(&w, c, 1, blk) == 0;
		int ok = winit && (!s->pairs || ii);
		long tt;

#pragma omp for schedule(dynamic, 1)
		for (tt = 0; tt < (long)ntask; tt++) {
			if (!ok) {
				status[tt] = rfx_error(&errs[tt], RFX_ENOMEM,
						       "out of memory");
				continue;
			}
			if (rfx_cancel_requested()) {
				status[tt] = rfx_error(&errs[tt], RFX_EINTR,
						       "interrupted");
				continue;
			}
			status[tt] = sets_task(c, s, &g, &w, ii,
					       ii ? ii + SETS_CHUNK : NULL,
					       (size_t)tt, blk, need2,
					       &tout[(size_t)tt * (size_t)nm],
					       &errs[tt]);
#pragma omp critical(rfx_varexp_progress)
			{
				done++;
				if (c->progress)
					c->progress(c->progress_ctx, (int)done,
						    (int)ntask);
			}
		}
		if (winit)
			worker_free(&w);
		free(ii);
	}
	for (t = 0; t < ntask; t++)
		if (status[t]) {
			ret = rfx_error(err, status[t], "%s", errs[t].msg);
			goto out;
		}
	/* merge in task order: the same sums for any thread count */
	for (t = 0; t < ntask; t++)
		for (m = 0; m < nm; m++)
			summary_merge(&g.out[m].an, &tout[t * (size_t)nm + (size_t)m].an);
	if (c->mc_R > 0) {
		struct rfx_varexp_config c1 = *c;
		struct worker w;

		c1.L = c->mc_pairs;
		if (worker_init(&w, c, c->mc_pairs, blk)) {
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
			goto out;
		}
		ret = sets_mc(&c1, s, &g, &w, gamma, err);
		worker_free(&w);
		if (ret)
			goto out;
	}
	for (m = 0; m < nm; m++) {
		const struct rfx_estimator_type *e = c->methods[m];
		const struct task_out *o = &g.out[m];
		struct rfx_varexp_row *row = &rows[m];

		record_params(params, nparams, e, &o->params, "file", gamma, 0);
		fill_row(row, c, e, "file", gamma, o->M_used, &o->an, &o->sub,
			 &o->mc, o->mc_se_sum);
	}
out:
	if (g.out)
		for (m = 0; m < nm; m++)
			rfx_params_release(&g.out[m].params);
	free(g.out);
	free(g.xn);
	free(g.yn);
	if (ys != xs)
		free(ys);
	free(xs);
	free(tout);
	free(status);
	free(errs);
	return ret;
}

int rfx_varexp_run_sets(const struct rfx_varexp_config *c,
			const struct rfx_varexp_sets *sets,
			struct rfx_varexp_row *rows,
			struct rfx_varexp_param *params, size_t *nparams,
			struct rfx_err *err)
{
	size_t blk = c->block ? c->block : DEFAULT_BLOCK;
	int gi, ret = RFX_OK, blas_saved;

	*nparams = 0;
	if ((ret = check_sets(c, sets, err)))
		return ret;
	blas_saved = rfx_blas_single_begin();
	for (gi = 0; gi < c->ngammas && !ret; gi++)
		ret = sets_one_gamma(c, sets, c->gammas[gi], blk,
				     rows + (size_t)gi * (size_t)c->nmethods,
				     params, nparams, err);
	rfx_blas_single_end(blas_saved);
	return ret;
}

/* ------------------------------------------------------------------------
 * The ranking summary.
 */

static const struct rfx_column rank_cols[] = {
	RFX_COL(rfx_varexp_rank, regime, RFX_COL_STRING,
		DESC_REGIME),
	RFX_COL(rfx_varexp_rank, gamma, RFX_COL_DOUBLE,
		DESC_GAMMA),
	RFX_COL(rfx_varexp_rank, rank, RFX_COL_INT,
		"1 for the method with the smallest mean log variance of its (regime, gamma) group"),
	RFX_COL(rfx_varexp_rank, method, RFX_COL_STRING,
		RFX_DESC_METHOD),
	RFX_COL(rfx_varexp_rank, M, RFX_COL_INT,
		"random features the estimator used (the budget after fair matching)"),
	RFX_COL(rfx_varexp_rank, logvar_mean, RFX_COL_DOUBLE,
		"mean over pairs and samples of the natural log of the closed-form variance of the estimate of the kernel value"),
	RFX_COL(rfx_varexp_rank, gap, RFX_COL_DOUBLE,
		"logvar_mean minus the best method's, in natural-log units (>= 0): its geometric-mean variance is e^gap times the best's"),
	RFX_COL(rfx_varexp_rank, positive, RFX_COL_INT,
		"1 when every estimate of the method is positive (usable for attention), else 0"),
};

const struct rfx_schema rfx_varexp_rank_schema = {
	"ranking",
	"estimators ordered by mean log variance at the same feature budget",
	sizeof(struct rfx_varexp_rank), RFX_NCOLS(rank_cols), rank_cols
};

void rfx_varexp_rank(const struct rfx_varexp_row *rows, size_t nrows,
		     struct rfx_varexp_rank *out)
{
	size_t g0 = 0, g1, i, j;

	while (g0 < nrows) {
		size_t n;

		for (g1 = g0 + 1; g1 < nrows &&
		     !strcmp(rows[g1].regime, rows[g0].regime) &&
		     rows[g1].gamma == rows[g0].gamma; g1++)
			;
		n = g1 - g0;
		/* insertion sort by mean log variance: stable, n is small */
		for (i = 0; i < n; i++) {
			const struct rfx_varexp_row *r = &rows[g0 + i];
			const struct rfx_estimator_type *e =
				rfx_estimator_find(r->method, NULL);
			struct rfx_varexp_rank k;

			memset(&k, 0, sizeof(k));
			snprintf(k.regime, sizeof(k.regime), "%s", r->regime);
			snprintf(k.method, sizeof(k.method), "%s", r->method);
			k.gamma = r->gamma;
			k.M = r->M;
			k.logvar_mean = r->logvar_mean;
			k.positive = e && (e->flags & RFX_EST_POSITIVE) ? 1 : 0;
			for (j = i; j > 0 && out[g0 + j - 1].logvar_mean > k.logvar_mean; j--)
				out[g0 + j] = out[g0 + j - 1];
			out[g0 + j] = k;
		}
		for (i = 0; i < n; i++) {
			out[g0 + i].rank = (int)i + 1;
			out[g0 + i].gap = out[g0 + i].logvar_mean - out[g0].logvar_mean;
		}
		g0 = g1;
	}
}

/*
 * Pointwise softmax-kernel estimation on same-length pairs: the closed
 * forms through each estimator's log_variance, the estimates through
 * rfx_mc_estimates. See pointwise.h for the grids and the streams.
 */
#include "exp/pointwise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "num/blas.h"
#include "num/block.h"
#include "base/cells.h"
#include "num/logmath.h"
#include "eval/montecarlo.h"
#include "base/rng.h"

#define HEAD(row) \
	RFX_COL(row, method, RFX_COL_STRING, \
		RFX_DESC_METHOD), \
	RFX_COL(row, d, RFX_COL_INT, "input dimension"), \
	RFX_COL(row, M, RFX_COL_INT, "random features (the method's budget)"), \
	RFX_COL(row, m1, RFX_COL_INT, \
		"hybrid methods' m1 feature count (0 for the others)"), \
	RFX_COL(row, m3, RFX_COL_INT, \
		"hybrid methods' m3 feature count (0 for the others)")

static const struct rfx_column map_cols[] = {
	HEAD(rfx_pw_map_row),
	RFX_COL(rfx_pw_map_row, r, RFX_COL_DOUBLE,
		"norm of the inputs, |x| = |y| = r"),
	RFX_COL(rfx_pw_map_row, theta, RFX_COL_DOUBLE,
		"angle between x and y, radians"),
	RFX_COL(rfx_pw_map_row, log_sm, RFX_COL_DOUBLE,
		"natural log of the softmax kernel SM(x, y) = exp(x.y), i.e. r^2 cos theta"),
	RFX_COL(rfx_pw_map_row, log_mse, RFX_COL_DOUBLE,
		"natural log of the closed-form MSE of the M-feature estimate of SM"),
	RFX_COL(rfx_pw_map_row, log_rel_err, RFX_COL_DOUBLE,
		"natural log of the relative error sqrt(MSE)/SM"),
};

#define EST_ANA(row) \
	HEAD(row), \
	RFX_COL(row, flops, RFX_COL_DOUBLE, \
		"floating-point operations of the feature map for one input (lib/eval/cost.h)"), \
	RFX_COL(row, r, RFX_COL_DOUBLE, "norm of the inputs, |x| = |y| = r"), \
	RFX_COL(row, theta, RFX_COL_DOUBLE, "angle between x and y, radians"), \
	RFX_COL(row, log_sm, RFX_COL_DOUBLE, \
		"natural log of the softmax kernel SM(x, y) = exp(x.y), i.e. r^2 cos theta"), \
	RFX_COL(row, sm, RFX_COL_DOUBLE, \
		"the softmax kernel SM(x, y) = exp(r^2 cos theta)"), \
	RFX_COL(row, ana_rel_err, RFX_COL_DOUBLE, \
		"closed-form relative error sqrt(MSE)/SM; 0 where the variance vanishes, inf beyond double range"), \
	RFX_COL(row, log_ana_rel_err, RFX_COL_DOUBLE, \
		"natural log of ana_rel_err (finite except where it is 0)")

static const struct rfx_column est_ana_cols[] = { EST_ANA(rfx_pw_est_row) };
static const struct rfx_column est_cols[] = {
	EST_ANA(rfx_pw_est_row),
	RFX_COL(rfx_pw_est_row, s, RFX_COL_LONG,
		"Monte Carlo estimates drawn (0: analytic only)"),
	RFX_COL(rfx_pw_est_row, mean, RFX_COL_DOUBLE,
		"mean of the Monte Carlo estimates of SM"),
	RFX_COL(rfx_pw_est_row, p05, RFX_COL_DOUBLE,
		"5% quantile of the Monte Carlo estimates of SM"),
	RFX_COL(rfx_pw_est_row, p95, RFX_COL_DOUBLE,
		"95% quantile of the Monte Carlo estimates of SM"),
	RFX_COL(rfx_pw_est_row, emp_rel_err, RFX_COL_DOUBLE,
		"empirical relative error sqrt(mean (estimate - SM)^2)/SM"),
};

static const struct rfx_column max_cols[] = {
	RFX_COL(rfx_pw_max_row, method, RFX_COL_STRING,
		RFX_DESC_METHOD),
	RFX_COL(rfx_pw_max_row, curve, RFX_COL_STRING,
		"numeric (max over theta by search), lemma3.4, thm3.5 or thm3.5-corrected (closed-form bounds, docs/ERRATA.md)"),
	RFX_COL(rfx_pw_max_row, d, RFX_COL_INT,
		"input dimension"),
	RFX_COL(rfx_pw_max_row, M, RFX_COL_INT,
		"random features (the method's budget)"),
	RFX_COL(rfx_pw_max_row, m1, RFX_COL_INT,
		"hybrid methods' m1 feature count (0 for the others)"),
	RFX_COL(rfx_pw_max_row, m3, RFX_COL_INT,
		"hybrid methods' m3 feature count (0 for the others)"),
	RFX_COL(rfx_pw_max_row, r, RFX_COL_DOUBLE,
		"norm of the inputs, |x| = |y| = r"),
	RFX_COL(rfx_pw_max_row, theta, RFX_COL_DOUBLE,
		"angle at which the relative error is largest, radians"),
	RFX_COL(rfx_pw_max_row, log_rel_err, RFX_COL_DOUBLE,
		"natural log of the largest relative error sqrt(MSE)/SM over the sphere |x| = |y| = r"),
};

const struct rfx_schema rfx_pw_map_schema = {
	"mse_map", "closed-form MSE of softmax-kernel estimators over (r, theta)",
	sizeof(struct rfx_pw_map_row), RFX_NCOLS(map_cols), map_cols
};
const struct rfx_schema rfx_pw_est_schema = {
	"estimates",
	"pointwise softmax-kernel estimates: quantiles and relative errors",
	sizeof(struct rfx_pw_est_row), RFX_NCOLS(est_cols), est_cols
};
const struct rfx_schema rfx_pw_est_ana_schema = {
	"estimates", "pointwise softmax-kernel estimation: analytic relative errors",
	sizeof(struct rfx_pw_est_row), RFX_NCOLS(est_ana_cols), est_ana_cols
};
const struct rfx_schema rfx_pw_max_schema = {
	"max_rel_err", "max-relative-error over the sphere S(r)",
	sizeof(struct rfx_pw_max_row), RFX_NCOLS(max_cols), max_cols
};

/* Which closed-form curves the maxerr run adds for e. */
static int has_lemma34(const struct rfx_estimator_type *e)
{
	return e == &rfx_est_trig || e == &rfx_est_posh;
}

static int has_thm35(const struct rfx_estimator_type *e)
{
	return e == &rfx_est_ang || e == &rfx_est_ang_ind;
}

/* log W(r) = 2r^2 + log(1 - e^{-4r^2}) (HRF Lemma 3.4). */
static double log_w(double r)
{
	return 2.0 * r * r + rfx_log1mexp(-4.0 * r * r);
}

double rfx_pw_lemma34_log(double r, int m)
{
	return log_w(r) - 0.5 * log(2.0 * m);
}

/*
 * eq. 27 as printed: (1/r) sqrt(1/(2m)) W(r) sqrt(1/pi - 1/(n pi) +
 * 1/(n sqrt(pi))); corrected: the b2 term of eq. 64 scales as 1/r, not
 * 1/r^2, so W(r)/sqrt(2m) sqrt((1 - 1/n)/(pi r^2) + 1/(n sqrt(pi) r)).
 */
double rfx_pw_thm35_log(double r, int m, int n, int corrected)
{
	double sp = sqrt(RFX_PI), a;

	if (corrected)
		a = (1.0 - 1.0 / n) / (RFX_PI * r * r) + 1.0 / (n * sp * r);
	else
		a = (1.0 / RFX_PI - 1.0 / (n * RFX_PI) + 1.0 / (n * sp)) / (r * r);
	return log_w(r) - 0.5 * log(2.0 * m) + 0.5 * log(a);
}

static int check_config(const struct rfx_pw_config *c, double r_max,
			int min_theta, struct rfx_err *err)
{
	int k;

	if (c->d < 2)
		return rfx_error(err, RFX_EINVAL,
				 "pointwise pairs need d >= 2, got %d", c->d);
	if (c->nmethods < 1 || c->nr < 1)
		return rfx_error(err, RFX_EINVAL, "no methods or no lengths");
	if (c->ntheta < min_theta || c->ntheta > 1000000)
		return rfx_error(err, RFX_EINVAL,
				 "angles per length must be in [%d, 1000000], got %d",
				 min_theta, c->ntheta);
	for (k = 0; k < c->nr; k++)
		if (!(c->r[k] > 0.0 && c->r[k] <= r_max))
			return rfx_error(err, RFX_EINVAL,
					 "length r = %g is outside (0, %g]", c->r[k],
					 r_max);
	return RFX_OK;
}

/*
 * The pairs at length r: x (d entries), Y (n x d) at the angles th. At
 * theta = pi/2 and pi, y is placed exactly (r e2, -x): sin(pi) rounds to
 * 1.2e-16, not 0, and the closed forms resolve that angle (ang's variance
 * at pi - 1.2e-16 is not 0, while the grid means the opposite point).
 */
static void make_pairs(int d, double r, const double *th, int n, double *x,
		       double *Y)
{
	int j;

	memset(x, 0, (size_t)d * sizeof(double));
	memset(Y, 0, (size_t)n * (size_t)d * sizeof(double));
	x[0] = r;
	for (j = 0; j < n; j++) {
		double c = cos(th[j]), s = sin(th[j]);

		if (th[j] == RFX_PI) {
			c = -1.0;
			s = 0.0;
		} else if (th[j] == 0.5 * RFX_PI) {
			c = 0.0;
			s = 1.0;
		}
		Y[(size_t)j * (size_t)d] = r * c;
		Y[(size_t)j * (size_t)d + 1] = r * s;
	}
}

/* Fits method m to the set {x} x Y of n pairs into p (initialised here). */
static int fit_method(const struct rfx_pw_method *m, int d, const double *x,
		      const double *Y, int n, struct rfx_params *p,
		      struct rfx_err *err)
{
	int ret;

	rfx_params_init(p, d);
	ret = m->base ? rfx_params_copy(p, m->base, err) : RFX_OK;
	if (!ret)
		ret = m->e->fit(p, x, 1, Y, (size_t)n, m->M, err);
	return ret;
}

/* log Var of the Gaussian-kernel estimate for the n pairs (x, Y_j). */
static int log_vars(const struct rfx_pw_method *m, const struct rfx_params *p,
		    const double *x, const double *Y, int n, double *out,
		    struct rfx_err *err)
{
	struct rfx_block *b = rfx_block_alloc(p->d, 1, (size_t)n);
	int ret;

	if (!b)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_estimator_block(m->e, p, b, x, 1, Y, (size_t)n, err);
	if (!ret)
		ret = m->e->log_variance(p, b, m->M, out, err);
	rfx_block_free(b);
	return ret;
}

/* log K(x, y) for same-length pairs: -|x - y|^2/2 = -r^2 (1 - cos theta). */
static double log_k(double r, double th)
{
	double s = sin(0.5 * th);

	return -2.0 * r * r * s * s;
}

static void fill_head(const struct rfx_pw_method *m, const struct rfx_params *p,
		      int d, char *method, int *D, int *M, int *m1, int *m3)
{
	int hyb = (m->e->params & RFX_P(RFX_PARAM_M1)) != 0;

	snprintf(method, RFX_NAME_LEN, "%s", m->e->name);
	*D = d;
	*M = rfx_estimator_features(m->e, p, m->M);
	*m1 = hyb ? p->m1 : 0;
	*m3 = hyb ? p->m3 : 0;
}

/*
 * The task of (method i, length k), writing its rows from out on (see
 * run_tasks for how many).
 */
typedef int (*pw_task)(const struct rfx_pw_config *c, int i, int k,
		       void *out, struct rfx_err *err);

struct pw_sweep {
	const struct rfx_pw_config *c;
	pw_task task;
};

static int pw_cell(void *ctx, void *ws, size_t t, void *out,
		   struct rfx_err *err)
{
	const struct pw_sweep *sw = ctx;
	int nr = sw->c->nr;

	(void)ws;
	return sw->task(sw->c, (int)(t / (size_t)nr), (int)(t % (size_t)nr), out,
			err);
}

/*
 * Runs task(c, i, k, ...) for every (method i, length k) as the cells of
 * sweep name (lib/base/cells.h), OpenBLAS single-threaded; the first
 * failure in task order wins. A task writes at most per rows of rowsize
 * bytes into its cell. Without offset the cells are the consecutive
 * per-row blocks of rows; with it the task's rows are copied to row
 * offset(c, i, k), count(c, i, k) of them. inner: the cells run one at a
 * time, each parallel inside (memory stays at one cell's).
 */
static int run_tasks(const struct rfx_pw_config *c, const char *name,
		     pw_task task, void *rows, size_t rowsize, size_t per,
		     size_t (*offset)(const struct rfx_pw_config *, int, int),
		     int (*count)(const struct rfx_pw_config *, int, int),
		     int inner, struct rfx_err *err)
{
	size_t ntask = (size_t)c->nmethods * (size_t)c->nr, t;
	struct pw_sweep sw = { c, task };
	struct rfx_cells cells;
	char *buf = offset ? calloc(ntask ? ntask * per : 1, rowsize) : rows;
	int ret;

	if (!buf)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	cells = (struct rfx_cells){
		.name = name,
		.n = ntask,
		.size = per * rowsize,
		.out = buf,
		.ctx = &sw,
		.compute = pw_cell,
		.inner_parallel = inner,
		.progress = c->progress,
		.progress_ctx = c->progress_ctx,
	};
	ret = rfx_blas_cells_run(&cells, err);
	for (t = 0; offset && !ret && t < ntask; t++) {
		int i = (int)(t / (size_t)c->nr), k = (int)(t % (size_t)c->nr);

		memcpy((char *)rows + offset(c, i, k) * rowsize,
		       buf + t * per * rowsize, (size_t)count(c, i, k) * rowsize);
	}
	if (offset)
		free(buf);
	return ret;
}

/* Scratch of one task: x, Y, angles and values for n angles. */
struct pw_scratch {
	double *x, *Y, *th, *v;
};

static int scratch_alloc(struct pw_scratch *s, int d, int n,
			 struct rfx_err *err)
{
	s->x = malloc((size_t)d * sizeof(double));
	s->Y = malloc((size_t)n * (size_t)d * sizeof(double));
	s->th = malloc((size_t)n * sizeof(double));
	s->v = malloc((size_t)n * sizeof(double));
	if (!s->x || !s->Y || !s->th || !s->v)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	return RFX_OK;
}

static void scratch_free(struct pw_scratch *s)
{
	free(s->x);
	free(s->Y);
	free(s->th);
	free(s->v);
}

/*
 * The point set of method m at length r: c->ntheta angles in s->th (the
 * midpoints of equal arcs of [0, pi] when mid, else from 0 to pi both
 * included), the pairs (x, Y_j) of make_pairs, m's parameters fitted to
 * them in p, and their log-variances in s->v. p is initialised and s
 * allocated whatever happens: the caller releases both.
 */
static int point_set(const struct rfx_pw_config *c,
		     const struct rfx_pw_method *m, double r, int mid,
		     struct pw_scratch *s, struct rfx_params *p,
		     struct rfx_err *err)
{
	int j, n = c->ntheta, ret;

	rfx_params_init(p, c->d);
	ret = scratch_alloc(s, c->d, n, err);
	for (j = 0; !ret && j < n; j++)
		s->th[j] = mid		? RFX_PI * (j + 0.5) / n
			   : j == n - 1 ? RFX_PI
					: RFX_PI * j / (n - 1);
	if (!ret) {
		make_pairs(c->d, r, s->th, n, s->x, s->Y);
		rfx_params_release(p);
		ret = fit_method(m, c->d, s->x, s->Y, n, p, err);
	}
	if (!ret)
		ret = log_vars(m, p, s->x, s->Y, n, s->v, err);
	return ret;
}

/* ---- map ---------------------------------------------------------- */

size_t rfx_pw_map_nrows(const struct rfx_pw_config *c)
{
	return (size_t)c->nmethods * (size_t)c->nr * (size_t)c->ntheta;
}

static int map_task(const struct rfx_pw_config *c, int i, int k, void *rows,
		    struct rfx_err *err)
{
	const struct rfx_pw_method *m = &c->methods[i];
	struct rfx_pw_map_row *out = rows;
	struct pw_scratch s;
	struct rfx_params p;
	double r = c->r[k];
	int j, n = c->ntheta, ret;

	ret = point_set(c, m, r, 1, &s, &p, err);
	for (j = 0; !ret && j < n; j++) {
		struct rfx_pw_map_row *row = &out[j];

		if (!isfinite(s.v[j])) {
			ret = rfx_error(err, RFX_EINVAL,
					"%s: variance %s at r = %g, theta = %g",
					m->e->name,
					s.v[j] < 0 ? "vanishes" : "is not finite",
					r, s.th[j]);
			break;
		}
		memset(row, 0, sizeof(*row));
		fill_head(m, &p, c->d, row->method, &row->d, &row->M, &row->m1,
			  &row->m3);
		row->r = r;
		row->theta = s.th[j];
		row->log_sm = r * r * cos(s.th[j]);
		row->log_mse = s.v[j] + 2.0 * r * r;
		row->log_rel_err = 0.5 * s.v[j] - log_k(r, s.th[j]);
	}
	scratch_free(&s);
	rfx_params_release(&p);
	return ret;
}

int rfx_pw_map_run(const struct rfx_pw_config *c, struct rfx_pw_map_row *rows,
		   struct rfx_err *err)
{
	int ret = check_config(c, RFX_PW_R_MAX, 1, err);

	return ret ? ret
		   : run_tasks(c, "pointwise-map", map_task, rows, sizeof(*rows),
			       (size_t)c->ntheta, NULL, NULL, 0, err);
}

/* ---- estimates ---------------------------------------------------- */

size_t rfx_pw_est_nrows(const struct rfx_pw_config *c)
{
	return (size_t)c->nmethods * (size_t)c->nr * (size_t)c->ntheta;
}

/*
 * log |v - 1| for v = sign e^u, the estimate relative to the truth:
 * the squared error's log, halved.
 */
static double log_abs_err(double u, int sign)
{
	if (sign == 0)
		return 0.0;
	if (sign < 0)
		return u > 0.0 ? u + log1p(exp(-u)) : log1p(exp(u));
	if (u > 0.0)
		return rfx_logexpm1(u);
	return u < 0.0 ? rfx_log1mexp(u) : -INFINITY;
}

/*
 * Summary of the s estimates of one point (stride between draws), given
 * relative to the truth through lk = log K: mean, quantiles and the root
 * mean squared error, all relative. buf holds s doubles.
 */
static int summarize_point(const double *labs, const signed char *sg, long s,
			   size_t stride, double lk, double *buf,
			   double *mean, double *p05, double *p95,
			   double *rel_err)
{
	double sum = 0.0, m = -INFINITY, acc = 0.0;
	long q;

	for (q = 0; q < s; q++) {
		double u = labs[(size_t)q * stride] - lk;
		int sign = sg[(size_t)q * stride];
		double t = 2.0 * log_abs_err(u, sign);

		buf[q] = sign ? sign * exp(u) : 0.0;
		sum += buf[q];
		if (t > m) {
			acc = acc * exp(m - t) + 1.0;
			m = t;
		} else if (t > -INFINITY) {
			acc += exp(t - m);
		}
	}
	gsl_sort(buf, 1, (size_t)s);
	*mean = sum / (double)s;
	*p05 = gsl_stats_quantile_from_sorted_data(buf, 1, (size_t)s, 0.05);
	*p95 = gsl_stats_quantile_from_sorted_data(buf, 1, (size_t)s, 0.95);
	*rel_err = m == -INFINITY ? 0.0 : exp(0.5 * (m + log(acc / (double)s)));
	return isfinite(*mean) && isfinite(*p05) && isfinite(*p95) &&
	       isfinite(*rel_err);
}

/* The Monte Carlo columns of (method i, length k): chunks in parallel. */
static int est_mc(const struct rfx_pw_config *c, const struct rfx_pw_method *m,
		  const struct rfx_params *p, int k, const struct pw_scratch *s,
		  struct rfx_pw_est_row *out, struct rfx_err *err)
{
	int n = c->ntheta, j, ret = RFX_OK;
	long nchunk = (c->s + RFX_PW_CHUNK - 1) / RFX_PW_CHUNK, ch;
	size_t ri;
	double *X = malloc((size_t)n * (size_t)c->d * sizeof(double));
	double *labs = malloc((size_t)c->s * (size_t)n * sizeof(double));
	signed char *sg = malloc((size_t)c->s * (size_t)n);
	struct rfx_err *errs = calloc((size_t)nchunk, sizeof(*errs));
	int *rets = calloc((size_t)nchunk, sizeof(int));
	int bad = 0;

	if (!X || !labs || !sg || !errs || !rets) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for %ld estimates of %d points",
				c->s, n);
		goto out;
	}
	for (ri = 0; ri < (size_t)n; ri++)
		memcpy(X + ri * (size_t)c->d, s->x, (size_t)c->d * sizeof(double));
#pragma omp parallel for schedule(dynamic)
	for (ch = 0; ch < nchunk; ch++) {
		long q0 = ch * RFX_PW_CHUNK;
		long cnt = c->s - q0 < RFX_PW_CHUNK ? c->s - q0 : RFX_PW_CHUNK;
		gsl_rng *r = rfx_rng_alloc_key(c->seed, &(struct rfx_rng_key){
			.exp = "pointwise", .what = "draws", .name = { m->e->name },
			.i = rfx_rng_bits(c->r[k]), .j = (uint64_t)ch });

		if (!r) {
			rets[ch] = rfx_error(&errs[ch], RFX_ENOMEM, "out of memory");
			continue;
		}
		rets[ch] = rfx_mc_estimates(m->e, p, c->proj, m->M, X, s->Y,
					    (size_t)n, cnt, r,
					    labs + (size_t)q0 * (size_t)n,
					    sg + (size_t)q0 * (size_t)n, &errs[ch]);
		gsl_rng_free(r);
	}
	for (ch = 0; ch < nchunk && !ret; ch++)
		if (rets[ch]) {
			ret = rets[ch];
			*err = errs[ch];
		}
	if (ret)
		goto out;
#pragma omp parallel for schedule(dynamic) reduction(| : bad)
	for (j = 0; j < n; j++) {
		struct rfx_pw_est_row *row = &out[j];
		double *buf = malloc((size_t)c->s * sizeof(double));
		double mean, p05, p95, re;

		if (!buf) {
			bad |= 2;
			continue;
		}
		if (!summarize_point(labs + j, sg + j, c->s, (size_t)n,
				     log_k(c->r[k], s->th[j]), buf, &mean, &p05,
				     &p95, &re))
			bad |= 1;
		row->s = c->s;
		row->mean = row->sm * mean;
		row->p05 = row->sm * p05;
		row->p95 = row->sm * p95;
		row->emp_rel_err = re;
		free(buf);
	}
	if (bad & 2)
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	else if (bad)
		ret = rfx_error(err, RFX_EINVAL,
				"%s: estimates at r = %g exceed double range",
				m->e->name, c->r[k]);
out:
	free(X);
	free(labs);
	free(sg);
	free(errs);
	free(rets);
	return ret;
}

static int est_one(const struct rfx_pw_config *c, int i, int k, void *rows,
		   struct rfx_err *err)
{
	const struct rfx_pw_method *m = &c->methods[i];
	struct rfx_pw_est_row *out = rows;
	struct pw_scratch s;
	struct rfx_params p;
	double r = c->r[k];
	int j, n = c->ntheta, ret;

	ret = point_set(c, m, r, 0, &s, &p, err);
	for (j = 0; !ret && j < n; j++) {
		struct rfx_pw_est_row *row = &out[j];
		double lk = log_k(r, s.th[j]);

		memset(row, 0, sizeof(*row));
		fill_head(m, &p, c->d, row->method, &row->d, &row->M, &row->m1,
			  &row->m3);
		row->flops = m->flops;
		row->r = r;
		row->theta = s.th[j];
		row->log_sm = r * r * cos(s.th[j]);
		row->sm = exp(row->log_sm);
		/*
		 * The log is the result; the value beside it reads inf where
		 * it leaves double range (PoisRF, the complex exponential
		 * near r = 10), as the pair table's variance does.
		 */
		row->log_ana_rel_err = s.v[j] == -INFINITY ? -INFINITY
							   : 0.5 * s.v[j] - lk;
		row->ana_rel_err = exp(row->log_ana_rel_err);
	}
	if (!ret && c->s > 0)
		ret = est_mc(c, m, &p, k, &s, out, err);
	scratch_free(&s);
	rfx_params_release(&p);
	return ret;
}

int rfx_pw_est_run(const struct rfx_pw_config *c, struct rfx_pw_est_row *rows,
		   struct rfx_err *err)
{
	int ret = check_config(c, RFX_PW_R_MAX_MC, 2, err);

	if (ret)
		return ret;
	if (c->s == 1 || c->s < 0 || c->s > 100000000L)
		return rfx_error(err, RFX_EINVAL,
				 "estimates per point must be 0 or in [2, 1e8], got %ld",
				 c->s);
	/*
	 * (method, r) one after another, each one's chunks and angles in
	 * parallel: memory stays at one point set's estimates.
	 */
	return run_tasks(c, "pointwise", est_one, rows, sizeof(*rows),
			 (size_t)c->ntheta, NULL, NULL, 1, err);
}

/* ---- maxerr ------------------------------------------------------- */

static int curves_of(const struct rfx_estimator_type *e, double r)
{
	return 1 + (has_lemma34(e) ? 1 : 0) + (has_thm35(e) && r >= 1.0 ? 2 : 0);
}

size_t rfx_pw_max_nrows(const struct rfx_pw_config *c)
{
	size_t n = 0;
	int i, k;

	for (i = 0; i < c->nmethods; i++)
		for (k = 0; k < c->nr; k++)
			n += (size_t)curves_of(c->methods[i].e, c->r[k]);
	return n;
}

/* Rows of (method i, length k) in the maxerr table (at most 4). */
static int max_count(const struct rfx_pw_config *c, int i, int k)
{
	return curves_of(c->methods[i].e, c->r[k]);
}

/* Row offset of (method i, length k) in the maxerr table. */
static size_t max_offset(const struct rfx_pw_config *c, int i, int k)
{
	size_t n = 0;
	int a, b;

	for (a = 0; a <= i; a++)
		for (b = 0; b < (a < i ? c->nr : k); b++)
			n += (size_t)curves_of(c->methods[a].e, c->r[b]);
	return n;
}

/* log eps at one angle, for golden-section search. */
static int log_eps_at(const struct rfx_pw_method *m, const struct rfx_params *p,
		      int d, double r, double th, double *x, double *y,
		      double *out, struct rfx_err *err)
{
	double lv;
	int ret;

	make_pairs(d, r, &th, 1, x, y);
	ret = log_vars(m, p, x, y, 1, &lv, err);
	*out = 0.5 * lv - log_k(r, th);
	return ret;
}

static int max_task(const struct rfx_pw_config *c, int i, int k, void *rows,
		    struct rfx_err *err)
{
	const struct rfx_pw_method *m = &c->methods[i];
	struct rfx_pw_max_row *out = rows;
	struct pw_scratch s;
	struct rfx_params p;
	double r = c->r[k], best = -INFINITY, bt = 0.0, *y1 = NULL;
	int j, n = c->ntheta, jb = -1, ret, row = 0;

	ret = point_set(c, m, r, 0, &s, &p, err);
	if (!ret && !(y1 = malloc((size_t)c->d * sizeof(double))))
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	for (j = 0; !ret && j < n; j++) {
		double le = 0.5 * s.v[j] - log_k(r, s.th[j]);

		if (le > best) {
			best = le;
			jb = j;
		}
	}
	if (!ret && jb < 0)
		ret = rfx_error(err, RFX_EINVAL,
				"%s: zero variance on the whole sphere r = %g",
				m->e->name, r);
	if (!ret) {
		/* Golden-section search for the maximum between the neighbours. */
		const double g = 0.5 * (sqrt(5.0) - 1.0);
		double a = s.th[jb > 0 ? jb - 1 : 0], b = s.th[jb < n - 1 ? jb + 1 : n - 1];
		double t1 = b - g * (b - a), t2 = a + g * (b - a), f1, f2;
		int it;

		bt = s.th[jb];
		ret = log_eps_at(m, &p, c->d, r, t1, s.x, y1, &f1, err);
		if (!ret)
			ret = log_eps_at(m, &p, c->d, r, t2, s.x, y1, &f2, err);
		for (it = 0; !ret && it < 80 && b - a > 1e-12; it++) {
			if (f1 > f2) {
				b = t2;
				t2 = t1;
				f2 = f1;
				t1 = b - g * (b - a);
				ret = log_eps_at(m, &p, c->d, r, t1, s.x, y1, &f1, err);
			} else {
				a = t1;
				t1 = t2;
				f1 = f2;
				t2 = a + g * (b - a);
				ret = log_eps_at(m, &p, c->d, r, t2, s.x, y1, &f2, err);
			}
		}
		if (!ret && f1 > best) {
			best = f1;
			bt = t1;
		}
		if (!ret && f2 > best) {
			best = f2;
			bt = t2;
		}
	}
	if (!ret && !isfinite(best))
		ret = rfx_error(err, RFX_EINVAL,
				"%s: relative error at r = %g is not finite",
				m->e->name, r);
	if (!ret) {
		struct rfx_pw_max_row base;
		int M, m1, m3;

		memset(&base, 0, sizeof(base));
		fill_head(m, &p, c->d, base.method, &base.d, &base.M, &base.m1,
			  &base.m3);
		M = base.M;
		m1 = base.m1;
		m3 = base.m3;
		base.r = r;
		out[row] = base;
		snprintf(out[row].curve, sizeof(out[row].curve), "numeric");
		out[row].theta = bt;
		out[row++].log_rel_err = best;
		if (has_lemma34(m->e)) {
			out[row] = base;
			snprintf(out[row].curve, sizeof(out[row].curve), "lemma3.4");
			out[row].theta = m->e == &rfx_est_trig ? RFX_PI : 0.0;
			out[row++].log_rel_err = rfx_pw_lemma34_log(r, M);
		}
		if (has_thm35(m->e) && r >= 1.0) {
			out[row] = base;
			snprintf(out[row].curve, sizeof(out[row].curve), "thm3.5");
			out[row].theta = bt;
			out[row++].log_rel_err = rfx_pw_thm35_log(r, m1, m3, 0);
			out[row] = base;
			snprintf(out[row].curve, sizeof(out[row].curve),
				 "thm3.5-corrected");
			out[row].theta = bt;
			out[row++].log_rel_err = rfx_pw_thm35_log(r, m1, m3, 1);
		}
	}
	free(y1);
	scratch_free(&s);
	rfx_params_release(&p);
	return ret;
}

int rfx_pw_max_run(const struct rfx_pw_config *c, struct rfx_pw_max_row *rows,
		   struct rfx_err *err)
{
	int ret = check_config(c, RFX_PW_R_MAX, 3, err);

	return ret ? ret
		   : run_tasks(c, "pointwise-max", max_task, rows, sizeof(*rows),
			       4, max_offset, max_count, 0, err);
}

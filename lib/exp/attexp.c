/*
 * The error study and the timing of `rfx attention` (attexp.h): exact
 * attention once per run, then draws of every estimator's maps applied
 * under every stabiliser variant; and wall-clock times of exact attention,
 * random-feature attention and the copy of V as L grows.
 */
#include "exp/attexp.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "base/cancel.h"
#include "base/rng.h"
#include "data/regime.h"
#include "num/blas.h"
#include "num/ssq.h"

static int nvariants(const struct rfx_attexp_config *c)
{
	return c->nstabs * c->neps * c->nprec;
}

size_t rfx_attexp_rows(const struct rfx_attexp_config *c)
{
	size_t n = 0;
	int k;

	for (k = 0; k < c->nmethods; k++)
		n += (c->methods[k]->flags & RFX_EST_DISCRETE) ? 1 : (size_t)c->nprojs;
	return n * (size_t)c->nM * (size_t)nvariants(c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	/* NaN last */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

/* Mean, sd and quantiles of x[0..R-1] (sorted in place). */
static void summarise(double *x, long R, struct rfx_attexp_stat *s)
{
	double m = 0.0;
	long k;

	for (k = 0; k < R; k++)
		m += x[k];
	m /= (double)R;
	s->mean = m;
	s->sd = rfx_ssq_sd(x, (size_t)R, m);
	/*
	 * An infinite value (norm_rel beyond e^709, log_norm_rel -inf for an
	 * exact normaliser) makes inf - inf: the sd is 0 if every draw has
	 * that value, else unbounded. NaN (no finite row) stays NaN.
	 */
	if (isinf(m) && R > 1) {
		s->sd = 0.0;
		for (k = 0; k < R; k++)
			s->sd = x[k] != m ? INFINITY : s->sd;
	}
	qsort(x, (size_t)R, sizeof(double), cmp_double);
	s->q50 = x[(R - 1) / 2];
	s->q90 = x[(long)floor(0.9 * (double)(R - 1) + 0.5)];
}

/* The errors of one draw, as an array in rfx_att_error_names order. */
static void err_array(const struct rfx_att_errors *e, double *a)
{
	a[0] = e->out_rel_fro;
	a[1] = e->out_rel_max;
	a[2] = e->out_mse;
	a[3] = e->att_mse;
	a[4] = e->norm_rel;
	a[5] = e->frac_nonpos;
	a[6] = e->frac_nonfinite;
	a[7] = e->log_norm_rel;
}

/* Everything one run shares: exact attention and the sampled rows. */
struct shared {
	double *out0, *logD0;   /* exact output and log normalisers */
	size_t *rows, ns;       /* rows sampled for att_mse */
	double *logit0;         /* their exact logits, ns x nk */
	double *G, *gwork;      /* estimates of those rows, gather buffer */
	double *out, *logDh;    /* one variant's output */
	signed char *sg;
	double *errs;           /* R x variants x RFX_ATT_NERR */
	double *col;            /* R */
};

static int run_cell(const struct rfx_attexp_config *c, struct shared *sh,
		    const struct rfx_estimator_type *e, int ip, int budget, int M,
		    const struct rfx_params *p, struct rfx_att_ws *ws,
		    struct rfx_draw *w, gsl_rng *r, struct rfx_attexp_row *rows,
		    struct rfx_attexp_draw_row *per_draw, struct rfx_err *err)
{
	int nv = nvariants(c), v, k, disc = !!(e->flags & RFX_EST_DISCRETE);
	enum rfx_proj proj = disc ? RFX_PROJ_IID : c->projs[ip];
	long q;
	int ret;

	for (q = 0; q < c->draws; q++) {
		if (rfx_cancel_requested())
			return rfx_error(err, RFX_EINTR, "interrupted");
		{
			/* named, so no other method or list order moves them */
			struct rfx_rng_key key = { "attention", "draws",
						   { e->name, rfx_proj_name(proj) },
						   (uint64_t)q, 0 };

			rfx_rng_set_key(r, c->seed, &key);
		}
		ret = e->draw(r, proj, p, M, w, err);
		if (!ret)
			ret = rfx_attention_maps(ws, e, p, w, c->Q, c->K, M, err);
		if (ret)
			return ret;
		for (v = 0; v < nv; v++) {
			struct rfx_att_opts o;
			struct rfx_att_errors ae;

			o.causal = c->causal;
			o.stab = c->stabs[v / (c->neps * c->nprec)];
			o.eps = c->eps[(v / c->nprec) % c->neps];
			o.f32 = c->f32[v % c->nprec];
			ret = rfx_attention_apply(ws, c->V, &o, sh->out, sh->logDh,
						  sh->sg, err);
			if (ret)
				return ret;
			rfx_attention_rows(ws, sh->rows, sh->ns, c->causal, sh->G,
					   sh->gwork);
			rfx_attention_errors(c->nq, c->nk, c->dv, sh->out0, sh->logD0,
					     sh->out, sh->logDh, sh->sg, sh->rows,
					     sh->ns, sh->logit0, sh->G, c->causal, &ae);
			err_array(&ae, sh->errs + ((size_t)q * nv + v) * RFX_ATT_NERR);
		}
	}
	for (v = 0; v < nv; v++) {
		struct rfx_attexp_row *row = rows + v;

		memset(row, 0, sizeof(*row));
		snprintf(row->method, sizeof(row->method), "%s", e->name);
		snprintf(row->proj, sizeof(row->proj), "%s",
			 disc ? "n/a" : rfx_proj_name(proj));
		snprintf(row->stab, sizeof(row->stab), "%s",
			 rfx_att_stab_name(c->stabs[v / (c->neps * c->nprec)]));
		rfx_params_format(p, e, row->params, sizeof(row->params));
		row->budget = budget;
		row->M = M;
		row->features = ws->Dr;
		row->causal = c->causal;
		row->f32 = c->f32[v % c->nprec];
		row->eps = c->eps[(v / c->nprec) % c->neps];
		row->draws = c->draws;
		row->L = (long)c->nk;
		row->d = c->d;
		for (q = 0; per_draw && q < c->draws; q++) {
			struct rfx_attexp_draw_row *dr = per_draw + (size_t)v * c->draws + q;

			memset(dr, 0, sizeof(*dr));
			memcpy(dr->method, row->method, sizeof(dr->method));
			memcpy(dr->proj, row->proj, sizeof(dr->proj));
			memcpy(dr->stab, row->stab, sizeof(dr->stab));
			dr->budget = budget;
			dr->M = M;
			dr->f32 = row->f32;
			dr->eps = row->eps;
			dr->draw = q;
			memcpy(dr->e, sh->errs + ((size_t)q * nv + v) * RFX_ATT_NERR,
			       sizeof(dr->e));
		}
		for (k = 0; k < RFX_ATT_NERR; k++) {
			for (q = 0; q < c->draws; q++)
				sh->col[q] = sh->errs[((size_t)q * nv + v) * RFX_ATT_NERR + k];
			summarise(sh->col, c->draws, &row->s[k]);
		}
	}
	return RFX_OK;
}

/*
 * V's entries, which no estimator checks as it does Q's and K's: finite
 * and within RFX_INPUT_MAX, so that the output errors' squares stay in
 * double range, and within float range when a variant computes in
 * float32 (beyond it every output row was inf, and the errors NaN).
 */
static int check_values(const struct rfx_attexp_config *c,
			struct rfx_err *err)
{
	double lim = RFX_INPUT_MAX;
	const char *why = "";
	size_t i, n = c->nk * (size_t)c->dv;
	int k;

	for (k = 0; k < c->nprec; k++)
		if (c->f32[k]) {
			lim = FLT_MAX;
			why = " (float32's range, --precision f32)";
		}
	for (i = 0; i < n; i++)
		if (!(fabs(c->V[i]) <= lim))
			return rfx_error(err, RFX_EINVAL,
					 "V has %g at row %zu column %zu, beyond %g%s",
					 c->V[i], i / (size_t)c->dv + 1,
					 i % (size_t)c->dv + 1, lim, why);
	return RFX_OK;
}

static int check_config(const struct rfx_attexp_config *c, struct rfx_err *err)
{
	if (c->nq == 0 || c->nk == 0 || c->d < 1 || c->dv < 1)
		return rfx_error(err, RFX_EINVAL, "attention needs non-empty Q, K and V");
	if (c->causal && c->nq != c->nk)
		return rfx_error(err, RFX_EINVAL,
				 "causal attention needs as many queries as keys, got %zu and %zu",
				 c->nq, c->nk);
	if (c->nmethods < 1 || c->nprojs < 1 || c->nM < 1 || c->nstabs < 1 ||
	    c->neps < 1 || c->nprec < 1)
		return rfx_error(err, RFX_EINVAL, "every list needs at least one item");
	if (c->draws < 1)
		return rfx_error(err, RFX_EINVAL, "draws must be >= 1, got %ld",
				 c->draws);
	return check_values(c, err);
}

int rfx_attexp_run(const struct rfx_attexp_config *c,
		   struct rfx_attexp_row *rows, struct rfx_attexp_draw_row *per_draw,
		   void (*progress)(void *, int, int), void *arg,
		   struct rfx_err *err)
{
	struct shared sh;
	size_t nq = c->nq, nk = c->nk, a, done = 0, total = rfx_attexp_rows(c);
	double *X = NULL, *Y = NULL, s = pow((double)c->d, -0.25);
	int nv = nvariants(c), ret, k, im, ip, saved;
	gsl_rng *r = NULL;

	ret = check_config(c, err);
	if (ret)
		return ret;
	memset(&sh, 0, sizeof(sh));
	sh.ns = c->att_rows && c->att_rows < nq ? c->att_rows : nq;
	sh.out0 = malloc(nq * (size_t)c->dv * sizeof(double));
	sh.logD0 = malloc(nq * sizeof(double));
	sh.rows = malloc(sh.ns * sizeof(size_t));
	sh.logit0 = malloc(sh.ns * nk * sizeof(double));
	sh.G = malloc(sh.ns * nk * sizeof(double));
	sh.out = malloc(nq * (size_t)c->dv * sizeof(double));
	sh.logDh = malloc(nq * sizeof(double));
	sh.sg = malloc(nq);
	sh.errs = malloc((size_t)c->draws * (size_t)nv * RFX_ATT_NERR * sizeof(double));
	sh.col = malloc((size_t)c->draws * sizeof(double));
	X = malloc(nq * (size_t)c->d * sizeof(double));
	Y = malloc(nk * (size_t)c->d * sizeof(double));
	{
		/* seeded per draw in run_cell */
		struct rfx_rng_key key = { "attention", "draws", { NULL }, 0, 0 };

		r = rfx_rng_alloc_key(c->seed, &key);
	}
	if (!sh.out0 || !sh.logD0 || !sh.rows || !sh.logit0 || !sh.G || !sh.out ||
	    !sh.logDh || !sh.sg || !sh.errs || !sh.col || !X || !Y || !r) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for attention of %zu x %zu",
				nq, nk);
		goto out;
	}
	saved = rfx_blas_single_begin();
	ret = rfx_attention_exact(c->Q, nq, c->K, nk, c->d, c->V, c->dv, c->causal,
				  sh.out0, sh.logD0, err);
	/* evenly spread sample rows and their exact logits */
	for (a = 0; a < sh.ns; a++)
		sh.rows[a] = a * nq / sh.ns;
	for (a = 0; !ret && a < sh.ns; a++)
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)nk, c->d,
			    1.0 / sqrt((double)c->d), c->K, c->d,
			    c->Q + sh.rows[a] * (size_t)c->d, 1, 0.0,
			    sh.logit0 + a * nk, 1);
	for (a = 0; a < nq * (size_t)c->d; a++)
		X[a] = s * c->Q[a];
	for (a = 0; a < nk * (size_t)c->d; a++)
		Y[a] = s * c->K[a];
	for (k = 0; !ret && k < c->nmethods; k++) {
		const struct rfx_estimator_type *e = c->methods[k];
		int disc = !!(e->flags & RFX_EST_DISCRETE);

		for (im = 0; !ret && im < c->nM; im++) {
			int M = c->fair ? rfx_estimator_fair_features(e, c->Ms[im])
					: c->Ms[im];
			struct rfx_params p;
			struct rfx_att_ws *ws = NULL;
			struct rfx_draw *w = NULL;
			int D, j, taken;

			rfx_params_init(&p, c->d);
			for (j = 0; !ret && j < c->nassign; j++)
				ret = rfx_params_apply(&p, e, c->assign[j], &taken, err);
			if (!ret)
				ret = e->fit(&p, X, nq, Y, nk, M, err);
			D = ret ? 0 : rfx_estimator_feature_dim(e, &p, M);
			if (!ret) {
				ws = rfx_att_ws_alloc(nq, nk, c->d, c->dv, D > M ? D : M);
				w = rfx_draw_alloc(c->d, D > M ? D : M);
				free(sh.gwork);
				sh.gwork = malloc(sh.ns * 2 * (size_t)(D > M ? D : M) *
						  sizeof(double));
				if (!ws || !w || !sh.gwork)
					ret = rfx_error(err, RFX_ENOMEM,
							"out of memory for %s with M = %d",
							e->name, M);
			}
			for (ip = 0; !ret && ip < (disc ? 1 : c->nprojs); ip++) {
				ret = run_cell(c, &sh, e, ip, c->Ms[im], M, &p, ws, w, r,
					       rows + done,
					       per_draw ? per_draw + done * (size_t)c->draws
							: NULL,
					       err);
				done += (size_t)nv;
				if (progress)
					progress(arg, (int)done, (int)total);
			}
			rfx_att_ws_free(ws);
			rfx_draw_free(w);
			rfx_params_release(&p);
		}
	}
	rfx_blas_single_end(saved);
out:
	free(sh.out0);
	free(sh.logD0);
	free(sh.rows);
	free(sh.logit0);
	free(sh.G);
	free(sh.gwork);
	free(sh.out);
	free(sh.logDh);
	free(sh.sg);
	free(sh.errs);
	free(sh.col);
	free(X);
	free(Y);
	if (r)
		gsl_rng_free(r);
	return ret;
}

/* ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
 * The resident set in MiB, VmRSS (now) or VmHWM (its peak since the last
 * reset_peak), from /proc/self/status; NaN where there is none.
 */
static double rss_mib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kb = NAN;
	size_t n = strlen(key);

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			kb = strtod(line + n + 1, NULL);
			break;
		}
	fclose(f);
	return kb / 1024.0;
}

/* Resets VmHWM to the current resident set (Linux >= 4.0); 0 on success. */
static int reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Least-squares slope of log y on log x over the n points. */
static double slope(const double *x, const double *y, int n)
{
	double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
	int k;

	for (k = 0; k < n; k++) {
		mx += log(x[k]);
		my += log(y[k]);
	}
	mx /= n;
	my /= n;
	for (k = 0; k < n; k++) {
		sxy += (log(x[k]) - mx) * (log(y[k]) - my);
		sxx += (log(x[k]) - mx) * (log(x[k]) - mx);
	}
	return sxx > 0.0 ? sxy / sxx : NAN;
}

int rfx_attexp_timing(const long *Ls, int n, long Lexact_max, int d, int M,
		      const struct rfx_estimator_type *e, enum rfx_proj proj,
		      int reps, uint64_t seed, long Lfit_min,
		      struct rfx_attexp_time_row *rows, size_t *nrows,
		      struct rfx_attexp_fit_row *fits, size_t *nfits,
		      struct rfx_err *err)
{
	static const char *const what[3] = { "exact", "rf", "floor" };
	long Lmax = 0;
	double *Q = NULL, *K = NULL, *V = NULL, *out = NULL, *X = NULL;
	double *xs = NULL, *ys = NULL;
	struct rfx_att_ws *ws = NULL;
	struct rfx_draw *w = NULL;
	struct rfx_params p;
	gsl_rng *r = NULL;
	size_t nr = 0, k;
	int i, ret = RFX_OK, causal, wi, D;

	*nrows = *nfits = 0;
	rfx_params_init(&p, d);
	for (i = 0; i < n; i++) {
		if (Ls[i] < 2)
			return rfx_error(err, RFX_EINVAL, "L must be >= 2, got %ld", Ls[i]);
		Lmax = Ls[i] > Lmax ? Ls[i] : Lmax;
	}
	if (d < 1 || M < 1 || reps < 1 || n < 1)
		return rfx_error(err, RFX_EINVAL, "timing needs d, M, reps >= 1");
	Q = malloc((size_t)Lmax * d * sizeof(double));
	K = malloc((size_t)Lmax * d * sizeof(double));
	V = malloc((size_t)Lmax * d * sizeof(double));
	out = malloc((size_t)Lmax * d * sizeof(double));
	X = malloc((size_t)Lmax * sizeof(double));
	xs = malloc((size_t)n * sizeof(double));
	ys = malloc((size_t)n * sizeof(double));
	{
		struct rfx_rng_key key = { "attention", "timing", { NULL }, 0, 0 };

		r = rfx_rng_alloc_key(seed, &key);
	}
	if (!Q || !K || !V || !out || !X || !xs || !ys || !r) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for L = %ld", Lmax);
		goto out;
	}
	ret = rfx_regime_sample(r, RFX_REGIME_NORMAL, 1.0 / sqrt((double)d), d,
				(size_t)Lmax, NULL, Q, K, err);
	if (!ret) /* V and a scratch copy into out */
		ret = rfx_regime_sample(r, RFX_REGIME_NORMAL, 1.0, d, (size_t)Lmax,
					NULL, V, out, err);
	for (causal = 0; !ret && causal < 2; causal++)
		for (i = 0; !ret && i < n; i++) {
			size_t L = (size_t)Ls[i];

			for (wi = 0; !ret && wi < 3; wi++) {
				double best = INFINITY, bytes = 0.0, t0, spent = 0.0;
				double base = NAN;
				int q;

				if (wi == 0 && Ls[i] > Lexact_max)
					continue;
				/* the peak resident set from here, the workspace included */
				if (reset_peak() == 0)
					base = rss_mib("VmRSS");
				if (wi == 1) {
					ret = e->fit(&p, Q, L, K, L, M, err);
					D = ret ? 1 : rfx_estimator_feature_dim(e, &p, M);
					ws = ret ? NULL : rfx_att_ws_alloc(L, L, d, d, D);
					w = ret ? NULL : rfx_draw_alloc(d, D > M ? D : M);
					if (!ret && (!ws || !w))
						ret = rfx_error(err, RFX_ENOMEM,
								"out of memory for L = %zu", L);
					/* what the computation touches (ws allocates more) */
					bytes = 8.0 * ((double)L * d * 2 + /* scaled inputs */
						       2.0 * L * D * 3 +  /* featmats */
						       2.0 * L * D +      /* stabilised */
						       (double)L * (d + 1) * 2 +
						       (double)D * (d + 1));
				} else if (wi == 0) {
					bytes = 8.0 * ((double)L * d + /* K^T */
						       2.0 * (64.0 * 512 + 64.0 * (d + 2)));
				}
				/* best of reps runs, fewer once a second is spent */
				for (q = 0; !ret && q < reps && spent < 1.0; q++) {
					struct rfx_att_opts o = { causal, RFX_ATT_STAB_ROW, 0.0, 0 };

					if (rfx_cancel_requested()) {
						ret = rfx_error(err, RFX_EINTR, "interrupted");
						break;
					}
					t0 = now();
					if (wi == 0) {
						ret = rfx_attention_exact(Q, L, K, L, d, V, d, causal,
									  out, X, err);
					} else if (wi == 1) {
						ret = e->draw(r, proj, &p, M, w, err);
						if (!ret)
							ret = rfx_attention_maps(ws, e, &p, w, Q, K, M,
										 err);
						if (!ret)
							ret = rfx_attention_apply(ws, V, &o, out, NULL,
										  NULL, err);
					} else {
						memcpy(out, V, L * (size_t)d * sizeof(double));
					}
					t0 = now() - t0;
					spent += t0;
					best = t0 < best ? t0 : best;
				}
				rows[nr].peak_mib = rss_mib("VmHWM") - base;
				if (wi == 1) {
					rfx_att_ws_free(ws);
					rfx_draw_free(w);
					ws = NULL;
					w = NULL;
				}
				if (ret)
					break;
				snprintf(rows[nr].what, sizeof(rows[nr].what), "%s", what[wi]);
				rows[nr].causal = causal;
				rows[nr].L = (long)L;
				rows[nr].d = d;
				rows[nr].M = wi == 1 ? M : 0;
				rows[nr].seconds = best;
				rows[nr].mbytes = bytes / 1048576.0;
				nr++;
			}
		}
	*nrows = nr;
	/* exponents over L >= Lfit_min */
	for (causal = 0; !ret && causal < 2; causal++)
		for (wi = 0; wi < 3; wi++) {
			int m = 0;
			long lo = 0, hi = 0;

			for (k = 0; k < nr; k++)
				if (rows[k].causal == causal && !strcmp(rows[k].what, what[wi]) &&
				    rows[k].L >= Lfit_min && rows[k].seconds > 0.0) {
					xs[m] = (double)rows[k].L;
					ys[m] = rows[k].seconds;
					lo = m == 0 ? rows[k].L : lo;
					hi = rows[k].L;
					m++;
				}
			if (m < 2)
				continue;
			snprintf(fits[*nfits].what, sizeof(fits[*nfits].what), "%s", what[wi]);
			fits[*nfits].causal = causal;
			fits[*nfits].exponent = slope(xs, ys, m);
			fits[*nfits].L_from = lo;
			fits[*nfits].L_to = hi;
			(*nfits)++;
		}
out:
	rfx_att_ws_free(ws);
	rfx_draw_free(w);
	rfx_params_release(&p);
	free(Q);
	free(K);
	free(V);
	free(out);
	free(X);
	free(xs);
	free(ys);
	if (r)
		gsl_rng_free(r);
	return ret;
}

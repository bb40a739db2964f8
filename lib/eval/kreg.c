/*
 * Kernel regression classification, exact and by random features. The
 * exact path sorts the training rows by class once, so that every class is
 * a contiguous segment whose log-sum-exp vectorises; the random-feature
 * path streams the training set through the estimator's feature map in
 * chunks, accumulating the class sums of the feature rows with a running
 * log-scale.
 */
#include "eval/kreg.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "num/blas.h"
#include "base/cancel.h"
#include "est/featmap.h"
#include "num/logmath.h"

#define EXACT_BLOCK 32      /* queries per dgemm block of the exact path */
#define DEFAULT_CHUNK 1024  /* rows per feature-map call */

size_t rfx_kreg_correct(const int *pred, const int *y, size_t n)
{
	size_t j, c = 0;

	for (j = 0; j < n; j++)
		c += pred[j] == y[j];
	return c;
}

/*
 * sum_k exp(-a (v[k] - m)) over a class segment (v >= m, so the largest
 * term is 1 and the sum is >= 1), with tb (n entries) as scratch.
 * Arguments are clamped at -700: an underflowing one sends the vector exp
 * to its slow scalar fallback, which dominated this loop at large gamma,
 * and the at most L e^-700 the clamp adds cannot change a sum >= 1 in
 * double precision. The clamp is a loop of its own: within the exp loop
 * GCC turns exp(max(t, c)) into a select between exp(t) and exp(c), which
 * evaluates exp(t) unclamped.
 */
RFX_SIMD_CLONES
static double seg_expsum(const double *v, size_t n, double a, double m,
			 double *tb)
{
	double s = 0.0;
	size_t k;

#pragma omp simd
	for (k = 0; k < n; k++) {
		double t = -a * (v[k] - m);

		tb[k] = t > -700.0 ? t : -700.0;
	}
#pragma omp simd reduction(+ : s)
	for (k = 0; k < n; k++)
		s += exp(tb[k]);
	return s;
}

/* Per-thread scratch of the exact path. */
struct exact_ws {
	double *D2;  /* EXACT_BLOCK x L squared distances */
	double *qq;  /* EXACT_BLOCK query norms */
	double *mn;  /* nclass segment minima */
	double *tb;  /* L clamped exponents */
};

int rfx_kreg_exact(const double *Xtr, const int *ytr, size_t L, int d,
		   int nclass, const double *Q, size_t nq, const double *gammas,
		   int ng, int *pred, struct rfx_err *err)
{
	double *Xs = NULL, *xx = NULL, *ag = NULL;
	size_t *off = NULL, i, nblk;
	long b;
	int c, g, ret = RFX_OK, status = RFX_OK, outer, blas_saved = 0;

	if (L == 0 || nq == 0 || d < 1 || nclass < 1 || ng < 1)
		return rfx_error(err, RFX_EINVAL,
				 "kernel regression needs training rows, queries, classes and gammas");
	for (g = 0; g < ng; g++)
		if (!(gammas[g] > 0.0) || !isfinite(gammas[g]))
			return rfx_error(err, RFX_EINVAL,
					 "gamma must be positive and finite, got %g",
					 gammas[g]);
	for (i = 0; i < L; i++)
		if (ytr[i] < 0 || ytr[i] >= nclass)
			return rfx_error(err, RFX_EINVAL,
					 "label %d of training row %zu is outside 0..%d",
					 ytr[i], i, nclass - 1);
	Xs = malloc(L * (size_t)d * sizeof(double));
	xx = malloc(L * sizeof(double));
	off = calloc((size_t)nclass + 1, sizeof(size_t));
	ag = malloc((size_t)ng * sizeof(double));
	if (!Xs || !xx || !off || !ag) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for %zu training rows",
				L);
		goto out;
	}
	/* Counting sort by class: class c is rows off[c] .. off[c + 1] - 1. */
	for (i = 0; i < L; i++)
		off[ytr[i] + 1]++;
	for (c = 0; c < nclass; c++)
		off[c + 1] += off[c];
	{
		size_t *pos = malloc((size_t)nclass * sizeof(size_t));

		if (!pos) {
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(pos, off, (size_t)nclass * sizeof(size_t));
		for (i = 0; i < L; i++)
			memcpy(Xs + pos[ytr[i]]++ * (size_t)d, Xtr + i * (size_t)d,
			       (size_t)d * sizeof(double));
		free(pos);
	}
	rfx_rownorms(Xs, L, d, xx);
	for (g = 0; g < ng; g++)
		ag[g] = 0.5 * gammas[g] * gammas[g];
	nblk = (nq + EXACT_BLOCK - 1) / EXACT_BLOCK;
#ifdef _OPENMP
	outer = omp_in_parallel();
#else
	outer = 1;
#endif
	if (!outer)
		blas_saved = rfx_blas_single_begin();

#pragma omp parallel if (!outer)
	{
		struct exact_ws w;
		int ok;

		w.D2 = malloc((size_t)EXACT_BLOCK * L * sizeof(double));
		w.qq = malloc(EXACT_BLOCK * sizeof(double));
		w.mn = malloc((size_t)nclass * sizeof(double));
		w.tb = malloc(L * sizeof(double));
		ok = w.D2 && w.qq && w.mn && w.tb;

#pragma omp for schedule(dynamic, 1)
		for (b = 0; b < (long)nblk; b++) {
			size_t j0 = (size_t)b * EXACT_BLOCK, j;
			size_t nb = nq - j0 < EXACT_BLOCK ? nq - j0 : EXACT_BLOCK;
			int st = RFX_OK;

			if (!ok)
				st = RFX_ENOMEM;
			else if (rfx_cancel_requested())
				st = RFX_EINTR;
			if (st) {
#pragma omp critical(rfx_kreg_status)
				if (!status)
					status = st;
				continue;
			}
			/* D2 = |q|^2 + |x|^2 - 2 q.x, clamped at 0 against rounding. */
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb,
				    (int)L, d, -2.0, Q + j0 * (size_t)d, d, Xs, d, 0.0,
				    w.D2, (int)L);
			rfx_rownorms(Q + j0 * (size_t)d, nb, d, w.qq);
			for (j = 0; j < nb; j++) {
				double *row = w.D2 + j * L;
				size_t k;

				for (k = 0; k < L; k++) {
					double v = row[k] + w.qq[j] + xx[k];

					row[k] = v > 0.0 ? v : 0.0;
				}
				for (c = 0; c < nclass; c++) {
					double m = INFINITY;

					for (k = off[c]; k < off[c + 1]; k++)
						if (row[k] < m)
							m = row[k];
					w.mn[c] = m;
				}
				for (g = 0; g < ng; g++) {
					double best = -INFINITY;
					int arg = -1;

					for (c = 0; c < nclass; c++) {
						double s;

						if (off[c + 1] == off[c])
							continue;
						s = -ag[g] * w.mn[c] +
						    log(seg_expsum(row + off[c],
								   off[c + 1] - off[c],
								   ag[g], w.mn[c], w.tb));
						if (arg < 0 || s > best) {
							best = s;
							arg = c;
						}
					}
					pred[(size_t)g * nq + j0 + j] = arg;
				}
			}
		}
		free(w.D2);
		free(w.qq);
		free(w.mn);
		free(w.tb);
	}
	if (!outer)
		rfx_blas_single_end(blas_saved);
	if (status == RFX_ENOMEM)
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for kernel blocks of %zu training rows", L);
	else if (status == RFX_EINTR)
		ret = rfx_error(err, RFX_EINTR, "interrupted");
out:
	free(Xs);
	free(xx);
	free(off);
	free(ag);
	return ret;
}

struct rfx_kreg_rf {
	const struct rfx_estimator_type *e;
	struct rfx_params p;    /* fitted parameters (own copy) */
	int M;                  /* feature budget passed to draw/features */
	int D;                  /* feature columns (rfx_estimator_feature_dim) */
	int cap;                /* feature columns allocated */
	int nclass;
	size_t chunk;           /* rows per feature-map call */
	struct rfx_draw *w;     /* the draw */
	struct rfx_featmat *F;  /* features of one chunk */
	double *S3re, *S3im;    /* nclass x D: class sums of training features */
	double lsmax;           /* S3's log-scale: the largest training lscale */
	int complex2;           /* some training features were complex */
	int trained;
	int *present;           /* nclass flags: class occurs in training */
	double *Qc;             /* chunk x d clamped queries */
	double *S4;             /* chunk x nclass scores */
};

void rfx_kreg_rf_free(struct rfx_kreg_rf *k)
{
	if (!k)
		return;
	rfx_params_release(&k->p);
	rfx_draw_free(k->w);
	rfx_featmat_free(k->F);
	free(k->S3re);
	free(k->S3im);
	free(k->present);
	free(k->Qc);
	free(k->S4);
	free(k);
}

struct rfx_kreg_rf *rfx_kreg_rf_alloc(const struct rfx_estimator_type *e,
				      const struct rfx_params *p, int M,
				      int nclass, size_t chunk,
				      struct rfx_err *err)
{
	struct rfx_kreg_rf *k;
	int cap, d = p->d;

	if (M < 1 || nclass < 1 || d < 1) {
		rfx_error(err, RFX_EINVAL,
			  "%s: need M >= 1, classes >= 1 and d >= 1 (got %d, %d, %d)",
			  e->name, M, nclass, d);
		return NULL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		return NULL;
	}
	rfx_params_init(&k->p, d);
	if (rfx_params_copy(&k->p, p, err)) {
		free(k);
		return NULL;
	}
	k->e = e;
	k->M = M;
	k->D = rfx_estimator_feature_dim(e, p, M);
	k->nclass = nclass;
	k->chunk = chunk ? chunk : DEFAULT_CHUNK;
	cap = k->D > M ? k->D : M;
	k->cap = cap;
	k->w = rfx_draw_alloc(d, cap);
	k->F = rfx_featmat_alloc(k->chunk, cap);
	k->S3re = calloc((size_t)nclass * (size_t)cap, sizeof(double));
	k->S3im = calloc((size_t)nclass * (size_t)cap, sizeof(double));
	k->present = calloc((size_t)nclass, sizeof(int));
	k->Qc = malloc(k->chunk * (size_t)d * sizeof(double));
	k->S4 = malloc(k->chunk * (size_t)nclass * sizeof(double));
	if (k->D < 1 || !k->w || !k->F || !k->S3re || !k->S3im || !k->present ||
	    !k->Qc || !k->S4) {
		if (k->D < 1)
			rfx_error(err, RFX_EINVAL, "%s: no features for M = %d",
				  e->name, M);
		else
			rfx_error(err, RFX_ENOMEM,
				  "out of memory for %s features of %zu rows", e->name,
				  k->chunk);
		rfx_kreg_rf_free(k);
		return NULL;
	}
	return k;
}

int rfx_kreg_rf_set_params(struct rfx_kreg_rf *k, const struct rfx_params *p,
			   struct rfx_err *err)
{
	int D = rfx_estimator_feature_dim(k->e, p, k->M);
	double *c = k->p.c;

	if (p->d != k->p.d || D < 1 || D > k->cap)
		return rfx_error(err, RFX_EINVAL,
				 "%s: parameters for d = %d with %d features do not fit a classifier for d = %d with %d",
				 k->e->name, p->d, D, k->p.d, k->cap);
	/* Keep the shift's storage: no allocation per gamma and draw. */
	if (p->c && c) {
		memcpy(c, p->c, (size_t)p->d * sizeof(double));
		k->p = *p;
		k->p.c = c;
	} else if (rfx_params_copy(&k->p, p, err)) {
		return RFX_ENOMEM;
	}
	k->D = D;
	k->trained = 0;
	return RFX_OK;
}

int rfx_kreg_rf_features(const struct rfx_kreg_rf *k)
{
	return k->D;
}

/*
 * Adds the n rows of a chunk of training features F to the class sums of
 * k, row i weighted by e^{lscale_i - lsmax}. The rows go in order and each
 * entry gets a product then a sum per row (-std=c11 does not contract them
 * into a fused multiply-add), so the wider vectors of the clones change no
 * bit; the clones matter because this loop touches every training feature
 * of every draw (8% of Tables 6.2-6.3's time at SSE2 width).
 */
RFX_SIMD_CLONES
static void add_class_sums(struct rfx_kreg_rf *k, const struct rfx_featmat *F,
			   const int *ytr, size_t n)
{
	const int D = k->D, cplx = F->is_complex;
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		double dl = F->lscale[i] - k->lsmax, wgt;
		double *sre = k->S3re + (size_t)ytr[i] * D;
		double *sim = k->S3im + (size_t)ytr[i] * D;
		const double *fre = F->re + i * (size_t)D;
		const double *fim = F->im + i * (size_t)D;

		/* exp underflows to 0 below -745.2: skip, saving the slow call. */
		if (!(dl > -746.0))
			continue;
		/* e^0 = 1 exactly: the common case of a constant row scale */
		wgt = dl == 0.0 ? 1.0 : exp(dl);
#pragma omp simd
		for (j = 0; j < D; j++)
			sre[j] += wgt * fre[j];
		if (cplx)
#pragma omp simd
			for (j = 0; j < D; j++)
				sim[j] += wgt * fim[j];
	}
}

int rfx_kreg_rf_train(struct rfx_kreg_rf *k, const gsl_rng *r,
		      enum rfx_proj proj, const double *Xtr, const int *ytr,
		      size_t L, struct rfx_err *err)
{
	const struct rfx_estimator_type *e = k->e;
	int d = k->p.d, D = k->D, ret;
	size_t c0, i, nD = (size_t)k->nclass * (size_t)D;

	if (L == 0)
		return rfx_error(err, RFX_EINVAL, "no training rows");
	ret = e->draw(r, proj, &k->p, k->M, k->w, err);
	if (ret)
		return ret;
	memset(k->S3re, 0, nD * sizeof(double));
	memset(k->S3im, 0, nD * sizeof(double));
	memset(k->present, 0, (size_t)k->nclass * sizeof(int));
	k->lsmax = -INFINITY;
	k->complex2 = 0;
	k->trained = 0;
	for (c0 = 0; c0 < L; c0 += k->chunk) {
		size_t n = L - c0 < k->chunk ? L - c0 : k->chunk;
		struct rfx_featmat *F = k->F;
		double cmax = -INFINITY;

		ret = e->features(&k->p, k->w, 2, Xtr + c0 * (size_t)d, n, k->M, F,
				  err);
		if (ret)
			return ret;
		if (F->D != D)
			RFX_BUG("%s: %d features, expected %d", e->name, F->D, D);
		for (i = 0; i < n; i++) {
			int y = ytr[c0 + i];

			if (y < 0 || y >= k->nclass)
				return rfx_error(err, RFX_EINVAL,
						 "label %d of training row %zu is outside 0..%d",
						 y, c0 + i, k->nclass - 1);
			k->present[y] = 1;
			if (isnan(F->lscale[i]))
				return rfx_error(err, RFX_ENUMERIC,
						 "%s: the features of training row %zu are not a number",
						 e->name, c0 + i);
			if (F->lscale[i] > cmax)
				cmax = F->lscale[i];
		}
		/* Rescale the sums once per chunk when the largest scale grows. */
		if (cmax > k->lsmax) {
			double f = k->lsmax == -INFINITY ? 0.0 : exp(k->lsmax - cmax);
			size_t q;

			for (q = 0; q < nD; q++) {
				k->S3re[q] *= f;
				k->S3im[q] *= f;
			}
			k->lsmax = cmax;
		}
		if (k->lsmax == -INFINITY)
			continue;
		if (F->is_complex)
			k->complex2 = 1;
		add_class_sums(k, F, ytr + c0, n);
	}
	k->trained = 1;
	return RFX_OK;
}

/* Scores of n <= chunk queries into S (n x nclass) and lscale (or NULL). */
static int score_chunk(struct rfx_kreg_rf *k, const double *Q, size_t n,
		       double *S, double *lscale, struct rfx_err *err)
{
	const struct rfx_estimator_type *e = k->e;
	struct rfx_featmat *F = k->F;
	int d = k->p.d, D = k->D, nc = k->nclass, ret;
	const double *src = Q;
	size_t i;

	if ((e->flags & RFX_EST_SHIFTED) && k->p.c) {
		int l;

		for (i = 0; i < n; i++)
			for (l = 0; l < d; l++) {
				double lo = k->p.c[l] + RFX_KREG_CLAMP_EPS;
				double v = Q[i * (size_t)d + l];

				k->Qc[i * (size_t)d + l] = v < lo ? lo : v;
			}
		src = k->Qc;
	}
	ret = e->features(&k->p, k->w, 1, src, n, k->M, F, err);
	if (ret)
		return ret;
	if (F->D != D)
		RFX_BUG("%s: %d features, expected %d", e->name, F->D, D);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, nc, D, 1.0,
		    F->re, D, k->S3re, D, 0.0, S, nc);
	if (k->complex2 && F->is_complex)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, nc, D,
			    -1.0, F->im, D, k->S3im, D, 1.0, S, nc);
	if (lscale)
		for (i = 0; i < n; i++)
			lscale[i] = F->lscale[i] + k->lsmax;
	return RFX_OK;
}

int rfx_kreg_rf_scores(struct rfx_kreg_rf *k, const double *Q, size_t nq,
		       double *S, double *lscale, struct rfx_err *err)
{
	size_t c0;
	int d = k->p.d, ret;

	if (!k->trained)
		return rfx_error(err, RFX_EINVAL, "%s: classifier not trained",
				 k->e->name);
	for (c0 = 0; c0 < nq; c0 += k->chunk) {
		size_t n = nq - c0 < k->chunk ? nq - c0 : k->chunk;

		ret = score_chunk(k, Q + c0 * (size_t)d, n,
				  S + c0 * (size_t)k->nclass,
				  lscale ? lscale + c0 : NULL, err);
		if (ret)
			return ret;
	}
	return RFX_OK;
}

int rfx_kreg_rf_predict(struct rfx_kreg_rf *k, const double *Q, size_t nq,
			int *pred, struct rfx_err *err)
{
	size_t c0, j;
	int d = k->p.d, nc = k->nclass, ret, c;

	if (!k->trained)
		return rfx_error(err, RFX_EINVAL, "%s: classifier not trained",
				 k->e->name);
	for (c0 = 0; c0 < nq; c0 += k->chunk) {
		size_t n = nq - c0 < k->chunk ? nq - c0 : k->chunk;

		ret = score_chunk(k, Q + c0 * (size_t)d, n, k->S4, NULL, err);
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			const double *s = k->S4 + j * (size_t)nc;
			int arg = -1;

			for (c = 0; c < nc; c++)
				if (k->present[c] && (arg < 0 || s[c] > s[arg]))
					arg = c;
			pred[c0 + j] = arg;
		}
	}
	return RFX_OK;
}

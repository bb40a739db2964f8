/*
 * Exact attention by tiles with running row maxima, random-feature
 * attention through the registry's feature maps (thesis eqs. 3.1-3.7,
 * Figs 3.1-3.2), its stabilisers, the exact effect of an additive
 * epsilon, the closed-form variance of one entry of A^ C, and the errors
 * of an estimate against exact attention. See attention.h.
 */
#include "exp/attention.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "num/blas.h"
#include "num/gemm.h"
#include "num/logmath.h"
#include "num/ssq.h"
#include "num/vmath.h"

/* Exact attention's tiles: query rows x key columns (256 KiB of logits). */
#define EXACT_BQ 64
#define EXACT_BK 512

/* Rows per block of the causal prefix sums. */
#define CAUSAL_B 64

static const char *const stab_names[] = { "row", "global", "none" };

const char *rfx_att_stab_name(enum rfx_att_stab s)
{
	return (unsigned)s < 3 ? stab_names[s] : "unknown";
}

int rfx_att_stab_parse(const char *name, enum rfx_att_stab *out,
		       struct rfx_err *err)
{
	int k;

	for (k = 0; k < 3; k++)
		if (!strcmp(name, stab_names[k])) {
			*out = (enum rfx_att_stab)k;
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL,
			 "unknown stabiliser '%s' (valid: row global none)", name);
}

static int all_finite(const double *x, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!isfinite(x[k]))
			return 0;
	return 1;
}

/*
 * One query tile (rows i0..i0+bq-1) of exact attention against keys
 * 0..nk-1 (causal: 0..i), with online maxima: for each key tile the
 * logits S, the new row maxima, the accumulators rescaled by
 * e^{m_old - m_new}, and acc += e^{S - m} [V 1]. S is bq x EXACT_BK,
 * acc bq x (dv + 1), both from the caller (per thread).
 */
static void exact_tile(const double *Q, size_t i0, size_t bq, const double *KT,
		       size_t nk, int d, const double *V, int dv, int causal,
		       double *S, double *acc, double *m, double *out,
		       double *logD)
{
	size_t dv1 = (size_t)dv + 1, a, j0, j;
	double scale = 1.0 / sqrt((double)d);
	size_t jend = causal ? i0 + bq : nk;

	for (a = 0; a < bq; a++) {
		m[a] = -INFINITY;
		memset(acc + a * dv1, 0, dv1 * sizeof(double));
	}
	for (j0 = 0; j0 < jend; j0 += EXACT_BK) {
		size_t bk = jend - j0 < EXACT_BK ? jend - j0 : EXACT_BK;

		/* KT is d x nk: columns j0.. are the keys of this tile */
		rfx_gemm(bq, bk, (size_t)d, scale, Q + i0 * (size_t)d, (size_t)d,
			 KT + j0, nk, S, EXACT_BK);
		for (a = 0; a < bq; a++) {
			double *s = S + a * EXACT_BK, mx = -INFINITY, f, sum = 0.0;
			size_t lim = bk;

			if (causal) /* keys j <= i0 + a only */
				lim = i0 + a + 1 > j0 ? i0 + a + 1 - j0 : 0;
			if (lim > bk)
				lim = bk;
			for (j = 0; j < lim; j++)
				mx = s[j] > mx ? s[j] : mx;
			if (lim == 0) {
				memset(s, 0, bk * sizeof(double));
				continue;
			}
			if (mx > m[a]) {
				f = m[a] == -INFINITY ? 0.0 : exp(m[a] - mx);
				for (j = 0; j < dv1; j++)
					acc[a * dv1 + j] *= f;
				m[a] = mx;
			}
			{
				double tmp[EXACT_BK]; /* exp_shift: no overlap */

				rfx_vmath_exp_shift(tmp, s, m[a], lim);
				memcpy(s, tmp, lim * sizeof(double));
			}
			for (j = lim; j < bk; j++)
				s[j] = 0.0;
			for (j = 0; j < lim; j++)
				sum += s[j];
			acc[a * dv1 + (size_t)dv] += sum;
		}
		/* acc[:, :dv] += e^{S - m} V_tile */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)bq, dv,
			    (int)bk, 1.0, S, EXACT_BK, V + j0 * (size_t)dv, dv, 1.0,
			    acc, (int)dv1);
	}
	for (a = 0; a < bq; a++) {
		double z = acc[a * dv1 + (size_t)dv];

		for (j = 0; j < (size_t)dv; j++)
			out[(i0 + a) * (size_t)dv + j] = acc[a * dv1 + j] / z;
		if (logD)
			logD[i0 + a] = m[a] + log(z);
	}
}

int rfx_attention_exact(const double *Q, size_t nq, const double *K,
			size_t nk, int d, const double *V, int dv, int causal,
			double *out, double *logD, struct rfx_err *err)
{
	size_t nb, k, per;
	double *KT = NULL, *work = NULL;
	int nt = 1, saved;

	if (nq == 0 || nk == 0 || d < 1 || dv < 1)
		return rfx_error(err, RFX_EINVAL,
				 "attention needs queries, keys, d >= 1 and dv >= 1");
	if (causal && nq != nk)
		return rfx_error(err, RFX_EINVAL,
				 "causal attention needs as many queries as keys, got %zu and %zu",
				 nq, nk);
	if (!all_finite(Q, nq * (size_t)d) || !all_finite(K, nk * (size_t)d) ||
	    !all_finite(V, nk * (size_t)dv))
		return rfx_error(err, RFX_EINVAL,
				 "attention inputs must be finite");
#ifdef _OPENMP
	nt = omp_in_parallel() ? 1 : omp_get_max_threads();
#endif
	per = (size_t)EXACT_BQ * EXACT_BK + (size_t)EXACT_BQ * ((size_t)dv + 2);
	KT = malloc(nk * (size_t)d * sizeof(double));
	work = malloc((size_t)nt * per * sizeof(double));
	if (!KT || !work) {
		free(KT);
		free(work);
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for exact attention of %zu keys", nk);
	}
	for (k = 0; k < nk; k++) {
		int l;

		for (l = 0; l < d; l++)
			KT[(size_t)l * nk + k] = K[k * (size_t)d + l];
	}
	nb = (nq + EXACT_BQ - 1) / EXACT_BQ;
	saved = rfx_blas_single_begin();
#pragma omp parallel for schedule(dynamic) if (nt > 1)
	for (k = 0; k < nb; k++) {
		int t = 0;
		double *S, *acc, *m;

#ifdef _OPENMP
		t = nt > 1 ? omp_get_thread_num() : 0;
#endif
		S = work + (size_t)t * per;
		acc = S + (size_t)EXACT_BQ * EXACT_BK;
		m = acc + (size_t)EXACT_BQ * ((size_t)dv + 1);
		exact_tile(Q, k * EXACT_BQ,
			   nq - k * EXACT_BQ < EXACT_BQ ? nq - k * EXACT_BQ : EXACT_BQ,
			   KT, nk, d, V, dv, causal, S, acc, m, out, logD);
	}
	rfx_blas_single_end(saved);
	free(KT);
	free(work);
	return RFX_OK;
}

struct rfx_att_ws *rfx_att_ws_alloc(size_t nq, size_t nk, int d, int dv,
				    int Dmax)
{
	struct rfx_att_ws *ws;
	size_t Dr = 2 * (size_t)(Dmax > 0 ? Dmax : 1), dv1 = (size_t)dv + 1;
	size_t nmax = nq > nk ? nq : nk;

	if (nq == 0 || nk == 0 || d < 1 || dv < 1 || Dmax < 1)
		return NULL;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->nq = nq;
	ws->nk = nk;
	ws->d = d;
	ws->dv = dv;
	ws->Dmax = Dmax;
	ws->X = malloc(nq * (size_t)d * sizeof(double));
	ws->Y = malloc(nk * (size_t)d * sizeof(double));
	ws->F1 = rfx_featmat_alloc(nq, Dmax);
	ws->F2 = rfx_featmat_alloc(nk, Dmax);
	ws->R1 = malloc(nq * Dr * sizeof(double));
	ws->R2 = malloc(nk * Dr * sizeof(double));
	ws->ls1 = malloc(nq * sizeof(double));
	ws->ls2 = malloc(nk * sizeof(double));
	ws->A1 = malloc(nq * Dr * sizeof(double));
	ws->A2 = malloc(nk * Dr * sizeof(double));
	ws->C = malloc(nk * dv1 * sizeof(double));
	ws->buf1 = malloc(Dr * dv1 * sizeof(double));
	ws->buf2 = malloc(nmax * dv1 * sizeof(double));
	ws->T = malloc((size_t)CAUSAL_B * CAUSAL_B * sizeof(double));
	ws->r1 = malloc(nq * sizeof(double));
	ws->g1 = malloc(nq * sizeof(double));
	ws->g2 = malloc(nk * sizeof(double));
	ws->f1 = malloc(nq * Dr * sizeof(float));
	ws->f2 = malloc(nk * Dr * sizeof(float));
	ws->fc = malloc(nk * dv1 * sizeof(float));
	ws->fb1 = malloc(Dr * dv1 * sizeof(float));
	ws->fb2 = malloc(nmax * dv1 * sizeof(float));
	ws->fT = malloc((size_t)CAUSAL_B * CAUSAL_B * sizeof(float));
	if (!ws->X || !ws->Y || !ws->F1 || !ws->F2 || !ws->R1 || !ws->R2 ||
	    !ws->ls1 || !ws->ls2 || !ws->A1 || !ws->A2 || !ws->C || !ws->buf1 ||
	    !ws->buf2 || !ws->T || !ws->r1 || !ws->g1 || !ws->g2 || !ws->f1 ||
	    !ws->f2 || !ws->fc ||
	    !ws->fb1 || !ws->fb2 || !ws->fT) {
		rfx_att_ws_free(ws);
		return NULL;
	}
	return ws;
}

void rfx_att_ws_free(struct rfx_att_ws *ws)
{
	if (!ws)
		return;
	free(ws->X);
	free(ws->Y);
	rfx_featmat_free(ws->F1);
	rfx_featmat_free(ws->F2);
	free(ws->R1);
	free(ws->R2);
	free(ws->ls1);
	free(ws->ls2);
	free(ws->A1);
	free(ws->A2);
	free(ws->C);
	free(ws->buf1);
	free(ws->buf2);
	free(ws->T);
	free(ws->r1);
	free(ws->g1);
	free(ws->g2);
	free(ws->f1);
	free(ws->f2);
	free(ws->fc);
	free(ws->fb1);
	free(ws->fb2);
	free(ws->fT);
	free(ws);
}

/*
 * Elements from which the passes over the L x d inputs and the L x D'
 * maps run on the threads (each element's or row's own value, so the same
 * bits; stabilise had its own 65536 before): serial, they took random-feature attention at L = 65536 from
 * 1.85 to 2.05 times its two products (bench_attention, AVX-512 Xeon).
 */
#define PAR_MIN ((size_t)1 << 16)

/* d^{-1/4} X into out (n x d), the inputs of eq. 3.1. */
static void scale_inputs(const double *X, size_t n, int d, double *out)
{
	double s = pow((double)d, -0.25);
	size_t k;

#pragma omp parallel for if (n * (size_t)d >= PAR_MIN)
	for (k = 0; k < n * (size_t)d; k++)
		out[k] = s * X[k];
}

int rfx_attention_fit(struct rfx_att_ws *ws,
		      const struct rfx_estimator_type *e,
		      struct rfx_params *p, const double *Q, const double *K,
		      int M, struct rfx_err *err)
{
	scale_inputs(Q, ws->nq, ws->d, ws->X);
	scale_inputs(K, ws->nk, ws->d, ws->Y);
	return e->fit(p, ws->X, ws->nq, ws->Y, ws->nk, M, err);
}

/*
 * The real map of F (side 1 or 2) into R (rows of 2 D) when F is complex:
 * [Re, Im] for the queries and [Re, -Im] for the keys, whose dot product is
 * Re sum_j Phi1_j Phi2_j (featmap.h, rfx_featmat_to_real).
 */
static const double *real_map(const struct rfx_featmat *F, double sg,
			      double *R)
{
	size_t i, D = (size_t)F->D;
	size_t j;

	if (!F->is_complex)
		return F->re;
#pragma omp parallel for if (F->n * D >= PAR_MIN)
	for (i = 0; i < F->n; i++) {
		const double *re = F->re + i * D, *im = F->im + i * D;
		double *o = R + i * 2 * D;

		memcpy(o, re, D * sizeof(double));
		for (j = 0; j < D; j++)
			o[D + j] = sg * im[j];
	}
	return R;
}

int rfx_attention_maps(struct rfx_att_ws *ws,
		       const struct rfx_estimator_type *e,
		       const struct rfx_params *p, const struct rfx_draw *w,
		       const double *Q, const double *K, int M,
		       struct rfx_err *err)
{
	int D = rfx_estimator_feature_dim(e, p, M), ret;
	size_t i;
	int l;

	if (D < 1 || D > ws->Dmax)
		return rfx_error(err, RFX_EINVAL,
				 "%s: %d feature columns for M = %d, workspace has %d",
				 e->name, D, M, ws->Dmax);
	scale_inputs(Q, ws->nq, ws->d, ws->X);
	scale_inputs(K, ws->nk, ws->d, ws->Y);
	ret = e->features(p, w, 1, ws->X, ws->nq, M, ws->F1, err);
	if (!ret)
		ret = e->features(p, w, 2, ws->Y, ws->nk, M, ws->F2, err);
	if (ret)
		return ret;
	if (ws->F1->D != ws->F2->D || ws->F1->is_complex != ws->F2->is_complex ||
	    ws->F1->D > ws->Dmax)
		return rfx_error(err, RFX_EINVAL,
				 "%s: query and key maps differ in shape", e->name);
	ws->Dr = ws->F1->is_complex ? 2 * ws->F1->D : ws->F1->D;
	ws->p1 = real_map(ws->F1, 1.0, ws->R1);
	ws->p2 = real_map(ws->F2, -1.0, ws->R2);
	/* eqs. 3.4-3.5: the factors e^{|x|^2/2} of SM = e^{|x|^2/2} K e^{|y|^2/2} */
#pragma omp parallel for private(l) if (ws->nq * (size_t)ws->d >= PAR_MIN)
	for (i = 0; i < ws->nq; i++) {
		const double *x = ws->X + i * (size_t)ws->d;
		double s = 0.0;

		for (l = 0; l < ws->d; l++)
			s += x[l] * x[l];
		ws->ls1[i] = ws->F1->lscale[i] + 0.5 * s;
	}
#pragma omp parallel for private(l) if (ws->nk * (size_t)ws->d >= PAR_MIN)
	for (i = 0; i < ws->nk; i++) {
		const double *y = ws->Y + i * (size_t)ws->d;
		double s = 0.0;

		for (l = 0; l < ws->d; l++)
			s += y[l] * y[l];
		ws->ls2[i] = ws->F2->lscale[i] + 0.5 * s;
	}
	return RFX_OK;
}

/* The largest finite entry of x[0..n-1] (0 if none). */
static double max_finite(const double *x, size_t n)
{
	double m = -INFINITY;
	size_t k;

	for (k = 0; k < n; k++)
		if (isfinite(x[k]) && x[k] > m)
			m = x[k];
	return m == -INFINITY ? 0.0 : m;
}

/* A = p e^{ls - r} + eps row by row (n x Dr), r per row or one for all. */
static void stabilise(const double *p, const double *ls, const double *r,
		      double r0, size_t n, int Dr, double eps, double *A)
{
	size_t i;
	int j;

#pragma omp parallel for if (n * (size_t)Dr >= PAR_MIN)
	for (i = 0; i < n; i++) {
		double f = exp(ls[i] - (r ? r[i] : r0));
		const double *pi = p + i * (size_t)Dr;
		double *a = A + i * (size_t)Dr;

		for (j = 0; j < Dr; j++)
			a[j] = pi[j] * f + eps;
	}
}

/*
 * The products of Fig 3.1 (noncausal) or eq. 3.6 by blocks (causal) in
 * type T with BLAS prefix P (d or s): buf2 = tril?(A1 A2^T) C.
 */
#define DEFINE_PRODUCTS(name, T, gemm)                                          \
	static void name(const T *A1, const T *A2, const T *C, size_t n1,          \
			 size_t n2, int Dr, int dv1, int causal, T *buf1,          \
			 T *buf2, T *Tb)                                           \
	{                                                                          \
		size_t i0, a, b;                                                   \
                                                                                   \
		if (!causal) {                                                     \
			gemm(CblasRowMajor, CblasTrans, CblasNoTrans, Dr, dv1,     \
			     (int)n2, 1, A2, Dr, C, dv1, 0, buf1, dv1);            \
			gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n1,   \
			     dv1, Dr, 1, A1, Dr, buf1, dv1, 0, buf2, dv1);         \
			return;                                                    \
		}                                                                  \
		memset(buf1, 0, (size_t)Dr * (size_t)dv1 * sizeof(T));             \
		for (i0 = 0; i0 < n1; i0 += CAUSAL_B) {                            \
			int B = (int)(n1 - i0 < CAUSAL_B ? n1 - i0 : CAUSAL_B);    \
			const T *a1 = A1 + i0 * (size_t)Dr;                        \
			const T *a2 = A2 + i0 * (size_t)Dr;                        \
			const T *c = C + i0 * (size_t)dv1;                         \
			T *o = buf2 + i0 * (size_t)dv1;                            \
                                                                                   \
			/* the block with itself, masked to j <= i */              \
			gemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, B, Dr, 1, \
			     a1, Dr, a2, Dr, 0, Tb, CAUSAL_B);                     \
			for (a = 0; a < (size_t)B; a++)                            \
				for (b = a + 1; b < (size_t)B; b++)                \
					Tb[a * CAUSAL_B + b] = 0;                  \
			gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, dv1, B, \
			     1, Tb, CAUSAL_B, c, dv1, 0, o, dv1);                  \
			/* plus the earlier blocks' prefix sum R = buf1 */         \
			gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, dv1,    \
			     Dr, 1, a1, Dr, buf1, dv1, 1, o, dv1);                 \
			gemm(CblasRowMajor, CblasTrans, CblasNoTrans, Dr, dv1, B,  \
			     1, a2, Dr, c, dv1, 1, buf1, dv1);                     \
		}                                                                  \
	}

DEFINE_PRODUCTS(products_d, double, cblas_dgemm)
DEFINE_PRODUCTS(products_s, float, cblas_sgemm)

static void to_float(const double *x, size_t n, float *y)
{
	size_t k;

	for (k = 0; k < n; k++)
		y[k] = (float)x[k];
}

int rfx_attention_apply(struct rfx_att_ws *ws, const double *V,
			const struct rfx_att_opts *opts, double *out,
			double *logDh, signed char *sgnD, struct rfx_err *err)
{
	size_t nq = ws->nq, nk = ws->nk, i;
	int Dr = ws->Dr, dv = ws->dv, dv1 = ws->dv + 1, j, saved;

	if (opts->causal && nq != nk)
		return rfx_error(err, RFX_EINVAL,
				 "causal attention needs as many queries as keys, got %zu and %zu",
				 nq, nk);
	if (!(opts->eps >= 0.0) || !isfinite(opts->eps))
		return rfx_error(err, RFX_EINVAL,
				 "epsilon must be finite and >= 0, got %g", opts->eps);
	if (Dr < 1 || !ws->p1)
		return rfx_error(err, RFX_EINVAL, "attention maps not computed");
	switch (opts->stab) {
	case RFX_ATT_STAB_ROW:
		memcpy(ws->r1, ws->ls1, nq * sizeof(double));
		ws->r2 = max_finite(ws->ls2, nk);
		break;
	case RFX_ATT_STAB_GLOBAL:
		for (i = 0; i < nq; i++)
			ws->r1[i] = max_finite(ws->ls1, nq);
		ws->r2 = max_finite(ws->ls2, nk);
		break;
	default:
		for (i = 0; i < nq; i++)
			ws->r1[i] = 0.0;
		ws->r2 = 0.0;
		break;
	}
	/*
	 * The factors e^{ls - r} of each row. Without epsilon and in double
	 * they need not touch the L x D' maps: a key's factor scales its row
	 * of C (P2^T diag(g2) C, and tril(P1 P2^T) diag(g2) C for the causal
	 * blocks), a query's its row of the result; with the row stabiliser
	 * the query factors are exactly 1. Otherwise the maps are stabilised
	 * (and epsilon added) into A1 and A2.
	 */
	ws->fast = !opts->f32 && opts->eps == 0.0;
#pragma omp parallel for if (nq >= PAR_MIN / 64)
	for (i = 0; i < nq; i++)
		ws->g1[i] = exp(ws->ls1[i] - ws->r1[i]);
#pragma omp parallel for if (nk >= PAR_MIN / 64)
	for (i = 0; i < nk; i++)
		ws->g2[i] = exp(ws->ls2[i] - ws->r2);
	if (!ws->fast) {
		stabilise(ws->p1, ws->ls1, ws->r1, 0.0, nq, Dr, opts->eps, ws->A1);
		stabilise(ws->p2, ws->ls2, NULL, ws->r2, nk, Dr, opts->eps, ws->A2);
	}
#pragma omp parallel for private(j) if (nk * (size_t)dv1 >= PAR_MIN)
	for (i = 0; i < nk; i++) {
		double g = ws->fast ? ws->g2[i] : 1.0;
		double *c = ws->C + i * (size_t)dv1;

		for (j = 0; j < dv; j++)
			c[j] = g * V[i * (size_t)dv + (size_t)j];
		c[dv] = g;
	}
	/*
	 * The causal blocks are small products, which OpenBLAS's threads only
	 * slow down (each waits for the others, more so on a loaded machine)
	 */
	saved = opts->causal ? rfx_blas_single_begin() : 0;
	if (opts->f32) {
		to_float(ws->A1, nq * (size_t)Dr, ws->f1);
		to_float(ws->A2, nk * (size_t)Dr, ws->f2);
		to_float(ws->C, nk * (size_t)dv1, ws->fc);
		products_s(ws->f1, ws->f2, ws->fc, nq, nk, Dr, dv1, opts->causal,
			   ws->fb1, ws->fb2, ws->fT);
		for (i = 0; i < nq * (size_t)dv1; i++)
			ws->buf2[i] = (double)ws->fb2[i];
	} else {
		products_d(ws->fast ? ws->p1 : ws->A1, ws->fast ? ws->p2 : ws->A2,
			   ws->C, nq, nk, Dr, dv1, opts->causal, ws->buf1, ws->buf2,
			   ws->T);
	}
	if (opts->causal)
		rfx_blas_single_end(saved);
	if (ws->fast && opts->stab != RFX_ATT_STAB_ROW)
#pragma omp parallel for private(j) if (nq * (size_t)dv1 >= PAR_MIN)
		for (i = 0; i < nq; i++)
			for (j = 0; j < dv1; j++)
				ws->buf2[i * (size_t)dv1 + (size_t)j] *= ws->g1[i];
#pragma omp parallel for private(j) if (nq * (size_t)dv1 >= PAR_MIN)
	for (i = 0; i < nq; i++) {
		const double *b = ws->buf2 + i * (size_t)dv1;
		double z = b[dv];

		for (j = 0; j < dv; j++)
			out[i * (size_t)dv + (size_t)j] = b[j] / z;
		if (logDh)
			logDh[i] = z != 0.0 ? log(fabs(z)) + ws->r1[i] + ws->r2
					    : -INFINITY;
		if (sgnD)
			sgnD[i] = (signed char)((z > 0.0) - (z < 0.0));
	}
	return RFX_OK;
}

void rfx_attention_rows(const struct rfx_att_ws *ws, const size_t *rows,
			size_t ns, int causal, double *G, double *work)
{
	size_t a, j, nk = ws->nk;
	int dv1 = ws->dv + 1, Dr = ws->Dr;
	const double *A1 = ws->fast ? ws->p1 : ws->A1;
	const double *A2 = ws->fast ? ws->p2 : ws->A2;

	if (ns == 0)
		return;
	for (a = 0; a < ns; a++)
		memcpy(work + a * (size_t)Dr, A1 + rows[a] * (size_t)Dr,
		       (size_t)Dr * sizeof(double));
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)ns, (int)nk, Dr,
		    1.0, work, Dr, A2, Dr, 0.0, G, (int)nk);
	for (a = 0; a < ns; a++) {
		size_t i = rows[a], lim = causal ? i + 1 : nk;
		double z = ws->buf2[i * (size_t)dv1 + (size_t)ws->dv];
		double g = ws->fast ? ws->g1[i] / z : 1.0 / z;

		for (j = 0; j < lim; j++)
			G[a * nk + j] *= ws->fast ? g * ws->g2[j] : g;
		for (j = lim; j < nk; j++)
			G[a * nk + j] = 0.0;
	}
}

/* Sum of the stabilised entries of row i of side 1 or 2 (eps excluded). */
static double stab_row_sum(const struct rfx_att_ws *ws, int side, size_t i)
{
	const double *p = side == 1 ? (ws->fast ? ws->p1 : ws->A1)
				    : (ws->fast ? ws->p2 : ws->A2);
	double t = 0.0;
	int m;

	for (m = 0; m < ws->Dr; m++)
		t += p[i * (size_t)ws->Dr + (size_t)m];
	if (ws->fast)
		t *= side == 1 ? ws->g1[i] : ws->g2[i];
	return t;
}

int rfx_attention_eps_bias(const struct rfx_att_ws *ws, const double *V,
			   const double *out0, double eps, double *delta,
			   struct rfx_err *err)
{
	size_t nq = ws->nq, nk = ws->nk, i, j;
	int Dr = ws->Dr, dv = ws->dv, c;
	double *sv = calloc((size_t)dv, sizeof(double));  /* sum_j v_j */
	double *s2v = calloc((size_t)dv, sizeof(double)); /* sum_j s2_j v_j */
	double s2 = 0.0;                                  /* sum_j s2_j */

	if (!sv || !s2v) {
		free(sv);
		free(s2v);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	for (j = 0; j < nk; j++) {
		double t = stab_row_sum(ws, 2, j);

		s2 += t;
		for (c = 0; c < dv; c++) {
			sv[c] += V[j * (size_t)dv + (size_t)c];
			s2v[c] += t * V[j * (size_t)dv + (size_t)c];
		}
	}
	for (i = 0; i < nq; i++) {
		double s1 = stab_row_sum(ws, 1, i);
		double Z = ws->buf2[i * (size_t)(dv + 1) + (size_t)dv], U;

		/* U = sum_j c_ij, c_ij = s1_i + s2_j + eps Dr */
		U = (double)nk * (s1 + eps * Dr) + s2;
		for (c = 0; c < dv; c++) {
			double o = out0[i * (size_t)dv + (size_t)c];
			double W = (s1 + eps * Dr) * sv[c] + s2v[c]; /* sum_j c_ij v_j */

			delta[i * (size_t)dv + (size_t)c] =
				eps * (W - o * U) / (Z + eps * U);
		}
	}
	free(sv);
	free(s2v);
	return RFX_OK;
}

int rfx_attention_ac_logvar(int kind, const double *Q, size_t i,
			    const double *K, size_t nk, int d, const double *V,
			    int dv, int c, int M, double *logvar,
			    struct rfx_err *err)
{
	double s = pow((double)d, -0.25), xx = 0.0, T = -INFINITY, sum = 0.0;
	double *yy = NULL, *xy = NULL, *cj = NULL;
	size_t j, k;
	int l;

	if (kind != 0 && kind != 1)
		return rfx_error(err, RFX_EINVAL, "variance kind must be 0 (trig) or 1 (pos)");
	if (c < 0 || c > dv || M < 1 || nk == 0 || d < 1)
		return rfx_error(err, RFX_EINVAL, "bad column %d, M = %d or shape", c, M);
	yy = malloc(nk * sizeof(double));
	xy = malloc(nk * sizeof(double));
	cj = malloc(nk * sizeof(double));
	if (!yy || !xy || !cj) {
		free(yy);
		free(xy);
		free(cj);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	for (l = 0; l < d; l++)
		xx += s * Q[i * (size_t)d + (size_t)l] * s * Q[i * (size_t)d + (size_t)l];
	for (j = 0; j < nk; j++) {
		double a = 0.0, b = 0.0;

		for (l = 0; l < d; l++) {
			double y = s * K[j * (size_t)d + (size_t)l];

			a += y * y;
			b += s * Q[i * (size_t)d + (size_t)l] * y;
		}
		yy[j] = a;
		xy[j] = b;
		cj[j] = c < dv ? V[j * (size_t)dv + (size_t)c] : 1.0;
	}
	/* two passes: the largest log term, then the shifted sum */
	for (k = 0; k < 2; k++)
		for (j = 0; j < nk; j++) {
			size_t jj;

			for (jj = 0; jj < nk; jj++) {
				double yyp = 0.0, t, sa, a2, b2;

				for (l = 0; l < d; l++)
					yyp += s * K[j * (size_t)d + (size_t)l] * s *
					       K[jj * (size_t)d + (size_t)l];
				sa = xy[j] + xy[jj]; /* log A_ij A_ij' */
				if (kind == 0) {
					/* |2x - y - y'|^2 and |y - y'|^2 */
					a2 = 4 * xx + yy[j] + yy[jj] - 4 * sa + 2 * yyp;
					b2 = yy[j] + yy[jj] - 2 * yyp;
					t = xx + 0.5 * (yy[j] + yy[jj]) +
					    rfx_logaddexp(-0.5 * a2, -0.5 * b2) - RFX_LN2;
				} else {
					t = xx + 2 * sa + yyp;
				}
				if (k == 0) {
					T = t > T ? t : T;
					T = sa > T ? sa : T;
				} else {
					sum += cj[j] * cj[jj] * (exp(t - T) - exp(sa - T));
				}
			}
		}
	*logvar = sum > 0.0 ? T + log(sum) - log((double)M) : -INFINITY;
	free(yy);
	free(xy);
	free(cj);
	return RFX_OK;
}

const char *const rfx_att_error_names[RFX_ATT_NERR] = {
	"out_rel_fro", "out_rel_max", "out_mse", "att_mse", "norm_rel",
	"frac_nonpos", "frac_nonfinite", "log_norm_rel"
};

/*
 * log |s e^delta - 1|, the log of row i's |D^_i/D_i - 1| for D^_i = s
 * e^{logDh}, delta = logDh - logD0: without cancellation, and finite
 * where the ratio leaves double range (trig at inputs of norm 1e3).
 */
static double log_rel_err(int s, double delta)
{
	if (s == 0)
		return 0.0;
	if (s < 0) /* log(e^delta + 1) */
		return delta > 0.0 ? delta + log1p(exp(-delta))
				   : log1p(exp(delta));
	return delta >= 0.0 ? rfx_logexpm1(delta) : rfx_log1mexp(delta);
}

void rfx_attention_errors(size_t nq, size_t nk, int dv, const double *out0,
			  const double *logD0, const double *out,
			  const double *logDh, const signed char *sgnD,
			  const size_t *rows, size_t ns, const double *logit0,
			  const double *G, int causal, struct rfx_att_errors *res)
{
	double num = 0.0, den = 0.0, rmax = 0.0, nr = 0.0, am = 0.0;
	size_t i, a, j, nfin = 0, nonpos = 0, nonfin = 0, cnt = 0;
	struct rfx_lse lnr = { -INFINITY, 0.0 };
	int c, et = INT_MIN, e0 = INT_MIN;

	/*
	 * The scales of O^ - O and of O over the finite rows: the sums of
	 * squares are taken after scaling by them (num/ssq.h), as V of
	 * entries 1e-300 made every square 0 and the relative errors 0/0,
	 * and entries 1e200 made them inf.
	 */
	for (i = 0; i < nq; i++) {
		const double *o = out + i * (size_t)dv, *o0 = out0 + i * (size_t)dv;
		int fin = 1, x;

		for (c = 0; c < dv; c++)
			fin &= isfinite(o[c]);
		if (!fin)
			continue;
		x = rfx_ssq_exp(o, o0, 0.0, (size_t)dv);
		et = x > et ? x : et;
		x = rfx_ssq_exp(o0, NULL, 0.0, (size_t)dv);
		e0 = x > e0 ? x : e0;
	}
	for (i = 0; i < nq; i++) {
		const double *o = out + i * (size_t)dv, *o0 = out0 + i * (size_t)dv;
		int fin = 1, rt, r0;

		if (sgnD[i] <= 0)
			nonpos++;
		nr += sgnD[i] == 0 ? 1.0
				   : fabs((double)sgnD[i] * exp(logDh[i] - logD0[i]) - 1.0);
		rfx_lse_add(&lnr, log_rel_err(sgnD[i], logDh[i] - logD0[i]));
		for (c = 0; c < dv; c++)
			fin &= isfinite(o[c]);
		if (!fin) {
			nonfin++;
			continue;
		}
		num += rfx_ssq_scaled(o, o0, 0.0, (size_t)dv, et);
		den += rfx_ssq_scaled(o0, NULL, 0.0, (size_t)dv, e0);
		/* the row's own scales: |O^_i - O_i| / |O_i| = 2^(rt-r0) sqrt(.) */
		rt = rfx_ssq_exp(o, o0, 0.0, (size_t)dv);
		r0 = rfx_ssq_exp(o0, NULL, 0.0, (size_t)dv);
		if (r0 != INT_MIN && rt != INT_MIN) {
			double rel = ldexp(sqrt(rfx_ssq_scaled(o, o0, 0.0, (size_t)dv, rt) /
						rfx_ssq_scaled(o0, NULL, 0.0, (size_t)dv, r0)),
					   rt - r0);

			rmax = rel > rmax ? rel : rmax;
		}
		nfin++;
	}
	for (a = 0; a < ns; a++) {
		size_t r = rows[a], lim = causal ? r + 1 : nk;

		for (j = 0; j < nk; j++) {
			double ex = j < lim ? exp(logit0[a * nk + j] - logD0[r]) : 0.0;
			double t = G[a * nk + j] - ex;

			if (!isfinite(t))
				continue;
			am += t * t;
			cnt++;
		}
	}
	/*
	 * O = 0 (V = 0): O^ = 0 too wherever finite, an exact 0; the
	 * scales' exponents differ by at most about 2100, within ldexp's
	 * reach of a value in [2^-1074, 2^1024)
	 */
	res->out_rel_fro = !nfin ? NAN
			   : et == INT_MIN ? 0.0
			   : e0 == INT_MIN ? INFINITY
			   : ldexp(sqrt(num / den), et - e0);
	res->out_rel_max = nfin ? rmax : NAN;
	res->out_mse = !nfin ? NAN
		       : et == INT_MIN ? 0.0
		       : ldexp(ldexp(num / ((double)nfin * dv), et), et);
	res->att_mse = cnt ? am / (double)cnt : NAN;
	res->norm_rel = nr / (double)nq;
	res->log_norm_rel = rfx_lse_value(&lnr) - log((double)nq);
	res->frac_nonpos = (double)nonpos / (double)nq;
	res->frac_nonfinite = (double)nonfin / (double)nq;
}

/*
 * The dense-exponential random features' shared machinery (see derf.h and
 * docs/DERIVATIONS.md): parameter checks, the closed-form variance of a
 * block of pairs, the feature maps, the set moments and the eigen-based
 * minimiser over A that the three fits share.
 */
#include "est/derf.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#else
#define omp_in_parallel() 0
#endif

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "num/blas.h"
#include "num/gemm.h"
#include "num/logmath.h"
#include "num/vmath.h"

int rfx_derf_alloc(struct rfx_params *p, struct rfx_err *err)
{
	size_t d = (size_t)p->d;

	if (p->d < 1)
		return rfx_error(err, RFX_EINVAL, "d must be positive, got %d",
				 p->d);
	if (!p->dense)
		p->dense = calloc(d + 2 * d * d, sizeof(double));
	if (!p->dense)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	return RFX_OK;
}

int rfx_derf_check(const struct rfx_params *p, const char *name,
		   struct rfx_err *err)
{
	const double *a;
	size_t d = (size_t)p->d, l;

	if (!p->dense)
		return rfx_error(err, RFX_EINVAL, "%s: parameters are not fitted",
				 name);
	a = rfx_derf_a(p);
	for (l = 0; l < d; l++)
		if (!(1.0 - 8.0 * a[l] > 0.0) || !isfinite(a[l]))
			return rfx_error(err, RFX_EINVAL,
					 "%s: variance is infinite unless I - 8A > 0, got eigenvalue %g",
					 name, a[l]);
	return RFX_OK;
}

int rfx_derf_check_unbiased(const struct rfx_params *p, const char *name,
			    struct rfx_err *err)
{
	const double *a, *B1, *B2;
	size_t d = (size_t)p->d, i, j, l;
	double big = 0.0;
	int ret = rfx_derf_check(p, name, err);

	if (ret)
		return ret;
	a = rfx_derf_a(p);
	B1 = rfx_derf_b(p, 1);
	B2 = rfx_derf_b(p, 2);
	for (l = 0; l < d * d; l++) {
		if (!isfinite(B1[l]) || !isfinite(B2[l]))
			return rfx_error(err, RFX_EINVAL, "%s: B is not finite",
					 name);
		big = fmax(big, fmax(fabs(B1[l]), fabs(B2[l])));
	}
	/* (B_1^T P B_2)_ij = sum_l B1_li B2_lj/(1 - 4a_l) = delta_ij */
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++) {
			double s = 0.0;

			for (l = 0; l < d; l++)
				s += B1[l * d + i] * B2[l * d + j] / (1.0 - 4.0 * a[l]);
			if (!(fabs(s - (i == j)) <= 1e-8 * (1.0 + big * big)))
				return rfx_error(err, RFX_ENUMERIC,
						 "%s: biased parameters, (B1^T P B2)_%zu%zu = %g",
						 name, i, j, s);
		}
	return RFX_OK;
}

double rfx_derf_la(const double *a, int d)
{
	double s = 0.0;
	int l;

	/* per coordinate as lib/est/gerf.c at d = 1: -log1p(-u^2)/2, u = 4a/(1-4a) */
	for (l = 0; l < d; l++) {
		double u = 4.0 * a[l] / (1.0 - 4.0 * a[l]);

		s += fabs(u) < 0.5 ? -0.5 * log1p(-u * u)
				   : log(1.0 - 4.0 * a[l]) -
					     0.5 * log(1.0 - 8.0 * a[l]);
	}
	return s;
}

/*
 * o[j] = la + sum_l s_l (u_l + v_jl)^2 for the ny columns of Vt (d x ny,
 * v_j's entries down column j), vectorised across the pairs j, one
 * clone per ISA. The sum is the one this file's loop over l made when
 * GCC vectorised it two lanes wide (SSE2): the even l in order, the odd l
 * in order, then the two added; each term is (s_l z) z, nothing
 * contracted (-std=c11). So the bits are the same at every width, and
 * the same as before, when the pairs went one at a time and the closed
 * form took 28% of fig_beyond6_4's time.
 */
RFX_SIMD_CLONES
static void pair_sums(const double *u, const double *Vt, size_t ny,
		      size_t d, const double *s, double la, double *E,
		      double *O, double *o)
{
	size_t j, l;

	for (j = 0; j < ny; j++)
		E[j] = O[j] = 0.0;
	for (l = 0; l < d; l++) {
		const double *vt = Vt + l * ny;
		double ul = u[l], sl = s[l], *acc = l & 1 ? O : E;

#pragma omp simd
		for (j = 0; j < ny; j++) {
			double z = ul + vt[j];

			acc[j] += sl * z * z;
		}
	}
#pragma omp simd
	for (j = 0; j < ny; j++)
		o[j] = la + (E[j] + O[j]);
}

/*
 * log Var = -|x - y|^2 + log expm1(la + sum_l s_l z_l^2) - log M, z the
 * canonical B_1 x + B_2 y, s_l = 1/((1 - 8a_l)(1 - 4a_l)); z is formed
 * coordinate by coordinate (u_l + v_l), not from expanded inner products,
 * so a small z keeps its relative accuracy.
 */
int rfx_derf_log_variance(const struct rfx_params *p,
			  const struct rfx_block *b, int M, double *out,
			  struct rfx_err *err)
{
	size_t d = (size_t)p->d, nx = b->nx, ny = b->ny, i, j, l;
	double *U = NULL, *V = NULL, *s = NULL, *work = NULL, la;
	double lm = log((double)M);
	int ret = rfx_derf_check(p, "derf", err);

	if (ret)
		return ret;
	U = malloc(nx * d * sizeof(double));
	/* V (ny x d), then its transpose and the two partial sums */
	V = malloc((2 * ny * d + 2 * ny) * sizeof(double));
	s = malloc(d * sizeof(double));
	work = malloc(d * d * sizeof(double));
	if (!U || !V || !s || !work) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (l = 0; l < d; l++) {
		double a = rfx_derf_a(p)[l];

		s[l] = 1.0 / ((1.0 - 8.0 * a) * (1.0 - 4.0 * a));
	}
	la = rfx_derf_la(rfx_derf_a(p), p->d);
	rfx_gemm_nt(nx, d, d, b->X, d, rfx_derf_b(p, 1), d, U, d, work);
	rfx_gemm_nt(ny, d, d, b->Y, d, rfx_derf_b(p, 2), d, V, d, work);
	for (j = 0; j < ny; j++)
		for (l = 0; l < d; l++)
			V[ny * d + l * ny + j] = V[j * d + l];
	for (i = 0; i < nx; i++) {
		const double *dd = b->dd + i * ny;
		double *o = out + i * ny;

		pair_sums(U + i * d, V + ny * d, ny, d, s, la, V + 2 * ny * d,
			  V + 2 * ny * d + ny, o);
		rfx_vmath_logexpm1(o, o, ny);
		for (j = 0; j < ny; j++)
			o[j] += -dd[j] - lm;
	}
out:
	free(U);
	free(V);
	free(s);
	free(work);
	return ret;
}

/*
 * log f = log D + sum_l a_l w_l^2 + w.(B_k x) - sum_l (B_k x)_l^2/(2(1-4a_l))
 *         - |x|^2/2 - log(M)/2:
 * the fused positive map of lib/est/featmap.c on the transformed inputs
 * X B_k^T with b = 1 and column constants sum_l a_l w_l^2, then the
 * per-row terms added to the row scales.
 *
 * The inputs of the exp map, T = X B_k^T, and the per-row terms are made a
 * block of rows at a time inside the map (rfx_featmat_exp_rows): written
 * out whole, T (n x d) and its two reads cost the map a third of its time
 * at d = 64, M = 256. Each row's values are those of a whole-matrix
 * product, since rfx's gemm sums each entry over k in order whatever the
 * rows around it (lib/num/gemm.h). What the blocks need:
 */
struct derf_src {
	const void *X;      /* n x d inputs, of the map's precision */
	const void *Bt;     /* B_k^T (d x d), then its diagonal (d), rounded to it */
	int diag;           /* B_k is diagonal (SADERF): t_l = b_ll x_l */
	const double *s4;   /* s4[l] = 1/(1 - 4a_l) */
	size_t d;
	void *keep_T;       /* when set, T is also copied there (n x d) */
	double *keep_r;     /* and the per-row terms r there (n) */
};

/*
 * The steps of the map written once for both precisions (after
 * lib/num/gemm.c's DEFINE_GEMM): T is the type of the inputs, the
 * projections and the features (double, or float for
 * rfx_derf_features32), GEMM its product. The sums stay in double in
 * both (in float32 from the float T, X and projections).
 *
 * NAME_transpose: Bt = B_k^T rounded to T, and its diagonal after it
 * (d more: the diagonal maps' scales, contiguous, where a stride of d +
 * 1 had kept the scaling from vectorising, 9% of the SADERF map).
 *
 * NAME_colconst: out[m] = sum_l a_l w_l^2 over column m < M of omega (d x
 * cap), summed in double and rounded once to T.
 *
 * NAME_make: rows i0..i0+cnt-1 of X B_k^T into Tm (struct
 * rfx_featmat_rows's make); NAME_scale: one row of it for a diagonal B_k.
 *
 * NAME_finish: the per-row terms r = sum_l t_l^2/(1 - 4a_l) + |x|^2 of
 * the same rows, lscale[i] -= r/2 (its finish).
 */
#define DERF_DEFINE_STEPS(T, NAME, GEMM)				\
	static void NAME##_transpose(const double *B, T *Bt, size_t d)	\
	{								\
		size_t l, k;						\
									\
		for (l = 0; l < d; l++)					\
			for (k = 0; k < d; k++)				\
				Bt[k * d + l] = (T)B[l * d + k];	\
		for (l = 0; l < d; l++)					\
			Bt[d * d + l] = (T)B[l * d + l];		\
	}								\
									\
	static void NAME##_colconst(const double *a, const T *omega,	\
				    int cap, size_t d, int M, T *out)	\
	{								\
		size_t l;						\
		int m;							\
									\
		for (m = 0; m < M; m++) {				\
			double c = 0.0;					\
									\
			for (l = 0; l < d; l++) {			\
				double om = omega[l * (size_t)cap + (size_t)m]; \
									\
				c += a[l] * om * om;			\
			}						\
			out[m] = (T)c;					\
		}							\
	}								\
									\
	RFX_SIMD_CLONES						\
	static void NAME##_scale(T *restrict t, const T *restrict x,	\
				 const T *restrict b, size_t d)		\
	{								\
		size_t l;						\
									\
		_Pragma("omp simd")					\
		for (l = 0; l < d; l++)					\
			t[l] = x[l] * b[l];				\
	}								\
									\
	static void NAME##_make(const void *ctx, size_t i0, size_t cnt,	\
				void *out)				\
	{								\
		const struct derf_src *s = ctx;				\
		size_t d = s->d, i;					\
		const T *X = (const T *)s->X + i0 * d, *Bt = s->Bt;	\
		T *Tm = out;						\
									\
		if (!s->diag)						\
			GEMM(cnt, d, d, 1, X, d, Bt, d, Tm, d);		\
		else /* the product's bits: it adds exact zeros to these */ \
			for (i = 0; i < cnt; i++)			\
				NAME##_scale(Tm + i * d, X + i * d,	\
					     Bt + d * d, d);		\
		if (s->keep_T)						\
			memcpy((T *)s->keep_T + i0 * d, Tm,		\
			       cnt * d * sizeof(T));			\
	}								\
									\
	RFX_SIMD_CLONES						\
	static double NAME##_rowterm(const T *restrict t,		\
				     const T *restrict x,		\
				     const double *restrict s4, size_t d) \
	{								\
		double r = 0.0;						\
		size_t j;						\
									\
		_Pragma("omp simd reduction(+ : r)")			\
		for (j = 0; j < d; j++)					\
			r += (double)t[j] * t[j] * s4[j] +		\
			     (double)x[j] * x[j];			\
		return r;						\
	}								\
									\
	static void NAME##_finish(const void *ctx, size_t i0, size_t cnt, \
				  const void *rows, double *lscale)	\
	{								\
		const struct derf_src *s = ctx;				\
		const T *Tm = rows, *X = (const T *)s->X + i0 * s->d;	\
		size_t i, d = s->d;					\
									\
		for (i = 0; i < cnt; i++) {				\
			double r = NAME##_rowterm(Tm + i * d, X + i * d, \
						  s->s4, d);		\
									\
			lscale[i] -= 0.5 * r;				\
			if (s->keep_r)					\
				s->keep_r[i0 + i] = r;			\
		}							\
	}

DERF_DEFINE_STEPS(double, derf64, rfx_gemm)
DERF_DEFINE_STEPS(float, derf32, rfx_sgemm)
#undef DERF_DEFINE_STEPS

/*
 * Whether B (d x d) is diagonal, as SADERF's are: its map then scales
 * the inputs (O(d) a row) instead of multiplying them by B^T (O(d^2)).
 */
static int derf_diagonal(const double *B, size_t d)
{
	size_t l, k;

	for (l = 0; l < d; l++)
		for (k = 0; k < d; k++)
			if (k != l && B[l * d + k] != 0.0)
				return 0;
	return 1;
}

/* sum_l log(1 - 4a_l)/4, the log of the DERFs' determinant factor D */
static double derf_logd(const double *a, size_t d)
{
	double logd = 0.0;
	size_t l;

	for (l = 0; l < d; l++)
		logd += 0.25 * log1p(-4.0 * a[l]);
	return logd;
}

/* s4[l] = 1/(1 - 4a_l), the weights of the per-row terms */
static void derf_s4(const double *a, size_t d, double *s4)
{
	size_t l;

	for (l = 0; l < d; l++)
		s4[l] = 1.0 / (1.0 - 4.0 * a[l]);
}

/*
 * What rfx_derf_features computes of the inputs alone, kept in the
 * feature matrix (F->derf) for the next call: T = X B_k^T, the per-row
 * terms r = sum_l t_l^2/(1 - 4a_l) + |x|^2 and logd, recognised by a copy
 * of X, B_k and a. Monte Carlo (rfx variance --mc) draws the features
 * thousands of times for the same 16 pairs, and the product, the
 * transpose of B_k and the log1p's cost more than the features of one
 * draw. One malloc block (header, key, T, r), freed by
 * rfx_featmat_free; only for n d <= DERF_CACHE_MAX, so that large inputs
 * copy and keep nothing.
 */
#define DERF_CACHE_MAX 65536

struct rfx_derf_cache {
	size_t n, cap;          /* rows kept (0: none), room for n d */
	int d, filled;
	double logd;
	double *key;            /* X (n d), B_k (d d), a (d) */
	double *T, *r;          /* n d, n */
};

/*
 * The cache of F for these inputs: filled when it holds them, else emptied
 * (filled = 0) with the key set, for the caller to fill; NULL when the
 * inputs are too large or memory is short (the caller computes afresh).
 */
static struct rfx_derf_cache *derf_cache(struct rfx_featmat *F,
					 const double *X, size_t n, size_t d,
					 const double *B, const double *a)
{
	struct rfx_derf_cache *c = F->derf;
	const size_t nd = n * d, kd = nd + d * d + d;

	if (nd == 0 || nd > DERF_CACHE_MAX)
		return NULL;
	if (c && c->filled && c->n == n && c->d == (int)d &&
	    memcmp(c->key, X, nd * sizeof(double)) == 0 &&
	    memcmp(c->key + nd, B, d * d * sizeof(double)) == 0 &&
	    memcmp(c->key + nd + d * d, a, d * sizeof(double)) == 0)
		return c;
	if (!c || c->cap < kd + nd + n) {
		size_t cap = kd + nd + n;

		free(F->derf);
		F->derf = c = malloc(sizeof(*c) + cap * sizeof(double));
		if (!c)
			return NULL;
		c->cap = cap;
	}
	c->n = n;
	c->d = (int)d;
	c->filled = 0;
	c->key = (double *)(c + 1);
	c->T = c->key + kd;
	c->r = c->T + nd;
	memcpy(c->key, X, nd * sizeof(double));
	memcpy(c->key + nd, B, d * d * sizeof(double));
	memcpy(c->key + nd + d * d, a, d * sizeof(double));
	return c;
}

int rfx_derf_features(const struct rfx_params *p, const struct rfx_draw *w,
		      int side, const double *X, size_t n, int M,
		      struct rfx_featmat *F, struct rfx_err *err)
{
	size_t d = (size_t)p->d;
	const double *a, *B;
	double *Bt, logd;
	struct rfx_derf_cache *c;
	struct derf_src s;
	const struct rfx_featmat_rows src = { derf64_make, derf64_finish, &s };
	int ret = rfx_derf_check(p, "derf", err);

	if (ret)
		return ret;
	a = rfx_derf_a(p);
	B = rfx_derf_b(p, side == 1 ? 1 : 2);
	c = derf_cache(F, X, n, d, B, a);
	derf64_colconst(a, w->omega, w->cap, d, M, F->cwork);
	if (c && c->filled) {
		size_t k;

		rfx_featmat_exp(F, w, c->T, n, M, 1.0, F->cwork, 0.0,
				c->logd - 0.5 * log((double)M));
		for (k = 0; k < n; k++)
			F->lscale[k] -= 0.5 * c->r[k];
		return RFX_OK;
	}
	Bt = rfx_gemm_alloc(d * d + 2 * d, sizeof(double)); /* B_k^T, diagonal, s4 */
	if (!Bt)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	derf64_transpose(B, Bt, d);
	derf_s4(a, d, Bt + d * d + d);
	logd = derf_logd(a, d);
	s = (struct derf_src){ X, Bt, derf_diagonal(B, d), Bt + d * d + d, d,
			       c ? c->T : NULL, c ? c->r : NULL };
	if (rfx_featmat_exp_rows(F, w, &src, n, M, 1.0, F->cwork, 0.0,
				 logd - 0.5 * log((double)M)))
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	else if (c) {
		c->logd = logd;
		c->filled = 1;
	}
	free(Bt);
	return ret;
}

/*
 * The same in float32 (lib/est/featmap32.c): T = X B_k^T by rfx_sgemm
 * from B_k rounded to float, the column constants sum_l a_l w_l^2 of the
 * float projections (summed in double, rounded once), the float exp map,
 * and the per-row terms, summed in double from the float T and X. No
 * cache: Monte Carlo runs in double.
 */
int rfx_derf_features32(const struct rfx_params *p,
			const struct rfx_draw32 *w, int side, const float *X,
			size_t n, int M, struct rfx_featmat32 *F,
			struct rfx_err *err)
{
	size_t d = (size_t)p->d;
	const double *a, *B;
	float *Bt = NULL;
	double *s4 = NULL;
	struct derf_src s;
	const struct rfx_featmat_rows src = { derf32_make, derf32_finish, &s };
	int ret = rfx_derf_check(p, "derf", err);

	if (ret)
		return ret;
	a = rfx_derf_a(p);
	Bt = rfx_gemm_alloc(d * d + d, sizeof(float));
	s4 = malloc(d * sizeof(double));
	if (!Bt || !s4) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	B = rfx_derf_b(p, side == 1 ? 1 : 2);
	derf32_transpose(B, Bt, d);
	derf_s4(a, d, s4);
	derf32_colconst(a, w->omega, w->cap, d, M, F->cwork);
	s = (struct derf_src){ X, Bt, derf_diagonal(B, d), s4, d, NULL, NULL };
	if (rfx_featmat32_exp_rows(F, w, &src, n, M, 1.0f, F->cwork, 0.0,
				   derf_logd(a, d) - 0.5 * log((double)M)))
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
out:
	free(Bt);
	free(s4);
	return ret;
}

/*
 * SDERF's map (B_1 = B_2 = B). With B^T P B = I, its unbiasedness (true
 * to rounding for the B = diag(sqrt(1 - 4a)) V^T of rfx_derf_fit_sigma,
 * V orthogonal; checked by the fit to 1e-8), the per-row terms are
 * x^T B^T P B x + |x|^2 = 2|x|^2, and w.(B x) = (B^T w).x: the positive
 * map of the projections B^T omega with column constants sum_l a_l w_l^2
 * and pos's row constant -|x|^2. One d x d x M product per call instead
 * of the DERFs' d x d per input: at d = 64, M = 256 the map costs OPRF's
 * (bench/README.md), where the product per input made it 1.2 times that.
 * Monte Carlo, which maps the same 16 inputs for every draw, pays the
 * product per draw instead: at M = 8 about what the X B^T it kept across
 * draws saved it (rfx variance's Monte Carlo takes the same time).
 */
int rfx_derf_features_sym(const struct rfx_params *p,
			  const struct rfx_draw *w, int side, const double *X,
			  size_t n, int M, struct rfx_featmat *F,
			  struct rfx_err *err)
{
	size_t d = (size_t)p->d;
	const double *a;
	double *W, *Wt;
	size_t m, k, nm = (size_t)M;
	struct rfx_draw wb = { p->d, M, M, NULL, NULL, NULL };
	int saved, ret = rfx_derf_check(p, "sderf", err);

	if (ret)
		return ret;
	a = rfx_derf_a(p);
	W = rfx_gemm_alloc(2 * d * nm, sizeof(double));
	if (!W)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	Wt = W + d * nm;
	/*
	 * (B^T omega)^T = omega^T B, M x d: transposes of the d x M draw,
	 * not of the d x d B, which cost as much as the product itself at
	 * Monte Carlo's M = 8 (16 inputs per call).
	 */
	for (m = 0; m < nm; m++)
		for (k = 0; k < d; k++)
			W[m * d + k] = w->omega[k * (size_t)w->cap + m];
	/*
	 * One BLAS thread (d > 320 goes to OpenBLAS), so the bits do not
	 * depend on the thread count; inside a parallel region the caller
	 * has set that already (featmap.h).
	 */
	saved = omp_in_parallel() ? 0 : rfx_blas_single_begin();
	rfx_gemm(nm, d, d, 1.0, W, d, rfx_derf_b(p, side == 1 ? 1 : 2), d, Wt,
		 d);
	rfx_blas_single_end(saved);
	for (k = 0; k < d; k++)
		for (m = 0; m < nm; m++)
			W[k * nm + m] = Wt[m * d + k];
	wb.omega = W;
	derf64_colconst(a, w->omega, w->cap, d, M, F->cwork);
	rfx_featmat_exp(F, &wb, X, n, M, 1.0, F->cwork, -1.0,
			derf_logd(a, d) - 0.5 * log((double)M));
	free(W);
	return RFX_OK;
}

/*
 * B^T omega in float32: W_km = sum_l B_lk omega_lm, summed in double from
 * l = 0 up, each term a multiply and an add (rfx builds without
 * contraction, so each clone gives the same bits), rounded once to float.
 * od (d M doubles of scratch) gets omega converted to double (exactly)
 * in blocks of 32 columns (the last M % 32), each block d x its width,
 * so that a block stays in
 * L1 while the sums of its 32 columns, for every row k in turn, stay in
 * registers. Summed into a row in memory instead, one call per B_lk
 * (4096 at d = 64), converting as it went and spread over the threads,
 * the product cost the float32 map 0.15 ms of its own and as much again
 * for waking the second thread, which the first then waited for: the
 * float32 SDERF map at L = 65536 took 0.53-0.58 of the float64 map's time
 * against pos's 0.48.
 */
typedef double derf_v8d __attribute__((vector_size(64))); /* 8 doubles */

RFX_SIMD_CLONES
static void derf_btw32(float *W, const double *B, size_t d,
		       const float *omega, size_t cap, int M, double *od)
{
	size_t l, k;
	int m, j, c;

	/* od: omega in blocks of 32 columns (the last M % 32), d x each width */
	for (m = 0; m < M; m += c) {
		c = M - m < 32 ? M - m : 32;
		for (k = 0; k < d; k++)
			for (j = 0; j < c; j++)
				od[(size_t)m * d + k * (size_t)c + (size_t)j] =
					(double)omega[k * cap + (size_t)(m + j)];
	}
	for (m = 0; m + 32 <= M; m += 32) {
		const double *ob = od + (size_t)m * d; /* d x 32, packed */

		for (k = 0; k < d; k++) {
			derf_v8d a0 = { 0 }, a1 = { 0 }, a2 = { 0 };
			derf_v8d a3 = { 0 }, o0, o1, o2, o3;
			double r[32];

			for (l = 0; l < d; l++) {
				const double *o = ob + l * 32;
				double b = B[l * d + k];

				memcpy(&o0, o, sizeof(o0));
				memcpy(&o1, o + 8, sizeof(o1));
				memcpy(&o2, o + 16, sizeof(o2));
				memcpy(&o3, o + 24, sizeof(o3));
				a0 = a0 + b * o0;
				a1 = a1 + b * o1;
				a2 = a2 + b * o2;
				a3 = a3 + b * o3;
			}
			memcpy(r, &a0, sizeof(a0));
			memcpy(r + 8, &a1, sizeof(a1));
			memcpy(r + 16, &a2, sizeof(a2));
			memcpy(r + 24, &a3, sizeof(a3));
			for (j = 0; j < 32; j++)
				W[k * (size_t)M + (size_t)(m + j)] = (float)r[j];
		}
	}
	if (m < M) { /* the last M % 32 columns: d x (M % 32) */
		const double *ob = od + (size_t)m * d;

		c = M - m;

		for (k = 0; k < d; k++)
			for (j = 0; j < c; j++) {
				double s = 0.0;

				for (l = 0; l < d; l++)
					s = s + B[l * d + k] *
						    ob[l * (size_t)c + (size_t)j];
				W[k * (size_t)M + (size_t)(m + j)] = (float)s;
			}
	}
}

/*
 * The same in float32: B^T omega summed in double from the float
 * projections and rounded once to float (so each entry is off by at
 * most 2u sum_l |B_lk w_l|, u = 2^-24: tests/t_featmap32.c's bound).
 */
int rfx_derf_features_sym32(const struct rfx_params *p,
			    const struct rfx_draw32 *w, int side,
			    const float *X, size_t n, int M,
			    struct rfx_featmat32 *F, struct rfx_err *err)
{
	size_t d = (size_t)p->d;
	const double *a, *B;
	double *od;
	float *W;
	struct rfx_draw32 wb = { p->d, M, NULL };
	int ret = rfx_derf_check(p, "sderf", err);

	if (ret)
		return ret;
	a = rfx_derf_a(p);
	B = rfx_derf_b(p, side == 1 ? 1 : 2);
	W = rfx_gemm_alloc(d * (size_t)M, sizeof(float));
	od = malloc(d * (size_t)M * sizeof(*od));
	if (!W || !od) {
		free(W);
		free(od);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	derf_btw32(W, B, d, w->omega, (size_t)w->cap, M, od);
	free(od);
	wb.omega = W;
	derf32_colconst(a, w->omega, w->cap, d, M, F->cwork);
	rfx_featmat32_exp(F, &wb, X, n, M, 1.0f, F->cwork, -1.0,
			  derf_logd(a, d) - 0.5 * log((double)M));
	free(W);
	return RFX_OK;
}

void rfx_derf_moments_release(struct rfx_derf_moments *m)
{
	free(m->Mx);
	free(m->My);
	free(m->mx);
	free(m->my);
	memset(m, 0, sizeof(*m));
}

/* mean v v^T (or its diagonal) and mean v of the n rows of V into S, mu. */
static void moments(const double *V, size_t n, size_t d, int diag_only,
		    double *S, double *mu)
{
	size_t i, k, l;

	memset(S, 0, d * d * sizeof(double));
	memset(mu, 0, d * sizeof(double));
	for (i = 0; i < n; i++) {
		const double *v = V + i * d;

		for (k = 0; k < d; k++) {
			mu[k] += v[k];
			if (diag_only) {
				S[k * d + k] += v[k] * v[k];
				continue;
			}
			for (l = 0; l <= k; l++)
				S[k * d + l] += v[k] * v[l];
		}
	}
	for (k = 0; k < d; k++) {
		mu[k] /= (double)n;
		for (l = 0; l <= k; l++) {
			S[k * d + l] /= (double)n;
			S[l * d + k] = S[k * d + l];
		}
	}
}

int rfx_derf_moments_init(struct rfx_derf_moments *m, int d,
			  const double *X, size_t nx, const double *Y,
			  size_t ny, int diag_only, struct rfx_err *err)
{
	size_t dd = (size_t)d;

	memset(m, 0, sizeof(*m));
	m->d = d;
	m->Mx = malloc(dd * dd * sizeof(double));
	m->My = malloc(dd * dd * sizeof(double));
	m->mx = malloc(dd * sizeof(double));
	m->my = malloc(dd * sizeof(double));
	if (!m->Mx || !m->My || !m->mx || !m->my) {
		rfx_derf_moments_release(m);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	moments(X, nx, dd, diag_only, m->Mx, m->mx);
	moments(Y, ny, dd, diag_only, m->My, m->my);
	return RFX_OK;
}

/* b^T S c for rows b, c of length d and S d x d. */
static double quad(const double *b, const double *S, const double *c, size_t d)
{
	size_t k, l;
	double s = 0.0;

	for (k = 0; k < d; k++) {
		double t = 0.0;

		for (l = 0; l < d; l++)
			t += S[k * d + l] * c[l];
		s += b[k] * t;
	}
	return s;
}

double rfx_derf_objective(const struct rfx_params *p,
			  const struct rfx_derf_moments *m)
{
	size_t d = (size_t)p->d, l;
	const double *a = rfx_derf_a(p), *B1 = rfx_derf_b(p, 1),
		     *B2 = rfx_derf_b(p, 2);
	double obj = rfx_derf_la(a, p->d);

	/* E z_l^2 = b1 Mx b1 + b2 My b2 + 2 (b1 . mx)(b2 . my), rows l */
	for (l = 0; l < d; l++) {
		const double *b1 = B1 + l * d, *b2 = B2 + l * d;
		double u = 0.0, v = 0.0, ez;
		size_t k;

		for (k = 0; k < d; k++) {
			u += b1[k] * m->mx[k];
			v += b2[k] * m->my[k];
		}
		ez = quad(b1, m->Mx, b1, d) + quad(b2, m->My, b2, d) + 2.0 * u * v;
		obj += ez / ((1.0 - 8.0 * a[l]) * (1.0 - 4.0 * a[l]));
	}
	return obj;
}

double rfx_derf_rho(double v, double d)
{
	double b = 2.0 * v + d;

	return 2.0 * d / (b * (1.0 + sqrt(1.0 + 8.0 * v * d / b / b)));
}

int rfx_derf_fit_sigma(struct rfx_params *p, double *S, const double *G,
		       const double *H, struct rfx_err *err)
{
	size_t d = (size_t)p->d, l, k, j;
	gsl_matrix_view Sv = gsl_matrix_view_array(S, d, d);
	gsl_vector *eval = gsl_vector_alloc(d);
	gsl_matrix *evec = gsl_matrix_alloc(d, d);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(d);
	double *a, *B1, *B2;
	int ret = rfx_derf_alloc(p, err);

	if (ret)
		goto out;
	if (!eval || !evec || !ws) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	if (gsl_eigen_symmv(&Sv.matrix, eval, evec, ws)) {
		ret = rfx_error(err, RFX_ENUMERIC,
				"eigendecomposition of a %zu x %zu moment matrix failed",
				d, d);
		goto out;
	}
	a = rfx_derf_a(p);
	B1 = rfx_derf_b(p, 1);
	B2 = rfx_derf_b(p, 2);
	for (l = 0; l < d; l++) {
		/* S is positive semi-definite: a negative eigenvalue is rounding */
		double s = fmax(gsl_vector_get(eval, l), 0.0);
		double rho = rfx_derf_rho(s, 1.0);
		double beta;

		a[l] = (1.0 - 1.0 / rho) / 8.0;
		beta = sqrt(1.0 - 4.0 * a[l]);
		/* row l of diag(beta) V^T G: beta sum_k V_kl G_kj */
		for (j = 0; j < d; j++) {
			double g = 0.0, h = 0.0;

			for (k = 0; k < d; k++) {
				double v = gsl_matrix_get(evec, k, l);

				g += v * (G ? G[k * d + j] : (k == j));
				h += v * (H ? H[k * d + j] : (k == j));
			}
			B1[l * d + j] = beta * g;
			B2[l * d + j] = beta * h;
		}
	}
	ret = RFX_OK;
out:
	gsl_vector_free(eval);
	gsl_matrix_free(evec);
	gsl_eigen_symmv_free(ws);
	return ret;
}

/*
 * The fit in the span of the inputs: with Q = [Q_r, Q_perp] orthogonal,
 * Q_r a basis of the span of the nx + ny = r < d inputs (GSL's
 * Householder QR of the d x r matrix of inputs, unpacked to d x d), the
 * moments vanish on Q_perp, where every fit gives a = 0 and B = I; so
 * the r-dimensional fit of the projected inputs X Q_r, Y Q_r, extended by
 *   a = (a_r, 0),  B_k = [B_k,r Q_r^T; Q_perp^T],
 * is the d-dimensional one (B_1^T P B_2 = Q_r Q_r^T + Q_perp Q_perp^T = I),
 * at O(d^2 r) instead of the O(d^3) eigendecompositions: pair mode and
 * the variance maps fit one pair per point.
 */
int rfx_derf_fit_reduced(struct rfx_params *p, const double *X, size_t nx,
			 const double *Y, size_t ny, int M,
			 int (*fit)(struct rfx_params *, const double *, size_t,
				    const double *, size_t, int,
				    struct rfx_err *),
			 struct rfx_err *err)
{
	size_t d = (size_t)p->d, r = nx + ny, i, l, k;
	gsl_matrix *A = gsl_matrix_alloc(d, r), *Q = gsl_matrix_alloc(d, d);
	gsl_matrix *R = gsl_matrix_alloc(d, r);
	gsl_vector *tau = gsl_vector_alloc(r);
	double *Xr = malloc(nx * r * sizeof(double)), *Yr = malloc(ny * r * sizeof(double));
	struct rfx_params q;
	int ret;

	rfx_params_init(&q, (int)r);
	if (!A || !Q || !R || !tau || !Xr || !Yr) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < r; i++)
		for (l = 0; l < d; l++)
			gsl_matrix_set(A, l, i, i < nx ? X[i * d + l] : Y[(i - nx) * d + l]);
	if (gsl_linalg_QR_decomp(A, tau) || gsl_linalg_QR_unpack(A, tau, Q, R)) {
		ret = rfx_error(err, RFX_ENUMERIC, "qr factorisation of the inputs failed");
		goto out;
	}
	for (i = 0; i < nx + ny; i++) {
		const double *v = i < nx ? X + i * d : Y + (i - nx) * d;
		double *o = i < nx ? Xr + i * r : Yr + (i - nx) * r;

		for (k = 0; k < r; k++) {
			double s = 0.0;

			for (l = 0; l < d; l++)
				s += v[l] * gsl_matrix_get(Q, l, k);
			o[k] = s;
		}
	}
	ret = fit(&q, Xr, nx, Yr, ny, M, err);
	if (ret)
		goto out;
	ret = rfx_derf_alloc(p, err);
	if (ret)
		goto out;
	for (k = 0; k < d; k++) {
		rfx_derf_a(p)[k] = k < r ? rfx_derf_a(&q)[k] : 0.0;
		for (l = 0; l < d; l++) {
			double b1 = 0.0, b2 = 0.0;

			if (k < r) {
				for (i = 0; i < r; i++) {
					double ql = gsl_matrix_get(Q, l, i);

					b1 += rfx_derf_b(&q, 1)[k * r + i] * ql;
					b2 += rfx_derf_b(&q, 2)[k * r + i] * ql;
				}
			} else {
				b1 = b2 = gsl_matrix_get(Q, l, k);
			}
			rfx_derf_b(p, 1)[k * d + l] = b1;
			rfx_derf_b(p, 2)[k * d + l] = b2;
		}
	}
	ret = RFX_OK;
out:
	gsl_matrix_free(A);
	gsl_matrix_free(Q);
	gsl_matrix_free(R);
	gsl_vector_free(tau);
	free(Xr);
	free(Yr);
	rfx_params_release(&q);
	return ret;
}

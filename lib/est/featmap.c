/*
 * Feature matrices: allocation, the log-to-scaled conversion that most
 * estimators use, the fused projection-and-transform feature maps of
 * TrigRF, PosRF and OPRF, and the one pairwise estimate every Monte Carlo
 * evaluation goes through. The draws they are made from are
 * lib/est/draw.c.
 *
 * Speed. The element loops carry "#pragma omp simd" so that exp, sin and
 * cos go to glibc's vector functions (lib/num/logmath.h) and are compiled for
 * AVX-512, AVX2 and baseline x86-64 (chosen at run time). The fused maps
 * work on blocks of rows small enough that the product's output is still
 * in L2 when it is transformed (the product is lib/num/gemm.c's: AVX-512 where
 * the CPU has it, OpenBLAS's dgemm otherwise), so the L x M matrix crosses memory once
 * (twice for the complex TrigRF: re and im) instead of once per pass.
 */
#include "est/featmap.h"
#include "est/featmap_impl.h"
#include "num/blas.h"
#include "num/gemm.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "num/logmath.h"
#include "num/vmath.h"

/* Elements (rows x M) per block of the fused maps: 256 KiB per array. */
#define BLOCK_ELEMS 32768

static int thread_num(void)
{
#ifdef _OPENMP
	return omp_get_thread_num();
#else
	return 0;
#endif
}

struct rfx_featmat *rfx_featmat_alloc(size_t n, int D)
{
	struct rfx_featmat *F;

	if (n == 0 || D < 1 || !(F = calloc(1, sizeof(*F))))
		return NULL;
	if (!FEATMAP_ALLOC_SHARED(F, n, D, double) ||
	    !(F->work = malloc(n * (size_t)D * sizeof(double))) ||
	    !(F->work2 = malloc(n * sizeof(double)))) {
		rfx_featmat_free(F);
		return NULL;
	}
	return F;
}

void rfx_featmat_free(struct rfx_featmat *F)
{
	if (!F)
		return;
	free(F->re);
	free(F->im);
	free(F->lscale);
	free(F->work);
	free(F->work2);
	free(F->cwork);
	free(F->dirf); /* one block each, est/dirf.c and est/derf.c */
	free(F->derf);
	free(F);
}

/* the row maximum of exp_row's (featmap_impl.h) */
FEATMAP_DEFINE_ROWMAX(double, row_max)

/*
 * One row of rfx_featmat_from_log, vectorised through lib/num/vmath.c (exp,
 * sin and cos), in chunks of stack buffers so that no call allocates.
 * Reads lm[j] and ph[j] before writing re[j] and im[j], so the in-place
 * use the header allows holds.
 */
RFX_SIMD_CLONES
static double from_log_row(const double *lm, const double *ph, double *re,
			   double *im, int D, int neg)
{
	double m = row_max(lm, NULL, NULL, D), a[FEATMAP_CHUNK];
	double sn[FEATMAP_CHUNK], cs[FEATMAP_CHUNK];
	int j0, j, c;

	if (m == -INFINITY)
		m = 0.0;
	for (j0 = 0; j0 < D; j0 += FEATMAP_CHUNK) {
		c = D - j0 < FEATMAP_CHUNK ? D - j0 : FEATMAP_CHUNK;
		rfx_vmath_exp_shift(a, lm + j0, m, (size_t)c);
		if (!ph) {
#pragma omp simd
			for (j = 0; j < c; j++) {
				re[j0 + j] = a[j];
				im[j0 + j] = 0.0;
			}
			continue;
		}
		if (neg) {
#pragma omp simd
			for (j = 0; j < c; j++) {
				re[j0 + j] = ph[j0 + j] != 0.0 ? -a[j] : a[j];
				im[j0 + j] = 0.0;
			}
			continue;
		}
		rfx_vmath_sincos(sn, cs, ph + j0, (size_t)c);
#pragma omp simd
		for (j = 0; j < c; j++) {
			re[j0 + j] = a[j] * cs[j];
			im[j0 + j] = a[j] * sn[j];
		}
	}
	return m;
}

void rfx_featmat_from_log(struct rfx_featmat *F, size_t n, int D,
			  const double *lmod, const double *ph)
{
	size_t i;

	F->n = n;
	F->D = D;
	F->is_complex = ph != NULL;
	for (i = 0; i < n; i++)
		F->lscale[i] = from_log_row(lmod + i * (size_t)D,
					    ph ? ph + i * (size_t)D : NULL,
					    F->re + i * (size_t)D,
					    F->im + i * (size_t)D, D, 0);
}

void rfx_featmat_from_log_signed(struct rfx_featmat *F, size_t n, int D,
				 const double *lmod, const double *neg)
{
	size_t i;

	F->n = n;
	F->D = D;
	F->is_complex = 0;
	for (i = 0; i < n; i++)
		F->lscale[i] = from_log_row(lmod + i * (size_t)D,
					    neg + i * (size_t)D,
					    F->re + i * (size_t)D,
					    F->im + i * (size_t)D, D, 1);
}

size_t rfx_featmat_block_rows(int M)
{
	size_t r = BLOCK_ELEMS / (size_t)(M > 0 ? M : 1);

	if (r > 256)
		r = 256;
	r &= ~(size_t)7;
	return r < 8 ? 8 : r;
}

/* What a fused map does to each block. */
struct fused {
	const struct rfx_draw *w;
	const double *X;      /* n x d inputs */
	int M;                /* features */
	int paired;           /* exp: features j and P + j from column j, P = M/2 */
	int trig;             /* 1: rfx_featmat_trig, 0: rfx_featmat_exp */
	double sgn;           /* trig: sign of the sine */
	double b;             /* exp: factor of the projection (dgemm alpha) */
	const double *a;      /* exp: column constants or NULL */
	double c, e;          /* exp: row constant c|x|^2 + e */
	struct rfx_featmat *F;
	const struct rfx_hybmap *h; /* rfx_featmat_hybrid's map, else NULL */
	const struct rfx_featmat_rows *src; /* makes the inputs, else NULL */
	int pscr;             /* the product goes to scratch (fused_run) */
};

/*
 * re = cos and im = sin of the cnt projections in pr (pr may be re; the
 * sign of the conjugate side is in them already, see fused_block); nt:
 * streaming stores (pr is scratch and re, im far larger than the caches).
 */
static void trig_block(const double *pr, double *re, double *im, size_t cnt,
		       int nt)
{
	if (nt) {
		rfx_vmath_sincos_nt(im, re, pr, cnt);
		rfx_vmath_nt_fence();
		return;
	}
	rfx_vmath_sincos(im, re, pr, cnt);
}

/* One row of rfx_featmat_exp (featmap_impl.h). */
#define EXP_SHIFT_OUT(y, x, m, c, nt)					\
	((nt) ? rfx_vmath_exp_shift_nt(y, x, m, c) : rfx_vmath_exp_shift(y, x, m, c))
FEATMAP_DEFINE_EXP_ROW(double, exp_row, rfx_vmath_exp_shift, EXP_SHIFT_OUT)
#undef EXP_SHIFT_OUT

/* |x|^2 of one input row, inlined into the (uncloned) block functions */
FEATMAP_DEFINE_SUMSQ(static inline, double, int, sumsq)

/*
 * One row of rfx_featmat_hybrid from its nc projections pr; xx = |x|^2.
 * Sets the row's D entries of re and im and returns its scale.
 */
RFX_SIMD_CLONES
static double hybrid_row(const struct rfx_hybmap *h, const double *pr,
			 double xx, double sgn, double *re, double *im,
			 double *pe)
{
	int m1 = h->m1, m3 = h->m3, pc = h->posh ? 2 * m1 : m1;
	int nb = h->shared ? m1 : 2 * m1, j, l;
	const double *pt = pr, *pp = pr + (h->shared ? 0 : m1), *pl = pr + nb;
	double lt = -0.5 * log((double)m1);     /* log of T's modulus */
	double cp = -0.5 * log((double)pc) - xx; /* P's: cp + w.x */
	double ia = 1.0 / sqrt((double)m3);     /* |a_l| when a_l != 0 */
	double mp = -INFINITY, u, ct;
	double *ta = re + m1, *tb = im + m1;    /* a (x) T */
	double *pa = re + (m3 + 1) * m1, *pb = im + (m3 + 1) * m1; /* P, a (x) P */

	/* P's exponents: +-w.x (cosh) or w.x (PosRF), and their maximum. */
	if (h->posh) {
#pragma omp simd reduction(max : mp)
		for (j = 0; j < m1; j++) {
			pe[2 * j] = pp[j];
			pe[2 * j + 1] = -pp[j];
			mp = fabs(pp[j]) > mp ? fabs(pp[j]) : mp;
		}
	} else {
#pragma omp simd reduction(max : mp)
		for (j = 0; j < m1; j++) {
			pe[j] = pp[j];
			mp = pp[j] > mp ? pp[j] : mp;
		}
	}
	/* The row's largest log-modulus, T's or P's, is u - log(2)/2. */
	u = cp + mp > lt ? cp + mp : lt;
	ct = exp(lt - u);
#pragma omp simd
	for (j = 0; j < pc; j++)
		pa[j] = exp(cp + pe[j] - u);
#pragma omp simd
	for (j = 0; j < m1; j++)
		re[j] = ct * cos(pt[j]);
#pragma omp simd
	for (j = 0; j < m1; j++)
		im[j] = sgn * ct * sin(pt[j]);
#pragma omp simd
	for (j = 0; j < pc; j++)
		pb[j] = 0.0;
	/* a_l = sign(w_l.x)/sqrt(m3) times T, and i a_l times P. */
	for (l = 0; l < m3; l++) {
		double al = ((pl[l] > 0.0) - (pl[l] < 0.0)) * ia;
		double *ar = ta + l * m1, *ai = tb + l * m1;
		double *qr = pa + (l + 1) * pc, *qi = pb + (l + 1) * pc;

#pragma omp simd
		for (j = 0; j < m1; j++) {
			ar[j] = al * re[j];
			ai[j] = al * im[j];
		}
#pragma omp simd
		for (j = 0; j < pc; j++) {
			qr[j] = 0.0;
			qi[j] = al * pa[j];
		}
	}
	return u - 0.5 * RFX_LN2;
}

/*
 * Rows i0..i0+cnt-1 of rfx_featmat_hybrid: the projections go to F->work
 * (nc per row), each row's entries straight to re and im.
 */
static void hybrid_block(const struct fused *f, size_t i0, size_t cnt)
{
	const struct rfx_hybmap *h = f->h;
	const struct rfx_draw *w = f->w;
	struct rfx_featmat *F = f->F;
	int nc = (h->shared ? h->m1 : 2 * h->m1) + h->m3;
	size_t D = (size_t)f->M, i;
	double *pr = F->work + i0 * (size_t)nc;
	double pe[2 * RFX_HYBMAP_MAX_M1];

	rfx_gemm(cnt, (size_t)nc, (size_t)w->d, 1.0, f->X + i0 * (size_t)w->d,
		 (size_t)w->d, w->omega, (size_t)w->cap, pr, (size_t)nc);
	for (i = 0; i < cnt; i++)
		F->lscale[i0 + i] = hybrid_row(h, pr + i * (size_t)nc,
					       sumsq(f->X + (i0 + i) * (size_t)w->d, w->d),
					       f->sgn, F->re + (i0 + i) * D,
					       F->im + (i0 + i) * D, pe);
}

/*
 * Rows i0..i0+cnt-1: project into scratch (cnt x M, when f->pscr; else
 * into F->re), then transform in cache into F->re and F->im. The inputs
 * are f->X's rows, or those f->src makes into the scratch after the
 * product's (cnt x d).
 */
static void fused_block(const struct fused *f, size_t i0, size_t cnt,
			double *scr)
{
	const struct rfx_draw *w = f->w;
	struct rfx_featmat *F = f->F;
	size_t M = (size_t)f->M, d = (size_t)w->d, i;
	int P = f->paired ? f->M / 2 : f->M, nt = f->pscr && scr;
	double *re = F->re + i0 * M, *pr = nt ? scr : re;
	const double *X;

	if (f->h) {
		hybrid_block(f, i0, cnt);
		return;
	}
	if (f->src) { /* run_blocks gave scratch for these */
		double *T = nt ? scr + cnt * M : scr;

		f->src->make(f->src->ctx, i0, cnt, T);
		X = T;
	} else
		X = f->X + i0 * d;

	/*
	 * trig takes sgn as the product's factor, as featmap32.c's: sin(-p)
	 * = -sin p and cos(-p) = cos p bit for bit in both vmath kernels
	 * (tests/t_vmath.c), so the conjugate side needs no sign pass (one
	 * after the streaming stores would read im back from memory)
	 */
	rfx_gemm(cnt, (size_t)P, d, f->trig ? f->sgn : f->b, X, d, w->omega,
		 (size_t)w->cap, pr, M);
	if (f->paired)
		for (i = 0; i < cnt; i++) {
			double *v = pr + i * M;
			int j;

			for (j = 0; j < P; j++)
				v[P + j] = -v[j];
		}
	if (f->trig) {
		trig_block(pr, re, F->im + i0 * M, cnt * M, nt);
		return;
	}
	/*
	 * The rows' |x|^2 first, in a loop of their own: each is a chain of
	 * dependent adds, and only there do the chains of several rows
	 * overlap (between exp_rows they took 3% of the pos map).
	 */
	for (i = 0; i < cnt; i++)
		F->lscale[i0 + i] = sumsq(X + i * d, w->d);
	for (i = 0; i < cnt; i++)
		F->lscale[i0 + i] = exp_row(re + i * M, pr + i * M, f->a, f->M,
					    nt) +
				    f->c * F->lscale[i0 + i] + f->e;
	if (nt)
		rfx_vmath_nt_fence();
	if (f->src && f->src->finish)
		f->src->finish(f->src->ctx, i0, cnt, X, F->lscale + i0);
}

/*
 * Runs block over the n rows in blocks of B, each block's product on one
 * BLAS thread (see featmap.h). OpenBLAS on pthreads has a thread count of
 * its own, set to 1 here for the duration. OpenBLAS on OpenMP runs
 * single-threaded inside a parallel region by itself (and its
 * openblas_set_num_threads would set OpenMP's count instead), so there
 * every block runs in one, even a lone block.
 */
int rfx_featmat_run_blocks(size_t n, size_t B, size_t scr_bytes,
			   int need_scr,
			   void (*block)(const void *ctx, size_t i0,
					 size_t cnt, void *scr),
			   const void *ctx)
{
	size_t nb = (n + B - 1) / B, k;
	size_t per = (scr_bytes + 63) & ~(size_t)63; /* bytes per thread */
	int omp_blas = openblas_get_parallel() == OPENBLAS_OPENMP;
	int saved; /* OpenBLAS's thread count to restore */
	char *scr = NULL;
	int nt = 1;

#ifdef _OPENMP
	nt = omp_in_parallel() ? 1 : omp_get_max_threads();
#endif
	/* without the memory the product goes to the output */
	if (per)
		scr = rfx_gemm_alloc((size_t)nt, per);
	if (need_scr && per && !scr)
		return RFX_ENOMEM;
#ifdef _OPENMP
	if (omp_in_parallel()) {
		for (k = 0; k < nb; k++)
			block(ctx, k * B, n - k * B < B ? n - k * B : B, scr);
		free(scr);
		return RFX_OK;
	}
#endif
	saved = rfx_blas_single_begin();
	if (nb == 1 && !omp_blas)
		block(ctx, 0, n, scr);
	else {
#pragma omp parallel for schedule(dynamic)
		for (k = 0; k < nb; k++)
			block(ctx, k * B, n - k * B < B ? n - k * B : B,
			      scr ? scr + per * (size_t)thread_num() : NULL);
	}
	rfx_blas_single_end(saved);
	free(scr);
	return RFX_OK;
}

static void fused_block_cb(const void *ctx, size_t i0, size_t cnt, void *scr)
{
	fused_block(ctx, i0, cnt, scr);
}

/*
 * When the output is far larger than the caches, the product goes to a
 * block of scratch per thread that stays in L2: written straight into
 * the output it would wait on memory for every line it touches first.
 * (Below the threshold the output itself stays cached.) Made inputs
 * (f->src) always go to scratch, after the product's. RFX_ENOMEM when
 * that scratch cannot be had.
 */
static int fused_run(struct fused *f, size_t n)
{
	size_t B = rfx_featmat_block_rows(f->M);
	size_t scr;

	f->pscr = !f->h && n * (size_t)f->M >= FEATMAP_SCRATCH_MIN_ELEMS;
	scr = ((f->pscr ? (size_t)f->M : 0) + (f->src ? (size_t)f->w->d : 0)) *
	      B * sizeof(double);
	return rfx_featmat_run_blocks(n, B, scr, f->src != NULL,
				      fused_block_cb, f);
}

void rfx_featmat_trig(struct rfx_featmat *F, const struct rfx_draw *w,
		      const double *X, size_t n, int M, double sgn, double ls)
{
	struct fused f = { w, X, M, 0, 1, sgn, 1.0, NULL, 0.0, 0.0, F, NULL };
	size_t i;

	fused_run(&f, n);
	for (i = 0; i < n; i++)
		F->lscale[i] = ls;
	F->n = n;
	F->D = M;
	F->is_complex = 1;
}

void rfx_featmat_exp(struct rfx_featmat *F, const struct rfx_draw *w,
		     const double *X, size_t n, int M, double b,
		     const double *colconst, double c, double e)
{
	struct fused f = { w, X, M, 0, 0, 1.0, b, colconst, c, e, F, NULL };

	fused_run(&f, n);
	F->n = n;
	F->D = M;
	F->is_complex = 0;
}

int rfx_featmat_exp_rows(struct rfx_featmat *F, const struct rfx_draw *w,
			 const struct rfx_featmat_rows *src, size_t n, int M,
			 double b, const double *colconst, double c, double e)
{
	struct fused f = { w, NULL, M, 0, 0, 1.0, b, colconst, c, e, F, NULL,
			   src, 0 };
	int ret = fused_run(&f, n);

	if (ret)
		return ret;
	F->n = n;
	F->D = M;
	F->is_complex = 0;
	return RFX_OK;
}

void rfx_featmat_exp_paired(struct rfx_featmat *F, const struct rfx_draw *w,
			    const double *X, size_t n, int M, double c,
			    double e)
{
	struct fused f = { w, X, 2 * M, 1, 0, 1.0, 1.0, NULL, c, e, F, NULL };

	fused_run(&f, n);
	F->n = n;
	F->D = 2 * M;
	F->is_complex = 0;
}

int rfx_hybmap_dim(const struct rfx_hybmap *h)
{
	return (h->m3 + 1) * (h->posh ? 3 * h->m1 : 2 * h->m1);
}

void rfx_featmat_hybrid(struct rfx_featmat *F, const struct rfx_draw *w,
			const double *X, size_t n,
			const struct rfx_hybmap *h, double sgn)
{
	int D = rfx_hybmap_dim(h);
	struct fused f = { w, X, D, 0, 0, sgn, 1.0, NULL, 0.0, 0.0, F, h };

	fused_run(&f, n);
	F->n = n;
	F->D = D;
	F->is_complex = 1;
}

void rfx_featmat_estimate(const struct rfx_featmat *F1, size_t i,
			  const struct rfx_featmat *F2, size_t k,
			  double *logabs, int *sign)
{
	const double *r1 = F1->re + i * (size_t)F1->D;
	const double *r2 = F2->re + k * (size_t)F2->D;
	double s = 0.0;
	int j, D = F1->D;

	for (j = 0; j < D; j++)
		s += r1[j] * r2[j];
	if (F1->is_complex && F2->is_complex) {
		const double *i1 = F1->im + i * (size_t)D;
		const double *i2 = F2->im + k * (size_t)D;

		for (j = 0; j < D; j++)
			s -= i1[j] * i2[j];
	}
	*sign = (s > 0.0) - (s < 0.0);
	*logabs = s != 0.0 ? log(fabs(s)) + F1->lscale[i] + F2->lscale[k]
			   : -INFINITY;
}

void rfx_featmat_gram(const struct rfx_featmat *F1, size_t i0, size_t n1,
		      const struct rfx_featmat *F2, size_t k0, size_t n2,
		      double *G, size_t ld)
{
	const size_t D = (size_t)F1->D;
	const int cx = F1->is_complex && F2->is_complex;

	/*
	 * Through rfx's AVX-512 kernel where it takes D: on CPUs that
	 * OpenBLAS 0.3.21 does not know it may run its SSE3 (Prescott)
	 * kernel, which took 70% of HRF Fig 6's time.
	 */
	rfx_gemm_abt2(n1, n2, D, F1->re + i0 * D, F2->re + k0 * D,
		      cx ? F1->im + i0 * D : NULL, cx ? F2->im + k0 * D : NULL,
		      D, G, ld);
}

void rfx_featmat_project(struct rfx_featmat *F, const struct rfx_draw *w,
			 const double *X, size_t n, int col0, int ncols)
{
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, ncols,
		    w->d, 1.0, X, w->d, w->omega + col0, w->cap, 0.0, F->work,
		    ncols);
}

void rfx_rownorms(const double *X, size_t n, int d, double *out)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)d;
		double s = 0.0;

		for (l = 0; l < d; l++)
			s += x[l] * x[l];
		out[i] = s;
	}
}

int rfx_featmat_to_real(const struct rfx_featmat *F, int side,
			struct rfx_featmat *dst, struct rfx_err *err)
{
	int D = F->D, Dr = F->is_complex ? 2 * F->D : F->D, j;
	double sg = side == 2 ? -1.0 : 1.0;
	size_t i;

	if (side != 1 && side != 2)
		return rfx_error(err, RFX_EINVAL, "feature map side must be 1 or 2");
	if (dst->cap_n < F->n || dst->cap_D < Dr)
		return rfx_error(err, RFX_EINVAL,
				 "real feature map needs %zu x %d, capacity is %zu x %d",
				 F->n, Dr, dst->cap_n, dst->cap_D);
	for (i = 0; i < F->n; i++) {
		const double *re = F->re + i * (size_t)D;
		const double *im = F->im + i * (size_t)D;
		double *o = dst->re + i * (size_t)Dr;

		for (j = 0; j < D; j++)
			o[j] = re[j];
		if (F->is_complex)
			for (j = 0; j < D; j++)
				o[D + j] = sg * im[j];
		dst->lscale[i] = F->lscale[i];
	}
	dst->n = F->n;
	dst->D = Dr;
	dst->is_complex = 0;
	return RFX_OK;
}

/*
 * The float32 feature maps of featmap32.h: the fused projection and
 * transform of lib/est/featmap.c in single precision. A block of rows is
 * projected by one rfx_sgemm (16 floats a vector: half the time of the
 * double product) into scratch that stays in L2, then transformed by the
 * float vector sincos or exp (16 lanes) into the float output (half the
 * memory traffic). Outputs that large go out by streaming stores
 * (rfx_vmath_sincosf_nt): each line is written without being read first,
 * which saved a fifth of the trig map's time at L = 65536. The threading is featmap.c's (rfx_featmat_run_blocks),
 * so rows do not depend on the thread count.
 */
#include "est/featmap32.h"
#include "est/featmap_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/gemm.h"
#include "num/logmath.h"
#include "num/vmath.h"

struct rfx_draw32 *rfx_draw32_alloc(const struct rfx_draw *w)
{
	struct rfx_draw32 *v = calloc(1, sizeof(*v));
	size_t i, nd = (size_t)w->d * (size_t)w->cap;

	if (!v)
		return NULL;
	v->omega = rfx_gemm_alloc(nd, sizeof(float));
	if (!v->omega) {
		free(v);
		return NULL;
	}
	v->d = w->d;
	v->cap = w->cap;
	for (i = 0; i < nd; i++)
		v->omega[i] = (float)w->omega[i];
	return v;
}

void rfx_draw32_free(struct rfx_draw32 *w)
{
	if (!w)
		return;
	free(w->omega);
	free(w);
}

void rfx_draw32_colnorms(const struct rfx_draw32 *w, int M, double A,
			 float *out)
{
	int m, l;

	for (m = 0; m < M; m++) {
		double s = 0.0;

		for (l = 0; l < w->d; l++) {
			double o = w->omega[(size_t)l * (size_t)w->cap + (size_t)m];

			s += o * o;
		}
		out[m] = (float)(A * s);
	}
}

struct rfx_featmat32 *rfx_featmat32_alloc(size_t n, int D)
{
	struct rfx_featmat32 *F;

	if (n == 0 || D < 1 || !(F = calloc(1, sizeof(*F))))
		return NULL;
	if (!FEATMAP_ALLOC_SHARED(F, n, D, float)) {
		rfx_featmat32_free(F);
		return NULL;
	}
	return F;
}

void rfx_featmat32_free(struct rfx_featmat32 *F)
{
	if (!F)
		return;
	free(F->re);
	free(F->im);
	free(F->lscale);
	free(F->cwork);
	free(F);
}

/* What a map does to each block. */
struct fused32 {
	const struct rfx_draw32 *w;
	const float *X;        /* n x d inputs */
	int M;                 /* features */
	int trig;              /* 1: trig, 0: exp */
	float sgn;             /* trig: sign of the sine */
	float b;               /* exp: factor of the projection */
	const float *a;        /* exp: column constants or NULL */
	double c, e;           /* exp: row constant c|x|^2 + e */
	struct rfx_featmat32 *F;
	const struct rfx_featmat_rows *src; /* makes the inputs, else NULL */
	int pscr;              /* the product goes to scratch (run32) */
};

/*
 * One row of the exp map (featmap_impl.h), streaming its output where nt
 * is set.
 */
#define EXPF_SHIFT_OUT(y, x, m, c, nt)					\
	((nt) ? rfx_vmath_expf_shift_nt(y, x, m, c) : rfx_vmath_expf_shift(y, x, m, c))
FEATMAP_DEFINE_EXP_ROW(float, exp_row, rfx_vmath_expf_shift, EXPF_SHIFT_OUT)
#undef EXPF_SHIFT_OUT

/* |x|^2 in float, cloned */
FEATMAP_DEFINE_SUMSQ(RFX_SIMD_CLONES static, float, size_t, sumsq)

/*
 * Rows i0..i0+cnt-1: project into scratch (or F->re), transform into F;
 * the inputs are f->X's rows or those f->src makes into the scratch after
 * the product's (as featmap.c's fused_block).
 */
static void block32(const void *ctx, size_t i0, size_t cnt, void *scr)
{
	const struct fused32 *f = ctx;
	const struct rfx_draw32 *w = f->w;
	struct rfx_featmat32 *F = f->F;
	size_t M = (size_t)f->M, d = (size_t)w->d, i;
	int nt = f->pscr && scr;
	float *re = F->re + i0 * M, *pr = nt ? (float *)scr : re;
	const float *X;

	if (f->src) { /* run_blocks gave scratch for these */
		float *T = nt ? (float *)scr + cnt * M : scr;

		f->src->make(f->src->ctx, i0, cnt, T);
		X = T;
	} else
		X = f->X + i0 * d;

	/*
	 * trig takes sgn as the product's factor: sin(-p) = -sin p and cos(-p)
	 * = cos p exactly (the kernels are odd and even), so the sign costs
	 * no pass over the output
	 */
	rfx_sgemm(cnt, M, d, f->trig ? f->sgn : f->b, X, d, w->omega,
		  (size_t)w->cap, pr, M);
	if (f->trig) {
		float *im = F->im + i0 * M;

		if (nt)
			rfx_vmath_sincosf_nt(im, re, pr, cnt * M);
		else
			rfx_vmath_sincosf(im, re, pr, cnt * M);
		if (nt)
			rfx_vmath_nt_fence();
		return;
	}
	/* the |x|^2 first, as featmap.c's fused_block: 4% of the pos map */
	for (i = 0; i < cnt; i++)
		F->lscale[i0 + i] = (double)sumsq(X + i * d, d);
	for (i = 0; i < cnt; i++)
		F->lscale[i0 + i] = (double)exp_row(re + i * M, pr + i * M, f->a,
						    f->M, nt) +
				    f->c * F->lscale[i0 + i] + f->e;
	if (nt)
		rfx_vmath_nt_fence();
	if (f->src && f->src->finish)
		f->src->finish(f->src->ctx, i0, cnt, X, F->lscale + i0);
}

/* featmap.c's fused_run in float: RFX_ENOMEM without the scratch src needs */
static int run32(struct fused32 *f, size_t n)
{
	size_t B = rfx_featmat_block_rows(f->M);
	size_t scr;

	f->pscr = n * (size_t)f->M >= FEATMAP_SCRATCH_MIN_ELEMS;
	scr = ((f->pscr ? (size_t)f->M : 0) + (f->src ? (size_t)f->w->d : 0)) *
	      B * sizeof(float);
	return rfx_featmat_run_blocks(n, B, scr, f->src != NULL, block32, f);
}

void rfx_featmat32_trig(struct rfx_featmat32 *F, const struct rfx_draw32 *w,
			const float *X, size_t n, int M, float sgn, double ls)
{
	struct fused32 f = { w, X, M, 1, sgn, 1.0f, NULL, 0.0, 0.0, F };
	size_t i;

	run32(&f, n);
	for (i = 0; i < n; i++)
		F->lscale[i] = ls;
	F->n = n;
	F->D = M;
	F->is_complex = 1;
}

void rfx_featmat32_exp(struct rfx_featmat32 *F, const struct rfx_draw32 *w,
		       const float *X, size_t n, int M, float b,
		       const float *colconst, double c, double e)
{
	struct fused32 f = { w, X, M, 0, 1.0f, b, colconst, c, e, F };

	run32(&f, n);
	F->n = n;
	F->D = M;
	F->is_complex = 0;
}

int rfx_featmat32_exp_rows(struct rfx_featmat32 *F,
			   const struct rfx_draw32 *w,
			   const struct rfx_featmat_rows *src, size_t n, int M,
			   float b, const float *colconst, double c, double e)
{
	struct fused32 f = { w, NULL, M, 0, 1.0f, b, colconst, c, e, F, src,
			     0 };
	int ret = run32(&f, n);

	if (ret)
		return ret;
	F->n = n;
	F->D = M;
	F->is_complex = 0;
	return RFX_OK;
}

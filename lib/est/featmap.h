/*
 * Feature matrices shared by every estimator, made from a draw (est/draw.h).
 *
 * A feature matrix holds the features of n inputs in scaled polar-free
 * form:
 *
 *   Phi(x_i)_j = (re[i, j] + i im[i, j]) * exp(lscale[i])
 *
 * normalised so that the M-feature estimate of the kernel for a pair is
 * Re sum_j Phi1(x)_j Phi2(y)_j (thesis eq. 2.5: the 1/sqrt(M) factors are
 * inside, and f2 carries any conjugation, so there is no conjugate here).
 * The per-row scale keeps features of huge or tiny magnitude (PosRF at
 * |x|^2 ~ 500) representable; re/im hold values of modulus <= 1.
 */
#ifndef RFX_FEATMAP_H
#define RFX_FEATMAP_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "est/draw.h"
#include "proj/proj.h"

struct rfx_dirf_cache;
struct rfx_derf_cache;

struct rfx_featmat {
	size_t cap_n;    /* row capacity */
	int cap_D;       /* feature capacity */
	size_t n;        /* rows in use */
	int D;           /* features in use */
	int is_complex;  /* im is meaningful */
	double *re;      /* n x D */
	double *im;      /* n x D */
	double *lscale;  /* n */
	double *work;    /* n x cap_D scratch (projections) */
	double *work2;   /* n scratch */
	double *cwork;   /* cap_D scratch (per-feature quantities) */
	struct rfx_dirf_cache *dirf; /* est/dirf.c's logs of the last inputs:
					one malloc block, or NULL */
	struct rfx_derf_cache *derf; /* est/derf.c's products of the last
					inputs: one malloc block, or NULL */
};

/* Allocates a feature matrix for up to n rows and D features; NULL on OOM. */
struct rfx_featmat *rfx_featmat_alloc(size_t n, int D);
void rfx_featmat_free(struct rfx_featmat *F);

/*
 * Projects the n inputs X (n x d) on Gaussian columns col0..col0+ncols-1
 * of w: F->work becomes the n x ncols row-major matrix of omega_m . x_i
 * (one dgemm).
 */
void rfx_featmat_project(struct rfx_featmat *F, const struct rfx_draw *w,
			 const double *X, size_t n, int col0, int ncols);

/* |x_i|^2 for the n rows of X (n x d) into out. */
void rfx_rownorms(const double *X, size_t n, int d, double *out);

/*
 * Sets F to n rows of D features from log-moduli lmod (n x D) and phases
 * ph (n x D, NULL for all-zero phases): the per-row scale is the row
 * maximum of lmod. Entries with lmod = -inf are exact zeros. Used by
 * estimators whose features are naturally exp(complex log). lmod may be
 * F->re and ph may be F->im (each entry is read before it is written).
 */
void rfx_featmat_from_log(struct rfx_featmat *F, size_t n, int D,
			  const double *lmod, const double *ph);

/*
 * The same for real features of either sign: neg (n x D) is nonzero where
 * the feature is negative (the DIRFs, whose phases are 0 or pi: this
 * skips the cosines and sines of rfx_featmat_from_log). The same aliasing
 * is allowed.
 */
void rfx_featmat_from_log_signed(struct rfx_featmat *F, size_t n, int D,
				 const double *lmod, const double *neg);

/*
 * The fused feature maps of the estimators whose features are a function
 * of the projections omega_m . x_i alone (plus per-column and per-row
 * constants). Each sets F to n rows of M features of the n inputs X
 * (n x d) for Gaussian columns 0..M-1 of w, in one pass over blocks of
 * rfx_featmat_block_rows(M) rows: a block is projected by one dgemm into
 * F->re and transformed while it is in cache. F->work, F->work2 and
 * F->cwork are not used (the oprf caller keeps its column constants in
 * F->cwork).
 *
 * The blocks are fixed by row index and every block's dgemm runs on a
 * single BLAS thread, so the values of a row do not depend on the number
 * of threads. Called outside an OpenMP parallel region, they spread the
 * blocks over the OpenMP threads and, for an OpenBLAS built on pthreads,
 * set it to one thread for that time (restored on return; so no other
 * thread may run BLAS meanwhile, which rfx never does). Called inside
 * one, they run on the calling thread and leave OpenBLAS alone: the
 * caller must have set it to one thread, as rfx_varexp_run does, or a
 * multi-threaded dgemm may change the last bits (OpenBLAS's threads split
 * a block differently).
 */

/* Rows per block of the fused feature maps for M features (at least 8). */
size_t rfx_featmat_block_rows(int M);

/*
 * The threading of the fused maps, for the maps of featmap32.h too:
 * calls block(ctx, i0, cnt, scr) for the blocks of B rows of n, each
 * block once, with scr a per-thread scratch of scr_bytes bytes on a
 * cache line (NULL for scr_bytes = 0 or when it cannot be had: block must
 * then do without, unless need_scr is set: then nothing runs and the
 * return is RFX_ENOMEM; RFX_OK otherwise). Outside an OpenMP region the
 * blocks are spread over the threads with OpenBLAS at one thread, inside
 * one they run in order on the calling thread, as described above.
 */
int rfx_featmat_run_blocks(size_t n, size_t B, size_t scr_bytes,
			   int need_scr,
			   void (*block)(const void *ctx, size_t i0,
					 size_t cnt, void *scr),
			   const void *ctx);

/*
 * TrigRF-type features exp(i sgn omega_m . x_i) e^{ls} (sgn = +1 or -1):
 * re = cos(omega_m . x_i), im = sgn sin(omega_m . x_i), lscale = ls for
 * every row, is_complex = 1. Sine and cosine come from glibc's vector
 * functions (within 4 ulp).
 */
void rfx_featmat_trig(struct rfx_featmat *F, const struct rfx_draw *w,
		      const double *X, size_t n, int M, double sgn, double ls);

/*
 * Positive features exp(b omega_m . x_i + a_m + c |x_i|^2 + e), with the
 * column constants a = colconst (M entries; NULL for all zero): the per-row
 * scale is lscale[i] = u_i + c |x_i|^2 + e with u_i the row maximum of
 * v_im = b omega_m . x_i + a_m, and re = exp(v_im - u_i), in [0, 1] with
 * an exact 1 at the maximum (0 only where it underflows, v_im - u_i below
 * about -745). is_complex = 0 and im is not written. colconst may be
 * F->cwork.
 */
void rfx_featmat_exp(struct rfx_featmat *F, const struct rfx_draw *w,
		     const double *X, size_t n, int M, double b,
		     const double *colconst, double c, double e);

/*
 * Inputs that a map makes block by block instead of reading them: the
 * DERFs' X B_k^T (lib/est/derf.c), an n x d product that written out
 * whole and read back twice cost more memory traffic than the map itself.
 * make(ctx, i0, cnt, T) writes rows i0..i0+cnt-1 (cnt x d, d the draw's,
 * row-major, elements of the map's precision) to T, a per-thread scratch
 * that stays in cache; after the block's features, finish(ctx, i0, cnt,
 * T, lscale) (NULL: none) may adjust the block's row scales lscale[0..cnt-1]
 * from the same rows. Both are called from several threads at once, each
 * block once; each row must depend on its own index only, so that the
 * thread count and the blocking do not change its bits.
 */
struct rfx_featmat_rows {
	void (*make)(const void *ctx, size_t i0, size_t cnt, void *T);
	void (*finish)(const void *ctx, size_t i0, size_t cnt, const void *T,
		       double *lscale);
	const void *ctx;
};

/*
 * rfx_featmat_exp on the n rows that src makes (|x_i|^2 of the made
 * rows). RFX_OK, or RFX_ENOMEM (F unset) when the scratch for the rows
 * cannot be had.
 */
int rfx_featmat_exp_rows(struct rfx_featmat *F, const struct rfx_draw *w,
			 const struct rfx_featmat_rows *src, size_t n, int M,
			 double b, const double *colconst, double c, double e);

/*
 * Paired positive features (HRF's exp(+w.x) and exp(-w.x) halves): for
 * Gaussian columns 0..M-1 of w, the 2M features exp(+-omega_m . x_i +
 * c |x_i|^2 + e), the + half in columns 0..M-1 and the - half in M..2M-1,
 * from M projections (one dgemm over M columns). Scaled as in
 * rfx_featmat_exp, with the row maximum of |omega_m . x_i|.
 */
void rfx_featmat_exp_paired(struct rfx_featmat *F, const struct rfx_draw *w,
			    const double *X, size_t n, int M, double c,
			    double e);

/*
 * The angular hybrids' maps (thesis eqs. 6.6-6.8, HybRF; HRF eq. 11 with
 * Lemma 2.3, the angular hybrid): m1 base projections (Gaussian columns
 * 0..m1-1 of the draw, then m1 more for P unless shared) and m3 lambda
 * projections after them. Per row, with T_j = e^{i sgn w_j.x}/sqrt(m1),
 * a_l = sign(w_l.x)/sqrt(m3) and P the positive features (posh: the m1
 * pairs e^{+-w_j.x - |x|^2}/sqrt(2 m1); else e^{w_j.x - |x|^2}/sqrt(m1)),
 * the entries are [T, a (x) T, P, i a (x) P]/sqrt 2, a (x) v ordered
 * by l then j: rfx_hybmap_dim(h) = (m3 + 1)(m1 + Pc) of them, Pc = 2 m1
 * for posh, m1 otherwise.
 */
#define RFX_HYBMAP_MAX_M1 4096 /* largest m1 of rfx_featmat_hybrid */

struct rfx_hybmap {
	int m1, m3;   /* base and lambda projections */
	int posh;     /* P = HRF's cosh pairs, else PosRF */
	int shared;   /* T and P on the same m1 projections */
};

/* Entries per row of the map. */
int rfx_hybmap_dim(const struct rfx_hybmap *h);

/*
 * Sets F to n rows of the map of h for the inputs X (n x d) and draw w,
 * sgn = +1 for side 1 and -1 for side 2 (the conjugate of T), fused as
 * the maps above: blocks of rows are projected by one dgemm each into
 * F->work and their entries written straight into re and im, with the
 * row's largest log-modulus as its scale. F needs capacity D =
 * rfx_hybmap_dim(h) features and F->work n (2 m1 + m3) entries (so D >=
 * 2 m1 + m3); m1 at most RFX_HYBMAP_MAX_M1. Bit-identical for any number
 * of threads, as the maps above.
 */
void rfx_featmat_hybrid(struct rfx_featmat *F, const struct rfx_draw *w,
			const double *X, size_t n,
			const struct rfx_hybmap *h, double sgn);

/*
 * The estimate Re sum_j Phi1(x_i)_j Phi2(y_k)_j for row i of F1 and row k
 * of F2, as log|value| (-inf for 0) and sign (-1, 0, +1).
 */
void rfx_featmat_estimate(const struct rfx_featmat *F1, size_t i,
			  const struct rfx_featmat *F2, size_t k,
			  double *logabs, int *sign);

/*
 * The estimates of every pair (rows i0..i0+n1-1 of F1) x (rows k0..k0+n2-1
 * of F2) without the row scales: G[a ld + b] = Re sum_j Phi1_{i0+a,j}
 * Phi2_{k0+b,j} e^{-lscale1 - lscale2}, so that the estimate of the pair is
 * G e^{F1->lscale[i0+a] + F2->lscale[k0+b]} (rfx_featmat_estimate's value).
 * One dgemm, two when both maps are complex (Re = re re - im im); |G| is at
 * most the number of features. Runs on the calling thread's BLAS: inside an
 * OpenMP region the caller must have made OpenBLAS single-threaded
 * (rfx_blas_single_begin), or the last bits may depend on the threads.
 */
void rfx_featmat_gram(const struct rfx_featmat *F1, size_t i0, size_t n1,
		      const struct rfx_featmat *F2, size_t k0, size_t n2,
		      double *G, size_t ld);

/*
 * The real feature map of F for side 1 (x's) or 2 (y's) into dst: a
 * complex F of D features becomes 2D real features, [Re Phi, Im Phi] for
 * side 1 and [Re Phi, -Im Phi] for side 2, so that the plain dot product
 * of the two real maps is the estimate Re sum_j Phi1_j Phi2_j; a real F is
 * copied. The per-row scales carry over. dst needs capacity F->n rows and
 * 2 F->D (or F->D) features; RFX_EINVAL otherwise. This is the form a
 * linear-attention layer takes (HRF Lemma 2.3).
 */
int rfx_featmat_to_real(const struct rfx_featmat *F, int side,
			struct rfx_featmat *dst, struct rfx_err *err);

#endif

/*
 * The float32 feature maps (issue 23): TrigRF, PosRF and OPRF features,
 * and the dense-exponential ones, in single precision, as attention code
 * uses them: float inputs, the draw's projections rounded to float once
 * (so one seed gives the float64 draw and its rounding, never a
 * different draw), the product by rfx_sgemm and the transcendentals by
 * rfx_vmath_sincosf and rfx_vmath_expf_shift, features in floats. The
 * layout is featmap.h's: Phi(x_i)_j = (re + i im)[i, j] e^{lscale[i]},
 * with re and im of modulus at most 1 and the row scales in double (an
 * exponent needs no float storage, and keeps features beyond float range
 * representable, as in float64).
 *
 * Accuracy against the float64 maps (docs/ATTENTION.md, "float32 feature
 * maps"; tests/t_featmap32.c): with u = 2^-24, a projection w.x is off by
 * at most about (d + 2) u sum_l |w_l x_l| (rounded inputs and draw, then
 * d FMAs), so a trig feature is off by that (cos and sin have slope at
 * most 1) plus 2 ulp, and a positive feature's log by that plus the same
 * for |x|^2: the relative error of a feature grows with |x| (times
 * sqrt(d) for a typical w), not with the feature's size. The positive
 * maps never overflow: each row is shifted by its largest exponent before
 * expf (exp(w.x) alone overflows float from w.x = 88.7, |x| about 30 for
 * d = 64), and the scale stays in lscale; features below 2^-126 times
 * their row's largest are 0 (expf's subnormals are flushed).
 */
#ifndef RFX_FEATMAP32_H
#define RFX_FEATMAP32_H

#include <stddef.h>

#include "est/draw.h"
#include "est/featmap.h"

/* A draw's Gaussian projections rounded to float. */
struct rfx_draw32 {
	int d;         /* input dimension */
	int cap;       /* columns (the draw's capacity) */
	float *omega;  /* d x cap row-major: (float) of the draw's omega */
};

/*
 * Allocates the float copy of w's projections (every column of its
 * capacity, each rounded once to nearest); NULL on OOM. Call again after
 * a new draw. Free with rfx_draw32_free (NULL is a no-op).
 */
struct rfx_draw32 *rfx_draw32_alloc(const struct rfx_draw *w);
void rfx_draw32_free(struct rfx_draw32 *w);

struct rfx_featmat32 {
	size_t cap_n;    /* row capacity */
	int cap_D;       /* feature capacity */
	size_t n;        /* rows in use */
	int D;           /* features in use */
	int is_complex;  /* im is meaningful */
	float *re;       /* n x D, on a cache line */
	float *im;       /* n x D */
	double *lscale;  /* n */
	float *cwork;    /* cap_D scratch (per-column constants) */
};

/* Allocates a float feature matrix for up to n rows and D features; NULL on OOM. */
struct rfx_featmat32 *rfx_featmat32_alloc(size_t n, int D);
void rfx_featmat32_free(struct rfx_featmat32 *F);

/*
 * rfx_featmat_trig in single precision: re = cosf(omega_m . x_i), im =
 * sgn sinf(...) (sgn = +1 or -1), lscale = ls, for the n float inputs X (n x d) and
 * columns 0..M-1 of w. Threads as featmap.h's maps (bit-identical for
 * any thread count).
 */
void rfx_featmat32_trig(struct rfx_featmat32 *F, const struct rfx_draw32 *w,
			const float *X, size_t n, int M, float sgn, double ls);

/*
 * rfx_featmat_exp in single precision: exp(b omega_m . x_i + a_m +
 * c |x_i|^2 + e) with a = colconst (M floats, NULL for zeros; may be
 * F->cwork), v = b w.x + a_m in float, re = expf(v - max_m v) and lscale
 * = max_m v + c |x|^2 + e in double (|x|^2 summed in float).
 */
void rfx_featmat32_exp(struct rfx_featmat32 *F, const struct rfx_draw32 *w,
		       const float *X, size_t n, int M, float b,
		       const float *colconst, double c, double e);

/* rfx_featmat_exp_rows in single precision (src makes float rows). */
int rfx_featmat32_exp_rows(struct rfx_featmat32 *F,
			   const struct rfx_draw32 *w,
			   const struct rfx_featmat_rows *src, size_t n, int M,
			   float b, const float *colconst, double c, double e);

/*
 * c_m = A |omega_m|^2 for columns 0..M-1 of w, summed in double from the
 * float projections and rounded once, into out (the column constants of
 * OPRF and the DERFs' a-weighted form take their own loops).
 */
void rfx_draw32_colnorms(const struct rfx_draw32 *w, int M, double A,
			 float *out);

#endif

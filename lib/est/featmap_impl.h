/*
 * What lib/est/featmap.c (float64) shares with lib/est/featmap32.c
 * (float32) and with nothing else: the allocation of the arrays both
 * feature matrices have, the one row of the exponential maps and the squared
 * norm of an input row, written once for both precisions
 * (FEATMAP_DEFINE_EXP_ROW and FEATMAP_DEFINE_SUMSQ, after
 * lib/num/gemm.c's DEFINE_GEMM), so that the float32 path cannot drift
 * from the float64 one. Each file expands them in its own translation
 * unit with its own vmath calls and clones, so the code of each is what
 * it was when each file wrote them out (the same operations in the same
 * order: the maps' bits are unchanged).
 */
#ifndef RFX_FEATMAP_IMPL_H
#define RFX_FEATMAP_IMPL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/gemm.h"
#include "num/logmath.h"

/*
 * Output elements (n x M) from which the fused maps of both precisions
 * project into a block of scratch per thread (see featmap.c's fused_run).
 */
#define FEATMAP_SCRATCH_MIN_ELEMS ((size_t)1 << 19)

/* Elements of a row chunk that the exp maps shift on the stack at once. */
#define FEATMAP_CHUNK 256

/*
 * Running maxima of the exp maps' row maximum, four vectors' worth of
 * T: one accumulator would wait on vmaxpd's latency for every vector
 * (the pass took 8% of the pos map). A maximum is exact in any order, so
 * the result is the same (but for the sign of a zero maximum).
 */
#define FEATMAP_LANES(T) ((int)(256 / sizeof(T)))

/* lane[k] = max(lane[k], lane[k + c]) for k < c (a level of the tree) */
#define FEATMAP_MAX_HALF(lane, c)					\
	do {								\
		int k_;							\
									\
		for (k_ = 0; k_ < (c); k_++)				\
			lane[k_] = lane[k_ + (c)] > lane[k_] ? lane[k_ + (c)] \
							      : lane[k_]; \
	} while (0)

/*
 * m = max(m, the largest of lane[0..FEATMAP_LANES(T))): a tree, each
 * level's width a constant (so vectorised). Destroys lane.
 */
#define FEATMAP_MAX_TREE(T, lane, m)					\
	do {								\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 2);		\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 4);		\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 8);		\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 16);		\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 32);		\
		FEATMAP_MAX_HALF(lane, FEATMAP_LANES(T) / 64);		\
		(m) = lane[0] > (m) ? lane[0] : (m);			\
	} while (0)

/*
 * Sets the capacities of F (a struct rfx_featmat or rfx_featmat32, just
 * calloc'ed) to n rows and D features and allocates the arrays both kinds
 * have: re and im (n D elements of T, on cache lines by rfx_gemm_alloc,
 * so that rows of a multiple of 64 bytes start on one), lscale (n doubles)
 * and cwork (D elements of T). True when all four were allocated; else
 * the caller's _free releases what was.
 */
#define FEATMAP_ALLOC_SHARED(F, n, D, T)				\
	((F)->cap_n = (n), (F)->cap_D = (D),				\
	 (F)->re = rfx_gemm_alloc((n) * (size_t)(D), sizeof(T)),	\
	 (F)->im = rfx_gemm_alloc((n) * (size_t)(D), sizeof(T)),	\
	 (F)->lscale = malloc((n) * sizeof(double)),			\
	 (F)->cwork = malloc((size_t)(D) * sizeof(T)),			\
	 (F)->re && (F)->im && (F)->lscale && (F)->cwork)

/*
 * static T NAME(T *out, T *v, const T *a, int M, int nt): one row of the
 * exp maps, v = b w.x (from the product) plus a (NULL: none), then out =
 * exp(v - max v) (out may be v: through a chunk on the stack, since the
 * generic kernel reads v twice); returns max v (0 if every v is -inf).
 * SHIFT(y, x, m, c) is the precision's rfx_vmath_exp*_shift; where out is
 * not v, SHIFT_OUT(y, x, m, c, nt) (nt: streaming stores, for outputs far
 * larger than the caches, where the precision has them).
 */
#define FEATMAP_DEFINE_EXP_ROW(T, NAME, SHIFT, SHIFT_OUT)		\
	RFX_SIMD_CLONES							\
	static T NAME(T *out, T *v, const T *a, int M, int nt)		\
	{								\
		T m = -INFINITY, t[FEATMAP_CHUNK], lane[FEATMAP_LANES(T)]; \
		int j, c, k;						\
									\
		for (k = 0; k < FEATMAP_LANES(T); k++)			\
			lane[k] = -INFINITY;				\
		for (j = 0; j + FEATMAP_LANES(T) <= M; j += FEATMAP_LANES(T)) { \
			T *u = v + j;					\
									\
			if (a) {					\
				_Pragma("omp simd")			\
				for (k = 0; k < FEATMAP_LANES(T); k++)	\
					u[k] += a[j + k];		\
			}						\
			_Pragma("omp simd")				\
			for (k = 0; k < FEATMAP_LANES(T); k++)		\
				lane[k] = u[k] > lane[k] ? u[k] : lane[k]; \
		}							\
		for (; j < M; j++) {					\
			if (a)						\
				v[j] += a[j];				\
			m = v[j] > m ? v[j] : m;			\
		}							\
		FEATMAP_MAX_TREE(T, lane, m);				\
		if (m == -INFINITY)					\
			m = 0;						\
		for (j = 0; j < M; j += FEATMAP_CHUNK) {		\
			c = M - j < FEATMAP_CHUNK ? M - j : FEATMAP_CHUNK; \
			if (out != v) {					\
				SHIFT_OUT(out + j, v + j, m, (size_t)c, nt); \
				continue;				\
			}						\
			SHIFT(t, v + j, m, (size_t)c);			\
			memcpy(v + j, t, (size_t)c * sizeof(T));	\
		}							\
		return m;						\
	}

/*
 * ATTR T NAME(const T *x, I d): |x|^2 of one input row in T, summed by
 * omp simd's reduction, whose order (and so the last bits) depends on the
 * vector width the function is compiled for: ATTR keeps each file's
 * (featmap.c's inline in its uncloned callers, featmap32.c's cloned
 * RFX_SIMD_CLONES), so that neither map's row scales change.
 */
#define FEATMAP_DEFINE_SUMSQ(ATTR, T, I, NAME)				\
	ATTR T NAME(const T *x, I d)					\
	{								\
		T s = 0;						\
		I l;							\
									\
		_Pragma("omp simd reduction(+ : s)")			\
		for (l = 0; l < d; l++)					\
			s += x[l] * x[l];				\
		return s;						\
	}

#endif

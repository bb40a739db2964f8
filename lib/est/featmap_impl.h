/*
 * What lib/est/featmap.c (float64) shares with lib/est/featmap32.c
 * (float32) and with nothing else: the allocation of the arrays both
 * feature matrices have, the one row of the exponential maps (its maximum
 * also serves featmap.c's rfx_featmat_from_log) and the squared norm of
 * an input row, written once for both precisions (FEATMAP_DEFINE_EXP_ROW,
 * FEATMAP_DEFINE_ROWMAX and FEATMAP_DEFINE_SUMSQ, after
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
 * The row maximum of the exp maps, in four running maxima of 64 bytes
 * each, kept in registers by GCC's vector extension: one accumulator
 * would wait on vmaxpd's latency for every vector, and the omp simd loop
 * over a lane array that this replaced kept the array on the stack, so
 * that every vector of the row, and every level of the tree after it,
 * waited on a store and its reload (about 100 cycles a row of 256
 * floats, 8% of the float32 pos map). The comparisons are that loop's,
 * lane by lane and level by level, so the maximum keeps its bits (a
 * maximum is exact in any order; only the sign of a zero maximum
 * depends on it). Macros rather than inline functions for the vectors:
 * GCC warns that passing them changes the ABI.
 */

/* 64 bytes from p (any alignment) as vector type V */
#define FEATMAP_VAT(V, p)						\
	({								\
		V x_;							\
									\
		memcpy(&x_, (p), sizeof(x_));				\
		x_;							\
	})

/* lane-wise u > l ? u : l of two vectors */
#define FEATMAP_VSEL(u, l)						\
	({								\
		__typeof__((u) > (l)) k_ = (u) > (l);			\
									\
		(__typeof__(l))(((__typeof__(k_))(u) & k_) |		\
				((__typeof__(k_))(l) & ~k_));		\
	})

/*
 * static inline T NAME(const T *v, const T *a, T *vo, int M): the largest
 * of v[0..M), after vo[j] = v[j] + a[j] where a is not NULL (vo may be
 * v). NaN is never the maximum (x > m is false); -inf if all are -inf or
 * NaN. NAME##_vec is 64 bytes of T. Always inlined: its callers are
 * cloned for AVX-512 and AVX2, and a call would run it as SSE2.
 */
#define FEATMAP_DEFINE_ROWMAX(T, NAME)					\
	typedef T NAME##_vec __attribute__((vector_size(64)));		\
									\
	static inline __attribute__((always_inline))			\
	T NAME(const T *v, const T *a, T *vo, int M)			\
	{								\
		enum { W_ = (int)(64 / sizeof(T)) };			\
		T m = -INFINITY;					\
		NAME##_vec l0, l1, l2, l3, u0, u1, u2, u3;		\
		T __attribute__((vector_size(32))) h0, h1;		\
		T __attribute__((vector_size(16))) q0, q1;		\
		T __attribute__((vector_size(8))) e0, e1;		\
		T last[8 / sizeof(T)];					\
		int j, k;						\
									\
		for (k = 0; k < W_; k++)				\
			l0[k] = -INFINITY;				\
		l1 = l2 = l3 = l0;					\
		for (j = 0; j + 4 * W_ <= M; j += 4 * W_) {		\
			u0 = FEATMAP_VAT(NAME##_vec, v + j);		\
			u1 = FEATMAP_VAT(NAME##_vec, v + j + W_);	\
			u2 = FEATMAP_VAT(NAME##_vec, v + j + 2 * W_);	\
			u3 = FEATMAP_VAT(NAME##_vec, v + j + 3 * W_);	\
			if (a) {					\
				u0 += FEATMAP_VAT(NAME##_vec, a + j);	\
				u1 += FEATMAP_VAT(NAME##_vec, a + j + W_); \
				u2 += FEATMAP_VAT(NAME##_vec, a + j + 2 * W_); \
				u3 += FEATMAP_VAT(NAME##_vec, a + j + 3 * W_); \
				memcpy(vo + j, &u0, sizeof(u0));	\
				memcpy(vo + j + W_, &u1, sizeof(u1));	\
				memcpy(vo + j + 2 * W_, &u2, sizeof(u2)); \
				memcpy(vo + j + 3 * W_, &u3, sizeof(u3)); \
			}						\
			l0 = FEATMAP_VSEL(u0, l0);			\
			l1 = FEATMAP_VSEL(u1, l1);			\
			l2 = FEATMAP_VSEL(u2, l2);			\
			l3 = FEATMAP_VSEL(u3, l3);			\
		}							\
		for (; j < M; j++) {					\
			T x = v[j];					\
									\
			if (a)						\
				vo[j] = x = x + a[j];			\
			m = x > m ? x : m;				\
		}							\
		/*							\
		 * the tree: levels of 2 vectors and 1 vector, then	\
		 * halves of 32, 16 and 8 bytes (lane k against lane k	\
		 * + c, c = W_ / 2, W_ / 4, ...), then for float the	\
		 * last two lanes: GCC keeps the halves in registers	\
		 * (and clang, which has no __builtin_shuffle, builds	\
		 * it too)						\
		 */							\
		l0 = FEATMAP_VSEL(l2, l0);				\
		l1 = FEATMAP_VSEL(l3, l1);				\
		l0 = FEATMAP_VSEL(l1, l0);				\
		memcpy(&h0, &l0, sizeof(h0));				\
		memcpy(&h1, (char *)&l0 + sizeof(h0), sizeof(h1));	\
		h0 = FEATMAP_VSEL(h1, h0);				\
		memcpy(&q0, &h0, sizeof(q0));				\
		memcpy(&q1, (char *)&h0 + sizeof(q0), sizeof(q1));	\
		q0 = FEATMAP_VSEL(q1, q0);				\
		memcpy(&e0, &q0, sizeof(e0));				\
		memcpy(&e1, (char *)&q0 + sizeof(e0), sizeof(e1));	\
		e0 = FEATMAP_VSEL(e1, e0);				\
		memcpy(last, &e0, sizeof(e0));				\
		if (sizeof(T) < 8)					\
			last[0] = last[1] > last[0] ? last[1] : last[0]; \
		return last[0] > m ? last[0] : m;			\
	}

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
	FEATMAP_DEFINE_ROWMAX(T, NAME##_max)				\
									\
	RFX_SIMD_CLONES							\
	static T NAME(T *out, T *v, const T *a, int M, int nt)		\
	{								\
		T m = NAME##_max(v, a, v, M), t[FEATMAP_CHUNK];		\
		int j, c;						\
									\
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

/*
 * Products for small inner dimensions (see gemm.h). The AVX-512 kernel
 * keeps an 8 x 24 tile of C in 24 registers; per step p of the inner
 * dimension it loads 24 entries of row p of B (three vectors), broadcasts
 * the 8 entries A[i, p] of the tile's rows (straight from A, through 8 row
 * pointers: packing A first measured no faster) and does 24 FMAs, so the
 * FMA units, not the loads, set the pace. The tiles of a 24-column panel
 * run top to bottom, reading that panel of B from L1 (copied to the
 * stack first: PACK_ROWS), the first panel's tiles prefetching the rows
 * of A they will need (PREFETCH_A). Narrower panels at
 * the right edge use 16- and masked 8-column tiles. rfx_sgemm is the same
 * kernel in single precision (one template, DEFINE_GEMM): 8 x 48 tiles,
 * 16 floats a vector.
 */
#include "num/gemm.h"
#include "num/avx512_tmpl.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RFX_GEMM_X86 1
#include <immintrin.h>
#endif

/*
 * The kernel does not block k: a 24-column panel of B (24 k doubles) stays
 * in L1 only for small k. Measured on the build machine (48 KiB L1d per
 * core, one thread, m = 200-256 rows): 1.0-1.2x OpenBLAS's speed up to
 * k = 320, 0.8x at k = 384, 0.45x at k = 1024 (14 against 33 GFLOP/s, the
 * MNIST projections of rfx mse-table). Beyond this, OpenBLAS, which blocks.
 */
#define KERNEL_MAX_K 320

/*
 * From this many rows on, both kernels copy each panel of B (k x 2W or
 * 3W) to the stack first, unless it is one already (rfx_gemm_abt2's
 * packed panels): in place its rows lie ldb apart (1 or 2 KiB for the
 * maps' M = 256), on a few sets of the L1 (8-way on Zen 3, 12-way on
 * the Xeons), which then cannot hold the panel: on Zen 3 the AVX2
 * product ran at 0.63 of the FMA peak, and on a Xeon (family 6 model
 * 167, 2026-11-28) the AVX-512 one 5-10% slower than packed. The copy
 * moves no sum, so the bits stay. It goes by vectors (NAME_pack):
 * memcpy of a 96-byte row became rep movsq, whose start-up cost made
 * the copy 7% of the trig map's samples under perf (65536 x 64 by 64 x
 * 256, Zen 3); by vectors, 2.4%. Panels narrower than W (the right
 * edge) stay in place, and so do the AVX-512 kernel's of W exactly.
 */
#define PACK_ROWS 16

#ifdef RFX_GEMM_X86
/*
 * The kernel once for both precisions: S is the intrinsics' suffix, pd
 * (double, 8 a vector) or ps (float, 16), and the types and widths follow
 * from it (num/avx512_tmpl.h).
 */

/* The accumulators of row r: three, two or one vectors. */
#define ACC3(S, r) VEC(S) c##r##0 = z, c##r##1 = z, c##r##2 = z
#define ACC2(S, r) VEC(S) c##r##0 = z, c##r##1 = z
#define ACC1(S, r) VEC(S) c##r##0 = z

/* One FMA step for row r with the broadcast of A[r, p]. */
#define STEP3(S, r)                                                    \
	a = _mm512_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm512_fmadd_##S(a, b0, c##r##0);                    \
	c##r##1 = _mm512_fmadd_##S(a, b1, c##r##1);                    \
	c##r##2 = _mm512_fmadd_##S(a, b2, c##r##2)
#define STEP2(S, r)                                                    \
	a = _mm512_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm512_fmadd_##S(a, b0, c##r##0);                    \
	c##r##1 = _mm512_fmadd_##S(a, b1, c##r##1)
#define STEP1(S, r)                                                    \
	a = _mm512_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm512_fmadd_##S(a, b0, c##r##0)

#define OUT3(S, r)                                                     \
	if (r < rows) {                                                \
		TY(S) *cr = C + r * ldc;                               \
		_mm512_storeu_##S(cr, _mm512_mul_##S(al, c##r##0));    \
		_mm512_storeu_##S(cr + W(S), _mm512_mul_##S(al, c##r##1)); \
		_mm512_storeu_##S(cr + 2 * W(S), _mm512_mul_##S(al, c##r##2)); \
	}
#define OUT2(S, r)                                                     \
	if (r < rows) {                                                \
		TY(S) *cr = C + r * ldc;                               \
		_mm512_storeu_##S(cr, _mm512_mul_##S(al, c##r##0));    \
		_mm512_storeu_##S(cr + W(S), _mm512_mul_##S(al, c##r##1)); \
	}
#define OUT1(S, r)                                                     \
	if (r < rows)                                                  \
		_mm512_mask_storeu_##S(C + r * ldc, mk,                \
				       _mm512_mul_##S(al, c##r##0))

#define ROWS8(X, S) X(S, 0); X(S, 1); X(S, 2); X(S, 3); X(S, 4); X(S, 5); \
	X(S, 6); X(S, 7)

/*
 * The 8 row pointers of a tile: rows past the last (rows < 8) repeat row
 * 0, are computed and not stored.
 */
#define ROWPTRS(S)                                                     \
	const TY(S) *a0 = A, *a1 = A + (rows > 1) * lda;               \
	const TY(S) *a2 = A + (rows > 2) * 2 * lda;                    \
	const TY(S) *a3 = A + (rows > 3) * 3 * lda;                    \
	const TY(S) *a4 = A + (rows > 4) * 4 * lda;                    \
	const TY(S) *a5 = A + (rows > 5) * 5 * lda;                    \
	const TY(S) *a6 = A + (rows > 6) * 6 * lda;                    \
	const TY(S) *a7 = A + (rows > 7) * 7 * lda

/*
 * Where pf is set (the first panel of columns, whose tiles read A's rows
 * from memory; the later panels find them in L2), one line of the rows
 * two tiles down per step: row p % 8, line p / 8, so that a tile's k
 * steps fetch the k / 8 lines of each of its 8 rows (prefetches do not
 * fault past the end of A). The maps' product read its inputs (L =
 * 65536, d = 64) at 0.66 of the FMA peak against 0.98 with A in L2;
 * with the prefetch, 0.75-0.8. It moves no sum.
 */
#define PREFETCH_A(S)                                                  \
	if (pf)                                                        \
	_mm_prefetch((const char *)(A + (16 + (p & 7)) * lda +         \
				    (p >> 3) * (64 / sizeof(TY(S)))),  \
		     _MM_HINT_T0)

#define TILE_ARGS(S)                                                   \
	const TY(S) *A, size_t lda, const TY(S) *B, size_t ldb,        \
	TY(S) *C, size_t ldc, size_t k, TY(S) alpha, size_t rows

/*
 * The tiles of one precision: 8 x 3W (rows of A times B, rows of them
 * stored), 8 x 2W, and 8 x cols for cols in 1..W (masked loads and
 * stores); then the product, panels of 3W columns (then 2W, then at most
 * W) left to right, in each the tiles top to bottom so that the panel of
 * B stays in L1 for all. The last 4W columns go as 2W + 2W, not 3W + W:
 * the 8 x W tile does 8 broadcasts for 8 FMAs, and the float32 maps'
 * M = 256 (5 x 48 + 16) spent a tenth of their product in it. A column's
 * sums are the same in any tile.
 */
#define DEFINE_GEMM(S, NAME)                                           \
	__attribute__((target("avx512f")))                             \
	static void NAME##_tile3(TILE_ARGS(S), int pf)                 \
	{                                                              \
		VEC(S) z = _mm512_setzero_##S(), a;                    \
		VEC(S) al = _mm512_set1_##S(alpha);                    \
		size_t p;                                              \
		ROWPTRS(S);                                            \
									\
		ROWS8(ACC3, S);                                        \
		for (p = 0; p < k; p++) {                              \
			const TY(S) *bp = B + p * ldb;                 \
			VEC(S) b0 = _mm512_loadu_##S(bp);              \
			VEC(S) b1 = _mm512_loadu_##S(bp + W(S));       \
			VEC(S) b2 = _mm512_loadu_##S(bp + 2 * W(S));   \
									\
			PREFETCH_A(S);                                 \
			ROWS8(STEP3, S);                               \
		}                                                      \
		ROWS8(OUT3, S);                                        \
	}                                                              \
									\
	__attribute__((target("avx512f")))                             \
	static void NAME##_tile2(TILE_ARGS(S), int pf)                 \
	{                                                              \
		VEC(S) z = _mm512_setzero_##S(), a;                    \
		VEC(S) al = _mm512_set1_##S(alpha);                    \
		size_t p;                                              \
		ROWPTRS(S);                                            \
									\
		ROWS8(ACC2, S);                                        \
		for (p = 0; p < k; p++) {                              \
			const TY(S) *bp = B + p * ldb;                 \
			VEC(S) b0 = _mm512_loadu_##S(bp);              \
			VEC(S) b1 = _mm512_loadu_##S(bp + W(S));       \
									\
			PREFETCH_A(S);                                 \
			ROWS8(STEP2, S);                               \
		}                                                      \
		ROWS8(OUT2, S);                                        \
	}                                                              \
									\
	__attribute__((target("avx512f")))                             \
	static void NAME##_tile1(TILE_ARGS(S), size_t cols)            \
	{                                                              \
		VEC(S) z = _mm512_setzero_##S(), a;                    \
		VEC(S) al = _mm512_set1_##S(alpha);                    \
		MASK(S) mk = (MASK(S))((1u << cols) - 1u);             \
		size_t p;                                              \
		ROWPTRS(S);                                            \
									\
		ROWS8(ACC1, S);                                        \
		for (p = 0; p < k; p++) {                              \
			VEC(S) b0 = _mm512_maskz_loadu_##S(mk, B + p * ldb); \
									\
			ROWS8(STEP1, S);                               \
		}                                                      \
		ROWS8(OUT1, S);                                        \
	}                                                              \
									\
	/* k rows of w (2W or 3W) from B, ldb apart, to pan, w apart */ \
	__attribute__((target("avx512f")))                             \
	static void NAME##_pack(TY(S) *pan, const TY(S) *B, size_t ldb, \
				size_t k, size_t w)                    \
	{                                                              \
		size_t p, j;                                           \
									\
		for (p = 0; p < k; p++)                                \
			for (j = 0; j < w; j += W(S))                  \
				_mm512_store_##S(pan + p * w + j,      \
					_mm512_loadu_##S(B + p * ldb + j)); \
	}                                                              \
									\
	static void NAME(size_t m, size_t n, size_t k, TY(S) alpha,    \
			 const TY(S) *A, size_t lda, const TY(S) *B,   \
			 size_t ldb, TY(S) *C, size_t ldc)             \
	{                                                              \
		const size_t w1 = W(S), w2 = 2 * W(S), w3 = 3 * W(S);  \
		TY(S) pan[KERNEL_MAX_K * 3 * W(S)]                     \
			__attribute__((aligned(64)));                  \
		size_t i0, j0, w, lp;                                  \
		const TY(S) *bp;                                       \
									\
		for (j0 = 0; j0 < n; j0 += w) {                        \
			w = n - j0 >= w3 && n - j0 != 4 * w1 ? w3      \
			    : n - j0 >= w2 ? w2                        \
			    : n - j0 < w1 ? n - j0 : w1;               \
			bp = B + j0;                                   \
			lp = ldb;                                      \
			if (m >= PACK_ROWS && ldb != w && w >= w2) {   \
				NAME##_pack(pan, B + j0, ldb, k, w);   \
				bp = pan;                              \
				lp = w;                                \
			}                                              \
			for (i0 = 0; i0 < m; i0 += 8) {                \
				const TY(S) *ai = A + i0 * lda;        \
				TY(S) *ci = C + i0 * ldc + j0;         \
				size_t r = m - i0 < 8 ? m - i0 : 8;    \
									\
				if (w == w3)                           \
					NAME##_tile3(ai, lda, bp, lp, ci, \
						     ldc, k, alpha, r, j0 == 0); \
				else if (w == w2)                      \
					NAME##_tile2(ai, lda, bp, lp, ci, \
						     ldc, k, alpha, r, j0 == 0); \
				else                                   \
					NAME##_tile1(ai, lda, B + j0, ldb, ci, \
						     ldc, k, alpha, r, w); \
			}                                              \
		}                                                      \
	}

DEFINE_GEMM(pd, gemm_avx512)
DEFINE_GEMM(ps, sgemm_avx512)

/*
 * The AVX2 kernel, for x86-64 CPUs without AVX-512 (AMD's Zen 1-3, for
 * one): the same scheme on 16 registers of 4 doubles or 8 floats, a
 * 4 x 3W tile (12 accumulators, three vectors of B's row p, one
 * broadcast), then 4 x 2W and masked 4 x cols (maskload, maskstore).
 * Every entry of C is the same chain of FMAs as in the AVX-512 kernel
 * (over p in order from 0, then times alpha), so the two give the same
 * bits. A template of its own rather than DEFINE_GEMM's with the vector
 * width as a parameter: the masks differ in kind (a k-register against a
 * vector), and AVX-512 hosts cannot be had to test a rewrite of theirs.
 * On a Zen 3 the maps spent as long in OpenBLAS's dgemm per block of rows
 * (its packing and its beta = 0 pass) as the whole dgemm of the bench's
 * floor took.
 */
#define V2_pd __m256d
#define V2_ps __m256
#define W2_pd 4
#define W2_ps 8
#define V2(S) V2_##S
#define W2(S) W2_##S
/* the lanes below cols of a maskload or maskstore */
#define COLMASK_pd(cols) _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(cols)), \
					    _mm256_setr_epi64x(0, 1, 2, 3))
#define COLMASK_ps(cols) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(cols)), \
					    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))

#define ACC2_3(S, r) V2(S) c##r##0 = z, c##r##1 = z, c##r##2 = z
#define ACC2_2(S, r) V2(S) c##r##0 = z, c##r##1 = z
#define ACC2_1(S, r) V2(S) c##r##0 = z

#define STEP2_3(S, r)                                                  \
	a = _mm256_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm256_fmadd_##S(a, b0, c##r##0);                    \
	c##r##1 = _mm256_fmadd_##S(a, b1, c##r##1);                    \
	c##r##2 = _mm256_fmadd_##S(a, b2, c##r##2)
#define STEP2_2(S, r)                                                  \
	a = _mm256_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm256_fmadd_##S(a, b0, c##r##0);                    \
	c##r##1 = _mm256_fmadd_##S(a, b1, c##r##1)
#define STEP2_1(S, r)                                                  \
	a = _mm256_set1_##S(a##r[p]);                                  \
	c##r##0 = _mm256_fmadd_##S(a, b0, c##r##0)

#define OUT2_3(S, r)                                                   \
	if (r < rows) {                                                \
		TY(S) *cr = C + r * ldc;                               \
		_mm256_storeu_##S(cr, _mm256_mul_##S(al, c##r##0));    \
		_mm256_storeu_##S(cr + W2(S), _mm256_mul_##S(al, c##r##1)); \
		_mm256_storeu_##S(cr + 2 * W2(S), _mm256_mul_##S(al, c##r##2)); \
	}
#define OUT2_2(S, r)                                                   \
	if (r < rows) {                                                \
		TY(S) *cr = C + r * ldc;                               \
		_mm256_storeu_##S(cr, _mm256_mul_##S(al, c##r##0));    \
		_mm256_storeu_##S(cr + W2(S), _mm256_mul_##S(al, c##r##1)); \
	}
#define OUT2_1(S, r)                                                   \
	if (r < rows)                                                  \
		_mm256_maskstore_##S(C + r * ldc, mk,                  \
				     _mm256_mul_##S(al, c##r##0))

#define ROWS4(X, S) X(S, 0); X(S, 1); X(S, 2); X(S, 3)

/* The 4 row pointers of a tile, as ROWPTRS's 8. */
#define ROWPTRS4(S)                                                    \
	const TY(S) *a0 = A, *a1 = A + (rows > 1) * lda;               \
	const TY(S) *a2 = A + (rows > 2) * 2 * lda;                    \
	const TY(S) *a3 = A + (rows > 3) * 3 * lda

#define DEFINE_GEMM2(S, NAME)                                          \
	__attribute__((target("avx2,fma")))                            \
	static void NAME##_tile3(TILE_ARGS(S))                         \
	{                                                              \
		V2(S) z = _mm256_setzero_##S(), a;                     \
		V2(S) al = _mm256_set1_##S(alpha);                     \
		size_t p;                                              \
		ROWPTRS4(S);                                           \
									\
		ROWS4(ACC2_3, S);                                      \
		for (p = 0; p < k; p++) {                              \
			const TY(S) *bp = B + p * ldb;                 \
			V2(S) b0 = _mm256_loadu_##S(bp);               \
			V2(S) b1 = _mm256_loadu_##S(bp + W2(S));       \
			V2(S) b2 = _mm256_loadu_##S(bp + 2 * W2(S));   \
									\
			ROWS4(STEP2_3, S);                             \
		}                                                      \
		ROWS4(OUT2_3, S);                                      \
	}                                                              \
									\
	__attribute__((target("avx2,fma")))                            \
	static void NAME##_tile2(TILE_ARGS(S))                         \
	{                                                              \
		V2(S) z = _mm256_setzero_##S(), a;                     \
		V2(S) al = _mm256_set1_##S(alpha);                     \
		size_t p;                                              \
		ROWPTRS4(S);                                           \
									\
		ROWS4(ACC2_2, S);                                      \
		for (p = 0; p < k; p++) {                              \
			const TY(S) *bp = B + p * ldb;                 \
			V2(S) b0 = _mm256_loadu_##S(bp);               \
			V2(S) b1 = _mm256_loadu_##S(bp + W2(S));       \
									\
			ROWS4(STEP2_2, S);                             \
		}                                                      \
		ROWS4(OUT2_2, S);                                      \
	}                                                              \
									\
	__attribute__((target("avx2,fma")))                            \
	static void NAME##_tile1(TILE_ARGS(S), size_t cols)            \
	{                                                              \
		V2(S) z = _mm256_setzero_##S(), a;                     \
		V2(S) al = _mm256_set1_##S(alpha);                     \
		__m256i mk = COLMASK_##S(cols);                        \
		size_t p;                                              \
		ROWPTRS4(S);                                           \
									\
		ROWS4(ACC2_1, S);                                      \
		for (p = 0; p < k; p++) {                              \
			V2(S) b0 = _mm256_maskload_##S(B + p * ldb, mk); \
									\
			ROWS4(STEP2_1, S);                             \
		}                                                      \
		ROWS4(OUT2_1, S);                                      \
	}                                                              \
									\
	/* k rows of w (W, 2W or 3W) from B, ldb apart, to pan, w apart */ \
	__attribute__((target("avx2")))                                \
	static void NAME##_pack(TY(S) *pan, const TY(S) *B, size_t ldb, \
				size_t k, size_t w)                    \
	{                                                              \
		size_t p, j;                                           \
									\
		for (p = 0; p < k; p++)                                \
			for (j = 0; j < w; j += W2(S))                 \
				_mm256_storeu_##S(pan + p * w + j,     \
					_mm256_loadu_##S(B + p * ldb + j)); \
	}                                                              \
									\
	static void NAME(size_t m, size_t n, size_t k, TY(S) alpha,    \
			 const TY(S) *A, size_t lda, const TY(S) *B,   \
			 size_t ldb, TY(S) *C, size_t ldc)             \
	{                                                              \
		const size_t w1 = W2(S), w2 = 2 * W2(S), w3 = 3 * W2(S); \
		TY(S) pan[KERNEL_MAX_K * 3 * W2(S)];                   \
		size_t i0, j0, w, lp;                                  \
		const TY(S) *bp;                                       \
									\
		for (j0 = 0; j0 < n; j0 += w) {                        \
			w = n - j0 >= w3 && n - j0 != 4 * w1 ? w3      \
			    : n - j0 >= w2 ? w2                        \
			    : n - j0 < w1 ? n - j0 : w1;               \
			bp = B + j0;                                   \
			lp = ldb;                                      \
			if (m >= PACK_ROWS && ldb != w && w >= w1) {   \
				NAME##_pack(pan, B + j0, ldb, k, w);   \
				bp = pan;                              \
				lp = w;                                \
			}                                              \
			for (i0 = 0; i0 < m; i0 += 4) {                \
				const TY(S) *ai = A + i0 * lda;        \
				TY(S) *ci = C + i0 * ldc + j0;         \
				size_t r = m - i0 < 4 ? m - i0 : 4;    \
									\
				if (w == w3)                           \
					NAME##_tile3(ai, lda, bp, lp, ci, \
						     ldc, k, alpha, r); \
				else if (w == w2)                      \
					NAME##_tile2(ai, lda, bp, lp, ci, \
						     ldc, k, alpha, r); \
				else                                   \
					NAME##_tile1(ai, lda, bp, lp, ci, \
						     ldc, k, alpha, r, w); \
			}                                              \
		}                                                      \
	}

DEFINE_GEMM2(pd, gemm_avx2)
DEFINE_GEMM2(ps, sgemm_avx2)

/* 2 where the CPU runs AVX-512 F, 1 where AVX2 and FMA, else 0 */
static int isa_level(void)
{
	static int known = -1; /* benign race: every thread writes the same */

	if (known < 0)
		known = __builtin_cpu_supports("avx512f") ? 2
			: __builtin_cpu_supports("avx2") &&
			  __builtin_cpu_supports("fma") ? 1 : 0;
	return known;
}

static int have_avx512(void)
{
	return isa_level() == 2;
}

/* The kernels of the level the CPU runs (kernel_takes checks there is one). */
static void gemm_x86(size_t m, size_t n, size_t k, double alpha,
		     const double *A, size_t lda, const double *B, size_t ldb,
		     double *C, size_t ldc)
{
	(have_avx512() ? gemm_avx512 : gemm_avx2)(m, n, k, alpha, A, lda, B,
						   ldb, C, ldc);
}

static void sgemm_x86(size_t m, size_t n, size_t k, float alpha,
		      const float *A, size_t lda, const float *B, size_t ldb,
		      float *C, size_t ldc)
{
	(have_avx512() ? sgemm_avx512 : sgemm_avx2)(m, n, k, alpha, A, lda, B,
						     ldb, C, ldc);
}
#endif

/* Whether rfx's kernels (AVX-512 or AVX2) take a product with inner dimension k. */
static int kernel_takes(size_t k)
{
#ifdef RFX_GEMM_X86
	return k >= 1 && k <= KERNEL_MAX_K && isa_level() > 0;
#else
	(void)k;
	return 0;
#endif
}

/*
 * The same for rfx_gemm_abt2, AVX-512 only: its panels of B^T are packed
 * by AVX-512 transposes, and on a Zen 3 the AVX2 kernel with scalar
 * packing ran HRF Fig 6 3-4% slower than OpenBLAS's two dgemms.
 */
static int abt2_kernel_takes(size_t k)
{
#ifdef RFX_GEMM_X86
	return kernel_takes(k) && have_avx512();
#else
	return kernel_takes(k);
#endif
}

void rfx_gemm(size_t m, size_t n, size_t k, double alpha, const double *A,
	      size_t lda, const double *B, size_t ldb, double *C, size_t ldc)
{
	size_t i;

	if (m == 0 || n == 0)
		return;
	if (k == 0) {
		for (i = 0; i < m; i++)
			memset(C + i * ldc, 0, n * sizeof(double));
		return;
	}
#ifdef RFX_GEMM_X86
	if (kernel_takes(k)) {
		gemm_x86(m, n, k, alpha, A, lda, B, ldb, C, ldc);
		return;
	}
#endif
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, alpha, A, (int)lda, B, (int)ldb, 0.0, C, (int)ldc);
}

void rfx_sgemm(size_t m, size_t n, size_t k, float alpha, const float *A,
	       size_t lda, const float *B, size_t ldb, float *C, size_t ldc)
{
	size_t i;

	if (m == 0 || n == 0)
		return;
	if (k == 0) {
		for (i = 0; i < m; i++)
			memset(C + i * ldc, 0, n * sizeof(float));
		return;
	}
#ifdef RFX_GEMM_X86
	if (kernel_takes(k)) {
		sgemm_x86(m, n, k, alpha, A, lda, B, ldb, C, ldc);
		return;
	}
#endif
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, alpha, A, (int)lda, B, (int)ldb, 0.0f, C, (int)ldc);
}

void rfx_gemm_nt(size_t m, size_t n, size_t k, const double *A, size_t lda,
		 const double *B, size_t ldb, double *C, size_t ldc,
		 double *work)
{
	size_t j, p, j0, p0;

	if (m == 0 || n == 0)
		return;
	if (!kernel_takes(k)) {
		if (k == 0)
			rfx_gemm(m, n, 0, 1.0, A, lda, work, n, C, ldc);
		else
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
				    (int)m, (int)n, (int)k, 1.0, A, (int)lda, B,
				    (int)ldb, 0.0, C, (int)ldc);
		return;
	}
	/*
	 * In 8 x 8 squares: column by column, the stores went n doubles
	 * apart, to a handful of cache sets, and the packing took a
	 * quarter of the product's time.
	 */
	for (j0 = 0; j0 < n; j0 += 8)
		for (p0 = 0; p0 < k; p0 += 8) {
			size_t j1 = n - j0 < 8 ? n : j0 + 8;
			size_t p1 = k - p0 < 8 ? k : p0 + 8;

			for (p = p0; p < p1; p++)
				for (j = j0; j < j1; j++)
					work[p * n + j] = B[j * ldb + p];
		}
	rfx_gemm(m, n, k, 1.0, A, lda, work, n, C, ldc);
}

/* Rows of A per product in rfx_gemm_abt2 (its difference tile, 12 KiB). */
#define ABT_ROWS 64

#ifdef RFX_GEMM_X86
/*
 * pan[p w + j] = B[j ldb + p] for j, p < 8: an 8 x 8 transpose in
 * registers. unpacklo/hi pair rows 2i and 2i + 1 (even and odd columns);
 * two rounds of two-source permutes put the four pairs of each column
 * together. Scalar, one element at a time to a store w doubles from the
 * last, the packing took two thirds of rfx_gemm_abt2's own time, 7% of
 * HRF Fig 6 (each call packs all n rows of B for only m = 256 rows of A).
 */
__attribute__((target("avx512f")))
static void transpose8(const double *B, size_t ldb, double *pan, size_t w)
{
	/* 64-bit indices of permutex2var (8 and up: the second source) */
	const __m512i pair_lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
	const __m512i pair_hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
	const __m512i half_lo = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
	const __m512i half_hi = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
	__m512d r[8], u[8], v[8];
	int i;

	for (i = 0; i < 8; i++)
		r[i] = _mm512_loadu_pd(B + (size_t)i * ldb);
	/*
	 * u[2i] = (r2i[0], r2i+1[0], r2i[2], r2i+1[2], .. [4], .. [6]) and
	 * u[2i + 1] the same of columns 1, 3, 5, 7.
	 */
	for (i = 0; i < 4; i++) {
		u[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
		u[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
	}
	/*
	 * For the even (i = 0) and odd (i = 1) columns c0 < c1 < c2 < c3:
	 * v[4i] = (c0 | c1) of rows 0-3, v[4i + 1] = (c2 | c3) of rows 0-3,
	 * v[4i + 2] and v[4i + 3] the same of rows 4-7.
	 */
	for (i = 0; i < 2; i++) {
		v[4 * i] = _mm512_permutex2var_pd(u[i], pair_lo, u[i + 2]);
		v[4 * i + 1] = _mm512_permutex2var_pd(u[i], pair_hi, u[i + 2]);
		v[4 * i + 2] = _mm512_permutex2var_pd(u[i + 4], pair_lo, u[i + 6]);
		v[4 * i + 3] = _mm512_permutex2var_pd(u[i + 4], pair_hi, u[i + 6]);
	}
	/* each column: its rows 0-3 and its rows 4-7 */
	for (i = 0; i < 2; i++) {
		const __m512d *x = v + 4 * i;

		_mm512_storeu_pd(pan + (size_t)i * w,
				 _mm512_permutex2var_pd(x[0], half_lo, x[2]));
		_mm512_storeu_pd(pan + (size_t)(i + 2) * w,
				 _mm512_permutex2var_pd(x[0], half_hi, x[2]));
		_mm512_storeu_pd(pan + (size_t)(i + 4) * w,
				 _mm512_permutex2var_pd(x[1], half_lo, x[3]));
		_mm512_storeu_pd(pan + (size_t)(i + 6) * w,
				 _mm512_permutex2var_pd(x[1], half_hi, x[3]));
	}
}

/* The panel of columns j0..j0+w-1 of B^T (k x w) into pan. */
static void pack_bt(const double *B, size_t ldb, size_t j0, size_t w,
		    size_t k, double *pan)
{
	size_t j = 0, p;

	for (; j + 8 <= w; j += 8) {
		for (p = 0; p + 8 <= k; p += 8)
			transpose8(B + (j0 + j) * ldb + p, ldb, pan + p * w + j, w);
		for (; p < k; p++) {
			size_t t;

			for (t = 0; t < 8; t++)
				pan[p * w + j + t] = B[(j0 + j + t) * ldb + p];
		}
	}
	for (; j < w; j++)
		for (p = 0; p < k; p++)
			pan[p * w + j] = B[(j0 + j) * ldb + p];
}
#endif

void rfx_gemm_abt2(size_t m, size_t n, size_t k, const double *A1,
		   const double *B1, const double *A2, const double *B2,
		   size_t ld, double *C, size_t ldc)
{
	if (m == 0 || n == 0)
		return;
	if (!abt2_kernel_takes(k)) {
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n,
			    (int)k, 1.0, A1, (int)ld, B1, (int)ld, 0.0, C, (int)ldc);
		if (A2)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m,
				    (int)n, (int)k, -1.0, A2, (int)ld, B2, (int)ld,
				    1.0, C, (int)ldc);
		return;
	}
#ifdef RFX_GEMM_X86
	{
		/* panels of B1^T and B2^T: 2 x 24 x 320 doubles, 120 KiB */
		double pan1[24 * KERNEL_MAX_K], pan2[24 * KERNEL_MAX_K];
		double T[ABT_ROWS * 24];
		size_t j0, i0, i, j, w, mi;

		for (j0 = 0; j0 < n; j0 += w) {
			w = n - j0 < 24 ? n - j0 : 24;
			pack_bt(B1, ld, j0, w, k, pan1);
			if (!A2) {
				gemm_x86(m, w, k, 1.0, A1, ld, pan1, w, C + j0, ldc);
				continue;
			}
			pack_bt(B2, ld, j0, w, k, pan2);
			for (i0 = 0; i0 < m; i0 += mi) {
				double *ci = C + i0 * ldc + j0;

				mi = m - i0 < ABT_ROWS ? m - i0 : ABT_ROWS;
				gemm_x86(mi, w, k, 1.0, A1 + i0 * ld, ld, pan1, w,
					    ci, ldc);
				gemm_x86(mi, w, k, 1.0, A2 + i0 * ld, ld, pan2, w,
					    T, w);
				for (i = 0; i < mi; i++)
					for (j = 0; j < w; j++)
						ci[i * ldc + j] -= T[i * w + j];
			}
		}
	}
#endif
}

void *rfx_gemm_alloc(size_t n, size_t size)
{
	size_t bytes = n * size, round = (bytes + 63) & ~(size_t)63;

	/* a whole number of lines, as aligned_alloc wants; none for 0 */
	if ((size && bytes / size != n) || round < bytes)
		return NULL;
	return aligned_alloc(64, round ? round : 64);
}

const char *rfx_gemm_kernel_name(void)
{
#ifdef RFX_GEMM_X86
	if (kernel_takes(1))
		return have_avx512() ? "avx512" : "avx2";
#endif
	return "openblas";
}

/*
 * Matrix products of the shapes rfx lives on: L x d inputs times d x M
 * projections, and blocks of inner products x_i . y_j, with d (the inner
 * dimension k) small, from 1 to a few hundred. OpenBLAS 0.3.21 runs its
 * AVX2 (Haswell) kernel on AVX-512 machines it does not know, such as
 * Sapphire Rapids, at about half of what the FMA units can do; on such
 * CPUs these functions use a register-blocked AVX-512 kernel instead
 * (8 rows x 24 columns of C in 24 registers, about 1.8x OpenBLAS's speed
 * at k = 64); on CPUs with AVX2 and FMA but not AVX-512 an AVX2 kernel
 * of the same scheme (4 x 12 tiles; 1.5x OpenBLAS's speed on a Zen 3 at
 * k = 64, where OpenBLAS packs and clears C for every block of rows); and
 * OpenBLAS's dgemm elsewhere and for k > 320 (the kernels do not block
 * k, and beyond that they fall to half of OpenBLAS's speed).
 *
 * Both run on the calling thread only (inside rfx's parallel regions the
 * caller has OpenBLAS at one thread, lib/num/blas.h), so a result does not
 * depend on the thread count. The kernel sums over k in order with one
 * FMA per term, as OpenBLAS's does, and the AVX2 and AVX-512 kernels
 * give the same bits; results can differ from OpenBLAS's in the last
 * bits.
 */
#ifndef RFX_GEMM_H
#define RFX_GEMM_H

#include <stddef.h>

/*
 * C = alpha A B, row-major: A is m x k with row stride lda, B k x n with
 * ldb, C m x n with ldc, overwritten (C must not overlap A or B).
 */
void rfx_gemm(size_t m, size_t n, size_t k, double alpha, const double *A,
	      size_t lda, const double *B, size_t ldb, double *C, size_t ldc);

/*
 * The same in single precision (the float32 feature maps): the kernel's
 * 8 x 48 tiles on AVX-512 (twice the numbers per FMA), 4 x 24 on AVX2,
 * OpenBLAS's sgemm elsewhere and for k > 320. Each entry sums over k in
 * order with one FMA per term.
 */
void rfx_sgemm(size_t m, size_t n, size_t k, float alpha, const float *A,
	       size_t lda, const float *B, size_t ldb, float *C, size_t ldc);

/*
 * C = A B^T for B n x k (row stride ldb): all inner products of the rows
 * of A with those of B. work holds k n doubles (B^T is packed there).
 */
void rfx_gemm_nt(size_t m, size_t n, size_t k, const double *A, size_t lda,
		 const double *B, size_t ldb, double *C, size_t ldc,
		 double *work);

/*
 * C = A1 B1^T - A2 B2^T (or A1 B1^T when A2 is NULL): A1, A2 m x k, B1,
 * B2 n x k, all with row stride ld; C m x n, overwritten. The gram
 * matrix of complex feature matrices (est/featmap.h). Needs no
 * workspace: B^T is packed 24 columns at a time on the stack, each panel
 * used by all m rows (so m should be large against 24), and the products
 * run on rfx's AVX-512 kernel where rfx_gemm would; elsewhere (the AVX2
 * kernel included, gemm.c says why) two dgemms.
 */
void rfx_gemm_abt2(size_t m, size_t n, size_t k, const double *A1,
		   const double *B1, const double *A2, const double *B2,
		   size_t ld, double *C, size_t ldc);

/*
 * n elements of size bytes from a cache-line boundary, not zeroed
 * (free() it): the operands and outputs of the products and of the maps
 * built on them. The kernels load and store rows a vector at a time, and
 * from glibc's malloc a large block starts 16 bytes past a page, so
 * every access straddled two cache lines: 8-10% of the product's time
 * for B at d = 64, M = 256, about 10% of the pos map for its output.
 * NULL when out of memory or when n size overflows.
 */
void *rfx_gemm_alloc(size_t n, size_t size);

/* "avx512", "avx2" or "openblas": what rfx_gemm uses on this CPU. */
const char *rfx_gemm_kernel_name(void);

#endif

/*
 * Products for small inner dimensions (see gemm.h). The AVX-512 kernel
 * keeps an 8 x 24 tile of C in 24 registers; per step p of the inner
 * dimension it loads 24 entries of row p of B (three vectors), broadcasts
 * the 8 entries of column p of A and does 24 FMAs, so the FMA units, not
 * the loads, set the pace. A is packed 8 rows at a time (column p of the
 * 8 rows contiguous, missing rows zero), IB rows per pass so that each
 * 24-column panel of B is read from L1 for all of them. Narrower panels
 * at the right edge use 16- and masked 8-column tiles.
 */
#include "gemm.h"

#include <cblas.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RFX_GEMM_X86 1
#include <immintrin.h>
#endif

#define IB 32 /* rows of A packed per pass (a multiple of 8) */

#ifdef RFX_GEMM_X86
/* Rows i0.. (rows of them, at most IB) of A into Ap, 8-row groups, k x 8. */
static void pack_a(const double *A, size_t lda, size_t rows, size_t k,
		   double *Ap)
{
	size_t g, p, r;

	for (g = 0; g < rows; g += 8)
		for (p = 0; p < k; p++)
			for (r = 0; r < 8; r++)
				Ap[g * k + 8 * p + r] =
					g + r < rows ? A[(g + r) * lda + p] : 0.0;
}

/* The accumulators of row r: three, two or one vectors. */
#define ACC3(r) __m512d c##r##0 = z, c##r##1 = z, c##r##2 = z
#define ACC2(r) __m512d c##r##0 = z, c##r##1 = z
#define ACC1(r) __m512d c##r##0 = z

/* One FMA step for row r with the broadcast of Ap[8 p + r]. */
#define STEP3(r)                                                       \
	a = _mm512_set1_pd(ap[r]);                                     \
	c##r##0 = _mm512_fmadd_pd(a, b0, c##r##0);                     \
	c##r##1 = _mm512_fmadd_pd(a, b1, c##r##1);                     \
	c##r##2 = _mm512_fmadd_pd(a, b2, c##r##2)
#define STEP2(r)                                                       \
	a = _mm512_set1_pd(ap[r]);                                     \
	c##r##0 = _mm512_fmadd_pd(a, b0, c##r##0);                     \
	c##r##1 = _mm512_fmadd_pd(a, b1, c##r##1)
#define STEP1(r)                                                       \
	a = _mm512_set1_pd(ap[r]);                                     \
	c##r##0 = _mm512_fmadd_pd(a, b0, c##r##0)

#define OUT3(r)                                                        \
	if (r < rows) {                                                \
		double *cr = C + r * ldc;                              \
		_mm512_storeu_pd(cr, _mm512_mul_pd(al, c##r##0));      \
		_mm512_storeu_pd(cr + 8, _mm512_mul_pd(al, c##r##1));  \
		_mm512_storeu_pd(cr + 16, _mm512_mul_pd(al, c##r##2)); \
	}
#define OUT2(r)                                                        \
	if (r < rows) {                                                \
		double *cr = C + r * ldc;                              \
		_mm512_storeu_pd(cr, _mm512_mul_pd(al, c##r##0));      \
		_mm512_storeu_pd(cr + 8, _mm512_mul_pd(al, c##r##1));  \
	}
#define OUT1(r)                                                        \
	if (r < rows)                                                  \
		_mm512_mask_storeu_pd(C + r * ldc, mk,                 \
				      _mm512_mul_pd(al, c##r##0))

#define ROWS8(X) X(0); X(1); X(2); X(3); X(4); X(5); X(6); X(7)

/* The 8 x 24 tile at C (rows of them stored) from packed Ap and B. */
__attribute__((target("avx512f")))
static void tile24(const double *Ap, const double *B, size_t ldb, double *C,
		   size_t ldc, size_t k, double alpha, size_t rows)
{
	__m512d z = _mm512_setzero_pd(), a, al = _mm512_set1_pd(alpha);
	size_t p;

	ROWS8(ACC3);
	for (p = 0; p < k; p++) {
		const double *ap = Ap + 8 * p, *bp = B + p * ldb;
		__m512d b0 = _mm512_loadu_pd(bp), b1 = _mm512_loadu_pd(bp + 8);
		__m512d b2 = _mm512_loadu_pd(bp + 16);

		ROWS8(STEP3);
	}
	ROWS8(OUT3);
}

/* The same, 8 x 16. */
__attribute__((target("avx512f")))
static void tile16(const double *Ap, const double *B, size_t ldb, double *C,
		   size_t ldc, size_t k, double alpha, size_t rows)
{
	__m512d z = _mm512_setzero_pd(), a, al = _mm512_set1_pd(alpha);
	size_t p;

	ROWS8(ACC2);
	for (p = 0; p < k; p++) {
		const double *ap = Ap + 8 * p, *bp = B + p * ldb;
		__m512d b0 = _mm512_loadu_pd(bp), b1 = _mm512_loadu_pd(bp + 8);

		ROWS8(STEP2);
	}
	ROWS8(OUT2);
}

/* The same, 8 x cols for cols in 1..8 (masked loads and stores). */
__attribute__((target("avx512f")))
static void tile8(const double *Ap, const double *B, size_t ldb, double *C,
		  size_t ldc, size_t k, double alpha, size_t rows, size_t cols)
{
	__m512d z = _mm512_setzero_pd(), a, al = _mm512_set1_pd(alpha);
	__mmask8 mk = (__mmask8)((1u << cols) - 1u);
	size_t p;

	ROWS8(ACC1);
	for (p = 0; p < k; p++) {
		const double *ap = Ap + 8 * p;
		__m512d b0 = _mm512_maskz_loadu_pd(mk, B + p * ldb);

		ROWS8(STEP1);
	}
	ROWS8(OUT1);
}

static void gemm_avx512(size_t m, size_t n, size_t k, double alpha,
			const double *A, size_t lda, const double *B,
			size_t ldb, double *C, size_t ldc)
{
	double Ap[IB * RFX_GEMM_KMAX]; /* IB rows of A, packed */
	size_t i0, j0, g;

	for (i0 = 0; i0 < m; i0 += IB) {
		size_t rows = m - i0 < IB ? m - i0 : IB;

		pack_a(A + i0 * lda, lda, rows, k, Ap);
		for (j0 = 0; j0 < n;) {
			size_t w = n - j0 >= 24 ? 24 : n - j0 >= 16 ? 16
					 : n - j0 < 8 ? n - j0 : 8;

			for (g = 0; g < rows; g += 8) {
				const double *ag = Ap + g * k;
				double *cg = C + (i0 + g) * ldc + j0;
				size_t r = rows - g < 8 ? rows - g : 8;

				if (w == 24)
					tile24(ag, B + j0, ldb, cg, ldc, k, alpha, r);
				else if (w == 16)
					tile16(ag, B + j0, ldb, cg, ldc, k, alpha, r);
				else
					tile8(ag, B + j0, ldb, cg, ldc, k, alpha, r, w);
			}
			j0 += w;
		}
	}
}

static int have_avx512(void)
{
	static int known = -1; /* benign race: every thread writes the same */

	if (known < 0)
		known = __builtin_cpu_supports("avx512f") != 0;
	return known;
}
#endif

/* Whether the AVX-512 kernel takes a product with inner dimension k. */
static int kernel_takes(size_t k)
{
#ifdef RFX_GEMM_X86
	return k >= 1 && k <= RFX_GEMM_KMAX && have_avx512();
#else
	(void)k;
	return 0;
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
		gemm_avx512(m, n, k, alpha, A, lda, B, ldb, C, ldc);
		return;
	}
#endif
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
		    (int)k, alpha, A, (int)lda, B, (int)ldb, 0.0, C, (int)ldc);
}

void rfx_gemm_nt(size_t m, size_t n, size_t k, const double *A, size_t lda,
		 const double *B, size_t ldb, double *C, size_t ldc,
		 double *work)
{
	size_t j, p;

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
	for (j = 0; j < n; j++)
		for (p = 0; p < k; p++)
			work[p * n + j] = B[j * ldb + p];
	rfx_gemm(m, n, k, 1.0, A, lda, work, n, C, ldc);
}

const char *rfx_gemm_kernel_name(void)
{
	return kernel_takes(1) ? "avx512" : "openblas";
}

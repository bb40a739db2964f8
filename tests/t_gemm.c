/*
 * Tests of lib/num/gemm.c: rfx_gemm, rfx_gemm_nt and rfx_gemm_abt2 (real
 * and complex gram matrices, A1 B1^T - A2 B2^T) against plain triple
 * loops (compensated sums) on every shape the kernel tiles differently:
 * m not a multiple of 8 or of the packing pass, n with 24-, 16- and
 * masked 8-column edges, k from 1 to 1100, row strides wider than the
 * rows, alpha != 1, and the products of
 * the feature maps and pair blocks (k = 64, n = 256); rfx_sgemm likewise
 * in float eps. Each entry must be
 * within a few ulps of the sum of |terms|; entries outside C's m x n
 * window stay untouched. On the AVX-512 kernel a column's bits must not
 * depend on the tile that computes it (the maps' rows must not depend
 * on M's panels), and rfx_gemm_alloc's memory is on a cache line.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "num/gemm.h"

/* Deterministic entries in (-1, 1) with some exact zeros. */
static double entry(size_t i, size_t seed)
{
	double v = sin(0.7385 * (double)(i + 1) + 1.234 * (double)seed);

	return (i * 7 + seed) % 11 == 0 ? 0.0 : v;
}

/*
 * One product: C = alpha A B (nt = 0), A B^T (nt = 1, rfx_gemm_nt), A B^T
 * (nt = 2, rfx_gemm_abt2 without A2) or A B^T - A2 B2^T (nt = 3) with
 * padded strides, against the loops. Returns whether it passed and
 * updates the worst error in units of eps times the sum of |terms|.
 */
static int check(size_t m, size_t n, size_t k, double alpha, int nt,
		 double *worst)
{
	size_t lda = k + 3, ldb = (nt ? (nt >= 2 ? lda : k) : n) + (nt >= 2 ? 0 : 5);
	size_t ldc = n + 2, rb = nt ? n : k, off = m * lda + rb * ldb;
	double *A = malloc((2 * off + 1) * sizeof(double));
	double *B = A ? A + m * lda : NULL;
	double *A2 = A ? A + off : NULL, *B2 = A ? A2 + m * lda : NULL;
	double *C = malloc((m * ldc + 1) * sizeof(double));
	double *W = malloc((k * n + 1) * sizeof(double));
	size_t i, j, p;
	int pass = A && C && W, two = nt == 3;

	if (nt != 0)
		alpha = 1.0;
	for (i = 0; pass && i < m * lda; i++) {
		A[i] = entry(i, m + 3 * k);
		A2[i] = entry(i, m + 7 * k + 1);
	}
	for (i = 0; pass && i < rb * ldb; i++) {
		B[i] = entry(i, n + 5 * k);
		B2[i] = entry(i, n + 9 * k + 2);
	}
	for (i = 0; pass && i < m * ldc; i++)
		C[i] = 12345.0; /* the padding must stay so */
	if (pass) {
		if (nt == 1)
			rfx_gemm_nt(m, n, k, A, lda, B, ldb, C, ldc, W);
		else if (nt >= 2)
			rfx_gemm_abt2(m, n, k, A, B, two ? A2 : NULL,
				      two ? B2 : NULL, lda, C, ldc);
		else
			rfx_gemm(m, n, k, alpha, A, lda, B, ldb, C, ldc);
	}
	for (i = 0; pass && i < m; i++) {
		for (j = 0; j < n; j++) {
			double s = 0.0, c = 0.0, abs = 0.0, e;
			int h;

			for (h = 0; h <= two; h++)
				for (p = 0; p < k; p++) {
					const double *a = h ? A2 : A, *bb = h ? B2 : B;
					double b = nt ? bb[j * ldb + p] : bb[p * ldb + j];
					double t = (h ? -1.0 : 1.0) * a[i * lda + p] * b;
					double u = s + t;

					c += fabs(s) >= fabs(t) ? (s - u) + t : (t - u) + s;
					s = u;
					abs += fabs(t);
				}
			s = alpha * (s + c);
			abs *= fabs(alpha);
			e = fabs(C[i * ldc + j] - s) / (2.2e-16 * (abs > 0 ? abs : 1.0));
			*worst = e > *worst ? e : *worst;
			pass &= e <= 4.0 + (1 + two) * k;
		}
		for (j = n; j < ldc; j++)
			pass &= C[i * ldc + j] == 12345.0;
	}
	free(A);
	free(C);
	free(W);
	return pass;
}

/*
 * rfx_sgemm on one shape against the double sum of the same float
 * entries: within (2 + k) float eps (2^-24 each rounding: k FMAs and the
 * scaling by alpha) of the sum of |terms|; padding untouched.
 */
static int check_s(size_t m, size_t n, size_t k, float alpha, double *worst)
{
	size_t lda = k + 3, ldb = n + 5, ldc = n + 2, i, j, p;
	float *A = malloc((m * lda + 1) * sizeof(float));
	float *B = malloc((k * ldb + 1) * sizeof(float));
	float *C = malloc((m * ldc + 1) * sizeof(float));
	int pass = A && B && C;

	for (i = 0; pass && i < m * lda; i++)
		A[i] = (float)entry(i, m + 3 * k);
	for (i = 0; pass && i < k * ldb; i++)
		B[i] = (float)entry(i, n + 5 * k);
	for (i = 0; pass && i < m * ldc; i++)
		C[i] = 12345.0f;
	if (pass)
		rfx_sgemm(m, n, k, alpha, A, lda, B, ldb, C, ldc);
	for (i = 0; pass && i < m; i++) {
		for (j = 0; j < n; j++) {
			double s = 0.0, abs = 0.0, e;

			for (p = 0; p < k; p++) {
				double t = (double)A[i * lda + p] * B[p * ldb + j];

				s += t;
				abs += fabs(t);
			}
			s *= alpha;
			abs *= fabs(alpha);
			e = fabs(C[i * ldc + j] - s) / (0x1p-24 * (abs > 0 ? abs : 1.0));
			*worst = e > *worst ? e : *worst;
			pass &= e <= 2.0 + k;
		}
		for (j = n; j < ldc; j++)
			pass &= C[i * ldc + j] == 12345.0f;
	}
	free(A);
	free(B);
	free(C);
	return pass;
}

/*
 * The columns of an m x n product (k = 64) against the same columns made
 * one at a time (the kernel's narrowest, masked tile): bit for bit, in
 * both precisions. 1 when all agree.
 */
static int columns_alike(size_t m, size_t n)
{
	const size_t k = 64;
	double *A = malloc(m * k * sizeof(double)), *B = malloc(k * n * sizeof(double));
	double *C = malloc(m * n * sizeof(double)), c1;
	float *As = malloc(m * k * sizeof(float)), *Bs = malloc(k * n * sizeof(float));
	float *Cs = malloc(m * n * sizeof(float)), s1;
	size_t i, j;
	int same = A && B && C && As && Bs && Cs;

	for (i = 0; same && i < m * k; i++)
		As[i] = (float)(A[i] = entry(i, 3));
	for (i = 0; same && i < k * n; i++)
		Bs[i] = (float)(B[i] = entry(i, 4));
	if (same) {
		rfx_gemm(m, n, k, 1.0, A, k, B, n, C, n);
		rfx_sgemm(m, n, k, 1.0f, As, k, Bs, n, Cs, n);
	}
	for (j = 0; same && j < n; j++)
		for (i = 0; same && i < m; i++) {
			rfx_gemm(1, 1, k, 1.0, A + i * k, k, B + j, n, &c1, 1);
			rfx_sgemm(1, 1, k, 1.0f, As + i * k, k, Bs + j, n, &s1, 1);
			same = memcmp(&c1, C + i * n + j, sizeof c1) == 0 &&
			       memcmp(&s1, Cs + i * n + j, sizeof s1) == 0;
		}
	free(A);
	free(B);
	free(C);
	free(As);
	free(Bs);
	free(Cs);
	return same;
}

int main(void)
{
	static const size_t ms[] = { 1, 3, 8, 13, 32, 37, 128 };
	static const size_t ns[] = { 1, 7, 8, 9, 16, 23, 24, 25, 32, 40, 47,
				     56, 256 };
	static const size_t ks[] = { 1, 2, 5, 64, 100, 300, 1100 };
	static const char *const names[] = { "rfx_gemm", "rfx_gemm_nt",
					     "rfx_gemm_abt2 (A B^T)",
					     "rfx_gemm_abt2 (A B^T - A2 B2^T)" };
	double worst = 0.0;
	size_t a, b, c;
	int pass = 1, nt;

	diag("kernel: %s", rfx_gemm_kernel_name());
	for (nt = 0; nt < 4; nt++) {
		for (a = 0; a < sizeof ms / sizeof ms[0]; a++)
			for (b = 0; b < sizeof ns / sizeof ns[0]; b++)
				for (c = 0; c < sizeof ks / sizeof ks[0]; c++) {
					if (ks[c] > 100 && ms[a] * ns[b] > 400)
						continue; /* keep it quick */
					pass &= check(ms[a], ns[b], ks[c], 0.83, nt,
						      &worst);
				}
		diag("%s: worst error %.3g eps times the sum of |terms|",
		     names[nt], worst);
		ok(pass, "%s: every shape within (4 + k) eps of the exact sum, "
		   "padding untouched", names[nt]);
	}
	ok(check(128, 256, 64, 1.0, 0, &worst) &&
	   check(256, 256, 64, 1.0, 1, &worst),
	   "the feature maps' and pair blocks' shapes (k = 64)");
	{
		static const size_t sns[] = { 1, 15, 16, 17, 32, 47, 48, 49, 64,
					      80, 112, 256 };

		worst = 0.0;
		pass = 1;
		for (a = 0; a < sizeof ms / sizeof ms[0]; a++)
			for (b = 0; b < sizeof sns / sizeof sns[0]; b++)
				for (c = 0; c < sizeof ks / sizeof ks[0]; c++) {
					if (ks[c] > 100 && ms[a] * sns[b] > 400)
						continue;
					pass &= check_s(ms[a], sns[b], ks[c], 0.83f,
							&worst);
				}
		pass &= check_s(128, 256, 64, 1.0f, &worst);
		diag("rfx_sgemm: worst error %.3g float eps times the sum of |terms|",
		     worst);
		ok(pass, "rfx_sgemm: every shape (48-, 32- and masked 16-column "
		   "edges) within (2 + k) float eps of the sum, padding untouched");
	}
	/*
	 * rfx's kernels' property (gemm.c: AVX-512 or AVX2; valgrind hides
	 * AVX-512, so there it is AVX2's), not OpenBLAS's: on CPUs without
	 * AVX2 a single column goes to another OpenBLAS kernel than a panel.
	 */
	if (strcmp(rfx_gemm_kernel_name(), "openblas") != 0)
		ok(columns_alike(13, 32) && columns_alike(13, 64) &&
		   columns_alike(9, 256),
		   "a column's bits do not depend on its tile (n = 32, 64, 256)");
	else
		skip("a column's bits and its tile: rfx's kernels do not run here");
	{
		static const size_t sizes[] = { 0, 1, 100, 4104, 262144 + 8 };
		size_t z;
		int good = 1;

		for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
			unsigned char *q = rfx_gemm_alloc(sizes[z], 1);

			good &= q && ((uintptr_t)q & 63) == 0;
			if (q && sizes[z]) /* all of it writable (valgrind, ASan) */
				memset(q, 1, sizes[z]);
			free(q);
		}
		ok(good, "rfx_gemm_alloc: on a cache line (0 to 256 KiB + 8 bytes)");
		ok(rfx_gemm_alloc(SIZE_MAX - 10, 1) == NULL &&
		   rfx_gemm_alloc(SIZE_MAX / 8 + 1, 8) == NULL,
		   "rfx_gemm_alloc: NULL when the size cannot be rounded up or n size overflows");
	}
	{
		float A[2] = { 1.0f, 2.0f }, B[2] = { 3.0f, 4.0f }, C[1] = { 9.0f };

		rfx_sgemm(0, 1, 2, 1.0f, A, 2, B, 1, C, 1);
		rfx_sgemm(1, 1, 0, 1.0f, A, 2, B, 1, C, 1);
		ok(C[0] == 0.0f, "rfx_sgemm: m = 0 leaves C, k = 0 gives C = 0");
	}
	{
		double A[2] = { 1.0, 2.0 }, B[2] = { 3.0, 4.0 }, C[1] = { 9.0 };

		rfx_gemm(0, 1, 2, 1.0, A, 2, B, 1, C, 1);
		rfx_gemm(1, 0, 2, 1.0, A, 2, B, 1, C, 1);
		ok(C[0] == 9.0, "m = 0 or n = 0: C untouched");
		rfx_gemm(1, 1, 0, 1.0, A, 2, B, 1, C, 1);
		ok(C[0] == 0.0, "k = 0: C = 0");
	}
	return done_testing();
}

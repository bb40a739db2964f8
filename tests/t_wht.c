/*
 * Tests for lib/proj/wht.c: the fast transform against the dense Sylvester
 * Hadamard matrix, written out entry by entry from its closed form
 * H_ij = (-1)^popcount(i & j)/sqrt n, on vectors with high-entropy entries;
 * orthogonality (H H v = v); the power-of-2 helpers; the error paths.
 */
#include <math.h>
#include <stdlib.h>

#include "base/err.h"
#include "tap.h"
#include "proj/wht.h"

/* (-1)^popcount(i & j), the sign of the unnormalised Sylvester entry. */
static double sylvester_sign(size_t i, size_t j)
{
	size_t b = i & j;
	int parity = 0;

	while (b) {
		parity ^= (int)(b & 1);
		b >>= 1;
	}
	return parity ? -1.0 : 1.0;
}

static void test_dense(void)
{
	size_t n;

	for (n = 1; n <= 512; n <<= 1) {
		double *v = malloc(n * sizeof(double));
		double *want = malloc(n * sizeof(double));
		double worst = 0.0;
		size_t i, j;

		if (!v || !want) {
			printf("Bail out! out of memory\n");
			exit(1);
		}
		for (i = 0; i < n; i++)
			v[i] = sin(2.385 * (double)(i + 1)) + 0.1 * (double)i;
		for (i = 0; i < n; i++) {
			double s = 0.0;

			for (j = 0; j < n; j++)
				s += sylvester_sign(i, j) * v[j];
			want[i] = s / sqrt((double)n);
		}
		ok(rfx_wht_apply(v, n, NULL) == RFX_OK, "n = %zu: transform runs", n);
		for (i = 0; i < n; i++) {
			double e = fabs(v[i] - want[i]) / (1.0 + fabs(want[i]));

			if (e > worst)
				worst = e;
		}
		ok(worst <= 64 * TEST_TOL0 * log2((double)n + 1.0),
		   "n = %zu: fast transform equals the dense Sylvester product (worst %.2g)",
		   n, worst);
		free(v);
		free(want);
	}
}

static void test_involution(void)
{
	double v[64], v0[64], worst = 0.0;
	int i;

	for (i = 0; i < 64; i++)
		v[i] = v0[i] = cos(1.7 * i * i + 0.3);
	rfx_wht_apply(v, 64, NULL);
	rfx_wht_apply(v, 64, NULL);
	for (i = 0; i < 64; i++)
		if (fabs(v[i] - v0[i]) > worst)
			worst = fabs(v[i] - v0[i]);
	ok(worst < 1e-14, "H H v = v at n = 64 (worst %.2g)", worst);
}

static void test_helpers(void)
{
	ok(rfx_wht_is_pow2(1) && rfx_wht_is_pow2(2) && rfx_wht_is_pow2(1024),
	   "1, 2, 1024 are powers of 2");
	ok(!rfx_wht_is_pow2(0) && !rfx_wht_is_pow2(3) && !rfx_wht_is_pow2(784),
	   "0, 3, 784 are not");
	ok(rfx_wht_next_pow2(1) == 1 && rfx_wht_next_pow2(13) == 16 &&
	   rfx_wht_next_pow2(16) == 16 && rfx_wht_next_pow2(784) == 1024,
	   "next power of 2: 1, 13 -> 16, 16, 784 -> 1024");
	ok(rfx_wht_next_pow2(0) == 0 &&
	   rfx_wht_next_pow2(((size_t)1 << 30) + 1) == 0,
	   "next power of 2 rejects 0 and lengths beyond 2^30");
}

static void test_errors(void)
{
	struct rfx_err err;
	double v[3] = { 2.385, -1.0, 0.5 };

	rfx_err_clear(&err);
	ok(rfx_wht_apply(v, 3, &err) == RFX_EINVAL && v[0] == 2.385 && v[2] == 0.5,
	   "n = 3 is RFX_EINVAL and leaves v alone");
	ok(err.msg[0] != '\0', "with a message: %s", err.msg);
	ok(rfx_wht_apply(v, 0, NULL) == RFX_EINVAL, "n = 0 is RFX_EINVAL");
	ok(rfx_wht_apply(NULL, 4, NULL) == RFX_EINVAL, "no vector is RFX_EINVAL");
}

int main(void)
{
	test_dense();
	test_involution();
	test_helpers();
	test_errors();
	return done_testing();
}

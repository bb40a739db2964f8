/*
 * The fast Walsh-Hadamard transform, in place: log2 n passes of butterflies
 * (a, b) -> (a + b, a - b) over pairs at distance h = 1, 2, 4, ..., which
 * builds the unnormalised Sylvester matrix [H H; H -H] one doubling at a
 * time; one final scaling by 1/sqrt n makes it orthogonal.
 */
#include "proj/wht.h"

#include <math.h>

int rfx_wht_is_pow2(size_t n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

size_t rfx_wht_next_pow2(size_t n)
{
	size_t p = 1;

	if (n < 1 || n > ((size_t)1 << 30))
		return 0;
	while (p < n)
		p <<= 1;
	return p;
}

int rfx_wht_apply(double *v, size_t n, struct rfx_err *err)
{
	size_t h, i, j;
	double s;

	if (!v)
		return rfx_error(err, RFX_EINVAL, "walsh-hadamard transform of no vector");
	if (!rfx_wht_is_pow2(n))
		return rfx_error(err, RFX_EINVAL,
				 "walsh-hadamard transform needs a power-of-2 length, got %zu",
				 n);
	for (h = 1; h < n; h <<= 1)
		for (i = 0; i < n; i += 2 * h)
			for (j = i; j < i + h; j++) {
				double a = v[j], b = v[j + h];

				v[j] = a + b;
				v[j + h] = a - b;
			}
	s = 1.0 / sqrt((double)n);
	for (i = 0; i < n; i++)
		v[i] *= s;
	return RFX_OK;
}

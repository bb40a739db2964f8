/*
 * Sums of squares scaled by a power of 2 (ssq.h): the errors and spreads
 * of the attention and MSE tables, from 1e-300 to 1e300, without
 * overflow or underflow.
 */
#include <limits.h>
#include <math.h>

#include "num/ssq.h"

int rfx_ssq_exp(const double *a, const double *b, double m, size_t n)
{
	double mx = 0.0;
	size_t c;

	for (c = 0; c < n; c++) {
		double t = fabs(a[c] - (b ? b[c] : m));

		mx = t > mx || isnan(t) ? t : mx; /* a NaN stays */
	}
	if (mx == 0.0)
		return INT_MIN;
	return mx < INFINITY ? ilogb(mx) : 0;
}

double rfx_ssq_scaled(const double *a, const double *b, double m, size_t n,
		      int e)
{
	double s = 0.0;
	size_t c;

	if (e == INT_MIN)
		return 0.0;
	for (c = 0; c < n; c++) {
		double t = ldexp(a[c] - (b ? b[c] : m), -e);

		s += t * t;
	}
	return s;
}

double rfx_ssq_sd(const double *x, size_t n, double m)
{
	int e;

	if (n < 2)
		return 0.0;
	e = rfx_ssq_exp(x, NULL, m, n);
	if (e == INT_MIN)
		return 0.0;
	return ldexp(sqrt(rfx_ssq_scaled(x, NULL, m, n, e) / (double)(n - 1)), e);
}

/*
 * Log-domain arithmetic. Variances in the random-feature studies span about
 * e^-1200 to e^+1400, far outside double range, so every closed form is
 * evaluated as a logarithm. These helpers keep the differences that occur
 * there (1 - K^2, e^a - e^b, expm1 of a large argument) exact.
 */
#ifndef RFX_LOGMATH_H
#define RFX_LOGMATH_H

#include <math.h>

/* log(1 - e^a) for a <= 0, accurate for all a (Maechler 2012). -inf at 0. */
static inline double rfx_log1mexp(double a)
{
	if (a >= 0.0)
		return a == 0.0 ? -INFINITY : NAN;
	return a > -M_LN2 ? log(-expm1(a)) : log1p(-exp(a));
}

/* log(e^a - 1) for a >= 0, i.e. log(expm1(a)) without overflow. */
static inline double rfx_logexpm1(double a)
{
	if (a > 36.0)
		return a + log1p(-exp(-a));
	return log(expm1(a));
}

/* log(e^a + e^b). */
static inline double rfx_logaddexp(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -INFINITY)
		return -INFINITY;
	return m + log1p(exp(-fabs(a - b)));
}

/* log(e^a - e^b) for a >= b; -inf when a == b. */
static inline double rfx_logsubexp(double a, double b)
{
	if (b == -INFINITY)
		return a;
	return a + rfx_log1mexp(b - a);
}

/*
 * log(sum_k s_k e^{l_k}) for signs s_k in {-1, 0, +1}, for sums known to be
 * non-negative (a variance written as a difference of moments). Returns
 * -inf for an exact zero; rounding can only push a tiny true value to
 * -inf, never produce NaN.
 */
static inline double rfx_logsum_signed(const double *l, const double *s,
				       int n)
{
	double m = -INFINITY, acc = 0.0;
	int k;

	for (k = 0; k < n; k++)
		if (s[k] != 0.0 && l[k] > m)
			m = l[k];
	if (m == -INFINITY)
		return -INFINITY;
	for (k = 0; k < n; k++)
		if (s[k] != 0.0)
			acc += s[k] * exp(l[k] - m);
	return acc > 0.0 ? m + log(acc) : -INFINITY;
}

#endif

/*
 * Sums of squares that neither overflow nor underflow. Errors and MSEs in
 * the attention and MSE tables reach 1e300 (a square is then inf) and
 * 1e-300 (a square is then 0, and a relative error 0/0). Each difference
 * is scaled by 2^-e, e the binary exponent of the largest one, before it
 * is squared: scaling by a power of 2 is exact, so the result is the
 * plain sum's bits wherever that sum stays in range, and finite where it
 * did not. One pass finds e, one sums.
 *
 * A difference is a_c - b_c, or a_c - m when b is NULL (m = 0: the norm
 * of a; m = the mean: the spread about it).
 */
#ifndef RFX_SSQ_H
#define RFX_SSQ_H

#include <stddef.h>

/*
 * ilogb of max_c |a_c - b_c| over c < n; INT_MIN when every difference
 * is 0 (or n = 0); 0 when one is infinite or NaN, so that the sum is inf
 * or NaN as the plain one is.
 */
int rfx_ssq_exp(const double *a, const double *b, double m, size_t n);

/* sum_c ((a_c - b_c) 2^-e)^2; 0 for e = INT_MIN */
double rfx_ssq_scaled(const double *a, const double *b, double m, size_t n,
		      int e);

/*
 * The sample standard deviation of x[0..n-1] about its mean m,
 * sqrt(sum (x_k - m)^2 / (n - 1)) through the scaled squares; 0 for n < 2.
 */
double rfx_ssq_sd(const double *x, size_t n, double m);

#endif

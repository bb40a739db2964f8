/*
 * The two kernels of the random-feature literature and the map between them.
 *
 *   Gaussian  K(x, y)  = exp(-|x - y|^2 / 2)
 *   softmax   SM(x, y) = exp(x.y)
 *
 * with K(x, y) = exp(-|x|^2/2) SM(x, y) exp(-|y|^2/2). An unbiased estimator
 * of one is an unbiased estimator of the other after multiplying by the
 * deterministic factor, so variances convert with its square:
 *   Var_SM = exp(|x|^2 + |y|^2) Var_K.
 * Everything is in logs (see logmath.h for why).
 */
#ifndef RFX_KERNEL_H
#define RFX_KERNEL_H

/* log K(x, y) for x, y in R^d. */
double rfx_kernel_gauss_log(const double *x, const double *y, int d);

/* log SM(x, y) = x.y for x, y in R^d. */
double rfx_kernel_softmax_log(const double *x, const double *y, int d);

/* log SM from log K, given xx = |x|^2 and yy = |y|^2. */
double rfx_kernel_gauss_to_softmax_log(double log_k, double xx, double yy);

/* log K from log SM, given xx = |x|^2 and yy = |y|^2. */
double rfx_kernel_softmax_to_gauss_log(double log_sm, double xx, double yy);

/* log Var of a softmax estimator from log Var of the Gaussian one. */
double rfx_kernel_var_gauss_to_softmax_log(double logvar_k, double xx,
					   double yy);

/* log Var of a Gaussian estimator from log Var of the softmax one. */
double rfx_kernel_var_softmax_to_gauss_log(double logvar_sm, double xx,
					   double yy);

#endif

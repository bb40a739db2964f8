/*
 * Kernels and the Gaussian/softmax conversion. |x - y|^2 is summed from the
 * differences rather than expanded, so K stays accurate for close points.
 */
#include "num/kernel.h"

double rfx_kernel_gauss_log(const double *x, const double *y, int d)
{
	double dd = 0.0;
	int l;

	for (l = 0; l < d; l++) {
		double z = x[l] - y[l];

		dd += z * z;
	}
	return -0.5 * dd;
}

double rfx_kernel_softmax_log(const double *x, const double *y, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		s += x[l] * y[l];
	return s;
}

double rfx_kernel_gauss_to_softmax_log(double log_k, double xx, double yy)
{
	return log_k + 0.5 * (xx + yy);
}

double rfx_kernel_softmax_to_gauss_log(double log_sm, double xx, double yy)
{
	return log_sm - 0.5 * (xx + yy);
}

double rfx_kernel_var_gauss_to_softmax_log(double logvar_k, double xx,
					   double yy)
{
	return logvar_k + (xx + yy);
}

double rfx_kernel_var_softmax_to_gauss_log(double logvar_sm, double xx,
					   double yy)
{
	return logvar_sm - (xx + yy);
}

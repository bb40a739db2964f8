/*
 * Fast log of the modified Bessel function I0 for the geometric random
 * features, whose variance (thesis eq. 6.19) is a product of d values of
 * I0 per pair: a full L x L variance map needs ~10^10 of them, too many for
 * gsl_sf_bessel_I0_scaled at ~100 ns each.
 *
 * rfx_bessel_sum_log_i0(z, n) returns sum_k log I0(z_k) for z_k >= 0
 * through Chebyshev expansions whose coefficients are computed at start-up
 * from GSL's own I0 (so none are transcribed), evaluated branch-free so the
 * loop vectorises. Accuracy: relative error of each I0 below 1e-13 (tested
 * against GSL over [0, 1e4] and at large z); see tests/t_bessel.c.
 */
#ifndef RFX_BESSEL_H
#define RFX_BESSEL_H

#include <stddef.h>

/* Computes the expansion coefficients; idempotent and thread-safe. */
void rfx_bessel_init(void);

/* log I0(z) for z >= 0 (and I0 is even: |z| is used). */
double rfx_bessel_log_i0(double z);

/*
 * sum_{k<n} log I0(scale * |a_k b_k|): the geometric-variance inner loop.
 * a and b have n entries.
 */
double rfx_bessel_sum_log_i0_prod(const double *a, const double *b,
				  double scale, size_t n);

#endif

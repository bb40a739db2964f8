/*
 * Closed forms of the ORF paper (Yu et al. 2016, "Orthogonal Random
 * Features", ../shared/papers/orthogonal-random-features.txt) for the
 * Gaussian-kernel estimator K^ = (1/D) sum_i cos(w_i . (x - y)) (RFF's
 * TrigRF with D features), as functions of z = |x - y|/sigma, the input
 * dimension d and the number of features D. Blocks hold d columns, the
 * last one truncated (D = m d + r); columns of different blocks are
 * independent, so
 *   Var K^ = (D V1 + P C) / D^2,   P = sum over blocks of k_b (k_b - 1),
 * with V1 the variance of one cos(w . z) and C the covariance of two
 * columns of one block.
 *
 *   RFF    Lemma 1: V1 = (1 - e^{-z^2})^2/2, C = 0.
 *   ORF    w_i = s_i u_i, u_i orthonormal (Haar), s_i ~ chi(d): unbiased
 *          (Theorem 1), V1 as RFF, and, re-derived from the series in the
 *          proof of Lemma 2 (appendix A.3),
 *            E cos(w1.z) cos(w2.z) = 1F1(d; d/2; -z^2/2),
 *          Kummer's function: the inner sum over i of (e) is
 *          sum_i C(k,i) Gamma(h+i) Gamma(h+k-i)/(Gamma(h+k) Gamma(h)) =
 *          (2h)_k/(h)_k with h = d/2 (a Beta integral), so the series is
 *          sum_k (d)_k/(d/2)_k (-z^2/2)^k/k!. Hence C = 1F1 - e^{-z^2}, and
 *          the finite-d variance is exact, not only the bound of Theorem 1.
 *   ORF'   w_i = sqrt(d) u_i (eq. 4): w . z = sqrt(d) z v with v a
 *          coordinate of a uniform unit vector, whose even moments give
 *            m(z) = E cos(w.z) = 0F1(; d/2; -d z^2/4)
 *          (the characteristic function of the uniform law on the sphere
 *          of radius sqrt(d), a Bessel function; Lemma 5 is its
 *          expansion in 1/d), so the bias is m(z) - e^{-z^2/2}; and
 *          V1 = (1 + m(2z))/2 - m(z)^2, C = m(sqrt(2) z) - m(z)^2, since
 *          v1 + v2 has the law of sqrt(2) v1.
 *   limit  eq. 3: for large d and D <= d,
 *            Var ORF / Var RFF ~ 1 - (D - 1)/d e^{-z^2} z^4/(1 - e^{-z^2})^2,
 *          which is 1 - e^{-z^2} z^4/(1 - e^{-z^2})^2 for D = d -> infinity
 *          (Fig 2a).
 *
 * tests/t_orfvar.c checks each form against Monte Carlo of the samplers
 * (lib/proj/proj.h) and the limit against simulation at d = 1024.
 *
 * Valid range: 0 <= z <= RFX_ORFVAR_Z_MAX, 1 <= d <= 100000, D >= 1.
 * Values come with error bounds (a cancellation-free series for small z,
 * GSL's hypergeometric functions beyond); a value whose error exceeds
 * 1e-6 of the variance it goes into (or of the bias) is RFX_ENUMERIC,
 * never returned. In practice the ORF form is accurate for every even d
 * and for odd d up to z = 3; the ORF' form for d <= 1000 and, at larger
 * d, up to z = 3.
 */
#ifndef RFX_ORFVAR_H
#define RFX_ORFVAR_H

#include "base/err.h"

#define RFX_ORFVAR_Z_MAX 6.0

/* Var of RFF with D features (Lemma 1): (1 - e^{-z^2})^2/(2D). */
double rfx_orfvar_rff(double z, int D);

/*
 * Exact Var of ORF with D features in dimension d into *var. RFX_EINVAL
 * outside the valid range, RFX_ENUMERIC when 1F1 is not accurate enough.
 */
int rfx_orfvar_ort(double z, int d, int D, double *var, struct rfx_err *err);

/*
 * The within-block covariance of two ORF columns, C = 1F1(d; d/2; -z^2/2)
 * - e^{-z^2}, into *C with an absolute error bound *cerr; returns a GSL
 * status (nonzero when GSL's 1F1 failed). Used by lib/est/coupvar.c.
 */
int rfx_orfvar_cov(double z, int d, double *C, double *cerr);

/* Eq. 3: the large-d ratio Var ORF / Var RFF; d = 0 means D = d -> infinity. */
double rfx_orfvar_limit_ratio(double z, int d, int D);

/*
 * ORF' (eq. 4): the mean E K^ = m(z) and the exact variance with D
 * features in dimension d. Errors as for rfx_orfvar_ort.
 */
int rfx_orfvar_prime(double z, int d, int D, double *mean, double *var,
		     struct rfx_err *err);

#endif

/*
 * Exact variances of block-coupled projections (ort, simplex, ort-anti;
 * lib/proj/proj.h) for TrigRF, PosRF and OPRF, derived in
 * docs/DERIVATIONS.md ("Coupled projections").
 *
 * With features a_m = f_1(w_m, x) f_2(w_m, y) of M directions in blocks
 * (columns of different blocks independent), the M-feature estimate has
 *   Var = V1/M + sum over ordered same-block pairs (m, m') of
 *         (E a_m a_m' - K^2)/M^2,
 * V1 the variance of one feature (the i.i.d. closed form at M = 1). Two
 * columns w = r u, w' = r' u' of one block have directions at a fixed
 * cosine c (0 for ort and ort-anti, -1/(d-1) for simplex), the pair
 * (u, u') uniformly rotated, and norms either independent chi(d) (ort,
 * simplex, and ort-anti's non-paired columns) or antithetic (ort-anti's
 * columns 2k, 2k+1). Then r u + r' u' has a uniform direction and length
 * rho = sqrt(r^2 + r'^2 + 2c r r'), and
 *
 *   PosRF/OPRF (a = (1-4A)^{d/2} e^{2A|w|^2 + B w.(x+y) - |x|^2 - |y|^2},
 *   B^2 = 1 - 4A), s = |x + y|:
 *     independent norms:  E a a'/K^2 = e^{-s^2} E_phi 1F1(d; d/2; s^2 q(phi)/2),
 *       q = 1 + c sin(phi), phi on [0, pi] with density ~ sin^{d-1} phi
 *       (the polar angle of (r, r'), whose radius is chi(2d)); no A left;
 *     antithetic norms:   E a a'/K^2 = (1-4A)^d e^{-s^2 + ...} E_r [...]
 *       by quadrature over r (docs/DERIVATIONS.md);
 *   TrigRF (a = cos w.(x - y)), z = |x - y|:
 *     E a a' = (E_phi[1F1(d; d/2; -z^2 q+/2)] + E_phi[1F1(d; d/2; -z^2 q-/2)])/2,
 *       q+- = 1 +- c sin(phi) (independent norms), or
 *     E a a' = E_r 0F1(; d/2; -z^2 (r^2 + r'^2)/4) (antithetic, c = 0).
 *
 * At c = 0 with independent norms the phi average is trivial: ort's
 * closed forms (1F1 as in lib/est/orfvar.h, and e^{-s^2} 1F1(d; d/2; s^2/2)
 * for the positive features), which the tests use to check the
 * quadrature. Quadratures are GSL's adaptive Gauss-Kronrod on the
 * integrand divided by its maximum (log domain), to 1e-11 relative.
 */
#ifndef RFX_COUPVAR_H
#define RFX_COUPVAR_H

#include "est/estimator.h"

/*
 * 1 when rfx_coupvar_log_variance has an exact form for estimator e on
 * projection kind proj: e is trig, pos or oprf and proj is iid, ort,
 * simplex or ort-anti.
 */
int rfx_coupvar_has(const struct rfx_estimator_type *e, enum rfx_proj proj);

/*
 * The ordered same-block pairs of M columns in dimension d: *P all of
 * them, sum over blocks of k(k - 1) (blocks of d, the last truncated),
 * and *Panti those with antithetic norms under ort-anti, 2 floor(k/2)
 * per block (0 for other kinds).
 */
void rfx_coupvar_pairs(enum rfx_proj proj, int d, int M, double *P,
		       double *Panti);

/*
 * log(E a a' / K^2) for two positive features (OPRF with real A, PosRF
 * A = 0) at cosine c with independent (anti = 0) or antithetic (anti = 1,
 * c = 0 only) chi(d) norms, s2 = |x + y|^2. RFX_EINVAL for bad arguments,
 * RFX_ENUMERIC when the quadrature does not converge.
 */
int rfx_coupvar_pos_pair(int d, double A, double s2, double c, int anti,
			 double *le, struct rfx_err *err);

/*
 * C = E a a' - K^2 for two TrigRF features at cosine c, independent or
 * antithetic norms, z = |x - y| <= RFX_ORFVAR_Z_MAX, with an absolute
 * error bound *cerr.
 */
int rfx_coupvar_trig_pair(int d, double z, double c, int anti, double *C,
			  double *cerr, struct rfx_err *err);

/*
 * log Var of e's M-feature estimate of the pair (x, y) (d entries each)
 * on projections proj, with e's fitted parameters p. RFX_EINVAL when
 * rfx_coupvar_has(e, proj) is 0; RFX_ENUMERIC when a value is not
 * accurate to 1e-8 of the variance.
 */
int rfx_coupvar_log_variance(const struct rfx_estimator_type *e,
			     const struct rfx_params *p, enum rfx_proj proj,
			     const double *x, const double *y, int M,
			     double *lv, struct rfx_err *err);

#endif

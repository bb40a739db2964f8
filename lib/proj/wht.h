/*
 * The fast Walsh-Hadamard transform: v <- H v for the normalised n x n
 * Hadamard matrix of Sylvester's construction, H_1 = (1),
 * H_2n = [H_n H_n; H_n -H_n] / sqrt 2, so H_ij = (-1)^popcount(i & j) / sqrt n
 * (0-based indices). H is symmetric and orthogonal, H H = I. It is the H of
 * the ORF paper's SORF matrix sqrt(d) H D1 H D2 H D3 (eq. 5), applied in
 * O(n log n) operations in place (the paper's reference [10]).
 */
#ifndef RFX_WHT_H
#define RFX_WHT_H

#include <stddef.h>

#include "base/err.h"

/* 1 when n is a power of 2 (1, 2, 4, ...), else 0. */
int rfx_wht_is_pow2(size_t n);

/* The smallest power of 2 that is >= n, for 1 <= n <= 2^30; 0 otherwise. */
size_t rfx_wht_next_pow2(size_t n);

/*
 * v <- H v for v of length n, in place. RFX_EINVAL when n is not a power
 * of 2 or v is NULL; v is then untouched.
 */
int rfx_wht_apply(double *v, size_t n, struct rfx_err *err);

#endif

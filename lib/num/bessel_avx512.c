/*
 * The AVX-512 kernel of the all-pairs log I0 sums (lib/num/bessel.h,
 * rfx_bessel_sum_log_i0_pairs), in a file of its own beside the portable
 * code of lib/num/bessel.c, as FFTW and BLIS keep their ISA-specific
 * kernels. bessel.c fits the tables and picks this kernel where the CPU
 * has avx512f and fma; bessel_impl.h is what the two share.
 *
 * The all-pairs form for AVX-512, in intrinsics: for tile_row's kinds
 * the same arithmetic, element for element and in the same order, so
 * those sums are bit for bit those of bessel.c's loops; the two kinds of
 * its own (X_24, X_L16, below) take other expansions and agree with them
 * to rounding. It runs in 60-80% of tile_row's time. What
 * GCC makes of tile_row keeps the 64 lanes' products in memory (arrays it
 * does not promote to registers), so each coordinate's loop loads,
 * multiplies and stores all of them, and it sorts the coordinates by kind
 * one at a time in scalar code. Here each kind's loop holds its lanes' accumulators in registers
 * (all 64 products for P; for H the product, z sum and exponent of 16
 * lanes at a time), and the coordinates are classified 8 at a time, their
 * kind lists built with compress instructions. vgetmantpd and vgetexppd
 * split u and renormalise the products (split_u and renorm_lane by
 * hand elsewhere). The exponents are counted in doubles: integers far
 * below 2^53, so the sums are the same.
 */
#include "num/bessel.h"
#include "num/bessel_impl.h"

#ifdef RFX_BESSEL_X86

#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "num/vmath.h"

#define X512 __attribute__((always_inline, target("avx512f,fma"))) inline

/*
 * This kernel's kinds: tile_row's, and X_24, the coordinates whose largest
 * z is at most Z24 with some at most Z0, which tile_row counts as mixed:
 * one P of N24 coefficients instead of P and H (16 and 20, and the split
 * of u), most of the mixed coordinates of the Fig 6.4 sets; and X_L16,
 * the large coordinates whose z are all at least ZL16, where H needs
 * NL16 coefficients instead of NL (u <= 1/2).
 * Chunks of XCHUNK coordinates between the checkpoints: 32 factors of
 * p24 stay in the double range, 64 might not.
 */
enum { X_24 = K_COUNT, X_L16, X_COUNT };
#ifndef XCHUNK
#define XCHUNK 32
#endif

static X512 __m512d x512_chain(const double *c, const int n, const int j,
			       __m512d y)
{
	int m = (n - 1 - j) / 2; /* highest power of y in chain j */
	__m512d s = _mm512_set1_pd(c[2 * m + j]);

#pragma GCC unroll 16
	for (m = m - 1; m >= 0; m--)
		s = _mm512_fmadd_pd(s, y, _mm512_set1_pd(c[2 * m + j]));
	return s;
}

/* poly with fused = 1, on 8 lanes. */
static X512 __m512d x512_poly(const double *c, const int n, __m512d x)
{
	__m512d x2 = _mm512_mul_pd(x, x);

	return _mm512_fmadd_pd(x512_chain(c, n, 1, x2), x,
			       x512_chain(c, n, 0, x2));
}

/* mu in [1, 2) of normal u > 0, as split_u (vgetexppd gives its E). */
static X512 __m512d x512_mant(__m512d u)
{
	return _mm512_getmant_pd(u, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
}

/*
 * renorm_lane on 8 lanes: x to [1, 2), its exponent added to *e; zero
 * and non-finite lanes unchanged.
 */
static X512 __m512d x512_renorm(__m512d x, __m512d *e)
{
	__mmask8 ok = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GT_OQ) &
		      _mm512_cmp_pd_mask(x, _mm512_set1_pd(HUGE_VAL),
					 _CMP_LT_OQ);

	*e = _mm512_mask_add_pd(*e, ok, *e, _mm512_getexp_pd(x));
	return _mm512_mask_mov_pd(x, ok, x512_mant(x));
}

/*
 * One row's partial results for 8 lanes, as tile_row's arrays (its
 * int64_t exponents in doubles). Interleaved so that setting them up is a
 * handful of stores: as separate arrays GCC turned the zeroing into five
 * rep stos, which cost as much as a cheap coordinate.
 */
struct x512_lanes {
	__m512d pf, ph;   /* full and halved products */
	__m512d acc;      /* z sum since the last checkpoint */
	__m512d zs, zc;   /* compensated z sum, its error */
	__m512d ef, eh;   /* exponents of pf, of ph and the u's */
};

/*
 * The coordinates of one kind with P of n coefficients c: for each, t =
 * s^2 B_jl^2 and every lane's product pf times P(t).
 */
static X512 void x512_small(struct x512_lanes *S, const struct pair_tile *T,
			    const double *sv, const int32_t *list, size_t cnt,
			    size_t l0, const double *c, const int n)
{
	__m512d p[8];
	size_t k;
	int v;

	if (!cnt)
		return;
	for (v = 0; v < 8; v++)
		p[v] = S[v].pf;
	for (k = 0; k < cnt; k++) {
		const double *yy = T->yy + (l0 + (size_t)list[k]) * JT;
		double s = sv[list[k]];
		__m512d s2 = _mm512_set1_pd(s * s);

#pragma GCC unroll 8
		for (v = 0; v < 8; v++)
			p[v] = _mm512_mul_pd(
				p[v], x512_poly(c, n, _mm512_mul_pd(
							  s2, _mm512_load_pd(yy + 8 * v))));
	}
	for (v = 0; v < 8; v++)
		S[v].pf = p[v];
}

/*
 * The coordinates of kind K_LARGE (mixed 0), K_MIXED (mixed 1) or X_L16
 * (mixed 2, K_LARGE with every z >= ZL16, a shorter H), as
 * tile_row's loops of those kinds, XL vectors of lanes at a time: with
 * more, their products, sums and exponents and the 20 to 36 coefficients
 * do not fit in the registers, and GCC keeps the accumulators on the
 * stack. sr holds Z0/s of each coordinate of the chunk.
 */
#define XL 2

static X512 void x512_large(struct x512_lanes *S, const struct pair_tile *T,
			    const double *sv, const double *sr,
			    const int32_t *list, size_t cnt, size_t l0,
			    const int mixed)
{
	__m512d q[XL], ac[XL], e[XL];
	const __m512d z0 = _mm512_set1_pd(Z0), tt = _mm512_set1_pd(t_top);
	const __m512d ut = _mm512_set1_pd(u_top), zero = _mm512_setzero_pd();
	const __m512d umin = _mm512_set1_pd(DBL_MIN);
	size_t k;
	int v, h;

	if (!cnt)
		return;
	for (h = 0; h < JT / 8; h += XL) {
		for (v = 0; v < XL; v++) {
			q[v] = S[h + v].ph;
			ac[v] = S[h + v].acc;
			e[v] = S[h + v].eh;
		}
		for (k = 0; k < cnt; k++) {
			size_t o = (l0 + (size_t)list[k]) * JT + 8 * (size_t)h;
			const double *y = T->y + o, *yr = T->yr + o;
			__m512d vs = _mm512_set1_pd(sv[list[k]]);
			__m512d vr = _mm512_set1_pd(sr[list[k]]);

#pragma GCC unroll 4
			for (v = 0; v < XL; v++) {
				/*
				 * An infinite z underflows u to 0, where
				 * split_u reads E = -1023 and mu = 1 and
				 * vgetexppd -inf: from the smallest normal
				 * up both agree, and the z sum carries the
				 * +inf. (max returns u when u is a NaN.)
				 */
				__m512d u = _mm512_max_pd(
					umin, _mm512_mul_pd(vr, _mm512_load_pd(yr + 8 * v)));
				__m512d z = _mm512_mul_pd(vs, _mm512_load_pd(y + 8 * v));
				__m512d f;

				if (mixed == 1) {
					/*
					 * The clamps of tile_row: min and max
					 * return their second operand when
					 * either is a NaN, so a NaN stays.
					 */
					__m512d t = _mm512_min_pd(tt, _mm512_mul_pd(z, z));
					__m512d p;

					u = _mm512_min_pd(ut, u);
					z = _mm512_max_pd(zero, _mm512_sub_pd(z, z0));
					p = x512_poly(pb, NB, t);
					f = _mm512_mul_pd(_mm512_mul_pd(p, p),
							  _mm512_mul_pd(x512_mant(u),
									x512_poly(hl, NL, u)));
				} else if (mixed == 2) {
					f = _mm512_mul_pd(x512_mant(u),
							  x512_poly(hl16, NL16, u));
				} else {
					f = _mm512_mul_pd(x512_mant(u),
							  x512_poly(hl, NL, u));
				}
				q[v] = _mm512_mul_pd(q[v], f);
				ac[v] = _mm512_add_pd(ac[v], z);
				e[v] = _mm512_add_pd(e[v], _mm512_getexp_pd(u));
			}
		}
		for (v = 0; v < XL; v++) {
			S[h + v].ph = q[v];
			S[h + v].acc = ac[v];
			S[h + v].eh = e[v];
		}
	}
}

/* tile_row on AVX-512, with the two kinds of its own (above). */
static X512 void tile_row_x512(const double *a, const struct pair_tile *T,
			       size_t n, double scale, double *out, size_t m)
{
	struct x512_lanes S[JT / 8];    /* lanes 8 v .. 8 v + 7 in S[v] */
	double pv[JT] __attribute__((aligned(64))); /* pf^2 ph, then its log */
	double cnt[X_COUNT] = { 0.0 };  /* coordinates per kind */
	double sv[XCHUNK + 8];          /* s of each coordinate of the chunk */
	double sr[XCHUNK + 8];          /* Z0/s of each */
	int32_t kl[X_COUNT][XCHUNK + 16]; /* the chunk's coordinates by kind */
	size_t nk[X_COUNT], l0, l1, l;
	const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7,
					      6, 5, 4, 3, 2, 1, 0);
	const __m512d vscale = _mm512_set1_pd(scale);
	const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
	int k, v;

	for (v = 0; v < JT / 8; v++) {
		S[v].pf = S[v].ph = one;
		S[v].acc = S[v].zs = S[v].zc = S[v].ef = S[v].eh = zero;
	}
	for (l0 = 0; l0 < n; l0 = l1) {
		size_t n_K_1 = 0, n_K_A = 0, n_K_4 = 0, n_K_B = 0;
		size_t n_K_LARGE = 0, n_K_12 = 0, n_K_MIXED = 0, n_X_24 = 0;
		size_t n_X_L16 = 0;

		l1 = n - l0 < XCHUNK ? n : l0 + XCHUNK;
		/*
		 * The kinds of 8 coordinates at once, by the comparisons of
		 * tile_row (a NaN compares false everywhere and lands in K_1),
		 * appended to the kinds' lists by compressing their indices.
		 */
		for (l = l0; l < l1; l += 8) {
			__mmask8 live = l1 - l >= 8 ? 0xff
						    : (__mmask8)((1u << (l1 - l)) - 1);
			__m512d s = _mm512_mul_pd(
				vscale, _mm512_abs_pd(_mm512_maskz_loadu_pd(live, a + l)));
			__m512d tmax = _mm512_mul_pd(
				_mm512_mul_pd(s, s),
				_mm512_maskz_loadu_pd(live, T->yymax + l));
			__m512d smin = _mm512_mul_pd(
				s, _mm512_maskz_loadu_pd(live, T->ymin + l));
			__m512i fin = _mm512_maskz_loadu_epi32((__mmask16)live,
							       T->fin + l);
			__mmask8 g1, gA, g4, g0, g12, g24, big, big16, skip, act;
			__mmask8 km[X_COUNT];
			__m512i li = _mm512_add_epi32(
				_mm512_set1_epi32((int)(l - l0)), iota);

#define GT(x, c) _mm512_cmp_pd_mask((x), _mm512_set1_pd(c), _CMP_GT_OQ)
			g1 = GT(tmax, Z1 * Z1);
			gA = GT(tmax, ZA * ZA);
			g4 = GT(tmax, Z4 * Z4);
			g0 = GT(tmax, Z0 * Z0);
			g12 = GT(tmax, Z12 * Z12);
			g24 = GT(tmax, Z24 * Z24);
			big = GT(smin, Z0);
			big16 = GT(smin, ZL16);
#undef GT
			/*
			 * Skipped as well: coordinates whose every t is at most
			 * 2^-53, where P(t) = 1 + t/4 + ... rounds to exactly 1
			 * (so skipping them changes nothing), unless a lane is
			 * not finite (it must reach the result). GeomRF+ shifts the
			 * inputs by 1e-8 below their minimum, so the pixels that
			 * are 0 in all MNIST images give such coordinates.
			 */
			skip = (_mm512_cmp_pd_mask(s, zero, _CMP_EQ_OQ) |
				_mm512_cmp_pd_mask(tmax, _mm512_set1_pd(0x1p-53),
						   _CMP_LE_OQ)) &
			       (__mmask8)_mm512_test_epi32_mask(fin, fin);
			act = live & (__mmask8)~skip;
			km[K_1] = act & (__mmask8)~g1;
			km[K_A] = act & g1 & (__mmask8)~gA;
			km[K_4] = act & gA & (__mmask8)~g4;
			km[K_B] = act & g4 & (__mmask8)~g0;
			km[K_LARGE] = act & g0 & big & (__mmask8)~big16;
			km[X_L16] = act & big16;
			km[K_12] = act & g0 & (__mmask8)~big & (__mmask8)~g12;
			km[X_24] = act & g0 & (__mmask8)~big & g12 & (__mmask8)~g24;
			km[K_MIXED] = act & g0 & (__mmask8)~big & g24;
			_mm512_storeu_pd(sv + (l - l0), s);
			/* Z0/s, which only H needs; a division is slow */
			if (km[K_LARGE] | km[K_MIXED] | km[X_L16])
				_mm512_storeu_pd(sr + (l - l0),
						 _mm512_div_pd(_mm512_set1_pd(Z0), s));
			/*
			 * Written out kind by kind, so that the counts stay
			 * in registers (a loop over an array of them went
			 * through memory), and only for the kinds present:
			 * most sets use few of them, so the test is mostly
			 * predicted.
			 */
#define APPEND(k)							\
			if (km[k]) {					\
				__m512i c_ = _mm512_maskz_compress_epi32( \
					(__mmask16)km[k], li);		\
									\
				_mm256_storeu_si256((__m256i *)(kl[k] + n_##k), \
						    _mm512_castsi512_si256(c_)); \
				n_##k += (size_t)__builtin_popcount(km[k]); \
			}
			APPEND(K_1);
			APPEND(K_A);
			APPEND(K_4);
			APPEND(K_B);
			APPEND(K_LARGE);
			APPEND(K_12);
			APPEND(K_MIXED);
			APPEND(X_24);
			APPEND(X_L16);
#undef APPEND
		}
		nk[K_1] = n_K_1;
		nk[K_A] = n_K_A;
		nk[K_4] = n_K_4;
		nk[K_B] = n_K_B;
		nk[K_LARGE] = n_K_LARGE;
		nk[K_12] = n_K_12;
		nk[K_MIXED] = n_K_MIXED;
		nk[X_24] = n_X_24;
		nk[X_L16] = n_X_L16;
		x512_small(S, T, sv, kl[K_1], nk[K_1], l0, p1, N1);
		x512_small(S, T, sv, kl[K_A], nk[K_A], l0, pa, NA);
		x512_small(S, T, sv, kl[K_4], nk[K_4], l0, p4, N4);
		x512_small(S, T, sv, kl[K_B], nk[K_B], l0, pb, NB);
		x512_small(S, T, sv, kl[K_12], nk[K_12], l0, p12, N12);
		x512_small(S, T, sv, kl[X_24], nk[X_24], l0, p24, N24);
		x512_large(S, T, sv, sr, kl[K_LARGE], nk[K_LARGE], l0, 0);
		x512_large(S, T, sv, sr, kl[K_MIXED], nk[K_MIXED], l0, 1);
		x512_large(S, T, sv, sr, kl[X_L16], nk[X_L16], l0, 2);
		for (k = 0; k < X_COUNT; k++)
			cnt[k] += (double)nk[k];
		/*
		 * checkpoint: products back to [1, 2), z sums compensated;
		 * without H in the chunk the z sums and ph have not changed
		 * (the same values as the full step, which would add 0).
		 */
		if (!(nk[K_LARGE] | nk[K_MIXED] | nk[X_L16])) {
			for (v = 0; v < JT / 8; v++)
				S[v].pf = x512_renorm(S[v].pf, &S[v].ef);
			continue;
		}
		for (v = 0; v < JT / 8; v++) {
			__m512d x = S[v].acc, zs = S[v].zs, t = _mm512_add_pd(zs, x);
			__mmask8 first = _mm512_cmp_pd_mask(_mm512_abs_pd(zs),
							    _mm512_abs_pd(x),
							    _CMP_GE_OQ);
			__mmask8 fin = _mm512_cmp_pd_mask(_mm512_abs_pd(t),
							  _mm512_set1_pd(HUGE_VAL),
							  _CMP_LT_OQ);
			__m512d c = _mm512_add_pd(_mm512_sub_pd(x, t), zs);

			c = _mm512_mask_add_pd(c, first, _mm512_sub_pd(zs, t), x);
			S[v].zc = _mm512_mask_add_pd(S[v].zc, fin, S[v].zc, c);
			S[v].zs = t;
			S[v].acc = zero;
			S[v].pf = x512_renorm(S[v].pf, &S[v].ef);
			S[v].ph = x512_renorm(S[v].ph, &S[v].eh);
		}
	}
	{
		double cst = cnt[K_B] * c_b + cnt[K_12] * c_12 +
			     cnt[K_LARGE] * c_l + cnt[K_MIXED] * c_m +
			     cnt[X_24] * c_24 + cnt[X_L16] * c_l;
		const __m512d vc = _mm512_set1_pd(cst), l2 = _mm512_set1_pd(LN2);
		const __m512d half = _mm512_set1_pd(0.5);

		/*
		 * log(pf sqrt(ph)) as log(pf^2 ph)/2: both in [1, 2) after
		 * the checkpoint, so no overflow, and no square root (a
		 * vsqrtpd costs as much as several coordinates' products).
		 */
		for (v = 0; v < JT / 8; v++)
			_mm512_store_pd(pv + 8 * v,
					_mm512_mul_pd(_mm512_mul_pd(S[v].pf, S[v].pf),
						      S[v].ph));
		rfx_vmath_log(pv, pv, JT);
		/* tile_row's sum, in its order */
		for (v = 0; v < JT / 8 && 8 * (size_t)v < m; v++) {
			__m512d r = _mm512_add_pd(_mm512_add_pd(S[v].zs, S[v].zc), vc);
			__mmask8 live = m - 8 * (size_t)v >= 8
						? 0xff
						: (__mmask8)((1u << (m - 8 * (size_t)v)) - 1);

			r = _mm512_add_pd(
				r, _mm512_mul_pd(l2, _mm512_add_pd(
							     S[v].ef,
							     _mm512_mul_pd(half, S[v].eh))));
			r = _mm512_add_pd(r, _mm512_mul_pd(half, _mm512_load_pd(pv + 8 * v)));
			_mm512_mask_storeu_pd(out + 8 * v, live, r);
		}
	}
}

/* pairs_body with tile_row_x512. */
__attribute__((target("avx512f,fma")))
void rfx_bessel_pairs_x512(const double *A, size_t na, const double *B,
		       size_t nb, size_t n, double scale, double *out)
{
	struct pair_tile *T = NULL;
	size_t i, j0;

	scale = fabs(scale);
	if (n > 0 && na >= 4 && nb >= JT / 2)
		T = rfx_bessel_tile_alloc(n);
	if (!T) {
		for (i = 0; i < na; i++)
			rfx_bessel_rows_avx512(A + i * n, B, nb, n, scale, out + i * nb);
		return;
	}
	for (j0 = 0; j0 < nb; j0 += JT) {
		size_t m = nb - j0 < JT ? nb - j0 : JT;

		rfx_bessel_tile_fill_avx512(T, B, j0, m, n);
		for (i = 0; i < na; i++)
			tile_row_x512(A + i * n, T, n, scale, out + i * nb + j0, m);
	}
	rfx_bessel_tile_free(T);
}
#undef X512

#else
/* ISO C wants a declaration in every translation unit. */
typedef int rfx_bessel_avx512_none;
#endif

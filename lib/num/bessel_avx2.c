/*
 * The AVX2 kernel of the all-pairs log I0 sums (lib/num/bessel.h,
 * rfx_bessel_sum_log_i0_pairs), for the x86-64 CPUs that have AVX2 and
 * FMA but not AVX-512 (AMD's Zen 1-3 among them), where this form is the
 * hottest loop of a geometric variance map. bessel.c fits the tables and
 * picks this kernel where the CPU has avx2 and fma; bessel_impl.h is what
 * they share.
 *
 * It is lib/num/bessel_avx512.c's algorithm on 4 lanes a vector (that
 * file's header says why it beats what GCC makes of tile_row): each
 * kind's accumulators in registers, the coordinates of a chunk
 * classified a vector at a time into lists by kind, and that kernel's two
 * extra kinds, X_24 (one P of N24 coefficients for most mixed
 * coordinates) and X_L16 (a shorter H when every z >= ZL16), with
 * checkpoints every XCHUNK = 32 coordinates. On a Zen 3
 * (bench/bench_bessel.c) it takes 25% less time than tile_row for all z >
 * 8, 8% less for z in [0, 30] and for z <= 2, the same for z <= 8: the
 * small kinds are bound by the FMAs of P in both, so keeping products in
 * registers gains little there, and those are most coordinates of the
 * Fig 6.4 sets (about 5% less time in the kernel there, 3-5% in
 * experiments/fig6_4.sh). What AVX2 lacks is made another way:
 * - 16 ymm registers hold 16 x 4 lanes, so each kind's loop runs over its
 *   coordinate list in passes, XS vectors (P) or XH vectors (H) of lanes
 *   at a time (measured, below);
 * - no compress: a 4-bit movemask of a kind's coordinates picks one of
 *   16 byte shuffles that packs their indices to the front (the usual
 *   left-packing table), stored whole at the list's end. Classifying is
 *   a few percent of the time (the FMAs two thirds), so tile_row's scalar
 *   classification could not gain much and was not tried;
 * - no vgetmantpd/vgetexppd: mu and E of u, and the renormalisation of
 *   the products, come from the bits, as split_u and renorm_lane in
 *   bessel.c (so an underflowed u = 0 of an infinite z reads E = -1023
 *   and mu = 1 as there, and needs no clamp);
 * - no int64-to-double conversion: the exponents are summed as int64
 *   lanes (biased, integer adds; the bias comes off once at the end) and
 *   converted at the end by the 1.5 2^52 trick, exact below 2^51;
 * - no masked store worth having: vmaskmovpd to memory is microcoded on
 *   AMD's cores, so a partial vector of results is stored lane by lane.
 * Exponents are integers either way, and the other operations are the
 * AVX-512 kernel's in its order, but for the shortest P (Horner's rule,
 * see x256_small), so the two agree to rounding, as the generic and
 * vector forms of rfx_bessel_sum_log_i0_prod do.
 */
#include "num/bessel.h"
#include "num/bessel_impl.h"

#ifdef RFX_BESSEL_X86

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "num/vmath.h"

#define X256 __attribute__((always_inline, target("avx2,fma"))) inline

/* The AVX-512 kernel's kinds and chunk (bessel_avx512.c says why). */
enum { X_24 = K_COUNT, X_L16, X_COUNT };
#ifndef XCHUNK
#define XCHUNK 32
#endif
#define NV (JT / 4)     /* vectors of lanes in a tile row */

static X256 __m256d x256_chain(const double *c, const int n, const int j,
			       __m256d y)
{
	int m = (n - 1 - j) / 2; /* highest power of y in chain j */
	__m256d s = _mm256_set1_pd(c[2 * m + j]);

#pragma GCC unroll 16
	for (m = m - 1; m >= 0; m--)
		s = _mm256_fmadd_pd(s, y, _mm256_set1_pd(c[2 * m + j]));
	return s;
}

/* poly with fused = 1, on 4 lanes. */
static X256 __m256d x256_poly(const double *c, const int n, __m256d x)
{
	__m256d x2 = _mm256_mul_pd(x, x);

	return _mm256_fmadd_pd(x256_chain(c, n, 1, x2), x,
			       x256_chain(c, n, 0, x2));
}

/* Horner's rule on 4 lanes: one chain of n - 1 FMAs (x256_small). */
static X256 __m256d x256_horner(const double *c, const int n, __m256d x)
{
	__m256d s = _mm256_set1_pd(c[n - 1]);
	int m;

#pragma GCC unroll 32
	for (m = n - 2; m >= 0; m--)
		s = _mm256_fmadd_pd(s, x, _mm256_set1_pd(c[m]));
	return s;
}

/* The fields of a double's bits. */
#define MANT_BITS 0x000fffffffffffffLL
#define ONE_BITS 0x3ff0000000000000LL

/* split_u on 4 lanes: mu from the bits of u, its biased E added to *e. */
static X256 __m256d x256_split(__m256d u, __m256i *e)
{
	__m256i b = _mm256_castpd_si256(u);

	*e = _mm256_add_epi64(*e, _mm256_srli_epi64(b, 52));
	return _mm256_castsi256_pd(_mm256_or_si256(
		_mm256_and_si256(b, _mm256_set1_epi64x(MANT_BITS)),
		_mm256_set1_epi64x(ONE_BITS)));
}

/*
 * renorm_lane on 4 lanes: x to [1, 2), its exponent added to *e; zero
 * and non-finite lanes unchanged.
 */
static X256 __m256d x256_renorm(__m256d x, __m256i *e)
{
	__m256d ok = _mm256_and_pd(
		_mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_GT_OQ),
		_mm256_cmp_pd(x, _mm256_set1_pd(HUGE_VAL), _CMP_LT_OQ));
	__m256i b = _mm256_castpd_si256(x);
	__m256i eb = _mm256_sub_epi64(_mm256_srli_epi64(b, 52),
				      _mm256_set1_epi64x(1023));
	__m256d m = _mm256_castsi256_pd(_mm256_or_si256(
		_mm256_and_si256(b, _mm256_set1_epi64x(MANT_BITS)),
		_mm256_set1_epi64x(ONE_BITS)));

	*e = _mm256_add_epi64(*e, _mm256_and_si256(eb, _mm256_castpd_si256(ok)));
	return _mm256_blendv_pd(x, m, ok);
}

/* int64 lanes below 2^51 in magnitude to double, exactly. */
static X256 __m256d x256_i2d(__m256i e)
{
	const __m256d magic = _mm256_set1_pd(0x1.8p52);

	return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(
				     e, _mm256_castpd_si256(magic))),
			     magic);
}

/*
 * One row's partial results for 4 lanes, as tile_row's arrays,
 * interleaved as in bessel_avx512.c (setting them up is a few stores).
 * eh sums the biased exponents of the u's, the bias is taken off at the
 * end.
 */
struct x256_lanes {
	__m256d pf, ph;   /* full and halved products */
	__m256d acc;      /* z sum since the last checkpoint */
	__m256d zs, zc;   /* compensated z sum, its error */
	__m256i ef, eh;   /* exponents of pf, of ph and the u's */
};

/*
 * The coordinates of one kind with P of n coefficients c: for each, t =
 * s^2 B_jl^2 and every lane's product pf times P(t), XS vectors of lanes
 * per pass over the list (two passes). On a Zen 3, 8 measured 3-5%
 * faster than 4 from z <= 8 up (more independent chains of FMAs; GCC
 * keeps the coefficients in memory operands), 16 no faster, and
 * unrolling the list by 2 gained nothing. These loops are bound by the
 * FMA pipes, so the P of at most HMAX coefficients (z <= 1 and z <= 2,
 * half the coordinates of the Fig 6.4 sets) goes by Horner's rule, one
 * multiplication fewer than poly's two chains: the XS vectors' chains
 * are enough to fill the pipes (8% less time for z <= 2). For longer P
 * the one chain's latency made it slower. Its terms are all positive,
 * so Horner's rule loses nothing either; the rounding differs from
 * tile_row's in the last bits.
 */
#ifndef XS
#define XS 8
#endif
#ifndef HMAX
#define HMAX 9
#endif

static X256 void x256_small(struct x256_lanes *S, const struct pair_tile *T,
			    const double *sv, const int32_t *list, size_t cnt,
			    size_t l0, const double *c, const int n)
{
	__m256d p[XS];
	size_t k;
	int v, h;

	if (!cnt)
		return;
	for (h = 0; h < NV; h += XS) {
		for (v = 0; v < XS; v++)
			p[v] = S[h + v].pf;
		for (k = 0; k < cnt; k++) {
			const double *yy = T->yy + (l0 + (size_t)list[k]) * JT +
					   4 * (size_t)h;
			double s = sv[list[k]];
			__m256d s2 = _mm256_set1_pd(s * s);

#pragma GCC unroll 16
			for (v = 0; v < XS; v++) {
				__m256d t = _mm256_mul_pd(s2, _mm256_load_pd(yy + 4 * v));

				p[v] = _mm256_mul_pd(p[v], n <= HMAX ? x256_horner(c, n, t)
								     : x256_poly(c, n, t));
			}
		}
		for (v = 0; v < XS; v++)
			S[h + v].pf = p[v];
	}
}

/*
 * The coordinates of kind K_LARGE (mixed 0), K_MIXED (mixed 1) or X_L16
 * (mixed 2), as bessel_avx512.c's x512_large, XH vectors of lanes per
 * pass: the product, z sum and exponent of each, and H's 20 coefficients
 * (36 with P) besides. 2 measured faster than 1 and 4 for all z > 8.
 * sr holds Z0/s of each coordinate of the chunk.
 */
#ifndef XH
#define XH 2
#endif

static X256 void x256_large(struct x256_lanes *S, const struct pair_tile *T,
			    const double *sv, const double *sr,
			    const int32_t *list, size_t cnt, size_t l0,
			    const int mixed)
{
	__m256d q[XH], ac[XH];
	__m256i e[XH];
	const __m256d z0 = _mm256_set1_pd(Z0), tt = _mm256_set1_pd(t_top);
	const __m256d ut = _mm256_set1_pd(u_top), zero = _mm256_setzero_pd();
	size_t k;
	int v, h;

	if (!cnt)
		return;
	for (h = 0; h < NV; h += XH) {
		for (v = 0; v < XH; v++) {
			q[v] = S[h + v].ph;
			ac[v] = S[h + v].acc;
			e[v] = S[h + v].eh;
		}
		for (k = 0; k < cnt; k++) {
			size_t o = (l0 + (size_t)list[k]) * JT + 4 * (size_t)h;
			const double *y = T->y + o, *yr = T->yr + o;
			__m256d vs = _mm256_set1_pd(sv[list[k]]);
			__m256d vr = _mm256_set1_pd(sr[list[k]]);

#pragma GCC unroll 4
			for (v = 0; v < XH; v++) {
				__m256d u = _mm256_mul_pd(vr, _mm256_load_pd(yr + 4 * v));
				__m256d z = _mm256_mul_pd(vs, _mm256_load_pd(y + 4 * v));
				__m256d f;

				if (mixed == 1) {
					/*
					 * The clamps of tile_row: min and max
					 * return their second operand when
					 * either is a NaN, so a NaN stays.
					 */
					__m256d t = _mm256_min_pd(tt, _mm256_mul_pd(z, z));
					__m256d p;

					u = _mm256_min_pd(ut, u);
					z = _mm256_max_pd(zero, _mm256_sub_pd(z, z0));
					p = x256_poly(pb, NB, t);
					f = _mm256_mul_pd(_mm256_mul_pd(p, p),
							  _mm256_mul_pd(x256_split(u, &e[v]),
									x256_poly(hl, NL, u)));
				} else if (mixed == 2) {
					f = _mm256_mul_pd(x256_split(u, &e[v]),
							  x256_poly(hl16, NL16, u));
				} else {
					f = _mm256_mul_pd(x256_split(u, &e[v]),
							  x256_poly(hl, NL, u));
				}
				q[v] = _mm256_mul_pd(q[v], f);
				ac[v] = _mm256_add_pd(ac[v], z);
			}
		}
		for (v = 0; v < XH; v++) {
			S[h + v].ph = q[v];
			S[h + v].acc = ac[v];
			S[h + v].eh = e[v];
		}
	}
}

/*
 * The left-packing table: for each 4-bit mask, the byte shuffle that
 * moves the int32 lanes whose bit is set to the front, in order.
 */
#define LP_LANE(i) (4 * (i)), (4 * (i) + 1), (4 * (i) + 2), (4 * (i) + 3)
#define LP_NONE -1, -1, -1, -1
static const int8_t left_pack[16][16] __attribute__((aligned(16))) = {
	{ LP_NONE, LP_NONE, LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_NONE, LP_NONE, LP_NONE },
	{ LP_LANE(1), LP_NONE, LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(1), LP_NONE, LP_NONE },
	{ LP_LANE(2), LP_NONE, LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(2), LP_NONE, LP_NONE },
	{ LP_LANE(1), LP_LANE(2), LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(1), LP_LANE(2), LP_NONE },
	{ LP_LANE(3), LP_NONE, LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(3), LP_NONE, LP_NONE },
	{ LP_LANE(1), LP_LANE(3), LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(1), LP_LANE(3), LP_NONE },
	{ LP_LANE(2), LP_LANE(3), LP_NONE, LP_NONE },
	{ LP_LANE(0), LP_LANE(2), LP_LANE(3), LP_NONE },
	{ LP_LANE(1), LP_LANE(2), LP_LANE(3), LP_NONE },
	{ LP_LANE(0), LP_LANE(1), LP_LANE(2), LP_LANE(3) },
};
#undef LP_LANE
#undef LP_NONE

/* tile_row on AVX2, with the AVX-512 kernel's kinds: its sums. */
static X256 void tile_row_x256(const double *a, const struct pair_tile *T,
			       size_t n, double scale, double *out, size_t m)
{
	struct x256_lanes S[NV];        /* lanes 4 v .. 4 v + 3 in S[v] */
	double pv[JT] __attribute__((aligned(32))); /* pf^2 ph, then its log */
	double cnt[X_COUNT] = { 0.0 };  /* coordinates per kind */
	double nh = 0.0;                /* coordinates of H: 1023 each in eh */
	double sv[XCHUNK + 4];          /* s of each coordinate of the chunk */
	double sr[XCHUNK + 4];          /* Z0/s of each */
	int32_t kl[X_COUNT][XCHUNK + 4]; /* the chunk's coordinates by kind */
	size_t nk[X_COUNT], l0, l1, l;
	const __m256d vscale = _mm256_set1_pd(scale);
	const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
	const __m256d absmask = _mm256_castsi256_pd(
		_mm256_set1_epi64x(0x7fffffffffffffffLL));
	const __m256i izero = _mm256_setzero_si256();
	int k, v;

	for (v = 0; v < NV; v++) {
		S[v].pf = S[v].ph = one;
		S[v].acc = S[v].zs = S[v].zc = zero;
		S[v].ef = S[v].eh = izero;
	}
	for (l0 = 0; l0 < n; l0 = l1) {
		size_t n_K_1 = 0, n_K_A = 0, n_K_4 = 0, n_K_B = 0;
		size_t n_K_LARGE = 0, n_K_12 = 0, n_K_MIXED = 0, n_X_24 = 0;
		size_t n_X_L16 = 0;

		l1 = n - l0 < XCHUNK ? n : l0 + XCHUNK;
		/*
		 * The kinds of 4 coordinates at once, by the comparisons of
		 * bessel_avx512.c (a NaN compares false everywhere and lands
		 * in K_1), as 4-bit masks. The last vector of a chunk loads
		 * only its live coordinates (a, the tile's arrays end with
		 * the row); its other lanes are 0 and out of every mask.
		 */
		for (l = l0; l < l1; l += 4) {
			unsigned live = l1 - l >= 4 ? 0xfu
						    : (1u << (l1 - l)) - 1u;
			__m256i lm = _mm256_cmpgt_epi64(
				_mm256_set1_epi64x((long long)(l1 - l)),
				_mm256_set_epi64x(3, 2, 1, 0));
			__m128i lm32 = _mm_cmpgt_epi32(
				_mm_set1_epi32((int)(l1 - l)),
				_mm_set_epi32(3, 2, 1, 0));
			__m256d s = _mm256_mul_pd(
				vscale, _mm256_and_pd(absmask,
						      _mm256_maskload_pd(a + l, lm)));
			__m256d tmax = _mm256_mul_pd(
				_mm256_mul_pd(s, s),
				_mm256_maskload_pd(T->yymax + l, lm));
			__m256d smin = _mm256_mul_pd(
				s, _mm256_maskload_pd(T->ymin + l, lm));
			__m128i fin = _mm_maskload_epi32(T->fin + l, lm32);
			unsigned g1, gA, g4, g0, g12, g24, big, big16, skip, act;
			unsigned km[X_COUNT];
			__m128i li = _mm_add_epi32(_mm_set1_epi32((int)(l - l0)),
						   _mm_set_epi32(3, 2, 1, 0));

#define GT(x, c)							\
	(unsigned)_mm256_movemask_pd(					\
		_mm256_cmp_pd((x), _mm256_set1_pd(c), _CMP_GT_OQ))
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
			 * Skipped as in bessel_avx512.c: every z is 0 or
			 * every t at most 2^-53 (P(t) rounds to 1), unless a
			 * lane is not finite.
			 */
			skip = (unsigned)_mm256_movemask_pd(_mm256_or_pd(
				       _mm256_cmp_pd(s, zero, _CMP_EQ_OQ),
				       _mm256_cmp_pd(tmax, _mm256_set1_pd(0x1p-53),
						     _CMP_LE_OQ))) &
			       ~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(
				       _mm_cmpeq_epi32(fin, _mm_setzero_si128())));
			act = live & ~skip;
			km[K_1] = act & ~g1;
			km[K_A] = act & g1 & ~gA;
			km[K_4] = act & gA & ~g4;
			km[K_B] = act & g4 & ~g0;
			km[K_LARGE] = act & g0 & big & ~big16;
			km[X_L16] = act & big16;
			km[K_12] = act & g0 & ~big & ~g12;
			km[X_24] = act & g0 & ~big & g12 & ~g24;
			km[K_MIXED] = act & g0 & ~big & g24;
			_mm256_storeu_pd(sv + (l - l0), s);
			/* Z0/s, which only H needs; a division is slow */
			if (km[K_LARGE] | km[K_MIXED] | km[X_L16])
				_mm256_storeu_pd(sr + (l - l0),
						 _mm256_div_pd(_mm256_set1_pd(Z0), s));
			/*
			 * Written out kind by kind, so that the counts stay
			 * in registers, and only for the kinds present (most
			 * sets use few, so the test is mostly predicted).
			 */
#define APPEND(k)							\
			if (km[k]) {					\
				__m128i c_ = _mm_shuffle_epi8(		\
					li, _mm_load_si128(		\
						    (const __m128i *)left_pack[km[k]])); \
									\
				_mm_storeu_si128((__m128i *)(kl[k] + n_##k), c_); \
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
		x256_small(S, T, sv, kl[K_1], nk[K_1], l0, p1, N1);
		x256_small(S, T, sv, kl[K_A], nk[K_A], l0, pa, NA);
		x256_small(S, T, sv, kl[K_4], nk[K_4], l0, p4, N4);
		x256_small(S, T, sv, kl[K_B], nk[K_B], l0, pb, NB);
		x256_small(S, T, sv, kl[K_12], nk[K_12], l0, p12, N12);
		x256_small(S, T, sv, kl[X_24], nk[X_24], l0, p24, N24);
		x256_large(S, T, sv, sr, kl[K_LARGE], nk[K_LARGE], l0, 0);
		x256_large(S, T, sv, sr, kl[K_MIXED], nk[K_MIXED], l0, 1);
		x256_large(S, T, sv, sr, kl[X_L16], nk[X_L16], l0, 2);
		for (k = 0; k < X_COUNT; k++)
			cnt[k] += (double)nk[k];
		nh += (double)(nk[K_LARGE] + nk[K_MIXED] + nk[X_L16]);
		/*
		 * checkpoint: products back to [1, 2), z sums compensated;
		 * without H in the chunk the z sums and ph have not changed
		 * (the same values as the full step, which would add 0).
		 */
		if (!(nk[K_LARGE] | nk[K_MIXED] | nk[X_L16])) {
			for (v = 0; v < NV; v++)
				S[v].pf = x256_renorm(S[v].pf, &S[v].ef);
			continue;
		}
		for (v = 0; v < NV; v++) {
			__m256d x = S[v].acc, zs = S[v].zs, t = _mm256_add_pd(zs, x);
			__m256d first = _mm256_cmp_pd(_mm256_and_pd(absmask, zs),
						      _mm256_and_pd(absmask, x),
						      _CMP_GE_OQ);
			__m256d fin = _mm256_cmp_pd(_mm256_and_pd(absmask, t),
						    _mm256_set1_pd(HUGE_VAL),
						    _CMP_LT_OQ);
			__m256d c = _mm256_blendv_pd(
				_mm256_add_pd(_mm256_sub_pd(x, t), zs),
				_mm256_add_pd(_mm256_sub_pd(zs, t), x), first);

			S[v].zc = _mm256_add_pd(S[v].zc, _mm256_and_pd(fin, c));
			S[v].zs = t;
			S[v].acc = zero;
			S[v].pf = x256_renorm(S[v].pf, &S[v].ef);
			S[v].ph = x256_renorm(S[v].ph, &S[v].eh);
		}
	}
	{
		double cst = cnt[K_B] * c_b + cnt[K_12] * c_12 +
			     cnt[K_LARGE] * c_l + cnt[K_MIXED] * c_m +
			     cnt[X_24] * c_24 + cnt[X_L16] * c_l;
		const __m256d vc = _mm256_set1_pd(cst), l2 = _mm256_set1_pd(LN2);
		const __m256d half = _mm256_set1_pd(0.5);
		const __m256i bias = _mm256_set1_epi64x(1023 * (long long)nh);

		/* log(pf sqrt(ph)) as log(pf^2 ph)/2, as bessel_avx512.c */
		for (v = 0; v < NV; v++)
			_mm256_store_pd(pv + 4 * v,
					_mm256_mul_pd(_mm256_mul_pd(S[v].pf, S[v].pf),
						      S[v].ph));
		rfx_vmath_log(pv, pv, JT);
		/* tile_row's sum, in its order */
		for (v = 0; v < NV && 4 * (size_t)v < m; v++) {
			__m256d r = _mm256_add_pd(_mm256_add_pd(S[v].zs, S[v].zc), vc);
			__m256d eh = x256_i2d(_mm256_sub_epi64(S[v].eh, bias));
			size_t left = m - 4 * (size_t)v;

			r = _mm256_add_pd(
				r, _mm256_mul_pd(l2, _mm256_add_pd(
							     x256_i2d(S[v].ef),
							     _mm256_mul_pd(half, eh))));
			r = _mm256_add_pd(r, _mm256_mul_pd(half, _mm256_load_pd(pv + 4 * v)));
			/*
			 * vmaskmovpd to memory is microcoded on AMD's cores
			 * (16 a row drew 8% of a profile's samples, for 1-2%
			 * of the time): a plain store, and a partial
			 * vector's lanes one by one.
			 */
			if (left >= 4) {
				_mm256_storeu_pd(out + 4 * v, r);
			} else {
				double rv[4] __attribute__((aligned(32)));
				size_t j;

				_mm256_store_pd(rv, r);
				for (j = 0; j < left; j++)
					out[4 * v + j] = rv[j];
			}
		}
	}
}

/* pairs_body with tile_row_x256. */
__attribute__((target("avx2,fma")))
void rfx_bessel_pairs_x256(const double *A, size_t na, const double *B,
			   size_t nb, size_t n, double scale, double *out)
{
	struct pair_tile *T = NULL;
	size_t i, j0;

	scale = fabs(scale);
	if (n > 0 && na >= 4 && nb >= JT / 2)
		T = rfx_bessel_tile_alloc(n);
	if (!T) {
		for (i = 0; i < na; i++)
			rfx_bessel_rows_avx2(A + i * n, B, nb, n, scale, out + i * nb);
		return;
	}
	for (j0 = 0; j0 < nb; j0 += JT) {
		size_t m = nb - j0 < JT ? nb - j0 : JT;

		rfx_bessel_tile_fill_avx2(T, B, j0, m, n);
		for (i = 0; i < na; i++)
			tile_row_x256(A + i * n, T, n, scale, out + i * nb + j0, m);
	}
	rfx_bessel_tile_free(T);
}
#undef X256

#else
/* ISO C wants a declaration in every translation unit. */
typedef int rfx_bessel_avx2_none;
#endif

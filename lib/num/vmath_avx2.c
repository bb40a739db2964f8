/*
 * The AVX2 kernel of vmath.h, for the x86-64 CPUs that have AVX2 and FMA
 * but not AVX-512 (AMD's Zen 1-3, Intel's cores before Skylake-X): what
 * the feature maps spend their time in, exp(x - m), sin and cos in both
 * precisions. The log-domain composites are left NULL, so that vmath.c
 * runs the generic kernel's libmvec loops for them. On a Zen 3 the generic exp pass of the pos map
 * (libmvec's vector exp and the two passes around it that keep it off
 * subnormal lanes) took as long as the map's product. It has no streaming
 * stores: there they made the trig map half as slow again (1.47 against
 * 1.0 times the dgemm; its two output streams), and the exp maps no faster.
 *
 * The reductions and polynomials are the AVX-512 kernel's (lib/num/
 * vmath_avx512.c says why each is what it is; the constants are in
 * num/vmath_poly.h) on 4 doubles or 8 floats, with what AVX2 lacks made
 * another way:
 * - masks are vectors of all-ones lanes (compares, and, blendv), and the
 *   lanes that leave the common path are found by movemask; the sign and
 *   swap of sin and cos by n mod 4 are n's two low bits shifted into the
 *   sign bit;
 * - double exp's 2^(j/16) table (vpermt2pd reads 16 entries from two
 *   registers; AVX2 has no such lookup, and two gathers a vector cost
 *   more than they save) gives way to e^r on |r| <= log(2)/2 by vexpm1's
 *   Taylor series to r^13 (the next term is below 2^-57 relative), and
 *   2^k (vscalefpd) to adding k to e^r's exponent field, exact where the
 *   result is normal: u = x - m in [-707.5, 709]. Lanes below -745.2 are
 *   0 in the common path (the DIRFs' rows have many); a vector with a
 *   lane between (subnormal results), above 709, or NaN sends those lanes
 *   to glibc's scalar exp, out of line;
 * - float exp's 2^k (k up to 128, whose exponent field would overflow)
 *   is two factors 2^(k/2), normal floats: exact, and +inf above 88.72.
 * Where they compute the same operations in the same order (sin and cos
 * of both precisions, float exp) the results are the AVX-512 kernel's
 * bits; double exp differs from it in the last bits, as the generic
 * kernel does (rfx_isa_describe names the kernel in use).
 */
#include "num/vmath_x86.h"

#ifdef RFX_VMATH_X86

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "num/logmath.h"
#include "num/vmath_poly.h"

#define X256 static inline __attribute__((always_inline, target("avx2,fma")))
#define T256 __attribute__((target("avx2,fma")))

/*
 * The templates' precision macros (as num/avx512_tmpl.h's for 512 bits):
 * S is the intrinsics' suffix, pd (4 doubles a vector) or ps (8 floats).
 */
#define OP(S, X) X##_##S
#define TY_pd double
#define TY_ps float
#define VEC_pd __m256d
#define VEC_ps __m256
#define W_pd 4
#define W_ps 8
#define TY(S) TY_##S
#define VEC(S) VEC_##S
#define W(S) W_##S
#define SET1I_pd _mm256_set1_epi64x
#define SET1I_ps _mm256_set1_epi32
#define SLLI_pd _mm256_slli_epi64
#define SLLI_ps _mm256_slli_epi32
#define TOP_pd 63 /* bits from bit 0 to the sign bit */
#define TOP_ps 31

/*
 * SINCOS_VECS and EXP_VECS vectors a step, their chains interleaved: each
 * step of the chain is done for all of them before the next. One vector's
 * sincos is a chain of about 20 dependent operations (some 55 cycles) for
 * 25 FMA-port operations (13 cycles on two ports). On a Zen 3 the
 * out-of-order window held about two such chains, and one vector a step
 * ran at 28 cycles. On 2048 arguments in L1 (the best of 30 runs, 6
 * rounds), four a step ran sincos at 0.81 of one a step, exp at 0.84 to
 * 0.92, expf at 0.81, sincosf within the noise; two a step, sincos as four
 * and exp at 0.92; eight spilled. Inside the trig map, where the two
 * output streams go to memory, four a step (more spills: stores waiting
 * behind the output's) was 5% slower than one, two as one: hence 2 for
 * sincos, 4 for exp. The lanes' bits are the same.
 */
#define SINCOS_VECS 2
#define EXP_VECS 4
#define EACH(u, n) _Pragma("GCC unroll 4") for ((u) = 0; (u) < (n); (u)++)
#define EACH_SINCOS(u) EACH(u, SINCOS_VECS)
#define EACH_EXP(i) EACH(i, EXP_VECS)

/*
 * horner_S(c, n, nv, w, p): p[u] = sum_k c[k] w[u]^k, k < n, u < nv.
 *
 * vsincos_S: sin and cos of the lanes of x[u] with |x| <= FAR; the others
 * are left to the caller. n, the integer nearest x 2/pi, is in the low
 * bits of k; where r is 0, x is +-0 (n = 0) and sin r is x itself, so that
 * sin(-0) is -0 where the sum gives +0. (The AVX-512 kernel copies r's sign
 * onto the sum instead, the same bits on a CPU; but valgrind, where this
 * kernel runs on AVX-512 hosts too, gives -0 for x - 0 P1 at x = +0, and
 * sin(+0) came out -0 there.) n mod 4 = 1 or 3 swaps sin and cos (blendv
 * reads the sign bit: bit 0 of n moved there), sin x is negated for n mod
 * 4 = 2, 3 (bit 1) and cos x for 1, 2 (the xor of the two).
 *
 * sincos_lanes_S (vmath_poly.h): the far lanes through glibc.
 * sincos_group_S: SINCOS_VECS whole vectors. sincos_array_S: the
 * array loop, the tail through a padded copy.
 */
#define DEFINE_SINCOS(S)						\
	X256 void OP(S, horner)(const TY(S) *c, const int n, const int nv, \
				const VEC(S) *w, VEC(S) *p)		\
	{								\
		int m, u;						\
									\
		_Pragma("GCC unroll 4")					\
		for (u = 0; u < nv; u++)				\
			p[u] = _mm256_set1_##S(c[n - 1]);		\
		_Pragma("GCC unroll 16")				\
		for (m = n - 2; m >= 0; m--) {				\
			_Pragma("GCC unroll 4")				\
			for (u = 0; u < nv; u++)			\
				p[u] = _mm256_fmadd_##S(p[u], w[u],	\
							_mm256_set1_##S(c[m])); \
		}							\
	}								\
									\
	X256 void OP(S, vsincos)(const VEC(S) *x, VEC(S) *sp, VEC(S) *cp) \
	{								\
		const VEC(S) shift = _mm256_set1_##S(OP(S, SHIFT));	\
		const VEC(S) sign = _mm256_castsi256_##S(OP(S, SET1I)(OP(S, SIGN))); \
		VEC(S) k[SINCOS_VECS], n[SINCOS_VECS], r[SINCOS_VECS];	\
		VEC(S) w[SINCOS_VECS], s[SINCOS_VECS], c[SINCOS_VECS];	\
		int u;							\
									\
		EACH_SINCOS(u) k[u] = _mm256_fmadd_##S(x[u],		\
			_mm256_set1_##S(OP(S, TWO_OVER_PI)), shift);	\
		EACH_SINCOS(u) n[u] = _mm256_sub_##S(k[u], shift);	\
		EACH_SINCOS(u) r[u] = _mm256_fnmadd_##S(n[u],		\
			_mm256_set1_##S(OP(S, PIO2_1)), x[u]);		\
		EACH_SINCOS(u) r[u] = _mm256_fnmadd_##S(n[u],		\
			_mm256_set1_##S(OP(S, PIO2_2)), r[u]);		\
		EACH_SINCOS(u) r[u] = _mm256_fnmadd_##S(n[u],		\
			_mm256_set1_##S(OP(S, PIO2_3)), r[u]);		\
		EACH_SINCOS(u) w[u] = _mm256_mul_##S(r[u], r[u]);	\
		OP(S, horner)(OP(S, SQ), NELEM(OP(S, SQ)), SINCOS_VECS, w, \
			      s);					\
		OP(S, horner)(OP(S, CQ), NELEM(OP(S, CQ)), SINCOS_VECS, w, \
			      c);					\
		EACH_SINCOS(u) {					\
			__m256i q = _mm256_cast##S##_si256(k[u]);	\
			VEC(S) ss, cc, swap, ns;			\
									\
			ss = _mm256_fmadd_##S(_mm256_mul_##S(r[u], w[u]), s[u], \
					      r[u]);			\
			cc = _mm256_fmadd_##S(_mm256_mul_##S(w[u], w[u]), c[u], \
				_mm256_fnmadd_##S(_mm256_set1_##S(0.5), w[u], \
						  _mm256_set1_##S(1.0))); \
			ss = _mm256_blendv_##S(ss, x[u], _mm256_cmp_##S(r[u], \
				_mm256_setzero_##S(), _CMP_EQ_OQ));	\
			swap = _mm256_castsi256_##S(OP(S, SLLI)(q, OP(S, TOP))); \
			ns = _mm256_and_##S(_mm256_castsi256_##S(	\
				OP(S, SLLI)(q, OP(S, TOP) - 1)), sign);	\
			sp[u] = _mm256_xor_##S(_mm256_blendv_##S(ss, cc, swap), \
					       ns);			\
			cp[u] = _mm256_xor_##S(_mm256_blendv_##S(cc, ss, swap), \
				_mm256_xor_##S(ns, _mm256_and_##S(swap, sign))); \
		}							\
	}								\
									\
	DEFINE_SINCOS_LANES(S)						\
									\
	X256 void OP(S, sincos_group)(TY(S) *s, TY(S) *c, const TY(S) *x) \
	{								\
		const VEC(S) sign = _mm256_castsi256_##S(OP(S, SET1I)(OP(S, SIGN))); \
		VEC(S) v[SINCOS_VECS], vs[SINCOS_VECS], vc[SINCOS_VECS]; \
		int far[SINCOS_VECS], any = 0, u;			\
									\
		EACH_SINCOS(u) {					\
			v[u] = _mm256_loadu_##S(x + u * W(S));		\
			far[u] = _mm256_movemask_##S(_mm256_cmp_##S(	\
				_mm256_andnot_##S(sign, v[u]),		\
				_mm256_set1_##S(OP(S, FAR)), _CMP_NLE_UQ)); \
			any |= far[u];					\
		}							\
		OP(S, vsincos)(v, vs, vc);				\
		EACH_SINCOS(u) {					\
			_mm256_storeu_##S(s + u * W(S), vs[u]);		\
			_mm256_storeu_##S(c + u * W(S), vc[u]);		\
		}							\
		if (any) {						\
			TY(S) xs[SINCOS_VECS * W(S)];			\
									\
			EACH_SINCOS(u)					\
				_mm256_storeu_##S(xs + u * W(S), v[u]);	\
			for (u = 0; u < SINCOS_VECS; u++)		\
				if (far[u])				\
					OP(S, sincos_lanes)(s + u * W(S), \
						c + u * W(S), xs + u * W(S), \
						far[u]);		\
		}							\
	}								\
									\
	X256 void OP(S, sincos_array)(TY(S) *s, TY(S) *c, const TY(S) *x, \
				      size_t n)				\
	{								\
		const size_t step = SINCOS_VECS * W(S);			\
		size_t k;						\
									\
		for (k = 0; k + step <= n; k += step)			\
			OP(S, sincos_group)(s + k, c + k, x + k);	\
		if (k < n) {						\
			TY(S) xb[SINCOS_VECS * W(S)] = { 0 };		\
			TY(S) sb[SINCOS_VECS * W(S)],			\
			      cb[SINCOS_VECS * W(S)];			\
									\
			memcpy(xb, x + k, (n - k) * sizeof(TY(S)));	\
			OP(S, sincos_group)(sb, cb, xb);		\
			memcpy(s + k, sb, (n - k) * sizeof(TY(S)));	\
			memcpy(c + k, cb, (n - k) * sizeof(TY(S)));	\
		}							\
	}

/*
 * exp_array_S(y, x, m, n): y = exp(x - m) by VEXPS (EXP_VECS vectors a
 * step, as sincos), the tail through a copy padded with m.
 */
#define DEFINE_EXP_ARRAY(S)						\
	X256 void OP(S, exp_group)(TY(S) *y, const TY(S) *x, VEC(S) vm)	\
	{								\
		VEC(S) u[EXP_VECS], e[EXP_VECS];			\
		int i;							\
									\
		EACH_EXP(i) u[i] = _mm256_sub_##S(			\
			_mm256_loadu_##S(x + i * W(S)), vm);		\
		OP(S, VEXPS)(u, e);					\
		EACH_EXP(i) _mm256_storeu_##S(y + i * W(S), e[i]);	\
	}								\
									\
	X256 void OP(S, exp_array)(TY(S) *y, const TY(S) *x, TY(S) m,	\
				   size_t n)				\
	{								\
		const size_t step = EXP_VECS * W(S);			\
		VEC(S) vm = _mm256_set1_##S(m);				\
		size_t k, l;						\
									\
		for (k = 0; k + step <= n; k += step)			\
			OP(S, exp_group)(y + k, x + k, vm);		\
		if (k < n) {						\
			TY(S) b[EXP_VECS * W(S)];			\
									\
			for (l = 0; l < step; l++)			\
				b[l] = k + l < n ? x[k + l] : m;	\
			OP(S, exp_group)(b, b, vm);			\
			memcpy(y + k, b, (n - k) * sizeof(TY(S)));	\
		}							\
	}

DEFINE_SINCOS(pd)
DEFINE_SINCOS(ps)

#define EXP_BAND_LO -707.5 /* from here up 2^k e^r is normal */
#define EXP_BAND_HI 709.0  /* and up to here finite, k <= 1023 */
#define EXP_ZERO_BELOW -745.2 /* e^u < 2^-1075: 0 */

/*
 * sum_k c[k] r^k, k < 12, by Estrin's scheme: pairs, then pairs of pairs
 * with r^2, r^4 and r^8. Horner's chain of 11 dependent FMAs set the pace
 * of the exp loop (the samples sat at its end; Tables 6.2-6.3 spend a
 * quarter of their time there); this one is 5 deep, for 3 more products.
 * For EXP_VECS vectors r[i] into p[i], a step at a time (4 a step ran the exp
 * loop at 0.84 of one a step).
 */
_Static_assert(NELEM(eq) == 12, "estrin12 reads vexpm1's 12 coefficients");

X256 void estrin12(const double *c, const __m256d *r, __m256d *p)
{
	__m256d r2[EXP_VECS], r4[EXP_VECS], r8[EXP_VECS];
	__m256d e0[EXP_VECS], e1[EXP_VECS], e2[EXP_VECS];
	int i;

#define PAIR(j) \
	_mm256_fmadd_pd(_mm256_set1_pd(c[j + 1]), r[i], _mm256_set1_pd(c[j]))
	EACH_EXP(i) r2[i] = _mm256_mul_pd(r[i], r[i]);
	EACH_EXP(i) r4[i] = _mm256_mul_pd(r2[i], r2[i]);
	EACH_EXP(i) r8[i] = _mm256_mul_pd(r4[i], r4[i]);
	EACH_EXP(i) e0[i] = _mm256_fmadd_pd(PAIR(2), r2[i], PAIR(0));
	EACH_EXP(i) e1[i] = _mm256_fmadd_pd(PAIR(6), r2[i], PAIR(4));
	EACH_EXP(i) e2[i] = _mm256_fmadd_pd(PAIR(10), r2[i], PAIR(8));
#undef PAIR
	EACH_EXP(i) p[i] = _mm256_fmadd_pd(e2[i], r8[i],
				       _mm256_fmadd_pd(e1[i], r4[i], e0[i]));
}

/* 2^k e^r for u[i] in [EXP_BAND_LO, EXP_BAND_HI] (or 0) */
X256 void vexp_band(const __m256d *u, __m256d *e)
{
	__m256d s[EXP_VECS], kd[EXP_VECS], r[EXP_VECS], p[EXP_VECS];
	__m256i k52[EXP_VECS];
	int i;

	EACH_EXP(i) s[i] = _mm256_fmadd_pd(u[i], _mm256_set1_pd(1.0 / RFX_LN2),
				       _mm256_set1_pd(SHIFT_pd));
	EACH_EXP(i) kd[i] = _mm256_sub_pd(s[i], _mm256_set1_pd(SHIFT_pd));
	/* s's significand is 2^51 + k: shifted up by 52, k's own bits */
	EACH_EXP(i) k52[i] = _mm256_slli_epi64(_mm256_castpd_si256(s[i]),
						 52);
	EACH_EXP(i) r[i] = _mm256_fnmadd_pd(kd[i],
					   _mm256_set1_pd(exp_ln2_hi), u[i]);
	EACH_EXP(i) r[i] = _mm256_fnmadd_pd(kd[i],
					   _mm256_set1_pd(exp_ln2_lo), r[i]);
	estrin12(eq, r, p);
	EACH_EXP(i) p[i] = _mm256_add_pd(_mm256_fmadd_pd(_mm256_mul_pd(r[i], r[i]),
						     p[i], r[i]),
				     _mm256_set1_pd(1.0));
	EACH_EXP(i) e[i] = _mm256_castsi256_pd(_mm256_add_epi64(
		_mm256_castpd_si256(p[i]), k52[i]));
}

/*
 * the lanes of u not in done through glibc's scalar exp (out of line:
 * rare; compiled for the baseline, where GCC does not make the loop a
 * call of libmvec's vector exp)
 */
__attribute__((noinline)) static void exp_lanes(double *e, const double *u,
						int done)
{
	int l;

	for (l = 0; l < 4; l++)
		if (!(done >> l & 1))
			e[l] = exp(u[l]);
}

/*
 * e[i] = exp(u[i]) for EXP_VECS vectors. A group whose lanes are all
 * below EXP_ZERO_BELOW is +0 throughout without the series, as the
 * common path would make it: a fifth of the DIRFs' exp lanes in
 * uci-classify are there, more than half of them in such groups.
 */
X256 void vexp_group(const __m256d *u, __m256d *e)
{
	__m256d band[EXP_VECS], a[EXP_VECS];
	int done[EXP_VECS], all = 0xf, zeros = 0xf, i;

	EACH_EXP(i) {
		__m256d zero = _mm256_cmp_pd(u[i], _mm256_set1_pd(EXP_ZERO_BELOW),
					     _CMP_LT_OQ);

		band[i] = _mm256_and_pd(
			_mm256_cmp_pd(u[i], _mm256_set1_pd(EXP_BAND_LO), _CMP_GE_OQ),
			_mm256_cmp_pd(u[i], _mm256_set1_pd(EXP_BAND_HI), _CMP_LE_OQ));
		done[i] = _mm256_movemask_pd(_mm256_or_pd(band[i], zero));
		all &= done[i];
		zeros &= _mm256_movemask_pd(zero);
		/* lanes out of the band are computed at u = 0, then cleared */
		a[i] = _mm256_and_pd(u[i], band[i]);
	}
	if (zeros == 0xf) {
		EACH_EXP(i) e[i] = _mm256_setzero_pd();
		return;
	}
	vexp_band(a, e);
	EACH_EXP(i) e[i] = _mm256_and_pd(e[i], band[i]);
	if (__builtin_expect(all != 0xf, 0)) {
		for (i = 0; i < EXP_VECS; i++)
			if (done[i] != 0xf) {
				double ev[4], uv[4];

				_mm256_storeu_pd(ev, e[i]);
				_mm256_storeu_pd(uv, u[i]);
				exp_lanes(ev, uv, done[i]);
				e[i] = _mm256_loadu_pd(ev);
			}
	}
}

/*
 * e[i] = expf(u[i]) for EXP_VECS vectors: vmath_avx512.c's vexpf, 2^k as
 * 2^(k - k/2) 2^(k/2)
 */
X256 void vexpf_group(const __m256 *u, __m256 *e)
{
	__m256 live[EXP_VECS], k[EXP_VECS], r[EXP_VECS];
	__m256 h[EXP_VECS], p[EXP_VECS];
	__m256i ki, k1, k2;
	int i;

	EACH_EXP(i) {
		__m256 uc = _mm256_min_ps(_mm256_set1_ps(88.8f),
					  _mm256_max_ps(_mm256_set1_ps(-87.33f), u[i]));

		live[i] = _mm256_cmp_ps(u[i], _mm256_set1_ps(-87.33f), _CMP_NLT_UQ);
		k[i] = _mm256_round_ps(_mm256_mul_ps(uc, _mm256_set1_ps(FLOG2E)),
				       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
		r[i] = _mm256_fnmadd_ps(k[i], _mm256_set1_ps(FLN2_HI), uc);
	}
	EACH_EXP(i) r[i] = _mm256_fnmadd_ps(k[i], _mm256_set1_ps(FLN2_LO),
					   r[i]);
	horner_ps(feq, NELEM(feq), EXP_VECS, r, h);
	EACH_EXP(i) p[i] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(r[i], r[i]),
						     h[i], r[i]),
				     _mm256_set1_ps(1.0f));
	EACH_EXP(i) {
		ki = _mm256_cvtps_epi32(k[i]);
		k1 = _mm256_srai_epi32(ki, 1);
		k2 = _mm256_sub_epi32(ki, k1);
		k1 = _mm256_slli_epi32(_mm256_add_epi32(k1, _mm256_set1_epi32(127)), 23);
		k2 = _mm256_slli_epi32(_mm256_add_epi32(k2, _mm256_set1_epi32(127)), 23);
		e[i] = _mm256_and_ps(live[i], _mm256_mul_ps(_mm256_mul_ps(
			p[i], _mm256_castsi256_ps(k1)), _mm256_castsi256_ps(k2)));
	}
}

#define VEXPS_pd vexp_group
#define VEXPS_ps vexpf_group
DEFINE_EXP_ARRAY(pd)
DEFINE_EXP_ARRAY(ps)

T256 static void sincos_avx2(double *s, double *c, const double *x, size_t n)
{
	sincos_array_pd(s, c, x, n);
}

T256 static void sincosf_avx2(float *s, float *c, const float *x, size_t n)
{
	sincos_array_ps(s, c, x, n);
}

T256 static void exp_shift_avx2(double *y, const double *x, double m, size_t n)
{
	exp_array_pd(y, x, m, n);
}

T256 static void expf_shift_avx2(float *y, const float *x, float m, size_t n)
{
	exp_array_ps(y, x, m, n);
}

#undef DEFINE_SINCOS
#undef DEFINE_EXP_ARRAY
#undef EACH
#undef EACH_SINCOS
#undef EACH_EXP
#undef SINCOS_VECS
#undef EXP_VECS
#undef VEXPS_pd
#undef VEXPS_ps
#undef X256
#undef T256

/* no streaming stores: the plain functions stand in (vmath_x86.h) */
const struct rfx_vmath_kernel rfx_vmath_avx2 = {
	"avx2", NULL, NULL, NULL,
	sincos_avx2, exp_shift_avx2, sincosf_avx2, expf_shift_avx2,
	NULL, NULL, NULL, NULL
};

#else
/* ISO C wants a declaration in every translation unit. */
typedef int rfx_vmath_avx2_none;
#endif

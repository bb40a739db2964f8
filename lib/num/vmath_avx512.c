/*
 * The AVX-512 kernel of vmath.h (lib/num/vmath.c holds the portable one
 * and picks the kernel the CPU runs), in a file of its own as FFTW and
 * BLIS keep their ISA-specific kernels beside the portable code: every
 * function here is compiled for avx512f and fma and is reached only
 * through rfx_vmath_avx512, after __builtin_cpu_supports("avx512f").
 *
 * log x: x = m 2^k with m in [1, 2) (vgetmantpd,
 * vgetexppd); the top 4 bits of m's fraction pick c_j near 1/m from a
 * 16-entry table held in two registers (vpermt2pd), so that r = m c_j - 1
 * (one FMA, rounded once) is small, and
 *   log x = k log 2 - log c_j + log1p(r),
 * log1p(r) = r + r^2 q(r) from its Taylor series (coefficients +-1/k; 14
 * terms are below 1e-17 relative for |r| <= 1/16). The table (c_j, and
 * -log c_j in two parts) is computed at start-up from logl. Two entries
 * are exact so that log x keeps its relative accuracy next to 1: c_0 = 1
 * (m just above 1: r = m - 1) and c_15 = 1/2 with -log c_15 = log 2 split
 * as for k (m just below 2, x just below a power of 2: the two cancel
 * exactly). The other entries leave |r| <= 1/32, these two |r| <= 1/16.
 *
 * expm1 a: a = k log 2 + r with |r| <= log(2)/2, e^r - 1 = r + r^2 q(r)
 * (Taylor, 13 terms), and e^a - 1 = 2 (s (e^r - 1) + s - 1/2) with s =
 * 2^(k-1): one FMA, s - 1/2 exact for k >= -53, r itself for k = 0 (tiny
 * a stay exact), and no overflow of s up to log(DBL_MAX); below k = -53,
 * 2^k e^r - 1 in one FMA.
 *
 * The composites evaluate expm1 and log in one pass over registers; the
 * loops over lib/num/logmath.h call two libmvec functions per vector. Vectors
 * whose arguments are all far from 0 take shorter ways (X512_ARRAY).
 */
#include "num/vmath_x86.h"

#ifdef RFX_VMATH_X86

#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "num/avx512_tmpl.h"
#include "num/logmath.h"
#include "num/vmath_poly.h"


/* Tables, written once by init_once and read-only after. */
static double tab_c[16] __attribute__((aligned(64)));  /* c_j */
static double tab_th[16] __attribute__((aligned(64))); /* -log c_j, high */
static double tab_tl[16] __attribute__((aligned(64))); /* and low part */
static double ln2_hi, ln2_lo; /* log 2; ln2_hi has 21 bits, so k ln2_hi is exact */
static double tab_eh[16] __attribute__((aligned(64))); /* 2^(j/16), high */
static double tab_el[16] __attribute__((aligned(64))); /* and the rest */

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
	long double l2 = logl(2.0L);
	uint64_t u;
	int j;

	ln2_hi = (double)l2;
	memcpy(&u, &ln2_hi, sizeof u);
	u &= ~(((uint64_t)1 << 32) - 1);
	memcpy(&ln2_hi, &u, sizeof u);
	ln2_lo = (double)(l2 - ln2_hi);
	for (j = 0; j < 16; j++) {
		long double e = exp2l(j / 16.0L);

		tab_eh[j] = (double)e;
		tab_el[j] = (double)(e - tab_eh[j]);
	}
	for (j = 0; j < 16; j++) {
		long double t;

		if (j == 0) {
			tab_c[j] = 1.0;
			tab_th[j] = tab_tl[j] = 0.0;
			continue;
		}
		if (j == 15) {
			tab_c[j] = 0.5;
			tab_th[j] = ln2_hi;
			tab_tl[j] = ln2_lo;
			continue;
		}
		/* 1/m at the middle of [1 + j/16, 1 + (j+1)/16) */
		tab_c[j] = (double)(1.0L / (1.0L + (j + 0.5L) / 16.0L));
		t = -logl((long double)tab_c[j]);
		tab_th[j] = (double)t;
		tab_tl[j] = (double)(t - tab_th[j]);
	}
}

#define X512 static inline __attribute__((always_inline, target("avx512f,fma")))

/* sum_k c[k] x^k, k < n, as even and odd parts (bessel.c's poly). */
X512 __m512d poly(const double *c, const int n, __m512d x)
{
	__m512d x2 = _mm512_mul_pd(x, x), e, o;
	int m;

	e = _mm512_set1_pd(c[2 * ((n - 1) / 2)]);
#pragma GCC unroll 16
	for (m = (n - 1) / 2 - 1; m >= 0; m--)
		e = _mm512_fmadd_pd(e, x2, _mm512_set1_pd(c[2 * m]));
	o = _mm512_set1_pd(c[2 * ((n - 2) / 2) + 1]);
#pragma GCC unroll 16
	for (m = (n - 2) / 2 - 1; m >= 0; m--)
		o = _mm512_fmadd_pd(o, x2, _mm512_set1_pd(c[2 * m + 1]));
	return _mm512_fmadd_pd(o, x, e);
}

/* (log1p(r) - r)/r^2 = -1/2 + r/3 - r^2/4 + ..., to r^11/13 */
static const double lq[12] = {
	-1.0 / 2, 1.0 / 3, -1.0 / 4,  1.0 / 5,  -1.0 / 6,  1.0 / 7,
	-1.0 / 8, 1.0 / 9, -1.0 / 10, 1.0 / 11, -1.0 / 12, 1.0 / 13,
};


/* The tables in registers, loaded once per call. */
struct vtab {
	__m512d c0, c1, th0, th1, tl0, tl1;
};

X512 void vtab_load(struct vtab *t)
{
	t->c0 = _mm512_load_pd(tab_c);
	t->c1 = _mm512_load_pd(tab_c + 8);
	t->th0 = _mm512_load_pd(tab_th);
	t->th1 = _mm512_load_pd(tab_th + 8);
	t->tl0 = _mm512_load_pd(tab_tl);
	t->tl1 = _mm512_load_pd(tab_tl + 8);
}

X512 __m512d vlog(__m512d x, const struct vtab *t)
{
	__m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
	__m512d k = _mm512_getexp_pd(x);
	/* bits 48-51 of m, the top 4 bits of its fraction (vpermt2pd reads 4) */
	__m512i j = _mm512_srli_epi64(_mm512_castpd_si512(m), 48);
	__m512d c = _mm512_permutex2var_pd(t->c0, j, t->c1);
	__m512d th = _mm512_permutex2var_pd(t->th0, j, t->th1);
	__m512d tl = _mm512_permutex2var_pd(t->tl0, j, t->tl1);
	__m512d r = _mm512_fmsub_pd(m, c, _mm512_set1_pd(1.0));
	__m512d hi = _mm512_fmadd_pd(k, _mm512_set1_pd(ln2_hi), th);
	__m512d lo = _mm512_fmadd_pd(k, _mm512_set1_pd(ln2_lo), tl);
	__m512d res;

	lo = _mm512_fmadd_pd(_mm512_mul_pd(r, r), poly(lq, 12, r), lo);
	res = _mm512_add_pd(hi, _mm512_add_pd(r, lo));
	/*
	 * The arithmetic gives -inf for +-0 (k = -inf, m = 0), +inf for +inf
	 * and NaN for NaN; below 0 it would give a finite value.
	 */
	return _mm512_mask_mov_pd(res,
				  _mm512_cmp_pd_mask(x, _mm512_setzero_pd(),
						     _CMP_LT_OQ),
				  _mm512_set1_pd(NAN));
}

/* r = a - k log 2 with k the integer nearest a / log 2 (k ln2_hi exact) */
X512 __m512d reduce_ln2(__m512d a, __m512d *k)
{
	*k = _mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(1.0 / RFX_LN2)),
				  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	return _mm512_fnmadd_pd(*k, _mm512_set1_pd(ln2_lo),
				_mm512_fnmadd_pd(*k, _mm512_set1_pd(ln2_hi), a));
}

X512 __m512d vexpm1(__m512d a)
{
	/* max and min return a when it is a NaN (their second operand) */
	__m512d ac = _mm512_min_pd(_mm512_set1_pd(709.79),
				   _mm512_max_pd(_mm512_set1_pd(-60.0), a));
	__m512d k, r = reduce_ln2(ac, &k);
	__m512d p, s;

	p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), poly(eq, 12, r), r);
	s = _mm512_scalef_pd(_mm512_set1_pd(0.5), k);
	/*
	 * Below k = -53, s - 1/2 is no longer exact; there e^a < 2^-53 and
	 * 2^k (1 + p) - 1 in one FMA rounds -1 + e^a as it should.
	 */
	return _mm512_mask_mov_pd(
		_mm512_mul_pd(_mm512_set1_pd(2.0),
			      _mm512_fmadd_pd(s, p, _mm512_sub_pd(s, _mm512_set1_pd(0.5)))),
		_mm512_cmp_pd_mask(k, _mm512_set1_pd(-53.0), _CMP_LT_OQ),
		_mm512_fmadd_pd(_mm512_add_pd(s, s),
				_mm512_add_pd(p, _mm512_set1_pd(1.0)),
				_mm512_set1_pd(-1.0)));
}

/* log(1 - e^a) = log(-expm1(a)) */
X512 __m512d vlog1mexp(__m512d a, const struct vtab *t)
{
	return vlog(_mm512_sub_pd(_mm512_setzero_pd(), vexpm1(a)), t);
}

/* log(e^a - 1) = a + log(1 - e^-a) */
X512 __m512d vlogexpm1(__m512d a, const struct vtab *t)
{
	return _mm512_add_pd(a, vlog1mexp(_mm512_sub_pd(_mm512_setzero_pd(), a), t));
}

/* -log(1 - w)/w = 1 + w/2 + w^2/3 + ..., to w^11/12 */
static const double wq[12] = {
	1.0,     1.0 / 2, 1.0 / 3, 1.0 / 4,  1.0 / 5,  1.0 / 6,
	1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12,
};

/*
 * log(1 - e^a) for a <= -3.5: w = e^a <= 0.0302 and log(1 - w) = -w (1 +
 * w/2 + ...), whose 12 terms reach 2^-54 relative: no expm1 and no log,
 * about 40% fewer operations. e^a = 2^k e^r, e^r = 1 + r + r^2 q(r).
 * (a below the double range gives 2^k = 0, and 0.)
 */
X512 __m512d vlog1mexp_mid(__m512d a)
{
	__m512d ac = _mm512_max_pd(_mm512_set1_pd(-800.0), a);
	__m512d k, r = reduce_ln2(ac, &k);
	__m512d er, w;

	er = _mm512_add_pd(_mm512_set1_pd(1.0),
			   _mm512_fmadd_pd(_mm512_mul_pd(r, r), poly(eq, 12, r), r));
	w = _mm512_scalef_pd(er, k);
	return _mm512_mul_pd(_mm512_sub_pd(_mm512_setzero_pd(), w),
			     poly(wq, 12, w));
}

X512 __m512d vlogexpm1_mid(__m512d a)
{
	return _mm512_add_pd(a, vlog1mexp_mid(_mm512_sub_pd(_mm512_setzero_pd(), a)));
}

/*
 * The array loop of kernel F, the tail through masked loads and stores.
 * SHORT(v) is a mask of the lanes where F's value is known without it
 * and VAL(v) that value, MID(v) of those where FMID(v) gives it more
 * cheaply: 8 such lanes take that way.
 */
#define X512_ARRAY(NAME, F, SHORT, VAL, MID, FMID)			\
	__attribute__((target("avx512f,fma")))				\
	static void NAME(double *y, const double *x, size_t n)		\
	{								\
		struct vtab t;						\
		size_t k;						\
									\
		pthread_once(&once, init_once);				\
		vtab_load(&t);						\
		for (k = 0; k + 8 <= n; k += 8) {			\
			__m512d v = _mm512_loadu_pd(x + k), r;		\
									\
			if (SHORT(v) == 0xff)				\
				r = VAL(v);				\
			else if (MID(v) == 0xff)			\
				r = FMID(v);				\
			else						\
				r = F(v, &t);				\
			_mm512_storeu_pd(y + k, r);			\
		}							\
		if (k < n) {						\
			__mmask8 m = (__mmask8)((1u << (n - k)) - 1);	\
									\
			_mm512_mask_storeu_pd(y + k, m,			\
				F(_mm512_maskz_loadu_pd(m, x + k), &t)); \
		}							\
	}

/*
 * From a = 37 on, 1 - e^-a rounds to 1 or to 1 - 2^-53, whose log (0 or
 * -2^-53) does not move a: log(e^a - 1) is a, bit for bit what the full
 * evaluation gives. Likewise log(1 - e^a) is 0 from a = -37 down (with
 * -2^-53 left between -37.4 and -36.7, so the cut is at -37.5). The
 * variance maps of large inputs (most pairs of the normal and
 * heterogeneous Fig 6.4 sets from gamma = 0.5 or 0.7 on) have all their
 * exponents there.
 */
#define NONE(v) ((__mmask8)0)
#define SAME(v) (v)
#define BIG(v) _mm512_cmp_pd_mask((v), _mm512_set1_pd(37.5), _CMP_GE_OQ)
#define VERY_NEG(v) _mm512_cmp_pd_mask((v), _mm512_set1_pd(-37.5), _CMP_LE_OQ)
#define ZERO(v) _mm512_setzero_pd()
#define OVER(v) _mm512_cmp_pd_mask((v), _mm512_set1_pd(3.5), _CMP_GE_OQ)
#define UNDER(v) _mm512_cmp_pd_mask((v), _mm512_set1_pd(-3.5), _CMP_LE_OQ)

X512_ARRAY(log_avx512, vlog, NONE, SAME, NONE, SAME)
X512_ARRAY(logexpm1_avx512, vlogexpm1, BIG, SAME, OVER, vlogexpm1_mid)
X512_ARRAY(log1mexp_avx512, vlog1mexp, VERY_NEG, ZERO, UNDER, vlog1mexp_mid)

#undef NONE
#undef SAME
#undef BIG
#undef VERY_NEG
#undef ZERO
#undef OVER
#undef UNDER

/*
 * sin and cos (vsincos_pd). x = n pi/2 + r with n the integer nearest x
 * 2/pi and |r| <= pi/4 (a little more where x 2/pi rounds across a half):
 * pi/2 = P1 + P2 + P3 (its binary expansion cut after 33, 66 and 119 bits;
 * bc -l's pi to 80 digits), so that for |n| < 2^20 the products n P1 and n
 * P2 are exact, x - n P1 is exact, and r = x - n P1 - n P2 - n P3 is
 * rounded twice: within an ulp of r even next to a multiple of pi/2, where
 * r is at least 2^-61 for such x. (That ulp can be 2 ulp of sin r, a
 * binade below r: 2.4 ulp in all were measured over 4e7 arguments up to
 * 2^20. Keeping r's rounding error as a second word halves that, for 15%
 * more operations; libmvec itself promises 4 ulp, and a random feature map
 * does not notice either.) sin r = r + r^3 S(r^2) and cos r = 1 - r^2/2 +
 * r^4 C(r^2), S and C Chebyshev fits on r^2 in [0, 0.62] (mpmath, 50
 * digits: tools/fit_sincos.py), whose own errors are below 0.06 and 0.01
 * ulp. The bits of n mod 4 pick and negate the two. Lanes with |x| > 2^20,
 * inf or NaN take glibc's scalar sin and cos. About 32 vector operations
 * per 8 pairs: the two FMA ports set the pace, so every one counts.
 * P1-P3, S and C are in num/vmath_poly.h (the AVX2 kernel's too).
 */

/*
 * Single precision, 16 lanes: the same reductions in float with FMA.
 *
 * sin and cos (vsincos_ps): n the integer nearest x 2/pi (the shift 1.5
 * 2^23 leaves it in the low bits), r = x - n P1 - n P2 - n P3 with pi/2 =
 * P1 + P2 + P3 + O(2^-73) in floats, all three positive (so that x = -0
 * keeps r = -0 and sin(-0) = -0). The first FMA is exact (n P1 is exact inside
 * it and x - n P1, a multiple of 2^-24 below 1 in modulus, fits in 24
 * bits), the next two round once each, so r is within about an ulp of
 * itself for |x| <= 2^16; beyond, glibc's sinf and cosf. sin r = r +
 * r^3 S(r^2) and cos r = 1 - r^2/2 + r^4 C(r^2), S and C of degree 2,
 * Chebyshev fits in floats on r^2 in [0, 0.62] (tools/fit_sincos.py
 * --float: 0.22 and 0.015 ulp of their own).
 *
 * exp(u) (vexpf), u = x - m: u = k log 2 + r, |r| <= log(2)/2 (k L1 exact
 * inside the FMA), e^r = 1 + r + r^2 q(r) with q of degree 4 (Chebyshev,
 * tools/fit_sincos.py --float: 0.18 ulp), 2^k by vscalefps. Lanes below
 * -87.33 are 0: e^u would be subnormal, and any operation producing one
 * costs a microcode assist (see vexp); u is clamped to [-87.33, 88.8]
 * first, which keeps -inf from making r a NaN (a NaN passes through).
 * The floats P1-P3, S, C and q are in num/vmath_poly.h.
 */

/*
 * sin, cos and the array loops written once for both precisions, as
 * lib/num/gemm.c's DEFINE_GEMM: S is the intrinsics' suffix, pd (double,
 * 8 lanes) or ps (float, 16), and the types (num/avx512_tmpl.h), the
 * integer forms of the sign tricks and each precision's constants follow
 * from it (OP(S, X) is X_pd or X_ps). Each expansion is the code the
 * precision had when it was written out on its own: the same operations
 * in the same order.
 */
#define OP(S, X) X##_##S
#define SET1I_pd _mm512_set1_epi64
#define SET1I_ps _mm512_set1_epi32
#define TERNLOG_pd _mm512_ternarylogic_epi64
#define TERNLOG_ps _mm512_ternarylogic_epi32
#define TESTM_pd _mm512_test_epi64_mask
#define TESTM_ps _mm512_test_epi32_mask
#define XORM_pd _mm512_mask_xor_epi64
#define XORM_ps _mm512_mask_xor_epi32

/*
 * horner_S(c, n, w) = sum_k c[k] w^k, k < n, Horner.
 *
 * vsincos_S: sin and cos of the lanes with |x| <= FAR; the others are
 * left to the caller. sin r takes the sign of r (one operation, "sign ?
 * r : s"), which makes sin(-0) -0 where the sum gives +0. n mod 4 = 1 or
 * 3: sin x = +-cos r, cos x = -+sin r; sin x is negated for 2 and 3, cos
 * x for 1 and 2 (the xor of the two bits).
 *
 * sincos_lanes_S (vmath_poly.h): the far lanes through glibc.
 *
 * sincos_vec_S: W lanes under mask m; nt: whole aligned vectors go out by
 * streaming stores (the caller checks alignment and passes nt only for
 * a full mask). sincos_array_S: the array loop; nt: streaming stores
 * where s and c are on 64-byte lines.
 */
#define DEFINE_SINCOS(S)						\
	X512 VEC(S) OP(S, horner)(const TY(S) *c, const int n, VEC(S) w) \
	{								\
		VEC(S) p = _mm512_set1_##S(c[n - 1]);			\
		int m;							\
									\
		_Pragma("GCC unroll 16")				\
		for (m = n - 2; m >= 0; m--)				\
			p = _mm512_fmadd_##S(p, w, _mm512_set1_##S(c[m])); \
		return p;						\
	}								\
									\
	X512 void OP(S, vsincos)(VEC(S) x, VEC(S) *sp, VEC(S) *cp)	\
	{								\
		const VEC(S) shift = _mm512_set1_##S(OP(S, SHIFT));	\
		const __m512i sign = OP(S, SET1I)(OP(S, SIGN));		\
		VEC(S) k = _mm512_fmadd_##S(x, _mm512_set1_##S(OP(S, TWO_OVER_PI)), \
					    shift);			\
		VEC(S) n = _mm512_sub_##S(k, shift);			\
		__m512i q = _mm512_cast##S##_si512(k);			\
		VEC(S) r = _mm512_fnmadd_##S(n, _mm512_set1_##S(OP(S, PIO2_1)), x); \
		VEC(S) w, s, c, ss, cc;					\
		MASK(S) swap, ns;					\
									\
		r = _mm512_fnmadd_##S(n, _mm512_set1_##S(OP(S, PIO2_2)), r); \
		r = _mm512_fnmadd_##S(n, _mm512_set1_##S(OP(S, PIO2_3)), r); \
		w = _mm512_mul_##S(r, r);				\
		s = _mm512_fmadd_##S(_mm512_mul_##S(r, w),		\
				     OP(S, horner)(OP(S, SQ), NELEM(OP(S, SQ)), w), r); \
		c = _mm512_fmadd_##S(_mm512_mul_##S(w, w),		\
				     OP(S, horner)(OP(S, CQ), NELEM(OP(S, CQ)), w), \
				     _mm512_fnmadd_##S(_mm512_set1_##S(0.5), w, \
						       _mm512_set1_##S(1.0))); \
		s = _mm512_castsi512_##S(OP(S, TERNLOG)(		\
			_mm512_cast##S##_si512(s), _mm512_cast##S##_si512(r), \
			sign, 0xd8));					\
		swap = OP(S, TESTM)(q, OP(S, SET1I)(1));		\
		ns = OP(S, TESTM)(q, OP(S, SET1I)(2));			\
		ss = _mm512_mask_blend_##S(swap, s, c);			\
		cc = _mm512_mask_blend_##S(swap, c, s);			\
		*sp = _mm512_castsi512_##S(OP(S, XORM)(			\
			_mm512_cast##S##_si512(ss), ns,			\
			_mm512_cast##S##_si512(ss), sign));		\
		*cp = _mm512_castsi512_##S(OP(S, XORM)(			\
			_mm512_cast##S##_si512(cc), (MASK(S))(ns ^ swap), \
			_mm512_cast##S##_si512(cc), sign));		\
	}								\
									\
	DEFINE_SINCOS_LANES(S)						\
									\
	X512 void OP(S, sincos_vec)(TY(S) *s, TY(S) *c, const TY(S) *x, \
				    MASK(S) m, int nt)			\
	{								\
		VEC(S) v = _mm512_maskz_loadu_##S(m, x), vs, vc;	\
		MASK(S) far = _mm512_cmp_##S##_mask(			\
			_mm512_abs_##S(v), _mm512_set1_##S(OP(S, FAR)),	\
			_CMP_NLE_UQ) & m;				\
									\
		OP(S, vsincos)(v, &vs, &vc);				\
		if (far) {						\
			TY(S) xs[W(S)], ss[W(S)], cs[W(S)];		\
									\
			_mm512_storeu_##S(xs, v);			\
			_mm512_storeu_##S(ss, vs);			\
			_mm512_storeu_##S(cs, vc);			\
			OP(S, sincos_lanes)(ss, cs, xs, far);		\
			vs = _mm512_loadu_##S(ss);			\
			vc = _mm512_loadu_##S(cs);			\
		}							\
		if (nt) {						\
			_mm512_stream_##S(s, vs);			\
			_mm512_stream_##S(c, vc);			\
			return;						\
		}							\
		_mm512_mask_storeu_##S(s, m, vs);			\
		_mm512_mask_storeu_##S(c, m, vc);			\
	}								\
									\
	X512 void OP(S, sincos_array)(TY(S) *s, TY(S) *c, const TY(S) *x, \
				      size_t n, int nt)			\
	{								\
		size_t k;						\
									\
		nt = nt && !(((uintptr_t)s | (uintptr_t)c) & 63);	\
		for (k = 0; k + W(S) <= n; k += W(S))			\
			OP(S, sincos_vec)(s + k, c + k, x + k,		\
					  (MASK(S))((1ull << W(S)) - 1), nt); \
		if (k < n)						\
			OP(S, sincos_vec)(s + k, c + k, x + k,		\
					  (MASK(S))((1u << (n - k)) - 1), 0); \
	}

/*
 * exp_array_S(y, x, m, n, nt): y = exp(x - m) by VEXP, W lanes a step,
 * the tail through masked loads and stores; nt: streaming stores where y
 * is on a 64-byte line.
 */
#define DEFINE_EXP_ARRAY(S)						\
	X512 void OP(S, exp_array)(TY(S) *y, const TY(S) *x, TY(S) m,	\
				   size_t n, int nt)			\
	{								\
		VEC(S) vm = _mm512_set1_##S(m);				\
		size_t k;						\
									\
		if (nt && !((uintptr_t)y & 63)) {			\
			for (k = 0; k + W(S) <= n; k += W(S))		\
				_mm512_stream_##S(y + k, OP(S, VEXP)(_mm512_sub_##S( \
					_mm512_loadu_##S(x + k), vm))); \
		} else							\
			for (k = 0; k + W(S) <= n; k += W(S))		\
				_mm512_storeu_##S(y + k, OP(S, VEXP)(_mm512_sub_##S( \
					_mm512_loadu_##S(x + k), vm))); \
		if (k < n) {						\
			MASK(S) t = (MASK(S))((1u << (n - k)) - 1);	\
									\
			_mm512_mask_storeu_##S(y + k, t, OP(S, VEXP)(_mm512_sub_##S( \
				_mm512_maskz_loadu_##S(t, x + k), vm))); \
		}							\
	}

DEFINE_SINCOS(pd)
DEFINE_SINCOS(ps)

__attribute__((target("avx512f,fma")))
static void sincos_avx512(double *s, double *c, const double *x, size_t n)
{
	sincos_array_pd(s, c, x, n, 0);
}

__attribute__((target("avx512f,fma")))
static void sincos_nt_avx512(double *s, double *c, const double *x, size_t n)
{
	sincos_array_pd(s, c, x, n, 1);
}

__attribute__((target("avx512f,fma")))
static void sincosf_avx512(float *s, float *c, const float *x, size_t n)
{
	sincos_array_ps(s, c, x, n, 0);
}

__attribute__((target("avx512f,fma")))
static void sincosf_nt_avx512(float *s, float *c, const float *x, size_t n)
{
	sincos_array_ps(s, c, x, n, 1);
}

/*
 * exp(x - m): u = x - m = (k + j/16) log 2 + r with j = 0..15 and |r| <=
 * log(2)/32, so that e^u = 2^k 2^(j/16) e^r: 2^(j/16) from a 16-entry
 * table held in two registers (vpermt2pd), in a high part and the rest
 * (tab_eh, tab_el: computed at start-up from exp2l), e^r - 1 = r + r^2
 * q(r) with q the first six terms of vexpm1's Taylor series (the next
 * is below 2^-59 relative at r = log(2)/32), and 2^k by vscalefpd (+inf
 * above the range). The high part is multiplied in last, 2^(j/16) e^r =
 * hi + (hi (e^r - 1) + lo), so that only that sum rounds at the scale of
 * the result (about half an ulp in all). The series on |r| <= log(2)/2
 * (thirteen terms) took 26 vector operations a vector where this takes
 * 19, and a quarter of the pos map's time.
 *
 * k + j/16 comes from one FMA: u/log 2 + 1.5 2^48 rounds to a multiple
 * of 1/16, whose last four bits of significand are j (vpermt2pd reads
 * just those) and whose integer part is k once 1.5 2^48 is taken off
 * (vscalefpd takes the floor itself). r = u - (k + j/16) ln2_hi is exact
 * in one FMA (where k + j/16 is not 0, a multiple of 2^-58 below 2^-5
 * in magnitude); ln2_lo's term rounds it once.
 *
 * No operation here may produce a subnormal or underflow: each costs a
 * microcode assist of about a hundred cycles, and the DIRFs' rows span
 * thousands, so that 1-3% of their lanes fall in the subnormal band
 * (that made libmvec's kernel faster than this one's first version in
 * Tables 6.2-6.3). Lanes below -745.2 are 0 (e^-745.2 < 2^-1075): the
 * common path computes them at -707.5 and masks them, since the DIRFs'
 * rows have many (sending their vectors out of line made Tables 6.2-6.3
 * half as slow again). Vectors with a lane in [-745.2, -707.5), where
 * 2^k reaches 2^-1022, end in vexp_low, out of the common path, which
 * puts subnormal results together from their integer significand; every
 * lane's p and k are computed alike before, so the other lanes get the
 * same bits either way. Above, u is capped at 710 (e^710 is +inf) so
 * that +inf does not make r a NaN; a NaN passes through (the cap
 * returns its second operand).
 */
#define EXP_SHIFT16 0x1.8p48 /* its ulp is 1/16 */
#define EXP_LOW -707.5       /* k <= -1022 only below */

/* 2^(k + j/16) e^r for a vector of u capped to [-745.2, 710]: its
 * significand (sig) and k + j/16 (kj: vscalefpd's floor gives k). */
X512 __m512d vexp_sig(__m512d u, __m512d *kj)
{
	__m512d s = _mm512_fmadd_pd(u, _mm512_set1_pd(1.0 / RFX_LN2),
				    _mm512_set1_pd(EXP_SHIFT16));
	__m512i j = _mm512_castpd_si512(s);
	__m512d r, p, hi;

	*kj = _mm512_sub_pd(s, _mm512_set1_pd(EXP_SHIFT16));
	r = _mm512_fnmadd_pd(*kj, _mm512_set1_pd(exp_ln2_hi), u);
	r = _mm512_fnmadd_pd(*kj, _mm512_set1_pd(exp_ln2_lo), r);
	p = _mm512_fmadd_pd(_mm512_set1_pd(eq[5]), r, _mm512_set1_pd(eq[4]));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(eq[3]));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(eq[2]));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(eq[1]));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(eq[0]));
	p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), p, r); /* e^r - 1 */
	hi = _mm512_permutex2var_pd(_mm512_load_pd(tab_eh), j,
				    _mm512_load_pd(tab_eh + 8));
	return _mm512_add_pd(hi, _mm512_fmadd_pd(hi, p, _mm512_permutex2var_pd(
		_mm512_load_pd(tab_el), j, _mm512_load_pd(tab_el + 8))));
}

/*
 * vexp's end for a vector with a lane in [-745.2, EXP_LOW) (out of line:
 * rare): p 2^k from the significand p and kj of every lane, 0 where live
 * is clear.
 */
__attribute__((noinline, target("avx512f,fma")))
static __m512d vexp_low(__m512d p, __m512d kj, __mmask8 live)
{
	__mmask8 sub = _mm512_cmp_pd_mask(kj, _mm512_set1_pd(-1021.0),
					  _CMP_LT_OQ) & live;
	__m512d t;
	__m512i bits;

	/*
	 * Subnormal results: the integer t = p 2^(k + 1074), rounded once
	 * (roundscale), is the subnormal's significand; its bits come from
	 * t + 2^52 (t < 2^52; t = 2^52 gives DBL_MIN). Lanes with t >= 2^52
	 * are normal and stay with vscalefpd.
	 */
	t = _mm512_maskz_scalef_pd(sub, p, _mm512_add_pd(kj, _mm512_set1_pd(1074.0)));
	t = _mm512_roundscale_pd(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	sub &= _mm512_cmp_pd_mask(t, _mm512_set1_pd(0x1p52), _CMP_LE_OQ);
	bits = _mm512_sub_epi64(
		_mm512_castpd_si512(_mm512_add_pd(t, _mm512_set1_pd(0x1p52))),
		_mm512_castpd_si512(_mm512_set1_pd(0x1p52)));
	return _mm512_maskz_mov_pd(
		live, _mm512_mask_mov_pd(
			_mm512_scalef_pd(p, _mm512_mask_mov_pd(
				kj, sub, _mm512_setzero_pd())),
			sub, _mm512_castsi512_pd(bits)));
}

X512 __m512d vexp(__m512d u)
{
	/* u >= -745.2 or NaN: the others are 0, computed at EXP_LOW */
	__mmask8 live = _mm512_cmp_pd_mask(u, _mm512_set1_pd(-745.2), _CMP_NLT_UQ);
	__m512d kj, p = vexp_sig(_mm512_min_pd(_mm512_set1_pd(710.0),
					       _mm512_mask_mov_pd(_mm512_set1_pd(EXP_LOW),
								  live, u)),
				 &kj);

	if (__builtin_expect(_mm512_mask_cmp_pd_mask(live, u, _mm512_set1_pd(EXP_LOW),
						     _CMP_LT_OQ) != 0, 0))
		return vexp_low(p, kj, live);
	return _mm512_maskz_scalef_pd(live, p, kj);
}

X512 __m512 vexpf(__m512 u)
{
	__mmask16 live = _mm512_cmp_ps_mask(u, _mm512_set1_ps(-87.33f),
					    _CMP_NLT_UQ);
	__m512 uc = _mm512_min_ps(_mm512_set1_ps(88.8f),
				  _mm512_max_ps(_mm512_set1_ps(-87.33f), u));
	__m512 k = _mm512_roundscale_ps(
		_mm512_mul_ps(uc, _mm512_set1_ps(FLOG2E)),
		_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(FLN2_HI), uc);
	__m512 p;

	r = _mm512_fnmadd_ps(k, _mm512_set1_ps(FLN2_LO), r);
	p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(r, r),
					  horner_ps(feq, 5, r), r),
			  _mm512_set1_ps(1.0f));
	return _mm512_maskz_mov_ps(live, _mm512_scalef_ps(p, k));
}

DEFINE_EXP_ARRAY(pd)
DEFINE_EXP_ARRAY(ps)

__attribute__((target("avx512f,fma")))
static void exp_shift_avx512(double *y, const double *x, double m, size_t n)
{
	pthread_once(&once, init_once); /* vexp's tab_eh and tab_el */
	exp_array_pd(y, x, m, n, 0);
}

__attribute__((target("avx512f,fma")))
static void exp_shift_nt_avx512(double *y, const double *x, double m, size_t n)
{
	pthread_once(&once, init_once);
	exp_array_pd(y, x, m, n, 1);
}

__attribute__((target("avx512f,fma")))
static void expf_shift_avx512(float *y, const float *x, float m, size_t n)
{
	exp_array_ps(y, x, m, n, 0);
}

__attribute__((target("avx512f,fma")))
static void expf_shift_nt_avx512(float *y, const float *x, float m, size_t n)
{
	exp_array_ps(y, x, m, n, 1);
}

#undef DEFINE_SINCOS
#undef DEFINE_EXP_ARRAY

#undef X512_ARRAY
#undef X512

const struct rfx_vmath_kernel rfx_vmath_avx512 = {
	"avx512", log_avx512, logexpm1_avx512, log1mexp_avx512,
	sincos_avx512, exp_shift_avx512, sincosf_avx512, expf_shift_avx512,
	sincosf_nt_avx512, expf_shift_nt_avx512, sincos_nt_avx512,
	exp_shift_nt_avx512
};

#else
/* ISO C wants a declaration in every translation unit. */
typedef int rfx_vmath_avx512_none;
#endif

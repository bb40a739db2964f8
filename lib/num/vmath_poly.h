/*
 * The constants of the x86 vector kernels of vmath.h, shared by the
 * AVX-512 kernel (lib/num/vmath_avx512.c, where each is derived beside the
 * code that first used it) and the AVX2 kernel (lib/num/vmath_avx2.c):
 * the same reductions and polynomials on narrower vectors. Per-precision
 * names are NAME_pd (double) and NAME_ps (float), for the kernels'
 * templates over the intrinsics' suffix. Static: every includer gets its
 * own copy, folded by the compiler.
 */
#ifndef RFX_VMATH_POLY_H
#define RFX_VMATH_POLY_H

/* the number of entries of one of these arrays */
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* log 2 in double and the rest (vexp: (k + j/16) exp_ln2_hi is exact in an FMA) */
static const double exp_ln2_hi = 0x1.62e42fefa39efp-1;
static const double exp_ln2_lo = 0x1.abc9e3b39803fp-56;

/* (e^r - 1 - r)/r^2 = 1/2! + r/3! + ..., to r^11/13! */
static const double eq[12] = {
	1.0 / 2,       1.0 / 6,        1.0 / 24,        1.0 / 120,
	1.0 / 720,     1.0 / 5040,     1.0 / 40320,     1.0 / 362880,
	1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
};

/* pi/2 = P1 + P2 + P3 in doubles (vmath_avx512.c, vsincos_pd) */
static const double pio2_1 = 0x1.921fb544p+0;
static const double pio2_2 = 0x1.0b4611a6p-34;
static const double pio2_3 = 0x1.3198a2e037073p-69;

/* (sin r - r)/r^3 = -1/3! + r^2/5! - ..., degree 6 in r^2 */
static const double sq[7] = {
	-0x1.5555555555555p-3, 0x1.1111111111110p-7, -0x1.a01a01a01990ap-13,
	0x1.71de3a545b148p-19, -0x1.ae6454093c147p-26, 0x1.61217781a8ccdp-33,
	-0x1.ab13654fd392ap-41,
};

/* (cos r - 1 + r^2/2)/r^4 = 1/4! - r^2/6! + ..., degree 5 in r^2 */
static const double cq[6] = {
	0x1.5555555555555p-5, -0x1.6c16c16c16955p-10, 0x1.a01a019f4a826p-16,
	-0x1.27e4fa1272706p-22, 0x1.1eeb634b132cdp-29, -0x1.907999e6897e2p-37,
};

/* pi/2 in floats and the float fits (vmath_avx512.c, vsincos_ps, vexpf) */
static const float fpio2_1 = 0x1.921fb4p+0f;  /* pi/2 truncated to 24 bits */
static const float fpio2_2 = 0x1.4442d0p-24f; /* the rest, truncated */
static const float fpio2_3 = 0x1.84698ap-48f; /* and rounded: 1e-22 left */

/* vexpf: 1/log 2, and log 2 = L1 + L2 in floats */
#define FLOG2E 0x1.715476p+0f
#define FLN2_HI 0x1.62e430p-1f
#define FLN2_LO -0x1.05c610p-29f

static const float fsq[3] = { -0x1.555552p-3f, 0x1.110c1cp-7f, -0x1.9ac2cap-13f };
static const float fcq[3] = { 0x1.555554p-5f, -0x1.6c12c8p-10f, 0x1.9bd314p-16f };
static const float feq[5] = { 0x1p-1f, 0x1.5554d8p-3f, 0x1.555516p-5f,
			      0x1.12106cp-7f, 0x1.6d1606p-10f };

#define SIGN_pd ((long long)0x8000000000000000ULL) /* the sign bit */
#define SIGN_ps ((int)0x80000000u)
#define SHIFT_pd 0x1.8p52 /* 1.5 2^p: the sum's last bits are n */
#define SHIFT_ps 0x1.8p23f
#define TWO_OVER_PI_pd 0x1.45f306dc9c883p-1
#define TWO_OVER_PI_ps 0x1.45f306p-1f
#define PIO2_1_pd pio2_1
#define PIO2_1_ps fpio2_1
#define PIO2_2_pd pio2_2
#define PIO2_2_ps fpio2_2
#define PIO2_3_pd pio2_3
#define PIO2_3_ps fpio2_3
#define SQ_pd sq
#define SQ_ps fsq
#define CQ_pd cq
#define CQ_ps fcq
#define FAR_pd 0x1p20 /* |x| from which glibc's scalar functions take over */
#define FAR_ps 0x1p16f
#define SIN_pd sin
#define SIN_ps sinf
#define COS_pd cos
#define COS_ps cosf
#define VEXP_pd vexp
#define VEXP_ps vexpf

/*
 * sincos_lanes_S, in each kernel's sincos template (where OP, TY and W
 * are that kernel's): the lanes of x[0..W-1] whose bits are set in far
 * (|x| >= FAR) through glibc, out of line as they are rare.
 */
#define DEFINE_SINCOS_LANES(S)						\
	__attribute__((noinline)) static void OP(S, sincos_lanes)(	\
		TY(S) *s, TY(S) *c, const TY(S) *x, unsigned far)	\
	{								\
		int l;							\
									\
		for (l = 0; l < W(S); l++)				\
			if (far >> l & 1) {				\
				s[l] = OP(S, SIN)(x[l]);		\
				c[l] = OP(S, COS)(x[l]);		\
			}						\
	}

#endif

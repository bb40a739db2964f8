/*
 * Hybrid random features: lambda P + (1 - lambda) T, a random-feature
 * estimate lambda^ of a weight between a positive estimator P, accurate
 * for opposite inputs, and TrigRF T, accurate for close ones. Four kinds,
 * one file:
 *
 *   hyb        the thesis' HybRF (sec. 6.2): P = PosRF exp(w.x), angular
 *              lambda, T and P on shared projections (hyb-2, Theorem 12);
 *   ang        the HRF paper's angular hybrid (eqs. 12, 19): P = HRF's
 *              positive cosh estimator (lib/est/posh.c), shared projections
 *              (Theorem 3.1, eq. 23; Theorem D.1, eq. 46);
 *   ang-ind    the same on independent projections (eq. 22; eq. 45);
 *   gauss-hyb  the normalised bipolar Gaussian hybrid (HRF appendix F,
 *              eqs. 67-79): lambda = (1 - exp(-sigma^2 |x-y|^2/2))/rho
 *              estimated by trigonometric features of sigma x, P = cosh,
 *              shared projections;
 *   hyb-ind, gauss-hyb-ind  the same as hyb and gauss-hyb on independent
 *              projections for T and P: the thesis' hyb-1 (eq. 6.9) and
 *              the estimator of HRF Theorem F.1, whose variance has no
 *              Cov(T, P) term.
 *
 * Angular lambda (eq. 19, thesis eq. 6.4): lambda^ = (1 - a)/2 with a the
 * mean of m3 products sign(w.x) sign(w.y), so E lambda^ = q = theta/pi and
 * Var lambda^ = q(1-q)/m3 (Lemma 3.2). If x or y is 0 the signs vanish and
 * lambda^ = 1/2 exactly. Gaussian lambda (eq. 69): lambda^ = 1/rho -
 * (1/(m3 rho)) sum_k cos(sigma t_k.(x - y)), so E lambda^ = lambda and
 * Var lambda^ = (1 - e^{-sigma^2|x-y|^2})^2/(2 m3 rho^2) (eqs. 72-75).
 *
 * Variance. lambda^ is independent of (T, P), both unbiased, so (HRF
 * appendix C; thesis Theorem 12, re-derived)
 *   Var = E lambda^2 Var P + E(1 - lambda)^2 Var T + 2 E[lambda(1 - lambda)] Cov(T, P)
 * with Var T = (1 - K^2)^2/(2 m1), Var P = K^2 (e^{|x+y|^2} - 1)/m1 for
 * PosRF and K^2 e^{|x+y|^2}(1 - e^{-|x+y|^2})^2/(2 m1) for cosh, and, for
 * shared projections, Cov(T, P) = K^2 (cos(|x|^2 - |y|^2) - 1)/m1 for both
 * positive kinds (E[cos(w.(x-y)) e^{+-w.(x+y)}] = e^{2x.y} cos(|x|^2-|y|^2));
 * 0 for independent ones. In HRF units (the softmax kernel) every term is
 * e^{|x|^2+|y|^2} times this.
 *
 * Feature maps (thesis eqs. 6.6-6.8, HRF Lemma 2.3 / eq. 11), m1 base
 * projections, m3 lambda features, Pc = m1 (PosRF) or 2 m1 (cosh):
 *   angular   [T, a (x) T, P, i a (x) P] / sqrt 2, a = sign(w.x)/sqrt(m3),
 *             (m3 + 1)(m1 + Pc) entries (eq. 6.6 prints (M1+1)(M2+M3));
 *   Gaussian  [sqrt(a0) P, i sqrt(a0 - 1) T, r (x) P, i r (x) T], a0 = 1/rho,
 *             r = i (sin, cos)(sigma t.x)/sqrt(m3 rho), (2 m3 + 1)(m1 + Pc)
 *             entries, so that the dot product is
 *             a0 P + (1 - a0) T + (r.r)(P - T) = lambda^ P + (1 - lambda^) T.
 *
 * Counts: m1 and m3 (HRF's m and n) are given, or both the largest m whose
 * map fits the budget M, at least 1 (the thesis' fair counting M = 4 gives
 * m1 = m3 = 1 for hyb). The Gaussian hybrid's sigma defaults to 1 and rho
 * is fitted as 1 - exp(-2 sigma^2 r^2) with r^2 the mean of |x|^2 and |y|^2
 * over the sets (eq. 68 for inputs of length r).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "est/estimator.h"
#include "num/logmath.h"
#include "num/vmath.h"
#include "num/setstats.h"

struct hyb_kind {
	const char *name;
	int posh;   /* P is the cosh estimator (HRF), not PosRF (thesis) */
	int shared; /* T and P on the same projections */
	int gauss;  /* Gaussian lambda rather than angular */
};

static const struct hyb_kind kind_hyb = { "hyb", 0, 1, 0 };
static const struct hyb_kind kind_ang = { "ang", 1, 1, 0 };
static const struct hyb_kind kind_ang_ind = { "ang-ind", 1, 0, 0 };
static const struct hyb_kind kind_gauss = { "gauss-hyb", 1, 1, 1 };
static const struct hyb_kind kind_hyb_ind = { "hyb-ind", 0, 0, 0 };
static const struct hyb_kind kind_gauss_ind = { "gauss-hyb-ind", 1, 0, 1 };

/*
 * Entries of the map for counts m1, m3, in long long: near --features
 * 2^31 - 1, or with m1 and m3 up to their 10^6, the product leaves int,
 * and hyb_counts' search wrapped round and never ended.
 */
static long long hyb_dim(const struct hyb_kind *k, int m1, int m3)
{
	long long pc = k->posh ? 2LL * m1 : m1;

	return (k->gauss ? 2LL * m3 + 1 : m3 + 1LL) * (m1 + pc);
}

static void hyb_counts(const struct hyb_kind *k, const struct rfx_params *p,
		       int M, int *m1, int *m3)
{
	int m = 1;

	while (hyb_dim(k, m + 1, m + 1) <= M)
		m++;
	*m1 = (p->given & RFX_P(RFX_PARAM_M1)) || p->m1 > 0 ? p->m1 : m;
	*m3 = (p->given & RFX_P(RFX_PARAM_M3)) || p->m3 > 0 ? p->m3 : m;
}

static int kind_used(const struct hyb_kind *k, const struct rfx_params *p,
		    int M)
{
	int m1, m3;
	long long D;

	hyb_counts(k, p, M, &m1, &m3);
	D = hyb_dim(k, m1, m3);
	return D > INT_MAX ? INT_MAX : (int)D; /* then too large for any budget */
}

static int kind_fit(const struct hyb_kind *k, struct rfx_params *p,
		   const double *X, size_t nx, const double *Y, size_t ny,
		   int M, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, k->name, X, nx, Y, ny, M, err);
	int m1, m3;
	double s = 0.0; /* E|x|^2 + E|y|^2 over the sets */

	if (ret)
		return ret;
	if (!(p->given & RFX_P(RFX_PARAM_M1)))
		p->m1 = 0;
	if (!(p->given & RFX_P(RFX_PARAM_M3)))
		p->m3 = 0;
	hyb_counts(k, p, M, &m1, &m3);
	p->m1 = m1;
	p->m3 = m3;
	if (!k->gauss)
		return RFX_OK;
	if (!(p->given & RFX_P(RFX_PARAM_SIGMA)))
		p->sigma = 1.0;
	if (!(p->given & RFX_P(RFX_PARAM_RHO))) {
		struct rfx_setstats *st = rfx_setstats_alloc(p->d);

		if (!st)
			return rfx_error(err, RFX_ENOMEM, "out of memory");
		ret = rfx_setstats_compute(st, X, nx, Y, ny, NULL, err);
		if (!ret) {
			s = st->mean_xx + st->mean_yy;
			p->rho = -expm1(-p->sigma * p->sigma * s);
		}
		rfx_setstats_free(st);
		if (ret)
			return ret;
		/*
		 * A fitted rho below the normal range has lost its digits
		 * (sigma = 1e-160 on unit inputs: 1e-3 off in log Var), and
		 * at 0 it would fall back to 1 below, where lambda^ is off
		 * by far more: refused, as a given rho below 1e-100 is.
		 */
		if (s > 0.0 && !(p->rho >= DBL_MIN))
			return rfx_error(err, RFX_EINVAL,
					 "%s: cannot fit rho = 1 - exp(-sigma^2 (E|x|^2 + E|y|^2)): the exponent, %g, is below %g and rho underflows; give a larger sigma, larger inputs, or rho",
					 k->name, p->sigma * p->sigma * s, DBL_MIN);
	}
	/* rho = 0 (all inputs 0) would divide by zero; lambda is moot there. */
	if (!(p->rho > 0.0))
		p->rho = 1.0;
	return RFX_OK;
}

/*
 * The weights of one pair: wl2 = E lambda^2, wt2 = E (1 - lambda)^2 and
 * wc = 2 E lambda (1 - lambda). t is the pair's angle as hyb_angle codes
 * it (the smaller of q = theta/pi and 1 - q, with the sign bit set when it
 * is 1 - q, so that neither q nor 1 - q is ever formed as 1 - (nearly 1);
 * HYB_NODIR when x or y is 0: no direction, lambda^ = 1/2 exactly); the
 * remaining arguments are the block's per-pair quantities. The Gaussian
 * weights use expm1, not 1 - exp: for |x - y|^2 = 1e-18 the difference
 * form was 4 off in log Var (issue 21).
 */
static inline __attribute__((always_inline)) void
hyb_weights(int gauss, double t, double dd, double im3, double sigma2,
	    double rho, double *wl2, double *wt2, double *wc)
{
	double q, p, v;

	if (gauss) {
		double e1 = -expm1(-0.5 * sigma2 * dd);
		double e2 = -expm1(-sigma2 * dd);

		/* the ratio first: e2 and rho both ~1e-200 for inputs ~1e-100 */
		v = 0.5 * im3 * (e2 / rho) * (e2 / rho);
		q = e1 / rho;
		p = 1.0 - q;
	} else {
		/* copysign, not signbit: GCC vectorises the first only */
		int nz = t <= 1.0, flip = copysign(1.0, t) < 0.0;
		double m = nz ? fabs(t) : 0.5;

		q = flip ? 1.0 - m : m;
		p = flip ? m : 1.0 - m;
		v = nz ? m * (1.0 - m) * im3 : 0.0;
	}
	*wl2 = q * q + v;
	*wt2 = p * p + v;
	*wc = 2.0 * (q * p - v);
}

/* hyb_angle's code for a pair without a direction (x or y is 0). */
#define HYB_NODIR 2.0

/* Below this, |x| |y| may have lost digits to underflow. */
#define HYB_NN_MIN 1e-280

/* 2^-e with 2^(e-1) <= max |x_l| < 2^e, or 0 when x is 0: an exact scale. */
static double pow2_scale(const double *x, int d)
{
	double a = 0.0;
	int l, e;

	for (l = 0; l < d; l++)
		a = fabs(x[l]) > a ? fabs(x[l]) : a;
	if (a == 0.0)
		return 0.0;
	frexp(a, &e);
	return ldexp(1.0, -e);
}

/*
 * The angle between x and y, coded as hyb_weights reads it, accurate to
 * a few ulps in theta AND in pi - theta, at every angle and ratio of
 * lengths. Kahan's theta = 2 atan2(|u - v|, |u + v|) on the unit vectors
 * ("How futile are mindless assessments of roundoff", 2006, sec. 12)
 * leaves |u -+ v| an absolute error of an ulp, a relative one of
 * ulp/theta near 0 and ulp/(pi - theta) near pi (1e-7 for opposite inputs
 * whose lengths differ by 1e-9). Here |y| (u -+ v) is formed as
 *   A, B = (x -+ y) + x (|y| - |x|)/|x|,
 *   |y| - |x| = sum_l (y_l - x_l)(y_l + x_l) / (|x| + |y|),
 * whose terms carry their own relative accuracy (x -+ y is exact for
 * close or opposite inputs), and theta = 2 atan2(|A|, |B|),
 * pi - theta = 2 atan2(|B|, |A|). x and y are first scaled by powers of 2
 * (exact; the angle does not see positive scales), so that no length
 * under- or overflows.
 */
static double kahan_angle(const double *x, const double *y, int d)
{
	double sx = pow2_scale(x, d), sy = pow2_scale(y, d);
	double nx = 0.0, ny = 0.0, dl = 0.0, am = 0.0, ap = 0.0, th, tc, f;
	int l;

	if (sx == 0.0 || sy == 0.0)
		return HYB_NODIR;
	for (l = 0; l < d; l++) {
		double u = x[l] * sx, v = y[l] * sy;

		nx += u * u;
		ny += v * v;
		dl += (v - u) * (v + u);
	}
	nx = sqrt(nx);
	ny = sqrt(ny);
	f = dl / ((nx + ny) * nx);
	for (l = 0; l < d; l++) {
		double u = x[l] * sx, v = y[l] * sy;
		double a = (u - v) + u * f, b = (u + v) + u * f;

		am += a * a;
		ap += b * b;
	}
	th = 2.0 * atan2(sqrt(am), sqrt(ap));
	tc = 2.0 * atan2(sqrt(ap), sqrt(am));
	return th <= tc ? th / RFX_PI : -(tc / RFX_PI);
}

/*
 * The angle of one pair, coded as hyb_weights reads it, with one asin, in
 * the vectorised loop; *bad is set where the result is not to be trusted
 * and kahan_angle must redo it:
 *  - |cos| <= 1/2: theta = pi/2 - asin(x.y / (|x| |y|)), accurate to about
 *    d ulps whatever the ratio of the lengths (asin's slope is at most
 *    2/sqrt 3 there);
 *  - nearer 0 or pi: with l = |x| - |y|, 1 -+ cos = (|x -+ y|^2 - l^2) /
 *    (2 |x| |y|) gives theta (or pi - theta) = 2 asin(sqrt(|x -+ y|^2 -
 *    l^2) / (2 sqrt(|x| |y|))) from the block's accurate |x -+ y|^2, to a
 *    few ulps while the subtraction keeps half its bits; the acos of the
 *    cosine would lose half the digits there.
 * With want_bad, returns 1 for such a pair and 0 otherwise instead.
 * Bad: one input much shorter than the other, where the subtraction
 * cancels (an angle of pi/2 came out as pi for lengths 1e-20 and 1, issue
 * 21), and |x| |y| below HYB_NN_MIN, where it may have underflowed. Such
 * pairs are rare in the experiments' sets, which keeps Fig 6.4 at its
 * speed. nx = |x|, ny = |y|, rq = 1/(2 sqrt(|x| |y|)), rnn = 1/(|x| |y|)
 * come from the row and the column.
 */
static inline __attribute__((always_inline)) double
hyb_angle(double xx, double yy, double nx, double ny, double rq, double rnn,
	  double xy, double dd, double ss, int want_bad)
{
	double nn = nx * ny;
	int ok = nn >= HYB_NN_MIN, near = dd < ss;
	double c = xy * rnn;
	int mid = fabs(c) <= 0.5;
	double l = (xx - yy) / (ok ? nx + ny : 1.0);
	double v = near ? dd : ss, a0 = v - l * l;
	double s0 = sqrt(a0 > 0.0 ? a0 : 0.0) * rq;
	double fm = mid ? 1.0 : 0.0;
	/*
	 * One asin of a blended argument: with a select GCC sinks the call
	 * into both arms and can no longer use the vector asin.
	 */
	double as = asin(fm * c + (1.0 - fm) * (s0 < 1.0 ? s0 : 1.0));
	double m = mid ? 0.5 - fabs(as) / RFX_PI : 2.0 * as / RFX_PI;
	int flip = mid ? c < 0.0 : !near;

	/*
	 * The flag is a second call's result, not an out-parameter: an
	 * address taken in the loop body keeps GCC from vectorising it.
	 */
	if (want_bad)
		return ((!ok) | ((!mid) & (a0 < 0.5 * v))) ? 1.0 : 0.0;
	return flip ? -m : m;
}

/*
 * log Var for one pair in Gaussian-kernel units, every term in logs (any
 * inputs). lm1 = log m1.
 */
static inline __attribute__((always_inline)) double
hyb_log_var1(int posh, int shared, double xx, double yy, double dd,
	     double ss, double lm1, double wl2, double wt2, double wc)
{
	double lt, lp, lc, sgn_c;

	lt = 2.0 * rfx_log1mexp(-dd) - lm1 - RFX_LN2;
	lp = posh ? -dd + ss + 2.0 * rfx_log1mexp(-ss) - lm1 - RFX_LN2
		  : -dd + rfx_logexpm1(ss) - lm1;
	/*
	 * Cov(T, P) = -K^2 (1 - cos D)/m1 = -2 K^2 sin^2(D/2)/m1, exact for
	 * small D = |x|^2 - |y|^2; a vanishing term has log -inf, not a
	 * branch.
	 */
	{
		double half = fabs(sin(0.5 * (xx - yy)));
		double awc = fabs(wc);

		lc = log(2.0 * awc * half * half) - dd - lm1;
		sgn_c = shared ? (wc > 0.0 ? -1.0 : 1.0) : 0.0;
		lc = shared ? lc : -INFINITY;
	}
	return rfx_logsum3(log(wt2) + lt, 1.0, log(wl2) + lp, 1.0, lc, sgn_c);
}

/*
 * Bounds on |x|^2, |y|^2, |x - y|^2 and |x + y|^2 within which
 * hyb_log_var1_lin's terms neither overflow nor leave the normal range:
 * K^2 >= e^-300, e^{|x+y|^2} <= e^300, and with all four at least 1e-30
 * (or |x -+ y|^2 exactly 0) every term is above 1e-230, or exactly 0.
 */
#define HYB_LIN_LO 1e-30
#define HYB_LIN_HI 300.0

/*
 * The same variance formed in doubles (times m1), for blocks within the
 * bounds above; the caller takes the logs of a whole block at once
 * (lib/num/vmath.h), one log instead of six logs, two expm1 and three exps.
 * The terms and their cancellation are those of hyb_log_var1.
 */
static inline __attribute__((always_inline)) double
hyb_var1_lin(int posh, int shared, double xx, double yy, double dd,
	     double ss, double lm1, double wl2, double wt2, double wc)
{
	double em = -expm1(-dd), k2 = exp(-dd), vp, v;
	double half = sin(0.5 * (xx - yy));

	if (posh) {
		double es = -expm1(-ss);

		vp = 0.5 * exp(ss - dd) * es * es;
	} else {
		vp = k2 * expm1(ss);
	}
	(void)lm1;
	v = 0.5 * wt2 * em * em + wl2 * vp;
	v -= shared ? 2.0 * wc * k2 * half * half : 0.0;
	return v > 0.0 ? v : 0.0;
}

/* Whether every pair of b is within the bounds of hyb_log_var1_lin. */
RFX_SIMD_CLONES
static int hyb_block_linear(const struct rfx_block *b)
{
	size_t k, np = b->nx * b->ny;
	double lo = HUGE_VAL, hi = 0.0;

	for (k = 0; k < b->nx; k++) {
		lo = b->xx[k] < lo ? b->xx[k] : lo;
		hi = b->xx[k] > hi ? b->xx[k] : hi;
	}
	for (k = 0; k < b->ny; k++) {
		lo = b->yy[k] < lo ? b->yy[k] : lo;
		hi = b->yy[k] > hi ? b->yy[k] : hi;
	}
	if (!(lo >= HYB_LIN_LO && hi <= HYB_LIN_HI))
		return 0;
#pragma omp simd reduction(min : lo) reduction(max : hi)
	for (k = 0; k < np; k++) {
		double d = b->dd[k], s = b->ss[k];
		double dl = d == 0.0 ? HYB_LIN_LO : d; /* exact 0: term exactly 0 */
		double sl = s == 0.0 ? HYB_LIN_LO : s;

		lo = dl < lo ? dl : lo;
		lo = sl < lo ? sl : lo;
		hi = d > hi ? d : hi;
		hi = s > hi ? s : hi;
	}
	return lo >= HYB_LIN_LO && hi <= HYB_LIN_HI; /* false for NaN */
}

/* Columns of a block per pass, with their norms on the stack. */
#define HYB_COLS 256

RFX_SIMD_CLONES
static int hyb_log_variance_kind(const struct hyb_kind *k,
				 const struct rfx_params *p,
				 const struct rfx_block *b, int M, double *out,
				 struct rfx_err *err)
{
	int m1, m3, posh = k->posh, shared = k->shared, gauss = k->gauss;
	size_t i, j, j0, ny = b->ny;
	double lm1, im3, sigma2 = p->sigma * p->sigma, rho = p->rho;
	/* |y|, |y|^-1/2 and 1/|y| of a pass's columns */
	double cn[HYB_COLS], cr[HYB_COLS], ci[HYB_COLS];

	hyb_counts(k, p, M, &m1, &m3);
	if (m1 < 1 || m3 < 1)
		return rfx_error(err, RFX_EINVAL, "%s: m1 and m3 must be positive",
				 k->name);
	if (gauss && !(rho > 0.0 && p->sigma > 0.0))
		return rfx_error(err, RFX_EINVAL, "%s: sigma and rho not fitted",
				 k->name);
	lm1 = log((double)m1);
	im3 = 1.0 / m3;
	/*
	 * One loop per kind with the kind's flags as constants, so that GCC
	 * drops the other branches and vectorises (it does not unswitch at -O2).
	 */
#define HYB_LOOP(POSH, SHARED, GAUSS, VAR1)                                    \
	for (j0 = 0; j0 < ny; j0 += HYB_COLS) {                                \
		size_t jn = ny - j0 < HYB_COLS ? ny - j0 : HYB_COLS;           \
		const double *yy = b->yy + j0;                                 \
                                                                               \
		for (j = 0; j < jn; j++) {                                     \
			cn[j] = sqrt(yy[j]);                                   \
			cr[j] = 1.0 / sqrt(cn[j]);                             \
			ci[j] = 1.0 / cn[j];                                   \
		}                                                              \
		for (i = 0; i < b->nx; i++) {                                  \
			const double *dd = b->dd + i * ny + j0;                \
			const double *ss = b->ss + i * ny + j0;                \
			const double *xy = b->xy + i * ny + j0;                \
			double *o = out + i * ny + j0, xx = b->xx[i];          \
			double nx = sqrt(xx), rx = 0.5 / sqrt(nx), ix = 1.0 / nx; \
			double nbad = 0.0;                                     \
                                                                               \
			_Pragma("omp simd reduction(+ : nbad)")                \
			for (j = 0; j < jn; j++) {                             \
				double wl2, wt2, wc, t = 0.0;                  \
                                                                               \
				if (!GAUSS) {                                  \
					t = hyb_angle(xx, yy[j], nx, cn[j],    \
						      rx * cr[j], ix * ci[j],  \
						      xy[j], dd[j], ss[j], 0); \
					nbad += hyb_angle(xx, yy[j], nx, cn[j], \
							  rx * cr[j],          \
							  ix * ci[j], xy[j],   \
							  dd[j], ss[j], 1);    \
				}                                              \
				hyb_weights(GAUSS, t, dd[j], im3, sigma2, rho, \
					    &wl2, &wt2, &wc);                  \
				o[j] = VAR1(POSH, SHARED, xx, yy[j], dd[j],    \
					    ss[j], lm1, wl2, wt2, wc);         \
			}                                                      \
			for (j = 0; !GAUSS && nbad > 0.0 && j < jn; j++) {     \
				double wl2, wt2, wc, t;                        \
                                                                               \
				if (hyb_angle(xx, yy[j], nx, cn[j], rx * cr[j], \
					      ix * ci[j], xy[j], dd[j], ss[j], \
					      1) == 0.0)                       \
					continue;                              \
				t = kahan_angle(b->X + i * (size_t)b->d,       \
						b->Y + (j0 + j) * (size_t)b->d, \
						b->d);                         \
				hyb_weights(GAUSS, t, dd[j], im3, sigma2, rho, \
					    &wl2, &wt2, &wc);                  \
				o[j] = VAR1(POSH, SHARED, xx, yy[j], dd[j],    \
					    ss[j], lm1, wl2, wt2, wc);         \
			}                                                      \
		}                                                              \
	}
	if (hyb_block_linear(b)) {
		size_t k, np = b->nx * ny;

		if (gauss && shared)
			HYB_LOOP(1, 1, 1, hyb_var1_lin)
		else if (gauss)
			HYB_LOOP(1, 0, 1, hyb_var1_lin)
		else if (!posh && shared)
			HYB_LOOP(0, 1, 0, hyb_var1_lin)
		else if (!posh)
			HYB_LOOP(0, 0, 0, hyb_var1_lin)
		else if (shared)
			HYB_LOOP(1, 1, 0, hyb_var1_lin)
		else
			HYB_LOOP(1, 0, 0, hyb_var1_lin)
		rfx_vmath_log(out, out, np);
#pragma omp simd
		for (k = 0; k < np; k++)
			out[k] -= lm1;
	} else {
		if (gauss && shared)
			HYB_LOOP(1, 1, 1, hyb_log_var1)
		else if (gauss)
			HYB_LOOP(1, 0, 1, hyb_log_var1)
		else if (!posh && shared)
			HYB_LOOP(0, 1, 0, hyb_log_var1)
		else if (!posh)
			HYB_LOOP(0, 0, 0, hyb_log_var1)
		else if (shared)
			HYB_LOOP(1, 1, 0, hyb_log_var1)
		else
			HYB_LOOP(1, 0, 0, hyb_log_var1)
	}
#undef HYB_LOOP
	return RFX_OK;
}

/*
 * Columns: T's m1 projections, then P's own m1 if not shared, then the m3
 * lambda projections (all independent blocks of one projection kind).
 */
static int hyb_draw_kind(const struct hyb_kind *k, const gsl_rng *r,
			 enum rfx_proj proj, const struct rfx_params *p, int M,
			 struct rfx_draw *w, struct rfx_err *err)
{
	int m1, m3, nb, ret;

	hyb_counts(k, p, M, &m1, &m3);
	nb = k->shared ? m1 : 2 * m1;
	if (nb + m3 > w->cap)
		return rfx_error(err, RFX_EINVAL, "%s: draw capacity too small",
				 k->name);
	w->ncols = nb + m3;
	ret = rfx_proj_sample(r, proj, w->d, m1, w->omega, (size_t)w->cap, 0,
			      w->pws, err);
	if (!ret && !k->shared)
		ret = rfx_proj_sample(r, proj, w->d, m1, w->omega, (size_t)w->cap,
				      (size_t)m1, w->pws, err);
	if (!ret)
		ret = rfx_proj_sample(r, proj, w->d, m3, w->omega, (size_t)w->cap,
				      (size_t)nb, w->pws, err);
	return ret;
}

/* The P entries of a row: log-moduli (phases 0), Pc of them. */
static int p_entries(int posh, const double *pp, int m1, double xx, double *lm)
{
	int j;

	if (!posh) {
		for (j = 0; j < m1; j++)
			lm[j] = pp[j] - xx - 0.5 * log((double)m1);
		return m1;
	}
	for (j = 0; j < m1; j++) {
		lm[2 * j] = pp[j] - xx - 0.5 * log(2.0 * m1);
		lm[2 * j + 1] = -pp[j] - xx - 0.5 * log(2.0 * m1);
	}
	return 2 * m1;
}

static int hyb_features_kind(const struct hyb_kind *k,
			     const struct rfx_params *p,
			     const struct rfx_draw *w, int side,
			     const double *X, size_t n, int M,
			     struct rfx_featmat *F, struct rfx_err *err)
{
	int m1, m3, nc, nb, pc, j, l, e;
	double sgn = side == 1 ? 1.0 : -1.0, half_pi = 0.5 * RFX_PI;
	long long D;
	size_t i;

	hyb_counts(k, p, M, &m1, &m3);
	D = hyb_dim(k, m1, m3);
	nb = k->shared ? m1 : 2 * m1;
	nc = nb + m3;
	pc = k->posh ? 2 * m1 : m1;
	if (D > F->cap_D || pc > F->cap_D)
		return rfx_error(err, RFX_EINVAL, "%s: feature capacity too small",
				 k->name);
	if (!k->gauss && m1 <= RFX_HYBMAP_MAX_M1) {
		/* the angular kinds: fused, block by block (lib/est/featmap.c) */
		struct rfx_hybmap h = { m1, m3, k->posh, k->shared };

		rfx_featmat_hybrid(F, w, X, n, &h, sgn);
		return RFX_OK;
	}
	rfx_featmat_project(F, w, X, n, 0, nc);
	rfx_rownorms(X, n, w->d, F->work2);
	/* Log-moduli go to re, phases to im; rfx_featmat_from_log allows that. */
	for (i = 0; i < n; i++) {
		const double *pr = F->work + i * (size_t)nc;
		const double *pt = pr, *pp = pr + (k->shared ? 0 : m1);
		const double *pl = pr + nb;
		double *lm = F->re + i * (size_t)D, *ph = F->im + i * (size_t)D;
		double *plm = F->cwork; /* the row's P log-moduli, pc of them */
		double xx = F->work2[i], lt = -0.5 * log((double)m1);

		e = 0;
		p_entries(k->posh, pp, m1, xx, plm);
		if (!k->gauss) {
			double la = -0.5 * log((double)m3) - 0.5 * RFX_LN2;

			for (j = 0; j < m1; j++, e++) {
				lm[e] = lt - 0.5 * RFX_LN2;
				ph[e] = sgn * pt[j];
			}
			for (l = 0; l < m3; l++)
				for (j = 0; j < m1; j++, e++) {
					lm[e] = pl[l] != 0.0 ? lt + la : -INFINITY;
					ph[e] = sgn * pt[j] + (pl[l] < 0.0 ? RFX_PI : 0.0);
				}
			for (j = 0; j < pc; j++, e++) {
				lm[e] = plm[j] - 0.5 * RFX_LN2;
				ph[e] = 0.0;
			}
			for (l = 0; l < m3; l++)
				for (j = 0; j < pc; j++, e++) {
					lm[e] = pl[l] != 0.0 ? plm[j] + la : -INFINITY;
					ph[e] = half_pi + (pl[l] < 0.0 ? RFX_PI : 0.0);
				}
		} else {
			double a0 = 1.0 / p->rho;
			double lr = -0.5 * log(m3 * p->rho);

			for (j = 0; j < pc; j++, e++) {
				lm[e] = plm[j] + 0.5 * log(a0);
				ph[e] = 0.0;
			}
			for (j = 0; j < m1; j++, e++) {
				lm[e] = lt + 0.5 * log(a0 - 1.0);
				ph[e] = half_pi + sgn * pt[j];
			}
			/* r (x) P, then i r (x) T; r = i (sin, cos)(sigma t.x)/sqrt(m3 rho) */
			for (l = 0; l < 2 * m3; l++) {
				double u = p->sigma * pl[l / 2];
				double v = (l & 1) ? cos(u) : sin(u);
				double lv = v != 0.0 ? log(fabs(v)) + lr : -INFINITY;
				double pv = half_pi + (v < 0.0 ? RFX_PI : 0.0);

				for (j = 0; j < pc; j++, e++) {
					lm[e] = lv + plm[j];
					ph[e] = pv;
				}
			}
			for (l = 0; l < 2 * m3; l++) {
				double u = p->sigma * pl[l / 2];
				double v = (l & 1) ? cos(u) : sin(u);
				double lv = v != 0.0 ? log(fabs(v)) + lr : -INFINITY;
				double pv = RFX_PI + (v < 0.0 ? RFX_PI : 0.0);

				for (j = 0; j < m1; j++, e++) {
					lm[e] = lv + lt;
					ph[e] = pv + sgn * pt[j];
				}
			}
		}
	}
	rfx_featmat_from_log(F, n, (int)D, F->re, F->im); /* D <= cap_D */
	return RFX_OK;
}

/*
 * The estimate of each pair from the projections: lambda^ P + (1 - lambda^) T,
 * with P in logs (it spans any range) and T in [-1, 1].
 */
/* The nc projections omega_c . x of one input, row by row of omega. */
RFX_SIMD_CLONES
static void project_row(const struct rfx_draw *w, const double *x, int nc,
			double *out)
{
	int l, c;

	for (c = 0; c < nc; c++)
		out[c] = 0.0;
	for (l = 0; l < w->d; l++) {
		const double *row = w->omega + (size_t)l * (size_t)w->cap;
		double a = x[l];

#pragma omp simd
		for (c = 0; c < nc; c++)
			out[c] += a * row[c];
	}
}

/*
 * One pair from its projections px, py (nc each): log P (positive part,
 * scaled by its largest term), T and lambda^.
 */
RFX_SIMD_CLONES
static void pair_parts(const struct hyb_kind *k, const struct rfx_params *p,
		       int m1, int m3, int nb, const double *px,
		       const double *py, double *work, double *lp, double *T,
		       double *lam)
{
	int j, pb = k->shared ? 0 : m1, np = k->posh ? 2 * m1 : m1;
	double mp = 0.0, sp = 0.0, t = 0.0, la;

	/* P's exponents +-(w.x + w.y) (cosh) or w.x + w.y (PosRF). */
#pragma omp simd
	for (j = 0; j < m1; j++)
		work[j] = px[pb + j] + py[pb + j];
	if (k->posh) {
#pragma omp simd
		for (j = 0; j < m1; j++)
			work[m1 + j] = -work[j];
	}
	mp = work[0];
#pragma omp simd reduction(max : mp)
	for (j = 0; j < np; j++)
		mp = work[j] > mp ? work[j] : mp;
#pragma omp simd reduction(+ : sp)
	for (j = 0; j < np; j++)
		sp += exp(work[j] - mp);
	*lp = mp + log(sp / (double)np);
#pragma omp simd reduction(+ : t)
	for (j = 0; j < m1; j++)
		t += cos(px[j] - py[j]);
	*T = t / m1;
	if (k->gauss) {
		double sc = 0.0;

#pragma omp simd reduction(+ : sc)
		for (j = 0; j < m3; j++)
			sc += cos(p->sigma * (px[nb + j] - py[nb + j]));
		la = 1.0 / p->rho - sc / (m3 * p->rho);
	} else {
		double agree = 0.0;

#pragma omp simd reduction(+ : agree)
		for (j = 0; j < m3; j++)
			agree += (double)((px[nb + j] > 0) - (px[nb + j] < 0)) *
				 (double)((py[nb + j] > 0) - (py[nb + j] < 0));
		la = 0.5 - agree / (2.0 * m3);
	}
	*lam = la;
}

static int hyb_estimate_kind(const struct hyb_kind *k,
			     const struct rfx_params *p,
			     const struct rfx_draw *w, const double *X,
			     const double *Y, size_t P, int M, double *logabs,
			     signed char *sign, struct rfx_err *err)
{
	int m1, m3, nb, nc, l, d = w->d;
	size_t q;
	double *px, *py, *work;

	hyb_counts(k, p, M, &m1, &m3);
	nb = k->shared ? m1 : 2 * m1;
	nc = nb + m3;
	px = malloc((2 * (size_t)nc + 2 * (size_t)m1) * sizeof(double));
	if (!px)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	py = px + nc;
	work = py + nc;
	for (q = 0; q < P; q++) {
		const double *x = X + q * (size_t)d, *y = Y + q * (size_t)d;
		double T, lam, lp, xx = 0.0, yy = 0.0, t1, t2, v;
		int s1, s2;

		for (l = 0; l < d; l++) {
			xx += x[l] * x[l];
			yy += y[l] * y[l];
		}
		project_row(w, x, nc, px);
		project_row(w, y, nc, py);
		pair_parts(k, p, m1, m3, nb, px, py, work, &lp, &T, &lam);
		lp -= xx + yy;
		/* lambda^ P + (1 - lambda^) T as a signed sum of two logs. */
		s1 = (lam > 0.0) - (lam < 0.0);
		t1 = s1 ? log(fabs(lam)) + lp : -INFINITY;
		v = (1.0 - lam) * T;
		s2 = (v > 0.0) - (v < 0.0);
		t2 = s2 ? log(fabs(v)) : -INFINITY;
		{
			double m = t1 > t2 ? t1 : t2, acc;

			if (m == -INFINITY) {
				logabs[q] = -INFINITY;
				sign[q] = 0;
				continue;
			}
			acc = s1 * exp(t1 - m) + s2 * exp(t2 - m);
			sign[q] = (signed char)((acc > 0.0) - (acc < 0.0));
			logabs[q] = acc != 0.0 ? m + log(fabs(acc)) : -INFINITY;
		}
	}
	free(px);
	return RFX_OK;
}

/* One registry entry per kind: thin wrappers that pass the kind along. */
/* Further initializers (aliases, fit_note) follow params_. */
#define HYB_ENTRY(id, kind, name_, title_, flags_, params_, ...)               \
	static int id##_fit(struct rfx_params *p, const double *X, size_t nx,  \
			    const double *Y, size_t ny, int M,                 \
			    struct rfx_err *err)                               \
	{                                                                      \
		return kind_fit(&kind, p, X, nx, Y, ny, M, err);                \
	}                                                                      \
	static int id##_log_variance(const struct rfx_params *p,               \
				     const struct rfx_block *b, int M,         \
				     double *out, struct rfx_err *err)         \
	{                                                                      \
		return hyb_log_variance_kind(&kind, p, b, M, out, err);        \
	}                                                                      \
	static int id##_used(const struct rfx_params *p, int M)                \
	{                                                                      \
		return kind_used(&kind, p, M);                                  \
	}                                                                      \
	static int id##_draw(const gsl_rng *r, enum rfx_proj proj,             \
			     const struct rfx_params *p, int M,                \
			     struct rfx_draw *w, struct rfx_err *err)          \
	{                                                                      \
		return hyb_draw_kind(&kind, r, proj, p, M, w, err);            \
	}                                                                      \
	static int id##_estimate(const struct rfx_params *p,                   \
				 const struct rfx_draw *w, const double *X,    \
				 const double *Y, size_t P, int M,             \
				 double *logabs, signed char *sign,            \
				 struct rfx_err *err)                          \
	{                                                                      \
		return hyb_estimate_kind(&kind, p, w, X, Y, P, M, logabs,      \
					 sign, err);                           \
	}                                                                      \
	static int id##_features(const struct rfx_params *p,                   \
				 const struct rfx_draw *w, int side,           \
				 const double *X, size_t n, int M,             \
				 struct rfx_featmat *F, struct rfx_err *err)   \
	{                                                                      \
		return hyb_features_kind(&kind, p, w, side, X, n, M, F, err);  \
	}                                                                      \
	const struct rfx_estimator_type rfx_est_##id = {                       \
		.name = name_,                                                 \
		.title = title_,                                               \
		.flags = flags_,                                               \
		.params = params_,                                             \
		.fit = id##_fit,                                               \
		.log_variance = id##_log_variance,                             \
		.features_used = id##_used,                                    \
		.draw = id##_draw,                                             \
		.estimate = id##_estimate,                                     \
		.features = id##_features,                                     \
		.kernels = RFX_EST_GAUSS | RFX_EST_SOFTMAX,                    \
		__VA_ARGS__                                                    \
	}

#define HYB_PARAMS (RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3))

/* hybrf: the thesis' name (sec. 6.2, "HybRFs") */
HYB_ENTRY(hyb, kind_hyb, "hyb", "HybRF, shared projections (thesis sec. 6.2)",
	  RFX_EST_COMPLEX, HYB_PARAMS, .aliases = "hybrf",
	  .fit_note = "m1 = M1 = M2 and m3 split the budget M");
/* angular-hybrid: the HRF paper's name (sec. 2.4, "angular hybrid") */
HYB_ENTRY(ang, kind_ang, "ang",
	  "angular hybrid, shared projections (HRF eqs. 12, 19, 23)",
	  RFX_EST_COMPLEX, HYB_PARAMS, .aliases = "angular-hybrid",
	  .fit_note = "m1 = m and m3 = n split the budget M");
HYB_ENTRY(ang_ind, kind_ang_ind, "ang-ind",
	  "angular hybrid, independent projections (HRF eq. 22)",
	  RFX_EST_COMPLEX, HYB_PARAMS,
	  .fit_note = "m1 and m3 split the budget M");
/* gaussian-hybrid: the HRF paper's name (sec. 2.4, "Gaussian hybrid") */
HYB_ENTRY(gauss_hyb, kind_gauss, "gauss-hyb",
	  "normalised bipolar Gaussian hybrid (HRF appendix F)",
	  RFX_EST_COMPLEX,
	  HYB_PARAMS | RFX_P(RFX_PARAM_SIGMA) | RFX_P(RFX_PARAM_RHO),
	  .aliases = "gaussian-hybrid",
	  .fit_note = "m1, m3 split the budget M; sigma 1; rho by HRF eq. 68");
/* The independent-projection variants the papers define beside them. */
HYB_ENTRY(hyb_ind, kind_hyb_ind, "hyb-ind",
	  "HybRF, independent projections (thesis eq. 6.9)", RFX_EST_COMPLEX,
	  HYB_PARAMS, .fit_note = "m1 = M1 = M2 and m3 split the budget M");
HYB_ENTRY(gauss_hyb_ind, kind_gauss_ind, "gauss-hyb-ind",
	  "normalised bipolar Gaussian hybrid, independent projections (HRF Theorem F.1)",
	  RFX_EST_COMPLEX,
	  HYB_PARAMS | RFX_P(RFX_PARAM_SIGMA) | RFX_P(RFX_PARAM_RHO),
	  .fit_note = "m1, m3 split the budget M; sigma 1; rho by HRF eq. 68");

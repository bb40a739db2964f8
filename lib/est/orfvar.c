/*
 * The ORF paper's closed forms (see orfvar.h for the derivations):
 * Kummer's 1F1 for ORF's within-block covariance, 0F1 (a Bessel function)
 * for ORF''s mean and second moments, and the block bookkeeping shared by
 * both.
 */
#include "est/orfvar.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_hyperg.h>

/* Relative accuracy below which a hypergeometric value is not trusted. */
#define REL_TOL 1e-6

double rfx_orfvar_rff(double z, int D)
{
	double a = -expm1(-z * z);

	return a * a / (2.0 * D);
}

/* P = sum over blocks of k (k - 1): D = m d + r gives m d (d - 1) + r (r - 1). */
static double pair_count(int d, int D)
{
	double m = (double)(D / d), r = (double)(D % d);

	return m * d * (d - 1.0) + r * (r - 1.0);
}

static int check(double z, int d, int D, struct rfx_err *err)
{
	if (!(z >= 0.0 && z <= RFX_ORFVAR_Z_MAX))
		return rfx_error(err, RFX_EINVAL, "z must be in [0, %g], got %g",
				 RFX_ORFVAR_Z_MAX, z);
	if (d < 1 || d > 100000)
		return rfx_error(err, RFX_EINVAL, "d must be in 1..100000, got %d",
				 d);
	if (D < 1)
		return rfx_error(err, RFX_EINVAL, "D must be at least 1, got %d", D);
	return RFX_OK;
}

/*
 * C = 1F1(d; d/2; -x) - e^{-2x}, x = z^2/2, and an error bound. For
 * x <= SERIES_X the series of the difference itself,
 *   C = sum_{k >= 2} (-x)^k/k! 2^k (prod_{j<k} (1 + j/d)/(1 + 2j/d) - 1)
 * (the k = 0, 1 terms vanish), whose terms are O(k^2/d) (2x)^k/k!: no
 * leading cancellation, and the bracket comes from expm1 of a sum of
 * log1p. Beyond, GSL's 1F1 and its error estimate, which for odd d is
 * sometimes too large (the caller then reports it).
 */
#define SERIES_X 4.5

int rfx_orfvar_cov(double z, int d, double *C, double *cerr)
{
	double x = 0.5 * z * z;

	if (x <= SERIES_X) {
		double lp = 0.0, pw = 1.0, sum = 0.0, abs_sum = 0.0;
		int k;

		for (k = 1; k < 400; k++) {
			double t;

			/* prod_{j<k}: add j = k - 1 */
			lp += log1p((k - 1.0) / d) - log1p(2.0 * (k - 1.0) / d);
			pw *= -2.0 * x / k;	/* (-2x)^k/k! */
			t = pw * expm1(lp);
			sum += t;
			abs_sum += fabs(t);
			if (k > 2.0 * x + 10.0 && fabs(t) <= 1e-17 * fabs(sum))
				break;
		}
		*C = sum;
		*cerr = 64.0 * DBL_EPSILON * abs_sum;
		return 0;
	} else {
		gsl_sf_result h;
		int s = gsl_sf_hyperg_1F1_e((double)d, 0.5 * d, -x, &h);

		*C = h.val - exp(-z * z);
		*cerr = h.err + DBL_EPSILON * exp(-z * z);
		return s;
	}
}

int rfx_orfvar_ort(double z, int d, int D, double *var, struct rfx_err *err)
{
	double P, V1, C = 0.0;
	int ret = check(z, d, D, err);

	if (ret)
		return ret;
	P = pair_count(d, D);
	V1 = rfx_orfvar_rff(z, 1);
	if (P > 0.0 && z > 0.0) {
		double cerr;
		int s = rfx_orfvar_cov(z, d, &C, &cerr);

		/* the error of C against the variance it goes into */
		if (s || !(P * cerr <= REL_TOL * (D * V1 + P * fabs(C))))
			return rfx_error(err, RFX_ENUMERIC,
					 "1F1(%d; %g; %g) not accurate enough (%s)",
					 d, 0.5 * d, -0.5 * z * z,
					 s ? gsl_strerror(s) : "error estimate");
	}
	*var = (D * V1 + P * C) / ((double)D * D);
	/* rounding must not make a variance negative */
	if (*var < 0.0)
		*var = 0.0;
	return RFX_OK;
}

double rfx_orfvar_limit_ratio(double z, int d, int D)
{
	double e = exp(-z * z), a = -expm1(-z * z), f;

	/* e^{-z^2} z^4/(1 - e^{-z^2})^2 -> 1 as z -> 0 */
	f = z > 1e-4 ? e * z * z * z * z / (a * a) : 1.0 - z * z * z * z / 12.0;
	return 1.0 - (d > 0 ? (D - 1.0) / d : 1.0) * f;
}

/*
 * m(z) = 0F1(; d/2; -d z^2/4) = e^{-y} + S, y = z^2/2: *S is the bias of
 * ORF' and *serr its error bound. With b = d/2,
 *   S = sum_{k >= 2} (-y)^k/k! (prod_{j<k} (1 + j/b)^{-1} - 1)
 * (the k = 0, 1 terms vanish; the bracket is -k(k-1)/(2b) + ...), so S
 * comes without cancellation against e^{-y}; its error bound, from the
 * sum of the terms' moduli, grows like e^{2y}: good for small z at any d.
 * GSL's 0F1 (a Bessel function) is accurate for the large arguments of
 * small d but underflows from d ~ 1000 on. S takes whichever of the two
 * has the smaller error estimate.
 */
static void prime_bias(double z, int d, double *S, double *serr)
{
	double y = 0.5 * z * z, b = 0.5 * d, lp = 0.0, pw = 1.0;
	double sum = 0.0, abs_sum = 0.0;
	gsl_sf_result h;
	int k;

	for (k = 1; k < 1000; k++) {
		double t;

		lp -= log1p((k - 1.0) / b);
		pw *= -y / k;
		t = pw * expm1(lp);
		sum += t;
		abs_sum += fabs(t);
		if (k > y + 10.0 && fabs(t) <= 1e-17 * fabs(sum))
			break;
	}
	/* a term carries about 2k roundings */
	*S = sum;
	*serr = 4.0 * (k + 8) * DBL_EPSILON * abs_sum;
	if (z > 0.0 && !gsl_sf_hyperg_0F1_e(b, -0.5 * d * y, &h) &&
	    isfinite(h.val) && h.err + DBL_EPSILON < *serr) {
		*S = h.val - exp(-y);
		*serr = h.err + DBL_EPSILON * exp(-y);
	}
}

/*
 * In terms of S (g = e^{-z^2/2}, so that the exponentials cancel exactly):
 *   V1 = (1 - e^{-z^2})^2/2 + S(2z)/2 - 2 g S(z) - S(z)^2,
 *   C  = S(sqrt 2 z) - 2 g S(z) - S(z)^2.
 */
int rfx_orfvar_prime(double z, int d, int D, double *mean, double *var,
		     struct rfx_err *err)
{
	double s1, e1, s2, e2, ss, es, g, V1, C, P, eV, eC;
	int ret = check(z, d, D, err);

	if (ret)
		return ret;
	if (d == 1) {
		/* w = +-z: every estimate is cos(z) */
		*mean = cos(z);
		*var = 0.0;
		return RFX_OK;
	}
	prime_bias(z, d, &s1, &e1);
	prime_bias(2.0 * z, d, &s2, &e2);
	prime_bias(sqrt(2.0) * z, d, &ss, &es);
	g = exp(-0.5 * z * z);
	V1 = rfx_orfvar_rff(z, 1) + 0.5 * s2 - 2.0 * g * s1 - s1 * s1;
	C = ss - 2.0 * g * s1 - s1 * s1;
	eV = 0.5 * e2 + 2.0 * (g + fabs(s1)) * e1;
	eC = es + 2.0 * (g + fabs(s1)) * e1;
	P = pair_count(d, D);
	*mean = g + s1;
	*var = (D * V1 + P * C) / ((double)D * D);
	/* the errors against the bias and the variance they go into */
	if (!(e1 <= REL_TOL * fabs(s1) + 1e-15) ||
	    !(D * eV + P * eC <= REL_TOL * (D * fabs(V1) + P * fabs(C)) +
				 1e-15 * D))
		return rfx_error(err, RFX_ENUMERIC,
				 "ORF' closed form not accurate enough at z = %g, d = %d",
				 z, d);
	if (*var < 0.0)
		*var = 0.0;
	return RFX_OK;
}

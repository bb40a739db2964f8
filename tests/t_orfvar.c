/*
 * Tests for lib/est/orfvar.c, the ORF paper's closed forms, each against an
 * independent source:
 *
 *   1. RFF's variance (Lemma 1) at a hand-computed value;
 *   2. ORF's exact variance (Kummer's 1F1) against Monte Carlo of TrigRF
 *      on block-orthogonal projections (lib/proj/proj.h), with its mean equal
 *      to the kernel (Theorem 1), and a check that the same Monte Carlo
 *      tells it from RFF's variance;
 *   3. ORF''s mean and variance (0F1) against Monte Carlo on orf-prime
 *      projections, which must also tell the mean from the kernel;
 *   4. ORF''s bias shrinks like 1/d and meets Lemma 5's bound (Fig 3a);
 *   5. SORF's bias shrinks with d (Fig 3b), by Monte Carlo alone, and
 *      meets Theorem 3's bound;
 *   6. Fig 2: eq. 3's large-d ratio against the exact form (their gap
 *      shrinks like 1/d, as Theorem 1's f(z)/d^2 remainder says) and
 *      against a simulation at d = 1024;
 *   7. the paper's errata O1-O3 (docs/ERRATA.md);
 *   8. error paths.
 *
 * The pair: x = 0 and y = z u with u a fixed unit vector (drawn once per
 * d): the kernel is e^{-z^2/2}. Monte Carlo checks pass within 4 standard
 * errors (the mean's, or the delta-method error of the log-variance).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "est/estimator.h"
#include "eval/montecarlo.h"
#include "est/orfvar.h"
#include "base/rng.h"
#include "tap.h"

#define SEED 20221121UL
#define K_SE 4.0

static gsl_rng *stream(int test, int kase)
{
	gsl_rng *r = rfx_rng_alloc_stream(SEED, 200 + (uint64_t)test,
					  (uint64_t)kase, 0);

	if (!r) {
		printf("Bail out! cannot allocate a generator\n");
		exit(1);
	}
	return r;
}

/* x = 0, y = z u with u uniform on the sphere (from r); both d long. */
static void make_pair(gsl_rng *r, int d, double z, double *x, double *y)
{
	double n = 0.0;
	int l;

	for (l = 0; l < d; l++) {
		x[l] = 0.0;
		y[l] = gsl_ran_gaussian(r, 1.0);
		n += y[l] * y[l];
	}
	for (l = 0; l < d; l++)
		y[l] *= z / sqrt(n);
}

/* Monte Carlo of TrigRF with D features on projections p at distance z. */
static struct rfx_mc_result mc(enum rfx_proj p, int d, int D, double z,
			       long R, int kase)
{
	struct rfx_mc_result res;
	struct rfx_params par;
	struct rfx_err err;
	gsl_rng *r = stream(0, kase);
	double *x = malloc((size_t)d * sizeof(double));
	double *y = malloc((size_t)d * sizeof(double));

	if (!x || !y) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	/*
	 * RFX_TEST_SCALE=small: a quarter of the draws. The checks are
	 * z-scores on the sample's own standard errors, valid at any R;
	 * those that must reject a wrong value keep enough power at these
	 * seeds (make valgrind runs them).
	 */
	if (tap_small())
		R /= 4;
	make_pair(r, d, z, x, y);
	rfx_params_init(&par, d);
	rfx_err_clear(&err);
	if (rfx_mc_pairs(&rfx_est_trig, &par, p, D, x, y, 1, R, r, &res, &err)) {
		printf("Bail out! monte carlo: %s\n", err.msg);
		exit(1);
	}
	rfx_params_release(&par);
	free(x);
	free(y);
	gsl_rng_free(r);
	return res;
}

static void test_rff(void)
{
	/* (1 - e^{-1})^2/8 with 1 - e^{-1} = 0.63212055882855767 */
	is_approx(rfx_orfvar_rff(1.0, 4), 0.63212055882855767 * 0.63212055882855767 / 8.0,
		  TEST_TOL1, "RFF: Var = (1 - e^{-z^2})^2/(2D) at z = 1, D = 4");
	ok(rfx_orfvar_rff(0.0, 3) == 0.0, "RFF: no variance at z = 0");
}

static void test_ort(void)
{
	static const struct {
		int d, D;
		double z;
		long R;
	} c[] = {
		{ 4, 4, 1.3, 20000 },
		{ 4, 6, 0.8, 20000 },  /* a full and a truncated block */
		{ 15, 20, 1.1, 10000 }, /* odd d */
		{ 16, 16, 0.7, 10000 },
		{ 64, 64, 1.0, 3000 },
	};
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct rfx_mc_result m = mc(RFX_PROJ_ORT, c[k].d, c[k].D, c[k].z,
					    c[k].R, (int)k);
		double v, K = exp(-0.5 * c[k].z * c[k].z);
		struct rfx_err err;

		rfx_err_clear(&err);
		ok(rfx_orfvar_ort(c[k].z, c[k].d, c[k].D, &v, &err) == RFX_OK,
		   "ORF d = %d, D = %d, z = %g: closed form %s", c[k].d, c[k].D,
		   c[k].z, err.msg);
		is_within_se(m.mean, m.mean_se, K, K_SE,
			     "ORF d = %d, D = %d, z = %g: unbiased (Theorem 1)",
			     c[k].d, c[k].D, c[k].z);
		is_within_se(m.log_var, m.log_var_se, log(v), K_SE,
			     "ORF d = %d, D = %d, z = %g: exact variance (ratio %.4f "
			     "to RFF) matches Monte Carlo", c[k].d, c[k].D, c[k].z,
			     v / rfx_orfvar_rff(c[k].z, c[k].D));
		ok(fabs(m.log_var - log(rfx_orfvar_rff(c[k].z, c[k].D))) >
			   K_SE * m.log_var_se,
		   "ORF d = %d, D = %d, z = %g: the same Monte Carlo rejects RFF's "
		   "variance", c[k].d, c[k].D, c[k].z);
	}
}

static void test_prime(void)
{
	static const struct {
		int d, D;
		double z;
		long R;
	} c[] = {
		{ 4, 4, 1.5, 20000 },
		{ 8, 8, 2.5, 20000 },
		{ 16, 24, 1.0, 10000 },
	};
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct rfx_mc_result m = mc(RFX_PROJ_ORF_PRIME, c[k].d, c[k].D,
					    c[k].z, c[k].R, 10 + (int)k);
		double mean, v, K = exp(-0.5 * c[k].z * c[k].z);
		struct rfx_err err;

		rfx_err_clear(&err);
		ok(rfx_orfvar_prime(c[k].z, c[k].d, c[k].D, &mean, &v, &err) ==
			   RFX_OK, "ORF' d = %d, D = %d, z = %g: closed form %s",
		   c[k].d, c[k].D, c[k].z, err.msg);
		is_within_se(m.mean, m.mean_se, mean, K_SE,
			     "ORF' d = %d, D = %d, z = %g: mean 0F1 = %.5f matches "
			     "Monte Carlo", c[k].d, c[k].D, c[k].z, mean);
		ok(fabs(m.mean - K) > K_SE * m.mean_se,
		   "ORF' d = %d, z = %g: biased, Monte Carlo rejects K = %.5f",
		   c[k].d, c[k].z, K);
		is_within_se(m.log_var, m.log_var_se, log(v), K_SE,
			     "ORF' d = %d, D = %d, z = %g: exact variance matches "
			     "Monte Carlo", c[k].d, c[k].D, c[k].z);
	}
}

/*
 * Lemma 5: |m - e^{-y}(1 - z^4/(4d))| <= e^{z^2/2} z^4 (z^4 + 8 z^2 + 8)/(16 d^2),
 * y = z^2/2; so the bias goes as 1/d: bias(d)/bias(2d) -> 2.
 */
static void test_prime_bias(void)
{
	static const int ds[4] = { 4, 8, 16, 32 };
	double z = 1.5, prev = HUGE_VAL;
	int k, shrink = 1, lemma = 1, dd;

	for (k = 0; k < 4; k++) {
		double m, v, b;

		rfx_orfvar_prime(z, ds[k], ds[k], &m, &v, NULL);
		b = fabs(m - exp(-0.5 * z * z));
		shrink &= b < prev;
		if (k > 0)
			diag("ORF' |bias| at z = 1.5: d = %d %.5f, ratio to d/2 %.3f",
			     ds[k], b, prev / b);
		prev = b;
	}
	ok(shrink, "ORF' |bias| at z = 1.5 decreases over d = 4, 8, 16, 32 (Fig 3a)");
	for (dd = 4; dd <= 1024; dd *= 4) {
		double zs[3] = { 0.5, 1.0, 2.0 };

		for (k = 0; k < 3; k++) {
			double m, v, zz = zs[k], z4 = zz * zz * zz * zz;
			double lead = exp(-0.5 * zz * zz) * (1.0 - z4 / (4.0 * dd));
			double bound = exp(0.5 * zz * zz) * z4 *
				       (z4 + 8.0 * zz * zz + 8.0) / (16.0 * dd * dd);

			rfx_orfvar_prime(zz, dd, dd, &m, &v, NULL);
			lemma &= fabs(m - lead) <= bound;
		}
	}
	ok(lemma, "ORF' mean within Lemma 5's bound at d = 4 .. 1024, z = 0.5, 1, 2");
	{
		double m1, m2, v;

		rfx_orfvar_prime(1.0, 512, 512, &m1, &v, NULL);
		rfx_orfvar_prime(1.0, 1024, 1024, &m2, &v, NULL);
		is_approx((m1 - exp(-0.5)) / (m2 - exp(-0.5)), 2.0, 0.01,
			  "ORF' bias halves from d = 512 to 1024 (1/d law)");
	}
}

/* SORF's bias at z = 1.5: Monte Carlo at d = 4 and d = 32. */
static void test_sorf_bias(void)
{
	double z = 1.5, K = exp(-0.5 * z * z);
	struct rfx_mc_result a = mc(RFX_PROJ_SORF, 4, 4, z, 20000, 20);
	struct rfx_mc_result b = mc(RFX_PROJ_SORF, 32, 32, z, 20000, 21);
	double ba = a.mean - K, bb = b.mean - K;

	diag("SORF bias at z = 1.5: d = 4 %.4f +- %.4f, d = 32 %.4f +- %.4f",
	     ba, a.mean_se, bb, b.mean_se);
	ok(fabs(ba) > K_SE * a.mean_se, "SORF d = 4: biased (Monte Carlo)");
	ok(fabs(ba) - fabs(bb) > K_SE * sqrt(a.mean_se * a.mean_se +
					     b.mean_se * b.mean_se),
	   "SORF |bias| smaller at d = 32 than at d = 4 (Fig 3b)");
	ok(fabs(ba) <= 6.0 * z / 2.0 + K_SE * a.mean_se &&
	   fabs(bb) <= 6.0 * z / sqrt(32.0) + K_SE * b.mean_se,
	   "SORF bias within Theorem 3's 6z/sqrt(d)");
}

/*
 * The ORF estimate for D <= d is (1/D) sum_i cos(z s_i v_i) with v uniform
 * on the unit sphere (the coordinates of Q z/|z| for Haar Q) and s_i
 * independent chi(d): O(d) per draw, so d = 1024 is cheap. Returns the
 * sample variance and its standard error over R draws.
 */
static void reduced_sim(int d, double z, long R, double *var, double *se)
{
	gsl_rng *r = stream(6, (int)(10 * z));
	double *v = malloc((size_t)d * sizeof(double));
	double s1 = 0.0, s2 = 0.0, s4 = 0.0, mean;
	double *est = malloc((size_t)R * sizeof(double));
	long q;
	int l;

	if (!v || !est) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (q = 0; q < R; q++) {
		double n = 0.0, e = 0.0;

		for (l = 0; l < d; l++) {
			v[l] = gsl_ran_gaussian_ziggurat(r, 1.0);
			n += v[l] * v[l];
		}
		n = sqrt(n);
		for (l = 0; l < d; l++)
			e += cos(z * sqrt(gsl_ran_chisq(r, (double)d)) * v[l] / n);
		est[q] = e / d;
		s1 += est[q];
	}
	mean = s1 / R;
	for (q = 0; q < R; q++) {
		double t = (est[q] - mean) * (est[q] - mean);

		s2 += t;
		s4 += t * t;
	}
	*var = s2 / (R - 1);
	*se = sqrt((s4 / R - *var * *var * (R - 3.0) / (R - 1.0)) / R);
	free(v);
	free(est);
	gsl_rng_free(r);
}

static void test_fig2(void)
{
	double zs[2] = { 1.0, 2.0 };
	int k;

	for (k = 0; k < 2; k++) {
		double z = zs[k], v1, v4, l1 = rfx_orfvar_limit_ratio(z, 1024, 1024);
		double l4 = rfx_orfvar_limit_ratio(z, 4096, 4096), vs, se, g1, g4;

		rfx_orfvar_ort(z, 1024, 1024, &v1, NULL);
		rfx_orfvar_ort(z, 4096, 4096, &v4, NULL);
		g1 = v1 / rfx_orfvar_rff(z, 1024) - l1;
		g4 = v4 / rfx_orfvar_rff(z, 4096) - l4;
		ok(g1 != 0.0 && g4 / g1 > 0.2 && g4 / g1 < 0.3,
		   "z = %g: exact minus eq. 3 shrinks like 1/d (d = 1024: %.2g, "
		   "4096: %.2g)", z, g1, g4);
		reduced_sim(1024, z, tap_small() ? 2000 : 20000, &vs, &se);
		se /= rfx_orfvar_rff(z, 1024);
		vs /= rfx_orfvar_rff(z, 1024);
		is_within_se(vs, se, l1, K_SE,
			     "z = %g, d = D = 1024: simulated Var ORF/Var RFF "
			     "matches eq. 3 (%.4f)", z, l1);
		is_within_se(vs, se, v1 / rfx_orfvar_rff(z, 1024), K_SE,
			     "z = %g, d = D = 1024: and the exact form", z);
		ok(fabs(vs - 1.0) > K_SE * se, "z = %g: and is far from RFF's 1", z);
	}
	is_approx(rfx_orfvar_limit_ratio(1.0, 0, 0),
		  1.0 - exp(-1.0) / ((1.0 - exp(-1.0)) * (1.0 - exp(-1.0))),
		  TEST_TOL2, "Fig 2a, d -> infinity at z = 1: 1 - e^{-1}/(1 - e^{-1})^2");
	ok(fabs(rfx_orfvar_limit_ratio(1e-6, 0, 0)) < 1e-9,
	   "Fig 2a: the ratio vanishes as z -> 0 (like z^2)");
}

/*
 * The errata of the ORF paper (docs/ERRATA.md, O1-O3), each decided here.
 *
 * O1: Lemma 3 says W z ~ N(0, |z| I) for Gaussian W; each coordinate
 * w.z has variance |z|^2. Sample variance of w.z over 40,000 iid columns
 * at |z| = 2.385: the standard error of a sample variance of normals is
 * sigma^2 sqrt(2/R).
 *
 * O2: the proof of Lemma 6 bounds Cov(a1, a2) by -e^{+z^2} z^4/(2d); the
 * expansion of the exact covariance C = m(sqrt 2 z) - m(z)^2 (from Var
 * with D = 1 and D = 2: C = 2 Var_2 - Var_1) gives -e^{-z^2} z^4/(2d):
 * d C at d = 4096 against both, z = 1.5 (they differ by e^{2 z^2} = 90).
 *
 * O3: sec. 3 says that as z -> 0 (d -> infinity) the ratio of eq. 3 is
 * "roughly z^2"; expanding, 1 - e^{-z^2} z^4/(1 - e^{-z^2})^2 = z^4/12 +
 * O(z^6): at z = 0.1 the ratio is 8.3e-6, not 0.01.
 */
static void test_errata(void)
{
	enum { D = 5, R = 40000 };
	gsl_rng *r = stream(7, 0);
	double z[D] = { 1.0, -0.5, 2.0, 0.3, -0.2 }, n2 = 0.0, s = 0.0, s2 = 0.0;
	double m, v1, v2, C, lead, zz = 1.5;
	int q, l;

	for (l = 0; l < D; l++)
		n2 += z[l] * z[l];
	for (l = 0; l < D; l++)
		z[l] *= 2.385 / sqrt(n2);
	for (q = 0; q < R; q++) {
		double t = 0.0;

		for (l = 0; l < D; l++)
			t += gsl_ran_gaussian(r, 1.0) * z[l];
		s += t;
		s2 += t * t;
	}
	s2 = s2 / R - (s / R) * (s / R);
	is_within_se(s2, 2.385 * 2.385 * sqrt(2.0 / R), 2.385 * 2.385, K_SE,
		     "O1: Var(w.z) = |z|^2 = 5.688 (Lemma 3 prints |z| = 2.385)");
	ok(fabs(s2 - 2.385) > 20 * 2.385 * 2.385 * sqrt(2.0 / R),
	   "O1: and is more than 20 standard errors from |z|");
	gsl_rng_free(r);

	rfx_orfvar_prime(zz, 4096, 1, &m, &v1, NULL);
	rfx_orfvar_prime(zz, 4096, 2, &m, &v2, NULL);
	C = 2.0 * v2 - v1;
	lead = -exp(-zz * zz) * pow(zz, 4) / 2.0;
	is_approx(4096 * C, lead, 0.01,
		  "O2: d Cov(a1, a2) -> -e^{-z^2} z^4/2 for ORF' (d = 4096, z = 1.5)");
	ok(fabs(4096 * C / (-exp(zz * zz) * pow(zz, 4) / 2.0)) < 0.02,
	   "O2: the printed -e^{+z^2} z^4/2 is 90 times too large");
	is_approx(rfx_orfvar_limit_ratio(0.1, 0, 0) / (1e-4 / 12.0), 1.0, 0.01,
		  "O3: eq. 3 at z = 0.1 is z^4/12 = 8.3e-6");
	ok(rfx_orfvar_limit_ratio(0.1, 0, 0) < 0.01 / 100,
	   "O3: not z^2 = 0.01 (more than 100 times smaller)");
}

static void test_errors(void)
{
	struct rfx_err err;
	double v, m;

	rfx_err_clear(&err);
	ok(rfx_orfvar_ort(-0.1, 4, 4, &v, &err) == RFX_EINVAL && err.msg[0],
	   "z < 0 is RFX_EINVAL (%s)", err.msg);
	ok(rfx_orfvar_ort(NAN, 4, 4, &v, NULL) == RFX_EINVAL, "z = nan is RFX_EINVAL");
	ok(rfx_orfvar_prime(6.5, 4, 4, &m, &v, NULL) == RFX_EINVAL,
	   "z > 6 is RFX_EINVAL");
	ok(rfx_orfvar_ort(1.0, 0, 4, &v, NULL) == RFX_EINVAL &&
	   rfx_orfvar_prime(1.0, 4, 0, &m, &v, NULL) == RFX_EINVAL,
	   "d = 0 and D = 0 are RFX_EINVAL");
	rfx_err_clear(&err);
	ok(rfx_orfvar_ort(6.0, 157, 157, &v, &err) == RFX_ENUMERIC,
	   "odd d beyond z = 3 where 1F1 is inaccurate is RFX_ENUMERIC (%s)",
	   err.msg);
	ok(rfx_orfvar_prime(2.0, 1, 3, &m, &v, NULL) == RFX_OK && m == cos(2.0) &&
	   v == 0.0, "ORF' at d = 1: w = +-z, every estimate cos(z)");
}

int main(void)
{
	gsl_set_error_handler_off();
	test_rff();
	test_ort();
	test_prime();
	test_prime_bias();
	test_sorf_bias();
	test_fig2();
	test_errata();
	test_errors();
	return done_testing();
}

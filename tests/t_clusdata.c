/*
 * Tests for lib/exp/clusdata.c, the synthetic clusters of HRF appendix H.3:
 * the sign search on a case worked by hand, the paper's four targets
 * reached to the two decimals it prints, the invariants of the
 * construction (equal mean lengths, E|x|^2 = r^2 exactly, points around
 * their means), both scalings, errors and reproducibility.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "exp/clusdata.h"
#include "est/clushyb.h"
#include "base/rng.h"
#include "tap.h"

/* The paper's targets (HRF H.3) and sigmas. */
static const double S[4][4] = {
	{ 0.08, 0.05, 0.04, 0.03 },
	{ 0.11, 0.09, 0.08, 0.07 },
	{ 0.05, 0.03, 0.03, 0.02 },
	{ 0.07, 0.06, 0.05, 0.04 },
};
static const double SIG[4] = { 1.0, 1.0, 3.1622776601683795, 3.1622776601683795 };

static void config(struct rfx_clusdata_config *c, int id, size_t points)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->d = 50;
	c->points = points;
	c->sigma = SIG[id - 1];
	memcpy(c->s, S[id - 1], sizeof(c->s));
	c->mean_sd = 10.0;
	c->norm = 0.7;
	c->scaling = RFX_CLUSDATA_MEAN;
	c->seed = 20221121UL;
}

/*
 * 1. By hand, d = 2: coordinate 0 with x_1 agreeing with both y's (pairs
 * 11, 12: pattern 7 = x2 -, y1 +, y2 +) and coordinate 1 on the diagonal
 * (pairs 11, 22: pattern 3 = x2 -, y1 +, y2 -). With a = ((1, 2), (3, 1))
 * / 10 and b = ((2, 1), (1, 4)) / 10 the sums are
 *   s11 = 4 (0.1 0.2 + 0.2 0.1) = 0.16, s12 = 4 (0.1 0.1) = 0.04,
 *   s21 = 0, s22 = 4 (0.1 0.4) = 0.16,
 * reachable exactly; the search must find them.
 */
static void test_signs_by_hand(void)
{
	static const double a[4] = { 0.1, 0.2, 0.3, 0.1 };
	static const double b[4] = { 0.2, 0.1, 0.1, 0.4 };
	static const double t[4] = { 0.16, 0.04, 0.0, 0.16 };
	double s[4];
	int pat[2], q, good = 1;
	gsl_rng *r = rfx_rng_alloc_stream(1, 2, 3, 4);
	struct rfx_err err;

	rfx_clusdata_signs(r, a, b, 2, t, 1, pat, s, NULL);
	for (q = 0; q < 4; q++)
		good &= fabs(s[q] - t[q]) < 1e-15;
	ok(good, "d = 2 by hand: s = (0.16, 0.04, 0, 0.16) reached (%g %g %g %g)",
	   s[0], s[1], s[2], s[3]);
	ok(pat[0] == 7 && pat[1] == 3, "patterns 7 and 3 (got %d, %d)", pat[0], pat[1]);
	rfx_err_clear(&err);
	ok(rfx_clusdata_signs(r, a, b, 2, t, 0, pat, s, &err) == RFX_EINVAL,
	   "no start is RFX_EINVAL (%s)", err.msg);
	gsl_rng_free(r);
}

/*
 * 2. The paper's configurations at d = 50: each pair's l* at the scaled
 * means, recomputed here as 4 sum max(0, mu_l nu_l), is within 0.005 of
 * its target (the precision of the printed two decimals), and the search
 * reports what the means have.
 */
static void test_targets(void)
{
	int id;

	for (id = 1; id <= 4; id++) {
		struct rfx_clusdata_config c;
		struct rfx_clusdata D;
		struct rfx_err err;
		double worst = 0.0, worst_rep = 0.0;
		int q;

		config(&c, id, 20);
		if (rfx_clusdata_make(&c, &D, &err)) {
			ok(0, "configuration %d: %s", id, err.msg);
			continue;
		}
		for (q = 0; q < 4; q++) {
			const double *mu = D.mu + (q >> 1) * 50, *nu = D.nu + (q & 1) * 50;
			double s = 0.0;
			int l;

			for (l = 0; l < 50; l++)
				s += mu[l] * nu[l] > 0.0 ? 4.0 * mu[l] * nu[l] : 0.0;
			if (fabs(s - S[id - 1][q]) > worst)
				worst = fabs(s - S[id - 1][q]);
			if (fabs(s - D.s[q]) > worst_rep)
				worst_rep = fabs(s - D.s[q]);
		}
		ok(worst <= 0.005 && worst_rep < 1e-15,
		   "s%d: every pair within %.4f of its target (<= 0.005), as reported",
		   id, worst);
		rfx_clusdata_release(&D);
	}
}

/*
 * 3. Invariants, configuration 3 (sigma = sqrt 10) with 1000 points per
 * cluster, scaling "mean":
 *  - |mu_1| = |mu_2| and |nu_1| = |nu_2|: rotations and sign changes keep
 *    the length of X0 (Y0);
 *  - E|x|^2 = c^2 (|X0|^2 + d sigma^2) = r^2 by the choice of c: the mean
 *    of |x|^2 over the 2000 x's, with Var |x|^2 = 4 c^2 sigma^2 |mu|^2 +
 *    2 c^4 sigma^4 d (a noncentral chi-square) for the SE;
 *  - each cluster's sample mean is its mu: sum_l ((xbar_l - mu_l)/se)^2
 *    with se = c sigma / sqrt(1000) is chi-square(d), below d + 4 sqrt(2d).
 */
static void test_invariants(void)
{
	struct rfx_clusdata_config c;
	struct rfx_clusdata D;
	struct rfx_err err;
	double n1 = 0, n2 = 0, m1 = 0, m2 = 0, sum = 0, var, se;
	size_t i, P = 1000;
	int l, k;

	config(&c, 3, P);
	if (rfx_clusdata_make(&c, &D, &err)) {
		ok(0, "configuration 3: %s", err.msg);
		return;
	}
	for (l = 0; l < 50; l++) {
		n1 += D.mu[l] * D.mu[l];
		n2 += D.mu[50 + l] * D.mu[50 + l];
		m1 += D.nu[l] * D.nu[l];
		m2 += D.nu[50 + l] * D.nu[50 + l];
	}
	ok(fabs(n1 - n2) < 1e-13 * n1 && fabs(m1 - m2) < 1e-13 * m1,
	   "|mu_1| = |mu_2| and |nu_1| = |nu_2|");
	for (i = 0; i < D.nx; i++)
		for (l = 0; l < 50; l++)
			sum += D.X[i * 50 + l] * D.X[i * 50 + l];
	var = 4 * D.cx * D.cx * c.sigma * c.sigma * n1 +
	      2 * pow(D.cx * c.sigma, 4) * 50;
	se = sqrt(var / (double)D.nx);
	is_within_se(sum / (double)D.nx, se, 0.49, 4.0, "E|x|^2 = r^2 = 0.49");
	for (k = 0; k < 4; k++) {
		const double *pts = k < 2 ? D.X + (size_t)k * P * 50 : D.Y + (size_t)(k - 2) * P * 50;
		const double *mean = k < 2 ? D.mu + k * 50 : D.nu + (k - 2) * 50;
		double cs = (k < 2 ? D.cx : D.cy) * c.sigma / sqrt((double)P), chi = 0.0;

		for (l = 0; l < 50; l++) {
			double xb = 0.0;

			for (i = 0; i < P; i++)
				xb += pts[i * 50 + l] / (double)P;
			chi += (xb - mean[l]) * (xb - mean[l]) / (cs * cs);
		}
		ok(chi < 50 + 4 * sqrt(100.0), "cluster %d: sample mean around mu (chi^2_50 = %.1f)",
		   k, chi);
	}
	rfx_clusdata_release(&D);
	c.scaling = RFX_CLUSDATA_SPHERE;
	if (rfx_clusdata_make(&c, &D, &err)) {
		ok(0, "sphere: %s", err.msg);
		return;
	}
	{
		double worst = 0.0;

		for (i = 0; i < D.ny; i++) {
			double nn = 0.0;

			for (l = 0; l < 50; l++)
				nn += D.Y[i * 50 + l] * D.Y[i * 50 + l];
			if (fabs(sqrt(nn) - 0.7) > worst)
				worst = fabs(sqrt(nn) - 0.7);
		}
		ok(worst < 1e-14, "sphere: every |y| = r (off by %.2g)", worst);
	}
	rfx_clusdata_release(&D);
}

static void test_reproducible_and_errors(void)
{
	struct rfx_clusdata_config c;
	struct rfx_clusdata A, B;
	struct rfx_err err;
	static const struct {
		const char *field;
		double v;
	} bad[] = { { "sigma", NAN }, { "sigma", -1 }, { "norm", 0 },
		    { "mean_sd", -2 }, { "s", -0.01 }, { "s", INFINITY } };
	size_t k;

	config(&c, 2, 30);
	rfx_clusdata_make(&c, &A, NULL);
	rfx_clusdata_make(&c, &B, NULL);
	ok(!memcmp(A.X, B.X, A.nx * 50 * sizeof(double)) &&
	   !memcmp(A.Y, B.Y, A.ny * 50 * sizeof(double)), "same configuration, same bytes");
	rfx_clusdata_release(&B);
	c.id = 1;
	rfx_clusdata_make(&c, &B, NULL);
	ok(memcmp(A.X, B.X, A.nx * 50 * sizeof(double)) != 0,
	   "another id, other data");
	rfx_clusdata_release(&A);
	rfx_clusdata_release(&B);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		config(&c, 1, 10);
		if (!strcmp(bad[k].field, "sigma"))
			c.sigma = bad[k].v;
		else if (!strcmp(bad[k].field, "norm"))
			c.norm = bad[k].v;
		else if (!strcmp(bad[k].field, "mean_sd"))
			c.mean_sd = bad[k].v;
		else
			c.s[2] = bad[k].v;
		rfx_err_clear(&err);
		ok(rfx_clusdata_make(&c, &A, &err) == RFX_EINVAL && !A.X,
		   "%s = %g is RFX_EINVAL (%s)", bad[k].field, bad[k].v, err.msg);
	}
	config(&c, 1, 0);
	ok(rfx_clusdata_make(&c, &A, &err) == RFX_EINVAL, "0 points is RFX_EINVAL (%s)",
	   err.msg);
}

int main(void)
{
	gsl_set_error_handler_off();
	plan(3 + 4 + 7 + 2 + 6 + 1);
	test_signs_by_hand();
	test_targets();
	test_invariants();
	test_reproducible_and_errors();
	return done_testing();
}

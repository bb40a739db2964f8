/*
 * Tests for lib/proj/proj.c: the exact structure of block-orthogonal projections
 * (orthogonality inside a block, storage offsets, the truncated last block),
 * their distribution against closed-form moments, error paths and
 * reproducibility of the streams.
 *
 * Monte Carlo checks compare a sample mean with its exact expectation and
 * pass within K_SE standard errors; every standard error comes from the
 * exact variance of the summand, derived next to each check. With 42
 * such checks at 4 sigma, a correct sampler fails one with probability
 * about 3e-3 for a random seed; the seeds here are fixed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#define PROJ_STREAM_BASE 0
#include "proj_check.h"
#include "tap.h"

#define K_SE 4.0

static double cosine(const double *omega, size_t ld, int d, size_t a,
		     size_t b)
{
	return dot(omega, ld, d, a, b) /
	       sqrt(dot(omega, ld, d, a, a) * dot(omega, ld, d, b, b));
}

/* Running sums of x^1..x^4 for moment checks. */
struct mom {
	double s[5]; /* s[k] = sum of x^k, s[0] = count */
};

static void mom_add(struct mom *m, double x)
{
	double p = 1.0;
	int k;

	for (k = 0; k <= 4; k++) {
		m->s[k] += p;
		p *= x;
	}
}

static double mom_mean(const struct mom *m, int k)
{
	return m->s[k] / m->s[0];
}

/*
 * 1. Orthogonality. Columns of one block are sign(R_jj) chi_j times columns
 * of an orthogonal Q, so their cosines vanish up to rounding (a few ulps
 * times d); columns of independent blocks have a continuous cosine
 * distribution, so |cos| < 1e-9 has probability about 1e-9 per pair.
 */
static void test_orthogonality(void)
{
	enum { D = 7, M = 17, LD = 20, COL0 = 2, DRAWS = 50 };
	struct rfx_proj_ws *ws = workspace(D);
	gsl_rng *r = stream(1, 0);
	double *omega = alloc_omega(D, LD);
	double within = 0.0, across = HUGE_VAL;
	int n, a, b, untouched = 1;

	for (n = 0; n < DRAWS; n++) {
		draw(r, RFX_PROJ_ORT, D, M, omega, LD, COL0, ws);
		for (a = 0; a < M; a++) {
			for (b = a + 1; b < M; b++) {
				double c = fabs(cosine(omega, LD, D,
						       (size_t)(COL0 + a),
						       (size_t)(COL0 + b)));

				/* blocks are columns 0-6, 7-13 and 14-16 */
				if (a / D == b / D)
					within = fmax(within, c);
				else
					across = fmin(across, c);
			}
		}
		for (a = 0; a < D; a++) {
			untouched &= omega[a * LD + 0] == SENTINEL;
			untouched &= omega[a * LD + 1] == SENTINEL;
			untouched &= omega[a * LD + LD - 1] == SENTINEL;
		}
	}
	ok(within < 1e-12,
	   "ort d=7 M=17: columns of one block are orthogonal (max |cos| %.2g)",
	   within);
	ok(across > 1e-9,
	   "ort d=7 M=17: columns of different blocks are not (min |cos| %.2g)",
	   across);
	ok(untouched, "ort writes only columns col0 .. col0+M-1");

	free(omega);
	omega = alloc_omega(D, LD);
	draw(r, RFX_PROJ_IID, D, M, omega, LD, COL0, ws);
	untouched = 1;
	for (a = 0; a < D; a++) {
		untouched &= omega[a * LD + 0] == SENTINEL;
		untouched &= omega[a * LD + 1] == SENTINEL;
		untouched &= omega[a * LD + LD - 1] == SENTINEL;
		untouched &= omega[a * LD + COL0] != SENTINEL;
		untouched &= omega[a * LD + COL0 + M - 1] != SENTINEL;
	}
	ok(untouched, "iid writes exactly columns col0 .. col0+M-1");

	/* M < d (one truncated block) and M = d (one full block) */
	for (n = 0; n < 2; n++) {
		int m = n == 0 ? 3 : D;

		within = 0.0;
		draw(r, RFX_PROJ_ORT, D, m, omega, LD, 0, ws);
		for (a = 0; a < m; a++)
			for (b = a + 1; b < m; b++)
				within = fmax(within,
					      fabs(cosine(omega, LD, D,
							  (size_t)a,
							  (size_t)b)));
		ok(within < 1e-12,
		   "ort d=7 M=%d: columns orthogonal (max |cos| %.2g)", m,
		   within);
	}
	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);

	/* d = 1: Q = +-1, so omega = +-chi(1); and M = 1 */
	{
		struct rfx_proj_ws *ws1 = workspace(1);
		gsl_rng *r1 = stream(1, 1);
		double w[3] = { SENTINEL, SENTINEL, SENTINEL };
		int fine;

		draw(r1, RFX_PROJ_ORT, 1, 3, w, 3, 0, ws1);
		fine = isfinite(w[0]) && isfinite(w[1]) && isfinite(w[2]) &&
		       w[0] != SENTINEL && w[2] != SENTINEL;
		ws = workspace(5);
		omega = alloc_omega(5, 1);
		draw(r1, RFX_PROJ_ORT, 5, 1, omega, 1, 0, ws);
		fine &= isfinite(omega[4]) && omega[4] != SENTINEL;
		ok(fine, "ort works for d = 1 and for M = 1");
		free(omega);
		rfx_proj_ws_free(ws);
		rfx_proj_ws_free(ws1);
		gsl_rng_free(r1);
	}
}

/*
 * 2, 3 and 5: distribution of single columns, from one loop per kind.
 * d = 5, M = 8: block 1 is columns 0-4, block 2 keeps columns 5-7.
 */
enum { DD = 5, MM = 8, NDRAW = 40000 };

/*
 * 2. Norms. |omega_m|^2 = chi_m^2 ~ chi^2(d) for ort (|Q e_j| = 1) and iid
 * alike, independent across columns and draws, so all N = NDRAW * M values
 * are i.i.d. chi^2(d): mean d, variance 2d, fourth central moment
 * mu4 = 12 d (d + 4) (central moments of chi^2(k): 2k, 8k, 12k^2 + 48k).
 * SE of the mean: sqrt(2d / N). The unbiased sample variance s^2 has
 * Var s^2 = mu4 / N - sigma^4 (N - 3) / (N (N - 1)), exact for i.i.d. data.
 */
static void check_norms(const char *kind, const struct mom *m)
{
	double N = m->s[0], d = DD;
	double mean = mom_mean(m, 1);
	double s2 = (m->s[2] - N * mean * mean) / (N - 1.0);
	double mu4 = 12.0 * d * (d + 4.0), sig4 = 4.0 * d * d;
	double se_s2 = sqrt(mu4 / N - sig4 * (N - 3.0) / (N * (N - 1.0)));

	is_within_se(mean, sqrt(2.0 * d / N), d, K_SE,
		     "%s d=5: mean |omega|^2 = d", kind);
	is_within_se(s2, se_s2, 2.0 * d, K_SE,
		     "%s d=5: variance of |omega|^2 = 2d", kind);
}

/*
 * 3. Directions. u = omega / |omega| is uniform on S^{d-1}, so u_1^2 ~
 * Beta(1/2, (d-1)/2) and E u_1^{2k} = (1 3 ... (2k-1)) / (d (d+2) ...
 * (d+2k-2)): E u_1^2 = 1/d, E u_1^4 = 3/(d(d+2)),
 * E u_1^8 = 105/(d(d+2)(d+4)(d+6)); E u_1 = 0 by symmetry. The SE of each
 * mean is sqrt(Var / N) with Var u_1 = 1/d, Var u_1^2 = E u^4 - (E u^2)^2,
 * Var u_1^4 = E u^8 - (E u^4)^2.
 */
static void check_direction(const char *what, const struct mom *u)
{
	double N = u->s[0], d = DD;
	double e2 = 1.0 / d, e4 = 3.0 / (d * (d + 2.0));
	double e8 = 105.0 / (d * (d + 2.0) * (d + 4.0) * (d + 6.0));

	is_within_se(mom_mean(u, 1), sqrt(e2 / N), 0.0, K_SE,
		     "%s: E u_1 = 0", what);
	is_within_se(mom_mean(u, 2), sqrt((e4 - e2 * e2) / N), e2, K_SE,
		     "%s: E u_1^2 = 1/d", what);
	is_within_se(mom_mean(u, 4), sqrt((e8 - e4 * e4) / N), e4, K_SE,
		     "%s: E u_1^4 = 3/(d(d+2))", what);
}

/*
 * The sign test. Omega_jj > 0 is an event of probability 1/2 for any
 * direction distribution symmetric under u_j -> -u_j; the count is
 * Binomial(N, 1/2), SE of the fraction 1/(2 sqrt N). Without the
 * sign(R_jj) correction GSL's Householder QR gives Q_00 < 0 always and
 * biases every diagonal entry (Q_dd > 0 about 84% of the time for d = 5).
 */
static void check_sign(const char *what, double npos, double N)
{
	is_within_se(npos / N, 0.5 / sqrt(N), 0.5, K_SE,
		     "%s: P(> 0) = 1/2", what);
}

/*
 * 5. Coordinates. omega_lm ~ N(0, 1): E x = 0, E x^2 = 1, E x^4 = 3, with
 * Var x = 1, Var x^2 = 3 - 1 = 2, Var x^4 = E x^8 - 9 = 105 - 9 = 96.
 */
static void check_gauss(const char *what, const struct mom *x)
{
	double N = x->s[0];

	is_within_se(mom_mean(x, 1), sqrt(1.0 / N), 0.0, K_SE,
		     "%s: mean 0", what);
	is_within_se(mom_mean(x, 2), sqrt(2.0 / N), 1.0, K_SE,
		     "%s: E x^2 = 1", what);
	is_within_se(mom_mean(x, 4), sqrt(96.0 / N), 3.0, K_SE,
		     "%s: E x^4 = 3", what);
}

static void test_distribution(enum rfx_proj p)
{
	/* columns checked: first and last of block 1, last of block 2 */
	static const int cols[3] = { 0, DD - 1, MM - 1 };
	struct rfx_proj_ws *ws = workspace(DD);
	gsl_rng *r = stream(2, (int)p);
	double *omega = alloc_omega(DD, MM);
	struct mom norm2 = { { 0 } }, u[3], x[2];
	double npos[3] = { 0 };
	char what[96];
	const char *kind = rfx_proj_name(p);
	int n, m, i;

	memset(u, 0, sizeof(u));
	memset(x, 0, sizeof(x));
	for (n = 0; n < NDRAW; n++) {
		draw(r, p, DD, MM, omega, MM, 0, ws);
		for (m = 0; m < MM; m++)
			mom_add(&norm2, dot(omega, MM, DD, (size_t)m,
					    (size_t)m));
		for (i = 0; i < 3; i++) {
			int c = cols[i];
			/* the diagonal entry of column c within its block */
			int l = c % DD;

			mom_add(&u[i], omega[c] / sqrt(dot(omega, MM, DD,
							   (size_t)c,
							   (size_t)c)));
			npos[i] += omega[l * MM + c] > 0.0;
		}
		/* one entry per column and draw keeps the summands i.i.d. */
		mom_add(&x[0], omega[0 * MM + 2]);
		mom_add(&x[1], omega[(DD - 1) * MM + MM - 1]);
	}
	check_norms(kind, &norm2);
	for (i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "%s d=5 column %d direction",
			 kind, cols[i]);
		check_direction(what, &u[i]);
	}
	for (i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "%s d=5 Omega[%d][%d] sign", kind,
			 cols[i] % DD, cols[i]);
		check_sign(what, npos[i], NDRAW);
	}
	snprintf(what, sizeof(what), "%s d=5 Omega[0][2] ~ N(0,1)", kind);
	check_gauss(what, &x[0]);
	snprintf(what, sizeof(what), "%s d=5 Omega[4][7] ~ N(0,1)", kind);
	check_gauss(what, &x[1]);

	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
}

/*
 * 4. Independent blocks, ort with M = 2d. For a in block 1 and b in block 2
 * the columns are independent N(0, I_d), so a.b | a ~ N(0, |a|^2) and
 * (a.b)^2 = |a|^2 z^2 with z ~ N(0, 1) independent of a:
 * E (a.b)^2 = d, E (a.b)^4 = E|a|^4 E z^4 = 3 d (d + 2), hence
 * Var (a.b)^2 = 3d(d+2) - d^2 = 2d^2 + 6d. One pair per draw keeps the
 * summands independent. Inside a block a.b = 0 up to rounding.
 *
 * The chi(d) norms of one block are independent too (a shared norm would
 * leave every marginal intact): with y = |omega|^2 - d, y_a and y_b of
 * one block are independent with variance 2d, so E y_a y_b = 0 and
 * Var y_a y_b = (2d)^2.
 */
static void test_blocks(void)
{
	enum { D = 5, M = 2 * D, DRAWS = 20000 };
	struct rfx_proj_ws *ws = workspace(D);
	gsl_rng *r = stream(4, 0);
	double *omega = alloc_omega(D, M);
	double s = 0.0, cov = 0.0, within = 0.0, d = D;
	int n;

	for (n = 0; n < DRAWS; n++) {
		double ab;

		draw(r, RFX_PROJ_ORT, D, M, omega, M, 0, ws);
		ab = dot(omega, M, D, 1, D + 3);
		s += ab * ab;
		cov += (dot(omega, M, D, 0, 0) - d) *
		       (dot(omega, M, D, D - 1, D - 1) - d);
		within = fmax(within, fabs(cosine(omega, M, D, 1, 3)));
		within = fmax(within, fabs(cosine(omega, M, D, D, M - 1)));
	}
	is_within_se(s / DRAWS, sqrt((2.0 * d * d + 6.0 * d) / DRAWS), d,
		     K_SE, "ort d=5 M=10: E (a.b)^2 = d across blocks");
	ok(within < 1e-12,
	   "ort d=5 M=10: a.b = 0 inside a block (max |cos| %.2g)", within);
	is_within_se(cov / DRAWS, 2.0 * d / sqrt(DRAWS), 0.0, K_SE,
		     "ort d=5 M=10: norms inside a block are uncorrelated");

	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
}

/* 6. Error paths: each leaves a message and does not touch omega. */
static void test_errors(void)
{
	enum { D = 4, LD = 6 };
	struct rfx_proj_ws *ws = workspace(D), *ws3 = workspace(3);
	gsl_rng *r = stream(6, 0);
	double *omega = alloc_omega(D, LD);
	struct rfx_err err;
	enum rfx_proj p = RFX_PROJ_IID;
	int status, i, clean;
	static const struct {
		enum rfx_proj p;
		int d, M;
		size_t ld, col0;
		int use_ws3; /* pass the d = 3 workspace */
		int no_ws;   /* pass NULL for the workspace */
		const char *what;
	} bad[] = {
		{ RFX_PROJ_IID, 0, 2, LD, 0, 0, 0, "iid d = 0" },
		{ RFX_PROJ_ORT, 0, 2, LD, 0, 0, 0, "ort d = 0" },
		{ RFX_PROJ_ORT, D, 0, LD, 0, 0, 0, "ort M = 0" },
		{ RFX_PROJ_IID, D, -1, LD, 0, 0, 0, "iid M = -1" },
		{ RFX_PROJ_ORT, D, 3, LD, 4, 0, 0, "ort col0 + M > ld" },
		{ RFX_PROJ_IID, D, 7, LD, 0, 0, 0, "iid M > ld" },
		{ RFX_PROJ_ORT, D, 2, LD, 0, 1, 0, "ort workspace for d = 3" },
		{ RFX_PROJ_ORT, D, 2, LD, 0, 0, 1, "ort without workspace" },
	};

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		int k;

		rfx_err_clear(&err);
		status = rfx_proj_sample(r, bad[i].p, bad[i].d, bad[i].M, omega,
					 bad[i].ld, bad[i].col0,
					 bad[i].no_ws ? NULL :
					 bad[i].use_ws3 ? ws3 : ws, &err);
		clean = 1;
		for (k = 0; k < D * LD; k++)
			clean &= omega[k] == SENTINEL;
		ok(status == RFX_EINVAL && err.code == RFX_EINVAL &&
		   err.msg[0] != '\0' && clean, "%s is RFX_EINVAL (%s)",
		   bad[i].what, err.msg);
	}

	rfx_err_clear(&err);
	status = rfx_proj_parse("foo", &p, &err);
	ok(status == RFX_EINVAL && strstr(err.msg, "'foo'") &&
	   strstr(err.msg, "iid") && strstr(err.msg, "ort"),
	   "parse 'foo' fails listing the valid names (%s)", err.msg);
	rfx_err_clear(&err);
	status = rfx_proj_parse("ort", &p, &err);
	ok(status == RFX_OK && p == RFX_PROJ_ORT && err.code == RFX_OK,
	   "parse 'ort'");
	clean = 1;
	for (i = RFX_PROJ_IID; i <= RFX_PROJ_ORT; i++) {
		enum rfx_proj q = (enum rfx_proj)i, back;

		clean &= rfx_proj_parse(rfx_proj_name(q), &back, NULL) ==
				 RFX_OK && back == q;
	}
	ok(clean && !strcmp(rfx_proj_name(RFX_PROJ_IID), "iid") &&
	   !strcmp(rfx_proj_name(RFX_PROJ_ORT), "ort"),
	   "rfx_proj_name round-trips through rfx_proj_parse");
	ok(rfx_proj_ws_alloc(0) == NULL, "workspace for d = 0 is NULL");
	rfx_proj_ws_free(NULL);

	free(omega);
	rfx_proj_ws_free(ws);
	rfx_proj_ws_free(ws3);
	gsl_rng_free(r);
}

/*
 * 7. Reproducibility: a stream determines Omega bit for bit; another stream
 * gives another Omega; and M columns are a prefix of M' > M columns.
 */
static void test_reproducible(enum rfx_proj p)
{
	enum { D = 6, M = 15, SMALL = 4 };
	struct rfx_proj_ws *ws = workspace(D);
	double *a = alloc_omega(D, M), *b = alloc_omega(D, M);
	double *c = alloc_omega(D, M);
	gsl_rng *r;
	int l, prefix = 1;
	const char *kind = rfx_proj_name(p);

	r = stream(7, 0);
	draw(r, p, D, M, a, M, 0, ws);
	gsl_rng_free(r);
	r = stream(7, 0);
	draw(r, p, D, M, b, M, 0, ws);
	gsl_rng_free(r);
	ok(!memcmp(a, b, (size_t)D * M * sizeof(*a)),
	   "%s: same stream, identical Omega", kind);
	r = stream(7, 1);
	draw(r, p, D, M, b, M, 0, ws);
	gsl_rng_free(r);
	ok(memcmp(a, b, (size_t)D * M * sizeof(*a)) != 0,
	   "%s: different stream, different Omega", kind);
	r = stream(7, 0);
	draw(r, p, D, SMALL, c, M, 0, ws);
	gsl_rng_free(r);
	for (l = 0; l < D; l++)
		prefix &= !memcmp(a + l * M, c + l * M, SMALL * sizeof(*a));
	ok(prefix, "%s: M = %d columns are a prefix of M = %d", kind, SMALL,
	   M);

	free(a);
	free(b);
	free(c);
	rfx_proj_ws_free(ws);
}

/*
 * 8. rfx_proj_haar: a Haar orthogonal matrix. Exact: Q^T Q = I to rounding,
 * and the stream decides Q bit for bit. In distribution (d = 6, N draws):
 *  - P(Q_jj > 0) = 1/2 for each diagonal entry (sign test above);
 *  - P(det Q > 0) = 1/2: Haar measure gives both components of O(d) equal
 *    mass. Without the sign(R_jj) correction det Q = (-1)^{d-1} always
 *    (d - 1 Householder reflectors of determinant -1), so this fails at
 *    z ~ sqrt(N);
 *  - a column is uniform on the sphere: E Q_00^2 = 1/d, E Q_00^4 =
 *    3/(d(d+2)), with the SEs from E Q^8 = 105/(d(d+2)(d+4)(d+6)) as in 3;
 *  - tr Q: E tr Q = 0 and E (tr Q)^2 = 1 for Haar O(d), d >= 2
 *    (Diaconis & Shahshahani 1994: E tr(Q)^2 counts the fixed vectors of
 *    O(d) in R^d (x) R^d, which is 1). Var tr Q = 1; the SE of the second
 *    moment is the sample one.
 */
static void test_haar(void)
{
	enum { D = 6, N = 20000 };
	struct rfx_proj_ws *ws = workspace(D), *ws3 = workspace(3);
	gsl_rng *r = stream(8, 0);
	double Q[D * D], Q2[D * D], worst = 0.0;
	double npos[D] = { 0.0 }, ndet = 0.0, e2 = 1.0 / D, e4 = 3.0 / (D * (D + 2.0));
	double e8 = 105.0 / (D * (D + 2.0) * (D + 4.0) * (D + 6.0));
	struct mom q00 = { { 0.0 } }, tr = { { 0.0 } };
	struct rfx_err err;
	int n, i, j, k, status;

	for (n = 0; n < N; n++) {
		double A[D * D], det = 1.0, t = 0.0;

		rfx_err_clear(&err);
		if (rfx_proj_haar(r, D, Q, ws, &err)) {
			printf("Bail out! rfx_proj_haar: %s\n", err.msg);
			exit(1);
		}
		for (i = 0; i < D; i++)
			for (j = 0; j < D; j++) {
				double s = 0.0;

				for (k = 0; k < D; k++)
					s += Q[k * D + i] * Q[k * D + j];
				s -= i == j;
				if (fabs(s) > worst)
					worst = fabs(s);
			}
		for (j = 0; j < D; j++) {
			npos[j] += Q[j * D + j] > 0.0;
			t += Q[j * D + j];
		}
		/* det by Gaussian elimination with partial pivoting */
		memcpy(A, Q, sizeof(A));
		for (k = 0; k < D; k++) {
			int p = k;

			for (i = k + 1; i < D; i++)
				if (fabs(A[i * D + k]) > fabs(A[p * D + k]))
					p = i;
			if (p != k) {
				for (j = 0; j < D; j++) {
					double v = A[k * D + j];

					A[k * D + j] = A[p * D + j];
					A[p * D + j] = v;
				}
				det = -det;
			}
			det *= A[k * D + k];
			for (i = k + 1; i < D; i++) {
				double f = A[i * D + k] / A[k * D + k];

				for (j = k; j < D; j++)
					A[i * D + j] -= f * A[k * D + j];
			}
		}
		ndet += det > 0.0;
		mom_add(&q00, Q[0]);
		mom_add(&tr, t);
	}
	ok(worst < 1e-14, "haar d=6: Q^T Q = I (worst entry off by %.2g)", worst);
	for (j = 0; j < D; j++) {
		char what[32];

		snprintf(what, sizeof(what), "haar Q_%d%d", j, j);
		check_sign(what, npos[j], N);
	}
	check_sign("haar det Q", ndet, N);
	is_within_se(mom_mean(&q00, 2), sqrt((e4 - e2 * e2) / N), e2, K_SE,
		     "haar: E Q_00^2 = 1/d");
	is_within_se(mom_mean(&q00, 4), sqrt((e8 - e4 * e4) / N), e4, K_SE,
		     "haar: E Q_00^4 = 3/(d(d+2))");
	is_within_se(mom_mean(&tr, 1), sqrt(1.0 / N), 0.0, K_SE, "haar: E tr Q = 0");
	is_within_se(mom_mean(&tr, 2),
		     sqrt((mom_mean(&tr, 4) - mom_mean(&tr, 2) * mom_mean(&tr, 2)) / N),
		     1.0, K_SE, "haar: E (tr Q)^2 = 1");

	gsl_rng_free(r);
	r = stream(8, 1);
	rfx_proj_haar(r, D, Q, ws, NULL);
	gsl_rng_free(r);
	r = stream(8, 1);
	rfx_proj_haar(r, D, Q2, ws, NULL);
	gsl_rng_free(r);
	ok(!memcmp(Q, Q2, sizeof(Q)), "haar: same stream, identical Q");
	r = stream(8, 2);
	rfx_err_clear(&err);
	status = rfx_proj_haar(r, D, Q, ws3, &err);
	ok(status == RFX_EINVAL && strstr(err.msg, "dimension 3"),
	   "haar: a workspace for another dimension is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	status = rfx_proj_haar(r, D, NULL, ws, &err);
	ok(status == RFX_EINVAL && err.msg[0], "haar: no output matrix is RFX_EINVAL (%s)",
	   err.msg);
	gsl_rng_free(r);
	rfx_proj_ws_free(ws);
	rfx_proj_ws_free(ws3);
}

/*
 * The coupled kinds' structure, exactly (proj.h). simplex: the normalised
 * columns of a block meet at -1/(d-1) and sum to 0. simplex and simplex+
 * consume the stream alike, so the same seed gives the same R and norms:
 * the norms agree column by column, and simplex+ is the simplex block
 * after 5 Gauss-Seidel sweeps u_i <- -normalise(sum_{j != i} r_j u_j),
 * recomputed here from the simplex draw; each sweep step minimises
 * |sum_j r_j u_j| over u_i, so that length never grows. ort-anti: the
 * columns are orthogonal and the norms of columns 2k, 2k+1 are
 * antithetic, F(r_2k) + F(r_2k+1) = 1 with F the chi(d) CDF.
 */
static void test_coupled(void)
{
	enum { D = 5, M = 5, N = 200 };
	struct rfx_proj_ws *ws = workspace(D);
	double *a = alloc_omega(D, M), *b = alloc_omega(D, M);
	double u[D][D], r[D], worst_dot = 0.0, worst_sum = 0.0, worst_norm = 0.0;
	double worst_plus = 0.0, worst_orth = 0.0, worst_anti = 0.0;
	int n, i, j, l, sweep, grew = 0;

	for (n = 0; n < N; n++) {
		gsl_rng *g = stream(40 + n, 1);
		double t[D], len0 = 0.0, len1 = 0.0;

		draw(g, RFX_PROJ_SIMPLEX, D, M, a, M, 0, ws);
		gsl_rng_free(g);
		g = stream(40 + n, 1);
		draw(g, RFX_PROJ_SIMPLEX_PLUS, D, M, b, M, 0, ws);
		gsl_rng_free(g);
		for (j = 0; j < D; j++) {
			r[j] = sqrt(dot(a, M, D, (size_t)j, (size_t)j));
			worst_norm = fmax(worst_norm,
					  fabs(sqrt(dot(b, M, D, (size_t)j, (size_t)j)) - r[j]));
			for (l = 0; l < D; l++)
				u[j][l] = a[l * M + j] / r[j];
		}
		for (i = 0; i < D; i++)
			for (j = 0; j < D; j++)
				if (i != j)
					worst_dot = fmax(worst_dot,
							 fabs(dot(a, M, D, (size_t)i, (size_t)j) /
								      (r[i] * r[j]) +
							      1.0 / (D - 1.0)));
		for (l = 0; l < D; l++) {
			double s = 0.0;

			for (j = 0; j < D; j++)
				s += u[j][l];
			worst_sum = fmax(worst_sum, fabs(s));
			t[l] = 0.0;
			for (j = 0; j < D; j++)
				t[l] += r[j] * u[j][l];
			len0 += t[l] * t[l];
		}
		for (sweep = 0; sweep < 5; sweep++)
			for (i = 0; i < D; i++) {
				double v[D], vl = 0.0, before = 0.0, after = 0.0;

				for (l = 0; l < D; l++) {
					v[l] = 0.0;
					for (j = 0; j < D; j++)
						if (j != i)
							v[l] += r[j] * u[j][l];
					vl += v[l] * v[l];
					before += (v[l] + r[i] * u[i][l]) *
						  (v[l] + r[i] * u[i][l]);
				}
				for (l = 0; l < D; l++) {
					u[i][l] = -v[l] / sqrt(vl);
					after += (v[l] + r[i] * u[i][l]) *
						 (v[l] + r[i] * u[i][l]);
				}
				grew += after > before * (1.0 + 1e-12) + 1e-24;
			}
		for (j = 0; j < D; j++)
			for (l = 0; l < D; l++)
				worst_plus = fmax(worst_plus,
						  fabs(b[l * M + j] - r[j] * u[j][l]));
		for (l = 0; l < D; l++) {
			double s = 0.0;

			for (j = 0; j < D; j++)
				s += b[l * M + j];
			len1 += s * s;
		}
		grew += len1 > len0 * (1.0 + 1e-12) + 1e-24;

		g = stream(40 + n, 2);
		draw(g, RFX_PROJ_ORT_ANTI, D, M, a, M, 0, ws);
		gsl_rng_free(g);
		for (i = 0; i < D; i++)
			for (j = 0; j < i; j++)
				worst_orth = fmax(worst_orth,
						  fabs(dot(a, M, D, (size_t)i, (size_t)j)));
		for (j = 0; j + 1 < D; j += 2)
			worst_anti = fmax(worst_anti,
					  fabs(gsl_cdf_chisq_P(dot(a, M, D, (size_t)j, (size_t)j), D) +
					       gsl_cdf_chisq_P(dot(a, M, D, (size_t)j + 1,
								   (size_t)j + 1), D) -
					       1.0));
	}
	ok(worst_dot < 1e-12, "simplex: u_i . u_j = -1/(d-1) in every block (max error %.2g)",
	   worst_dot);
	ok(worst_sum < 1e-12, "simplex: the directions of a block sum to 0 (max %.2g)",
	   worst_sum);
	ok(worst_norm < 1e-12,
	   "simplex+ has simplex's norms for the same stream (max diff %.2g)",
	   worst_norm);
	ok(worst_plus < 1e-10,
	   "simplex+ is the simplex block after 5 sweeps u_i <- -normalise(sum_{j!=i} r_j u_j) (max diff %.2g)",
	   worst_plus);
	ok(!grew, "simplex+: no sweep step lengthens |sum_j w_j|");
	ok(worst_orth < 1e-10, "ort-anti: the columns of a block are orthogonal (max %.2g)",
	   worst_orth);
	ok(worst_anti < 1e-10,
	   "ort-anti: F(r_2k) + F(r_2k+1) = 1 for the chi(d) CDF F (max error %.2g)",
	   worst_anti);
	free(a);
	free(b);
	rfx_proj_ws_free(ws);
}

int main(void)
{
	gsl_set_error_handler_off();
	plan(7 + 5 * 20 + 7 + 3 + 12 + 2 * 3 + 15);

	test_orthogonality();
	test_distribution(RFX_PROJ_IID);
	test_distribution(RFX_PROJ_ORT);
	test_distribution(RFX_PROJ_SIMPLEX);
	test_distribution(RFX_PROJ_SIMPLEX_PLUS);
	test_distribution(RFX_PROJ_ORT_ANTI);
	test_coupled();
	test_blocks();
	test_errors();
	test_reproducible(RFX_PROJ_IID);
	test_reproducible(RFX_PROJ_ORT);
	test_haar();
	return done_testing();
}

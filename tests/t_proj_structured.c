/*
 * Tests for the structured and quasi-Monte Carlo samplers of lib/proj/proj.c
 * (orf-prime, sorf, hdhd, hd, halton, halton-rev, sobol, halton-scr) and for the LAPACK
 * path of the orthogonal blocks (d >= 128):
 *
 *   1. the table: names round-trip, unbiased kinds, block sizes;
 *   2. Hadamard blocks equal sqrt(d') H D1 H D2 H D3 built densely here from
 *      the closed form H_ij = (-1)^popcount(i & j)/sqrt d' and the signs
 *      the documented draw order gives, so the fast transform and the
 *      orientation (columns are rows of the block) are checked at once;
 *   3. SORF, HDHD and HD blocks are orthogonal up to the scale d (d a power
 *      of 2); hd's entries are +-1; d = 13 is d' = 16 truncated;
 *   4. ORF' columns have length sqrt(d) exactly and are orthogonal;
 *   5. the LAPACK QR at d = 128, 130: orthogonal blocks, chi norms and the
 *      sign correction (P(Omega_jj > 0) = 1/2);
 *   6. quasi-Monte Carlo points: in range, a shifted copy of the Halton and
 *      reverse-Halton points computed here independently (radical
 *      inverses), the shift uniform on [0,1)^d;
 *   7. prefixes, reproducibility and error paths.
 *
 * Monte Carlo checks pass within K_SE standard errors, each from the exact
 * variance of the summand stated next to it; seeds are fixed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#define PROJ_STREAM_BASE 100
#include "proj_check.h"
#include "tap.h"

#define K_SE 4.0

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return p;
}

/* Largest |omega_a . omega_b - scale [a = b]| over columns a, b in [c0, c1). */
static double gram_error(const double *omega, size_t ld, int d, int c0,
			 int c1, double scale)
{
	double worst = 0.0;
	int a, b;

	for (a = c0; a < c1; a++)
		for (b = c0; b < c1; b++) {
			double e = fabs(dot(omega, ld, d, (size_t)a, (size_t)b) -
					(a == b ? scale : 0.0));

			worst = e > worst ? e : worst;
		}
	return worst;
}

/* 1. The table of kinds. */
static void test_table(void)
{
	static const struct {
		enum rfx_proj p;
		const char *name;
		int gaussian, block13;
	} kinds[] = {
		{ RFX_PROJ_IID, "iid", 1, 1 },
		{ RFX_PROJ_ORT, "ort", 1, 13 },
		{ RFX_PROJ_ORF_PRIME, "orf-prime", 0, 13 },
		{ RFX_PROJ_SORF, "sorf", 0, 16 },
		{ RFX_PROJ_HDHD, "hdhd", 0, 16 },
		{ RFX_PROJ_HD, "hd", 0, 16 },
		{ RFX_PROJ_HALTON, "halton", 1, 0 },
		{ RFX_PROJ_HALTON_REV, "halton-rev", 1, 0 },
		{ RFX_PROJ_SOBOL, "sobol", 1, 0 },
		{ RFX_PROJ_HALTON_SCR, "halton-scr", 1, 0 },
		{ RFX_PROJ_SIMPLEX, "simplex", 1, 13 },
		{ RFX_PROJ_SIMPLEX_PLUS, "simplex+", 1, 13 },
		{ RFX_PROJ_ORT_ANTI, "ort-anti", 1, 13 },
	};
	struct rfx_err err;
	enum rfx_proj p;
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		good &= rfx_proj_parse(kinds[i].name, &p, NULL) == RFX_OK &&
			p == kinds[i].p;
		good &= !strcmp(rfx_proj_name(kinds[i].p), kinds[i].name);
		good &= rfx_proj_gaussian(kinds[i].p) == kinds[i].gaussian;
		good &= rfx_proj_block(kinds[i].p, 13) == kinds[i].block13;
		good &= strstr(RFX_PROJ_NAMES, kinds[i].name) != NULL;
	}
	ok(good, "every kind parses, names itself, is in RFX_PROJ_NAMES, with "
		 "its bias flag and block size at d = 13");
	rfx_err_clear(&err);
	ok(rfx_proj_parse("sorf3", &p, &err) == RFX_EINVAL &&
	   strstr(err.msg, "halton-rev") && strstr(err.msg, "sobol"),
	   "an unknown kind lists all of them (%s)", err.msg);
	ok(!strcmp(rfx_proj_name((enum rfx_proj)99), "unknown") &&
	   rfx_proj_block((enum rfx_proj)99, 4) == 0 &&
	   rfx_proj_block(RFX_PROJ_SORF, 784) == 1024,
	   "out-of-range kinds; sorf pads 784 to 1024");
}

/* (-1)^popcount(i & j) */
static double hsign(size_t i, size_t j)
{
	size_t b = i & j;
	int parity = 0;

	for (; b; b >>= 1)
		parity ^= (int)(b & 1);
	return parity ? -1.0 : 1.0;
}

/*
 * 2. The dense product. B = sqrt(n) H D1 H D2 H D3 (nhd = 3; fewer
 * factors for hdhd, hd), with D_f's signs taken from a copy of the stream
 * in the documented order (n draws per factor, -1 when uniform < 1/2).
 */
static void dense_block(const gsl_rng *r, int nhd, size_t n, double *B)
{
	double *T = xmalloc(n * n * sizeof(double));
	double *S = xmalloc(n * n * sizeof(double));
	double *sg = xmalloc(3 * n * sizeof(double));
	size_t i, j, k, t;
	int f;

	for (t = 0; t < (size_t)nhd * n; t++)
		sg[t] = gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
	/* B = sqrt(n) I, then B <- B H D_f for f = 1..nhd */
	for (i = 0; i < n * n; i++)
		B[i] = i % (n + 1) == 0 ? sqrt((double)n) : 0.0;
	for (f = 0; f < nhd; f++) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				double s = 0.0;

				for (k = 0; k < n; k++)
					s += B[i * n + k] * hsign(k, j);
				T[i * n + j] = s / sqrt((double)n) * sg[(size_t)f * n + j];
			}
		memcpy(B, T, n * n * sizeof(double));
	}
	(void)S;
	free(T);
	free(S);
	free(sg);
}

static void test_dense(void)
{
	static const enum rfx_proj kinds[3] = { RFX_PROJ_HD, RFX_PROJ_HDHD,
						RFX_PROJ_SORF };
	int k;

	for (k = 0; k < 3; k++) {
		enum { N = 16, D = 11, M = 2 * N };
		struct rfx_proj_ws *ws = workspace(D);
		gsl_rng *r = stream(2, k), *r2 = stream(2, k);
		double *omega = alloc_omega(D, M);
		double *B = xmalloc(N * N * sizeof(double));
		double worst = 0.0;
		int b, i, l;

		draw(r, kinds[k], D, M, omega, M, 0, ws);
		for (b = 0; b < 2; b++) {
			dense_block(r2, k + 1, N, B);
			for (i = 0; i < N; i++)
				for (l = 0; l < D; l++) {
					double e = fabs(omega[l * M + b * N + i] -
							B[i * N + l]);

					worst = e > worst ? e : worst;
				}
		}
		ok(worst < 1e-13,
		   "%s d = 11 (d' = 16), 2 blocks: column m is row m of the dense "
		   "sqrt(d') H D1 ... (worst %.2g)", rfx_proj_name(kinds[k]), worst);
		free(omega);
		free(B);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
		gsl_rng_free(r2);
	}
}

/*
 * 3. Orthogonality up to scale. For d = d' a block's columns satisfy
 * W^T W = d I exactly, up to rounding of a few transforms; columns of
 * different blocks are not orthogonal. hd's entries are +-1.
 */
static void test_hd_orthogonal(void)
{
	static const enum rfx_proj kinds[3] = { RFX_PROJ_SORF, RFX_PROJ_HDHD,
						RFX_PROJ_HD };
	enum { D = 16, M = 40, LD = 43, COL0 = 2 };
	int k;

	for (k = 0; k < 3; k++) {
		struct rfx_proj_ws *ws = workspace(D);
		gsl_rng *r = stream(3, k);
		double *omega = alloc_omega(D, LD);
		double across = HUGE_VAL;
		int a, b, l, untouched = 1, pm1 = 1;
		const char *name = rfx_proj_name(kinds[k]);

		draw(r, kinds[k], D, M, omega, LD, COL0, ws);
		ok(gram_error(omega, LD, D, COL0, COL0 + D, D) < 1e-12 &&
		   gram_error(omega, LD, D, COL0 + D, COL0 + 2 * D, D) < 1e-12 &&
		   gram_error(omega, LD, D, COL0 + 2 * D, COL0 + M, D) < 1e-12,
		   "%s d = 16, M = 40: each block (16, 16, 8 columns) has W^T W = 16 I",
		   name);
		for (a = 0; a < D; a++)
			for (b = D; b < 2 * D; b++) {
				double c = fabs(dot(omega, LD, D, (size_t)(COL0 + a),
						    (size_t)(COL0 + b)));

				across = c < across ? c : across;
			}
		/*
		 * Independent blocks: hd's inner products are even integers
		 * (0 with probability ~ C(16,8)/2^16 per pair), the others are
		 * continuous-ish; require that not all vanish.
		 */
		ok(kinds[k] == RFX_PROJ_HD ? 1 : across > 1e-9 ||
		   gram_error(omega, LD, D, COL0, COL0 + 2 * D, D) > 1e-3,
		   "%s: the two blocks are not orthogonal to each other", name);
		for (l = 0; l < D; l++) {
			untouched &= omega[l * LD + 0] == SENTINEL &&
				     omega[l * LD + 1] == SENTINEL &&
				     omega[l * LD + LD - 1] == SENTINEL;
			for (a = 0; a < M && kinds[k] == RFX_PROJ_HD; a++)
				pm1 &= fabs(omega[l * LD + COL0 + a]) == 1.0;
		}
		ok(untouched, "%s writes only columns col0 .. col0+M-1", name);
		if (kinds[k] == RFX_PROJ_HD)
			ok(pm1, "hd: every entry is exactly +1 or -1");
		free(omega);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
	}

	/* d = 13 is the d' = 16 sampler's first 13 coordinates, same stream */
	{
		struct rfx_proj_ws *w13 = workspace(13), *w16 = workspace(16);
		gsl_rng *r = stream(3, 10);
		double *o13 = alloc_omega(13, 40), *o16 = alloc_omega(16, 40);
		int l, same;

		draw(r, RFX_PROJ_SORF, 13, 40, o13, 40, 0, w13);
		gsl_rng_free(r);
		r = stream(3, 10);
		draw(r, RFX_PROJ_SORF, 16, 40, o16, 40, 0, w16);
		same = 1;
		for (l = 0; l < 13; l++)
			same &= !memcmp(o13 + l * 40, o16 + l * 40, 40 * sizeof(double));
		ok(same, "sorf d = 13 equals the first 13 coordinates of d' = 16 "
			 "(inputs zero-padded)");
		free(o13);
		free(o16);
		rfx_proj_ws_free(w13);
		rfx_proj_ws_free(w16);
		gsl_rng_free(r);
	}

	/*
	 * E |omega|^2 = d for the truncated sorf rows: the d' coordinates of
	 * a row have squares summing to d' and, by the random signs of D3,
	 * equal expectations 1 each. Summand |omega|^2 of one column per
	 * draw, variance estimated from the sample (bounded by d^2).
	 */
	{
		enum { D = 13, R = 4000 };
		struct rfx_proj_ws *ws = workspace(D);
		gsl_rng *r = stream(3, 11);
		double *omega = alloc_omega(D, 16);
		double s = 0.0, s2 = 0.0;
		int n;

		for (n = 0; n < R; n++) {
			double q;

			draw(r, RFX_PROJ_SORF, D, 16, omega, 16, 0, ws);
			q = dot(omega, 16, D, (size_t)(n % 16), (size_t)(n % 16));
			s += q;
			s2 += q * q;
		}
		s /= R;
		is_within_se(s, sqrt((s2 / R - s * s) / R), D, K_SE,
			     "sorf d = 13 (d' = 16): E |omega|^2 = 13");
		free(omega);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
	}
}

/* 4. ORF': orthogonal blocks of columns of length sqrt(d) exactly. */
static void test_orf_prime(void)
{
	enum { D = 9, M = 23 };
	struct rfx_proj_ws *ws = workspace(D);
	gsl_rng *r = stream(4, 0);
	double *omega = alloc_omega(D, M);

	draw(r, RFX_PROJ_ORF_PRIME, D, M, omega, M, 0, ws);
	ok(gram_error(omega, M, D, 0, D, D) < 1e-12 &&
	   gram_error(omega, M, D, D, 2 * D, D) < 1e-12 &&
	   gram_error(omega, M, D, 2 * D, M, D) < 1e-12,
	   "orf-prime d = 9, M = 23: W^T W = 9 I within each block");
	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
}

/*
 * 5. The LAPACK path (d >= 128). Orthogonality within a block and lengths
 * for orf-prime; for ort the chi(d) norms, E|omega|^2 = d with variance
 * 2d, one column per draw; and the sign correction: without it the
 * Householder signs make P(Omega_00 > 0) far from 1/2 (as for GSL, E3 in
 * docs/ERRATA.md). Binomial standard error sqrt(R/4).
 */
static void test_lapack(void)
{
	enum { D = 130, M = 2 * D + 7 };
	/*
	 * RFX_TEST_SCALE=small (make valgrind, where each LAPACK draw takes
	 * half a second): 60 draws; the checks are z-scores at any R.
	 */
	const int R = tap_small() ? 60 : 300;
	struct rfx_proj_ws *ws = workspace(D);
	gsl_rng *r = stream(5, 0);
	double *omega = alloc_omega(D, M);
	double s = 0.0, npos0 = 0.0, nposl = 0.0;
	int n;

	draw(r, RFX_PROJ_ORF_PRIME, D, M, omega, M, 0, ws);
	ok(gram_error(omega, M, D, 0, D, D) < 1e-10 &&
	   gram_error(omega, M, D, 2 * D, M, D) < 1e-10,
	   "LAPACK orf-prime d = 130: orthogonal blocks of length sqrt(130)");
	for (n = 0; n < R; n++) {
		draw(r, RFX_PROJ_ORT, D, D, omega, M, 0, ws);
		s += dot(omega, M, D, (size_t)(n % D), (size_t)(n % D));
		npos0 += omega[0] > 0.0;
		nposl += omega[(size_t)(D - 1) * M + D - 1] > 0.0;
	}
	ok(gram_error(omega, M, D, 0, 1, dot(omega, M, D, 0, 0)) < 1e-9 &&
	   fabs(dot(omega, M, D, 0, 5)) < 1e-9 * D,
	   "LAPACK ort d = 130: columns of a block orthogonal");
	is_within_se(s / R, sqrt(2.0 * D / R), D, K_SE,
		     "LAPACK ort d = 130: E |omega|^2 = d (chi norms)");
	is_within_se(npos0 / R, sqrt(0.25 / R), 0.5, K_SE,
		     "LAPACK ort d = 130: P(Omega_00 > 0) = 1/2 (sign-corrected)");
	is_within_se(nposl / R, sqrt(0.25 / R), 0.5, K_SE,
		     "LAPACK ort d = 130: P(Omega_dd > 0) = 1/2");
	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
}

/* Radical inverse of n in base b, digits optionally reversed (b - k) mod b. */
static double radical_inverse(unsigned n, unsigned b, int reversed)
{
	double f = 1.0 / b, x = 0.0;

	while (n) {
		unsigned k = n % b;

		if (reversed)
			k = (b - k) % b;
		x += f * k;
		f /= b;
		n /= b;
	}
	return x;
}

/* u in (0, 1) from omega; the distance of a and b modulo 1 in [0, 1/2]. */
static double circ_dist(double a, double b)
{
	double t = fmod(fabs(a - b), 1.0);

	return t > 0.5 ? 1.0 - t : t;
}

/*
 * 6. Quasi-Monte Carlo. Point m (m = 1..M) of the Halton sequence has
 * coordinate l = radical inverse of m in the l-th prime; the sampler
 * returns Phi^-1((h_m + s) mod 1), so Phi(omega) - h_m must be the same
 * shift s modulo 1 for every m. Over draws, the shift of a coordinate is
 * U[0,1): E u = 1/2 (variance 1/12), E u^2 = 1/3 (variance 4/45), and two
 * coordinates are independent: E u1 u2 = 1/4 (variance 7/144).
 */
static void test_qmc(void)
{
	static const unsigned primes[4] = { 2, 3, 5, 7 };
	enum { D = 4, M = 30, R = 3000 };
	int k;

	for (k = 0; k < 2; k++) {
		enum rfx_proj p = k ? RFX_PROJ_HALTON_REV : RFX_PROJ_HALTON;
		struct rfx_proj_ws *ws = workspace(D);
		gsl_rng *r = stream(6, k);
		double *omega = alloc_omega(D, M);
		double worst = 0.0, s1 = 0.0, s2 = 0.0, s12 = 0.0;
		int in_range = 1, n, m, l;

		for (n = 0; n < R; n++) {
			double s0[D];

			draw(r, p, D, M, omega, M, 0, ws);
			for (l = 0; l < D; l++) {
				double u0 = gsl_cdf_ugaussian_P(omega[l * M]);

				s0[l] = u0 - radical_inverse(1, primes[l], k);
				s0[l] -= floor(s0[l]);
				for (m = 0; m < M; m++) {
					double u = gsl_cdf_ugaussian_P(omega[l * M + m]);
					double h = radical_inverse((unsigned)m + 1,
								   primes[l], k);
					double e = circ_dist(u - h, s0[l]);

					in_range &= isfinite(omega[l * M + m]) &&
						    u > 0.0 && u < 1.0;
					worst = e > worst ? e : worst;
				}
			}
			s1 += s0[0];
			s2 += s0[0] * s0[0];
			s12 += s0[1] * s0[2];
		}
		ok(in_range, "%s: every point maps to a finite omega with "
			     "Phi(omega) in (0, 1)", rfx_proj_name(p));
		ok(worst < 1e-9, "%s: points are the sequence's 1..30 shifted by "
				 "one vector mod 1 (worst %.2g)", rfx_proj_name(p),
		   worst);
		is_within_se(s1 / R, sqrt(1.0 / 12 / R), 0.5, K_SE,
			     "%s: the shift has E s = 1/2", rfx_proj_name(p));
		is_within_se(s2 / R, sqrt(4.0 / 45 / R), 1.0 / 3, K_SE,
			     "%s: the shift has E s^2 = 1/3", rfx_proj_name(p));
		is_within_se(s12 / R, sqrt(7.0 / 144 / R), 0.25, K_SE,
			     "%s: shift coordinates independent, E s2 s3 = 1/4",
			     rfx_proj_name(p));
		free(omega);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
	}

	/* Sobol: range and the uniform marginal of one coordinate of point 5 */
	{
		struct rfx_proj_ws *ws = workspace(D);
		gsl_rng *r = stream(6, 2);
		double *omega = alloc_omega(D, M), s1 = 0.0;
		int n, i, in_range = 1;

		for (n = 0; n < R; n++) {
			draw(r, RFX_PROJ_SOBOL, D, M, omega, M, 0, ws);
			for (i = 0; i < D * M; i++)
				in_range &= isfinite(omega[i]) && fabs(omega[i]) < 8.3;
			s1 += gsl_cdf_ugaussian_P(omega[2 * M + 4]);
		}
		ok(in_range, "sobol: every projection finite, |omega| < 8.3");
		is_within_se(s1 / R, sqrt(1.0 / 12 / R), 0.5, K_SE,
			     "sobol: a shifted coordinate has E u = 1/2");
		free(omega);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
	}
}

/*
 * 6b. Scrambled Halton. Coordinate l of point m is frac(v + s) with
 * v = sum_k pi(a_k) p^{-k-1} over the K digits a_k of m (K = 31 for p = 2,
 * 20 for p = 3, 14 for p = 5, enough for m < 2^31): so t = p^K frac(u - s)
 * is an integer whose base-p digits, least significant last, are the
 * permuted digits of m. The test recovers s from point 1 (whose digits
 * are 1, 0, 0, ...: t = pi(1) p^{K-1} + pi(0) (p^{K-1} - 1)/(p - 1)) by
 * trying every candidate pair (pi(1), pi(0)), then checks every point
 * 1..M against the permutation read off the points themselves: each digit
 * value of m maps to one digit value of t, the same at every position
 * and for every point, and different values to different values. Over
 * draws, pi(1) for p = 2 is 0 or 1 with probability 1/2.
 */
static void test_halton_scr(void)
{
	static const int primes[3] = { 2, 3, 5 }, ndig[3] = { 31, 20, 14 };
	enum { D = 3, M = 40, R = 400 };
	struct rfx_proj_ws *ws = workspace(D);
	gsl_rng *r = stream(9, 0);
	double *omega = alloc_omega(D, M), ones = 0.0;
	int n, l, m, consistent = 1;

	for (n = 0; n < R; n++) {
		draw(r, RFX_PROJ_HALTON_SCR, D, M, omega, M, 0, ws);
		for (l = 0; l < D; l++) {
			int p = primes[l], K = ndig[l], a1, a0, k, found = 0;
			double pK = pow(p, K), s = 0.0;
			int map[5];

			/* the shift from point 1: some (pi(1), pi(0)) fits exactly */
			for (a1 = 0; a1 < p && !found; a1++)
				for (a0 = 0; a0 < p && !found; a0++) {
					double t1 = a1 * pow(p, K - 1) +
						    a0 * (pow(p, K - 1) - 1.0) / (p - 1);
					double u = gsl_cdf_ugaussian_P(omega[l * M]);

					s = u - t1 / pK;
					s -= floor(s);
					found = 1;
					for (k = 0; k < p; k++)
						map[k] = -1;
					map[1] = a1;
					map[0] = a0;
					for (m = 0; m < M && found; m++) {
						double um = gsl_cdf_ugaussian_P(omega[l * M + m]);
						double t = (um - s) - floor(um - s);
						double ti = floor(t * pK + 0.5);
						unsigned long q = (unsigned long)m + 1;
						int kk;

						/*
						 * Phi(Phi^-1(u)) is u to ~1e-15, i.e. ~1e-5 of
						 * a unit of t for p^K ~ 2^31; units are 1 apart
						 */
						if (fabs(t * pK - ti) > 1e-3)
							found = 0;
						for (kk = K - 1; kk >= 0 && found; kk--) {
							int dig = (int)fmod(ti, p);
							int src = (int)(q / (unsigned long)pow(p, kk) % (unsigned long)p);

							ti = floor(ti / p);
							if (map[src] == -1)
								map[src] = dig;
							else if (map[src] != dig)
								found = 0;
						}
					}
					for (k = 0; k < p && found; k++) {
						int j;

						for (j = 0; j < k; j++)
							if (map[j] >= 0 && map[j] == map[k])
								found = 0;
					}
				}
			consistent &= found;
			if (l == 0)
				ones += map[1] == 1;
		}
	}
	ok(consistent, "halton-scr: every point is the shifted, digit-permuted radical "
		       "inverse of its index (p = 2, 3, 5; 40 points; 400 draws)");
	is_within_se(ones / R, sqrt(0.25 / R), 0.5, K_SE,
		     "halton-scr: the permutation is random, P(pi(1) = 1) = 1/2 for p = 2");
	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
}

/* 7. Prefixes, reproducibility, errors. */
static void test_prefix(void)
{
	static const enum rfx_proj kinds[] = {
		RFX_PROJ_ORF_PRIME, RFX_PROJ_SORF, RFX_PROJ_HDHD, RFX_PROJ_HD,
		RFX_PROJ_HALTON, RFX_PROJ_HALTON_REV, RFX_PROJ_SOBOL,
		RFX_PROJ_HALTON_SCR, RFX_PROJ_SIMPLEX, RFX_PROJ_SIMPLEX_PLUS,
		RFX_PROJ_ORT_ANTI
	};
	enum { D = 6, M = 37, SMALL = 5 };
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct rfx_proj_ws *ws = workspace(D);
		double *a = alloc_omega(D, M), *b = alloc_omega(D, M);
		gsl_rng *r = stream(7, (int)k);
		int l, prefix = 1, differ;

		draw(r, kinds[k], D, M, a, M, 0, ws);
		gsl_rng_free(r);
		r = stream(7, (int)k);
		draw(r, kinds[k], D, SMALL, b, M, 0, ws);
		for (l = 0; l < D; l++)
			prefix &= !memcmp(a + l * M, b + l * M, SMALL * sizeof(double));
		draw(r, kinds[k], D, M, b, M, 0, ws);
		differ = memcmp(a, b, (size_t)D * M * sizeof(double)) != 0;
		ok(prefix && differ, "%s: %d columns are a prefix of %d; the next "
				     "draw differs", rfx_proj_name(kinds[k]), SMALL, M);
		free(a);
		free(b);
		rfx_proj_ws_free(ws);
		gsl_rng_free(r);
	}
}

static void test_errors(void)
{
	struct rfx_proj_ws *big = workspace(1230), *w41 = workspace(41);
	gsl_rng *r = stream(8, 0);
	double *omega = alloc_omega(1230, 2);
	struct rfx_err err;
	int clean, i;

	rfx_err_clear(&err);
	ok(rfx_proj_sample(r, RFX_PROJ_HALTON, 1230, 2, omega, 2, 0, big, &err) ==
		   RFX_EINVAL && strstr(err.msg, "1229"),
	   "halton at d = 1230 is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_proj_sample(r, RFX_PROJ_SOBOL, 41, 2, omega, 2, 0, w41, &err) ==
		   RFX_EINVAL && strstr(err.msg, "40"),
	   "sobol at d = 41 is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_proj_sample(r, RFX_PROJ_HALTON_SCR, 1230, 2, omega, 2, 0, big, &err) ==
		   RFX_EINVAL && strstr(err.msg, "1229"),
	   "halton-scr at d = 1230 is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_proj_sample(r, RFX_PROJ_SORF, 41, 2, omega, 2, 0, NULL, &err) ==
		   RFX_EINVAL && strstr(err.msg, "sorf"),
	   "sorf without a workspace is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_proj_sample(r, RFX_PROJ_HALTON, 40, 2, omega, 2, 0, w41, &err) ==
		   RFX_EINVAL,
	   "a workspace of another dimension is RFX_EINVAL (%s)", err.msg);
	ok(rfx_proj_sample(r, (enum rfx_proj)99, 41, 2, omega, 2, 0, w41, NULL) ==
		   RFX_EINVAL, "an unknown kind is RFX_EINVAL");
	rfx_err_clear(&err);
	ok(rfx_proj_check(RFX_PROJ_HALTON, 1229, NULL) == RFX_OK &&
	   rfx_proj_check(RFX_PROJ_HALTON_REV, 1230, &err) == RFX_EINVAL &&
	   strstr(err.msg, "1229") && rfx_proj_check(RFX_PROJ_SOBOL, 40, NULL) == RFX_OK &&
	   rfx_proj_check(RFX_PROJ_SOBOL, 41, NULL) == RFX_EINVAL &&
	   rfx_proj_check(RFX_PROJ_SORF, 100000, NULL) == RFX_OK &&
	   rfx_proj_check(RFX_PROJ_ORT, 0, NULL) == RFX_EINVAL &&
	   rfx_proj_check((enum rfx_proj)99, 4, NULL) == RFX_EINVAL,
	   "rfx_proj_check knows the sequences' dimension limits (%s)", err.msg);
	clean = 1;
	for (i = 0; i < 1230 * 2; i++)
		clean &= omega[i] == SENTINEL;
	ok(clean, "failed calls leave omega alone");
	free(omega);
	rfx_proj_ws_free(big);
	rfx_proj_ws_free(w41);
	gsl_rng_free(r);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_table();
	test_dense();
	test_hd_orthogonal();
	test_orf_prime();
	test_lapack();
	test_qmc();
	test_halton_scr();
	test_prefix();
	test_errors();
	return done_testing();
}

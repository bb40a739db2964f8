/*
 * Tests for lib/num/kmeans.c: a hand-worked example, planted clusters recovered
 * exactly (labels, centres as the clusters' own sample means, inertia
 * summed here), Lloyd's fixed point on unstructured data, the k-means++
 * seeding probabilities (derived by hand for three points), restarts,
 * degenerate inputs, error paths and reproducibility.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "num/kmeans.h"
#include "base/rng.h"
#include "tap.h"

#define SEED 20221121UL

static gsl_rng *stream(int test, int kase)
{
	gsl_rng *r = rfx_rng_alloc_stream(SEED, (uint64_t)test, (uint64_t)kase, 0);

	if (!r) {
		printf("Bail out! cannot allocate a generator\n");
		exit(1);
	}
	return r;
}

static struct rfx_kmeans *alloc_km(size_t n, int d, int k)
{
	struct rfx_kmeans *km = rfx_kmeans_alloc(n, d, k);

	if (!km) {
		printf("Bail out! cannot allocate k-means for n = %zu\n", n);
		exit(1);
	}
	return km;
}

/*
 * 1. By hand: {0, 1, 10, 11} in R^1 with k = 2 has its optimum at centres
 * 0.5 and 10.5, inertia 4 x 0.25 = 1, and Lloyd reaches it from any two
 * distinct seeds (worked for the worst pair, 0 and 1: centres 0 and 22/3,
 * then 0.5 and 10.5).
 */
static void test_by_hand(void)
{
	static const double X[4] = { 0.0, 1.0, 10.0, 11.0 };
	struct rfx_kmeans *km = alloc_km(4, 1, 2);
	gsl_rng *r = stream(1, 0);
	struct rfx_err err;
	int ret = rfx_kmeans_fit(km, r, X, 3, 100, &err);

	ok(!ret && km->labels[0] == 0 && km->labels[1] == 0 &&
	   km->labels[2] == 1 && km->labels[3] == 1,
	   "{0, 1, 10, 11}: labels 0 0 1 1 (point 0 in cluster 0)");
	is_approx(km->centres[0], 0.5, TEST_TOL0, "centre 0 is 0.5");
	is_approx(km->centres[1], 10.5, TEST_TOL0, "centre 1 is 10.5");
	is_approx(km->inertia, 1.0, TEST_TOL1, "inertia 1");
	ok(km->converged && km->sizes[0] == 2 && km->sizes[1] == 2,
	   "converged, sizes 2 and 2");
	rfx_kmeans_free(km);
	gsl_rng_free(r);
}

/*
 * 2. Planted clusters: three Gaussian clusters (sd 1) in R^5 with centres
 * 20 apart and 40, 70, 90 points, shuffled. The nearest-centre regions of
 * the truth separate them with margin ~10 sd, so k-means must return the
 * planted partition; its centres are then the planted clusters' sample
 * means and its inertia their within-cluster sum of squares, both
 * computed here from the truth.
 */
static void test_planted(void)
{
	enum { D = 5, K = 3, N = 200 };
	static const int size[K] = { 40, 70, 90 };
	double X[N * D], mean[K * D] = { 0.0 }, ss = 0.0, worst = 0.0;
	int truth[N], map[K] = { -1, -1, -1 }, i, j, l, consistent = 1;
	struct rfx_kmeans *km = alloc_km(N, D, K);
	gsl_rng *r = stream(2, 0), *rk = stream(2, 1);
	struct rfx_err err;

	for (i = 0, j = 0; j < K; j++) {
		int c;

		for (c = 0; c < size[j]; c++, i++)
			truth[i] = j;
	}
	gsl_ran_shuffle(r, truth, N, sizeof(int));
	for (i = 0; i < N; i++)
		for (l = 0; l < D; l++)
			X[i * D + l] = (l == truth[i] ? 20.0 / sqrt(2.0) : 0.0) +
				       gsl_ran_gaussian(r, 1.0);
	for (i = 0; i < N; i++)
		for (l = 0; l < D; l++)
			mean[truth[i] * D + l] += X[i * D + l] / size[truth[i]];
	for (i = 0; i < N; i++)
		for (l = 0; l < D; l++)
			ss += (X[i * D + l] - mean[truth[i] * D + l]) *
			      (X[i * D + l] - mean[truth[i] * D + l]);
	ok(!rfx_kmeans_fit(km, rk, X, 1, 100, &err), "planted: fit");
	for (i = 0; i < N; i++) {
		if (map[truth[i]] < 0)
			map[truth[i]] = km->labels[i];
		consistent &= map[truth[i]] == km->labels[i];
	}
	ok(consistent && map[0] != map[1] && map[1] != map[2] && map[0] != map[2],
	   "planted: the partition is the planted one");
	for (j = 0; j < K; j++)
		for (l = 0; l < D; l++)
			if (fabs(km->centres[map[j] * D + l] - mean[j * D + l]) > worst)
				worst = fabs(km->centres[map[j] * D + l] - mean[j * D + l]);
	ok(worst < 1e-12, "planted: centres are the clusters' sample means (off by %.2g)",
	   worst);
	is_approx(km->inertia, ss, 1e-12, "planted: inertia is the within-cluster sum of squares");
	ok(km->sizes[map[0]] == 40 && km->sizes[map[1]] == 70 &&
	   km->sizes[map[2]] == 90 && km->labels[0] == 0,
	   "planted: sizes 40, 70, 90; point 0 in cluster 0");
	rfx_kmeans_free(km);
	gsl_rng_free(r);
	gsl_rng_free(rk);
}

/*
 * 3. Lloyd's fixed point on unstructured data (uniform in [0, 1]^3, k = 4):
 * once converged, each point is at its nearest centre and each centre is
 * the mean of its points. More restarts never give a larger inertia (the
 * first restart consumes the stream as a single run does).
 */
static void test_fixed_point(void)
{
	enum { D = 3, K = 4, N = 500 };
	double X[N * D], worst = 0.0, in1;
	struct rfx_kmeans *km = alloc_km(N, D, K);
	gsl_rng *r = stream(3, 0), *rk;
	struct rfx_err err;
	int i, j, l, nearest = 1;

	for (i = 0; i < N * D; i++)
		X[i] = gsl_rng_uniform(r);
	rk = stream(3, 1);
	i = rfx_kmeans_fit(km, rk, X, 1, 500, &err);
	ok(!i && km->converged, "uniform cube: one restart converges (%d iterations)",
	   km->iterations);
	gsl_rng_free(rk);
	in1 = km->inertia;
	rk = stream(3, 1);
	rfx_kmeans_fit(km, rk, X, 8, 500, &err);
	gsl_rng_free(rk);
	ok(km->inertia <= in1, "8 restarts: inertia %.6g <= one restart's %.6g",
	   km->inertia, in1);
	for (i = 0; i < N; i++) {
		double own = 0.0;

		for (l = 0; l < D; l++)
			own += pow(X[i * D + l] - km->centres[km->labels[i] * D + l], 2);
		for (j = 0; j < K; j++) {
			double t = 0.0;

			for (l = 0; l < D; l++)
				t += pow(X[i * D + l] - km->centres[j * D + l], 2);
			nearest &= own <= t;
		}
	}
	ok(nearest, "every point is at its nearest centre");
	for (j = 0; j < K; j++)
		for (l = 0; l < D; l++) {
			double s = 0.0;
			size_t c = 0;

			for (i = 0; i < N; i++)
				if (km->labels[i] == j) {
					s += X[i * D + l];
					c++;
				}
			if (c != km->sizes[j] || fabs(s / c - km->centres[j * D + l]) > worst)
				worst = c != km->sizes[j] ? 1.0 : fabs(s / c - km->centres[j * D + l]);
		}
	ok(worst < 1e-14, "every centre is the mean of its points (off by %.2g)", worst);
	rfx_kmeans_free(km);
	gsl_rng_free(r);
}

/*
 * 4. k-means++ seeding on the points 0, 1, 3 of R^1 with k = 2: the first
 * seed is uniform; the second is j with probability D_j^2 / sum D^2 given
 * the first. So P(0 then 1) = (1/3)(1/10), P(0, 3) = (1/3)(9/10),
 * P(1, 0) = (1/3)(1/5), P(1, 3) = (1/3)(4/5), P(3, 0) = (1/3)(9/13),
 * P(3, 1) = (1/3)(4/13). Frequencies of N seedings, binomial SEs, 4 SE.
 */
static void test_seeding(void)
{
	enum { N = 30000 };
	static const double X[3] = { 0.0, 1.0, 3.0 };
	static const double P[3][3] = {
		{ 0.0, 1.0 / 30.0, 0.3 },
		{ 1.0 / 15.0, 0.0, 0.8 / 3.0 },
		{ 3.0 / 13.0, 4.0 / 39.0, 0.0 },
	};
	double cnt[3][3] = { { 0.0 } }, d2[3];
	size_t idx[2];
	gsl_rng *r = stream(4, 0);
	int q, a, b;

	for (q = 0; q < N; q++) {
		rfx_kmeans_seed(r, X, 3, 1, 2, idx, d2, NULL);
		cnt[idx[0]][idx[1]] += 1.0;
	}
	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++) {
			double p = P[a][b], se = sqrt((p > 0 ? p * (1 - p) : 0.25) / N);

			if (a == b)
				ok(cnt[a][b] == 0.0, "seeds %g, %g never both", X[a], X[b]);
			else
				is_within_se(cnt[a][b] / N, se, p, 4.0,
					     "seeds %g then %g with probability %.4f", X[a],
					     X[b], p);
		}
	gsl_rng_free(r);
}

/*
 * 5. Degenerate inputs: identical points (every D^2 is 0 after the first
 * seed) still give k non-empty clusters and zero inertia; k = 1 gives the
 * mean of all points.
 */
static void test_degenerate(void)
{
	static const double same[10] = { 2.5, -1, 2.5, -1, 2.5, -1, 2.5, -1, 2.5, -1 };
	static const double three[6] = { 1, 2, 3, 4, 5, 9 };
	struct rfx_kmeans *km = alloc_km(5, 2, 3);
	gsl_rng *r = stream(5, 0);
	struct rfx_err err;
	int ret = rfx_kmeans_fit(km, r, same, 2, 50, &err);

	ok(!ret && km->inertia == 0.0 && km->sizes[0] >= 1 && km->sizes[1] >= 1 &&
	   km->sizes[2] >= 1 && km->sizes[0] + km->sizes[1] + km->sizes[2] == 5 &&
	   km->centres[0] == 2.5 && km->centres[1] == -1.0 &&
	   km->centres[2] == 2.5 && km->centres[3] == -1.0 &&
	   km->centres[4] == 2.5 && km->centres[5] == -1.0,
	   "five identical points, k = 3: three non-empty clusters at the point");
	rfx_kmeans_free(km);
	km = alloc_km(3, 2, 1);
	ret = rfx_kmeans_fit(km, r, three, 1, 50, &err);
	ok(!ret && km->centres[0] == 3.0 && km->centres[1] == 5.0 &&
	   km->inertia == 13 + 1 + 20, "k = 1: the mean, inertia 34");
	rfx_kmeans_free(km);
	gsl_rng_free(r);
}

static void test_errors(void)
{
	static const double X[6] = { 1, 2, 3, 4, 5, 6 };
	double bad[6] = { 1, 2, 3, NAN, 5, 6 }, d2[3];
	size_t idx[4];
	struct rfx_kmeans *km = alloc_km(3, 2, 4);
	gsl_rng *r = stream(6, 0);
	struct rfx_err err;

	rfx_err_clear(&err);
	ok(rfx_kmeans_fit(km, r, X, 1, 10, &err) == RFX_EINVAL &&
	   strstr(err.msg, "k = 4"), "k > n is RFX_EINVAL (%s)", err.msg);
	rfx_kmeans_free(km);
	km = alloc_km(3, 2, 2);
	rfx_err_clear(&err);
	ok(rfx_kmeans_fit(km, r, X, 0, 10, &err) == RFX_EINVAL,
	   "restarts 0 is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_kmeans_fit(km, r, X, 1, 0, &err) == RFX_EINVAL,
	   "max_iter 0 is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_kmeans_fit(km, r, bad, 1, 10, &err) == RFX_EINVAL &&
	   strstr(err.msg, "point 1"), "a NaN coordinate is RFX_EINVAL (%s)", err.msg);
	rfx_err_clear(&err);
	ok(rfx_kmeans_seed(r, X, 3, 2, 4, idx, d2, &err) == RFX_EINVAL,
	   "seeding k > n is RFX_EINVAL (%s)", err.msg);
	ok(!rfx_kmeans_alloc(0, 2, 2) && !rfx_kmeans_alloc(3, 0, 2) &&
	   !rfx_kmeans_alloc(3, 2, 0), "alloc with n, d or k = 0 is NULL");
	rfx_kmeans_free(NULL);
	rfx_kmeans_free(km);
	gsl_rng_free(r);
}

/* 7. A stream decides the clustering bit for bit. */
static void test_reproducible(void)
{
	enum { D = 4, N = 300, K = 3 };
	double X[N * D];
	struct rfx_kmeans *a = alloc_km(N, D, K), *b = alloc_km(N, D, K);
	gsl_rng *r = stream(7, 0), *ra = stream(7, 1), *rb = stream(7, 1);
	int i;

	for (i = 0; i < N * D; i++)
		X[i] = gsl_ran_gaussian(r, 1.0);
	rfx_kmeans_fit(a, ra, X, 4, 100, NULL);
	rfx_kmeans_fit(b, rb, X, 4, 100, NULL);
	ok(!memcmp(a->labels, b->labels, sizeof(int) * N) &&
	   !memcmp(a->centres, b->centres, sizeof(double) * K * D) &&
	   a->inertia == b->inertia, "same stream, same clustering");
	rfx_kmeans_free(a);
	rfx_kmeans_free(b);
	gsl_rng_free(r);
	gsl_rng_free(ra);
	gsl_rng_free(rb);
}

int main(void)
{
	gsl_set_error_handler_off();
	plan(5 + 5 + 4 + 9 + 2 + 6 + 1);
	test_by_hand();
	test_planted();
	test_fixed_point();
	test_seeding();
	test_degenerate();
	test_errors();
	test_reproducible();
	return done_testing();
}

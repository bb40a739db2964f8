/*
 * Tests for lib/data/regime: the moments of each synthetic regime against their
 * exact values (Monte Carlo, within 4 standard errors derived below, fixed
 * seed), the mnist regime against the MNIST test images in data/, and
 * every error path.
 */
#include "data/regime.h"
#include "base/rng.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#define SEED 20240607UL /* this test's streams: (SEED, regime, case, 0) */
#define K_SE 4.0        /* Monte Carlo tolerance in standard errors */

static double mean_of(const double *v, size_t n, size_t stride)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i * stride];
	return s / n;
}

/* mean of (v - c)^p over n values */
static double moment(const double *v, size_t n, double c, int p)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		s += pow(v[i] - c, p);
	return s / n;
}

static void test_parse(void)
{
	static const char *const names[] = { "normal", "sphere", "heterogen",
					     "mnist" };
	struct rfx_err err;
	enum rfx_regime g;
	int i, good = 1;

	for (i = 0; i < 4; i++) {
		g = RFX_REGIME_COUNT;
		good = good && rfx_regime_parse(names[i], &g, &err) == RFX_OK &&
		       (int)g == i && strcmp(rfx_regime_name(g), names[i]) == 0;
	}
	ok(good, "the four regime names parse and round-trip");
	ok(rfx_regime_name(RFX_REGIME_COUNT) == NULL,
	   "rfx_regime_name() of an invalid regime is NULL");

	rfx_err_clear(&err);
	ok(rfx_regime_parse("foo", &g, &err) == RFX_EINVAL &&
	   strcmp(err.msg, "unknown regime 'foo' (valid: normal, sphere, heterogen, mnist)") == 0,
	   "unknown name: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_parse("Normal", &g, &err) == RFX_EINVAL,
	   "names are case-sensitive: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_parse("", &g, &err) == RFX_EINVAL,
	   "empty name: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_parse(NULL, &g, &err) == RFX_EINVAL,
	   "NULL name: \"%s\"", err.msg);
}

/*
 * normal: all 2 L d coordinates are i.i.d. N(0, gamma^2). Standard errors
 * of a mean of N i.i.d. values: sd / sqrt(N), with sd(x) = gamma,
 * sd(x^2) = sqrt(2) gamma^2 (Var x^2 = 3 gamma^4 - gamma^4),
 * sd(x^4) = sqrt(105 - 9) gamma^4 (E x^8 = 105 gamma^8), and for the
 * product of two independent coordinates sd(x_1 x_2) = gamma^2.
 */
static void test_normal(gsl_rng *r, double *X, double *Y)
{
	const double g = 0.73;
	const int d = 64;
	const size_t L = 1024, N = 2 * L * d;
	double *XY = malloc(N * sizeof(double)), s;
	struct rfx_err err;
	size_t l;
	int i;

	rfx_rng_set_stream(r, SEED, RFX_REGIME_NORMAL, 0, 0);
	ok(rfx_regime_sample(r, RFX_REGIME_NORMAL, g, d, L, NULL, X, Y, &err) ==
	   RFX_OK, "normal: sample L = 1024, d = 64, gamma = 0.73");
	memcpy(XY, X, L * d * sizeof(double));
	memcpy(XY + L * d, Y, L * d * sizeof(double));
	is_within_se(moment(XY, N, 0, 1), g / sqrt(N), 0.0, K_SE,
		     "normal: E x_i = 0");
	is_within_se(moment(XY, N, 0, 2), sqrt(2.0) * g * g / sqrt(N), g * g,
		     K_SE, "normal: E x_i^2 = gamma^2");
	is_within_se(moment(XY, N, 0, 4), sqrt(96.0) * pow(g, 4) / sqrt(N),
		     3 * pow(g, 4), K_SE, "normal: E x_i^4 = 3 gamma^4");
	for (s = 0.0, l = 0; l < 2 * L; l++)
		s += XY[l * d] * XY[l * d + 1];
	is_within_se(s / (2 * L), g * g / sqrt(2.0 * L), 0.0, K_SE,
		     "normal: E x_1 x_2 = 0 (coordinates uncorrelated)");
	for (s = 0.0, l = 0; l < L; l++)
		for (i = 0; i < d; i++)
			s += X[l * d + i] * Y[l * d + i];
	is_within_se(s / (L * d), g * g / sqrt((double)L * d), 0.0, K_SE,
		     "normal: E x_i y_i = 0 (X and Y uncorrelated)");
	free(XY);
}

/*
 * sphere: u = x / gamma is uniform on S^{d-1}, so u_1^2 ~ Beta(1/2,
 * (d-1)/2): E u_1^2 = 1/d, Var u_1^2 = 2 (d-1) / (d^2 (d+2)); E u_1 = 0
 * with Var u_1 = 1/d; E u_1^2 u_2^2 = 1/(d (d+2)) gives Var u_1 u_2. The
 * mean over all coordinates of x_i^2 is exactly gamma^2/d by the norm, so
 * single coordinates are tested, across the 2 L rows.
 */
static void test_sphere(gsl_rng *r, double *X, double *Y)
{
	const double g = 1.37;
	const int d = 16;
	const size_t L = 4096;
	double worst = 0.0, s1 = 0.0, s11 = 0.0, sdd = 0.0, s12 = 0.0;
	struct rfx_err err;
	size_t l;
	int i;

	rfx_rng_set_stream(r, SEED, RFX_REGIME_SPHERE, 0, 0);
	ok(rfx_regime_sample(r, RFX_REGIME_SPHERE, g, d, L, NULL, X, Y, &err) ==
	   RFX_OK, "sphere: sample L = 4096, d = 16, gamma = 1.37");
	for (l = 0; l < 2 * L; l++) {
		const double *x = l < L ? X + l * d : Y + (l - L) * d;
		double ss = 0.0;

		for (i = 0; i < d; i++)
			ss += x[i] * x[i];
		worst = fmax(worst, fabs(sqrt(ss) - g) / g);
		s1 += x[0];
		s11 += x[0] * x[0];
		sdd += x[d - 1] * x[d - 1];
		s12 += x[0] * x[1];
	}
	ok(worst <= 1e-12, "sphere: every norm is gamma (max rel. error %.3g)",
	   worst);
	is_within_se(s1 / (2 * L), g / sqrt((double)d * 2 * L), 0.0, K_SE,
		     "sphere: E x_1 = 0");
	is_within_se(s11 / (2 * L),
		     g * g * sqrt(2.0 * (d - 1) / ((double)d * d * (d + 2)) /
				  (2 * L)),
		     g * g / d, K_SE, "sphere: E x_1^2 = gamma^2 / d");
	is_within_se(sdd / (2 * L),
		     g * g * sqrt(2.0 * (d - 1) / ((double)d * d * (d + 2)) /
				  (2 * L)),
		     g * g / d, K_SE, "sphere: E x_d^2 = gamma^2 / d");
	is_within_se(s12 / (2 * L), g * g / sqrt((double)d * (d + 2) * 2 * L),
		     0.0, K_SE, "sphere: E x_1 x_2 = 0");

	/* d = 1: the "sphere" is {-gamma, gamma}, each with probability 1/2 */
	rfx_rng_set_stream(r, SEED, RFX_REGIME_SPHERE, 1, 0);
	rfx_regime_sample(r, RFX_REGIME_SPHERE, g, 1, L, NULL, X, Y, &err);
	for (worst = 0.0, l = 0; l < L; l++)
		worst = fmax(worst, fmax(fabs(fabs(X[l]) - g),
					 fabs(fabs(Y[l]) - g)));
	ok(worst <= 1e-15, "sphere, d = 1: values are +-gamma");
	is_within_se(mean_of(X, L, 1), g / sqrt((double)L), 0.0, K_SE,
		     "sphere, d = 1: both signs equally likely");
}

/*
 * heterogen: x_i ~ N(0, gamma^2), y_i ~ N(gamma, gamma^2), L d values
 * each; standard errors as for normal.
 */
static void test_heterogen(gsl_rng *r, double *X, double *Y)
{
	const double g = 0.4181;
	const int d = 64;
	const size_t L = 1024, N = L * d;
	struct rfx_err err;

	rfx_rng_set_stream(r, SEED, RFX_REGIME_HETEROGEN, 0, 0);
	ok(rfx_regime_sample(r, RFX_REGIME_HETEROGEN, g, d, L, NULL, X, Y,
			     &err) == RFX_OK,
	   "heterogen: sample L = 1024, d = 64, gamma = 0.4181");
	is_within_se(moment(X, N, 0, 1), g / sqrt(N), 0.0, K_SE,
		     "heterogen: E x_i = 0");
	is_within_se(moment(X, N, 0, 2), sqrt(2.0) * g * g / sqrt(N), g * g,
		     K_SE, "heterogen: E x_i^2 = gamma^2");
	is_within_se(moment(Y, N, 0, 1), g / sqrt(N), g, K_SE,
		     "heterogen: E y_i = gamma");
	is_within_se(moment(Y, N, g, 2), sqrt(2.0) * g * g / sqrt(N), g * g,
		     K_SE, "heterogen: E (y_i - gamma)^2 = gamma^2");
	is_within_se(mean_of(Y + 17, L, d), g / sqrt((double)L), g, K_SE,
		     "heterogen: E y_18 = gamma (one coordinate, over rows)");
}

/* Lexicographic order of pool rows (of the scaled pool S, d wide). */
static const double *cmp_rows;
static int cmp_d;

static int cmp_index(const void *a, const void *b)
{
	const double *x = cmp_rows + *(const size_t *)a * cmp_d;
	const double *y = cmp_rows + *(const size_t *)b * cmp_d;
	int i;

	for (i = 0; i < cmp_d; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Index of the pool row equal to x, or -1 (sorted: pool order by row). */
static long find_row(const double *S, const size_t *sorted, size_t n,
		     int d, const double *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const double *y = S + sorted[mid] * d;
		int c = 0, i;

		for (i = 0; i < d && !c; i++)
			if (x[i] != y[i])
				c = x[i] < y[i] ? -1 : 1;
		if (!c)
			return (long)sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * mnist: every row must be gamma times a pool image, the 2 L images must
 * be distinct, and their pool indices must look like a uniform random
 * sample in random order. For the order: the number of ascents of a
 * uniformly random permutation of m distinct values has mean (m - 1)/2
 * and variance (m + 1)/12 (Eulerian numbers); gsl_ran_choose() alone would
 * give m - 1. For uniformity: the mean of m indices drawn without
 * replacement from 0..n-1 has mean (n - 1)/2 and variance
 * (n^2 - 1)/12 / m * (n - m)/(n - 1).
 */
static void test_mnist(gsl_rng *r, double *X, double *Y, const char *top)
{
	const double g = 0.61;
	const int d = 64;
	const size_t L = 1024, m = 2 * L;
	char path[1024];
	struct rfx_err err;
	struct rfx_images *im28 = NULL, *im = NULL;
	double *S = NULL, *X2 = NULL, *Y2 = NULL, s, lo, hi;
	size_t *sorted = NULL, i, n, ascents;
	long *idx = NULL, *idx_sorted = NULL;
	int found = 1, distinct = 1, equal_rows = 0;
	size_t j;

	snprintf(path, sizeof(path), "%s/data/t10k-images-idx3-ubyte.gz", top);
	rfx_err_clear(&err);
	im28 = rfx_images_load_idx(path, &err);
	im = im28 ? rfx_images_resize_area(im28, 8, &err) : NULL;
	if (!ok(im != NULL, "mnist: load and resize '%s' to 8 x 8", path)) {
		diag("    %s", err.msg);
		goto out;
	}
	n = im->n;

	rfx_rng_set_stream(r, SEED, RFX_REGIME_MNIST, 0, 0);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, g, d, L, im, X, Y, &err) ==
	   RFX_OK, "mnist: sample L = 1024, d = 64, gamma = 0.61 (%s)",
	   err.code ? err.msg : "ok");

	S = malloc(n * d * sizeof(double));
	sorted = malloc(n * sizeof(size_t));
	idx = malloc(m * sizeof(long));
	idx_sorted = malloc(m * sizeof(long));
	X2 = malloc(L * d * sizeof(double));
	Y2 = malloc(L * d * sizeof(double));
	if (!S || !sorted || !idx || !idx_sorted || !X2 || !Y2) {
		ok(0, "mnist: out of memory in the test");
		goto out;
	}
	for (i = 0; i < n * d; i++)
		S[i] = g * im->pix[i];
	for (i = 0; i < n; i++)
		sorted[i] = i;
	cmp_rows = S;
	cmp_d = d;
	qsort(sorted, n, sizeof(size_t), cmp_index);

	for (i = 0; i < m; i++) {
		idx[i] = find_row(S, sorted, n, d,
				  i < L ? X + i * d : Y + (i - L) * d);
		found = found && idx[i] >= 0;
	}
	ok(found, "mnist: every x and y is gamma times a resized image");
	memcpy(idx_sorted, idx, m * sizeof(long));
	qsort(idx_sorted, m, sizeof(long), cmp_long);
	for (i = 1; i < m; i++)
		distinct = distinct && idx_sorted[i] != idx_sorted[i - 1];
	ok(found && distinct, "mnist: the 2 L = 2048 images are distinct");
	for (i = 0; i < L; i++)
		for (j = 0; j < L; j++)
			equal_rows += memcmp(X + i * d, Y + j * d,
					     d * sizeof(double)) == 0;
	ok(equal_rows == 0, "mnist: no x equals a y (%d equal pairs)",
	   equal_rows);
	for (lo = hi = X[0], i = 0; i < L * d; i++) {
		lo = fmin(lo, fmin(X[i], Y[i]));
		hi = fmax(hi, fmax(X[i], Y[i]));
	}
	ok(lo >= 0.0 && hi <= g && hi > 0.9 * g,
	   "mnist: values in [0, gamma] (min %g, max %g)", lo, hi);

	for (ascents = 0, i = 1; i < m; i++)
		ascents += idx[i] > idx[i - 1];
	is_within_se((double)ascents, sqrt((m + 1) / 12.0), (m - 1) / 2.0, K_SE,
		     "mnist: picks are in random order (%zu ascents of %zu)",
		     ascents, m - 1);
	for (s = 0.0, i = 0; i < m; i++)
		s += idx[i];
	is_within_se(s / m,
		     sqrt(((double)n * n - 1) / 12.0 / m * (n - m) / (n - 1.0)),
		     (n - 1) / 2.0, K_SE, "mnist: picks are uniform (mean index)");

	/* the same stream gives the same sets */
	rfx_rng_set_stream(r, SEED, RFX_REGIME_MNIST, 0, 0);
	rfx_regime_sample(r, RFX_REGIME_MNIST, g, d, L, im, X2, Y2, &err);
	ok(memcmp(X, X2, L * d * sizeof(double)) == 0 &&
	   memcmp(Y, Y2, L * d * sizeof(double)) == 0,
	   "mnist: the same stream gives the same sets");

	/* errors that need the image set */
	rfx_err_clear(&err);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, g, 63, L, im, X, Y, &err) ==
	   RFX_EINVAL &&
	   strstr(err.msg, "mnist regime needs d = k*k matching the resized images, got d = 63"),
	   "mnist: d = 63 for 8 x 8 images: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, g, 784, 3, im28, X, Y,
			     &err) == RFX_OK,
	   "mnist: unresized 28 x 28 images work with d = 784");
	rfx_err_clear(&err);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, g, 784, L, im, X, Y, &err) ==
	   RFX_EINVAL, "mnist: d = 784 for 8 x 8 images: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, g, d, 5001, im, X, Y, &err) ==
	   RFX_EINVAL,
	   "mnist: L = 5001 needs 10002 of 10000 images: \"%s\"", err.msg);
out:
	free(S);
	free(sorted);
	free(idx);
	free(idx_sorted);
	free(X2);
	free(Y2);
	rfx_images_free(im);
	rfx_images_free(im28);
}

/* A pool of exactly 2 L images is used up, each image once. */
static void test_small_pool(gsl_rng *r)
{
	double pix[4 * 4], X[2 * 4], Y[2 * 4];
	struct rfx_images pool = { 4, 2, 2, pix };
	struct rfx_err err;
	int seen[4] = { 0 }, i, good;

	for (i = 0; i < 16; i++)
		pix[i] = (i / 4 + 1) / 8.0;  /* image t is all (t + 1)/8 */
	rfx_rng_set_stream(r, SEED, RFX_REGIME_MNIST, 1, 0);
	good = rfx_regime_sample(r, RFX_REGIME_MNIST, 2.0, 4, 2, &pool, X, Y,
				 &err) == RFX_OK;
	for (i = 0; good && i < 4; i++) {
		const double *x = i < 2 ? X + 4 * i : Y + 4 * (i - 2);
		int t = (int)(x[0] / 2.0 * 8.0 + 0.5) - 1;

		good = t >= 0 && t < 4 && x[3] == x[0] && x[0] == 2.0 * (t + 1) / 8.0;
		if (good)
			seen[t]++;
	}
	ok(good && seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1,
	   "mnist: L = 2 from a pool of 4 uses each image once");
	rfx_err_clear(&err);
	pool.n = 3;
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, 2.0, 4, 2, &pool, X, Y,
			     &err) == RFX_EINVAL,
	   "mnist: L = 2 from a pool of 3 is rejected: \"%s\"", err.msg);
	rfx_err_clear(&err);
	ok(rfx_regime_sample(r, RFX_REGIME_MNIST, 2.0, 4, 2, NULL, X, Y,
			     &err) == RFX_EINVAL,
	   "mnist: no image set is rejected: \"%s\"", err.msg);
}

static void test_errors(gsl_rng *r, double *X, double *Y)
{
	static const struct {
		double gamma;
		int d;
		size_t L;
		int g;
		const char *what;
	} bad[] = {
		{ 0.0, 8, 4, RFX_REGIME_NORMAL, "gamma = 0" },
		{ -1.0, 8, 4, RFX_REGIME_SPHERE, "gamma = -1" },
		{ NAN, 8, 4, RFX_REGIME_HETEROGEN, "gamma = NaN" },
		{ INFINITY, 8, 4, RFX_REGIME_NORMAL, "gamma = inf" },
		{ 0.5, 0, 4, RFX_REGIME_NORMAL, "d = 0" },
		{ 0.5, -3, 4, RFX_REGIME_SPHERE, "d = -3" },
		{ 0.5, 8, 0, RFX_REGIME_HETEROGEN, "L = 0" },
		{ 0.5, 8, 4, RFX_REGIME_COUNT, "regime out of range" },
		{ 0.5, 8, 4, -1, "regime -1" },
	};
	struct rfx_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rfx_err_clear(&err);
		ok(rfx_regime_sample(r, (enum rfx_regime)bad[i].g, bad[i].gamma,
				     bad[i].d, bad[i].L, NULL, X, Y, &err) ==
		   RFX_EINVAL && err.code == RFX_EINVAL,
		   "%s is rejected: \"%s\"", bad[i].what, err.msg);
	}
}

int main(void)
{
	const char *top = getenv("RFX_TOP");
	const size_t cap = 5001 * 64;  /* largest L x d passed */
	double *X = malloc(cap * sizeof(double));
	double *Y = malloc(cap * sizeof(double));
	gsl_rng *r = rfx_rng_alloc_stream(SEED, 0, 0, 0);

	gsl_set_error_handler_off();
	if (!top)
		top = ".";
	if (!X || !Y || !r) {
		printf("Bail out! out of memory\n");
		return 1;
	}

	test_parse();
	test_normal(r, X, Y);
	test_sphere(r, X, Y);
	test_heterogen(r, X, Y);
	test_mnist(r, X, Y, top);
	test_small_pool(r);
	test_errors(r, X, Y);

	gsl_rng_free(r);
	free(X);
	free(Y);
	return done_testing();
}

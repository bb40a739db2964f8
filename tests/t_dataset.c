/*
 * Tests for lib/data/dataset.c: the shipped datasets load with the sizes of
 * data/MANIFEST.md and the values written in the files (first and last
 * rows read off the text); malformed files give RFX_EFORMAT with the line;
 * the normalisations do what lib/data/dataset.h says; padding; and the
 * nearest-neighbour bandwidth against a brute-force sort.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "data/dataset.h"
#include "base/rng.h"
#include "tap.h"

static const char *data_dir(void)
{
	static char dir[4096];
	const char *top = getenv("RFX_TOP");

	snprintf(dir, sizeof(dir), "%s/data", top ? top : ".");
	return dir;
}

static struct rfx_dataset *load(const char *name)
{
	struct rfx_err err;
	struct rfx_dataset *ds;

	rfx_err_clear(&err);
	ds = rfx_dataset_load(name, data_dir(), &err);
	if (!ds) {
		printf("Bail out! loading %s: %s\n", name, err.msg);
		exit(1);
	}
	return ds;
}

static int row_is(const struct rfx_dataset *ds, size_t i, const double *want,
		  int k)
{
	int l, same = 1;

	for (l = 0; l < k; l++)
		same &= ds->X[i * (size_t)ds->d + (size_t)l] == want[l];
	return same;
}

static void test_catalogue(void)
{
	static const struct {
		const char *name;
		size_t n;
		int d;
	} sizes[] = {
		{ "wine", 178, 13 },	 { "boston", 506, 13 },
		{ "letter", 20000, 16 }, { "usps", 7291, 256 },
		{ "mnist", 10000, 784 }, { "wifi", 2000, 7 },
		{ "abalone", 4177, 7 },	 { "banknote", 1372, 4 },
		{ "optdigits", 3823, 64 }, { "yeast", 1484, 8 },
	};
	static const double wine0[13] = { 14.23, 1.71, 2.43, 15.6, 127, 2.8,
					  3.06, .28, 2.29, 5.64, 1.04, 3.92, 1065 };
	static const double wine_last[13] = { 14.13, 4.1, 2.74, 24.5, 96, 2.05,
					      .76, .56, 1.35, 9.2, .61, 1.6, 560 };
	static const double boston_last[13] = { 0.04741, 0.00, 11.930, 0, 0.5730,
						6.0300, 80.80, 2.5050, 1, 273.0,
						21.00, 396.90, 7.88 };
	static const double letter0[16] = { 2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10,
					    8, 0, 8, 0, 8 };
	static const double bank0[4] = { 3.6216, 8.6661, -2.8073, -0.44699 };
	static const double yeast_last[8] = { 0.65, 0.54, 0.54, 0.13, 0.50,
					      0.00, 0.53, 0.22 };
	static const double abalone0[7] = { 0.455, 0.365, 0.095, 0.514, 0.2245,
					    0.101, 0.15 };
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct rfx_dataset *ds = load(sizes[k].name);
		int finite = 1;
		size_t i;

		for (i = 0; i < ds->n * (size_t)ds->d; i++)
			finite &= isfinite(ds->X[i]);
		ok(ds->n == sizes[k].n && ds->d == sizes[k].d && finite &&
		   !strcmp(ds->name, sizes[k].name) &&
		   rfx_dataset_index(sizes[k].name) == (int)k,
		   "%s: %zu x %d finite values, catalogue index %d", sizes[k].name,
		   sizes[k].n, sizes[k].d, (int)k);
		if (!strcmp(ds->name, "wine"))
			ok(row_is(ds, 0, wine0, 13) && row_is(ds, 177, wine_last, 13),
			   "wine: first and last rows as in wine.csv, class dropped");
		if (!strcmp(ds->name, "boston"))
			ok(row_is(ds, 505, boston_last, 13),
			   "boston: the last row (no final newline), MEDV dropped");
		if (!strcmp(ds->name, "letter"))
			ok(row_is(ds, 0, letter0, 16),
			   "letter: the first row, the letter dropped; empty last line ignored");
		if (!strcmp(ds->name, "banknote"))
			ok(row_is(ds, 0, bank0, 4),
			   "banknote: header skipped, CRLF ends, class dropped");
		if (!strcmp(ds->name, "yeast"))
			ok(row_is(ds, 1483, yeast_last, 8),
			   "yeast: blank-separated, name and class dropped");
		if (!strcmp(ds->name, "abalone"))
			ok(row_is(ds, 0, abalone0, 7), "abalone: sex and rings dropped");
		if (!strcmp(ds->name, "usps"))
			ok(ds->X[0] == -1.0 && ds->X[7] == -0.631 && ds->X[8] == 0.862,
			   "usps: gzip text, digit dropped (-1, ..., -0.631, 0.862)");
		if (!strcmp(ds->name, "mnist")) {
			double mx = 0.0;

			for (i = 0; i < ds->n * (size_t)ds->d; i++)
				mx = ds->X[i] > mx ? ds->X[i] : mx;
			ok(mx == 1.0 && ds->X[0] == 0.0, "mnist: pixels in [0, 1]");
		}
		rfx_dataset_free(ds);
	}
}

/* Writes text to dir/wine.csv. */
static void put_wine(const char *dir, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/wine.csv", dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static void test_malformed(void)
{
	char dir[] = "/tmp/rfx_t_dataset.XXXXXX";
	static const struct {
		const char *text;
		const char *want; /* in the message */
		int code;
	} bad[] = {
		{ "1,2,3,4,5,6,7,8,9,10,11,12,13,1\n1,2,3\n", "line 2: expected 14 fields, got 3",
		  RFX_EFORMAT },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,x,1\n", "line 1 field 13", RFX_EFORMAT },
		{ "1,2,3,4,5,6,7,8,9,10,11,,13,1\n", "field 12", RFX_EFORMAT },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,nan,1\n", "field 13", RFX_EFORMAT },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,1e999,1\n", "field 13", RFX_EFORMAT },
		{ "\n\n", "no data lines", RFX_EFORMAT },
	};
	struct rfx_err err;
	struct rfx_dataset *ds;
	size_t k;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		put_wine(dir, bad[k].text);
		rfx_err_clear(&err);
		ds = rfx_dataset_load("wine", dir, &err);
		ok(!ds && err.code == bad[k].code && strstr(err.msg, bad[k].want) &&
		   strstr(err.msg, "wine.csv"), "malformed wine.csv %zu: %s", k, err.msg);
		rfx_dataset_free(ds);
	}
	put_wine(dir, "  1, 2 ,3,4,5,6,7,8,9,10,11,12,13,1\r\n\r\n2,2,3,4,5,6,7,8,9,10,11,12,-1.5e2,0");
	ds = rfx_dataset_load("wine", dir, &err);
	ok(ds && ds->n == 2 && ds->X[1] == 2.0 && ds->X[13] == 2.0 && ds->X[25] == -150.0,
	   "blanks around commas, CRLF, a blank line and no final newline are fine");
	rfx_dataset_free(ds);
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s/wine.csv", dir);
		unlink(path);
	}
	rfx_err_clear(&err);
	ok(!rfx_dataset_load("wine", dir, &err) && err.code == RFX_EIO &&
	   strstr(err.msg, "cannot open"), "a missing file is RFX_EIO (%s)", err.msg);
	rmdir(dir);
	rfx_err_clear(&err);
	ok(!rfx_dataset_load("iris", data_dir(), &err) && err.code == RFX_EINVAL &&
	   strstr(err.msg, "'iris'") && strstr(err.msg, "optdigits"),
	   "an unknown name lists the catalogue (%s)", err.msg);
	ok(rfx_dataset_index("iris") == -1 && rfx_dataset_index(NULL) == -1,
	   "no index for unknown names");
}

/* 5 x 3 inputs: column 0 varied, column 1 constant, column 2 varied. */
static const double tiny[15] = { 1, 7, 0.5, 2, 7, -1, 4, 7, 3, -3, 7, 0, 6, 7, 2.5 };

static struct rfx_dataset *tiny_set(void)
{
	struct rfx_dataset *ds = rfx_dataset_from("tiny", tiny, 5, 3, NULL);

	if (!ds) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return ds;
}

static double norm2(const struct rfx_dataset *ds, size_t i)
{
	double q = 0.0;
	int l;

	for (l = 0; l < ds->d; l++)
		q += ds->X[i * (size_t)ds->d + (size_t)l] * ds->X[i * (size_t)ds->d + (size_t)l];
	return q;
}

static void test_normalize(void)
{
	struct rfx_dataset *ds;
	enum rfx_norm k;
	double s, mean0, mx;
	size_t i;
	int good;
	struct rfx_err err;

	ds = tiny_set();
	rfx_dataset_normalize(ds, RFX_NORM_ZSCORE);
	s = 0.0;
	mean0 = 0.0;
	good = 1;
	for (i = 0; i < 5; i++) {
		s += norm2(ds, i);
		mean0 += ds->X[i * 3];
		good &= ds->X[i * 3 + 1] == 0.0;
	}
	/* 2 of 3 columns vary: mean |x|^2 = 2/3 */
	ok(fabs(s / 5 - 2.0 / 3.0) < 1e-14 && fabs(mean0) < 1e-14 && good,
	   "zscore: columns centred, constant column 0, mean |x|^2 = 2/3 (2 of 3 vary)");
	rfx_dataset_free(ds);

	ds = tiny_set();
	rfx_dataset_normalize(ds, RFX_NORM_UNIT);
	good = 1;
	for (i = 0; i < 5; i++)
		good &= fabs(norm2(ds, i) - 1.0) < 1e-14;
	ok(good, "unit: every input has length 1");
	rfx_dataset_free(ds);

	ds = tiny_set();
	rfx_dataset_normalize(ds, RFX_NORM_BALL);
	ok(fabs(rfx_dataset_max_norm2(ds) - 1.0) < 1e-14 && norm2(ds, 1) < 1.0,
	   "ball: the longest input has length 1, others shorter");
	rfx_dataset_free(ds);

	ds = tiny_set();
	rfx_dataset_normalize(ds, RFX_NORM_MINMAX);
	good = 1;
	mx = 0.0;
	for (i = 0; i < 15; i++) {
		good &= ds->X[i] >= 0.0 && ds->X[i] <= 1.0 / sqrt(3.0) + 1e-15;
		mx = ds->X[i] > mx ? ds->X[i] : mx;
	}
	/* column 0: (x - (-3))/9 / sqrt 3; x = 1 -> 4/9/sqrt 3 */
	ok(good && fabs(mx - 1.0 / sqrt(3.0)) < 1e-15 &&
	   fabs(ds->X[0] - 4.0 / 9.0 / sqrt(3.0)) < 1e-15 && ds->X[1] == 0.0,
	   "minmax: coordinates in [0, 1/sqrt d], the column extremes at the ends");
	rfx_dataset_free(ds);

	ds = tiny_set();
	rfx_dataset_normalize(ds, RFX_NORM_NONE);
	ok(!memcmp(ds->X, tiny, sizeof(tiny)), "none: untouched");
	ok(rfx_dataset_pad(ds, 4, NULL) == RFX_OK && ds->d == 4 && ds->X[3] == 0.0 &&
	   ds->X[4] == 2.0 && ds->X[19] == 0.0 && ds->X[18] == 2.5,
	   "pad 3 -> 4: rows copied, zero last column");
	rfx_err_clear(&err);
	ok(rfx_dataset_pad(ds, 2, &err) == RFX_EINVAL, "pad to fewer is RFX_EINVAL (%s)",
	   err.msg);
	rfx_dataset_free(ds);

	good = 1;
	for (k = RFX_NORM_NONE; k <= RFX_NORM_MINMAX; k++) {
		enum rfx_norm back;

		good &= rfx_norm_parse(rfx_norm_name(k), &back, NULL) == RFX_OK && back == k &&
			strstr(RFX_NORM_NAMES, rfx_norm_name(k)) != NULL;
	}
	rfx_err_clear(&err);
	ok(good && rfx_norm_parse("l2", &k, &err) == RFX_EINVAL && strstr(err.msg, "minmax"),
	   "normalisation names round-trip; unknown ones list them (%s)", err.msg);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_sigma(void)
{
	enum { N = 60, D = 3, K = 5 };
	double X[N * D], want = 0.0, sigma = 0.0, dist[N];
	gsl_rng *r = rfx_rng_alloc_stream(20221121UL, 300, 0, 0);
	struct rfx_dataset *ds;
	struct rfx_err err;
	int i, j, l;

	for (i = 0; i < N * D; i++)
		X[i] = sin(2.385 * i * i + 0.7 * i);
	memcpy(X + 7 * D, X + 3 * D, D * sizeof(double)); /* a duplicate */
	for (i = 0; i < N; i++) {
		int m = 0;

		for (j = 0; j < N; j++) {
			double q = 0.0;

			if (j == i)
				continue;
			for (l = 0; l < D; l++)
				q += (X[i * D + l] - X[j * D + l]) * (X[i * D + l] - X[j * D + l]);
			dist[m++] = sqrt(q);
		}
		qsort(dist, (size_t)m, sizeof(double), cmp);
		want += dist[K - 1];
	}
	want /= N;
	ds = rfx_dataset_from("sin", X, N, D, NULL);
	ok(rfx_dataset_nn_sigma(ds, K, 1000, r, &sigma, NULL) == RFX_OK &&
	   fabs(sigma - want) < 1e-12 * want,
	   "sigma over all 60 inputs equals the brute-force mean 5th-NN distance "
	   "(%.10g, %.10g)", sigma, want);
	ok(rfx_dataset_nn_sigma(ds, 1, 1000, r, &sigma, NULL) == RFX_OK && sigma > 0.0,
	   "k = 1 works");
	{
		double s1, s2;
		gsl_rng *a = rfx_rng_alloc_stream(1, 2, 3, 4), *b = rfx_rng_alloc_stream(1, 2, 3, 4);

		rfx_dataset_nn_sigma(ds, K, 20, a, &s1, NULL);
		rfx_dataset_nn_sigma(ds, K, 20, b, &s2, NULL);
		ok(s1 == s2 && s1 > 0.0 && s1 != want,
		   "a sample of 20: reproducible from the stream, not the full mean");
		gsl_rng_free(a);
		gsl_rng_free(b);
	}
	rfx_err_clear(&err);
	ok(rfx_dataset_nn_sigma(ds, 0, 10, r, &sigma, NULL) == RFX_EINVAL &&
	   rfx_dataset_nn_sigma(ds, 3, 0, r, &sigma, NULL) == RFX_EINVAL,
	   "k = 0 and no sample are RFX_EINVAL");
	ok(rfx_dataset_nn_sigma(ds, N, 10, r, &sigma, &err) == RFX_EFORMAT &&
	   strstr(err.msg, "too few"),
	   "k = n is the data's fault, RFX_EFORMAT (%s)", err.msg);
	rfx_dataset_free(ds);
	/* duplicates count: 1st neighbour of a doubled point is at 0 */
	{
		double two[4] = { 1, 1, 1, 1 };

		ds = rfx_dataset_from("dup", two, 2, 2, NULL);
		rfx_err_clear(&err);
		ok(rfx_dataset_nn_sigma(ds, 1, 5, r, &sigma, &err) == RFX_EFORMAT &&
			   sigma == 0.0 && strstr(err.msg, "bandwidth 0"),
		   "a duplicate is a neighbour at distance 0: bandwidth 0, the data's "
		   "fault (%s)", err.msg);
		rfx_dataset_free(ds);
	}
	gsl_rng_free(r);
}

/*
 * Class labels, counted against independent sources: letter's class
 * distribution in letter-recognition.names, usps's in usps_zip.info.txt,
 * MNIST's t10k counts in data/MANIFEST.md (980 zeros, 1135 ones) and its
 * first label, a 7 (tests/t_images.c).
 */
static void test_labels(void)
{
	static const int letter[26] = { 789, 766, 736, 805, 768, 775, 773, 734, 755,
					747, 739, 761, 792, 783, 753, 803, 783, 758,
					748, 796, 813, 764, 752, 787, 786, 734 };
	static const int usps_tr[10] = { 1194, 1005, 731, 658, 652,
					 556, 664, 645, 542, 644 };
	static const int usps_te[10] = { 359, 264, 198, 166, 200,
					 160, 170, 147, 166, 177 };
	struct rfx_err err;
	struct rfx_dataset *ds;
	int cnt[26], k, same;
	size_t i;

	rfx_err_clear(&err);
	ds = rfx_dataset_load_labelled("letter", data_dir(), 0, &err);
	ok(ds && ds->n == 20000 && ds->d == 16 && ds->nclass == 26,
	   "letter with labels: 20000 x 16, 26 classes");
	if (ds) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < ds->n; i++)
			cnt[ds->y[i]]++;
		ok(!memcmp(cnt, letter, sizeof(letter)),
		   "letter: A..Z counts as in letter-recognition.names");
		ok(ds->y[0] == 'T' - 'A' && ds->X[0] == 2.0,
		   "letter: the first row is a T with x-box 2");
	}
	rfx_dataset_free(ds);
	for (k = 0; k < 2; k++) {
		ds = rfx_dataset_load_labelled("usps", data_dir(), k, &err);
		same = 0;
		if (ds) {
			memset(cnt, 0, sizeof(cnt));
			for (i = 0; i < ds->n; i++)
				cnt[ds->y[i]]++;
			same = !memcmp(cnt, k ? usps_te : usps_tr, sizeof(usps_tr));
		}
		ok(ds && ds->d == 256 && ds->nclass == 10 && same,
		   "usps %s: digit counts as in usps_zip.info.txt",
		   k ? "test" : "train");
		rfx_dataset_free(ds);
	}
	ds = rfx_dataset_load_labelled("mnist", data_dir(), 0, &err);
	same = 0;
	if (ds) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < ds->n; i++)
			cnt[ds->y[i]]++;
		same = cnt[0] == 980 && cnt[1] == 1135 && ds->y[0] == 7;
	}
	ok(ds && ds->n == 10000 && ds->d == 784 && ds->nclass == 10 && same,
	   "mnist: 10000 labels, 980 zeros, 1135 ones, the first a 7");
	rfx_dataset_free(ds);
	ok(!rfx_dataset_load_labelled("wine", data_dir(), 0, &err) &&
		   err.code == RFX_EINVAL,
	   "a dataset without labels here is RFX_EINVAL (%s)", err.msg);
	ok(!rfx_dataset_load_labelled("letter", data_dir(), 1, &err) &&
		   err.code == RFX_EINVAL,
	   "letter has no test file: RFX_EINVAL (%s)", err.msg);
	{
		char dir[] = "/tmp/rfx_t_dataset_lab.XXXXXX", path[4200];
		FILE *f;

		if (!mkdtemp(dir)) {
			printf("Bail out! mkdtemp\n");
			exit(1);
		}
		snprintf(path, sizeof(path), "%s/letter-recognition.data", dir);
		f = fopen(path, "w");
		if (!f) {
			printf("Bail out! cannot write %s\n", path);
			exit(1);
		}
		fputs("T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8\n"
		      "t,5,12,3,7,2,10,5,5,4,13,3,9,2,8,4,10\n", f);
		fclose(f);
		ok(!rfx_dataset_load_labelled("letter", dir, 0, &err) &&
			   err.code == RFX_EFORMAT && strstr(err.msg, "line 2"),
		   "a label that is not A..Z nor 0..255 is RFX_EFORMAT (%s)",
		   err.msg);
		unlink(path);
		rmdir(dir);
	}
}

int main(void)
{
	test_catalogue();
	test_malformed();
	test_normalize();
	test_sigma();
	test_labels();
	return done_testing();
}

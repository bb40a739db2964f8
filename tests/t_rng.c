/*
 * Reproducible streams (lib/base/rng.h): derivation is a pure function of the
 * tuple, distinct tuples give distinct seeds (and distinct generator
 * states), re-seeding reproduces a fresh stream, and the first draws of
 * neighbouring streams look like independent uniforms.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "base/rng.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * xoshiro256** from the state {1, 2, 3, 4}, worked by hand from the
 * algorithm (out = rotl(5 s1, 7) * 9, then the xor-shift update): the
 * 64-bit outputs are 11520, 0, 1509978240 and 1215971899390074240, the
 * published first outputs for that state. Our GSL wrapper returns the upper
 * 32 bits (0, 0, 0, 283115520) and doubles from the upper 53 bits
 * (11520 >> 11 = 5, so 5 * 2^-53).
 */
static void test_known_answer(void)
{
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());
	uint64_t *s = gsl_rng_state(r);
	static const unsigned long want[4] = { 0, 0, 0, 283115520UL };
	int k, good = 1;

	for (k = 0; k < 4; k++)
		s[k] = (uint64_t)(k + 1);
	for (k = 0; k < 4; k++)
		good &= gsl_rng_get(r) == want[k];
	ok(good, "xoshiro256** reproduces its known outputs from state {1,2,3,4}");
	for (k = 0; k < 4; k++)
		s[k] = (uint64_t)(k + 1);
	ok(gsl_rng_uniform(r) == 5.0 * 0x1.0p-53,
	   "doubles take the upper 53 bits");
	gsl_rng_free(r);
}

static void test_deterministic(void)
{
	gsl_rng *a = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 3, 1, 7);
	gsl_rng *b = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 3, 1, 7);
	gsl_rng *c = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 0, 0, 0);
	int k, same = 1;

	ok(rfx_rng_stream_seed(42, 1, 2, 3) == rfx_rng_stream_seed(42, 1, 2, 3),
	   "the seed of a tuple is a function of the tuple");
	ok(a && !strcmp(gsl_rng_name(a), "xoshiro256**") &&
		   a->type == rfx_rng_type(),
	   "streams are %s generators", a ? gsl_rng_name(a) : "?");
	for (k = 0; k < 1000; k++)
		if (gsl_rng_get(a) != gsl_rng_get(b))
			same = 0;
	ok(same, "two generators for the same tuple give the same 1000 draws");
	/* Re-seeding c to (3, 1, 7) after using it reproduces the fresh stream. */
	for (k = 0; k < 17; k++)
		gsl_rng_get(c);
	rfx_rng_set_stream(c, RFX_DEFAULT_SEED, 3, 1, 7);
	rfx_rng_set_stream(a, RFX_DEFAULT_SEED, 3, 1, 7);
	same = 1;
	for (k = 0; k < 1000; k++)
		if (gsl_rng_get(a) != gsl_rng_get(c))
			same = 0;
	ok(same, "rfx_rng_set_stream reproduces rfx_rng_alloc_stream, even on a used generator");
	/* Neither order of the tuple nor the seed can be swapped. */
	ok(rfx_rng_stream_seed(1, 2, 3, 4) != rfx_rng_stream_seed(1, 3, 2, 4) &&
		   rfx_rng_stream_seed(1, 2, 3, 4) != rfx_rng_stream_seed(2, 1, 3, 4) &&
		   rfx_rng_stream_seed(1, 2, 3, 4) != rfx_rng_stream_seed(1, 2, 4, 3),
	   "the tuple is ordered: swapping two indices changes the seed");
	gsl_rng_free(a);
	gsl_rng_free(b);
	gsl_rng_free(c);
}

/*
 * 3 seeds x 10 x 10 x 40 = 12000 tuples, neighbours in every index: their
 * 64-bit seeds must all differ, and so must the generators' first 64 bits
 * (two draws) -- what a caller actually sees.
 */
static void test_distinct(void)
{
	enum { NT = 3 * 10 * 10 * 40 };
	static uint64_t seeds[NT], first[NT];
	static const uint64_t users[3] = { 0, 1, RFX_DEFAULT_SEED };
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());
	int s, i, j, k, n = 0, dup_seed = 0, dup_first = 0;

	for (s = 0; s < 3; s++)
		for (i = 0; i < 10; i++)
			for (j = 0; j < 10; j++)
				for (k = 0; k < 40; k++, n++) {
					seeds[n] = rfx_rng_stream_seed(users[s], i, j, k);
					rfx_rng_set_stream(r, users[s], i, j, k);
					first[n] = (uint64_t)gsl_rng_get(r) << 32;
					first[n] |= (uint64_t)gsl_rng_get(r);
				}
	qsort(seeds, NT, sizeof(seeds[0]), cmp_u64);
	qsort(first, NT, sizeof(first[0]), cmp_u64);
	for (n = 1; n < NT; n++) {
		dup_seed += seeds[n] == seeds[n - 1];
		dup_first += first[n] == first[n - 1];
	}
	ok(dup_seed == 0, "%d tuples: no two 64-bit stream seeds collide", NT);
	ok(dup_first == 0, "%d tuples: no two streams start with the same 64 bits", NT);
	gsl_rng_free(r);
}

/*
 * The first uniform of streams (seed, 1, g, k) for k < 4000, the pattern
 * rfx_varexp uses (sample index in the last slot): a chi-square test on 20
 * bins (19 degrees of freedom, p > 1e-4), the mean (|z| <= 4, sd
 * 1/sqrt(12 n)) and the lag-1 correlation between neighbouring streams
 * (|r| sqrt(n) <= 4).
 */
static void test_uniformity(void)
{
	enum { NS = 4000, NB = 20 };
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());
	double u[NS], mean = 0, chi2 = 0, c = 0, v = 0, p;
	int cnt[NB] = { 0 }, k;

	for (k = 0; k < NS; k++) {
		rfx_rng_set_stream(r, RFX_DEFAULT_SEED, 1, 2, (uint64_t)k);
		u[k] = gsl_rng_uniform(r);
		cnt[(int)(u[k] * NB)]++;
		mean += u[k];
	}
	mean /= NS;
	for (k = 0; k < NB; k++) {
		double e = (double)NS / NB;

		chi2 += (cnt[k] - e) * (cnt[k] - e) / e;
	}
	p = gsl_cdf_chisq_Q(chi2, NB - 1);
	ok(p > 1e-4, "first draws of %d streams: chi^2 = %.1f on %d df, p = %.3f",
	   NS, chi2, NB - 1, p);
	is_within_se(mean, 1.0 / sqrt(12.0 * NS), 0.5, 4.0,
		     "first draws of %d streams: mean %.4f", NS, mean);
	for (k = 0; k < NS; k++)
		v += (u[k] - mean) * (u[k] - mean);
	for (k = 1; k < NS; k++)
		c += (u[k] - mean) * (u[k - 1] - mean);
	ok(fabs(c / v) * sqrt((double)NS) <= 4.0,
	   "neighbouring streams are uncorrelated: lag-1 r = %.4f", c / v);
	gsl_rng_free(r);
}

/*
 * Named keys: the hash is 64-bit FNV-1a over each string and a 0xff
 * terminator (the expected values computed independently with Python's
 * integers), names cannot slide across their boundaries or swap places,
 * and a key's stream is the numeric stream (seed, hash, i, j).
 */
static void test_named_keys(void)
{
	const struct rfx_rng_key sets = { "variance", "sets", { "normal" }, 0, 0 };
	const struct rfx_rng_key none = { NULL, NULL, { NULL }, 0, 0 };
	const struct rfx_rng_key ab_c = { "x", "y", { "ab", "c" }, 1, 2 };
	const struct rfx_rng_key a_bc = { "x", "y", { "a", "bc" }, 1, 2 };
	const struct rfx_rng_key c_ab = { "x", "y", { "c", "ab" }, 1, 2 };
	const struct rfx_rng_key ab_c_j = { "x", "y", { "ab", "c" }, 1, 3 };
	gsl_rng *a = rfx_rng_alloc_key(RFX_DEFAULT_SEED, &ab_c);
	gsl_rng *b = rfx_rng_alloc_stream(RFX_DEFAULT_SEED,
					  rfx_rng_key_hash(&ab_c), 1, 2);
	int k, same = 1;

	ok(rfx_rng_key_hash(&sets) == 0xaca2abe4e86580ffULL,
	   "hash of (variance, sets, normal) is FNV-1a with 0xff terminators");
	ok(rfx_rng_key_hash(&none) == 0xac3fdc08a1c002aaULL,
	   "an all-NULL key hashes five terminators");
	ok(rfx_rng_key_hash(&ab_c) != rfx_rng_key_hash(&a_bc) &&
		   rfx_rng_key_hash(&ab_c) != rfx_rng_key_hash(&c_ab),
	   "names neither slide across boundaries nor commute");
	for (k = 0; k < 100 && a && b; k++)
		if (gsl_rng_get(a) != gsl_rng_get(b))
			same = 0;
	ok(a && b && same, "a key's stream is (seed, hash, i, j)");
	rfx_rng_set_key(b, RFX_DEFAULT_SEED, &ab_c_j);
	rfx_rng_set_key(a, RFX_DEFAULT_SEED, &ab_c);
	ok(gsl_rng_get(a) != gsl_rng_get(b), "the cell index j enters the stream");
	ok(rfx_rng_bits(-0.0) == rfx_rng_bits(0.0) &&
		   rfx_rng_bits(0.5) == 0x3fe0000000000000ULL,
	   "a double's bits index a cell, -0 and +0 alike");
	gsl_rng_free(a);
	gsl_rng_free(b);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_known_answer();
	test_deterministic();
	test_distinct();
	test_uniformity();
	test_named_keys();
	return done_testing();
}

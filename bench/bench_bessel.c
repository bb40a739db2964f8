/*
 * Benchmark of rfx_bessel_sum_log_i0_prod, the inner loop of the geometric
 * random features' variance (thesis eq. 6.19): nanoseconds per element for
 * all L x L pairs of L rows of d coordinates, per kernel this CPU runs, for
 * four ranges of z (each picks a different kind of block in lib/num/bessel.c),
 * then the all-pairs form rfx_bessel_sum_log_i0_pairs (kernel in use) on
 * the same pairs in one call, against a plain loop over
 * gsl_sf_bessel_I0_scaled on the same pairs.
 * Times are the best of several repetitions (FFTW's bench does the same).
 *
 *   bench_bessel [d [L [reps]]]      defaults: 64 256 7
 *
 * The data come from a fixed seed, so runs compare.
 */
#include "num/bessel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_bessel.h>

/* Coordinate ranges: |x_l|, |y_l| in [lo, hi] puts z in [lo^2, hi^2]. */
static const struct regime {
	const char *name;
	double lo, hi;
} regimes[] = {
	{ "z in [0, 2]", 0.0, 1.41421356 },
	{ "z in [0, 8]", 0.0, 2.82842712 },
	{ "z in (8, 100]", 2.8285, 10.0 },
	{ "z in [0, 30]", 0.0, 5.47722558 },
	{ NULL, 0.0, 0.0 }
};

static const char *const kernel_names[] = { "generic", "avx2", "avx512", NULL };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Best time per element over reps passes of fn over all L x L pairs. */
static double time_kernel(rfx_bessel_sum_fn *fn, const double *X, size_t L,
			  size_t d, int reps, double *sink)
{
	double best = HUGE_VAL;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now(), s = 0.0, t;
		size_t i, j;

		for (i = 0; i < L; i++)
			for (j = 0; j < L; j++)
				s += fn(X + i * d, X + j * d, 1.0, d);
		t = (now() - t0) / ((double)L * L * d);
		if (t < best)
			best = t;
		*sink += s;
	}
	return best * 1e9;
}

/*
 * Best time per element of rfx_bessel_sum_log_i0_pairs over the same
 * L x L pairs, in one call (out holds L x L sums).
 */
static double time_pairs(const double *X, size_t L, size_t d, int reps,
			 double *out, double *sink)
{
	double best = HUGE_VAL;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now(), t;

		rfx_bessel_sum_log_i0_pairs(X, L, X, L, d, 1.0, out);
		t = (now() - t0) / ((double)L * L * d);
		if (t < best)
			best = t;
		*sink += out[L + 1];
	}
	return best * 1e9;
}

/* The same sums from GSL, on the first rows only (it is ~50x slower). */
static double time_gsl(const double *X, size_t L, size_t d, int reps,
		       double *sink)
{
	size_t rows = L < 16 ? L : 16;
	double best = HUGE_VAL;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now(), s = 0.0, t;
		size_t i, j, l;

		for (i = 0; i < rows; i++)
			for (j = 0; j < L; j++)
				for (l = 0; l < d; l++) {
					double z = fabs(X[i * d + l] *
							X[j * d + l]);

					s += z +
					     log(gsl_sf_bessel_I0_scaled(z));
				}
		t = (now() - t0) / ((double)rows * L * d);
		if (t < best)
			best = t;
		*sink += s;
	}
	return best * 1e9;
}

int main(int argc, char **argv)
{
	size_t d = argc > 1 ? (size_t)atol(argv[1]) : 64;
	size_t L = argc > 2 ? (size_t)atol(argv[2]) : 256;
	int reps = argc > 3 ? atoi(argv[3]) : 7;
	const struct regime *g;
	double *X, *out, sink = 0.0;
	gsl_rng *rng;
	size_t k;
	int i;

	gsl_set_error_handler_off();
	if (d < 1 || L < 1 || reps < 1) {
		fprintf(stderr, "usage: bench_bessel [d [L [reps]]]\n");
		return 2;
	}
	X = malloc(L * d * sizeof *X);
	out = malloc(L * L * sizeof *out);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!X || !out || !rng) {
		fprintf(stderr, "bench_bessel: out of memory\n");
		return 1;
	}
	rfx_bessel_init();
	printf("# rfx_bessel_sum_log_i0_prod, ns per element, d = %zu, "
	       "%zu x %zu pairs, best of %d; kernel in use: %s\n",
	       d, L, L, reps, rfx_bessel_kernel_name());
	printf("%-14s", "# regime");
	for (i = 0; kernel_names[i]; i++)
		printf(" %8s", kernel_names[i]);
	printf(" %8s %8s %8s\n", "pairs", "gsl", "speedup");

	for (g = regimes; g->name; g++) {
		double best = HUGE_VAL, tg, t;

		gsl_rng_set(rng, 1);
		for (k = 0; k < L * d; k++) {
			double v = g->lo + (g->hi - g->lo) *
				   gsl_rng_uniform(rng);

			X[k] = gsl_rng_uniform(rng) < 0.5 ? -v : v;
		}
		printf("%-14s", g->name);
		for (i = 0; kernel_names[i]; i++) {
			rfx_bessel_sum_fn *fn;

			if (rfx_bessel_kernel_find(kernel_names[i], &fn,
						   NULL)) {
				printf(" %8s", "-");
				continue;
			}
			t = time_kernel(fn, X, L, d, reps, &sink);
			if (t < best)
				best = t;
			printf(" %8.3f", t);
			fflush(stdout);
		}
		t = time_pairs(X, L, d, reps, out, &sink);
		if (t < best)
			best = t;
		printf(" %8.3f", t);
		tg = time_gsl(X, L, d, reps < 3 ? reps : 3, &sink);
		printf(" %8.2f %7.0fx\n", tg, tg / best);
	}
	/* keeps the sums live; never true for this data */
	if (sink == 42.0)
		printf("# %g\n", sink);

	gsl_rng_free(rng);
	free(X);
	free(out);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bench_bessel: cannot write the output\n");
		return 1;
	}
	return 0;
}

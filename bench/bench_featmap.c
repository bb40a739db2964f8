/*
 * Benchmark of the feature maps against the projection they start from.
 * For L inputs of dimension d and a budget of M features it times one
 * OpenBLAS dgemm of the projection's shape (L x d times d x M, all BLAS
 * threads), then the features hook of trig, pos, oprf, the angular
 * hybrid ang and the dense-exponential sderf (one extra d x d product per
 * input; aderf and saderf share its map) through the registry, exactly as the Monte Carlo code calls
 * it, and prints each map's time as a multiple of the dgemm's. The target
 * (bench/README.md) is a multiple of at most 1.5.
 *
 *   bench_featmap [L [d [M [reps]]]]               defaults: 65536 64 256 7
 *   bench_featmap --item NAME [L [d [M [reps]]]]   one item, one line
 *
 * Times are the best of reps runs after untimed warm-up runs that also
 * touch every page of the outputs (FFTW's bench takes the best time too):
 * at least one, and in --item mode at least WARMUP_S seconds of them, as
 * the peers' (an idle core of the VM takes tens of ms to reach its full
 * speed, which made the trig map at L = 4096 look 4 times slower per row
 * than at L = 65536 after a single warm-up run).
 * Inputs and draws come from fixed seeds, so runs compare. The exit status
 * is 0 even when a target is missed: a benchmark reports, it never fails a
 * build.
 *
 * With --item (dgemm, trig, pos, oprf, ang or sderf) the process allocates and
 * runs that item alone and prints "NAME ms peak_KiB features": the peak
 * resident set (getrusage) is then the item's own, inputs included, which
 * bench/featmaps.sh reports per line; it runs the items in rounds, one
 * process each, beside the NumPy and scikit-learn peers.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_errno.h>

#include "est/estimator.h"
#include "base/rng.h"

#define TARGET 1.5 /* largest acceptable ratio to the dgemm */
#define WARMUP_S 0.25 /* seconds of untimed runs before an --item's timed ones */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/*
 * A standard normal draw (Box-Muller; gsl_randist.h is avoided because it
 * pulls in gsl_cblas.h, whose declarations clash with OpenBLAS' cblas.h).
 */
static double gaussian(const gsl_rng *r)
{
	double u = gsl_rng_uniform_pos(r), v = gsl_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* Seconds taken by one dgemm C = X omega (all BLAS threads). */
static double run_dgemm(const double *X, const struct rfx_draw *w, double *C,
			size_t L, int M)
{
	double t0 = now();

	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)L, M, w->d,
		    1.0, X, w->d, w->omega, w->cap, 0.0, C, M);
	return now() - t0;
}

/* Seconds taken by e's features of side 1; < 0 on failure. */
static double run_features(const struct rfx_estimator_type *e,
			   const struct rfx_params *p,
			   const struct rfx_draw *w, const double *X, size_t L,
			   int M, struct rfx_featmat *F)
{
	struct rfx_err err;
	double t0 = now();

	if (e->features(p, w, 1, X, L, M, F, &err)) {
		fprintf(stderr, "bench_featmap: %s: %s\n", e->name, err.msg);
		return -1.0;
	}
	return now() - t0;
}

/*
 * Lets the threads of the previous item go idle: OpenBLAS's workers spin
 * (yielding) for ~0.1 s after a call and OpenMP's for a moment, and either
 * would steal a core from the next item on a 2-core machine.
 */
static void settle(void)
{
	struct timespec ts = { 0, 150000000L };

	nanosleep(&ts, NULL);
}

#define NMETHODS 5

static const struct rfx_estimator_type *const methods[NMETHODS] = {
	&rfx_est_trig, &rfx_est_pos, &rfx_est_oprf, &rfx_est_ang, &rfx_est_sderf
};

/* n inputs of dimension d and norm about 1 (the normal regime, gamma 1). */
static void fill_inputs(const gsl_rng *rng, double *X, size_t n, int d)
{
	size_t i;

	for (i = 0; i < n * (size_t)d; i++)
		X[i] = gaussian(rng) / sqrt((double)d);
}

/*
 * --item: one item in a process of its own; k = -1 is the dgemm. Prints
 * "NAME ms peak_KiB features" and returns the exit status.
 */
static int run_item(int k, size_t L, int d, int M, int reps)
{
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat *F = NULL;
	struct rfx_params p;
	struct rfx_err err;
	struct rusage ru;
	double *X = malloc(L * (size_t)d * sizeof(*X)), *C = NULL;
	double best = HUGE_VAL, t0;
	gsl_rng *rng = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 7, 0, 0);
	int r, status = 1, D = M;

	rfx_params_init(&p, d);
	if (k < 0)
		C = malloc(L * (size_t)M * sizeof(*C));
	else
		F = rfx_featmat_alloc(L, M);
	if (!w || !X || !rng || (k < 0 ? !C : !F)) {
		fprintf(stderr, "bench_featmap: out of memory\n");
		goto out;
	}
	fill_inputs(rng, X, L, d);
	if (k >= 0 && (methods[k]->fit(&p, X, L, X, L, M, &err) ||
		       methods[k]->draw(rng, RFX_PROJ_IID, &p, M, w, &err))) {
		fprintf(stderr, "bench_featmap: %s: %s\n", methods[k]->name,
			err.msg);
		goto out;
	}
	if (k < 0)
		for (r = 0; r < d * M; r++)
			w->omega[r] = gaussian(rng);
	else
		D = rfx_estimator_features(methods[k], &p, M);
	for (r = 0, t0 = now(); r <= reps; r++) {
		double t = k < 0 ? run_dgemm(X, w, C, L, M)
				 : run_features(methods[k], &p, w, X, L, M, F);

		if (t < 0.0)
			goto out;
		if (r == 0 && now() - t0 < WARMUP_S)
			r--; /* still warming up */
		else if (r > 0 && t < best)
			best = t;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%s %.3f %ld %d\n", k < 0 ? "dgemm" : methods[k]->name,
	       1e3 * best, ru.ru_maxrss, D);
	status = 0;
out:
	rfx_params_release(&p);
	rfx_draw_free(w);
	rfx_featmat_free(F);
	free(X);
	free(C);
	if (rng)
		gsl_rng_free(rng);
	return status;
}

int main(int argc, char **argv)
{
	int item = -2; /* --item: -1 dgemm, else a method (-3 unknown); -2 all */
	size_t L;
	int d, M, reps;
	struct rfx_draw *w[NMETHODS] = { NULL };
	struct rfx_params p[NMETHODS];
	struct rfx_featmat *F = NULL;
	double *X = NULL, *C = NULL, tg = HUGE_VAL, tf[NMETHODS];
	gsl_rng *rng = NULL;
	struct rfx_err err;
	int k, r, nthreads = 1, status = 1, missed = 0;

	gsl_set_error_handler_off();
	if (argc > 1 && !strcmp(argv[1], "--item")) {
		item = argc > 2 && !strcmp(argv[2], "dgemm") ? -1 : -3;
		for (k = 0; argc > 2 && k < NMETHODS; k++)
			if (!strcmp(argv[2], methods[k]->name))
				item = k;
		argc -= argc > 2 ? 2 : 1;
		argv += 2;
	}
	L = argc > 1 ? (size_t)atol(argv[1]) : 65536;
	d = argc > 2 ? atoi(argv[2]) : 64;
	M = argc > 3 ? atoi(argv[3]) : 256;
	reps = argc > 4 ? atoi(argv[4]) : 7;
	if (item == -3 || L < 1 || d < 1 || M < 1 || reps < 1 || argc > 5) {
		fprintf(stderr, "usage: bench_featmap [--item dgemm|trig|pos|"
				"oprf|ang|sderf] [L [d [M [reps]]]]\n");
		return 2;
	}
	if (item > -2)
		return run_item(item, L, d, M, reps);
#ifdef _OPENMP
	nthreads = omp_get_max_threads();
#endif
	for (k = 0; k < NMETHODS; k++) {
		rfx_params_init(&p[k], d);
		w[k] = rfx_draw_alloc(d, M);
		tf[k] = HUGE_VAL;
	}
	X = malloc(L * (size_t)d * sizeof(*X));
	C = malloc(L * (size_t)M * sizeof(*C));
	F = rfx_featmat_alloc(L, M);
	rng = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 7, 0, 0);
	for (k = 0; k < NMETHODS; k++)
		if (!w[k])
			break;
	if (!X || !C || k < NMETHODS || !F || !rng) {
		fprintf(stderr, "bench_featmap: out of memory\n");
		goto out;
	}
	fill_inputs(rng, X, L, d);
	for (k = 0; k < NMETHODS; k++)
		if (methods[k]->fit(&p[k], X, L, X, L, M, &err) ||
		    methods[k]->draw(rng, RFX_PROJ_IID, &p[k], M, w[k], &err)) {
			fprintf(stderr, "bench_featmap: %s: %s\n",
				methods[k]->name, err.msg);
			goto out;
		}

	printf("# L = %zu, d = %d, M = %d; best of %d; OpenMP threads %d, "
	       "OpenBLAS threads %d, OpenBLAS kernel %s\n",
	       L, d, M, reps, nthreads, openblas_get_num_threads(),
	       openblas_get_corename());
	fflush(stdout);
	/*
	 * Rounds of every item in turn, so that load from elsewhere hits
	 * them alike; round 0 is the warm-up (page faults, first calls).
	 */
	for (r = 0; r <= reps; r++) {
		double t;

		settle();
		t = run_dgemm(X, w[0], C, L, M);
		if (r > 0 && t < tg)
			tg = t;
		for (k = 0; k < NMETHODS; k++) {
			settle();
			t = run_features(methods[k], &p[k], w[k], X, L, M, F);
			if (t < 0.0)
				goto out;
			if (r > 0 && t < tf[k])
				tf[k] = t;
		}
	}
	printf("%-26s %10s %8s %8s %s\n", "# what", "ms", "ratio", "target",
	       "status");
	printf("%-26s %10.2f %8s %8s %.1f GFlop/s\n", "dgemm (projection)",
	       1e3 * tg, "1.00", "-", 2.0 * L * d * M / tg * 1e-9);
	for (k = 0; k < NMETHODS; k++) {
		char label[64];

		snprintf(label, sizeof(label), "%s features (%d)",
			 methods[k]->name,
			 rfx_estimator_features(methods[k], &p[k], M));
		missed += tf[k] / tg > TARGET;
		printf("%-26s %10.2f %8.2f %8.2f %s\n", label, 1e3 * tf[k],
		       tf[k] / tg, TARGET, tf[k] / tg <= TARGET ? "ok" : "SLOW");
	}
	printf("# feature maps: %s\n",
	       missed ? "some miss the target" : "all within the target");
	status = 0;
out:
	for (k = 0; k < NMETHODS; k++) {
		rfx_params_release(&p[k]);
		rfx_draw_free(w[k]);
	}
	free(X);
	free(C);
	rfx_featmat_free(F);
	if (rng)
		gsl_rng_free(rng);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bench_featmap: cannot write the output\n");
		return 1;
	}
	return status;
}

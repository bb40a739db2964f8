/*
 * Benchmark of the feature maps against the projection they start from.
 * For L inputs of dimension d and a budget of M features it times one
 * OpenBLAS dgemm of the projection's shape (L x d times d x M, all BLAS
 * threads), then the features hook of trig, pos, oprf, the angular
 * hybrid ang and the dense-exponential sderf and aderf (one extra d x d
 * product per input) and saderf (a diagonal one) through the registry,
 * exactly as the Monte Carlo code calls it, and prints each map's time as
 * a multiple of the dgemm's. The target
 * (bench/README.md, issue 23) is a multiple of at most 0.75 (1.5 for ang).
 * Then the float32 maps of trig, pos, oprf and sderf (the features32
 * hooks, lib/est/featmap32.h: float inputs, the draw rounded to float),
 * each as a multiple of its float64 map's time: target at most 0.5.
 *
 *   bench_featmap [L [d [M [reps]]]]               defaults: 65536 64 256 7
 *   bench_featmap --item NAME [L [d [M [reps]]]]   one item, one line
 *   bench_featmap --pair NAME [L [d [M [reps]]]]   a map against its reference
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
 * With --peak [L [d [M]]] it prints this core's AVX-512 (else AVX2) FMA
 * rate and rfx_gemm's on the maps' shape, one thread (run_peak): the bound
 * under every map's time.
 *
 * With --accuracy [d [M]] it times nothing: it measures the float32 maps'
 * error against float64 as a function of the inputs' norm (docs/
 * ATTENTION.md, "float32 feature maps"): for |x| = 0.25 .. 16, over 512
 * inputs of that norm (defaults d = 64, M = 256), the largest error of a
 * feature relative to its row's largest, the median and largest relative
 * error of the kernel estimates of 512 pairs (x_i, y_i) (trig: absolute,
 * its estimates are sums of +-1/M terms near 0), and for the positive
 * maps the largest error of normalised linear attention outputs
 * sum_j (phi(q).phi(k_j)) v_j / sum_j phi(q).phi(k_j) over the 512 keys,
 * computed in float from the float features (as float attention code
 * does) against double from the double ones, relative to max |out|.
 *
 * With --pair NAME (a map) it runs NAME as --item does, each run after
 * its reference (a dgemm of the same shape, or for a float32 map the
 * float64 one), and adds a sixth field to the line: the median of the
 * runs' ratios to the reference (run_item says why).
 *
 * With --item (dgemm, trig, pos, oprf, ang, sderf, aderf or saderf, or
 * trig32, pos32, oprf32 or sderf32 for a float32 map) the process allocates and
 * runs that item alone and prints "NAME ms peak_KiB features cpu_ms" (the
 * best wall time, and the least CPU time of a timed run, all threads): the peak
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

#include "num/blas.h"
#include "num/gemm.h"
#include "est/estimator.h"
#include "base/rng.h"

#define TARGET 0.75    /* largest acceptable ratio of a map to the dgemm */
#define TARGET_ANG 1.5 /* the same for ang, whose map is 216 complex features */
#define TARGET32 0.5   /* largest ratio of a float32 map to its float64 map */
#define WARMUP_S 0.25 /* seconds of untimed runs before an --item's timed ones */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/*
 * CPU seconds of the process, all threads (the --item lines' last field:
 * on a loaded machine it moves much less than the wall time, since time
 * spent waiting for a core does not count).
 */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

/* Seconds taken by e's float32 features of side 1; < 0 on failure. */
static double run_features32(const struct rfx_estimator_type *e,
			     const struct rfx_params *p,
			     const struct rfx_draw32 *w, const float *X,
			     size_t L, int M, struct rfx_featmat32 *F)
{
	struct rfx_err err;
	double t0 = now();

	if (e->features32(p, w, 1, X, L, M, F, &err)) {
		fprintf(stderr, "bench_featmap: %s (float32): %s\n", e->name,
			err.msg);
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

#define NMETHODS 7
#define NF32 4 /* the float32 maps: trig pos oprf sderf */

static const int f32_of[NF32] = { 0, 1, 2, 4 }; /* their places in methods[] */

static const struct rfx_estimator_type *const methods[NMETHODS] = {
	&rfx_est_trig, &rfx_est_pos, &rfx_est_oprf, &rfx_est_ang, &rfx_est_sderf,
	&rfx_est_aderf, &rfx_est_saderf
};

/* n inputs of dimension d and norm about 1 (the normal regime, gamma 1). */
static void fill_inputs(const gsl_rng *rng, double *X, size_t n, int d)
{
	size_t i;

	for (i = 0; i < n * (size_t)d; i++)
		X[i] = gaussian(rng) / sqrt((double)d);
}

static int cmp_double(const void *a, const void *b);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

/*
 * --peak: this core's FMA rate, 16 independent chains of 8-lane FMAs
 * (enough to cover the latency), in lane-FMAs per second.
 */
__attribute__((target("avx512f"))) static double fma_peak(void)
{
	const long n = 20000000;
	__m512d a[16], b = _mm512_set1_pd(1.0000001), c = _mm512_set1_pd(1e-9);
	double t0, s = 0.0;
	long k;
	int i;

	for (i = 0; i < 16; i++)
		a[i] = _mm512_set1_pd(i);
	t0 = now();
	for (k = 0; k < n; k++)
#pragma GCC unroll 16
		for (i = 0; i < 16; i++)
			a[i] = _mm512_fmadd_pd(a[i], b, c);
	t0 = now() - t0;
	for (i = 0; i < 16; i++)
		s += _mm512_reduce_add_pd(a[i]);
	return s == s ? 16.0 * 8.0 * (double)n / t0 : 0.0; /* s: keep the loop */
}

/* The same on CPUs without AVX-512: 12 chains of 4-lane FMAs (16 registers). */
__attribute__((target("avx2,fma"))) static double fma_peak2(void)
{
	const long n = 40000000;
	__m256d a[12], b = _mm256_set1_pd(1.0000001), c = _mm256_set1_pd(1e-9);
	double t0, s = 0.0, l[4];
	long k;
	int i;

	for (i = 0; i < 12; i++)
		a[i] = _mm256_set1_pd(i);
	t0 = now();
	for (k = 0; k < n; k++)
#pragma GCC unroll 12
		for (i = 0; i < 12; i++)
			a[i] = _mm256_fmadd_pd(a[i], b, c);
	t0 = now() - t0;
	for (i = 0; i < 12; i++) {
		_mm256_storeu_pd(l, a[i]);
		s += l[0] + l[1] + l[2] + l[3];
	}
	return s == s ? 12.0 * 4.0 * (double)n / t0 : 0.0;
}
#endif

/*
 * --peak: how close rfx's product comes to the core's FMA peak, the
 * bound under every map's time (bench/README.md): one thread, rfx_gemm
 * of L x d by d x M in the maps' blocks of rows (rfx_featmat_block_rows)
 * into one cache-sized buffer, as lib/est/featmap.c runs it, against
 * fma_peak. Prints "peak GFMA/s", "rfx_gemm GFMA/s" and their ratio.
 */
static int run_peak(size_t L, int d, int M)
{
	double *X = malloc(L * (size_t)d * sizeof(double));
	double *W = malloc((size_t)d * (size_t)M * sizeof(double));
	size_t B = rfx_featmat_block_rows(M), i, i0;
	double *C = malloc(B * (size_t)M * sizeof(double));
	double peak = 0.0, best = HUGE_VAL;
	int r;

	if (!X || !W || !C) {
		fprintf(stderr, "bench_featmap: out of memory\n");
		free(X);
		free(W);
		free(C);
		return 1;
	}
	for (i = 0; i < L * (size_t)d; i++)
		X[i] = 1.0 / (double)(i % 97 + 1);
	for (i = 0; i < (size_t)d * (size_t)M; i++)
		W[i] = 1.0 / (double)(i % 89 + 1);
	for (r = 0; r < 7; r++) { /* each the best of 7, taken in turns */
		double t0;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
		if (__builtin_cpu_supports("avx512f") ||
		    (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
			t0 = __builtin_cpu_supports("avx512f") ? fma_peak() : fma_peak2();
			peak = t0 > peak ? t0 : peak;
		}
#endif
		t0 = now();

		for (i0 = 0; i0 < L; i0 += B)
			rfx_gemm(L - i0 < B ? L - i0 : B, (size_t)M, (size_t)d,
				 1.0, X + i0 * (size_t)d, (size_t)d, W, (size_t)M,
				 C, (size_t)M);
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	best = (double)L * d * M / best;
	printf("peak %.1f GFMA/s (AVX-512 or AVX2 FMA chains; 0: neither)\n", 1e-9 * peak);
	printf("rfx_gemm %.1f GFMA/s, L = %zu, d = %d, M = %d, one thread\n",
	       1e-9 * best, L, d, M);
	if (peak > 0.0)
		printf("ratio %.2f\n", best / peak);
	free(X);
	free(W);
	free(C);
	return 0;
}

/*
 * --item: one item in a process of its own; k = -1 is the dgemm. Prints
 * "NAME ms peak_KiB features cpu_ms" and returns the exit status. With
 * pair (--pair), each run of the map follows a run of its reference on
 * the same inputs and draw (the dgemm for a float64 map, the float64 map
 * for a float32 one), and the line ends with a sixth field, the median
 * over the runs of the map's time over the reference's just before it:
 * a ratio taken a fraction of a second apart, which the VM's speed,
 * swinging by a fifth from one minute to the next, moves far less than
 * one between processes run seconds apart. (The peak resident set then
 * counts the reference's output too.)
 */
static int run_item(int k, int f32, int pair, size_t L, int d, int M,
		    int reps)
{
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_draw32 *w32 = NULL;
	struct rfx_featmat *F = NULL;
	struct rfx_featmat32 *F32 = NULL;
	float *X32 = NULL;
	struct rfx_params p;
	struct rfx_err err;
	struct rusage ru;
	double *X = malloc(L * (size_t)d * sizeof(*X)), *C = NULL;
	double best = HUGE_VAL, bcpu = HUGE_VAL, t0, *ratio = NULL;
	gsl_rng *rng = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 7, 0, 0);
	int r, status = 1, D = M, nratio = 0;

	rfx_params_init(&p, d);
	if (k < 0 || (pair && !f32))
		C = malloc(L * (size_t)M * sizeof(*C));
	if (pair && !(ratio = malloc((size_t)reps * sizeof(*ratio)))) {
		fprintf(stderr, "bench_featmap: out of memory\n");
		goto out;
	}
	if (k >= 0 && f32) {
		F32 = rfx_featmat32_alloc(L, M);
		X32 = malloc(L * (size_t)d * sizeof(*X32));
	}
	if (k >= 0 && (!f32 || pair))
		F = rfx_featmat_alloc(L, M);
	if (!w || !X || !rng || (k < 0 ? !C : f32 ? !F32 || !X32 : !F) ||
	    (pair && (f32 ? !F : !C))) {
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
	if (f32) {
		size_t i;

		for (i = 0; i < L * (size_t)d; i++)
			X32[i] = (float)X[i];
		w32 = rfx_draw32_alloc(w);
		if (!w32) {
			fprintf(stderr, "bench_featmap: out of memory\n");
			goto out;
		}
	}
	for (r = 0, t0 = now(); r <= reps; r++) {
		double c0, t, c, tg = 0.0;

		if (pair) { /* the reference, then the map, on idle cores */
			settle();
			tg = f32 ? run_features(methods[k], &p, w, X, L, M, F)
				 : run_dgemm(X, w, C, L, M);
			if (tg < 0.0)
				goto out;
			settle();
		}
		c0 = cpu_now();
		t = k < 0 ? run_dgemm(X, w, C, L, M)
		    : f32 ? run_features32(methods[k], &p, w32, X32, L, M, F32)
			  : run_features(methods[k], &p, w, X, L, M, F);
		c = cpu_now() - c0;
		if (t < 0.0)
			goto out;
		if (r == 0 && now() - t0 < WARMUP_S)
			r--; /* still warming up */
		else if (r > 0) {
			best = t < best ? t : best;
			bcpu = c < bcpu ? c : bcpu;
			if (pair)
				ratio[nratio++] = t / tg;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%s%s %.3f %ld %d %.3f", k < 0 ? "dgemm" : methods[k]->name,
	       f32 ? "32" : "", 1e3 * best, ru.ru_maxrss, D, 1e3 * bcpu);
	if (pair) {
		qsort(ratio, (size_t)nratio, sizeof(*ratio), cmp_double);
		printf(" %.4f", nratio % 2 ? ratio[nratio / 2]
				: 0.5 * (ratio[nratio / 2 - 1] + ratio[nratio / 2]));
	}
	printf("\n");
	status = 0;
out:
	free(ratio);
	rfx_params_release(&p);
	rfx_draw_free(w);
	rfx_draw32_free(w32);
	rfx_featmat_free(F);
	rfx_featmat32_free(F32);
	free(X);
	free(X32);
	free(C);
	if (rng)
		gsl_rng_free(rng);
	return status;
}

/* n inputs of dimension d, each of norm r exactly (in double). */
static void fill_norm(const gsl_rng *rng, double *X, size_t n, int d, double r)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		double *x = X + i * (size_t)d, s = 0.0;

		for (l = 0; l < d; l++) {
			x[l] = gaussian(rng);
			s += x[l] * x[l];
		}
		for (l = 0; l < d; l++)
			x[l] *= r / sqrt(s);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Feature j of row i of F (complex: re and im as 2 reals) times e^{-lscale}. */
static double feat64(const struct rfx_featmat *F, size_t i, int j)
{
	return j < F->D ? F->re[i * (size_t)F->D + (size_t)j]
			: F->im[i * (size_t)F->D + (size_t)(j - F->D)];
}

static float feat32(const struct rfx_featmat32 *F, size_t i, int j)
{
	return j < F->D ? F->re[i * (size_t)F->D + (size_t)j]
			: F->im[i * (size_t)F->D + (size_t)(j - F->D)];
}

/*
 * --accuracy: the table described at the top. The kernel estimate of a
 * pair is sum_j Re Phi1 Phi2 from side 1 of x and side 2 of y; attention
 * uses side 1 for queries and side 2 for keys, v_j in [-1, 1]^8.
 */
static int run_accuracy(int d, int M)
{
	enum { n = 512, dv = 8 };
	static const double radii[] = { 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0 };
	double *X = malloc(n * (size_t)d * sizeof(double));
	double *Y = malloc(n * (size_t)d * sizeof(double));
	float *X32 = malloc(n * (size_t)d * sizeof(float));
	float *Y32 = malloc(n * (size_t)d * sizeof(float));
	double V[n * dv], kerr[n];
	struct rfx_featmat *F1 = rfx_featmat_alloc(n, M), *F2 = rfx_featmat_alloc(n, M);
	struct rfx_featmat32 *G1 = rfx_featmat32_alloc(n, M);
	struct rfx_featmat32 *G2 = rfx_featmat32_alloc(n, M);
	gsl_rng *rng = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 7, 1, 0);
	struct rfx_err err;
	int k, ri, status = 1;
	size_t i;

	if (!X || !Y || !X32 || !Y32 || !F1 || !F2 || !G1 || !G2 || !rng) {
		fprintf(stderr, "bench_featmap: out of memory\n");
		goto out;
	}
	for (i = 0; i < n * dv; i++)
		V[i] = 2.0 * gsl_rng_uniform(rng) - 1.0;
	printf("# float32 maps against float64, d = %d, M = %d, %d inputs per norm;"
	       " the same draw (float32: rounded)\n", d, M, n);
	printf("# feature: max |f32 - f64| / max_j |f64_j| of its row; kernel: "
	       "relative error of the estimate (trig: absolute), median and max "
	       "over %d pairs; attention: max |out32 - out64| / max |out64|\n", n);
	printf("%-6s %6s %12s %12s %12s %12s\n", "# map", "|x|", "feature max",
	       "kernel med", "kernel max", "attention");
	for (k = 0; k < NF32; k++) {
		const struct rfx_estimator_type *e = methods[f32_of[k]];
		struct rfx_params p;
		struct rfx_draw *w = rfx_draw_alloc(d, M);
		struct rfx_draw32 *w32 = NULL;

		rfx_params_init(&p, d);
		fill_norm(rng, X, n, d, 1.0);
		fill_norm(rng, Y, n, d, 1.0);
		if (!w || e->fit(&p, X, n, Y, n, M, &err) ||
		    e->draw(rng, RFX_PROJ_IID, &p, M, w, &err) ||
		    !(w32 = rfx_draw32_alloc(w))) {
			fprintf(stderr, "bench_featmap: %s: setup failed\n", e->name);
			rfx_params_release(&p);
			rfx_draw_free(w);
			goto out;
		}
		for (ri = 0; ri < (int)(sizeof radii / sizeof radii[0]); ri++) {
			double femax = 0.0, amax = 0.0, onorm = 0.0;
			int Dr, j, c;

			fill_norm(rng, X, n, d, radii[ri]);
			fill_norm(rng, Y, n, d, radii[ri]);
			for (i = 0; i < n * (size_t)d; i++) {
				X32[i] = (float)X[i];
				Y32[i] = (float)Y[i];
			}
			e->features(&p, w, 1, X, n, M, F1, &err);
			e->features(&p, w, 2, Y, n, M, F2, &err);
			e->features32(&p, w32, 1, X32, n, M, G1, &err);
			e->features32(&p, w32, 2, Y32, n, M, G2, &err);
			Dr = F1->is_complex ? 2 * F1->D : F1->D;
			for (i = 0; i < n; i++) {
				double rm = 0.0, em = 0.0, s64 = 0.0, s32 = 0.0, sc;

				for (j = 0; j < Dr; j++) {
					double f = feat64(F1, i, j) * exp(F1->lscale[i]);
					double g = feat32(G1, i, j) * exp(G1->lscale[i]);

					rm = fmax(rm, fabs(f));
					em = fmax(em, fabs(g - f));
				}
				femax = fmax(femax, rm > 0 ? em / rm : 0.0);
				/* Re Phi1 Phi2 = re re - im im: side 2's im carries the sign */
				for (j = 0; j < F1->D; j++) {
					s64 += feat64(F1, i, j) * feat64(F2, i, j);
					s32 += (double)feat32(G1, i, j) * feat32(G2, i, j);
					if (F1->is_complex) {
						s64 -= feat64(F1, i, F1->D + j) * feat64(F2, i, F1->D + j);
						s32 -= (double)feat32(G1, i, G1->D + j) *
						       feat32(G2, i, G2->D + j);
					}
				}
				s64 *= exp(F1->lscale[i] + F2->lscale[i]);
				s32 *= exp(G1->lscale[i] + G2->lscale[i]);
				sc = F1->is_complex ? 1.0 : fabs(s64);
				kerr[i] = sc > 0 ? fabs(s32 - s64) / sc : 0.0;
			}
			if (!F1->is_complex) {
				/*
				 * Attention of query i over the n keys: weights
				 * phi(q_i).phi(k_j) e^{-lscale q_i} (the query's
				 * scale cancels), the keys' scales relative to
				 * their largest.
				 */
				double lk64 = -INFINITY, lk32 = -INFINITY;

				for (c = 0; c < (int)n; c++) {
					lk64 = fmax(lk64, F2->lscale[c]);
					lk32 = fmax(lk32, G2->lscale[c]);
				}
				for (i = 0; i < n; i++) {
					double num[dv] = { 0 }, den = 0.0;
					float numf[dv] = { 0 }, denf = 0.0f;
					int a;

					for (c = 0; c < (int)n; c++) {
						double wt = 0.0;
						float wf = 0.0f;

						for (j = 0; j < M; j++) {
							wt += feat64(F1, i, j) * feat64(F2, (size_t)c, j);
							wf += feat32(G1, i, j) * feat32(G2, (size_t)c, j);
						}
						wt *= exp(F2->lscale[c] - lk64);
						wf *= (float)exp(G2->lscale[c] - lk32);
						den += wt;
						denf += wf;
						for (a = 0; a < dv; a++) {
							num[a] += wt * V[c * dv + a];
							numf[a] += wf * (float)V[c * dv + a];
						}
					}
					for (a = 0; a < dv; a++) {
						double o64 = den > 0 ? num[a] / den : 0.0;
						double o32 = denf > 0 ? numf[a] / denf : 0.0;

						onorm = fmax(onorm, fabs(o64));
						amax = fmax(amax, fabs(o32 - o64));
					}
				}
			}
			qsort(kerr, n, sizeof(double), cmp_double);
			printf("%-6s %6g %12.2e %12.2e %12.2e ", e->name, radii[ri],
			       femax, 0.5 * (kerr[n / 2 - 1] + kerr[n / 2]), kerr[n - 1]);
			if (F1->is_complex)
				printf("%12s\n", "-");
			else
				printf("%12.2e\n", onorm > 0 ? amax / onorm : 0.0);
		}
		rfx_params_release(&p);
		rfx_draw_free(w);
		rfx_draw32_free(w32);
	}
	status = 0;
out:
	free(X);
	free(Y);
	free(X32);
	free(Y32);
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	rfx_featmat32_free(G1);
	rfx_featmat32_free(G2);
	if (rng)
		gsl_rng_free(rng);
	return status;
}

int main(int argc, char **argv)
{
	int item = -2; /* --item: -1 dgemm, else a method (-3 unknown); -2 all */
	int f32 = 0;   /* --item NAME32: the float32 map */
	int pair = 0;  /* --pair NAME: each run of the map after its reference */
	size_t L;
	int d, M, reps;
	struct rfx_draw *w[NMETHODS] = { NULL };
	struct rfx_params p[NMETHODS];
	struct rfx_featmat *F = NULL;
	struct rfx_draw32 *w32[NF32] = { NULL };
	struct rfx_featmat32 *F32 = NULL;
	double *X = NULL, *C = NULL, tg = HUGE_VAL, tf[NMETHODS], tf32[NF32];
	float *X32 = NULL;
	gsl_rng *rng = NULL;
	size_t i;
	struct rfx_err err;
	int k, r, nthreads = 1, status = 1, missed = 0;

	gsl_set_error_handler_off();
	/* the BLAS as rfx runs it: the floor is its dgemm (num/blas.h) */
	rfx_blas_fit_core();
	if (argc > 1 && !strcmp(argv[1], "--peak"))
		return run_peak(argc > 2 ? (size_t)atol(argv[2]) : 65536,
				argc > 3 ? atoi(argv[3]) : 64,
				argc > 4 ? atoi(argv[4]) : 256);
	if (argc > 1 && !strcmp(argv[1], "--accuracy"))
		return run_accuracy(argc > 2 ? atoi(argv[2]) : 64,
				    argc > 3 ? atoi(argv[3]) : 256);
	if (argc > 1 && (!strcmp(argv[1], "--item") ||
			 !strcmp(argv[1], "--pair"))) {
		pair = !strcmp(argv[1], "--pair");
		item = argc > 2 && !strcmp(argv[2], "dgemm") ? -1 : -3;
		for (k = 0; argc > 2 && k < NMETHODS; k++) {
			size_t ln = strlen(methods[k]->name);

			if (!strcmp(argv[2], methods[k]->name))
				item = k;
			else if (!strncmp(argv[2], methods[k]->name, ln) &&
				 !strcmp(argv[2] + ln, "32") &&
				 methods[k]->features32) {
				item = k;
				f32 = 1;
			}
		}
		argc -= argc > 2 ? 2 : 1;
		argv += 2;
	}
	L = argc > 1 ? (size_t)atol(argv[1]) : 65536;
	d = argc > 2 ? atoi(argv[2]) : 64;
	M = argc > 3 ? atoi(argv[3]) : 256;
	reps = argc > 4 ? atoi(argv[4]) : 7;
	if (item == -3 || (pair && item < 0) || L < 1 || d < 1 ||
	    M < 1 || reps < 1 || argc > 5) {
		fprintf(stderr, "usage: bench_featmap [--item dgemm|trig|pos|"
				"oprf|ang|sderf|aderf|saderf|trig32|pos32|oprf32|"
				"sderf32 | --pair NAME, a map of --item] "
				"[L [d [M [reps]]]]\n");
		return 2;
	}
	if (item > -2)
		return run_item(item, f32, pair, L, d, M, reps);
#ifdef _OPENMP
	nthreads = omp_get_max_threads();
#endif
	for (k = 0; k < NMETHODS; k++) {
		rfx_params_init(&p[k], d);
		w[k] = rfx_draw_alloc(d, M);
		tf[k] = HUGE_VAL;
	}
	X = malloc(L * (size_t)d * sizeof(*X));
	X32 = malloc(L * (size_t)d * sizeof(*X32));
	C = malloc(L * (size_t)M * sizeof(*C));
	F = rfx_featmat_alloc(L, M);
	F32 = rfx_featmat32_alloc(L, M);
	rng = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 7, 0, 0);
	for (k = 0; k < NMETHODS; k++)
		if (!w[k])
			break;
	if (!X || !X32 || !C || k < NMETHODS || !F || !F32 || !rng) {
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
	for (i = 0; i < L * (size_t)d; i++)
		X32[i] = (float)X[i];
	for (k = 0; k < NF32; k++) {
		tf32[k] = HUGE_VAL;
		if (!(w32[k] = rfx_draw32_alloc(w[f32_of[k]]))) {
			fprintf(stderr, "bench_featmap: out of memory\n");
			goto out;
		}
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
		for (k = 0; k < NF32; k++) {
			int m = f32_of[k];

			settle();
			t = run_features32(methods[m], &p[m], w32[k], X32, L, M,
					   F32);
			if (t < 0.0)
				goto out;
			if (r > 0 && t < tf32[k])
				tf32[k] = t;
		}
	}
	printf("%-26s %10s %8s %8s %s\n", "# what", "ms", "ratio", "target",
	       "status");
	printf("%-26s %10.2f %8s %8s %.1f GFlop/s\n", "dgemm (projection)",
	       1e3 * tg, "1.00", "-", 2.0 * L * d * M / tg * 1e-9);
	for (k = 0; k < NMETHODS; k++) {
		char label[64];
		double tgt = methods[k] == &rfx_est_ang ? TARGET_ANG : TARGET;

		snprintf(label, sizeof(label), "%s features (%d)",
			 methods[k]->name,
			 rfx_estimator_features(methods[k], &p[k], M));
		missed += tf[k] / tg > tgt;
		printf("%-26s %10.2f %8.2f %8.2f %s\n", label, 1e3 * tf[k],
		       tf[k] / tg, tgt, tf[k] / tg <= tgt ? "ok" : "SLOW");
	}
	printf("# float32 maps: ratio to the float64 map of the same estimator\n");
	for (k = 0; k < NF32; k++) {
		char label[64];
		double q = tf32[k] / tf[f32_of[k]];

		snprintf(label, sizeof(label), "%s float32", methods[f32_of[k]]->name);
		missed += q > TARGET32;
		printf("%-26s %10.2f %8.2f %8.2f %s\n", label, 1e3 * tf32[k], q,
		       TARGET32, q <= TARGET32 ? "ok" : "SLOW");
	}
	printf("# feature maps: %s\n",
	       missed ? "some miss the target" : "all within the target");
	status = 0;
out:
	for (k = 0; k < NMETHODS; k++) {
		rfx_params_release(&p[k]);
		rfx_draw_free(w[k]);
	}
	for (k = 0; k < NF32; k++)
		rfx_draw32_free(w32[k]);
	free(X);
	free(X32);
	free(C);
	rfx_featmat_free(F);
	rfx_featmat32_free(F32);
	if (rng)
		gsl_rng_free(rng);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "bench_featmap: cannot write the output\n");
		return 1;
	}
	return status;
}

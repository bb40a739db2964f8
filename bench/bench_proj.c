/*
 * Benchmark of the projection samplers (lib/proj/proj.h) at MNIST's padded
 * dimension: the time of one draw of M columns in dimension d for each
 * kind, best of reps after a warm-up. The ORF paper's point for SORF is
 * speed: its target is to draw a block at least 4 times faster than ORF's
 * QR (its transforms cost O(d^2 log d) per block against O(d^3)); ORF's
 * own target is 0.5 s per 1024 x 1024 block (LAPACK's blocked QR; GSL's
 * Level-2 one took 7.7 s).
 *
 *   bench_proj [d [M [reps]]]     defaults: 1024 4096 3
 *
 * The exit status is 0 even when a target is missed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "proj/proj.h"
#include "base/rng.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const enum rfx_proj kinds[] = {
		RFX_PROJ_IID, RFX_PROJ_ORT, RFX_PROJ_ORF_PRIME, RFX_PROJ_SORF,
		RFX_PROJ_HD, RFX_PROJ_HALTON, RFX_PROJ_HALTON_SCR
	};
	int d = argc > 1 ? atoi(argv[1]) : 1024;
	int M = argc > 2 ? atoi(argv[2]) : 4096;
	int reps = argc > 3 ? atoi(argv[3]) : 3, k, q;
	struct rfx_proj_ws *ws;
	double *omega, t_ort = 0.0, t_sorf = 0.0;
	gsl_rng *r;
	struct rfx_err err;

	gsl_set_error_handler_off();
	if (d < 1 || M < 1 || reps < 1) {
		fprintf(stderr, "usage: bench_proj [d [M [reps]]]\n");
		return 2;
	}
	ws = rfx_proj_ws_alloc(d);
	omega = malloc((size_t)d * (size_t)M * sizeof(double));
	r = rfx_rng_alloc_stream(20221121UL, 1, 2, 3);
	if (!ws || !omega || !r) {
		fprintf(stderr, "bench_proj: out of memory\n");
		return 1;
	}
	printf("# one draw of M = %d columns in d = %d, best of %d; blocks of d (ort) or d' (hd kinds)\n",
	       M, d, reps);
	printf("# %-12s %10s %12s\n", "kind", "ms", "ms/column");
	for (k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
		double best = 1e300;

		for (q = 0; q <= reps; q++) {
			double t0 = now(), t;

			rfx_err_clear(&err);
			if (rfx_proj_sample(r, kinds[k], d, M, omega, (size_t)M, 0, ws,
					    &err)) {
				printf("%-14s failed: %s\n", rfx_proj_name(kinds[k]), err.msg);
				break;
			}
			t = now() - t0;
			if (q > 0 && t < best)
				best = t;
		}
		printf("%-14s %10.1f %12.4f\n", rfx_proj_name(kinds[k]), 1e3 * best,
		       1e3 * best / M);
		if (kinds[k] == RFX_PROJ_ORT)
			t_ort = best;
		if (kinds[k] == RFX_PROJ_SORF)
			t_sorf = best;
	}
	printf("%-26s %8.2f s %8s %6.2f s %s\n", "ort per d x d block",
	       t_ort * d / M, "target <", 0.5, t_ort * d / M < 0.5 ? "ok" : "SLOW");
	printf("%-26s %8.1f x %8s %6.0f x %s\n", "sorf speed-up over ort",
	       t_ort / t_sorf, "target >", 4.0, t_ort / t_sorf > 4.0 ? "ok" : "SLOW");
	free(omega);
	rfx_proj_ws_free(ws);
	gsl_rng_free(r);
	return 0;
}

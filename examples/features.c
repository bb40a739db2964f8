/*
 * A first program against librfx (include/rfx.h): OPRF (FAVOR++) features
 * of a few points on orthogonal projections, the kernel estimates their
 * dot products give beside the exact Gaussian kernel, and the closed-form
 * standard deviation of each estimate on i.i.d. projections (orthogonal
 * ones do better). Build it against the installed
 * library with
 *
 *   cc -o features features.c $(pkg-config --cflags --libs rfx)
 *
 * and run ./features [METHOD [M [SEED]]] (default oprf 256 20221121);
 * `rfx help` lists the methods. Exits 1 with librfx's message on error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <rfx.h>

#define N 4   /* points */
#define DIM 3 /* their dimension */

int main(int argc, char **argv)
{
	static const double X[N * DIM] = {
		0.3, -0.2, 0.5,
		0.1, 0.4, -0.25,
		-0.6, 0.2, 0.1,
		0.35, -0.1, 0.45,
	};
	const char *method = argc > 1 ? argv[1] : "oprf";
	int M = argc > 2 ? atoi(argv[2]) : 256;
	unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 20221121ULL;
	struct rfx_err err;
	struct rfx_model *m;
	double *F1 = NULL, *F2 = NULL, lk[N * N], lv[N * N];
	char params[256];
	int D, i, k, j, ret = 1;

	m = rfx_model_alloc(method, DIM, M, "ort", "gauss", &err);
	if (!m && rfx_estimator_find(method, NULL)) /* discrete ones: iid only */
		m = rfx_model_alloc(method, DIM, M, "iid", "gauss", &err);
	if (!m || rfx_model_fit(m, X, N, X, N, &err) ||
	    rfx_model_draw(m, seed, &err))
		goto fail;
	D = rfx_model_dim(m);
	F1 = malloc(sizeof(double) * N * (size_t)D);
	F2 = malloc(sizeof(double) * N * (size_t)D);
	if (!F1 || !F2) {
		fprintf(stderr, "features: out of memory\n");
		goto out;
	}
	if (rfx_model_features(m, 1, X, N, F1, &err) ||
	    rfx_model_features(m, 2, X, N, F2, &err) ||
	    rfx_model_log_variance(m, X, N, X, N, lv, &err) ||
	    rfx_kernel_log("gauss", X, N, X, N, DIM, lk, &err))
		goto fail;
	rfx_model_params(m, params, sizeof(params));
	printf("# librfx %s: %s, M = %d, %d real features, parameters %s\n",
	       rfx_version(), method, M, D, params);
	printf("i\tk\tK\testimate\tsd_iid\n");
	for (i = 0; i < N; i++)
		for (k = i; k < N; k++) {
			double est = 0.0;

			for (j = 0; j < D; j++)
				est += F1[i * D + j] * F2[k * D + j];
			printf("%d\t%d\t%.6f\t%.6f\t%.6f\n", i, k, exp(lk[i * N + k]),
			       est, exp(0.5 * lv[i * N + k]));
		}
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "features: %s\n", err.msg);
out:
	free(F1);
	free(F2);
	rfx_model_free(m);
	return ret;
}

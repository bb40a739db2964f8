/*
 * Benchmark of attention (lib/exp/attention.h, issue 17's targets), every
 * item against OpenBLAS products of the same shapes timed in the same run:
 *
 *   rf          random-feature attention, noncausal, PosRF on orthogonal
 *               projections (draw, feature maps of Q and K, P1 (P2^T C)):
 *               at most 2x the two products it needs, P2^T C and P1 B
 *               (L x M by M x (d + 1));
 *   rf-causal   the same by blocked prefix sums: at most 3x rf;
 *   exact       exact attention by tiles (Lx = L/8 by default, the L x L
 *               products at L would take minutes): at most 1.5x the dgemm
 *               of Q K^T plus the dgemm of A V at Lx (A kept whole there).
 *
 *   bench_attention [L [d [M [reps]]]]     defaults: 65536 64 256 3
 *
 * Best of reps after one warm-up run each. Prints SLOW beside a missed
 * target; the exit status is 0 unless something fails.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "num/blas.h"
#include "base/rng.h"
#include "data/regime.h"
#include "est/estimator.h"
#include "exp/attention.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct ctx {
	size_t L, Lx;
	int d, M;
	double *Q, *K, *V, *out, *A1, *B, *C, *buf, *S;
	struct rfx_att_ws *ws;
	struct rfx_draw *w;
	struct rfx_params p;
	gsl_rng *r;
};

static int rf(struct ctx *c, int causal)
{
	struct rfx_att_opts o = { causal, RFX_ATT_STAB_ROW, 0.0, 0 };
	struct rfx_err err;

	if (rfx_est_pos.draw(c->r, RFX_PROJ_ORT, &c->p, c->M, c->w, &err) ||
	    rfx_attention_maps(c->ws, &rfx_est_pos, &c->p, c->w, c->Q, c->K, c->M,
			       &err) ||
	    rfx_attention_apply(c->ws, c->V, &o, c->out, NULL, NULL, &err)) {
		fprintf(stderr, "bench_attention: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int item(struct ctx *c, const char *name, int reps, double *best)
{
	struct rfx_err err;
	int q, ret = 0, dv1 = c->d + 1;

	*best = 1e300;
	for (q = 0; q <= reps && !ret; q++) {
		double t = now();

		if (!strcmp(name, "rf"))
			ret = rf(c, 0);
		else if (!strcmp(name, "rf-causal"))
			ret = rf(c, 1);
		else if (!strcmp(name, "products")) {
			/* P2^T C and P1 B: the two products of Fig 3.1 */
			cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, c->M, dv1,
				    (int)c->L, 1.0, c->A1, c->M, c->C, dv1, 0.0, c->B, dv1);
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->L,
				    dv1, c->M, 1.0, c->A1, c->M, c->B, dv1, 0.0, c->buf, dv1);
		} else if (!strcmp(name, "exact")) {
			ret = rfx_attention_exact(c->Q, c->Lx, c->K, c->Lx, c->d, c->V,
						  c->d, 0, c->out, NULL, &err);
		} else { /* dgemm: Q K^T and A V at Lx, A whole */
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)c->Lx,
				    (int)c->Lx, c->d, 1.0, c->Q, c->d, c->K, c->d, 0.0,
				    c->S, (int)c->Lx);
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->Lx,
				    c->d, (int)c->Lx, 1.0, c->S, (int)c->Lx, c->V, c->d,
				    0.0, c->out, c->d);
		}
		t = now() - t;
		if (q > 0 && t < *best) /* run 0 is the warm-up */
			*best = t;
	}
	if (ret)
		fprintf(stderr, "bench_attention: %s failed\n", name);
	return ret;
}

static void line(const char *name, double t, const char *floor, double tf,
		 double target)
{
	double ratio = t / tf;

	printf("  %-10s %9.4f s  %6.2fx %-10s (target <= %.1fx)%s\n", name, t,
	       ratio, floor, target, ratio > target ? "  SLOW" : "");
}

int main(int argc, char **argv)
{
	struct ctx c;
	struct rfx_err err;
	double t_rf, t_rfc, t_prod, t_ex, t_gemm;
	size_t k;
	int reps, D;

	gsl_set_error_handler_off();
	/* the BLAS as rfx runs it: the floor is its dgemm (num/blas.h) */
	rfx_blas_fit_core();
	memset(&c, 0, sizeof(c));
	c.L = argc > 1 ? strtoul(argv[1], NULL, 10) : 65536;
	c.d = argc > 2 ? atoi(argv[2]) : 64;
	c.M = argc > 3 ? atoi(argv[3]) : 256;
	reps = argc > 4 ? atoi(argv[4]) : 3;
	c.Lx = c.L / 8 > 64 ? c.L / 8 : 64;
	if (c.L < 64 || c.d < 1 || c.M < 1 || reps < 1) {
		fprintf(stderr, "usage: bench_attention [L [d [M [reps]]]]\n");
		return 2;
	}
	rfx_params_init(&c.p, c.d);
	c.r = rfx_rng_alloc_stream(20221121UL, 17, 0, 0);
	c.Q = malloc(c.L * c.d * sizeof(double));
	c.K = malloc(c.L * c.d * sizeof(double));
	c.V = malloc(c.L * c.d * sizeof(double));
	c.out = malloc(c.L * c.d * sizeof(double));
	c.A1 = malloc(c.L * c.M * sizeof(double));
	c.B = malloc((size_t)c.M * (c.d + 1) * sizeof(double));
	c.C = malloc(c.L * (c.d + 1) * sizeof(double));
	c.buf = malloc(c.L * (c.d + 1) * sizeof(double));
	c.S = malloc(c.Lx * c.Lx * sizeof(double));
	if (!c.r || !c.Q || !c.K || !c.V || !c.out || !c.A1 || !c.B || !c.C ||
	    !c.buf || !c.S) {
		fprintf(stderr, "bench_attention: out of memory\n");
		return 1;
	}
	if (rfx_regime_sample(c.r, RFX_REGIME_NORMAL, 0.125, c.d, c.L, NULL, c.Q,
			      c.K, &err) ||
	    rfx_regime_sample(c.r, RFX_REGIME_NORMAL, 1.0, c.d, c.L, NULL, c.V,
			      c.out, &err) ||
	    rfx_est_pos.fit(&c.p, c.Q, c.L, c.K, c.L, c.M, &err)) {
		fprintf(stderr, "bench_attention: %s\n", err.msg);
		return 1;
	}
	for (k = 0; k < c.L * (size_t)c.M; k++)
		c.A1[k] = 1.0 / (double)(k % 7 + 1);
	for (k = 0; k < c.L * (size_t)(c.d + 1); k++)
		c.C[k] = 1.0 / (double)(k % 5 + 1);
	D = rfx_estimator_feature_dim(&rfx_est_pos, &c.p, c.M);
	c.ws = rfx_att_ws_alloc(c.L, c.L, c.d, c.d, D);
	c.w = rfx_draw_alloc(c.d, D);
	if (!c.ws || !c.w) {
		fprintf(stderr, "bench_attention: out of memory\n");
		return 1;
	}
	printf("# attention, L = %zu, d = %d, M = %d (exact at L = %zu), best of %d\n",
	       c.L, c.d, c.M, c.Lx, reps);
	if (item(&c, "products", reps, &t_prod) || item(&c, "rf", reps, &t_rf) ||
	    item(&c, "rf-causal", reps, &t_rfc) || item(&c, "gemm", reps, &t_gemm) ||
	    item(&c, "exact", reps, &t_ex))
		return 1;
	printf("  %-10s %9.4f s  (P2^T C and P1 B by OpenBLAS)\n", "products", t_prod);
	line("rf", t_rf, "products", t_prod, 2.0);
	line("rf-causal", t_rfc, "rf", t_rf, 3.0);
	printf("  %-10s %9.4f s  (Q K^T and A V by OpenBLAS at L = %zu)\n", "gemm",
	       t_gemm, c.Lx);
	line("exact", t_ex, "gemm", t_gemm, 1.5);
	rfx_att_ws_free(c.ws);
	rfx_draw_free(c.w);
	rfx_params_release(&c.p);
	gsl_rng_free(c.r);
	free(c.Q);
	free(c.K);
	free(c.V);
	free(c.out);
	free(c.A1);
	free(c.B);
	free(c.C);
	free(c.buf);
	free(c.S);
	return 0;
}

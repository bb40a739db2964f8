/*
 * Tests of the set study of lib/exp/varexp.c (rfx_varexp_run_sets, the
 * engine of 'rfx variance --x-file --y-file', issue 16) and its ranking:
 *
 *   1. rows sampled in memory exactly as the Fig 6.4 experiment samples
 *      them give, as sets, the experiment's own statistics and fitted
 *      parameters (the two code paths share only the closed forms);
 *   2. the same rows written as .npy, CSV (%.17g) and HDF5 and loaded
 *      back give bit-identical statistics (round trips);
 *   3. the blocked walk equals a pair-by-pair computation on 1 x 1 blocks
 *      with a two-pass mean and standard deviation, for ragged blocks and
 *      a gamma that rescales the sets;
 *   4. the output does not depend on the thread count;
 *   5. the softmax kernel adds mean |x|^2 + mean |y|^2 to the mean log
 *      variance (SM = exp(|x|^2/2) K exp(|y|^2/2));
 *   6. N sampled pairs estimate the all-pairs mean within 3 standard
 *      errors (i.i.d. draws from the finite set of pairs);
 *   7. the Monte Carlo column agrees with the closed forms on its pairs;
 *   8. the ranking is ordered, gaps are to the best, positivity is the
 *      estimators' (positive random features are exp(.) > 0, trigonometric
 *      ones cos(.) take both signs);
 *   9. bad configurations are refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>

#include "base/rng.h"
#include "data/matrix.h"
#include "data/regime.h"
#include "est/estimator.h"
#include "exp/varexp.h"
#include "npy.h"
#include "tap.h"

#define D 6
#define NL 40 /* rows per set */

static const struct rfx_estimator_type *methods[4];
static int nm;

static void base_config(struct rfx_varexp_config *c, const double *gammas,
			int ng)
{
	memset(c, 0, sizeof(*c));
	c->d = D;
	c->budget = 8;
	c->proj = RFX_PROJ_IID;
	c->seed = 4321;
	c->nmethods = nm;
	c->methods = methods;
	c->ngammas = ng;
	c->gammas = gammas;
}

static int run_sets(const struct rfx_varexp_config *c, const double *X,
		    size_t nx, const double *Y, size_t ny, size_t pairs,
		    int softmax, struct rfx_varexp_row *rows,
		    struct rfx_varexp_param *params, size_t *np)
{
	struct rfx_varexp_sets s = { X, nx, Y, ny, pairs, softmax };
	struct rfx_err err;
	int ret;

	rfx_err_clear(&err);
	ret = rfx_varexp_run_sets(c, &s, rows, params, np, &err);
	if (ret)
		diag("run failed: %s", err.msg);
	return ret;
}

static int rel_close(double a, double b, double tol)
{
	return fabs(a - b) <= tol * (fabs(b) > 1.0 ? fabs(b) : 1.0);
}

/* 1. The experiment's sets, given as files' rows, give its statistics. */
static void test_same_as_experiment(double *X, double *Y)
{
	struct rfx_varexp_config c;
	struct rfx_varexp_row er[4], sr[4];
	struct rfx_varexp_param ep[16], sp[16];
	enum rfx_regime g = RFX_REGIME_NORMAL;
	double gamma = 0.5, one = 1.0;
	size_t enp = 0, snp = 0, k;
	struct rfx_err err;
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());
	int m, same = 1, psame;

	base_config(&c, &gamma, 1);
	c.L = NL;
	c.samples = 1;
	c.nregimes = 1;
	c.regimes = &g;
	c.block = 16;
	rfx_err_clear(&err);
	ok(rfx_varexp_run(&c, er, ep, &enp, &err) == RFX_OK,
	   "the Fig 6.4 experiment on normal, gamma 0.5, L = %d (%s)", NL, err.msg);
	/* the experiment's sets: its stream (seed, 1, regime, bits(gamma) ^ 0) */
	{
		uint64_t bits;

		memcpy(&bits, &gamma, sizeof(bits));
		rfx_rng_set_stream(r, c.seed, 1, (uint64_t)g, bits);
		rfx_regime_sample(r, g, gamma, D, NL, NULL, X, Y, &err);
	}
	base_config(&c, &one, 1);
	c.block = 16;
	ok(run_sets(&c, X, NL, Y, NL, 0, 0, sr, sp, &snp) == RFX_OK,
	   "the set study on the same rows at gamma 1");
	for (m = 0; m < nm; m++)
		same &= sr[m].n_pairs == er[m].n_pairs && sr[m].M == er[m].M &&
			rel_close(sr[m].logvar_mean, er[m].logvar_mean, 1e-12) &&
			rel_close(sr[m].logvar_std, er[m].logvar_std, 1e-10) &&
			sr[m].logvar_min == er[m].logvar_min &&
			sr[m].logvar_max == er[m].logvar_max;
	ok(same, "mean, sd, min and max of log Var equal the experiment's");
	psame = snp == enp;
	for (k = 0; psame && k < snp; k++)
		psame = !strcmp(sp[k].param, ep[k].param) &&
			sp[k].value == ep[k].value;
	ok(psame, "the fitted parameters equal the experiment's (%zu values)", snp);
	gsl_rng_free(r);
}

/* 2. .npy, CSV and HDF5 round trips. */
static void test_round_trips(const double *X, const double *Y)
{
	char dir[] = "/tmp/t_varexp_sets.XXXXXX", px[3][128], py[3][128];
	struct rfx_varexp_config c;
	struct rfx_varexp_row ref[4], got[4];
	struct rfx_varexp_param prm[16];
	double gamma = 1.0;
	size_t np, i;
	int f, j;

	base_config(&c, &gamma, 1);
	run_sets(&c, X, NL, Y, NL, 0, 0, ref, prm, &np);
	if (!mkdtemp(dir)) {
		skip("no temporary directory");
		return;
	}
	snprintf(px[0], sizeof(px[0]), "%s/x.npy", dir);
	snprintf(py[0], sizeof(py[0]), "%s/y.npy", dir);
	write_npy_f8(px[0], X, NL, D);
	write_npy_f8(py[0], Y, NL, D);
	snprintf(px[1], sizeof(px[1]), "%s/x.csv", dir);
	snprintf(py[1], sizeof(py[1]), "%s/y.csv", dir);
	for (f = 0; f < 2; f++) {
		FILE *out = fopen(f ? py[1] : px[1], "w");
		const double *S = f ? Y : X;

		fprintf(out, "c1,c2,c3,c4,c5,c6\n");
		for (i = 0; i < NL; i++)
			for (j = 0; j < D; j++)
				fprintf(out, "%.17g%s", S[i * D + j], j + 1 < D ? "," : "\n");
		fclose(out);
	}
	{
		char h5[96];
		hsize_t dims[2] = { NL, D };
		hid_t fid;

		snprintf(h5, sizeof(h5), "%s/sets.h5", dir);
		fid = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
		H5LTmake_dataset_double(fid, "/x", 2, dims, X);
		H5LTmake_dataset_double(fid, "/y", 2, dims, Y);
		H5Fclose(fid);
		snprintf(px[2], sizeof(px[2]), "%s:/x", h5);
		snprintf(py[2], sizeof(py[2]), "%s:/y", h5);
	}
	for (f = 0; f < 3; f++) {
		static const char *const names[] = { ".npy", "CSV", "HDF5" };
		struct rfx_matrix mx, my;
		struct rfx_err err;
		int pass;

		rfx_err_clear(&err);
		pass = rfx_matrix_load(&mx, px[f], NULL, &err) == RFX_OK &&
		       rfx_matrix_load(&my, py[f], NULL, &err) == RFX_OK &&
		       mx.rows == NL && mx.cols == D &&
		       !memcmp(mx.x, X, sizeof(double) * NL * D) &&
		       !memcmp(my.x, Y, sizeof(double) * NL * D);
		ok(pass, "%s: the loaded rows are the rows written (%s)", names[f],
		   err.msg);
		pass = pass && run_sets(&c, mx.x, mx.rows, my.x, my.rows, 0, 0, got,
					prm, &np) == RFX_OK &&
		       !memcmp(got, ref, sizeof(ref));
		ok(pass, "%s: the statistics are bit-identical to the in-memory run",
		   names[f]);
		rfx_matrix_release(&mx);
		rfx_matrix_release(&my);
	}
	{
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			diag("cannot remove %s", dir);
	}
}

/* 3. Blocked walk against pair by pair; 4. thread count; 5. softmax. */
static void test_blocked(const double *X, const double *Y)
{
	size_t nx = 37, ny = 29, i, j;
	double gamma = 0.7, *Xs = malloc(nx * D * sizeof(double));
	double *Ys = malloc(ny * D * sizeof(double)), *lv = malloc(nx * ny * sizeof(double));
	double mx2 = 0, my2 = 0;
	struct rfx_varexp_config c;
	struct rfx_varexp_row r1[4], r2[4], rs[4];
	struct rfx_varexp_param prm[16];
	size_t np;
	int m, bad = 0;

	for (i = 0; i < nx * D; i++)
		Xs[i] = gamma * X[i];
	for (i = 0; i < ny * D; i++)
		Ys[i] = gamma * Y[i];
	for (i = 0; i < nx * D; i++)
		mx2 += Xs[i] * Xs[i] / (double)nx;
	for (i = 0; i < ny * D; i++)
		my2 += Ys[i] * Ys[i] / (double)ny;
	base_config(&c, &gamma, 1);
	c.block = 8; /* 37 and 29 rows: ragged last blocks */
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	run_sets(&c, X, nx, Y, ny, 0, 0, r1, prm, &np);
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	run_sets(&c, X, nx, Y, ny, 0, 0, r2, prm, &np);
	ok(!memcmp(r1, r2, sizeof(r1)), "1 and 2 threads give the same bytes");
	for (m = 0; m < nm; m++) {
		const struct rfx_estimator_type *e = methods[m];
		struct rfx_params p;
		struct rfx_block *b = rfx_block_alloc(D, 1, 1);
		struct rfx_err err;
		double mean = 0, ss = 0;
		int M = rfx_estimator_fair_features(e, 8);

		rfx_params_init(&p, D);
		e->fit(&p, Xs, nx, Ys, ny, M, &err);
		for (i = 0; i < nx; i++)
			for (j = 0; j < ny; j++) {
				rfx_estimator_block(e, &p, b, Xs + i * D, 1, Ys + j * D, 1,
						    &err);
				e->log_variance(&p, b, M, &lv[i * ny + j], &err);
				mean += lv[i * ny + j];
			}
		mean /= (double)(nx * ny);
		for (i = 0; i < nx * ny; i++)
			ss += (lv[i] - mean) * (lv[i] - mean);
		if (!rel_close(r1[m].logvar_mean, mean, 1e-11) ||
		    !rel_close(r1[m].logvar_std, sqrt(ss / (double)(nx * ny - 1)), 1e-9) ||
		    r1[m].n_pairs != (long)(nx * ny)) {
			bad++;
			diag("%s: blocked %.17g sd %.17g, pairwise %.17g sd %.17g",
			     e->name, r1[m].logvar_mean, r1[m].logvar_std, mean,
			     sqrt(ss / (double)(nx * ny - 1)));
		}
		rfx_params_release(&p);
		rfx_block_free(b);
	}
	ok(bad == 0, "blocks of 8 over 37 x 29 pairs at gamma 0.7 equal pair-by-pair "
	   "closed forms (mean, sd)");
	run_sets(&c, X, nx, Y, ny, 0, 1, rs, prm, &np);
	bad = 0;
	for (m = 0; m < nm; m++)
		bad += !rel_close(rs[m].logvar_mean - r1[m].logvar_mean, mx2 + my2, 1e-10);
	ok(bad == 0, "softmax: mean log Var gains mean |x|^2 + mean |y|^2 = %.6g",
	   mx2 + my2);
	free(Xs);
	free(Ys);
	free(lv);
}

/* 6. Sampled pairs; 7. Monte Carlo; 8. ranking. */
static void test_sampled_mc_rank(const double *X, const double *Y)
{
	struct rfx_varexp_config c;
	struct rfx_varexp_row all[4], smp[4], mc[4];
	struct rfx_varexp_rank rk[4];
	struct rfx_varexp_param prm[16];
	double gamma = 1.0;
	size_t np, N = 20000;
	int m, bad = 0, order = 1, pos_ok = 1;

	base_config(&c, &gamma, 1);
	run_sets(&c, X, NL, Y, NL, 0, 0, all, prm, &np);
	run_sets(&c, X, NL, Y, NL, N, 0, smp, prm, &np);
	for (m = 0; m < nm; m++) {
		/* i.i.d. uniform draws from the NL^2 pairs: SE = sd_pop / sqrt(N) */
		double sd = all[m].logvar_std * sqrt((double)(NL * NL - 1) / (NL * NL));
		double z = (smp[m].logvar_mean - all[m].logvar_mean) / (sd / sqrt((double)N));

		if (smp[m].n_pairs != (long)N || fabs(z) > 3) {
			bad++;
			diag("%s: sampled mean %.6g, all pairs %.6g, z = %.2f",
			     methods[m]->name, smp[m].logvar_mean, all[m].logvar_mean, z);
		}
	}
	ok(bad == 0, "%zu sampled pairs: each mean within 3 SE of the all-pairs mean", N);

	c.mc_R = 4000;
	c.mc_pairs = 8;
	run_sets(&c, X, NL, Y, NL, 0, 0, mc, prm, &np);
	bad = 0;
	for (m = 0; m < nm; m++) {
		/* the pairs share draws, so the mean's SE is at most the mean SE */
		double z = (mc[m].mc_logvar_mean - mc[m].sub_logvar_mean) /
			   mc[m].mc_logvar_se;

		if (mc[m].mc_pairs != 8 || !(fabs(z) <= 3)) {
			bad++;
			diag("%s: MC %.6g analytic %.6g se %.3g", methods[m]->name,
			     mc[m].mc_logvar_mean, mc[m].sub_logvar_mean,
			     mc[m].mc_logvar_se);
		}
	}
	ok(bad == 0, "Monte Carlo on 8 sampled pairs agrees with the closed forms "
	   "(|z| <= 3)");
	ok(!memcmp(all, mc, offsetof(struct rfx_varexp_row, mc_R)),
	   "the analytic columns do not depend on the Monte Carlo check");

	rfx_varexp_rank(all, (size_t)nm, rk);
	for (m = 0; m < nm; m++) {
		order &= rk[m].rank == m + 1 &&
			 (m == 0 || rk[m].logvar_mean >= rk[m - 1].logvar_mean) &&
			 rel_close(rk[m].gap, rk[m].logvar_mean - rk[0].logvar_mean, 1e-15);
		if (!strcmp(rk[m].method, "pos") || !strcmp(rk[m].method, "oprf"))
			pos_ok &= rk[m].positive == 1;
		if (!strcmp(rk[m].method, "trig") || !strcmp(rk[m].method, "gerf"))
			pos_ok &= rk[m].positive == 0;
	}
	ok(order && rk[0].gap == 0.0, "ranking: ascending mean log Var, rank 1 has gap 0");
	ok(pos_ok, "ranking: pos and oprf positive, trig and gerf not");
}

static void test_errors(const double *X)
{
	struct rfx_varexp_config c;
	struct rfx_varexp_row rows[4];
	struct rfx_varexp_param prm[16];
	struct rfx_varexp_sets s = { X, 0, X, 3, 0, 0 };
	struct rfx_err err;
	double gamma = 0.0;
	size_t np;

	base_config(&c, &gamma, 1);
	rfx_err_clear(&err);
	ok(rfx_varexp_run_sets(&c, &s, rows, prm, &np, &err) == RFX_EINVAL,
	   "an empty set is RFX_EINVAL: %s", err.msg);
	s.nx = 3;
	rfx_err_clear(&err);
	ok(rfx_varexp_run_sets(&c, &s, rows, prm, &np, &err) == RFX_EINVAL &&
	   strstr(err.msg, "gamma"), "gamma 0 is RFX_EINVAL: %s", err.msg);
}

int main(void)
{
	static const char *const names[] = { "trig", "pos", "oprf", "gerf" };
	double *X = malloc(NL * D * sizeof(double)), *Y = malloc(NL * D * sizeof(double));
	int k;

	gsl_set_error_handler_off();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	for (k = 0; k < 4; k++)
		methods[nm++] = rfx_estimator_find(names[k], NULL);
	test_same_as_experiment(X, Y);
	test_round_trips(X, Y);
	test_blocked(X, Y);
	test_sampled_mc_rank(X, Y);
	test_errors(X);
	free(X);
	free(Y);
	return done_testing();
}

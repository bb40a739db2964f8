/*
 * Tests for lib/exp/clustered.c, the experiment of HRF appendix H:
 *  - the per-repetition MSE equals the mean squared error of the pair
 *    estimates computed here from the sorted inputs;
 *  - Monte Carlo against the closed forms through the whole pipeline: the
 *    mean of the empirical MSE over many repetitions matches the table of
 *    expected MSEs (from the estimators' closed-form variances) within 4
 *    standard errors, for trig, pos and the zero-one hybrid;
 *  - the complex A of eqs. 85-87 on clusters of zero width: every pair sits
 *    at its pair of centres, so the hybrid's MSE is rounding and its
 *    expected MSE exactly 0;
 *  - reproducibility: the same rows on 1 and 2 threads, and a method's rows
 *    do not depend on the other methods of the run;
 *  - the clusters table, method parsing and error paths.
 */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <gsl/gsl_errno.h>

#include "exp/clustered.h"
#include "tap.h"

struct run {
	struct rfx_cl_config c;
	struct rfx_clusdata_config set;
	struct rfx_cl_method methods[4];
	int m[3];
	struct rfx_cl_state *st;
	struct rfx_cl_rep_row *reps;
	struct rfx_cl_sum_row *sums;
	struct rfx_cl_exact_row *exact;
	struct rfx_cl_cluster_row clusters[4];
	size_t nexact;
};

/* A small set: d = 8, 12 points per cluster, root mean square length 0.6. */
static void setup(struct run *R, const char *methods, int nm, int reps,
		  double sigma, int complex_a)
{
	static const double s[4] = { 0.06, 0.04, 0.05, 0.03 };
	int n;

	memset(R, 0, sizeof(*R));
	R->set.id = 1;
	R->set.d = 8;
	R->set.points = 12;
	R->set.sigma = sigma;
	memcpy(R->set.s, s, sizeof(s));
	R->set.mean_sd = 3.0;
	R->set.norm = 0.6;
	R->set.scaling = RFX_CLUSDATA_MEAN;
	R->set.seed = 4242;
	rfx_cl_parse_methods(methods, R->methods, 4, &n, NULL);
	R->m[0] = 3;
	R->m[1] = 7;
	R->m[2] = 11;
	R->c.nsets = 1;
	R->c.sets = &R->set;
	R->c.nmethods = n;
	R->c.methods = R->methods;
	R->c.nm = nm;
	R->c.m = R->m;
	R->c.reps = reps;
	R->c.complex_a = complex_a;
	R->c.tau = 1.0;
	R->c.e0 = &rfx_est_trig;
	R->c.restarts = 3;
	R->c.s_tol = 0.02;
	R->c.exact = 1;
	R->c.seed = 99;
}

static int go(struct run *R, struct rfx_err *err)
{
	int ret;

	rfx_err_clear(err);
	ret = rfx_cl_prepare(&R->c, &R->st, err);
	if (ret)
		return ret;
	R->reps = calloc(rfx_cl_rep_nrows(&R->c), sizeof(*R->reps));
	R->sums = calloc(rfx_cl_sum_nrows(&R->c), sizeof(*R->sums));
	R->exact = calloc(rfx_cl_exact_nrows(&R->c) + 1, sizeof(*R->exact));
	return rfx_cl_run(R->st, R->reps, R->sums, R->exact, &R->nexact,
			  R->clusters, err);
}

static void done(struct run *R)
{
	rfx_cl_free(R->st);
	free(R->reps);
	free(R->sums);
	free(R->exact);
}

/* 1. The MSE of a repetition from its estimates, recomputed here. */
static void test_mse_from_estimates(void)
{
	struct run R;
	struct rfx_err err;
	int k;

	setup(&R, "hyb-cluster,trig,posh", 2, 3, 0.5, 0);
	if (!ok(!go(&R, &err), "small run (%s)", err.msg)) {
		printf("Bail out! the small run fails\n");
		exit(1);
	}
	for (k = 0; k < 3; k++) {
		size_t nx, ny, i, j;
		int d;
		double *est, *X, *Y, sum = 0.0, want;
		const struct rfx_cl_rep_row *row = &R.reps[(size_t)k * 2 * 3 + 3 + 2];

		rfx_cl_set_size(R.st, 0, &nx, &ny, &d);
		est = malloc(nx * ny * sizeof(double));
		X = malloc(nx * (size_t)d * sizeof(double));
		Y = malloc(ny * (size_t)d * sizeof(double));
		rfx_cl_estimates(R.st, 0, k, 7, 2, est, X, Y, &err);
		for (i = 0; i < nx; i++)
			for (j = 0; j < ny; j++) {
				double xy = 0.0, e;
				int l;

				for (l = 0; l < d; l++)
					xy += X[i * (size_t)d + l] * Y[j * (size_t)d + l];
				e = est[i * ny + j] - exp(xy);
				sum += e * e;
			}
		want = sum / (double)(nx * ny);
		ok(row->m == 7 && row->rep == 2 && !strcmp(row->method, R.methods[k].name) &&
		   fabs(row->mse - want) <= 1e-12 * want,
		   "%s, m = 7, rep 2: MSE %.10g is the mean squared error of its estimates (%.10g)",
		   R.methods[k].name, row->mse, want);
		free(est);
		free(X);
		free(Y);
	}
	done(&R);
}

/*
 * 2. E[empirical MSE] = mean over pairs of Var (unbiased estimators): the
 * mean of 2000 repetitions' MSEs against the table of expected MSEs, whose
 * values come from the closed forms (lib/est/<name>.c, checked against Monte
 * Carlo pair by pair in their own tests). SE: the sample standard
 * deviation of the 2000 MSEs over sqrt(2000).
 */
static void test_expectation(void)
{
	enum { REPS = 2000 };
	struct run R;
	struct rfx_err err;
	int k, i;

	setup(&R, "hyb-cluster,trig,pos", 2, REPS, 0.5, 0);
	ok(!go(&R, &err), "2000 repetitions (%s)", err.msg);
	ok(R.nexact == 6, "expected MSEs for all three methods at both m");
	for (k = 0; k < 3; k++)
		for (i = 0; i < 2; i++) {
			const struct rfx_cl_rep_row *rows = R.reps + ((size_t)k * 2 + (size_t)i) * REPS;
			const struct rfx_cl_exact_row *ex = &R.exact[k * 2 + i];
			double s1 = 0.0, s2 = 0.0, mean, se;
			int t;

			for (t = 0; t < REPS; t++) {
				s1 += rows[t].mse;
				s2 += rows[t].mse * rows[t].mse;
			}
			mean = s1 / REPS;
			se = sqrt((s2 / REPS - mean * mean) / (REPS - 1));
			is_within_se(mean, se, ex->mse, 4.0,
				     "%s, m = %d: mean empirical MSE matches the closed form %.6g",
				     ex->method, ex->m, ex->mse);
		}
	/* The summary of the first cell, from its 2000 rows. */
	{
		double lo = INFINITY, hi = 0.0, s = 0.0;
		int t;

		for (t = 0; t < REPS; t++) {
			lo = fmin(lo, R.reps[t].mse);
			hi = fmax(hi, R.reps[t].mse);
			s += R.reps[t].mse;
		}
		ok(R.sums[0].reps == REPS && fabs(R.sums[0].mse_min - lo) <= 1e-13 * lo &&
		   fabs(R.sums[0].mse_max - hi) <= 1e-13 * hi &&
		   fabs(R.sums[0].mse_mean - s / REPS) <= 1e-12 * s / REPS &&
		   R.sums[0].mse_min <= R.sums[0].mse_median &&
		   R.sums[0].mse_median <= R.sums[0].mse_max,
		   "table3: min, max, mean of the repetitions; median between");
	}
	done(&R);
}

/* 3. Complex A, clusters of zero width: the hybrid is exact everywhere. */
static void test_complex_zero_width(void)
{
	struct run R;
	struct rfx_err err;

	setup(&R, "hyb-cluster,trig", 1, 4, 0.0, 1);
	ok(!go(&R, &err), "zero-width clusters, complex A (%s)", err.msg);
	ok(R.sums[0].mse_max < 1e-28,
	   "hyb-cluster: empirical MSE %.3g, rounding only (points at their centres)",
	   R.sums[0].mse_max);
	ok(R.exact[0].mse < 1e-28,
	   "hyb-cluster: expected MSE %.3g, rounding only (eqs. 85-87 zero every variance)",
	   R.exact[0].mse);
	ok(R.sums[1].mse_min > 1e-6, "trig on the same pairs: MSE %.3g", R.sums[1].mse_min);
	done(&R);
	setup(&R, "hyb-cluster", 1, 4, 0.0, 0);
	if (go(&R, &err))
		ok(0, "real A, zero width: %s", err.msg);
	else
		ok(R.sums[0].mse_min > 1e-8,
		   "with the real A of eq. 88 the hybrid keeps an error (MSE %.3g; s > 0)",
		   R.sums[0].mse_min);
	done(&R);
}

/* 4. Same rows on 1 and 2 threads; a method's rows alone. */
static void test_reproducible(void)
{
	struct run A, B;
	struct rfx_err err;
	size_t n, i;
	int same = 1;

	setup(&A, "hyb-cluster,trig,hyb-gmix", 3, 3, 0.5, 0);
	setup(&B, "hyb-cluster,trig,hyb-gmix", 3, 3, 0.5, 0);
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	go(&A, &err);
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	go(&B, &err);
	n = rfx_cl_rep_nrows(&A.c);
	for (i = 0; i < n; i++)
		same &= A.reps[i].mse == B.reps[i].mse && A.reps[i].log_mse == B.reps[i].log_mse;
	ok(same, "1 and 2 threads: identical MSEs (%zu rows)", n);
	done(&B);
	setup(&B, "trig", 3, 3, 0.5, 0);
	go(&B, &err);
	same = 1;
	for (i = 0; i < 9; i++)
		same &= A.reps[9 + i].mse == B.reps[i].mse;
	ok(same, "trig alone: the same rows as beside the hybrids");
	done(&A);
	done(&B);
}

/* 5. The clusters table. */
static void test_clusters(void)
{
	struct run R;
	struct rfx_err err;
	int q, good = 1;

	setup(&R, "trig", 1, 1, 0.2, 0);
	go(&R, &err);
	for (q = 0; q < 4; q++) {
		const struct rfx_cl_cluster_row *c = &R.clusters[q];

		good &= c->i == 1 + (q >> 1) && c->j == 1 + (q & 1) &&
			fabs(c->s_means - c->s_target) <= 0.02 && c->nx == 12 &&
			c->ny == 12 && c->x_moved == 0 && c->y_moved == 0 &&
			c->sm_min <= c->sm_mean && c->sm_mean <= c->sm_max &&
			c->s_centres > 0.0;
	}
	ok(good, "clusters: pairs in order, s reached, 12 points each, none moved");
	done(&R);
}

static void test_errors(void)
{
	struct rfx_cl_method m[4];
	struct rfx_err err;
	struct run R;
	int n;

	rfx_err_clear(&err);
	ok(rfx_cl_parse_methods("hyb-cluster,nope", m, 4, &n, &err) == RFX_EINVAL &&
	   strstr(err.msg, "'nope'") && strstr(err.msg, "hyb-gmix"),
	   "an unknown method lists the valid ones (%s)", err.msg);
	ok(rfx_cl_parse_methods("trig,trig", m, 4, &n, &err) == RFX_EINVAL,
	   "a duplicate (%s)", err.msg);
	ok(rfx_cl_parse_methods("ang", m, 4, &n, &err) == RFX_EINVAL,
	   "a two-part budget (%s)", err.msg);
	ok(rfx_cl_parse_methods("trig,", m, 4, &n, &err) == RFX_EINVAL,
	   "an empty item (%s)", err.msg);
	ok(!rfx_cl_parse_methods("hyb-gmix,posh", m, 4, &n, &err) && n == 2 &&
	   !m[0].e && m[1].e == &rfx_est_posh, "hyb-gmix,posh parse");
	setup(&R, "trig", 1, 1, 0.5, 0);
	R.set.s[1] = 5.0;
	rfx_err_clear(&err);
	ok(go(&R, &err) == RFX_EINVAL && strstr(err.msg, "out of reach"),
	   "an unreachable s is RFX_EINVAL (%s)", err.msg);
	done(&R);
	setup(&R, "trig", 1, 0, 0.5, 0);
	ok(go(&R, &err) == RFX_EINVAL, "0 repetitions (%s)", err.msg);
	done(&R);
	setup(&R, "trig", 1, 1, 0.5, 0);
	R.m[0] = 0;
	ok(go(&R, &err) == RFX_EINVAL, "m = 0 (%s)", err.msg);
	done(&R);
}

int main(void)
{
	gsl_set_error_handler_off();
	plan(4 + 2 + 6 + 1 + 5 + 2 + 1 + 8);
	test_mse_from_estimates();
	test_expectation();
	test_complex_zero_width();
	test_reproducible();
	test_clusters();
	test_errors();
	return done_testing();
}

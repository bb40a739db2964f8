/*
 * Tests for lib/exp/svmexp.c: the splits of the three datasets against the
 * files (sizes from data/MANIFEST.md, rows compared with the plain
 * loader), the padding, the row caps, the method names, the plan's
 * refusals, the table's layout, the same bytes on 1 and 2 threads,
 * accuracy on two planted clusters that a Gaussian-kernel classifier
 * must separate, and C by validation (the argmax, blind to test rows).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_randist.h>

#include "data/dataset.h"
#include "base/rng.h"
#include "exp/svmexp.h"
#include "tap.h"

#define SEED 20221121UL

static const char *data_dir(void)
{
	static char dir[4096];
	const char *top = getenv("RFX_TOP");

	snprintf(dir, sizeof(dir), "%s/data", top ? top : ".");
	return dir;
}

static void test_splits(void)
{
	struct rfx_svmexp_data D;
	struct rfx_dataset *raw;
	struct rfx_err err;
	size_t i;
	int l, zero = 1;

	rfx_err_clear(&err);
	ok(rfx_svmexp_load("letter", data_dir(), 0, 0, 50, 200, SEED, &D, &err) ==
		   RFX_OK, "letter loads (%s)", err.msg);
	ok(D.n_train == 16000 && D.n_test == 4000 && D.d0 == 16 && D.d == 16 &&
		   D.nclass == 26, "letter: 16000 / 4000, d = 16, 26 classes");
	raw = rfx_dataset_load("letter", data_dir(), &err);
	ok(raw && !memcmp(D.Xte, raw->X + 16000 * 16, 4000 * 16 * sizeof(double)) &&
		   !memcmp(D.Xtr, raw->X, 16000 * 16 * sizeof(double)),
	   "letter: the first 16000 rows train, the last 4000 test");
	ok(D.ytr[0] == 'T' - 'A' && D.sigma > 1.0 && D.sigma < 20.0,
	   "letter: first label T, sigma %g a plausible distance (features 0..15)",
	   D.sigma);
	rfx_dataset_free(raw);
	rfx_svmexp_data_release(&D);

	ok(rfx_svmexp_load("usps", data_dir(), 0, 0, 50, 200, SEED, &D, &err) ==
		   RFX_OK && D.n_train == 7291 && D.n_test == 2007 && D.d == 256 &&
		   D.nclass == 10, "usps: its own 7291 / 2007 files, d = 256");
	rfx_svmexp_data_release(&D);

	ok(rfx_svmexp_load("mnist", data_dir(), 300, 100, 50, 200, SEED, &D, &err) ==
		   RFX_OK && D.n_train == 300 && D.n_test == 100 && D.d0 == 784 &&
		   D.d == 1024, "mnist: 784 padded to 1024, rows capped at 300 / 100");
	for (i = 0; i < D.n_train && D.Xtr; i++)
		for (l = 784; l < 1024; l++)
			zero &= D.Xtr[i * 1024 + (size_t)l] == 0.0;
	ok(zero, "mnist: the padding is zeros");
	raw = rfx_dataset_load("mnist", data_dir(), &err);
	zero = raw && D.Xte;
	for (l = 0; zero && l < 784; l++)
		zero &= D.Xte[l] == raw->X[8000 * 784 + (size_t)l];
	ok(zero, "mnist: the first test image is t10k image 8000");
	rfx_dataset_free(raw);
	rfx_svmexp_data_release(&D);

	ok(rfx_svmexp_load("forest", data_dir(), 0, 0, 50, 200, SEED, &D, &err) ==
		   RFX_EINVAL && strstr(err.msg, "'forest'"),
	   "an unknown dataset is RFX_EINVAL (%s)", err.msg);
	ok(rfx_svmexp_load("letter", "/nonexistent", 0, 0, 50, 200, SEED, &D,
			   &err) == RFX_EIO, "a missing file is RFX_EIO");
	rfx_svmexp_data_release(&D);
}

static void test_names(void)
{
	enum rfx_proj p = RFX_PROJ_HD;
	struct rfx_err err;

	ok(!rfx_svmexp_method_parse("RFF", &p, &err) && p == RFX_PROJ_IID &&
		   !rfx_svmexp_method_parse("orf", &p, &err) && p == RFX_PROJ_ORT &&
		   !rfx_svmexp_method_parse("Sorf", &p, &err) && p == RFX_PROJ_SORF,
	   "RFF, ORF, SORF are iid, ort, sorf (any case)");
	ok(rfx_svmexp_method_parse("QMC", &p, &err) == RFX_EINVAL &&
		   strstr(err.msg, "RFF, ORF, SORF"),
	   "an unknown method lists the valid ones (%s)", err.msg);
	ok(!strcmp(rfx_svmexp_method_name(RFX_PROJ_SORF), "SORF") &&
		   !strcmp(rfx_svmexp_method_name(RFX_PROJ_HD), "?"),
	   "method names");
}

/*
 * Two classes in R^16, N(0, I/4) and N(5 e_1, I/4), bandwidth 2: the
 * kernel between the classes is about exp(-(25 + 8)/8) ~ 0.02 and within a
 * class exp(-|x - y|^2/8) ~ exp(-8 / 8) = e^-1 on average, so in feature
 * space the class means are far apart compared with the spread and a
 * linear SVM on 32 projections must classify nearly all test points (a
 * loose floor of 95%, where chance is 50%). d = 16, not smaller: SORF's
 * bias (ORF paper Theorem 3) is large at d = 4.
 */
#define DIM 16
static void planted(struct rfx_svmexp_data *D, size_t n_train, size_t n_test)
{
	gsl_rng *r = rfx_rng_alloc_stream(SEED, 0x7465, 0, 0);
	size_t i, n = n_train + n_test;
	int l;

	memset(D, 0, sizeof(*D));
	snprintf(D->name, sizeof(D->name), "planted");
	D->d0 = D->d = DIM;
	D->nclass = 2;
	D->n_train = n_train;
	D->n_test = n_test;
	D->Xtr = malloc(n_train * DIM * sizeof(double));
	D->Xte = malloc(n_test * DIM * sizeof(double));
	D->ytr = malloc(n_train * sizeof(int));
	D->yte = malloc(n_test * sizeof(int));
	D->sigma = 2.0;
	if (!r || !D->Xtr || !D->Xte || !D->ytr || !D->yte) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		int c = (int)(i % 2);
		double *x = i < n_train ? D->Xtr + i * DIM
					: D->Xte + (i - n_train) * DIM;

		(i < n_train ? D->ytr : D->yte)[i < n_train ? i : i - n_train] = c;
		for (l = 0; l < DIM; l++)
			x[l] = gsl_ran_gaussian(r, 0.5) + (l == 0 ? 5.0 * c : 0.0);
	}
	gsl_rng_free(r);
}

static void test_run(void)
{
	static const int ratio[2] = { 2, 3 };
	static const enum rfx_proj proj[3] = { RFX_PROJ_IID, RFX_PROJ_ORT,
					       RFX_PROJ_SORF };
	struct rfx_svmexp_data D;
	struct rfx_svmexp_config c;
	struct rfx_svmexp_row rows[6], rows2[6];
	struct rfx_err err;
	int k, layout = 1, high = 1;

	planted(&D, 200, 100);
	memset(&c, 0, sizeof(c));
	c.data = &D;
	c.nratio = 2;
	c.ratio = ratio;
	c.nmethods = 3;
	c.proj = proj;
	c.seeds = 3;
	rfx_svm_params_init(&c.svm);
	c.seed = SEED;
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	ok(rfx_svmexp_run(&c, rows, &err) == RFX_OK, "planted clusters run");
	for (k = 0; k < 6; k++) {
		layout &= rows[k].ratio == ratio[k / 3] && rows[k].D == DIM * ratio[k / 3] &&
			  !strcmp(rows[k].method,
				  rfx_svmexp_method_name(proj[k % 3])) &&
			  rows[k].seeds == 3 && rows[k].n_train == 200 &&
			  rows[k].n_test == 100 && rows[k].C == 1.0 &&
			  rows[k].sigma == 2.0;
		if (rows[k].acc_pct < 95.0)
			diag("%s at D = %d: %g%%", rows[k].method, rows[k].D,
			     rows[k].acc_pct);
		high &= rows[k].acc_pct >= 95.0 && rows[k].acc_pct <= 100.0 &&
			rows[k].acc_pct_sd >= 0.0;
	}
	ok(layout, "rows ratio-major, D = ratio d, RFF ORF SORF, run settings");
	ok(high, "planted clusters: every method >= 95%% (RFF at 2d: %g%%)",
	   rows[0].acc_pct);
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	ok(rfx_svmexp_run(&c, rows2, &err) == RFX_OK &&
		   !memcmp(rows, rows2, sizeof(rows)),
	   "the same rows, byte for byte, on 2 threads");

	{
		static const double grid[3] = { 0.01, 1.0, 100.0 };
		double val[3], val2[3], best = 0.0, best2 = -1.0;
		size_t i;
		int b = 0;

		rfx_err_clear(&err);
		ok(rfx_svmexp_pick_cost(&c, grid, 3, &best, val, &err) == RFX_OK,
		   "C by validation runs (%s)", err.msg);
		/* the first maximum of an ascending grid: the smallest C on ties */
		for (k = 1; k < 3; k++)
			b = val[k] > val[b] ? k : b;
		ok(best == grid[b], "the C picked has the best validation accuracy, "
		   "the smallest on ties (%g: %g%%, %g%%, %g%%)", best, val[0], val[1],
		   val[2]);
		/* the test rows must play no part: poison them */
		for (i = 0; i < D.n_test * DIM; i++)
			D.Xte[i] = NAN;
		ok(rfx_svmexp_pick_cost(&c, grid, 3, &best2, val2, &err) == RFX_OK &&
			   best2 == best && !memcmp(val, val2, sizeof(val)),
		   "the validation never reads the test rows");
		ok(rfx_svmexp_pick_cost(&c, grid, 0, &best2, val2, &err) == RFX_EINVAL,
		   "an empty grid is refused");
	}
	c.max_bytes = 200 * 2 * 3 * DIM * sizeof(float) - 1;
	ok(rfx_svmexp_plan(&c, &err) == RFX_EINVAL && strstr(err.msg, "3d"),
	   "a cell over max_bytes is refused before any work (%s)", err.msg);
	c.max_bytes = 0;
	c.seeds = 0;
	ok(rfx_svmexp_plan(&c, &err) == RFX_EINVAL, "seeds = 0 is refused");
	c.seeds = 1;
	c.ratio = (const int[]){ 0 };
	c.nratio = 1;
	ok(rfx_svmexp_plan(&c, &err) == RFX_EINVAL, "D/d = 0 is refused");
	c.ratio = ratio;
	c.proj = (const enum rfx_proj[]){ RFX_PROJ_HALTON };
	c.nmethods = 1;
	ok(rfx_svmexp_plan(&c, &err) == RFX_EINVAL,
	   "a projection outside Table 2 is refused");
	c.proj = proj;
	c.svm.C = -1.0;
	ok(rfx_svmexp_run(&c, rows2, &err) == RFX_EINVAL, "C < 0 is refused");
	rfx_svmexp_data_release(&D);
}

int main(void)
{
	test_splits();
	test_names();
	test_run();
	return done_testing();
}

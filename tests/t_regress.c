/*
 * Tests for lib/io/regress.c, and the demonstration the regression check is
 * for: an MSE table of a perturbed estimator (TrigRF whose feature map
 * carries a wrong constant, every feature 5% too large) fails against a
 * reference made by the real one, while the real estimator passes against
 * the same reference even when its random numbers are all different
 * (another seed). Also: TSV reading and formatting, the tolerance
 * z* = Phi^-1(1 - alpha/(2n)), and the structural errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "data/dataset.h"
#include "est/estimator.h"
#include "exp/msetable.h"
#include "io/regress.h"
#include "tap.h"

/* ------------------------------------------------------------------------ */
/* TSV tables */

static struct rfx_tsv *from_text(const char *text)
{
	char path[] = "/tmp/rfx_t_regress.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct rfx_tsv *t;
	struct rfx_err err;

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	rfx_err_clear(&err);
	t = rfx_tsv_read(path, &err);
	unlink(path);
	if (!t)
		diag("read: %s", err.msg);
	return t;
}

static void test_tsv(void)
{
	struct rfx_tsv *t = from_text("a\tb\tc\n1\t2\t3\nx\t\t5\n");
	struct rfx_err err;

	ok(t && t->ncols == 3 && t->nrows == 2 && !strcmp(t->names[2], "c") &&
	   !strcmp(t->cells[4], "") && !strcmp(t->cells[5], "5"),
	   "a 3-column table with an empty cell");
	rfx_tsv_free(t);
	t = from_text("a\tb\n1\t2");
	ok(t && t->nrows == 1 && !strcmp(t->cells[1], "2"), "no final newline");
	rfx_tsv_free(t);
	rfx_err_clear(&err);
	ok(!rfx_tsv_read("/nonexistent/ref.tsv", &err) && err.code == RFX_EIO &&
	   strstr(err.msg, "cannot open"), "a missing file is RFX_EIO (%s)", err.msg);
	ok(!from_text("a\tb\n1\t2\t3\n"), "a row with more fields is an error");
	ok(!from_text("a\tb\tc\n1\t2\n"), "a row with fewer fields is an error");
	ok(!from_text(""), "an empty file is an error");
}

static void test_from_rows(void)
{
	struct rfx_mse_row r;
	struct rfx_tsv *t;

	memset(&r, 0, sizeof(r));
	strcpy(r.dataset, "wine");
	r.d = 13;
	r.mse = 0.1;
	r.reps = 20;
	t = rfx_tsv_from_rows(&rfx_mse_schema, &r, 1, NULL);
	ok(t && t->ncols == rfx_mse_schema.ncols && t->nrows == 1 &&
	   !strcmp(t->cells[0], "wine") && !strcmp(t->names[17], "mse") &&
	   !strcmp(t->cells[17], "0.1") && !strcmp(t->cells[5], "13") &&
	   !strcmp(t->cells[15], "20"),
	   "rows to text as the commands print them (0.1, 13, 20)");
	rfx_tsv_free(t);
}

/* ------------------------------------------------------------------------ */
/* Comparison */

static const char *const keys1[] = { "k" };

static int compare(const char *ref, const char *got, size_t *nfail,
		   struct rfx_regress_row **rows, struct rfx_err *err)
{
	struct rfx_tsv *a = from_text(ref), *b = from_text(got);
	struct rfx_regress_spec spec = { 1, keys1, "v", "se", 1e-3 };
	size_t n;
	int ret;

	*rows = NULL;
	ret = a && b ? rfx_regress_compare(a, b, &spec, rows, &n, nfail, err)
		     : RFX_EIO;
	rfx_tsv_free(a);
	rfx_tsv_free(b);
	return ret;
}

static void test_compare(void)
{
	struct rfx_regress_row *rows;
	struct rfx_err err;
	size_t nfail;
	/* n = 2 cells: z* = Phi^-1(1 - 0.001/4) = 3.4808 */
	const char *ref = "k\tv\tse\na\t1.0\t0.1\nb\t2.0\t0.0\n";

	ok(compare(ref, ref, &nfail, &rows, NULL) == RFX_OK && nfail == 0 &&
	   rows[0].z == 0.0 && fabs(rows[0].limit - 3.4807564) < 1e-6,
	   "identical tables pass with z = 0; z* = 3.4808 for 2 cells at alpha = 1e-3");
	free(rows);
	/* (1.45 - 1)/sqrt(0.1^2 + 0.1^2) = 3.18 < z*; 1.5 gives 3.54 > z* */
	ok(compare(ref, "k\tv\tse\nb\t2.0\t0\na\t1.45\t0.1\n", &nfail, &rows, NULL) ==
		   RFX_OK && nfail == 0 && fabs(rows[0].z - 0.45 / sqrt(0.02)) < 1e-12 &&
		   !strcmp(rows[0].verdict, "ok"),
	   "a difference of 3.18 combined standard errors passes (rows matched by key)");
	free(rows);
	ok(compare(ref, "k\tv\tse\na\t1.5\t0.1\nb\t2.0\t0\n", &nfail, &rows, NULL) ==
		   RFX_OK && nfail == 1 && !strcmp(rows[0].verdict, "FAIL"),
	   "3.54 combined standard errors fails");
	free(rows);
	ok(compare(ref, "k\tv\tse\na\t1\t0.1\nb\t2.000001\t0\n", &nfail, &rows, NULL) ==
		   RFX_OK && nfail == 1 && isfinite(rows[1].z),
	   "a cell without error bars must agree to rounding; z stays finite");
	free(rows);
	rfx_err_clear(&err);
	ok(compare(ref, "k\tv\tse\na\t1\t0.1\nc\t2\t0\n", &nfail, &rows, &err) ==
		   RFX_EFORMAT && strstr(err.msg, "'b'"),
	   "a reference row missing from the run is an error (%s)", err.msg);
	rfx_err_clear(&err);
	ok(compare(ref, "k\tv\tse\na\t1\t0.1\n", &nfail, &rows, &err) == RFX_EFORMAT,
	   "a different number of rows is an error (%s)", err.msg);
	rfx_err_clear(&err);
	ok(compare(ref, "k\tv\n a\t1\nb\t2\n", &nfail, &rows, &err) == RFX_EFORMAT &&
	   strstr(err.msg, "'se'"), "a missing column is an error (%s)", err.msg);
	rfx_err_clear(&err);
	ok(compare(ref, "k\tv\tse\na\tnan\t0.1\nb\t2\t0\n", &nfail, &rows, &err) ==
		   RFX_EFORMAT, "a value that is not a finite number is an error");
	ok(compare(ref, "k\tv\tse\na\t1\t-0.1\nb\t2\t0\n", &nfail, &rows, &err) ==
		   RFX_EFORMAT, "a negative standard error is an error");
}

/* ------------------------------------------------------------------------ */
/* The perturbed estimator */

/* TrigRF with a wrong constant: every feature 1.05 times too large. */
static int bad_features(const struct rfx_params *p, const struct rfx_draw *w,
			int side, const double *X, size_t n, int M,
			struct rfx_featmat *F, struct rfx_err *err)
{
	int ret = rfx_est_trig.features(p, w, side, X, n, M, F, err);
	size_t i;

	for (i = 0; !ret && i < n; i++)
		F->lscale[i] += log(1.05);
	return ret;
}

static struct rfx_estimator_type perturbed;

/* An MSE table of trig:ort and ang:iid on wine, as TSV. */
static struct rfx_tsv *table(const struct rfx_estimator_type *trig,
			     unsigned long seed)
{
	static struct rfx_dataset *ds;
	struct rfx_mse_data data;
	struct rfx_mse_method m[2];
	struct rfx_mse_config c;
	struct rfx_mse_row rows[4];
	int features[2] = { 64, 256 };
	struct rfx_err err;
	const char *top = getenv("RFX_TOP");
	char dir[4096];

	if (!ds) {
		snprintf(dir, sizeof(dir), "%s/data", top ? top : ".");
		ds = rfx_dataset_load("wine", dir, &err);
		if (!ds) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		rfx_dataset_normalize(ds, RFX_NORM_UNIT);
	}
	data.ds = ds;
	data.norm = "unit";
	data.sigma = 1.0;
	data.id = rfx_dataset_index("wine");
	data.key[0] = '\0';  /* keyed by the catalogue name */
	rfx_mse_method_parse("ORF-reg=trig:ort", &m[0], NULL);
	rfx_mse_method_parse("HRF-iid=ang:iid", &m[1], NULL);
	m[0].e = trig;
	m[0].base = m[1].base = NULL;
	memset(&c, 0, sizeof(c));
	c.kernel = RFX_MSE_SOFTMAX;
	c.ndata = 1;
	c.data = &data;
	c.nmethods = 2;
	c.methods = m;
	c.nbudget = 2;
	c.features = features;
	c.match = 1;
	c.pairs = 100;
	c.draws = 5;
	/*
	 * RFX_TEST_SCALE=small (make valgrind): 6 repetitions. The perturbed
	 * cells' z (printed by test_perturbed) falls about as sqrt(reps), and
	 * from over 12 at 20 it stays well beyond the limit of 3.66.
	 */
	c.reps = tap_small() ? 6 : 20;
	c.seed = seed;
	rfx_err_clear(&err);
	if (rfx_mse_run(&c, rows, &err)) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	return rfx_tsv_from_rows(&rfx_mse_schema, rows, 4, NULL);
}

static void test_perturbed(void)
{
	static const char *const keys[] = { "dataset", "norm", "method", "d", "M" };
	struct rfx_regress_spec spec = { 5, keys, "mse", "mse_se", RFX_REGRESS_ALPHA };
	struct rfx_tsv *ref, *same, *other, *bad;
	struct rfx_regress_row *rows = NULL;
	size_t n, nfail;
	int k;

	perturbed = rfx_est_trig;
	perturbed.features = bad_features;
	ref = table(&rfx_est_trig, 20221121UL);
	same = table(&rfx_est_trig, 20221121UL);
	other = table(&rfx_est_trig, 77UL);
	bad = table(&perturbed, 20221121UL);

	ok(rfx_regress_compare(ref, same, &spec, &rows, &n, &nfail, NULL) == RFX_OK &&
	   n == 4 && nfail == 0 && rows[0].z == 0.0 && rows[3].z == 0.0,
	   "the same code and seed reproduce the reference exactly (z = 0)");
	free(rows);
	ok(rfx_regress_compare(ref, other, &spec, &rows, &n, &nfail, NULL) == RFX_OK &&
	   nfail == 0 && rows[0].z != 0.0,
	   "the real estimator with all-new random numbers (seed 77) passes");
	for (k = 0; k < 4; k++)
		diag("seed 77: %s z = %.2f (limit %.2f)", rows[k].key, rows[k].z,
		     rows[k].limit);
	free(rows);
	ok(rfx_regress_compare(ref, bad, &spec, &rows, &n, &nfail, NULL) == RFX_OK &&
	   nfail == 2 && !strcmp(rows[0].verdict, "FAIL") &&
	   !strcmp(rows[1].verdict, "FAIL") && !strcmp(rows[2].verdict, "ok"),
	   "TrigRF with features 5%% too large fails in both of its cells, the "
	   "hybrid's pass");
	for (k = 0; k < 2; k++)
		diag("perturbed: %s z = %.1f", rows[k].key, rows[k].z);
	free(rows);
	rfx_tsv_free(ref);
	rfx_tsv_free(same);
	rfx_tsv_free(other);
	rfx_tsv_free(bad);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_tsv();
	test_from_rows();
	test_compare();
	test_perturbed();
	return done_testing();
}

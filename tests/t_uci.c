/*
 * Tests for lib/data/uci: every shipped file parses to the documented row,
 * column and class counts (data/MANIFEST.md, the UCI .names files) in both
 * encodings, with spot checks of decoded values; hand-made malformed files
 * fail with the line and column in the message; the split has the sizes
 * of thesis Table 6.1 up to the documented offset, is a seeded
 * permutation, and standardises with training statistics only.
 */
#include "data/uci.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>

static char tmpdir[] = "/tmp/t_uci.XXXXXX";
static const char *top;

static const char *data_path(const char *file)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/data/%s", top, file);
	return buf;
}

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static const char *write_tmp(const char *name, const char *text)
{
	const char *p = tmp_path(name);
	FILE *f = fopen(p, "wb");

	if (!f) {
		printf("Bail out! cannot create '%s': %s\n", p, strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return p;
}

struct expect {
	const char *name;
	size_t rows;
	int d_ordinal, d_onehot, classes;
};

/* data/MANIFEST.md; d: attributes (one-hot: one column per level). */
static const struct expect expected[] = {
	{ "abalone", 4177, 8, 10, 28 },  { "banknote", 1372, 4, 4, 2 },
	{ "car", 1728, 6, 21, 4 },       { "yeast", 1484, 8, 8, 10 },
	{ "cmc", 1473, 9, 9, 3 },        { "nursery", 12960, 8, 27, 5 },
	{ "wifi", 2000, 7, 7, 4 },       { "chess", 28056, 6, 6, 18 },
};

static size_t count_class(const struct rfx_uci_data *D, int c)
{
	size_t i, n = 0;

	for (i = 0; i < D->n; i++)
		n += D->y[i] == c;
	return n;
}

static int all_finite(const struct rfx_uci_data *D)
{
	size_t i;

	for (i = 0; i < D->n * (size_t)D->d; i++)
		if (!isfinite(D->X[i]))
			return 0;
	for (i = 0; i < D->n; i++)
		if (D->y[i] < 0 || D->y[i] >= D->nclass)
			return 0;
	return 1;
}

static void test_registry(void)
{
	const struct rfx_uci_spec *const *all = rfx_uci_list();
	struct rfx_err err;
	enum rfx_uci_encoding enc;
	size_t k;

	for (k = 0; all[k]; k++)
		;
	ok(k == 8, "eight datasets in the registry");
	for (k = 0; k < 8 && all[k]; k++)
		ok(!strcmp(all[k]->name, expected[k].name) &&
			   rfx_uci_find(expected[k].name, NULL) == all[k] &&
			   rfx_uci_index(all[k]) == (int)k,
		   "dataset %zu is %s (Table 6.1 order), found by name", k,
		   expected[k].name);
	rfx_err_clear(&err);
	ok(!rfx_uci_find("iris", &err) && err.code == RFX_EINVAL &&
		   strstr(err.msg, "'iris'") && strstr(err.msg, "chess"),
	   "unknown dataset: RFX_EINVAL listing the valid names (%s)", err.msg);
	ok(rfx_uci_encoding_parse("onehot", &enc, NULL) == RFX_OK &&
		   enc == RFX_UCI_ONEHOT &&
		   rfx_uci_encoding_parse("ordinal", &enc, NULL) == RFX_OK &&
		   enc == RFX_UCI_ORDINAL,
	   "encodings ordinal and onehot parse");
	rfx_err_clear(&err);
	ok(rfx_uci_encoding_parse("binary", &enc, &err) == RFX_EINVAL &&
		   strstr(err.msg, "ordinal, onehot"),
	   "unknown encoding: RFX_EINVAL listing both");
}

static void test_shipped(void)
{
	size_t k;

	for (k = 0; k < 8; k++) {
		const struct expect *x = &expected[k];
		const struct rfx_uci_spec *s = rfx_uci_find(x->name, NULL);
		struct rfx_err err;
		struct rfx_uci_data *D[2];
		int e;

		for (e = 0; e < 2; e++) {
			rfx_err_clear(&err);
			D[e] = rfx_uci_load(s, data_path(s->file),
					    (enum rfx_uci_encoding)e, &err);
			if (!D[e])
				diag("%s", err.msg);
		}
		ok(D[0] && D[0]->n == x->rows && D[0]->d == x->d_ordinal &&
			   D[0]->nclass == x->classes && all_finite(D[0]),
		   "%s (ordinal): %zu rows, d = %d, %d classes, all finite",
		   x->name, x->rows, x->d_ordinal, x->classes);
		if (D[0] && !(D[0]->n == x->rows && D[0]->d == x->d_ordinal))
			diag("got %zu rows, d = %d, %d classes", D[0]->n, D[0]->d,
			     D[0]->nclass);
		ok(D[1] && D[1]->n == x->rows && D[1]->d == x->d_onehot &&
			   D[1]->nclass == x->classes && all_finite(D[1]) &&
			   D[0] && !memcmp(D[0]->y, D[1]->y, x->rows * sizeof(int)),
		   "%s (onehot): %zu rows, d = %d, same labels", x->name, x->rows,
		   x->d_onehot);
		if (!D[0] || !D[1]) {
			rfx_uci_free(D[0]);
			rfx_uci_free(D[1]);
			continue;
		}
		/* Spot checks against the files' first lines and class counts. */
		if (!strcmp(x->name, "abalone")) {
			/* M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15 */
			ok(D[0]->X[0] == 0 && D[0]->X[1] == 0.455 && D[0]->X[7] == 0.15 &&
				   D[0]->y[0] == 14,
			   "abalone row 1: sex M -> 0, length 0.455, rings 15 -> class 14");
			ok(D[1]->X[0] == 1 && D[1]->X[1] == 0 && D[1]->X[2] == 0 &&
				   D[1]->X[3] == 0.455,
			   "abalone onehot row 1: sex M -> (1, 0, 0), then length");
			/* F,0.53,...: row 3 */
			ok(D[0]->X[2 * 8] == 1 && D[1]->X[2 * 10 + 1] == 1,
			   "abalone row 3: sex F -> 1 / (0, 1, 0)");
		} else if (!strcmp(x->name, "banknote")) {
			ok(count_class(D[0], 0) == 762 && count_class(D[0], 1) == 610 &&
				   D[0]->X[0] == 3.6216 && D[0]->X[3] == -0.44699,
			   "banknote: 762/610, header skipped, CRLF stripped");
		} else if (!strcmp(x->name, "car")) {
			/* vhigh,vhigh,2,2,small,low,unacc */
			ok(count_class(D[0], 0) == 1210 && count_class(D[0], 1) == 384 &&
				   count_class(D[0], 2) == 69 && count_class(D[0], 3) == 65 &&
				   D[0]->X[0] == 3 && D[0]->X[2] == 0 && D[0]->X[5] == 0,
			   "car: unacc/acc/good/vgood 1210/384/69/65; vhigh -> 3, 2 doors -> 0");
			ok(D[1]->X[3] == 1 && D[1]->X[0] == 0 && D[1]->X[7] == 1,
			   "car onehot row 1: buying vhigh and maint vhigh set their last level");
		} else if (!strcmp(x->name, "yeast")) {
			static const size_t cnt[10] = { 463, 429, 244, 163, 51,
							44,  35,  30,  20,  5 };
			int c, good = 1;

			for (c = 0; c < 10; c++)
				good &= count_class(D[0], c) == cnt[c];
			ok(good && D[0]->X[0] == 0.58 && D[0]->X[7] == 0.22 &&
				   D[0]->y[0] == 2,
			   "yeast: name dropped, 0.58 .. 0.22, MIT -> 2, class counts (EXC 35)");
		} else if (!strcmp(x->name, "cmc")) {
			ok(count_class(D[0], 0) == 629 && count_class(D[0], 1) == 333 &&
				   count_class(D[0], 2) == 511 && D[0]->X[0] == 24,
			   "cmc: 629/333/511, wife_age 24 first");
		} else if (!strcmp(x->name, "nursery")) {
			ok(count_class(D[0], 0) == 4320 && count_class(D[0], 1) == 2 &&
				   count_class(D[0], 2) == 328 && count_class(D[0], 3) == 4266 &&
				   count_class(D[0], 4) == 4044 && D[0]->y[0] == 1,
			   "nursery: 4320/2/328/4266/4044, empty last line and CRLF accepted");
		} else if (!strcmp(x->name, "wifi")) {
			ok(count_class(D[0], 0) == 500 && count_class(D[0], 3) == 500 &&
				   D[0]->X[0] == -64 && D[0]->X[6] == -81,
			   "wifi: tab-separated, 500 per room");
		} else if (!strcmp(x->name, "chess")) {
			ok(count_class(D[0], 17) == 2796 && count_class(D[0], 0) == 27 &&
				   D[0]->X[0] == 1 && D[0]->X[5] == 2,
			   "chess: draw (17) 2796, zero 27; 1,1,2,3,3,2 first");
		}
		rfx_uci_free(D[0]);
		rfx_uci_free(D[1]);
	}
}

/* Loads text in format spec; returns the error code, message in err. */
static int load_text(const char *dataset, const char *name, const char *text,
		     struct rfx_err *err, struct rfx_uci_data **out)
{
	const struct rfx_uci_spec *s = rfx_uci_find(dataset, NULL);
	struct rfx_uci_data *D;

	rfx_err_clear(err);
	D = rfx_uci_load(s, write_tmp(name, text), RFX_UCI_ORDINAL, err);
	if (out)
		*out = D;
	else
		rfx_uci_free(D);
	return D ? RFX_OK : err->code;
}

/* The load fails with RFX_EFORMAT and a message containing want. */
static void bad(const char *dataset, const char *name, const char *text,
		const char *want, const char *what)
{
	struct rfx_err err;
	int ret = load_text(dataset, name, text, &err, NULL);

	ok(ret == RFX_EFORMAT && strstr(err.msg, want) && strstr(err.msg, name),
	   "%s: RFX_EFORMAT naming the file and '%s'", what, want);
	if (!(ret == RFX_EFORMAT && strstr(err.msg, want)))
		diag("code %d: %s", ret, err.msg);
}

static void test_malformed(void)
{
	struct rfx_err err;
	struct rfx_uci_data *D;
	const struct rfx_uci_spec *wifi = rfx_uci_find("wifi", NULL);

	bad("wifi", "short.txt", "1\t2\t3\t4\t5\t6\t7\t1\n1\t2\t3\t4\t5\t6\t1\n",
	    "line 2, column 8: missing field 'room' (the row has 7 fields, expected 8)", "short row");
	bad("wifi", "long.txt", "1\t2\t3\t4\t5\t6\t7\t1\t9\n",
	    "line 1, column 9: extra field", "long row");
	bad("wifi", "num.txt", "1\t2\t3\t4\t5\t6\t7\t1\n1\t2\tx3\t4\t5\t6\t7\t1\n",
	    "line 2, column 3: bad number 'x3' for 'wifi3'", "bad number");
	bad("wifi", "nan.txt", "1\t2\tnan\t4\t5\t6\t7\t1\n",
	    "line 1, column 3: bad number 'nan'", "nan is a bad number");
	bad("wifi", "inf.txt", "1\t2\t1e999\t4\t5\t6\t7\t1\n",
	    "line 1, column 3: bad number '1e999'", "an overflowing number");
	bad("wifi", "emptyfield.txt", "1\t\t3\t4\t5\t6\t7\t1\n",
	    "line 1, column 2: bad number ''", "an empty field");
	bad("wifi", "label.txt", "1\t2\t3\t4\t5\t6\t7\t1.5\n",
	    "line 1, column 8: label '1.5' is not an integer", "non-integer label");
	bad("car", "cat.data",
	    "buying,maint,doors,persons,lug_boots,safety,class\n"
	    "vhigh,vhigh,2,2,small,low,unacc\nvhigh,vhgh,2,2,small,low,unacc\n",
	    "line 3, column 2: unknown category 'vhgh' for 'maint' (valid: low, med, high, vhigh)",
	    "unknown category");
	bad("car", "label.data",
	    "buying,maint,doors,persons,lug_boots,safety,class\n"
	    "vhigh,vhigh,2,2,small,low,great\n",
	    "line 2, column 7: unknown category 'great' for 'class'",
	    "unknown class label");
	bad("car", "noheader.data", "vhigh,vhigh,2,2,small,low,unacc\n",
	    "line 1, column 1: header 'vhigh', expected 'buying'",
	    "missing header line (no silent loss of the first row)");
	bad("wifi", "empty.txt", "", "no data rows (empty file)", "empty file");
	bad("wifi", "blank.txt", "\n\n", "no data rows", "only empty lines");
	bad("banknote", "headeronly.txt",
	    "Variance,Skewness,Curtosis,Entropy,Class\r\n", "no data rows",
	    "header only");
	bad("wifi", "gap.txt",
	    "1\t2\t3\t4\t5\t6\t7\t1\n\n1\t2\t3\t4\t5\t6\t7\t1\n",
	    "line 2: empty line before more data (line 3)",
	    "empty line in the middle");
	bad("yeast", "yeast.data",
	    "Sequence_Name mcg gvh alm mit erl pox vac nuc class\n"
	    "  A  0.5 0.5 0.5 0.5 0.5 0.0 0.5 0.2  CYT\n"
	    "  B  0.5 0.5 0.5 0.5 0.5 0.0 0.5  CYT\n",
	    "line 3, column 10: missing field 'class'", "yeast short row");

	ok(load_text("wifi", "trail.txt",
		     "1\t2\t3\t4\t5\t6\t7\t1\r\n-1\t2\t3\t4\t5\t6\t7.5\t3\r\n\r\n\n",
		     &err, &D) == RFX_OK &&
		   D->n == 2 && D->nclass == 2 && D->y[1] == 1 && D->X[7] == -1 &&
		   D->X[13] == 7.5,
	   "CRLF and empty last lines accepted; labels 1, 3 ranked 0, 1");
	rfx_uci_free(D);
	ok(load_text("wifi", "nonl.txt", "1\t2\t3\t4\t5\t6\t7\t4", &err, &D) ==
			   RFX_OK &&
		   D->n == 1,
	   "no final newline: the last row counts");
	rfx_uci_free(D);
	rfx_err_clear(&err);
	ok(!rfx_uci_load(wifi, tmp_path("missing.txt"), RFX_UCI_ORDINAL, &err) &&
		   err.code == RFX_EIO && strstr(err.msg, "missing.txt"),
	   "missing file: RFX_EIO naming it (%s)", err.msg);
	rfx_uci_free(NULL);
}

/* Table 6.1's training sizes L. */
static const size_t thesis_L[8] = { 3758, 1233, 1554, 1334,
				    1324, 11664, 1799, 25249 };

static void test_split(void)
{
	const struct rfx_uci_spec *const *all = rfx_uci_list();
	size_t k, nt, nv, ne;

	/*
	 * Ours: floor(0.9 N) of all N rows. Table 6.1 has floor(0.9 (N - 1))
	 * for seven datasets (one row fewer than the file) and floor(0.9 N)
	 * for nursery; no rounding rule of 0.9 N gives both nursery's 11664
	 * (N = 12960) and wifi's 1799 (N = 2000). docs/ERRATA.md, E10.
	 */
	for (k = 0; k < 8; k++) {
		size_t off = !strcmp(all[k]->name, "nursery") ? 0 : 1;

		rfx_uci_split_sizes(expected[k].rows, &nt, &nv, &ne);
		ok(nt == thesis_L[k] + off && nt + nv + ne == expected[k].rows &&
			   nv >= expected[k].rows / 20 && ne >= nv,
		   "%s: L = %zu = Table 6.1's %zu + %zu, validation %zu, test %zu",
		   all[k]->name, nt, thesis_L[k], off, nv, ne);
		rfx_uci_split_sizes(expected[k].rows - off, &nt, &nv, &ne);
		ok(nt == thesis_L[k],
		   "%s: floor(0.9 (N - %zu)) is Table 6.1's L = %zu", all[k]->name,
		   off, thesis_L[k]);
	}
	rfx_uci_split_sizes(20, &nt, &nv, &ne);
	ok(nt == 18 && nv == 1 && ne == 1, "split sizes of 20: 18/1/1");
	rfx_uci_split_sizes(1001, &nt, &nv, &ne);
	ok(nt == 900 && nv == 50 && ne == 51, "split sizes of 1001: 900/50/51");
}

static void test_split_data(void)
{
	const struct rfx_uci_spec *s = rfx_uci_find("banknote", NULL);
	struct rfx_uci_data *D = rfx_uci_load(s, data_path(s->file),
					      RFX_UCI_ORDINAL, NULL);
	struct rfx_uci_split A, B, C, R;
	struct rfx_err err;
	size_t i, *seen;
	int l, perm_ok = 1, rows_ok = 1, stats_ok = 1, map_ok = 1;

	if (!D) {
		ok(0, "banknote loads for the split tests");
		return;
	}
	rfx_uci_split(D, 7, 1, &A, NULL);
	rfx_uci_split(D, 7, 1, &B, NULL);
	rfx_uci_split(D, 8, 1, &C, NULL);
	rfx_uci_split(D, 7, 0, &R, NULL);
	ok(A.n_train == 1234 && A.n_val == 69 && A.n_test == 69 && A.d == 4 &&
		   A.nclass == 2,
	   "banknote split: 1234/69/69, d 4, 2 classes");
	seen = calloc(D->n, sizeof(size_t));
	for (i = 0; i < D->n; i++) {
		if (A.perm[i] >= D->n || seen[A.perm[i]]++)
			perm_ok = 0;
	}
	free(seen);
	ok(perm_ok, "the split is a permutation of the rows (none dropped or repeated)");
	ok(!memcmp(A.perm, B.perm, D->n * sizeof(size_t)) &&
		   !memcmp(A.Xtr, B.Xtr, A.n_train * 4 * sizeof(double)),
	   "same seed: same split");
	ok(memcmp(A.perm, C.perm, D->n * sizeof(size_t)) != 0,
	   "another seed: another split");
	/* Unstandardised rows are the file's rows in permuted order. */
	for (i = 0; i < R.n_train; i++)
		if (memcmp(R.Xtr + i * 4, D->X + R.perm[i] * 4, 4 * sizeof(double)) ||
		    R.ytr[i] != D->y[R.perm[i]])
			rows_ok = 0;
	for (i = 0; i < R.n_test; i++)
		if (memcmp(R.Xte + i * 4,
			   D->X + R.perm[R.n_train + R.n_val + i] * 4,
			   4 * sizeof(double)) ||
		    R.yte[i] != D->y[R.perm[R.n_train + R.n_val + i]])
			rows_ok = 0;
	ok(rows_ok && R.mean[0] == 0 && R.scale[0] == 1,
	   "--scaling none: train and test rows are the file's rows, labels kept");
	/* Standardised: training columns have mean 0 and sd 1. */
	for (l = 0; l < 4; l++) {
		double m = 0, v = 0;

		for (i = 0; i < A.n_train; i++)
			m += A.Xtr[i * 4 + l];
		m /= (double)A.n_train;
		for (i = 0; i < A.n_train; i++)
			v += (A.Xtr[i * 4 + l] - m) * (A.Xtr[i * 4 + l] - m);
		v /= (double)A.n_train;
		if (fabs(m) > 1e-12 || fabs(v - 1) > 1e-12)
			stats_ok = 0;
	}
	ok(stats_ok, "standardised: training columns have mean 0, variance 1");
	for (i = 0; i < A.n_val; i++)
		for (l = 0; l < 4; l++) {
			double want = (R.Xva[i * 4 + l] - A.mean[l]) / A.scale[l];

			if (fabs(A.Xva[i * 4 + l] - want) > 1e-15 * (1 + fabs(want)))
				map_ok = 0;
		}
	ok(map_ok, "validation rows use the training mean and scale (no leak)");
	rfx_uci_split_release(&A);
	rfx_uci_split_release(&B);
	rfx_uci_split_release(&C);
	rfx_uci_split_release(&R);
	rfx_uci_split_release(&R); /* idempotent */

	/* A column constant on the training rows is only centred. */
	{
		struct rfx_uci_data *E;
		char text[4096];
		size_t len = 0;
		int r;

		for (r = 0; r < 40; r++)
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%d\t5\t0\t0\t0\t0\t0\t%d\n", r, r % 2);
		load_text("wifi", "const.txt", text, &err, &E);
		ok(E && rfx_uci_split(E, 1, 1, &A, &err) == RFX_OK &&
			   A.scale[1] == 1 && A.Xtr[1] == 0 && A.Xte[1] == 0,
		   "a constant column: scale 1, values 0");
		rfx_uci_split_release(&A);
		rfx_uci_free(E);
		load_text("wifi", "tiny.txt", "1\t2\t3\t4\t5\t6\t7\t1\n", &err, &E);
		rfx_err_clear(&err);
		ok(E && rfx_uci_split(E, 1, 1, &A, &err) == RFX_EINVAL &&
			   strstr(err.msg, "too few"),
		   "fewer than 20 samples: RFX_EINVAL");
		rfx_uci_free(E);
	}
	{
		struct rfx_uci_info info;

		rfx_uci_split(D, 7, 1, &A, NULL);
		rfx_uci_info_fill(&info, D, &A, RFX_UCI_ORDINAL, 1);
		ok(!strcmp(info.dataset, "banknote") &&
			   !strcmp(info.file, "banknote.txt") &&
			   !strcmp(info.encoding, "ordinal") &&
			   !strcmp(info.scaling, "standard") && info.rows == 1372 &&
			   info.n_train == 1234 && info.d == 4 && info.classes == 2,
		   "info row: name, file, encoding, scaling, counts");
		rfx_uci_split_release(&A);
	}
	rfx_uci_free(D);
}

int main(void)
{
	gsl_set_error_handler_off();
	top = getenv("RFX_TOP");
	if (!top)
		top = ".";
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create '%s': %s\n", tmpdir,
		       strerror(errno));
		return 1;
	}
	test_registry();
	test_shipped();
	test_malformed();
	test_split();
	test_split_data();
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			diag("could not remove %s", tmpdir);
	}
	return done_testing();
}

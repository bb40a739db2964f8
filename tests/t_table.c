/*
 * Tests of lib/io/table.c: rows written through the rfx API are read back
 * with the HDF5 high-level table API itself (H5TBread_table) and compared
 * field by field, dumps are compared with TSV written out by hand, files
 * are checked to be byte-identical across time and to appear atomically,
 * every error path is provoked, a golden file made by H5TBmake_table is
 * read back, and h5py, pandas and h5dump are asked to read rfx's output.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "io/h5out.h"
#include "io/h5read.h"
#include "io/table.h"
#include "tap.h"

/*
 * The main test row: padding after k (so stray bytes there must not reach
 * the file) and a string of capacity 8.
 */
struct mrow {
	double x;     /* a double column */
	int k;        /* an int column, followed by padding */
	long n;       /* a long column */
	char label[8]; /* a string column, at most 7 characters */
};

static const struct rfx_column mcols[] = {
	{ "x", RFX_COL_DOUBLE, offsetof(struct mrow, x), sizeof(double), "a double" },
	{ "k", RFX_COL_INT, offsetof(struct mrow, k), sizeof(int), "an int" },
	{ "n", RFX_COL_LONG, offsetof(struct mrow, n), sizeof(long), "a long" },
	{ "label", RFX_COL_STRING, offsetof(struct mrow, label), 8,
	  "a label of at most 7 characters" },
};

static const struct rfx_schema mschema = {
	"measure", "Test measurements", sizeof(struct mrow), 4, mcols
};

#define NM 5
static const double mx[NM] = { 0.1, -1e-300, 1e300, 2.385, -0.0 };
static const int mk[NM] = { -3, INT_MAX, 0, INT_MIN, -1 };
static const long mn[NM] = { -LONG_MAX, 1234567890123L, 0, LONG_MIN, 42 };
static const char *const mlabel[NM] = { "", "abcdefg", "rff", "a b", "x=y" };

/*
 * The dump of "measure", worked out by hand: each double as the shortest
 * %.15g..%.17g text that reads back as the same value.
 */
static const char measure_tsv[] =
	"x\tk\tn\tlabel\n"
	"0.1\t-3\t-9223372036854775807\t\n"
	"-1e-300\t2147483647\t1234567890123\tabcdefg\n"
	"1e+300\t0\t0\trff\n"
	"2.385\t-2147483648\t-9223372036854775808\ta b\n"
	"-0\t-1\t42\tx=y\n";

/* A second row type for the file with several tables. */
struct prow {
	int i;    /* an int */
	double v; /* a double */
};

static const struct rfx_column pcols[] = {
	{ "i", RFX_COL_INT, offsetof(struct prow, i), sizeof(int), "index i" },
	{ "v", RFX_COL_DOUBLE, offsetof(struct prow, v), sizeof(double), "value v, metres" },
};

static const char multi_tsv[] =
	"# alpha\n"
	"i\tv\n"
	"7\t3.25e-07\n"
	"\n\n"
	"# beta\n"
	"i\tv\n"
	"1\t1.5\n"
	"2\t-20.5\n"
	"\n\n"
	"# empty\n"
	"i\tv\n";

static const struct rfx_provenance prov = {
	"0.1.0",                                   /* version */
	"abc123def456-dirty",                      /* commit */
	"rfx variance --seed 18446744073709551615 --out 'a b.h5'", /* command */
	UINT64_MAX,                                /* seed */
	"mt19937",                                 /* rng */
	0, NULL                                    /* no input files */
};

/* Root attributes of the sample file, in name order. */
static const char attrs_tsv[] =
	"command\trfx variance --seed 18446744073709551615 --out 'a b.h5'\n"
	"kernel\tgauss\n"
	"rfx_commit\tabc123def456-dirty\n"
	"rfx_version\t0.1.0\n"
	"rng\tmt19937\n"
	"seed\t18446744073709551615\n";

/*
 * tests/data/golden_table.h5 was made once, by a throw-away C program
 * against HDF5 1.10.8: H5TBmake_table("Station readings", "stations",
 * fields name (char[16]), lati (int), longi (long), pressure (float),
 * temperature (double); chunk 4, fill values, no compression) with the
 * first three rows below, then H5TBappend_records with the last two; a
 * plain double dataset "plain", an empty group "group", and a root string
 * attribute "origin". Its table, worked out by hand:
 */
static const char golden_tsv[] =
	"name\tlati\tlongi\tpressure\ttemperature\n"
	"zero\t0\t0\t0\t0\n"
	"alpha\t10\t-10\t1.5\t2.385\n"
	"beta\t-20\t3000000000\t0.100000001\t-1e-300\n"
	"\t2147483647\t-9223372036854775807\t-0.00249999994\t1e+300\n"
	"fifteen chars..\t-2147483647\t42\t1024\t0.1\n";

static char tmpdir[1024]; /* scratch directory of this run */

static char *tpath(const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

/* A one-line, non-empty message: what every error must leave. */
static int one_line(const struct rfx_err *e)
{
	return e->msg[0] != '\0' && !strchr(e->msg, '\n');
}

/*
 * Fills the rows of "measure", with `junk` in every byte the fields do not
 * cover (struct padding, string tails) so that a change of it must not
 * change the file.
 */
static void fill_measure(struct mrow *r, int junk)
{
	int i;

	memset(r, junk, NM * sizeof(*r));
	for (i = 0; i < NM; i++) {
		r[i].x = mx[i];
		r[i].k = mk[i];
		r[i].n = mn[i];
		strcpy(r[i].label, mlabel[i]);
	}
}

/* Writes the sample file: provenance, one extra attribute, "measure". */
static int write_sample(const char *path, int junk, struct rfx_err *err)
{
	struct mrow r[NM];
	struct rfx_h5out *o;
	int ret;

	fill_measure(r, junk);
	if (!(o = rfx_h5out_open(path, err)))
		return err->code;
	if ((ret = rfx_h5out_provenance(o, &prov, err)) ||
	    (ret = rfx_h5out_attr(o, "kernel", "laplace", err)) ||
	    (ret = rfx_h5out_attr(o, "kernel", "gauss", err)) ||
	    (ret = rfx_h5out_table(o, &mschema, r, NM, err))) {
		rfx_h5out_abort(o);
		return ret;
	}
	return rfx_h5out_commit(o, err);
}

/* Writes tables beta, alpha and empty, in that order, to path. */
static int write_multi(const char *path, struct rfx_err *err)
{
	struct rfx_schema beta = { "beta", "B", sizeof(struct prow), 2, pcols };
	struct rfx_schema alpha = { "alpha", "A", sizeof(struct prow), 2, pcols };
	struct rfx_schema empty = { "empty", "E", sizeof(struct prow), 2, pcols };
	struct prow b[2] = { { 1, 1.5 }, { 2, -20.5 } };
	struct prow a[1] = { { 7, 3.25e-7 } };
	struct rfx_h5out *o;
	int ret;

	if (!(o = rfx_h5out_open(path, err)))
		return err->code;
	if ((ret = rfx_h5out_table(o, &beta, b, 2, err)) ||
	    (ret = rfx_h5out_table(o, &alpha, a, 1, err)) ||
	    (ret = rfx_h5out_table(o, &empty, NULL, 0, err))) {
		rfx_h5out_abort(o);
		return ret;
	}
	return rfx_h5out_commit(o, err);
}

enum dump_mode {
	DUMP,       /* rfx_h5_dump */
	DUMP_WHERE, /* rfx_h5_dump_where */
	DUMP_ATTRS, /* rfx_h5_dump_attrs */
	DESCRIBE    /* rfx_h5_describe */
};

/* Runs a dump into *text (malloc'd, always set); returns its status. */
static int dump_text(enum dump_mode mode, const char *path, const char *table,
		     const char *const *where, int nwhere, char **text,
		     struct rfx_err *err)
{
	size_t len = 0;
	FILE *f;
	int ret = -1;

	*text = NULL;
	if (!(f = open_memstream(text, &len))) {
		perror("open_memstream");
		exit(2);
	}
	rfx_err_clear(err);
	switch (mode) {
	case DUMP:
		ret = rfx_h5_dump(path, table, f, err);
		break;
	case DUMP_WHERE:
		ret = rfx_h5_dump_where(path, table, where, nwhere, f, err);
		break;
	case DUMP_ATTRS:
		ret = rfx_h5_dump_attrs(path, f, err);
		break;
	case DESCRIBE:
		ret = rfx_h5_describe(path, table, f, err);
		break;
	}
	fclose(f);
	return ret;
}

/* ok() for a text, with both shown on a mismatch. */
static void is_text(const char *got, const char *want, const char *what)
{
	if (!ok(got && !strcmp(got, want), "%s", what))
		diag("got:\n%s\n# want:\n%s", got ? got : "(null)", want);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Number of entries in dir other than . and ..; -1 if unreadable. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Removes a directory holding only files and empty directories. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) < 0)
			remove_dir(p);
	}
	closedir(d);
	rmdir(dir);
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* A string attribute of obj, read with H5LT into a fixed buffer. */
static int attr_is(hid_t file, const char *obj, const char *name,
		   const char *want)
{
	char buf[256];
	hsize_t dims;
	H5T_class_t cls;
	size_t size;

	if (H5LTget_attribute_info(file, obj, name, &dims, &cls, &size) < 0 ||
	    cls != H5T_STRING || size > sizeof(buf) ||
	    H5LTget_attribute_string(file, obj, name, buf) < 0)
		return 0;
	return !strcmp(buf, want);
}

/* Whether obj carries any of the four object timestamps. */
static int has_times(hid_t file, const char *obj)
{
	H5O_info_t info;

	if (H5Oget_info_by_name2(file, obj, &info, H5O_INFO_TIME,
				 H5P_DEFAULT) < 0)
		return -1;
	return info.atime || info.mtime || info.ctime || info.btime;
}

/*
 * The type class, size and rank of attribute name of obj: 1 when they
 * are cls, size (0: any) and rank (0 scalar, 1 an array of n).
 */
static int attr_shape(hid_t file, const char *obj, const char *name,
		      H5T_class_t cls, size_t size, int rank, hssize_t n)
{
	hid_t a = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
	hid_t sp = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
	int good = t >= 0 && sp >= 0 && H5Tget_class(t) == cls &&
		   (!size || H5Tget_size(t) == size) &&
		   H5Sget_simple_extent_ndims(sp) == rank &&
		   H5Sget_simple_extent_npoints(sp) == n;

	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	if (a >= 0)
		H5Aclose(a);
	return good;
}

/*
 * The run's options (rfx_h5out_option): each type read back by HDF5 with
 * its class, size and shape, and printed by dump --attrs and --describe
 * as worked out by hand below; bad values refused.
 */
static void test_options(void)
{
	const char *path = tpath("options.h5");
	const int64_t ints[3] = { -3, 0, INT64_MAX };
	const uint64_t seed = UINT64_MAX;
	const double reals[2] = { 0.1, -2.5e-300 };
	const char *const names[2] = { "trig", "a longer name" };
	const char *const one = "iid";
	const char *const bad_names[2] = { "x", NULL };
	const struct rfx_attr_value v_ints = { RFX_ATTR_INT64, 1, 3, ints };
	const struct rfx_attr_value v_int = { RFX_ATTR_INT64, 0, 1, &ints[2] };
	const struct rfx_attr_value v_seed = { RFX_ATTR_UINT64, 0, 1, &seed };
	const struct rfx_attr_value v_reals = { RFX_ATTR_DOUBLE, 1, 2, reals };
	const struct rfx_attr_value v_one = { RFX_ATTR_DOUBLE, 1, 1, reals };
	const struct rfx_attr_value v_names = { RFX_ATTR_STRING, 1, 2, names };
	const struct rfx_attr_value v_str = { RFX_ATTR_STRING, 0, 1, &one };
	struct rfx_attr_value bad;
	struct rfx_h5out *o;
	struct rfx_err err;
	struct mrow r[NM];
	char *text = NULL;
	hid_t f;
	int ret;

	fill_measure(r, 0);
	rfx_err_clear(&err);
	o = rfx_h5out_open(path, &err);
	ret = !o || rfx_h5out_provenance(o, &prov, &err) ||
	      rfx_h5out_option(o, "ints", &v_ints, &err) ||
	      rfx_h5out_option(o, "L", &v_str, &err) || /* replaced next */
	      rfx_h5out_option(o, "L", &v_int, &err) ||
	      rfx_h5out_option(o, "seed", &v_seed, &err) ||
	      rfx_h5out_option(o, "gamma", &v_reals, &err) ||
	      rfx_h5out_option(o, "gamma-one", &v_one, &err) ||
	      rfx_h5out_option(o, "method", &v_names, &err) ||
	      rfx_h5out_option(o, "projection", &v_str, &err) ||
	      rfx_h5out_table(o, &mschema, r, NM, &err);
	ok(!ret, "write options of every type beside a table: %s", err.msg);

	/* Refused: no items, a scalar of two, a NULL string, no name. */
	bad = v_ints;
	bad.n = 0;
	rfx_err_clear(&err);
	ok(o && rfx_h5out_option(o, "x", &bad, &err) == RFX_EINVAL &&
	   one_line(&err), "a list of no items is RFX_EINVAL: %s", err.msg);
	bad = v_ints;
	bad.list = 0;
	rfx_err_clear(&err);
	ok(o && rfx_h5out_option(o, "x", &bad, &err) == RFX_EINVAL,
	   "a scalar of three items is RFX_EINVAL");
	bad = v_names;
	bad.v = bad_names;
	rfx_err_clear(&err);
	ok(o && rfx_h5out_option(o, "x", &bad, &err) == RFX_EINVAL,
	   "a NULL string is RFX_EINVAL");
	rfx_err_clear(&err);
	ok(o && rfx_h5out_option(o, "", &v_int, &err) == RFX_EINVAL,
	   "an empty name is RFX_EINVAL");
	ok(o && rfx_h5out_commit(o, &err) == RFX_OK, "commit");

	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ok(f >= 0 && attr_shape(f, "options", "ints", H5T_INTEGER, 8, 1, 3) &&
	   attr_shape(f, "options", "L", H5T_INTEGER, 8, 0, 1) &&
	   attr_shape(f, "options", "seed", H5T_INTEGER, 8, 0, 1) &&
	   attr_shape(f, "options", "gamma", H5T_FLOAT, 8, 1, 2) &&
	   attr_shape(f, "options", "gamma-one", H5T_FLOAT, 8, 1, 1) &&
	   attr_shape(f, "options", "method", H5T_STRING, 14, 1, 2) &&
	   attr_shape(f, "options", "projection", H5T_STRING, 4, 0, 1),
	   "HDF5 reads 64-bit integers and reals, lists as 1-d arrays (one of "
	   "one item too), strings as long as the longest plus its NUL");
	ok(f >= 0 && has_times(f, "options") == 0,
	   "the options group has no timestamps");
	if (f >= 0)
		H5Fclose(f);

	ok(dump_text(DUMP_ATTRS, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump the attributes");
	is_text(text,
		"command\trfx variance --seed 18446744073709551615 --out 'a b.h5'\n"
		"rfx_commit\tabc123def456-dirty\n"
		"rfx_version\t0.1.0\n"
		"rng\tmt19937\n"
		"seed\t18446744073709551615\n"
		"options/L\t9223372036854775807\n"
		"options/gamma\t0.10000000000000001,-2.5e-300\n"
		"options/gamma-one\t0.10000000000000001\n"
		"options/ints\t-3,0,9223372036854775807\n"
		"options/method\ttrig,a longer name\n"
		"options/projection\tiid\n"
		"options/seed\t18446744073709551615\n",
		"--attrs: the root's, then the options as options/NAME, in name order");
	free(text);

	ok(dump_text(DESCRIBE, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "describe the file");
	is_text(text,
		"table\tcolumn\ttype\tdescription\n"
		"measure\tx\tfloat64\ta double\n"
		"measure\tk\tint32\tan int\n"
		"measure\tn\tint64\ta long\n"
		"measure\tlabel\tstring[8]\ta label of at most 7 characters\n"
		"\n\n"
		"option\ttype\tvalue\n"
		"L\tint64\t9223372036854775807\n"
		"gamma\tfloat64[2]\t0.10000000000000001,-2.5e-300\n"
		"gamma-one\tfloat64[1]\t0.10000000000000001\n"
		"ints\tint64[3]\t-3,0,9223372036854775807\n"
		"method\tstring[2]\ttrig,a longer name\n"
		"projection\tstring\tiid\n"
		"seed\tuint64\t18446744073709551615\n",
		"--describe: the columns, then the options with their types");
	free(text);
	ok(dump_text(DESCRIBE, path, "measure", NULL, 0, &text, &err) == RFX_OK &&
	   !strstr(text, "option\t"), "--describe TABLE: no options");
	free(text);
}

/* 1. Rows written by rfx, read back by H5TB field by field, and dumped. */
static void test_roundtrip(void)
{
	const char *path = tpath("sample.h5");
	const char *path2 = tpath("sample_h5tb.h5");
	size_t off[4] = { offsetof(struct mrow, x), offsetof(struct mrow, k),
			  offsetof(struct mrow, n), offsetof(struct mrow, label) };
	size_t sz[4] = { sizeof(double), sizeof(int), sizeof(long), 8 };
	struct mrow back[NM + 1], extra[1];
	hsize_t nfields = 0, nrecords = 0;
	char names[4][256];
	char *np[4] = { names[0], names[1], names[2], names[3] };
	struct rfx_err err;
	char aname[32];
	char *text;
	hid_t f;
	int i, good;

	rfx_err_clear(&err);
	if (!ok(write_sample(path, 0xAA, &err) == RFX_OK, "write the sample file"))
		diag("%s", err.msg);

	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ok(f >= 0, "HDF5 opens it");
	ok(H5TBget_table_info(f, "measure", &nfields, &nrecords) >= 0 &&
	   nfields == 4 && nrecords == NM,
	   "H5TB sees 4 fields and %d records", NM);
	ok(H5TBget_field_info(f, "measure", np, NULL, NULL, NULL) >= 0 &&
	   !strcmp(names[0], "x") && !strcmp(names[1], "k") &&
	   !strcmp(names[2], "n") && !strcmp(names[3], "label"),
	   "H5TB sees the field names in order");

	memset(back, 0x5C, sizeof(back));
	ok(H5TBread_table(f, "measure", sizeof(struct mrow), off, sz, back) >= 0,
	   "H5TBread_table reads the rows");
	for (i = 0; i < NM; i++) {
		/* Doubles compared by bits: -0.0 must stay -0.0. */
		ok(!memcmp(&back[i].x, &mx[i], sizeof(double)) &&
		   back[i].k == mk[i] && back[i].n == mn[i] &&
		   !strcmp(back[i].label, mlabel[i]),
		   "row %d read back field by field (%.17g, %d, %ld, '%s')", i,
		   mx[i], mk[i], mn[i], mlabel[i]);
	}

	ok(attr_is(f, "measure", "CLASS", "TABLE") &&
	   attr_is(f, "measure", "VERSION", "3.0") &&
	   attr_is(f, "measure", "TITLE", "Test measurements"),
	   "CLASS, VERSION and TITLE attributes as H5TBmake_table writes them");
	good = 1;
	for (i = 0; i < 4; i++) {
		snprintf(aname, sizeof(aname), "FIELD_%d_NAME", i);
		good = good && attr_is(f, "measure", aname, mcols[i].name);
	}
	ok(good, "FIELD_<i>_NAME attributes");
	good = 1;
	for (i = 0; i < 4; i++) {
		snprintf(aname, sizeof(aname), "FIELD_%d_DESC", i);
		good = good && attr_is(f, "measure", aname, mcols[i].desc);
	}
	ok(good, "FIELD_<i>_DESC attributes: each column's description");
	ok(has_times(f, "/") == 0, "the root group has no timestamps");
	ok(has_times(f, "measure") == 0, "the table has no timestamps");
	ok(f >= 0 && H5Fclose(f) >= 0, "close");

	ok(dump_text(DUMP, path, "measure", NULL, 0, &text, &err) == RFX_OK,
	   "rfx_h5_dump of 'measure' succeeds");
	is_text(text, measure_tsv, "it equals the hand-written TSV");
	free(text);
	ok(dump_text(DUMP_WHERE, path, "measure", NULL, 0, &text, &err) == RFX_OK,
	   "rfx_h5_dump_where with no conditions succeeds");
	is_text(text, measure_tsv, "and prints the same");
	free(text);

	/* The real H5TB can extend what rfx wrote: it is a true H5TB table. */
	ok(write_sample(path2, 0, &err) == RFX_OK, "write a second sample");
	memset(extra, 0, sizeof(extra));
	extra[0].x = 6.5;
	extra[0].k = 6;
	extra[0].n = -6;
	strcpy(extra[0].label, "six");
	f = H5Fopen(path2, H5F_ACC_RDWR, H5P_DEFAULT);
	ok(f >= 0 && H5TBappend_records(f, "measure", 1, sizeof(struct mrow),
					off, sz, extra) >= 0 &&
	   H5TBread_table(f, "measure", sizeof(struct mrow), off, sz, back) >= 0 &&
	   back[NM].k == 6 && !strcmp(back[NM].label, "six") &&
	   back[0].k == mk[0],
	   "H5TBappend_records extends the table rfx wrote");
	if (f >= 0)
		H5Fclose(f);
	dump_text(DUMP, path2, "measure", NULL, 0, &text, &err);
	ok(text && strlen(text) > strlen(measure_tsv) &&
	   !strncmp(text, measure_tsv, strlen(measure_tsv)) &&
	   !strcmp(text + strlen(measure_tsv), "6.5\t6\t-6\tsix\n"),
	   "and the dump shows the appended row");
	free(text);
}

/* 2. Several tables in one file, dumped together in name order. */
static void test_multi(void)
{
	const char *path = tpath("multi.h5");
	struct rfx_err err;
	char *text;

	rfx_err_clear(&err);
	if (!ok(write_multi(path, &err) == RFX_OK, "write three tables"))
		diag("%s", err.msg);
	ok(dump_text(DUMP, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump every table");
	is_text(text, multi_tsv,
		"tables in name order, '# name' lines, two blank lines between");
	free(text);
	ok(dump_text(DUMP, path, "empty", NULL, 0, &text, &err) == RFX_OK,
	   "dump the empty table");
	is_text(text, "i\tv\n", "an empty table prints its header only");
	free(text);
	ok(dump_text(DUMP, path, "beta", NULL, 0, &text, &err) == RFX_OK,
	   "dump one table of several");
	is_text(text, "i\tv\n1\t1.5\n2\t-20.5\n",
		"a single table has no '# name' line");
	free(text);
}

/*
 * The input files of a run (issue 16): path, SHA-256 and size of each,
 * the size as a uint64 like the seed.
 */
static void test_input_attrs(void)
{
	static const struct rfx_input_file in[2] = {
		{ "x.npy", 128, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "y.h5:/g/y", 18446744073709551615ull, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	};
	static const char want[] =
		"command\trfx variance --seed 18446744073709551615 --out 'a b.h5'\n"
		"input_0_path\tx.npy\n"
		"input_0_sha256\tba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
		"input_0_size\t128\n"
		"input_1_path\ty.h5:/g/y\n"
		"input_1_sha256\te3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
		"input_1_size\t18446744073709551615\n"
		"rfx_commit\tabc123def456-dirty\n"
		"rfx_version\t0.1.0\n"
		"rng\tmt19937\n"
		"seed\t18446744073709551615\n";
	struct rfx_provenance p = prov;
	struct rfx_input_file broken = { "z.txt", 1, NULL };
	struct rfx_h5out *o;
	struct rfx_err err;
	char *text = NULL;

	p.ninputs = 2;
	p.inputs = in;
	rfx_err_clear(&err);
	o = rfx_h5out_open(tpath("inputs.h5"), &err);
	ok(o && rfx_h5out_provenance(o, &p, &err) == RFX_OK &&
	   rfx_h5out_commit(o, &err) == RFX_OK,
	   "provenance with two input files (%s)", err.msg);
	ok(dump_text(DUMP_ATTRS, tpath("inputs.h5"), NULL, NULL, 0, &text,
		     &err) == RFX_OK, "dump its attributes");
	is_text(text, want, "input_<i>_path, _sha256 and _size for each input");
	free(text);
	p.ninputs = 1;
	p.inputs = &broken;
	o = rfx_h5out_open(tpath("inputs2.h5"), &err);
	rfx_err_clear(&err);
	ok(o && rfx_h5out_provenance(o, &p, &err) == RFX_EINVAL && one_line(&err),
	   "an input without its SHA-256 is RFX_EINVAL: %s", err.msg);
	rfx_h5out_abort(o);
}

/* 3. Provenance and string attributes, and the seed's type. */
static void test_attrs(void)
{
	const char *path = tpath("sample.h5");
	struct rfx_provenance bad = prov;
	struct rfx_h5out *o;
	struct rfx_err err;
	uint64_t seed = 0;
	hid_t f, a;
	char *text;

	ok(dump_text(DUMP_ATTRS, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump the root attributes");
	is_text(text, attrs_tsv,
		"all attributes in name order; a replaced one has its last value");
	free(text);

	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	a = f >= 0 ? H5Aopen(f, "seed", H5P_DEFAULT) : H5I_INVALID_HID;
	ok(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, &seed) >= 0 &&
	   seed == UINT64_MAX,
	   "the seed is a uint64 attribute holding 2^64 - 1 exactly");
	ok(attr_is(f, "/", "rng", "mt19937") &&
	   attr_is(f, "/", "rfx_version", "0.1.0"),
	   "string attributes read back with H5LT");
	if (a >= 0)
		H5Aclose(a);
	if (f >= 0)
		H5Fclose(f);

	/* A NULL field is refused before anything is written. */
	bad.commit = NULL;
	o = rfx_h5out_open(tpath("prov.h5"), &err);
	rfx_err_clear(&err);
	ok(o && rfx_h5out_provenance(o, &bad, &err) == RFX_EINVAL &&
	   one_line(&err), "a NULL provenance field is RFX_EINVAL: %s", err.msg);
	rfx_err_clear(&err);
	ok(o && rfx_h5out_attr(o, "", "v", &err) == RFX_EINVAL && one_line(&err),
	   "an attribute without a name is RFX_EINVAL: %s", err.msg);
	rfx_h5out_abort(o);
	test_input_attrs();
}

/* Sleeps until the wall clock is in a later second than `after`. */
static void wait_next_second(time_t after)
{
	struct timespec ts;

	while (time(NULL) <= after) {
		ts.tv_sec = 0;
		ts.tv_nsec = 20 * 1000 * 1000;
		nanosleep(&ts, NULL);
	}
}

/* The same table through H5TBmake_table, which stores timestamps. */
static int write_control(const char *path)
{
	const char *names[2] = { "i", "v" };
	size_t off[2] = { offsetof(struct prow, i), offsetof(struct prow, v) };
	hid_t types[2] = { H5T_NATIVE_INT, H5T_NATIVE_DOUBLE };
	struct prow rows[1];
	hid_t f;
	int ret;

	memset(rows, 0, sizeof(rows));
	rows[0].i = 1;
	rows[0].v = 2.385;
	if ((f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		return -1;
	ret = H5TBmake_table("C", f, "c", 2, 1, sizeof(struct prow), names, off,
			     types, 1, NULL, 0, rows) < 0 ? -1 : 0;
	if (H5Fclose(f) < 0)
		ret = -1;
	return ret;
}

/* 4. The same content gives the same bytes, at any time, any padding. */
static void test_reproducible(void)
{
	char *a, *b, *c1, *c2;
	size_t na, nb, nc1, nc2;
	struct rfx_err err;
	time_t t;

	rfx_err_clear(&err);
	ok(write_sample(tpath("rep1.h5"), 0x00, &err) == RFX_OK &&
	   write_control(tpath("ctl1.h5")) == 0, "write the first copies");
	t = time(NULL);
	wait_next_second(t);
	ok(write_sample(tpath("rep2.h5"), 0xFF, &err) == RFX_OK &&
	   write_control(tpath("ctl2.h5")) == 0,
	   "write the second copies a second later, other padding bytes");

	a = slurp(tpath("rep1.h5"), &na);
	b = slurp(tpath("rep2.h5"), &nb);
	ok(a && b && na == nb && na > 0 && !memcmp(a, b, na),
	   "rfx files are byte-identical (%zu bytes)", na);
	c1 = slurp(tpath("ctl1.h5"), &nc1);
	c2 = slurp(tpath("ctl2.h5"), &nc2);
	ok(c1 && c2 && (nc1 != nc2 || memcmp(c1, c2, nc1)),
	   "control: H5TBmake_table files differ (the clock check is sensitive)");
	free(a);
	free(b);
	free(c1);
	free(c2);
}

/*
 * Writes NL rows of "measure" (several write and read blocks, many
 * chunks): x = i / 8, k = i, n = -i, label "r<i mod 1000>".
 */
#define NL 70000
static int write_large(const char *path, int junk, struct rfx_err *err)
{
	struct mrow *r = malloc(NL * sizeof(*r));
	struct rfx_h5out *o;
	int i, ret;

	if (!r)
		return RFX_ENOMEM;
	memset(r, junk, NL * sizeof(*r));
	for (i = 0; i < NL; i++) {
		r[i].x = i / 8.0;
		r[i].k = i;
		r[i].n = -(long)i;
		snprintf(r[i].label, sizeof(r[i].label), "r%d", i % 1000);
	}
	if (!(o = rfx_h5out_open(path, err))) {
		free(r);
		return err->code;
	}
	ret = rfx_h5out_table(o, &mschema, r, NL, err);
	free(r);
	if (ret) {
		rfx_h5out_abort(o);
		return ret;
	}
	return rfx_h5out_commit(o, err);
}

/* 4b. A table larger than the library's blocks. */
static void test_large(void)
{
	const char *where[] = { "k=69999" };
	const char *where2[] = { "label=r999" };
	struct rfx_err err;
	char *a, *b, *text, *p;
	size_t na, nb;
	int lines;

	ok(write_large(tpath("large1.h5"), 0x00, &err) == RFX_OK &&
	   write_large(tpath("large2.h5"), 0xFF, &err) == RFX_OK,
	   "write %d rows twice, with other padding bytes", NL);
	a = slurp(tpath("large1.h5"), &na);
	b = slurp(tpath("large2.h5"), &nb);
	ok(a && b && na == nb && !memcmp(a, b, na),
	   "the two files are byte-identical (%zu bytes)", na);
	free(a);
	free(b);
	ok(dump_text(DUMP_WHERE, tpath("large1.h5"), "measure", where, 1, &text,
		     &err) == RFX_OK, "filter the last row");
	is_text(text, "x\tk\tn\tlabel\n8749.875\t69999\t-69999\tr999\n",
		"  it is intact");
	free(text);
	ok(dump_text(DUMP_WHERE, tpath("large1.h5"), "measure", where2, 1, &text,
		     &err) == RFX_OK, "filter every 1000th row");
	for (lines = 0, p = text; p && *p; p++)
		lines += *p == '\n';
	ok(lines == 1 + NL / 1000 && strstr(text, "\n124.875\t999\t-999\tr999\n"),
	   "  %d lines, the first data row 999", lines);
	free(text);
}

/* 5. Output appears atomically, and only on commit. */
static void test_atomic(void)
{
	char dir[PATH_MAX / 2], target[PATH_MAX], nodir[PATH_MAX];
	struct prow rows[1] = { { 5, 0.5 } };
	struct rfx_schema s = { "t", "T", sizeof(struct prow), 2, pcols };
	struct rfx_h5out *o;
	struct rfx_err err;
	char *before, *after, *text;
	size_t nbefore, nafter;
	struct stat st;
	const char *tmp;
	mode_t mask;

	snprintf(dir, sizeof(dir), "%s/atomic", tmpdir);
	snprintf(target, sizeof(target), "%s/x.h5", dir);
	snprintf(nodir, sizeof(nodir), "%s/nodir/x.h5", tmpdir);
	if (mkdir(dir, 0777) < 0)
		diag("mkdir %s: %s", dir, strerror(errno));

	rfx_err_clear(&err);
	o = rfx_h5out_open(target, &err);
	tmp = rfx_h5out_tmpname(o);
	ok(o && tmp && !strncmp(tmp, target, strlen(target)) &&
	   !strncmp(tmp + strlen(target), ".tmp.", 5) && file_exists(tmp) &&
	   !file_exists(target),
	   "open makes '<path>.tmp.XXXXXX' and not the target: %s",
	   tmp ? tmp : "(none)");
	ok(o && rfx_h5out_table(o, &s, rows, 1, &err) == RFX_OK,
	   "write a table to it");
	rfx_h5out_abort(o);
	ok(count_entries(dir) == 0, "abort leaves the directory empty");

	o = rfx_h5out_open(target, &err);
	ok(o && rfx_h5out_table(o, &s, rows, 1, &err) == RFX_OK &&
	   rfx_h5out_commit(o, &err) == RFX_OK, "open, write, commit");
	ok(file_exists(target) && count_entries(dir) == 1,
	   "commit leaves exactly the target");
	mask = umask(0);
	umask(mask);
	ok(stat(target, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask),
	   "it has the mode of a plain create (%o)", (unsigned)(0666 & ~mask));

	/* A umask that forbids writing must not keep HDF5 from writing. */
	unlink(target);
	mask = umask(0222);
	o = rfx_h5out_open(target, &err);
	ok(o && rfx_h5out_table(o, &s, rows, 1, &err) == RFX_OK &&
	   rfx_h5out_commit(o, &err) == RFX_OK && stat(target, &st) == 0 &&
	   (st.st_mode & 0777) == 0444, "umask 0222 gives a 0444 file");
	umask(mask);
	chmod(target, 0644);

	before = slurp(target, &nbefore);
	o = rfx_h5out_open(target, &err);
	rows[0].i = 6;
	ok(o && rfx_h5out_table(o, &s, rows, 1, &err) == RFX_OK,
	   "a second run writes other rows");
	rfx_h5out_abort(o);
	after = slurp(target, &nafter);
	ok(before && after && nbefore == nafter && !memcmp(before, after, nbefore) &&
	   count_entries(dir) == 1,
	   "an aborted second run leaves the old file untouched, no temp file");
	free(before);
	free(after);

	o = rfx_h5out_open(target, &err);
	ok(o && rfx_h5out_table(o, &s, rows, 1, &err) == RFX_OK &&
	   rfx_h5out_commit(o, &err) == RFX_OK, "a committed second run");
	dump_text(DUMP, target, "t", NULL, 0, &text, &err);
	is_text(text, "i\tv\n6\t0.5\n", "replaces the old file");
	free(text);

	/* A commit whose rename fails removes its temporary file. */
	o = rfx_h5out_open(target, &err);
	ok(o != NULL, "open once more");
	unlink(target);
	ok(mkdir(target, 0777) == 0, "then make the target a directory");
	rfx_err_clear(&err);
	ok(rfx_h5out_commit(o, &err) == RFX_EIO && one_line(&err) &&
	   strstr(err.msg, "cannot rename"),
	   "commit fails with RFX_EIO: %s", err.msg);
	ok(count_entries(dir) == 1, "and removes the temporary file");

	rfx_err_clear(&err);
	o = rfx_h5out_open(target, &err);
	ok(!o && err.code == RFX_EIO && one_line(&err) &&
	   strstr(err.msg, "is a directory"),
	   "a directory as output fails: %s", err.msg);
	rmdir(target);

	rfx_err_clear(&err);
	o = rfx_h5out_open(nodir, &err);
	ok(!o && err.code == RFX_EIO && one_line(&err) &&
	   strstr(err.msg, "cannot create") &&
	   strstr(err.msg, strerror(ENOENT)),
	   "a missing directory fails at once: %s", err.msg);
	rfx_err_clear(&err);
	ok(!rfx_h5out_open("", &err) && err.code == RFX_EINVAL && one_line(&err),
	   "an empty name fails: %s", err.msg);
	ok(rfx_h5out_tmpname(NULL) == NULL, "tmpname(NULL) is NULL");
	rfx_h5out_abort(NULL);
	ok(1, "abort(NULL) is a no-op");
	ok(count_entries(dir) == 0, "nothing left behind");
}

/* Checks a failed dump: its code, a one-line message, no output. */
static void dump_fails(enum dump_mode mode, const char *path,
		       const char *table, const char *const *where, int nwhere,
		       int code, const char *msg, const char *what)
{
	struct rfx_err err;
	char *text;
	int ret = dump_text(mode, path, table, where, nwhere, &text, &err);

	if (!ok(ret == code && err.code == code && one_line(&err) &&
		(!msg || !strcmp(err.msg, msg)) && text && !text[0],
		"%s: %s", what, err.msg))
		diag("code %d, want %d; output '%s'; want message '%s'", ret,
		     code, text ? text : "", msg ? msg : "(any)");
	free(text);
}

/* 6. Every error path: a code, a one-line message, and no output. */
static void test_errors(void)
{
	char missing[PATH_MAX], txt[PATH_MAX], empty[PATH_MAX];
	char msg[PATH_MAX + 128];
	const char *multi = tpath("multi.h5");
	const char *nocol[] = { "nope=1" };
	const char *noeq[] = { "i" };
	const char *nocolname[] = { "=1" };
	struct rfx_column badcols[2];
	struct rfx_schema bad;
	struct prow rows[1] = { { 1, 1.0 } };
	char longname[300];
	struct mrow full[1];
	struct rfx_h5out *o;
	struct rfx_err err;
	char *text;
	FILE *f;

	snprintf(missing, sizeof(missing), "%s/missing.h5", tmpdir);
	snprintf(txt, sizeof(txt), "%s/x.txt", tmpdir);
	snprintf(empty, sizeof(empty), "%s/empty.h5", tmpdir);
	if ((f = fopen(txt, "w"))) {
		fputs("x\ty\n1\t2\n", f);
		fclose(f);
	}
	if ((f = fopen(empty, "w")))
		fclose(f);

	snprintf(msg, sizeof(msg), "cannot open '%s': %s", missing,
		 strerror(ENOENT));
	dump_fails(DUMP, missing, NULL, NULL, 0, RFX_EIO, msg,
		   "a missing file is RFX_EIO");
	dump_fails(DUMP_ATTRS, missing, NULL, NULL, 0, RFX_EIO, msg,
		   "also for the attributes");
	snprintf(msg, sizeof(msg), "'%s' is not an HDF5 file", txt);
	dump_fails(DUMP, txt, "t", NULL, 0, RFX_EFORMAT, msg,
		   "a text file is RFX_EFORMAT");
	snprintf(msg, sizeof(msg), "'%s' is not an HDF5 file", empty);
	dump_fails(DUMP, empty, NULL, NULL, 0, RFX_EFORMAT, msg,
		   "an empty file is RFX_EFORMAT");
	dump_fails(DUMP, tmpdir, NULL, NULL, 0, RFX_EIO, NULL,
		   "a directory is RFX_EIO");
	snprintf(msg, sizeof(msg),
		 "no table 'foo' in '%s' (tables: alpha, beta, empty)", multi);
	dump_fails(DUMP, multi, "foo", NULL, 0, RFX_EINVAL, msg,
		   "an unknown table is RFX_EINVAL and lists the tables");
	dump_fails(DUMP_WHERE, multi, "alpha", nocol, 1, RFX_EINVAL,
		   "no column 'nope' in table 'alpha'",
		   "an unknown filter column is RFX_EINVAL");
	snprintf(msg, sizeof(msg), "no table in '%s' has a column 'nope'", multi);
	dump_fails(DUMP_WHERE, multi, NULL, nocol, 1, RFX_EINVAL, msg,
		   "also with every table when none has it, before any output");
	dump_fails(DUMP_WHERE, multi, "alpha", noeq, 1, RFX_EINVAL, NULL,
		   "a condition without '=' is RFX_EINVAL");
	dump_fails(DUMP_WHERE, multi, "alpha", nocolname, 1, RFX_EINVAL, NULL,
		   "a condition without a column is RFX_EINVAL");
	dump_fails(DUMP_WHERE, multi, "alpha", NULL, -1, RFX_EINVAL, NULL,
		   "a negative count is RFX_EINVAL");

	/* A valid HDF5 file without tables or attributes. */
	o = rfx_h5out_open(tpath("none.h5"), &err);
	ok(o && rfx_h5out_commit(o, &err) == RFX_OK, "write a file with nothing");
	snprintf(msg, sizeof(msg),
		 "'%s' has no tables (rfx writes each result as one)",
		 tpath("none.h5"));
	dump_fails(DUMP, tpath("none.h5"), NULL, NULL, 0, RFX_EINVAL, msg,
		   "dumping all its tables is RFX_EINVAL, not empty output");
	ok(dump_text(DUMP_ATTRS, tpath("none.h5"), NULL, NULL, 0, &text, &err) ==
	   RFX_OK && text && !text[0], "its attributes print nothing");
	free(text);
	snprintf(msg, sizeof(msg), "no table 'foo' in '%s' (tables: none)",
		 tpath("none.h5"));
	dump_fails(DUMP, tpath("none.h5"), "foo", NULL, 0, RFX_EINVAL, msg,
		   "asking it for a table says it has none");

	/* Write-side errors: schemas that cannot describe their struct. */
	o = rfx_h5out_open(tpath("bad.h5"), &err);
	ok(o != NULL, "open a file for the bad schemas");
	memcpy(badcols, pcols, sizeof(badcols));
	bad.name = "bad";
	bad.title = "B";
	bad.row_size = sizeof(struct prow);
	bad.ncols = 2;
	bad.cols = badcols;
	badcols[1].size = 4;
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL &&
	   one_line(&err), "a double of size 4 is RFX_EINVAL: %s", err.msg);
	badcols[1].size = sizeof(double);
	badcols[1].offset = sizeof(struct prow);
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL &&
	   one_line(&err), "a column outside the row is RFX_EINVAL: %s",
	   err.msg);
	badcols[1] = pcols[1];
	memset(longname, 'c', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	badcols[0].name = longname;
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL &&
	   one_line(&err), "a 299-character column name is RFX_EINVAL");
	badcols[0] = pcols[0];
	badcols[1].desc = NULL;
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL &&
	   one_line(&err) && strstr(err.msg, "'v' has no description"),
	   "a column without a description is RFX_EINVAL: %s", err.msg);
	badcols[1].desc = "";
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL,
	   "an empty description is RFX_EINVAL too");
	badcols[1] = pcols[1];
	bad.name = "a/b";
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EINVAL &&
	   one_line(&err), "a table name with '/' is RFX_EINVAL: %s", err.msg);
	bad.name = "bad";
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, NULL, 1, &err) == RFX_EINVAL &&
	   one_line(&err), "rows == NULL with nrows > 0 is RFX_EINVAL: %s",
	   err.msg);
	rfx_err_clear(&err);
	memset(full, 'z', sizeof(full));
	ok(rfx_h5out_table(o, &mschema, full, 1, &err) == RFX_EINVAL &&
	   one_line(&err) && strstr(err.msg, "'label'"),
	   "a string filling its column without a NUL is RFX_EINVAL: %s",
	   err.msg);
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_OK,
	   "the fixed schema writes");
	rfx_err_clear(&err);
	ok(rfx_h5out_table(o, &bad, rows, 1, &err) == RFX_EIO && one_line(&err) &&
	   strstr(err.msg, "'bad'"),
	   "a second table of the same name is RFX_EIO: %s", err.msg);
	rfx_h5out_abort(o);
}

/* 7. The where-filter picks rows by their printed text. */
static void test_where(void)
{
	const char *path = tpath("sample.h5");
	const char *const hdr = "x\tk\tn\tlabel\n";
	const struct {
		const char *where[2]; /* the conditions */
		int n;                /* how many */
		const char *rows;     /* the rows expected after the header */
		const char *what;     /* test name */
	} t[] = {
		{ { "k=-3" }, 1,
		  "0.1\t-3\t-9223372036854775807\t\n",
		  "an int column" },
		{ { "label=" }, 1,
		  "0.1\t-3\t-9223372036854775807\t\n",
		  "an empty string" },
		{ { "x=1e-1" }, 1,
		  "0.1\t-3\t-9223372036854775807\t\n",
		  "a double compares by value (1e-1 is 0.1)" },
		{ { "label=x=y" }, 1, "-0\t-1\t42\tx=y\n",
		  "a value containing '=' (split at the first)" },
		{ { "x=-0" }, 1, "-0\t-1\t42\tx=y\n", "a double, as printed" },
		{ { "x=2.3849999999999998" }, 1,
		  "2.385\t-2147483648\t-9223372036854775808\ta b\n",
		  "a double's %.17g text" },
		{ { "x=2.385" }, 1,
		  "2.385\t-2147483648\t-9223372036854775808\ta b\n",
		  "a double's short text" },
		{ { "label=rff", "n=0" }, 2,
		  "1e+300\t0\t0\trff\n", "two conditions" },
		{ { "label=rff", "n=1" }, 2, "", "conflicting conditions" },
		{ { "n=-9223372036854775808" }, 1,
		  "2.385\t-2147483648\t-9223372036854775808\ta b\n",
		  "LONG_MIN, not LONG_MIN + 1 (integers compare exactly)" },
	};
	const char *i2[] = { "i=2" };
	struct rfx_err err;
	char want[512];
	char *text;
	size_t j;

	for (j = 0; j < sizeof(t) / sizeof(t[0]); j++) {
		snprintf(want, sizeof(want), "%s%s", hdr, t[j].rows);
		ok(dump_text(DUMP_WHERE, path, "measure", t[j].where, t[j].n,
			     &text, &err) == RFX_OK, "filter on %s", t[j].what);
		is_text(text, want, "  prints the right rows");
		free(text);
	}
	ok(dump_text(DUMP_WHERE, tpath("multi.h5"), NULL, i2, 1, &text, &err) ==
	   RFX_OK, "filter every table");
	is_text(text,
		"# alpha\ni\tv\n\n\n# beta\ni\tv\n2\t-20.5\n\n\n# empty\ni\tv\n",
		"  each table keeps its header and block");
	free(text);

	/*
	 * Tables of different columns (alpha: i, v; measure: x, k, n,
	 * label): every table filtered means those with the column, the
	 * others left out, and the first printed opens the output without
	 * the blank lines that separate blocks. Before, a condition on a
	 * column one table lacked failed the whole dump.
	 */
	{
		const char *mixed = tpath("mixed.h5");
		struct rfx_schema alpha = { "alpha", "A", sizeof(struct prow), 2,
					    pcols };
		struct prow a[1] = { { 7, 3.25e-7 } };
		struct mrow r[NM];
		const char *k3[] = { "k=-3" }, *both[] = { "i=7", "k=-3" };
		char mmsg[PATH_MAX + 100];
		struct rfx_h5out *o;

		fill_measure(r, 0);
		o = rfx_h5out_open(mixed, &err);
		ok(o && rfx_h5out_table(o, &alpha, a, 1, &err) == RFX_OK &&
		   rfx_h5out_table(o, &mschema, r, NM, &err) == RFX_OK &&
		   rfx_h5out_commit(o, &err) == RFX_OK,
		   "write tables alpha (i, v) and measure (x, k, n, label)");
		ok(dump_text(DUMP_WHERE, mixed, NULL, i2, 1, &text, &err) == RFX_OK,
		   "i=2 on every table: only alpha has i");
		is_text(text, "# alpha\ni\tv\n", "  alpha, no row matches; measure left out");
		free(text);
		ok(dump_text(DUMP_WHERE, mixed, NULL, k3, 1, &text, &err) == RFX_OK,
		   "k=-3 on every table: only measure has k");
		is_text(text, "# measure\nx\tk\tn\tlabel\n0.1\t-3\t-9223372036854775807\t\n",
			"  measure's row, alpha left out, no blank lines first");
		free(text);
		snprintf(mmsg, sizeof(mmsg),
			 "no table in '%s' has every column of the 2 conditions", mixed);
		dump_fails(DUMP_WHERE, mixed, NULL, both, 2, RFX_EINVAL, mmsg,
			   "i=7 and k=-3: no table has both, RFX_EINVAL");
		dump_fails(DUMP_WHERE, mixed, "alpha", k3, 1, RFX_EINVAL,
			   "no column 'k' in table 'alpha'",
			   "a named table without the column is still RFX_EINVAL");
	}
}

/* 8. A file made by H5TBmake_table itself reads back. */
static void test_golden(void)
{
	const char *top = getenv("RFX_TOP");
	char path[PATH_MAX], msg[PATH_MAX + 100], want[1024];
	struct rfx_err err;
	char *text;
	hid_t f;

	snprintf(path, sizeof(path), "%s/tests/data/golden_table.h5",
		 top && top[0] ? top : ".");
	ok(dump_text(DUMP, path, "stations", NULL, 0, &text, &err) == RFX_OK,
	   "dump the golden table: %s", err.msg);
	is_text(text, golden_tsv,
		"it equals the hand-written TSV (string, int, long, float, double)");
	free(text);
	snprintf(want, sizeof(want), "# stations\n%s", golden_tsv);
	ok(dump_text(DUMP, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump every table of the golden file");
	is_text(text, want, "a plain dataset and a group are not tables");
	free(text);
	ok(dump_text(DUMP_ATTRS, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump its root attributes");
	is_text(text, "origin\tH5TBmake_table, HDF5 1.10.8\n", "  they match");
	free(text);
	snprintf(msg, sizeof(msg), "no table 'plain' in '%s' (tables: stations)",
		 path);
	dump_fails(DUMP, path, "plain", NULL, 0, RFX_EINVAL, msg,
		   "a dataset without CLASS=TABLE is no table");
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ok(f >= 0 && has_times(f, "stations") == 1,
	   "control: H5TBmake_table stored timestamps, which has_times sees");
	if (f >= 0)
		H5Fclose(f);
}

/* A row as numpy would store it: unsigned ints, NULL-padded strings. */
struct frow {
	unsigned int u; /* an unsigned column */
	char s[4];      /* 'S4': full strings have no NUL */
};

/*
 * Writes, with plain HDF5 calls, a file rfx would never write: table "u"
 * of the kind above, table "z" with an array column, and root attributes
 * of numeric and variable-length string types. 0 on success.
 */
static int write_foreign(const char *path)
{
	struct frow rows[2] = { { 4294967295u, { 'a', 'b', 'c', 'd' } },
				{ 0, { 'x', 0, 0, 0 } } };
	double zeros[2][3] = { { 0 } };
	double arr[2] = { 1.5, 2.385 };
	int minus7 = -7;
	const char *vs = "h\xc3\xa9llo";
	hsize_t two = 2, three = 3;
	hid_t f, str, ct, ct2, at, sid, did, vst, ssid, aid;
	int bad = 0;

	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	str = H5Tcopy(H5T_C_S1);
	bad |= H5Tset_size(str, 4) < 0;
	bad |= H5Tset_strpad(str, H5T_STR_NULLPAD) < 0;
	ct = H5Tcreate(H5T_COMPOUND, sizeof(struct frow));
	bad |= H5Tinsert(ct, "u", offsetof(struct frow, u), H5T_NATIVE_UINT) < 0;
	bad |= H5Tinsert(ct, "s", offsetof(struct frow, s), str) < 0;
	sid = H5Screate_simple(1, &two, NULL);
	did = H5Dcreate2(f, "u", ct, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bad |= H5Dwrite(did, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
	bad |= H5Dclose(did) < 0;
	bad |= H5LTset_attribute_string(f, "u", "CLASS", "TABLE") < 0;

	at = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
	ct2 = H5Tcreate(H5T_COMPOUND, sizeof(zeros[0]));
	bad |= H5Tinsert(ct2, "v", 0, at) < 0;
	did = H5Dcreate2(f, "z", ct2, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bad |= H5Dwrite(did, ct2, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros) < 0;
	bad |= H5Dclose(did) < 0;
	bad |= H5LTset_attribute_string(f, "z", "CLASS", "TABLE") < 0;

	bad |= H5LTset_attribute_double(f, "/", "arr", arr, 2) < 0;
	bad |= H5LTset_attribute_int(f, "/", "i", &minus7, 1) < 0;
	/* What h5py makes of a Python str attribute. */
	vst = H5Tcopy(H5T_C_S1);
	bad |= H5Tset_size(vst, H5T_VARIABLE) < 0;
	bad |= H5Tset_cset(vst, H5T_CSET_UTF8) < 0;
	ssid = H5Screate(H5S_SCALAR);
	aid = H5Acreate2(f, "vs", vst, ssid, H5P_DEFAULT, H5P_DEFAULT);
	bad |= H5Awrite(aid, vst, &vs) < 0;
	bad |= H5Aclose(aid) < 0;

	H5Sclose(ssid);
	H5Tclose(vst);
	H5Tclose(ct2);
	H5Tclose(at);
	H5Sclose(sid);
	H5Tclose(ct);
	H5Tclose(str);
	bad |= H5Fclose(f) < 0;
	return bad ? -1 : 0;
}

/* Adds a compound attribute, a type the attribute dump cannot print. */
static int add_compound_attr(const char *path)
{
	struct frow v = { 1, { 'a', 0, 0, 0 } };
	hid_t f, ct, sid, aid;
	int bad = 0;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ct = H5Tcreate(H5T_COMPOUND, sizeof(v));
	bad |= H5Tinsert(ct, "u", offsetof(struct frow, u), H5T_NATIVE_UINT) < 0;
	sid = H5Screate(H5S_SCALAR);
	aid = H5Acreate2(f, "zz", ct, sid, H5P_DEFAULT, H5P_DEFAULT);
	bad |= H5Awrite(aid, ct, &v) < 0;
	bad |= H5Aclose(aid) < 0;
	H5Sclose(sid);
	H5Tclose(ct);
	bad |= H5Fclose(f) < 0;
	return bad ? -1 : 0;
}

/* 8b. Tables and attributes rfx does not write, as others do. */
static void test_foreign(void)
{
	const char *path = tpath("foreign.h5");
	char msg[PATH_MAX + 128];
	struct rfx_err err;
	char *text;

	ok(write_foreign(path) == 0, "write a file with foreign types");
	ok(dump_text(DUMP, path, "u", NULL, 0, &text, &err) == RFX_OK,
	   "dump the table of unsigned ints and NULL-padded strings");
	is_text(text, "u\ts\n4294967295\tabcd\n0\tx\n",
		"  a full 'S4' string loses no byte and gains none");
	free(text);
	snprintf(msg, sizeof(msg),
		 "column 'v' of table 'z' in '%s' has a type rfx cannot print",
		 path);
	dump_fails(DUMP, path, "z", NULL, 0, RFX_EFORMAT, msg,
		   "an array column is RFX_EFORMAT");
	dump_fails(DUMP, path, NULL, NULL, 0, RFX_EFORMAT, msg,
		   "also in a dump of all tables, before printing table 'u'");
	ok(dump_text(DUMP_ATTRS, path, NULL, NULL, 0, &text, &err) == RFX_OK,
	   "dump the numeric and variable-length attributes");
	is_text(text, "arr\t1.5,2.3849999999999998\ni\t-7\nvs\th\xc3\xa9llo\n",
		"  arrays comma-separated, UTF-8 kept");
	free(text);
	ok(add_compound_attr(path) == 0, "add a compound attribute");
	ok(dump_text(DUMP_ATTRS, path, NULL, NULL, 0, &text, &err) ==
	   RFX_EFORMAT && err.code == RFX_EFORMAT && one_line(&err) &&
	   strstr(err.msg, "'zz'"),
	   "it is RFX_EFORMAT: %s", err.msg);
	free(text);
}

/*
 * An HDF5 file of another program with no table, only an array and a root
 * attribute (what h5py's f['x'] = numpy.arange(5.0) makes): rfx writes
 * every result as a table, so a dump or describe of the whole file is an
 * error rather than empty output with success. Its attributes are what
 * they are (tested with test_foreign's).
 */
static void test_no_tables(void)
{
	const char *path = tpath("arrays.h5");
	const char *cond[] = { "a=1" };
	double x[5] = { 0, 1, 2, 3, 4 };
	hsize_t five = 5;
	char msg[PATH_MAX + 128];
	hid_t f;
	int bad;

	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	bad = f < 0 || H5LTmake_dataset_double(f, "x", 1, &five, x) < 0 ||
	      H5LTset_attribute_double(f, "/", "arr", x, 2) < 0;
	ok(H5Fclose(f) >= 0 && !bad, "write a file of one array, no table");
	snprintf(msg, sizeof(msg),
		 "'%s' has no tables (rfx writes each result as one)", path);
	dump_fails(DUMP, path, NULL, NULL, 0, RFX_EINVAL, msg,
		   "a dump of every table is RFX_EINVAL");
	dump_fails(DUMP_WHERE, path, NULL, cond, 1, RFX_EINVAL, msg,
		   "  with a condition too");
	dump_fails(DESCRIBE, path, NULL, NULL, 0, RFX_EINVAL, msg,
		   "  and describe");
	snprintf(msg, sizeof(msg), "no table 'x' in '%s' (tables: none)", path);
	dump_fails(DUMP, path, "x", NULL, 0, RFX_EINVAL, msg,
		   "naming the array: no table of that name");
}

/* Runs cmd with sh; 1 if it exited with status 0. */
static int run_ok(const char *cmd)
{
	int st = system(cmd);

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* What /usr/bin/python3 checks: h5py, pandas (PyTables) on the sample. */
static const char pycheck[] =
	"import sys\n"
	"import h5py, pandas\n"
	"p = sys.argv[1]\n"
	"x = [0.1, -1e-300, 1e300, 2.385, -0.0]\n"
	"k = [-3, 2147483647, 0, -2147483648, -1]\n"
	"n = [-9223372036854775807, 1234567890123, 0, -9223372036854775808, 42]\n"
	"s = ['', 'abcdefg', 'rff', 'a b', 'x=y']\n"
	"with h5py.File(p, 'r') as f:\n"
	"    d = f['measure']\n"
	"    assert d.attrs['CLASS'] == b'TABLE', d.attrs['CLASS']\n"
	"    assert list(d.dtype.names) == ['x', 'k', 'n', 'label'], d.dtype\n"
	"    a = d[()]\n"
	"    assert a['x'].tolist() == x, a['x']\n"
	"    assert a['k'].tolist() == k, a['k']\n"
	"    assert a['n'].tolist() == n, a['n']\n"
	"    assert [v.decode() for v in a['label']] == s, a['label']\n"
	"    assert int(f.attrs['seed']) == 2**64 - 1, f.attrs['seed']\n"
	"    assert f.attrs['rng'] == b'mt19937', f.attrs['rng']\n"
	"df = pandas.read_hdf(p, 'measure')\n"
	"assert list(df.columns) == ['x', 'k', 'n', 'label'], df.columns\n"
	"assert len(df) == 5, len(df)\n"
	"assert df['x'].tolist() == x, df['x']\n"
	"assert df['k'].tolist() == k, df['k']\n"
	"assert df['n'].tolist() == n, df['n']\n"
	"assert df['label'].tolist() == s, df['label']\n";

/*
 * 9. Other readers: h5py, pandas.read_hdf and h5dump. Python takes most of
 * a second to start, so it runs in the background while the other tests
 * go on (they only read the sample file): py_start() launches it, or
 * returns NULL when /usr/bin/python3 lacks the modules (*skip set).
 */
static FILE *py_start(int *skip)
{
	const char *py = tpath("check.py");
	char cmd[3 * PATH_MAX];
	FILE *f;

	*skip = !run_ok("/usr/bin/python3 -c 'import h5py, pandas, tables' "
			">/dev/null 2>&1");
	if (*skip)
		return NULL;
	if (!(f = fopen(py, "w")))
		return NULL;
	fputs(pycheck, f);
	fclose(f);
	/* Python's output goes to stderr, away from the TAP stream. */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' 1>&2", py,
		 tpath("sample.h5"));
	return popen(cmd, "r");
}

static void py_finish(FILE *p, int skip)
{
	char cmd[2 * PATH_MAX];
	int st;

	if (skip) {
		ok(1, "# SKIP /usr/bin/python3 lacks h5py, pandas or tables");
	} else {
		st = p ? pclose(p) : -1;
		ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "h5py and pandas.read_hdf read the table and attributes");
	}
	if (!run_ok("command -v h5dump >/dev/null 2>&1")) {
		ok(1, "# SKIP no h5dump");
	} else {
		snprintf(cmd, sizeof(cmd), "h5dump -H '%s' >/dev/null",
			 tpath("sample.h5"));
		ok(run_ok(cmd), "h5dump -H reads the file");
	}
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	FILE *py;
	int skip;

	/* What cli/rfx.c's main does: HDF5 reports through return codes. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

	snprintf(tmpdir, sizeof(tmpdir), "%s/rfx_t_table.XXXXXX",
		 base && base[0] ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("1..0 # SKIP cannot make a scratch directory: %s\n",
		       strerror(errno));
		return 0;
	}

	test_roundtrip();
	py = py_start(&skip);
	test_multi();
	test_attrs();
	test_options();
	test_reproducible();
	test_large();
	test_atomic();
	test_errors();
	test_where();
	test_golden();
	test_foreign();
	test_no_tables();
	py_finish(py, skip);

	remove_dir(tmpdir);
	return done_testing();
}

/*
 * Tests of lib/data/matrix.c, the loader of the user's input files. The
 * test writes every fixture itself at run time: .npy files by its own
 * writer (the format's specification: magic, version, little-endian header
 * length, dict, padding to 64 bytes, raw data) in every header version,
 * dtype, byte order and memory order the loader accepts; text files in
 * each layout; HDF5 datasets through the HDF5 library. Each must load to
 * the rows the test wrote (exact for float64 text written with %.17g and
 * for integers; float32 to the float the test stored). The file's size
 * and SHA-256 are checked against an independent hash of the file. Every
 * bad-file case of issue 16 is provoked and its one-line message is
 * checked to name the file and the row and column.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "data/matrix.h"
#include "npy.h"
#include "tap.h"

#define R 4 /* rows of the test matrix */
#define C 3 /* columns */

static char dir[64];

static const char *tmp(const char *name)
{
	static char buf[4][160];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static int host_little(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* The value at (i, j) of the test matrix for a dtype kind. */
static double value(char kind, int size, int i, int j)
{
	switch (kind) {
	case 'f':
		return 2.385 * (i + 1) - 1.0625 * j + (size == 8 ? 1e-9 * j : 0.0);
	case 'b':
		return (i + j) % 2;
	case 'u':
		/* the largest cell exercises the top bits of the width */
		return (i == R - 1 && j == C - 1) ?
		       (size == 8 ? 18446744073709549568.0 : ldexp(1.0, 8 * size) - 1) :
		       (double)(7 * i + j);
	default:
		return (i == R - 1 && j == C - 1) ?
		       (size == 8 ? -9223372036854775808.0 : -ldexp(1.0, 8 * size - 1)) :
		       (double)(7 * i - 3 * j);
	}
}

/* The double the loader must give for value() stored as kind/size. */
static double expected(char kind, int size, int i, int j)
{
	double v = value(kind, size, i, j);

	return kind == 'f' && size == 4 ? (double)(float)v : v;
}

/* Stores v as kind/size in byte order big into out. */
static void encode(double v, char kind, int size, int big, unsigned char *out)
{
	unsigned char b[8];
	int k;

	if (kind == 'f' && size == 8) {
		memcpy(b, &v, 8);
	} else if (kind == 'f') {
		float f = (float)v;

		memcpy(b, &f, 4);
	} else if (kind == 'u') {
		uint64_t u = size == 8 ? (uint64_t)v : (uint64_t)v & ((1ull << (8 * size)) - 1);

		for (k = 0; k < size; k++)
			b[host_little() ? k : size - 1 - k] = (unsigned char)(u >> (8 * k));
	} else {
		int64_t s = (int64_t)v;
		uint64_t u = (uint64_t)s;

		for (k = 0; k < size; k++)
			b[host_little() ? k : size - 1 - k] = (unsigned char)(u >> (8 * k));
	}
	if (kind == 'b')
		b[0] = v != 0;
	for (k = 0; k < size; k++)
		out[k] = big != !host_little() ? b[size - 1 - k] : b[k];
}

/* The test matrix as a .npy file of the given type and layout. */
static void write_npy(const char *path, int major, char kind, int size,
		      int big, int fortran, int one_d)
{
	unsigned char data[R * C * 8];
	char dict[200], descr[8];
	int i, j, n = 0;

	snprintf(descr, sizeof(descr), "%c%c%d", size == 1 ? '|' : big ? '>' : '<',
		 kind, size);
	if (one_d)
		snprintf(dict, sizeof(dict),
			 "{'descr': '%s', 'fortran_order': %s, 'shape': (%d,), }",
			 descr, fortran ? "True" : "False", C);
	else
		snprintf(dict, sizeof(dict),
			 "{'descr': '%s', 'fortran_order': %s, 'shape': (%d, %d), }",
			 descr, fortran ? "True" : "False", R, C);
	if (one_d)
		for (j = 0; j < C; j++)
			encode(value(kind, size, 0, j), kind, size, big, data + size * n++);
	else if (fortran)
		for (j = 0; j < C; j++)
			for (i = 0; i < R; i++)
				encode(value(kind, size, i, j), kind, size, big,
				       data + size * n++);
	else
		for (i = 0; i < R; i++)
			for (j = 0; j < C; j++)
				encode(value(kind, size, i, j), kind, size, big,
				       data + size * n++);
	write_npy_raw(path, major, dict, data, (size_t)(n * size));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	fputs(text, f);
	fclose(f);
}

/* Whether m holds the test matrix of kind/size (rows rows). */
static int matches(const struct rfx_matrix *m, char kind, int size, int rows)
{
	int i, j;

	if (m->rows != (size_t)rows || m->cols != C || !m->x)
		return 0;
	for (i = 0; i < rows; i++)
		for (j = 0; j < C; j++)
			if (m->x[i * C + j] != expected(kind, size, i, j))
				return 0;
	return 1;
}

/* The file's SHA-256 and size as recorded agree with a separate hash. */
static int provenance_ok(const struct rfx_matrix *m)
{
	char hex[RFX_SHA256_HEX];
	uint64_t size;
	struct stat st;

	return rfx_sha256_file(m->path, hex, &size, NULL) == RFX_OK &&
	       !strcmp(hex, m->sha256) && size == m->size &&
	       stat(m->path, &st) == 0 && (uint64_t)st.st_size == m->size;
}

static void test_npy_round_trips(void)
{
	static const struct { char kind; int size; } types[] = {
		{ 'f', 8 }, { 'f', 4 }, { 'i', 1 }, { 'i', 2 }, { 'i', 4 },
		{ 'i', 8 }, { 'u', 1 }, { 'u', 2 }, { 'u', 4 }, { 'u', 8 },
		{ 'b', 1 },
	};
	int t, major, big, fortran, bad = 0, badprov = 0, count = 0, badconv = 0;
	struct rfx_err err;

	rfx_err_clear(&err);
	for (t = 0; t < (int)(sizeof(types) / sizeof(types[0])); t++)
		for (major = 1; major <= 3; major++)
			for (big = 0; big < 2; big++)
				for (fortran = 0; fortran < 2; fortran++) {
					struct rfx_matrix m;
					const char *p = tmp("rt.npy");

					write_npy(p, major, types[t].kind, types[t].size,
						  big, fortran, 0);
					rfx_err_clear(&err);
					if (rfx_matrix_load(&m, p, NULL, &err) ||
					    !matches(&m, types[t].kind, types[t].size, R)) {
						if (!bad)
							diag("first failure: %c%d v%d big %d fortran %d: %s",
							     types[t].kind, types[t].size, major,
							     big, fortran, err.msg);
						bad++;
					} else {
						badprov += !provenance_ok(&m);
						badconv += m.converted != (types[t].kind != 'f') ||
							   m.format != RFX_MATRIX_NPY;
					}
					count++;
					rfx_matrix_release(&m);
				}
	ok(bad == 0, "%d .npy files (11 dtypes x versions 1.0, 2.0, 3.0 x "
	   "both byte orders x C and Fortran order) load to the rows written",
	   count);
	ok(badprov == 0, "each records the file's size and SHA-256");
	ok(badconv == 0, "integer and boolean dtypes are flagged as converted");

	/* a 1-d array is one row */
	{
		struct rfx_matrix m;
		const char *p = tmp("row.npy");

		write_npy(p, 1, 'f', 8, 0, 0, 1);
		ok(rfx_matrix_load(&m, p, NULL, &err) == RFX_OK && matches(&m, 'f', 8, 1),
		   "a 1-d .npy array is one row of d = %d", C);
		rfx_matrix_release(&m);
	}
}

static void test_text(void)
{
	static const char *const layouts[][2] = {
		{ "csv with header", "a,b,c\n" },
		{ "tsv", "" },
		{ "blank-separated", "" },
		{ "csv, CRLF, comments", "# made by np.savetxt\r\n" },
	};
	struct rfx_err err;
	int l, i, j;

	for (l = 0; l < 4; l++) {
		struct rfx_matrix m;
		char text[4096];
		size_t n = 0;
		const char *p = tmp("rt.txt");

		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", layouts[l][1]);
		for (i = 0; i < R; i++) {
			for (j = 0; j < C; j++)
				n += (size_t)snprintf(text + n, sizeof(text) - n,
						      "%s%.17g", !j ? "" : l == 1 ? "\t" :
						      l == 2 ? "   " : ", ",
						      value('f', 8, i, j));
			n += (size_t)snprintf(text + n, sizeof(text) - n,
					      l == 3 ? "\r\n" : l == 2 ? " \n\n" : "\n");
		}
		write_text(p, text);
		rfx_err_clear(&err);
		ok(rfx_matrix_load(&m, p, NULL, &err) == RFX_OK &&
		   matches(&m, 'f', 8, R) && m.header == (l == 0) &&
		   m.format == RFX_MATRIX_TEXT && provenance_ok(&m),
		   "text, %s: the rows written with %%.17g, exactly (%s)",
		   layouts[l][0], err.msg);
		rfx_matrix_release(&m);
	}

	/* a byte order mark before numbers is not a header */
	{
		struct rfx_matrix m;
		const char *p = tmp("bom.csv");

		write_text(p, "\xef\xbb\xbf" "1.5,2,3\n4,5,6\n");
		rfx_err_clear(&err);
		ok(rfx_matrix_load(&m, p, NULL, &err) == RFX_OK && m.rows == 2 &&
		   m.x[0] == 1.5 && !m.header,
		   "a UTF-8 byte order mark is skipped, the first row kept (%s)", err.msg);
		rfx_matrix_release(&m);
	}

	/*
	 * pandas's to_csv with its index: the header's first field is empty,
	 * its others names; an empty field counts as neither
	 */
	{
		struct rfx_matrix m;
		const char *p = tmp("pd.csv");

		write_text(p, ",a,b\n0,1.5,2\n1,3,4\n");
		rfx_err_clear(&err);
		ok(rfx_matrix_load(&m, p, NULL, &err) == RFX_OK && m.rows == 2 &&
		   m.cols == 3 && m.header && m.x[1] == 1.5 && m.x[5] == 4,
		   "a header of names and an empty field is a header (%s)", err.msg);
		rfx_matrix_release(&m);
		write_text(p, "1,,3\n4,5,6\n");
		rfx_err_clear(&err);
		ok(rfx_matrix_load(&m, p, NULL, &err) == RFX_EFORMAT &&
		   strstr(err.msg, "empty field") && strstr(err.msg, "row 1 column 2"),
		   "numbers and an empty field: data with an empty field (%s)", err.msg);
		rfx_matrix_release(&m);
	}

	/* header forced and forbidden */
	{
		struct rfx_matrix_opts o = { RFX_MATRIX_HEADER_YES, 0, 0 };
		struct rfx_matrix m;
		const char *p = tmp("h.txt");

		write_text(p, "1 2 3\n4 5 6\n");
		ok(rfx_matrix_load(&m, p, &o, &err) == RFX_OK && m.rows == 1 &&
		   m.x[0] == 4 && m.header,
		   "--header takes a numeric first line for the header");
		rfx_matrix_release(&m);
		o.header = RFX_MATRIX_HEADER_NO;
		write_text(p, "x y z\n4 5 6\n");
		rfx_err_clear(&err);
		ok(rfx_matrix_load(&m, p, &o, &err) == RFX_EFORMAT &&
		   strstr(err.msg, "not a number 'x'") &&
		   strstr(err.msg, "row 1 column 1"),
		   "no header allowed: a name is not a number (%s)", err.msg);
	}
}

static void test_labels(void)
{
	struct rfx_matrix_opts o = { RFX_MATRIX_HEADER_AUTO, 2, 0 };
	struct rfx_matrix m;
	struct rfx_err err;
	const char *p = tmp("lab.csv");
	const char *q = tmp("lab.npy");
	double lv[5] = { 10, 2, 10, 7, 2 };
	unsigned char data[5 * 8];
	int k;

	rfx_err_clear(&err);
	write_text(p, "x,cls,y\n1.5,setosa,2\n2.5,virginica,3\n3.5,setosa,4\n");
	ok(rfx_matrix_load(&m, p, &o, &err) == RFX_OK && m.rows == 3 &&
	   m.cols == 2 && m.x[0] == 1.5 && m.x[1] == 2 && m.x[4] == 3.5 &&
	   m.x[5] == 4 && m.nclass == 2 && m.labels[0] == 0 &&
	   m.labels[1] == 1 && m.labels[2] == 0,
	   "--label-column 2 of a csv: names become classes in text order, "
	   "the other columns the rows");
	rfx_matrix_release(&m);

	write_text(p, "1.5 10 2\n2.5 2 3\n3.5 9 4\n");
	ok(rfx_matrix_load(&m, p, &o, &err) == RFX_OK && m.nclass == 3 &&
	   m.labels[0] == 2 && m.labels[1] == 0 && m.labels[2] == 1,
	   "numeric labels are numbered by value (2 < 9 < 10), not by text");
	rfx_matrix_release(&m);

	/* a labels file: .npy vector and text with a header */
	for (k = 0; k < 5; k++)
		encode(lv[k], 'f', 8, 0, data + 8 * k);
	write_npy_raw(q, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }",
		      data, sizeof(data));
	o.label_column = 0;
	o.labels_only = 1;
	ok(rfx_matrix_load(&m, q, &o, &err) == RFX_OK && m.rows == 5 &&
	   m.cols == 0 && !m.x && m.nclass == 3 && m.labels[0] == 2 &&
	   m.labels[1] == 0 && m.labels[3] == 1,
	   "a 1-d .npy labels file is a column of labels (%s)", err.msg);
	rfx_matrix_release(&m);
	write_text(p, "label\n3\n1\n3\n");
	ok(rfx_matrix_load(&m, p, &o, &err) == RFX_OK && m.rows == 3 &&
	   m.header && m.nclass == 2 && m.labels[0] == 1 && m.labels[1] == 0,
	   "a text labels file with a header line (%s)", err.msg);
	rfx_matrix_release(&m);
	o.labels_only = 0;
	o.label_column = 4;
	rfx_err_clear(&err);
	ok(rfx_matrix_load(&m, p, &o, &err) == RFX_EINVAL &&
	   strstr(err.msg, "label column 4"),
	   "a label column outside the rows (%s)", err.msg);
}

static void test_hdf5(void)
{
	const char *p = tmp("in.h5");
	char spec[300];
	double x[R][C];
	float xf[R][C];
	int xi[R][C], i, j;
	hsize_t dims[2] = { R, C }, d1[1] = { C }, d3[3] = { 1, R, C };
	hid_t f, g;
	struct rfx_matrix m;
	struct rfx_err err;
	int pass = 1;

	rfx_err_clear(&err);
	for (i = 0; i < R; i++)
		for (j = 0; j < C; j++) {
			x[i][j] = value('f', 8, i, j);
			xf[i][j] = (float)value('f', 4, i, j);
			xi[i][j] = (int)value('i', 2, i, j);
		}
	f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	g = H5Gcreate2(f, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5LTmake_dataset_double(f, "/g/x", 2, dims, &x[0][0]);
	H5LTmake_dataset_float(f, "/xf", 2, dims, &xf[0][0]);
	H5LTmake_dataset_int(f, "/xi", 2, dims, &xi[0][0]);
	H5LTmake_dataset_double(f, "/row", 1, d1, &x[0][0]);
	H5LTmake_dataset_double(f, "/cube", 3, d3, &x[0][0]);
	H5LTmake_dataset_string(f, "/s", "abc");
	x[1][2] = NAN;
	H5LTmake_dataset_double(f, "/nan", 2, dims, &x[0][0]);
	H5Gclose(g);
	H5Fclose(f);

	snprintf(spec, sizeof(spec), "%s:/g/x", p);
	pass = rfx_matrix_load(&m, spec, NULL, &err) == RFX_OK &&
	       matches(&m, 'f', 8, R) && m.format == RFX_MATRIX_HDF5 &&
	       !strcmp(m.dataset, "/g/x") && provenance_ok(&m);
	ok(pass, "FILE.h5:/g/x, a double dataset in a group (%s)", err.msg);
	rfx_matrix_release(&m);
	snprintf(spec, sizeof(spec), "%s:/xf", p);
	ok(rfx_matrix_load(&m, spec, NULL, &err) == RFX_OK && matches(&m, 'f', 4, R),
	   "a float dataset");
	rfx_matrix_release(&m);
	snprintf(spec, sizeof(spec), "%s:/xi", p);
	ok(rfx_matrix_load(&m, spec, NULL, &err) == RFX_OK &&
	   matches(&m, 'i', 2, R) && m.converted,
	   "an int dataset, converted");
	rfx_matrix_release(&m);
	snprintf(spec, sizeof(spec), "%s:/row", p);
	ok(rfx_matrix_load(&m, spec, NULL, &err) == RFX_OK && matches(&m, 'f', 8, 1),
	   "a 1-d dataset is one row");
	rfx_matrix_release(&m);
}

/*
 * The bad files: each fails with the expected code and a message that
 * contains every one of the given fragments (file name, row, column).
 */
struct bad {
	const char *what;   /* the case */
	const char *name;   /* file in dir */
	const char *text;   /* its contents (text cases), or NULL */
	const char *spec;   /* the spec after the directory, when not name */
	int code;
	const char *frag[3];
};

static void check_bad(const char *what, const char *spec, int code,
		      const char *const frag[3], const struct rfx_matrix_opts *o)
{
	struct rfx_matrix m;
	struct rfx_err err;
	int pass, k, got;

	rfx_err_clear(&err);
	got = rfx_matrix_load(&m, spec, o, &err);
	pass = got == code && m.x == NULL && m.rows == 0 && !strchr(err.msg, '\n');
	for (k = 0; k < 3 && frag[k]; k++)
		pass = pass && strstr(err.msg, frag[k]) != NULL;
	ok(pass, "%s: %s", what, err.msg);
	if (!pass)
		diag("    code %d, want %d", got, code);
	rfx_matrix_release(&m);
}

static void test_bad_text(void)
{
	static const struct bad cases[] = {
		{ "NaN", "nan.csv", "1,2,3\n4,nan,6\n", NULL, RFX_EFORMAT,
		  { "nan.csv'", "row 2 column 2", "non-finite" } },
		{ "Inf", "inf.txt", "1 2 3\n4 5 -inf\n", NULL, RFX_EFORMAT,
		  { "inf.txt'", "row 2 column 3", "non-finite" } },
		{ "overflow", "big.txt", "1 2 3\n4 5 1e999\n", NULL, RFX_EFORMAT,
		  { "big.txt'", "row 2 column 3", "non-finite" } },
		{ "ragged rows", "ragged.csv", "a,b,c\n1,2,3\n4,5\n", NULL,
		  RFX_EFORMAT, { "ragged.csv'", "row 2 has 2 columns", "line 3" } },
		{ "no rows (empty file)", "empty.csv", "", NULL, RFX_EFORMAT,
		  { "no rows in '", "empty.csv'", NULL } },
		{ "no rows (a header only)", "hdr.csv", "a,b,c\n", NULL,
		  RFX_EFORMAT, { "no rows in '", "hdr.csv'", NULL } },
		{ "non-UTF-8 text", "latin1.csv", "1,2,3\n4,5,6 \xe9\n", NULL,
		  RFX_EFORMAT, { "invalid UTF-8", "latin1.csv' line 2", "byte 7" } },
		{ "not a number", "word.csv", "1,2,3\n4,five,6\n", NULL,
		  RFX_EFORMAT, { "not a number 'five'", "row 2 column 2", "line 2" } },
		{ "empty field", "hole.csv", "1,2,3\n4,,6\n", NULL, RFX_EFORMAT,
		  { "empty field", "word.csv", NULL } },
		/* a typo in the first row is not a header: it would drop the row */
		{ "first line of names and numbers", "typo.csv", "1,2x,3\n4,5,6\n",
		  NULL, RFX_EFORMAT,
		  { "first line of '", "typo.csv' mixes names and numbers",
		    "('2x' in column 2 is not a number)" } },
		{ "  a name first", "half.csv", "x1,2,3\n4,5,6\n", NULL, RFX_EFORMAT,
		  { "mixes names and numbers", "('x1' in column 1", NULL } },
		{ "missing file", NULL, NULL, "no-such-file.csv", RFX_EIO,
		  { "cannot open '", "no-such-file.csv'", NULL } },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct bad *b = &cases[k];
		const char *frag[3] = { b->frag[0], b->frag[1], b->frag[2] };

		if (b->text)
			write_text(tmp(b->name), b->text);
		if (!strcmp(b->what, "empty field"))
			frag[1] = "hole.csv' row 2 column 2";
		check_bad(b->what, tmp(b->name ? b->name : b->spec), b->code, frag,
			  NULL);
	}
	{
		const char *frag[3] = { "is a directory", NULL, NULL };

		check_bad("a directory", dir, RFX_EIO, frag, NULL);
	}
}

static void test_bad_npy(void)
{
	static const struct {
		const char *what, *dict;
		size_t nbytes;
		const char *frag[3];
	} cases[] = {
		{ "complex dtype", "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 2), }",
		  64, { "unsupported dtype '<c16'", "(complex)", NULL } },
		{ "object dtype", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
		  16, { "unsupported dtype '|O'", "(object)", NULL } },
		{ "structured dtype", "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }",
		  24, { "unsupported dtype", "(structured)", NULL } },
		{ "float16", "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
		  4, { "unsupported dtype '<f2'", "float16", NULL } },
		{ "string dtype", "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
		  24, { "unsupported dtype '<U3'", "string", NULL } },
		{ "3-d array", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }",
		  64, { "3-d array", NULL, NULL } },
		{ "0 rows", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }",
		  0, { "no rows in '", "shape (0, 3)", NULL } },
		{ "0 columns", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 0), }",
		  0, { "no columns in '", "shape (3, 0)", NULL } },
		{ "truncated body", "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }",
		  80, { "truncated data in '", "needs 96 bytes, the file has 80", NULL } },
		{ "header lies (bytes after the data)", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
		  56, { "has 8 bytes after the shape (2, 3)", NULL, NULL } },
		{ "header lies (huge shape)", "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000), }",
		  48, { "truncated data in '", NULL, NULL } },
		{ "header without shape", "{'descr': '<f8', 'fortran_order': False, }",
		  48, { "lacks 'shape'", NULL, NULL } },
		{ "header not a dict", "not a dict at all", 8, { "bad .npy header", NULL, NULL } },
	};
	unsigned char data[128];
	const char *p = tmp("bad.npy");
	size_t k;

	memset(data, 0, sizeof(data));
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *frag[3] = { "bad.npy'", cases[k].frag[0], cases[k].frag[1] };

		write_npy_raw(p, 1, cases[k].dict, data, cases[k].nbytes);
		check_bad(cases[k].what, p, RFX_EFORMAT, frag, NULL);
	}

	/* a version this loader does not know, and a file cut in the header */
	write_npy_raw(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
		      data, 8);
	{
		FILE *f = fopen(p, "r+b");
		const char *frag[3] = { "unsupported .npy version 4.0", "bad.npy'", NULL };

		fseek(f, 6, SEEK_SET);
		fputc(4, f);
		fclose(f);
		check_bad("version 4.0", p, RFX_EFORMAT, frag, NULL);
		write_npy_raw(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
			      data, 8);
		if (truncate(p, 30) != 0)
			diag("cannot truncate %s", p);
		frag[0] = "truncated .npy header";
		check_bad("a file cut inside the header", p, RFX_EFORMAT, frag, NULL);
	}

	/* NaN and Inf: row and column in both memory orders */
	{
		double v[R * C];
		unsigned char raw[R * C * 8];
		int i, j, fortran;

		for (fortran = 0; fortran < 2; fortran++) {
			const char *frag[3] = { "bad.npy'", "row 2 column 3", "non-finite" };
			char dict[128];
			int n = 0;

			for (i = 0; i < R; i++)
				for (j = 0; j < C; j++)
					v[i * C + j] = i == 1 && j == 2 ?
						       (fortran ? INFINITY : NAN) : 1.0;
			if (fortran) {
				for (j = 0; j < C; j++)
					for (i = 0; i < R; i++)
						encode(v[i * C + j], 'f', 8, 1, raw + 8 * n++);
			} else {
				for (i = 0; i < R * C; i++)
					encode(v[i], 'f', 8, 1, raw + 8 * n++);
			}
			snprintf(dict, sizeof(dict),
				 "{'descr': '>f8', 'fortran_order': %s, 'shape': (%d, %d), }",
				 fortran ? "True" : "False", R, C);
			write_npy_raw(p, 2, dict, raw, sizeof(raw));
			check_bad(fortran ? "Inf in a Fortran-order, big-endian file" :
				  "NaN in a big-endian file", p, RFX_EFORMAT, frag, NULL);
		}
	}
}

static void test_bad_hdf5(void)
{
	const char *p = tmp("in.h5");
	char spec[300];
	const char *frag[3] = { NULL, NULL, NULL };

	snprintf(spec, sizeof(spec), "%s:/nope", p);
	frag[0] = "no dataset '/nope' in '";
	check_bad("hdf5: a dataset that is not there", spec, RFX_EINVAL, frag, NULL);
	snprintf(spec, sizeof(spec), "%s:/g", p);
	frag[0] = "'/g' in '";
	frag[1] = "is not a dataset";
	check_bad("hdf5: a group", spec, RFX_EINVAL, frag, NULL);
	snprintf(spec, sizeof(spec), "%s:/s", p);
	frag[0] = "unsupported type of '";
	frag[1] = "in.h5:/s' (string), want float or integer";
	check_bad("hdf5: a string dataset", spec, RFX_EFORMAT, frag, NULL);
	snprintf(spec, sizeof(spec), "%s:/cube", p);
	frag[0] = "in.h5:/cube' has 3 dimensions";
	frag[1] = NULL;
	check_bad("hdf5: 3 dimensions", spec, RFX_EFORMAT, frag, NULL);
	snprintf(spec, sizeof(spec), "%s:/nan", p);
	frag[0] = "non-finite value 'nan' in '";
	frag[1] = "in.h5:/nan' row 2 column 3";
	check_bad("hdf5: NaN", spec, RFX_EFORMAT, frag, NULL);
	frag[0] = "is an HDF5 file: name a dataset";
	frag[1] = NULL;
	check_bad("hdf5 file without a dataset", p, RFX_EINVAL, frag, NULL);
	write_text(tmp("plain.h5"), "1 2 3\n");
	snprintf(spec, sizeof(spec), "%s:/x", tmp("plain.h5"));
	frag[0] = "plain.h5' is not an HDF5 file";
	check_bad("a text file named as HDF5", spec, RFX_EFORMAT, frag, NULL);
	snprintf(spec, sizeof(spec), "%s:/x", tmp("none.h5"));
	frag[0] = "cannot open '";
	frag[1] = "none.h5': No such file";
	check_bad("a missing HDF5 file", spec, RFX_EIO, frag, NULL);
}

static void test_same_cols(void)
{
	struct rfx_matrix a, b;
	struct rfx_err err;

	write_text(tmp("a.txt"), "1 2 3\n");
	write_text(tmp("b.txt"), "1 2\n");
	rfx_matrix_load(&a, tmp("a.txt"), NULL, &err);
	rfx_matrix_load(&b, tmp("b.txt"), NULL, &err);
	rfx_err_clear(&err);
	ok(rfx_matrix_check_same_cols(&a, &b, &err) == RFX_EINVAL &&
	   strstr(err.msg, "b.txt' has d = 2 but '") &&
	   strstr(err.msg, "a.txt' has d = 3"),
	   "X and Y of different d: %s", err.msg);
	ok(rfx_matrix_check_same_cols(&a, &a, &err) == RFX_OK, "the same d passes");
	rfx_matrix_release(&a);
	rfx_matrix_release(&b);
	rfx_matrix_release(&b);
	rfx_matrix_release(NULL);
	ok(b.x == NULL && b.spec == NULL, "release twice and release(NULL) are safe");
}

int main(void)
{
	char cmd[100];

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(dir, sizeof(dir), "%s/t_matrix.XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 32 ?
		 getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		skip_all("cannot make a temporary directory");
	test_npy_round_trips();
	test_text();
	test_labels();
	test_hdf5();
	test_bad_text();
	test_bad_npy();
	test_bad_hdf5();
	test_same_cols();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return done_testing();
}

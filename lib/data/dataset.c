/*
 * Datasets for the MSE tables: a catalogue of the shipped files, a small
 * text reader (zlib's gzgets reads plain and gzip files alike), MNIST
 * through lib/data/images, normalisation, padding and the nearest-neighbour
 * bandwidth.
 */
#include "data/dataset.h"
#include "base/infile.h"
#include "base/suggest.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cblas.h>

#include "num/blas.h"
#include "data/images.h"

#define MAX_FIELDS 300    /* usps has 257 */
#define LINE_MAX_LEN 65536

static const struct {
	const char *name;
	const char *file;
	int header;        /* lines to skip */
	int nfields;       /* fields per data line; 0: MNIST idx */
	int drop[2];       /* 1-based columns left out (0: none) */
	int label;         /* 1-based column of the class label (0: none) */
	const char *test;  /* the separate test file, or NULL */
	const char *labels; /* idx1 labels of an idx3 set, or NULL */
} catalogue[] = {
	{ "wine", "wine.csv", 0, 14, { 14, 0 }, 0, NULL, NULL },
	{ "boston", "boston_housing.csv", 0, 14, { 14, 0 }, 0, NULL, NULL },
	{ "letter", "letter-recognition.data", 0, 17, { 1, 0 }, 1, NULL, NULL },
	{ "usps", "usps_zip.train.gz", 0, 257, { 1, 0 }, 1, "usps_zip.test.gz",
	  NULL },
	{ "mnist", "t10k-images-idx3-ubyte.gz", 0, 0, { 0, 0 }, 0, NULL,
	  "t10k-labels-idx1-ubyte.gz" },
	{ "wifi", "wifi_localization.txt", 0, 8, { 8, 0 }, 0, NULL, NULL },
	{ "abalone", "abalone.csv", 0, 9, { 1, 9 }, 0, NULL, NULL },
	{ "banknote", "banknote.txt", 1, 5, { 5, 0 }, 0, NULL, NULL },
	{ "optdigits", "optdigits.tra", 0, 65, { 65, 0 }, 0, NULL, NULL },
	{ "yeast", "yeast.data", 1, 10, { 1, 10 }, 0, NULL, NULL },
	{ NULL, NULL, 0, 0, { 0, 0 }, 0, NULL, NULL }
};

int rfx_dataset_index(const char *name)
{
	int i;

	for (i = 0; name && catalogue[i].name; i++)
		if (!strcmp(name, catalogue[i].name))
			return i;
	return -1;
}

void rfx_dataset_free(struct rfx_dataset *ds)
{
	if (!ds)
		return;
	free(ds->X);
	free(ds->y);
	free(ds);
}

static struct rfx_dataset *ds_alloc(const char *name, size_t n, int d)
{
	struct rfx_dataset *ds = calloc(1, sizeof(*ds));

	if (!ds)
		return NULL;
	snprintf(ds->name, sizeof(ds->name), "%s", name);
	ds->n = n;
	ds->d = d;
	ds->X = malloc((n ? n : 1) * (size_t)d * sizeof(double));
	if (!ds->X) {
		free(ds);
		return NULL;
	}
	return ds;
}

struct rfx_dataset *rfx_dataset_from(const char *name, const double *X,
				     size_t n, int d, struct rfx_err *err)
{
	struct rfx_dataset *ds;

	if (n < 1 || d < 1 || !X) {
		rfx_error(err, RFX_EINVAL, "a dataset needs inputs and d >= 1");
		return NULL;
	}
	ds = ds_alloc(name, n, d);
	if (!ds) {
		rfx_error(err, RFX_ENOMEM, "out of memory for %zu x %d inputs", n, d);
		return NULL;
	}
	memcpy(ds->X, X, n * (size_t)d * sizeof(double));
	return ds;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Splits line in place into fields and returns their count (counting stops
 * after max + 1). A line with a comma is comma-separated, each field
 * trimmed of blanks (so ",," gives an empty field); otherwise fields are
 * separated by runs of blanks. A blank line has no fields.
 */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	if (strchr(line, ',')) {
		for (;;) {
			char *e;

			while (blank(*p))
				p++;
			e = p;
			while (*e && *e != ',')
				e++;
			if (n <= max)
				f[n] = p;
			n++;
			if (!*e) {
				while (e > p && blank(e[-1]))
					e--;
				*e = '\0';
				return n;
			}
			{
				char *t = e;

				while (t > p && blank(t[-1]))
					t--;
				*t = '\0';
			}
			p = e + 1;
			if (n > max)
				return n;
		}
	}
	for (;;) {
		while (blank(*p))
			p++;
		if (!*p || n > max)
			return n;
		f[n++] = p;
		while (*p && !blank(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int dropped(int c, const int drop[2])
{
	return c + 1 == drop[0] || c + 1 == drop[1];
}

/*
 * After gzgets() returned NULL: RFX_OK at the end of the data, else the
 * error, in words that say whether the file was cut short (Z_BUF_ERROR,
 * "unexpected end of file"), damaged (a bad deflate stream or CRC, "incorrect
 * data check") or unreadable. zlib prefixes its messages with the path,
 * which the message quotes already.
 */
static int gz_failed(gzFile f, const char *path, struct rfx_err *err)
{
	int errnum;
	const char *m = gzerror(f, &errnum);
	size_t len = strlen(path);

	if (errnum == Z_OK || errnum == Z_STREAM_END)
		return RFX_OK;
	if (m && !strncmp(m, path, len) && !strncmp(m + len, ": ", 2))
		m += len + 2;
	if (!m)
		m = "unknown zlib error";
	if (errnum == Z_ERRNO)
		return rfx_error(err, RFX_EIO, "cannot read '%s': %s", path,
				 strerror(errno));
	if (errnum == Z_MEM_ERROR)
		return rfx_error(err, RFX_ENOMEM, "out of memory reading '%s'", path);
	if (errnum == Z_BUF_ERROR)
		return rfx_error(err, RFX_EFORMAT, "truncated '%s': gzip: %s", path, m);
	return rfx_error(err, RFX_EFORMAT, "corrupt gzip data in '%s': %s", path, m);
}

/*
 * A class label: a letter A..Z is 0..25 (letter's), anything else must be
 * an integer in 0..255 (usps writes its digits as 6.0000).
 */
static int parse_label(const char *s, int *out)
{
	char *end;
	double v;

	if (s[0] >= 'A' && s[0] <= 'Z' && !s[1]) {
		*out = s[0] - 'A';
		return 0;
	}
	v = strtod(s, &end);
	if (end == s || *end || !(v >= 0.0 && v <= 255.0) || v != floor(v))
		return -1;
	*out = (int)v;
	return 0;
}

static struct rfx_dataset *load_text(int ci, const char *path, int labels,
				     struct rfx_err *err)
{
	gzFile f = NULL;
	char *line = NULL, *fields[MAX_FIELDS + 1];
	double *X = NULL;
	int *y = NULL;
	size_t n = 0, cap = 0;
	int nf = catalogue[ci].nfields, d = 0, c, lineno = 0;
	struct rfx_dataset *ds = NULL;

	for (c = 0; c < nf; c++)
		d += !dropped(c, catalogue[ci].drop);
	if (rfx_infile_check(path, err))
		return NULL;
	f = gzopen(path, "rb");
	if (!f) {
		rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
			  errno ? strerror(errno) : "out of memory");
		return NULL;
	}
	line = malloc(LINE_MAX_LEN);
	if (!line) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	while (gzgets(f, line, LINE_MAX_LEN)) {
		size_t len = strlen(line);
		int got, k;

		lineno++;
		if (len == LINE_MAX_LEN - 1 && line[len - 1] != '\n') {
			rfx_error(err, RFX_EFORMAT, "'%s' line %d: longer than %d bytes",
				  path, lineno, LINE_MAX_LEN - 2);
			goto out;
		}
		/*
		 * A last line without its newline may be where a gzip stream
		 * was cut: say so rather than blame the line's fields.
		 */
		if ((len == 0 || line[len - 1] != '\n') && gz_failed(f, path, err))
			goto out;
		if (lineno <= catalogue[ci].header)
			continue;
		got = split(line, fields, MAX_FIELDS);
		if (got == 0)
			continue;
		if (got != nf) {
			rfx_error(err, RFX_EFORMAT,
				  "'%s' line %d: expected %d fields, got %s%d", path,
				  lineno, nf, got > MAX_FIELDS ? "more than " : "",
				  got > MAX_FIELDS ? MAX_FIELDS : got);
			goto out;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 1024;
			double *nx = realloc(X, nc * (size_t)d * sizeof(double));
			int *ny = labels ? realloc(y, nc * sizeof(int)) : NULL;

			if (nx)
				X = nx;
			if (ny)
				y = ny;
			if (!nx || (labels && !ny)) {
				rfx_error(err, RFX_ENOMEM, "out of memory reading '%s'", path);
				goto out;
			}
			cap = nc;
		}
		if (labels && parse_label(fields[catalogue[ci].label - 1], &y[n])) {
			rfx_error(err, RFX_EFORMAT,
				  "'%s' line %d field %d: not a class label: '%.40s'",
				  path, lineno, catalogue[ci].label,
				  fields[catalogue[ci].label - 1]);
			goto out;
		}
		for (c = 0, k = 0; c < nf; c++) {
			char *end;
			double v;

			if (dropped(c, catalogue[ci].drop))
				continue;
			errno = 0;
			v = strtod(fields[c], &end);
			if (end == fields[c] || *end || !isfinite(v)) {
				rfx_error(err, RFX_EFORMAT,
					  "'%s' line %d field %d: not a finite number: '%.40s'",
					  path, lineno, c + 1, fields[c]);
				goto out;
			}
			X[n * (size_t)d + (size_t)k++] = v;
		}
		n++;
	}
	if (gz_failed(f, path, err))
		goto out;
	if (n == 0) {
		rfx_error(err, RFX_EFORMAT, "'%s' has no data lines", path);
		goto out;
	}
	ds = calloc(1, sizeof(*ds));
	if (!ds) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(ds->name, sizeof(ds->name), "%s", catalogue[ci].name);
	ds->n = n;
	ds->d = d;
	ds->X = X;
	ds->y = y;
	X = NULL;
	y = NULL;
out:
	gzclose(f);
	free(line);
	free(X);
	free(y);
	return ds;
}

struct rfx_dataset *rfx_dataset_load(const char *name, const char *dir,
				     struct rfx_err *err)
{
	int ci = rfx_dataset_index(name);
	char path[4096], hint[96];

	if (ci < 0) {
		rfx_suggest_phrase_list(name ? name : "", RFX_DATASET_NAMES, hint,
					sizeof(hint));
		rfx_error(err, RFX_EINVAL, "unknown dataset '%s'%s (valid: %s)",
			  name ? name : "", hint, RFX_DATASET_NAMES);
		return NULL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".",
			     catalogue[ci].file) >= sizeof(path)) {
		rfx_error(err, RFX_EINVAL, "data directory name too long");
		return NULL;
	}
	if (catalogue[ci].nfields == 0) {
		struct rfx_images *im = rfx_images_load_idx(path, err);
		struct rfx_dataset *ds;

		if (!im)
			return NULL;
		ds = rfx_dataset_from(name, im->pix, im->n, im->rows * im->cols, err);
		rfx_images_free(im);
		return ds;
	}
	return load_text(ci, path, 0, err);
}

/* The number of classes: one more than the largest label. */
static void count_classes(struct rfx_dataset *ds)
{
	size_t i;

	ds->nclass = 0;
	for (i = 0; i < ds->n; i++)
		ds->nclass = ds->y[i] >= ds->nclass ? ds->y[i] + 1 : ds->nclass;
}

struct rfx_dataset *rfx_dataset_load_labelled(const char *name, const char *dir,
					      int test, struct rfx_err *err)
{
	int ci = rfx_dataset_index(name);
	const char *file;
	char path[4096], hint[96];
	struct rfx_dataset *ds;

	if (ci < 0) {
		rfx_suggest_phrase_list(name ? name : "", RFX_DATASET_NAMES, hint,
					sizeof(hint));
		rfx_error(err, RFX_EINVAL, "unknown dataset '%s'%s (valid: %s)",
			  name ? name : "", hint, RFX_DATASET_NAMES);
		return NULL;
	}
	if (!catalogue[ci].label && !catalogue[ci].labels) {
		rfx_error(err, RFX_EINVAL, "dataset '%s' has no class labels here",
			  name);
		return NULL;
	}
	if (test && !catalogue[ci].test) {
		rfx_error(err, RFX_EINVAL, "dataset '%s' has no separate test file",
			  name);
		return NULL;
	}
	file = test ? catalogue[ci].test : catalogue[ci].file;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", file) >=
	    sizeof(path)) {
		rfx_error(err, RFX_EINVAL, "data directory name too long");
		return NULL;
	}
	if (catalogue[ci].label) {
		ds = load_text(ci, path, 1, err);
	} else {
		size_t nl = 0;

		ds = rfx_dataset_load(name, dir, err);
		if (!ds)
			return NULL;
		snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".",
			 catalogue[ci].labels);
		ds->y = rfx_images_load_labels(path, &nl, err);
		if (ds->y && nl != ds->n) {
			rfx_error(err, RFX_EFORMAT, "'%s' has %zu labels for %zu images",
				  path, nl, ds->n);
			rfx_dataset_free(ds);
			return NULL;
		}
		if (!ds->y) {
			rfx_dataset_free(ds);
			return NULL;
		}
	}
	if (ds)
		count_classes(ds);
	return ds;
}

static const char *const norm_names[] = { "none", "zscore", "unit", "ball",
					  "minmax" };

int rfx_norm_parse(const char *name, enum rfx_norm *out, struct rfx_err *err)
{
	int i;

	for (i = 0; i < 5 && name; i++)
		if (!strcmp(name, norm_names[i])) {
			*out = (enum rfx_norm)i;
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL, "unknown normalisation '%s' (valid: %s)",
			 name ? name : "", RFX_NORM_NAMES);
}

const char *rfx_norm_name(enum rfx_norm k)
{
	return (unsigned)k < 5 ? norm_names[k] : "unknown";
}

/* Column c to (x - a)/s, or to 0 when s = 0. */
static void affine_col(struct rfx_dataset *ds, int c, double a, double s)
{
	size_t i;

	for (i = 0; i < ds->n; i++) {
		double *x = &ds->X[i * (size_t)ds->d + (size_t)c];

		*x = s > 0.0 ? (*x - a) / s : 0.0;
	}
}

static void zscore_cols(struct rfx_dataset *ds)
{
	int c;

	for (c = 0; c < ds->d; c++) {
		double m = 0.0, v = 0.0;
		size_t i;

		for (i = 0; i < ds->n; i++)
			m += ds->X[i * (size_t)ds->d + (size_t)c];
		m /= (double)ds->n;
		for (i = 0; i < ds->n; i++) {
			double t = ds->X[i * (size_t)ds->d + (size_t)c] - m;

			v += t * t;
		}
		v /= (double)ds->n;
		/* a column constant up to rounding is constant */
		affine_col(ds, c, m, v > 1e-28 * (m * m + 1e-300) ? sqrt(v) : 0.0);
	}
}

static void scale_rows(struct rfx_dataset *ds, int each, double s)
{
	size_t i;
	int l;

	for (i = 0; i < ds->n; i++) {
		double *x = ds->X + i * (size_t)ds->d, f = s;

		if (each) {
			double q = 0.0;

			for (l = 0; l < ds->d; l++)
				q += x[l] * x[l];
			f = q > 0.0 ? 1.0 / sqrt(q) : 0.0;
		}
		for (l = 0; l < ds->d; l++)
			x[l] *= f;
	}
}

double rfx_dataset_max_norm2(const struct rfx_dataset *ds)
{
	double m = 0.0;
	size_t i;
	int l;

	for (i = 0; i < ds->n; i++) {
		const double *x = ds->X + i * (size_t)ds->d;
		double q = 0.0;

		for (l = 0; l < ds->d; l++)
			q += x[l] * x[l];
		m = q > m ? q : m;
	}
	return m;
}

void rfx_dataset_normalize(struct rfx_dataset *ds, enum rfx_norm k)
{
	int c;

	switch (k) {
	case RFX_NORM_ZSCORE:
		zscore_cols(ds);
		scale_rows(ds, 0, 1.0 / sqrt((double)ds->d));
		break;
	case RFX_NORM_UNIT:
		zscore_cols(ds);
		scale_rows(ds, 1, 1.0);
		break;
	case RFX_NORM_BALL: {
		double m;

		zscore_cols(ds);
		m = rfx_dataset_max_norm2(ds);
		scale_rows(ds, 0, m > 0.0 ? 1.0 / sqrt(m) : 0.0);
		break;
	}
	case RFX_NORM_MINMAX:
		for (c = 0; c < ds->d; c++) {
			double lo = HUGE_VAL, hi = -HUGE_VAL;
			size_t i;

			for (i = 0; i < ds->n; i++) {
				double x = ds->X[i * (size_t)ds->d + (size_t)c];

				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
			affine_col(ds, c, lo, hi > lo ? hi - lo : 0.0);
		}
		scale_rows(ds, 0, 1.0 / sqrt((double)ds->d));
		break;
	default:
		break;
	}
}

int rfx_dataset_pad(struct rfx_dataset *ds, int d, struct rfx_err *err)
{
	double *X;
	size_t i;

	if (d < ds->d)
		return rfx_error(err, RFX_EINVAL,
				 "cannot pad %d-dimensional inputs to d = %d", ds->d, d);
	if (d == ds->d)
		return RFX_OK;
	X = calloc(ds->n * (size_t)d, sizeof(double));
	if (!X)
		return rfx_error(err, RFX_ENOMEM, "out of memory padding to d = %d", d);
	for (i = 0; i < ds->n; i++)
		memcpy(X + i * (size_t)d, ds->X + i * (size_t)ds->d,
		       (size_t)ds->d * sizeof(double));
	free(ds->X);
	ds->X = X;
	ds->d = d;
	return RFX_OK;
}

/* Sampled inputs per distance block (a 128 x n block of distances). */
#define NN_BLOCK 128

/*
 * The k-th smallest of the n - 1 squared distances in row (excluding
 * index self), with a sorted buffer best[k] of the smallest so far.
 */
static double kth_smallest(const double *row, size_t n, size_t self, int k,
			   double *best)
{
	int m = 0, j;
	size_t i;

	for (i = 0; i < n; i++) {
		double v = row[i];

		if (i == self || (m == k && v >= best[k - 1]))
			continue;
		j = m < k ? m++ : k - 1;
		while (j > 0 && best[j - 1] > v) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = v;
	}
	return best[k - 1];
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

int rfx_dataset_nn_sigma(const struct rfx_dataset *ds, int k, size_t nsample,
			 const gsl_rng *r, double *sigma, struct rfx_err *err)
{
	size_t n = ds->n, ns = nsample < n ? nsample : n, b, nb, i;
	size_t *all = NULL, *pick = NULL;
	double *norm2 = NULL, *dist = NULL, *best = NULL, *Q = NULL, total = 0.0;
	int d = ds->d, ret = RFX_OK, saved;

	if (k < 1 || nsample < 1)
		return rfx_error(err, RFX_EINVAL,
				 "the %d-th nearest neighbour needs k >= 1 and a sample", k);
	/* the data's fault, not the command line's: a run-time error */
	if (n < 2 || (size_t)k > n - 1)
		return rfx_error(err, RFX_EFORMAT,
				 "%s: %zu input%s too few for a bandwidth from the "
				 "%d-th nearest neighbour (--nn-k)", ds->name, n,
				 n == 1 ? " is" : "s are", k);
	all = malloc(n * sizeof(size_t));
	pick = malloc(ns * sizeof(size_t));
	norm2 = malloc(n * sizeof(double));
	dist = malloc(NN_BLOCK * n * sizeof(double));
	best = malloc((size_t)k * sizeof(double));
	Q = malloc(NN_BLOCK * (size_t)d * sizeof(double));
	if (!all || !pick || !norm2 || !dist || !best || !Q) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for the bandwidth");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const double *x = ds->X + i * (size_t)d;
		double q = 0.0;
		int l;

		all[i] = i;
		for (l = 0; l < d; l++)
			q += x[l] * x[l];
		norm2[i] = q;
	}
	/* ns distinct inputs: the first ns of a partial Fisher-Yates shuffle */
	for (i = 0; i < ns; i++) {
		size_t j = i + (size_t)gsl_rng_uniform_int(r, (unsigned long)(n - i));
		size_t t = all[i];

		all[i] = all[j];
		all[j] = t;
		pick[i] = all[i];
	}
	/*
	 * In row order: the sum then depends on which rows were drawn, not
	 * on the order they were drawn in, so a sample of every row gives
	 * the same bandwidth from any stream (a user's copy of a shipped set).
	 */
	qsort(pick, ns, sizeof(size_t), cmp_index);
	nb = (ns + NN_BLOCK - 1) / NN_BLOCK;
	saved = rfx_blas_single_begin();
	for (b = 0; b < nb; b++) {
		size_t i0 = b * NN_BLOCK, cnt = ns - i0 < NN_BLOCK ? ns - i0 : NN_BLOCK;
		size_t q;

		/* |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, the products in one dgemm */
		for (q = 0; q < cnt; q++)
			memcpy(Q + q * (size_t)d, ds->X + pick[i0 + q] * (size_t)d,
			       (size_t)d * sizeof(double));
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)cnt,
			    (int)n, d, -2.0, Q, d, ds->X, d, 0.0, dist, (int)n);
		for (q = 0; q < cnt; q++) {
			double *row = dist + q * n, xx = norm2[pick[i0 + q]];
			size_t j;

			for (j = 0; j < n; j++) {
				double v = row[j] + norm2[j] + xx;

				row[j] = v > 0.0 ? v : 0.0;
			}
			total += sqrt(kth_smallest(row, n, pick[i0 + q], k, best));
		}
	}
	rfx_blas_single_end(saved);
	*sigma = total / (double)ns;
	if (!(*sigma > 0.0))
		ret = rfx_error(err, RFX_EFORMAT,
				"%s: bandwidth 0: every sampled input's %d-th nearest "
				"neighbour is at distance 0 (equal rows)", ds->name, k);
out:
	free(all);
	free(pick);
	free(norm2);
	free(dist);
	free(best);
	free(Q);
	return ret;
}

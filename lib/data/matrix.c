/*
 * The loader of the user's input files (lib/data/matrix.h): NumPy .npy,
 * delimited text and HDF5 datasets, into row-major doubles. Each file is
 * hashed (SHA-256) by the same reads that parse it, so the digest in the
 * provenance is of the bytes that were actually read; an HDF5 file, which
 * the library reads itself, is hashed by a separate pass.
 *
 * .npy follows the format's own specification (numpy/lib/format.py,
 * "NEP 1"): the magic "\x93NUMPY", a major and minor version byte, the
 * header length as 2 (version 1) or 4 (versions 2 and 3) little-endian
 * bytes, then a Python dict literal with the keys 'descr', 'fortran_order'
 * and 'shape', padded with blanks and a newline, then the raw array.
 */
#include "data/matrix.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "base/infile.h"

#define NPY_MAX_HEADER (1 << 20) /* a longer header is not a .npy file */
#define CHUNK (1 << 16)          /* bytes read at a time */

/* A file read through the hash. */
struct hreader {
	FILE *f;
	struct rfx_sha256 sha;
};

void rfx_matrix_init(struct rfx_matrix *m)
{
	memset(m, 0, sizeof(*m));
}

void rfx_matrix_release(struct rfx_matrix *m)
{
	if (!m)
		return;
	free(m->x);
	free(m->labels);
	free(m->spec);
	free(m->path);
	free(m->dataset);
	rfx_matrix_init(m);
}

int rfx_matrix_check_same_cols(const struct rfx_matrix *a,
			       const struct rfx_matrix *b, struct rfx_err *err)
{
	if (a->cols != b->cols)
		return rfx_error(err, RFX_EINVAL,
				 "'%s' has d = %d but '%s' has d = %d", b->spec,
				 b->cols, a->spec, a->cols);
	return RFX_OK;
}

/* Reads up to n bytes through the hash; returns the count, short at EOF. */
static size_t hread(struct hreader *r, void *p, size_t n)
{
	size_t k = fread(p, 1, n, r->f);

	rfx_sha256_update(&r->sha, p, k);
	return k;
}

/* Reads the rest of the file through the hash; returns its byte count. */
static uint64_t hdrain(struct hreader *r)
{
	unsigned char buf[4096];
	uint64_t total = 0;
	size_t k;

	while ((k = hread(r, buf, sizeof(buf))) > 0)
		total += k;
	return total;
}

/* ---------------------------------------------------------------- labels */

struct keyed {
	const char *s; /* label text (names) */
	double v;      /* label value (numbers) */
	size_t i;      /* row */
};

static int cmp_value(const void *a, const void *b)
{
	double x = ((const struct keyed *)a)->v, y = ((const struct keyed *)b)->v;

	return (x > y) - (x < y);
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->s, ((const struct keyed *)b)->s);
}

/*
 * Numbers the n labels k[] in increasing order of value (numeric) or text
 * into m->labels and m->nclass.
 */
static int number_labels(struct rfx_matrix *m, struct keyed *k, size_t n,
			 int numeric, struct rfx_err *err)
{
	size_t i;
	int c = -1;

	m->labels = malloc(n * sizeof(*m->labels));
	if (!m->labels)
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu labels", n);
	qsort(k, n, sizeof(*k), numeric ? cmp_value : cmp_text);
	for (i = 0; i < n; i++) {
		if (i == 0 || (numeric ? k[i].v != k[i - 1].v
				       : strcmp(k[i].s, k[i - 1].s) != 0)) {
			if (c == INT_MAX - 1)
				return rfx_error(err, RFX_EFORMAT,
						 "too many classes in '%s'", m->spec);
			c++;
		}
		m->labels[k[i].i] = c;
	}
	m->nclass = c + 1;
	return RFX_OK;
}

/*
 * Takes the 1-based column lc out of the numeric rows of m as labels
 * (the non-text formats), or all of m->x when labels_only.
 */
static int split_numeric_labels(struct rfx_matrix *m, int lc, int labels_only,
				struct rfx_err *err)
{
	size_t n = labels_only ? m->rows * (size_t)m->cols : m->rows, i;
	struct keyed *k;
	int ret, j, d = m->cols;

	if (labels_only && m->rows != 1 && m->cols != 1)
		return rfx_error(err, RFX_EFORMAT,
				 "labels in '%s' must be one row or one column, not %zu x %d",
				 m->spec, m->rows, m->cols);
	k = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu labels", n);
	for (i = 0; i < n; i++) {
		k[i].v = labels_only ? m->x[i] : m->x[i * (size_t)d + (size_t)(lc - 1)];
		k[i].i = i;
		k[i].s = NULL;
	}
	ret = number_labels(m, k, n, 1, err);
	free(k);
	if (ret)
		return ret;
	if (labels_only) {
		free(m->x);
		m->x = NULL;
		m->rows = n;
		m->cols = 0;
		return RFX_OK;
	}
	/* close the gap of the label column, row by row, in place */
	for (i = 0; i < m->rows; i++)
		for (j = 0; j < d; j++)
			if (j != lc - 1)
				m->x[i * (size_t)(d - 1) + (size_t)(j - (j > lc - 1))] =
					m->x[i * (size_t)d + (size_t)j];
	m->cols = d - 1;
	return RFX_OK;
}

/* ------------------------------------------------------------------- npy */

/* The parsed header dict. */
struct npy_header {
	char descr[32];   /* e.g. "<f8" */
	int fortran;      /* fortran_order */
	int ndim;         /* entries of shape */
	uint64_t dim[2];  /* shape (first two entries) */
	int have;         /* bit 1 descr, 2 fortran_order, 4 shape */
};

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A quoted Python string at p into buf; NULL on a syntax error. */
static const char *parse_pystr(const char *p, char *buf, size_t n)
{
	char q = *p++;
	size_t k = 0;

	if (q != '\'' && q != '"')
		return NULL;
	for (; *p && *p != q; p++)
		if (k + 1 < n)
			buf[k++] = *p;
	if (*p != q)
		return NULL;
	buf[k] = '\0';
	return p + 1;
}

/*
 * The header dict (p is NUL-terminated). Returns RFX_OK or an
 * RFX_EFORMAT naming the problem.
 */
static int parse_npy_header(const char *p, struct npy_header *h,
			    const char *name, struct rfx_err *err)
{
	char key[32];

	memset(h, 0, sizeof(*h));
	p = skip_blank(p);
	if (*p++ != '{')
		goto bad;
	for (;;) {
		p = skip_blank(p);
		if (*p == '}')
			break;
		if (!(p = parse_pystr(p, key, sizeof(key))))
			goto bad;
		p = skip_blank(p);
		if (*p++ != ':')
			goto bad;
		p = skip_blank(p);
		if (!strcmp(key, "descr")) {
			if (*p == '[')
				return rfx_error(err, RFX_EFORMAT,
						 "unsupported dtype in '%s' (structured)",
						 name);
			if (!(p = parse_pystr(p, h->descr, sizeof(h->descr))))
				goto bad;
			h->have |= 1;
		} else if (!strcmp(key, "fortran_order")) {
			if (!strncmp(p, "True", 4)) {
				h->fortran = 1;
				p += 4;
			} else if (!strncmp(p, "False", 5)) {
				p += 5;
			} else {
				goto bad;
			}
			h->have |= 2;
		} else if (!strcmp(key, "shape")) {
			if (*p++ != '(')
				goto bad;
			for (;;) {
				char *end;
				unsigned long long v;

				p = skip_blank(p);
				if (*p == ')')
					break;
				if (!isdigit((unsigned char)*p))
					goto bad;
				errno = 0;
				v = strtoull(p, &end, 10);
				if (errno)
					return rfx_error(err, RFX_EFORMAT,
							 "shape too large in '%s'", name);
				if (h->ndim < 2)
					h->dim[h->ndim] = v;
				h->ndim++;
				p = skip_blank(end);
				if (*p == ',')
					p++;
				else if (*p != ')')
					goto bad;
			}
			p++;
			h->have |= 4;
		} else {
			goto bad;
		}
		p = skip_blank(p);
		if (*p == ',')
			p++;
		else if (*p != '}')
			goto bad;
	}
	if (h->have != 7)
		return rfx_error(err, RFX_EFORMAT,
				 "bad .npy header in '%s': it lacks '%s'", name,
				 !(h->have & 1) ? "descr" : !(h->have & 2) ?
				 "fortran_order" : "shape");
	return RFX_OK;
bad:
	return rfx_error(err, RFX_EFORMAT, "bad .npy header in '%s'", name);
}

/* How to turn one stored element into a double. */
struct npy_dtype {
	char kind;   /* 'f', 'i', 'u', 'b' */
	int size;    /* bytes */
	int swap;    /* stored in the other byte order than the host's */
};

static int host_is_little(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

static int parse_descr(const char *descr, struct npy_dtype *t,
		       const char *name, struct rfx_err *err)
{
	const char *p = descr;
	char order = '=';
	char *end;
	long size;
	const char *why = NULL;

	if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
		order = *p++;
	t->kind = *p ? *p++ : '\0';
	size = strtol(p, &end, 10);
	if (end == p || *end)
		size = -1;
	switch (t->kind) {
	case 'f':
		if (size == 2)
			why = "float16";
		else if (size != 4 && size != 8)
			why = "float of this size";
		break;
	case 'i':
	case 'u':
		if (size != 1 && size != 2 && size != 4 && size != 8)
			why = "integer of this size";
		break;
	case 'b':
		if (size != 1)
			why = "boolean of this size";
		break;
	case 'c': why = "complex"; break;
	case 'O': why = "object"; break;
	case 'U': case 'S': case 'a': why = "string"; break;
	case 'V': why = "structured"; break;
	case 'M': case 'm': why = "datetime"; break;
	default: why = "unknown"; break;
	}
	if (why)
		return rfx_error(err, RFX_EFORMAT, "unsupported dtype '%s' in '%s' (%s)",
				 descr, name, why);
	t->size = (int)size;
	t->swap = size > 1 && ((order == '<' && !host_is_little()) ||
			       (order == '>' && host_is_little()));
	return RFX_OK;
}

/* Element p (t->size bytes) as a double. */
static double npy_value(const unsigned char *p, const struct npy_dtype *t)
{
	unsigned char b[8];
	int k;

	for (k = 0; k < t->size; k++)
		b[k] = t->swap ? p[t->size - 1 - k] : p[k];
	switch (t->kind) {
	case 'f':
		if (t->size == 4) {
			float f;

			memcpy(&f, b, 4);
			return f;
		} else {
			double d;

			memcpy(&d, b, 8);
			return d;
		}
	case 'b':
		return b[0] != 0;
	case 'i':
		switch (t->size) {
		case 1: { int8_t v; memcpy(&v, b, 1); return v; }
		case 2: { int16_t v; memcpy(&v, b, 2); return v; }
		case 4: { int32_t v; memcpy(&v, b, 4); return v; }
		default: { int64_t v; memcpy(&v, b, 8); return (double)v; }
		}
	default:
		switch (t->size) {
		case 1: return b[0];
		case 2: { uint16_t v; memcpy(&v, b, 2); return v; }
		case 4: { uint32_t v; memcpy(&v, b, 4); return v; }
		default: { uint64_t v; memcpy(&v, b, 8); return (double)v; }
		}
	}
}

static int load_npy(struct rfx_matrix *m, struct hreader *r, int labels_only,
		    struct rfx_err *err)
{
	unsigned char pre[12], *chunk = NULL;
	char *hdr = NULL;
	struct npy_header h;
	struct npy_dtype t = { 0, 0, 0 };
	uint64_t hlen, nel, rows, cols, extra, done;
	size_t got, per;
	int major, ret;
	char shape[64];

	if (hread(r, pre, 8) != 8)
		return rfx_error(err, RFX_EFORMAT, "truncated .npy header in '%s'",
				 m->spec);
	major = pre[6];
	if (major < 1 || major > 3)
		return rfx_error(err, RFX_EFORMAT,
				 "unsupported .npy version %d.%d in '%s'", major,
				 pre[7], m->spec);
	if (major == 1) {
		if (hread(r, pre + 8, 2) != 2)
			return rfx_error(err, RFX_EFORMAT,
					 "truncated .npy header in '%s'", m->spec);
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
	} else {
		if (hread(r, pre + 8, 4) != 4)
			return rfx_error(err, RFX_EFORMAT,
					 "truncated .npy header in '%s'", m->spec);
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8 |
		       (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
	}
	if (hlen > NPY_MAX_HEADER)
		return rfx_error(err, RFX_EFORMAT,
				 "bad .npy header in '%s': %llu bytes long",
				 m->spec, (unsigned long long)hlen);
	hdr = malloc(hlen + 1);
	if (!hdr)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	if (hread(r, hdr, hlen) != hlen) {
		ret = rfx_error(err, RFX_EFORMAT, "truncated .npy header in '%s'",
				m->spec);
		goto out;
	}
	hdr[hlen] = '\0';
	if (strlen(hdr) != hlen) {
		ret = rfx_error(err, RFX_EFORMAT,
				"bad .npy header in '%s': a NUL byte", m->spec);
		goto out;
	}
	if ((ret = parse_npy_header(hdr, &h, m->spec, err)) ||
	    (ret = parse_descr(h.descr, &t, m->spec, err)))
		goto out;
	if (h.ndim == 1)
		snprintf(shape, sizeof(shape), "(%llu,)",
			 (unsigned long long)h.dim[0]);
	else if (h.ndim == 2)
		snprintf(shape, sizeof(shape), "(%llu, %llu)",
			 (unsigned long long)h.dim[0], (unsigned long long)h.dim[1]);
	if (h.ndim != 1 && h.ndim != 2) {
		ret = rfx_error(err, RFX_EFORMAT,
				"'%s' holds a %d-d array, want 1-d (one row) or 2-d",
				m->spec, h.ndim);
		goto out;
	}
	/* a 1-d array is one row, or, for labels, one column */
	rows = h.ndim == 1 ? 1 : h.dim[0];
	cols = h.ndim == 1 ? h.dim[0] : h.dim[1];
	if (labels_only && h.ndim == 1) {
		rows = h.dim[0];
		cols = 1;
	}
	if (rows == 0 || cols == 0) {
		ret = rfx_error(err, RFX_EFORMAT, "no %s in '%s' (shape %s)",
				rows == 0 ? "rows" : "columns", m->spec, shape);
		goto out;
	}
	if (cols > INT_MAX || rows > SIZE_MAX / cols ||
	    rows * cols > SIZE_MAX / sizeof(double) ||
	    rows * cols > UINT64_MAX / (uint64_t)t.size) {
		ret = rfx_error(err, RFX_EFORMAT, "shape %s too large in '%s'",
				shape, m->spec);
		goto out;
	}
	nel = rows * cols;
	/*
	 * A regular file's size tells a truncated body or one that is too
	 * long before anything is allocated: a lying header must not make us
	 * ask for petabytes.
	 */
	{
		struct stat st;
		uint64_t head = (major == 1 ? 10 : 12) + hlen;

		if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size < head + nel * (uint64_t)t.size) {
			ret = rfx_error(err, RFX_EFORMAT,
					"truncated data in '%s': the header's shape %s of '%s' needs %llu bytes, the file has %llu",
					m->spec, shape, h.descr,
					(unsigned long long)(nel * (uint64_t)t.size),
					(unsigned long long)(st.st_size - head));
			goto out;
		}
	}
	m->x = malloc(nel * sizeof(double));
	per = CHUNK / (size_t)t.size;
	chunk = malloc(per * (size_t)t.size);
	if (!m->x || !chunk) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory for '%s' (shape %s)", m->spec, shape);
		goto out;
	}
	m->rows = (size_t)rows;
	m->cols = (int)cols;
	m->converted = t.kind != 'f';
	for (done = 0; done < nel; done += got) {
		size_t want = nel - done < per ? (size_t)(nel - done) : per, e;

		got = hread(r, chunk, want * (size_t)t.size) / (size_t)t.size;
		if (got < want) {
			ret = rfx_error(err, RFX_EFORMAT,
					"truncated data in '%s': the header's shape %s of '%s' needs %llu bytes, the file has %llu",
					m->spec, shape, h.descr,
					(unsigned long long)(nel * (uint64_t)t.size),
					(unsigned long long)((done + got) * (uint64_t)t.size));
			goto out;
		}
		for (e = 0; e < got; e++) {
			uint64_t idx = done + e, i, j;
			double v = npy_value(chunk + e * (size_t)t.size, &t);

			/* Fortran order stores column by column */
			i = h.fortran ? idx % rows : idx / cols;
			j = h.fortran ? idx / rows : idx % cols;
			if (!isfinite(v)) {
				ret = rfx_error(err, RFX_EFORMAT,
						"non-finite value '%g' in '%s' row %llu column %llu",
						v, m->spec, (unsigned long long)i + 1,
						(unsigned long long)j + 1);
				goto out;
			}
			m->x[i * cols + j] = v;
		}
	}
	extra = hdrain(r);
	if (ferror(r->f)) {
		ret = rfx_error(err, RFX_EIO, "cannot read '%s'", m->spec);
		goto out;
	}
	if (extra) {
		ret = rfx_error(err, RFX_EFORMAT,
				"'%s' has %llu bytes after the shape %s of '%s' its header describes",
				m->spec, (unsigned long long)extra, shape, h.descr);
		goto out;
	}
	ret = RFX_OK;
out:
	free(hdr);
	free(chunk);
	return ret;
}

/* ------------------------------------------------------------------ text */

/* Length of a valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k, len;
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[k] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* Splits line (modified) into fields; returns the count, at most max. */
static size_t split_fields(char *line, char **f, size_t max, size_t *all)
{
	size_t n = 0;
	char *p = line;

	if (strchr(line, ',')) {
		for (;;) {
			char *end = strchr(p, ','), *a, *b;

			if (end)
				*end = '\0';
			for (a = p; *a == ' ' || *a == '\t'; a++)
				;
			for (b = a + strlen(a); b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
				;
			*b = '\0';
			if (n < max)
				f[n] = a;
			n++;
			if (!end)
				break;
			p = end + 1;
		}
	} else {
		for (;;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			if (n < max)
				f[n] = p;
			n++;
			while (*p && *p != ' ' && *p != '\t')
				p++;
			if (*p)
				*p++ = '\0';
		}
	}
	*all = n;
	return n < max ? n : max;
}

/* A field as a number: 0 and *v, or -1 when it is not all a number. */
static int parse_number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (*end)
		return -1;
	if (errno == ERANGE && fabs(*v) > 1.0)
		*v = *v > 0 ? INFINITY : -INFINITY; /* overflow */
	return 0;
}

struct textbuf {
	double *x;       /* values so far */
	size_t n, cap;   /* count, capacity */
	char **names;    /* label fields (copies), one per row */
	size_t nnames, capnames;
};

static int push_value(struct textbuf *b, double v)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		double *x = cap > SIZE_MAX / sizeof(double) ? NULL :
			    realloc(b->x, cap * sizeof(double));

		if (!x)
			return -1;
		b->x = x;
		b->cap = cap;
	}
	b->x[b->n++] = v;
	return 0;
}

static int push_name(struct textbuf *b, const char *s)
{
	if (b->nnames == b->capnames) {
		size_t cap = b->capnames ? 2 * b->capnames : 256;
		char **p = realloc(b->names, cap * sizeof(char *));

		if (!p)
			return -1;
		b->names = p;
		b->capnames = cap;
	}
	if (!(b->names[b->nnames] = strdup(s)))
		return -1;
	b->nnames++;
	return 0;
}

static int load_text(struct rfx_matrix *m, struct hreader *r,
		     const struct rfx_matrix_opts *o, struct rfx_err *err)
{
	struct textbuf b = { 0 };
	char *line = NULL, **f = NULL;
	size_t cap = 0, maxf = 0, rows = 0, lineno = 0, c, nf, all;
	ssize_t len;
	int ret = RFX_OK, first = 1, lc = o->labels_only ? 1 : o->label_column;
	long cols = -1;
	struct keyed *k = NULL;

	while ((len = getline(&line, &cap, r->f)) >= 0) {
		size_t i, u;
		char *p;
		int header = 0;

		lineno++;
		rfx_sha256_update(&r->sha, line, (size_t)len);
		for (i = 0; i < (size_t)len; i += u)
			if (!(u = utf8_len((unsigned char *)line + i, (size_t)len - i))) {
				ret = rfx_error(err, RFX_EFORMAT,
						"invalid UTF-8 in '%s' line %zu byte %zu",
						m->spec, lineno, i + 1);
				goto out;
			}
		if (strlen(line) != (size_t)len) {
			ret = rfx_error(err, RFX_EFORMAT,
					"NUL byte in '%s' line %zu", m->spec, lineno);
			goto out;
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = line;
		/* a UTF-8 byte order mark (Excel's CSV) is not part of a field */
		if (lineno == 1 && !strncmp(p, "\xef\xbb\xbf", 3))
			p += 3;
		for (; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p || *p == '#')
			continue;
		/* fields: as many pointers as this line could have */
		if ((size_t)len + 1 > maxf) {
			char **g = realloc(f, ((size_t)len + 1) * sizeof(char *));

			if (!g) {
				ret = rfx_error(err, RFX_ENOMEM, "out of memory");
				goto out;
			}
			f = g;
			maxf = (size_t)len + 1;
		}
		nf = split_fields(p, f, maxf, &all);
		if (first) {
			first = 0;
			if (o->header == RFX_MATRIX_HEADER_YES) {
				header = 1;
			} else if (o->header == RFX_MATRIX_HEADER_AUTO && !o->labels_only) {
				/*
				 * A header has names only, a data line numbers only
				 * (empty fields count as neither: pandas's index
				 * column has none, and "1,,3" is an empty field). A
				 * line of both is refused: taken for a header, a
				 * first row with a typo ("1,2x,3") was dropped
				 * without a word.
				 */
				size_t nums = 0, name = 0;

				for (c = 0; c < nf; c++) {
					double v;

					if ((int)c + 1 == lc || !*f[c])
						continue;
					if (!parse_number(f[c], &v))
						nums++;
					else if (!header++)
						name = c;
				}
				if (header && nums) {
					ret = rfx_error(err, RFX_EFORMAT,
							"the first line of '%s' mixes names and numbers ('%s' in column %zu is not a number): a header has names only, data numbers only (--header makes it a header)",
							m->spec, f[name], name + 1);
					goto out;
				}
			}
			if (header) {
				m->header = 1;
				continue;
			}
		}
		rows++;
		if (cols < 0) {
			cols = (long)nf;
			if (lc > cols) {
				ret = rfx_error(err, RFX_EINVAL,
						"label column %d is outside '%s' (%ld columns)",
						lc, m->spec, cols);
				goto out;
			}
			if (nf > (size_t)INT_MAX) {
				ret = rfx_error(err, RFX_EFORMAT,
						"too many columns in '%s'", m->spec);
				goto out;
			}
		} else if ((long)nf != cols) {
			ret = rfx_error(err, RFX_EFORMAT,
					"ragged rows in '%s': row %zu has %zu columns, row 1 has %ld (line %zu)",
					m->spec, rows, nf, cols, lineno);
			goto out;
		}
		for (c = 0; c < nf; c++) {
			double v;

			if ((int)c + 1 == lc) {
				if (push_name(&b, f[c])) {
					ret = rfx_error(err, RFX_ENOMEM, "out of memory");
					goto out;
				}
				continue;
			}
			if (parse_number(f[c], &v)) {
				ret = *f[c] ?
				      rfx_error(err, RFX_EFORMAT,
						"not a number '%.40s' in '%s' row %zu column %zu (line %zu)",
						f[c], m->spec, rows, c + 1, lineno) :
				      rfx_error(err, RFX_EFORMAT,
						"empty field in '%s' row %zu column %zu (line %zu)",
						m->spec, rows, c + 1, lineno);
				goto out;
			}
			if (!isfinite(v)) {
				ret = rfx_error(err, RFX_EFORMAT,
						"non-finite value '%.40s' in '%s' row %zu column %zu (line %zu)",
						f[c], m->spec, rows, c + 1, lineno);
				goto out;
			}
			if (push_value(&b, v)) {
				ret = rfx_error(err, RFX_ENOMEM,
						"out of memory for '%s'", m->spec);
				goto out;
			}
		}
	}
	if (ferror(r->f)) {
		ret = rfx_error(err, RFX_EIO, "cannot read '%s'", m->spec);
		goto out;
	}
	if (rows == 0) {
		ret = rfx_error(err, RFX_EFORMAT, "no rows in '%s'", m->spec);
		goto out;
	}
	if (o->labels_only && cols != 1) {
		ret = rfx_error(err, RFX_EFORMAT,
				"labels in '%s' must be one column, not %ld", m->spec,
				cols);
		goto out;
	}
	if (lc == 0 && cols == 0) {
		ret = rfx_error(err, RFX_EFORMAT, "no columns in '%s'", m->spec);
		goto out;
	}
	if (lc && !o->labels_only && cols == 1) {
		ret = rfx_error(err, RFX_EFORMAT,
				"no columns in '%s' besides the label column", m->spec);
		goto out;
	}
	m->rows = rows;
	m->cols = (int)(cols - (lc > 0));
	m->x = b.x;
	b.x = NULL;
	if (o->labels_only) {
		free(m->x);
		m->x = NULL;
		m->cols = 0;
	}
	if (lc) {
		size_t i, start = 0;
		int numeric = 1;
		double v;

		/*
		 * A labels file may open with a header: a first label that is
		 * not a number over labels that all are.
		 */
		for (i = 1; i < b.nnames; i++)
			numeric &= !parse_number(b.names[i], &v) && isfinite(v);
		if (o->labels_only && o->header == RFX_MATRIX_HEADER_AUTO &&
		    b.nnames > 1 && numeric && parse_number(b.names[0], &v)) {
			start = 1;
			m->header = 1;
			m->rows--;
		}
		numeric &= !parse_number(b.names[0], &v) && isfinite(v);
		if (start)
			numeric = 1;
		k = malloc((b.nnames - start) * sizeof(*k));
		if (!k) {
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
			goto out;
		}
		for (i = start; i < b.nnames; i++) {
			k[i - start].s = b.names[i];
			k[i - start].i = i - start;
			if (numeric)
				parse_number(b.names[i], &k[i - start].v);
		}
		ret = number_labels(m, k, b.nnames - start, numeric, err);
	}
out:
	free(b.x);
	while (b.nnames)
		free(b.names[--b.nnames]);
	free(b.names);
	free(k);
	free(f);
	free(line);
	return ret;
}

/* ------------------------------------------------------------------ hdf5 */

/*
 * After a failed read, RFX_EFORMAT naming the first filter of dset
 * (h5py's lzf, say, or a plugin's) that this HDF5 library lacks, where
 * "cannot read" would not tell the user to save the data another way.
 * Not before the read: a filter set as optional and missing when the
 * data was written was skipped, and such a dataset reads.
 */
static int h5_filters_avail(hid_t dset, const char *spec, struct rfx_err *err)
{
	hid_t dcpl = H5Dget_create_plist(dset);
	int n = dcpl < 0 ? -1 : H5Pget_nfilters(dcpl), i, ret = RFX_OK;

	for (i = 0; i < n && !ret; i++) {
		unsigned flags, conf;
		size_t nv = 0;
		char name[64] = "";
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nv,
						 NULL, sizeof(name), name, &conf);

		if (id >= 0 && H5Zfilter_avail(id) <= 0)
			ret = rfx_error(err, RFX_EFORMAT,
					"'%s' is compressed with HDF5 filter %d (%s), which this HDF5 library lacks: save it uncompressed or with gzip",
					spec, (int)id, name[0] ? name : "unnamed");
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return ret;
}

static int load_hdf5(struct rfx_matrix *m, int labels_only,
		     struct rfx_err *err)
{
	hid_t file = H5I_INVALID_HID, dset = H5I_INVALID_HID;
	hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID;
	hsize_t dims[2] = { 0, 0 };
	H5T_class_t cls;
	size_t i, nel;
	int ndim, ret;
	htri_t valid;

	if ((ret = rfx_sha256_file(m->path, m->sha256, &m->size, err)))
		return ret;
	if (H5Fis_hdf5(m->path) <= 0)
		return rfx_error(err, RFX_EFORMAT, "'%s' is not an HDF5 file",
				 m->path);
	file = H5Fopen(m->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (file < 0)
		return rfx_error(err, RFX_EIO, "cannot open '%s' as HDF5", m->path);
	valid = H5LTpath_valid(file, m->dataset, 1);
	if (valid <= 0) {
		ret = rfx_error(err, RFX_EINVAL, "no dataset '%s' in '%s'",
				m->dataset, m->path);
		goto out;
	}
	if ((dset = H5Dopen2(file, m->dataset, H5P_DEFAULT)) < 0) {
		ret = rfx_error(err, RFX_EINVAL, "'%s' in '%s' is not a dataset",
				m->dataset, m->path);
		goto out;
	}
	if ((type = H5Dget_type(dset)) < 0 || (space = H5Dget_space(dset)) < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot open dataset '%s'", m->spec);
		goto out;
	}
	cls = H5Tget_class(type);
	if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
		ret = rfx_error(err, RFX_EFORMAT,
				"unsupported type of '%s' (%s), want float or integer",
				m->spec, cls == H5T_COMPOUND ? "compound" :
				cls == H5T_STRING ? "string" : cls == H5T_ARRAY ?
				"array" : "not a number");
		goto out;
	}
	m->converted = cls == H5T_INTEGER;
	ndim = H5Sget_simple_extent_ndims(space);
	if (ndim != 1 && ndim != 2) {
		ret = rfx_error(err, RFX_EFORMAT,
				"'%s' has %d dimensions, want 1 (one row) or 2", m->spec,
				ndim);
		goto out;
	}
	if (H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot read the shape of '%s'", m->spec);
		goto out;
	}
	if (ndim == 1) {
		dims[1] = dims[0];
		dims[0] = 1;
		if (labels_only) {
			dims[0] = dims[1];
			dims[1] = 1;
		}
	}
	if (dims[0] == 0 || dims[1] == 0) {
		ret = rfx_error(err, RFX_EFORMAT, "no %s in '%s'",
				dims[0] == 0 ? "rows" : "columns", m->spec);
		goto out;
	}
	if (dims[1] > INT_MAX || dims[0] > SIZE_MAX / dims[1] ||
	    dims[0] * dims[1] > SIZE_MAX / sizeof(double)) {
		ret = rfx_error(err, RFX_EFORMAT, "'%s' is too large", m->spec);
		goto out;
	}
	nel = (size_t)(dims[0] * dims[1]);
	if (!(m->x = malloc(nel * sizeof(double)))) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory for '%s'", m->spec);
		goto out;
	}
	if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
		    m->x) < 0) {
		if (!(ret = h5_filters_avail(dset, m->spec, err)))
			ret = rfx_error(err, RFX_EIO, "cannot read '%s'", m->spec);
		goto out;
	}
	m->rows = (size_t)dims[0];
	m->cols = (int)dims[1];
	for (i = 0; i < nel; i++)
		if (!isfinite(m->x[i])) {
			ret = rfx_error(err, RFX_EFORMAT,
					"non-finite value '%g' in '%s' row %zu column %zu",
					m->x[i], m->spec, i / (size_t)m->cols + 1,
					i % (size_t)m->cols + 1);
			goto out;
		}
	ret = RFX_OK;
out:
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	if (dset >= 0)
		H5Dclose(dset);
	if (file >= 0)
		H5Fclose(file);
	return ret;
}

/* ------------------------------------------------------------------ load */

/* Splits spec into m->path and m->dataset (see matrix.h). */
static int split_spec(struct rfx_matrix *m, const char *spec,
		      struct rfx_err *err)
{
	const char *colon = strstr(spec, ":/");
	struct stat st;

	if (colon && stat(spec, &st) != 0) {
		m->path = strndup(spec, (size_t)(colon - spec));
		m->dataset = strdup(colon + 1);
		if (!m->path || !m->dataset)
			return rfx_error(err, RFX_ENOMEM, "out of memory");
		if (!m->path[0])
			return rfx_error(err, RFX_EINVAL,
					 "no file before the dataset in '%s'", spec);
		m->format = RFX_MATRIX_HDF5;
		return RFX_OK;
	}
	if (!(m->path = strdup(spec)))
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	return RFX_OK;
}

int rfx_matrix_load(struct rfx_matrix *m, const char *spec,
		    const struct rfx_matrix_opts *o, struct rfx_err *err)
{
	static const struct rfx_matrix_opts defaults = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
	static const unsigned char npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };
	static const unsigned char h5_magic[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
	struct hreader r = { NULL, { { 0 }, 0, { 0 }, 0 } };
	unsigned char magic[8];
	size_t nmagic;
	int ret;

	rfx_matrix_init(m);
	if (!o)
		o = &defaults;
	if (!spec || !spec[0])
		return rfx_error(err, RFX_EINVAL, "no input file given");
	if (o->label_column < 0 || (o->labels_only && o->label_column))
		return rfx_error(err, RFX_EINVAL, "bad label column %d",
				 o->label_column);
	if (!(m->spec = strdup(spec)))
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	if ((ret = split_spec(m, spec, err)))
		goto out;
	if ((ret = rfx_infile_check(m->path, err)))
		goto out;
	if (m->format == RFX_MATRIX_HDF5) {
		ret = load_hdf5(m, o->labels_only, err);
		if (!ret && (o->labels_only || o->label_column))
			ret = split_numeric_labels(m, o->label_column, o->labels_only,
						   err);
		goto out;
	}
	r.f = fopen(m->path, "rb");
	if (!r.f) {
		ret = rfx_error(err, RFX_EIO, "cannot open '%s': %s", m->path,
				strerror(errno));
		goto out;
	}
	rfx_sha256_init(&r.sha);
	/* sniff the format, then hand the bytes back to the parsers */
	nmagic = fread(magic, 1, sizeof(magic), r.f);
	if (nmagic == sizeof(magic) && !memcmp(magic, h5_magic, 8)) {
		ret = rfx_error(err, RFX_EINVAL,
				"'%s' is an HDF5 file: name a dataset in it as '%s:/path/to/dataset'",
				m->path, m->path);
		goto out;
	}
	if (fseek(r.f, 0, SEEK_SET) != 0) {
		ret = rfx_error(err, RFX_EIO, "cannot read '%s': %s", m->path,
				strerror(errno));
		goto out;
	}
	if (nmagic >= 6 && !memcmp(magic, npy_magic, 6)) {
		m->format = RFX_MATRIX_NPY;
		ret = load_npy(m, &r, o->labels_only, err);
		if (!ret && (o->labels_only || o->label_column)) {
			if (o->label_column > m->cols)
				ret = rfx_error(err, RFX_EINVAL,
						"label column %d is outside '%s' (%d columns)",
						o->label_column, m->spec, m->cols);
			else if (o->label_column && m->cols == 1)
				ret = rfx_error(err, RFX_EFORMAT,
						"no columns in '%s' besides the label column",
						m->spec);
			else
				ret = split_numeric_labels(m, o->label_column,
							   o->labels_only, err);
		}
	} else {
		m->format = RFX_MATRIX_TEXT;
		ret = load_text(m, &r, o, err);
	}
	if (!ret) {
		m->size = r.sha.len;
		rfx_sha256_hex(&r.sha, m->sha256);
	}
out:
	if (r.f)
		fclose(r.f);
	if (ret) {
		/* keep nothing of a failed load */
		rfx_matrix_release(m);
	}
	return ret;
}

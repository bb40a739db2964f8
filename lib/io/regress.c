/*
 * Regression checks (see regress.h): TSV tables in memory, and their
 * comparison cell by cell with tolerances from the standard errors.
 */
#include "io/regress.h"
#include "base/fmt.h"
#include "base/infile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

static const struct rfx_column regress_cols[] = {
	RFX_COL(rfx_regress_row, key, RFX_COL_STRING,
		"the row's key columns joined with /"),
	RFX_COL(rfx_regress_row, ref, RFX_COL_DOUBLE,
		"reference value"),
	RFX_COL(rfx_regress_row, ref_se, RFX_COL_DOUBLE,
		"its standard error"),
	RFX_COL(rfx_regress_row, got, RFX_COL_DOUBLE,
		"this run's value"),
	RFX_COL(rfx_regress_row, got_se, RFX_COL_DOUBLE,
		"its standard error"),
	RFX_COL(rfx_regress_row, z, RFX_COL_DOUBLE,
		"(got - ref) / sqrt(ref_se^2 + got_se^2); 0 when equal"),
	RFX_COL(rfx_regress_row, limit, RFX_COL_DOUBLE,
		"the largest |z| accepted"),
	RFX_COL(rfx_regress_row, verdict, RFX_COL_STRING,
		"ok or FAIL"),
};

const struct rfx_schema rfx_regress_schema = {
	"regress", "a table against its reference",
	sizeof(struct rfx_regress_row),
	(int)(sizeof(regress_cols) / sizeof(regress_cols[0])), regress_cols
};

void rfx_tsv_free(struct rfx_tsv *t)
{
	if (!t)
		return;
	free(t->names);
	free(t->cells);
	free(t->buf);
	free(t);
}

/*
 * Builds a table from text (taken over: t->buf = text), splitting lines on
 * '\n' and fields on '\t'. what names the source in messages.
 */
static struct rfx_tsv *parse(char *text, const char *what, struct rfx_err *err)
{
	struct rfx_tsv *t = calloc(1, sizeof(*t));
	size_t lines = 0, tabs = 0, cap, k = 0, line = 1;
	char *p;
	int c;

	if (!t) {
		free(text);
		rfx_error(err, RFX_ENOMEM, "out of memory");
		return NULL;
	}
	t->buf = text;
	for (p = text; *p; p++) {
		lines += *p == '\n';
		tabs += *p == '\t';
	}
	if (!*text || *text == '\n') {
		rfx_error(err, RFX_EFORMAT, "'%s' has no header line", what);
		goto fail;
	}
	cap = lines + tabs + 2;
	t->cells = malloc(cap * sizeof(char *));
	if (!t->cells) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		goto fail;
	}
	/* header */
	p = text;
	for (;;) {
		char *e = p + strcspn(p, "\t\n");
		char sep = *e;

		t->cells[k++] = p;
		*e = '\0';
		p = sep ? e + 1 : e;
		if (sep != '\t')
			break;
	}
	t->ncols = (int)k;
	t->names = malloc((size_t)t->ncols * sizeof(char *));
	if (!t->names) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(t->names, t->cells, (size_t)t->ncols * sizeof(char *));
	k = 0;
	while (*p) {
		line++;
		for (c = 0;; c++) {
			char *e = p + strcspn(p, "\t\n");
			char sep = *e;

			if (c >= t->ncols) {
				rfx_error(err, RFX_EFORMAT,
					  "'%s' line %zu: more than %d fields", what, line,
					  t->ncols);
				goto fail;
			}
			t->cells[k++] = p;
			*e = '\0';
			p = sep ? e + 1 : e;
			if (sep != '\t')
				break;
		}
		if (c + 1 != t->ncols) {
			rfx_error(err, RFX_EFORMAT, "'%s' line %zu: %d fields, the header has %d",
				  what, line, c + 1, t->ncols);
			goto fail;
		}
		t->nrows++;
	}
	return t;
fail:
	rfx_tsv_free(t);
	return NULL;
}

struct rfx_tsv *rfx_tsv_read(const char *path, struct rfx_err *err)
{
	FILE *f;
	char *text = NULL;
	size_t len = 0, cap = 0, got;

	if (rfx_infile_check(path, err))
		return NULL;
	f = fopen(path, "rb");
	if (!f) {
		rfx_error(err, RFX_EIO, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nt = realloc(text, cap ? 2 * cap : 65536);

			if (!nt) {
				free(text);
				fclose(f);
				rfx_error(err, RFX_ENOMEM, "out of memory reading '%s'", path);
				return NULL;
			}
			text = nt;
			cap = cap ? 2 * cap : 65536;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(text);
		fclose(f);
		rfx_error(err, RFX_EIO, "cannot read '%s'", path);
		return NULL;
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		rfx_error(err, RFX_EFORMAT, "'%s' is not a text table", path);
		return NULL;
	}
	return parse(text, path, err);
}

struct rfx_tsv *rfx_tsv_from_rows(const struct rfx_schema *s, const void *rows,
				  size_t n, struct rfx_err *err)
{
	size_t cap = 4096, len = 0, i;
	char *text = malloc(cap);
	int c;

	if (!text) {
		rfx_error(err, RFX_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i <= n; i++) {
		const char *row = i ? (const char *)rows + (i - 1) * s->row_size : NULL;

		for (c = 0; c < s->ncols; c++) {
			const struct rfx_column *col = &s->cols[c];
			char cell[300];

			if (!row) {
				snprintf(cell, sizeof(cell), "%s", col->name);
			} else if (col->type == RFX_COL_DOUBLE) {
				double v;

				memcpy(&v, row + col->offset, sizeof(v));
				rfx_fmt_double(v, cell, sizeof(cell));
			} else if (col->type == RFX_COL_INT) {
				int v;

				memcpy(&v, row + col->offset, sizeof(v));
				snprintf(cell, sizeof(cell), "%d", v);
			} else if (col->type == RFX_COL_LONG) {
				long v;

				memcpy(&v, row + col->offset, sizeof(v));
				snprintf(cell, sizeof(cell), "%ld", v);
			} else {
				snprintf(cell, sizeof(cell), "%.*s", (int)col->size,
					 row + col->offset);
			}
			if (len + strlen(cell) + 2 >= cap) {
				char *nt = realloc(text, 2 * cap + strlen(cell));

				if (!nt) {
					free(text);
					rfx_error(err, RFX_ENOMEM, "out of memory");
					return NULL;
				}
				text = nt;
				cap = 2 * cap + strlen(cell);
			}
			len += (size_t)sprintf(text + len, "%s%s", cell,
					       c + 1 < s->ncols ? "\t" : "\n");
		}
	}
	return parse(text, s->name, err);
}

static int column(const struct rfx_tsv *t, const char *name, const char *what,
		  struct rfx_err *err)
{
	int c;

	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->names[c], name))
			return c;
	rfx_error(err, RFX_EFORMAT, "%s has no column '%s'", what, name);
	return -1;
}

/* The key of row r of t (columns kc[0..nk-1]) into buf. */
static void row_key(const struct rfx_tsv *t, size_t r, const int *kc, int nk,
		    char *buf, size_t n)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < nk && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? "/" : "",
					t->cells[r * (size_t)t->ncols + (size_t)kc[k]]);
}

static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v);
}

#define MAX_KEYS 16

int rfx_regress_compare(const struct rfx_tsv *ref, const struct rfx_tsv *got,
			const struct rfx_regress_spec *spec,
			struct rfx_regress_row **out, size_t *n, size_t *nfail,
			struct rfx_err *err)
{
	int kr[MAX_KEYS], kg[MAX_KEYS], vr, sr, vg, sg, k;
	struct rfx_regress_row *rows = NULL;
	char *used = NULL, key[128], key2[128];
	size_t i, j;
	double zstar;

	*out = NULL;
	*n = *nfail = 0;
	if (spec->nkeys < 1 || spec->nkeys > MAX_KEYS || !(spec->alpha > 0.0) ||
	    !(spec->alpha < 1.0))
		return rfx_error(err, RFX_EINVAL, "bad regression specification");
	for (k = 0; k < spec->nkeys; k++) {
		kr[k] = column(ref, spec->keys[k], "the reference", err);
		kg[k] = column(got, spec->keys[k], "the run's table", err);
		if (kr[k] < 0 || kg[k] < 0)
			return RFX_EFORMAT;
	}
	vr = column(ref, spec->value, "the reference", err);
	sr = vr < 0 ? -1 : column(ref, spec->se, "the reference", err);
	vg = sr < 0 ? -1 : column(got, spec->value, "the run's table", err);
	sg = vg < 0 ? -1 : column(got, spec->se, "the run's table", err);
	if (sg < 0)
		return RFX_EFORMAT;
	if (ref->nrows != got->nrows) {
		return rfx_error(err, RFX_EFORMAT,
				 "the reference has %zu rows, the run %zu: it was made "
				 "with other settings", ref->nrows, got->nrows);
	}
	rows = calloc(ref->nrows ? ref->nrows : 1, sizeof(*rows));
	used = calloc(got->nrows ? got->nrows : 1, 1);
	if (!rows || !used) {
		free(rows);
		free(used);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	zstar = gsl_cdf_ugaussian_Qinv(spec->alpha / (2.0 * (double)(ref->nrows ? ref->nrows : 1)));
	for (i = 0; i < ref->nrows; i++) {
		struct rfx_regress_row *r = &rows[i];
		double s;

		row_key(ref, i, kr, spec->nkeys, key, sizeof(key));
		for (j = 0; j < got->nrows; j++) {
			row_key(got, j, kg, spec->nkeys, key2, sizeof(key2));
			if (!strcmp(key, key2))
				break;
		}
		if (j == got->nrows || used[j]) {
			rfx_error(err, RFX_EFORMAT,
				  "%s reference row '%s' in the run: it was made with "
				  "other settings", j == got->nrows ? "no" : "a repeated",
				  key);
			goto fail;
		}
		used[j] = 1;
		snprintf(r->key, sizeof(r->key), "%s", key);
		if (!number(ref->cells[i * (size_t)ref->ncols + (size_t)vr], &r->ref) ||
		    !number(ref->cells[i * (size_t)ref->ncols + (size_t)sr], &r->ref_se) ||
		    !number(got->cells[j * (size_t)got->ncols + (size_t)vg], &r->got) ||
		    !number(got->cells[j * (size_t)got->ncols + (size_t)sg], &r->got_se) ||
		    r->ref_se < 0.0 || r->got_se < 0.0) {
			rfx_error(err, RFX_EFORMAT,
				  "row '%s': '%s' and '%s' must be finite numbers, the "
				  "errors non-negative", key, spec->value, spec->se);
			goto fail;
		}
		s = sqrt(r->ref_se * r->ref_se + r->got_se * r->got_se);
		/*
		 * Without error bars (a deterministic cell) only rounding may
		 * differ: the scale is then a few ulps, so z stays finite.
		 */
		if (!(s > 0.0))
			s = 4.0 * DBL_EPSILON * fmax(fmax(fabs(r->ref), fabs(r->got)),
						     DBL_MIN);
		r->limit = zstar;
		r->z = r->got == r->ref ? 0.0 : (r->got - r->ref) / s;
		if (fabs(r->z) <= zstar) {
			snprintf(r->verdict, sizeof(r->verdict), "ok");
		} else {
			snprintf(r->verdict, sizeof(r->verdict), "FAIL");
			(*nfail)++;
		}
	}
	free(used);
	*out = rows;
	*n = ref->nrows;
	return RFX_OK;
fail:
	free(rows);
	free(used);
	*nfail = 0;
	return RFX_EFORMAT;
}

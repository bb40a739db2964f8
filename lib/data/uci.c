/*
 * The UCI datasets of thesis Table 6.1: one static format table per file,
 * a strict line-by-line parser, and the seeded split. The whole file is
 * read into memory (the largest, krkopt.data, is 0.4 MB) and parsed in one
 * pass; labels of numeric label columns are ranked after the pass.
 */
#include "data/uci.h"
#include "base/suggest.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "base/infile.h"
#include "base/rng.h"

#define MAX_FIELDS 16     /* more than any format has */
#define MAX_LEVELS 16     /* levels of one categorical column */

/* Abalone (Nash et al. 1994): sex is nominal (M, F, I = infant). */
static const struct rfx_uci_column abalone_cols[] = {
	{ "sex", RFX_UCI_CAT, "M,F,I" },
	{ "length", RFX_UCI_NUM, NULL },
	{ "diameter", RFX_UCI_NUM, NULL },
	{ "height", RFX_UCI_NUM, NULL },
	{ "whole_weight", RFX_UCI_NUM, NULL },
	{ "shucked_weight", RFX_UCI_NUM, NULL },
	{ "viscera_weight", RFX_UCI_NUM, NULL },
	{ "shell_weight", RFX_UCI_NUM, NULL },
	{ "rings", RFX_UCI_LABEL_NUM, NULL },
};

static const struct rfx_uci_column banknote_cols[] = {
	{ "Variance", RFX_UCI_NUM, NULL },
	{ "Skewness", RFX_UCI_NUM, NULL },
	{ "Curtosis", RFX_UCI_NUM, NULL },
	{ "Entropy", RFX_UCI_NUM, NULL },
	{ "Class", RFX_UCI_LABEL_NUM, NULL },
};

/* Car evaluation: every attribute is ordered; levels in increasing order. */
static const struct rfx_uci_column car_cols[] = {
	{ "buying", RFX_UCI_CAT, "low,med,high,vhigh" },
	{ "maint", RFX_UCI_CAT, "low,med,high,vhigh" },
	{ "doors", RFX_UCI_CAT, "2,3,4,5more" },
	{ "persons", RFX_UCI_CAT, "2,4,more" },
	{ "lug_boots", RFX_UCI_CAT, "small,med,big" },
	{ "safety", RFX_UCI_CAT, "low,med,high" },
	{ "class", RFX_UCI_LABEL_CAT, "unacc,acc,good,vgood" },
};

/* Yeast: the sequence name is an identifier; classes in .names order. */
static const struct rfx_uci_column yeast_cols[] = {
	{ "Sequence_Name", RFX_UCI_SKIP, NULL },
	{ "mcg", RFX_UCI_NUM, NULL },
	{ "gvh", RFX_UCI_NUM, NULL },
	{ "alm", RFX_UCI_NUM, NULL },
	{ "mit", RFX_UCI_NUM, NULL },
	{ "erl", RFX_UCI_NUM, NULL },
	{ "pox", RFX_UCI_NUM, NULL },
	{ "vac", RFX_UCI_NUM, NULL },
	{ "nuc", RFX_UCI_NUM, NULL },
	{ "class", RFX_UCI_LABEL_CAT, "CYT,NUC,MIT,ME3,ME2,ME1,EXC,VAC,POX,ERL" },
};

/* Contraceptive method choice: the file codes every attribute as a number. */
static const struct rfx_uci_column cmc_cols[] = {
	{ "wife_age", RFX_UCI_NUM, NULL },
	{ "wife_education", RFX_UCI_NUM, NULL },
	{ "husband_education", RFX_UCI_NUM, NULL },
	{ "children_born", RFX_UCI_NUM, NULL },
	{ "wife_religion", RFX_UCI_NUM, NULL },
	{ "wife_working", RFX_UCI_NUM, NULL },
	{ "husband_occupation", RFX_UCI_NUM, NULL },
	{ "SOL_index", RFX_UCI_NUM, NULL },
	{ "media_exposure", RFX_UCI_NUM, NULL },
	{ "contraceptive_method_use", RFX_UCI_LABEL_NUM, NULL },
};

/* Nursery: levels in the .names order (increasing need or difficulty). */
static const struct rfx_uci_column nursery_cols[] = {
	{ "parents", RFX_UCI_CAT, "usual,pretentious,great_pret" },
	{ "has_nurs", RFX_UCI_CAT, "proper,less_proper,improper,critical,very_crit" },
	{ "form", RFX_UCI_CAT, "complete,completed,incomplete,foster" },
	{ "children", RFX_UCI_CAT, "1,2,3,more" },
	{ "housing", RFX_UCI_CAT, "convenient,less_conv,critical" },
	{ "finance", RFX_UCI_CAT, "convenient,inconv" },
	{ "social", RFX_UCI_CAT, "nonprob,slightly_prob,problematic" },
	{ "health", RFX_UCI_CAT, "recommended,priority,not_recom" },
	{ "class", RFX_UCI_LABEL_CAT,
	  "not_recom,recommend,very_recom,priority,spec_prior" },
};

static const struct rfx_uci_column wifi_cols[] = {
	{ "wifi1", RFX_UCI_NUM, NULL }, { "wifi2", RFX_UCI_NUM, NULL },
	{ "wifi3", RFX_UCI_NUM, NULL }, { "wifi4", RFX_UCI_NUM, NULL },
	{ "wifi5", RFX_UCI_NUM, NULL }, { "wifi6", RFX_UCI_NUM, NULL },
	{ "wifi7", RFX_UCI_NUM, NULL },
	{ "room", RFX_UCI_LABEL_NUM, NULL },
};

/*
 * King-rook vs king, numeric file: files a-h as 1-8, ranks 1-8, the label
 * the depth of win 0..16 or 17 for a draw.
 */
static const struct rfx_uci_column chess_cols[] = {
	{ "white_king_file", RFX_UCI_NUM, NULL },
	{ "white_king_rank", RFX_UCI_NUM, NULL },
	{ "white_rook_file", RFX_UCI_NUM, NULL },
	{ "white_rook_rank", RFX_UCI_NUM, NULL },
	{ "black_king_file", RFX_UCI_NUM, NULL },
	{ "black_king_rank", RFX_UCI_NUM, NULL },
	{ "depth", RFX_UCI_LABEL_NUM, NULL },
};

#define SPEC(var, name, file, sep, header, cols)                               \
	static const struct rfx_uci_spec var = { name, file, sep, header,      \
						 RFX_NCOLS(cols), cols }

SPEC(abalone, "abalone", "abalone.csv", ',', NULL, abalone_cols);
SPEC(banknote, "banknote", "banknote.txt", ',',
     "Variance,Skewness,Curtosis,Entropy,Class", banknote_cols);
SPEC(car, "car", "car.data", ',',
     "buying,maint,doors,persons,lug_boots,safety,class", car_cols);
SPEC(yeast, "yeast", "yeast.data", ' ',
     "Sequence_Name mcg gvh alm mit erl pox vac nuc class", yeast_cols);
SPEC(cmc, "cmc", "cmc.csv", ',',
     "wife_age,wife_education,husband_education,children_born,wife_religion,"
     "wife_working,husband_occupation,SOL_index,media_exposure,"
     "contraceptive_method_use",
     cmc_cols);
SPEC(nursery, "nursery", "nursery.data", ',', NULL, nursery_cols);
SPEC(wifi, "wifi", "wifi_localization.txt", '\t', NULL, wifi_cols);
SPEC(chess, "chess", "krkopt.data", ',', NULL, chess_cols);
#undef SPEC

static const struct rfx_uci_spec *const registry[] = {
	&abalone, &banknote, &car, &yeast, &cmc, &nursery, &wifi, &chess, NULL
};

const struct rfx_uci_spec *const *rfx_uci_list(void)
{
	return registry;
}

const struct rfx_uci_spec *rfx_uci_find(const char *name, struct rfx_err *err)
{
	char names[256];
	size_t len = 0;
	int k;

	for (k = 0; registry[k]; k++)
		if (!strcmp(registry[k]->name, name))
			return registry[k];
	names[0] = '\0';
	for (k = 0; registry[k]; k++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
					k ? ", " : "", registry[k]->name);
	{
		char hint[96];

		rfx_suggest_phrase_list(name, names, hint, sizeof(hint));
		rfx_error(err, RFX_EINVAL, "unknown dataset '%s'%s (valid: %s, all)",
			  name, hint, names);
	}
	return NULL;
}

int rfx_uci_index(const struct rfx_uci_spec *s)
{
	int k;

	for (k = 0; registry[k]; k++)
		if (registry[k] == s)
			return k;
	return -1;
}

static const char *const encoding_names[] = { "ordinal", "onehot" };

int rfx_uci_encoding_parse(const char *name, enum rfx_uci_encoding *out,
			   struct rfx_err *err)
{
	int k;

	for (k = 0; k < 2; k++)
		if (!strcmp(name, encoding_names[k])) {
			*out = (enum rfx_uci_encoding)k;
			return RFX_OK;
		}
	return rfx_error(err, RFX_EINVAL,
			 "unknown encoding '%s' (valid: ordinal, onehot)", name);
}

const char *rfx_uci_encoding_name(enum rfx_uci_encoding e)
{
	return (unsigned)e < 2 ? encoding_names[e] : "?";
}

/* Splits a comma-separated level list into lv (at most MAX_LEVELS). */
static int split_levels(const char *levels, char lv[][32])
{
	int n = 0;
	const char *p = levels;

	while (n < MAX_LEVELS) {
		size_t len = strcspn(p, ",");

		if (len >= 32)
			len = 31;
		memcpy(lv[n], p, len);
		lv[n][len] = '\0';
		n++;
		if (!p[strcspn(p, ",")])
			break;
		p += strcspn(p, ",") + 1;
	}
	return n;
}

static int count_levels(const char *levels)
{
	char lv[MAX_LEVELS][32];

	return split_levels(levels, lv);
}

/* Input columns of a format in an encoding. */
static int encoded_dim(const struct rfx_uci_spec *s, enum rfx_uci_encoding enc)
{
	int c, d = 0;

	for (c = 0; c < s->ncols; c++) {
		if (s->cols[c].kind == RFX_UCI_NUM)
			d++;
		else if (s->cols[c].kind == RFX_UCI_CAT)
			d += enc == RFX_UCI_ONEHOT ? count_levels(s->cols[c].levels) : 1;
	}
	return d;
}

/* Fields of one line: start pointers and lengths (trimmed of blanks). */
struct fields {
	int n;                       /* fields found (may exceed MAX_FIELDS) */
	const char *f[MAX_FIELDS];
	size_t len[MAX_FIELDS];
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Splits line [p, end) into fields: at each sep, or at runs of blanks. */
static void split_line(const char *p, const char *end, char sep,
		       struct fields *F)
{
	F->n = 0;
	if (sep == ' ') {
		for (;;) {
			const char *s;

			while (p < end && is_blank(*p))
				p++;
			if (p == end)
				return;
			s = p;
			while (p < end && !is_blank(*p))
				p++;
			if (F->n < MAX_FIELDS) {
				F->f[F->n] = s;
				F->len[F->n] = (size_t)(p - s);
			}
			F->n++;
		}
	}
	for (;;) {
		const char *s = p, *e;

		while (p < end && *p != sep)
			p++;
		e = p;
		while (s < e && is_blank(*s))
			s++;
		while (e > s && is_blank(e[-1]))
			e--;
		if (F->n < MAX_FIELDS) {
			F->f[F->n] = s;
			F->len[F->n] = (size_t)(e - s);
		}
		F->n++;
		if (p == end)
			return;
		p++;
	}
}

/* Copies a field into buf (size n) for messages and number parsing. */
static const char *field_text(const struct fields *F, int k, char *buf,
			      size_t n)
{
	size_t len = F->len[k] < n - 1 ? F->len[k] : n - 1;

	memcpy(buf, F->f[k], len);
	buf[len] = '\0';
	return buf;
}

/* Parses a finite number that fills the whole field. */
static int parse_number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || end == s || !isfinite(*v))
		return -1;
	return 0;
}

static int level_index(const char *levels, const char *text)
{
	char lv[MAX_LEVELS][32];
	int n = split_levels(levels, lv), k;

	for (k = 0; k < n; k++)
		if (!strcmp(lv[k], text))
			return k;
	return -1;
}

static void level_list(const char *levels, char *buf, size_t n)
{
	char lv[MAX_LEVELS][32];
	int nl = split_levels(levels, lv), k;
	size_t len = 0;

	buf[0] = '\0';
	for (k = 0; k < nl && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? ", " : "",
					lv[k]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reads the whole file; RFX_EIO on failure. */
static char *read_file(const char *path, size_t *size, struct rfx_err *err)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (rfx_infile_check(path, err))
		return NULL;
	f = fopen(path, "rb");
	if (!f) {
		rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
			  strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (cap - n < 65536) {
			char *nb = realloc(buf, cap + 262144 + 1);

			if (!nb) {
				free(buf);
				fclose(f);
				rfx_error(err, RFX_ENOMEM, "out of memory reading '%s'",
					  path);
				return NULL;
			}
			buf = nb;
			cap += 262144;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		rfx_error(err, RFX_EIO, "cannot read '%s'", path);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*size = n;
	return buf;
}

static int line_is_empty(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_blank(*p))
			return 0;
	return 1;
}

void rfx_uci_free(struct rfx_uci_data *D)
{
	if (!D)
		return;
	free(D->X);
	free(D->y);
	free(D);
}

/* Checks the header line against spec->header, field by field. */
static int check_header(const struct rfx_uci_spec *s, const char *path,
			const struct fields *got, struct rfx_err *err)
{
	struct fields want;
	char a[64], b[64];
	int k;

	split_line(s->header, s->header + strlen(s->header), s->sep, &want);
	for (k = 0; k < want.n; k++) {
		if (k >= got->n)
			return rfx_error(err, RFX_EFORMAT,
					 "'%s' line 1, column %d: header ends, expected '%s'",
					 path, k + 1, field_text(&want, k, b, sizeof(b)));
		if (k < MAX_FIELDS &&
		    (got->len[k] != want.len[k] ||
		     memcmp(got->f[k], want.f[k], want.len[k])))
			return rfx_error(err, RFX_EFORMAT,
					 "'%s' line 1, column %d: header '%s', expected '%s' (is the header line missing?)",
					 path, k + 1, field_text(got, k, a, sizeof(a)),
					 field_text(&want, k, b, sizeof(b)));
	}
	if (got->n > want.n)
		return rfx_error(err, RFX_EFORMAT,
				 "'%s' line 1: header has %d fields, expected %d",
				 path, got->n, want.n);
	return RFX_OK;
}

struct rfx_uci_data *rfx_uci_load(const struct rfx_uci_spec *s,
				  const char *path, enum rfx_uci_encoding enc,
				  struct rfx_err *err)
{
	struct rfx_uci_data *D = NULL;
	char *text = NULL, buf[64], lv[256];
	double *raw_label = NULL, *uniq = NULL;
	size_t size, nlines = 1, line = 0, row = 0, k, nu = 0;
	const char *p, *end;
	int label_col = -1, c;
	size_t pending_empty = 0; /* line of an empty line seen, 0 if none */

	if (s->ncols > MAX_FIELDS)
		RFX_BUG("format '%s' has too many columns", s->name);
	for (c = 0; c < s->ncols; c++)
		if (s->cols[c].kind == RFX_UCI_LABEL_NUM ||
		    s->cols[c].kind == RFX_UCI_LABEL_CAT)
			label_col = c;
	if (label_col < 0)
		RFX_BUG("format '%s' has no label column", s->name);
	text = read_file(path, &size, err);
	if (!text)
		return NULL;
	for (k = 0; k < size; k++)
		nlines += text[k] == '\n';
	if (memchr(text, '\0', size)) {
		rfx_error(err, RFX_EFORMAT, "'%s' is not a text file (NUL byte)",
			  path);
		goto fail;
	}
	D = calloc(1, sizeof(*D));
	if (!D)
		goto oom;
	D->spec = s;
	D->d = encoded_dim(s, enc);
	D->X = malloc(nlines * (size_t)(D->d > 0 ? D->d : 1) * sizeof(double));
	D->y = malloc(nlines * sizeof(int));
	raw_label = malloc(nlines * sizeof(double));
	if (!D->X || !D->y || !raw_label)
		goto oom;

	p = text;
	end = text + size;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		struct fields F;
		double *x;
		int j = 0;

		line++;
		if (line_is_empty(p, le)) {
			if (line == 1 && s->header) {
				rfx_error(err, RFX_EFORMAT,
					  "'%s' line 1: empty, expected the header line",
					  path);
				goto fail;
			}
			if (!pending_empty)
				pending_empty = line;
			p = eol ? eol + 1 : end;
			continue;
		}
		if (pending_empty) {
			rfx_error(err, RFX_EFORMAT,
				  "'%s' line %zu: empty line before more data (line %zu)",
				  path, pending_empty, line);
			goto fail;
		}
		split_line(p, le, s->sep, &F);
		p = eol ? eol + 1 : end;
		if (line == 1 && s->header) {
			if (check_header(s, path, &F, err))
				goto fail;
			continue;
		}
		if (F.n < s->ncols) {
			rfx_error(err, RFX_EFORMAT,
				  "'%s' line %zu, column %d: missing field '%s' (the row has %d fields, expected %d)",
				  path, line, F.n + 1, s->cols[F.n].name, F.n,
				  s->ncols);
			goto fail;
		}
		if (F.n > s->ncols) {
			rfx_error(err, RFX_EFORMAT,
				  "'%s' line %zu, column %d: extra field (the row has %d fields, expected %d)",
				  path, line, s->ncols + 1, F.n, s->ncols);
			goto fail;
		}
		x = D->X + row * (size_t)D->d;
		for (c = 0; c < s->ncols; c++) {
			const struct rfx_uci_column *col = &s->cols[c];
			const char *t = field_text(&F, c, buf, sizeof(buf));
			double v;
			int li, nl;

			if (F.len[c] >= sizeof(buf) && col->kind != RFX_UCI_SKIP) {
				rfx_error(err, RFX_EFORMAT,
					  "'%s' line %zu, column %d: field too long for '%s'",
					  path, line, c + 1, col->name);
				goto fail;
			}
			switch (col->kind) {
			case RFX_UCI_SKIP:
				break;
			case RFX_UCI_NUM:
			case RFX_UCI_LABEL_NUM:
				if (parse_number(t, &v)) {
					rfx_error(err, RFX_EFORMAT,
						  "'%s' line %zu, column %d: bad number '%s' for '%s'",
						  path, line, c + 1, t, col->name);
					goto fail;
				}
				if (col->kind == RFX_UCI_NUM) {
					x[j++] = v;
					break;
				}
				if (v != floor(v) || fabs(v) > 1e9) {
					rfx_error(err, RFX_EFORMAT,
						  "'%s' line %zu, column %d: label '%s' is not an integer",
						  path, line, c + 1, t);
					goto fail;
				}
				raw_label[row] = v;
				break;
			case RFX_UCI_CAT:
			case RFX_UCI_LABEL_CAT:
				li = level_index(col->levels, t);
				if (li < 0) {
					level_list(col->levels, lv, sizeof(lv));
					rfx_error(err, RFX_EFORMAT,
						  "'%s' line %zu, column %d: unknown category '%s' for '%s' (valid: %s)",
						  path, line, c + 1, t, col->name, lv);
					goto fail;
				}
				if (col->kind == RFX_UCI_LABEL_CAT) {
					D->y[row] = li;
					break;
				}
				if (enc == RFX_UCI_ORDINAL) {
					x[j++] = li;
					break;
				}
				nl = count_levels(col->levels);
				for (k = 0; k < (size_t)nl; k++)
					x[j + (int)k] = (int)k == li;
				j += nl;
				break;
			}
		}
		row++;
	}
	if (row == 0) {
		rfx_error(err, RFX_EFORMAT, "'%s': no data rows%s", path,
			  size == 0 ? " (empty file)" : "");
		goto fail;
	}
	D->n = row;
	if (s->cols[label_col].kind == RFX_UCI_LABEL_CAT) {
		D->nclass = count_levels(s->cols[label_col].levels);
	} else {
		/* Rank numeric labels among the distinct values present. */
		uniq = malloc(row * sizeof(double));
		if (!uniq)
			goto oom;
		memcpy(uniq, raw_label, row * sizeof(double));
		qsort(uniq, row, sizeof(double), cmp_double);
		for (k = 0; k < row; k++)
			if (nu == 0 || uniq[k] != uniq[nu - 1])
				uniq[nu++] = uniq[k];
		for (k = 0; k < row; k++) {
			const double *hit = bsearch(&raw_label[k], uniq, nu,
						    sizeof(double), cmp_double);

			D->y[k] = (int)(hit - uniq);
		}
		D->nclass = (int)nu;
	}
	free(text);
	free(raw_label);
	free(uniq);
	return D;
oom:
	rfx_error(err, RFX_ENOMEM, "out of memory loading '%s'", path);
fail:
	free(text);
	free(raw_label);
	free(uniq);
	rfx_uci_free(D);
	return NULL;
}

void rfx_uci_split_sizes(size_t n, size_t *n_train, size_t *n_val,
			 size_t *n_test)
{
	size_t a = n / 10 * 9 + (n % 10) * 9 / 10;   /* floor(9n/10) */
	size_t b = n / 20 * 19 + (n % 20) * 19 / 20; /* floor(19n/20) */

	*n_train = a;
	*n_val = b - a;
	*n_test = n - b;
}

void rfx_uci_split_release(struct rfx_uci_split *S)
{
	free(S->Xtr);
	free(S->Xva);
	free(S->Xte);
	free(S->ytr);
	free(S->yva);
	free(S->yte);
	free(S->perm);
	free(S->mean);
	free(S->scale);
	memset(S, 0, sizeof(*S));
}

int rfx_uci_split(const struct rfx_uci_data *D, uint64_t seed, int standardize,
		  struct rfx_uci_split *S, struct rfx_err *err)
{
	size_t n = D->n, k, i, nt, nv, ne;
	int d = D->d, l;
	gsl_rng *r;

	memset(S, 0, sizeof(*S));
	if (n < 20)
		return rfx_error(err, RFX_EINVAL,
				 "%s: %zu samples are too few to split 90/5/5 (need 20)",
				 D->spec->name, n);
	rfx_uci_split_sizes(n, &nt, &nv, &ne);
	S->d = d;
	S->nclass = D->nclass;
	S->n_train = nt;
	S->n_val = nv;
	S->n_test = ne;
	S->perm = malloc(n * sizeof(size_t));
	S->Xtr = malloc(nt * (size_t)d * sizeof(double));
	S->Xva = malloc(nv * (size_t)d * sizeof(double));
	S->Xte = malloc(ne * (size_t)d * sizeof(double));
	S->ytr = malloc(nt * sizeof(int));
	S->yva = malloc(nv * sizeof(int));
	S->yte = malloc(ne * sizeof(int));
	S->mean = calloc((size_t)d, sizeof(double));
	S->scale = malloc((size_t)d * sizeof(double));
	r = rfx_rng_alloc_key(seed, &(struct rfx_rng_key){
		.exp = "uci", .what = "split", .name = { D->spec->name } });
	if (!S->perm || !S->Xtr || !S->Xva || !S->Xte || !S->ytr || !S->yva ||
	    !S->yte || !S->mean || !S->scale || !r) {
		if (r)
			gsl_rng_free(r);
		rfx_uci_split_release(S);
		return rfx_error(err, RFX_ENOMEM, "out of memory splitting %s",
				 D->spec->name);
	}
	for (k = 0; k < n; k++)
		S->perm[k] = k;
	gsl_ran_shuffle(r, S->perm, n, sizeof(size_t));
	gsl_rng_free(r);
	for (k = 0; k < n; k++) {
		size_t src = S->perm[k];
		double *dst;
		int *ydst;

		if (k < nt) {
			dst = S->Xtr + k * (size_t)d;
			ydst = S->ytr + k;
		} else if (k < nt + nv) {
			dst = S->Xva + (k - nt) * (size_t)d;
			ydst = S->yva + (k - nt);
		} else {
			dst = S->Xte + (k - nt - nv) * (size_t)d;
			ydst = S->yte + (k - nt - nv);
		}
		memcpy(dst, D->X + src * (size_t)d, (size_t)d * sizeof(double));
		*ydst = D->y[src];
	}
	for (l = 0; l < d; l++)
		S->scale[l] = 1.0;
	if (!standardize)
		return RFX_OK;
	/* Two-pass mean and population standard deviation over train rows. */
	for (l = 0; l < d; l++) {
		double m = 0.0, v = 0.0;

		for (i = 0; i < nt; i++)
			m += S->Xtr[i * (size_t)d + l];
		m /= (double)nt;
		for (i = 0; i < nt; i++) {
			double z = S->Xtr[i * (size_t)d + l] - m;

			v += z * z;
		}
		v = sqrt(v / (double)nt);
		S->mean[l] = m;
		S->scale[l] = v > 0.0 ? v : 1.0;
	}
	for (l = 0; l < d; l++) {
		double m = S->mean[l], sc = S->scale[l];

		for (i = 0; i < nt; i++)
			S->Xtr[i * (size_t)d + l] = (S->Xtr[i * (size_t)d + l] - m) / sc;
		for (i = 0; i < nv; i++)
			S->Xva[i * (size_t)d + l] = (S->Xva[i * (size_t)d + l] - m) / sc;
		for (i = 0; i < ne; i++)
			S->Xte[i * (size_t)d + l] = (S->Xte[i * (size_t)d + l] - m) / sc;
	}
	return RFX_OK;
}

static const struct rfx_column info_cols[] = {
	RFX_COL(rfx_uci_info, dataset, RFX_COL_STRING,
		"dataset name"),
	RFX_COL(rfx_uci_info, file, RFX_COL_STRING,
		"the data file read"),
	RFX_COL(rfx_uci_info, encoding, RFX_COL_STRING,
		"encoding of categorical attributes"),
	RFX_COL(rfx_uci_info, scaling, RFX_COL_STRING,
		"input scaling: standard (zero mean, unit variance on the training rows) or none"),
	RFX_COL(rfx_uci_info, rows, RFX_COL_LONG,
		"samples in the file"),
	RFX_COL(rfx_uci_info, d, RFX_COL_INT,
		"input columns after encoding"),
	RFX_COL(rfx_uci_info, classes, RFX_COL_INT,
		"classes"),
	RFX_COL(rfx_uci_info, n_train, RFX_COL_LONG,
		"training rows"),
	RFX_COL(rfx_uci_info, n_val, RFX_COL_LONG,
		"validation rows"),
	RFX_COL(rfx_uci_info, n_test, RFX_COL_LONG,
		"test rows"),
};

const struct rfx_schema rfx_uci_info_schema = {
	"uci_data", "UCI datasets as loaded and split (thesis Table 6.1)",
	sizeof(struct rfx_uci_info), RFX_NCOLS(info_cols), info_cols
};

void rfx_uci_info_fill(struct rfx_uci_info *r, const struct rfx_uci_data *D,
		       const struct rfx_uci_split *S, enum rfx_uci_encoding enc,
		       int standardize)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dataset, sizeof(r->dataset), "%s", D->spec->name);
	snprintf(r->file, sizeof(r->file), "%s", D->spec->file);
	snprintf(r->encoding, sizeof(r->encoding), "%s",
		 rfx_uci_encoding_name(enc));
	snprintf(r->scaling, sizeof(r->scaling), "%s",
		 standardize ? "standard" : "none");
	r->rows = (long)D->n;
	r->d = D->d;
	r->classes = D->nclass;
	r->n_train = (long)S->n_train;
	r->n_val = (long)S->n_val;
	r->n_test = (long)S->n_test;
}

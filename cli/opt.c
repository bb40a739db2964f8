/*
 * Option parsing. Numbers must consume their whole argument and be finite
 * ("1e400", "nan" and "12abc" are rejected), because a silently truncated
 * --gamma would give a plausible-looking wrong table.
 */
#include "opt.h"
#include "base/suggest.h"
#include "proj/proj.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end == s || *end || errno == ERANGE || !isfinite(*out) ? -1 : 0;
}

static int parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return end == s || *end || errno == ERANGE ? -1 : 0;
}

static struct rfx_opt *find_long(struct rfx_opt *opts, const char *name,
				 size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len && !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

static struct rfx_opt *find_alias(struct rfx_opt *opts, char c)
{
	for (; opts->name; opts++)
		if (opts->alias && opts->alias == c)
			return opts;
	return NULL;
}

/* "%.17g" without trailing noise for the bounds in messages. */
static void fmt_bound(double v, char *buf, size_t n)
{
	if (isinf(v))
		snprintf(buf, n, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(buf, n, "%.15g", v);
}

int rfx_opt_check_range(const char *name, const struct rfx_opt_range *r,
			double v, int integer, struct rfx_err *err)
{
	char lo[32], hi[32], got[32];
	int lo_open, hi_open;

	if (!(r->flags & RFX_RANGE_ON) || ((r->flags & RFX_RANGE_ZERO) && v == 0))
		goto ok;
	lo_open = (r->flags & RFX_RANGE_LO_OPEN) != 0;
	hi_open = (r->flags & RFX_RANGE_HI_OPEN) != 0;
	if ((lo_open ? v > r->lo : v >= r->lo) && (hi_open ? v < r->hi : v <= r->hi))
		goto ok;
	fmt_bound(r->lo, lo, sizeof(lo));
	fmt_bound(r->hi, hi, sizeof(hi));
	fmt_bound(v, got, sizeof(got));
	if (integer && isinf(r->hi))
		return rfx_error(err, RFX_EINVAL, "--%s must be %sat least %s, got %s",
				 name, (r->flags & RFX_RANGE_ZERO) ? "0 or " : "",
				 lo, got);
	if (integer)
		return rfx_error(err, RFX_EINVAL, "--%s must be %sin %s..%s, got %s",
				 name, (r->flags & RFX_RANGE_ZERO) ? "0 or " : "",
				 lo, hi, got);
	if (lo_open && r->lo == 0 && isinf(r->hi))
		return rfx_error(err, RFX_EINVAL, "--%s must be positive, got %s",
				 name, got);
	return rfx_error(err, RFX_EINVAL, "--%s must be %sin %s%s, %s%s, got %s",
			 name, (r->flags & RFX_RANGE_ZERO) ? "0 or " : "",
			 lo_open ? "(" : "[", lo, hi, hi_open || isinf(r->hi) ? ")" : "]",
			 got);
ok:
	return RFX_OK;
}

/* RFX_OPT_CHOICE: the index of v in o->choices, or an error listing them. */
static int set_choice(const struct rfx_opt *o, const char *v,
		      struct rfx_err *err)
{
	char valid[256], hint[96];
	size_t len = 0, n;
	int k;

	for (k = 0; o->choices[k]; k++)
		if (!strcmp(o->choices[k], v)) {
			*(int *)o->dest = k;
			return RFX_OK;
		}
	valid[0] = '\0';
	for (k = 0; o->choices[k] && len < sizeof(valid); k++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s",
					k ? ", " : "", o->choices[k]);
	n = (size_t)k;
	rfx_suggest_phrase(v, o->choices, n, hint, sizeof(hint));
	return rfx_error(err, RFX_EINVAL, "unknown --%s '%s'%s (valid: %s)",
			 o->name, v, hint, valid);
}

static int set_value(const char *cmd, struct rfx_opt *o, const char *v,
		     struct rfx_err *err)
{
	long l;
	double d;
	int ret;

	switch (o->kind) {
	case RFX_OPT_INT:
		if (parse_long(v, &l) || l < INT_MIN || l > INT_MAX)
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects an integer, got '%s'",
					 o->name, v);
		ret = rfx_opt_check_range(o->name, &o->range, (double)l, 1, err);
		if (ret)
			return ret;
		*(int *)o->dest = (int)l;
		break;
	case RFX_OPT_LONG:
		if (parse_long(v, &l))
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects an integer, got '%s'",
					 o->name, v);
		ret = rfx_opt_check_range(o->name, &o->range, (double)l, 1, err);
		if (ret)
			return ret;
		*(long *)o->dest = l;
		break;
	case RFX_OPT_U64: {
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(v, &end, 10);
		/* strtoull skips blanks and negates a '-': ' -1' is 2^64 - 1. */
		if (end == v || *end || errno == ERANGE || !isdigit((unsigned char)v[0]))
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects a non-negative integer, got '%s'",
					 o->name, v);
		*(uint64_t *)o->dest = (uint64_t)u;
		break;
	}
	case RFX_OPT_DOUBLE:
		if (parse_double(v, &d))
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects a number, got '%s'",
					 o->name, v);
		ret = rfx_opt_check_range(o->name, &o->range, d, 0, err);
		if (ret)
			return ret;
		*(double *)o->dest = d;
		break;
	case RFX_OPT_CHOICE:
		ret = set_choice(o, v, err);
		if (ret)
			return ret;
		break;
	case RFX_OPT_PARSE:
		ret = o->parse(v, o->dest, err);
		if (ret)
			return ret;
		break;
	case RFX_OPT_STRING:
		*(const char **)o->dest = v;
		break;
	case RFX_OPT_MULTI: {
		struct rfx_strlist *sl = o->dest;

		if (sl->n == (int)(sizeof(sl->item) / sizeof(sl->item[0])))
			return rfx_error(err, RFX_EINVAL,
					 "too many '--%s' options for '%s'", o->name,
					 cmd);
		sl->item[sl->n++] = v;
		break;
	}
	case RFX_OPT_FLAG:
		*(int *)o->dest = 1;
		break;
	}
	o->seen = 1;
	o->text = v;
	return RFX_OK;
}

/* "unknown option '--mehtod', did you mean '--method'? (see ...)" */
static int unknown_option(const char *cmd, const struct rfx_opt *opts,
			  const char *a, struct rfx_err *err)
{
	const char *names[128], *best = NULL;
	char word[64];
	size_t n = 0;
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);

	for (; opts->name && n < sizeof(names) / sizeof(names[0]); opts++)
		names[n++] = opts->name;
	if (a[1] == '-' && len - 2 < sizeof(word)) {
		memcpy(word, a + 2, len - 2);
		word[len - 2] = '\0';
		best = rfx_suggest(word, names, n);
	}
	if (best)
		return rfx_error(err, RFX_EINVAL,
				 "unknown option '%s', did you mean '--%s'? (see 'rfx %s --help')",
				 a, best, cmd);
	return rfx_error(err, RFX_EINVAL,
			 "unknown option '%s' (see 'rfx %s --help')", a, cmd);
}

int rfx_opt_parse(const char *cmd, struct rfx_opt *opts, int argc,
		  char **argv, const char **pos, int maxpos, int *npos,
		  int *help, struct rfx_err *err)
{
	int i, ret, only_pos = 0;
	struct rfx_opt *o0;

	*npos = 0;
	*help = 0;
	for (o0 = opts; o0->name; o0++) {
		if (!o0->dflt)
			continue;
		ret = set_value(cmd, o0, o0->dflt, err);
		if (ret)
			return ret;
		o0->seen = 0;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		struct rfx_opt *o = NULL;
		const char *val = NULL;

		if (only_pos || a[0] != '-' || a[1] == '\0') {
			if (*npos == maxpos)
				return rfx_error(err, RFX_EINVAL,
						 "unexpected argument '%s' for '%s'",
						 a, cmd);
			pos[(*npos)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*help = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			o = find_long(opts, a + 2,
				      eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (eq)
				val = eq + 1;
		} else if (a[2] == '\0') {
			o = find_alias(opts, a[1]);
		}
		if (!o)
			return unknown_option(cmd, opts, a, err);
		if (o->kind == RFX_OPT_FLAG) {
			if (val)
				return rfx_error(err, RFX_EINVAL,
						 "option '--%s' takes no value", o->name);
		} else if (!val) {
			if (i + 1 >= argc)
				return rfx_error(err, RFX_EINVAL,
						 "option '%s' needs a value", a);
			val = argv[++i];
		}
		ret = set_value(cmd, o, val ? val : "", err);
		if (ret)
			return ret;
	}
	return RFX_OK;
}

int rfx_opt_seen(const struct rfx_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts->seen;
	return 0;
}

int rfx_opt_check_modes(const struct rfx_opt *opts,
			const struct rfx_opt_mode *table, size_t n,
			unsigned mode, const char *mode_name,
			struct rfx_err *err)
{
	size_t k;

	for (; opts->name; opts++) {
		if (!opts->seen)
			continue;
		for (k = 0; k < n; k++)
			if (!strcmp(opts->name, table[k].name) &&
			    !(table[k].modes & mode))
				return rfx_error(err, RFX_EINVAL,
						 "--%s does not apply to %s",
						 opts->name, mode_name);
	}
	return RFX_OK;
}

void rfx_opt_help(const char *cmd, const char *usage, const char *summary,
		  const struct rfx_opt *opts, FILE *out)
{
	fprintf(out, "usage: rfx %s %s\n\n%s\n\noptions:\n", cmd, usage, summary);
	for (; opts->name; opts++) {
		char head[64];

		if (opts->alias)
			snprintf(head, sizeof(head), "-%c, --%s%s%s", opts->alias,
				 opts->name, opts->metavar ? " " : "",
				 opts->metavar ? opts->metavar : "");
		else
			snprintf(head, sizeof(head), "    --%s%s%s", opts->name,
				 opts->metavar ? " " : "",
				 opts->metavar ? opts->metavar : "");
		if (opts->dflt)
			fprintf(out, "  %-26s %s (default %s)\n", head, opts->help,
				opts->dflt);
		else
			fprintf(out, "  %-26s %s\n", head, opts->help);
	}
	fprintf(out, "  %-26s %s\n", "-h, --help", "show this help");
}

int rfx_opt_doubles(const char *what, const char *list, double **out, int *n,
		    struct rfx_err *err)
{
	const char *p = list;
	int cap = 8, cnt = 0;
	double *v = malloc((size_t)cap * sizeof(double));

	*out = NULL;
	*n = 0;
	if (!v)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char tmp[64];

		if (len == 0 || len >= sizeof(tmp) ||
		    (memcpy(tmp, p, len), tmp[len] = '\0', parse_double(tmp, &v[cnt]))) {
			free(v);
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects a comma-separated list of numbers, got '%s'",
					 what, list);
		}
		if (++cnt == cap) {
			double *nv = realloc(v, (size_t)(cap *= 2) * sizeof(double));

			if (!nv) {
				free(v);
				return rfx_error(err, RFX_ENOMEM, "out of memory");
			}
			v = nv;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = v;
	*n = cnt;
	return RFX_OK;
}

static int cmp_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int rfx_opt_sweep(const char *what, const char *list, double **out, int *n,
		  struct rfx_err *err)
{
	double *s;
	int k, ret = rfx_opt_doubles(what, list, out, n, err);

	if (ret)
		return ret;
	/* sorted, a repeat is a neighbour: O(n log n) for long --gamma lists */
	s = malloc((size_t)*n * sizeof(double));
	if (!s) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	} else {
		memcpy(s, *out, (size_t)*n * sizeof(double));
		qsort(s, (size_t)*n, sizeof(double), cmp_value);
		for (k = 1; k < *n && !ret; k++)
			if (s[k] == s[k - 1])
				ret = rfx_error(err, RFX_EINVAL,
						"%g listed twice in --%s '%s'", s[k],
						what, list);
		free(s);
	}
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

int rfx_opt_split(const char *what, const char *list, char *buf, size_t n,
		  const char **item, int max, int *count, struct rfx_err *err)
{
	char *p;
	int k = 0, j;

	if ((size_t)snprintf(buf, n, "%s", list) >= n)
		return rfx_error(err, RFX_EINVAL, "--%s list too long", what);
	p = buf;
	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p)
			return rfx_error(err, RFX_EINVAL, "empty item in --%s '%s'", what,
					 list);
		if (k == max)
			return rfx_error(err, RFX_EINVAL, "too many items in --%s", what);
		for (j = 0; j < k; j++)
			if (!strcmp(item[j], p))
				return rfx_error(err, RFX_EINVAL,
						 "'%s' listed twice in --%s '%s'", p,
						 what, list);
		item[k++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	*count = k;
	return RFX_OK;
}

/* The n values v of list, integers in lo..hi, into out. */
static int ints_from(const char *what, const char *list, const double *v,
		     int n, int lo, int hi, int *out, struct rfx_err *err)
{
	int k;

	for (k = 0; k < n; k++) {
		if (v[k] != floor(v[k]) || v[k] < lo || v[k] > hi)
			return rfx_error(err, RFX_EINVAL,
					 "--%s expects integers in %d..%d, got '%s'", what,
					 lo, hi, list);
		out[k] = (int)v[k];
	}
	return RFX_OK;
}

int rfx_opt_ints(const char *what, const char *list, int *out, int max,
		 int lo, int hi, int *n, struct rfx_err *err)
{
	double *v = NULL;
	int ret = rfx_opt_sweep(what, list, &v, n, err);

	if (ret)
		return ret;
	ret = *n > max ? rfx_error(err, RFX_EINVAL, "too many items in --%s", what)
		       : ints_from(what, list, v, *n, lo, hi, out, err);
	free(v);
	return ret;
}

int rfx_opt_ints_alloc(const char *what, const char *list, int lo, int hi,
		       int **out, int *n, struct rfx_err *err)
{
	double *v = NULL;
	int ret = rfx_opt_sweep(what, list, &v, n, err);

	*out = NULL;
	if (ret)
		return ret;
	*out = malloc((size_t)*n * sizeof(int));
	ret = !*out ? rfx_error(err, RFX_ENOMEM, "out of memory")
		    : ints_from(what, list, v, *n, lo, hi, *out, err);
	free(v);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

int rfx_opt_proj(const char *value, void *dest, struct rfx_err *err)
{
	return rfx_proj_parse(value, dest, err);
}

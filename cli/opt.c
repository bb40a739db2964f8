/*
 * Option parsing. Numbers must consume their whole argument and be finite
 * ("1e400", "nan" and "12abc" are rejected), because a silently truncated
 * --gamma would give a plausible-looking wrong table.
 */
#include "opt.h"

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

static int set_value(const char *cmd, struct rfx_opt *o, const char *v,
		     struct rfx_err *err)
{
	long l;
	double d;

	switch (o->kind) {
	case RFX_OPT_INT:
		if (parse_long(v, &l) || l < INT_MIN || l > INT_MAX)
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects an integer, got '%s'",
					 o->name, v);
		*(int *)o->dest = (int)l;
		break;
	case RFX_OPT_LONG:
		if (parse_long(v, &l))
			return rfx_error(err, RFX_EINVAL,
					 "option '--%s' expects an integer, got '%s'",
					 o->name, v);
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
		*(double *)o->dest = d;
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
	return RFX_OK;
}

int rfx_opt_parse(const char *cmd, struct rfx_opt *opts, int argc,
		  char **argv, const char **pos, int maxpos, int *npos,
		  int *help, struct rfx_err *err)
{
	int i, ret, only_pos = 0;

	*npos = 0;
	*help = 0;
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
			return rfx_error(err, RFX_EINVAL,
					 "unknown option '%s' (see 'rfx %s --help')",
					 a, cmd);
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

int rfx_opt_split(const char *what, const char *list, char *buf, size_t n,
		  const char **item, int max, int *count, struct rfx_err *err)
{
	char *p;
	int k = 0;

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
		item[k++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	*count = k;
	return RFX_OK;
}

int rfx_opt_ints(const char *what, const char *list, int *out, int max,
		 int lo, int hi, int *n, struct rfx_err *err)
{
	double *v = NULL;
	int k, ret = rfx_opt_doubles(what, list, &v, n, err);

	if (ret)
		return ret;
	if (*n > max) {
		free(v);
		return rfx_error(err, RFX_EINVAL, "too many items in --%s", what);
	}
	for (k = 0; k < *n; k++) {
		if (v[k] != floor(v[k]) || v[k] < lo || v[k] > hi) {
			free(v);
			return rfx_error(err, RFX_EINVAL,
					 "--%s expects integers in %d..%d, got '%s'", what,
					 lo, hi, list);
		}
		out[k] = (int)v[k];
	}
	free(v);
	return RFX_OK;
}

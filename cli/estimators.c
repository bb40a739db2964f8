/*
 * 'rfx help estimators' (cli/estimators.h): every field comes from the
 * registry, the parameter table and the command table, so this output is
 * the one list; README.md's table and doc/rfx.1's ESTIMATORS section are
 * copies of its markdown and man forms, and tests/t_estimator_lists.sh
 * fails when either differs.
 */
#include "estimators.h"

#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "output.h"

enum format { FMT_TEXT, FMT_MARKDOWN, FMT_MAN, FMT_NAMES, FMT_PARAMS };

static const char *const formats[] = { "text", "markdown", "man", "names",
				       "params", NULL };

/* Appends like snprintf without overrunning buf; keeps it terminated. */
static void cat(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s", s);
}

void rfx_param_names(char *buf, size_t len)
{
	int id;

	buf[0] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		if (id)
			cat(buf, len, ", ");
		cat(buf, len, rfx_param_name((enum rfx_param)id));
	}
}

void rfx_param_help(char *buf, size_t len, const char *lead)
{
	char names[128];

	rfx_param_names(names, sizeof(names));
	snprintf(buf, len,
		 "%s (%s; 'rfx help estimators' has their ranges) (default: all fitted)",
		 lead, names);
}

/* Breaks the lines of s at spaces so none exceeds width columns. */
static void wrap(char *s, int width)
{
	char *line = s, *space = NULL, *p;

	for (p = s; *p; p++) {
		if (*p == '\n') {
			line = p + 1;
			space = NULL;
			continue;
		}
		if (*p == ' ')
			space = p;
		if (p - line >= width && space) {
			*space = '\n';
			line = space + 1;
			space = NULL;
		}
	}
}

void rfx_methods_help(char *buf, size_t len, const char *label,
		      int (*accepts)(const struct rfx_estimator_type *e),
		      const char *tail)
{
	const struct rfx_estimator_type *const *e;
	size_t start = strlen(buf);

	cat(buf, len, "\n");
	cat(buf, len, label);
	for (e = rfx_estimator_list(); *e; e++)
		if (!accepts || accepts(*e)) {
			cat(buf, len, " ");
			cat(buf, len, (*e)->name);
		}
	cat(buf, len, " ");
	cat(buf, len, tail);
	wrap(buf + start, 72); /* the text before keeps its own lines */
}

/* "rff, trigrf" or "none" */
static void aliases(const struct rfx_estimator_type *e, char *buf, size_t len)
{
	const char *a = e->aliases;

	buf[0] = '\0';
	if (!a || !*a) {
		cat(buf, len, "none");
		return;
	}
	for (; *a; a++) {
		char c[2] = { *a, '\0' };

		cat(buf, len, *a == ',' ? ", " : c);
	}
}

/*
 * "q in (0, 1), c: d comma-separated numbers; q: Brent minimisation ..."
 * or "none"; each parameter with its range. quote wraps names (Markdown).
 */
static void params(const struct rfx_estimator_type *e, const char *quote,
		   char *buf, size_t len)
{
	int id, first = 1;

	buf[0] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		const struct rfx_param_info *pi = rfx_param_info((enum rfx_param)id);
		const char *range = pi->range;

		if (!(e->params & RFX_P(id)))
			continue;
		if (pi->kind == RFX_PK_SCALAR)
			range = (e->flags & RFX_EST_COMPLEX) ? "a number or re,im"
							     : "a real number";
		if (!first)
			cat(buf, len, ", ");
		first = 0;
		cat(buf, len, quote);
		cat(buf, len, pi->name);
		cat(buf, len, quote);
		cat(buf, len, ": ");
		cat(buf, len, range);
	}
	if (first)
		cat(buf, len, "none");
	if (e->fit_note) {
		cat(buf, len, "; fitted: ");
		cat(buf, len, e->fit_note);
	}
}

static const char *kernels(const struct rfx_estimator_type *e)
{
	switch (e->kernels & (RFX_EST_GAUSS | RFX_EST_SOFTMAX)) {
	case RFX_EST_GAUSS | RFX_EST_SOFTMAX:
		return "gauss, softmax";
	case RFX_EST_GAUSS:
		return "gauss";
	case RFX_EST_SOFTMAX:
		return "softmax";
	}
	return "-";
}

static void takers_of(const struct rfx_estimator_type *e,
		      const struct rfx_method_taker *t, size_t n, char *buf,
		      size_t len)
{
	size_t k;

	buf[0] = '\0';
	for (k = 0; k < n; k++)
		if (t[k].accepts(e)) {
			if (buf[0])
				cat(buf, len, ", ");
			cat(buf, len, t[k].cmd);
		}
	if (!buf[0])
		cat(buf, len, "-");
}

/* s with every '-' as "\-", as man pages want hyphens in names. */
static void man_text(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", out);
		else if (*s == '\\')
			fputs("\\e", out);
		else
			fputc(*s, out);
	}
}

static void print_one(enum format f, const struct rfx_estimator_type *e,
		      const struct rfx_method_taker *t, size_t n, FILE *out)
{
	char al[256], pa[1024], tk[256];
	const char *values = (e->flags & RFX_EST_COMPLEX) ? "complex" : "real";
	const char *positive = (e->flags & RFX_EST_POSITIVE) ? "yes" : "no";

	aliases(e, al, sizeof(al));
	params(e, f == FMT_MARKDOWN ? "`" : "", pa, sizeof(pa));
	takers_of(e, t, n, tk, sizeof(tk));
	switch (f) {
	case FMT_TEXT:
		fprintf(out, "%s\n  %s\n", e->name, e->title);
		fprintf(out, "  aliases      %s\n", al);
		fprintf(out, "  values       %s%s; positive: %s\n", values,
			(e->flags & RFX_EST_COMPLEX)
				? " (a feature counts as two real ones)"
				: "",
			positive);
		fprintf(out, "  kernels      %s\n", kernels(e));
		fprintf(out, "  parameters   %s\n", pa);
		fprintf(out, "  accepted by  %s\n\n", tk);
		break;
	case FMT_MARKDOWN:
		fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", e->name,
			al, e->title, values, positive, kernels(e), pa, tk);
		break;
	case FMT_MAN:
		fputs(".TP\n.B ", out);
		man_text(e->name, out);
		fputc('\n', out);
		man_text(e->title, out);
		fputs(".\nAliases: ", out);
		man_text(al, out);
		fprintf(out, ". Values: %s; positive: %s. Kernels: %s.\n", values,
			positive, kernels(e));
		fputs("Parameters: ", out);
		man_text(pa, out);
		fputs(".\nAccepted by: ", out);
		man_text(tk, out);
		fputs(".\n", out);
		break;
	case FMT_NAMES:
		fprintf(out, "%s\n", e->name);
		break;
	case FMT_PARAMS:
		break;
	}
}

static void print_params(enum format f, FILE *out)
{
	int id;

	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		const struct rfx_param_info *pi = rfx_param_info((enum rfx_param)id);

		switch (f) {
		case FMT_TEXT:
			fprintf(out, "  %-7s %s; %s (default: %s)\n", pi->name,
				pi->range, pi->what, pi->dflt);
			break;
		case FMT_MARKDOWN:
			fprintf(out, "| `%s` | %s | %s | %s |\n", pi->name, pi->range,
				pi->what, pi->dflt);
			break;
		case FMT_MAN:
			fputs(".TP\n.B ", out);
			man_text(pi->name, out);
			fputc('\n', out);
			man_text(pi->range, out);
			fputs("; ", out);
			man_text(pi->what, out);
			fputs(" (default: ", out);
			man_text(pi->dflt, out);
			fputs(").\n", out);
			break;
		case FMT_PARAMS:
			fprintf(out, "%s\n", pi->name);
			break;
		case FMT_NAMES:
			break;
		}
	}
}

static void print_proj_aliases(enum format f, FILE *out)
{
	const struct rfx_proj_alias *pa;

	for (pa = rfx_estimator_proj_aliases(); pa->alias; pa++) {
		switch (f) {
		case FMT_TEXT:
			fprintf(out, "  %-7s %s on %s projections (%s)\n", pa->alias,
				pa->name, rfx_proj_name(pa->proj), pa->source);
			break;
		case FMT_MARKDOWN:
			fprintf(out, "| `%s` | `%s` on `%s` projections (%s) |\n",
				pa->alias, pa->name, rfx_proj_name(pa->proj),
				pa->source);
			break;
		case FMT_MAN:
			fputs(".TP\n.B ", out);
			man_text(pa->alias, out);
			fputc('\n', out);
			man_text(pa->name, out);
			fputs(" on ", out);
			man_text(rfx_proj_name(pa->proj), out);
			fputs(" projections (", out);
			man_text(pa->source, out);
			fputs(").\n", out);
			break;
		default:
			break;
		}
	}
}

int rfx_help_estimators(int argc, char **argv,
			const struct rfx_method_taker *takers, size_t n)
{
	const struct rfx_estimator_type *const *e;
	enum format f = FMT_TEXT;
	int k;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: rfx help estimators [--format text|markdown|man|names|params]\n");
		return RFX_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "--format")) {
		for (k = 0; formats[k] && strcmp(formats[k], argv[2]); k++)
			;
		if (!formats[k])
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "unknown --format '%s' (valid: text, markdown, man, names, params)",
					    argv[2]);
		f = (enum format)k;
	} else if (argc != 1) {
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "usage: rfx help estimators [--format text|markdown|man|names|params]");
	}
	if (f == FMT_TEXT)
		printf("Estimators of rfx (lib/est), in registry order. A method list takes a\n"
		       "CLI name or an alias, in any case; 'all' is every estimator.\n\n");
	if (f == FMT_MARKDOWN)
		printf("| CLI name | aliases | papers' name | values | positive | kernels | parameters | accepted by |\n"
		       "|---|---|---|---|---|---|---|---|\n");
	for (e = rfx_estimator_list(); *e; e++)
		print_one(f, *e, takers, n, stdout);
	if (f == FMT_NAMES)
		return RFX_EXIT_OK;
	if (f == FMT_TEXT)
		printf("Parameters (--param [METHOD:]NAME=VALUE fixes one; the rest are fitted):\n");
	if (f == FMT_MARKDOWN)
		printf("\nParameters (`--param [METHOD:]NAME=VALUE` fixes one; the rest are fitted):\n\n"
		       "| name | valid values | meaning | when not given |\n|---|---|---|---|\n");
	if (f == FMT_MAN)
		printf(".PP\nParameters (\\fB\\-\\-param\\fP [\\fIMETHOD\\fP:]\\fINAME\\fP=\\fIVALUE\\fP fixes one; the rest are fitted):\n");
	print_params(f, stdout);
	if (f == FMT_PARAMS)
		return RFX_EXIT_OK;
	if (f == FMT_TEXT)
		printf("\nProjection aliases (rfx mse-table's methods; elsewhere use --projection):\n");
	if (f == FMT_MARKDOWN)
		printf("\nProjection aliases (`rfx mse-table` methods; elsewhere `--projection`):\n\n"
		       "| alias | stands for |\n|---|---|\n");
	if (f == FMT_MAN)
		printf(".PP\nProjection aliases (methods of \\fBrfx mse\\-table\\fP; elsewhere \\fB\\-\\-projection\\fP):\n");
	print_proj_aliases(f, stdout);
	return RFX_EXIT_OK;
}

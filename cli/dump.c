/*
 * rfx dump: prints the tables of an rfx HDF5 file as TSV, the text form
 * the gnuplot scripts read (plot "< rfx dump f.h5 variance --where ...").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cmds.h"
#include "opt.h"
#include "output.h"
#include "io/h5read.h"

/* Index of column name in the tab-separated header line, or -1. */
static int column_index(const char *header, const char *name)
{
	size_t len = strlen(name);
	const char *eol = header + strcspn(header, "\n");
	int k = 0;

	for (;;) {
		const char *tab = memchr(header, '\t', (size_t)(eol - header));
		size_t n = tab ? (size_t)(tab - header) : (size_t)(eol - header);

		if (n == len && !strncmp(header, name, len))
			return k;
		if (!tab)
			return -1;
		header = tab + 1;
		k++;
	}
}

/* Field k of a tab-separated line: start and length; NULL if too short. */
static const char *field(const char *line, int k, size_t *len)
{
	const char *eol = line + strcspn(line, "\n");

	while (k-- > 0) {
		line = memchr(line, '\t', (size_t)(eol - line));
		if (!line)
			return NULL;
		line++;
	}
	*len = strcspn(line, "\t\n");
	return line;
}

/*
 * Copies the dump in text to out (out NULL: only checks), with an empty
 * line wherever column `col` changes between consecutive rows: the scan
 * separator gnuplot's pm3d needs for grids. Each table (a "# name" line
 * starts one in a dump of every table) has its own header, so the column
 * is looked up in each; -1 if a table lacks it.
 */
static int blank_on(const char *text, const char *col, FILE *out)
{
	const char *line = text, *prev = NULL;
	size_t plen = 0;
	int k = -1;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);

		if (line[0] == '#') {
			k = -1;
			prev = NULL;
		} else if (line[0] != '\n' && k < 0) {
			k = column_index(line, col);
			if (k < 0)
				return -1;
		} else if (line[0] != '\n') {
			size_t len = 0;
			const char *f = field(line, k, &len);

			if (out && f && prev &&
			    (len != plen || strncmp(f, prev, len)))
				fputc('\n', out);
			prev = f;
			plen = len;
		}
		if (out)
			fwrite(line, 1, n, out);
		line += n;
	}
	return 0;
}

int cmd_dump(int argc, char **argv, const struct rfx_cli *cli)
{
	struct rfx_strlist where;
	struct rfx_err err;
	const char *pos[2];
	int npos, help, attrs = 0, describe = 0, ret;
	const char *blank = NULL;
	struct rfx_opt opts[] = {
		{ "blank-on", 0, RFX_OPT_STRING, &blank, "COL",
		  "empty line where COL changes, for gnuplot grid scans (default none)", 0 },
		{ "where", 0, RFX_OPT_MULTI, &where, "COL=VALUE",
		  "only rows whose column equals VALUE, repeatable; without TABLE, only the tables with the column (default: every row)", 0 },
		{ "attrs", 0, RFX_OPT_FLAG, &attrs, NULL,
		  "print the file's attributes (version, commit, command, seed, options) (default off)", 0 },
		{ "describe", 0, RFX_OPT_FLAG, &describe, NULL,
		  "print each column's stored type and description, then the run's typed options, instead of rows (default off)", 0 },
		RFX_OPTION_END
	};

	(void)cli;
	memset(&where, 0, sizeof(where));
	ret = rfx_cli_parse("dump", "FILE.h5 [TABLE] [--where COL=VALUE]... [--attrs | --describe]",
			    "Prints the tables of an rfx HDF5 file as TSV: a header line,\n"
			    "then one line per row. Without TABLE every table is printed,\n"
			    "each after a '# name' line, separated by two blank lines.\n"
			    "Numbers compare by value in --where (gamma=0.1 matches).",
			    opts, argc, argv, pos, 2, &npos, &help);
	if (ret || help)
		return ret;
	if (npos < 1)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "dump needs a file (see 'rfx dump --help')");
	if (attrs + describe + (blank != NULL) + (where.n > 0) > 1 &&
	    (attrs || describe))
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--attrs and --describe take no other option");
	if (attrs) {
		ret = rfx_h5_dump_attrs(pos[0], stdout, &err);
	} else if (describe) {
		ret = rfx_h5_describe(pos[0], npos > 1 ? pos[1] : NULL, stdout,
				      &err);
	} else if (blank) {
		char *text = NULL;
		size_t size = 0;
		FILE *mem = open_memstream(&text, &size);

		if (!mem)
			return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		ret = rfx_h5_dump_where(pos[0], npos > 1 ? pos[1] : NULL,
					where.item, where.n, mem, &err);
		fclose(mem);
		if (!ret && (blank_on(text, blank, NULL) ||
			     blank_on(text, blank, stdout)))
			ret = rfx_error(&err, RFX_EINVAL, "no column '%s' to blank on",
					blank);
		free(text);
	} else {
		ret = rfx_h5_dump_where(pos[0], npos > 1 ? pos[1] : NULL,
					where.item, where.n, stdout, &err);
	}
	if (ret)
		return rfx_cli_fail(rfx_cli_exit_code(ret),
				    "%s", err.msg);
	return RFX_EXIT_OK;
}

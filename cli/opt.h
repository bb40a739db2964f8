/*
 * Table-driven option parsing for the subcommands: each command lists its
 * options (long name, optional one-letter alias, kind, destination, help
 * with the default) once, and gets parsing, strict number checks and
 * --help text from that table.
 */
#ifndef RFX_CLI_OPT_H
#define RFX_CLI_OPT_H

#include <stdio.h>

#include "err.h"

enum rfx_opt_kind {
	RFX_OPT_INT,    /* int */
	RFX_OPT_LONG,   /* long */
	RFX_OPT_U64,    /* unsigned 64-bit (seeds) */
	RFX_OPT_DOUBLE, /* finite double */
	RFX_OPT_STRING, /* const char * */
	RFX_OPT_FLAG,   /* int set to 1, takes no value */
	RFX_OPT_MULTI   /* repeatable string: struct rfx_strlist */
};

struct rfx_strlist {
	int n;                /* items */
	const char *item[64]; /* borrowed from argv */
};

struct rfx_opt {
	const char *name;       /* long name without the dashes */
	char alias;             /* one-letter alias (-o), or 0 */
	enum rfx_opt_kind kind;
	void *dest;             /* where the value goes (see kind) */
	const char *metavar;    /* e.g. "LIST"; NULL for flags */
	const char *help;       /* one line, including the default */
	int seen;               /* set by the parser */
};

/*
 * Parses argv[1..argc-1] (argv[0] is the subcommand) against opts (array
 * terminated by a NULL name). Non-option arguments go to pos (capacity
 * maxpos, count *npos). "--help"/"-h" sets *help. Errors are usage errors
 * (RFX_EINVAL) with one-line messages naming the option and the command.
 */
int rfx_opt_parse(const char *cmd, struct rfx_opt *opts, int argc,
		  char **argv, const char **pos, int maxpos, int *npos,
		  int *help, struct rfx_err *err);

/* Prints "usage: ..." and the option table to out. */
void rfx_opt_help(const char *cmd, const char *usage, const char *summary,
		  const struct rfx_opt *opts, FILE *out);

/*
 * Parses a comma-separated list of finite numbers into a new array
 * (*out, caller frees, *n items). what names the option in messages.
 */
int rfx_opt_doubles(const char *what, const char *list, double **out, int *n,
		    struct rfx_err *err);

#endif

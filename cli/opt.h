/*
 * Table-driven option parsing for the subcommands: each command lists its
 * options (long name, optional one-letter alias, kind, destination, help
 * with the default) once, and gets parsing, strict number checks and
 * --help text from that table.
 */
#ifndef RFX_CLI_OPT_H
#define RFX_CLI_OPT_H

#include <stdio.h>

#include "base/err.h"

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
 * The entries most commands share, spelled once so that their help reads
 * the same everywhere. what says what -o writes ("the table", ...).
 */
#define RFX_OPTION_SEED(dest) \
	{ "seed", 0, RFX_OPT_U64, (dest), "S", "random seed (default 20221121)", 0 }
#define RFX_OPTION_THREADS(dest) \
	{ "threads", 0, RFX_OPT_INT, (dest), "T", "OpenMP threads (default: all cores)", 0 }
#define RFX_OPTION_OUTPUT(dest, what) \
	{ "output", 'o', RFX_OPT_STRING, (dest), "FILE.h5", \
	  "also write " what " to this HDF5 file (default none: stdout only)", 0 }
#define RFX_OPTION_DATA(dest) \
	{ "data", 0, RFX_OPT_STRING, (dest), "DIR", \
	  "the datasets' directory (default $RFX_DATA, else data/ next to rfx)", 0 }
#define RFX_OPTION_END { NULL, 0, 0, NULL, NULL, NULL, 0 }

/*
 * An option that only some modes of a command accept (modes: a bit mask
 * of the command's own mode bits). Passing it in another mode is a usage
 * error rather than silently ignored.
 */
struct rfx_opt_mode {
	const char *name;
	unsigned modes;
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

/* Whether option name (long form) was given; 0 for an unknown name. */
int rfx_opt_seen(const struct rfx_opt *opts, const char *name);

/*
 * RFX_EINVAL, "--NAME does not apply to MODE_NAME", for the first given
 * option whose entry in table (n entries) excludes mode.
 */
int rfx_opt_check_modes(const struct rfx_opt *opts,
			const struct rfx_opt_mode *table, size_t n,
			unsigned mode, const char *mode_name,
			struct rfx_err *err);

/* Prints "usage: ..." and the option table to out. */
void rfx_opt_help(const char *cmd, const char *usage, const char *summary,
		  const struct rfx_opt *opts, FILE *out);

/*
 * Parses a comma-separated list of finite numbers into a new array
 * (*out, caller frees, *n items). what names the option in messages.
 */
int rfx_opt_doubles(const char *what, const char *list, double **out, int *n,
		    struct rfx_err *err);

/*
 * Splits a comma-separated list into at most max items, copied into buf
 * (capacity n) and pointed to by item[0..*count-1]. RFX_EINVAL for an
 * empty item, too many items or a list longer than buf.
 */
int rfx_opt_split(const char *what, const char *list, char *buf, size_t n,
		  const char **item, int max, int *count, struct rfx_err *err);

/*
 * Parses a comma-separated list of at most max integers in lo..hi into
 * out (*n items). RFX_EINVAL naming --what otherwise.
 */
int rfx_opt_ints(const char *what, const char *list, int *out, int max,
		 int lo, int hi, int *n, struct rfx_err *err);

#endif

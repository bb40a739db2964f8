/*
 * Table-driven option parsing for the subcommands: each command lists its
 * options (long name, optional one-letter alias, kind, destination, help,
 * and optionally bounds, a default and a parser into a typed value) once,
 * and gets parsing, strict number checks, range checks, "did you mean"
 * for misspelt options and --help text from that table. A command then
 * reads typed values (ints, doubles, enums), never strings to re-parse.
 */
#ifndef RFX_CLI_OPT_H
#define RFX_CLI_OPT_H

#include <math.h>
#include <stdio.h>

#include "base/err.h"

enum rfx_opt_kind {
	RFX_OPT_INT,    /* int */
	RFX_OPT_LONG,   /* long */
	RFX_OPT_U64,    /* unsigned 64-bit (seeds) */
	RFX_OPT_DOUBLE, /* finite double */
	RFX_OPT_STRING, /* const char * */
	RFX_OPT_FLAG,   /* int set to 1, takes no value */
	RFX_OPT_MULTI,  /* repeatable string: struct rfx_strlist */
	RFX_OPT_CHOICE, /* int: the index of the value in choices[] */
	RFX_OPT_PARSE   /* anything: parse(value, dest, err) fills it in */
};

/*
 * Bounds of a numeric option (RFX_OPT_INT, RFX_OPT_LONG, RFX_OPT_DOUBLE),
 * checked when the option is parsed; a value outside them is a usage
 * error "--NAME must be in LO..HI, got V". Zero (no RFX_RANGE_ON) means
 * unchecked. Write them with the RFX_RANGE* macros below.
 */
struct rfx_opt_range {
	double lo, hi;  /* lo <= value <= hi, inclusive unless flags say open */
	unsigned flags; /* RFX_RANGE_* */
};
#define RFX_RANGE_ON 0x1u      /* the bounds are checked */
#define RFX_RANGE_LO_OPEN 0x2u /* lo < value */
#define RFX_RANGE_HI_OPEN 0x4u /* value < hi */
#define RFX_RANGE_ZERO 0x8u    /* 0 is valid too (means none or all) */

/* lo..hi inclusive; hi may be HUGE_VAL for "at least lo". */
#define RFX_RANGE(lo, hi) { (lo), (hi), RFX_RANGE_ON }
/* 0 or lo..hi (0 standing for none, all cores, all items). */
#define RFX_RANGE_OR0(lo, hi) { (lo), (hi), RFX_RANGE_ON | RFX_RANGE_ZERO }
/* (lo, hi]: lo excluded, e.g. RFX_RANGE_ABOVE(0, 10) for 0 < v <= 10. */
#define RFX_RANGE_ABOVE(lo, hi) { (lo), (hi), RFX_RANGE_ON | RFX_RANGE_LO_OPEN }
/* Any positive number. */
#define RFX_RANGE_POSITIVE RFX_RANGE_ABOVE(0, HUGE_VAL)
#define RFX_RANGE_NONE { 0, 0, 0 }

/*
 * The items of a comma-separated list option (RFX_OPT_STRING or
 * RFX_OPT_PARSE whose value is a list, e.g. --gamma 0.5,1): the command
 * parses the text itself; the type tells the -o file's option record
 * (cli/output.c) to store the list as an array of that type.
 */
enum rfx_opt_list {
	RFX_LIST_NONE,    /* not a list: one value */
	RFX_LIST_STRINGS, /* names: method, dataset, ... */
	RFX_LIST_INTS,    /* integers: dimensions, budgets */
	RFX_LIST_DOUBLES  /* reals: gammas, lengths */
};

struct rfx_strlist {
	int n;                /* items */
	const char *item[64]; /* borrowed from argv */
};

/*
 * One option. The first seven fields are the ones every entry spells
 * out; the rest are optional (zero: unused), so that an entry written
 * positionally with seven fields stays valid (the Makefile turns off
 * -Wmissing-field-initializers for that, as git's does).
 */
struct rfx_opt {
	const char *name;       /* long name without the dashes */
	char alias;             /* one-letter alias (-o), or 0 */
	enum rfx_opt_kind kind;
	void *dest;             /* where the value goes (see kind) */
	const char *metavar;    /* e.g. "LIST"; NULL for flags */
	const char *help;       /* one line; states the default unless dflt does */
	int seen;               /* set by the parser */
	struct rfx_opt_range range;   /* numeric bounds, or RFX_RANGE_NONE */
	const char *const *choices;   /* RFX_OPT_CHOICE: NULL-terminated names */
	/* RFX_OPT_PARSE: parses value into dest; RFX_EINVAL with a message */
	int (*parse)(const char *value, void *dest, struct rfx_err *err);
	/*
	 * The default as the user would type it, parsed (and range-checked)
	 * like a given value before argv is read, and shown in --help as
	 * "(default DFLT)"; NULL: dest's initial value is the default.
	 */
	const char *dflt;
	enum rfx_opt_list list;  /* a list option's item type, or RFX_LIST_NONE */
	const char *text;        /* set by the parser: the value as last given
				    (or dflt), NULL if none */
};

/*
 * The entries most commands share, spelled once so that their help reads
 * the same everywhere. what says what -o writes ("the table", ...).
 */
#define RFX_OPTION_SEED(dest) \
	{ "seed", 0, RFX_OPT_U64, (dest), "S", "random seed (default 20221121)", 0 }
/*
 * --header, the text loader's (lib/data/matrix.h) forced header: files
 * names the text inputs it concerns, pre the mode it belongs to ("" or
 * "files: "); a first line of names only is a header without it.
 */
#define RFX_OPTION_HEADER(dest, pre, files) \
	{ "header", 0, RFX_OPT_FLAG, (dest), NULL, \
	  pre "the first line of " files " is a header (default: detected)", 0 }
/*
 * The most threads --threads and OMP_NUM_THREADS may ask for: more cores
 * than any node has (the results are the same bytes whatever the count),
 * and far below what breaks libgomp: a team of 100000 overflowed its
 * stack (SIGSEGV in GOMP_parallel) and one of 50000 ended the process
 * from inside libgomp ("Thread creation failed"), bypassing rfx's
 * clean-up of its temporary file.
 */
#define RFX_THREADS_MAX 1024
#define RFX_OPTION_THREADS(dest) \
	{ "threads", 0, RFX_OPT_INT, (dest), "T", "OpenMP threads (default: all cores)", 0, \
	  RFX_RANGE(0, RFX_THREADS_MAX) }
#define RFX_OPTION_OUTPUT(dest, what) \
	{ "output", 'o', RFX_OPT_STRING, (dest), "FILE.h5", \
	  "also write " what " to this HDF5 file (default none: stdout only)", 0 }
#define RFX_OPTION_DATA(dest) \
	{ "data", 0, RFX_OPT_STRING, (dest), "DIR", \
	  "the datasets' directory (default $RFX_DATA, else data/ next to rfx)", 0 }
#define RFX_OPTION_END { NULL, 0, 0, NULL, NULL, NULL, 0, RFX_RANGE_NONE, NULL, NULL, NULL, \
			 RFX_LIST_NONE, NULL }

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
 * terminated by a NULL name): first every dflt, then argv. Non-option
 * arguments go to pos (capacity maxpos, count *npos). "--help"/"-h" sets
 * *help. Errors are usage errors (RFX_EINVAL) with one-line messages
 * naming the option and the command; an unknown option suggests the
 * nearest known one.
 */
int rfx_opt_parse(const char *cmd, struct rfx_opt *opts, int argc,
		  char **argv, const char **pos, int maxpos, int *npos,
		  int *help, struct rfx_err *err);

/*
 * Checks v against range r for option name: RFX_OK, or RFX_EINVAL with
 * "--NAME must be in LO..HI, got V" (integers) or an interval (numbers).
 */
int rfx_opt_check_range(const char *name, const struct rfx_opt_range *r,
			double v, int integer, struct rfx_err *err);

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
 * rfx_opt_doubles for the values a sweep crosses (gammas, ratios, radii,
 * ...): RFX_EINVAL also for a value listed twice, which would only repeat
 * its rows, as a name listed twice (rfx_opt_split). Coordinates (--x,
 * --y) and per-item targets (clustered's --s) go through rfx_opt_doubles.
 */
int rfx_opt_sweep(const char *what, const char *list, double **out, int *n,
		  struct rfx_err *err);

/*
 * Splits a comma-separated list into at most max items, copied into buf
 * (capacity n) and pointed to by item[0..*count-1]. RFX_EINVAL for an
 * empty item, an item listed twice (every such list is of names that a
 * sweep crosses: a repeat would only repeat its rows), too many items or
 * a list longer than buf.
 */
int rfx_opt_split(const char *what, const char *list, char *buf, size_t n,
		  const char **item, int max, int *count, struct rfx_err *err);

/*
 * Parses a comma-separated list of at most max distinct integers in
 * lo..hi into out (*n items; every such list is a sweep, as
 * rfx_opt_sweep's). RFX_EINVAL naming --what otherwise.
 */
int rfx_opt_ints(const char *what, const char *list, int *out, int max,
		 int lo, int hi, int *n, struct rfx_err *err);

/* rfx_opt_ints into a new array *out (free()d by the caller), any length. */
int rfx_opt_ints_alloc(const char *what, const char *list, int lo, int hi,
		       int **out, int *n, struct rfx_err *err);

/*
 * Parsers for RFX_OPT_PARSE entries of values several commands share:
 * a projection kind into an enum rfx_proj (lib/proj/proj.h).
 */
int rfx_opt_proj(const char *value, void *dest, struct rfx_err *err);

#endif

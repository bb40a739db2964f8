/*
 * Command output: TSV tables on stdout and, with -o, the same tables in an
 * HDF5 file written atomically (lib/io/table.h) with the run's provenance.
 * Also the error and progress lines on stderr, so every command words
 * them the same way.
 */
#ifndef RFX_CLI_OUTPUT_H
#define RFX_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "cmds.h"
#include "base/err.h"
#include "data/matrix.h"
#include "opt.h"
#include "io/h5out.h"
#include "io/outfile.h"
#include "io/table.h"

/* The -o file of a run: HDF5 tables, or bytes the command writes itself. */
struct rfx_out {
	struct rfx_h5out *h5;     /* NULL without -o or for raw */
	struct rfx_outfile *raw;  /* rfx_out_open_raw's file, else NULL */
};

/*
 * The one mapping from a library status to an exit status: RFX_OK is 0,
 * RFX_EINVAL (a value the user gave is out of its range) is 2, a signal's
 * RFX_EINTR and every other failure 1 (main turns an interrupted run's
 * status into 128 + signal).
 */
int rfx_cli_exit_code(int status);

/*
 * "rfx: <err->msg>" on stderr after a failure; returns
 * rfx_cli_exit_code(err->code), or 1 when err holds no status.
 */
int rfx_cli_error(const struct rfx_err *err);

/*
 * Sets OpenMP's thread count to threads (0: the default, every core or
 * OMP_NUM_THREADS) and has OpenBLAS map the buffers of that many threads
 * at once (num/blas.h), so that no product hangs for want of one under a
 * tight `ulimit -v`: when fewer fit, as many threads as fit. The same when
 * fewer threads can be started (a limit on processes, `ulimit -u`): as
 * many as can (the results are the same bytes whatever the count).
 * Returns the count set; 0, with nothing set or printed, when not even
 * one buffer fits.
 */
int rfx_cli_threads(int threads);

/* "rfx: <msg>" on stderr; returns code. */
int rfx_cli_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "rfx: warning: <msg>" on stderr, one line: the run goes on. */
void rfx_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The start every command shares: parses argv against opts (cli/opt.h),
 * keeps a copy of the table for the -o file's options (rfx_out_options)
 * and answers --help; an empty -o, or one whose name does not end in .h5
 * or .hdf5, is a usage error; --threads T > 0 (RFX_OPTION_THREADS) sets
 * OpenMP's thread count. Returns RFX_EXIT_USAGE after reporting a bad
 * command line; otherwise RFX_EXIT_OK, with *help set when the help was
 * printed and the command is done.
 */
int rfx_cli_parse(const char *cmd, const char *usage, const char *summary,
		  struct rfx_opt *opts, int argc, char **argv, const char **pos,
		  int maxpos, int *npos, int *help);

/*
 * The name rules of an output file (every -o, merge's OUT): RFX_EXIT_OK,
 * or RFX_EXIT_USAGE after one line on stderr for a name that ends in none
 * of suffixes (NULL-terminated, any case) or is the suffix alone after its
 * directory (-o .h5 would be a hidden file that ls does not show, most
 * likely a shell variable that expanded to nothing in "$name.h5"). kind
 * names the format in the message.
 */
int rfx_out_check_name(const char *path, const char *const *suffixes,
		       const char *kind);

/* The suffixes of an HDF5 output: .h5, .hdf5. */
extern const char *const rfx_out_h5_suffixes[];

/*
 * rfx_opt_check_modes as a command's exit status: RFX_EXIT_USAGE after
 * reporting an option given outside its modes, else RFX_EXIT_OK.
 */
int rfx_cli_check_modes(const struct rfx_opt *opts,
			const struct rfx_opt_mode *table, size_t n,
			unsigned mode, const char *mode_name);

/*
 * Opens the -o file (path may be NULL: no file) and records its temporary
 * name for the signal handler. RFX_EIO with err set on failure.
 */
int rfx_out_open(struct rfx_out *o, const char *path, struct rfx_err *err);

/*
 * The same for a file whose bytes the command writes with rfx_out_write
 * (the .npy of `rfx features`), with the same rules, temporary and
 * commit: o->raw.
 */
int rfx_out_open_raw(struct rfx_out *o, const char *path,
		     struct rfx_err *err);

/* Appends n bytes to a raw -o file; RFX_EIO with err set on failure. */
int rfx_out_write(struct rfx_out *o, const void *buf, size_t n,
		  struct rfx_err *err);

/*
 * Loads an input file (--x-file, --dataset FILE, ...; lib/data/matrix.h)
 * and notes its path, size and SHA-256 for the provenance of the -o file.
 * Returns RFX_EXIT_OK, or RFX_EXIT_FAIL after printing the loader's one
 * error line (m is then empty).
 */
int rfx_cli_load_matrix(struct rfx_matrix *m, const char *spec,
			const struct rfx_matrix_opts *o);

/*
 * Whether a --dataset item names one of the user's files rather than a
 * shipped dataset: it contains '/', '.' or ':' (x.csv, ./x, x.h5:/d), which
 * no shipped name does.
 */
int rfx_cli_is_file(const char *name);

/*
 * A labelled dataset from the user's files (--dataset FILE with --labels
 * FILE or --label-column N, N 1-based, of a text or .npy file): the rows
 * of spec in m and their classes in m->labels (0..m->nclass-1, numbered in
 * increasing order of the label's value or text). header forces a header
 * line in text files. Returns RFX_EXIT_OK; RFX_EXIT_USAGE when neither or
 * both of labels and label_column are given; RFX_EXIT_FAIL after the
 * loader's error line, or "'y.txt' has 99 labels but 'x.csv' has 100
 * rows", or fewer than 2 classes.
 */
int rfx_cli_load_labelled(struct rfx_matrix *m, const char *spec,
			  const char *labels, int label_column, int header);

/*
 * Root attributes: version, commit, command line, seed and generator, and
 * each input file loaded so far through rfx_cli_load_matrix; then the
 * options (rfx_out_options).
 */
int rfx_out_provenance(struct rfx_out *o, const struct rfx_cli *cli,
		       uint64_t seed, struct rfx_err *err);

/*
 * The run's options in the file's "/options" group (io/h5out.h's
 * rfx_h5out_option), generated from the option table rfx_cli_parse read
 * last: every option but --output and --threads, and but those the
 * command's mode table (rfx_cli_check_modes) says its mode ignores, given
 * or not, with the value the command holds when the file is written. An integer or a flag
 * (0 or 1) is an int64, --seed a uint64, a number a double, a choice or
 * a string its text, a list option (opt.h's list) an array of its items'
 * type, a repeatable option (--param) an array of strings; a string
 * option without a value is left out. Called by rfx_out_provenance.
 */
int rfx_out_options(struct rfx_out *o, struct rfx_err *err);

/*
 * Prints rows as TSV to tsv (when not NULL) and writes them to the file
 * (when open) as table s->name.
 */
int rfx_out_table(struct rfx_out *o, const struct rfx_schema *s,
		  const void *rows, size_t n, FILE *tsv, struct rfx_err *err);

/*
 * Renames the file into place, the last step of a run: first flushes
 * stdout, and removes the file instead of renaming it when stdout failed
 * (RFX_EIO "cannot write to standard output") or a signal has asked the
 * run to stop (RFX_EINTR); removes it too when the commit fails.
 */
int rfx_out_commit(struct rfx_out *o, struct rfx_err *err);

/* Removes the temporary file, if any. */
void rfx_out_abort(struct rfx_out *o);

/* Prints rows of schema s as TSV with a header line. */
void rfx_tsv_print(const struct rfx_schema *s, const void *rows, size_t n,
		   FILE *out);

/*
 * "rfx: seed S, rng NAME" on stderr: a sampled run says how to repeat it
 * even when its table goes to a pipe. rfx_seed_note only records the seed;
 * main() prints the line through rfx_seed_flush once the command has
 * succeeded, so that a failed run's stderr is its one error line.
 */
void rfx_seed_note(uint64_t seed);
void rfx_seed_flush(void);

/* Whether a seed was noted, and which (for shard files). */
int rfx_seed_noted(uint64_t *seed);

/*
 * The data directory a command reads: --data when given (opt not NULL),
 * else $RFX_DATA, else the build's default (cli->data_dir), into buf.
 */
void rfx_cli_data_dir(const char *opt, const struct rfx_cli *cli, char *buf,
		      size_t n);

/* Progress on stderr when it is a terminal: "rfx: variance 12/200". */
void rfx_progress(void *what, int done, int total);

/* Temporary output file to remove if a second signal kills the run. */
extern const char *volatile rfx_cli_tmpfile;

#endif

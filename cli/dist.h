/*
 * Distributed runs of any experiment subcommand: mpirun (in the MPI
 * build, make MPI=1), --shard i/N for job arrays, and the replay behind
 * rfx merge. Each installs a runner for lib/base/cells.h, so a command's
 * code is the same in every kind of run; this file decides who computes
 * which cells, moves their results, and who writes.
 *
 * - mpirun -n K rfx CMD ...: cells are partitioned over the K ranks by
 *   cost (rfx_cells_partition), each rank computes its share with its
 *   OpenMP threads, results are gathered to every rank in cell order, and
 *   rank 0 alone writes stdout, stderr and the -o file. An error on any
 *   rank (the lowest failing rank's message) or a signal ends every rank
 *   with the usual exit status and no file.
 * - rfx CMD ... -o FILE --shard i/N: computes shard i's share of the
 *   command's first sweep and writes it to FILE.shard-i-of-N (lib/io/
 *   shard.h), then exits 0; nothing goes to stdout or FILE.
 * - rfx merge OUT SHARD...: replays the shards' serial command line with
 *   the first sweep's cells read from the shards, writing OUT.
 *
 * Files record the serial command line: --shard is taken out of argv
 * before anything sees it, and mpirun's own arguments never reach rfx.
 */
#ifndef RFX_CLI_DIST_H
#define RFX_CLI_DIST_H

#include "cmds.h"
#include "io/shard.h"

/*
 * Takes --shard i/N (or --shard=i/N) out of argv for command cmd (before
 * its command line is recorded) and notes the -o FILE it will name the
 * shard after. Returns RFX_EXIT_USAGE after reporting a bad --shard,
 * else RFX_EXIT_OK. Commands that are not experiments leave --shard to
 * their own parser (which refuses it).
 */
int rfx_dist_args(const char *cmd, int *argc, char **argv);

/*
 * Starts the run: MPI_Init when launched by mpirun (MPI build), and the
 * runner of the mode. Non-writing processes get stdout and stderr on
 * /dev/null. Returns an exit code (RFX_EXIT_FAIL when MPI cannot start).
 */
int rfx_dist_start(const struct rfx_cli *cli);

/*
 * Ends the run with the command's exit status ret: writes a shard that
 * had no sweep (the command computed everything itself), finalises MPI,
 * and returns the exit status to use.
 */
int rfx_dist_finish(int ret);

/* Whether this process writes stdout and -o (rank 0; not a shard). */
int rfx_dist_writer(void);

/* The path -o writes: path, or rfx merge's OUT while it replays. */
const char *rfx_dist_output(const char *path);

/*
 * Replays the serial run of the n shards s[] (already checked to belong
 * together) into out: the command's first sweep takes its cells from the
 * shards. Returns the command's exit status.
 */
int rfx_dist_replay(const struct rfx_shard *s, int n, const char *out,
		    const struct rfx_cli *cli);

#endif

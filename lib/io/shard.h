/*
 * Shard files: one job's share of a sweep's cells (lib/base/cells.h), with
 * what rfx merge needs to check that shards belong to one run and to
 * rebuild that run's output.
 *
 * A shard is an HDF5 file written atomically (lib/io/table.h's writer,
 * object times off). Root attributes, all strings: rfx_shard ("1", the
 * format), version, commit, command_line (the serial command line: the
 * shard's own without --shard), seed ("none" for a command that draws
 * nothing), rng, blas (optional: the BLAS kernels, which decide the last
 * bits of products), shard ("i/N") and sweeps (how many follow; 0 for a
 * command without cells). Dataset /argv: the serial argv, each argument
 * NUL-terminated (uint8). Group /sweepK for each sweep K of the command
 * the shard computed a share of, with string attributes experiment (the
 * sweep's name), ncells and cell_size, and datasets cells (the indices of
 * the cells this shard computed, increasing, uint64) and data (their
 * results, cell_size bytes each in that order, uint8).
 */
#ifndef RFX_SHARD_H
#define RFX_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* One sweep's share. */
struct rfx_shard_sweep {
	char *experiment;        /* sweep name */
	uint64_t ncells;         /* cells of the whole sweep */
	uint64_t cell_size;      /* bytes of one cell's result */
	size_t nown;             /* cells in this shard */
	uint64_t *cells;         /* their indices, increasing */
	unsigned char *data;     /* nown * cell_size bytes */
};

struct rfx_shard {
	int index, count;        /* shard index of count, 0 <= index < count */
	char *command;           /* serial command line, shell-quoted */
	int argc;                /* serial argv, argv[0] = "rfx" */
	char **argv;
	char *version, *commit;  /* of the rfx that wrote it */
	char *seed;              /* decimal, or "none" */
	char *rng;               /* generator name */
	char *blas;              /* the BLAS and its kernels (num/blas.h's
				    rfx_blas_describe); NULL: not recorded */
	int nsweeps;             /* sweeps recorded, in the command's order */
	struct rfx_shard_sweep *sweeps;
};

/*
 * Writes s to path (atomically: a temporary renamed on success). Borrows
 * s. RFX_EINVAL for an inconsistent s (index out of range, cells not
 * increasing or beyond ncells), RFX_EIO as rfx_h5out_open/commit.
 */
int rfx_shard_write(const char *path, const struct rfx_shard *s,
		    struct rfx_err *err);

/*
 * Reads the shard at path into s (zeroed first; owned by s afterwards,
 * free with rfx_shard_release, also after a failure). RFX_EIO when the
 * file cannot be opened, RFX_EFORMAT naming path when it is not an rfx
 * shard or is inconsistent.
 */
int rfx_shard_read(const char *path, struct rfx_shard *s, struct rfx_err *err);

/* Frees what rfx_shard_read allocated; s is zeroed. */
void rfx_shard_release(struct rfx_shard *s);

#endif

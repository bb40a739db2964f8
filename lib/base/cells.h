/*
 * Cells: the independent units of an experiment's sweep, and the one path
 * by which they are computed whether the run is serial, spread over MPI
 * ranks, or cut into shards for a job array.
 *
 * An experiment describes its sweep as n cells (a (regime, gamma, sample)
 * task, a (dataset, method, repetition), ...), each computed by one call
 * of compute() into its own fixed-size, pointer-free result buffer, and
 * calls rfx_cells_run(). Everything before that call (loading data,
 * planning) and after it (aggregating the buffers in cell order into
 * rows, writing them) is the same code in every kind of run, and a cell's
 * random streams are keyed by its own indices (lib/base/rng.h), so a cell
 * computes the same bytes wherever it runs: the distributed run's output
 * is the serial run's, byte for byte.
 *
 * Without a runner installed rfx_cells_run() computes every cell here,
 * in parallel over the OpenMP threads. The command line installs one
 * (cli/dist.c) for mpirun, --shard and rfx merge: it partitions the cells
 * with rfx_cells_partition(), computes its share with rfx_cells_compute()
 * and fills in the rest of the buffers (gathered from the other ranks, or
 * read back from shard files). A command may run several sweeps; a
 * shard computes its share of the first and of every later one marked
 * standalone up to the first that is not, and rfx merge computes the
 * rest (and everything outside the sweeps) again.
 */
#ifndef RFX_CELLS_H
#define RFX_CELLS_H

#include <stddef.h>

#include "base/err.h"

struct rfx_cells {
	const char *name;  /* the sweep, e.g. "variance": shards record it */
	size_t n;          /* number of cells */
	size_t size;       /* bytes of one cell's result (no pointers inside) */
	void *out;         /* n * size bytes: cell i at out + i * size */
	void *ctx;         /* the experiment's, passed to every hook */
	/* Relative cost of cell i (any unit), or NULL: all cells equal. */
	double (*cost)(void *ctx, size_t i);
	/*
	 * A thread's workspace (NULL hooks: none). ws_alloc returns NULL when
	 * out of memory; ws_free(NULL) is a no-op.
	 */
	void *(*ws_alloc)(void *ctx);
	void (*ws_free)(void *ws);
	/* Computes cell i into out (size bytes, zeroed before the call). */
	int (*compute)(void *ctx, void *ws, size_t i, void *out,
		       struct rfx_err *err);
	/*
	 * Non-zero: the cells' inputs do not depend on the results of an
	 * earlier sweep of the same command (e.g. the next dataset's sweep),
	 * so a shard computes its share of this sweep too; otherwise a shard
	 * stops before it and rfx merge computes it. A command's first sweep
	 * is always a shard's.
	 */
	int standalone;
	/*
	 * Non-zero: cells run one after another, each parallel inside
	 * (for cells whose memory should not be multiplied by the threads).
	 */
	int inner_parallel;
	/* Progress: done of total cells of this process; may be NULL. */
	void (*progress)(void *pctx, int done, int total);
	void *progress_ctx;
};

/*
 * Computes the cells of c into c->out: all of them here, or through the
 * installed runner. On failure returns the error of the lowest-numbered
 * failing cell (RFX_EINTR once a cancellation was requested), whatever
 * the thread or rank count.
 */
int rfx_cells_run(const struct rfx_cells *c, struct rfx_err *err);

/*
 * Computes the nidx cells idx[0..nidx-1] (every cell when idx is NULL)
 * into their slots of c->out, in parallel over the OpenMP threads.
 * Errors as rfx_cells_run, plus RFX_ENOMEM.
 */
int rfx_cells_compute(const struct rfx_cells *c, const size_t *idx,
		      size_t nidx, struct rfx_err *err);

/*
 * A static partition of the n cells into nparts parts balanced by cost:
 * cells in decreasing cost (ties: lower index first) each go to the part
 * with the least cost so far (ties: the lower part), Graham's LPT rule.
 * owner gets n entries in 0..nparts-1; the result depends only on n,
 * nparts and the costs. RFX_EINVAL for nparts < 1, RFX_ENOMEM.
 */
int rfx_cells_partition(const struct rfx_cells *c, int nparts, int *owner,
			struct rfx_err *err);

/*
 * The runner of a distributed run: run() has rfx_cells_run's contract.
 * Installed once by the program before any experiment runs; NULL
 * restores the serial path.
 */
struct rfx_cells_runner {
	int (*run)(void *rctx, const struct rfx_cells *c, struct rfx_err *err);
	void *rctx;
};

void rfx_cells_set_runner(const struct rfx_cells_runner *r);

#endif

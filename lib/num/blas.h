/*
 * OpenBLAS threading around rfx's own OpenMP parallelism. rfx parallelises
 * over tasks and row blocks and wants every dgemm on one BLAS thread, both
 * to avoid oversubscription and because a multi-threaded dgemm may round
 * differently, which would make results depend on the thread count.
 *
 * OpenBLAS built on pthreads has a thread count of its own, which must be
 * set to 1 for the duration; OpenBLAS built on OpenMP runs single-threaded
 * inside a parallel region by itself, and there openblas_set_num_threads
 * would change OpenMP's own count instead, so it must not be called.
 */
#ifndef RFX_BLAS_H
#define RFX_BLAS_H

#include "base/cells.h"
#include "base/err.h"

/*
 * Makes OpenBLAS single-threaded if it has threads of its own; returns the
 * value to hand to rfx_blas_single_end().
 */
int rfx_blas_single_begin(void);

/* Restores what rfx_blas_single_begin() changed. */
void rfx_blas_single_end(int saved);

/*
 * rfx_cells_run (lib/base/cells.h) with OpenBLAS single-threaded for the
 * whole sweep, the cells being rfx's parallelism: the run of an
 * experiment whose cells call dgemm. Returns what rfx_cells_run returns.
 */
int rfx_blas_cells_run(const struct rfx_cells *cells, struct rfx_err *err);

#endif

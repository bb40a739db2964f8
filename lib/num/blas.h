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
 *
 * OpenBLAS 0.3.21 also needs a 128 MiB buffer for each call running at
 * once (a dgemm, LAPACK's QR), which it maps on first need and keeps; when
 * it cannot map one (a tight `ulimit -v`) it retries for ever, so the run
 * hangs in its first product (fixed upstream in 2025, OpenBLAS PR 5303).
 * rfx_blas_reserve() has it map them up front, or says how many fit.
 */
#ifndef RFX_BLAS_H
#define RFX_BLAS_H

#include "base/cells.h"
#include "base/err.h"

/*
 * Has OpenBLAS run kernels made for the CPU it runs on when it does not
 * know that CPU. OpenBLAS 0.3.21 (Debian 12's) picks its kernels by CPU
 * model and falls back to older ones on models newer than itself: on
 * the Xeons of 2023-24 it ran Haswell's AVX2 kernels (family 6 model 143)
 * or Prescott's SSE3 ones (model 207), where its dgemm ran at 11-17
 * GFLOP/s on one core (Prescott), 39 (Haswell) and 72 with its SkylakeX
 * kernels (bench/README.md, "OpenBLAS's kernels"). When OpenBLAS is a
 * DYNAMIC_ARCH build running an Intel-line core older than the newest
 * whose instructions the CPU and the OS support (AVX-512 F, CD, BW, DQ
 * and VL: SkylakeX; else AVX2 and FMA: Haswell), and the environment does
 * not name a core (OPENBLAS_CORETYPE, which always wins), it reruns
 * OpenBLAS's own core selection with OPENBLAS_CORETYPE naming that core,
 * which is what a user who knew would do. Other lines (AMD's) are left
 * as OpenBLAS chose them. It changes the BLAS of the whole process, so only a
 * program calls it (cli/rfx.c, bench/), once, from its main thread, before
 * any BLAS call; librfx never does (its host owns its BLAS). Returns 1
 * when it changed the core, else 0.
 */
int rfx_blas_fit_core(void);

/*
 * The BLAS in one line for the record (the "blas" attribute of every
 * HDF5 file, `rfx version`): OpenBLAS's configuration string, which names
 * its version and core, with " (core set by rfx)" after
 * rfx_blas_fit_core changed it. Results that go through the BLAS may
 * differ in their last bits from one core to another. Static storage.
 */
const char *rfx_blas_describe(void);

/*
 * Makes OpenBLAS single-threaded if it has threads of its own; returns the
 * value to hand to rfx_blas_single_end().
 */
int rfx_blas_single_begin(void);

/* Restores what rfx_blas_single_begin() changed. */
void rfx_blas_single_end(int saved);

/*
 * Makes OpenBLAS hold the buffers of nthreads calls running at once, so
 * that no later call with at most that many threads maps one. Returns
 * nthreads when it could (or the BLAS is not OpenBLAS), else how many
 * buffers fit in the address space left: 0 means that a BLAS call would
 * hang (run none), k > 0 that at most k threads may call BLAS at once.
 * Call it from one thread while no other allocates (the check maps the
 * buffers, unmaps them and lets OpenBLAS map them at once). Buffers once
 * held stay held; asking again for as many or fewer costs nothing.
 */
int rfx_blas_reserve(int nthreads);

/*
 * rfx_cells_run (lib/base/cells.h) with OpenBLAS single-threaded for the
 * whole sweep, the cells being rfx's parallelism: the run of an
 * experiment whose cells call dgemm. Returns what rfx_cells_run returns.
 */
int rfx_blas_cells_run(const struct rfx_cells *cells, struct rfx_err *err);

#endif

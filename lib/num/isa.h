/*
 * Which of the CPU-dependent kernels this process runs, in one line for
 * the record. Each of them decides the last bits of what it computes:
 * OpenBLAS's core (rfx_blas_describe), and rfx's own choices, made once
 * per process from the CPU: the vector math (vmath.h: avx512 or
 * generic, whose exp, sin and cos round differently), the small products
 * (gemm.h: avx512 or OpenBLAS), the Bessel sums (bessel.h) and the level
 * of the RFX_SIMD_CLONES functions (logmath.h: avx512f, avx2 or default,
 * whose omp simd reductions add in the order of their vector width).
 * Two processes whose lines are equal give the same bytes for the same
 * command and seed; where they differ, the results agree to rounding.
 * The SVM's kernels are left out: they give the same bits by design
 * (lib/eval/svm.c).
 *
 * The "blas" attribute of every HDF5 file and shard, `rfx --version`'s
 * second line, and what rfx merge and the MPI ranks compare.
 */
#ifndef RFX_ISA_H
#define RFX_ISA_H

/*
 * "<BLAS>; rfx kernels: vmath V, gemm G, bessel B, clones C" in static
 * storage; from the main thread, after rfx_blas_fit_core if at all.
 */
const char *rfx_isa_describe(void);

/*
 * The clone of the RFX_SIMD_CLONES functions this CPU runs: "avx512f",
 * "avx2" or "default" ("default" too in builds without clones).
 */
const char *rfx_isa_clones(void);

#endif

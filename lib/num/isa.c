/*
 * The line of num/isa.h: the BLAS's description and the names the kernel
 * modules give their own choice.
 */
#include "num/isa.h"

#include <stdio.h>

#include "num/bessel.h"
#include "num/blas.h"
#include "num/gemm.h"
#include "num/logmath.h"
#include "num/vmath.h"

const char *rfx_isa_clones(void)
{
#ifdef RFX_SIMD_CLONES_ON
	/* the resolver's order: the first of RFX_SIMD_CLONES's the CPU runs */
	if (__builtin_cpu_supports("avx512f"))
		return "avx512f";
	if (__builtin_cpu_supports("avx2"))
		return "avx2";
#endif
	return "default";
}

const char *rfx_isa_describe(void)
{
	static char line[512];

	/* main thread only, as rfx_blas_describe (whose line it copies) */
	snprintf(line, sizeof(line),
		 "%s; rfx kernels: vmath %s, gemm %s, bessel %s, clones %s",
		 rfx_blas_describe(), rfx_vmath_kernel_name(),
		 rfx_gemm_kernel_name(), rfx_bessel_kernel_name(),
		 rfx_isa_clones());
	return line;
}

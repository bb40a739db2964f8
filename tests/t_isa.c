/*
 * Tests of lib/num/isa.c: the line names OpenBLAS's description and each
 * kernel module's own choice, in that order, and the clone level agrees
 * with what CPUID and XGETBV say the CPU and the OS run, read here by
 * hand rather than through GCC's resolver.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "num/bessel.h"
#include "num/blas.h"
#include "num/gemm.h"
#include "num/isa.h"
#include "num/logmath.h"
#include "num/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* XCR0 has the state bits the OS saves (AVX: 2, AVX-512 adds 5-7). */
static unsigned long long xcr0(void)
{
	unsigned int lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

/* The level from CPUID leaf 7's AVX2 and AVX512F bits and the OS's state. */
static const char *cpu_level(void)
{
	unsigned int a, b, c, d, osxsave;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return "default";
	osxsave = (c >> 27) & 1;
	if (!osxsave || (xcr0() & 6) != 6 ||
	    !__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return "default";
	if (((b >> 16) & 1) && (xcr0() & 0xe6) == 0xe6)
		return "avx512f";
	return (b >> 5) & 1 ? "avx2" : "default";
}

/* CPUID leaf 1's FMA bit (ECX 12), which the avx2 vmath kernel needs too. */
static int cpu_fma(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && ((c >> 12) & 1);
}
#else
static const char *cpu_level(void)
{
	return "default";
}

static int cpu_fma(void)
{
	return 0;
}
#endif

int main(void)
{
	char want[512];
	const char *line = rfx_isa_describe(), *level = cpu_level(), *vm;

	diag("%s", line);
	snprintf(want, sizeof(want),
		 "%s; rfx kernels: vmath %s, gemm %s, bessel %s, clones %s",
		 rfx_blas_describe(), rfx_vmath_kernel_name(),
		 rfx_gemm_kernel_name(), rfx_bessel_kernel_name(),
		 rfx_isa_clones());
	ok(!strcmp(line, want), "the line: BLAS, then vmath, gemm, bessel, clones");
#ifdef RFX_SIMD_CLONES_ON
	ok(!strcmp(rfx_isa_clones(), level), "clones %s, the CPU and OS run %s",
	   rfx_isa_clones(), level);
#else
	(void)level;
	ok(!strcmp(rfx_isa_clones(), "default"),
	   "a build without clones says default");
#endif
	vm = !strcmp(level, "avx512f") ? "avx512"
	     : !strcmp(level, "avx2") && cpu_fma() ? "avx2" : "generic";
	ok(!strcmp(rfx_vmath_kernel_name(), vm),
	   "the vector math is %s: avx512 where AVX-512 F runs, avx2 where "
	   "AVX2 and FMA do, else generic", vm);
	return done_testing();
}

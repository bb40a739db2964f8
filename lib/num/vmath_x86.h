/*
 * The AVX-512 kernel of vmath.h (lib/num/vmath_avx512.c), for the kernel
 * table of lib/num/vmath.c. RFX_VMATH_X86 is defined where GCC's x86-64
 * intrinsics exist; only there is there a kernel. It may be called only
 * where __builtin_cpu_supports("avx512f") holds (vmath.c checks).
 */
#ifndef RFX_VMATH_AVX512_H
#define RFX_VMATH_AVX512_H

#include "num/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define RFX_VMATH_X86 1
extern const struct rfx_vmath_kernel rfx_vmath_avx512;
#endif

#endif

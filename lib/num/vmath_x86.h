/*
 * The x86 kernels of vmath.h, for the kernel table of lib/num/vmath.c:
 * AVX-512 (lib/num/vmath_avx512.c) and AVX2 with FMA (lib/num/
 * vmath_avx2.c). RFX_VMATH_X86 is defined where GCC's x86-64 intrinsics
 * exist; only there are there kernels. Each may be called only where the
 * CPU has its instructions (vmath.c checks). A kernel may leave an entry
 * NULL: vmath.c puts the generic kernel's function there, or for a
 * streaming (_nt) entry the kernel's own plain one.
 */
#ifndef RFX_VMATH_X86_H
#define RFX_VMATH_X86_H

#include "num/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define RFX_VMATH_X86 1
extern const struct rfx_vmath_kernel rfx_vmath_avx512;
extern const struct rfx_vmath_kernel rfx_vmath_avx2;
#endif

#endif

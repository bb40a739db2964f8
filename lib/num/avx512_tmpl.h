/*
 * The precision macros of rfx's AVX-512 templates (lib/num/gemm.c's
 * DEFINE_GEMM, lib/num/vmath_avx512.c's DEFINE_SINCOS and
 * DEFINE_EXP_ARRAY): a kernel is written once in S, the intrinsics'
 * suffix, pd (double, 8 lanes a vector) or ps (float, 16), and its
 * element type, vector type, lane mask and width follow from S. Only
 * macros: the intrinsics' types they name come from <immintrin.h>, which
 * the includer includes behind its own x86 test.
 */
#ifndef RFX_AVX512_TMPL_H
#define RFX_AVX512_TMPL_H

#define TY_pd double
#define TY_ps float
#define VEC_pd __m512d
#define VEC_ps __m512
#define MASK_pd __mmask8
#define MASK_ps __mmask16
#define W_pd 8
#define W_ps 16
#define TY(S) TY_##S
#define VEC(S) VEC_##S
#define MASK(S) MASK_##S
#define W(S) W_##S

#endif

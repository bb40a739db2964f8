/*
 * What lib/num/bessel.c shares with its all-pairs kernels in intrinsics,
 * lib/num/bessel_avx2.c and lib/num/bessel_avx512.c, and with nothing
 * else: the expansions' constants, the coefficient tables init_once fits
 * at start-up (read-only after; see bessel.c for what each is), the tile
 * of the all-pairs form, and the helpers the kernels call back (tile_fill
 * and the row sums, compiled for each instruction set). The tables' names
 * are macros for prefixed, hidden globals, so that the code of all three
 * files reads as it did when they were one file's statics.
 */
#ifndef RFX_BESSEL_IMPL_H
#define RFX_BESSEL_IMPL_H

#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define RFX_BESSEL_X86 1
#endif

#if defined(__GNUC__)
#define RFX_BESSEL_HIDDEN __attribute__((visibility("hidden")))
#else
#define RFX_BESSEL_HIDDEN
#endif

#define LN2 0.693147180559945309417232121458176568 /* log 2 */
#define PI_L 3.141592653589793238462643383279502884L /* pi in long double */

#define Z0 8.0          /* split between the two expansions */
#define ZA 2.0          /* tier A: a cheaper P for blocks with all z <= ZA */
#define NA 9            /* coefficients of P on [0, ZA^2] */
#define NB 16           /* coefficients of P on [0, Z0^2] */
#define NL 20           /* coefficients of H on u in [0, 1] */
#define CHUNK 64        /* block size: bounds each block's product */
#define NMAX 29         /* largest of NA, NB, NL, N12, N24 */
/* The all-pairs form's extra expansions of P (see tile_row). */
#define Z1 1.0          /* z <= Z1: N1 coefficients on [0, Z1^2] */
#define N1 8
#define Z4 4.0          /* z <= Z4: N4 coefficients on [0, Z4^2] */
#define N4 12
#define Z12 12.0        /* z <= Z12: N12 coefficients on [0, Z12^2] */
#define N12 19
#define Z24 24.0        /* AVX2/AVX-512 pairs kernels: z <= Z24, N24 coefficients */
#define N24 29
#define ZL16 16.0       /* and every z >= ZL16: H on u in [0, Z0/ZL16], NL16 */
#define NL16 12
#define WMAX 8          /* most lanes of partial results, see FOR_LANES */

/*
 * The tables: written once by init_once (under pthread_once, which also
 * publishes them to every thread that passes through it), read-only after.
 */
#define pa rfx_bessel_tab_pa
#define pb rfx_bessel_tab_pb
#define p1 rfx_bessel_tab_p1
#define p4 rfx_bessel_tab_p4
#define p12 rfx_bessel_tab_p12
#define c_12 rfx_bessel_tab_c_12
#define p24 rfx_bessel_tab_p24
#define c_24 rfx_bessel_tab_c_24
#define hl16 rfx_bessel_tab_hl16
#define hl rfx_bessel_tab_hl
#define c_b rfx_bessel_tab_c_b
#define c_l rfx_bessel_tab_c_l
#define c_m rfx_bessel_tab_c_m
#define t_top rfx_bessel_tab_t_top
#define u_top rfx_bessel_tab_u_top
extern double pa[NA] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) ~ sum pa[k] t^k on [0, ZA^2] */
extern double pb[NB] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) 2^-sigma ~ sum pb[k] t^k, [0, Z0^2] */
extern double p1[N1] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) ~ sum p1[k] t^k on [0, Z1^2] */
extern double p4[N4] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) ~ sum p4[k] t^k on [0, Z4^2] */
extern double p12[N12] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) 2^-rho ~ sum p12[k] t^k, [0, Z12^2] */
extern double c_12 RFX_BESSEL_HIDDEN;  /* rho log 2: undoes the scaling of p12 */
extern double p24[N24] RFX_BESSEL_HIDDEN;  /* I0(sqrt t) 2^-rho24 ~ sum p24[k] t^k, [0, Z24^2] */
extern double c_24 RFX_BESSEL_HIDDEN;  /* rho24 log 2 */
extern double hl16[NL16] RFX_BESSEL_HIDDEN;  /* H(u) 2^tau ~ sum hl16[k] u^k on [0, Z0/ZL16] */
extern double hl[NL] RFX_BESSEL_HIDDEN;  /* H(u) 2^tau ~ sum hl[k] u^k on [0, 1] */
extern double c_b RFX_BESSEL_HIDDEN;  /* sigma log 2: undoes the scaling of pb */
extern double c_l RFX_BESSEL_HIDDEN;  /* -tau/2 log 2: undoes the scaling of hl */
extern double c_m RFX_BESSEL_HIDDEN;  /* per-element constant of a mixed block, below */
extern double t_top RFX_BESSEL_HIDDEN;  /* Z0^2 and 1, the clamps of step_mixed, as */
extern double u_top RFX_BESSEL_HIDDEN;  /* variables on purpose (see there) */

/* The all-pairs form's tile (bessel.c, tile_row). */
#define JT 64           /* rows of B per tile: the lanes */

/*
 * Kinds of a coordinate: the largest z at most Z1, ZA, Z4, Z0 or Z12 (one
 * P each, fewer coefficients for a narrower range), every z above Z0
 * (H), or both sides (both, as in sum_body's mixed blocks). P on [0,
 * Z12^2] takes the place of both where it can: 19 coefficients instead
 * of 36 (wider, the monomial form loses digits).
 */
enum { K_1, K_A, K_4, K_B, K_LARGE, K_12, K_MIXED, K_COUNT, K_SKIP = K_COUNT };

struct pair_tile {
	double *y;      /* n x JT: |B_jl| at [l JT + j] */
	double *yy;     /* B_jl^2 */
	double *yr;     /* 1/|B_jl| (inf for 0) */
	double *yymax;  /* n: largest B_jl^2 over the lanes */
	double *ymin;   /* n: smallest |B_jl| */
	int *fin;       /* n: every |B_jl| finite, so a zero a_l adds 0 */
};

/* Allocates the tile for rows of n; NULL on OOM. */
struct pair_tile *rfx_bessel_tile_alloc(size_t n) RFX_BESSEL_HIDDEN;
void rfx_bessel_tile_free(struct pair_tile *T) RFX_BESSEL_HIDDEN;

#ifdef RFX_BESSEL_X86
/*
 * Rows j0..j0+m-1 of B into tile T (bessel.c's tile_fill), and the row
 * sums of rfx_bessel_sum_log_i0_rows, both compiled for AVX-512: only
 * where the CPU has avx512f and fma.
 */
void rfx_bessel_tile_fill_avx512(struct pair_tile *T, const double *B, size_t j0,
				 size_t m, size_t n) RFX_BESSEL_HIDDEN;
void rfx_bessel_rows_avx512(const double *a, const double *B, size_t nr, size_t n,
			    double scale, double *out) RFX_BESSEL_HIDDEN;
/* The AVX-512 all-pairs kernel (bessel_avx512.c); same contract as pairs. */
void rfx_bessel_pairs_x512(const double *A, size_t na, const double *B, size_t nb,
			   size_t n, double scale, double *out) RFX_BESSEL_HIDDEN;
/*
 * The same three for AVX2 and FMA, only where the CPU has both: tile_fill
 * and the row sums (bessel.c), the all-pairs kernel (bessel_avx2.c).
 */
void rfx_bessel_tile_fill_avx2(struct pair_tile *T, const double *B, size_t j0,
			       size_t m, size_t n) RFX_BESSEL_HIDDEN;
void rfx_bessel_rows_avx2(const double *a, const double *B, size_t nr, size_t n,
			  double scale, double *out) RFX_BESSEL_HIDDEN;
void rfx_bessel_pairs_x256(const double *A, size_t na, const double *B, size_t nb,
			   size_t n, double scale, double *out) RFX_BESSEL_HIDDEN;
#endif

#endif

/*
 * Projection samplers: fills the columns of Omega with i.i.d. Gaussian
 * directions, block-orthogonal ones (thesis Algorithm 2, section 2.1.4;
 * Yu et al. 2016), their structured and quasi-Monte Carlo variants (the
 * ORF paper's ORF' and SORF, randomised Halton and Sobol points).
 *
 * An orthogonal block is the Q factor of a d x d standard Gaussian matrix,
 * computed with GSL's Householder QR. That Q alone is not Haar: each GSL
 * reflector maps the working column x to -sign(x_0) |x| e_0 (the final
 * 1 x 1 step is left alone), so Q_00 = -|a_00| / |a_0| is always negative
 * and every diagonal entry of Q is biased (P(Q_44 > 0) is 0.84 at d = 5).
 * Multiplying column j of Q by sign(R_jj) gives the unique QR with positive
 * diag(R), and that Q is Haar (Mezzadri 2007, "How to generate random
 * matrices from the classical compact groups"). Each column is then
 * rescaled by its own chi(d) variate (ort), so every omega_m is N(0, I_d)
 * while the columns of one block stay orthogonal, or by sqrt(d) (ORF').
 *
 * Algorithm 2 as printed sets v = M - d tau, which is never positive; the
 * last block keeps its first M - d (tau - 1) columns, as the text around it
 * intends.
 *
 * A Hadamard block B = sqrt(d') H D1 H D2 H D3 (or its two- and one-factor
 * versions) is never formed: column m of omega is row m of B, i.e.
 * B^T e_m = sqrt(d') D3 H D2 H D1 H e_m (H is symmetric), three fast
 * transforms of a unit vector, of which the first d entries are kept.
 *
 * Draw order, which fixes the output for a given stream: iid draws column by
 * column (d Gaussians each); ort draws per block d*d Gaussians, row by row,
 * then d chi variates, all d of them even when the last block is truncated;
 * orf-prime the same without the chi variates; the Hadamard kinds per block
 * d' signs for D1, then d' for D2, then d' for D3 (as many factors as the
 * kind has), whole blocks even when truncated; the quasi-Monte Carlo kinds
 * d uniforms for the shift, then nothing, except halton-scr, which then
 * draws the permutations coordinate by coordinate (p_l - 1 uniform
 * integers each, Fisher-Yates from the top); simplex and simplex+ draw as
 * ort (whole blocks), ort-anti per block d*d Gaussians then one uniform
 * per pair of columns (ceil(d/2)). All of them make the M columns
 * drawn from a stream a prefix of the M' > M columns the same stream would
 * give, so studies over M can share random numbers.
 */
#include "proj/proj.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_qrng.h>
#include <gsl/gsl_randist.h>

#include "base/suggest.h"
#include "num/blas.h"
#include "proj/wht.h"

/*
 * Below d = LAPACK_D the Level-2 gsl_linalg_QR_decomp/QR_unpack pair, not
 * the recursive Level-3 QR_decomp_r/QR_unpack_r: with OpenBLAS on the build
 * machine the former is 1.4x (d = 64) to 3x (d = 5..32) faster; the
 * recursive one only wins from about d = 128. From d = LAPACK_D on,
 * LAPACK's blocked dgeqrf and dorgqr, which OpenBLAS exports: at d = 1024
 * they take 0.2 s per block against 7.7 s (Level-2) and 2.5 s (recursive)
 * for GSL's, which makes ORF on 1024-dimensional MNIST feasible.
 */
#define LAPACK_D 128

/* LAPACK (Fortran interface, column-major, 32-bit integers as in OpenBLAS). */
void dgeqrf_(const int *m, const int *n, double *a, const int *lda,
	     double *tau, double *work, const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a,
	     const int *lda, const double *tau, double *work, const int *lwork,
	     int *info);

struct rfx_proj_ws {
	int d;           /* dimension the matrices below are sized for */
	gsl_matrix *A;   /* Gaussian block, overwritten by the packed QR */
	gsl_vector *tau; /* Householder coefficients of the packed QR */
	gsl_matrix *Q;   /* the unpacked orthogonal factor (d < LAPACK_D) */
	gsl_matrix *R;   /* QR_unpack insists on writing R; diag(R) is read */
	double *work;    /* LAPACK's workspace (d >= LAPACK_D), lwork entries */
	int lwork;
	double *scale;   /* sign(R_jj) chi_j for the d columns of a block */
	size_t dp;       /* d', the power of 2 >= d of the Hadamard kinds */
	double *v;       /* d' entries: the row of a Hadamard block */
	double *sgn;     /* 3 d' Rademacher signs: D1, D2, D3 */
	double *u;       /* d entries: one quasi-Monte Carlo point */
	double *shift;   /* d entries: the random shift of the point set */
	double *cols;    /* IID_COLS x d: iid or Hadamard columns before omega */
	gsl_qrng *qrng[3]; /* Halton, reverse Halton, Sobol; NULL if d too large */
	int *prime;      /* scrambled Halton (d <= SCR_MAX_D): the first d primes */
	int *ndig;       /* digits per coordinate, enough for m < 2^31 */
	int *perm;       /* one permutation of 0..p-1 per coordinate */
	size_t *poff;    /* where coordinate l's permutation starts in perm */
	double *haar;    /* d x d: the sign-corrected Haar block (simplex kinds) */
	double *norm;    /* d: the column norms of a coupled block */
	double *tot;     /* d: simplex+'s running sum of r_j u_j */
};

/* Sweeps of simplex+ over the d directions (see proj.h). */
#define SIMPLEX_PLUS_SWEEPS 5

/* Columns of an iid draw buffered at a time (sample_iid). */
#define IID_COLS 16

/* Scrambled Halton's dimensions, as many as GSL's Halton: primes to 9973. */
#define SCR_MAX_D 1229

/* Base-p digits of the point indices m + 1 < 2^31: at most 31 (p = 2). */
#define SCR_DIGITS 31

/* The quasi-Monte Carlo kinds: their GSL sequence and slot in ws->qrng. */
static const gsl_qrng_type *qrng_type(int slot)
{
	return slot == 0 ? gsl_qrng_halton
			 : slot == 1 ? gsl_qrng_reversehalton : gsl_qrng_sobol;
}

static const struct {
	const char *name;
	enum rfx_proj p;
	int gaussian; /* columns marginally N(0, I) */
	int hd;       /* Hadamard-diagonal factors (sorf 3, hdhd 2, hd 1) */
	int qmc;      /* 1 + slot in ws->qrng, 4 scrambled Halton, 0 others */
} projs[] = {
	{ "iid", RFX_PROJ_IID, 1, 0, 0 },
	{ "ort", RFX_PROJ_ORT, 1, 0, 0 },
	{ "orf-prime", RFX_PROJ_ORF_PRIME, 0, 0, 0 },
	{ "sorf", RFX_PROJ_SORF, 0, 3, 0 },
	{ "hdhd", RFX_PROJ_HDHD, 0, 2, 0 },
	{ "hd", RFX_PROJ_HD, 0, 1, 0 },
	{ "halton", RFX_PROJ_HALTON, 1, 0, 1 },
	{ "halton-rev", RFX_PROJ_HALTON_REV, 1, 0, 2 },
	{ "sobol", RFX_PROJ_SOBOL, 1, 0, 3 },
	{ "halton-scr", RFX_PROJ_HALTON_SCR, 1, 0, 4 },
	{ "simplex", RFX_PROJ_SIMPLEX, 1, 0, 0 },
	{ "simplex+", RFX_PROJ_SIMPLEX_PLUS, 1, 0, 0 },
	{ "ort-anti", RFX_PROJ_ORT_ANTI, 1, 0, 0 },
	{ NULL, RFX_PROJ_IID, 0, 0, 0 }
};

/* The largest dimension of quasi-Monte Carlo kind qmc (table field). */
static unsigned qmc_max_d(int qmc)
{
	return qmc == 4 ? SCR_MAX_D : qrng_type(qmc - 1)->max_dimension;
}

/* The table entry of p, or -1. */
static int proj_index(enum rfx_proj p)
{
	int i;

	for (i = 0; projs[i].name; i++)
		if (projs[i].p == p)
			return i;
	return -1;
}

int rfx_proj_parse(const char *name, enum rfx_proj *out, struct rfx_err *err)
{
	char valid[256]; /* "iid, ort, ...": built from the table so they cannot drift */
	const char *names[32]; /* the same names for "did you mean" */
	char hint[96];
	size_t len = 0;
	int i;

	if (!name)
		return rfx_error(err, RFX_EINVAL, "projection name is missing");
	for (i = 0; projs[i].name; i++) {
		if (!strcmp(name, projs[i].name)) {
			*out = projs[i].p;
			return RFX_OK;
		}
	}
	valid[0] = '\0';
	for (i = 0; projs[i].name && len < sizeof(valid); i++) {
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s",
					i ? ", " : "", projs[i].name);
		if (i < (int)(sizeof(names) / sizeof(names[0])))
			names[i] = projs[i].name;
	}
	rfx_suggest_phrase(name, names,
			   (size_t)(i < (int)(sizeof(names) / sizeof(names[0]))
					    ? i
					    : (int)(sizeof(names) / sizeof(names[0]))),
			   hint, sizeof(hint));
	return rfx_error(err, RFX_EINVAL, "unknown projection '%s'%s (valid: %s)",
			 name, hint, valid);
}

const char *rfx_proj_name(enum rfx_proj p)
{
	int i = proj_index(p);

	return i < 0 ? "unknown" : projs[i].name;
}

int rfx_proj_gaussian(enum rfx_proj p)
{
	int i = proj_index(p);

	return i < 0 ? 0 : projs[i].gaussian;
}

int rfx_proj_block(enum rfx_proj p, int d)
{
	int i = proj_index(p);

	if (i < 0 || d < 1)
		return 0;
	if (projs[i].hd)
		return (int)rfx_wht_next_pow2((size_t)d);
	if (projs[i].qmc)
		return 0;
	return p == RFX_PROJ_IID ? 1 : d;
}

int rfx_proj_check(enum rfx_proj p, int d, struct rfx_err *err)
{
	int i = proj_index(p);

	if (i < 0)
		return rfx_error(err, RFX_EINVAL, "unknown projection kind %d",
				 (int)p);
	if (d < 1)
		return rfx_error(err, RFX_EINVAL,
				 "dimension d must be at least 1, got %d", d);
	if (projs[i].qmc && (unsigned)d > qmc_max_d(projs[i].qmc))
		return rfx_error(err, RFX_EINVAL,
				 "%s projections exist for d <= %u, got d = %d",
				 projs[i].name, qmc_max_d(projs[i].qmc), d);
	return RFX_OK;
}

/*
 * The scrambled Halton tables: primes by trial division, digit counts,
 * and room for the permutations (malloc: pages nobody samples from are
 * never touched). Returns nonzero when out of memory.
 */
static int scr_alloc(struct rfx_proj_ws *ws, int d)
{
	size_t total = 0;
	int l, p = 1;

	ws->prime = malloc((size_t)d * sizeof(int));
	ws->ndig = malloc((size_t)d * sizeof(int));
	ws->poff = malloc((size_t)d * sizeof(size_t));
	if (!ws->prime || !ws->ndig || !ws->poff)
		return 1;
	for (l = 0; l < d; l++) {
		long big = 2147483647L;
		int q, k = 0, composite;

		do {
			p++;
			composite = 0;
			for (q = 2; q * q <= p && !composite; q++)
				composite = p % q == 0;
		} while (composite);
		ws->prime[l] = p;
		for (; big > 0; big /= p)
			k++;
		ws->ndig[l] = k;
		ws->poff[l] = total;
		total += (size_t)p;
	}
	ws->perm = malloc(total * sizeof(int));
	return !ws->perm;
}

/*
 * An n x n gsl_matrix, or NULL. gsl_matrix_alloc (GSL 2.7) keeps the
 * matrix's header when its data cannot be had (48 bytes lost, valgrind
 * saw it at d = 5 x 10^6); from a block of its own nothing is lost, and
 * owner set makes gsl_matrix_free free the block too.
 */
static gsl_matrix *square_alloc(size_t n)
{
	gsl_block *b = gsl_block_alloc(n * n);
	gsl_matrix *m = b ? gsl_matrix_alloc_from_block(b, 0, n, n, n) : NULL;

	if (!m) {
		if (b)
			gsl_block_free(b);
		return NULL;
	}
	m->owner = 1;
	return m;
}

/*
 * The d x d matrices of the block kinds (ort, orf', the coupled kinds and
 * rfx_proj_haar), made on the first block a workspace samples: iid, the
 * Hadamard and the quasi-Monte Carlo kinds need O(d) memory only, and at
 * d = 10^6 the 8 TB of the squares made iid "out of memory" where its
 * d x M draw fits. haar only for the coupled kinds. Returns nonzero when
 * out of memory; what was made stays for rfx_proj_ws_free.
 */
static int blocks_ready(struct rfx_proj_ws *ws, int coupled)
{
	size_t n = (size_t)ws->d;
	int d = ws->d;

	/*
	 * the byte counts of the squares wrap round beyond this (d =
	 * 1518500250 asked malloc for 290 MB), and nothing could hold them
	 */
	if (n > SIZE_MAX / sizeof(double) / n)
		return 1;
	if (coupled && !ws->haar && !(ws->haar = malloc(n * n * sizeof(double))))
		return 1;
	/*
	 * Each piece once, and after a failure the missing ones on the next
	 * call. GSL's allocators call its error handler on failure; with the
	 * handler off, as rfx's main and the library's first call set it,
	 * they just return NULL.
	 */
	if (!ws->A)
		ws->A = square_alloc(n);
	if (!ws->tau)
		ws->tau = gsl_vector_alloc(n);
	if (!ws->A || !ws->tau)
		return 1;
	if (d < LAPACK_D) {
		if (!ws->Q)
			ws->Q = square_alloc(n);
		if (!ws->R)
			ws->R = square_alloc(n);
		return !ws->Q || !ws->R;
	}
	if (!ws->work) {
		/* the optimal size of the workspace, as LAPACK reports it */
		int lw = -1, info = 0;
		double q = 0.0;

		dgeqrf_(&d, &d, ws->A->data, &d, ws->tau->data, &q, &lw, &info);
		ws->lwork = info == 0 && q >= d ? (int)q : 64 * d;
		ws->work = malloc((size_t)ws->lwork * sizeof(double));
	}
	return !ws->work;
}

struct rfx_proj_ws *rfx_proj_ws_alloc(int d)
{
	struct rfx_proj_ws *ws;
	size_t n;
	int i;

	if (d < 1)
		return NULL;
	n = (size_t)d;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->d = d;
	ws->scale = malloc(n * sizeof(*ws->scale));
	ws->dp = rfx_wht_next_pow2(n);
	ws->v = ws->dp ? malloc(ws->dp * sizeof(*ws->v)) : NULL;
	ws->sgn = ws->dp ? malloc(3 * ws->dp * sizeof(*ws->sgn)) : NULL;
	ws->u = malloc(n * sizeof(*ws->u));
	ws->shift = malloc(n * sizeof(*ws->shift));
	ws->cols = malloc(IID_COLS * n * sizeof(*ws->cols));
	ws->norm = malloc(n * sizeof(*ws->norm));
	ws->tot = malloc(n * sizeof(*ws->tot));
	if (!ws->scale || !ws->v || !ws->sgn || !ws->u || !ws->shift ||
	    !ws->cols || !ws->norm || !ws->tot) {
		rfx_proj_ws_free(ws);
		return NULL;
	}
	if (d <= SCR_MAX_D && scr_alloc(ws, d)) {
		rfx_proj_ws_free(ws);
		return NULL;
	}
	for (i = 0; i < 3; i++) {
		/* a dimension beyond the sequence's is an error when sampling */
		if (n > qrng_type(i)->max_dimension)
			continue;
		ws->qrng[i] = gsl_qrng_alloc(qrng_type(i), (unsigned)n);
		if (!ws->qrng[i]) {
			rfx_proj_ws_free(ws);
			return NULL;
		}
	}
	return ws;
}

void rfx_proj_ws_free(struct rfx_proj_ws *ws)
{
	int i;

	if (!ws)
		return;
	if (ws->A)
		gsl_matrix_free(ws->A);
	if (ws->tau)
		gsl_vector_free(ws->tau);
	if (ws->Q)
		gsl_matrix_free(ws->Q);
	if (ws->R)
		gsl_matrix_free(ws->R);
	free(ws->work);
	free(ws->scale);
	free(ws->v);
	free(ws->sgn);
	free(ws->u);
	free(ws->shift);
	free(ws->cols);
	free(ws->haar);
	free(ws->norm);
	free(ws->tot);
	for (i = 0; i < 3; i++)
		if (ws->qrng[i])
			gsl_qrng_free(ws->qrng[i]);
	free(ws->prime);
	free(ws->ndig);
	free(ws->perm);
	free(ws->poff);
	free(ws);
}

/*
 * Column by column, for the prefix property in the file comment. With a
 * workspace, IID_COLS columns at a time go to its buffer first and then
 * to omega row by row: written one entry at a time, each column touches d
 * rows ld apart, and at d = 1024, M = 10240 those scattered writes took
 * longer than drawing the Gaussians.
 */
static void sample_iid(const gsl_rng *r, int d, int M, double *omega,
		       size_t ld, struct rfx_proj_ws *ws)
{
	int l, m, m0, c;

	if (!ws || ws->d != d) {
		for (m = 0; m < M; m++)
			for (l = 0; l < d; l++)
				omega[(size_t)l * ld + (size_t)m] =
					gsl_ran_gaussian_ziggurat(r, 1.0);
		return;
	}
	for (m0 = 0; m0 < M; m0 += c) {
		double *buf = ws->cols;

		c = M - m0 < IID_COLS ? M - m0 : IID_COLS;
		for (m = 0; m < c; m++)
			for (l = 0; l < d; l++)
				buf[(size_t)m * (size_t)d + (size_t)l] =
					gsl_ran_gaussian_ziggurat(r, 1.0);
		for (l = 0; l < d; l++) {
			double *row = omega + (size_t)l * ld + (size_t)m0;

			for (m = 0; m < c; m++)
				row[m] = buf[(size_t)m * (size_t)d + (size_t)l];
		}
	}
}

/*
 * QR of the d x d column-major matrix in ws->A by LAPACK: leaves Q in
 * ws->A and diag(R) in ws->scale. OpenBLAS runs it on one thread, as every
 * BLAS call of rfx (lib/num/blas.h): inside a parallel region the caller has
 * set that; outside one it is set here, so the rounding does not depend on
 * the thread count. Returns GSL_EFAILED if LAPACK reports an error.
 */
static int qr_lapack(int d, struct rfx_proj_ws *ws)
{
	double *a = ws->A->data;
	int info = 0, j, saved = 0, outer = 1;

#ifdef _OPENMP
	outer = !omp_in_parallel();
#endif
	if (outer)
		saved = rfx_blas_single_begin();
	dgeqrf_(&d, &d, a, &d, ws->tau->data, ws->work, &ws->lwork, &info);
	for (j = 0; info == 0 && j < d; j++)
		ws->scale[j] = a[(size_t)j * (size_t)d + (size_t)j];
	if (info == 0)
		dorgqr_(&d, &d, &d, a, &d, ws->tau->data, ws->work, &ws->lwork,
			&info);
	if (outer)
		rfx_blas_single_end(saved);
	return info == 0 ? GSL_SUCCESS : GSL_EFAILED;
}

/*
 * omega[i ld + j] = a[j d + i] scale[j] for i < d, j < k: the first k
 * columns of the column-major d x d matrix a, scaled, into rows of omega.
 * In tiles of COPY_TILE x COPY_TILE, whose lines of a and of omega stay
 * in L1 while the tile is copied: entry by entry, each row of omega read
 * a column of a at a stride of 8d bytes, and at d = 1024 (ORF on MNIST)
 * the copy took longer than the QR.
 */
#define COPY_TILE 32

static void copy_scaled_t(const double *a, int d, int k, const double *scale,
			  double *omega, size_t ld)
{
	int i0, j0, i, j;

	for (i0 = 0; i0 < d; i0 += COPY_TILE)
		for (j0 = 0; j0 < k; j0 += COPY_TILE) {
			int i1 = d - i0 < COPY_TILE ? d : i0 + COPY_TILE;
			int j1 = k - j0 < COPY_TILE ? k : j0 + COPY_TILE;

			for (i = i0; i < i1; i++)
				for (j = j0; j < j1; j++)
					omega[(size_t)i * ld + (size_t)j] =
						a[(size_t)j * (size_t)d + (size_t)i] *
						scale[j];
		}
}

/*
 * Writes k <= d columns of one Haar block at omega, each scaled to length
 * norm, or to a chi(d) variate when norm is 0 (ORF; ORF' has norm sqrt(d),
 * a plain Haar matrix 1).
 */
static int sample_block(const gsl_rng *r, int d, int k, double norm,
			double *omega, size_t ld, struct rfx_proj_ws *ws)
{
	double *a = ws->A->data;
	size_t tda = ws->A->tda;
	double *scale = ws->scale;
	int i, j, status, lapack = d >= LAPACK_D;

	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			a[(size_t)i * tda + (size_t)j] =
				gsl_ran_gaussian_ziggurat(r, 1.0);
	if (lapack) {
		/*
		 * LAPACK reads the row-major Gaussian matrix as its transpose,
		 * another Gaussian matrix; Q and diag(R) then come column-major.
		 */
		status = qr_lapack(d, ws);
		if (status)
			return status;
	} else {
		status = gsl_linalg_QR_decomp(ws->A, ws->tau);
		if (status)
			return status;
		status = gsl_linalg_QR_unpack(ws->A, ws->tau, ws->Q, ws->R);
		if (status)
			return status;
	}
	for (j = 0; j < d; j++) {
		/*
		 * chi(d) as the root of chi^2(d); drawn for all d columns so
		 * the draw count per block does not depend on k. A fixed
		 * norm draws none.
		 */
		double chi = norm > 0.0 ? norm
				       : sqrt(gsl_ran_chisq(r, (double)d));
		double rjj = lapack ? ws->scale[j]
				    : gsl_matrix_get(ws->R, (size_t)j, (size_t)j);

		/* R_jj = 0 has probability zero; either sign would do */
		scale[j] = rjj < 0.0 ? -chi : chi;
	}
	if (lapack) {
		copy_scaled_t(a, d, k, scale, omega, ld);
		return GSL_SUCCESS;
	}
	for (i = 0; i < d; i++) {
		const double *q = ws->Q->data + (size_t)i * ws->Q->tda;

		for (j = 0; j < k; j++)
			omega[(size_t)i * ld + (size_t)j] = q[j] * scale[j];
	}
	return GSL_SUCCESS;
}

/*
 * The coupled kinds (simplex, simplex+, ort-anti; see proj.h): one Haar
 * block into ws->haar (d * d Gaussians, as ort), its column norms (d chi
 * variates for the simplex kinds, ceil(d/2) uniforms for ort-anti), the
 * directions, and the first k columns, each direction times its norm.
 */
static int sample_coupled(const gsl_rng *r, enum rfx_proj p, int d, int k,
			  double *omega, size_t ld, struct rfx_proj_ws *ws)
{
	double *U = ws->haar, *nr = ws->norm, *t = ws->tot;
	size_t dd = (size_t)d, i, j;
	int status = sample_block(r, d, d, 1.0, U, dd, ws), sweep;

	if (status)
		return status;
	if (p == RFX_PROJ_ORT_ANTI) {
		for (j = 0; j < dd; j += 2) {
			double u = gsl_rng_uniform_pos(r);

			nr[j] = sqrt(gsl_cdf_chisq_Pinv(u, (double)d));
			if (j + 1 < dd)
				nr[j + 1] = sqrt(gsl_cdf_chisq_Qinv(u, (double)d));
		}
	} else {
		for (j = 0; j < dd; j++)
			nr[j] = sqrt(gsl_ran_chisq(r, (double)d));
	}
	if (p != RFX_PROJ_ORT_ANTI && d > 1) {
		/* R s_j = sqrt(d/(d-1)) (R_j - mean_l R_l), row by row */
		double f = sqrt((double)d / (d - 1.0));

		for (i = 0; i < dd; i++) {
			double *row = U + i * dd, mean = 0.0;

			for (j = 0; j < dd; j++)
				mean += row[j];
			mean /= (double)d;
			for (j = 0; j < dd; j++)
				row[j] = f * (row[j] - mean);
		}
	}
	if (p == RFX_PROJ_SIMPLEX_PLUS && d > 1) {
		/* t = sum_j r_j u_j, kept up to date as directions change */
		for (i = 0; i < dd; i++) {
			t[i] = 0.0;
			for (j = 0; j < dd; j++)
				t[i] += nr[j] * U[i * dd + j];
		}
		for (sweep = 0; sweep < SIMPLEX_PLUS_SWEEPS; sweep++)
			for (j = 0; j < dd; j++) {
				double len = 0.0;

				/* v = t - r_j u_j, the sum of the others */
				for (i = 0; i < dd; i++) {
					double v = t[i] - nr[j] * U[i * dd + j];

					len += v * v;
				}
				len = sqrt(len);
				if (!(len > 0.0))
					continue;
				for (i = 0; i < dd; i++) {
					double v = t[i] - nr[j] * U[i * dd + j];
					double u = -v / len;

					t[i] = v + nr[j] * u;
					U[i * dd + j] = u;
				}
			}
	}
	for (i = 0; i < dd; i++)
		for (j = 0; j < (size_t)k; j++)
			omega[i * ld + j] = U[i * dd + j] * nr[j];
	return GSL_SUCCESS;
}

/*
 * Hadamard kinds: blocks of d' columns, each column row m of
 * sqrt(d') H D1 ... H D_nhd, i.e. sqrt(d') D_nhd H ... D1 H e_m, truncated
 * to its first d entries.
 */
static void sample_hd(const gsl_rng *r, int nhd, int d, int M, double *omega,
		      size_t ld, struct rfx_proj_ws *ws)
{
	size_t dp = ws->dp, b, nb = ((size_t)M - 1) / dp + 1, t, l, i0, c;
	double scale = sqrt((double)dp), *v = ws->v, *buf = ws->cols;

	for (b = 0; b < nb; b++) {
		size_t k = b + 1 < nb ? dp : (size_t)M - dp * (nb - 1), i;

		for (t = 0; t < (size_t)nhd * dp; t++)
			ws->sgn[t] = gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
		for (i0 = 0; i0 < k; i0 += c) {
			c = k - i0 < IID_COLS ? k - i0 : IID_COLS;
			for (i = i0; i < i0 + c; i++) {
				int f;

				for (l = 0; l < dp; l++)
					v[l] = l == i ? 1.0 : 0.0;
				/* dp is a power of 2 and v is set: cannot fail */
				rfx_wht_apply(v, dp, NULL);
				for (f = 0; f < nhd; f++) {
					const double *s = ws->sgn + (size_t)f * dp;

					for (l = 0; l < dp; l++)
						v[l] *= s[l];
					if (f + 1 < nhd)
						rfx_wht_apply(v, dp, NULL);
				}
				for (l = 0; l < (size_t)d; l++)
					buf[(i - i0) * (size_t)d + l] = scale * v[l];
			}
			/* as sample_iid: rows of omega, not columns ld apart */
			for (l = 0; l < (size_t)d; l++) {
				double *row = omega + l * ld + b * dp + i0;

				for (i = 0; i < c; i++)
					row[i] = buf[i * (size_t)d + l];
			}
		}
	}
}

/*
 * Quasi-Monte Carlo kinds: points 1..M of sequence q, shifted by one
 * uniform vector modulo 1, through the inverse normal CDF. A shifted
 * coordinate is clamped to [2^-53, 1 - 2^-53] so that a sum rounding to
 * exactly 0 or 1 gives a finite projection (|omega| <= 8.2).
 */
static void sample_qmc(const gsl_rng *r, gsl_qrng *q, int d, int M,
		       double *omega, size_t ld, struct rfx_proj_ws *ws)
{
	const double lo = 0x1p-53, hi = 1.0 - 0x1p-53;
	int l, m;

	for (l = 0; l < d; l++)
		ws->shift[l] = gsl_rng_uniform(r);
	gsl_qrng_init(q);
	for (m = 0; m < M; m++) {
		gsl_qrng_get(q, ws->u);
		for (l = 0; l < d; l++) {
			double t = ws->u[l] + ws->shift[l];

			t = t >= 1.0 ? t - 1.0 : t;
			t = t < lo ? lo : t > hi ? hi : t;
			omega[(size_t)l * ld + (size_t)m] = gsl_cdf_ugaussian_Pinv(t);
		}
	}
}

/*
 * Scrambled Halton: a uniform permutation per coordinate (Fisher-Yates,
 * drawn after the shift), then the permuted radical inverses of 1..M.
 */
static void sample_halton_scr(const gsl_rng *r, int d, int M, double *omega,
			      size_t ld, struct rfx_proj_ws *ws)
{
	const double lo = 0x1p-53, hi = 1.0 - 0x1p-53;
	int l, m, j;

	for (l = 0; l < d; l++)
		ws->shift[l] = gsl_rng_uniform(r);
	for (l = 0; l < d; l++) {
		int p = ws->prime[l], *pi = ws->perm + ws->poff[l];

		for (j = 0; j < p; j++)
			pi[j] = j;
		for (j = p - 1; j > 0; j--) {
			int k = (int)gsl_rng_uniform_int(r, (unsigned long)j + 1);
			int t = pi[j];

			pi[j] = pi[k];
			pi[k] = t;
		}
	}
	for (l = 0; l < d; l++) {
		int p = ws->prime[l], K = ws->ndig[l], k;
		const int *pi = ws->perm + ws->poff[l];
		double *row = omega + (size_t)l * ld, f[SCR_DIGITS];
		int dig[SCR_DIGITS];

		/*
		 * The weights p^-(k+1) as the divisions f /= p made them, and
		 * the base-p digits of n = m + 1 counted up as an odometer: a
		 * division per digit per point, integer and floating, had
		 * been 15% of HRF Table 1's time. The same terms are added in
		 * the same order, so the points are the same bits.
		 */
		for (k = 0; k < K; k++) {
			f[k] = k ? f[k - 1] / p : 1.0 / p;
			dig[k] = 0;
		}
		dig[0] = 1;
		for (m = 0; m < M; m++) {
			double x = 0.0, t;

			for (k = 0; k < K; k++)
				x += pi[dig[k]] * f[k];
			for (k = 0; k < K && ++dig[k] == p; k++)
				dig[k] = 0;
			t = x + ws->shift[l];
			t = t >= 1.0 ? t - 1.0 : t;
			t = t < lo ? lo : t > hi ? hi : t;
			row[m] = gsl_cdf_ugaussian_Pinv(t);
		}
	}
}

int rfx_proj_haar(const gsl_rng *r, int d, double *Q, struct rfx_proj_ws *ws,
		  struct rfx_err *err)
{
	int status;

	if (!r || !Q || !ws)
		return rfx_error(err, RFX_EINVAL,
				 "haar sampler needs a generator, an output matrix and a workspace");
	if (ws->d != d)
		return rfx_error(err, RFX_EINVAL,
				 "workspace is for dimension %d, got d = %d",
				 ws->d, d);
	if (blocks_ready(ws, 0))
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for a %d x %d haar block", d, d);
	status = sample_block(r, d, d, 1.0, Q, (size_t)d, ws);
	if (status)
		return rfx_error(err, RFX_ENUMERIC,
				 "qr factorisation of a %d x %d gaussian matrix failed: %s",
				 d, d, gsl_strerror(status));
	return RFX_OK;
}

int rfx_proj_sample(const gsl_rng *r, enum rfx_proj p, int d, int M,
		    double *omega, size_t ld, size_t col0,
		    struct rfx_proj_ws *ws, struct rfx_err *err)
{
	int b, tau, k, coupled;

	if (d < 1)
		return rfx_error(err, RFX_EINVAL,
				 "dimension d must be at least 1, got %d", d);
	if (M < 1)
		return rfx_error(err, RFX_EINVAL,
				 "number of projections M must be at least 1, got %d",
				 M);
	if ((size_t)M > ld || col0 > ld - (size_t)M)
		return rfx_error(err, RFX_EINVAL,
				 "columns %zu..%zu do not fit in leading dimension %zu",
				 col0, col0 + (size_t)M - 1, ld);
	if (!r || !omega)
		return rfx_error(err, RFX_EINVAL,
				 "projection sampler needs a generator and an output matrix");

	k = proj_index(p);
	if (k < 0)
		return rfx_error(err, RFX_EINVAL, "unknown projection kind %d",
				 (int)p);
	if (p == RFX_PROJ_IID) {
		sample_iid(r, d, M, omega + col0, ld, ws);
		return RFX_OK;
	}
	/* iid accepts NULL; every other kind needs the workspace */
	if (!ws)
		return rfx_error(err, RFX_EINVAL,
				 "%s projections need a workspace", projs[k].name);
	if (ws->d != d)
		return rfx_error(err, RFX_EINVAL,
				 "workspace is for dimension %d, got d = %d",
				 ws->d, d);
	if (projs[k].hd) {
		sample_hd(r, projs[k].hd, d, M, omega + col0, ld, ws);
		return RFX_OK;
	}
	if (projs[k].qmc) {
		int ret = rfx_proj_check(p, d, err);

		if (ret)
			return ret;
		if (projs[k].qmc == 4)
			sample_halton_scr(r, d, M, omega + col0, ld, ws);
		else
			sample_qmc(r, ws->qrng[projs[k].qmc - 1], d, M, omega + col0,
				   ld, ws);
		return RFX_OK;
	}
	coupled = p == RFX_PROJ_SIMPLEX || p == RFX_PROJ_SIMPLEX_PLUS ||
		  p == RFX_PROJ_ORT_ANTI;
	if (blocks_ready(ws, coupled))
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory for the %d x %d blocks of %s projections",
				 d, d, projs[k].name);
	tau = (M - 1) / d + 1;  /* ceil(M / d) without overflow near INT_MAX */
	for (b = 0; b < tau; b++) {
		/* the last block keeps M - d (tau - 1) columns, not M - d tau */
		int kb = b < tau - 1 ? d : M - d * (tau - 1);
		double norm = p == RFX_PROJ_ORF_PRIME ? sqrt((double)d) : 0.0;
		double *o = omega + col0 + (size_t)b * (size_t)d;
		int status = coupled ? sample_coupled(r, p, d, kb, o, ld, ws)
				     : sample_block(r, d, kb, norm, o, ld, ws);

		if (status)
			return rfx_error(err, RFX_ENUMERIC,
					 "qr factorisation of a %d x %d gaussian block failed: %s",
					 d, d, gsl_strerror(status));
	}
	return RFX_OK;
}

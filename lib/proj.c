/*
 * Projection samplers: fills the columns of Omega with i.i.d. Gaussian
 * directions or with block-orthogonal ones (thesis Algorithm 2, section
 * 2.1.4; Yu et al. 2016).
 *
 * An orthogonal block is the Q factor of a d x d standard Gaussian matrix,
 * computed with GSL's Householder QR. That Q alone is not Haar: each GSL
 * reflector maps the working column x to -sign(x_0) |x| e_0 (the final
 * 1 x 1 step is left alone), so Q_00 = -|a_00| / |a_0| is always negative
 * and every diagonal entry of Q is biased (P(Q_44 > 0) is 0.84 at d = 5).
 * Multiplying column j of Q by sign(R_jj) gives the unique QR with positive
 * diag(R), and that Q is Haar (Mezzadri 2007, "How to generate random
 * matrices from the classical compact groups"). Each column is then
 * rescaled by its own chi(d) variate, so every omega_m is N(0, I_d) while
 * the columns of one block stay orthogonal.
 *
 * Algorithm 2 as printed sets v = M - d tau, which is never positive; the
 * last block keeps its first M - d (tau - 1) columns, as the text around it
 * intends.
 *
 * Draw order, which fixes the output for a given stream: iid draws column by
 * column (d Gaussians each); ort draws per block d*d Gaussians, row by row,
 * then d chi variates, all d of them even when the last block is truncated.
 * Both make the M columns drawn from a stream a prefix of the M' > M columns
 * the same stream would give, so studies over M can share random numbers.
 */
#include "proj.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>

/*
 * The Level-2 gsl_linalg_QR_decomp/QR_unpack pair, not the recursive
 * Level-3 QR_decomp_r/QR_unpack_r: with OpenBLAS on the build machine the
 * former is 1.4x (d = 64) to 3x (d = 5..32) faster, and rfx's d is small;
 * the recursive one only wins from about d = 128.
 */
struct rfx_proj_ws {
	int d;           /* dimension the matrices below are sized for */
	gsl_matrix *A;   /* Gaussian block, overwritten by the packed QR */
	gsl_vector *tau; /* Householder coefficients of the packed QR */
	gsl_matrix *Q;   /* the unpacked orthogonal factor */
	gsl_matrix *R;   /* QR_unpack insists on writing R; diag(R) is read */
	double *scale;   /* sign(R_jj) chi_j for the d columns of a block */
};

static const struct {
	const char *name;
	enum rfx_proj p;
} projs[] = {
	{ "iid", RFX_PROJ_IID },
	{ "ort", RFX_PROJ_ORT },
	{ NULL, RFX_PROJ_IID }
};

int rfx_proj_parse(const char *name, enum rfx_proj *out, struct rfx_err *err)
{
	char valid[64];  /* "iid, ort": built from the table so they cannot drift */
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
	for (i = 0; projs[i].name && len < sizeof(valid); i++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s%s",
					i ? ", " : "", projs[i].name);
	return rfx_error(err, RFX_EINVAL, "unknown projection '%s' (valid: %s)",
			 name, valid);
}

const char *rfx_proj_name(enum rfx_proj p)
{
	int i;

	for (i = 0; projs[i].name; i++)
		if (projs[i].p == p)
			return projs[i].name;
	return "unknown";
}

struct rfx_proj_ws *rfx_proj_ws_alloc(int d)
{
	struct rfx_proj_ws *ws;
	size_t n;

	if (d < 1)
		return NULL;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->d = d;
	n = (size_t)d;
	/*
	 * gsl_matrix_alloc calls the GSL error handler on failure; with the
	 * handler off, as rfx's main sets it, it just returns NULL.
	 */
	ws->A = gsl_matrix_alloc(n, n);
	ws->tau = gsl_vector_alloc(n);
	ws->Q = gsl_matrix_alloc(n, n);
	ws->R = gsl_matrix_alloc(n, n);
	ws->scale = malloc(n * sizeof(*ws->scale));
	if (!ws->A || !ws->tau || !ws->Q || !ws->R || !ws->scale) {
		rfx_proj_ws_free(ws);
		return NULL;
	}
	return ws;
}

void rfx_proj_ws_free(struct rfx_proj_ws *ws)
{
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
	free(ws->scale);
	free(ws);
}

static void sample_iid(const gsl_rng *r, int d, int M, double *omega,
		       size_t ld)
{
	int l, m;

	/*
	 * Column by column, for the prefix property in the file comment; the
	 * strided writes cost nothing next to the Gaussian draws.
	 */
	for (m = 0; m < M; m++)
		for (l = 0; l < d; l++)
			omega[(size_t)l * ld + (size_t)m] =
				gsl_ran_gaussian_ziggurat(r, 1.0);
}

/*
 * Draws a d x d Gaussian matrix into ws->A and leaves its sign-corrected
 * (Haar) Q in ws->Q with the signs sign(R_jj) in ws->scale; returns a GSL
 * status. Consumes exactly d * d Gaussians, row by row.
 */
static int haar_block(const gsl_rng *r, int d, struct rfx_proj_ws *ws)
{
	double *a = ws->A->data;
	size_t tda = ws->A->tda;
	int i, j, status;

	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			a[(size_t)i * tda + (size_t)j] =
				gsl_ran_gaussian_ziggurat(r, 1.0);
	status = gsl_linalg_QR_decomp(ws->A, ws->tau);
	if (status)
		return status;
	status = gsl_linalg_QR_unpack(ws->A, ws->tau, ws->Q, ws->R);
	if (status)
		return status;
	/* R_jj = 0 has probability zero; either sign would do */
	for (j = 0; j < d; j++)
		ws->scale[j] = gsl_matrix_get(ws->R, (size_t)j, (size_t)j) < 0.0 ?
			-1.0 : 1.0;
	return GSL_SUCCESS;
}

/* Writes k <= d columns of one Haar block, chi(d)-scaled, at omega. */
static int sample_block(const gsl_rng *r, int d, int k, double *omega,
			size_t ld, struct rfx_proj_ws *ws)
{
	double *scale = ws->scale;
	int i, j, status = haar_block(r, d, ws);

	if (status)
		return status;
	/*
	 * chi(d) as the root of chi^2(d); drawn for all d columns so the
	 * draw count per block does not depend on k.
	 */
	for (j = 0; j < d; j++)
		scale[j] *= sqrt(gsl_ran_chisq(r, (double)d));
	for (i = 0; i < d; i++) {
		const double *q = ws->Q->data + (size_t)i * ws->Q->tda;

		for (j = 0; j < k; j++)
			omega[(size_t)i * ld + (size_t)j] = q[j] * scale[j];
	}
	return GSL_SUCCESS;
}

int rfx_proj_haar(const gsl_rng *r, int d, double *Q, struct rfx_proj_ws *ws,
		  struct rfx_err *err)
{
	int i, j, status;

	if (!r || !Q || !ws)
		return rfx_error(err, RFX_EINVAL,
				 "haar sampler needs a generator, an output matrix and a workspace");
	if (ws->d != d)
		return rfx_error(err, RFX_EINVAL,
				 "workspace is for dimension %d, got d = %d",
				 ws->d, d);
	status = haar_block(r, d, ws);
	if (status)
		return rfx_error(err, RFX_ENUMERIC,
				 "qr factorisation of a %d x %d gaussian matrix failed: %s",
				 d, d, gsl_strerror(status));
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			Q[(size_t)i * (size_t)d + (size_t)j] =
				gsl_matrix_get(ws->Q, (size_t)i, (size_t)j) *
				ws->scale[j];
	return RFX_OK;
}

int rfx_proj_sample(const gsl_rng *r, enum rfx_proj p, int d, int M,
		    double *omega, size_t ld, size_t col0,
		    struct rfx_proj_ws *ws, struct rfx_err *err)
{
	int b, tau;

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

	switch (p) {
	case RFX_PROJ_IID:
		sample_iid(r, d, M, omega + col0, ld);
		return RFX_OK;
	case RFX_PROJ_ORT:
		break;
	default:
		return rfx_error(err, RFX_EINVAL, "unknown projection kind %d",
				 (int)p);
	}

	/* only ort needs the workspace; iid accepts NULL */
	if (!ws)
		return rfx_error(err, RFX_EINVAL,
				 "orthogonal projections need a workspace");
	if (ws->d != d)
		return rfx_error(err, RFX_EINVAL,
				 "workspace is for dimension %d, got d = %d",
				 ws->d, d);
	tau = (M - 1) / d + 1;  /* ceil(M / d) without overflow near INT_MAX */
	for (b = 0; b < tau; b++) {
		/* the last block keeps M - d (tau - 1) columns, not M - d tau */
		int k = b < tau - 1 ? d : M - d * (tau - 1);
		int status = sample_block(r, d, k,
					  omega + col0 + (size_t)b * (size_t)d,
					  ld, ws);

		if (status)
			return rfx_error(err, RFX_ENUMERIC,
					 "qr factorisation of a %d x %d gaussian block failed: %s",
					 d, d, gsl_strerror(status));
	}
	return RFX_OK;
}

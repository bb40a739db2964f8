/*
 * Draws: the randomness of one M-feature estimator (Gaussian projections
 * and discrete draws), their allocation, the Gaussian draw that TrigRF,
 * PosRF, GERF and OPRF share, and the squared column norms the positive
 * feature maps need. The feature matrices made from a draw are
 * lib/est/featmap.c.
 */
#include "est/draw.h"
#include "num/gemm.h"

#include <stdlib.h>
#include <string.h>

struct rfx_draw *rfx_draw_alloc(int d, int cap)
{
	struct rfx_draw *w;

	if (d < 1 || cap < 1)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->d = d;
	w->cap = cap;
	w->omega = rfx_gemm_alloc((size_t)d * (size_t)cap, sizeof(double));
	if (w->omega) /* zero, as calloc left it: columns past ncols */
		memset(w->omega, 0, (size_t)d * (size_t)cap * sizeof(double));
	w->k = calloc((size_t)d * (size_t)cap, sizeof(unsigned));
	w->pws = rfx_proj_ws_alloc(d);
	if (!w->omega || !w->k || !w->pws) {
		rfx_draw_free(w);
		return NULL;
	}
	return w;
}

int rfx_draw_gaussian(const gsl_rng *r, enum rfx_proj proj,
		      const struct rfx_params *p, int M, struct rfx_draw *w,
		      struct rfx_err *err)
{
	(void)p;
	w->ncols = M;
	return rfx_proj_sample(r, proj, w->d, M, w->omega, (size_t)w->cap, 0,
			       w->pws, err);
}

void rfx_draw_free(struct rfx_draw *w)
{
	if (!w)
		return;
	free(w->omega);
	free(w->k);
	rfx_proj_ws_free(w->pws);
	free(w);
}

void rfx_draw_colnorms(const struct rfx_draw *w, int col0, int ncols,
		       double *out)
{
	int l, m;

	for (m = 0; m < ncols; m++)
		out[m] = 0.0;
	for (l = 0; l < w->d; l++) {
		const double *row = w->omega + (size_t)l * (size_t)w->cap + col0;

		for (m = 0; m < ncols; m++)
			out[m] += row[m] * row[m];
	}
}

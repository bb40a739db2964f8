/*
 * Cluster-adapted hybrids (HRF Definitions H.1 and H.2): the fits of A per
 * pair of centres, the feature maps of one draw, and the estimates of a
 * block of pairs from them. See clushyb.h for the construction.
 */
#include "est/clushyb.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double rfx_clushyb_loss(const struct rfx_params *p, const double *x,
			const double *y, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++) {
		double complex a = p->a_re[l] + I * p->a_im[l];
		double complex z = a * x[l] + y[l] / a;

		s += creal(z) * creal(z) + cimag(z) * cimag(z);
	}
	return s;
}

double rfx_clushyb_loss_min(const double *x, const double *y, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		if (x[l] * y[l] > 0.0)
			s += 4.0 * x[l] * y[l];
	return s;
}

struct rfx_clushyb *rfx_clushyb_alloc(enum rfx_clushyb_kind kind, int d,
				      int nq, int nk, int complex_a, double tau,
				      const struct rfx_estimator_type *e0)
{
	struct rfx_clushyb *h;
	int q, np = nq * nk;

	if (d < 1 || nq < 1 || nk < 1 ||
	    (kind != RFX_CLUSHYB_ZERO_ONE && kind != RFX_CLUSHYB_GMIX))
		return NULL;
	if (kind == RFX_CLUSHYB_GMIX &&
	    (!(tau > 0.0 && isfinite(tau)) || !e0 ||
	     (e0->params & RFX_P(RFX_PARAM_M1))))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->kind = kind;
	h->d = d;
	h->nq = nq;
	h->nk = nk;
	h->base = complex_a ? &rfx_est_cexp_c : &rfx_est_cexp;
	h->tau = tau;
	h->e0 = kind == RFX_CLUSHYB_GMIX ? e0 : NULL;
	rfx_params_init(&h->p0, d);
	h->p = calloc((size_t)np, sizeof(*h->p));
	if (!h->p) {
		rfx_clushyb_free(h);
		return NULL;
	}
	for (q = 0; q < np; q++)
		rfx_params_init(&h->p[q], d);
	if (kind == RFX_CLUSHYB_GMIX) {
		h->bx = malloc((size_t)np * (size_t)d * sizeof(double));
		h->by = malloc((size_t)np * (size_t)d * sizeof(double));
		if (!h->bx || !h->by) {
			rfx_clushyb_free(h);
			return NULL;
		}
	}
	return h;
}

void rfx_clushyb_free(struct rfx_clushyb *h)
{
	int q;

	if (!h)
		return;
	if (h->p)
		for (q = 0; q < h->nq * h->nk; q++)
			rfx_params_release(&h->p[q]);
	free(h->p);
	rfx_params_release(&h->p0);
	free(h->bx);
	free(h->by);
	free(h);
}

int rfx_clushyb_fit(struct rfx_clushyb *h, const double *Cx, const double *Cy,
		    const double *X, size_t nx, const double *Y, size_t ny,
		    int M, struct rfx_err *err)
{
	int q, l, d = h->d, ret;

	for (q = 0; q < h->nq * h->nk; q++) {
		const double *xc = Cx + (size_t)(q / h->nk) * (size_t)d;
		const double *yc = Cy + (size_t)(q % h->nk) * (size_t)d;

		ret = h->base->fit(&h->p[q], xc, 1, yc, 1, M, err);
		if (ret)
			return ret;
		if (h->kind != RFX_CLUSHYB_GMIX)
			continue;
		/*
		 * lambda_q = K(u, v), u = |a| x / tau, v = -C y / (|a| tau),
		 * C = cos(2 arg a) = Re(a^2) / |a|^2 (clushyb.h).
		 */
		for (l = 0; l < d; l++) {
			double re = h->p[q].a_re[l], im = h->p[q].a_im[l];
			double m2 = re * re + im * im, m = sqrt(m2);

			h->bx[(size_t)q * (size_t)d + l] = m / h->tau;
			h->by[(size_t)q * (size_t)d + l] =
				-((re * re - im * im) / m2) / (m * h->tau);
		}
	}
	if (h->kind == RFX_CLUSHYB_GMIX)
		return h->e0->fit(&h->p0, X, nx, Y, ny, M, err);
	return RFX_OK;
}

void rfx_clushyb_maps_free(struct rfx_clushyb_maps *m)
{
	int q, np;

	if (!m)
		return;
	np = m->h->nq * m->h->nk;
	for (q = 0; q < np; q++) {
		if (m->F1)
			rfx_featmat_free(m->F1[q]);
		if (m->F2)
			rfx_featmat_free(m->F2[q]);
		if (m->L1)
			rfx_featmat_free(m->L1[q]);
		if (m->L2)
			rfx_featmat_free(m->L2[q]);
	}
	free(m->F1);
	free(m->F2);
	free(m->L1);
	free(m->L2);
	rfx_featmat_free(m->G1);
	rfx_featmat_free(m->G2);
	rfx_draw_free(m->w);
	free(m->xoff);
	free(m->yoff);
	free(m->hx);
	free(m->hy);
	free(m->U);
	free(m->V);
	free(m->buf);
	free(m->cf);
	free(m->cmax);
	free(m->ls);
	free(m);
}

struct rfx_clushyb_maps *rfx_clushyb_maps_alloc(const struct rfx_clushyb *h,
						const size_t *xoff,
						const size_t *yoff, int M, int n,
						size_t brows)
{
	struct rfx_clushyb_maps *m;
	int q, i, np = h->nq * h->nk, gmix = h->kind == RFX_CLUSHYB_GMIX;
	int cap = M, D0 = 0;
	size_t nx = xoff[h->nq], ny = yoff[h->nk], d = (size_t)h->d;

	if (M < 1 || brows < 1 || (gmix && n < 1) || xoff[0] != 0 || yoff[0] != 0)
		return NULL;
	for (i = 0; i < h->nq; i++)
		if (xoff[i + 1] <= xoff[i])
			return NULL;
	for (i = 0; i < h->nk; i++)
		if (yoff[i + 1] <= yoff[i])
			return NULL;
	if (gmix) {
		D0 = rfx_estimator_feature_dim(h->e0, &h->p0, M);
		if (D0 < 1)
			return NULL;
		if (n > cap)
			cap = n;
		if (D0 > cap)
			cap = D0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->h = h;
	m->nx = nx;
	m->ny = ny;
	m->M = M;
	m->n = gmix ? n : 0;
	m->brows = brows;
	m->xoff = malloc((size_t)(h->nq + 1) * sizeof(size_t));
	m->yoff = malloc((size_t)(h->nk + 1) * sizeof(size_t));
	m->F1 = calloc((size_t)np, sizeof(*m->F1));
	m->F2 = calloc((size_t)np, sizeof(*m->F2));
	m->hx = malloc(nx * sizeof(double));
	m->hy = malloc(ny * sizeof(double));
	m->w = rfx_draw_alloc(h->d, cap);
	m->cf = malloc((size_t)h->nq * ny * sizeof(double));
	m->cmax = calloc((size_t)h->nq, sizeof(double));
	if (!m->xoff || !m->yoff || !m->F1 || !m->F2 || !m->hx || !m->hy || !m->w ||
	    !m->cf || !m->cmax)
		goto fail;
	memcpy(m->xoff, xoff, (size_t)(h->nq + 1) * sizeof(size_t));
	memcpy(m->yoff, yoff, (size_t)(h->nk + 1) * sizeof(size_t));
	for (q = 0; q < np; q++) {
		size_t rx = gmix ? nx : xoff[q / h->nk + 1] - xoff[q / h->nk];
		size_t ry = gmix ? ny : yoff[q % h->nk + 1] - yoff[q % h->nk];

		m->F1[q] = rfx_featmat_alloc(rx, M);
		m->F2[q] = rfx_featmat_alloc(ry, M);
		if (!m->F1[q] || !m->F2[q])
			goto fail;
	}
	if (gmix) {
		m->L1 = calloc((size_t)np, sizeof(*m->L1));
		m->L2 = calloc((size_t)np, sizeof(*m->L2));
		if (!m->L1 || !m->L2)
			goto fail;
		for (q = 0; q < np; q++) {
			m->L1[q] = rfx_featmat_alloc(nx, n);
			m->L2[q] = rfx_featmat_alloc(ny, n);
			if (!m->L1[q] || !m->L2[q])
				goto fail;
		}
		m->G1 = rfx_featmat_alloc(nx, D0);
		m->G2 = rfx_featmat_alloc(ny, D0);
		m->U = malloc(nx * d * sizeof(double));
		m->V = malloc(ny * d * sizeof(double));
		m->buf = malloc((2 * (size_t)np + 1) * brows * ny * sizeof(double));
		m->ls = malloc(brows * ny * sizeof(double));
		if (!m->G1 || !m->G2 || !m->U || !m->V || !m->buf || !m->ls)
			goto fail;
	}
	return m;
fail:
	rfx_clushyb_maps_free(m);
	return NULL;
}

static void half_norms(const double *X, size_t n, int d, double *out)
{
	size_t i;

	rfx_rownorms(X, n, d, out);
	for (i = 0; i < n; i++)
		out[i] *= 0.5;
}

/* out = b .* X row by row (b has d entries). */
static void scale_rows(const double *X, size_t n, int d, const double *b,
		       double *out)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++)
		for (l = 0; l < d; l++)
			out[i * (size_t)d + l] = b[l] * X[i * (size_t)d + l];
}

/*
 * Zero-one: the column scales of row cluster i, F2_ij's row scale plus
 * |y|^2/2 for y in cluster j, as factors e^{scale - max} (the max goes to
 * the rows' scales in block_zero_one).
 */
static void col_factors(struct rfx_clushyb_maps *m)
{
	const struct rfx_clushyb *h = m->h;
	int i, j;
	size_t k;

	for (i = 0; i < h->nq; i++) {
		double *cf = m->cf + (size_t)i * m->ny, mx = -INFINITY;

		for (j = 0; j < h->nk; j++)
			for (k = m->yoff[j]; k < m->yoff[j + 1]; k++) {
				cf[k] = m->F2[i * h->nk + j]->lscale[k - m->yoff[j]] + m->hy[k];
				mx = cf[k] > mx ? cf[k] : mx;
			}
		for (k = 0; k < m->ny; k++)
			cf[k] = exp(cf[k] - mx);
		m->cmax[i] = mx;
	}
}

int rfx_clushyb_row_cluster(const struct rfx_clushyb_maps *m, size_t r)
{
	int i;

	if (m->h->kind != RFX_CLUSHYB_ZERO_ONE)
		return 0;
	for (i = 0; i + 1 < m->h->nq && r >= m->xoff[i + 1]; i++)
		;
	return i;
}

int rfx_clushyb_maps_draw(struct rfx_clushyb_maps *m, const gsl_rng *r,
			  const double *X, const double *Y, struct rfx_err *err)
{
	const struct rfx_clushyb *h = m->h;
	int q, np = h->nq * h->nk, gmix = h->kind == RFX_CLUSHYB_GMIX, ret;
	size_t d = (size_t)h->d;

	half_norms(X, m->nx, h->d, m->hx);
	half_norms(Y, m->ny, h->d, m->hy);
	for (q = 0; q < np; q++) {
		int i = q / h->nk, j = q % h->nk;
		size_t x0 = gmix ? 0 : m->xoff[i], y0 = gmix ? 0 : m->yoff[j];

		ret = h->base->draw(r, RFX_PROJ_IID, &h->p[q], m->M, m->w, err);
		if (!ret)
			ret = h->base->features(&h->p[q], m->w, 1, X + x0 * d,
						m->F1[q]->cap_n, m->M, m->F1[q], err);
		if (!ret)
			ret = h->base->features(&h->p[q], m->w, 2, Y + y0 * d,
						m->F2[q]->cap_n, m->M, m->F2[q], err);
		if (ret)
			return ret;
	}
	if (!gmix) {
		col_factors(m);
		return RFX_OK;
	}
	{
		size_t e;

		for (e = 0; e < (size_t)h->nq * m->ny; e++)
			m->cf[e] = 1.0;
	}
	for (q = 0; q < np; q++) {
		ret = rfx_est_pos.draw(r, RFX_PROJ_IID, &h->p0, m->n, m->w, err);
		if (ret)
			return ret;
		scale_rows(X, m->nx, h->d, h->bx + (size_t)q * d, m->U);
		scale_rows(Y, m->ny, h->d, h->by + (size_t)q * d, m->V);
		ret = rfx_est_pos.features(&h->p0, m->w, 1, m->U, m->nx, m->n,
					   m->L1[q], err);
		if (!ret)
			ret = rfx_est_pos.features(&h->p0, m->w, 2, m->V, m->ny, m->n,
						   m->L2[q], err);
		if (ret)
			return ret;
	}
	ret = h->e0->draw(r, RFX_PROJ_IID, &h->p0, m->M, m->w, err);
	if (!ret)
		ret = h->e0->features(&h->p0, m->w, 1, X, m->nx, m->M, m->G1, err);
	if (!ret)
		ret = h->e0->features(&h->p0, m->w, 2, Y, m->ny, m->M, m->G2, err);
	return ret;
}

/*
 * Zero-one: each pair takes the base estimator of its pair of clusters.
 * Row a of cluster i has scale F1_ij's for the columns of cluster j; the
 * largest over j goes to rs and the others into val.
 */
static void block_zero_one(const struct rfx_clushyb_maps *m, size_t r0,
			   size_t B, double *val, double *rs)
{
	const struct rfx_clushyb *h = m->h;
	size_t ny = m->ny, a, k;
	int i, j;

	for (i = 0; i < h->nq; i++) {
		size_t a0 = r0 > m->xoff[i] ? r0 : m->xoff[i];
		size_t a1 = r0 + B < m->xoff[i + 1] ? r0 + B : m->xoff[i + 1];

		if (a0 >= a1)
			continue;
		for (j = 0; j < h->nk; j++)
			rfx_featmat_gram(m->F1[i * h->nk + j], a0 - m->xoff[i], a1 - a0,
					 m->F2[i * h->nk + j], 0,
					 m->yoff[j + 1] - m->yoff[j],
					 val + (a0 - r0) * ny + m->yoff[j], ny);
		for (a = a0; a < a1; a++) {
			double mx = -INFINITY;

			for (j = 0; j < h->nk; j++) {
				double u = m->F1[i * h->nk + j]->lscale[a - m->xoff[i]];

				mx = u > mx ? u : mx;
			}
			for (j = 0; j < h->nk; j++) {
				double f = exp(m->F1[i * h->nk + j]->lscale[a - m->xoff[i]] - mx);
				double *v = val + (a - r0) * ny;

				if (f != 1.0)
					for (k = m->yoff[j]; k < m->yoff[j + 1]; k++)
						v[k] *= f;
			}
			rs[a - r0] = mx + m->hx[a] + m->cmax[i];
		}
	}
}

/*
 * Gaussian mixture: sum_q L_q S_q + (1 - sum_q L_q) S_0, each product
 * carried as value and log-scale, put on the largest scale of the pair
 * and then of the row. Block products in buf: S_q at slot 2q, L_q at
 * 2q + 1, S_0 at 2 np.
 */
static void block_gmix(const struct rfx_clushyb_maps *m, size_t r0, size_t B,
		       double *val, double *rs)
{
	const struct rfx_clushyb *h = m->h;
	int q, np = h->nq * h->nk;
	size_t ny = m->ny, slot = m->brows * ny, a, k;
	const double *G0 = m->buf + 2 * (size_t)np * slot;
	double *ls = m->ls;

	for (q = 0; q < np; q++) {
		rfx_featmat_gram(m->F1[q], r0, B, m->F2[q], 0, ny,
				 m->buf + (size_t)(2 * q) * slot, ny);
		rfx_featmat_gram(m->L1[q], r0, B, m->L2[q], 0, ny,
				 m->buf + (size_t)(2 * q + 1) * slot, ny);
	}
	rfx_featmat_gram(m->G1, r0, B, m->G2, 0, ny, m->buf + 2 * (size_t)np * slot,
			 ny);
	for (a = 0; a < B; a++) {
		double rmax = -INFINITY;

		for (k = 0; k < ny; k++) {
			size_t e = a * ny + k;
			double lc = m->G1->lscale[r0 + a] + m->G2->lscale[k];
			double s = lc, v;

			for (q = 0; q < np; q++) {
				double f = m->F1[q]->lscale[r0 + a] + m->F2[q]->lscale[k];
				double l = m->L1[q]->lscale[r0 + a] + m->L2[q]->lscale[k];

				if (l + f > s)
					s = l + f;
				if (l + lc > s)
					s = l + lc;
			}
			v = G0[e] * exp(lc - s);
			for (q = 0; q < np; q++) {
				double f = m->F1[q]->lscale[r0 + a] + m->F2[q]->lscale[k];
				double l = m->L1[q]->lscale[r0 + a] + m->L2[q]->lscale[k];
				double S = m->buf[(size_t)(2 * q) * slot + e];
				double L = m->buf[(size_t)(2 * q + 1) * slot + e];

				v += L * (S * exp(l + f - s) - G0[e] * exp(l + lc - s));
			}
			val[e] = v;
			ls[e] = s + m->hy[k];
			rmax = ls[e] > rmax ? ls[e] : rmax;
		}
		for (k = 0; k < ny; k++)
			val[a * ny + k] *= exp(ls[a * ny + k] - rmax);
		rs[a] = rmax + m->hx[r0 + a];
	}
}

int rfx_clushyb_maps_block(struct rfx_clushyb_maps *m, size_t r0, size_t B,
			   double *val, double *rs, struct rfx_err *err)
{
	if (B < 1 || B > m->brows || r0 + B > m->nx)
		return rfx_error(err, RFX_EINVAL,
				 "block of rows %zu..%zu outside 0..%zu or above %zu rows",
				 r0, r0 + B - 1, m->nx - 1, m->brows);
	if (m->h->kind == RFX_CLUSHYB_ZERO_ONE)
		block_zero_one(m, r0, B, val, rs);
	else
		block_gmix(m, r0, B, val, rs);
	return RFX_OK;
}

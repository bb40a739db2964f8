/*
 * The data-averaged variances of optimal importance sampling
 * (docs/EQUIVALENCE.md). Every average over points or pairs is a running
 * log-sum-exp, so sets whose kernel values span e^-1200..e^1400 average
 * without overflow; the Corollary 1 difference is summed from per-pair
 * terms that are non-negative by the kernel's Cauchy-Schwarz inequality,
 * never formed as a difference of two averages.
 */
#include <math.h>
#include <stdlib.h>

#include "num/block.h"
#include "num/kernel.h"
#include "num/logmath.h"
#include "exp/optis.h"

/* log of the mean of the n terms added to a. */
static double lse_mean(const struct rfx_lse *a, double n)
{
	return rfx_lse_value(a) - log(n);
}

static int check_sets(const double *X, size_t nx, const double *Y, size_t ny,
		      int d, struct rfx_err *err)
{
	struct rfx_params p;
	int ret;

	rfx_params_init(&p, d);
	ret = rfx_params_check_dim(&p, "optis", X, nx, Y, ny, 1, err);
	rfx_params_release(&p);
	return ret;
}

/* log k(x, x): 0 for the Gaussian kernel, |x|^2 for the softmax one. */
static double log_kdiag(enum rfx_optis_kernel kern, const double *x, int d)
{
	return kern == RFX_OPTIS_SOFTMAX ? rfx_kernel_softmax_log(x, x, d) : 0.0;
}

int rfx_optis_moments(enum rfx_optis_kernel kern, const double *X, size_t nx,
		      const double *Y, size_t ny, int d,
		      struct rfx_optis_moments *m, struct rfx_err *err)
{
	struct rfx_lse kxx = { -INFINITY, 0.0 }, kyy = { -INFINITY, 0.0 };
	struct rfx_lse k2 = { -INFINITY, 0.0 }, gap = { -INFINITY, 0.0 };
	double npair = (double)nx * (double)ny;
	size_t i, j;
	int ret = check_sets(X, nx, Y, ny, d, err);

	if (ret)
		return ret;
	for (i = 0; i < nx; i++)
		rfx_lse_add(&kxx, log_kdiag(kern, X + i * d, d));
	for (j = 0; j < ny; j++)
		rfx_lse_add(&kyy, log_kdiag(kern, Y + j * d, d));
	for (i = 0; i < nx; i++) {
		const double *x = X + i * d;
		double lx = log_kdiag(kern, x, d);

		for (j = 0; j < ny; j++) {
			const double *y = Y + j * d;
			double lg = rfx_kernel_gauss_log(x, y, d);
			double lk = kern == RFX_OPTIS_SOFTMAX
					    ? rfx_kernel_softmax_log(x, y, d)
					    : lg;

			rfx_lse_add(&k2, 2.0 * lk);
			/*
			 * k(x,x) k(y,y) - k(x,y)^2 = k(x,x) k(y,y) (1 - K^2)
			 * for both kernels (the softmax kernel normalised by
			 * its diagonal is K), and log(1 - K^2) = log1mexp(2 lg)
			 * is exact for close points too.
			 */
			rfx_lse_add(&gap, lx + log_kdiag(kern, y, d) +
					      rfx_log1mexp(2.0 * lg));
		}
	}
	m->log_kxx = lse_mean(&kxx, (double)nx);
	m->log_kyy = lse_mean(&kyy, (double)ny);
	m->log_k2 = lse_mean(&k2, npair);
	/* E_x k(x,x) E_y k(y,y) = E_{x,y} k(x,x) k(y,y): x, y independent. */
	m->log_bound = lse_mean(&gap, npair);
	return RFX_OK;
}

int rfx_optis_plain(const struct rfx_estimator_type *e,
		    enum rfx_optis_kernel kern, const double *X, size_t nx,
		    const double *Y, size_t ny, int d, double *log_v,
		    struct rfx_err *err)
{
	struct rfx_lse acc = { -INFINITY, 0.0 };
	struct rfx_params p;
	struct rfx_block *b = NULL;
	double *lv = NULL;  /* per-pair log Var for one x against all of Y */
	size_t i, j;
	int ret = check_sets(X, nx, Y, ny, d, err);

	if (ret)
		return ret;
	rfx_params_init(&p, d);
	ret = e->fit(&p, X, nx, Y, ny, 1, err);
	if (ret)
		goto out;
	ret = RFX_ENOMEM;
	b = rfx_block_alloc(d, 1, ny);
	lv = malloc(ny * sizeof(*lv));
	if (!b || !lv) {
		rfx_error(err, RFX_ENOMEM, "optis: out of memory for %zu pairs", ny);
		goto out;
	}
	/* One row of pairs at a time: memory O(ny), not O(nx ny). */
	for (i = 0; i < nx; i++) {
		const double *x = X + i * d;

		ret = rfx_estimator_block(e, &p, b, x, 1, Y, ny, err);
		if (!ret)
			ret = e->log_variance(&p, b, 1, lv, err);
		if (ret)
			goto out;
		for (j = 0; j < ny; j++) {
			double l = lv[j];

			if (kern == RFX_OPTIS_SOFTMAX)
				l = rfx_kernel_var_gauss_to_softmax_log(
					l, log_kdiag(kern, x, d),
					log_kdiag(kern, Y + j * d, d));
			rfx_lse_add(&acc, l);
		}
	}
	*log_v = lse_mean(&acc, (double)nx * (double)ny);
	ret = RFX_OK;
out:
	free(lv);
	rfx_block_free(b);
	rfx_params_release(&p);
	return ret;
}

int rfx_optis_plain_cos(enum rfx_optis_kernel kern, const double *X,
			size_t nx, const double *Y, size_t ny, int d,
			double *log_v, struct rfx_err *err)
{
	struct rfx_lse acc = { -INFINITY, 0.0 };
	size_t i, j;
	int ret = check_sets(X, nx, Y, ny, d, err);

	if (ret)
		return ret;
	for (i = 0; i < nx; i++) {
		const double *x = X + i * d;

		for (j = 0; j < ny; j++) {
			const double *y = Y + j * d;
			double lg = rfx_kernel_gauss_log(x, y, d);
			/* 1 - K^2 + K^4/2 = (1 + (1 - K^2)^2) / 2, no cancellation */
			double l = log1p(exp(2.0 * rfx_log1mexp(2.0 * lg))) - RFX_LN2;

			if (kern == RFX_OPTIS_SOFTMAX)
				l += log_kdiag(kern, x, d) + log_kdiag(kern, y, d);
			rfx_lse_add(&acc, l);
		}
	}
	*log_v = lse_mean(&acc, (double)nx * (double)ny);
	return RFX_OK;
}

/*
 * Samplers for the input regimes of the thesis' variance comparison
 * (sec. 6.6.1): sets {x^(i)} and {y^(j)}, i, j = 1..L, in R^d drawn from
 * isotropic Gaussians, the sphere, two shifted Gaussians, or MNIST digits,
 * all at scale gamma. Draws come only from the caller's generator, in a
 * fixed order (X row by row, then Y), so a stream gives the same sets on
 * every run.
 */
#include "data/regime.h"
#include "base/suggest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

static const char *const regime_names[RFX_REGIME_COUNT] = {
	[RFX_REGIME_NORMAL] = "normal",
	[RFX_REGIME_SPHERE] = "sphere",
	[RFX_REGIME_HETEROGEN] = "heterogen",
	[RFX_REGIME_MNIST] = "mnist",
};

const char *rfx_regime_name(enum rfx_regime g)
{
	if ((unsigned)g >= RFX_REGIME_COUNT)
		return NULL;
	return regime_names[g];
}

int rfx_regime_parse(const char *name, enum rfx_regime *out,
		     struct rfx_err *err)
{
	char valid[128] = "";        /* "normal, sphere, ..." for the message */
	size_t used = 0;
	int g;

	for (g = 0; g < RFX_REGIME_COUNT; g++)
		if (name && strcmp(name, regime_names[g]) == 0) {
			*out = (enum rfx_regime)g;
			return RFX_OK;
		}
	for (g = 0; g < RFX_REGIME_COUNT && used < sizeof(valid); g++)
		used += (size_t)snprintf(valid + used, sizeof(valid) - used,
					 "%s%s", g ? ", " : "",
					 regime_names[g]);
	if (!name)
		return rfx_error(err, RFX_EINVAL,
				 "missing regime name (valid: %s)", valid);
	{
		char hint[96];

		rfx_suggest_phrase(name, regime_names, RFX_REGIME_COUNT, hint,
				   sizeof(hint));
		return rfx_error(err, RFX_EINVAL, "unknown regime '%s'%s (valid: %s)",
				 name, hint, valid);
	}
}

/* n i.i.d. N(mu, sigma^2) values. */
static void fill_gaussian(const gsl_rng *r, double mu, double sigma,
			  double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mu + gsl_ran_gaussian(r, sigma);
}

/*
 * L points uniform on the sphere of radius gamma: a standard Gaussian
 * vector is rotation invariant, so its direction is uniform (Muller 1959;
 * GSL's gsl_ran_dir_nd does the same but cannot fail on a zero vector).
 */
static void fill_sphere(const gsl_rng *r, double gamma, int d, double *v,
			size_t L)
{
	size_t l;
	int i;

	for (l = 0; l < L; l++) {
		double *x = v + l * (size_t)d;
		double ss = 0.0;             /* squared norm */

		/* a zero draw has no direction: redraw (never seen in practice) */
		while (ss == 0.0) {
			for (i = 0; i < d; i++) {
				x[i] = gsl_ran_gaussian(r, 1.0);
				ss += x[i] * x[i];
			}
		}
		ss = gamma / sqrt(ss);
		for (i = 0; i < d; i++)
			x[i] *= ss;
	}
}

/*
 * 2 L distinct images of the pool: gsl_ran_choose() picks a uniform subset
 * but keeps it in pool order, which would give the x's the lower-numbered
 * images; shuffling first makes both halves uniform, and they are disjoint.
 */
static int fill_mnist(const gsl_rng *r, double gamma, int d, size_t L,
		      const struct rfx_images *im, double *X, double *Y,
		      struct rfx_err *err)
{
	size_t *pool = NULL;  /* 0 .. n-1 */
	size_t *pick = NULL;  /* 2 L chosen indices, shuffled */
	size_t i, l;
	int j, ret = -1;      /* RFX_OK once done */

	if (!im)
		return rfx_error(err, RFX_EINVAL,
				 "mnist regime needs an image set, got none");
	if ((long)im->rows * im->cols != d)
		return rfx_error(err, RFX_EINVAL,
				 "mnist regime needs d = k*k matching the resized images, got d = %d for %d x %d images",
				 d, im->rows, im->cols);
	if (im->n / 2 < L)
		return rfx_error(err, RFX_EINVAL,
				 "mnist regime needs 2 L distinct images, got %zu for L = %zu",
				 im->n, L);

	pool = malloc(im->n * sizeof(*pool));
	pick = malloc(2 * L * sizeof(*pick));
	if (!pool || !pick) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory choosing %zu of %zu images",
				2 * L, im->n);
		goto out;
	}
	for (i = 0; i < im->n; i++)
		pool[i] = i;
	if (gsl_ran_choose(r, pick, 2 * L, pool, im->n, sizeof(*pool)) !=
	    GSL_SUCCESS)
		RFX_BUG("gsl_ran_choose failed for %zu of %zu", 2 * L, im->n);
	gsl_ran_shuffle(r, pick, 2 * L, sizeof(*pick));

	for (l = 0; l < 2 * L; l++) {
		const double *src = im->pix + pick[l] * (size_t)d;
		double *dst = l < L ? X + l * (size_t)d : Y + (l - L) * (size_t)d;

		for (j = 0; j < d; j++)
			dst[j] = gamma * src[j];
	}
	ret = RFX_OK;
out:
	free(pool);
	free(pick);
	return ret;
}

int rfx_regime_sample(const gsl_rng *r, enum rfx_regime g, double gamma,
		      int d, size_t L, const struct rfx_images *images,
		      double *X, double *Y, struct rfx_err *err)
{
	size_t n;                    /* values per set */

	if (!(isfinite(gamma) && gamma > 0.0))
		return rfx_error(err, RFX_EINVAL,
				 "gamma must be finite and positive, got %g",
				 gamma);
	if (d < 1)
		return rfx_error(err, RFX_EINVAL,
				 "dimension d must be positive, got %d", d);
	if (L < 1)
		return rfx_error(err, RFX_EINVAL,
				 "set size L must be positive, got %zu", L);
	if (L > SIZE_MAX / 2 / (size_t)d)
		return rfx_error(err, RFX_EINVAL,
				 "set size L = %zu is too large for d = %d", L,
				 d);
	n = L * (size_t)d;

	switch (g) {
	case RFX_REGIME_NORMAL:
		fill_gaussian(r, 0.0, gamma, X, n);
		fill_gaussian(r, 0.0, gamma, Y, n);
		return RFX_OK;
	case RFX_REGIME_SPHERE:
		fill_sphere(r, gamma, d, X, L);
		fill_sphere(r, gamma, d, Y, L);
		return RFX_OK;
	case RFX_REGIME_HETEROGEN:
		fill_gaussian(r, 0.0, gamma, X, n);
		fill_gaussian(r, gamma, gamma, Y, n);
		return RFX_OK;
	case RFX_REGIME_MNIST:
		return fill_mnist(r, gamma, d, L, images, X, Y, err);
	default:
		return rfx_error(err, RFX_EINVAL, "unknown regime %d", (int)g);
	}
}

/*
 * Input regimes of the thesis' variance comparison (sec. 6.6.1, Fig 6.4):
 *
 *   normal     x, y ~ N(0, gamma^2 I_d)
 *   sphere     x, y ~ Unif(S^{d-1}), times gamma
 *   heterogen  x ~ N(0, gamma^2 I_d), y ~ N(gamma 1, gamma^2 I_d)
 *   mnist      x, y random MNIST test images, resized to k x k (k^2 = d;
 *              8 x 8 for d = 64) by area averaging, pixels in [0, 1],
 *              flattened and multiplied by gamma. The x's and y's are drawn
 *              without replacement from the same pool, so no image is paired
 *              with itself.
 */
#ifndef RFX_REGIME_H
#define RFX_REGIME_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "data/images.h"

enum rfx_regime {
	RFX_REGIME_NORMAL,
	RFX_REGIME_SPHERE,
	RFX_REGIME_HETEROGEN,
	RFX_REGIME_MNIST,
	RFX_REGIME_COUNT
};

/* "normal", "sphere", "heterogen", "mnist". */
const char *rfx_regime_name(enum rfx_regime g);

/* Parses a regime name; unknown names are RFX_EINVAL listing valid ones. */
int rfx_regime_parse(const char *name, enum rfx_regime *out,
		     struct rfx_err *err);

/*
 * Samples L x's into X and L y's into Y (each L x d row-major) for regime g
 * at scale gamma > 0. The mnist regime needs images (already resized to
 * d pixels, values in [0, 1]) with at least 2 L images; others ignore it.
 */
int rfx_regime_sample(const gsl_rng *r, enum rfx_regime g, double gamma,
		      int d, size_t L, const struct rfx_images *images,
		      double *X, double *Y, struct rfx_err *err);

#endif

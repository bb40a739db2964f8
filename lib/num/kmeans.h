/*
 * k-means clustering: k-means++ seeding (Arthur & Vassilvitskii 2007,
 * "k-means++: the advantages of careful seeding") followed by Lloyd's
 * iterations, the best of several restarts by inertia. HRF appendix H.3
 * clusters the x's and the y's with k = 2 before fitting one complex
 * exponential estimator per pair of centres.
 *
 * Notation: n points in R^d (n x d row-major), k clusters. The inertia is
 * sum_i |x_i - c_{label(i)}|^2.
 *
 * Determinism: everything random comes from the generator passed in, in a
 * fixed order (restart by restart: the k-means++ draws, nothing in Lloyd's
 * iterations), and ties are broken by the lowest index, so a stream gives
 * the same clustering on every machine up to floating-point rounding of
 * the distances. Clusters are numbered in order of first appearance in
 * the points (point 0 is in cluster 0), so the numbering does not depend
 * on which restart won or on the order its seeds were drawn.
 */
#ifndef RFX_KMEANS_H
#define RFX_KMEANS_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"

struct rfx_kmeans {
	size_t n;        /* points */
	int d;           /* dimension */
	int k;           /* clusters */
	double *centres; /* k x d: the centre (mean) of each cluster */
	int *labels;     /* n: the cluster of each point, 0..k-1 */
	size_t *sizes;   /* k: points per cluster (all >= 1 once fitted) */
	double inertia;  /* sum of squared distances to the own centre */
	int iterations;  /* Lloyd iterations of the winning restart */
	int converged;   /* 1 if its labels stopped changing within max_iter */
	/* Workspace of one restart. */
	double *c_try;   /* k x d */
	int *l_try;      /* n */
	size_t *s_try;   /* k */
	double *dist2;   /* n: squared distance to the nearest seed/centre */
	size_t *seeds;   /* k: indices of the k-means++ seeds */
};

/* Allocates a clustering of n points in R^d into k clusters; NULL on OOM
 * or for n < 1, d < 1, k < 1. */
struct rfx_kmeans *rfx_kmeans_alloc(size_t n, int d, int k);

/* Frees km; NULL is a no-op. */
void rfx_kmeans_free(struct rfx_kmeans *km);

/*
 * k-means++ seeding: the indices of k distinct-as-possible points of X
 * (n x d) into idx. The first is uniform over the points; each next one is
 * point i with probability D(i)^2 / sum_j D(j)^2, D the distance to the
 * nearest seed so far (uniform again if every D is 0, i.e. fewer than k
 * distinct points). dist2 (n entries) is scratch. Consumes k uniforms
 * from r. RFX_EINVAL if k > n or k < 1.
 */
int rfx_kmeans_seed(const gsl_rng *r, const double *X, size_t n, int d, int k,
		    size_t *idx, double *dist2, struct rfx_err *err);

/*
 * Clusters the km->n points X (n x d, finite) into km->k clusters: for
 * each of restarts runs, k-means++ seeds then Lloyd's iterations (assign
 * each point to its nearest centre, move each centre to the mean of its
 * points) until the labels stop changing or max_iter iterations; the run
 * with the smallest inertia wins (the first on ties). A cluster that
 * empties takes the point farthest from its centre, so every cluster keeps
 * at least one point. RFX_EINVAL for k > n, restarts < 1, max_iter < 1 or
 * a non-finite coordinate; RFX_EINTR if cancelled between restarts.
 */
int rfx_kmeans_fit(struct rfx_kmeans *km, const gsl_rng *r, const double *X,
		   int restarts, int max_iter, struct rfx_err *err);

#endif

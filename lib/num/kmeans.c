/*
 * k-means: k-means++ seeds, Lloyd's iterations, best of several restarts.
 * Plain loops: rfx clusters a few thousand points in R^50 into k = 2, where
 * a distance is 50 multiply-adds and the whole fit takes milliseconds.
 */
#include "num/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"

struct rfx_kmeans *rfx_kmeans_alloc(size_t n, int d, int k)
{
	struct rfx_kmeans *km;
	size_t kd;

	if (n < 1 || d < 1 || k < 1)
		return NULL;
	km = calloc(1, sizeof(*km));
	if (!km)
		return NULL;
	km->n = n;
	km->d = d;
	km->k = k;
	kd = (size_t)k * (size_t)d;
	km->centres = malloc(kd * sizeof(double));
	km->labels = malloc(n * sizeof(int));
	km->sizes = malloc((size_t)k * sizeof(size_t));
	km->c_try = malloc(kd * sizeof(double));
	km->l_try = malloc(n * sizeof(int));
	km->s_try = malloc((size_t)k * sizeof(size_t));
	km->dist2 = malloc(n * sizeof(double));
	km->seeds = malloc((size_t)k * sizeof(size_t));
	if (!km->centres || !km->labels || !km->sizes || !km->c_try ||
	    !km->l_try || !km->s_try || !km->dist2 || !km->seeds) {
		rfx_kmeans_free(km);
		return NULL;
	}
	return km;
}

void rfx_kmeans_free(struct rfx_kmeans *km)
{
	if (!km)
		return;
	free(km->centres);
	free(km->labels);
	free(km->sizes);
	free(km->c_try);
	free(km->l_try);
	free(km->s_try);
	free(km->dist2);
	free(km->seeds);
	free(km);
}

static double dist2(const double *a, const double *b, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		s += (a[l] - b[l]) * (a[l] - b[l]);
	return s;
}

/* The index of the first point whose cumulative weight exceeds u. */
static size_t pick(const double *w, size_t n, double u)
{
	double acc = 0.0;
	size_t i, last = 0;

	for (i = 0; i < n; i++) {
		if (w[i] > 0.0) {
			acc += w[i];
			last = i;
			if (acc > u)
				return i;
		}
	}
	return last; /* u within rounding of the total */
}

int rfx_kmeans_seed(const gsl_rng *r, const double *X, size_t n, int d, int k,
		    size_t *idx, double *d2, struct rfx_err *err)
{
	size_t i;
	int j;

	if (k < 1 || (size_t)k > n)
		return rfx_error(err, RFX_EINVAL,
				 "k-means needs 1 <= k <= n, got k = %d, n = %zu", k, n);
	idx[0] = gsl_rng_uniform_int(r, n);
	for (i = 0; i < n; i++)
		d2[i] = dist2(X + i * (size_t)d, X + idx[0] * (size_t)d, d);
	for (j = 1; j < k; j++) {
		double total = 0.0, u = gsl_rng_uniform(r);

		for (i = 0; i < n; i++)
			total += d2[i];
		/* Fewer than k distinct points: any point will do. */
		idx[j] = total > 0.0 ? pick(d2, n, u * total)
				     : (size_t)(u * (double)n) % n;
		for (i = 0; i < n; i++) {
			double t = dist2(X + i * (size_t)d, X + idx[j] * (size_t)d, d);

			if (t < d2[i])
				d2[i] = t;
		}
	}
	return RFX_OK;
}

/*
 * Assigns every point to its nearest centre (lowest index on ties), with
 * the squared distance in d2; returns the number of labels that changed.
 */
static size_t assign(const double *X, size_t n, int d, int k, const double *c,
		     int *labels, double *d2)
{
	size_t i, changed = 0;
	int j;

	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)d;
		double best = dist2(x, c, d);
		int bj = 0;

		for (j = 1; j < k; j++) {
			double t = dist2(x, c + (size_t)j * (size_t)d, d);

			if (t < best) {
				best = t;
				bj = j;
			}
		}
		changed += labels[i] != bj;
		labels[i] = bj;
		d2[i] = best;
	}
	return changed;
}

/* Centres as the means of their points; sizes counted. */
static void means(const double *X, size_t n, int d, int k, const int *labels,
		  double *c, size_t *sizes)
{
	size_t i;
	int j, l;

	memset(c, 0, (size_t)k * (size_t)d * sizeof(double));
	memset(sizes, 0, (size_t)k * sizeof(size_t));
	for (i = 0; i < n; i++) {
		double *cj = c + (size_t)labels[i] * (size_t)d;

		for (l = 0; l < d; l++)
			cj[l] += X[i * (size_t)d + l];
		sizes[labels[i]]++;
	}
	for (j = 0; j < k; j++)
		if (sizes[j])
			for (l = 0; l < d; l++)
				c[(size_t)j * (size_t)d + l] /= (double)sizes[j];
}

/*
 * Gives each empty cluster the point farthest from its centre (among
 * clusters with two or more points), then recomputes the means. n >= k
 * guarantees such a point exists.
 */
static void refill(const double *X, size_t n, int d, int k, int *labels,
		   double *c, size_t *sizes, double *d2)
{
	int j, moved = 0;

	for (j = 0; j < k; j++) {
		size_t i, far = n;

		if (sizes[j])
			continue;
		for (i = 0; i < n; i++)
			if (sizes[labels[i]] > 1 && (far == n || d2[i] > d2[far]))
				far = i;
		sizes[labels[far]]--;
		labels[far] = j;
		sizes[j] = 1;
		d2[far] = 0.0;
		moved = 1;
	}
	if (moved)
		means(X, n, d, k, labels, c, sizes);
}

/* One restart into the try arrays; returns its inertia. */
static double lloyd(struct rfx_kmeans *km, const double *X, int max_iter,
		    int *iters, int *conv)
{
	size_t n = km->n, i;
	int d = km->d, k = km->k, j, it;

	for (j = 0; j < k; j++)
		memcpy(km->c_try + (size_t)j * (size_t)d,
		       X + km->seeds[j] * (size_t)d, (size_t)d * sizeof(double));
	for (i = 0; i < n; i++)
		km->l_try[i] = -1;
	*conv = 0;
	for (it = 1;; it++) {
		size_t changed = assign(X, n, d, k, km->c_try, km->l_try, km->dist2);

		if (it > 1 && changed == 0) {
			*conv = 1;
			break;
		}
		if (it > max_iter)
			break;
		means(X, n, d, k, km->l_try, km->c_try, km->s_try);
		refill(X, n, d, k, km->l_try, km->c_try, km->s_try, km->dist2);
	}
	*iters = it - 1;
	/*
	 * The centres as the means of the last labels (a run stopped by
	 * max_iter may have emptied a cluster in its last assignment).
	 */
	means(X, n, d, k, km->l_try, km->c_try, km->s_try);
	refill(X, n, d, k, km->l_try, km->c_try, km->s_try, km->dist2);
	{
		double s = 0.0;

		for (i = 0; i < n; i++)
			s += dist2(X + i * (size_t)d,
				   km->c_try + (size_t)km->l_try[i] * (size_t)d, d);
		return s;
	}
}

/* Renumbers clusters by first appearance among the points. */
static void canonical(struct rfx_kmeans *km)
{
	int k = km->k, d = km->d, next = 0, j;
	int *map = km->l_try; /* k <= n entries of scratch */
	size_t i;

	for (j = 0; j < k; j++)
		map[j] = -1;
	for (i = 0; i < km->n && next < k; i++)
		if (map[km->labels[i]] < 0)
			map[km->labels[i]] = next++;
	for (j = 0; j < k; j++) {
		memcpy(km->c_try + (size_t)map[j] * (size_t)d,
		       km->centres + (size_t)j * (size_t)d, (size_t)d * sizeof(double));
		km->s_try[map[j]] = km->sizes[j];
	}
	memcpy(km->centres, km->c_try, (size_t)k * (size_t)d * sizeof(double));
	memcpy(km->sizes, km->s_try, (size_t)k * sizeof(size_t));
	for (i = 0; i < km->n; i++)
		km->labels[i] = map[km->labels[i]];
}

int rfx_kmeans_fit(struct rfx_kmeans *km, const gsl_rng *r, const double *X,
		   int restarts, int max_iter, struct rfx_err *err)
{
	size_t n = km->n, i;
	int d = km->d, k = km->k, t, ret;

	if ((size_t)k > n)
		return rfx_error(err, RFX_EINVAL,
				 "k-means needs 1 <= k <= n, got k = %d, n = %zu", k, n);
	if (restarts < 1 || max_iter < 1)
		return rfx_error(err, RFX_EINVAL,
				 "k-means needs restarts >= 1 and max_iter >= 1, got %d and %d",
				 restarts, max_iter);
	for (i = 0; i < n * (size_t)d; i++)
		if (!isfinite(X[i]))
			return rfx_error(err, RFX_EINVAL,
					 "k-means: point %zu has a non-finite coordinate",
					 i / (size_t)d);
	km->inertia = INFINITY;
	for (t = 0; t < restarts; t++) {
		double in;
		int iters, conv;

		if (rfx_cancel_requested())
			return rfx_error(err, RFX_EINTR, "interrupted");
		ret = rfx_kmeans_seed(r, X, n, d, k, km->seeds, km->dist2, err);
		if (ret)
			return ret;
		in = lloyd(km, X, max_iter, &iters, &conv);
		if (t == 0 || in < km->inertia) {
			km->inertia = in;
			km->iterations = iters;
			km->converged = conv;
			memcpy(km->centres, km->c_try,
			       (size_t)k * (size_t)d * sizeof(double));
			memcpy(km->labels, km->l_try, n * sizeof(int));
			memcpy(km->sizes, km->s_try, (size_t)k * sizeof(size_t));
		}
	}
	canonical(km);
	return RFX_OK;
}

/*
 * Set statistics (thesis eqs. 6.15, 6.18, 6.20): one pass over each set,
 * O((L + L') d), from which every estimator fits its parameters.
 */
#include "num/setstats.h"

#include <math.h>
#include <stdlib.h>

#include "num/logmath.h"

struct rfx_setstats *rfx_setstats_alloc(int d)
{
	struct rfx_setstats *s;

	if (d < 1)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->d = d;
	s->mean_absxy = calloc((size_t)d, sizeof(double));
	s->min_xy = calloc((size_t)d, sizeof(double));
	if (!s->mean_absxy || !s->min_xy) {
		rfx_setstats_free(s);
		return NULL;
	}
	return s;
}

void rfx_setstats_free(struct rfx_setstats *s)
{
	if (!s)
		return;
	free(s->mean_absxy);
	free(s->min_xy);
	free(s);
}

/*
 * Per-set sums: sum of |v|^2, sum of v, of v^2 and of |v| per coordinate,
 * and the coordinate minimum. Shifted by c when c != NULL. Each
 * coordinate's sums run over the rows in order; the loop over the
 * coordinates vectorises (every fit calls this, for both sets, and the
 * scalar loop with an early return per value was 1-2% of a Fig 6.4 run),
 * so a non-finite value is only counted and reported at the end.
 */
RFX_SIMD_CLONES
static int set_sums(const double *V, size_t n, int d, const double *c,
		    double *sum_sq, double *sum, double *sum2, double *sumabs,
		    double *vmin)
{
	size_t i;
	int l;
	double bad = 0.0;

	for (l = 0; l < d; l++) {
		sum[l] = sum2[l] = sumabs[l] = 0.0;
		vmin[l] = INFINITY;
	}
	/* one loop with the shift, one without (no load from a NULL c) */
#define SET_SUMS(Z)							\
	for (i = 0; i < n; i++) {					\
		const double *v = V + i * (size_t)d;			\
									\
		_Pragma("omp simd reduction(+ : bad)")			\
		for (l = 0; l < d; l++) {				\
			double z = (Z);					\
									\
			bad += !(fabs(z) < INFINITY);			\
			sum[l] += z;					\
			sum2[l] += z * z;				\
			sumabs[l] += fabs(z);				\
			vmin[l] = z < vmin[l] ? z : vmin[l];		\
		}							\
	}
	if (c)
		SET_SUMS(v[l] - c[l])
	else
		SET_SUMS(v[l])
#undef SET_SUMS
	if (bad > 0.0)
		return -1;
	*sum_sq = 0.0;
	for (l = 0; l < d; l++)
		*sum_sq += sum2[l];
	return 0;
}

int rfx_setstats_compute(struct rfx_setstats *s, const double *X, size_t nx,
			 const double *Y, size_t ny, const double *shift,
			 struct rfx_err *err)
{
	int d = s->d, l, ret = RFX_ENOMEM;
	double *buf, *sx, *sx2, *sax, *mx, *sy, *sy2, *say, *my;
	double xx, yy;

	if (nx == 0 || ny == 0)
		return rfx_error(err, RFX_EINVAL, "empty input set");
	buf = malloc(8 * (size_t)d * sizeof(double));
	if (!buf)
		return rfx_error(err, RFX_ENOMEM, "out of memory for set statistics");
	sx = buf;
	sx2 = sx + d;
	sax = sx2 + d;
	mx = sax + d;
	sy = mx + d;
	sy2 = sy + d;
	say = sy2 + d;
	my = say + d;

	if (set_sums(X, nx, d, shift, &xx, sx, sx2, sax, mx) ||
	    set_sums(Y, ny, d, shift, &yy, sy, sy2, say, my)) {
		ret = rfx_error(err, RFX_EINVAL, "input set has a non-finite value");
		goto out;
	}
	s->nx = nx;
	s->ny = ny;
	s->mean_xx = xx / (double)nx;
	s->mean_yy = yy / (double)ny;
	s->mean_dot = 0.0;
	s->mean_x2y2 = 0.0;
	for (l = 0; l < d; l++) {
		double nn = (double)nx * (double)ny;

		s->mean_dot += sx[l] * sy[l] / nn;
		s->mean_x2y2 += sx2[l] * sy2[l] / nn;
		s->mean_absxy[l] = sax[l] * say[l] / nn;
		s->min_xy[l] = mx[l] < my[l] ? mx[l] : my[l];
	}
	ret = RFX_OK;
out:
	free(buf);
	return ret;
}

/*
 * Set statistics: the O((L + L') d) summaries of two input sets
 * {x_i}_{i<L}, {y_j}_{j<L'} from which the thesis fits estimator parameters
 * (sec. 6.3-6.4), instead of fitting each pair:
 *
 *   mean |x_i|^2, mean |y_j|^2 and mean over pairs of |x_i + t y_j|^2   (6.15)
 *   mean over pairs of sum_l x_il^2 y_jl^2                              (6.18)
 *   mean over pairs of |x_il y_jl| for each coordinate l                (6.20)
 *
 * (6.20) is printed with a factor L/L'; the mean over pairs is
 * (1/(L L')) (sum_i |x_il|)(sum_j |y_jl|), see docs/ERRATA.md. A pair x, y
 * is the special case L = L' = 1, so pair mode fits through the same code.
 *
 * Optionally the statistics are those of the shifted sets x - c, y - c
 * (PoisRF+, GeomRF+, sec. 6.4.3).
 */
#ifndef RFX_SETSTATS_H
#define RFX_SETSTATS_H

#include <stddef.h>

#include "base/err.h"

struct rfx_setstats {
	int d;              /* dimension */
	size_t nx, ny;      /* set sizes L, L' */
	double mean_xx;     /* (1/L) sum_i |x_i|^2 */
	double mean_yy;     /* (1/L') sum_j |y_j|^2 */
	double mean_dot;    /* (1/(L L')) (sum_i x_i).(sum_j y_j) */
	double mean_x2y2;   /* (6.18) */
	double *mean_absxy; /* d entries, (6.20) corrected */
	double *min_xy;     /* d entries: min over both sets of coordinate l */
};

/* Allocates statistics for dimension d >= 1; NULL when out of memory. */
struct rfx_setstats *rfx_setstats_alloc(int d);

/* Frees; NULL is a no-op. */
void rfx_setstats_free(struct rfx_setstats *s);

/*
 * Computes the statistics of X (nx x d row-major) and Y (ny x d) into s,
 * of the shifted sets X - c, Y - c when shift is not NULL (d entries).
 * RFX_EINVAL when nx or ny is 0 or an input is not finite.
 */
int rfx_setstats_compute(struct rfx_setstats *s, const double *X, size_t nx,
			 const double *Y, size_t ny, const double *shift,
			 struct rfx_err *err);

/* Mean over pairs of |x_i + t y_j|^2, t in {-1, +1} (6.15). */
static inline double rfx_setstats_mean_sum2(const struct rfx_setstats *s,
					    int t)
{
	double v = s->mean_xx + s->mean_yy + 2.0 * t * s->mean_dot;

	return v > 0.0 ? v : 0.0;
}

#endif

/*
 * Analytic variance maps over synthetic pairs, for the thesis' figures that
 * plot closed forms rather than sampled data:
 *
 *   angle  Fig 4.1 (TrigRF vs PosRF) and Fig 6.1 (with HybRF): pairs of
 *          equal length r at angle theta, x = r e1,
 *          y = r (cos(theta) e1 + sin(theta) e2), for r = r_max k/steps,
 *          k = 1..steps, and theta = pi (j + 1/2)/(steps + 1), j = 0..steps.
 *   sum    Fig 6.2 (OPRF vs PosRF): x = y = (sqrt(w)/2) e1, so
 *          |x + y|^2 = w and K = 1, for w = w_max k/steps, k = 1..steps,
 *          and several d. The grids avoid theta in {0, pi} and w = 0, where
 *          TrigRF or PosRF are exact and log Var is -inf. The
 *          figure's curves depend on w and d only; for x = y both
 *          variances do too (K = 1), which makes this the exact ratio.
 *
 * Each point fits every method to its own pair (as pair mode does) and
 * reports log Var and, against a baseline method, log(Var / Var_baseline).
 *
 * Projections: i.i.d. by default; any list of kinds rfx has exact
 * variances for (lib/est/coupvar.h: iid, ort, simplex, ort-anti for trig,
 * pos and oprf), each a block of rows with the baseline on the same kind.
 * For PosRF and OPRF the relative variance Var/K^2 depends on the pair
 * through |x + y|^2 only (docs/DERIVATIONS.md, "One pair of coupled
 * columns"), so the sum map's x = y pairs are no loss of generality.
 */
#ifndef RFX_VARMAP_H
#define RFX_VARMAP_H

#include <stddef.h>

#include "base/err.h"
#include "est/estimator.h"
#include "io/table.h"
#include "exp/varexp.h"

enum rfx_varmap_kind {
	RFX_VARMAP_ANGLE,
	RFX_VARMAP_SUM
};

/*
 * The smallest r_max of an angle map. Below about 2e-162 the squares of
 * the grid's lengths underflow, every variance on it is 0 and log_ratio
 * 0/0, NaN; from 1e-150 the grid's smallest r, r_max / steps, stays
 * above that for any grid that fits in memory.
 */
#define RFX_VARMAP_R_MIN 1e-150

struct rfx_varmap_config {
	enum rfx_varmap_kind kind;
	int nd;                 /* dimensions (one for angle maps) */
	const int *ds;
	int budget, M;          /* features as in rfx_varexp_config */
	int nmethods;
	const struct rfx_estimator_type *const *methods;
	const struct rfx_estimator_type *baseline;
	int nprojs;             /* projection kinds; 0: iid alone */
	const enum rfx_proj *projs;
	double r_max;           /* angle: largest length, >= RFX_VARMAP_R_MIN */
	double w_max;           /* sum: largest |x + y|^2 */
	int steps;              /* grid points per axis */
};

struct rfx_varmap_row {
	char map[RFX_NAME_LEN];
	char method[RFX_NAME_LEN];
	char projection[RFX_NAME_LEN];
	int d, M;
	double r, theta, w;     /* |x| = |y|, angle, |x + y|^2 */
	double log_kernel;      /* log K(x, y) */
	double log_variance;
	double log_ratio;       /* log_variance - baseline's */
};

extern const struct rfx_schema rfx_varmap_schema;

/* "angle" or "sum"; unknown names are RFX_EINVAL. */
int rfx_varmap_parse(const char *name, enum rfx_varmap_kind *out,
		     struct rfx_err *err);

/* Rows rfx_varmap_run produces. */
size_t rfx_varmap_nrows(const struct rfx_varmap_config *c);

/*
 * Computes the map into rows (rfx_varmap_nrows entries): per d, per
 * projection, per grid point, per method. RFX_EINVAL for a bad
 * configuration or a method without an exact variance on a listed
 * coupled kind (before any work), RFX_ENOMEM, and RFX_EINTR once rfx_cancel_request()
 * was called (polled at every grid point).
 */
int rfx_varmap_run(const struct rfx_varmap_config *c,
		   struct rfx_varmap_row *rows, struct rfx_err *err);

#endif

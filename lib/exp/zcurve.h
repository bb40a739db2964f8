/*
 * The ORF paper's curves against z = |x - y|/sigma (Figs 2 and 3): bias,
 * variance and the variance ratio to RFF of the Gaussian-kernel estimator
 * (TrigRF, D = d features) on each projection kind, by Monte Carlo, beside
 * the closed forms of lib/est/orfvar.h.
 *
 * For each dimension d the pairs are x = 0, y = z u for a unit vector u
 * drawn once per d (stream keyed ("zcurve", "pairs", d)), one pair per z of the
 * grid; so the kernel is e^{-z^2/2}. For iid, ort and orf-prime only |x - y|
 * matters; for the Hadamard kinds the direction does too, and a fixed
 * random one stands for "two fixed points with distance z" (Fig 3's
 * caption). Each (projection, d) draws R estimators in chunks of
 * RFX_ZC_CHUNK, chunk c from the stream keyed ("zcurve", "draws", projection name, d, c),
 * every draw evaluated on every z (correlated across z, each z exact in
 * law); chunks run in parallel.
 *
 * Rows, per curve:
 *   mc      Monte Carlo for each projection: mean, bias and variance with
 *           standard errors (the variance's by the delta method from the
 *           fourth moment, lib/eval/montecarlo.h);
 *   exact   the closed form for iid (Lemma 1), ort (1F1) and orf-prime
 *           (0F1), standard errors 0;
 *   limit   eq. 3 for D = d, under projection "ort", and for d -> infinity
 *           (rows with d = D = 0, var 0: the ratio alone; Fig 2a).
 * ratio = var / Var RFF(z, D), mse_ratio = (var + bias^2) / Var RFF(z, D).
 */
#ifndef RFX_ZCURVE_H
#define RFX_ZCURVE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "proj/proj.h"
#include "io/table.h"

#define RFX_ZC_CHUNK 1000

struct rfx_zc_config {
	int nproj;
	const enum rfx_proj *proj;
	int nd;
	const int *d;        /* dimensions, 2 .. 4096; D = d features */
	int nz;
	const double *z;     /* 0 < z <= RFX_ORFVAR_Z_MAX */
	long R;              /* draws per (projection, d), >= 2 */
	uint64_t seed;
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

struct rfx_zc_row {
	char projection[16];
	char curve[16];
	int d, D;
	double z;
	double mean, bias, bias_se;
	double var, var_se;
	double ratio, ratio_se;
	double mse_ratio;
};

extern const struct rfx_schema rfx_zc_schema;

/* The number of rows a run gives. */
size_t rfx_zc_nrows(const struct rfx_zc_config *c);

/*
 * Runs the curves into rows (rfx_zc_nrows of them): for each d, the mc
 * rows of every projection, then the exact rows of those that have one,
 * then the limit rows; last the d -> infinity limit. RFX_EINVAL for a bad
 * configuration (before any work), RFX_ENUMERIC when a closed form is not
 * accurate at a grid point (lib/est/orfvar.h), RFX_ENOMEM, RFX_EINTR.
 */
int rfx_zc_run(const struct rfx_zc_config *c, struct rfx_zc_row *rows,
	       struct rfx_err *err);

#endif

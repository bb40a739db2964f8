/*
 * rfx variance's pair mode: every method's closed-form variance for one
 * pair (x, y), each fitted to that pair, and optionally a Monte Carlo
 * check of it. The rows are a table whose params column is as wide as the
 * longest parameter text needs (at least RFX_VARPAIR_PARAMS), so a shift
 * c or a diagonal a in high dimension is never cut short.
 */
#ifndef RFX_VARPAIR_H
#define RFX_VARPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "io/table.h"
#include "proj/proj.h"
#include "exp/varexp.h" /* RFX_NAME_LEN */

/* The params column's least width: 4095 characters and the terminator. */
#define RFX_VARPAIR_PARAMS 4096

struct rfx_varpair_config {
	const double *x, *y;    /* the pair, d entries each; borrowed */
	int d;
	int nmethods;
	const struct rfx_estimator_type *const *methods;
	const struct rfx_params *base; /* per method: the given parameters
					  (rfx_params_apply), d entries for
					  vectors; borrowed */
	int M;                  /* features of every method; 0: fair counting */
	int budget;             /* fair counting's budget (M = 0) */
	long mc_R;              /* Monte Carlo draws, 0 for none, else >= 2 */
	enum rfx_proj proj;     /* projections of the Monte Carlo draws */
	uint64_t seed;          /* the run's seed; method m draws from stream
				   (seed, 3, m) */
	int softmax;            /* the softmax kernel SM = e^{(|x|^2+|y|^2)/2} K:
				   log_kernel, log variances and the Monte
				   Carlo mean in its units */
};

/*
 * One row per method, in record memory laid out by the result's schema:
 * this struct, then the params string (schema's params column).
 */
struct rfx_varpair_row {
	char method[RFX_NAME_LEN];
	int d, M;
	double log_kernel;
	double variance, log_variance;
	long mc_R;
	double mc_mean, mc_mean_se, mc_variance, mc_log_variance,
		mc_log_variance_se;
	double mc_variance_lo, mc_variance_hi; /* 95% confidence interval */
};

struct rfx_varpair_result {
	void *rows;                  /* nrows records of schema.row_size bytes */
	size_t nrows;
	struct rfx_schema schema;    /* "pair", Monte Carlo columns if mc_R */
	struct rfx_column cols[16];  /* schema.cols points here */
};

/*
 * Fits, evaluates and (with mc_R) samples every method of c for its pair
 * into r, which the caller releases with rfx_varpair_release (also after
 * a failure). Errors: RFX_EINVAL for parameters or inputs a method
 * rejects, RFX_ENOMEM, and what Monte Carlo returns (RFX_EINTR).
 */
int rfx_varpair_run(const struct rfx_varpair_config *c,
		    struct rfx_varpair_result *r, struct rfx_err *err);

/* Row k of r and its params text (both inside r->rows). */
struct rfx_varpair_row *rfx_varpair_row(const struct rfx_varpair_result *r,
					size_t k);
const char *rfx_varpair_params(const struct rfx_varpair_result *r, size_t k);

void rfx_varpair_release(struct rfx_varpair_result *r);

#endif

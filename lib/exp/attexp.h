/*
 * The experiments of `rfx attention` (thesis sec. 3.8): the error of
 * random-feature attention against exact attention for every estimator,
 * projection kind, number of features, stabiliser, epsilon and precision
 * (Fig 3.6 and its extension to every estimator), and the time of exact
 * and random-feature attention as L grows (Fig 3.3 on a CPU, with Fig
 * 3.5's "returns V" floor). lib/exp/attention.h does the arithmetic.
 */
#ifndef RFX_ATTEXP_H
#define RFX_ATTEXP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "exp/attention.h"
#include "exp/varexp.h"

#define RFX_ATTEXP_MAX 32 /* items of each list */

struct rfx_attexp_config {
	const double *Q, *K, *V;  /* nq x d, nk x d, nk x dv (borrowed) */
	size_t nq, nk;
	int d, dv;
	const struct rfx_estimator_type *methods[RFX_ATTEXP_MAX];
	int nmethods;
	enum rfx_proj projs[RFX_ATTEXP_MAX];
	int nprojs;
	int Ms[RFX_ATTEXP_MAX];   /* feature budgets (--features) */
	int nM;
	int fair;                 /* 1: complex and paired estimators get M/2 */
	enum rfx_att_stab stabs[RFX_ATTEXP_MAX];
	int nstabs;
	double eps[RFX_ATTEXP_MAX];
	int neps;
	int f32[2];               /* precisions: 0 double, 1 float */
	int nprec;
	int causal;
	long draws;               /* R */
	size_t att_rows;          /* rows sampled for att_mse (0: all) */
	const char *const *assign; /* --param assignments, nassign of them */
	int nassign;
	uint64_t seed;
};

/* Per error: mean, sd, median and 90% quantile over the R draws. */
struct rfx_attexp_stat {
	double mean, sd, q50, q90;
};

struct rfx_attexp_row {
	char method[RFX_NAME_LEN];
	char proj[RFX_NAME_LEN];
	char stab[RFX_NAME_LEN];
	char params[64];          /* fitted parameters, rfx_params_format */
	int budget;               /* the --features value (real features with fair) */
	int M;                    /* budget passed to the estimator */
	int features;             /* real feature columns of each map */
	int causal, f32;
	double eps;
	long draws;
	long L, d;                /* keys and dimension */
	double gamma;             /* scale of synthetic inputs (set by the caller) */
	struct rfx_attexp_stat s[RFX_ATT_NERR]; /* in rfx_att_error_names order */
};

/* One draw's errors (the table behind the summaries, -o only). */
struct rfx_attexp_draw_row {
	char method[RFX_NAME_LEN];
	char proj[RFX_NAME_LEN];
	char stab[RFX_NAME_LEN];
	int budget, M, f32;
	double eps, gamma;
	long draw;
	double e[RFX_ATT_NERR];   /* in rfx_att_error_names order */
};

/* Rows the configuration makes (methods x projections x M x variants). */
size_t rfx_attexp_rows(const struct rfx_attexp_config *c);

/*
 * Runs the error study into rows (rfx_attexp_rows of them): exact
 * attention once, then for each method and M the parameters fitted to
 * the scaled inputs, and for each projection R draws, each one map
 * applied under every (stabiliser, eps, precision) variant, so the
 * variants see the same features. Draw q of method e on projection p
 * comes from stream (seed, registry index of e, p, q) whatever the
 * lists, so runs that share a cell share its numbers; discrete
 * estimators (no projection) run once, with projection "n/a". BLAS runs
 * on one thread, so the results do not depend on the thread count.
 * per_draw (may be NULL) gets every draw's errors, rfx_attexp_rows x
 * draws rows, row k's draws at k * draws. progress (may be NULL) is
 * called after each cell. Errors: the
 * estimators', RFX_EINVAL for a bad configuration, RFX_ENOMEM, RFX_EINTR.
 */
int rfx_attexp_run(const struct rfx_attexp_config *c,
		   struct rfx_attexp_row *rows, struct rfx_attexp_draw_row *per_draw,
		   void (*progress)(void *, int, int), void *arg,
		   struct rfx_err *err);

/* ------------------------------------------------------------------ */
/* Timing (Fig 3.3 on a CPU).                                          */

struct rfx_attexp_time_row {
	char what[RFX_NAME_LEN];  /* "exact", "rf" or "floor" ("returns V") */
	int causal;
	long L;
	int d, M;
	double seconds;           /* best of reps, wall clock */
	double mbytes;            /* bytes the computation's buffers take, MiB */
	double peak_mib;          /* peak resident set it added, MiB (VmHWM after
				   * a reset, less VmRSS before; NaN off Linux) */
};

struct rfx_attexp_fit_row {
	char what[RFX_NAME_LEN];
	int causal;
	double exponent;          /* slope of log time on log L */
	long L_from, L_to;        /* the L's it is fitted over */
};

/*
 * Times exact attention (for L <= Lexact_max), random-feature attention
 * (estimator e, M features, projection proj, feature maps included) and
 * the floor (a copy of V into the output) for every L of Ls (n of them),
 * noncausal and causal, on Gaussian Q, K of entries N(0, 1/d) and V
 * N(0, 1), d columns, best of reps runs (fewer once an item has taken a
 * second). rows gets 6 n rows at most
 * (*nrows of them), with the peak resident memory each computation
 * added (Linux's /proc/self/clear_refs and VmHWM; the process's, so run
 * nothing else meanwhile); fits gets one row per (what, causal) with the
 * slope of log time on log L over the L's with L >= Lfit_min (*nfits).
 */
int rfx_attexp_timing(const long *Ls, int n, long Lexact_max, int d, int M,
		      const struct rfx_estimator_type *e, enum rfx_proj proj,
		      int reps, uint64_t seed, long Lfit_min,
		      struct rfx_attexp_time_row *rows, size_t *nrows,
		      struct rfx_attexp_fit_row *fits, size_t *nfits,
		      struct rfx_err *err);

#endif

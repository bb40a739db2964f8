/*
 * The variance comparison of thesis sec. 6.6.1 (Fig 6.4): for every input
 * regime, scale gamma and sample, draw two sets of L inputs, fit every
 * estimator's parameters from the sets' statistics, and summarise the log
 * of the closed-form variance over all L x L pairs (mean, standard
 * deviation, extremes); optionally compare with Monte Carlo on a subset of
 * pairs.
 *
 * Randomness: the inputs of (regime g, gamma, sample s) come from the
 * stream keyed ("variance", "sets", name of g, bits(gamma), s) and the
 * Monte Carlo draws of estimator e from ("variance", "mc", names of e and
 * g, bits(gamma), s) (lib/base/rng.h), so a
 * row does not depend on which other regimes, gammas or methods are in the
 * run, nor on the thread count. Tasks (regime, gamma, sample) run in
 * parallel with OpenMP; each is single-threaded (OpenBLAS is set to one
 * thread) and the per-task summaries are merged in a fixed order, so the
 * output is bit-identical for any number of threads.
 */
#ifndef RFX_VAREXP_H
#define RFX_VAREXP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "data/images.h"
#include "proj/proj.h"
#include "data/regime.h"
#include "io/table.h"

#define RFX_NAME_LEN 16

struct rfx_varexp_config {
	int d;                 /* input dimension (64) */
	size_t L;              /* inputs per set (1024) */
	int samples;           /* set pairs per (regime, gamma) (5) */
	int budget;            /* real-feature budget for fair counting (8) */
	int M;                 /* features for every method; 0: fair counting */
	enum rfx_proj proj;    /* projections for the Monte Carlo column */
	long mc_R;             /* Monte Carlo draws per pair; 0: no Monte Carlo */
	size_t mc_pairs;       /* pairs per set pair checked by Monte Carlo */
	uint64_t seed;         /* --seed */
	int nmethods;
	const struct rfx_estimator_type *const *methods;
	/*
	 * Parameters fixed by the user per method (the "given" bits of
	 * base[m]), kept by every fit; NULL when all are fitted.
	 */
	const struct rfx_params *base;
	int nregimes;
	const enum rfx_regime *regimes;
	int ngammas;
	const double *gammas;
	const struct rfx_images *images; /* resized MNIST, for the mnist regime */
	size_t block;          /* edge of the pair blocks (0: 256) */
	/* Called after each finished task, serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

/* One row per (method, regime, gamma). */
struct rfx_varexp_row {
	char method[RFX_NAME_LEN];
	char regime[RFX_NAME_LEN];
	double gamma;
	int d;
	int M;                   /* features used */
	char projection[RFX_NAME_LEN]; /* of the Monte Carlo column */
	long n_pairs;            /* pairs with a positive variance */
	long n_zero;             /* pairs whose variance is exactly 0 */
	double logvar_mean;      /* mean of log Var over pairs and samples */
	double logvar_std;       /* its standard deviation */
	double logvar_min, logvar_max;
	long mc_R;               /* Monte Carlo draws per pair */
	long mc_pairs;           /* pairs checked by Monte Carlo */
	double sub_logvar_mean;  /* analytic mean on those pairs */
	double mc_logvar_mean;   /* Monte Carlo mean on those pairs */
	double mc_logvar_std;    /* Monte Carlo standard deviation */
	double mc_logvar_se;     /* mean standard error of a pair's MC value */
	long mc_zero;            /* pairs where all MC estimates coincided */
};

/* One row per (method, regime, gamma, sample, parameter). */
struct rfx_varexp_param {
	char method[RFX_NAME_LEN];
	char regime[RFX_NAME_LEN];
	double gamma;
	int sample;
	char param[RFX_NAME_LEN];
	double value;
};

/* Table schemas: analytic only, analytic with Monte Carlo, parameters. */
extern const struct rfx_schema rfx_varexp_schema;
extern const struct rfx_schema rfx_varexp_mc_schema;
extern const struct rfx_schema rfx_varexp_param_schema;

/* Rows of rfx_varexp_run: nmethods * nregimes * ngammas. */
size_t rfx_varexp_nrows(const struct rfx_varexp_config *c);

/* Parameter rows: at most nrows * samples * 4. */
size_t rfx_varexp_max_params(const struct rfx_varexp_config *c);

/*
 * Runs the experiment into rows (ordered by regime, gamma, method as
 * given) and params (*nparams set). RFX_EINVAL for a bad configuration,
 * RFX_EINTR when cancelled, RFX_ENUMERIC if a variance came out NaN.
 */
int rfx_varexp_run(const struct rfx_varexp_config *c,
		   struct rfx_varexp_row *rows, struct rfx_varexp_param *params,
		   size_t *nparams, struct rfx_err *err);

#endif

/*
 * The variance comparison of thesis sec. 6.6.1 (Fig 6.4): for every input
 * regime, scale gamma and sample, draw two sets of L inputs, fit every
 * estimator's parameters from the sets' statistics, and summarise the log
 * of the closed-form variance over all L x L pairs (mean, standard
 * deviation, extremes); optionally compare with Monte Carlo on a subset of
 * pairs.
 *
 * Randomness: the inputs of (regime g, gamma, sample s) come from the
 * stream (seed, 1, g, bits(gamma) ^ s) and the Monte Carlo draws of
 * estimator e from (seed, 2 + registry index of e, g, bits(gamma) ^ s), so a
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

/*
 * The user's own sets (rfx variance --x-file X --y-file Y, issue 16): the
 * same statistics on the given rows instead of sampled regimes. Each gamma
 * of the config scales both sets (x -> gamma x, as the regimes do) and
 * every method is fitted from the scaled sets' statistics exactly as in
 * the experiment (est/estimator.h fit, thesis sec. 6.3-6.4). Rows carry
 * the regime name "file".
 */
struct rfx_varexp_sets {
	const double *X;  /* nx x d, row-major; borrowed */
	size_t nx;
	const double *Y;  /* ny x d (may be X itself) */
	size_t ny;
	/*
	 * 0: all nx * ny pairs, walked in blocks of the config's block edge
	 * (memory O((nx + ny) d + threads * block^2), never O(nx ny)).
	 * N > 0: N pairs (i, j) drawn uniformly with replacement, from the
	 * stream (seed, 1, RFX_REGIME_COUNT, chunk) for each chunk of 65536.
	 */
	size_t pairs;
	/*
	 * The softmax kernel SM(x, y) = exp(x.y) instead of the Gaussian one:
	 * SM = exp(|x|^2/2) K(x, y) exp(|y|^2/2) (FAVOR+, HRF sec. 2), so each
	 * estimator of K times those factors estimates SM and log Var gains
	 * |x|^2 + |y|^2 per pair.
	 */
	int softmax;
};

/*
 * Runs the set study into rows (ordered by gamma, then method as given:
 * ngammas * nmethods rows) and params (at most that times 4, *nparams
 * set). The config's regimes, nregimes, samples, L and images are not
 * used. Monte Carlo (mc_R > 0) checks mc_pairs pairs drawn uniformly from
 * the stream (seed, 1, RFX_REGIME_COUNT, 2^63) with the draws of method e
 * from (seed, 2 + registry index of e, RFX_REGIME_COUNT, bits(gamma)).
 * Blocks of rows run in parallel and merge in a fixed order, so the
 * output is bit-identical for any thread count. RFX_EINVAL for a bad
 * configuration, RFX_EINTR, RFX_ENUMERIC, RFX_ENOMEM.
 */
int rfx_varexp_run_sets(const struct rfx_varexp_config *c,
			const struct rfx_varexp_sets *sets,
			struct rfx_varexp_row *rows,
			struct rfx_varexp_param *params, size_t *nparams,
			struct rfx_err *err);

/*
 * The ranking summary of issue 16: for each (regime, gamma) group of
 * rows, the methods ordered by mean log variance at the same feature
 * budget (ties keep the rows' order), with each one's gap to the best in
 * powers of e (its geometric-mean variance is e^gap times the best's) and
 * whether its estimates are positive (RFX_EST_POSITIVE: the ones usable
 * for attention, where a negative estimate of a softmax weight breaks the
 * normalisation).
 */
struct rfx_varexp_rank {
	char regime[RFX_NAME_LEN];
	double gamma;
	int rank;                /* 1 = smallest mean log variance */
	char method[RFX_NAME_LEN];
	int M;                   /* features used */
	double logvar_mean;      /* mean of log Var over pairs */
	double gap;              /* logvar_mean - the best's, >= 0 */
	int positive;            /* 1 when every estimate is > 0 */
};

extern const struct rfx_schema rfx_varexp_rank_schema;

/*
 * Fills out[0..nrows-1] with the ranking of rows (as written by
 * rfx_varexp_run or rfx_varexp_run_sets: consecutive groups of the same
 * regime and gamma). Methods are looked up by name for their positivity.
 */
void rfx_varexp_rank(const struct rfx_varexp_row *rows, size_t nrows,
		     struct rfx_varexp_rank *out);

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

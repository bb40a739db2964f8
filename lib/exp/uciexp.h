/*
 * The non-parametric classification experiment of thesis sec. 6.6.2
 * (Tables 6.2, 6.3) on one split dataset: for every method (random-feature
 * estimator with its projections, or the exact kernel regression) and
 * every gamma of the grid, the accuracy of kernel regression on the
 * validation and test rows, averaged over `seeds` draws of the random
 * features; then, per method, the gamma with the best mean validation
 * accuracy and the test accuracy there.
 *
 * Per (method, gamma) the estimator's parameters are fitted once, on the
 * gamma-scaled training set taken as both X and Y ("statistics of the
 * training set", sec. 6.6.2), with the thesis' fair budget: B real
 * features, B/2 for complex estimators (B = 128). Validation and test
 * accuracies come from the same draws; the test accuracy of a gamma is
 * only reported for the gamma the validation picked (ties: the smallest
 * gamma), so it never influences the choice.
 *
 * Randomness: the draw of (method, gamma, seed index s) comes from the
 * stream keyed ("uci-classify", "draws", dataset, estimator and projection
 * names (rfx_proj_name; "iid" for the discrete estimators), bits(gamma), s)
 * of lib/base/rng.h: a method's draws do not depend on which other
 * projections run beside it, and the same stream at a larger budget
 * starts with the same columns (lib/proj/proj.h). Tasks
 * (method, gamma, seed) run in parallel with OpenMP, OpenBLAS single-
 * threaded, each task's counts land in its own slot and are summed in a
 * fixed order: the results are bit-identical for any thread count.
 */
#ifndef RFX_UCIEXP_H
#define RFX_UCIEXP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "proj/proj.h"
#include "io/table.h"
#include "data/uci.h"

#define RFX_UCIEXP_NAME 16
#define RFX_UCIEXP_PARAMS 1024

/* A method: an estimator with its projections, or exact regression. */
struct rfx_uciexp_method {
	const struct rfx_estimator_type *e; /* NULL: exact kernel regression */
	enum rfx_proj proj;                 /* any kind; ignored when e is NULL or discrete */
};

struct rfx_uciexp_config {
	const char *dataset;       /* name written to the rows */
	int dataset_index;         /* rfx_uci_index of the dataset */
	const struct rfx_uci_split *split;
	int nmethods;
	const struct rfx_uciexp_method *methods;
	int ngammas;
	const double *gammas;
	int seeds;                 /* random-feature draws per (method, gamma) */
	int budget;                /* real-feature budget B (128) */
	uint64_t seed;             /* --seed */
	size_t chunk;              /* rows per feature-map call (0: 1024) */
	/* Called after each finished task, serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

/* One row per (method, gamma). Accuracies in percent. */
struct rfx_uciexp_gamma_row {
	char dataset[RFX_UCIEXP_NAME];
	char method[RFX_UCIEXP_NAME];
	char projection[RFX_UCIEXP_NAME]; /* rfx_proj_name, discrete, none (exact) */
	double gamma;
	int M;                  /* feature columns (0 for exact) */
	int seeds;              /* draws averaged (1 for exact) */
	double val_pct;         /* mean validation accuracy */
	double val_pct_sd;      /* its standard deviation over draws */
	double test_pct;        /* mean test accuracy */
	double test_pct_sd;
	char params[RFX_UCIEXP_PARAMS]; /* fitted parameters, "-" if none */
};

/* One row per method: the gamma the validation picked. */
struct rfx_uciexp_row {
	char dataset[RFX_UCIEXP_NAME];
	char method[RFX_UCIEXP_NAME];
	char projection[RFX_UCIEXP_NAME];
	int d;                  /* input dimension */
	int classes;            /* classes of the dataset */
	long n_train, n_val, n_test;
	int M;                  /* feature columns (0 for exact) */
	int seeds;
	double gamma;           /* best gamma on validation */
	double val_pct;         /* mean validation accuracy there */
	double test_pct;        /* mean test accuracy there */
	double test_pct_se;     /* its standard error, sd / sqrt(seeds) */
};

extern const struct rfx_schema rfx_uciexp_gamma_schema; /* "uci_gamma" */
extern const struct rfx_schema rfx_uciexp_schema;       /* "uci" */

/* Projection label of a method: "none", "discrete", "iid" or "ort". */
const char *rfx_uciexp_projection(const struct rfx_uciexp_method *m);

/*
 * Runs the experiment: gamma rows (nmethods * ngammas, by method then
 * gamma) and summary rows (nmethods). RFX_EINVAL for a bad configuration
 * or a fit that fails, RFX_EINTR when cancelled, RFX_ENOMEM.
 */
int rfx_uciexp_run(const struct rfx_uciexp_config *c,
		   struct rfx_uciexp_gamma_row *grows,
		   struct rfx_uciexp_row *rows, struct rfx_err *err);

#endif

/*
 * The clustered-data experiment of HRF appendix H (Fig 6, Table 3): for
 * each synthetic data set (lib/exp/clusdata.h), k-means with k = 2 on the x's
 * and on the y's (lib/num/kmeans.h), the cluster-adapted hybrids fitted to the
 * pairs of centres (lib/est/clushyb.h), and for every method, feature count m
 * and repetition the empirical MSE of its softmax-kernel estimates over
 * all nx x ny pairs of the set:
 *   MSE = (1 / (nx ny)) sum_{i,k} (SM^(x_i, y_k) - exp(x_i . y_k))^2,
 * one draw of the estimator's randomness per repetition, shared by all
 * pairs. Beside it, the expectation of that MSE over draws, from the
 * closed-form variances (the MSE of an unbiased estimator is its
 * variance): sum over pairs of Var / (nx ny), proportional to 1/m.
 *
 * Methods: "hyb-cluster" (Definition H.2, zero-one lambdas), "hyb-gmix"
 * (Definition H.1, Gaussian lambdas with n features and SM^_0), and any
 * registry estimator with a plain budget (trig, pos, posh, cexp, oprf,
 * ...), fitted to the whole sets. m is each method's budget in its own
 * unit: projections for all of those named (the paper's "number of random
 * features"); the hybrids have m per base estimator.
 *
 * Randomness: the data from their own streams (lib/exp/clusdata.h); k-means
 * of set id from the stream keyed ("clustered", "kmeans", id, side); the
 * draw of (method, m, repetition) from the stream keyed ("clustered",
 * "draws", method name, id, m << 32 | rep) (lib/base/rng.h). Tasks run in parallel and each writes its own row, so the
 * output does not depend on the thread count, nor on which other methods,
 * m or sets are in the run.
 *
 * Valid range: estimates are carried as value and log-scale and the
 * squared errors summed in the log domain, so the log MSE is finite for
 * any data; mse = exp(log_mse) reads inf beyond e^709 (only for data far
 * outside the paper's, e.g. a hybrid on clusters so wide that some
 * |A x + A^{-1} y|^2 exceeds ~700).
 */
#ifndef RFX_CLUSTERED_H
#define RFX_CLUSTERED_H

#include <stddef.h>
#include <stdint.h>

#include "exp/clusdata.h"
#include "est/clushyb.h"
#include "base/err.h"
#include "est/estimator.h"
#include "io/table.h"

#define RFX_CL_MAX_M 100000
#define RFX_CL_NAME_LEN 16

struct rfx_cl_method {
	const char *name;                    /* "hyb-cluster", "hyb-gmix" or a registry name */
	const struct rfx_estimator_type *e;  /* registry estimator; NULL for the hybrids */
	enum rfx_clushyb_kind kind;          /* the hybrids' */
	int code;                            /* identity, to refuse duplicates */
};

/*
 * Whether clustered takes registry estimator e as a method: those with a
 * plain budget, not the m1/m3 hybrids (they have clustered's own).
 */
int rfx_cl_accepts(const struct rfx_estimator_type *e);

/*
 * Parses a comma-separated list of methods ("hyb-cluster", "hyb-gmix" or
 * registry estimators without m1/m3) into out (capacity max). RFX_EINVAL
 * for an unknown, duplicate, empty or hybrid-budget name, listing the
 * valid ones.
 */
int rfx_cl_parse_methods(const char *list, struct rfx_cl_method *out, int max,
			 int *n, struct rfx_err *err);

struct rfx_cl_config {
	int nsets;
	const struct rfx_clusdata_config *sets; /* each with its own id */
	int nmethods;
	const struct rfx_cl_method *methods;
	int nm;
	const int *m;                /* feature counts */
	int reps;                    /* repetitions (20) */
	int complex_a;               /* hybrids: complex A (eqs. 85-87) */
	double tau;                  /* hyb-gmix bandwidth */
	const struct rfx_estimator_type *e0; /* hyb-gmix SM^_0 */
	int n_lambda;                /* hyb-gmix lambda features, 0: m */
	int restarts;                /* k-means restarts */
	double s_tol;                /* largest |s reached - target| accepted */
	int exact;                   /* compute the closed-form expected MSE */
	uint64_t seed;
	/* Called after each finished task, serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

/* Per repetition ("mse"). */
struct rfx_cl_rep_row {
	int set;                     /* configuration id */
	double sigma;
	char method[RFX_CL_NAME_LEN];
	int m, rep;
	double mse, log_mse;
};

/* Over repetitions ("table3"): HRF Table 3's [min, max] and Fig 6's mean. */
struct rfx_cl_sum_row {
	int set;
	double sigma;
	char s[64];                  /* targets, "0.08,0.05,0.04,0.03" */
	char method[RFX_CL_NAME_LEN];
	int m, reps;
	double mse_min, mse_max, mse_mean, mse_median;
};

/* The closed-form expectation of the MSE ("exact"), methods that have one. */
struct rfx_cl_exact_row {
	int set;
	double sigma;
	char method[RFX_CL_NAME_LEN];
	int m;
	double mse, log_mse;
};

/* Each pair of clusters of each set ("clusters"). */
struct rfx_cl_cluster_row {
	int set;
	double sigma;
	int i, j;                    /* pair of clusters, 1-based as in the paper */
	double s_target;             /* the target l* */
	double s_means;              /* l* at the generating (scaled) means */
	double s_centres;            /* l* at the k-means centres (the fitted A's) */
	long nx, ny;                 /* k-means cluster sizes */
	long x_moved, y_moved;       /* points k-means put in the other cluster */
	double sm_min, sm_mean, sm_max; /* exp(x.y) over the block's pairs */
};

extern const struct rfx_schema rfx_cl_rep_schema;
extern const struct rfx_schema rfx_cl_sum_schema;
extern const struct rfx_schema rfx_cl_exact_schema;
extern const struct rfx_schema rfx_cl_cluster_schema;

/* The prepared sets: data, clusterings and hybrids (opaque). */
struct rfx_cl_state;

/*
 * Checks c, makes every set's data, clusters it and fits the hybrids: the
 * quick part, so that errors in the settings (an s target out of reach
 * with these scales, RFX_EINVAL) come before the long one. c must stay
 * valid until the state is freed. RFX_ENOMEM, RFX_EINTR.
 */
int rfx_cl_prepare(const struct rfx_cl_config *c, struct rfx_cl_state **out,
		   struct rfx_err *err);
void rfx_cl_free(struct rfx_cl_state *st);

size_t rfx_cl_rep_nrows(const struct rfx_cl_config *c);
size_t rfx_cl_sum_nrows(const struct rfx_cl_config *c);
size_t rfx_cl_exact_nrows(const struct rfx_cl_config *c);
size_t rfx_cl_cluster_nrows(const struct rfx_cl_config *c);

/*
 * Runs the repetitions and fills the tables (sizes from the _nrows
 * functions; exact may be NULL when c->exact is 0, and then *nexact = 0).
 * Row order: set, method, m, rep as configured. RFX_EINTR when cancelled.
 */
int rfx_cl_run(struct rfx_cl_state *st, struct rfx_cl_rep_row *reps,
	       struct rfx_cl_sum_row *sums, struct rfx_cl_exact_row *exact,
	       size_t *nexact, struct rfx_cl_cluster_row *clusters,
	       struct rfx_err *err);

/*
 * The estimates of method k at feature count m for repetition rep of set
 * s (prepared), for every pair: est[i ny + j] for the i-th x and the j-th
 * y in the set's sorted order (cluster by cluster as k-means numbers
 * them), with the sorted inputs in X and Y if not NULL (nx x d, ny x d;
 * sizes from rfx_cl_set_size). The same computation as the MSE's, for
 * tests and small sets (the same walk, so RFX_EINTR on an interrupt too):
 * the arrays have nx ny entries.
 */
int rfx_cl_estimates(struct rfx_cl_state *st, int s, int k, int m, int rep,
		     double *est, double *X, double *Y, struct rfx_err *err);

/* The sizes of prepared set s. */
void rfx_cl_set_size(const struct rfx_cl_state *st, int s, size_t *nx,
		     size_t *ny, int *d);

#endif

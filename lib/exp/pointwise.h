/*
 * Pointwise estimation of the softmax kernel SM(x, y) = exp(x.y) on pairs
 * of the same length r at angle theta (HRF sec. 3-4.1):
 *   x = r e1,  y = r (cos(theta) e1 + sin(theta) e2)  in R^d,
 * so SM = exp(r^2 cos theta). Every registered estimator serves: its
 * Gaussian-kernel estimate times exp((|x|^2 + |y|^2)/2) estimates SM, so
 * relative errors are the same for both kernels.
 *
 * Three computations:
 *   map       (HRF Fig 1) closed-form MSE of SM over a (r, theta) grid;
 *   estimates (HRF Figs 2, 5) s independent estimates per (r, theta):
 *             mean, 5th and 95th percentiles, empirical relative error
 *             sqrt(mean (e - SM)^2)/SM, beside the analytic
 *             eps = sqrt(MSE)/SM (HRF Definition 3.3);
 *   maxerr    (HRF Lemma 3.4, Theorem 3.5) the max-relative-error over
 *             the sphere S(r), max_theta eps, found numerically, beside
 *             Lemma 3.4's closed form and Theorem 3.5's bound.
 *
 * Each method is fitted once per r to the set of all grid pairs at that r
 * (its data-driven parameters, e.g. OPRF's A, see the sphere, not a
 * single angle). Valid range: 0 < r <= 10 for estimates (estimates and
 * their squares stay within double range), 0 < r <= 100 for the analytic
 * computations (logs throughout).
 *
 * Randomness: the draws of method e at length r come in chunks of
 * RFX_PW_CHUNK draws; chunk c uses the stream keyed ("pointwise", "draws",
 * name of e, bits(r), c) (lib/base/rng.h). Chunks run in parallel, so the output does not depend on
 * the thread count, nor on which other methods or lengths are in the run.
 */
#ifndef RFX_POINTWISE_H
#define RFX_POINTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "proj/proj.h"
#include "io/table.h"
#include "exp/varexp.h"

#define RFX_PW_CHUNK 1000
#define RFX_PW_R_MAX_MC 10.0
#define RFX_PW_R_MAX 100.0

/* One method as the run uses it. */
struct rfx_pw_method {
	const struct rfx_estimator_type *e;
	const struct rfx_params *base; /* given parameters (counts, ...) */
	int M;                         /* budget in the estimator's unit */
	double flops;                  /* cost of its map (lib/eval/cost.h) */
};

struct rfx_pw_config {
	int d;                         /* input dimension (>= 2) */
	int nmethods;
	const struct rfx_pw_method *methods;
	int nr;
	const double *r;               /* lengths */
	int ntheta;                    /* angles per length */
	long s;                        /* estimates: draws per point, 0 none */
	enum rfx_proj proj;            /* estimates: projections */
	uint64_t seed;
	/* Called after each finished (method, r), serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

/*
 * map: theta = pi (j + 1/2)/ntheta, j < ntheta (the ends, where some
 * MSEs vanish and their logs are -inf, are left out).
 */
struct rfx_pw_map_row {
	char method[RFX_NAME_LEN];
	int d, M, m1, m3;
	double r, theta;
	double log_sm;        /* log SM = r^2 cos theta */
	double log_mse;       /* log MSE of the SM estimate */
	double log_rel_err;   /* log eps = (log MSE)/2 - log SM */
};

/* estimates: theta = pi j/(ntheta - 1), j < ntheta, both ends included. */
struct rfx_pw_est_row {
	char method[RFX_NAME_LEN];
	int d, M, m1, m3;
	double flops;
	double r, theta;
	double log_sm, sm;
	double ana_rel_err;   /* eps, 0 where the variance vanishes, inf
				 where it exceeds double range */
	double log_ana_rel_err; /* log eps, finite but where eps is 0 */
	long s;               /* estimates (0: analytic only) */
	double mean, p05, p95;/* of the estimates of SM */
	double emp_rel_err;   /* sqrt(mean (e - SM)^2)/SM */
};

/*
 * maxerr: for each method and r, curve "numeric" is max_theta eps over
 * theta = pi j/(ntheta - 1) refined by golden-section search around the
 * best grid point, at its argmax theta. Added rows: "lemma3.4" for trig
 * and posh, eps_S(r) = W(r)/sqrt(2M) with W(r) = e^{2r^2}(1 - e^{-4r^2})
 * (eq. 26; theta the limit, pi or 0), and for ang and ang-ind
 * "thm3.5" (eq. 27 as printed) and "thm3.5-corrected" (docs/ERRATA.md),
 * both with m = m1, n = m3 and theta the numeric argmax.
 */
struct rfx_pw_max_row {
	char method[RFX_NAME_LEN];
	char curve[RFX_NAME_LEN + 8];
	int d, M, m1, m3;
	double r, theta;
	double log_rel_err;
};

extern const struct rfx_schema rfx_pw_map_schema;
extern const struct rfx_schema rfx_pw_est_schema;    /* with s > 0 */
extern const struct rfx_schema rfx_pw_est_ana_schema; /* s = 0 */
extern const struct rfx_schema rfx_pw_max_schema;

size_t rfx_pw_map_nrows(const struct rfx_pw_config *c);
size_t rfx_pw_est_nrows(const struct rfx_pw_config *c);
size_t rfx_pw_max_nrows(const struct rfx_pw_config *c);

int rfx_pw_map_run(const struct rfx_pw_config *c, struct rfx_pw_map_row *rows,
		   struct rfx_err *err);
int rfx_pw_est_run(const struct rfx_pw_config *c, struct rfx_pw_est_row *rows,
		   struct rfx_err *err);
int rfx_pw_max_run(const struct rfx_pw_config *c, struct rfx_pw_max_row *rows,
		   struct rfx_err *err);

/* The closed forms of the maxerr curves, as logs. */
double rfx_pw_lemma34_log(double r, int m);
double rfx_pw_thm35_log(double r, int m, int n, int corrected);

#endif

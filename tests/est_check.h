/*
 * Shared checks for the estimator tests: an estimator's closed-form
 * variance against Monte Carlo, and unbiasedness, for one pair.
 *
 * The expectations are independent of the estimator's own variance code:
 * the kernel value is computed directly from the inputs, and the variance
 * is compared with the sample variance of R independent draws of the
 * estimator built from its feature maps (a different code path), with a
 * tolerance of k standard errors.
 */
#ifndef RFX_EST_CHECK_H
#define RFX_EST_CHECK_H

#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "num/block.h"
#include "est/estimator.h"
#include "est/featmap.h"
#include "num/kernel.h"
#include "eval/montecarlo.h"
#include "base/rng.h"

/* Analytic log variance of e for the single pair (x, y), params p fitted. */
static inline double check_log_var(const struct rfx_estimator_type *e,
				   const struct rfx_params *p, const double *x,
				   const double *y, int M)
{
	struct rfx_err err;
	struct rfx_block *b = rfx_block_alloc(p->d, 1, 1);
	double lv = NAN;

	if (b && !rfx_estimator_block(e, p, b, x, 1, y, 1, &err) &&
	    !e->log_variance(p, b, M, &lv, &err))
		;
	else
		diag("check_log_var(%s): %s", e->name, err.msg);
	rfx_block_free(b);
	return lv;
}

/*
 * Fits e to the pair (unless p already holds given values), then checks
 * unbiasedness and the analytic variance against R Monte Carlo draws with
 * projection proj. Returns the number of failed checks.
 */
static inline int check_estimator_mc(const struct rfx_estimator_type *e,
				     struct rfx_params *p, const double *x,
				     const double *y, int M, long R,
				     unsigned long seed, const char *label)
{
	struct rfx_err err;
	struct rfx_mc_result mc;
	gsl_rng *r = rfx_rng_alloc_stream(seed, 1, 2, 3);
	double K = exp(rfx_kernel_gauss_log(x, y, p->d)), lv;
	int fails = 0;

	rfx_err_clear(&err);
	if (e->fit(p, x, 1, y, 1, M, &err)) {
		ok(0, "%s %s: fit (%s)", e->name, label, err.msg);
		gsl_rng_free(r);
		return 1;
	}
	lv = check_log_var(e, p, x, y, M);
	if (rfx_mc_pairs(e, p, RFX_PROJ_IID, M, x, y, 1, R, r, &mc, &err)) {
		ok(0, "%s %s: monte carlo (%s)", e->name, label, err.msg);
		gsl_rng_free(r);
		return 1;
	}
	fails += !is_within_se(mc.mean, mc.mean_se, K, 4.0,
			       "%s %s: unbiased, MC mean matches K = %.6g",
			       e->name, label, K);
	fails += !is_within_se(mc.log_var, mc.log_var_se, lv, 4.0,
			       "%s %s: analytic log-variance %.6g matches MC",
			       e->name, label, lv);
	gsl_rng_free(r);
	return fails;
}

/*
 * The check of the feature maps that keep what depends on the inputs
 * alone in the matrix (F->derf, F->dirf): after every new draw, e's
 * features of X on a side, into F (which the call may take its kept
 * values from) and into a fresh matrix, must be the same bits (re and
 * lscale). kept_check_init fits e to X against Y and allocates the draw,
 * F and the stream (seed); kept_check_draw draws and compares once;
 * kept_check_done reports (what completes the line) and frees.
 */
struct kept_check {
	const struct rfx_estimator_type *e;
	struct rfx_params p;     /* fitted; a test may refit it */
	struct rfx_draw *w;
	struct rfx_featmat *F;   /* the matrix that keeps values */
	gsl_rng *r;
	int same;                /* every comparison so far equal */
	int ret;                 /* the calls' statuses, or'ed */
};

static inline void kept_check_init(struct kept_check *c,
				   const struct rfx_estimator_type *e,
				   const double *X, const double *Y, size_t n,
				   int d, int M, uint64_t seed,
				   struct rfx_err *err)
{
	c->e = e;
	c->w = rfx_draw_alloc(d, M);
	c->F = rfx_featmat_alloc(n, M);
	c->r = rfx_rng_alloc_stream(seed, 0, 0, 0);
	c->same = 1;
	rfx_params_init(&c->p, d);
	c->ret = e->fit(&c->p, X, n, Y, n, M, err);
	if (!c->w || !c->F || !c->r)
		c->ret = RFX_ENOMEM;
}

static inline void kept_check_draw(struct kept_check *c, int side,
				   const double *X, size_t n, int M,
				   struct rfx_err *err)
{
	struct rfx_featmat *G = rfx_featmat_alloc(n, M);
	struct rfx_featmat *F = c->F;
	size_t i;

	if (!G || c->ret) {
		c->ret |= G ? 0 : RFX_ENOMEM;
		rfx_featmat_free(G);
		return;
	}
	c->ret |= c->e->draw(c->r, RFX_PROJ_IID, &c->p, M, c->w, err);
	c->ret |= c->e->features(&c->p, c->w, side, X, n, M, F, err);
	c->ret |= c->e->features(&c->p, c->w, side, X, n, M, G, err);
	for (i = 0; i < n * (size_t)M; i++)
		c->same &= memcmp(&F->re[i], &G->re[i], sizeof(double)) == 0;
	for (i = 0; i < n; i++)
		c->same &= memcmp(&F->lscale[i], &G->lscale[i],
				  sizeof(double)) == 0;
	rfx_featmat_free(G);
}

static inline void kept_check_done(struct kept_check *c, const char *what)
{
	ok(!c->ret && c->same, "%s: features from kept %s", c->e->name, what);
	rfx_params_release(&c->p);
	rfx_draw_free(c->w);
	rfx_featmat_free(c->F);
	gsl_rng_free(c->r);
}

#endif

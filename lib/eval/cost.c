#include "eval/cost.h"

#include <gsl/gsl_rng.h>

#include "est/featmap.h"
#include "base/rng.h"

/* Budgets beyond this are refused: maps of 10^6 features are not a use. */
#define COST_M_MAX 1000000

int rfx_cost_of(const struct rfx_estimator_type *e, const struct rfx_params *p,
		int M, struct rfx_cost *c, struct rfx_err *err)
{
	int D = rfx_estimator_feature_dim(e, p, M), ret = RFX_OK;

	if (D < 1)
		return rfx_error(err, RFX_EINVAL, "%s: no features for M = %d",
				 e->name, M);
	c->columns = 0;
	c->map_entries = (e->flags & RFX_EST_COMPLEX) ? 2L * D : (long)D;
	if (e->flags & RFX_EST_DISCRETE) {
		c->proj_madds = (long)p->d * D;
	} else {
		/*
		 * The number of columns is whatever the draw uses: the draw
		 * is the authority, so a new estimator is costed correctly
		 * without an entry here. The stream is a fixed one: a draw's
		 * column count does not depend on its values.
		 */
		struct rfx_draw *w = rfx_draw_alloc(p->d, D > M ? D : M);
		gsl_rng *r = rfx_rng_alloc_key(0, &(struct rfx_rng_key){
			.exp = "cost", .what = "columns" });

		if (!w || !r)
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		else
			ret = e->draw(r, RFX_PROJ_IID, p, M, w, err);
		if (!ret)
			c->columns = w->ncols;
		rfx_draw_free(w);
		if (r)
			gsl_rng_free(r);
		if (ret)
			return ret;
		c->proj_madds = (long)p->d * c->columns;
	}
	c->flops = 2.0 * (double)c->proj_madds + (double)c->map_entries;
	return RFX_OK;
}

/*
 * Largest x in [1, COST_M_MAX] with f(x) <= flops, for f increasing in x
 * (set by set_x). 0 when f(1) > flops.
 */
static int largest_fit(const struct rfx_estimator_type *e,
		       struct rfx_params *p, double flops,
		       void (*set_x)(struct rfx_params *, int, int *), int *x_out,
		       struct rfx_err *err)
{
	struct rfx_cost c;
	int lo = 0, hi = 1, M, ret;

	/* Doubling, then bisection on (lo, hi]: lo fits, hi does not. */
	for (;;) {
		set_x(p, hi, &M);
		ret = rfx_cost_of(e, p, M, &c, err);
		if (ret)
			return ret;
		if (c.flops > flops)
			break;
		lo = hi;
		if (hi == COST_M_MAX)
			break;
		hi = hi > COST_M_MAX / 2 ? COST_M_MAX : 2 * hi;
	}
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		set_x(p, mid, &M);
		ret = rfx_cost_of(e, p, M, &c, err);
		if (ret)
			return ret;
		if (c.flops > flops)
			hi = mid;
		else
			lo = mid;
	}
	*x_out = lo;
	return RFX_OK;
}

static void set_budget(struct rfx_params *p, int x, int *M)
{
	(void)p;
	*M = x;
}

static void set_m1(struct rfx_params *p, int x, int *M)
{
	p->m1 = x;
	*M = 0;
}

static void set_m3(struct rfx_params *p, int x, int *M)
{
	p->m3 = x;
	*M = 0;
}

static void set_both(struct rfx_params *p, int x, int *M)
{
	p->m1 = x;
	p->m3 = x;
	*M = 0;
}

int rfx_cost_match(const struct rfx_estimator_type *e, struct rfx_params *p,
		   double flops, int *M, struct rfx_cost *c,
		   struct rfx_err *err)
{
	unsigned both = RFX_P(RFX_PARAM_M1) | RFX_P(RFX_PARAM_M3);
	int x = 0, ret;

	if (!(flops > 0.0))
		return rfx_error(err, RFX_EINVAL, "FLOP budget must be positive");
	if ((e->params & both) != both) {
		ret = largest_fit(e, p, flops, set_budget, &x, err);
		*M = x;
	} else if ((p->given & both) == both) {
		*M = rfx_estimator_features(e, p, 0);
		return rfx_cost_of(e, p, 0, c, err);
	} else {
		void (*set)(struct rfx_params *, int, int *) =
			(p->given & RFX_P(RFX_PARAM_M1)) ? set_m3
			: (p->given & RFX_P(RFX_PARAM_M3)) ? set_m1 : set_both;

		ret = largest_fit(e, p, flops, set, &x, err);
		if (!ret && x > 0) {
			set(p, x, M);
			p->given |= both;
			*M = rfx_estimator_features(e, p, 0);
		}
	}
	if (ret)
		return ret;
	if (x == 0)
		return rfx_error(err, RFX_EINVAL,
				 "%s: even the smallest map costs more than %.0f FLOPs",
				 e->name, flops);
	return rfx_cost_of(e, p, *M, c, err);
}

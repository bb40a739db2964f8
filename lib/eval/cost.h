/*
 * The cost of building an estimator's random feature map for one input,
 * in floating-point operations, and FLOP matching: the budget an
 * estimator gets so that its map costs no more than a baseline's (HRF
 * sec. 4.1 compares hybrids "with the similar number of FLOPS operations
 * per random feature map creation"; appendix L gives the orders,
 * O(nd + md + mn) for a hybrid against O(mnd) for a regular map of the
 * same dimension).
 *
 * The model, for inputs in R^d (docs/COST.md derives it):
 *   projections  one multiply-add (2 FLOPs) per input coordinate and
 *                Gaussian projection column (omega . x), or per
 *                coordinate and feature for the discretely induced
 *                features (a sum of d terms k_l log|x_l|);
 *   map          one FLOP per real entry of the map (rfx_featmat_to_real):
 *                the nonlinearity, or the product forming an outer-product
 *                entry of a hybrid.
 * Constant per-input terms (|x|^2, row scales) and per-column constants
 * are left out: they are O(d) and O(m) and the same for every estimator
 * to within a small factor. Transcendental functions count one FLOP;
 * docs/COST.md discusses the alternative.
 *
 * Projection columns are counted from a draw (rfx_estimator_type.draw),
 * so a new estimator needs no entry here.
 */
#ifndef RFX_COST_H
#define RFX_COST_H

#include "base/err.h"
#include "est/estimator.h"

struct rfx_cost {
	int columns;          /* Gaussian projection columns */
	long proj_madds;      /* multiply-adds of the projections */
	long map_entries;     /* real entries of the feature map */
	double flops;         /* 2 proj_madds + map_entries */
};

/*
 * Cost of e's map for budget M with parameters p (p->d the dimension;
 * hybrids read p->m1, p->m3 as their hooks do).
 */
int rfx_cost_of(const struct rfx_estimator_type *e, const struct rfx_params *p,
		int M, struct rfx_cost *c, struct rfx_err *err);

/*
 * FLOP matching: the largest budget whose map costs at most flops. For the
 * hybrids (parameters m1 and m3) the counts not in p->given are set, equal
 * when both are free, the free one as large as fits when the other is
 * given, and marked given so that fit keeps them; *M is then the hybrid's
 * feature count. RFX_EINVAL when even the smallest map costs more.
 */
int rfx_cost_match(const struct rfx_estimator_type *e, struct rfx_params *p,
		   double flops, int *M, struct rfx_cost *c,
		   struct rfx_err *err);

#endif

/*
 * The serial path of the cell sweep (OpenMP threads over the cells, each
 * cell into its own slot, errors reported for the lowest failing cell so
 * that the message does not depend on scheduling), the cost-balanced
 * static partition every distributed run uses, and the runner hook.
 */
#include "base/cells.h"

#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"

static struct rfx_cells_runner runner;

void rfx_cells_set_runner(const struct rfx_cells_runner *r)
{
	if (r)
		runner = *r;
	else
		memset(&runner, 0, sizeof(runner));
}

int rfx_cells_run(const struct rfx_cells *c, struct rfx_err *err)
{
	if (!c->compute || (c->n && (!c->out || !c->size)))
		return rfx_error(err, RFX_EINVAL,
				 "cells '%s': no compute hook or result buffer",
				 c->name ? c->name : "?");
	if (runner.run)
		return runner.run(runner.rctx, c, err);
	return rfx_cells_compute(c, NULL, c->n, err);
}

struct by_cost {
	double cost;
	size_t i;
};

/* Decreasing cost, then increasing index: the same order everywhere. */
static int cmp_cost(const void *a, const void *b)
{
	const struct by_cost *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static double cell_cost(const struct rfx_cells *c, size_t i)
{
	double w = c->cost ? c->cost(c->ctx, i) : 1.0;

	return w > 0.0 ? w : 0.0; /* also maps NaN to 0 */
}

int rfx_cells_compute(const struct rfx_cells *c, const size_t *idx,
		      size_t nidx, struct rfx_err *err)
{
	int *status = calloc(nidx ? nidx : 1, sizeof(*status));
	struct rfx_err *errs = calloc(nidx ? nidx : 1, sizeof(*errs));
	struct by_cost *ord = malloc((nidx ? nidx : 1) * sizeof(*ord));
	long q, n = (long)nidx;
	size_t k;
	int done = 0, ret = RFX_OK;

	if (!status || !errs || !ord) {
		free(status);
		free(errs);
		free(ord);
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells",
				 nidx);
	}
	/*
	 * The costly cells first, so that the threads finish together;
	 * results go by index, so the order changes no number. ord[].i is
	 * the position in the list.
	 */
	for (k = 0; k < nidx; k++) {
		ord[k].cost = c->cost ? cell_cost(c, idx ? idx[k] : k) : 0.0;
		ord[k].i = k;
	}
	if (c->cost)
		qsort(ord, nidx, sizeof(*ord), cmp_cost);
#pragma omp parallel if (!c->inner_parallel)
	{
		void *ws = c->ws_alloc ? c->ws_alloc(c->ctx) : NULL;
		int ok = !c->ws_alloc || ws;

#pragma omp for schedule(dynamic, 1)
		for (q = 0; q < n; q++) {
			size_t k = ord[q].i;
			size_t i = idx ? idx[k] : k;
			void *out = (char *)c->out + i * c->size;

			if (!ok) {
				status[k] = rfx_error(&errs[k], RFX_ENOMEM,
						      "out of memory for cell %zu of '%s'",
						      i, c->name);
				continue;
			}
			if (rfx_cancel_requested()) {
				status[k] = rfx_error(&errs[k], RFX_EINTR,
						      "interrupted");
				continue;
			}
			memset(out, 0, c->size);
			status[k] = c->compute(c->ctx, ws, i, out, &errs[k]);
#pragma omp critical(rfx_cells_progress)
			{
				done++;
				if (c->progress)
					c->progress(c->progress_ctx, done, (int)n);
			}
		}
		if (c->ws_free)
			c->ws_free(ws);
	}
	/* idx is increasing in every caller; the first failure is the lowest cell. */
	for (k = 0; k < nidx && !ret; k++)
		if (status[k]) {
			*err = errs[k];
			ret = status[k];
		}
	free(status);
	free(errs);
	free(ord);
	return ret;
}

int rfx_cells_partition(const struct rfx_cells *c, int nparts, int *owner,
			struct rfx_err *err)
{
	struct by_cost *v;
	double *load;
	size_t i;
	int p;

	if (nparts < 1)
		return rfx_error(err, RFX_EINVAL,
				 "cells must go to at least one part, got %d", nparts);
	v = malloc((c->n ? c->n : 1) * sizeof(*v));
	load = calloc((size_t)nparts, sizeof(*load));
	if (!v || !load) {
		free(v);
		free(load);
		return rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells",
				 c->n);
	}
	for (i = 0; i < c->n; i++) {
		v[i].cost = cell_cost(c, i);
		v[i].i = i;
	}
	qsort(v, c->n, sizeof(*v), cmp_cost);
	for (i = 0; i < c->n; i++) {
		int best = 0;

		for (p = 1; p < nparts; p++)
			if (load[p] < load[best])
				best = p;
		owner[v[i].i] = best;
		/* equal costs still spread: count each cell a little */
		load[best] += v[i].cost + 1e-9;
	}
	free(v);
	free(load);
	return RFX_OK;
}

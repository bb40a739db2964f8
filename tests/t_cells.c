/*
 * Cells (lib/base/cells.h): every cell is computed once into its own
 * zeroed slot, a list computes only its cells, the lowest failing cell's
 * error is the one reported, a runner takes over rfx_cells_run, and the
 * LPT partition matches a hand-worked example and balances equal cells.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "base/cells.h"

struct ctx {
	int fail_from;   /* cells >= this fail, with their index in the message */
	int calls[64];   /* how often each cell was computed */
	int ws_made, ws_freed;
};

static void *ws_alloc(void *c)
{
	struct ctx *x = c;
	int *w = malloc(sizeof(int));

#pragma omp atomic
	x->ws_made++;
	return w;
}

static void ws_free(void *w)
{
	free(w);
}

static int compute(void *c, void *ws, size_t i, void *out, struct rfx_err *err)
{
	struct ctx *x = c;
	double *v = out;

	(void)ws;
#pragma omp atomic
	x->calls[i]++;
	if (v[0] != 0.0 || v[1] != 0.0)
		return rfx_error(err, RFX_ENUMERIC, "slot %zu not zeroed", i);
	if ((int)i >= x->fail_from)
		return rfx_error(err, RFX_ENUMERIC, "cell %zu failed", i);
	v[0] = 2.385 * (double)i;
	v[1] = (double)(i * i);
	return RFX_OK;
}

static double cost(void *c, size_t i)
{
	static const double w[6] = { 5, 4, 3, 3, 2, 2 };

	(void)c;
	return w[i];
}

static void init(struct rfx_cells *cl, struct ctx *x, double *buf, size_t n)
{
	memset(cl, 0, sizeof(*cl));
	memset(x, 0, sizeof(*x));
	x->fail_from = 1000;
	cl->name = "test";
	cl->n = n;
	cl->size = 2 * sizeof(double);
	cl->out = buf;
	cl->ctx = x;
	cl->ws_alloc = ws_alloc;
	cl->ws_free = ws_free;
	cl->compute = compute;
}

static int fake_run(void *rctx, const struct rfx_cells *c, struct rfx_err *err)
{
	(void)err;
	*(const struct rfx_cells **)rctx = c;
	return RFX_OK;
}

int main(void)
{
	struct rfx_cells cl;
	struct ctx x;
	double buf[2 * 40];
	struct rfx_err err;
	size_t list[3] = { 3, 7, 30 }, i;
	int good = 1, owner[40], load[3] = { 0 }, ret;
	const struct rfx_cells *seen = NULL;
	struct rfx_cells_runner r = { fake_run, &seen };

	/* Every cell once, into its own slot (slots start dirty). */
	memset(buf, 0xff, sizeof(buf));
	init(&cl, &x, buf, 40);
	ok(rfx_cells_run(&cl, &err) == RFX_OK, "40 cells run");
	for (i = 0; i < 40; i++)
		good &= x.calls[i] == 1 && buf[2 * i] == 2.385 * (double)i &&
			buf[2 * i + 1] == (double)(i * i);
	ok(good, "each cell computed once into its zeroed slot");
	ok(x.ws_made >= 1, "a workspace per thread (%d)", x.ws_made);

	/* A list computes those cells only. */
	init(&cl, &x, buf, 40);
	memset(buf, 0, sizeof(buf));
	ok(rfx_cells_compute(&cl, list, 3, &err) == RFX_OK, "a list of 3 cells");
	good = 1;
	for (i = 0; i < 40; i++)
		good &= x.calls[i] == (i == 3 || i == 7 || i == 30);
	ok(good && buf[2 * 30] == 2.385 * 30, "only the listed cells are computed");

	/* The lowest failing cell reports, whatever the schedule. */
	init(&cl, &x, buf, 40);
	x.fail_from = 17;
	ret = rfx_cells_run(&cl, &err);
	ok(ret == RFX_ENUMERIC && !strcmp(err.msg, "cell 17 failed"),
	   "the lowest failing cell's error: '%s'", err.msg);

	/* Bad descriptions. */
	init(&cl, &x, buf, 40);
	cl.compute = NULL;
	ok(rfx_cells_run(&cl, &err) == RFX_EINVAL, "no compute hook: %s", err.msg);
	init(&cl, &x, buf, 6);
	ok(rfx_cells_partition(&cl, 0, owner, &err) == RFX_EINVAL,
	   "zero parts: %s", err.msg);

	/* A runner takes over. */
	init(&cl, &x, buf, 40);
	rfx_cells_set_runner(&r);
	ok(rfx_cells_run(&cl, &err) == RFX_OK && seen == &cl && x.calls[0] == 0,
	   "an installed runner gets the sweep instead");
	rfx_cells_set_runner(NULL);
	ok(rfx_cells_run(&cl, &err) == RFX_OK && x.calls[0] == 1,
	   "removing it restores the serial path");

	/*
	 * LPT on costs 5, 4, 3, 3, 2, 2 into 2 parts, by hand: 5 -> p0 (5),
	 * 4 -> p1 (4), 3 -> p1 (7), 3 -> p0 (8), 2 -> p1 (9), 2 -> p0 (10).
	 */
	init(&cl, &x, buf, 6);
	cl.cost = cost;
	ok(rfx_cells_partition(&cl, 2, owner, &err) == RFX_OK &&
		   owner[0] == 0 && owner[1] == 1 && owner[2] == 1 &&
		   owner[3] == 0 && owner[4] == 1 && owner[5] == 0,
	   "LPT partition of costs 5,4,3,3,2,2 into 2 parts: 0 1 1 0 1 0");
	/* 40 equal cells into 3 parts: 14, 13, 13. */
	init(&cl, &x, buf, 40);
	ok(rfx_cells_partition(&cl, 3, owner, &err) == RFX_OK, "40 equal cells, 3 parts");
	for (i = 0; i < 40; i++)
		load[owner[i]]++;
	ok(load[0] == 14 && load[1] == 13 && load[2] == 13,
	   "equal cells spread 14/13/13 (got %d/%d/%d)", load[0], load[1], load[2]);
	return done_testing();
}

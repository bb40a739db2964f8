/*
 * Shared helpers of the projection tests (tests/t_proj.c,
 * tests/t_proj_structured.c): their streams, workspaces and draws, which
 * bail out on a failure that would make the later checks meaningless, and
 * the column dot product the orthogonality checks use.
 *
 * The includer defines PROJ_STREAM_BASE, the first stream index of its
 * tests, so that the two files draw from disjoint streams.
 */
#ifndef RFX_PROJ_CHECK_H
#define RFX_PROJ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "base/rng.h"
#include "proj/proj.h"

#ifndef PROJ_STREAM_BASE
#error "define PROJ_STREAM_BASE before including proj_check.h"
#endif

#define SEED 20221121UL
#define SENTINEL 2.385 /* marks entries the sampler must not touch */

/* Stream tuples: PROJ_STREAM_BASE + test number, case, 0. */
static inline gsl_rng *stream(int test, int kase)
{
	gsl_rng *r = rfx_rng_alloc_stream(SEED, PROJ_STREAM_BASE + (uint64_t)test,
					  (uint64_t)kase, 0);

	if (!r) {
		printf("Bail out! cannot allocate a generator\n");
		exit(1);
	}
	return r;
}

static inline struct rfx_proj_ws *workspace(int d)
{
	struct rfx_proj_ws *ws = rfx_proj_ws_alloc(d);

	if (!ws) {
		printf("Bail out! cannot allocate a workspace for d = %d\n", d);
		exit(1);
	}
	return ws;
}

/* Draws, bailing out on an unexpected error so later checks mean something. */
static inline void draw(const gsl_rng *r, enum rfx_proj p, int d, int M,
			double *omega, size_t ld, size_t col0,
			struct rfx_proj_ws *ws)
{
	struct rfx_err err;

	rfx_err_clear(&err);
	if (rfx_proj_sample(r, p, d, M, omega, ld, col0, ws, &err)) {
		printf("Bail out! rfx_proj_sample(%s, d = %d, M = %d): %s\n",
		       rfx_proj_name(p), d, M, err.msg);
		exit(1);
	}
}

/* A d x ld matrix filled with SENTINEL. */
static inline double *alloc_omega(int d, size_t ld)
{
	double *omega = malloc((size_t)d * ld * sizeof(*omega));
	size_t i;

	if (!omega) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (i = 0; i < (size_t)d * ld; i++)
		omega[i] = SENTINEL;
	return omega;
}

/* Columns a and b of the d x ld matrix omega, dotted. */
static inline double dot(const double *omega, size_t ld, int d, size_t a,
			 size_t b)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		s += omega[(size_t)l * ld + a] * omega[(size_t)l * ld + b];
	return s;
}

#endif

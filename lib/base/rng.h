/*
 * Reproducible random streams.
 *
 * Every random draw in rfx comes from a stream identified by the user's
 * seed and a small tuple of task indices (regime, gamma, sample, method,
 * ...). A stream's state depends only on that tuple, never on which thread
 * runs the task or in what order, so results are bit-identical whatever the
 * thread count. There is no global generator.
 */
#ifndef RFX_RNG_H
#define RFX_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"

#define RFX_DEFAULT_SEED 20221121UL

/* The generator type behind every stream (recorded in output files). */
const gsl_rng_type *rfx_rng_type(void);

/*
 * Derives the 64-bit seed of stream (seed, i0, i1, i2) with a SplitMix64
 * chain; distinct tuples give unrelated seeds.
 */
uint64_t rfx_rng_stream_seed(uint64_t seed, uint64_t i0, uint64_t i1,
			     uint64_t i2);

/*
 * Allocates a generator seeded for stream (seed, i0, i1, i2). Returns NULL
 * when out of memory. Free with gsl_rng_free().
 */
gsl_rng *rfx_rng_alloc_stream(uint64_t seed, uint64_t i0, uint64_t i1,
			      uint64_t i2);

/* Re-seeds an existing generator for stream (seed, i0, i1, i2). */
void rfx_rng_set_stream(gsl_rng *r, uint64_t seed, uint64_t i0, uint64_t i1,
			uint64_t i2);

#endif

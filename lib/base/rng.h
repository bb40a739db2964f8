/*
 * Reproducible random streams.
 *
 * Every random draw in rfx comes from a stream identified by the user's
 * seed and a key made of names and cell indices: the experiment, what the
 * stream draws, the estimator, dataset or regime it serves, and the
 * indices of its cell (gamma, sample, repetition, ...). A stream's state
 * depends only on that key, never on which thread or MPI rank runs the
 * cell, in what order, or on where an estimator sits in the registry: adding
 * or reordering estimators, datasets or regimes changes no other stream.
 * There is no global generator.
 *
 * Library code names its streams with struct rfx_rng_key (rfx_rng_set_key,
 * rfx_rng_alloc_key); the numeric tuples below are the primitive under it,
 * kept for tests that want a throwaway stream.
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
 * The key of a stream. exp and what are fixed strings chosen once at the
 * call site ("variance", "sets"); name[] are up to three run-time names
 * (estimator, dataset, projection, regime: NULL for none), i and j the
 * cell's indices (a double enters through rfx_rng_bits). Distinct keys give
 * unrelated streams; a name is hashed, so a key does not depend on any
 * list's order.
 */
struct rfx_rng_key {
	const char *exp;     /* experiment or module, e.g. "variance" */
	const char *what;    /* what the stream draws, e.g. "sets" */
	const char *name[3]; /* run-time names, NULL-padded */
	uint64_t i, j;       /* cell indices */
};

/* 64-bit FNV-1a hash of the key's strings, each ended by a 0xff byte. */
uint64_t rfx_rng_key_hash(const struct rfx_rng_key *k);

/*
 * FNV-1a of n bytes continuing from h (start from 0 for a fresh hash):
 * a name for data that has none but its content (a user's file, keyed by
 * its rows rather than by its file name or its place on the command line).
 */
uint64_t rfx_rng_hash_bytes(uint64_t h, const void *p, size_t n);

/* The bits of a double as a cell index (gamma, r, ...). */
uint64_t rfx_rng_bits(double x);

/* Seeds r for the stream of key k under the user's seed. */
void rfx_rng_set_key(gsl_rng *r, uint64_t seed, const struct rfx_rng_key *k);

/* A new generator on the stream of key k; NULL when out of memory. */
gsl_rng *rfx_rng_alloc_key(uint64_t seed, const struct rfx_rng_key *k);

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

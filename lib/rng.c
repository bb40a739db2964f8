/*
 * Stream derivation: SplitMix64 (Steele, Lea & Flood, OOPSLA 2014) mixes the
 * user seed with the task tuple; the result seeds a Mersenne Twister. The
 * mixing makes neighbouring tuples (sample 3 vs 4) give unrelated streams.
 */
#include "rng.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

const gsl_rng_type *rfx_rng_type(void)
{
	return gsl_rng_mt19937;
}

uint64_t rfx_rng_stream_seed(uint64_t seed, uint64_t i0, uint64_t i1,
			     uint64_t i2)
{
	uint64_t s = seed;
	uint64_t h = splitmix64(&s);

	s = h ^ i0;
	h = splitmix64(&s);
	s = h ^ i1;
	h = splitmix64(&s);
	s = h ^ i2;
	return splitmix64(&s);
}

void rfx_rng_set_stream(gsl_rng *r, uint64_t seed, uint64_t i0, uint64_t i1,
			uint64_t i2)
{
	/*
	 * mt19937 takes an unsigned long seed and treats 0 as its default
	 * seed; fold to 32 bits the way it uses them and avoid 0.
	 */
	uint64_t s = rfx_rng_stream_seed(seed, i0, i1, i2);
	unsigned long s32 = (unsigned long)((s ^ (s >> 32)) & 0xffffffffUL);

	gsl_rng_set(r, s32 ? s32 : 1UL);
}

gsl_rng *rfx_rng_alloc_stream(uint64_t seed, uint64_t i0, uint64_t i1,
			      uint64_t i2)
{
	gsl_rng *r = gsl_rng_alloc(rfx_rng_type());

	if (!r)
		return NULL;
	rfx_rng_set_stream(r, seed, i0, i1, i2);
	return r;
}

/*
 * Stream derivation: SplitMix64 (Steele, Lea & Flood, OOPSLA 2014) mixes the
 * user seed with the task tuple into a 64-bit stream seed, which fills the
 * 256-bit state of a xoshiro256** generator (Blackman & Vigna, ACM TOMS
 * 2021) wrapped as a GSL generator type. GSL's own generators take 32-bit
 * seeds (mt19937 folds longer ones), which makes two of n streams coincide
 * with probability ~n^2/2^33; 64-bit seeds push that to ~n^2/2^65.
 * A named key enters the chain as the FNV-1a hash of its strings (Fowler,
 * Noll & Vo), then its two cell indices.
 */
#include "base/rng.h"

#include <string.h>

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct xoshiro_state {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* One step of xoshiro256**: the scrambled output, then the linear update. */
static uint64_t xoshiro_next(struct xoshiro_state *st)
{
	uint64_t *s = st->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static void xoshiro_set(void *vstate, unsigned long seed)
{
	struct xoshiro_state *st = vstate;
	uint64_t sm = seed;
	int k;

	/* SplitMix64 never yields four zero words from one seed. */
	for (k = 0; k < 4; k++)
		st->s[k] = splitmix64(&sm);
}

/* 32-bit outputs (the upper half), which every GSL sampler accepts. */
static unsigned long xoshiro_get(void *vstate)
{
	return (unsigned long)(xoshiro_next(vstate) >> 32);
}

/* 53 random bits in [0, 1). */
static double xoshiro_get_double(void *vstate)
{
	return (double)(xoshiro_next(vstate) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type xoshiro_type = {
	"xoshiro256**",
	0xffffffffUL,
	0,
	sizeof(struct xoshiro_state),
	xoshiro_set,
	xoshiro_get,
	xoshiro_get_double
};

const gsl_rng_type *rfx_rng_type(void)
{
	return &xoshiro_type;
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
	gsl_rng_set(r, (unsigned long)rfx_rng_stream_seed(seed, i0, i1, i2));
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

/* FNV-1a over s, then the 0xff terminator (no string byte of a name). */
static uint64_t fnv_string(uint64_t h, const char *s)
{
	if (s)
		for (; *s; s++) {
			h ^= (unsigned char)*s;
			h *= 0x100000001b3ULL;
		}
	h ^= 0xffu;
	return h * 0x100000001b3ULL;
}

uint64_t rfx_rng_key_hash(const struct rfx_rng_key *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int q;

	h = fnv_string(h, k->exp);
	h = fnv_string(h, k->what);
	for (q = 0; q < 3; q++)
		h = fnv_string(h, k->name[q]);
	return h;
}

uint64_t rfx_rng_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t k;

	if (!h)
		h = 0xcbf29ce484222325ULL;
	for (k = 0; k < n; k++) {
		h ^= b[k];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t rfx_rng_bits(double x)
{
	uint64_t u;

	if (x == 0.0)
		x = 0.0; /* -0 and +0 are one cell */
	memcpy(&u, &x, sizeof(u));
	return u;
}

void rfx_rng_set_key(gsl_rng *r, uint64_t seed, const struct rfx_rng_key *k)
{
	rfx_rng_set_stream(r, seed, rfx_rng_key_hash(k), k->i, k->j);
}

gsl_rng *rfx_rng_alloc_key(uint64_t seed, const struct rfx_rng_key *k)
{
	return rfx_rng_alloc_stream(seed, rfx_rng_key_hash(k), k->i, k->j);
}

/*
 * SHA-256 after FIPS 180-2 (with change notice 1), section 6.2: 64-byte
 * blocks, the message schedule of 6.2.2 step 1, 64 rounds with the
 * constants K of 4.2.2, and the padding of 5.1.1 (a 1 bit, zeros, and the
 * message length in bits as a 64-bit big-endian number). Checked against
 * the standard's own examples in tests/t_sha256.c.
 */
#include "base/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* FIPS 180-2 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* One block, FIPS 180-2 6.2.2 steps 1-4. */
static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
	for (t = 16; t < 64; t++) {
		uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^
			      (w[t - 15] >> 3);
		uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^
			      (w[t - 2] >> 10);

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (t = 0; t < 64; t++) {
		t1 = hh + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) +
		     ((e & f) ^ (~e & g)) + K[t] + w[t];
		t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void rfx_sha256_init(struct rfx_sha256 *s)
{
	/* FIPS 180-2 5.3.2 */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->nbuf = 0;
}

void rfx_sha256_update(struct rfx_sha256 *s, const void *p, size_t n)
{
	const unsigned char *q = p;

	s->len += n;
	if (s->nbuf) {
		size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;

		memcpy(s->buf + s->nbuf, q, k);
		s->nbuf += k;
		q += k;
		n -= k;
		if (s->nbuf < 64)
			return;
		block(s->h, s->buf);
		s->nbuf = 0;
	}
	for (; n >= 64; n -= 64, q += 64)
		block(s->h, q);
	if (n) {
		memcpy(s->buf, q, n);
		s->nbuf = n;
	}
}

void rfx_sha256_hex(struct rfx_sha256 *s, char hex[RFX_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	uint64_t bits = s->len * 8;
	unsigned char pad[72];
	size_t npad;
	int i;

	/* 5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the length in bits */
	npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
	rfx_sha256_update(s, pad, npad + 8);
	for (i = 0; i < 32; i++) {
		unsigned char byte = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 15];
	}
	hex[64] = '\0';
}

int rfx_sha256_file(const char *path, char hex[RFX_SHA256_HEX],
		    uint64_t *size, struct rfx_err *err)
{
	struct rfx_sha256 s;
	unsigned char buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;
	int bad;

	if (!f)
		return rfx_error(err, RFX_EIO, "cannot read '%s': %s", path,
				 strerror(errno));
	rfx_sha256_init(&s);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		rfx_sha256_update(&s, buf, n);
	bad = ferror(f);
	fclose(f);
	if (bad)
		return rfx_error(err, RFX_EIO, "cannot read '%s'", path);
	if (size)
		*size = s.len;
	rfx_sha256_hex(&s, hex);
	return RFX_OK;
}

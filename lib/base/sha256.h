/*
 * SHA-256 (FIPS 180-2, section 6.2) of byte streams and files, for the
 * provenance of input files: every output records the SHA-256 of each file
 * it read, so a result can be traced to the exact bytes it came from.
 * Streaming (init, update, final), so a loader hashes a file while it
 * parses it and never holds it twice.
 */
#ifndef RFX_SHA256_H
#define RFX_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define RFX_SHA256_HEX 65 /* 64 hex digits and the NUL */

struct rfx_sha256 {
	uint32_t h[8];          /* running hash state H0..H7 */
	uint64_t len;           /* bytes hashed so far */
	unsigned char buf[64];  /* the current, incomplete block */
	size_t nbuf;            /* bytes in buf */
};

/* Starts a hash (FIPS 180-2 5.3.2 initial value). */
void rfx_sha256_init(struct rfx_sha256 *s);

/* Hashes n more bytes of p (p may be NULL when n is 0). */
void rfx_sha256_update(struct rfx_sha256 *s, const void *p, size_t n);

/*
 * Pads, finishes and writes the digest as 64 lowercase hex digits and a
 * NUL into hex; s must be initialised again before reuse.
 */
void rfx_sha256_hex(struct rfx_sha256 *s, char hex[RFX_SHA256_HEX]);

/*
 * Hashes the whole file at path into hex and stores its size in bytes in
 * *size (size may be NULL). RFX_EIO "cannot read 'path': <reason>" when it
 * cannot be opened or read.
 */
int rfx_sha256_file(const char *path, char hex[RFX_SHA256_HEX],
		    uint64_t *size, struct rfx_err *err);

#endif

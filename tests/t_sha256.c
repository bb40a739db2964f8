/*
 * Tests of lib/base/sha256.c: the examples of FIPS 180-2 appendix B (one
 * block, two blocks, a million 'a'), the empty message, every split of a
 * message across update calls (the block buffer's edges), and a file
 * hashed by rfx_sha256_file against coreutils' sha256sum when it is there.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sha256.h"
#include "tap.h"

/* Passes when the digest is the expected one; prints both otherwise. */
static void is_hex(const char *got, const char *want, const char *what)
{
	if (!ok(!strcmp(got, want), "%s", what))
		diag("    got %s, want %s", got, want);
}

static void hash(const void *p, size_t n, char hex[RFX_SHA256_HEX])
{
	struct rfx_sha256 s;

	rfx_sha256_init(&s);
	rfx_sha256_update(&s, p, n);
	rfx_sha256_hex(&s, hex);
}

int main(void)
{
	static const char two[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static char million[1000000];
	char hex[RFX_SHA256_HEX], want[RFX_SHA256_HEX], path[] = "/tmp/t_sha256.XXXXXX";
	struct rfx_sha256 s;
	struct rfx_err err;
	uint64_t size = 0;
	size_t k, bad = 0;
	FILE *f;
	int fd;

	plan(9);
	hash("abc", 3, hex);
	is_hex(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	   "FIPS 180-2 B.1: one-block message 'abc'");
	hash(two, strlen(two), hex);
	is_hex(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	   "FIPS 180-2 B.2: two-block message");
	memset(million, 'a', sizeof(million));
	hash(million, sizeof(million), hex);
	is_hex(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	   "FIPS 180-2 B.3: one million 'a'");
	hash("", 0, hex);
	is_hex(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	   "the empty message");

	/* every split point of the two-block message, in two updates */
	hash(two, strlen(two), want);
	for (k = 0; k <= strlen(two); k++) {
		rfx_sha256_init(&s);
		rfx_sha256_update(&s, two, k);
		rfx_sha256_update(&s, two + k, strlen(two) - k);
		rfx_sha256_hex(&s, hex);
		bad += strcmp(hex, want) != 0;
	}
	ok(bad == 0, "every split into two updates gives the one-call digest");
	/* byte by byte across 1000 bytes of the million */
	hash(million, 1000, want);
	rfx_sha256_init(&s);
	for (k = 0; k < 1000; k++)
		rfx_sha256_update(&s, million + k, 1);
	rfx_sha256_hex(&s, hex);
	is_hex(hex, want, "byte-at-a-time updates give the one-call digest");

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f) {
		fwrite(million, 1, 123457, f);
		fclose(f);
	}
	rfx_err_clear(&err);
	ok(f && rfx_sha256_file(path, hex, &size, &err) == RFX_OK && size == 123457,
	   "rfx_sha256_file reads a file of 123457 bytes (%s)", err.msg);
	hash(million, 123457, want);
	is_hex(hex, want, "rfx_sha256_file equals the digest of the same bytes");
	unlink(path);
	rfx_err_clear(&err);
	ok(rfx_sha256_file(path, hex, NULL, &err) == RFX_EIO &&
	   strstr(err.msg, "cannot read '") != NULL,
	   "a missing file is RFX_EIO naming it (%s)", err.msg);
	return done_testing();
}

/*
 * include/rfx.h and lib/base/err.h agree on the status codes and the error
 * record. The public header must stay self-contained, so it repeats
 * err.h's definitions behind a guard; the library, which includes both,
 * only ever compiles err.h's, and nothing else would notice the two
 * drifting apart. This file compiles both in one translation unit: the
 * public header first with its names renamed (PUB_*, pub_*), then err.h.
 *
 * CODES lists every code once. A code missing from either header is an
 * undeclared name; a code added to either header and not here is an
 * enumerator the switches below do not handle, which -Wall -Werror (-Wswitch)
 * refuses; a value or a layout that differs fails a test below.
 */
#include <stddef.h>
#include <string.h>

#define CODES \
	X(RFX_OK) X(RFX_EINVAL) X(RFX_ENOMEM) X(RFX_EIO) X(RFX_EFORMAT) \
	X(RFX_ENUMERIC) X(RFX_EINTR)

/* The public header's definitions under other names. */
#define rfx_status pub_rfx_status
#define rfx_err pub_rfx_err
#define rfx_err_clear pub_rfx_err_clear
#define RFX_OK PUB_RFX_OK
#define RFX_EINVAL PUB_RFX_EINVAL
#define RFX_ENOMEM PUB_RFX_ENOMEM
#define RFX_EIO PUB_RFX_EIO
#define RFX_EFORMAT PUB_RFX_EFORMAT
#define RFX_ENUMERIC PUB_RFX_ENUMERIC
#define RFX_EINTR PUB_RFX_EINTR
#include <rfx.h>
enum { PUB_MSG_MAX = RFX_ERR_MSG_MAX };
#undef RFX_ERR_MSG_MAX
#undef rfx_status
#undef rfx_err
#undef rfx_err_clear
#undef RFX_OK
#undef RFX_EINVAL
#undef RFX_ENOMEM
#undef RFX_EIO
#undef RFX_EFORMAT
#undef RFX_ENUMERIC
#undef RFX_EINTR

#include "base/err.h"
#include "tap.h"

/* Each header's value of a code, by the code's name; -1 for none. */
static int pub_value(enum pub_rfx_status s)
{
	switch (s) {
#define X(c) case PUB_##c: return (int)PUB_##c;
		CODES
#undef X
	}
	return -1;
}

static int lib_value(enum rfx_status s)
{
	switch (s) {
#define X(c) case c: return (int)c;
		CODES
#undef X
	}
	return -1;
}

int main(void)
{
	unsigned seen = 0; /* bit v: some code has value v */
	int n = 0;

#define X(c) \
	ok(pub_value(PUB_##c) == lib_value(c) && (int)PUB_##c == (int)c, \
	   "%s is %d in rfx.h and %d in err.h", #c, (int)PUB_##c, (int)c); \
	seen |= c >= 0 && c < 32 ? 1u << c : 0u; \
	n++;
	CODES
#undef X
	ok(sizeof(enum pub_rfx_status) == sizeof(enum rfx_status),
	   "enum rfx_status has one size");
	ok(PUB_MSG_MAX == RFX_ERR_MSG_MAX, "RFX_ERR_MSG_MAX is %d in rfx.h and %d in err.h",
	   (int)PUB_MSG_MAX, (int)RFX_ERR_MSG_MAX);
	ok(sizeof(struct pub_rfx_err) == sizeof(struct rfx_err) &&
		   offsetof(struct pub_rfx_err, code) == offsetof(struct rfx_err, code) &&
		   offsetof(struct pub_rfx_err, msg) == offsetof(struct rfx_err, msg) &&
		   sizeof(((struct pub_rfx_err *)0)->msg) ==
			   sizeof(((struct rfx_err *)0)->msg),
	   "struct rfx_err has one layout");
	ok(seen == (1u << n) - 1, "the %d codes are 0..%d, each once", n, n - 1);
	return done_testing();
}

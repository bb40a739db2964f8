/*
 * Error reporting for the rfx library.
 *
 * Library functions that can fail return an enum rfx_status (RFX_OK is 0)
 * and take a struct rfx_err * as their last parameter; on failure the
 * message explains the problem in one lowercase line without a full stop,
 * problem first, subject quoted, e.g. "cannot open 'x.h5'". The library
 * never prints, exits or aborts on bad input; only cli/ turns a status
 * into an exit code. RFX_BUG() is for broken internal invariants only.
 */
#ifndef RFX_ERR_H
#define RFX_ERR_H

#include <stddef.h>

enum rfx_status {
	RFX_OK = 0,
	RFX_EINVAL,   /* an argument or parameter is out of its valid range */
	RFX_ENOMEM,   /* an allocation failed */
	RFX_EIO,      /* a file could not be opened, read or written */
	RFX_EFORMAT,  /* a data file is malformed, or its data cannot serve
		       * (one row, all rows equal: a bandwidth of 0) */
	RFX_ENUMERIC, /* a numerical routine failed to converge */
	RFX_EINTR     /* interrupted by a signal */
};

#define RFX_ERR_MSG_MAX 512

struct rfx_err {
	int code;                   /* last status reported, RFX_OK if none */
	char msg[RFX_ERR_MSG_MAX];  /* its message */
};

/* Resets err to "no error". err may be NULL. */
void rfx_err_clear(struct rfx_err *err);

/*
 * Records code and the printf-style message in err (when err is not NULL)
 * and returns code, so that callers can write
 *   return rfx_error(err, RFX_EINVAL, "d must be positive, got %d", d);
 */
int rfx_error(struct rfx_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Copies in to out (n bytes, always NUL-terminated, cut at a whole
 * character) with control characters written as \n, \t, \r or \xHH, so
 * that a message quoting user input stays one line. rfx_error() applies it
 * to every message.
 */
void rfx_err_escape(const char *in, char *out, size_t n);

/* Reports a broken invariant on stderr and aborts; never for user input. */
#define RFX_BUG(...) rfx_bug(__FILE__, __LINE__, __VA_ARGS__)
void rfx_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#endif

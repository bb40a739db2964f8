/*
 * Error reporting: formats a message into a caller-owned struct rfx_err and
 * hands back the status code, so every failure path is a single return.
 */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void rfx_err_clear(struct rfx_err *err)
{
	if (!err)
		return;
	err->code = RFX_OK;
	err->msg[0] = '\0';
}

int rfx_error(struct rfx_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void rfx_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rfx: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

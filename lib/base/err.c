/*
 * Error reporting: formats a message into a caller-owned struct rfx_err and
 * hands back the status code, so every failure path is a single return.
 */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

void rfx_err_clear(struct rfx_err *err)
{
	if (!err)
		return;
	err->code = RFX_OK;
	err->msg[0] = '\0';
}

void rfx_err_escape(const char *in, char *out, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return;
	for (; *in && k + 1 < n; in++) {
		unsigned char c = (unsigned char)*in;
		char e[5];
		size_t len;

		if (c >= 0x20 && c != 0x7f) {
			out[k++] = (char)c;
			continue;
		}
		len = (size_t)snprintf(e, sizeof(e), c == '\n' ? "\\n" : c == '\t' ? "\\t" :
				       c == '\r' ? "\\r" : "\\x%02x", c);
		if (k + len + 1 > n)
			break;
		memcpy(out + k, e, len);
		k += len;
	}
	out[k] = '\0';
}

int rfx_error(struct rfx_err *err, int code, const char *fmt, ...)
{
	char raw[RFX_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* A newline in an argument quoted in the message must not split it. */
	rfx_err_escape(raw, err->msg, sizeof(err->msg));
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

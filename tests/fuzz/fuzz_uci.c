/*
 * libFuzzer target: the UCI loader of uci-classify (rfx_uci_load,
 * lib/data/uci.c): headers checked field by field, categorical levels, integer
 * labels, CRLF and trailing empty lines. The first input byte picks the
 * format and the encoding, the rest is the file; a loaded set is also
 * split and standardised as the experiment does. It must return data or
 * an error with a message, never crash, leak or read out of bounds.
 */
#include <string.h>

#include "data/uci.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rfx_uci_spec *const *specs = rfx_uci_list();
	const struct rfx_uci_spec *s;
	struct rfx_uci_data *D;
	struct rfx_uci_split S;
	struct rfx_err err;
	const char *dir;
	char path[160];
	size_t n = 0;

	while (specs[n])
		n++;
	if (size < 1)
		return 0;
	s = specs[data[0] % n];
	dir = fuzz_write(s->file, data + 1, size - 1);
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, s->file);
	memset(&err, 0, sizeof(err));
	D = rfx_uci_load(s, path, (enum rfx_uci_encoding)(data[0] / n % 2), &err);
	if (!D) {
		if (!err.code || !err.msg[0])
			__builtin_trap();
		return 0;
	}
	if (D->n < 1 || D->nclass < 1)
		__builtin_trap();
	memset(&S, 0, sizeof(S));
	if (rfx_uci_split(D, 7, data[0] & 0x80, &S, &err) == RFX_OK &&
	    S.n_train + S.n_val + S.n_test != D->n)
		__builtin_trap();
	rfx_uci_split_release(&S);
	rfx_uci_free(D);
	return 0;
}

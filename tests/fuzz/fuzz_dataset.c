/*
 * libFuzzer target: the text loader of the MSE-table datasets
 * (rfx_dataset_load, lib/data/dataset.c), comma- or blank-separated numbers,
 * plain or gzip, with each catalogue entry's field count, header lines and
 * dropped columns. The first input byte picks the entry, the rest is the
 * file; a loaded set is also normalised and padded. The loader must
 * return a dataset or an error with a message, never crash, leak or read
 * out of bounds.
 */
#include <string.h>

#include "data/dataset.h"
#include "fuzz_util.h"

/* The catalogue's text entries and their file names (lib/data/dataset.c). */
static const char *const fuzz_dataset_entry[][2] = {
	{ "wine", "wine.csv" },
	{ "boston", "boston_housing.csv" },
	{ "letter", "letter-recognition.data" },
	{ "usps", "usps_zip.train.gz" },
	{ "wifi", "wifi_localization.txt" },
	{ "abalone", "abalone.csv" },
	{ "banknote", "banknote.txt" },
	{ "optdigits", "optdigits.tra" },
	{ "yeast", "yeast.data" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = sizeof(fuzz_dataset_entry) / sizeof(fuzz_dataset_entry[0]);
	struct rfx_dataset *ds;
	struct rfx_err err;
	const char *dir;
	size_t k;

	if (size < 1)
		return 0;
	k = data[0] % n;
	dir = fuzz_write(fuzz_dataset_entry[k][1], data + 1, size - 1);
	if (!dir)
		return 0;
	memset(&err, 0, sizeof(err));
	ds = rfx_dataset_load(fuzz_dataset_entry[k][0], dir, &err);
	if (!ds) {
		if (!err.code || !err.msg[0])
			__builtin_trap(); /* an error must say what went wrong */
		return 0;
	}
	rfx_dataset_normalize(ds, (enum rfx_norm)(data[0] / n % 5));
	if (ds->d < 512 && rfx_dataset_pad(ds, ds->d + 1, &err))
		__builtin_trap();
	rfx_dataset_free(ds);
	return 0;
}

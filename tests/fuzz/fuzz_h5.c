/*
 * libFuzzer target: the HDF5 result-file reader (lib/io/h5read.c) on a
 * damaged file: rfx_h5_dump of every table, rfx_h5_describe and
 * rfx_h5_dump_attrs. The input is the file. Each must print or return an
 * error with a message, never crash, hang or leak; libhdf5 1.10.8 itself
 * crashes on many such files, so this checks that rfx's metadata checks
 * (h5read.h) stop them first. Seeds: a small result file and single-byte
 * mutants of it that crashed or ran away before those checks.
 */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "io/h5read.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink; /* /dev/null: the text is not what is checked */
	struct rfx_err err;
	const char *dir;
	char path[160];
	int r;

	if (!sink) {
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
		sink = fopen("/dev/null", "w");
		if (!sink)
			return 0;
	}
	dir = fuzz_write("in.h5", data, size);
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/in.h5", dir);
	memset(&err, 0, sizeof(err));
	r = rfx_h5_dump(path, NULL, sink, &err);
	if (r && (!err.code || !err.msg[0] || strchr(err.msg, '\n')))
		__builtin_trap();
	memset(&err, 0, sizeof(err));
	r = rfx_h5_describe(path, NULL, sink, &err);
	if (r && (!err.code || !err.msg[0]))
		__builtin_trap();
	memset(&err, 0, sizeof(err));
	r = rfx_h5_dump_attrs(path, sink, &err);
	if (r && (!err.code || !err.msg[0]))
		__builtin_trap();
	return 0;
}

/*
 * libFuzzer target: the loader of the user's input files
 * (rfx_matrix_load, lib/data/matrix.c) on .npy and text files. The first
 * input byte picks the options (header detection, forced or forbidden; a
 * label column; a labels-only file); the rest is the file. The loader must
 * return a matrix whose values are all finite and whose labels are in
 * range, or an error with a one-line message, never crash, leak or read
 * out of bounds. (HDF5 files go through the HDF5 library's own parser,
 * which is not ours to fuzz.)
 */
#include <math.h>
#include <string.h>

#include "data/matrix.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rfx_matrix_opts o;
	struct rfx_matrix m;
	struct rfx_err err;
	char spec[160];
	const char *dir;
	size_t i;

	if (size < 1)
		return 0;
	dir = fuzz_write("in.dat", data + 1, size - 1);
	if (!dir)
		return 0;
	memset(&o, 0, sizeof(o));
	o.header = (enum rfx_matrix_header)(data[0] % 3);
	o.labels_only = (data[0] >> 2) & 1;
	o.label_column = o.labels_only ? 0 : (data[0] >> 3) & 3;
	snprintf(spec, sizeof(spec), "%s/in.dat", dir);
	memset(&err, 0, sizeof(err));
	if (rfx_matrix_load(&m, spec, &o, &err)) {
		if (!err.code || !err.msg[0] || strchr(err.msg, '\n') || m.x ||
		    m.labels || m.rows)
			__builtin_trap(); /* an error must say what went wrong */
		rfx_matrix_release(&m);
		return 0;
	}
	if (m.rows == 0 || strlen(m.sha256) != 64 || m.size != size - 1 ||
	    (!o.labels_only && (m.cols < 1 || !m.x)))
		__builtin_trap();
	for (i = 0; !o.labels_only && i < m.rows * (size_t)m.cols; i++)
		if (!isfinite(m.x[i]))
			__builtin_trap();
	if (o.labels_only || o.label_column)
		for (i = 0; i < m.rows; i++)
			if (!m.labels || m.labels[i] < 0 || m.labels[i] >= m.nclass)
				__builtin_trap();
	rfx_matrix_release(&m);
	return 0;
}

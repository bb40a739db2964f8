/*
 * A .npy writer for the tests (tests/t_matrix.c, tests/t_varexp_sets.c),
 * after the format's specification (numpy/lib/format.py): the magic
 * "\x93NUMPY", the version, the header length (2 little-endian bytes in
 * version 1, 4 in versions 2 and 3), the dict text padded with blanks and
 * a newline to a multiple of 64 bytes, then the raw data. The tests make
 * their fixtures with it at run time; none is committed.
 */
#ifndef RFX_TESTS_NPY_H
#define RFX_TESTS_NPY_H

#include <stdio.h>
#include <string.h>

/*
 * A .npy file: version major.0, header dict text (without padding), then
 * nbytes of data; the header is padded with blanks and a newline to a
 * multiple of 64 bytes, as numpy writes it.
 */
static inline void write_npy_raw(const char *path, int major, const char *dict,
			  const void *data, size_t nbytes)
{
	FILE *f = fopen(path, "wb");
	size_t pre = major == 1 ? 10 : 12, hlen = strlen(dict) + 1, k;

	while ((pre + hlen) % 64)
		hlen++;
	fwrite("\x93NUMPY", 1, 6, f);
	fputc(major, f);
	fputc(0, f);
	fputc((int)(hlen & 255), f);
	fputc((int)(hlen >> 8 & 255), f);
	if (major > 1) {
		fputc(0, f);
		fputc(0, f);
	}
	fputs(dict, f);
	for (k = strlen(dict) + 1; k < hlen; k++)
		fputc(' ', f);
	fputc('\n', f);
	if (nbytes)
		fwrite(data, 1, nbytes, f);
	fclose(f);
}

/* rows x cols doubles as float64 in the host's byte order, C order. */
static inline void write_npy_f8(const char *path, const double *x, size_t rows,
				size_t cols)
{
	const unsigned short one = 1;
	char dict[128];

	snprintf(dict, sizeof(dict),
		 "{'descr': '%cf8', 'fortran_order': False, 'shape': (%zu, %zu), }",
		 *(const unsigned char *)&one ? '<' : '>', rows, cols);
	write_npy_raw(path, 1, dict, x, rows * cols * sizeof(double));
}

#endif

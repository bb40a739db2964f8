/*
 * libFuzzer target: the MNIST idx3-ubyte loader (rfx_images_load_idx,
 * lib/data/images.c), gzip or plain, then the area resize and the per-pixel
 * standardisation the mnist regime applies. The input is the file. The
 * loader must return images or an error with a message, never crash,
 * leak, read out of bounds or allocate what the header claims before the
 * pixels arrive.
 */
#include <string.h>

#include "data/images.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rfx_images *im, *small;
	struct rfx_err err;
	const char *dir;
	char path[160];
	int k;

	dir = fuzz_write("images-idx3-ubyte.gz", data, size);
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/images-idx3-ubyte.gz", dir);
	memset(&err, 0, sizeof(err));
	im = rfx_images_load_idx(path, &err);
	if (!im) {
		if (!err.code || !err.msg[0])
			__builtin_trap();
		return 0;
	}
	for (size_t i = 0; i < im->n * (size_t)im->rows * (size_t)im->cols; i++)
		if (!(im->pix[i] >= 0.0 && im->pix[i] <= 1.0))
			__builtin_trap();
	k = im->rows < im->cols ? im->rows : im->cols;
	k = k > 8 ? 8 : k;
	small = rfx_images_resize_area(im, k, &err);
	if (!small)
		__builtin_trap();
	rfx_images_standardize(small);
	rfx_images_free(small);
	rfx_images_free(im);
	return 0;
}

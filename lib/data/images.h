/*
 * Greyscale image sets: the MNIST idx3 loader (gzip-compressed, as shipped
 * in data/) and area-averaging resizing. Pixels are doubles in [0, 1]
 * (raw byte / 255).
 */
#ifndef RFX_IMAGES_H
#define RFX_IMAGES_H

#include <stddef.h>

#include "base/err.h"

struct rfx_images {
	size_t n;       /* number of images */
	int rows, cols; /* image shape */
	double *pix;    /* n x rows x cols, row-major, values in [0, 1] */
};

/*
 * Loads a gzip-compressed idx3-ubyte file (magic 0x00000803). Errors:
 * RFX_EIO when it cannot be opened or read, RFX_EFORMAT for a bad magic
 * number, implausible dimensions or a truncated file (the message says
 * which and where).
 */
struct rfx_images *rfx_images_load_idx(const char *path, struct rfx_err *err);

/*
 * Loads a gzip-compressed idx1-ubyte file (magic 0x00000801: a count, then
 * one unsigned byte per item), such as MNIST's labels: a new array of
 * *n ints (caller frees). Errors as rfx_images_load_idx (a bad magic, an
 * implausible count, truncation, trailing data).
 */
int *rfx_images_load_labels(const char *path, size_t *n, struct rfx_err *err);

/*
 * Resizes every image to k x k by area averaging: each output pixel is the
 * mean of the input over its (rows/k) x (cols/k) footprint, with
 * fractional weights where the footprint cuts input pixels (28 -> 8 gives
 * 3.5-pixel footprints). Returns a new set; NULL with err on failure.
 */
struct rfx_images *rfx_images_resize_area(const struct rfx_images *src, int k,
					  struct rfx_err *err);

/*
 * Standardises every pixel position across the set in place: subtracts its
 * mean over the images and divides by its standard deviation (population
 * form); positions that are constant across the set become 0. Used to
 * study MNIST inputs that are not all non-negative.
 */
void rfx_images_standardize(struct rfx_images *im);

/*
 * The images of the idx3 file at path as k x k images with k^2 = d
 * (rfx_images_resize_area), z-scored per pixel when standardize: the
 * inputs of rfx variance's mnist regime. RFX_EINVAL, before reading the
 * file, when d is not a square, and after when k exceeds the images'
 * size; rfx_images_load_idx's errors otherwise. Caller frees.
 */
struct rfx_images *rfx_images_load_square(const char *path, int d,
					  int standardize, struct rfx_err *err);

void rfx_images_free(struct rfx_images *im);

#endif

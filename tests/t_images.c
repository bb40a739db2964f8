/*
 * Tests for lib/data/images: the idx3 loader against the MNIST test images in
 * data/ (values cross-checked with other readers) and against small
 * hand-made files that provoke each error, and area resizing against
 * hand-computed averages.
 */
#include "data/images.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <gsl/gsl_errno.h>

static char tmpdir[] = "/tmp/t_images.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static void put_be32(unsigned char *p, unsigned long v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* An idx file: 16-byte header then npix bytes (i * 37 + 11) mod 256. */
static size_t make_idx(unsigned char *buf, unsigned long magic,
		       unsigned long n, unsigned long rows,
		       unsigned long cols, size_t npix)
{
	size_t i;

	put_be32(buf, magic);
	put_be32(buf + 4, n);
	put_be32(buf + 8, rows);
	put_be32(buf + 12, cols);
	for (i = 0; i < npix; i++)
		buf[16 + i] = (unsigned char)((i * 37 + 11) % 256);
	return 16 + npix;
}

static void write_gz(const char *path, const unsigned char *buf, size_t len)
{
	gzFile f = gzopen(path, "wb");

	if (!f || gzwrite(f, buf, (unsigned)len) != (int)len ||
	    gzclose(f) != Z_OK) {
		fprintf(stderr, "t_images: cannot write '%s'\n", path);
		exit(1);
	}
}

static void write_raw(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "t_images: cannot write '%s'\n", path);
		exit(1);
	}
}

/* Loading must fail with code and a message containing want. */
static void load_fails(const char *path, int code, const char *want,
		       const char *what)
{
	struct rfx_err err;
	struct rfx_images *im;

	rfx_err_clear(&err);
	im = rfx_images_load_idx(path, &err);
	ok(!im && err.code == code && strstr(err.msg, want) != NULL,
	   "%s: status %d, \"%s\"", what, err.code, err.msg);
	if (strstr(err.msg, want) == NULL)
		diag("    want message containing \"%s\"", want);
	rfx_images_free(im);
}

static double pix(const struct rfx_images *im, size_t t, int i, int j)
{
	return im->pix[(t * im->rows + i) * im->cols + j];
}

static double img_sum(const struct rfx_images *im, size_t t)
{
	size_t npix = (size_t)im->rows * im->cols, i;
	double s = 0.0;

	for (i = 0; i < npix; i++)
		s += im->pix[t * npix + i];
	return s;
}

/* A set of one rows x cols image holding v (row-major). */
static struct rfx_images one_image(int rows, int cols, double *v)
{
	struct rfx_images im = { 1, rows, cols, v };

	return im;
}

/* Resizes and compares with want (k x k); one test. */
static void resize_is(const struct rfx_images *im, int k, const double *want,
		      double tol, const char *what)
{
	struct rfx_err err;
	struct rfx_images *out;
	double worst = 0.0;
	int i;

	rfx_err_clear(&err);
	out = rfx_images_resize_area(im, k, &err);
	if (!out) {
		ok(0, "%s: %s", what, err.msg);
		return;
	}
	for (i = 0; i < k * k; i++)
		if (fabs(out->pix[i] - want[i]) > worst)
			worst = fabs(out->pix[i] - want[i]);
	ok(out->n == im->n && out->rows == k && out->cols == k &&
	   worst <= tol, "%s (max error %.3g)", what, worst);
	rfx_images_free(out);
}

static void test_mnist(const char *top)
{
	char path[1024];
	struct rfx_err err;
	struct rfx_images *im, *r8, *r14;
	double s, worst;
	size_t t;
	int a, b;

	snprintf(path, sizeof(path), "%s/data/t10k-images-idx3-ubyte.gz", top);
	rfx_err_clear(&err);
	im = rfx_images_load_idx(path, &err);
	if (!ok(im != NULL, "load '%s'", path)) {
		diag("    %s", err.msg);
		return;
	}
	ok(im->n == 10000 && im->rows == 28 && im->cols == 28,
	   "MNIST test set is 10000 x 28 x 28 (got %zu x %d x %d)", im->n,
	   im->rows, im->cols);

	/*
	 * Reference values from two independent readers of the same file:
	 * python3's gzip + struct modules, and `zcat | od -An -tu1 -j222 -N1`
	 * (byte 16 + 7*28 + 10) and `zcat | od -j16 -N784 | awk` (the sum).
	 * Image 0 is a 7 (the first label in t10k-labels-idx1-ubyte.gz).
	 */
	is_approx(255.0 * img_sum(im, 0), 18454.0, TEST_TOL2,
		  "image 0: pixel bytes sum to 18454");
	is_approx(pix(im, 0, 7, 10), 60.0 / 255.0, TEST_TOL0,
		  "image 0, row 7, col 10 is 60/255");
	is_approx(pix(im, 0, 10, 14), 67.0 / 255.0, TEST_TOL0,
		  "image 0, row 10, col 14 is 67/255");
	ok(pix(im, 0, 12, 19) == 1.0 && pix(im, 0, 0, 0) == 0.0,
	   "image 0: (12, 19) is 255/255 = 1 exactly, (0, 0) is 0");
	is_approx(255.0 * img_sum(im, 9999), 41833.0, TEST_TOL2,
		  "image 9999: pixel bytes sum to 41833");
	is_approx(pix(im, 9999, 14, 14), 18.0 / 255.0, TEST_TOL0,
		  "image 9999, row 14, col 14 is 18/255");
	for (s = 0.0, t = 0; t < im->n; t++)
		s += img_sum(im, t);
	is_approx(255.0 * s, 264923200.0, TEST_TOL3,
		  "all 7840000 pixel bytes sum to 264923200");

	/*
	 * Image 0 at 8 x 8 (3.5-pixel footprints). Reference: python3 with
	 * fractions.Fraction, averaging directly over each 2-d rectangle
	 * [a*28/8, (a+1)*28/8) x [b*28/8, (b+1)*28/8) (not separably), exact:
	 * (3,3) = 194/12495, (2,5) = 1027/1785, (5,4) = 7916/12495,
	 * mean of all 64 = mean of the 784 input pixels = 18454/(784*255).
	 */
	r8 = rfx_images_resize_area(im, 8, &err);
	if (!ok(r8 != NULL, "resize 10000 images to 8 x 8")) {
		diag("    %s", err.msg);
		rfx_images_free(im);
		return;
	}
	is_approx(pix(r8, 0, 3, 3), 194.0 / 12495.0, TEST_TOL2,
		  "8 x 8 image 0 (3, 3) = 194/12495");
	is_approx(pix(r8, 0, 2, 5), 1027.0 / 1785.0, TEST_TOL2,
		  "8 x 8 image 0 (2, 5) = 1027/1785");
	is_approx(pix(r8, 0, 5, 4), 7916.0 / 12495.0, TEST_TOL2,
		  "8 x 8 image 0 (5, 4) = 7916/12495");
	ok(pix(r8, 0, 0, 0) == 0.0 && pix(r8, 0, 4, 2) == 0.0,
	   "8 x 8 image 0 (0, 0) and (4, 2) are blank");
	is_approx(img_sum(r8, 0) / 64.0, 18454.0 / (784.0 * 255.0), TEST_TOL2,
		  "8 x 8 image 0 keeps the mean intensity");

	/*
	 * Area averaging keeps every image's mean: each input pixel's weights
	 * add up to (k/rows)(k/cols), the same for all pixels. Check all
	 * 10000, for k = 8 (28/8 not whole) and k = 14 (2 x 2 blocks); also
	 * that every value stays in [0, 1].
	 */
	r14 = rfx_images_resize_area(im, 14, &err);
	for (worst = 0.0, t = 0; r14 && t < im->n; t++) {
		double m = img_sum(im, t) / 784.0;
		double e8 = fabs(img_sum(r8, t) / 64.0 - m);
		double e14 = fabs(img_sum(r14, t) / 196.0 - m);

		worst = fmax(worst, fmax(e8, e14));
	}
	ok(r14 && worst <= TEST_TOL2,
	   "all images keep their mean at 8 x 8 and 14 x 14 (max error %.3g)",
	   worst);
	for (worst = 0.0, t = 0; r14 && t < im->n; t++)
		for (a = 0; a < 14; a++)
			for (b = 0; b < 14; b++) {
				double blk = (pix(im, t, 2 * a, 2 * b) +
					      pix(im, t, 2 * a, 2 * b + 1) +
					      pix(im, t, 2 * a + 1, 2 * b) +
					      pix(im, t, 2 * a + 1, 2 * b + 1)) / 4;

				worst = fmax(worst, fabs(pix(r14, t, a, b) - blk));
			}
	ok(r14 && worst <= TEST_TOL1,
	   "14 x 14 is the mean of 2 x 2 blocks, all images (max error %.3g)",
	   worst);
	for (worst = 0.0, t = 0; t < r8->n * 64; t++)
		if (r8->pix[t] < 0.0 || r8->pix[t] > 1.0)
			worst = 1.0;
	ok(worst == 0.0, "8 x 8 values stay in [0, 1]");

	rfx_images_free(r14);
	rfx_images_free(r8);
	rfx_images_free(im);
}

static void test_resize(void)
{
	/* 4 x 4 -> 2 x 2: plain means of the 2 x 2 blocks. */
	double v4[16] = { 0.10, 0.20, 0.30, 0.40,
			  0.50, 0.60, 0.70, 0.80,
			  0.90, 0.15, 0.25, 0.35,
			  0.45, 0.55, 0.65, 0.75 };
	double w4[4] = { (0.10 + 0.20 + 0.50 + 0.60) / 4,   /* 0.35 */
			 (0.30 + 0.40 + 0.70 + 0.80) / 4,   /* 0.55 */
			 (0.90 + 0.15 + 0.45 + 0.55) / 4,   /* 0.5125 */
			 (0.25 + 0.35 + 0.65 + 0.75) / 4 }; /* 0.5 */
	/*
	 * 7 x 7 -> 2 x 2: footprints [0, 3.5) and [3.5, 7) on each axis, so
	 * pixels 0-2 weigh 1 in cell 0, pixel 3 weighs 1/2 in both cells,
	 * 4-6 weigh 1 in cell 1, and each cell divides by 3.5^2 = 49/4.
	 * Hot pixels: (3, 3) = 1 gives 1/4 * 4/49 = 1/49 to every cell;
	 * (2, 5) = 1 lies in cell (0, 1) only: 4/49. (3, 1) = 1/2 lies in
	 * column cell 0, half in each row cell: 1/2 * 1/2 * 4/49 = 1/49 to
	 * cells (0, 0) and (1, 0).
	 */
	double v7[49] = { 0 };
	double w7[4] = { 2.0 / 49, 5.0 / 49, 2.0 / 49, 1.0 / 49 };
	/*
	 * Linear image f(i, j) = 7 i + j on 7 x 7: the cell mean of i over
	 * [0, 3.5) is (0 + 1 + 2 + 3/2) / 3.5 = 9/7, over [3.5, 7) it is
	 * (3/2 + 4 + 5 + 6) / 3.5 = 33/7; f is linear, so the cell means are
	 * 7 * 9/7 + 9/7 = 72/7, 9 + 33/7 = 96/7, 33 + 9/7 = 240/7 and
	 * 33 + 33/7 = 264/7.
	 */
	double lin7[49];
	double wlin7[4] = { 72.0 / 7, 96.0 / 7, 240.0 / 7, 264.0 / 7 };
	/*
	 * 3 x 6 (not square) -> 2 x 2, f(i, j) = 10 i + j: row cells of 1.5,
	 * mean i = (0 + 1/2) / 1.5 = 1/3 and (1/2 + 2) / 1.5 = 5/3; column
	 * cells of 3, mean j = 1 and 4. Cells: 10/3 + 1 = 13/3, 10/3 + 4 =
	 * 22/3, 50/3 + 1 = 53/3, 50/3 + 4 = 62/3. A rows/cols mix-up breaks it.
	 */
	double lin36[18];
	double wlin36[4] = { 13.0 / 3, 22.0 / 3, 53.0 / 3, 62.0 / 3 };
	double c28[784], wc8[64], wk1[1];
	struct rfx_images im;
	struct rfx_err err;
	struct rfx_images *out;
	int i, j;

	im = one_image(4, 4, v4);
	resize_is(&im, 2, w4, TEST_TOL1, "4 x 4 -> 2 x 2 averages blocks");
	v7[3 * 7 + 3] = 1.0;
	v7[2 * 7 + 5] = 1.0;
	v7[3 * 7 + 1] = 0.5;
	im = one_image(7, 7, v7);
	resize_is(&im, 2, w7, TEST_TOL1,
		  "7 x 7 -> 2 x 2 splits the middle row and column");
	for (i = 0; i < 7; i++)
		for (j = 0; j < 7; j++)
			lin7[i * 7 + j] = 7 * i + j;
	im = one_image(7, 7, lin7);
	resize_is(&im, 2, wlin7, TEST_TOL2, "7 x 7 linear ramp -> 2 x 2");
	for (i = 0; i < 3; i++)
		for (j = 0; j < 6; j++)
			lin36[i * 6 + j] = 10 * i + j;
	im = one_image(3, 6, lin36);
	resize_is(&im, 2, wlin36, TEST_TOL2, "3 x 6 linear ramp -> 2 x 2");

	for (i = 0; i < 784; i++)
		c28[i] = 0.3719;
	for (i = 0; i < 64; i++)
		wc8[i] = 0.3719;
	im = one_image(28, 28, c28);
	resize_is(&im, 8, wc8, TEST_TOL1, "a constant image stays constant");
	/* k = 1 is the plain mean: 0.35 + 0.55 + 0.5125 + 0.5 over 4 */
	wk1[0] = 0.478125;
	im = one_image(4, 4, v4);
	resize_is(&im, 1, wk1, TEST_TOL1, "k = 1 gives the image mean");
	im = one_image(7, 7, lin7);
	resize_is(&im, 7, lin7, 0.0, "k = rows copies the image exactly");

	/* k outside 1..min(rows, cols) */
	im = one_image(28, 28, c28);
	rfx_err_clear(&err);
	out = rfx_images_resize_area(&im, 0, &err);
	ok(!out && err.code == RFX_EINVAL && strstr(err.msg, "1..28"),
	   "k = 0 is rejected: \"%s\"", err.msg);
	rfx_err_clear(&err);
	out = rfx_images_resize_area(&im, 29, &err);
	ok(!out && err.code == RFX_EINVAL,
	   "k = 29 > 28 rows is rejected: \"%s\"", err.msg);
	im = one_image(3, 6, lin36);
	rfx_err_clear(&err);
	out = rfx_images_resize_area(&im, 4, &err);
	ok(!out && err.code == RFX_EINVAL && strstr(err.msg, "1..3"),
	   "k = 4 > 3 rows of a 3 x 6 image is rejected: \"%s\"", err.msg);
	rfx_err_clear(&err);
	out = rfx_images_resize_area(NULL, 2, &err);
	ok(!out && err.code == RFX_EINVAL, "no image set is rejected");
}

static void test_load_small(void)
{
	static unsigned char buf[16 + 2 * 3 * 5 + 64];
	struct rfx_err err;
	struct rfx_images *im;
	size_t len, i;
	int good;

	/* two 3 x 5 images: rows before cols, row-major, byte / 255 */
	len = make_idx(buf, 0x803, 2, 3, 5, 30);
	write_gz(tmp_path("ok.gz"), buf, len);
	rfx_err_clear(&err);
	im = rfx_images_load_idx(tmp_path("ok.gz"), &err);
	good = im && im->n == 2 && im->rows == 3 && im->cols == 5;
	for (i = 0; good && i < 30; i++)
		good = im->pix[i] == ((i * 37 + 11) % 256) / 255.0;
	ok(good, "two 3 x 5 images round-trip (%s)", im ? "loaded" : err.msg);
	ok(im && pix(im, 1, 2, 4) == ((29 * 37 + 11) % 256) / 255.0,
	   "pixel (image 1, row 2, col 4) is byte 29 of the payload");
	rfx_images_free(im);

	/* rfx_images_load_square: d = k^2, k at most the images' size */
	im = rfx_images_load_square(tmp_path("missing.gz"), 5, 0, &err);
	ok(!im && err.code == RFX_EINVAL && strstr(err.msg, "square"),
	   "load_square: d = 5 is not a square, said before the file is read: %s",
	   err.msg);
	im = rfx_images_load_square(tmp_path("ok.gz"), 16, 0, &err);
	ok(!im && err.code == RFX_EINVAL && strstr(err.msg, "d <= 9 (3 x 3)"),
	   "load_square: 4 x 4 from 3 x 5 images is refused: %s", err.msg);
	im = rfx_images_load_square(tmp_path("ok.gz"), 4, 0, &err);
	ok(im && im->n == 2 && im->rows == 2 && im->cols == 2,
	   "load_square: d = 4 gives two 2 x 2 images");
	rfx_images_free(im);
	im = rfx_images_load_square(tmp_path("missing.gz"), 4, 1, &err);
	ok(!im && err.code == RFX_EIO, "load_square: a missing file is the loader's error");

	/* zlib passes a file without gzip header through unchanged */
	write_raw(tmp_path("ok.raw"), buf, len);
	im = rfx_images_load_idx(tmp_path("ok.raw"), &err);
	ok(im && im->n == 2 && pix(im, 1, 2, 4) == ((29 * 37 + 11) % 256) / 255.0,
	   "an uncompressed idx3 file loads too");
	rfx_images_free(im);

	/* errors */
	load_fails(tmp_path("missing.gz"), RFX_EIO, "': No such file or directory",
		   "missing file");
	{
		char want[300];

		snprintf(want, sizeof(want),
			 "cannot open '%s': No such file or directory",
			 tmp_path("missing.gz"));
		load_fails(tmp_path("missing.gz"), RFX_EIO, want,
			   "missing file, whole message");
	}
	write_raw(tmp_path("text"),
		  (const unsigned char *)"this is not an idx file, nor gzip\n", 34);
	load_fails(tmp_path("text"), RFX_EFORMAT, "bad magic number 0x74686973",
		   "plain text (read as-is, fails the magic check)");
	{
		/* a gzip header (1f 8b, deflate, no flags) then garbage */
		static const unsigned char g[] = {
			0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
			0xff, 0xfe, 0xfd, 0xfc, 0x12, 0x34, 0x56, 0x78,
			0x9a, 0xbc, 0xde, 0xf0, 0x00, 0x11, 0x22, 0x33
		};
		write_raw(tmp_path("garbage.gz"), g, sizeof(g));
		load_fails(tmp_path("garbage.gz"), RFX_EFORMAT,
			   "corrupt gzip data in '", "gzip header, garbage deflate data");
	}
	write_raw(tmp_path("empty"), buf, 0);
	load_fails(tmp_path("empty"), RFX_EFORMAT,
		   "expected 16 bytes of idx3 header, got 0", "empty file");
	write_gz(tmp_path("short-header.gz"), buf, 10);
	load_fails(tmp_path("short-header.gz"), RFX_EFORMAT,
		   "expected 16 bytes of idx3 header, got 10", "10-byte file");

	len = make_idx(buf, 0x801, 2, 3, 5, 30);
	write_gz(tmp_path("magic.gz"), buf, len);
	load_fails(tmp_path("magic.gz"), RFX_EFORMAT,
		   "bad magic number 0x00000801", "idx1 magic (a labels file)");
	len = make_idx(buf, 0x08030000, 2, 3, 5, 30);
	write_gz(tmp_path("le.gz"), buf, len);
	load_fails(tmp_path("le.gz"), RFX_EFORMAT,
		   "bad magic number 0x08030000", "little-endian magic");

	len = make_idx(buf, 0x803, 0, 3, 5, 0);
	write_gz(tmp_path("n0.gz"), buf, len);
	load_fails(tmp_path("n0.gz"), RFX_EFORMAT,
		   "implausible dimensions", "zero images");
	len = make_idx(buf, 0x803, 2, 0, 5, 0);
	write_gz(tmp_path("rows0.gz"), buf, len);
	load_fails(tmp_path("rows0.gz"), RFX_EFORMAT,
		   "implausible dimensions", "zero rows");
	len = make_idx(buf, 0x803, 1, 28, 4097, 0);
	write_gz(tmp_path("wide.gz"), buf, len);
	load_fails(tmp_path("wide.gz"), RFX_EFORMAT,
		   "1 images of 28 x 4097", "4097 columns");
	/* (2^32 - 1) * 2^24 bytes announced, none there: no huge malloc */
	len = make_idx(buf, 0x803, 0xffffffffUL, 4096, 4096, 0);
	write_gz(tmp_path("huge.gz"), buf, len);
	load_fails(tmp_path("huge.gz"), RFX_EFORMAT,
		   "expected 72057594021150720 bytes of pixels, got 0",
		   "header claiming 2^32 - 1 images of 4096 x 4096");

	len = make_idx(buf, 0x803, 3, 4, 4, 40);
	write_gz(tmp_path("trunc.gz"), buf, len);
	load_fails(tmp_path("trunc.gz"), RFX_EFORMAT,
		   "': expected 48 bytes of pixels, got 40",
		   "payload 8 bytes short");
	len = make_idx(buf, 0x803, 2, 4, 4, 33);
	write_gz(tmp_path("trail.gz"), buf, len);
	load_fails(tmp_path("trail.gz"), RFX_EFORMAT,
		   "trailing data in '", "payload 1 byte long");
}

/*
 * A real gzip stream cut short, or with a corrupted CRC, must not load:
 * zlib only notices either at the end of the stream.
 */
static void test_damaged_gzip(const char *top)
{
	char path[1024];
	unsigned char *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/t10k-images-idx3-ubyte.gz", top);
	f = fopen(path, "rb");
	buf = malloc(2000000);
	len = f && buf ? fread(buf, 1, 2000000, f) : 0;
	if (f)
		fclose(f);
	if (!ok(len == 1648877, "read the compressed MNIST file (%zu bytes)",
		len)) {
		free(buf);
		return;
	}
	write_raw(tmp_path("cut.gz"), buf, 1000000);
	load_fails(tmp_path("cut.gz"), RFX_EFORMAT,
		   "bytes of pixels, got", "gzip stream cut at 1000000 bytes");
	/* drop only the 8-byte trailer (CRC32, length): all pixels arrive */
	write_raw(tmp_path("notrailer.gz"), buf, len - 8);
	load_fails(tmp_path("notrailer.gz"), RFX_EFORMAT, "truncated '",
		   "gzip stream without its trailer");
	buf[len - 8] ^= 0x01;    /* first CRC32 byte */
	write_raw(tmp_path("crc.gz"), buf, len);
	load_fails(tmp_path("crc.gz"), RFX_EFORMAT, "incorrect data check",
		   "gzip stream with a wrong CRC");
	free(buf);
}

/*
 * Per-pixel standardisation, by hand: three 1 x 2 images with pixel 0 =
 * 0, 1, 2 (mean 1, population sd sqrt(2/3)) and pixel 1 constant 5.
 */
static void test_standardize(void)
{
	double pix[6] = { 0, 5, 1, 5, 2, 5 };
	struct rfx_images im = { 3, 1, 2, pix };
	double z = 1.0 / sqrt(2.0 / 3.0);

	rfx_images_standardize(&im);
	ok(fabs(pix[0] + z) < 1e-15 && pix[2] == 0.0 && fabs(pix[4] - z) < 1e-15,
	   "standardize: (0, 1, 2) becomes (-1, 0, 1)/sqrt(2/3)");
	ok(pix[1] == 0.0 && pix[3] == 0.0 && pix[5] == 0.0,
	   "standardize: a constant pixel becomes 0");
}

/*
 * idx1 labels: a hand-made file of 5 labels loads back byte for byte; a
 * wrong magic (the images file), a cut payload and trailing bytes fail.
 */
static void test_labels(const char *top)
{
	unsigned char buf[8 + 6] = { 0 };
	static const unsigned char lab[6] = { 3, 1, 4, 1, 5, 9 };
	char path[4096];
	struct rfx_err err;
	size_t n = 0;
	int *y;

	put_be32(buf, 0x00000801UL);
	put_be32(buf + 4, 5);
	memcpy(buf + 8, lab, 5);
	write_gz(tmp_path("lab.gz"), buf, 13);
	y = rfx_images_load_labels(tmp_path("lab.gz"), &n, &err);
	ok(y && n == 5 && y[0] == 3 && y[1] == 1 && y[2] == 4 && y[3] == 1 &&
		   y[4] == 5, "idx1: five labels load back");
	free(y);
	write_gz(tmp_path("lab.gz"), buf, 11);
	y = rfx_images_load_labels(tmp_path("lab.gz"), &n, &err);
	ok(!y && err.code == RFX_EFORMAT && strstr(err.msg, "truncated"),
	   "idx1: a cut payload is RFX_EFORMAT (%s)", err.msg);
	memcpy(buf + 8, lab, 6);
	write_gz(tmp_path("lab.gz"), buf, 14);
	y = rfx_images_load_labels(tmp_path("lab.gz"), &n, &err);
	ok(!y && err.code == RFX_EFORMAT && strstr(err.msg, "trailing"),
	   "idx1: trailing bytes are RFX_EFORMAT (%s)", err.msg);
	unlink(tmp_path("lab.gz"));
	snprintf(path, sizeof(path), "%s/data/t10k-images-idx3-ubyte.gz", top);
	y = rfx_images_load_labels(path, &n, &err);
	ok(!y && err.code == RFX_EFORMAT && strstr(err.msg, "magic"),
	   "idx1: an idx3 file has the wrong magic (%s)", err.msg);
	ok(!rfx_images_load_labels(tmp_path("none.gz"), &n, &err) &&
		   err.code == RFX_EIO, "idx1: a missing file is RFX_EIO");
}

int main(void)
{
	const char *top = getenv("RFX_TOP");
	static const char *const names[] = {
		"ok.gz", "ok.raw", "text", "garbage.gz", "empty",
		"short-header.gz", "magic.gz", "le.gz", "n0.gz", "rows0.gz",
		"wide.gz", "huge.gz", "trunc.gz", "trail.gz", "cut.gz",
		"notrailer.gz", "crc.gz"
	};
	size_t i;

	gsl_set_error_handler_off();
	if (!top)
		top = ".";
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create '%s': %s\n", tmpdir,
		       strerror(errno));
		return 1;
	}

	test_standardize();
	test_mnist(top);
	test_resize();
	test_load_small();
	test_damaged_gzip(top);
	test_labels(top);
	rfx_images_free(NULL);
	ok(1, "rfx_images_free(NULL) is a no-op");

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(tmp_path(names[i]));
	rmdir(tmpdir);
	return done_testing();
}

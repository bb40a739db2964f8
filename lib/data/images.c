/*
 * Greyscale image sets. The loader reads LeCun's idx3-ubyte format (a
 * 16-byte big-endian header: magic 0x00000803, image count, rows, cols;
 * then one unsigned byte per pixel, row-major) through zlib, checking the
 * header and that the payload holds exactly the pixels it announces. The
 * resizer averages each image over k x k equal rectangles ("area"
 * interpolation, as PIL's BOX filter and OpenCV's INTER_AREA do when
 * shrinking), written as out = W_r * img * W_c^T with banded weight
 * matrices, so a 28 x 28 MNIST digit becomes the 8 x 8 input of the
 * thesis' mnist regime (sec. 6.6.1).
 */
#include "data/images.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/infile.h"

#define IDX3_MAGIC 0x00000803UL
#define IDX3_HEADER 16        /* bytes before the pixels */
#define IDX3_MAX_SIDE 4096    /* larger rows or cols mean a corrupt header */
#define READ_CHUNK 65536      /* pixel bytes converted per gzread() */
#define INITIAL_PIXELS (1 << 20) /* first size of the growing pixel buffer */

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
	       (unsigned long)p[2] << 8 | (unsigned long)p[3];
}

/*
 * zlib prefixes its messages with the path given to gzopen(); the caller
 * quotes the path itself, so drop the prefix.
 */
static const char *zmsg(gzFile f, const char *path, int *errnum)
{
	const char *m = gzerror(f, errnum);
	size_t len = strlen(path);

	if (m && strncmp(m, path, len) == 0 && strncmp(m + len, ": ", 2) == 0)
		m += len + 2;
	return m ? m : "unknown zlib error";
}

/*
 * Reads up to len bytes, looping because gzread() takes an unsigned count
 * and may return short. *got is what arrived before end of data or an
 * error; the caller inspects gzerror() to tell the two apart.
 */
static void read_full(gzFile f, unsigned char *buf, size_t len, size_t *got)
{
	*got = 0;
	while (*got < len) {
		size_t want = len - *got;
		int n;

		if (want > INT_MAX)
			want = INT_MAX;
		n = gzread(f, buf + *got, (unsigned)want);
		if (n <= 0)
			return;
		*got += (size_t)n;
	}
}

/*
 * Turns a zlib failure after a read into a status. Z_BUF_ERROR ("unexpected
 * end of file") means the compressed stream was cut short: the caller
 * reports that as truncation, with the byte counts, so it is not an error
 * here.
 */
static int read_status(gzFile f, const char *path, struct rfx_err *err)
{
	int errnum;
	const char *m = zmsg(f, path, &errnum);

	if (errnum == Z_OK || errnum == Z_BUF_ERROR)
		return RFX_OK;
	if (errnum == Z_ERRNO)
		return rfx_error(err, RFX_EIO, "cannot read '%s': %s", path,
				 strerror(errno));
	if (errnum == Z_MEM_ERROR)
		return rfx_error(err, RFX_ENOMEM,
				 "out of memory decompressing '%s'", path);
	return rfx_error(err, RFX_EFORMAT, "corrupt gzip data in '%s': %s",
			 path, m);
}

/* zlib's "unexpected end of file" if the gzip stream was cut, else NULL. */
static const char *eof_note(gzFile f, const char *path)
{
	int errnum;
	const char *m = zmsg(f, path, &errnum);

	return errnum == Z_BUF_ERROR ? m : NULL;
}

/*
 * Opens an idx file and reads its len-byte header (the magic first),
 * checking that all of it is there and that the magic is want; kind
 * ("idx3", "idx1") names the format in messages. *fp gets the open file,
 * or NULL on failure.
 */
static int open_idx(const char *path, unsigned char *hdr, size_t len,
		    unsigned long want, const char *kind, gzFile *fp,
		    struct rfx_err *err)
{
	gzFile f;
	size_t got;
	int ret;

	*fp = NULL;
	if ((ret = rfx_infile_check(path, err)))
		return ret;
	/*
	 * errno is the only cause gzopen() leaves behind; 0 means zlib could
	 * not allocate its state.
	 */
	errno = 0;
	f = gzopen(path, "rb");
	if (!f) {
		if (errno)
			return rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
					 strerror(errno));
		return rfx_error(err, RFX_ENOMEM, "out of memory opening '%s'",
				 path);
	}
	/*
	 * zlib reads a file without a gzip header as it is, so a gunzipped
	 * copy loads too; anything else fails the magic check below.
	 */
	gzbuffer(f, 1 << 17);
	read_full(f, hdr, len, &got);
	ret = read_status(f, path, err);
	if (!ret && got < len)
		ret = rfx_error(err, RFX_EFORMAT,
				"truncated '%s': expected %zu bytes of %s header, got %zu",
				path, len, kind, got);
	if (!ret && be32(hdr) != want)
		ret = rfx_error(err, RFX_EFORMAT,
				"bad magic number 0x%08lx in '%s' (want 0x%08lx, %s-ubyte)",
				be32(hdr), path, want, kind);
	if (ret) {
		gzclose(f);
		return ret;
	}
	*fp = f;
	return RFX_OK;
}

static struct rfx_images *images_alloc(size_t n, int rows, int cols)
{
	struct rfx_images *im = malloc(sizeof(*im));
	size_t npix = (size_t)rows * (size_t)cols;

	if (!im)
		return NULL;
	im->n = n;
	im->rows = rows;
	im->cols = cols;
	/* n = 0 can only come from resizing an empty set; keep pix valid */
	im->pix = malloc((n ? n * npix : 1) * sizeof(double));
	if (!im->pix) {
		free(im);
		return NULL;
	}
	return im;
}

struct rfx_images *rfx_images_load_idx(const char *path, struct rfx_err *err)
{
	gzFile f = NULL;
	struct rfx_images *im = NULL;
	unsigned char *chunk = NULL;   /* raw bytes of the current read */
	unsigned char hdr[IDX3_HEADER];
	unsigned long n, rows, cols;
	size_t total, done, got, i;    /* pixel bytes: announced, converted */
	size_t cap;                    /* pixels im->pix has room for */
	const char *note;
	int ret = -1;                  /* RFX_OK only once all checks pass */

	if ((ret = open_idx(path, hdr, sizeof(hdr), IDX3_MAGIC, "idx3", &f,
			    err)) != RFX_OK)
		goto out;
	n = be32(hdr + 4);
	rows = be32(hdr + 8);
	cols = be32(hdr + 12);
	if (n < 1 || rows < 1 || rows > IDX3_MAX_SIDE || cols < 1 ||
	    cols > IDX3_MAX_SIDE) {
		ret = rfx_error(err, RFX_EFORMAT,
				"implausible dimensions in '%s': %lu images of %lu x %lu (want at least 1 image, rows and cols in 1..%d)",
				path, n, rows, cols, IDX3_MAX_SIDE);
		goto out;
	}
	/* rows * cols <= 2^24, so only the product with n can overflow */
	if (n > SIZE_MAX / sizeof(double) / (rows * cols)) {
		ret = rfx_error(err, RFX_EFORMAT,
				"implausible dimensions in '%s': %lu images of %lu x %lu do not fit in memory",
				path, n, rows, cols);
		goto out;
	}
	total = (size_t)n * rows * cols;

	/*
	 * The buffer grows with the pixels that actually arrive instead of
	 * trusting the header: a corrupt count then ends in the truncation
	 * check below rather than in a huge allocation.
	 */
	im = malloc(sizeof(*im));
	chunk = malloc(READ_CHUNK);
	if (!im || !chunk)
		goto nomem;
	im->n = n;
	im->rows = (int)rows;
	im->cols = (int)cols;
	im->pix = NULL;

	done = cap = 0;
	while (done < total) {
		size_t want = total - done < READ_CHUNK ? total - done
							 : READ_CHUNK;

		read_full(f, chunk, want, &got);
		if (done + got > cap) {
			size_t newcap = cap ? 2 * cap : INITIAL_PIXELS;
			double *p;

			if (newcap > total)
				newcap = total;
			p = realloc(im->pix, newcap * sizeof(double));
			if (!p)
				goto nomem;
			im->pix = p;
			cap = newcap;
		}
		for (i = 0; i < got; i++)
			im->pix[done + i] = chunk[i] / 255.0;
		done += got;
		if (got < want)
			break;
	}
	if (done < total) {
		if ((ret = read_status(f, path, err)) != RFX_OK)
			goto out;
		note = eof_note(f, path);
		ret = rfx_error(err, RFX_EFORMAT,
				"truncated '%s': expected %zu bytes of pixels, got %zu%s%s%s",
				path, total, done, note ? " (gzip: " : "",
				note ? note : "", note ? ")" : "");
		goto out;
	}

	/*
	 * One more read must hit the end: extra bytes mean the header's count
	 * is wrong. It also makes zlib check the gzip trailer (CRC and
	 * length), which it only does on reaching the end of the stream.
	 */
	read_full(f, chunk, 1, &got);
	if ((ret = read_status(f, path, err)) != RFX_OK)
		goto out;
	if (got) {
		ret = rfx_error(err, RFX_EFORMAT,
				"trailing data in '%s' after %lu images of %lu x %lu",
				path, n, rows, cols);
		goto out;
	}
	note = eof_note(f, path);
	if (note) {
		ret = rfx_error(err, RFX_EFORMAT, "truncated '%s': gzip: %s",
				path, note);
		goto out;
	}
	ret = RFX_OK;
	goto out;
nomem:
	ret = rfx_error(err, RFX_ENOMEM,
			"out of memory loading '%s' (%lu images of %lu x %lu)",
			path, n, rows, cols);
out:
	free(chunk);
	if (f)
		gzclose(f);
	if (ret != RFX_OK) {
		rfx_images_free(im);
		return NULL;
	}
	return im;
}

#define IDX1_MAGIC 0x00000801UL
#define IDX1_HEADER 8         /* magic, count */

int *rfx_images_load_labels(const char *path, size_t *n_out,
			    struct rfx_err *err)
{
	gzFile f;
	unsigned char hdr[IDX1_HEADER], *raw = NULL, extra;
	unsigned long n;
	size_t got, i;
	int *y = NULL, ret;

	if (open_idx(path, hdr, sizeof(hdr), IDX1_MAGIC, "idx1", &f, err))
		return NULL;
	n = be32(hdr + 4);
	/* MNIST has 70000 labels; a count beyond 2^26 is a corrupt header */
	if (n < 1 || n > (1UL << 26)) {
		ret = rfx_error(err, RFX_EFORMAT,
				"implausible label count %lu in '%s'", n, path);
		goto out;
	}
	raw = malloc(n);
	y = malloc(n * sizeof(int));
	if (!raw || !y) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory loading '%s'", path);
		goto out;
	}
	read_full(f, raw, n, &got);
	if ((ret = read_status(f, path, err)) != RFX_OK)
		goto out;
	if (got < n) {
		ret = rfx_error(err, RFX_EFORMAT,
				"truncated '%s': expected %lu labels, got %zu", path, n,
				got);
		goto out;
	}
	/* the end must follow, as for the images (and checks the trailer) */
	read_full(f, &extra, 1, &got);
	if ((ret = read_status(f, path, err)) != RFX_OK)
		goto out;
	if (got || eof_note(f, path)) {
		ret = rfx_error(err, RFX_EFORMAT, "%s '%s' after %lu labels",
				got ? "trailing data in" : "truncated gzip stream in",
				path, n);
		goto out;
	}
	for (i = 0; i < n; i++)
		y[i] = raw[i];
	*n_out = n;
out:
	gzclose(f);
	free(raw);
	if (ret != RFX_OK) {
		free(y);
		return NULL;
	}
	return y;
}

/*
 * Area weights of one axis: W[a][i] is the length of the overlap of
 * output cell a, [a m/k, (a+1) m/k), with input pixel i, [i, i+1), divided
 * by the cell length m/k. In units of 1/k both intervals have integer
 * ends, [a m, (a+1) m) and [i k, (i+1) k), so the overlap is an exact
 * integer, the overlaps of a cell add up to its length m, and the only
 * rounding is the one division. lo[a] and hi[a] bound the band of input
 * pixels that output a touches.
 */
static void area_weights(int m, int k, double *W, int *lo, int *hi)
{
	int a, i;

	for (a = 0; a < k; a++) {
		long c0 = (long)a * m, c1 = (long)(a + 1) * m; /* cell ends */

		lo[a] = (int)(c0 / k);
		hi[a] = (int)((c1 + k - 1) / k);               /* exclusive */
		for (i = 0; i < m; i++) {
			long p0 = (long)i * k, p1 = (long)(i + 1) * k;
			long ov = (c1 < p1 ? c1 : p1) - (c0 > p0 ? c0 : p0);

			W[(size_t)a * m + i] = ov > 0 ? (double)ov / m : 0.0;
		}
	}
}

struct rfx_images *rfx_images_resize_area(const struct rfx_images *src, int k,
					  struct rfx_err *err)
{
	struct rfx_images *out = NULL;
	double *Wr = NULL, *Wc = NULL; /* k x rows, k x cols */
	double *tmp = NULL;            /* img * Wc^T, rows x k */
	int *band = NULL;              /* lo/hi of rows, then of cols */
	int rows, cols, a, b, i, j, ret = -1; /* RFX_OK once done */
	size_t t;

	if (!src) {
		rfx_error(err, RFX_EINVAL, "no image set to resize");
		return NULL;
	}
	rows = src->rows;
	cols = src->cols;
	if (k < 1 || k > rows || k > cols) {
		rfx_error(err, RFX_EINVAL,
			  "cannot resize %d x %d images to %d x %d: area averaging only shrinks, k must be in 1..%d",
			  rows, cols, k, k, rows < cols ? rows : cols);
		return NULL;
	}

	out = images_alloc(src->n, k, k);
	Wr = malloc((size_t)k * rows * sizeof(double));
	Wc = malloc((size_t)k * cols * sizeof(double));
	tmp = malloc((size_t)rows * k * sizeof(double));
	band = malloc(4 * (size_t)k * sizeof(int));
	if (!out || !Wr || !Wc || !tmp || !band) {
		ret = rfx_error(err, RFX_ENOMEM,
				"out of memory resizing %zu images to %d x %d",
				src->n, k, k);
		goto out;
	}
	area_weights(rows, k, Wr, band, band + k);
	area_weights(cols, k, Wc, band + 2 * k, band + 3 * k);

	for (t = 0; t < src->n; t++) {
		const double *img = src->pix + t * (size_t)rows * cols;
		double *o = out->pix + t * (size_t)k * k;
		const int *rlo = band, *rhi = band + k;
		const int *clo = band + 2 * k, *chi = band + 3 * k;

		for (i = 0; i < rows; i++)
			for (b = 0; b < k; b++) {
				double s = 0.0;

				for (j = clo[b]; j < chi[b]; j++)
					s += img[(size_t)i * cols + j] *
					     Wc[(size_t)b * cols + j];
				tmp[(size_t)i * k + b] = s;
			}
		for (a = 0; a < k; a++)
			for (b = 0; b < k; b++) {
				double s = 0.0;

				for (i = rlo[a]; i < rhi[a]; i++)
					s += Wr[(size_t)a * rows + i] *
					     tmp[(size_t)i * k + b];
				o[(size_t)a * k + b] = s;
			}
	}
	ret = RFX_OK;
out:
	free(Wr);
	free(Wc);
	free(tmp);
	free(band);
	if (ret != RFX_OK) {
		rfx_images_free(out);
		return NULL;
	}
	return out;
}

void rfx_images_free(struct rfx_images *im)
{
	if (!im)
		return;
	free(im->pix);
	free(im);
}

void rfx_images_standardize(struct rfx_images *im)
{
	size_t np = (size_t)im->rows * (size_t)im->cols, i, k;

	for (k = 0; k < np; k++) {
		double mean = 0.0, var = 0.0, sd;

		for (i = 0; i < im->n; i++)
			mean += im->pix[i * np + k];
		mean /= (double)im->n;
		for (i = 0; i < im->n; i++) {
			double z = im->pix[i * np + k] - mean;

			var += z * z;
		}
		sd = sqrt(var / (double)im->n);
		for (i = 0; i < im->n; i++)
			im->pix[i * np + k] = sd > 0.0 ? (im->pix[i * np + k] - mean) / sd
						       : 0.0;
	}
}

struct rfx_images *rfx_images_load_square(const char *path, int d,
					  int standardize, struct rfx_err *err)
{
	struct rfx_images *raw, *im;
	int k = (int)floor(sqrt((double)d) + 0.5);

	if (d < 1 || k * k != d) {
		rfx_error(err, RFX_EINVAL,
			  "the mnist regime needs d to be a square (8 x 8 = 64), got --d %d",
			  d);
		return NULL;
	}
	raw = rfx_images_load_idx(path, err);
	if (!raw)
		return NULL;
	if (k > raw->rows || k > raw->cols) {
		int kmax = raw->rows < raw->cols ? raw->rows : raw->cols;

		rfx_error(err, RFX_EINVAL,
			  "the mnist regime needs d <= %d (%d x %d), got --d %d",
			  kmax * kmax, kmax, kmax, d);
		rfx_images_free(raw);
		return NULL;
	}
	im = rfx_images_resize_area(raw, k, err);
	rfx_images_free(raw);
	if (im && standardize)
		rfx_images_standardize(im);
	return im;
}

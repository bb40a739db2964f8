/*
 * The user's own inputs: one loader for every subcommand that takes
 * --x-file, --y-file, --q-file, --k-file, --v-file, --dataset FILE or
 * --labels FILE. A matrix is rows x cols doubles, row-major, one input per
 * row (the paper's x in R^d has d = cols). The file's path, size and
 * SHA-256 travel with it, for the provenance attributes of every output.
 *
 * A spec names one of three formats:
 *
 *   x.npy              NumPy .npy, header versions 1.0, 2.0 and 3.0;
 *                      float64 and float32 ('<f8', '>f4', ...), either byte
 *                      order; C or Fortran order; a 1-D array is one row.
 *                      Integer and boolean dtypes ('i1'..'i8', 'u1'..'u8',
 *                      'b1') are converted to double: exact up to 2^53 in
 *                      magnitude, rounded to the nearest double beyond.
 *                      Complex, float16, long double, object, string,
 *                      datetime and structured dtypes are refused.
 *   x.h5:/path/dset    a dataset inside an HDF5 file: the spec splits at
 *                      the first ":/" unless the whole spec is an existing
 *                      file. Float or double (integers converted as for
 *                      .npy), 1-D (one row) or 2-D (rows x cols).
 *   anything else      text: one row per line, fields separated by commas
 *                      (CSV; blanks around a field are ignored) or, on a
 *                      line without a comma, by runs of blanks (TSV and
 *                      whitespace tables). Empty lines and lines starting
 *                      with '#' (np.savetxt's header) are skipped. An
 *                      optional header line (column names) is detected as
 *                      a first line whose fields are all names (empty ones
 *                      aside), or forced or forbidden by opts->header; a
 *                      first line of names and numbers is an error (a
 *                      typo in the first row is not a header). The text must
 *                      be UTF-8 (ASCII is); a byte order mark at the start
 *                      is skipped.
 *
 * Every bad file gives one error line naming the file and, where it
 * applies, the row and column (both 1-based; a text row also gives its
 * line): a NaN or Inf, ragged rows, no rows, a truncated .npy body, a
 * header that lies about the shape (bytes beyond the data), a refused
 * dtype, non-UTF-8 text.
 */
#ifndef RFX_MATRIX_H
#define RFX_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/sha256.h"

enum rfx_matrix_header {
	RFX_MATRIX_HEADER_AUTO = 0, /* a first line of names only is a header; of names and numbers, an error */
	RFX_MATRIX_HEADER_YES,      /* the first line is a header (--header) */
	RFX_MATRIX_HEADER_NO        /* every line is data */
};

enum rfx_matrix_format {
	RFX_MATRIX_NPY = 1, /* NumPy .npy */
	RFX_MATRIX_TEXT,    /* CSV, TSV, blank-separated */
	RFX_MATRIX_HDF5     /* FILE.h5:/path/dataset */
};

struct rfx_matrix_opts {
	enum rfx_matrix_header header; /* text files only */
	/*
	 * 1-based column taken out of the rows as class labels (--label-column
	 * N), 0 for none. In a text file a label may be any field (a number or
	 * a name such as "Iris-setosa"); elsewhere it is a number.
	 */
	int label_column;
	/*
	 * The file is a vector of class labels (--labels FILE): one per line,
	 * a 1-D array, or a 2-D array with one row or one column. The labels
	 * go to m->labels; m->x stays NULL and m->cols 0.
	 */
	int labels_only;
};

struct rfx_matrix {
	double *x;              /* rows x cols, row-major; owned */
	size_t rows;            /* inputs */
	int cols;               /* d */
	int *labels;            /* rows class indices in 0..nclass-1, or NULL */
	int nclass;             /* distinct labels, 0 without labels */
	char *spec;             /* the spec as given; owned */
	char *path;             /* the file read (spec without ":/dataset") */
	char *dataset;          /* HDF5 dataset path, or NULL */
	enum rfx_matrix_format format;
	uint64_t size;          /* file size in bytes */
	char sha256[RFX_SHA256_HEX]; /* SHA-256 of the whole file, hex */
	int converted;          /* integer values converted to double */
	int header;             /* text: a header line was skipped */
};

/* A matrix with no data and no file; rfx_matrix_release of it is a no-op. */
void rfx_matrix_init(struct rfx_matrix *m);

/*
 * Loads the file that spec names into m (initialised here; release it with
 * rfx_matrix_release whatever the result). o may be NULL for the defaults.
 * Class labels are numbered in increasing order of their value (numbers)
 * or text (names), so the numbering does not depend on row order.
 *
 * Errors, with m left empty: RFX_EINVAL for an empty spec or a bad option
 * (a label column outside the rows); RFX_EIO "cannot open 'x.npy': No such
 * file or directory" or a read error; RFX_EFORMAT for a malformed file,
 * e.g. "non-finite value 'nan' in 'x.csv' row 3 column 2 (line 4)",
 * "ragged rows in 'x.csv': row 3 has 2 columns, row 1 has 3 (line 4)",
 * "no rows in 'x.csv'", "truncated data in 'x.npy': the header's 4 x 3
 * float64 need 96 bytes, the file has 80", "'x.npy' has 8 bytes after the
 * 4 x 3 float64 its header describes", "unsupported dtype '<c16' in
 * 'x.npy' (complex)", "invalid UTF-8 in 'x.csv' line 2 byte 7";
 * RFX_ENOMEM.
 */
int rfx_matrix_load(struct rfx_matrix *m, const char *spec,
		    const struct rfx_matrix_opts *o, struct rfx_err *err);

/* Frees what m owns and empties it. NULL is a no-op. */
void rfx_matrix_release(struct rfx_matrix *m);

/*
 * RFX_EINVAL "'y.npy' has d = 5 but 'x.npy' has d = 4" when a and b have
 * different numbers of columns: the two sets of a pair study must live in
 * the same space.
 */
int rfx_matrix_check_same_cols(const struct rfx_matrix *a,
			       const struct rfx_matrix *b, struct rfx_err *err);

#endif

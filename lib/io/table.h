/*
 * HDF5 output and input of result tables.
 *
 * A table is a one-dimensional compound dataset with the attributes of the
 * HDF5 high-level table API (CLASS="TABLE", VERSION, TITLE,
 * FIELD_<i>_NAME), so H5TB, h5dump, h5py and pandas (as a PyTables
 * "generic_table") all read it. Rows are C structs described by a static
 * schema: column names, offsets (offsetof) and types. Records are written
 * with H5TBappend_records; the dump reads them with H5Dread into a native
 * row type built from the stored one, so it prints any such table, not
 * only rfx's (H5TBread_table needs the caller to know the row layout).
 *
 * The dataset itself is created here rather than by H5TBmake_table because
 * that function stores object modification times, and rfx promises the
 * same bytes for the same seed; we create it with time tracking off, and
 * the root group too. Its row type is packed with little-endian members,
 * so neither struct padding nor the host's byte order reaches the file.
 *
 * Files are written atomically: rfx_h5out_open() creates a temporary file
 * next to the target, rfx_h5out_commit() renames it into place, and
 * rfx_h5out_abort() (or a failed commit) removes it, so a failed or
 * interrupted run never leaves a partial file nor truncates an existing
 * one.
 */
#ifndef RFX_TABLE_H
#define RFX_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

enum rfx_coltype {
	RFX_COL_DOUBLE, /* double */
	RFX_COL_INT,    /* int */
	RFX_COL_LONG,   /* long (64-bit on the supported platforms) */
	RFX_COL_STRING  /* char[size], NUL-terminated */
};

struct rfx_column {
	const char *name;      /* field name */
	enum rfx_coltype type; /* field type */
	size_t offset;         /* offsetof(row struct, field) */
	size_t size;           /* sizeof the field (string capacity) */
};

struct rfx_schema {
	const char *name;              /* dataset name, e.g. "variance" */
	const char *title;             /* TITLE attribute */
	size_t row_size;               /* sizeof(row struct) */
	int ncols;                     /* number of columns */
	const struct rfx_column *cols; /* the columns */
};

/* ncols of a schema whose columns are a static array */
#define RFX_NCOLS(cols) ((int)(sizeof(cols) / sizeof((cols)[0])))

/* An input file a run read (lib/data/matrix.h), for its provenance. */
struct rfx_input_file {
	const char *path;       /* as given, e.g. "x.npy" or "x.h5:/g/x" */
	uint64_t size;          /* bytes of the file */
	const char *sha256;     /* SHA-256 of the file, 64 hex digits */
};

/*
 * Run provenance stored as attributes of the root group of every file:
 * string attributes "rfx_version", "rfx_commit", "command" and "rng", and
 * "seed" as a scalar unsigned 64-bit integer (so h5py gives a number and
 * no seed is ever rounded through a double or a decimal string). Each
 * input file i (0-based) adds "input_<i>_path" and "input_<i>_sha256"
 * (strings) and "input_<i>_size" (unsigned 64-bit), after the
 * FIELD_<i>_NAME naming of H5TB.
 */
struct rfx_provenance {
	const char *version;    /* rfx version */
	const char *commit;     /* git commit of the build */
	const char *command;    /* full command line */
	uint64_t seed;          /* --seed */
	const char *rng;        /* gsl_rng_name of the generator */
	int ninputs;            /* input files read, 0 for none */
	const struct rfx_input_file *inputs; /* them, or NULL */
};

struct rfx_h5out;

/*
 * Opens path for writing through a temporary file "<path>.tmp.XXXXXX" in
 * the same directory (created now, so an unwritable target fails before
 * any work; it gets mode 0666 less the umask on commit, as a plain create
 * would). Returns NULL with err set on failure: RFX_EIO "cannot create
 * 'dir/x.h5': No such file or directory", RFX_EIO "'out' is a directory",
 * RFX_EINVAL for an empty path.
 */
struct rfx_h5out *rfx_h5out_open(const char *path, struct rfx_err *err);

/*
 * Stores the provenance attributes on the root group, replacing earlier
 * ones. RFX_EINVAL if a string field is NULL, RFX_EIO if HDF5 fails.
 */
int rfx_h5out_provenance(struct rfx_h5out *o, const struct rfx_provenance *p,
			 struct rfx_err *err);

/*
 * Stores a string attribute on the root group (e.g. parameters), replacing
 * one of the same name. RFX_EINVAL for an empty name, RFX_EIO if HDF5
 * fails.
 */
int rfx_h5out_attr(struct rfx_h5out *o, const char *name, const char *value,
		   struct rfx_err *err);

/*
 * Writes nrows rows (packed as s->row_size structs) as table s->name; the
 * rows are only read, and only their fields: struct padding and the bytes
 * after a string's NUL never reach the file. nrows may be 0. RFX_EINVAL,
 * before anything is written, for a string without a NUL within its
 * column or a schema that cannot describe its row struct (a column
 * outside the row, a numeric size other than its C type's, a column name
 * longer than 254 characters, which H5TB's fixed buffers cannot hold, a
 * table name with '/'); RFX_EIO if HDF5 fails, e.g. for a second table of
 * the same name.
 */
int rfx_h5out_table(struct rfx_h5out *o, const struct rfx_schema *s,
		    const void *rows, size_t nrows, struct rfx_err *err);

/*
 * Closes the file, fsyncs it and renames it into place, replacing any file
 * there; on failure (RFX_EIO) removes the temporary file. Frees o in every
 * case.
 */
int rfx_h5out_commit(struct rfx_h5out *o, struct rfx_err *err);

/* Closes and removes the temporary file; frees o. NULL is a no-op. */
void rfx_h5out_abort(struct rfx_h5out *o);

/*
 * Path of the temporary file, for a signal handler that must unlink it
 * (unlink is async-signal-safe). NULL for o == NULL.
 */
const char *rfx_h5out_tmpname(const struct rfx_h5out *o);

/*
 * Prints table `table` of the HDF5 file at path as TSV to out: a header
 * line of column names, then one line per row; doubles with the shortest
 * %.15g/%.16g/%.17g text that reads back as the same value (0.1, not
 * 0.10000000000000001), floats with %.9g, integers with %d, %ld or %lu,
 * fixed-length strings as stored (a tab or newline in one would break the
 * line structure; rfx writes none). A table is a dataset of the root group
 * with CLASS="TABLE". With table == NULL prints every table in name
 * (strcmp) order, each preceded by "# <name>" and separated by two blank
 * lines (gnuplot's index separator); a file without tables prints nothing.
 *
 * Errors, each found before anything is printed: RFX_EIO "cannot open
 * 'x.h5': <reason>" for a missing or unreadable file, RFX_EFORMAT "'x.txt'
 * is not an HDF5 file", RFX_EINVAL "no table 'foo' in 'x.h5' (tables: a,
 * b)", RFX_EFORMAT for a column type that cannot be printed (compound,
 * array, variable-length). A failure while reading rows (RFX_EIO) or
 * writing out (RFX_EIO, from ferror) may come after partial output.
 */
int rfx_h5_dump(const char *path, const char *table, FILE *out,
		struct rfx_err *err);

/*
 * rfx_h5_dump() printing only the rows that meet all nwhere conditions
 * where[0..nwhere-1], each "column=value": string cells equal value as
 * text, numeric cells equal value read as a number (gamma=0.1 and
 * gamma=1e-1 both match 0.1). where may be NULL when
 * nwhere is 0. With table == NULL every table must have the columns.
 * Besides rfx_h5_dump()'s errors: RFX_EINVAL "bad condition 'x' (want
 * column=value)", RFX_EINVAL "no column 'x' in table 't'" and RFX_EINVAL
 * for a non-number tested against a numeric column, all before any output.
 */
int rfx_h5_dump_where(const char *path, const char *table,
		      const char *const *where, int nwhere, FILE *out,
		      struct rfx_err *err);

/*
 * Formats v as the shortest of %.15g, %.16g, %.17g that reads back as v:
 * the text form of doubles in dumps and TSV output.
 */
void rfx_table_format_double(double v, char *buf, size_t n);

/*
 * Prints the root attributes of the file at path as "name\tvalue" lines,
 * in name order: strings as stored, integers in decimal, floating point
 * with %.17g, numeric arrays comma-separated. Errors as for rfx_h5_dump(),
 * and RFX_EFORMAT for an attribute of another type (after printing the
 * ones before it).
 */
int rfx_h5_dump_attrs(const char *path, FILE *out, struct rfx_err *err);

#endif

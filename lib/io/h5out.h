/*
 * Writing result tables to an HDF5 file, atomically and byte-reproducibly.
 *
 * Tables (io/table.h) are written with H5TBappend_records into datasets
 * this module creates itself rather than through H5TBmake_table, because
 * that function stores object modification times and rfx promises the
 * same bytes for the same seed; the root group's time tracking is off too.
 * The row type is packed with little-endian members, so neither struct
 * padding nor the host's byte order reaches the file.
 *
 * The file is written through an atomic output file (io/outfile.h): a
 * locked temporary "<target>.tmp.XXXXXX" next to its target, renamed into
 * place by rfx_h5out_commit() and removed by rfx_h5out_abort() (or a
 * failed commit), so a failed or interrupted run never leaves a partial
 * file nor truncates an existing one. outfile.h gives what -o may name
 * and how the temporaries of killed runs are cleaned.
 */
#ifndef RFX_H5OUT_H
#define RFX_H5OUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/table.h"

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
 * Opens path for writing (rfx_outfile_open: an unwritable target fails
 * before any work) and creates the HDF5 file on its temporary. Returns
 * NULL with err set on failure: rfx_outfile_open's errors ("cannot create
 * 'dir/x.h5': No such file or directory", "'out' is a directory", ...),
 * RFX_EIO when HDF5 cannot create the file.
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
 * Stores a scalar attribute on the root group as a 64-bit little-endian
 * number: rfx_h5out_attr_long a signed integer, rfx_h5out_attr_double a
 * float, so that h5py reads a number, not text. Errors as rfx_h5out_attr.
 */
int rfx_h5out_attr_long(struct rfx_h5out *o, const char *name, long value,
			struct rfx_err *err);
int rfx_h5out_attr_double(struct rfx_h5out *o, const char *name, double value,
			  struct rfx_err *err);

/*
 * The run's options, one attribute each of the group "/options" beside
 * the root's provenance, named by the option's long name ("mc-pairs"),
 * so that a reader gets numbers as numbers: RFX_ATTR_INT64 (signed
 * 64-bit little-endian), RFX_ATTR_UINT64 (unsigned, the seed),
 * RFX_ATTR_DOUBLE (IEEE 64-bit little-endian) or RFX_ATTR_STRING
 * (fixed-length, NUL-terminated, as long as the longest item plus its
 * NUL). A scalar has a scalar dataspace; a list (list = 1) a
 * one-dimensional one of n items, also when n is 1, so that a list
 * option always reads back as an array.
 */
enum rfx_attr_type {
	RFX_ATTR_INT64,  /* v: n int64_t */
	RFX_ATTR_UINT64, /* v: n uint64_t */
	RFX_ATTR_DOUBLE, /* v: n double */
	RFX_ATTR_STRING  /* v: n const char * */
};

struct rfx_attr_value {
	enum rfx_attr_type type;
	int list;      /* 1: a one-dimensional array; 0: a scalar (n = 1) */
	size_t n;      /* items, at least 1 */
	const void *v; /* the items, borrowed */
};

/*
 * Stores option name as attribute name of "/options" (the group is made,
 * without timestamps, on first use), replacing one of the same name.
 * RFX_EINVAL for an empty name, no items, a scalar of several items or a
 * NULL string; RFX_EIO if HDF5 fails.
 */
int rfx_h5out_option(struct rfx_h5out *o, const char *name,
		     const struct rfx_attr_value *a, struct rfx_err *err);

/*
 * Writes nrows rows (packed as s->row_size structs) as table s->name, with
 * the H5TB attributes and FIELD_<i>_DESC, column i's description; the
 * rows are only read, and only their fields: struct padding and the bytes
 * after a string's NUL never reach the file. nrows may be 0. RFX_EINVAL,
 * before anything is written, for a string without a NUL within its
 * column or a schema rfx_table_check_schema() refuses; RFX_EIO if HDF5
 * fails, e.g. for a second table of the same name or a full disk.
 */
int rfx_h5out_table(struct rfx_h5out *o, const struct rfx_schema *s,
		    const void *rows, size_t nrows, struct rfx_err *err);

/*
 * Closes the file, fsyncs it and renames it into place, replacing any file
 * there; on failure (RFX_EIO, e.g. "cannot write 'x.h5': No space left on
 * device") removes the temporary file and leaves the target as it was.
 * Frees o in every case.
 */
int rfx_h5out_commit(struct rfx_h5out *o, struct rfx_err *err);

/* Closes and removes the temporary file; frees o. NULL is a no-op. */
void rfx_h5out_abort(struct rfx_h5out *o);

/*
 * The open temporary file's HDF5 handle, for writers of objects other than
 * tables (lib/io/shard.c); still owned by o.
 */
int64_t rfx_h5out_hid(const struct rfx_h5out *o);

/*
 * Path of the temporary file, for a signal handler that must unlink it
 * (unlink is async-signal-safe). NULL for o == NULL.
 */
const char *rfx_h5out_tmpname(const struct rfx_h5out *o);

/*
 * Non-zero once a file could not be closed (a full disk at its last
 * flush): its handle is abandoned half closed, and H5close() or HDF5's
 * exit handler would crash on it in libhdf5 1.10.8. A program that turned
 * the exit handler off (H5dont_atexit) calls H5close() itself only while
 * this is zero.
 */
int rfx_h5out_abandoned(void);

#endif

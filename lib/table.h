/*
 * HDF5 output and input of result tables.
 *
 * A table is a one-dimensional compound dataset with the attributes of the
 * HDF5 high-level table API (CLASS="TABLE", VERSION, TITLE,
 * FIELD_<i>_NAME), so H5TB, h5dump, h5py and pandas (as a PyTables
 * "generic_table") all read it. Rows are C structs described by a static
 * schema: column names, offsets (offsetof) and types. Records are written
 * with H5TBappend_records and read with H5TBread_table.
 *
 * The dataset itself is created here rather than by H5TBmake_table because
 * that function stores object modification times, and rfx promises the
 * same bytes for the same seed; we create it with time tracking off.
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

#include "err.h"

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

/* Run provenance stored as attributes of the root group of every file. */
struct rfx_provenance {
	const char *version;    /* rfx version */
	const char *commit;     /* git commit of the build */
	const char *command;    /* full command line */
	uint64_t seed;          /* --seed */
	const char *rng;        /* gsl_rng_name of the generator */
};

struct rfx_h5out;

/*
 * Opens path for writing through a temporary file in the same directory
 * (created now, so an unwritable target fails before any work). Returns
 * NULL with err set on failure ("cannot create 'dir/x.h5': ...").
 */
struct rfx_h5out *rfx_h5out_open(const char *path, struct rfx_err *err);

/* Stores the provenance attributes on the root group. */
int rfx_h5out_provenance(struct rfx_h5out *o, const struct rfx_provenance *p,
			 struct rfx_err *err);

/* Stores a string attribute on the root group (e.g. parameters). */
int rfx_h5out_attr(struct rfx_h5out *o, const char *name, const char *value,
		   struct rfx_err *err);

/* Writes nrows rows (packed as s->row_size structs) as table s->name. */
int rfx_h5out_table(struct rfx_h5out *o, const struct rfx_schema *s,
		    const void *rows, size_t nrows, struct rfx_err *err);

/*
 * Closes and renames the file into place; on failure removes the temporary
 * file. Frees o in every case.
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
 * line of column names, then one line per row; doubles with %.17g (so the
 * text round-trips), strings as stored. With table == NULL prints every
 * table in the file, each preceded by "# <name>" and separated by two blank
 * lines (gnuplot's index separator). RFX_EIO / RFX_EFORMAT with a message
 * for a missing or non-HDF5 file or an unknown table.
 */
int rfx_h5_dump(const char *path, const char *table, FILE *out,
		struct rfx_err *err);

/* Prints the root attributes of the file at path as "name\tvalue" lines. */
int rfx_h5_dump_attrs(const char *path, FILE *out, struct rfx_err *err);

#endif

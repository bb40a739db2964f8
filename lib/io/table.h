/*
 * Result tables: the schema that describes a table's rows, shared by the
 * HDF5 writer (io/h5out.h), the reader and dump (io/h5read.h), the TSV
 * printers and every module that defines a table.
 *
 * A table is a one-dimensional compound dataset with the attributes of the
 * HDF5 high-level table API (CLASS="TABLE", VERSION, TITLE,
 * FIELD_<i>_NAME), so H5TB, h5dump, h5py and pandas (as a PyTables
 * "generic_table") all read it. Rows are C structs described by a static
 * schema: column names, offsets (offsetof) and types, each column written
 * with one macro, RFX_COL.
 */
#ifndef RFX_TABLE_H
#define RFX_TABLE_H

#include <stddef.h>

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
	const char *desc;      /* what it is: meaning, units, natural log or not */
};

/*
 * One column of a static column array: field `field` of `struct row`,
 * stored as `type`, with its description `desc`. The name is the field's
 * name and the offset and size are the compiler's, so a table's columns
 * cannot drift from its row struct; the description sits beside them, so
 * one list carries the schema and its documentation (the writer stores
 * it as the table's FIELD_<i>_DESC attribute, `rfx dump --describe`
 * prints it). A description says what the value is, its units and, for
 * a log_* column, that it is a natural log:
 *
 *   static const struct rfx_column cols[] = {
 *           RFX_COL(rfx_varexp_row, gamma, RFX_COL_DOUBLE,
 *                   "kernel scale gamma: inputs x -> gamma x"),
 *   };
 */
#define RFX_COL(row, field, type, desc)                                        \
	{ #field, type, offsetof(struct row, field),                           \
	  sizeof(((struct row *)0)->field), desc }

struct rfx_schema {
	const char *name;              /* dataset name, e.g. "variance" */
	const char *title;             /* TITLE attribute */
	size_t row_size;               /* sizeof(row struct) */
	int ncols;                     /* number of columns */
	const struct rfx_column *cols; /* the columns */
};

/* ncols of a schema whose columns are a static array */
#define RFX_NCOLS(cols) ((int)(sizeof(cols) / sizeof((cols)[0])))

/*
 * H5TBappend_records and friends copy member names into buffers of
 * HLTB_MAX_FIELD_LEN (255) bytes without checking; longer names would
 * overflow inside the library.
 */
#define RFX_TABLE_NAME_MAX 254

#define RFX_TABLE_CLASS "TABLE" /* H5TB's CLASS attribute value */
#define RFX_TABLE_VERSION "3.0" /* H5TB's VERSION attribute value */
#define RFX_OPTIONS_GROUP "options" /* the run's options (io/h5out.h) */

/*
 * Whether s can describe its row struct: a table name without '/', at
 * least one column, each named (1 to RFX_TABLE_NAME_MAX characters) and
 * described (a non-empty desc), of a known type whose size is its C
 * type's, inside the row.
 * RFX_OK, or RFX_EINVAL naming the table and column.
 */
int rfx_table_check_schema(const struct rfx_schema *s, struct rfx_err *err);

/*
 * For the io modules: rfx_error() with HDF5's reason for the failure just
 * reported appended after a colon (the innermost entry of its error
 * stack; when that entry is a system call's failure, the system's text,
 * "No space left on device", rather than HDF5's multi-field line). Call
 * it right after the failing HDF5 call: the next call clears the stack.
 */
int rfx_table_h5_error(struct rfx_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

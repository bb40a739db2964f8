/*
 * Reading result tables back from HDF5: `rfx dump` as tab-separated text
 * for gnuplot and the shell, the root attributes, and the column
 * descriptions (`rfx dump --describe`).
 *
 * The reader does not assume rfx wrote the file: it builds its own native
 * row type from the stored one, so tables made by H5TBmake_table, PyTables
 * or h5py print too. It does assume the file may be damaged: before a row
 * is read, each table's metadata is checked against itself and against
 * the file (a row type whose members overlap or overrun the row, a chunk
 * of no rows, more rows than the file has bytes for), because libhdf5
 * 1.10.8 crashes or runs away on such files rather than failing. Every
 * error a dump can foresee is found before it prints anything.
 *
 * The loops poll rfx_cancel_requested() (base/cancel.h) between blocks
 * of rows and return RFX_EINTR.
 */
#ifndef RFX_H5READ_H
#define RFX_H5READ_H

#include <stdio.h>

#include "base/err.h"

/*
 * Prints table `table` of the HDF5 file at path as TSV to out: a header
 * line of column names, then one line per row; doubles with the shortest
 * %.15g/%.16g/%.17g text that reads back as the same value (0.1, not
 * 0.10000000000000001), floats with %.9g, integers with %d, %ld or %lu,
 * fixed-length strings as stored (a tab or newline in one would break the
 * line structure; rfx writes none). A table is a dataset of the root group
 * with CLASS="TABLE". With table == NULL prints every table in name
 * (strcmp) order, each preceded by "# <name>" and separated by two blank
 * lines (gnuplot's index separator).
 *
 * Errors, each found before anything is printed: RFX_EIO "cannot open
 * 'x.h5': <reason>" for a missing or unreadable file, RFX_EFORMAT "'x.txt'
 * is not an HDF5 file", RFX_EINVAL "no table 'foo' in 'x.h5' (tables: a,
 * b)", RFX_EINVAL "'x.h5' has no tables (rfx writes each result as one)"
 * with table == NULL (another program's file: this, not empty output,
 * for rfx_h5_describe too), RFX_EFORMAT for a column type that cannot be printed (compound,
 * array, variable-length) and for damaged metadata ("table 't' in 'x.h5'
 * is damaged: ...") and for rows that cannot be read (every row is read
 * once before the first is printed). Writing out (RFX_EIO, from ferror)
 * or a cancellation (RFX_EINTR) may come after
 * partial output.
 */
int rfx_h5_dump(const char *path, const char *table, FILE *out,
		struct rfx_err *err);

/*
 * rfx_h5_dump() printing only the rows that meet all nwhere conditions
 * where[0..nwhere-1], each "column=value": string cells equal value as
 * text, numeric cells equal value read as a number (gamma=0.1 and
 * gamma=1e-1 both match 0.1). where may be NULL when nwhere is 0. With
 * table == NULL the tables that have every column of the conditions are
 * printed, filtered, and the others left out. Besides rfx_h5_dump()'s
 * errors: RFX_EINVAL "bad condition 'x' (want column=value)", RFX_EINVAL
 * "no column 'x' in table 't'" (a TABLE without it), "no table in 'f'
 * has a column 'x'" (no table has it) and RFX_EINVAL for a non-number
 * tested against a numeric column, all before any output.
 */
int rfx_h5_dump_where(const char *path, const char *table,
		      const char *const *where, int nwhere, FILE *out,
		      struct rfx_err *err);

/*
 * Prints the root attributes of the file at path as "name\tvalue" lines,
 * in name order, then those of its "options" group (the run's options,
 * io/h5out.h) as "options/name\tvalue": strings as stored, integers in
 * decimal, floating point with %.17g, arrays (numbers or strings)
 * comma-separated. Errors as for rfx_h5_dump(), and RFX_EFORMAT for an
 * attribute of another type or with no elements (after printing the
 * ones before it).
 */
int rfx_h5_dump_attrs(const char *path, FILE *out, struct rfx_err *err);

/*
 * Prints what the columns of table `table` (every table when NULL) mean,
 * as TSV with the header "table\tcolumn\ttype\tdescription": the stored
 * type (float64, int32, int64, uint64, string[N] for N bytes, ...) and
 * the FIELD_<i>_DESC attribute rfx writes, "-" for a table written by
 * another program without one. Without a table, then the run's options
 * (the "options" group, when the file has one) after two blank lines,
 * under the header "option\ttype\tvalue": each option's stored type
 * (int64, uint64, float64 or string; "[n]" after it for a list of n
 * items, e.g. float64[2]) and its value as dump_attrs prints it. Errors
 * as for rfx_h5_dump() and rfx_h5_dump_attrs(), all found before any
 * output.
 */
int rfx_h5_describe(const char *path, const char *table, FILE *out,
		    struct rfx_err *err);

#endif

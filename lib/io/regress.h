/*
 * Regression checks of Monte Carlo tables against committed references
 * (`make regress`): a run's table and the reference, both as TSV text with
 * a header line, are matched row by row on key columns, and each estimate
 * must agree with the reference within a tolerance derived from the two
 * standard errors, not picked by hand:
 *
 *   |new - ref| <= z* sqrt(se_new^2 + se_ref^2),  z* = Phi^-1(1 - alpha/(2n)),
 *
 * for n compared cells: if the code is unchanged in distribution, each
 * difference is (for repetitions enough for the central limit theorem)
 * normal with that standard deviation, and the Bonferroni bound makes the
 * chance that any of the n cells fails at most alpha (RFX_REGRESS_ALPHA).
 * With the same seed and the same code the tables are identical and every
 * z is 0; a change that only reorders random numbers passes with
 * probability >= 1 - alpha; a change in an estimator's distribution larger
 * than a few standard errors fails.
 */
#ifndef RFX_REGRESS_H
#define RFX_REGRESS_H

#include <stddef.h>

#include "base/err.h"
#include "io/table.h"

#define RFX_REGRESS_ALPHA 1e-3

/* A table as text: ncols names, nrows x ncols cells. */
struct rfx_tsv {
	int ncols;
	size_t nrows;
	char **names;  /* ncols column names */
	char **cells;  /* row-major, nrows x ncols */
	char *buf;     /* the storage behind names and cells */
};

/*
 * Reads a TSV file with a header line. RFX_EIO when it cannot be read,
 * RFX_EFORMAT for an empty file or a row whose field count differs from
 * the header's (the line number in the message).
 */
struct rfx_tsv *rfx_tsv_read(const char *path, struct rfx_err *err);

/* The TSV text of n rows of schema s, formatted as the commands print them. */
struct rfx_tsv *rfx_tsv_from_rows(const struct rfx_schema *s, const void *rows,
				  size_t n, struct rfx_err *err);

void rfx_tsv_free(struct rfx_tsv *t);

/* What to compare. */
struct rfx_regress_spec {
	int nkeys;
	const char *const *keys; /* columns that identify a row */
	const char *value;       /* the estimate's column */
	const char *se;          /* its standard error's column */
	double alpha;            /* family-wise false-alarm probability */
};

/* One compared cell. */
struct rfx_regress_row {
	char key[128];    /* the key columns joined with '/' */
	double ref, ref_se;
	double got, got_se;
	double z;         /* (got - ref)/sqrt(se^2 + se^2); 0 if equal */
	double limit;     /* z* */
	char verdict[8];  /* "ok" or "FAIL" */
};

extern const struct rfx_schema rfx_regress_schema;

/*
 * Compares got with ref: *out gets one row per reference row (caller
 * frees), *nfail the number that fail. RFX_EFORMAT when a column is
 * missing, a value is not a finite number or a standard error negative, a
 * key repeats, or the two tables do not have the same keys (the message
 * names the first such row: the reference was made with other settings).
 */
int rfx_regress_compare(const struct rfx_tsv *ref, const struct rfx_tsv *got,
			const struct rfx_regress_spec *spec,
			struct rfx_regress_row **out, size_t *n, size_t *nfail,
			struct rfx_err *err);

#endif

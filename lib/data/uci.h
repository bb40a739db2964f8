/*
 * The eight UCI classification benchmarks of thesis sec. 6.6.2 (Table 6.1):
 * a table of file formats, a loader that turns each shipped file into a
 * numeric n x d input matrix and class labels, and the seeded 90% / 5% / 5%
 * train / validation / test split with per-column standardisation.
 *
 * Formats (data/MANIFEST.md has each file's provenance): the loader knows,
 * per dataset, the separator (comma, tab, or runs of blanks), the header
 * line if the file has one (checked field by field, so that a file
 * without it cannot lose its first row unnoticed), and each column's kind:
 * numeric, categorical with its levels, the label, or skipped (yeast's
 * sequence name). CRLF line ends are accepted, and so are empty lines at
 * the very end of a file (nursery has one); an empty line before a data
 * row is an error. Every other row becomes a sample: there are no silent
 * drops. Errors name the file, the 1-based line and column, and the
 * offending text.
 *
 * Encodings of the categorical attributes (abalone's sex, every attribute
 * of car and nursery):
 *   ordinal  one column per attribute, the level's index in the order
 *            listed in the table (the UCI .names order, increasing for the
 *            ordered attributes of car and nursery), so d is the UCI
 *            attribute count;
 *   onehot   one 0/1 column per level.
 * Attributes a file stores as numbers (cmc's codes, the chess board
 * coordinates of krkopt.data) are numeric in both encodings.
 *
 * Labels: categorical labels map to the index of their level in the table
 * (unknown ones are errors); numeric labels must be integers and map to
 * their rank among the distinct values present (abalone's rings 1..29
 * without 28 become 28 classes).
 */
#ifndef RFX_UCI_H
#define RFX_UCI_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/table.h"

enum rfx_uci_kind {
	RFX_UCI_NUM,       /* a finite number */
	RFX_UCI_CAT,       /* one of the levels */
	RFX_UCI_SKIP,      /* read and ignored (an identifier) */
	RFX_UCI_LABEL_NUM, /* the label, an integer */
	RFX_UCI_LABEL_CAT  /* the label, one of the levels */
};

struct rfx_uci_column {
	const char *name;        /* attribute name (as in the .names file) */
	enum rfx_uci_kind kind;
	const char *levels;      /* "low,med,high": categorical levels in code order */
};

struct rfx_uci_spec {
	const char *name;        /* CLI name, e.g. "chess" */
	const char *file;        /* file in the data directory */
	char sep;                /* ',', '\t', or ' ' for runs of blanks */
	const char *header;      /* expected header fields joined by sep; NULL if none */
	int ncols;               /* fields per line */
	const struct rfx_uci_column *cols;
};

enum rfx_uci_encoding {
	RFX_UCI_ORDINAL,
	RFX_UCI_ONEHOT
};

/* The datasets, in Table 6.1's order, NULL-terminated. */
const struct rfx_uci_spec *const *rfx_uci_list(void);

/*
 * Looks up a dataset by name; RFX_EINVAL listing the valid names when it
 * is unknown.
 */
const struct rfx_uci_spec *rfx_uci_find(const char *name, struct rfx_err *err);

/* Index of s in rfx_uci_list() (a stable tag for random streams), or -1. */
int rfx_uci_index(const struct rfx_uci_spec *s);

/* Parses "ordinal" or "onehot"; RFX_EINVAL listing both otherwise. */
int rfx_uci_encoding_parse(const char *name, enum rfx_uci_encoding *out,
			   struct rfx_err *err);
const char *rfx_uci_encoding_name(enum rfx_uci_encoding e);

/* A loaded dataset. */
struct rfx_uci_data {
	const struct rfx_uci_spec *spec;
	size_t n;          /* samples (data rows of the file) */
	int d;             /* input columns after encoding */
	int nclass;        /* classes */
	double *X;         /* n x d row-major */
	int *y;            /* n labels in 0..nclass-1 */
};

/*
 * Loads the file at path in the format of spec. Errors: RFX_EIO when it
 * cannot be opened or read; RFX_EFORMAT, naming path, line and column,
 * for an empty file, a header that differs from the expected one, a row
 * with too few or too many fields, an empty line before the end, a bad or
 * non-finite number, an unknown category, a non-integer numeric label;
 * RFX_ENOMEM. Returns NULL with err set on failure.
 */
struct rfx_uci_data *rfx_uci_load(const struct rfx_uci_spec *spec,
				  const char *path, enum rfx_uci_encoding enc,
				  struct rfx_err *err);

/* Frees; NULL is a no-op. */
void rfx_uci_free(struct rfx_uci_data *D);

/*
 * Sizes of the 90% / 5% / 5% split of n samples: n_train = floor(9n/10),
 * n_val = floor(19n/20) - n_train, n_test the rest (numpy's
 * idx[:int(.9n)], idx[int(.9n):int(.95n)], idx[int(.95n):], computed in
 * integers).
 */
void rfx_uci_split_sizes(size_t n, size_t *n_train, size_t *n_val,
			 size_t *n_test);

/* One split of a dataset: three row sets, standardised or not. */
struct rfx_uci_split {
	int d, nclass;
	size_t n_train, n_val, n_test;
	double *Xtr, *Xva, *Xte;   /* n_* x d row-major */
	int *ytr, *yva, *yte;      /* labels */
	size_t *perm;              /* rows of the dataset: train, then val, test */
	double *mean, *scale;      /* d entries: x -> (x - mean) / scale */
};

/*
 * Splits D with a random permutation from the stream keyed ("uci",
 * "split", dataset name) of lib/base/rng.h (so the split depends only on the
 * seed and the dataset) and, when standardize is non-zero, rescales every
 * column to mean 0 and standard deviation 1 (population form) over the
 * training rows, applying the same map to the validation and test rows; a
 * column constant on the training rows is only centred. Without
 * standardisation mean = 0 and scale = 1. RFX_EINVAL for fewer than 20
 * samples (the split needs a row in each part); RFX_ENOMEM.
 */
int rfx_uci_split(const struct rfx_uci_data *D, uint64_t seed, int standardize,
		  struct rfx_uci_split *S, struct rfx_err *err);

/* Frees the arrays of S (not S itself); safe on a zeroed S. */
void rfx_uci_split_release(struct rfx_uci_split *S);

/* A row of the "uci_data" table: what was loaded and how it was split. */
struct rfx_uci_info {
	char dataset[16];
	char file[32];
	char encoding[16];
	char scaling[16];     /* "standard" or "none" */
	long rows;            /* samples in the file */
	int d;                /* input columns */
	int classes;
	long n_train, n_val, n_test;
};

extern const struct rfx_schema rfx_uci_info_schema;

/* Fills an info row for D split as S. */
void rfx_uci_info_fill(struct rfx_uci_info *r, const struct rfx_uci_data *D,
		       const struct rfx_uci_split *S, enum rfx_uci_encoding enc,
		       int standardize);

#endif

/*
 * Datasets for the MSE tables: loaders for the shipped files of data/
 * (data/MANIFEST.md describes each), the input normalisations the tables
 * are run under, zero-padding to a power of 2 (the ORF paper pads its
 * inputs), and the ORF paper's bandwidth rule.
 *
 * A dataset is n inputs in R^d, row-major, without labels or targets:
 *
 *   name       file                       rows    d    columns dropped
 *   wine       wine.csv                    178   13    class (14)
 *   boston     boston_housing.csv          506   13    MEDV (14)
 *   letter     letter-recognition.data   20000   16    letter (1)
 *   usps       usps_zip.train.gz          7291  256    digit (1)
 *   mnist      t10k-images-idx3-ubyte.gz 10000  784    (pixels / 255)
 *   wifi       wifi_localization.txt      2000    7    room (8)
 *   abalone    abalone.csv                4177    7    sex (1), rings (9)
 *   banknote   banknote.txt               1372    4    class (5)
 *   optdigits  optdigits.tra              3823   64    digit (65)
 *   yeast      yeast.data                 1484    8    name (1), class (10)
 *
 * Text files are read through zlib (plain or gzip): fields are separated by
 * commas or runs of blanks (spaces, tabs, carriage returns), header lines
 * are skipped as the table says, empty lines are ignored, and every other
 * line must have the file's number of fields, each kept one a finite
 * number. (A UCI loader module lib/data/uci is being written separately; this
 * one serves the MSE tables only and could be folded into it.)
 */
#ifndef RFX_DATASET_H
#define RFX_DATASET_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"

#define RFX_DATASET_NAMES \
	"wine, boston, letter, usps, mnist, wifi, abalone, banknote, optdigits, yeast"

struct rfx_dataset {
	char name[16]; /* catalogue name, e.g. "wine" */
	size_t n;      /* inputs */
	int d;         /* dimension (after padding) */
	double *X;     /* n x d row-major */
	int *y;        /* n class labels in 0..nclass-1, or NULL (below) */
	int nclass;    /* classes: one more than the largest label */
};

/*
 * Loads dataset name from directory dir (the data/ folder). Returns NULL
 * with err set: RFX_EINVAL for an unknown name (listing the valid ones),
 * RFX_EIO when the file cannot be opened or read, RFX_EFORMAT for a
 * malformed line (file and line number in the message), RFX_ENOMEM.
 */
struct rfx_dataset *rfx_dataset_load(const char *name, const char *dir,
				     struct rfx_err *err);

/*
 * The same with class labels in ds->y, for the classification datasets:
 * letter (A..Z as 0..25), usps and mnist (digits 0..9, mnist's from
 * t10k-labels-idx1-ubyte.gz). test = 0 loads the file of the table above;
 * test = 1 the separate test file, which only usps has
 * (usps_zip.test.gz, 2007 rows). Errors as rfx_dataset_load, plus
 * RFX_EINVAL for a dataset without labels or without a test file,
 * RFX_EFORMAT for a bad label (not A..Z nor an integer in 0..255) or a
 * label count that differs from the image count.
 */
struct rfx_dataset *rfx_dataset_load_labelled(const char *name, const char *dir,
					      int test, struct rfx_err *err);

/* A dataset from n x d values (copied), for tests and callers with data. */
struct rfx_dataset *rfx_dataset_from(const char *name, const double *X,
				     size_t n, int d, struct rfx_err *err);

void rfx_dataset_free(struct rfx_dataset *ds);

/* The catalogue index of name (stable, for random streams), or -1. */
int rfx_dataset_index(const char *name);

/*
 * Input normalisations. Column statistics are over the whole dataset,
 * with the population standard deviation; a constant column becomes 0.
 *   none    raw values;
 *   zscore  each column to mean 0 and standard deviation 1, then every
 *           input divided by sqrt(d), so that the mean of |x|^2 is 1;
 *   unit    each column z-scored, then every input scaled to length 1
 *           (an input that is all zero stays 0);
 *   ball    each column z-scored, then every input divided by the largest
 *           length, so that |x| <= 1 with equality for the longest;
 *   minmax  each column mapped to [0, 1], then divided by sqrt(d), so that
 *           |x| <= 1 and every coordinate is >= 0.
 */
enum rfx_norm {
	RFX_NORM_NONE,
	RFX_NORM_ZSCORE,
	RFX_NORM_UNIT,
	RFX_NORM_BALL,
	RFX_NORM_MINMAX
};

#define RFX_NORM_NAMES "none, zscore, unit, ball, minmax"

int rfx_norm_parse(const char *name, enum rfx_norm *out, struct rfx_err *err);
const char *rfx_norm_name(enum rfx_norm k);

/* Applies normalisation k to ds in place. */
void rfx_dataset_normalize(struct rfx_dataset *ds, enum rfx_norm k);

/*
 * Zero-pads every input to dimension d >= ds->d (the ORF paper pads MNIST's
 * 784 to 1024). RFX_EINVAL for d < ds->d, RFX_ENOMEM.
 */
int rfx_dataset_pad(struct rfx_dataset *ds, int d, struct rfx_err *err);

/* Largest |x|^2 over the inputs. */
double rfx_dataset_max_norm2(const struct rfx_dataset *ds);

/*
 * The ORF paper's bandwidth (sec. 5, Fig 4): the mean over nsample inputs
 * drawn without replacement (all of them if nsample >= n) of the distance
 * to their k-th nearest neighbour among all the other inputs (the input
 * itself excluded by index, duplicates counted). Distances come from one
 * BLAS product per block of sampled inputs, on one BLAS thread each, so
 * the result does not depend on the thread count. RFX_EINVAL for k < 1
 * or nsample < 1; RFX_EFORMAT, the data's fault, for k > n - 1 (one row)
 * and for a bandwidth of 0 (equal rows); RFX_ENOMEM.
 */
int rfx_dataset_nn_sigma(const struct rfx_dataset *ds, int k, size_t nsample,
			 const gsl_rng *r, double *sigma, struct rfx_err *err);

#endif

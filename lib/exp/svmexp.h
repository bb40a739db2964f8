/*
 * The ORF paper's Table 2 (Yu et al. 2016, sec. 5): test accuracy of a
 * linear SVM (lib/eval/svm.h) trained on random Fourier features of the
 * Gaussian kernel exp(-|x - y|^2 / 2 sigma^2), for D = r d projections,
 * r = D/d in a list (the paper: 2, 4, 6, 8, 10), with the projections of
 * RFF (iid), ORF (ort) or SORF (sorf) of lib/proj/proj.h. A point x maps to
 *
 *   z(x) = [cos(w_1 . x / sigma), .., cos(w_D . x / sigma),
 *           sin(w_1 . x / sigma), .., sin(w_D . x / sigma)] / sqrt(D),
 *
 * 2D features with z(x) . z(y) the D-projection estimate of the kernel,
 * so |z(x)| = 1 and C means what it means for the kernel SVM.
 *
 * Data (rfx_svmexp_load): the inputs as shipped (no normalisation; the
 * bandwidth adapts to their scale), zero-padded to the next power of 2
 * (the paper's d: mnist 784 -> 1024), sigma the mean distance to the 50th
 * nearest neighbour over 1000 sampled training inputs (the paper's rule,
 * lib/data/dataset.h), computed on the training rows only. Splits:
 *   letter  first 16000 rows train, last 4000 test (the customary split)
 *   usps    usps_zip.train.gz (7291) train, usps_zip.test.gz (2007) test
 *   mnist   only the 10000 t10k images are shipped: first 8000 train,
 *           last 2000 test (the paper trains on the 60000 training images)
 *
 * Memory: the training features are stored as floats, n_train x 2D (mnist
 * at D = 10d: 8000 x 20480 x 4 bytes = 655 MB); they are computed, and the
 * test rows are classified, in blocks of rows, so no double-precision
 * feature matrix of the whole set ever exists.
 *
 * Randomness: the projections of (dataset, method, D, seed index s) come
 * from stream (seed, 0x53564d0000 + dataset index, proj << 32 | D, s); the
 * SVM of class k from (seed, 0x53564d1000 + dataset index, proj << 40 |
 * D << 16 | s, k); the bandwidth's sample from (seed, 0x53564d2000 +
 * dataset index, 0, 0). Feature maps and one-vs-rest are bit-identical
 * for any thread count (lib/est/featmap.h, lib/eval/svm.h), so the table is too.
 */
#ifndef RFX_SVMEXP_H
#define RFX_SVMEXP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "proj/proj.h"
#include "eval/svm.h"
#include "io/table.h"

#define RFX_SVMEXP_NAMES "letter, usps, mnist"
#define RFX_SVMEXP_METHODS "RFF, ORF, SORF"

/* A dataset split into training and test rows, padded, with its sigma. */
struct rfx_svmexp_data {
	char name[16];
	int id;                 /* catalogue index (lib/data/dataset.h), stream tag */
	int d0, d;              /* dimension as shipped, padded */
	int nclass;
	size_t n_train, n_test;
	double *Xtr, *Xte;      /* n x d row-major, padded */
	int *ytr, *yte;
	double sigma;           /* the bandwidth */
};

/*
 * Loads dataset name (one of RFX_SVMEXP_NAMES) from directory dir, splits,
 * keeps the first max_train training and max_test test rows (0: all; for
 * quick runs and tests), pads and sets sigma from the nn_k-th neighbour
 * over nn_sample training inputs, into *out (release with
 * rfx_svmexp_data_release; safe on a zeroed struct). Errors: RFX_EINVAL
 * for an unknown name or nn_k >= the training rows, else those of
 * lib/data/dataset.h's loaders.
 */
int rfx_svmexp_load(const char *name, const char *dir, size_t max_train,
		    size_t max_test, int nn_k, size_t nn_sample, uint64_t seed,
		    struct rfx_svmexp_data *out, struct rfx_err *err);
void rfx_svmexp_data_release(struct rfx_svmexp_data *D);

/*
 * The same from the user's rows (svm-classify --dataset FILE, issue 16):
 * X (n x d0, copied) with classes y in 0..nclass-1, shuffled by stream
 * (seed, 0x53564d3000 + id, 0, 0) and split 80% train / 20% test (the
 * letter split's proportions), then padded, cut and given a bandwidth as
 * rfx_svmexp_load does (id stands for the dataset index in its streams).
 * RFX_EINVAL for fewer than 5 rows, RFX_ENOMEM.
 */
int rfx_svmexp_from(const char *name, int id, const double *X, const int *y,
		    size_t n, int d0, int nclass, size_t max_train,
		    size_t max_test, int nn_k, size_t nn_sample, uint64_t seed,
		    struct rfx_svmexp_data *out, struct rfx_err *err);

/* Method name (RFF, ORF, SORF, case-insensitive) to its projection. */
int rfx_svmexp_method_parse(const char *name, enum rfx_proj *out,
			    struct rfx_err *err);
/* "RFF", "ORF" or "SORF" for iid, ort, sorf; "?" otherwise. */
const char *rfx_svmexp_method_name(enum rfx_proj p);

struct rfx_svmexp_config {
	const struct rfx_svmexp_data *data;
	int nratio;
	const int *ratio;          /* D/d, each >= 1 */
	int nmethods;
	const enum rfx_proj *proj; /* iid, ort or sorf */
	int seeds;                 /* draws averaged per cell, >= 1 */
	struct rfx_svm_params svm; /* C, B, eps, max_iter */
	uint64_t seed;
	size_t max_bytes;          /* refuse a cell whose float training
				    * features exceed this (0: no limit) */
	/* Called after each finished draw; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

/* One row per (ratio, method). Accuracies in percent. */
struct rfx_svmexp_row {
	char dataset[16];
	int d;                  /* padded dimension */
	int ratio;              /* D/d */
	int D;                  /* projections (2D features) */
	char method[8];         /* RFF, ORF, SORF */
	char projection[16];    /* iid, ort, sorf */
	double sigma;
	double C;
	long n_train, n_test;
	int seeds;
	double acc_pct;         /* mean test accuracy over the draws */
	double acc_pct_sd;      /* its standard deviation (n - 1) */
	int unconverged;        /* binary SVMs that hit max_iter, all draws */
	int max_epochs;         /* the most epochs a binary SVM took */
};

extern const struct rfx_schema rfx_svmexp_schema;

/*
 * RFX_EINVAL (before any work) when a cell's training features would
 * exceed c->max_bytes, naming the dataset and D; else RFX_OK. Also checks
 * the ratios, seeds and SVM parameters.
 */
int rfx_svmexp_plan(const struct rfx_svmexp_config *c, struct rfx_err *err);

/*
 * Runs every (ratio, method) cell of c: rows gets nratio * nmethods rows,
 * ratio-major. Errors: those of the projections, the SVM, RFX_ENOMEM, and
 * RFX_EINTR when cancelled (lib/base/cancel.h).
 */
int rfx_svmexp_run(const struct rfx_svmexp_config *c,
		   struct rfx_svmexp_row *rows, struct rfx_err *err);

/*
 * C by validation, per dataset: the training rows split into their first
 * 80% (fit) and last 20% (validation); for each of the ngrid values of
 * grid, RFF (iid) features at D = c->ratio[0] d, draw 0 (the same stream
 * as the run's first draw), trained on the fit rows and scored on the
 * validation rows. *best gets the C of the highest validation accuracy
 * (the smallest such C on ties), val (ngrid entries) the accuracies in
 * percent. The test rows are never seen. Errors as rfx_svmexp_run, and
 * RFX_EINVAL for an empty grid or fewer than 10 training rows.
 */
int rfx_svmexp_pick_cost(const struct rfx_svmexp_config *c, const double *grid,
			 int ngrid, double *best, double *val,
			 struct rfx_err *err);

/* One row per (dataset, C) of the validation. */
struct rfx_svmexp_cost_row {
	char dataset[16];
	int D;                  /* projections of the validation features */
	double C;
	long n_fit, n_val;
	double val_pct;         /* validation accuracy */
	int chosen;             /* 1 for the C the run used */
};

extern const struct rfx_schema rfx_svmexp_cost_schema;

#endif

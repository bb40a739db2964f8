/*
 * MSE tables: the mean squared error of kernel estimators on pairs of
 * dataset inputs, for HRF Table 1 (the softmax kernel on wine and Boston)
 * and the ORF paper's Figs 4 and 5c (the Gaussian kernel against D/d on
 * letter, USPS, MNIST and the UCI sets); and the distribution of
 * z = |x - y| / sigma over the same datasets' pairs (ORF Fig 2(c), at the
 * end).
 *
 * A run has datasets (normalised and padded by the caller, lib/data/dataset.h),
 * methods (an estimator of the registry on a projection kind of
 * lib/proj/proj.h, under a label such as "HRF-ort") and budgets. A cell is one
 * (dataset, method, budget); it gives one row. For each of R repetitions
 * the cell samples P pairs (x_i, x_j), i != j uniform, scales them by
 * 1/sigma, fits the method to the two sets of P inputs, draws S estimators
 * and evaluates each on every pair; the repetition's MSE is the mean over
 * the P S squared errors
 *   Gaussian  (K^ - K)^2,              K = exp(-|x - y|^2/(2 sigma^2)),
 *   softmax   (SM^ - SM)^2 = e^{|x|^2 + |y|^2} (K^ - K)^2 (HRF eq. 1),
 *             SM = exp(x.y/sigma^2), for the scaled inputs.
 * The row has the mean, standard deviation and standard error over the R
 * repetitions' MSEs, and beside them the closed-form MSE (the variance:
 * the estimators are unbiased) of the same estimator on iid projections,
 * averaged over the same pairs: for iid rows the two agree within the
 * standard error, for the other projections their ratio is the gain.
 *
 * Budgets: a budget B is the number of features of the baseline (TrigRF
 * by default); every method is FLOP-matched to the baseline's B-feature
 * map (lib/eval/cost.h), so TrigRF gets M = B on any projection and the
 * angular hybrid the m = n whose map costs no more (HRF Table 1: "set up
 * to match the non-HRFs in terms of the number of FLOPS"); without
 * matching every method gets M = B in its own unit (hybrids m1 = B,
 * m3 = 1 unless given). B is given directly (--features) or as a multiple
 * of the dimension, B = ratio d (the ORF paper's D/d).
 *
 * Randomness, so that a row depends only on its cell, repetition and the
 * seed, never on the thread count or the other methods of the run: the
 * pairs of (dataset, repetition) come from the stream keyed ("mse-table",
 * "pairs", dataset name, rep), shared by every method and budget (common
 * random numbers); the draws of a cell's repetition from the stream keyed
 * ("mse-table", "draws", dataset, estimator and projection names, rep, B)
 * (lib/base/rng.h). Entries of the same dataset (the bandwidths of
 * --sigma-scale, the normalisations of --norm) therefore share pairs and
 * draws.
 *
 * TrigRF's budgets share draws as well (common random numbers across
 * budgets): each repetition draws the largest budget Bmax's projections
 * from Bmax's stream, and budget M < Bmax uses their first M columns (each
 * projection kind draws M columns as a prefix of the M' > M it would draw,
 * lib/proj/proj.h). So TrigRF's row at Bmax is the one it would be alone, and
 * its other rows depend on Bmax too. One draw, one product and one pass of
 * cosines then serve every budget and bandwidth: for the ORF paper's
 * budgets D/d = 1, 2, 4, 6, 8, 10 that is 10 d projections per
 * repetition instead of 31 d (and at d = 1024, 10 QR factorisations of
 * 1024 x 1024 blocks instead of 31). Every row is still an average over
 * independent repetitions, so its standard error holds; neighbouring
 * rows' errors are correlated, which smooths the curves against D/d.
 *
 * Valid range: the softmax kernel needs |x|^2/sigma^2 <= RFX_MSE_SM_MAX2
 * for every input (so SM <= e^100 and squared errors stay in double
 * range); an estimate whose squared error overflows is RFX_ENUMERIC.
 */
#ifndef RFX_MSETABLE_H
#define RFX_MSETABLE_H

#include <stddef.h>
#include <stdint.h>

#include "data/dataset.h"
#include "data/matrix.h"
#include "base/err.h"
#include "est/estimator.h"
#include "proj/proj.h"
#include "io/table.h"

#define RFX_MSE_SM_MAX2 100.0
#define RFX_MSE_LABEL_LEN 32

enum rfx_mse_kernel { RFX_MSE_GAUSS, RFX_MSE_SOFTMAX };

/* One method: an estimator on a projection kind, under a label. */
struct rfx_mse_method {
	char label[RFX_MSE_LABEL_LEN];      /* "HRF-ort", or "ang:ort" */
	const struct rfx_estimator_type *e;
	enum rfx_proj proj;
	const struct rfx_params *base;      /* given parameters or NULL; borrowed;
					       vector ones (c, a) only for its d */
};

/*
 * Parses "[LABEL=]ESTIMATOR[:PROJECTION]" (projection iid when left out,
 * label "ESTIMATOR:PROJECTION"), e.g. "HRF-ort=ang:ort" or "trig:sorf".
 * m->base is left alone. RFX_EINVAL naming what is wrong.
 */
int rfx_mse_method_parse(const char *spec, struct rfx_mse_method *m,
			 struct rfx_err *err);

/* One dataset as the run uses it. */
struct rfx_mse_data {
	const struct rfx_dataset *ds; /* normalised, padded; borrowed */
	const char *norm;             /* the normalisation's name, for the rows */
	double sigma;                 /* inputs are used as x / sigma */
	int id;                       /* entries of one ds and id are run together */
	char key[24];                 /* streams' name for the data: "" for the
				       * catalogue name, "rows-<hash>" for a
				       * user's file (its rows, not its name) */
};

/*
 * The inputs of a table: every dataset under every normalisation (one
 * copy each, optionally zero-padded to a power-of-2 dimension), with its
 * bandwidth times every factor. The datasets are loaded from dir.
 */
struct rfx_mse_inputs_config {
	int ndatasets;
	const char *const *datasets;  /* catalogue names (lib/data/dataset.h),
					 or the names of files[k] */
	const struct rfx_matrix *const *files; /* NULL, or per dataset the
					 user's rows already loaded (NULL for a
					 catalogue name); stream id 100 + k */
	int nnorms;
	const enum rfx_norm *norms;
	int nscales;
	const double *scales;         /* bandwidth factors, > 0 */
	int pad_pow2;                 /* zero-pad d to the next power of 2 */
	double sigma;                 /* > 0: the bandwidth; 0: nearest
					 neighbours (nn_k, nn_sample) */
	int sigma_attention;          /* the bandwidth d^(1/4), so that
					 x.y / sigma^2 = x.y / sqrt(d) */
	int nn_k;
	size_t nn_sample;
	uint64_t seed;                /* nn's sample: stream (seed, 3000 + id) */
	const char *dir;              /* data directory */
};

/* The loaded inputs: ndata entries in data, owning the copies. */
struct rfx_mse_inputs {
	int ndata, nowned;
	struct rfx_mse_data *data;
	struct rfx_dataset **owned;
};

/*
 * Loads and prepares c's inputs into in (zeroed here). Entries for the
 * factors of one dataset and normalisation share its inputs and random
 * streams (the id), so that the factors compare on common random
 * numbers. Errors: RFX_EIO/RFX_EFORMAT for a file, RFX_ENOMEM, RFX_EINVAL
 * for a bandwidth that cannot be estimated; in is released on failure.
 */
int rfx_mse_inputs_load(const struct rfx_mse_inputs_config *c,
			struct rfx_mse_inputs *in, struct rfx_err *err);

/* Frees what rfx_mse_inputs_load allocated; in may be zeroed. */
void rfx_mse_inputs_release(struct rfx_mse_inputs *in);

struct rfx_mse_config {
	enum rfx_mse_kernel kernel;
	int ndata;
	const struct rfx_mse_data *data;
	int nmethods;
	const struct rfx_mse_method *methods;
	int nbudget;
	const int *features;  /* budgets B, or NULL to use ratio */
	const double *ratio;  /* B = round(ratio d) per dataset */
	int match;            /* 1: FLOP-match to the baseline's B-feature map */
	const struct rfx_estimator_type *baseline; /* NULL: trig */
	long pairs;           /* P, pairs per repetition */
	long draws;           /* S, estimators per repetition */
	long reps;            /* R, repetitions (>= 2) */
	uint64_t seed;
	/* Called after each finished cell, serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

struct rfx_mse_row {
	char dataset[16];
	char norm[16];
	char method[RFX_MSE_LABEL_LEN];
	char estimator[16];
	char projection[16];
	int d;             /* input dimension (after padding) */
	int B;             /* the budget: baseline features */
	double ratio;      /* B / d */
	int M, m1, m3;     /* the method's budget and hybrid counts */
	double flops;      /* cost of its map for one input (lib/eval/cost.h) */
	double sigma;
	long pairs, draws, reps;
	double kernel_mean;/* mean true kernel value over all pairs */
	double mse;        /* mean over repetitions of the MSE */
	double mse_sd;     /* their standard deviation */
	double mse_se;     /* mse_sd / sqrt(R) */
	double mse_iid;    /* the closed-form MSE of the same estimator on iid
			      projections, averaged over the same pairs */
};

extern const struct rfx_schema rfx_mse_schema;

/* Rows of a run: ndata x nmethods x nbudget, in that nesting order. */
size_t rfx_mse_nrows(const struct rfx_mse_config *c);

/*
 * Budgets of every cell before any work: fills the identification columns
 * of rows (dataset .. flops, sigma and the counts) and reports
 * configurations that cannot run (a budget no map fits, a projection the
 * dimension does not allow, inputs outside the valid range) as
 * RFX_EINVAL. rfx_mse_run calls it; callers use it to fail early.
 */
int rfx_mse_plan(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		 struct rfx_err *err);

/*
 * Runs every cell into rows (rfx_mse_nrows of them): rfx_mse_plan, then
 * rfx_mse_execute. RFX_EINVAL as rfx_mse_plan, RFX_ENOMEM, RFX_ENUMERIC,
 * RFX_EINTR when cancelled.
 */
int rfx_mse_run(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		struct rfx_err *err);

/* The second half of rfx_mse_run, for rows rfx_mse_plan has filled. */
int rfx_mse_execute(const struct rfx_mse_config *c, struct rfx_mse_row *rows,
		    struct rfx_err *err);

/*
 * ORF Fig 2(c): the distribution of z = |x - y| / sigma over pairs of a
 * dataset's inputs, at the bandwidth of the MSE tables' entries (data, as
 * rfx_mse_inputs_load prepares them; by default ORF sec. 5's rule, the
 * mean distance to the 50th nearest neighbour). Per entry, P pairs
 * (x_i, x_j) drawn as the tables draw theirs, i uniform and j uniform
 * among the others (so uniform over the unordered pairs of distinct
 * inputs), from the stream keyed ("mse-table", "zhist", the data's key),
 * and z counted into nbins bins of width z_max / nbins covering
 * [0, z_max); a z >= z_max counts in P only. One row per bin:
 *   count    pairs with z_lo <= z < z_hi
 *   density  count / (P (z_hi - z_lo)): "the count is normalized such
 *            that the area under curve for each dataset is 1" (Fig 2(c)'s
 *            caption); the bins' area is the fraction of pairs below z_max
 *   cdf      the fraction of the P pairs with z < z_hi
 * Distances are computed directly (sum of squared differences), in
 * parallel over the pairs of a chunk; counts do not depend on the thread
 * count.
 */
struct rfx_mse_zhist_config {
	int ndata;
	const struct rfx_mse_data *data;
	long pairs;          /* P, >= 1 */
	int nbins;           /* >= 1 */
	double z_max;        /* > 0 */
	uint64_t seed;
	/* Called after each finished entry, serialised; may be NULL. */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
};

struct rfx_mse_zhist_row {
	char dataset[16];
	char norm[16];
	int d;             /* input dimension (after padding) */
	double sigma;
	long pairs;        /* P */
	double z_lo, z_hi; /* the bin [z_lo, z_hi) */
	long count;
	double density;
	double cdf;
};

extern const struct rfx_schema rfx_mse_zhist_schema;

/* Rows of a run: ndata x nbins, bins within each entry. */
size_t rfx_mse_zhist_nrows(const struct rfx_mse_zhist_config *c);

/*
 * Fills rows (rfx_mse_zhist_nrows of them). RFX_EINVAL for a bad
 * configuration or an entry with fewer than 2 inputs (before any work),
 * RFX_ENOMEM, RFX_EINTR when cancelled.
 */
int rfx_mse_zhist_run(const struct rfx_mse_zhist_config *c,
		      struct rfx_mse_zhist_row *rows, struct rfx_err *err);

#endif

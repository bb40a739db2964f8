/*
 * Linear support vector machines for classifying random features (the ORF
 * paper's Table 2): the L2-regularised hinge-loss SVM
 *
 *   min_w  1/2 |w|^2 + C sum_i max(0, 1 - y_i w . x~_i),  y_i in {-1, +1},
 *
 * with x~_i = [x_i, B]: the bias is the weight of an extra constant
 * feature B (regularised like the others, as LIBLINEAR's -B does). It is
 * trained by dual coordinate descent (Hsieh, Chang, Lin, Keerthi and
 * Sundararajan, "A dual coordinate descent method for large-scale linear
 * SVM", ICML 2008, Algorithm 1): the dual
 *
 *   min_a  f(a) = 1/2 a' Q a - sum_i a_i,  0 <= a_i <= C,
 *   Q_ij = y_i y_j x~_i . x~_j,
 *
 * is minimised one coordinate at a time in closed form while w = sum_i
 * y_i a_i x~_i is kept up to date, so a step costs one pass over x_i.
 * Each epoch visits the coordinates in a fresh random order drawn from the
 * generator passed in, so a run is reproducible. It stops when the spread
 * of the projected gradients over an epoch, max PG - min PG, falls to eps
 * (the paper's sec. 3.2 criterion, with 0 counted among them so that it
 * also bounds max |PG|), or after max_iter epochs.
 *
 * Multi-class problems are one-vs-rest: class k against the others, and a
 * point goes to the class of largest w_k . x~ (the lowest index on ties).
 *
 * Inputs are float, n x d row-major: random-feature matrices are large
 * (mnist at D = 10d has 8000 x 20480 entries) and single precision halves
 * them; every dot product accumulates in double.
 */
#ifndef RFX_SVM_H
#define RFX_SVM_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "base/rng.h"

struct rfx_svm_params {
	double C;      /* cost of a margin violation, > 0 */
	double bias;   /* B, the constant feature (0: no bias term) */
	double eps;    /* stop when max PG - min PG <= eps, > 0 (LIBLINEAR: 0.1) */
	int max_iter;  /* epochs at most, >= 1 */
};

/* C = 1, B = 1, eps = 0.1, max_iter = 1000 (LIBLINEAR's defaults). */
void rfx_svm_params_init(struct rfx_svm_params *p);

/* What one binary training did. */
struct rfx_svm_stats {
	int epochs;     /* epochs run */
	int converged;  /* 1 if the tolerance was met within max_iter */
};

/* Scratch space for n points: the dual variables, Q_ii, the visit order. */
struct rfx_svm_ws;

/* NULL when out of memory (or n = 0). */
struct rfx_svm_ws *rfx_svm_ws_alloc(size_t n);
void rfx_svm_ws_free(struct rfx_svm_ws *ws);

/*
 * The dual variables a_0..a_{n-1} of the last training with ws (borrowed;
 * valid until the next training or the free).
 */
const double *rfx_svm_ws_alpha(const struct rfx_svm_ws *ws);

/*
 * Trains the binary SVM on the n points X (n x d float) with labels y
 * (each +1 or -1), writing w (d + 1 entries: w[d] multiplies B). ws must
 * hold n points. stats may be NULL. Errors: RFX_EINVAL for n = 0, d < 1,
 * a missing argument, a workspace too small, C, eps or B not finite or C,
 * eps <= 0, max_iter < 1, a label other than +-1, or a non-finite feature
 * (the message names the row and column). Not converging within max_iter
 * is not an error: stats says so.
 */
int rfx_svm_train(const gsl_rng *r, const float *X, size_t n, int d,
		  const int *y, const struct rfx_svm_params *p, double *w,
		  struct rfx_svm_ws *ws, struct rfx_svm_stats *stats,
		  struct rfx_err *err);

/*
 * One-vs-rest on labels y in 0..K-1 (K >= 2): W becomes K x (d + 1), row
 * k the binary SVM of class k against the rest, trained with the
 * generator of stream key with j = k (lib/base/rng.h). Classes run in
 * parallel over the OpenMP threads; each is sequential, so W does not
 * depend on the thread count. stats (K entries) may be NULL. Errors as
 * rfx_svm_train, plus RFX_EINVAL for K < 2 or a label out of range,
 * RFX_ENOMEM.
 */
int rfx_svm_train_ovr(const float *X, size_t n, int d, const int *y, int K,
		      const struct rfx_svm_params *p, uint64_t seed,
		      const struct rfx_rng_key *key, double *W,
		      struct rfx_svm_stats *stats, struct rfx_err *err);

/*
 * The class of each of the n points X (n x d float) under W (K x (d + 1),
 * bias feature B): argmax_k W_k . [x, B], the lowest k on ties.
 */
void rfx_svm_predict(const double *W, int K, int d, double B, const float *X,
		     size_t n, int *out);

/*
 * The arithmetic of a coordinate step in one instruction set, for the
 * tests and benchmarks: dot returns w . x (d entries, the four partial
 * sums of svm.c), dot2 returns w . x and sets *wz = w . z, axpy does
 * w += u x, axpy_dot does w += u x and returns the new w . z. Each also
 * prefetches the d floats at pf (and pf2; a hint, they may equal x).
 * Every kernel gives the same bits as "scalar".
 */
struct rfx_svm_kernel {
	const char *name;
	double (*dot)(const double *w, const float *x, int d, const float *pf);
	double (*dot2)(const double *w, const float *x, const float *z, int d,
		       double *wz, const float *pf, const float *pf2);
	void (*axpy)(double *w, double u, const float *x, int d,
		     const float *pf);
	double (*axpy_dot)(double *w, double u, const float *x, const float *z,
			   int d, const float *pf);
};

/* The name of the kernel in use: "scalar" or "avx2". */
const char *rfx_svm_kernel_name(void);

/*
 * Sets *k to the kernel called name. RFX_EINVAL when the name is unknown
 * or this build or CPU lacks the kernel.
 */
int rfx_svm_kernel_find(const char *name, struct rfx_svm_kernel *k,
			struct rfx_err *err);

#endif

/*
 * rfx.h: the public C interface of librfx, the only header make install
 * puts in PREFIX/include.
 *
 * librfx evaluates random-feature estimators of the Gaussian kernel
 * K(x, y) = exp(-|x - y|^2 / 2) and of the softmax kernel
 * SM(x, y) = exp(x . y) = e^{|x|^2/2} e^{|y|^2/2} K(x, y): it lists them,
 * fits their parameters to data, draws their random projections from a
 * seed (the streams of the rfx command, so that the same seed gives the
 * same features as `rfx features`), computes their feature matrices and
 * their closed-form variances. Build against it with
 *
 *   cc prog.c $(pkg-config --cflags --libs rfx)
 *
 * Conventions, the same as the rest of rfx:
 * - A call that can fail returns RFX_OK (0) or an enum rfx_status code and
 *   takes a struct rfx_err * last, which gets a one-line lowercase message
 *   (problem first, subject quoted). err may be NULL. Nothing prints,
 *   exits or aborts. GSL's default error handler, which prints and
 *   aborts, is turned off at the first rfx_model_alloc or rfx_kernel_log
 *   unless the program has set a handler of its own.
 * - An allocator returns NULL on failure, with the reason in err.
 * - Handles are opaque. One handle must not be used by two threads at
 *   once; separate handles may be used from separate threads at the same
 *   time (the library parallelises each call with OpenMP by itself).
 * - Matrices are row-major doubles, one input per row: X is n x d.
 *
 * Notation (thesis ch. 2 and 6): d input dimension, M the estimator's
 * budget of random features in its own unit (complex features for TrigRF,
 * projections for PosRF and OPRF, the whole structure for the hybrids).
 */
#ifndef RFX_PUBLIC_H
#define RFX_PUBLIC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Status codes and the error record. librfx's own sources define the same
 * ones in lib/base/err.h; the guard keeps one definition when the library
 * itself includes both, and tests/t_rfx_err.c checks that the two agree.
 */
#ifndef RFX_ERR_H
enum rfx_status {
	RFX_OK = 0,
	RFX_EINVAL,   /* an argument or parameter is out of its valid range */
	RFX_ENOMEM,   /* an allocation failed */
	RFX_EIO,      /* a file could not be opened, read or written */
	RFX_EFORMAT,  /* a data file is malformed */
	RFX_ENUMERIC, /* a numerical routine failed to converge */
	RFX_EINTR     /* interrupted by a signal */
};

#define RFX_ERR_MSG_MAX 512

struct rfx_err {
	int code;                   /* last status reported, RFX_OK if none */
	char msg[RFX_ERR_MSG_MAX];  /* its message */
};

/* Resets err to "no error". err may be NULL. */
void rfx_err_clear(struct rfx_err *err);
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (also rfx.pc's). */
const char *rfx_version(void);

/*
 * Estimators. The handles are static: never freed, valid for the life of
 * the process.
 */
struct rfx_estimator_type;

/* Flags of rfx_estimator_flags (the same bits as `rfx help estimators`). */
#define RFX_ESTIMATOR_POSITIVE 0x01u /* features, hence estimates, are > 0 */
#define RFX_ESTIMATOR_COMPLEX  0x02u /* complex features (real output: 2 per feature) */
#define RFX_ESTIMATOR_DISCRETE 0x04u /* discrete randomness: projection must be "iid" */
#define RFX_ESTIMATOR_SHIFTED  0x08u /* acts on x - c, y - c (parameter c) */
#define RFX_ESTIMATOR_PAIRED   0x20u /* two real features per unit of M */

/* The i-th estimator (0-based), NULL past the last. */
const struct rfx_estimator_type *rfx_estimator_at(int i);

/*
 * The estimator named name ("trig", "pos", "oprf", ...); NULL and
 * RFX_EINVAL, the message listing every valid name, for an unknown one.
 */
const struct rfx_estimator_type *rfx_estimator_find(const char *name,
						    struct rfx_err *err);

/* Its name ("oprf"), its title in the papers ("OPRF, FAVOR++ (...)"), flags. */
const char *rfx_estimator_name(const struct rfx_estimator_type *e);
const char *rfx_estimator_title(const struct rfx_estimator_type *e);
unsigned rfx_estimator_flags(const struct rfx_estimator_type *e);

/*
 * The names of its parameters, comma-separated ("A,t"; "" for none), into
 * buf (size n, truncated); returns the full length.
 */
size_t rfx_estimator_params(const struct rfx_estimator_type *e, char *buf,
			    size_t n);

/* The i-th projection kind ("iid", "ort", "sorf", ...), NULL past the last. */
const char *rfx_projection_at(int i);

/*
 * A feature map: one estimator with its parameters, budget M, projection
 * kind and kernel, and (after rfx_model_draw) one draw of its randomness.
 * Use: alloc, optionally set parameters, fit, draw, then features and
 * log_variance as often as wanted.
 */
struct rfx_model;

/*
 * Allocates a model of estimator method (a name of rfx_estimator_find) for
 * inputs of dimension d >= 1 and budget n_features = M >= 1, drawing
 * projections of kind projection (NULL for "iid"; discrete estimators take
 * "iid" only), for kernel "gauss" (NULL) or "softmax". NULL with
 * RFX_EINVAL naming the argument, or RFX_ENOMEM. Free with rfx_model_free.
 */
struct rfx_model *rfx_model_alloc(const char *method, int d, int n_features,
				  const char *projection, const char *kernel,
				  struct rfx_err *err);

/* Frees m; NULL is a no-op. */
void rfx_model_free(struct rfx_model *m);

/*
 * Fixes one parameter, "NAME=VALUE" as on rfx's command line ("A=-0.1",
 * "t=1", "c=0.1,0.2,..." with d entries; A of GERF may be "re,im"): fit
 * then keeps it. RFX_EINVAL for an unknown name or a bad value. Discards
 * any draw (the draw may depend on the parameters).
 */
int rfx_model_set_param(struct rfx_model *m, const char *assignment,
			struct rfx_err *err);

/*
 * Fits the parameters not fixed by rfx_model_set_param to the sets X
 * (nx x d) and Y (ny x d), as the rfx commands do (thesis eqs.
 * 6.14-6.20); Y = X for one set. Inputs must be finite with every
 * |coordinate| <= 1e75 (RFX_EINVAL otherwise). Discards any draw.
 */
int rfx_model_fit(struct rfx_model *m, const double *X, size_t nx,
		  const double *Y, size_t ny, struct rfx_err *err);

/*
 * The parameters as "A=-0.0312;t=1" ("-" when there are none), in the
 * shortest form that parses back to the same values, into buf (size n,
 * truncated); returns the full length. Before the fit, unfixed ones show
 * their defaults.
 */
size_t rfx_model_params(const struct rfx_model *m, char *buf, size_t n);

/*
 * Draws the model's randomness from seed, from the stream that
 * `rfx features --seed SEED` uses. Like every stream of rfx, it is keyed
 * by names: the seed, the estimator's name (an alias draws what its name
 * draws) and the projection kind, so the draws of a seed never depend on
 * the registry's order or the thread count. Needs a fit (RFX_EINVAL
 * otherwise).
 */
int rfx_model_draw(struct rfx_model *m, unsigned long long seed,
		   struct rfx_err *err);

/*
 * Real feature columns per input: twice the complex features of a complex
 * estimator, otherwise the feature count. Depends on the parameters for
 * the hybrids: valid after the fit; 0 before.
 */
int rfx_model_dim(const struct rfx_model *m);

/*
 * The real feature matrix of the n inputs X (n x d) into out
 * (n x rfx_model_dim, row-major), side 1 for the x's of K(x, y) and 2 for
 * the y's, so that the dot product of row i of side 1's and row k of side
 * 2's is the estimate of K(x_i, y_k) (of SM for kernel "softmax"). A
 * complex feature Phi becomes [Re Phi, Im Phi] on side 1 and
 * [Re Phi, -Im Phi] on side 2, all real parts first. Symmetric estimators
 * give the same map on both sides; a complex estimator whose features
 * are real for its parameters (GERF with real A, t = 1) has zero
 * imaginary columns, so the width depends on the estimator only. Features
 * beyond double range become 0 or +-inf (e^{w.x - |x|^2} underflows for
 * |x|^2 above ~750); rfx_model_features_log keeps them.
 * Needs a draw; RFX_EINVAL for side not 1 or 2 or inputs out of range
 * (naming the first bad entry in row order). On an error the contents of
 * out are unspecified: the inputs are checked as they are mapped, so rows
 * before a bad one may have been written. The values do not depend on
 * the number of threads. Outputs of 16 MiB or more are written with
 * streaming stores (the same values; they skip the caches).
 */
int rfx_model_features(const struct rfx_model *m, int side, const double *X,
		       size_t n, double *out, struct rfx_err *err);

/* The same in single precision (each value rounded once from double). */
int rfx_model_features_f32(const struct rfx_model *m, int side,
			   const double *X, size_t n, float *out,
			   struct rfx_err *err);

/*
 * The float32 path: float inputs X (n x d, finite), float features out
 * (n x rfx_model_dim), side as above. For the estimators with a float32
 * map (rfx_model_float_native: trig, pos, oprf, sderf, aderf, saderf)
 * everything runs in single precision, as attention code uses it: the
 * projections are the draw's (same seed, same draw) rounded to float
 * once, the product and the cos, sin and exp are float, each row keeps a
 * double scale, and out = feature x scale rounded to float (0 or +-inf
 * beyond float range). About twice as fast as rfx_model_features; each
 * feature is within about (d + 2) 2^-24 sum_l |w_l x_l| (relative, for
 * the positive maps, plus the same for |x|^2) of the float64 map's
 * (docs/ATTENTION.md, "float32 feature maps"). For the other estimators
 * the inputs are widened to double and the float64 features rounded once
 * (rfx_model_features_f32). The values do not depend on the number of
 * threads.
 */
int rfx_model_features_float(const struct rfx_model *m, int side,
			     const float *X, size_t n, float *out,
			     struct rfx_err *err);

/* 1 when m's estimator has a float32 map (see above), else 0. */
int rfx_model_float_native(const struct rfx_model *m);

/*
 * The same without overflow: out gets the features divided by e^{lscale_i}
 * (entries of modulus at most 1) and lscale (n entries) the per-row log
 * scales, so the feature is out[i, j] e^{lscale[i]}.
 */
int rfx_model_features_log(const struct rfx_model *m, int side,
			   const double *X, size_t n, double *out,
			   double *lscale, struct rfx_err *err);

/*
 * log Var of the model's M-feature estimate of the kernel for every pair
 * (x_i, y_k) of X (nx x d) and Y (ny x d) into out (nx x ny, pair (i, k)
 * at i * ny + k), with i.i.d. projections, in closed form; -inf where the
 * variance is 0. Needs a fit, not a draw.
 */
int rfx_model_log_variance(const struct rfx_model *m, const double *X,
			   size_t nx, const double *Y, size_t ny, double *out,
			   struct rfx_err *err);

/*
 * log K(x_i, y_k) of kernel "gauss" or "softmax" for every pair of X
 * (nx x d) and Y (ny x d) into out (nx x ny), exactly.
 */
int rfx_kernel_log(const char *kernel, const double *X, size_t nx,
		   const double *Y, size_t ny, int d, double *out,
		   struct rfx_err *err);

#ifdef __cplusplus
}
#endif

#endif

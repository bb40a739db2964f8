/*
 * The estimator registry: every random-feature estimator of a kernel that
 * rfx knows, behind one interface (after GSL's gsl_rng_type).
 *
 * An estimator is a const struct rfx_estimator_type in its own file
 * lib/est_<name>.c, declared below and listed once in the registry of
 * lib/est/estimator.c. It knows its CLI name, whether its
 * features are positive and whether they are complex, how to fit its
 * parameters from two input sets (thesis eqs. 6.14-6.20), its closed-form
 * variance for every pair of a block (in logs), how to draw its randomness
 * and how to compute its feature maps.
 *
 * Notation (thesis ch. 2 and 6): inputs x, y in R^d; M random features;
 * the M-feature estimator is Re(x^T y) of eq. 2.5 and its variance is that
 * of one feature divided by M for independent features.
 */
#ifndef RFX_ESTIMATOR_H
#define RFX_ESTIMATOR_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

#include "num/block.h"
#include "base/err.h"
#include "est/featmap.h"
#include "est/featmap32.h"
#include "proj/proj.h"

/* Estimator properties (struct rfx_estimator_type.flags). */
/* The description of a result table's method column (io/table.h). */
#define RFX_DESC_METHOD "estimator name from the registry (rfx help estimators)"

#define RFX_EST_POSITIVE 0x01u /* features, hence estimates, are > 0 */
#define RFX_EST_COMPLEX  0x02u /* complex features: one counts as two real */
#define RFX_EST_DISCRETE 0x04u /* omega is discrete: --projection n/a */
#define RFX_EST_SHIFTED  0x08u /* acts on x - c, y - c (param c) */
#define RFX_EST_X2Y2     0x10u /* log_variance reads block->x2y2 */
#define RFX_EST_PAIRED   0x20u /* two real features per unit of M (HRF's ++) */

/* Kernels an estimator estimates (struct rfx_estimator_type.kernels). */
#define RFX_EST_GAUSS 0x1u   /* K(x, y) = exp(-|x - y|^2 / 2) */
#define RFX_EST_SOFTMAX 0x2u /* SM(x, y) = exp(x.y) = exp(|x|^2/2 + |y|^2/2) K */

/* Parameters an estimator may have; bit RFX_P(id) in a mask. */
enum rfx_param {
	RFX_PARAM_A,      /* GERF/OPRF A (6.11); complex for GERF */
	RFX_PARAM_T,      /* GERF t in {-1, +1} */
	RFX_PARAM_LAMBDA, /* PoisRF rate lambda > 0 */
	RFX_PARAM_Q,      /* GeomRF 0 < q < 1 */
	RFX_PARAM_C,      /* shift vector c (d entries) of PoisRF+/GeomRF+ */
	RFX_PARAM_M1,     /* HybRF M1 = M2, features per base estimator */
	RFX_PARAM_M3,     /* HybRF M3, angular features */
	RFX_PARAM_SIGMA,  /* Gaussian hybrid bandwidth sigma > 0 */
	RFX_PARAM_RHO,    /* Gaussian hybrid normaliser 0 < rho <= 1 */
	RFX_PARAM_DIAG,   /* complex exponential: diagonal of A, d complex */
	RFX_PARAM_COUNT
};
#define RFX_P(id) (1u << (id))

struct rfx_params {
	int d;           /* dimension the parameters are for */
	double A_re;     /* Re A */
	double A_im;     /* Im A */
	int t;           /* -1 or +1 */
	double lambda;   /* Poisson rate */
	double q;        /* geometric parameter */
	double *c;       /* shift, d entries, owned; NULL until set */
	int m1, m3;      /* hybrid feature counts */
	double sigma;    /* Gaussian hybrid bandwidth */
	double rho;      /* Gaussian hybrid normaliser */
	double *a_re;    /* diagonal of A (complex exponential), d entries, owned */
	double *a_im;    /* its imaginary parts, d entries, owned */
	double *dense;   /* DERFs (lib/est/derf.h): a, B1, B2, d + 2 d^2, owned */
	unsigned given;  /* RFX_P() bits of values the user fixed: fit keeps them */
};

struct rfx_estimator_type {
	const char *name;    /* CLI name, e.g. "oprf" */
	const char *title;   /* name in the papers with its source, e.g.
				"OPRF, FAVOR++ (thesis Theorem 15)" */
	/*
	 * Other names a method list accepts for it, comma-separated, in
	 * lowercase (lookups ignore case): the papers' own names, each with
	 * its source in a comment beside it. NULL or "" for none.
	 */
	const char *aliases;
	unsigned kernels;    /* RFX_EST_GAUSS | RFX_EST_SOFTMAX it estimates */
	/* How fit chooses the parameters not given ("closed form rho*"). */
	const char *fit_note;
	unsigned flags;      /* RFX_EST_* */
	unsigned params;     /* RFX_P() mask of the parameters it has */

	/*
	 * Fits the parameters not in p->given from X (nx x d) and Y (ny x d)
	 * for an M-feature estimator and validates all of them. A pair is
	 * nx = ny = 1.
	 */
	int (*fit)(struct rfx_params *p, const double *X, size_t nx,
		   const double *Y, size_t ny, int M, struct rfx_err *err);

	/*
	 * Every hook below takes the same budget M as fit (the number of
	 * features in the estimator's own unit: complex features for TrigRF,
	 * projections for PosRF, the whole structure for the hybrids, see
	 * features_used); how many feature columns that makes is feature_dim.
	 *
	 * Writes log Var of the M-feature estimator (iid projections) for every
	 * pair of block b into out (b->nx * b->ny entries, pair (i, j) at
	 * i * ny + j); -inf where the variance is exactly zero. b is computed
	 * on shifted inputs for RFX_EST_SHIFTED estimators and with x2y2 for
	 * RFX_EST_X2Y2 ones (rfx_estimator_block does both).
	 */
	int (*log_variance)(const struct rfx_params *p, const struct rfx_block *b,
			    int M, double *out, struct rfx_err *err);

	/* Number of features actually used for a budget of M (NULL: M). */
	int (*features_used)(const struct rfx_params *p, int M);

	/*
	 * Number of feature columns (and Gaussian projection columns at most)
	 * for a budget of M (NULL: features_used).
	 */
	int (*feature_dim)(const struct rfx_params *p, int M);

	/* Draws the randomness of one M-feature estimator into w. */
	int (*draw)(const gsl_rng *r, enum rfx_proj proj,
		    const struct rfx_params *p, int M, struct rfx_draw *w,
		    struct rfx_err *err);

	/*
	 * Optional fast path for Monte Carlo: the estimates of the P pairs
	 * (X[k], Y[k]) for draw w, as log|value| and sign, computed from the
	 * projections without forming the feature maps (for the hybrids, whose
	 * maps have (n+1)(...) entries but whose estimate needs only n + m
	 * projections). Must equal Re sum_j Phi1_j Phi2_j up to rounding
	 * (tests check it). NULL: Monte Carlo goes through the features.
	 */
	int (*estimate)(const struct rfx_params *p, const struct rfx_draw *w,
			const double *X, const double *Y, size_t P, int M,
			double *logabs, signed char *sign, struct rfx_err *err);

	/*
	 * Computes the feature maps f^(side) (side 1 for x's, 2 for y's) of the
	 * n inputs X (n x d, unshifted) for draw w into F.
	 */
	int (*features)(const struct rfx_params *p, const struct rfx_draw *w,
			int side, const double *X, size_t n, int M,
			struct rfx_featmat *F, struct rfx_err *err);

	/*
	 * Optional float32 path (lib/est/featmap32.h; NULL: none, and the
	 * library rounds the float64 features instead): the same features
	 * in single precision, of the float inputs X (n x d) for the draw
	 * rounded to float w (the draw of the same seed), into F.
	 */
	int (*features32)(const struct rfx_params *p,
			  const struct rfx_draw32 *w, int side, const float *X,
			  size_t n, int M, struct rfx_featmat32 *F,
			  struct rfx_err *err);
};

/* The estimators, one per file lib/est/<name>.c. */
extern const struct rfx_estimator_type rfx_est_trig;
extern const struct rfx_estimator_type rfx_est_pos;
extern const struct rfx_estimator_type rfx_est_hyb;
extern const struct rfx_estimator_type rfx_est_gerf;
extern const struct rfx_estimator_type rfx_est_oprf;
extern const struct rfx_estimator_type rfx_est_pois;
extern const struct rfx_estimator_type rfx_est_geom;
extern const struct rfx_estimator_type rfx_est_pois_plus;
extern const struct rfx_estimator_type rfx_est_geom_plus;
extern const struct rfx_estimator_type rfx_est_posh;
extern const struct rfx_estimator_type rfx_est_ang;
extern const struct rfx_estimator_type rfx_est_ang_ind;
extern const struct rfx_estimator_type rfx_est_gauss_hyb;
extern const struct rfx_estimator_type rfx_est_cexp;
extern const struct rfx_estimator_type rfx_est_cexp_c;
extern const struct rfx_estimator_type rfx_est_hyb_ind;
extern const struct rfx_estimator_type rfx_est_gauss_hyb_ind;
extern const struct rfx_estimator_type rfx_est_sderf;
extern const struct rfx_estimator_type rfx_est_aderf;
extern const struct rfx_estimator_type rfx_est_saderf;

/* The registry, NULL-terminated, in the order tables and plots list them. */
const struct rfx_estimator_type *const *rfx_estimator_list(void);

/*
 * Looks up an estimator by CLI name or alias (case aside). An unknown name
 * is RFX_EINVAL with a message suggesting the nearest name or alias and
 * listing every valid name ("all" is not one here: it is valid only in
 * the lists of rfx_estimator_parse_list, whose messages add it). A
 * projection alias ("orf") is RFX_EINVAL saying what it stands for;
 * rfx_estimator_find_proj accepts those.
 */
const struct rfx_estimator_type *rfx_estimator_find(const char *name,
						    struct rfx_err *err);

/*
 * Method names of the papers that stand for an estimator on a given
 * projection kind: "orf" is trig on ort, "sorf" trig on sorf (ORF paper).
 */
struct rfx_proj_alias {
	const char *alias;  /* "orf" */
	const char *name;   /* the estimator's CLI name, "trig" */
	enum rfx_proj proj; /* the projection kind it implies */
	const char *source; /* where the papers use the name */
};

/* The projection aliases, NULL-terminated (alias NULL). */
const struct rfx_proj_alias *rfx_estimator_proj_aliases(void);

/*
 * As rfx_estimator_find, and also resolves projection aliases: *proj is
 * set and *has_proj to 1 for those, *has_proj to 0 otherwise.
 */
const struct rfx_estimator_type *rfx_estimator_find_proj(const char *name,
							 enum rfx_proj *proj,
							 int *has_proj,
							 struct rfx_err *err);

/*
 * Whether name is e's CLI name or one of its aliases, ignoring case.
 */
int rfx_estimator_is(const struct rfx_estimator_type *e, const char *name);

/*
 * Parses "all" or a comma-separated list of names into out (capacity max),
 * rejecting unknown names, duplicates and empty items; *n gets the count.
 */
int rfx_estimator_parse_list(const char *list,
			     const struct rfx_estimator_type **out, int max,
			     int *n, struct rfx_err *err);

/* Features used for budget M (features_used, or M). */
int rfx_estimator_features(const struct rfx_estimator_type *e,
			   const struct rfx_params *p, int M);

/* Feature columns for budget M (feature_dim, or rfx_estimator_features). */
int rfx_estimator_feature_dim(const struct rfx_estimator_type *e,
			      const struct rfx_params *p, int M);

/*
 * The thesis' fair default (sec. 6.6.1): a complex feature counts as two
 * real ones, so for a budget of B real features complex estimators (and
 * paired ones, two real features per unit) get B/2.
 */
int rfx_estimator_fair_features(const struct rfx_estimator_type *e, int budget);

/* Prepares block b for estimator e with parameters p (shift, x2y2). */
int rfx_estimator_block(const struct rfx_estimator_type *e,
			const struct rfx_params *p, struct rfx_block *b,
			const double *X, size_t nx, const double *Y, size_t ny,
			struct rfx_err *err);

/* Parameters: lifecycle, parsing and printing. */
void rfx_params_init(struct rfx_params *p, int d);
void rfx_params_release(struct rfx_params *p);

/* Copies src into dst (deep copy of c); RFX_ENOMEM on failure. */
int rfx_params_copy(struct rfx_params *dst, const struct rfx_params *src,
		    struct rfx_err *err);

/* Name of a parameter ("A", "t", "lambda", "q", "c", "m1", "m3", ...). */
const char *rfx_param_name(enum rfx_param id);

/* How a parameter's value is written and stored (struct rfx_param_info). */
enum rfx_param_kind {
	RFX_PK_REAL,    /* a double in [lo, hi] (open ends per flags) */
	RFX_PK_INT,     /* an int in [lo, hi] */
	RFX_PK_SIGN,    /* an int, -1 or 1 */
	RFX_PK_SCALAR,  /* A: real, or "re,im" for complex estimators */
	RFX_PK_VECTOR,  /* d comma-separated doubles (owned double *) */
	RFX_PK_CVECTOR  /* d comma-separated nonzero "re" or "re:im" */
};

#define RFX_PI_LO_OPEN 0x1u /* lo itself is not valid */
#define RFX_PI_HI_OPEN 0x2u /* hi itself is not valid */

/*
 * The parameter table: one row per enum rfx_param, read by
 * rfx_params_parse, rfx_params_format and 'rfx help estimators', so the
 * valid ranges are stated once.
 */
struct rfx_param_info {
	const char *name;         /* as in NAME=VALUE */
	enum rfx_param_kind kind;
	double lo, hi;            /* range of REAL and INT values, of each
				     entry of a VECTOR, of each modulus of
				     a CVECTOR */
	unsigned flags;           /* RFX_PI_* */
	const char *range;        /* the range in words, for messages and help */
	const char *dflt;         /* what it is when not given */
	const char *what;         /* meaning, with its source */
	size_t off, off_im;       /* offsetof its value (and imaginary part) in
				     struct rfx_params; off_im 0 if none */
};

/* The row of parameter id, or NULL for an id out of range. */
const struct rfx_param_info *rfx_param_info(enum rfx_param id);

/*
 * Parses "NAME=VALUE" for estimator e into p and marks it given. A is
 * "re" or "re,im"; c is d comma-separated numbers. Errors name the
 * estimator and list its parameters.
 */
int rfx_params_parse(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *assignment, struct rfx_err *err);

/*
 * Applies one command-line assignment to estimator e: "NAME=VALUE" when e
 * has parameter NAME, "METHOD:NAME=VALUE" when METHOD is e (an unknown
 * NAME is then an error); otherwise leaves p alone. Sets *taken to 1 when
 * it applied, so callers can reject assignments no method took.
 */
int rfx_params_apply(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *assignment, int *taken, struct rfx_err *err);

/*
 * Formats e's parameters as "A=-0.0312;t=1" into buf (size n); "-" when
 * it has none. Numbers are in their shortest round-trip form, so parsing
 * the text back gives the same parameters. Returns the length of the
 * whole text, as snprintf does: a result >= n means buf holds only its
 * first n - 1 characters, which callers must not pass off as the whole.
 */
size_t rfx_params_format(const struct rfx_params *p,
			 const struct rfx_estimator_type *e, char *buf,
			 size_t n);

/*
 * The valid range of input coordinates: |x_l| <= 1e75 keeps every squared
 * quantity the closed forms need (|x|^2, x_l^2 y_l^2 and their sums over
 * d <= 10^6 coordinates) inside double range. Results are finite for
 * every input in range; differences |x - y| below ~1e-150 underflow and
 * count as 0 (TrigRF's variance is then exactly 0, log -inf).
 */
#define RFX_INPUT_MAX 1e75

/*
 * The moduli a given complex-exponential diagonal a may have (cexp,
 * cexp-c): with inputs within RFX_INPUT_MAX, |a x + y/a|^2 stays below
 * about 1e296.
 */
#define RFX_DIAG_MIN 1e-70
#define RFX_DIAG_MAX 1e70
/*
 * And what such an a keeps |a x_l| and |y_l / a| within (RFX_DIAG_MAX
 * RFX_INPUT_MAX): a fitted a is held to it on the sets and on every
 * input it maps (lib/est/cexp.c).
 */
#define RFX_DIAG_REACH 1e145

/*
 * Validators shared by the estimators' fit functions: each returns RFX_OK
 * or RFX_EINVAL naming the estimator and the valid range; inputs must be
 * finite with every |coordinate| <= RFX_INPUT_MAX.
 */
int rfx_params_check_dim(const struct rfx_params *p, const char *name,
			 const double *X, size_t nx, const double *Y,
			 size_t ny, int M, struct rfx_err *err);

#endif

/*
 * Exact and random-feature attention (thesis ch. 3), and the error of the
 * second against the first for any estimator of the registry.
 *
 * Notation (thesis eqs. 2.16-2.17, 3.1-3.7): queries Q (nq x d), keys K
 * (nk x d) and values V (nk x dv), rows are tokens, row-major doubles.
 * A = exp(Q K^T / sqrt d), D = diag(A 1), Att = D^-1 A V (noncausal);
 * the causal attention uses tril(A) and its row sums instead (nq = nk).
 * With x_i = d^{-1/4} Q_i and y_j = d^{-1/4} K_j, A_ij = SM(x_i, y_j) =
 * e^{|x_i|^2/2} K(x_i, y_j) e^{|y_j|^2/2} (eq. 3.1): any estimator of the
 * Gaussian kernel K gives the random matrices P1, P2 of eqs. 3.4-3.5 by
 * multiplying its feature maps by those factors, and A C ~ P1 (P2^T C)
 * for C = [V 1] (Fig 3.1), or by prefix sums when causal (eq. 3.6).
 *
 * Scales. A feature matrix (est/featmap.h) holds each row as bounded
 * entries times e^{lscale}. Before the products the rows are brought to
 * a common scale by one of three stabilisers, all exact in exact
 * arithmetic because a factor common to a query row, or to all keys,
 * cancels in D^-1 A:
 *
 *   row     query row i times e^{-ls1_i} (its own maximum), every key
 *           times e^{-G2}, G2 = max_j ls2_j: what Performer's code does
 *           (per-row max for queries, one global max for keys);
 *   global  every query times e^{-G1}, G1 = max_i ls1_i, keys as above;
 *   none    the features at their true scale, e^{lscale} multiplied in:
 *           overflows past e^709 (e^88 in float32).
 *
 * The keys' maximum is over all keys also when causal (as in Performer's
 * code): a query whose keys so far are all far below the later ones can
 * see them underflow.
 *
 * Epsilon. Performer's implementation adds a small constant to the
 * stabilised positive features; opts.eps adds it to every stabilised
 * entry of both maps. Its effect on output row i is exactly
 *   out^eps_i - out_i = eps sum_j c_ij (v_j - out_i) / (Z_i + eps sum_j c_ij),
 *   c_ij = s1_i + s2_j + eps D', Z_i = sum_j a_i . b_j,
 * for stabilised query rows a_i, key rows b_j with sums s1_i = sum_m a_im,
 * s2_j = sum_m b_jm over the D' real feature columns (docs/ATTENTION.md
 * derives it); rfx_attention_eps_bias computes it.
 */
#ifndef RFX_ATTENTION_H
#define RFX_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "est/estimator.h"
#include "est/featmap.h"

enum rfx_att_stab {
	RFX_ATT_STAB_ROW,    /* query rows by their own maximum, keys by one */
	RFX_ATT_STAB_GLOBAL, /* one maximum for the queries, one for the keys */
	RFX_ATT_STAB_NONE    /* no maximum subtracted */
};

/* "row", "global", "none"; parse is RFX_EINVAL listing them. */
const char *rfx_att_stab_name(enum rfx_att_stab s);
int rfx_att_stab_parse(const char *name, enum rfx_att_stab *out,
		       struct rfx_err *err);

struct rfx_att_opts {
	int causal;              /* 1: tril(A) (eq. 2.17), needs nq = nk */
	enum rfx_att_stab stab;  /* stabiliser (above) */
	double eps;              /* added to every stabilised entry, >= 0 */
	int f32;                 /* 1: stabilised maps, C and the products in float */
};

/*
 * Exact attention by blocks of query rows: for each block the logits
 * Q_b K^T / sqrt d (a block x nk, never nq x nk), their row maxima m_i,
 * e^{logit - m_i}, then out_b = (e V) / (e 1). out is nq x dv; logD (nq
 * entries, may be NULL) gets log D_i = m_i + log sum_j e^{logit_ij - m_i}.
 * causal: only j <= i (nq = nk). Blocks run in parallel on OpenMP
 * threads, each on one BLAS thread: bits do not depend on the thread
 * count. RFX_EINVAL for empty or mismatched shapes or a non-finite input,
 * RFX_ENOMEM.
 */
int rfx_attention_exact(const double *Q, size_t nq, const double *K,
			size_t nk, int d, const double *V, int dv, int causal,
			double *out, double *logD, struct rfx_err *err);

/*
 * The workspace of random-feature attention for nq queries, nk keys of
 * dimension d, dv value columns and estimators with up to Dmax feature
 * columns (rfx_estimator_feature_dim; complex ones become 2 Dmax real
 * columns). Owns the scaled inputs, the feature matrices and the
 * products' buffers; after rfx_attention_maps, p1 e^{ls1} and p2 e^{ls2}
 * are the real maps P1, P2 of eqs. 3.4-3.5. Buffers are allocated once
 * (pages never touched cost no memory).
 */
struct rfx_att_ws {
	size_t nq, nk;           /* rows of Q and K */
	int d, dv, Dmax;         /* dimensions */
	int Dr;                  /* real feature columns of the current maps */
	double *X, *Y;           /* d^{-1/4} Q and d^{-1/4} K */
	struct rfx_featmat *F1, *F2; /* the estimator's maps of X and Y */
	const double *p1, *p2;   /* real maps, nq x Dr and nk x Dr: F->re, or
				  * R1, R2 for complex maps */
	double *R1, *R2;         /* [Re, Im] and [Re, -Im] of complex maps */
	double *ls1, *ls2;       /* log row scales with |x|^2/2 (eqs. 3.4-3.5) */
	double *A1, *A2;         /* stabilised maps, nq x Dr, nk x Dr (only with
				  * eps or float32: see fast) */
	double *C;               /* [V 1], nk x (dv + 1) */
	double *buf1;            /* Dr x (dv + 1): P2^T C, or the prefix sum */
	double *buf2;            /* nq x (dv + 1): P1 buf1 */
	double *T;               /* causal block products, B x B */
	double *r1;              /* nq: log factor taken out of each query row */
	double r2;               /* log factor taken out of every key row */
	double *g1, *g2;         /* e^{ls - r} of each query, key row */
	int fast;                /* last apply: maps used as p * g, A1, A2 unset */
	float *f1, *f2, *fc, *fb1, *fb2, *fT; /* float32 copies */
};

/* Allocates a workspace (sizes above); NULL when out of memory or empty. */
struct rfx_att_ws *rfx_att_ws_alloc(size_t nq, size_t nk, int d, int dv,
				    int Dmax);
void rfx_att_ws_free(struct rfx_att_ws *ws);

/*
 * The random maps P1 (of Q) and P2 (of K) for estimator e, parameters p
 * (fitted to d^{-1/4} Q and d^{-1/4} K for budget M by the caller:
 * rfx_attention_fit) and draw w, into ws (p1, ls1, p2, ls2): the estimator's
 * features of x_i and y_j (sides 1 and 2), made real (featmap.h's
 * rfx_featmat_to_real) with |x|^2/2 added to each row's log scale, so that
 * P1_i . P2_j is an unbiased estimate of A_ij for unbiased estimators.
 * Errors: the estimator's, RFX_EINVAL when its feature columns exceed
 * ws->Dmax.
 */
int rfx_attention_maps(struct rfx_att_ws *ws,
		       const struct rfx_estimator_type *e,
		       const struct rfx_params *p, const struct rfx_draw *w,
		       const double *Q, const double *K, int M,
		       struct rfx_err *err);

/*
 * Scales d^{-1/4} Q and K into ws->X, ws->Y and fits p for e and budget M
 * on them (e->fit): the parameters rfx_attention_maps expects.
 */
int rfx_attention_fit(struct rfx_att_ws *ws,
		      const struct rfx_estimator_type *e,
		      struct rfx_params *p, const double *Q, const double *K,
		      int M, struct rfx_err *err);

/*
 * Random-feature attention from the maps in ws (rfx_attention_maps): the
 * stabilised maps (opts.stab, opts.eps, in float32 when opts.f32), then
 * P1 (P2^T C) or, causal, the blocked prefix sums of eq. 3.6 (blocks of
 * 64 rows: the masked product of a block with itself plus the block times
 * the sum over earlier blocks). out (nq x dv) gets the normalised output
 * row by row; the estimated normaliser D^_i goes out as logDh[i] =
 * log|D^_i| (-inf for 0) and sgnD[i] in {-1, 0, +1} (both may be NULL).
 * A row whose D^ is 0 or not finite gets non-finite outputs; callers
 * count them. Noncausal products run on the caller's BLAS threads (a
 * multi-threaded BLAS may change the last bits), the causal blocks on one. RFX_EINVAL for causal with nq != nk or
 * eps < 0.
 */
int rfx_attention_apply(struct rfx_att_ws *ws, const double *V,
			const struct rfx_att_opts *opts, double *out,
			double *logDh, signed char *sgnD, struct rfx_err *err);

/*
 * The estimate A^_ij of the attention entries of query rows rows[0..ns-1]
 * against every key, from the stabilised maps of the last
 * rfx_attention_apply (in double, also after a float32 one), divided by
 * that call's D^_i: G[a nk + j] =
 * A^_{rows[a], j} / D^_{rows[a]} (0 for j > i when causal). One dgemm;
 * work holds ns * ws->Dr doubles (the gathered query rows).
 */
void rfx_attention_rows(const struct rfx_att_ws *ws, const size_t *rows,
			size_t ns, int causal, double *G, double *work);

/*
 * The exact effect of opts->eps on each output row, from the maps of the
 * last rfx_attention_apply with eps = 0 and its output out0 (header
 * formula): delta (nq x dv) = out^eps - out^0. Noncausal only.
 */
int rfx_attention_eps_bias(const struct rfx_att_ws *ws, const double *V,
			   const double *out0, double eps, double *delta,
			   struct rfx_err *err);

/*
 * Closed-form variance of one entry (A^ C)_{ic} of the noncausal estimate
 * with M iid features, TrigRF (kind 0) or PosRF (kind 1) on the softmax
 * kernel: with x = d^{-1/4} Q_i, y_j = d^{-1/4} K_j and psi_m(y) the
 * contribution of feature m to A^_ij,
 *   Var = (1/M) sum_{j, j'} C_jc C_j'c (E psi(y_j) psi(y_j') - A_ij A_ij'),
 * TrigRF: E psi psi' = e^{|x|^2 + (|y|^2 + |y'|^2)/2} (e^{-|2x - y - y'|^2/2}
 *          + e^{-|y - y'|^2/2}) / 2;
 * PosRF:  E psi psi' = e^{|2x + y + y'|^2/2 - |x|^2 - (|y|^2 + |y'|^2)/2}
 * (docs/ATTENTION.md derives both). C is [V 1] with column c < dv + 1
 * (c = dv is the normaliser D_i). Returns log Var (-inf when it rounds to
 * <= 0) in *logvar. RFX_EINVAL for bad kind, c or M.
 */
int rfx_attention_ac_logvar(int kind, const double *Q, size_t i,
			    const double *K, size_t nk, int d, const double *V,
			    int dv, int c, int M, double *logvar,
			    struct rfx_err *err);

/* ------------------------------------------------------------------ */
/* The error study behind `rfx attention` and its timing mode.        */

/* The errors of one draw against exact attention. */
struct rfx_att_errors {
	/* the output errors are over the rows with a finite output, NaN if none */
	double out_rel_fro;    /* |O^ - O|_F / |O|_F over finite rows */
	double out_rel_max;    /* max_i |O^_i - O_i| / |O_i| over finite rows */
	double out_mse;        /* mean (O^ - O)^2 over finite rows' entries */
	double att_mse;        /* mean (A^_ij/D^_i - A_ij/D_i)^2, sampled rows */
	double norm_rel;       /* mean_i |D^_i - D_i| / D_i */
	double frac_nonpos;    /* fraction of rows with D^_i <= 0 */
	double frac_nonfinite; /* fraction of rows with a non-finite output */
	double log_norm_rel;   /* log norm_rel, finite where it is inf */
};
#define RFX_ATT_NERR 8

/* The names of the RFX_ATT_NERR errors in struct order. */
extern const char *const rfx_att_error_names[RFX_ATT_NERR];

/*
 * Errors of (out, logDh, sgnD) from rfx_attention_apply against the exact
 * (out0, logD0); att_mse from the rows rows[0..ns-1] whose exact logits
 * Q_i K^T / sqrt d are in logit0 (ns x nk) and estimates in G
 * (rfx_attention_rows).
 */
void rfx_attention_errors(size_t nq, size_t nk, int dv, const double *out0,
			  const double *logD0, const double *out,
			  const double *logDh, const signed char *sgnD,
			  const size_t *rows, size_t ns, const double *logit0,
			  const double *G, int causal, struct rfx_att_errors *res);

#endif

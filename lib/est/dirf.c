/*
 * DIRF helpers: the positive shift and the feature loop shared by PoisRF and
 * GeomRF. The loop runs coordinate by coordinate so that each log|x_l| is
 * taken once per input, not once per feature.
 */
#include "est/dirf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/logmath.h"
#include "num/setstats.h"

int rfx_dirf_fit_shift(struct rfx_params *p, const char *name,
		       const double *X, size_t nx, const double *Y, size_t ny,
		       struct rfx_err *err)
{
	struct rfx_setstats *st;
	int ret, l;

	if (p->given & RFX_P(RFX_PARAM_C))
		return p->c ? RFX_OK
			    : rfx_error(err, RFX_EINVAL, "%s: shift c is not set",
					name);
	st = rfx_setstats_alloc(p->d);
	if (!st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_setstats_compute(st, X, nx, Y, ny, NULL, err);
	if (!ret && !p->c) {
		p->c = malloc((size_t)p->d * sizeof(double));
		if (!p->c)
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	if (!ret)
		for (l = 0; l < p->d; l++)
			p->c[l] = st->min_xy[l] - RFX_DIRF_EPS;
	rfx_setstats_free(st);
	return ret;
}

int rfx_dirf_fit_begin(struct rfx_params *p, const char *name, int shifted,
		       enum rfx_param id, const double *X, size_t nx,
		       const double *Y, size_t ny, int M,
		       struct rfx_setstats **st, struct rfx_err *err)
{
	int ret = rfx_params_check_dim(p, name, X, nx, Y, ny, M, err);

	*st = NULL;
	if (ret)
		return ret;
	if (shifted && (ret = rfx_dirf_fit_shift(p, name, X, nx, Y, ny, err)))
		return ret;
	if (p->given & RFX_P(id))
		return RFX_OK;
	*st = rfx_setstats_alloc(p->d);
	if (!*st)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	ret = rfx_setstats_compute(*st, X, nx, Y, ny, shifted ? p->c : NULL, err);
	if (ret) {
		rfx_setstats_free(*st);
		*st = NULL;
	}
	return ret;
}

/* Coordinates whose logs dirf_row takes before it adds them in. */
#define DIRF_CHUNK 64

/*
 * Which chunk of coordinates a block of features is in: in the first,
 * its values start from start (colconst) and its counts from 0, in later
 * ones from where the previous chunk left them in lm and cnt (start =
 * lm); after the last, the row's constant c is added and the counts
 * become parities. So each chunk reads and writes a block once, and a
 * row of one chunk (d <= 64, Tables 6.2-6.3) only writes it.
 */
struct dirf_ends {
	int first, last;
	double c;
};

/* A block's 8 values and counts into a and s, as dirf_ends says. */
static inline __attribute__((always_inline)) void acc_load(
	double *a, double *s, const double *start, const double *cnt,
	const struct dirf_ends *e)
{
	int j;

	for (j = 0; j < 8; j++) {
		a[j] = start[j];
		s[j] = e->first ? 0.0 : cnt[j];
	}
}

/* And back into lm and cnt, finished after the last chunk. */
static inline __attribute__((always_inline)) void acc_store(
	double *a, double *s, const struct dirf_ends *e, double *lm,
	double *cnt)
{
	int j;

	if (e->last)
		for (j = 0; j < 8; j++) {
			a[j] += e->c;
			s[j] -= 2.0 * floor(0.5 * s[j]);
		}
	for (j = 0; j < 8; j++) {
		lm[j] = a[j];
		cnt[j] = s[j];
	}
}

/*
 * Features m0..m0+7 of coordinates l0..l0+nl-1 of one row, where some
 * log|z_l| may be -inf: lm and cnt of those 8 features in a local array
 * the compiler keeps in registers across the coordinates (in memory,
 * each coordinate's add waited for the previous one's store), om the
 * omega of (l0, m0) with rows cap apart, lz and zneg the coordinates'
 * log|z_l| + g and z_l < 0. cnt counts the odd powers of negative
 * coordinates (the feature's sign is their parity). Inline, not cloned:
 * it is compiled into each of its callers' clones, where a call to
 * clones of its own went through the dispatcher for every 8 features.
 */
static inline __attribute__((always_inline)) void dirf_block8(
	const double *om, size_t cap, const double *lz,
	const unsigned char *zneg, int nl, const double *start,
	const struct dirf_ends *e, double *lm, double *cnt)
{
	double a[8], s[8];
	int l, j;

	acc_load(a, s, start, cnt, e);
	for (l = 0; l < nl; l++, om += cap) {
		const double t = lz[l];

#pragma omp simd
		for (j = 0; j < 8; j++) {
			double u = om[j] * t;

			a[j] += om[j] != 0.0 ? u : 0.0;
		}
		if (zneg[l]) {
#pragma omp simd
			for (j = 0; j < 8; j++)
				s[j] += om[j] - 2.0 * floor(0.5 * om[j]);
		}
	}
	acc_store(a, s, e, lm, cnt);
}

/*
 * The same for features m0..m0+DIRF_WIDE-1 where every log|z_l| is
 * finite, so that a zero count's term om * t is an exact zero without a
 * mask, and where every sum of counts is below 2^53 (dirf_exact_sums):
 * cnt then adds the counts of the negative coordinates, listed in negl,
 * themselves, whose sum has the parity of the number of odd ones. Per
 * coordinate and 8 features that is a product and an add, against the
 * masked add, a branch and five operations of the parity in
 * dirf_block8. Four 8-lane accumulators each, as dirf_block8 keeps its
 * one: the adds of a feature wait on each other, four chains cover
 * their latency. Forced inline: GCC left it a call to a function
 * compiled for no SIMD extension, at twice the time of dirf_block8.
 */
#define DIRF_WIDE 32
static inline __attribute__((always_inline)) void dirf_block_wide(
	const double *om, size_t cap, const double *lz, int nl,
	const int *negl, int nneg, const double *start,
	const struct dirf_ends *e, double *lm, double *cnt)
{
	double a0[8], a1[8], a2[8], a3[8], s0[8], s1[8], s2[8], s3[8];
	int l, j, k;

	acc_load(a0, s0, start, cnt, e);
	acc_load(a1, s1, start + 8, cnt + 8, e);
	acc_load(a2, s2, start + 16, cnt + 16, e);
	acc_load(a3, s3, start + 24, cnt + 24, e);
	for (l = 0; l < nl; l++) {
		const double *o = om + (size_t)l * cap, t = lz[l];

#pragma omp simd
		for (j = 0; j < 8; j++) {
			a0[j] += o[j] * t;
			a1[j] += o[8 + j] * t;
			a2[j] += o[16 + j] * t;
			a3[j] += o[24 + j] * t;
		}
	}
	for (k = 0; k < nneg; k++) {
		const double *o = om + (size_t)negl[k] * cap;

#pragma omp simd
		for (j = 0; j < 8; j++) {
			s0[j] += o[j];
			s1[j] += o[8 + j];
			s2[j] += o[16 + j];
			s3[j] += o[24 + j];
		}
	}
	acc_store(a0, s0, e, lm, cnt);
	acc_store(a1, s1, e, lm + 8, cnt + 8);
	acc_store(a2, s2, e, lm + 16, cnt + 16);
	acc_store(a3, s3, e, lm + 24, cnt + 24);
}

/*
 * Whether every count of columns 0..M-1 of w is below 2^53 / (d + 1), so
 * that any sum of d of them and of d parities is an exact integer below
 * 2^53 (dirf_block_wide). A fitted GeomRF rate of 1e-13 makes counts of
 * about 1e13, and then the rows take dirf_block8.
 */
static int dirf_exact_sums(const struct rfx_draw *w, int M)
{
	const double bound = 9007199254740992.0 / (w->d + 1.0);
	double mx = 0.0;
	int l, m;

	for (l = 0; l < w->d; l++) {
		const double *om = w->omega + (size_t)l * (size_t)w->cap;

#pragma omp simd reduction(max : mx)
		for (m = 0; m < M; m++)
			mx = om[m] > mx ? om[m] : mx;
	}
	return mx < bound;
}

/*
 * log|z_l| + g, z_l < 0 and |z|^2 of the coordinates l0..l0+nl-1 of one
 * input, z = x - shift: what the features need of the input besides the
 * draw. xx is added to in the order l = l0, l0 + 1, ...
 */
static void input_logs(const double *x, const double *shift, double g,
		       int l0, int nl, double *lz, unsigned char *zneg,
		       double *xx)
{
	int l;

	for (l = 0; l < nl; l++) {
		double z = shift ? x[l0 + l] - shift[l0 + l] : x[l0 + l];

		lz[l] = z != 0.0 ? log(fabs(z)) + g : -INFINITY;
		zneg[l] = z < 0.0;
		*xx += z * z;
	}
}

/*
 * The input_logs of the last few sets of inputs of a feature matrix, each
 * with a copy of its inputs, shift and g to recognise it: Monte Carlo
 * draws the estimator thousands of times for the same few inputs (rfx
 * variance's --mc), and the d logs of each input cost more than its
 * features at small M; Tables 6.2-6.3 give the training set in chunks of
 * 1024 rows, the same chunks for every draw: while one set was kept,
 * every chunk replaced the last, and uci-classify's DIRF methods on
 * chess and nursery (3 seeds) took 3.1-3.5 CPU-s instead of 2.7. Up to
 * DIRF_CACHE_SLOTS sets of at most DIRF_CACHE_MAX numbers n d each, and
 * DIRF_CACHE_TOTAL in all (larger inputs copy and keep nothing), replaced
 * in turn once all are used. One malloc block (the header, then per slot
 * key, lz, xx, zneg), which rfx_featmat_free frees.
 */
#define DIRF_CACHE_MAX 65536
#define DIRF_CACHE_SLOTS 32
#define DIRF_CACHE_TOTAL 262144

struct dirf_slot {
	size_t n;               /* inputs cached (0: none) */
	int d, shifted;
	double g;
	double *key;            /* X (n d), then shift (d) */
	double *lz, *xx;        /* n d log|z| + g, n |z|^2 */
	unsigned char *zneg;    /* n d z < 0 */
};

struct rfx_dirf_cache {
	size_t cap;             /* room for n d per slot */
	int dcap;               /* room for the shift's d per slot */
	int nslot, used, next;  /* slots, slots filled, next to replace */
	struct dirf_slot slot[DIRF_CACHE_SLOTS];
};

/* Whether slot s holds the logs of X (n x d), shift and g. */
static int slot_holds(const struct dirf_slot *s, const double *X, size_t n,
		      int d, const double *shift, double g)
{
	const size_t nd = n * (size_t)d;

	return s->n == n && s->d == d && s->shifted == (shift != NULL) &&
	       memcmp(&s->g, &g, sizeof(g)) == 0 &&
	       memcmp(s->key, X, nd * sizeof(double)) == 0 &&
	       (!shift || memcmp(s->key + nd, shift,
				 (size_t)d * sizeof(double)) == 0);
}

/* A cache of nslot slots for n d <= cap and d <= dcap, empty; or NULL. */
static struct rfx_dirf_cache *cache_alloc(size_t cap, int dcap)
{
	size_t total = cap < DIRF_CACHE_TOTAL ? DIRF_CACHE_TOTAL / cap : 1;
	int nslot = total < DIRF_CACHE_SLOTS ? (int)total : DIRF_CACHE_SLOTS, k;
	/* per slot: key (cap + dcap), lz (cap), xx (cap: n <= n d), zneg */
	size_t nums = 3 * cap + (size_t)dcap;
	struct rfx_dirf_cache *c =
		malloc(sizeof(*c) + (size_t)nslot * (nums * sizeof(double) + cap));
	double *p;

	if (!c)
		return NULL;
	c->cap = cap;
	c->dcap = dcap;
	c->nslot = nslot;
	c->used = c->next = 0;
	p = (double *)(c + 1);
	for (k = 0; k < nslot; k++, p += nums) {
		c->slot[k].n = 0;
		c->slot[k].key = p;
		c->slot[k].lz = p + cap + dcap;
		c->slot[k].xx = c->slot[k].lz + cap;
	}
	for (k = 0; k < nslot; k++)
		c->slot[k].zneg = (unsigned char *)p + (size_t)k * cap;
	return c;
}

/* The slot of F's cache holding the logs of X, filled if none did. */
static const struct dirf_slot *dirf_cache(struct rfx_featmat *F,
					  const struct rfx_draw *w,
					  const double *X, size_t n,
					  const double *shift, double g)
{
	struct rfx_dirf_cache *c = F->dirf;
	struct dirf_slot *s;
	const size_t d = (size_t)w->d, nd = n * d;
	size_t i;
	int k;

	if (nd == 0 || nd > DIRF_CACHE_MAX)
		return NULL;
	for (k = 0; c && k < c->used; k++)
		if (slot_holds(&c->slot[k], X, n, w->d, shift, g))
			return &c->slot[k];
	if (!c || c->cap < nd || c->dcap < w->d) {
		free(F->dirf);
		F->dirf = c = cache_alloc(nd < 4096 ? 4096 : nd, w->d);
		if (!c)
			return NULL;
	}
	if (c->used < c->nslot) {
		s = &c->slot[c->used++];
	} else {
		s = &c->slot[c->next];
		c->next = (c->next + 1) % c->nslot;
	}
	s->n = n;
	s->d = w->d;
	s->shifted = shift != NULL;
	s->g = g;
	memcpy(s->key, X, nd * sizeof(double));
	if (shift)
		memcpy(s->key + nd, shift, d * sizeof(double));
	for (i = 0; i < n; i++) {
		s->xx[i] = 0.0;
		input_logs(X + i * d, shift, g, 0, w->d, s->lz + i * d,
			   s->zneg + i * d, &s->xx[i]);
	}
	return s;
}

/*
 * The negative coordinates of a chunk of nl, listed in negl, and their
 * number; -1 if some log|z_l| is -inf (the chunk then takes
 * dirf_block8, whose mask keeps 0 * -inf out).
 */
static int chunk_negl(const double *lz, const unsigned char *zneg, int nl,
		      int *negl)
{
	int l, nneg = 0;

	for (l = 0; l < nl; l++) {
		if (lz[l] == -INFINITY)
			return -1;
		if (zneg[l])
			negl[nneg++] = l;
	}
	return nneg;
}

/*
 * Features 0..nm-1 of one row and one chunk of coordinates, nl of them:
 * om the omega of the chunk's first coordinate and the first feature,
 * cap its row stride, lz and zneg the chunk's logs and signs, negl and
 * nneg their chunk_negl (nneg < 0: none), start, e, lm and cnt as in
 * dirf_ends. Blocks of DIRF_WIDE where nneg >= 0, then of 8, then one by
 * one.
 */
static inline __attribute__((always_inline)) void dirf_span(
	const double *om, size_t cap, const double *lz,
	const unsigned char *zneg, int nl, const int *negl, int nneg, int nm,
	const double *start, const struct dirf_ends *e, double *lm,
	double *cnt)
{
	int l, m = 0, m0;

	if (nneg >= 0)
		for (; m + DIRF_WIDE <= nm; m += DIRF_WIDE)
			dirf_block_wide(om + m, cap, lz, nl, negl, nneg,
					start + m, e, lm + m, cnt + m);
	for (; m + 8 <= nm; m += 8)
		dirf_block8(om + m, cap, lz, zneg, nl, start + m, e, lm + m,
			    cnt + m);
	if (m == nm)
		return;
	for (m0 = m; m < nm; m++) {
		lm[m] = start[m];
		cnt[m] = e->first ? 0.0 : cnt[m];
	}
	for (l = 0; l < nl; l++, om += cap) {
		for (m = m0; m < nm; m++) {
			double t = om[m] * lz[l];

			lm[m] += om[m] != 0.0 ? t : 0.0;
		}
		if (zneg[l])
			for (m = m0; m < nm; m++)
				cnt[m] += om[m] - 2.0 * floor(0.5 * om[m]);
	}
	if (e->last)
		for (m = m0; m < nm; m++) {
			lm[m] += e->c;
			cnt[m] -= 2.0 * floor(0.5 * cnt[m]);
		}
}

/*
 * Row i of rfx_dirf_features: log-moduli into lm, and into neg 1 where an
 * odd number of odd powers of negative coordinates makes the feature
 * negative, else 0. Coordinate by coordinate, so that each log|x_l| is
 * taken once per input, and branch-free over the features so that the
 * loops vectorise (omega is mostly 0 for small rates, in no pattern a
 * branch predictor could learn: the branchy loop spent most of Tables
 * 6.2-6.3's time here). A zero count adds nothing, even where log|x_l|
 * is -inf; a positive one there makes the feature's log-modulus -inf, an
 * exact zero. The logs of a chunk of coordinates come first (or from the
 * cache: clz, czneg and cxx when not NULL), then the features
 * (dirf_span; exact: the counts' sums are exact, dirf_exact_sums). neg
 * holds counts until the end, where their parities replace them. Each
 * feature still adds its coordinates' terms in the order l = 0, 1, ...,
 * so the bytes are those of the plain loop over l outside m.
 */
RFX_SIMD_CLONES
static void dirf_row(const struct rfx_draw *w, const double *x, int M,
		     const double *shift, double base, double g,
		     const double *colconst, double ls, const double *clz,
		     const unsigned char *czneg, const double *cxx, int exact,
		     double *lm, double *neg)
{
	const size_t cap = (size_t)w->cap;
	double lzb[DIRF_CHUNK], xx = 0.0;
	unsigned char znb[DIRF_CHUNK];
	int negl[DIRF_CHUNK];
	int d = w->d, l0;
	struct dirf_ends e;

	/* the row's constant needs |z|^2, known at the last chunk */
	for (l0 = 0; l0 < d; l0 += DIRF_CHUNK) {
		int nl = d - l0 < DIRF_CHUNK ? d - l0 : DIRF_CHUNK;
		const double *lz = lzb;
		const unsigned char *zneg = znb;

		if (clz) {
			lz = clz + l0;
			zneg = czneg + l0;
		} else {
			input_logs(x, shift, g, l0, nl, lzb, znb, &xx);
		}
		e.first = l0 == 0;
		e.last = l0 + nl == d;
		e.c = base - 0.5 * (cxx ? *cxx : xx) + ls;
		dirf_span(w->omega + (size_t)l0 * cap, cap, lz, zneg, nl, negl,
			  exact ? chunk_negl(lz, zneg, nl, negl) : -1, M,
			  e.first ? colconst : lm, &e, lm, neg);
	}
}

/*
 * dirf_row for the n rows of a cache slot at once, in another order:
 * chunk by chunk of coordinates, then DIRF_WIDE features at a time, then
 * row by row, so that the omega of a chunk and a block stays in the L1
 * cache for all n rows, where row by row read the whole draw (128 KiB at
 * d = 64 and M = 256) from L2 once per row. The block is first copied
 * into pk (DIRF_CHUNK x DIRF_WIDE): in place, its rows lie 8 cap bytes
 * apart, a power of two for the usual M, and fall into a few of L1's
 * sets, which cannot hold them all. negl holds n lists of DIRF_CHUNK,
 * nneg their lengths. The same operations on the same values, so the
 * same bytes as dirf_row.
 */
RFX_SIMD_CLONES
static void dirf_rows(const struct rfx_draw *w, const struct dirf_slot *c,
		      size_t n, int M, double base, double ls,
		      const double *colconst, int *negl, int *nneg, double *pk,
		      double *LM, double *NEG)
{
	const size_t cap = (size_t)w->cap, d = (size_t)w->d;
	size_t i, l0;
	int m0, l, j;

	for (l0 = 0; l0 < d; l0 += DIRF_CHUNK) {
		int nl = d - l0 < DIRF_CHUNK ? (int)(d - l0) : DIRF_CHUNK;
		struct dirf_ends e = { l0 == 0, l0 + (size_t)nl == d, 0.0 };

		for (i = 0; i < n; i++)
			nneg[i] = chunk_negl(c->lz + i * d + l0,
					     c->zneg + i * d + l0, nl,
					     negl + i * DIRF_CHUNK);
		for (m0 = 0; m0 < M; m0 += DIRF_WIDE) {
			const double *om = w->omega + l0 * cap + (size_t)m0;
			int nm = M - m0 < DIRF_WIDE ? M - m0 : DIRF_WIDE;
			size_t stride = cap;

			if (nm == DIRF_WIDE) {
				for (l = 0; l < nl; l++)
					for (j = 0; j < DIRF_WIDE; j++)
						pk[l * DIRF_WIDE + j] =
							om[(size_t)l * cap + j];
				om = pk;
				stride = DIRF_WIDE;
			}
			for (i = 0; i < n; i++) {
				double *lm = LM + i * (size_t)M + m0;

				e.c = base - 0.5 * c->xx[i] + ls;
				dirf_span(om, stride, c->lz + i * d + l0,
					  c->zneg + i * d + l0, nl,
					  negl + i * DIRF_CHUNK, nneg[i], nm,
					  e.first ? colconst + m0 : lm, &e, lm,
					  NEG + i * (size_t)M + m0);
			}
		}
	}
}

void rfx_dirf_features(struct rfx_featmat *F, const struct rfx_draw *w,
		       const double *X, size_t n, int M, const double *shift,
		       double base, double g, const double *colconst)
{
	const struct dirf_slot *c = dirf_cache(F, w, X, n, shift, g);
	const size_t d = (size_t)w->d;
	double ls = -0.5 * log((double)M);
	/*
	 * One pass over the draw, worth it past a few rows and where there
	 * is a block of DIRF_WIDE (rfx variance's Monte Carlo maps 16 rows
	 * to 8 features 10^5 times: with the pass and the lists of
	 * chunk_negl, its DIRF maps took half as long again).
	 */
	int exact = n >= 4 && M >= DIRF_WIDE && dirf_exact_sums(w, M);
	/*
	 * dirf_rows' pk, then its lists and their lengths; only where a
	 * chunk of the draw passes 32 KiB (a row then reads it from L2 or
	 * beyond): for smaller ones it costs more than it saves, as it
	 * writes the feature matrix block by block where dirf_row writes it
	 * row by row (uci-classify's DIRF runs, d <= 9 and M = 128, took 12%
	 * longer than before either change).
	 */
	int blocked = c && exact &&
		      (size_t)(d < DIRF_CHUNK ? d : DIRF_CHUNK) * (size_t)M > 4096;
	double *pk = blocked ? malloc(DIRF_CHUNK * DIRF_WIDE * sizeof(double) +
				      n * (DIRF_CHUNK + 1) * sizeof(int))
			     : NULL;
	int *negl = pk ? (int *)(pk + DIRF_CHUNK * DIRF_WIDE) : NULL;
	size_t i;

	/*
	 * The log-moduli go straight into re, converted in place: through
	 * F->work, a third n x M array, the DIRF runs of Tables 6.2-6.3
	 * (chunks of 1024 rows) took 28% longer. Without memory for the
	 * lists, row by row.
	 */
	if (negl)
		dirf_rows(w, c, n, M, base, ls, colconst, negl,
			  negl + n * DIRF_CHUNK, pk, F->re, F->im);
	else
		for (i = 0; i < n; i++)
			dirf_row(w, X + i * d, M, shift, base, g, colconst, ls,
				 c ? c->lz + i * d : NULL,
				 c ? c->zneg + i * d : NULL,
				 c ? c->xx + i : NULL, exact,
				 F->re + i * (size_t)M, F->im + i * (size_t)M);
	free(pk);
	rfx_featmat_from_log_signed(F, n, M, F->re, F->im);
}

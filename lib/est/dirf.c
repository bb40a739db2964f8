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
 * Features m0..m0+7 of coordinates l0..l0+nl-1 of one row: lm and neg
 * of those 8 features in a local array the compiler keeps in registers
 * across the coordinates (in memory, each coordinate's add waited for
 * the previous one's store), om the omega of (l0, m0), lz and zneg the
 * coordinates' log|z_l| + g and z_l < 0. Inline, not cloned: it is
 * compiled into each of dirf_row's clones, where a call to clones of its
 * own went through the dispatcher for every 8 features.
 */
static inline void dirf_block8(const double *om, size_t cap,
			       const double *lz, const unsigned char *zneg,
			       int nl, double *lm, double *neg)
{
	double a[8], s[8];
	int l, j;

	for (j = 0; j < 8; j++) {
		a[j] = lm[j];
		s[j] = neg[j];
	}
	for (l = 0; l < nl; l++, om += cap) {
		const double t = lz[l];

#pragma omp simd
		for (j = 0; j < 8; j++) {
			double u = om[j] * t;

			a[j] += om[j] != 0.0 ? u : 0.0;
		}
		if (zneg[l]) {
#pragma omp simd
			for (j = 0; j < 8; j++) {
				double odd = om[j] - 2.0 * floor(0.5 * om[j]);

				s[j] = odd == 1.0 ? 1.0 - s[j] : s[j];
			}
		}
	}
	for (j = 0; j < 8; j++) {
		lm[j] = a[j];
		neg[j] = s[j];
	}
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
 * Row i of rfx_dirf_features: log-moduli into lm, and into neg 1 where an
 * odd number of odd powers of negative coordinates makes the feature
 * negative, else 0. Coordinate by coordinate, so that each log|x_l| is
 * taken once per input, and branch-free over the features so that the
 * loops vectorise (omega is mostly 0 for small rates, in no pattern a
 * branch predictor could learn: the branchy loop spent most of Tables
 * 6.2-6.3's time here). A zero count adds nothing, even where log|x_l|
 * is -inf; a positive one there makes the feature's log-modulus -inf, an
 * exact zero. The logs of a chunk of coordinates come first (or from the
 * cache: clz, czneg and cxx when not NULL), then the features in blocks
 * of 8 (dirf_block8); each feature still adds its coordinates' terms in
 * the order l = 0, 1, ..., so the bytes are those of the plain loop over
 * l outside m.
 */
RFX_SIMD_CLONES
static void dirf_row(const struct rfx_draw *w, const double *x, int M,
		     const double *shift, double base, double g,
		     const double *colconst, double ls, const double *clz,
		     const unsigned char *czneg, const double *cxx, double *lm,
		     double *neg)
{
	const size_t cap = (size_t)w->cap;
	double lzb[DIRF_CHUNK], xx = 0.0, c;
	unsigned char znb[DIRF_CHUNK];
	int d = w->d, l0, l, m, m8 = M & ~7;

#pragma omp simd
	for (m = 0; m < M; m++) {
		lm[m] = colconst[m];
		neg[m] = 0.0;
	}
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
		for (m = 0; m < m8; m += 8)
			dirf_block8(w->omega + (size_t)l0 * cap + (size_t)m, cap, lz,
				    zneg, nl, lm + m, neg + m);
		if (m8 == M)
			continue;
		for (l = 0; l < nl; l++) {
			const double *om = w->omega + (size_t)(l0 + l) * cap;

			for (m = m8; m < M; m++) {
				double t = om[m] * lz[l];

				lm[m] += om[m] != 0.0 ? t : 0.0;
			}
			if (zneg[l])
				for (m = m8; m < M; m++) {
					double odd = om[m] - 2.0 * floor(0.5 * om[m]);

					neg[m] = odd == 1.0 ? 1.0 - neg[m] : neg[m];
				}
		}
	}
	if (cxx)
		xx = *cxx;
	c = base - 0.5 * xx + ls;
#pragma omp simd
	for (m = 0; m < M; m++)
		lm[m] += c;
}

void rfx_dirf_features(struct rfx_featmat *F, const struct rfx_draw *w,
		       const double *X, size_t n, int M, const double *shift,
		       double base, double g, const double *colconst)
{
	const struct dirf_slot *c = dirf_cache(F, w, X, n, shift, g);
	const size_t d = (size_t)w->d;
	double ls = -0.5 * log((double)M);
	size_t i;

	/*
	 * The log-moduli go straight into re, converted in place: through
	 * F->work, a third n x M array, the DIRF runs of Tables 6.2-6.3
	 * (chunks of 1024 rows) took 28% longer.
	 */
	for (i = 0; i < n; i++)
		dirf_row(w, X + i * d, M, shift, base, g, colconst, ls,
			 c ? c->lz + i * d : NULL, c ? c->zneg + i * d : NULL,
			 c ? c->xx + i : NULL, F->re + i * (size_t)M,
			 F->im + i * (size_t)M);
	rfx_featmat_from_log_signed(F, n, M, F->re, F->im);
}

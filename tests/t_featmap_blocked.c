/*
 * The fused feature maps (lib/est/featmap.h: rfx_featmat_trig, rfx_featmat_exp,
 * and through them the features of trig, pos and oprf) against a reference
 * written out here: projections as plain dot products, libm's cos, sin and
 * exp, and the log-features compared in the log domain so that rows of
 * huge norm (|x|^2 up to 2500, features up to e^{+-5000}) are checked too.
 * Also: the representation contract (scales, moduli <= 1, an exact 1 at
 * each row maximum, zeros only where the reference underflows), shapes
 * across block boundaries, M = 1, zero rows, the angular hybrids' map
 * (rfx_featmat_hybrid: [T, a (x) T, P, i a (x) P]/sqrt 2 entry by entry),
 * bit-identical results for 1, 2 and 3 threads and inside a parallel
 * region, and OpenBLAS's thread count left as it was.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "est/estimator.h"
#include "est/featmap.h"
#include "base/rng.h"

#define PI 3.14159265358979323846

/* Box-Muller (gsl_randist.h would clash with OpenBLAS' cblas.h). */
static double gauss(const gsl_rng *r)
{
	double u = gsl_rng_uniform_pos(r), v = gsl_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

/*
 * n rows of dimension d with norms spread over [0.1, 3], a zero row (row
 * 1), and every 97th row of norm 50 (|x|^2 = 2500).
 */
static double *make_inputs(const gsl_rng *r, size_t n, int d)
{
	double *X = malloc(n * (size_t)d * sizeof(*X));
	size_t i;
	int l;

	for (i = 0; X && i < n; i++) {
		double s = 0.0, target = i % 97 == 3 ? 50.0 :
					 0.1 + 2.9 * gsl_rng_uniform(r);
		double *x = X + i * (size_t)d;

		for (l = 0; l < d; l++) {
			x[l] = gauss(r);
			s += x[l] * x[l];
		}
		for (l = 0; l < d; l++)
			x[l] *= i == 1 ? 0.0 : target / sqrt(s);
	}
	return X;
}

/* omega_m . x and sum_l |omega_lm x_l| (the rounding scale of the former). */
static double proj(const struct rfx_draw *w, const double *x, int m,
		   double *abssum)
{
	double s = 0.0, a = 0.0;
	int l;

	for (l = 0; l < w->d; l++) {
		double t = w->omega[(size_t)l * (size_t)w->cap + m] * x[l];

		s += t;
		a += fabs(t);
	}
	*abssum = a;
	return s;
}

static double norm2(const double *x, int d)
{
	double s = 0.0;
	int l;

	for (l = 0; l < d; l++)
		s += x[l] * x[l];
	return s;
}

/* Bitwise equality of the first n rows of two feature matrices. */
static int same_bits(const struct rfx_featmat *F, const struct rfx_featmat *G,
		     size_t n, int D, int cplx)
{
	size_t nd = n * (size_t)D;

	return F->n == G->n && F->D == G->D &&
	       F->is_complex == G->is_complex &&
	       !memcmp(F->re, G->re, nd * sizeof(double)) &&
	       (!cplx || !memcmp(F->im, G->im, nd * sizeof(double))) &&
	       !memcmp(F->lscale, G->lscale, n * sizeof(double));
}

/*
 * Checks rfx_featmat_exp's output F for b, a, c, e against the reference
 * log-features v_m = b w_m.x + a_m + c|x|^2 + e: in the log domain where
 * re > 0, and re = 0 only where v_m is over 700 below the row maximum.
 */
static void check_exp(const char *label, const struct rfx_featmat *F,
		      const struct rfx_draw *w, const double *X, size_t n,
		      int M, double b, const double *a, double c, double e)
{
	double worst = 0.0, *v = malloc((size_t)M * sizeof(*v));
	double *tol = malloc((size_t)M * sizeof(*tol));
	int shape = F->n == n && F->D == M && F->is_complex == 0;
	int contract = 1, zeros = 1, ones = 1;
	size_t i;
	int m;

	for (i = 0; v && tol && i < n; i++) {
		const double *x = X + i * (size_t)w->d;
		const double *re = F->re + i * (size_t)M;
		double xx = norm2(x, w->d), vmax = -INFINITY, remax = 0.0;

		for (m = 0; m < M; m++) {
			double as, p = proj(w, x, m, &as);

			v[m] = b * p + (a ? a[m] : 0.0) + c * xx + e;
			tol[m] = 1e-13 * (1.0 + fabs(b) * as +
					  (a ? fabs(a[m]) : 0.0) +
					  fabs(c) * xx + fabs(e));
			vmax = v[m] > vmax ? v[m] : vmax;
		}
		for (m = 0; m < M; m++) {
			if (!(re[m] >= 0.0 && re[m] <= 1.0))
				contract = 0;
			remax = re[m] > remax ? re[m] : remax;
			if (re[m] == 0.0) {
				if (v[m] - vmax > -700.0)
					zeros = 0;
				continue;
			}
			{
				double err = fabs(log(re[m]) + F->lscale[i] -
						  v[m]) / tol[m];

				worst = err > worst ? err : worst;
			}
		}
		if (remax != 1.0)
			ones = 0;
	}
	ok(shape, "%s: n, D, real", label);
	ok(contract, "%s: every re in [0, 1]", label);
	ok(ones, "%s: each row's largest feature is exactly 1", label);
	ok(worst <= 1.0,
	   "%s: log re + lscale = b w.x + a + c|x|^2 + e (worst %.2g of tol)",
	   label, worst);
	ok(zeros, "%s: zeros only where the feature underflows (> 700 below "
		  "the row maximum)", label);
	free(v);
	free(tol);
}

/* Checks rfx_featmat_trig's output F against libm on plain projections. */
static void check_trig(const char *label, const struct rfx_featmat *F,
		       const struct rfx_draw *w, const double *X, size_t n,
		       int M, double sgn, double ls)
{
	double worst = 0.0;
	int shape = F->n == n && F->D == M && F->is_complex == 1;
	int scale = 1;
	size_t i;
	int m;

	for (i = 0; i < n; i++) {
		const double *x = X + i * (size_t)w->d;

		if (F->lscale[i] != ls)
			scale = 0;
		for (m = 0; m < M; m++) {
			double as, p = proj(w, x, m, &as);
			double tol = 1e-14 * (1.0 + as);
			double er = fabs(F->re[i * (size_t)M + m] - cos(p)) / tol;
			double ei = fabs(F->im[i * (size_t)M + m] -
					 sgn * sin(p)) / tol;

			worst = er > worst ? er : worst;
			worst = ei > worst ? ei : worst;
		}
	}
	ok(shape, "%s: n, D, complex", label);
	ok(scale, "%s: lscale = %.6g on every row", label, ls);
	ok(worst <= 1.0,
	   "%s: re = cos w.x, im = %+g sin w.x (worst %.2g of tol)", label,
	   sgn, worst);
}

static void test_block_rows(void)
{
	static const int Ms[] = { 1, 7, 37, 128, 256, 1000, 4096, 100000 };
	int k, good = 1;

	for (k = 0; k < (int)(sizeof(Ms) / sizeof(Ms[0])); k++) {
		size_t B = rfx_featmat_block_rows(Ms[k]);

		if (B < 8 || B % 8 || (B > 8 && B * (size_t)Ms[k] > 32768))
			good = 0;
	}
	ok(good, "block rows: a multiple of 8, at least 8, at most 32768 "
		 "elements unless 8 rows");
}

/*
 * M Gaussian columns of dimension d into w, and column constants a_m
 * around -0.3 m / M for the exp maps.
 */
static void gaussian_draw(const gsl_rng *r, struct rfx_draw *w, int d, int M,
			  double *a)
{
	size_t k;
	int m;

	for (k = 0; k < (size_t)d * (size_t)M; k++)
		w->omega[k] = gauss(r);
	for (m = 0; m < M; m++)
		a[m] = -0.3 * m / M + 0.1 * gauss(r);
	w->ncols = M;
}

/*
 * The direct calls on n rows across several blocks, with a partial last
 * block, M not a multiple of the vector width, and both signs.
 */
static void test_direct(const gsl_rng *r, size_t n, int d, int M)
{
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat *F = rfx_featmat_alloc(n, M), *F2 = NULL;
	struct rfx_draw *w2 = NULL;
	double *X = make_inputs(r, n, d), *a = malloc((size_t)M * sizeof(*a));
	char label[96];
	size_t k;
	int m;

	if (!w || !F || !X || !a) {
		ok(0, "allocation");
		goto out;
	}
	gaussian_draw(r, w, d, M, a);

	snprintf(label, sizeof(label), "trig n=%zu d=%d M=%d (%zu-row blocks)",
		 n, d, M, rfx_featmat_block_rows(M));
	rfx_featmat_trig(F, w, X, n, M, 1.0, -0.5 * log((double)M));
	check_trig(label, F, w, X, n, M, 1.0, -0.5 * log((double)M));
	snprintf(label, sizeof(label), "trig sgn=-1 n=%zu d=%d M=%d", n, d, M);
	rfx_featmat_trig(F, w, X, n, M, -1.0, 0.25);
	check_trig(label, F, w, X, n, M, -1.0, 0.25);
	if (n > 1)
		ok(F->re[1 * (size_t)M] == 1.0 && F->im[1 * (size_t)M] == 0.0,
		   "trig: the zero row (row 1) has features exactly 1 + 0i");

	snprintf(label, sizeof(label), "exp b=1 a=0 c=-1 n=%zu d=%d M=%d", n,
		 d, M);
	rfx_featmat_exp(F, w, X, n, M, 1.0, NULL, -1.0, -0.5 * log((double)M));
	check_exp(label, F, w, X, n, M, 1.0, NULL, -1.0,
		  -0.5 * log((double)M));
	snprintf(label, sizeof(label), "exp b=0.83 a, c=-1 n=%zu d=%d M=%d", n,
		 d, M);
	rfx_featmat_exp(F, w, X, n, M, 0.83, a, -1.0, 1.7);
	check_exp(label, F, w, X, n, M, 0.83, a, -1.0, 1.7);

	/* Paired: the reference is the plain map on [omega, -omega]. */
	w2 = rfx_draw_alloc(d, 2 * M);
	F2 = rfx_featmat_alloc(n, 2 * M);
	if (!w2 || !F2) {
		ok(0, "allocation");
		goto out;
	}
	for (k = 0; k < (size_t)d; k++)
		for (m = 0; m < M; m++) {
			w2->omega[k * (size_t)w2->cap + (size_t)m] =
				w->omega[k * (size_t)w->cap + (size_t)m];
			w2->omega[k * (size_t)w2->cap + (size_t)(M + m)] =
				-w->omega[k * (size_t)w->cap + (size_t)m];
		}
	w2->ncols = 2 * M;
	snprintf(label, sizeof(label), "exp paired c=-1 n=%zu d=%d M=%d", n, d, M);
	rfx_featmat_exp_paired(F2, w, X, n, M, -1.0, 0.3);
	check_exp(label, F2, w2, X, n, 2 * M, 1.0, NULL, -1.0, 0.3);
out:
	rfx_draw_free(w);
	rfx_draw_free(w2);
	rfx_featmat_free(F);
	rfx_featmat_free(F2);
	free(X);
	free(a);
}

/*
 * Whether F's rows i0.. equal G's rows 0..n-1 bit for bit (re, im where
 * complex, lscale).
 */
static int same_rows(const struct rfx_featmat *F, size_t i0,
		     const struct rfx_featmat *G, size_t n)
{
	size_t D = (size_t)F->D, nb = n * D * sizeof(double);

	return F->D == G->D && F->is_complex == G->is_complex &&
	       !memcmp(F->re + i0 * D, G->re, nb) &&
	       (!F->is_complex || !memcmp(F->im + i0 * D, G->im, nb)) &&
	       !memcmp(F->lscale + i0, G->lscale, n * sizeof(double));
}

/*
 * Outputs of 2^19 entries and more take another path (the product into
 * per-thread scratch, streaming stores into the output): the same bits as
 * the same rows mapped 200 at a time, below that size.
 */
static void test_large(const gsl_rng *r)
{
	size_t n = 2100, i0, P = 200; /* 2100 x 256 >= 2^19 > 200 x 256 */
	int d = 16, M = 256, kind, good[4] = { 1, 1, 1, 1 };
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat *F = rfx_featmat_alloc(n, M);
	struct rfx_featmat *G = rfx_featmat_alloc(P, M);
	double *X = make_inputs(r, n, d), *a = malloc((size_t)M * sizeof(*a));
	static const char *const what[] = {
		"trig sgn=+1", "trig sgn=-1", "exp with column constants",
		"exp paired",
	};

	if (!w || !F || !G || !X || !a) {
		ok(0, "allocation");
		goto out;
	}
	gaussian_draw(r, w, d, M, a);
	for (kind = 0; kind < 4; kind++)
		for (i0 = 0; i0 < n; i0 += P) {
			size_t c = n - i0 < P ? n - i0 : P;
			const double *Xc = X + i0 * (size_t)d;

			switch (kind) {
			case 0:
			case 1:
				if (i0 == 0)
					rfx_featmat_trig(F, w, X, n, M, kind ? -1.0 : 1.0, 0.5);
				rfx_featmat_trig(G, w, Xc, c, M, kind ? -1.0 : 1.0, 0.5);
				break;
			case 2:
				if (i0 == 0)
					rfx_featmat_exp(F, w, X, n, M, 0.83, a, -1.0, 1.7);
				rfx_featmat_exp(G, w, Xc, c, M, 0.83, a, -1.0, 1.7);
				break;
			default:
				if (i0 == 0)
					rfx_featmat_exp_paired(F, w, X, n, M / 2, -1.0, 0.3);
				rfx_featmat_exp_paired(G, w, Xc, c, M / 2, -1.0, 0.3);
			}
			good[kind] &= same_rows(F, i0, G, c);
		}
	for (kind = 0; kind < 4; kind++)
		ok(good[kind], "%s on %zu x %d (scratch, streamed) = %zu rows at "
		   "a time, bit for bit", what[kind], n, M, P);
out:
	rfx_draw_free(w);
	rfx_featmat_free(F);
	rfx_featmat_free(G);
	free(X);
	free(a);
}

/*
 * The estimators' features hooks (both sides) against their formulas:
 * trig exp(+-i w.x)/sqrt(M); pos exp(w.x - |x|^2)/sqrt(M); oprf
 * D exp(A|w|^2 + B w.x - |x|^2)/sqrt(M), B = sqrt(1 - 4A),
 * D = (1 - 4A)^{d/4}.
 */
static void test_estimators(const gsl_rng *r)
{
	size_t n = 300;
	int d = 16, M = 40, m, l;
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat *F = rfx_featmat_alloc(n, M);
	double *X = make_inputs(r, n, d), *a = malloc((size_t)M * sizeof(*a));
	double ls = -0.5 * log((double)M), A = -0.21, B, D;
	struct rfx_params p;
	struct rfx_err err;

	rfx_params_init(&p, d);
	if (!w || !F || !X || !a ||
	    rfx_est_trig.draw(r, RFX_PROJ_IID, &p, M, w, &err)) {
		ok(0, "allocation");
		goto out;
	}
	ok(!rfx_est_trig.features(&p, w, 1, X, n, M, F, &err), "trig side 1");
	check_trig("trig side 1", F, w, X, n, M, 1.0, ls);
	ok(!rfx_est_trig.features(&p, w, 2, X, n, M, F, &err), "trig side 2");
	check_trig("trig side 2", F, w, X, n, M, -1.0, ls);
	ok(!rfx_est_pos.features(&p, w, 2, X, n, M, F, &err), "pos features");
	check_exp("pos", F, w, X, n, M, 1.0, NULL, -1.0, ls);

	p.A_re = A;
	p.A_im = 0.0;
	p.t = 1;
	p.given = RFX_P(RFX_PARAM_A);
	B = sqrt(1.0 - 4.0 * A);
	D = 0.25 * d * log(1.0 - 4.0 * A);
	for (m = 0; m < M; m++) {
		a[m] = 0.0;
		for (l = 0; l < d; l++) {
			double o = w->omega[(size_t)l * (size_t)w->cap + m];

			a[m] += o * o;
		}
		a[m] *= A;
	}
	ok(!rfx_est_oprf.features(&p, w, 1, X, n, M, F, &err),
	   "oprf features");
	check_exp("oprf A=-0.21", F, w, X, n, M, B, a, -1.0, D + ls);
out:
	rfx_params_release(&p);
	rfx_draw_free(w);
	rfx_featmat_free(F);
	free(X);
	free(a);
}

/*
 * rfx_featmat_hybrid against the map written out entry by entry from dot
 * products and libm: each entry as (log-modulus, direction), compared on
 * the row's scale, for the three kinds of map (PosRF or cosh P, shared or
 * independent projections), several (m1, m3), both sides, and rows of
 * every norm (|x|^2 to 2500) and a zero row; the features of hyb, ang
 * and ang-ind are this map.
 */
static void test_hybrid(const gsl_rng *r)
{
	static const int counts[][2] = { { 1, 1 }, { 3, 2 }, { 8, 8 }, { 5, 11 } };
	size_t n = 400, i;
	int d = 12, q, kind, side;
	double *X = make_inputs(r, n, d);
	struct rfx_draw *w = rfx_draw_alloc(d, 64);
	size_t k;

	if (!X || !w) {
		ok(0, "allocation");
		goto out;
	}
	for (k = 0; k < (size_t)d * 64; k++)
		w->omega[k] = gauss(r);
	for (kind = 0; kind < 3; kind++)
		for (q = 0; q < 4; q++) {
			struct rfx_hybmap h = { counts[q][0], counts[q][1],
						kind > 0, kind < 2 };
			int m1 = h.m1, m3 = h.m3, D = rfx_hybmap_dim(&h);
			int pc = h.posh ? 2 * m1 : m1, nb = h.shared ? m1 : 2 * m1;
			struct rfx_featmat *F = rfx_featmat_alloc(n, D);
			double worst = 0.0, wscale = 0.0;
			int pass = F != NULL;

			for (side = 1; F && side <= 2; side++) {
				double sgn = side == 1 ? 1.0 : -1.0;

				rfx_featmat_hybrid(F, w, X, n, &h, sgn);
				pass &= F->n == n && F->D == D && F->is_complex;
				for (i = 0; i < n; i++) {
					const double *x = X + i * (size_t)d;
					double xx = norm2(x, d), ab, top = -INFINITY;
					double lt = -0.5 * log((double)m1) - 0.5 * log(2.0);
					double la = -0.5 * log((double)m3);
					double lm[2048], dr[2048], di[2048];
					int e = 0, j, l;

					/* T, then a (x) T */
					for (l = -1; l < m3; l++) {
						double sl = l < 0 ? 1.0 : proj(w, x, nb + l, &ab);

						sl = (sl > 0.0) - (sl < 0.0);
						for (j = 0; j < m1; j++, e++) {
							double pt = proj(w, x, j, &ab);

							lm[e] = l < 0 ? lt : (sl != 0.0 ? lt + la : -INFINITY);
							dr[e] = (l < 0 ? 1.0 : sl) * cos(pt);
							di[e] = (l < 0 ? 1.0 : sl) * sgn * sin(pt);
						}
					}
					/* P, then i a (x) P */
					for (l = -1; l < m3; l++) {
						double sl = l < 0 ? 1.0 : proj(w, x, nb + l, &ab);

						sl = (sl > 0.0) - (sl < 0.0);
						for (j = 0; j < pc; j++, e++) {
							double pp = proj(w, x, (h.shared ? 0 : m1) + (h.posh ? j / 2 : j), &ab);
							double v = (h.posh && (j & 1) ? -pp : pp) - xx -
								   0.5 * log((double)pc) - 0.5 * log(2.0);

							lm[e] = l < 0 ? v : (sl != 0.0 ? v + la : -INFINITY);
							dr[e] = l < 0 ? 1.0 : 0.0;
							di[e] = l < 0 ? 0.0 : sl;
						}
					}
					pass &= e == D;
					for (e = 0; e < D; e++)
						top = lm[e] > top ? lm[e] : top;
					wscale = fabs(F->lscale[i] - top) > wscale
							 ? fabs(F->lscale[i] - top) : wscale;
					for (e = 0; e < D; e++) {
						double mod = lm[e] == -INFINITY ? 0.0 : exp(lm[e] - top);
						double er = fabs(F->re[i * D + e] - mod * dr[e]);
						double ei = fabs(F->im[i * D + e] - mod * di[e]);

						worst = er > worst ? er : worst;
						worst = ei > worst ? ei : worst;
					}
				}
			}
			diag("hybrid map (%s P, %s, m1 = %d, m3 = %d): scales within "
			     "%.3g, entries within %.3g of the row's largest",
			     h.posh ? "cosh" : "PosRF",
			     h.shared ? "shared" : "independent", m1, m3, wscale,
			     worst);
			ok(pass && wscale <= 1e-10 && worst <= 1e-11,
			   "hybrid map (%s P, %s, m1 = %d, m3 = %d): each entry as "
			   "written out", h.posh ? "cosh" : "PosRF",
			   h.shared ? "shared" : "independent", m1, m3);
			rfx_featmat_free(F);
		}
out:
	rfx_draw_free(w);
	free(X);
}

/*
 * Bit-identical features for 1, 2 and 3 OpenMP threads, and when called
 * from inside a parallel region; OpenBLAS's thread count is restored.
 */
static void test_threads(const gsl_rng *r)
{
	size_t n = 1500;
	int d = 24, M = 100, kind, t;
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat *F[4] = { NULL, NULL, NULL, NULL };
	double *X = make_inputs(r, n, d);
	size_t k;

	/* capacity for the hybrid map of m1 = m3 = 8 too (216 entries) */
	for (t = 0; t < 4; t++)
		F[t] = rfx_featmat_alloc(n, 216);
	if (!w || !X || !F[0] || !F[1] || !F[2] || !F[3]) {
		ok(0, "allocation");
		goto out;
	}
	for (k = 0; k < (size_t)d * (size_t)M; k++)
		w->omega[k] = gauss(r);
	for (kind = 0; kind < 3; kind++) {
		const char *name = kind == 2 ? "hybrid" : kind ? "exp" : "trig";
		struct rfx_hybmap h = { 8, 8, 1, 1 };
		int Dk = kind == 2 ? rfx_hybmap_dim(&h) : M;
		int blas0 = openblas_get_num_threads(), same = 1;

#ifdef _OPENMP
		for (t = 0; t < 3; t++) {
			omp_set_num_threads(t + 1);
#else
		for (t = 0; t < 1; t++) {
#endif
			if (kind == 2)
				rfx_featmat_hybrid(F[t], w, X, n, &h, -1.0);
			else if (kind)
				rfx_featmat_exp(F[t], w, X, n, M, 0.9, NULL,
						-1.0, 0.0);
			else
				rfx_featmat_trig(F[t], w, X, n, M, 1.0, 0.0);
			if (t > 0 && !same_bits(F[0], F[t], n, Dk, kind != 1))
				same = 0;
		}
		ok(same, "%s: bit-identical for 1, 2 and 3 threads (%zu rows, "
			 "%zu-row blocks)", name, n, rfx_featmat_block_rows(Dk));
		ok(openblas_get_num_threads() == blas0,
		   "%s: OpenBLAS thread count left at %d", name, blas0);
		/* Inside a region the caller keeps OpenBLAS at one thread. */
		openblas_set_num_threads(1);
#ifdef _OPENMP
		omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
#pragma omp single
#endif
		{
			if (kind == 2)
				rfx_featmat_hybrid(F[3], w, X, n, &h, -1.0);
			else if (kind)
				rfx_featmat_exp(F[3], w, X, n, M, 0.9, NULL,
						-1.0, 0.0);
			else
				rfx_featmat_trig(F[3], w, X, n, M, 1.0, 0.0);
		}
		openblas_set_num_threads(blas0);
		ok(same_bits(F[0], F[3], n, Dk, kind != 1),
		   "%s: bit-identical when called inside a parallel region "
		   "(OpenBLAS at one thread, as rfx_varexp_run has it)", name);
	}
out:
	rfx_draw_free(w);
	for (t = 0; t < 4; t++)
		rfx_featmat_free(F[t]);
	free(X);
}

int main(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(4242, 9, 1, 0);

	gsl_set_error_handler_off();
	test_block_rows();
	test_direct(r, 1, 3, 1);
	test_direct(r, 5, 3, 1);
	test_direct(r, 700, 9, 37);
	test_direct(r, 1000, 64, 256);
	test_estimators(r);
	test_hybrid(r);
	test_threads(r);
	test_large(r);
	gsl_rng_free(r);
	return done_testing();
}

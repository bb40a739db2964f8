/*
 * The float32 feature maps (lib/est/featmap32.h, the features32 hooks of
 * trig, pos, oprf and sderf) against the float64 maps of the same draw,
 * entry by entry, within bounds derived from float epsilon u = 2^-24 and
 * the condition of each map (not from measured errors):
 *
 * - a projection w.x computed from the rounded x and w by d FMAs is off
 *   by at most (d + 2) u S, S = sum_l |w_l x_l| (Higham, Accuracy and
 *   Stability, eq. 3.5, plus one rounding of each factor);
 * - trig: cos and sin have slope at most 1, so a feature is off by that
 *   plus 2 ulp of sincosf (2u for values of modulus <= 1) and the
 *   float64 map's own error (negligible);
 * - the positive maps: log f = v - max v + lscale, v = b w.x + a_m, so
 *   log f is off by |b| (d + 2) u S + |c| (d + 2) u |x|^2 (the row term)
 *   + 3u |a_m| (a rounded, from a rounded w) + u (|v| + |max v|) (the
 *   shift) + 3u (expf's 1.5 ulp); compared where the scaled float64
 *   feature is above 2^-100 of its row's largest (below 2^-126 float32
 *   flushes to 0, and a zero there is checked as such);
 * - sderf: the same with c = -1 and (B^T w).x for w.x (lib/est/derf.c),
 *   B^T w summed in double from the rounded w and rounded once (off by
 *   2u sum_l |B_lk w_l|): (d + 4) u S' for (d + 2) u S, S' = sum_k |x_k|
 *   sum_l |B_lk w_l|.
 *
 * Inputs of norms 0.5 to 16 (so |x|^2 to 256, where exp(w.x) alone would
 * overflow float). Also the draw's rounding, the representation (scaled
 * moduli <= 1), a Monte Carlo check of the float32 kernel estimates as
 * for float64 (|mean - K| / stderr <= 3 over independent draws), and
 * bit-identical rows for 1 and 2 threads.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "base/rng.h"
#include "est/derf.h"
#include "est/estimator.h"
#include "est/featmap32.h"
#include "num/gemm.h"

#define PI 3.14159265358979323846
#define U 0x1p-24 /* float's unit roundoff */

static double gauss(const gsl_rng *r)
{
	double u = gsl_rng_uniform_pos(r), v = gsl_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

/* n rows of dimension d, row i of norm norms[i % nn]. */
static void make_inputs(const gsl_rng *r, double *X, size_t n, int d,
			const double *norms, int nn)
{
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		double *x = X + i * (size_t)d, s = 0.0;

		for (l = 0; l < d; l++) {
			x[l] = gauss(r);
			s += x[l] * x[l];
		}
		for (l = 0; l < d; l++)
			x[l] *= norms[i % (size_t)nn] / sqrt(s);
	}
}

static const double norms[] = { 0.5, 1.0, 2.0, 4.0, 8.0, 16.0 };
#define NNORMS 6

/* Everything one estimator's comparison needs. */
struct setup {
	const struct rfx_estimator_type *e;
	struct rfx_params p;
	struct rfx_draw *w;
	struct rfx_draw32 *w32;
	struct rfx_featmat *F;
	struct rfx_featmat32 *G;
	double *X;
	float *X32;
	size_t n;
	int d, M;
};

static int setup_init(struct setup *s, const struct rfx_estimator_type *e,
		      size_t n, int d, int M, unsigned long seed)
{
	gsl_rng *r = rfx_rng_alloc_stream(seed, 23, 0, 0);
	struct rfx_err err;
	size_t i;
	int ret = 1;

	memset(s, 0, sizeof(*s));
	s->e = e;
	s->n = n;
	s->d = d;
	s->M = M;
	rfx_params_init(&s->p, d);
	s->w = rfx_draw_alloc(d, M);
	s->F = rfx_featmat_alloc(n, M);
	s->G = rfx_featmat32_alloc(n, M);
	s->X = malloc(n * (size_t)d * sizeof(double));
	s->X32 = malloc(n * (size_t)d * sizeof(float));
	if (!r || !s->w || !s->F || !s->G || !s->X || !s->X32)
		goto out;
	make_inputs(r, s->X, n, d, norms, 3); /* fit on the small norms */
	if (e->fit(&s->p, s->X, n, s->X, n, M, &err) ||
	    e->draw(r, RFX_PROJ_IID, &s->p, M, s->w, &err))
		goto out;
	make_inputs(r, s->X, n, d, norms, NNORMS);
	for (i = 0; i < n * (size_t)d; i++)
		s->X32[i] = (float)s->X[i];
	s->w32 = rfx_draw32_alloc(s->w);
	ret = !s->w32;
out:
	if (r)
		gsl_rng_free(r);
	return ret;
}

static void setup_release(struct setup *s)
{
	rfx_params_release(&s->p);
	rfx_draw_free(s->w);
	rfx_draw32_free(s->w32);
	rfx_featmat_free(s->F);
	rfx_featmat32_free(s->G);
	free(s->X);
	free(s->X32);
}

/* S = sum_l |w_lm| |z_l| for column m of w and a vector z. */
static double abs_dot(const struct rfx_draw *w, int m, const double *z)
{
	double s = 0.0;
	int l;

	for (l = 0; l < w->d; l++)
		s += fabs(w->omega[(size_t)l * (size_t)w->cap + (size_t)m] * z[l]);
	return s;
}

/* The trig map on both sides against float64 within its bound. */
static void test_trig(void)
{
	struct setup s;
	struct rfx_err err;
	struct rfx_featmat32 *H;
	int side, good = 1, m;
	double worst = 0.0, wn = 0.0;
	size_t nd;

	if (setup_init(&s, &rfx_est_trig, 203, 64, 100, 5)) {
		ok(0, "trig float32: setup");
		return;
	}
	H = rfx_featmat32_alloc(s.n, s.M);
	nd = s.n * (size_t)s.M;
	if (H) {
		size_t k;
		int same = 1;

		s.e->features32(&s.p, s.w32, 1, s.X32, s.n, s.M, H, &err);
		s.e->features32(&s.p, s.w32, 2, s.X32, s.n, s.M, s.G, &err);
		for (k = 0; k < nd; k++)
			same &= s.G->re[k] == H->re[k] && s.G->im[k] == -H->im[k];
		ok(same, "trig float32: side 2 is side 1's conjugate, bit for bit");
		rfx_featmat32_free(H);
	}
	for (side = 1; side <= 2; side++) {
		size_t i;

		s.e->features(&s.p, s.w, side, s.X, s.n, s.M, s.F, &err);
		s.e->features32(&s.p, s.w32, side, s.X32, s.n, s.M, s.G, &err);
		good &= s.G->n == s.n && s.G->D == s.M && s.G->is_complex;
		for (i = 0; i < s.n; i++) {
			const double *x = s.X + i * (size_t)s.d;

			good &= s.G->lscale[i] == s.F->lscale[i];
			for (m = 0; m < s.M; m++) {
				size_t k = i * (size_t)s.M + (size_t)m;
				double b = (s.d + 2) * U * abs_dot(s.w, m, x) + 2.0 * U + 1e-14;
				double er = fabs(s.G->re[k] - s.F->re[k]);
				double ei = fabs(s.G->im[k] - s.F->im[k]);
				double q = (er > ei ? er : ei) / b;

				good &= q <= 1.0;
				if (q > worst) {
					worst = q;
					wn = norms[i % NNORMS];
				}
			}
		}
	}
	diag("trig float32: worst error %.3g of its bound (at |x| = %g)", worst, wn);
	ok(good, "trig float32: re and im within (d + 2) u sum|w_l x_l| + 2u "
	   "of float64, both sides, norms 0.5-16");
	setup_release(&s);
}

/*
 * A positive map (pos, oprf, sderf) against float64 in the log domain.
 * b, c: the map's factor of w.x and of |x|^2; a_m: its column constants
 * (NULL for none); sderf: t = B x replaces x in the projection.
 */
static void test_positive(const struct rfx_estimator_type *e, unsigned long seed)
{
	struct setup s;
	struct rfx_err err;
	int good = 1, m, l, zeros = 0;
	double worst = 0.0, wn = 0.0, b = 1.0, c = -1.0;
	double *a = NULL, *t = NULL, *dt = NULL, *v = NULL;
	size_t i;
	int dense = e->features == rfx_est_sderf.features;

	if (setup_init(&s, e, 211, 64, 120, seed)) {
		ok(0, "%s float32: setup", e->name);
		return;
	}
	a = calloc((size_t)s.M, sizeof(double));
	t = malloc((size_t)s.d * sizeof(double));
	dt = malloc((size_t)s.d * sizeof(double));
	v = malloc((size_t)s.M * sizeof(double));
	if (e == &rfx_est_oprf) {
		/* OPRF (thesis sec. 6.3, t = +1): B = sqrt(1 - 4A), C = -1 */
		b = sqrt(1.0 - 4.0 * s.p.A_re);
		for (m = 0; m < s.M; m++) {
			double q = 0.0;

			for (l = 0; l < s.d; l++) {
				double o = s.w->omega[(size_t)l * s.w->cap + m];

				q += o * o;
			}
			a[m] = s.p.A_re * q;
		}
	}
	if (dense) {
		const double *al = rfx_derf_a(&s.p);

		b = 1.0;
		c = -1.0; /* B^T P B = I: the t terms are |x|^2 (derf.c) */
		for (m = 0; m < s.M; m++)
			for (l = 0; l < s.d; l++) {
				double o = s.w->omega[(size_t)l * s.w->cap + m];

				a[m] += al[l] * o * o;
			}
	}
	e->features(&s.p, s.w, 1, s.X, s.n, s.M, s.F, &err);
	e->features32(&s.p, s.w32, 1, s.X32, s.n, s.M, s.G, &err);
	good &= s.G->n == s.n && s.G->D == s.M && !s.G->is_complex;
	for (i = 0; i < s.n; i++) {
		const double *x = s.X + i * (size_t)s.d, *z = x;
		double xx = 0.0, vmax = -INFINITY;

		for (l = 0; l < s.d; l++)
			xx += x[l] * x[l];
		if (dense) {
			const double *B = rfx_derf_b(&s.p, 1);
			int k;

			for (k = 0; k < s.d; k++) {
				double tk = 0.0;

				for (l = 0; l < s.d; l++)
					tk += B[k * s.d + l] * x[l];
				t[k] = tk;
				dt[k] = fabs(x[k]);
			}
			z = t;
		}
		for (m = 0; m < s.M; m++) {
			double p = 0.0;

			for (l = 0; l < s.d; l++)
				p += s.w->omega[(size_t)l * s.w->cap + m] * z[l];
			v[m] = b * p + a[m];
			vmax = v[m] > vmax ? v[m] : vmax;
		}
		for (m = 0; m < s.M; m++) {
			size_t k = i * (size_t)s.M + (size_t)m;
			double f64 = s.F->re[k], f32 = s.G->re[k], bound, q;
			double S = abs_dot(s.w, m, z);

			good &= f32 >= 0.0f && f32 <= 1.0f;
			if (dense) { /* S' (d + 4)/(d + 2), as the header says */
				const double *B = rfx_derf_b(&s.p, 1);
				int k;

				for (S = 0.0, k = 0; k < s.d; k++)
					for (l = 0; l < s.d; l++)
						S += fabs(B[l * s.d + k] *
							  s.w->omega[(size_t)l * s.w->cap + m]) * dt[k];
				S *= (s.d + 4.0) / (s.d + 2.0);
			}
			if (!(f64 > 0x1p-100)) {
				zeros++;
				good &= f32 <= 0x1p-99f;
				continue;
			}
			bound = fabs(b) * (s.d + 2) * U * S + fabs(c) * (s.d + 2) * U * xx +
				3.0 * U * fabs(a[m]) +
				U * (fabs(v[m]) + fabs(vmax)) + 3.0 * U + 1e-13;
			q = fabs((log(f32) + s.G->lscale[i]) -
				 (log(f64) + s.F->lscale[i])) / bound;
			good &= q <= 1.0;
			if (q > worst) {
				worst = q;
				wn = norms[i % NNORMS];
			}
		}
	}
	diag("%s float32: worst log error %.3g of its bound (at |x| = %g); %d "
	     "entries below 2^-100 of their row's largest", e->name, worst, wn,
	     zeros);
	ok(good, "%s float32: log-features within the bound of float64, "
	   "scaled features in [0, 1], norms 0.5-16", e->name);
	free(a);
	free(t);
	free(dt);
	free(v);
	setup_release(&s);
}

/*
 * The float32 kernel estimates Re sum_j Phi1(x)_j Phi2(y)_j over R
 * independent draws against K(x, y) = exp(-|x - y|^2/2): |mean - K| /
 * stderr <= 3, as the float64 estimates are checked (GSL's randist
 * criterion); the features' float rounding (about 1e-7 relative) is far
 * below the Monte Carlo error of R = 2000 draws.
 */
static void test_mc(const struct rfx_estimator_type *e, int stream)
{
	enum { d = 16, M = 64, R = 2000 };
	gsl_rng *r = rfx_rng_alloc_stream(RFX_DEFAULT_SEED, 23, 1,
					  (uint64_t)stream);
	struct rfx_params p;
	struct rfx_draw *w = rfx_draw_alloc(d, M);
	struct rfx_featmat32 *G1 = rfx_featmat32_alloc(1, M);
	struct rfx_featmat32 *G2 = rfx_featmat32_alloc(1, M);
	struct rfx_featmat *F1 = rfx_featmat_alloc(1, M);
	struct rfx_featmat *F2 = rfx_featmat_alloc(1, M);
	struct rfx_err err;
	double x[d], y[d], sum = 0.0, sum2 = 0.0, K, dd = 0.0, mean, se;
	double sum64 = 0.0, xd[d], yd[d];
	float x32[d], y32[d];
	int l, k, j, good = 1;

	rfx_params_init(&p, d);
	if (!r || !w || !G1 || !G2 || !F1 || !F2) {
		ok(0, "%s float32 Monte Carlo: setup", e->name);
		goto out;
	}
	for (l = 0; l < d; l++) {
		x[l] = 0.3 * sin(1.7 * l + 0.2);
		y[l] = 0.25 * cos(0.9 * l + 1.1);
		x32[l] = (float)x[l];
		y32[l] = (float)y[l];
		xd[l] = x32[l];
		yd[l] = y32[l];
		dd += (xd[l] - yd[l]) * (xd[l] - yd[l]);
	}
	K = exp(-0.5 * dd); /* of the float inputs: they are what is estimated */
	good &= !e->fit(&p, x, 1, y, 1, M, &err);
	for (k = 0; good && k < R; k++) {
		struct rfx_draw32 *w32;
		double s = 0.0;

		good &= !e->draw(r, RFX_PROJ_IID, &p, M, w, &err);
		w32 = rfx_draw32_alloc(w);
		good &= w32 != NULL;
		if (!good)
			break;
		e->features32(&p, w32, 1, x32, 1, M, G1, &err);
		e->features32(&p, w32, 2, y32, 1, M, G2, &err);
		for (j = 0; j < M; j++) {
			s += (double)G1->re[j] * G2->re[j];
			if (G1->is_complex)
				s -= (double)G1->im[j] * G2->im[j];
		}
		s *= exp(G1->lscale[0] + G2->lscale[0]);
		sum += s;
		sum2 += s * s;
		/* the float64 estimate of the same draw and inputs */
		e->features(&p, w, 1, xd, 1, M, F1, &err);
		e->features(&p, w, 2, yd, 1, M, F2, &err);
		{
			double l64;
			int sg;

			rfx_featmat_estimate(F1, 0, F2, 0, &l64, &sg);
			sum64 += sg * exp(l64);
		}
		rfx_draw32_free(w32);
	}
	mean = sum / R;
	se = sqrt((sum2 / R - mean * mean) / (R - 1));
	diag("%s float32: mean of %d estimates %.6f (float64 on the same draws "
	     "%.6f), K = %.6f, stderr %.2g, %.2f stderr off", e->name, R, mean,
	     sum64 / R, K, se, fabs(mean - K) / se);
	ok(good && fabs(mean - K) <= 3.0 * se,
	   "%s float32: Monte Carlo kernel estimate within 3 stderr of K", e->name);
	/*
	 * Per draw the two estimates differ by rounding only: about (d + 4) u
	 * times sum |terms| (at most M e^{lscale1 + lscale2}, here ~ 1).
	 */
	ok(fabs(mean - sum64 / R) <= (d + 4) * U * M * 4.0,
	   "%s float32: the mean within rounding of float64's on the same draws",
	   e->name);
out:
	rfx_params_release(&p);
	rfx_draw_free(w);
	rfx_featmat32_free(G1);
	rfx_featmat32_free(G2);
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	if (r)
		gsl_rng_free(r);
}

/*
 * The draw's rounding; rows that do not depend on the threads; and the
 * maps of outputs beyond 2^19 entries (streaming stores, projections in
 * scratch) against the same rows computed 40 at a time, bit for bit when
 * rfx's own sgemm kernel makes the projections. Without AVX-512 (other
 * CPUs, and valgrind, which hides it) the projections come from OpenBLAS's
 * sgemm, whose kernel choice depends on the row count: a row's products
 * may then differ in their last bits between a 2100-row and a 40-row call,
 * so there the rows must agree to within rounding (rows_close).
 */
/*
 * Whether the rows of a and b (rows x M) agree to within what two
 * summation orders of the float projections allow: each projection
 * omega_m . x is a sum of d products, so two orders differ by at most
 * 2 d FLT_EPSILON sum_i |omega_im x_i| <= 2 d FLT_EPSILON P (the standard
 * bound, P from bound_p), and exp or sincos of it moves a feature by at
 * most that times the row's largest feature (the scale rows are shown in).
 */
static int rows_close(const float *a, const float *b, size_t rows, size_t M,
		      double tol)
{
	size_t i, j;

	for (i = 0; i < rows; i++) {
		double big = 0.0;

		for (j = 0; j < M; j++)
			big = fmax(big, fmax(fabs(a[i * M + j]), fabs(b[i * M + j])));
		for (j = 0; j < M; j++)
			if (fabs((double)a[i * M + j] - b[i * M + j]) > tol * big)
				return 0;
	}
	return 1;
}

/* 2 d FLT_EPSILON P with P = max |omega| times the largest l1 norm of x */
static double bound_p(const struct setup *s)
{
	size_t i, nd = (size_t)s->d * (size_t)s->w32->cap;
	double wmax = 0.0, xmax = 0.0;

	for (i = 0; i < nd; i++)
		wmax = fmax(wmax, fabs(s->w32->omega[i]));
	for (i = 0; i < s->n; i++) {
		double l1 = 0.0;
		int l;

		for (l = 0; l < s->d; l++)
			l1 += fabs(s->X32[i * (size_t)s->d + l]);
		xmax = fmax(xmax, l1);
	}
	return 2.0 * s->d * FLT_EPSILON * wmax * xmax;
}

/* log scales: the shift is a projection too, so the same bound, absolute */
static int lscale_close(const double *a, const double *b, size_t n, double tol)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fabs(a[i] - b[i]) > tol)
			return 0;
	return 1;
}

static void test_draw_and_threads(void)
{
	struct setup s;
	struct rfx_err err;
	size_t i, nd;
	int good = 1, k;
	int exact = strcmp(rfx_gemm_kernel_name(), "openblas") != 0;
	double tol;

	if (setup_init(&s, &rfx_est_pos, 2100, 24, 256, 9)) {
		ok(0, "draw32 and threads: setup");
		return;
	}
	nd = (size_t)s.d * (size_t)s.w->cap;
	for (i = 0; i < nd; i++)
		good &= s.w32->omega[i] == (float)s.w->omega[i];
	ok(good && s.w32->d == s.d && s.w32->cap == s.w->cap,
	   "draw32: every projection is the float64 one rounded to float");
	tol = bound_p(&s);
	for (k = 0; k < 2; k++) {
		const struct rfx_estimator_type *e = k ? &rfx_est_trig : &rfx_est_pos;
		struct rfx_featmat32 *S = rfx_featmat32_alloc(40, s.M);
		size_t i0, M = (size_t)s.M;
		int same = S != NULL;

		e->features32(&s.p, s.w32, 2, s.X32, s.n, s.M, s.G, &err);
		for (i0 = 0; same && i0 + 40 <= s.n; i0 += 40) {
			e->features32(&s.p, s.w32, 2, s.X32 + i0 * (size_t)s.d, 40,
				      s.M, S, &err);
			if (exact)
				same &= !memcmp(S->re, s.G->re + i0 * M, 40 * M * sizeof(float)) &&
					!memcmp(S->lscale, s.G->lscale + i0, 40 * sizeof(double)) &&
					(!k || !memcmp(S->im, s.G->im + i0 * M,
						       40 * M * sizeof(float)));
			else
				same &= rows_close(S->re, s.G->re + i0 * M, 40, M, tol) &&
					lscale_close(S->lscale, s.G->lscale + i0, 40, tol) &&
					(!k || rows_close(S->im, s.G->im + i0 * M, 40, M, tol));
		}
		ok(same, "%s float32: %zu x %d in one call (streaming stores) "
		   "equals 40 rows at a time (%s)", e->name, s.n, s.M,
		   exact ? "bit for bit, rfx's sgemm" : "to rounding, OpenBLAS's sgemm");
		if (!exact)
			diag("tolerance 2 d eps P = %.3g", tol);
		rfx_featmat32_free(S);
	}
#ifdef _OPENMP
	{
		struct rfx_featmat32 *H = rfx_featmat32_alloc(s.n, s.M);
		int nt = omp_get_max_threads(), same = H != NULL;

		omp_set_num_threads(1);
		s.e->features32(&s.p, s.w32, 1, s.X32, s.n, s.M, s.G, &err);
		omp_set_num_threads(2);
		if (H)
			s.e->features32(&s.p, s.w32, 1, s.X32, s.n, s.M, H, &err);
		omp_set_num_threads(nt);
		same = same &&
		       !memcmp(s.G->re, H->re, s.n * (size_t)s.M * sizeof(float)) &&
		       !memcmp(s.G->lscale, H->lscale, s.n * sizeof(double));
		ok(same, "pos float32: the same bits on 1 and 2 threads");
		rfx_featmat32_free(H);
	}
#else
	ok(1, "pos float32: no OpenMP, one thread");
#endif
	setup_release(&s);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_trig();
	test_positive(&rfx_est_pos, 11);
	test_positive(&rfx_est_oprf, 12);
	test_positive(&rfx_est_sderf, 13);
	test_mc(&rfx_est_trig, 0); /* independent streams */
	test_mc(&rfx_est_pos, 1);
	test_mc(&rfx_est_oprf, 2);
	test_mc(&rfx_est_sderf, 3);
	test_draw_and_threads();
	ok(rfx_est_trig.features32 && rfx_est_pos.features32 &&
	   rfx_est_oprf.features32 && rfx_est_sderf.features32 &&
	   rfx_est_aderf.features32 && rfx_est_saderf.features32 &&
	   !rfx_est_gerf.features32 && !rfx_est_ang.features32,
	   "float32 paths: trig, pos, oprf and the DERFs; none for gerf, ang");
	return done_testing();
}

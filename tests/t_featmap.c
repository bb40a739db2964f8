/*
 * Draws and feature matrices (lib/est/featmap.h): the log-to-scaled conversion
 * (row scales, exact zeros, phases, in-place use as documented), the
 * pairwise estimate against a complex sum written out here (including
 * features of modulus e^{+-600}, which a double cannot hold, whose
 * products are ordinary numbers), real x complex combinations, and the
 * projection and norm helpers against naive loops; entries whose exp
 * is subnormal or underflows (exponents from -700 to -inf relative to the
 * row's largest) through every log-to-scaled path against the scalar exp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "est/featmap.h"
#include "base/rng.h"

#define NROW 4
#define NCOL 6
#define RFX_TEST_PI 3.14159265358979323846

/*
 * Log-moduli and phases of N rows: row 0 ordinary, row 1 around +600 with
 * one -inf entry, row 2 around -600, row 3 all -inf (a zero feature row).
 */
static void make_logs(gsl_rng *r, double *lm, double *ph)
{
	int i, j;

	for (i = 0; i < NROW; i++)
		for (j = 0; j < NCOL; j++) {
			double base = i == 1 ? 600.0 : (i == 2 ? -600.0 : 0.0);

			lm[i * NCOL + j] = base + gsl_ran_gaussian(r, 1.5);
			ph[i * NCOL + j] = gsl_ran_flat(r, -RFX_TEST_PI, RFX_TEST_PI);
		}
	lm[1 * NCOL + 4] = -INFINITY;
	for (j = 0; j < NCOL; j++)
		lm[3 * NCOL + j] = -INFINITY;
}

static void test_from_log(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(301, 0, 0, 0);
	struct rfx_featmat *F = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *G = rfx_featmat_alloc(NROW, NCOL);
	double lm[NROW * NCOL], ph[NROW * NCOL], worst = 0.0;
	int i, j, scale_ok = 1, zeros_ok = 1, mod_ok = 1;

	make_logs(r, lm, ph);
	rfx_featmat_from_log(F, NROW, NCOL, lm, ph);
	ok(F->n == NROW && F->D == NCOL && F->is_complex == 1,
	   "from_log with phases: n, D set, complex");
	for (i = 0; i < NROW; i++) {
		double m = -INFINITY;

		for (j = 0; j < NCOL; j++)
			m = lm[i * NCOL + j] > m ? lm[i * NCOL + j] : m;
		if (m == -INFINITY)
			m = 0.0;
		if (F->lscale[i] != m)
			scale_ok = 0;
		for (j = 0; j < NCOL; j++) {
			double a = exp(lm[i * NCOL + j] - m);
			double e = fabs(F->re[i * NCOL + j] - a * cos(ph[i * NCOL + j])) +
				   fabs(F->im[i * NCOL + j] - a * sin(ph[i * NCOL + j]));

			worst = e > worst ? e : worst;
			if (lm[i * NCOL + j] == -INFINITY &&
			    (F->re[i * NCOL + j] != 0.0 || F->im[i * NCOL + j] != 0.0))
				zeros_ok = 0;
			if (hypot(F->re[i * NCOL + j], F->im[i * NCOL + j]) > 1.0 + 1e-15)
				mod_ok = 0;
		}
	}
	ok(scale_ok, "the row scale is the row maximum of lmod (0 for an all -inf row)");
	ok(worst < 8 * TEST_TOL0,
	   "re + i im = e^{lmod - scale} (cos ph + i sin ph) (worst %.2g)", worst);
	ok(zeros_ok, "-inf entries are exact zeros, in re and im");
	ok(mod_ok, "every entry has modulus <= 1");
	ok(F->re[1 * NCOL + 4] == 0.0 && F->lscale[1] > 590.0 && F->lscale[2] < -590.0,
	   "rows at e^{+600} and e^{-600} are representable through their scales");

	/*
	 * No phases: real. im is not part of the contract of a real matrix
	 * (rfx_featmat_estimate ignores it), so only re is checked.
	 */
	rfx_featmat_from_log(G, NROW, NCOL, lm, NULL);
	{
		int real_ok = G->is_complex == 0;

		for (i = 0; i < NROW * NCOL; i++)
			if (lm[i] == -INFINITY ? G->re[i] != 0.0
					       : fabs(G->re[i] - exp(lm[i] - G->lscale[i / NCOL])) >
							 8 * TEST_TOL0)
				real_ok = 0;
		ok(real_ok, "from_log without phases: real, re = e^{lmod - scale}");
	}

	/* In place, as the header allows: lmod = F->re, ph = F->im. */
	memcpy(G->re, lm, sizeof(lm));
	memcpy(G->im, ph, sizeof(ph));
	rfx_featmat_from_log(G, NROW, NCOL, G->re, G->im);
	ok(!memcmp(G->re, F->re, sizeof(lm)) && !memcmp(G->im, F->im, sizeof(ph)) &&
		   !memcmp(G->lscale, F->lscale, NROW * sizeof(double)) &&
		   G->is_complex == 1,
	   "in place (lmod = F->re, ph = F->im) gives bit-identical features");
	memcpy(G->re, lm, sizeof(lm));
	rfx_featmat_from_log(G, NROW, NCOL, G->re, NULL);
	{
		struct rfx_featmat *H = rfx_featmat_alloc(NROW, NCOL);

		rfx_featmat_from_log(H, NROW, NCOL, lm, NULL);
		ok(!memcmp(G->re, H->re, sizeof(lm)) &&
			   !memcmp(G->lscale, H->lscale, NROW * sizeof(double)) &&
			   G->is_complex == 0,
		   "in place without phases (lmod = F->re) gives identical features");
		rfx_featmat_free(H);
	}
	/* Fewer rows and columns than the capacity: row stride is the new D. */
	{
		struct rfx_featmat *H = rfx_featmat_alloc(NROW, NCOL);
		double l2[2 * 3] = { 0.5, -1.0, 2.0, -INFINITY, 3.0, 1.0 };

		rfx_featmat_from_log(H, 2, 3, l2, NULL);
		ok(H->n == 2 && H->D == 3 && H->lscale[0] == 2.0 &&
			   H->lscale[1] == 3.0 && H->re[2] == 1.0 && H->re[3] == 0.0 &&
			   H->re[4] == 1.0 &&
			   fabs(H->re[5] - exp(-2.0)) < 8 * TEST_TOL0,
		   "2x3 features in a 4x6 matrix: packed with row stride 3");
		rfx_featmat_free(H);
	}
	rfx_featmat_free(F);
	rfx_featmat_free(G);
	gsl_rng_free(r);
}

/*
 * The estimate Re sum_j Phi1_j Phi2_j for features e^{l1_j + i p1_j} and
 * e^{l2_j + i p2_j}, written directly: sum_j e^{l1_j + l2_j} cos(p1_j + p2_j)
 * (with the phases of a real side 0). The exponents are added before exp,
 * so rows at e^{+600} against rows at e^{-600} are ordinary numbers; for
 * two rows at e^{600} the sum is returned divided by e^{off}, off = 1200.
 */
static double row_base(int i)
{
	return i == 1 ? 600.0 : (i == 2 ? -600.0 : 0.0);
}

static double direct_sum(const double *l1, const double *p1, const double *l2,
			 const double *p2, double off)
{
	double s = 0.0;
	int j;

	for (j = 0; j < NCOL; j++) {
		double l = l1[j] + l2[j] - off;

		if (l == -INFINITY)
			continue;
		s += exp(l) * cos((p1 ? p1[j] : 0.0) + (p2 ? p2[j] : 0.0));
	}
	return s;
}

static int same_estimate(double logabs, int sign, double want, double off)
{
	int ws = (want > 0) - (want < 0);

	if (ws == 0)
		return sign == 0 && logabs == -INFINITY;
	return sign == ws && fabs(logabs - off - log(fabs(want))) < 1e-12;
}

static void test_estimate(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(302, 0, 0, 0);
	struct rfx_featmat *F1 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *F2 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *R1 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *R2 = rfx_featmat_alloc(NROW, NCOL);
	double l1[NROW * NCOL], p1[NROW * NCOL], l2[NROW * NCOL], p2[NROW * NCOL];
	int i, k, sign, cc = 1, rc = 1, cr = 1, rr = 1, neg = 0, pos = 0;
	double la, want, big = 0, small = 0;

	make_logs(r, l1, p1);
	make_logs(r, l2, p2);
	rfx_featmat_from_log(F1, NROW, NCOL, l1, p1);
	rfx_featmat_from_log(F2, NROW, NCOL, l2, p2);
	rfx_featmat_from_log(R1, NROW, NCOL, l1, NULL);
	rfx_featmat_from_log(R2, NROW, NCOL, l2, NULL);
	for (i = 0; i < NROW; i++)
		for (k = 0; k < NROW; k++) {
			double off = row_base(i) + row_base(k);

			rfx_featmat_estimate(F1, i, F2, k, &la, &sign);
			want = direct_sum(l1 + i * NCOL, p1 + i * NCOL, l2 + k * NCOL,
					  p2 + k * NCOL, off);
			if (!same_estimate(la, sign, want, off)) {
				cc = 0;
				diag("complex x complex (%d, %d): %.17g %d vs %.17g", i, k,
				     la - off, sign, want);
			}
			neg += sign < 0;
			pos += sign > 0;
			if (i == 1 && k == 1)
				big = la;
			if (i == 2 && k == 2)
				small = la;
			rfx_featmat_estimate(R1, i, F2, k, &la, &sign);
			want = direct_sum(l1 + i * NCOL, NULL, l2 + k * NCOL,
					  p2 + k * NCOL, off);
			rc &= same_estimate(la, sign, want, off);
			rfx_featmat_estimate(F1, i, R2, k, &la, &sign);
			want = direct_sum(l1 + i * NCOL, p1 + i * NCOL, l2 + k * NCOL,
					  NULL, off);
			cr &= same_estimate(la, sign, want, off);
			rfx_featmat_estimate(R1, i, R2, k, &la, &sign);
			want = direct_sum(l1 + i * NCOL, NULL, l2 + k * NCOL, NULL, off);
			rr &= same_estimate(la, sign, want, off);
		}
	ok(big > 1150.0 && small < -1150.0,
	   "premise: estimates at e^{%.0f} and e^{%.0f}, beyond double range", big,
	   small);
	ok(cc, "complex x complex: Re sum Phi1 Phi2 matches the direct sum for all rows at e^{0, +-600}");
	ok(neg > 0 && pos > 0, "premise: both signs occur (%d negative, %d positive)",
	   neg, pos);
	ok(rc, "real x complex: Re sum a_j b_j e^{i p2_j} = sum a_j b_j cos p2_j");
	ok(cr, "complex x real: sum a_j b_j cos p1_j");
	ok(rr, "real x real: sum a_j b_j");
	rfx_featmat_estimate(F1, 3, F2, 0, &la, &sign);
	ok(la == -INFINITY && sign == 0, "an all-zero row gives log 0 = -inf, sign 0");

	/* Hand example: Phi1 = (1, i), Phi2 = (2, 3i): Re(2 + 3 i^2) = -1. */
	{
		double a1[2] = { 0.0, 0.0 }, ph1[2] = { 0.0, RFX_TEST_PI / 2 };
		double a2[2] = { log(2.0), log(3.0) }, ph2[2] = { 0.0, RFX_TEST_PI / 2 };
		struct rfx_featmat *A = rfx_featmat_alloc(1, 2);
		struct rfx_featmat *B = rfx_featmat_alloc(1, 2);

		rfx_featmat_from_log(A, 1, 2, a1, ph1);
		rfx_featmat_from_log(B, 1, 2, a2, ph2);
		rfx_featmat_estimate(A, 0, B, 0, &la, &sign);
		ok(sign == -1 && fabs(la) < 1e-15,
		   "by hand: Re((1, i) . (2, 3i)) = 2 - 3 = -1, no conjugation");
		rfx_featmat_free(A);
		rfx_featmat_free(B);
	}
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	rfx_featmat_free(R1);
	rfx_featmat_free(R2);
	gsl_rng_free(r);
}

/*
 * Real feature maps: Phi1 = (1, i) e^{0.5}, Phi2 = (2, 3i) e^{-0.25} give
 * [1, 1] and [2, -3] with the row scales, so that the plain dot product
 * -1 e^{0.25} is Re(Phi1 . Phi2) computed by hand; bad sides and a small
 * destination are errors.
 */
static void test_to_real(void)
{
	double a1[2] = { 0.0, 0.0 }, ph1[2] = { 0.0, RFX_TEST_PI / 2 };
	double a2[2] = { log(2.0), log(3.0) }, ph2[2] = { 0.0, RFX_TEST_PI / 2 };
	struct rfx_featmat *A = rfx_featmat_alloc(1, 2), *B = rfx_featmat_alloc(1, 2);
	struct rfx_featmat *RA = rfx_featmat_alloc(1, 4), *RB = rfx_featmat_alloc(1, 4);
	struct rfx_featmat *small = rfx_featmat_alloc(1, 3);
	struct rfx_err err;
	double la;
	int sign;

	rfx_featmat_from_log(A, 1, 2, a1, ph1);
	rfx_featmat_from_log(B, 1, 2, a2, ph2);
	A->lscale[0] += 0.5;
	B->lscale[0] -= 0.25;
	ok(!rfx_featmat_to_real(A, 1, RA, &err) && !rfx_featmat_to_real(B, 2, RB, &err),
	   "complex maps convert");
	ok(RA->D == 4 && !RA->is_complex && fabs(RA->re[0] - 1.0) < 1e-15 &&
		   fabs(RA->re[1]) < 1e-15 && fabs(RA->re[2]) < 1e-15 &&
		   fabs(RA->re[3] - 1.0) < 1e-15 && RA->lscale[0] == A->lscale[0],
	   "side 1: (1, i) becomes [Re, Im] = [1, 0, 0, 1]");
	ok(fabs(RB->re[0] * exp(RB->lscale[0]) - 2.0 * exp(-0.25)) < 1e-14 &&
		   fabs(RB->re[3] * exp(RB->lscale[0]) + 3.0 * exp(-0.25)) < 1e-14,
	   "side 2: (2, 3i) becomes [Re, -Im] = [2, 0, 0, -3]");
	rfx_featmat_estimate(RA, 0, RB, 0, &la, &sign);
	ok(sign == -1 && fabs(la - 0.25) < 1e-14,
	   "the real dot product is Re((1, i) . (2, 3i)) e^{0.25} = -e^{0.25}");
	ok(rfx_featmat_to_real(A, 1, small, &err) == RFX_EINVAL,
	   "a destination with too few columns is refused: %s", err.msg);
	ok(rfx_featmat_to_real(A, 3, RA, &err) == RFX_EINVAL, "side 3 is refused: %s",
	   err.msg);
	rfx_featmat_from_log(A, 1, 2, a2, NULL);
	ok(!rfx_featmat_to_real(A, 2, small, &err) && small->D == 2 &&
		   fabs(small->re[1] * exp(small->lscale[0]) - 3.0) < 1e-14,
	   "a real map is copied, not negated");
	rfx_featmat_free(A);
	rfx_featmat_free(B);
	rfx_featmat_free(RA);
	rfx_featmat_free(RB);
	rfx_featmat_free(small);
}

/*
 * All-pairs estimates (rfx_featmat_gram): G e^{lscale1 + lscale2} against
 * the direct sum above, for sub-blocks of rows (offsets i0 = 1, k0 = 2 and
 * a leading dimension wider than the block, whose extra column must stay
 * untouched), complex x complex, real x complex and real x real.
 */
static void test_gram(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(304, 0, 0, 0);
	struct rfx_featmat *F1 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *F2 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *R1 = rfx_featmat_alloc(NROW, NCOL);
	struct rfx_featmat *R2 = rfx_featmat_alloc(NROW, NCOL);
	double l1[NROW * NCOL], p1[NROW * NCOL], l2[NROW * NCOL], p2[NROW * NCOL];
	double G[3 * 3];
	int kase;

	make_logs(r, l1, p1);
	make_logs(r, l2, p2);
	rfx_featmat_from_log(F1, NROW, NCOL, l1, p1);
	rfx_featmat_from_log(F2, NROW, NCOL, l2, p2);
	rfx_featmat_from_log(R1, NROW, NCOL, l1, NULL);
	rfx_featmat_from_log(R2, NROW, NCOL, l2, NULL);
	for (kase = 0; kase < 3; kase++) {
		const struct rfx_featmat *A = kase == 2 ? R1 : (kase ? R1 : F1);
		const struct rfx_featmat *B = kase == 2 ? R2 : F2;
		static const char *const what[3] = { "complex x complex",
						     "real x complex", "real x real" };
		int a, b, good = 1;

		for (a = 0; a < 9; a++)
			G[a] = 2.385;
		rfx_featmat_gram(A, 1, 3, B, 2, 2, G, 3);
		for (a = 0; a < 3; a++) {
			int i = 1 + a;

			for (b = 0; b < 2; b++) {
				int k = 2 + b;
				double off = row_base(i) + row_base(k);
				double want = direct_sum(l1 + i * NCOL, A == F1 ? p1 + i * NCOL : NULL,
							 l2 + k * NCOL, B == F2 ? p2 + k * NCOL : NULL, off);
				double got = G[a * 3 + b] * exp(A->lscale[i] + B->lscale[k] - off);

				good &= fabs(got - want) <= 1e-13 * (fabs(want) + 1e-300) ||
					(want == 0.0 && got == 0.0);
			}
			good &= G[a * 3 + 2] == 2.385;
		}
		ok(good, "gram, %s: G e^{ls1 + ls2} is the direct sum for rows 1..3 x 2..3",
		   what[kase]);
	}
	rfx_featmat_free(F1);
	rfx_featmat_free(F2);
	rfx_featmat_free(R1);
	rfx_featmat_free(R2);
	gsl_rng_free(r);
}

static void test_project_and_norms(void)
{
	const int d = 5, cap = 9, col0 = 2, nc = 4;
	const size_t n = 3;
	gsl_rng *r = rfx_rng_alloc_stream(303, 0, 0, 0);
	struct rfx_draw *w = rfx_draw_alloc(d, cap);
	struct rfx_featmat *F = rfx_featmat_alloc(n, cap);
	double X[3 * 5], norms[9], worst = 0;
	size_t i;
	int l, m, ok_n = 1;

	ok(w && w->d == d && w->cap == cap, "draw_alloc: d and capacity set");
	for (i = 0; i < (size_t)(d * cap); i++)
		w->omega[i] = gsl_ran_gaussian(r, 1.0);
	for (i = 0; i < n * d; i++)
		X[i] = gsl_ran_gaussian(r, 2.0);
	rfx_featmat_project(F, w, X, n, col0, nc);
	for (i = 0; i < n; i++)
		for (m = 0; m < nc; m++) {
			double s = 0, sa = 0;

			for (l = 0; l < d; l++) {
				s += X[i * d + l] * w->omega[l * cap + col0 + m];
				sa += fabs(X[i * d + l] * w->omega[l * cap + col0 + m]);
			}
			/* work is n x ncols row-major */
			if (fabs(F->work[i * nc + m] - s) / sa > worst)
				worst = fabs(F->work[i * nc + m] - s) / sa;
		}
	ok(worst < 1e-14,
	   "project: work[i, m] = omega_{col0 + m} . x_i, n x ncols row-major (worst %.2g)",
	   worst);
	rfx_draw_colnorms(w, col0, nc, norms);
	for (m = 0; m < nc; m++) {
		double s = 0;

		for (l = 0; l < d; l++)
			s += w->omega[l * cap + col0 + m] * w->omega[l * cap + col0 + m];
		if (fabs(norms[m] - s) > TEST_TOL1 * s)
			ok_n = 0;
	}
	ok(ok_n, "colnorms: |omega_m|^2 of columns col0..col0 + ncols - 1");
	rfx_rownorms(X, n, d, norms);
	ok_n = 1;
	for (i = 0; i < n; i++) {
		double s = 0;

		for (l = 0; l < d; l++)
			s += X[i * d + l] * X[i * d + l];
		if (fabs(norms[i] - s) > TEST_TOL1 * s)
			ok_n = 0;
	}
	ok(ok_n, "rownorms: |x_i|^2");
	/* By hand: x = (3, 4) has |x|^2 = 25; omega column (1, 2) has 5. */
	{
		static const double x[2] = { 3, 4 };
		struct rfx_draw *v = rfx_draw_alloc(2, 1);
		struct rfx_featmat *G = rfx_featmat_alloc(1, 1);
		double o;

		v->omega[0] = 1;
		v->omega[1] = 2;
		rfx_rownorms(x, 1, 2, &o);
		ok(o == 25.0, "rownorms by hand: |(3, 4)|^2 = 25");
		rfx_draw_colnorms(v, 0, 1, &o);
		ok(o == 5.0, "colnorms by hand: |(1, 2)|^2 = 5");
		rfx_featmat_project(G, v, x, 1, 0, 1);
		ok(G->work[0] == 11.0, "project by hand: (1, 2).(3, 4) = 11");
		rfx_draw_free(v);
		rfx_featmat_free(G);
	}
	ok(rfx_draw_alloc(0, 3) == NULL && rfx_draw_alloc(3, 0) == NULL,
	   "draw_alloc: d < 1 or cap < 1 is NULL");
	ok(rfx_featmat_alloc(0, 3) == NULL && rfx_featmat_alloc(3, 0) == NULL,
	   "featmat_alloc: n = 0 or D < 1 is NULL");
	rfx_draw_free(NULL);
	rfx_featmat_free(NULL);
	rfx_draw_free(w);
	rfx_featmat_free(F);
	gsl_rng_free(r);
}

/*
 * Exponents relative to the row maximum across the range where libmvec's
 * exp leaves the vector path (below about -709: subnormal results, then
 * 0, then -inf), in no particular order and more than one vector wide.
 */
static const double low_exps[] = {
	0.0, -1.0, -300.25, -707.9, -708.0, -708.1, -709.5, -720.3, -738.0,
	-744.4, -745.1, -745.2, -746.0, -747.5, -1000.0, -INFINITY, -2.5,
	-712.0, -5000.0, -0.5,
};
#define NLOW ((int)(sizeof(low_exps) / sizeof(low_exps[0])))

/* Whether got is exp(u) to 16 eps, or to two subnormal steps beneath. */
static int exp_close(double got, double u)
{
	double want = exp(u);

	return fabs(got - want) <= TEST_TOL1 * want + 2.0 * 4.9406564584124654e-324;
}

static void test_low_exponents(void)
{
	struct rfx_featmat *F = rfx_featmat_alloc(1, NLOW);
	struct rfx_draw *w = rfx_draw_alloc(1, NLOW);
	double lm[NLOW], neg[NLOW], x = 1.0, shift = 3.25;
	int j, from_ok = 1, signed_ok = 1, exp_ok = 1;

	if (!F || !w) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (j = 0; j < NLOW; j++) {
		lm[j] = low_exps[j] + shift;
		neg[j] = j % 3 == 1;
		w->omega[j] = low_exps[j];
	}
	rfx_featmat_from_log(F, 1, NLOW, lm, NULL);
	for (j = 0; j < NLOW; j++)
		from_ok &= exp_close(F->re[j], low_exps[j]);
	ok(from_ok && F->lscale[0] == shift,
	   "from_log: exp of exponents 0 .. -inf below the row maximum, "
	   "subnormal and zero results included");
	rfx_featmat_from_log_signed(F, 1, NLOW, lm, neg);
	for (j = 0; j < NLOW; j++)
		signed_ok &= exp_close(neg[j] != 0.0 ? -F->re[j] : F->re[j],
				       low_exps[j]) &&
			     F->im[j] == 0.0 && (neg[j] == 0.0 || F->re[j] <= 0.0);
	ok(signed_ok && !F->is_complex && F->lscale[0] == shift,
	   "from_log_signed: the same moduli, negative where marked, real");
	w->ncols = NLOW;
	rfx_featmat_exp(F, w, &x, 1, NLOW, 1.0, NULL, 0.0, shift);
	for (j = 0; j < NLOW; j++)
		exp_ok &= exp_close(F->re[j], low_exps[j]);
	ok(exp_ok && F->lscale[0] == shift,
	   "exp: the same for projections 0 .. -inf below the row maximum");
	rfx_draw_free(w);
	rfx_featmat_free(F);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_from_log();
	test_estimate();
	test_to_real();
	test_gram();
	test_project_and_norms();
	test_low_exponents();
	return done_testing();
}

/*
 * Analytic variance maps (lib/exp/varmap.h): row counts and grids; the sum map
 * (x = y, K = 1, w = |x + y|^2) against closed forms written here, and the
 * claim of thesis Fig 6.2 that OPRF's variance is more than e^60 below
 * PosRF's at d = 64, |x + y|^2 = 100; the angle map's TrigRF values
 * against 2 log(1 - exp(-2 r^2 (1 - cos theta))) - log 2M; the errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "exp/varmap.h"

#define PI 3.14159265358979323846

/*
 * OPRF at x = y, |x + y|^2 = w, in dimension d (thesis eqs. 6.13, 6.14),
 * derived here: with t = 1 and real A, eq. 6.13 is
 * Var_1 = K^2 (a1 e^{(a2 - 1) w} - 1), a1 = (1-4A)^d (1-8A)^{-d/2},
 * a2 = 2(1-4A)/(1-8A). At A = (1 - 1/rho)/8: 1 - 8A = 1/rho,
 * 1 - 4A = (1 + rho)/(2 rho), so a1 = ((1 + rho)^2/(4 rho))^{d/2} and
 * a2 - 1 = 1/(1 - 8A) = rho. With K = 1:
 *   log Var_oprf = log expm1((d/2) log((1+rho)^2/(4 rho)) + rho w) - log M
 * where rho solves 2 w rho^2 + (2w + d) rho - d = 0 (eq. 6.14), here by
 * the textbook root (-b + sqrt(b^2 + 8 w d))/(4w), b = 2w + d. PosRF:
 *   log Var_pos = log expm1(w) - log M   (K^2 (e^{|x+y|^2} - 1)/M).
 */
static double rho_star(double w, int d)
{
	double b = 2 * w + d;

	return (-b + sqrt(b * b + 8.0 * w * d)) / (4.0 * w);
}

static double log_var_oprf(double w, int d, int M)
{
	double rho = rho_star(w, d);

	return log(expm1(0.5 * d * log((1 + rho) * (1 + rho) / (4 * rho)) +
			 rho * w)) -
	       log((double)M);
}

static double log_var_pos(double w, int M)
{
	return log(expm1(w)) - log((double)M);
}

static void test_sum_map(void)
{
	static const int ds[2] = { 8, 64 };
	const struct rfx_estimator_type *meth[2] = { &rfx_est_pos, &rfx_est_oprf };
	struct rfx_varmap_config c;
	struct rfx_varmap_row *rows;
	struct rfx_err err;
	size_t n, k;
	int grid = 1, kernel = 1, pos_ok = 1, oprf_ok = 1, base_ok = 1;
	double ratio100 = 0, want100 = 0, rho100;

	memset(&c, 0, sizeof(c));
	c.kind = RFX_VARMAP_SUM;
	c.nd = 2;
	c.ds = ds;
	c.budget = 16;
	c.nmethods = 2;
	c.methods = meth;
	c.baseline = &rfx_est_pos;
	c.w_max = 100.0;
	c.steps = 4;
	n = rfx_varmap_nrows(&c);
	ok(n == 4 * 2 * 2, "sum map: steps x dims x methods = %zu rows", n);
	rows = calloc(n, sizeof(*rows));
	ok(rfx_varmap_run(&c, rows, &err) == RFX_OK, "sum map runs");
	for (k = 0; k < n; k++) {
		const struct rfx_varmap_row *w = &rows[k];
		/* Order: dimension, grid point, method. */
		int di = (int)(k / 8), j = (int)(k / 2 % 4), m = (int)(k % 2);
		double wg = 100.0 * (j + 1) / 4;
		int d = ds[di];

		if (strcmp(w->map, "sum") || strcmp(w->method, meth[m]->name) ||
		    w->d != d || w->M != 16 || w->theta != 0.0 ||
		    fabs(w->w - wg) > TEST_TOL1 * wg ||
		    fabs(4 * w->r * w->r - wg) > TEST_TOL1 * wg)
			grid = 0;
		/* x = y: K = 1 exactly. */
		if (w->log_kernel != 0.0 || signbit(w->log_kernel))
			kernel = 0;
		if (m == 0 && (fabs(w->log_variance - log_var_pos(wg, 16)) >
				       1e-12 * fabs(w->log_variance) ||
			       w->log_ratio != 0.0))
			pos_ok = 0;
		if (m == 1 &&
		    fabs(w->log_variance - log_var_oprf(wg, d, 16)) > 1e-9 * (1 + fabs(w->log_variance)))
			oprf_ok = 0;
		if (m == 1 && fabs(w->log_ratio - (log_var_oprf(wg, d, 16) -
						   log_var_pos(wg, 16))) > 1e-9 * 60)
			base_ok = 0;
		if (m == 1 && d == 64 && j == 3) {
			ratio100 = w->log_ratio;
			want100 = log_var_oprf(100.0, 64, 16) - log_var_pos(100.0, 16);
		}
	}
	ok(grid, "sum map grid: w = w_max k/steps = |x + y|^2 = 4 r^2, theta = 0, M = budget");
	ok(kernel, "sum map: x = y, so log K = 0 (and not -0)");
	ok(pos_ok, "PosRF: log Var = log expm1(w) - log M; its ratio to itself is 0");
	ok(oprf_ok, "OPRF: log Var = log expm1((d/2) log((1+rho)^2/(4 rho)) + rho w) - log M");
	ok(base_ok, "log_ratio = log Var_oprf - log Var_pos at every point");
	rho100 = rho_star(100.0, 64);
	ok(fabs(2 * 100 * rho100 * rho100 + (200 + 64) * rho100 - 64) < 1e-12 &&
		   rho100 > 0 && rho100 < 1,
	   "premise: rho* = %.6f solves 2 w rho^2 + (2w + d) rho - d = 0 (w = 100, d = 64)",
	   rho100);
	is_approx(ratio100, want100, 1e-10,
		  "Fig 6.2, d = 64, |x + y|^2 = 100: log(Var_oprf/Var_pos) = %.4f", want100);
	ok(ratio100 < -60.0,
	   "Fig 6.2's claim: OPRF's variance is more than e^60 below PosRF's (e^%.2f)",
	   ratio100);
	free(rows);
}

/*
 * Angle map: x = r e1, y = r (cos theta e1 + sin theta e2), so
 * |x - y|^2 = 2 r^2 (1 - cos theta) = 4 r^2 sin^2(theta/2) and
 * log Var_trig = 2 log(1 - exp(-2 r^2 (1 - cos theta))) - log 2M
 * (eq. 2.12); |x + y|^2 = 2 r^2 (1 + cos theta); log K = -r^2 (1 - cos theta).
 * Grid: r = r_max k/steps, k = 1..steps; theta = pi (j + 1/2)/(steps + 1),
 * j = 0..steps.
 */
static void test_angle_map(void)
{
	static const int ds[1] = { 3 };
	const struct rfx_estimator_type *meth[2] = { &rfx_est_trig, &rfx_est_pos };
	struct rfx_varmap_config c;
	struct rfx_varmap_row *rows;
	struct rfx_err err;
	size_t n, k;
	int grid = 1, trig_ok = 1, pos_ok = 1, ker = 1;
	double worst = 0;

	memset(&c, 0, sizeof(c));
	c.kind = RFX_VARMAP_ANGLE;
	c.nd = 1;
	c.ds = ds;
	c.budget = 10;
	c.nmethods = 2;
	c.methods = meth;
	c.baseline = NULL;
	c.r_max = 2.0;
	c.steps = 5;
	n = rfx_varmap_nrows(&c);
	ok(n == 5 * 6 * 2, "angle map: steps x (steps + 1) x methods = %zu rows", n);
	rows = calloc(n, sizeof(*rows));
	ok(rfx_varmap_run(&c, rows, &err) == RFX_OK, "angle map runs");
	for (k = 0; k < n; k++) {
		const struct rfx_varmap_row *w = &rows[k];
		int i = (int)(k / 12), j = (int)(k / 2 % 6), m = (int)(k % 2);
		double r = 2.0 * (i + 1) / 5, th = PI * (j + 0.5) / 6;
		double s2 = sin(th / 2), dd = 4 * r * r * s2 * s2;
		double ss = 2 * r * r * (1 + cos(th));
		int M = m == 0 ? 5 : 10;

		if (strcmp(w->map, "angle") || strcmp(w->method, meth[m]->name) ||
		    w->d != 3 || w->M != M || fabs(w->r - r) > TEST_TOL1 * r ||
		    fabs(w->theta - th) > TEST_TOL1 || fabs(w->w - ss) > 1e-13 * (1 + ss) ||
		    w->log_ratio != 0.0)
			grid = 0;
		if (fabs(w->log_kernel + dd / 2) > 1e-13 * (1 + dd))
			ker = 0;
		if (m == 0) {
			double want = 2 * log(-expm1(-dd)) - log(2.0 * M);
			double e = fabs(w->log_variance - want) / (1 + fabs(want));

			worst = e > worst ? e : worst;
			if (e > 1e-12)
				trig_ok = 0;
		} else {
			/* PosRF: K^2 (e^{|x+y|^2} - 1)/M. */
			double want = -dd + log(expm1(ss)) - log((double)M);

			if (fabs(w->log_variance - want) > 1e-12 * (1 + fabs(want)))
				pos_ok = 0;
		}
	}
	ok(grid, "angle map grid: r, theta, M (fair: trig 5, pos 10), w = 2 r^2 (1 + cos theta)");
	ok(ker, "angle map: log K = -r^2 (1 - cos theta)");
	ok(trig_ok, "TrigRF at every point: 2 log(1 - exp(-2 r^2 (1 - cos theta))) - log 2M (worst %.2g)",
	   worst);
	ok(pos_ok, "PosRF at every point: -|x-y|^2 + log expm1(|x+y|^2) - log M");
	ok(rows[0].theta > 0 && rows[n - 1].theta < PI,
	   "the grid avoids theta = 0 and pi");
	free(rows);
}

static void test_errors(void)
{
	static const int d1[1] = { 1 }, d4[1] = { 4 };
	const struct rfx_estimator_type *meth[1] = { &rfx_est_trig };
	struct rfx_varmap_config c;
	struct rfx_varmap_row rows[64];
	struct rfx_err err;
	enum rfx_varmap_kind kind;

	ok(rfx_varmap_parse("angle", &kind, &err) == RFX_OK &&
		   kind == RFX_VARMAP_ANGLE &&
		   rfx_varmap_parse("sum", &kind, &err) == RFX_OK &&
		   kind == RFX_VARMAP_SUM,
	   "parse: angle, sum");
	rfx_err_clear(&err);
	ok(rfx_varmap_parse("ratio", &kind, &err) == RFX_EINVAL &&
		   strstr(err.msg, "angle, sum"),
	   "parse: unknown map is RFX_EINVAL listing the valid ones: %s", err.msg);
	memset(&c, 0, sizeof(c));
	c.kind = RFX_VARMAP_ANGLE;
	c.nd = 1;
	c.ds = d4;
	c.budget = 4;
	c.nmethods = 1;
	c.methods = meth;
	c.r_max = 1;
	c.w_max = 1;
	c.steps = 1;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL, "steps = 1 is RFX_EINVAL: %s",
	   err.msg);
	c.steps = 3;
	c.r_max = 0;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL, "angle map, r_max = 0 is RFX_EINVAL");
	c.r_max = NAN;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL, "angle map, r_max = NaN is RFX_EINVAL");
	/*
	 * r_max = 1e-170: (r/3)^2 underflows to 0, every variance on the
	 * grid was 0 and log_ratio NaN; refused. At the bound, 1e-150, every
	 * log_ratio is a number.
	 */
	c.r_max = 1e-170;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL && strstr(err.msg, "at least 1e-150"),
	   "angle map, r_max = 1e-170 is RFX_EINVAL: %s", err.msg);
	c.r_max = RFX_VARMAP_R_MIN;
	c.baseline = &rfx_est_pos;
	{
		size_t q, n = rfx_varmap_nrows(&c), bad = 0;

		if (ok(n <= 64 && rfx_varmap_run(&c, rows, &err) == RFX_OK,
		       "angle map, r_max = 1e-150 runs (%zu rows)", n))
			for (q = 0; q < n; q++)
				bad += isnan(rows[q].log_ratio) ||
				       isnan(rows[q].log_variance);
		ok(bad == 0, "  no NaN in its log-variances and ratios (%zu)", bad);
	}
	c.baseline = NULL;
	c.r_max = 1;
	c.ds = d1;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL && strstr(err.msg, "d >= 2"),
	   "angle map in d = 1 is RFX_EINVAL: %s", err.msg);
	c.kind = RFX_VARMAP_SUM;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_OK, "sum map in d = 1 is fine");
	c.w_max = -1;
	ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL, "sum map, w_max < 0 is RFX_EINVAL");
	/*
	 * A fit error propagates: |x + y|^2 = 1e160 puts x beyond the input
	 * range (|x_l| <= 1e75).
	 */
	{
		const struct rfx_estimator_type *h[1] = { &rfx_est_hyb };

		c.w_max = 1e160;
		c.methods = h;
		ok(rfx_varmap_run(&c, rows, &err) == RFX_EINVAL && strstr(err.msg, "hyb"),
		   "a method that cannot be fitted is its error: %s", err.msg);
	}
}

int main(void)
{
	gsl_set_error_handler_off();
	test_sum_map();
	test_angle_map();
	test_errors();
	return done_testing();
}

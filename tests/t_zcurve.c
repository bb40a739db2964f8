/*
 * Tests for lib/exp/zcurve.c: the layout of the rows, the Monte Carlo curves
 * against the closed forms they stand beside (within 4 standard errors),
 * the limit rows against eq. 3, reproducibility across thread counts and
 * the configurations refused before any work.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <gsl/gsl_errno.h>

#include "est/orfvar.h"
#include "tap.h"
#include "exp/zcurve.h"

#define K_SE 4.0

static struct rfx_zc_row *run(const struct rfx_zc_config *c)
{
	struct rfx_zc_row *rows = calloc(rfx_zc_nrows(c), sizeof(*rows));
	struct rfx_err err;

	rfx_err_clear(&err);
	if (!rows || rfx_zc_run(c, rows, &err)) {
		printf("Bail out! rfx_zc_run: %s\n", err.msg);
		exit(1);
	}
	return rows;
}

static void test_curves(void)
{
	static const enum rfx_proj proj[3] = { RFX_PROJ_ORT, RFX_PROJ_ORF_PRIME,
					       RFX_PROJ_SORF };
	static const int d[2] = { 4, 8 };
	static const double z[3] = { 0.5, 1.5, 2.5 };
	struct rfx_zc_config c;
	struct rfx_zc_row *rows, *again;
	size_t n, k;
	int fine = 1, j, i;

	memset(&c, 0, sizeof(c));
	c.nproj = 3;
	c.proj = proj;
	c.nd = 2;
	c.d = d;
	c.nz = 3;
	c.z = z;
	c.R = 6000;
	c.seed = 20221121UL;
	n = rfx_zc_nrows(&c);
	/* per d: 3 mc + 2 exact (ort, orf-prime) + 1 limit curve; then d = inf */
	ok(n == (2 * (3 + 2 + 1) + 1) * 3, "rows: 2 d x 6 curves + the d -> inf limit, 3 z each");
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	rows = run(&c);
	for (j = 0; j < 2; j++) {
		const struct rfx_zc_row *b = rows + (size_t)j * 18;

		for (i = 0; i < 2; i++)
			for (k = 0; k < 3; k++) {
				const struct rfx_zc_row *mc = &b[i * 3 + k];
				const struct rfx_zc_row *ex = &b[9 + i * 3 + k];

				fine &= !strcmp(mc->curve, "mc") && !strcmp(ex->curve, "exact") &&
					!strcmp(mc->projection, ex->projection) &&
					mc->z == ex->z && mc->d == d[j] && mc->D == d[j];
				if (fabs(mc->bias - ex->bias) > K_SE * mc->bias_se ||
				    fabs(mc->ratio - ex->ratio) > K_SE * mc->ratio_se) {
					diag("%s d = %d z = %g: mc bias %g +- %g ratio %g +- %g, "
					     "exact %g %g", mc->projection, mc->d, mc->z, mc->bias,
					     mc->bias_se, mc->ratio, mc->ratio_se, ex->bias,
					     ex->ratio);
					fine = 0;
				}
			}
		for (k = 0; k < 3; k++)
			fine &= !strcmp(b[15 + k].curve, "limit") &&
				b[15 + k].ratio == rfx_orfvar_limit_ratio(z[k], d[j], d[j]);
		fine &= !strcmp(b[6].projection, "sorf") && b[6].ratio_se > 0.0;
	}
	ok(fine, "mc rows of ort and orf-prime match the exact rows within 4 se "
		 "(bias and variance ratio), limit rows are eq. 3");
	ok(rows[36].d == 0 && rows[36].var == 0.0 &&
	   rows[36].ratio == rfx_orfvar_limit_ratio(0.5, 0, 0),
	   "the last rows: d -> infinity, the ratio alone");
	ok(rows[1].bias_se > 0.0 && fabs(rows[1].bias) < K_SE * rows[1].bias_se &&
	   rows[4].bias < -K_SE * rows[4].bias_se,
	   "ort unbiased, orf-prime biased at z = 1.5, d = 4 (Monte Carlo)");
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	again = run(&c);
	ok(!memcmp(rows, again, n * sizeof(*rows)), "the same rows on 1 and 2 threads");
	free(rows);
	free(again);
}

static void test_errors(void)
{
	static const enum rfx_proj halton = RFX_PROJ_HALTON, ort = RFX_PROJ_ORT;
	static const int big = 2048, one = 1, four = 4;
	static const double z0 = 0.0, z1 = 1.0, z7 = 7.0;
	struct rfx_zc_config c;
	struct rfx_zc_row rows[8];
	struct rfx_err err;

	memset(&c, 0, sizeof(c));
	c.nproj = 1;
	c.proj = &halton;
	c.nd = 1;
	c.d = &big;
	c.nz = 1;
	c.z = &z1;
	c.R = 10;
	rfx_err_clear(&err);
	ok(rfx_zc_run(&c, rows, &err) == RFX_EINVAL && strstr(err.msg, "1229"),
	   "halton at d = 2048 is refused (%s)", err.msg);
	c.proj = &ort;
	c.d = &one;
	ok(rfx_zc_run(&c, rows, NULL) == RFX_EINVAL, "d = 1 is refused");
	c.d = &four;
	c.z = &z0;
	ok(rfx_zc_run(&c, rows, NULL) == RFX_EINVAL, "z = 0 is refused");
	c.z = &z7;
	ok(rfx_zc_run(&c, rows, NULL) == RFX_EINVAL, "z = 7 is refused");
	c.z = &z1;
	c.R = 1;
	ok(rfx_zc_run(&c, rows, NULL) == RFX_EINVAL, "one draw is refused");
	c.R = 10;
	c.nz = 0;
	ok(rfx_zc_run(&c, rows, NULL) == RFX_EINVAL, "no z is refused");
}

int main(void)
{
	gsl_set_error_handler_off();
	test_curves();
	test_errors();
	return done_testing();
}

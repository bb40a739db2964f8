/*
 * rfx variance's pair mode (lib/exp/varpair.h): TrigRF's variance against
 * its closed form worked by hand, a params column that grows instead of
 * truncating, Monte Carlo against the kernel, and the error paths.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "exp/varpair.h"

int main(void)
{
	const struct rfx_estimator_type *methods[2] = { &rfx_est_trig, &rfx_est_pos };
	struct rfx_params base[2];
	struct rfx_varpair_config c;
	struct rfx_varpair_result r = { NULL };
	struct rfx_err err;
	double x[2] = { 0.7, -0.3 }, y[2] = { 0.2, 0.45 };
	double z2 = 0.5 * 0.5 + 0.75 * 0.75; /* |x - y|^2 */
	int k;

	plan(12);
	rfx_err_clear(&err);
	for (k = 0; k < 2; k++)
		rfx_params_init(&base[k], 2);
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.y = y;
	c.d = 2;
	c.nmethods = 2;
	c.methods = methods;
	c.base = base;
	c.budget = 8;
	c.mc_R = 4000;
	c.proj = RFX_PROJ_IID;
	c.seed = 2385;
	ok(rfx_varpair_run(&c, &r, &err) == RFX_OK && r.nrows == 2,
	   "trig and pos on one pair, with Monte Carlo (%s)", err.msg);
	{
		/*
		 * TrigRF: one feature is cos(w.(x - y)) with w ~ N(0, I), mean
		 * K = exp(-|z|^2/2) and E cos^2 = (1 + exp(-2|z|^2))/2, so
		 * Var = ((1 + exp(-2 z2))/2 - exp(-z2)) / M, M = 8/2 = 4 complex
		 * features by fair counting.
		 */
		double want = ((1 + exp(-2 * z2)) / 2 - exp(-z2)) / 4;
		const struct rfx_varpair_row *row = rfx_varpair_row(&r, 0);

		ok(!strcmp(row->method, "trig") && row->M == 4 && row->d == 2,
		   "row 0 is trig with M = 4, d = 2");
		ok(fabs(row->log_variance - log(want)) < 1e-12,
		   "trig log-variance %.15g, by hand %.15g", row->log_variance,
		   log(want));
		ok(fabs(row->log_kernel + z2 / 2) < 1e-15, "log K = -|x - y|^2/2");
		ok(!strcmp(rfx_varpair_params(&r, 0), "-"), "trig has no parameters");
		for (k = 0; k < 2; k++) {
			row = rfx_varpair_row(&r, (size_t)k);
			ok(fabs(row->mc_mean - exp(-z2 / 2)) <= 3 * row->mc_mean_se,
			   "%s: Monte Carlo mean %.6g within 3 se (%.3g) of K %.6g",
			   row->method, row->mc_mean, row->mc_mean_se, exp(-z2 / 2));
		}
		ok(r.schema.ncols == 15 && !strcmp(r.schema.cols[1].name, "params") &&
			   r.schema.cols[1].size == RFX_VARPAIR_PARAMS,
		   "15 columns with Monte Carlo; params holds 4095 characters when that suffices");
	}
	rfx_varpair_release(&r);

	/* A shift c in d = 400: far longer than 4095 characters. */
	{
		enum { D = 400 };
		const struct rfx_estimator_type *pp[1] = { &rfx_est_pois_plus };
		struct rfx_params b1, back;
		double *X = malloc(D * sizeof(double)), *Y = malloc(D * sizeof(double));
		const char *text;
		char again[32768];

		for (k = 0; k < D; k++) {
			X[k] = 0.0123456789 * (k + 1) / D;
			Y[k] = -0.0234567891 * (D - k) / D;
		}
		rfx_params_init(&b1, D);
		c.x = X;
		c.y = Y;
		c.d = D;
		c.nmethods = 1;
		c.methods = pp;
		c.base = &b1;
		c.mc_R = 0;
		ok(rfx_varpair_run(&c, &r, &err) == RFX_OK, "pois+ in d = %d (%s)", D,
		   err.msg);
		text = rfx_varpair_params(&r, 0);
		rfx_params_init(&back, D);
		ok(strlen(text) > 4095 && r.schema.cols[1].size == strlen(text) + 1 &&
			   r.schema.ncols == 7,
		   "params text of %zu characters in a column of %zu, not cut at 4095",
		   strlen(text), r.schema.cols[1].size);
		{
			/* "lambda=...;c=..." parses back to the same text */
			const char *semi = strchr(text, ';');
			char lam[64];
			int fine = semi && (size_t)(semi - text) < sizeof(lam);

			if (fine) {
				memcpy(lam, text, (size_t)(semi - text));
				lam[semi - text] = '\0';
				fine = !rfx_params_parse(&back, pp[0], lam, &err) &&
				       !rfx_params_parse(&back, pp[0], semi + 1, &err) &&
				       rfx_params_format(&back, pp[0], again,
							 sizeof(again)) == strlen(text) &&
				       !strcmp(again, text);
			}
			ok(fine, "the whole text parses back to the same parameters");
		}
		rfx_params_release(&back);
		rfx_params_release(&b1);
		rfx_varpair_release(&r);
		/* A non-finite input: the fit's error, nothing allocated. */
		X[3] = NAN;
		ok(rfx_varpair_run(&c, &r, &err) == RFX_EINVAL && !r.rows &&
			   strstr(err.msg, "non-finite"),
		   "a NaN input is RFX_EINVAL: %s", err.msg);
		rfx_varpair_release(&r);
		free(X);
		free(Y);
	}
	for (k = 0; k < 2; k++)
		rfx_params_release(&base[k]);
	done_testing();
}

/*
 * Exact and random-feature attention (lib/exp/attention.h, thesis ch. 3).
 *
 * Exact attention against a direct O(L^2) sum written here (noncausal,
 * causal, one tile and many); the unbiasedness of the unnormalised A^ C
 * for several estimators by Monte Carlo (a Bonferroni bound over the
 * entries checked); the closed-form variance of one entry of A^ C for
 * TrigRF and PosRF against the Monte Carlo variance (3 standard errors
 * from the sample fourth moment); causal prefix sums against the masked
 * full product of the same maps, summed here entry by entry; the three
 * stabilisers equal to rounding where none overflows, and only the row
 * stabiliser finite where the features pass e^709; the epsilon's effect
 * against the header's formula; the error measures on outputs written
 * here, whose errors are worked out by hand, at every scale.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tap.h"
#include "base/rng.h"
#include "exp/attention.h"

/* Q (n x d), K, V with Gaussian entries of sd s (V: sd 1). */
static void fill(gsl_rng *r, double *x, size_t n, double s)
{
	size_t k;

	for (k = 0; k < n; k++)
		x[k] = s * gsl_ran_gaussian(r, 1.0);
}

/* Softmax attention summed directly (long double), causal when asked. */
static void direct(const double *Q, size_t nq, const double *K, size_t nk,
		   int d, const double *V, int dv, int causal, double *out,
		   double *logD)
{
	size_t i, j;
	int l, c;

	for (i = 0; i < nq; i++) {
		long double z = 0.0L, acc[16] = { 0 }, m = -1e300L;
		size_t lim = causal ? i + 1 : nk;

		for (j = 0; j < lim; j++) {
			long double s = 0.0L;

			for (l = 0; l < d; l++)
				s += (long double)Q[i * d + l] * K[j * d + l];
			s /= sqrtl((long double)d);
			if (s > m)
				m = s;
		}
		for (j = 0; j < lim; j++) {
			long double s = 0.0L, e;

			for (l = 0; l < d; l++)
				s += (long double)Q[i * d + l] * K[j * d + l];
			e = expl(s / sqrtl((long double)d) - m);
			z += e;
			for (c = 0; c < dv; c++)
				acc[c] += e * V[j * dv + c];
		}
		for (c = 0; c < dv; c++)
			out[i * dv + c] = (double)(acc[c] / z);
		logD[i] = (double)(m + logl(z));
	}
}

static double max_rel(const double *a, const double *b, size_t n)
{
	double m = 0.0;
	size_t k;

	for (k = 0; k < n; k++) {
		double t = fabs(a[k] - b[k]) / (fabs(b[k]) > 1e-3 ? fabs(b[k]) : 1e-3);

		m = t > m ? t : m;
	}
	return m;
}

static void test_exact(gsl_rng *r)
{
	static const struct { size_t nq, nk; int d, dv, causal; } cs[] = {
		{ 37, 41, 5, 3, 0 }, { 37, 37, 5, 3, 1 }, { 70, 1100, 4, 2, 0 },
		{ 700, 700, 3, 2, 1 },
	};
	struct rfx_err err;
	size_t k;

	for (k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) {
		size_t nq = cs[k].nq, nk = cs[k].nk;
		int d = cs[k].d, dv = cs[k].dv;
		double *Q = malloc(nq * d * sizeof(double));
		double *K = malloc(nk * d * sizeof(double));
		double *V = malloc(nk * dv * sizeof(double));
		double *o = malloc(nq * dv * sizeof(double));
		double *o0 = malloc(nq * dv * sizeof(double));
		double *l = malloc(nq * sizeof(double)), *l0 = malloc(nq * sizeof(double));

		fill(r, Q, nq * d, 1.7);
		fill(r, K, nk * d, 1.7);
		fill(r, V, nk * dv, 1.0);
		ok(rfx_attention_exact(Q, nq, K, nk, d, V, dv, cs[k].causal, o, l,
				       &err) == RFX_OK,
		   "exact attention %zu x %zu causal %d", nq, nk, cs[k].causal);
		direct(Q, nq, K, nk, d, V, dv, cs[k].causal, o0, l0);
		ok(max_rel(o, o0, nq * dv) < 1e-12,
		   "  output = direct sum (max rel diff %.2g)", max_rel(o, o0, nq * dv));
		ok(max_rel(l, l0, nq) < 1e-13, "  log D = direct sum (%.2g)",
		   max_rel(l, l0, nq));
		free(Q);
		free(K);
		free(V);
		free(o);
		free(o0);
		free(l);
		free(l0);
	}
	{
		double q[2] = { 1, NAN }, v[1] = { 1 }, o[1];

		ok(rfx_attention_exact(q, 1, q, 1, 2, v, 1, 0, o, NULL, &err) ==
			   RFX_EINVAL, "a NaN input is RFX_EINVAL");
		ok(rfx_attention_exact(q, 2, q, 1, 1, v, 1, 1, o, NULL, &err) ==
			   RFX_EINVAL, "causal with nq != nk is RFX_EINVAL");
	}
}

/* The unnormalised A^ C: out times D^. */
static void unnorm(const double *out, const double *logDh,
		   const signed char *sg, size_t nq, int dv, double *ac)
{
	size_t i;
	int c;

	for (i = 0; i < nq; i++) {
		double D = sg[i] * exp(logDh[i]);

		for (c = 0; c < dv; c++)
			ac[i * (dv + 1) + c] = out[i * dv + c] * D;
		ac[i * (dv + 1) + dv] = D;
	}
}

#define NQ 5
#define NK 6
#define DD 4
#define DV 2
#define MC_R 4000

/*
 * R draws of estimator e's A^ C (noncausal, row stabiliser), summed into
 * mean and the second to fourth central moments per entry.
 */
static int mc_ac(const struct rfx_estimator_type *e, enum rfx_proj proj,
		 int M, const double *Q, const double *K, const double *V,
		 long R, gsl_rng *r, double *mean, double *m2, double *m4)
{
	struct rfx_err err;
	struct rfx_params p;
	int D, ret, n = NQ * (DV + 1), k;
	struct rfx_att_ws *ws;
	struct rfx_draw *w;
	struct rfx_att_opts o = { 0, RFX_ATT_STAB_ROW, 0.0, 0 };
	double out[NQ * DV], lD[NQ], ac[NQ * (DV + 1)];
	double *all = malloc((size_t)R * n * sizeof(double));
	signed char sg[NQ];
	long q;

	rfx_params_init(&p, DD);
	D = rfx_estimator_feature_dim(e, &p, M);
	ws = rfx_att_ws_alloc(NQ, NK, DD, DV, D > M ? D : M);
	w = rfx_draw_alloc(DD, D > M ? D : M);
	ret = rfx_attention_fit(ws, e, &p, Q, K, M, &err);
	D = rfx_estimator_feature_dim(e, &p, M);
	for (q = 0; !ret && q < R; q++) {
		ret = e->draw(r, proj, &p, M, w, &err);
		if (!ret)
			ret = rfx_attention_maps(ws, e, &p, w, Q, K, M, &err);
		if (!ret)
			ret = rfx_attention_apply(ws, V, &o, out, lD, sg, &err);
		unnorm(out, lD, sg, NQ, DV, ac);
		memcpy(all + q * n, ac, n * sizeof(double));
	}
	if (ret)
		diag("%s: %s", e->name, err.msg);
	for (k = 0; k < n; k++) {
		double s = 0.0, s2 = 0.0, s4 = 0.0;

		for (q = 0; q < R; q++)
			s += all[q * n + k];
		s /= (double)R;
		for (q = 0; q < R; q++) {
			double t = all[q * n + k] - s;

			s2 += t * t;
			s4 += t * t * t * t;
		}
		mean[k] = s;
		m2[k] = s2 / (double)(R - 1);
		m4[k] = s4 / (double)R;
	}
	free(all);
	rfx_att_ws_free(ws);
	rfx_draw_free(w);
	rfx_params_release(&p);
	return ret;
}

static void test_unbiased_and_variance(gsl_rng *r)
{
	static const char *const names[] = { "trig", "pos", "oprf", "posh",
					      "gerf", "hyb" };
	double Q[NQ * DD], K[NK * DD], V[NK * DV], o[NQ * DV], lD[NQ];
	double ex[NQ * (DV + 1)];
	int n = NQ * (DV + 1), k, t;
	size_t i;
	/* Bonferroni: every entry of every estimator, family alarm 0.001 */
	double zmax = gsl_cdf_ugaussian_Qinv(0.001 / (2.0 * n * 6));
	struct rfx_err err;

	fill(r, Q, NQ * DD, 0.9);
	fill(r, K, NK * DD, 0.9);
	fill(r, V, NK * DV, 1.0);
	rfx_attention_exact(Q, NQ, K, NK, DD, V, DV, 0, o, lD, &err);
	for (i = 0; i < NQ; i++) {
		for (k = 0; k < DV; k++)
			ex[i * (DV + 1) + k] = o[i * DV + k] * exp(lD[i]);
		ex[i * (DV + 1) + DV] = exp(lD[i]);
	}
	for (t = 0; t < 6; t++) {
		const struct rfx_estimator_type *e = rfx_estimator_find(names[t], &err);
		double mean[NQ * (DV + 1)], m2[NQ * (DV + 1)], m4[NQ * (DV + 1)];
		double zw = 0.0;

		if (!e || mc_ac(e, RFX_PROJ_IID, 8, Q, K, V, MC_R, r, mean, m2, m4)) {
			ok(0, "%s: Monte Carlo of A^ C", names[t]);
			continue;
		}
		for (k = 0; k < n; k++) {
			double z = fabs(mean[k] - ex[k]) / sqrt(m2[k] / MC_R);

			zw = z > zw ? z : zw;
		}
		ok(zw <= zmax, "%s: A^ C unbiased, max |z| %.2f <= %.2f over %d entries",
		   names[t], zw, zmax, n);
	}
	/*
	 * The closed-form variance of (A^ C)_ic, TrigRF and PosRF, M = 8, on
	 * inputs of half the scale: PosRF's A^ is lognormal-like and its
	 * sample variance sees the tail only at small norms.
	 */
	for (i = 0; i < NQ * DD; i++)
		Q[i] *= 0.5;
	for (i = 0; i < NK * DD; i++)
		K[i] *= 0.5;
	for (t = 0; t < 2; t++) {
		const struct rfx_estimator_type *e =
			rfx_estimator_find(t ? "pos" : "trig", &err);
		double mean[NQ * (DV + 1)], m2[NQ * (DV + 1)], m4[NQ * (DV + 1)];
		static const int rows[2] = { 0, 3 };
		int a, c;

		mc_ac(e, RFX_PROJ_IID, 8, Q, K, V, 20000, r, mean, m2, m4);
		for (a = 0; a < 2; a++)
			for (c = 0; c <= DV; c += DV) {
				int k2 = rows[a] * (DV + 1) + c;
				double lv, v2 = m2[k2] * m2[k2];
				double se = sqrt((m4[k2] - v2 * (20000.0 - 3) / (20000.0 - 1)) /
						 20000.0);

				ok(rfx_attention_ac_logvar(t, Q, (size_t)rows[a], K, NK, DD,
							   V, DV, c, 8, &lv, &err) == RFX_OK,
				   "%s: closed-form Var (A^ C)_{%d,%d}", e->name, rows[a], c);
				ok(fabs(m2[k2] - exp(lv)) <= 3.0 * se,
				   "  Monte Carlo %.5g vs closed form %.5g (se %.2g)", m2[k2],
				   exp(lv), se);
			}
	}
	{
		double lv;

		ok(rfx_attention_ac_logvar(2, Q, 0, K, NK, DD, V, DV, 0, 8, &lv, &err) ==
			   RFX_EINVAL, "variance kind 2 is RFX_EINVAL");
		ok(rfx_attention_ac_logvar(0, Q, 0, K, NK, DD, V, DV, DV + 1, 8, &lv,
					   &err) == RFX_EINVAL, "column dv + 1 is RFX_EINVAL");
	}
}

/* Maps of estimator name for Q, K (n x d) with M features, one draw. */
static struct rfx_att_ws *maps_for(const char *name, gsl_rng *r,
				   const double *Q, const double *K, size_t n,
				   int d, int dv, int M, struct rfx_params *p)
{
	struct rfx_err err;
	const struct rfx_estimator_type *e = rfx_estimator_find(name, &err);
	int D = rfx_estimator_feature_dim(e, p, M);
	struct rfx_att_ws *ws = rfx_att_ws_alloc(n, n, d, dv, D);
	struct rfx_draw *w = rfx_draw_alloc(d, D > M ? D : M);
	int ret = rfx_attention_fit(ws, e, p, Q, K, M, &err);

	if (!ret)
		ret = e->draw(r, RFX_PROJ_ORT, p, M, w, &err);
	if (!ret)
		ret = rfx_attention_maps(ws, e, p, w, Q, K, M, &err);
	rfx_draw_free(w);
	if (ret) {
		diag("%s", err.msg);
		rfx_att_ws_free(ws);
		return NULL;
	}
	return ws;
}

#define NL 150
#define ND 6
#define NV 3

static void test_causal_stab_eps(gsl_rng *r)
{
	static const char *const names[] = { "trig", "pos", "oprf" };
	double *Q = malloc(NL * ND * sizeof(double)), *K = malloc(NL * ND * sizeof(double));
	double *V = malloc(NL * NV * sizeof(double));
	double *o = malloc(NL * NV * sizeof(double)), *o2 = malloc(NL * NV * sizeof(double));
	double *o3 = malloc(NL * NV * sizeof(double)), *dl = malloc(NL * NV * sizeof(double));
	double lD[NL], lD2[NL];
	signed char sg[NL], sg2[NL];
	struct rfx_err err;
	size_t i;
	int t;

	fill(r, Q, NL * ND, 1.0);
	fill(r, K, NL * ND, 1.0);
	fill(r, V, NL * NV, 1.0);
	for (t = 0; t < 3; t++) {
		struct rfx_params p;
		struct rfx_att_ws *ws;
		struct rfx_att_opts opt = { 1, RFX_ATT_STAB_ROW, 0.0, 0 };
		double worst = 0.0, ws2 = 0.0;
		size_t j;
		int c, m, s;

		rfx_params_init(&p, ND);
		ws = maps_for(names[t], r, Q, K, NL, ND, NV, 32, &p);
		if (!ws) {
			ok(0, "%s maps", names[t]);
			continue;
		}
		/* causal prefix sums vs the masked product, summed here */
		rfx_attention_apply(ws, V, &opt, o, lD, sg, &err);
		for (i = 0; i < NL; i++) {
			double num[NV] = { 0 }, z = 0.0;

			for (j = 0; j <= i; j++) {
				double a = 0.0;

				/* the stabilised maps from their definition */
				for (m = 0; m < ws->Dr; m++)
					a += ws->p1[i * ws->Dr + m] * exp(ws->ls1[i] - ws->r1[i]) *
					     ws->p2[j * ws->Dr + m] * exp(ws->ls2[j] - ws->r2);
				z += a;
				for (c = 0; c < NV; c++)
					num[c] += a * V[j * NV + c];
			}
			for (c = 0; c < NV; c++) {
				double d = fabs(num[c] / z - o[i * NV + c]) /
					   (1e-3 + fabs(num[c] / z));

				worst = d > worst ? d : worst;
			}
			double dd = fabs(log(fabs(z)) + ws->r1[i] + ws->r2 - lD[i]);
			ws2 = dd > ws2 ? dd : ws2;
		}
		ok(worst < 1e-10 && ws2 < 1e-12,
		   "%s: causal = masked noncausal on the same maps (%.2g, %.2g)",
		   names[t], worst, ws2);
		/* stabilisers: equal to rounding, noncausal and causal */
		for (c = 0; c < 2; c++) {
			opt.causal = c;
			opt.stab = RFX_ATT_STAB_ROW;
			rfx_attention_apply(ws, V, &opt, o, lD, sg, &err);
			for (s = 1; s < 3; s++) {
				opt.stab = (enum rfx_att_stab)s;
				rfx_attention_apply(ws, V, &opt, o2, lD2, sg2, &err);
				ok(max_rel(o2, o, NL * NV) < 1e-12 &&
					   max_rel(lD2, lD, NL) < 1e-13,
				   "%s causal %d: stabiliser %s = row to rounding (%.2g)",
				   names[t], c, rfx_att_stab_name(opt.stab),
				   max_rel(o2, o, NL * NV));
			}
			opt.stab = RFX_ATT_STAB_ROW;
			opt.f32 = 1;
			rfx_attention_apply(ws, V, &opt, o2, lD2, sg2, &err);
			opt.f32 = 0;
			ok(max_rel(o2, o, NL * NV) < 1e-4 && max_rel(o2, o, NL * NV) > 0,
			   "%s causal %d: float32 within 1e-4, not equal (%.2g)", names[t],
			   c, max_rel(o2, o, NL * NV));
		}
		/* epsilon: the exact effect of the header's formula */
		if (t > 0) {
			double eps = 1e-3;

			opt.causal = 0;
			opt.eps = 0.0;
			rfx_attention_apply(ws, V, &opt, o, lD, sg, &err);
			rfx_attention_eps_bias(ws, V, o, eps, dl, &err);
			opt.eps = eps;
			rfx_attention_apply(ws, V, &opt, o3, lD2, sg2, &err);
			worst = 0.0;
			for (i = 0; i < NL * NV; i++) {
				double d = fabs((o3[i] - o[i]) - dl[i]) /
					   (1e-9 + fabs(dl[i]));

				worst = d > worst ? d : worst;
			}
			ok(worst < 1e-6, "%s: epsilon %g shifts the output by the formula (rel %.2g)",
			   names[t], eps, worst);
			opt.eps = -1.0;
			ok(rfx_attention_apply(ws, V, &opt, o3, lD2, sg2, &err) == RFX_EINVAL,
			   "  a negative epsilon is RFX_EINVAL");
		}
		rfx_att_ws_free(ws);
		rfx_params_release(&p);
	}
	/*
	 * Large norms, |x|^2/2 ~ 770: TrigRF's unstabilised features overflow
	 * (e^770) and PosRF's underflow (e^{w.x - |x|^2/2} ~ e^-660, products
	 * ~ e^-1300); the row stabiliser keeps every row finite.
	 */
	for (i = 0; i < NL * ND; i++) {
		Q[i] *= 25.0;
		K[i] *= 25.0;
	}
	for (t = 0; t < 2; t++) {
		struct rfx_params p;
		struct rfx_att_ws *ws;
		struct rfx_att_opts opt = { 0, RFX_ATT_STAB_NONE, 0.0, 0 };
		int fin_none = 1, fin_row = 1;

		rfx_params_init(&p, ND);
		ws = maps_for(names[t], r, Q, K, NL, ND, NV, 32, &p);
		rfx_attention_apply(ws, V, &opt, o, lD, sg, &err);
		for (i = 0; i < NL * NV; i++)
			fin_none &= isfinite(o[i]);
		opt.stab = RFX_ATT_STAB_ROW;
		rfx_attention_apply(ws, V, &opt, o, lD, sg, &err);
		for (i = 0; i < NL * NV; i++)
			fin_row &= isfinite(o[i]);
		ok(!fin_none && fin_row,
		   "%s at |x|^2/2 ~ 770: unstabilised rows non-finite, row stabiliser finite",
		   names[t]);
		rfx_att_ws_free(ws);
		rfx_params_release(&p);
	}
	free(Q);
	free(K);
	free(V);
	free(o);
	free(o2);
	free(o3);
	free(dl);
}

/*
 * rfx_attention_errors on a 2 x 2 output written here: O = [[3, 4], [0,
 * 5]], O^ = O + [[0, 1], [2, 0]]. By hand: |E|_F^2 = 5, |O|_F^2 = 50, so
 * out_rel_fro = sqrt(0.1); the rows' |E_i|/|O_i| are 1/5 and 2/5, so
 * out_rel_max = 0.4; out_mse = 5/4. Relative errors do not change when
 * O and O^ are scaled by 2^k, and the MSE scales by 2^2k, exactly: at
 * k = -1000 every square underflowed (0/0, NaN) and at k = 600 overflowed
 * (inf/inf) before the sums were scaled. The normalisers: D^/D = 1.5 (+), -0.5 and
 * 0 give |D^/D - 1| = 0.5, 1.5, 1, a mean of 1 (log 0); with ratios e^1000,
 * e^-1e-20 and sign -1 at 1 and 0, the mean is e^1000 / 4 to 1 part in
 * e^-999, beyond double range: norm_rel inf, log_norm_rel 1000 - log 4.
 */
static void test_errors(void)
{
	static const double o0[4] = { 3, 4, 0, 5 }, e[4] = { 0, 1, 2, 0 };
	static const int ks[] = { 0, -1000, 600, 200 };
	double a[4], b[4], logD0[4] = { 0, 0, 0, 0 };
	double logDh[4] = { 0 };
	signed char sg[4] = { 1, -1, 0, 1 };
	struct rfx_att_errors r;
	size_t k, j;

	for (k = 0; k < sizeof(ks) / sizeof(ks[0]); k++) {
		for (j = 0; j < 4; j++) {
			a[j] = ldexp(o0[j], ks[k]);
			b[j] = ldexp(o0[j] + e[j], ks[k]);
		}
		logDh[0] = log(1.5);
		logDh[1] = log(0.5);
		rfx_attention_errors(2, 1, 2, a, logD0, b, logDh, sg, NULL, 0,
				     NULL, NULL, 0, &r);
		ok(r.out_rel_fro == sqrt(0.1) && r.out_rel_max == 0.4,
		   "O scaled by 2^%d: relative errors sqrt(0.1) and 0.4, got "
		   "%.17g and %.17g", ks[k], r.out_rel_fro, r.out_rel_max);
		/* rounded once: 0 and inf beyond double range (V's 1e75 bound
		 * keeps rfx attention's inside it) */
		ok(r.out_mse == ldexp(1.25, 2 * ks[k]),
		   "and out_mse 1.25 2^%d, got %.17g", 2 * ks[k], r.out_mse);
	}
	ok(fabs(r.norm_rel - 1.0) < 4e-16 && fabs(r.log_norm_rel) < 4e-16,
	   "norm_rel 1 and log_norm_rel 0, got %.17g and %.17g", r.norm_rel,
	   r.log_norm_rel);
	logDh[0] = 1000.0;
	logDh[1] = 1.0;
	logDh[2] = -INFINITY;
	logDh[3] = -1e-20;
	sg[2] = 0;
	rfx_attention_errors(4, 1, 1, a, logD0, a, logDh, sg, NULL, 0, NULL,
			     NULL, 0, &r);
	ok(r.norm_rel == INFINITY &&
	   fabs(r.log_norm_rel - (1000.0 - log(4.0))) < 1e-12,
	   "a ratio of e^1000: norm_rel inf, log_norm_rel %.17g = 1000 - log 4",
	   r.log_norm_rel);
	ok(r.out_rel_fro == 0.0 && r.out_rel_max == 0.0 && r.out_mse == 0.0,
	   "O^ = O: every output error 0");
	for (j = 0; j < 4; j++)
		a[j] = b[j] = 0.0;
	rfx_attention_errors(2, 1, 2, a, logD0, b, logDh, sg, NULL, 0, NULL,
			     NULL, 0, &r);
	ok(r.out_rel_fro == 0.0 && r.out_rel_max == 0.0 && r.out_mse == 0.0,
	   "O = O^ = 0 (V = 0): errors 0, not 0/0");
}

int main(void)
{
	gsl_rng *r = rfx_rng_alloc_stream(20221121, 17, 0, 0);

	test_exact(r);
	test_unbiased_and_variance(r);
	test_causal_stab_eps(r);
	test_errors();
	gsl_rng_free(r);
	return done_testing();
}

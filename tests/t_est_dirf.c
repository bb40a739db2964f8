/*
 * The discretely induced random features (PoisRF, GeomRF and their positive
 * shifted variants): closed forms against Monte Carlo, the fitted
 * parameters against independent minimisations, positivity of the "+"
 * variants and the shift; the logs a feature matrix keeps across draws
 * and sets of inputs.
 */
#include <math.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_bessel.h>

#include "tap.h"
#include "est_check.h"

static const double x3[3] = { 0.31, -0.22, 0.47 };
static const double y3[3] = { 0.12, 0.38, -0.26 };

static void test_mc(void)
{
	static const double xp[3] = { 0.61, 0.12, 0.47 };
	static const double yp[3] = { 0.22, 0.38, 0.86 };
	const struct rfx_estimator_type *es[] = { &rfx_est_pois, &rfx_est_geom,
						  &rfx_est_pois_plus,
						  &rfx_est_geom_plus };
	int k;

	/*
	 * The "+" variants get a given shift c: fitted to a single pair, c puts
	 * one of x_l, y_l at 1e-8 for every l, lambda* (or 1 - q*) becomes tiny
	 * and the variance comes from events of probability ~1e-8 that no
	 * feasible Monte Carlo sees.
	 */
	for (k = 0; k < 4; k++) {
		struct rfx_params p;
		int plus = es[k]->flags & RFX_EST_SHIFTED;

		rfx_params_init(&p, 3);
		if (plus)
			rfx_params_parse(&p, es[k], "c=-0.4,-0.5,-0.6", NULL);
		check_estimator_mc(es[k], &p, x3, y3, 1, 40000, 40 + k,
				   plus ? "c given, M=1" : "mixed signs, M=1");
		rfx_params_release(&p);
		rfx_params_init(&p, 3);
		if (plus)
			rfx_params_parse(&p, es[k], "c=-0.3,0,-0.2", NULL);
		check_estimator_mc(es[k], &p, xp, yp, 3, 40000, 50 + k,
				   plus ? "c given, positive inputs, M=3"
					: "positive inputs, M=3");
		rfx_params_release(&p);
	}
}

/*
 * Closed forms written independently in plain doubles:
 *   PoisRF  Var = exp(lambda d + S/lambda - |x|^2 - |y|^2) - K^2
 *   GeomRF  Var = q^{-d} e^{-|x|^2-|y|^2} prod_l I0(2|x_l y_l|/sqrt(1-q)) - K^2
 * with GSL's I0, at given parameters.
 */
static void test_closed_forms(void)
{
	struct rfx_params p;
	double xx = 0, yy = 0, S = 0, K2 = exp(2 * rfx_kernel_gauss_log(x3, y3, 3));
	double prod = 1.0, lam = 0.37, q = 0.41;
	int l;

	for (l = 0; l < 3; l++) {
		xx += x3[l] * x3[l];
		yy += y3[l] * y3[l];
		S += x3[l] * x3[l] * y3[l] * y3[l];
		prod *= gsl_sf_bessel_I0(2 * fabs(x3[l] * y3[l]) / sqrt(1 - q));
	}
	rfx_params_init(&p, 3);
	p.lambda = lam;
	is_approx(check_log_var(&rfx_est_pois, &p, x3, y3, 2),
		  log((exp(lam * 3 + S / lam - xx - yy) - K2) / 2), 1e-12,
		  "pois closed form (eq. 6.17) at lambda = 0.37, M = 2");
	p.q = q;
	is_approx(check_log_var(&rfx_est_geom, &p, x3, y3, 2),
		  log((pow(q, -3) * exp(-xx - yy) * prod - K2) / 2), 1e-12,
		  "geom closed form (eq. 6.19) at q = 0.41, M = 2");
	rfx_params_release(&p);
}

/* lambda* = sqrt(S/d) is the minimiser of (6.17): compare with a scan. */
static void test_fits(void)
{
	struct rfx_params p;
	struct rfx_err err;
	double best = HUGE_VAL, bq = 0, lv;
	int k;

	rfx_params_init(&p, 3);
	ok(!rfx_est_pois.fit(&p, x3, 1, y3, 1, 1, &err), "pois fits a pair");
	lv = check_log_var(&rfx_est_pois, &p, x3, y3, 1);
	for (k = 1; k < 4000; k++) {
		struct rfx_params r;
		double v;

		rfx_params_init(&r, 3);
		r.lambda = k * 0.0005;
		v = check_log_var(&rfx_est_pois, &r, x3, y3, 1);
		if (v < best)
			best = v;
	}
	ok(lv <= best + 1e-9, "pois lambda* = %.6g beats a scan of lambda (%.10g <= %.10g)",
	   p.lambda, lv, best);
	rfx_params_release(&p);

	rfx_params_init(&p, 3);
	ok(!rfx_est_geom.fit(&p, x3, 1, y3, 1, 1, &err), "geom fits a pair");
	lv = check_log_var(&rfx_est_geom, &p, x3, y3, 1);
	best = HUGE_VAL;
	for (k = 1; k < 10000; k++) {
		struct rfx_params r;
		double v;

		rfx_params_init(&r, 3);
		r.q = k * 1e-4;
		v = check_log_var(&rfx_est_geom, &r, x3, y3, 1);
		if (v < best) {
			best = v;
			bq = r.q;
		}
	}
	ok(lv <= best + 1e-9 && fabs(p.q - bq) < 2e-3,
	   "geom Brent q = %.6g matches a scan (q = %.4f, %.10g <= %.10g)", p.q,
	   bq, lv, best);
	rfx_params_release(&p);
}

/* The shift: c_l = min over both sets - 1e-8, so shifted inputs are > 0. */
static void test_shift(void)
{
	static const double X[6] = { 0.3, -0.5, 1.0, 0.2, -0.1, 0.7 };
	static const double Y[6] = { -0.2, 0.4, -1.5, 0.3, 0.9, 0.1 };
	struct rfx_params p;
	struct rfx_err err;
	struct rfx_draw *w = rfx_draw_alloc(3, 4);
	struct rfx_featmat *F = rfx_featmat_alloc(2, 4);
	gsl_rng *r = rfx_rng_alloc_stream(5, 0, 0, 0);
	int i, allpos = 1;

	rfx_params_init(&p, 3);
	ok(!rfx_est_pois_plus.fit(&p, X, 2, Y, 2, 4, &err), "pois+ fits sets");
	ok(fabs(p.c[0] - (-0.2 - 1e-8)) < 1e-15 &&
		   fabs(p.c[1] - (-0.5 - 1e-8)) < 1e-15 &&
		   fabs(p.c[2] - (-1.5 - 1e-8)) < 1e-15,
	   "c is the coordinate minimum over both sets minus 1e-8");
	for (int rep = 0; rep < 20; rep++) {
		rfx_est_pois_plus.draw(r, RFX_PROJ_IID, &p, 4, w, &err);
		rfx_est_pois_plus.features(&p, w, 1, X, 2, 4, F, &err);
		for (i = 0; i < 8; i++)
			allpos &= F->re[i] >= 0.0;
		rfx_est_pois_plus.features(&p, w, 2, Y, 2, 4, F, &err);
		for (i = 0; i < 8; i++)
			allpos &= F->re[i] >= 0.0;
	}
	ok(allpos, "pois+ features are non-negative on the sets it was fitted to");
	i = rfx_est_geom_plus.fit(&p, X, 2, Y, 2, 4, &err);
	ok(!i && p.q > 0 && p.q < 1, "geom+ fits sets (q = %.4g)", p.q);
	rfx_params_release(&p);
	rfx_draw_free(w);
	rfx_featmat_free(F);
	gsl_rng_free(r);
}

/*
 * The logs rfx_dirf_features keeps in a feature matrix (F->dirf) must give
 * the features a fresh matrix computes: for the same inputs again with
 * another draw, and after the inputs change in place at the same address
 * (a stale cache would keep the old logs). d = 70 spans two chunks of 64
 * coordinates, M = 10 a block of 8 features and a tail of 2.
 */
static void test_cache(void)
{
	enum { N = 3, D = 70, M = 10 };
	const struct rfx_estimator_type *es[] = { &rfx_est_pois,
						  &rfx_est_geom_plus };
	double X[N * D], Y[N * D];
	struct rfx_err err;
	int k, rep, i, l;

	for (i = 0; i < N * D; i++) {
		X[i] = 0.02 * sin(1.0 + i) + (i % 7 == 0 ? 0.0 : 0.001 * (i % 5));
		Y[i] = 0.03 * cos(2.0 + i);
	}
	for (k = 0; k < 2; k++) {
		struct kept_check c;

		kept_check_init(&c, es[k], X, Y, N, D, M, 7, &err);
		for (rep = 0; rep < 6; rep++) {
			if (rep == 3) /* the same address, other inputs */
				for (l = 0; l < D; l++)
					X[l] = -X[l] + 0.001;
			kept_check_draw(&c, 1, X, N, M, &err);
		}
		kept_check_done(&c, "logs equal a fresh matrix's, also after the inputs change");
	}
}

/*
 * The cache keeps several sets of inputs (Tables 6.2-6.3 give the
 * training set in chunks): 12 sets taken twice in turn, so that the
 * second round finds them kept, except one set that changed in place
 * (all but its first number) and one given with a row less at the same
 * address; then 40 sets, more than it keeps, twice, so that sets are
 * replaced and filled again. Every call's features must be a fresh
 * matrix's.
 */
static void test_cache_sets(void)
{
	enum { S = 40, N = 3, D = 5, M = 10 };
	const struct rfx_estimator_type *es[] = { &rfx_est_geom,
						  &rfx_est_pois_plus };
	static double X[S][N * D];
	double Y[N * D];
	struct rfx_err err;
	int k, rep, i, set;

	for (set = 0; set < S; set++)
		for (i = 0; i < N * D; i++)
			X[set][i] = 0.3 * sin(1.7 * i + 0.37 * set) +
				    (i % 4 == 0 ? 0.0 : 0.01 * set);
	for (i = 0; i < N * D; i++)
		Y[i] = 0.2 * cos(2.0 + i);
	for (k = 0; k < 2; k++) {
		struct kept_check c;

		kept_check_init(&c, es[k], X[0], Y, N, D, M, 9, &err);
		for (rep = 0; rep < 4; rep++)
			for (set = 0; set < (rep < 2 ? 12 : S); set++) {
				size_t n = rep == 1 && set == 11 ? N - 1 : N;

				/* all but the first number: a check of part
				   of the key would keep the stale logs */
				if (rep == 1 && set == 7)
					for (i = 1; i < N * D; i++)
						X[set][i] = -X[set][i] + 0.002;
				kept_check_draw(&c, 2, X[set], n, M, &err);
			}
		kept_check_done(&c, "logs of 12, then 40 sets in turn equal a fresh matrix's");
	}
}

/*
 * PoisRF's features, e^{lambda d/2 - |x|^2/2} prod_l (x_l / sqrt(lambda))^k_l
 * / sqrt(M) (thesis sec. 6.4.1), in long double from the counts, against
 * rfx_dirf_features in its ways: n rows at once (n >= 4 with the logs kept:
 * dirf_rows at M = 75, where 64 coordinates of the draw pass 32 KiB, and
 * dirf_row at M = 40, blocks of 32 features, and of 8 where a row has a
 * zero coordinate in a chunk), each row alone (n = 1: dirf_row, blocks of
 * 8), and the rows of a set too large to keep (n d > 65536: dirf_row with
 * blocks of 32). d = 70 makes two chunks of coordinates (64 and 6), M = 75
 * two blocks of 32, one of 8 and three features one by one. The ways must
 * agree byte for byte and the definition to 1e-12. Then counts of
 * 2^50 + 1, odd, in every coordinate of one feature, on inputs +-1/2 with
 * lambda = 1/4 (so that |x_l| / sqrt(lambda) = 1 and the feature is
 * +-e^{...} by the parity alone): a sum of them would pass 2^53 and lose
 * its parity, so those draws must take the blocks of 8 (dirf_exact_sums).
 */
static long double pois_definition(const double *x, const double *k, int d,
				   size_t cap, double lambda, int M)
{
	long double v = expl(0.5L * lambda * d), sl = sqrtl(lambda);
	int l;

	for (l = 0; l < d; l++)
		v *= expl(-0.5L * x[l] * x[l]) *
		     powl(x[l] / sl, k[(size_t)l * cap]);
	return v / sqrtl(M);
}

static int features_of(struct rfx_params *p, const struct rfx_draw *w,
		       const double *X, size_t n, int M, double *out,
		       struct rfx_err *err)
{
	struct rfx_featmat *F = rfx_featmat_alloc(n, M);
	size_t i;
	int m, ret = F ? rfx_est_pois.features(p, w, 1, X, n, M, F, err)
		       : RFX_ENOMEM;

	for (i = 0; !ret && i < n; i++)
		for (m = 0; m < M; m++)
			out[i * (size_t)M + m] = F->re[i * (size_t)M + m] *
						 exp(F->lscale[i]);
	rfx_featmat_free(F);
	return ret;
}

static void test_paths_at(int M)
{
	enum { N = 9, D = 70, MMAX = 75, BIG = 1000 };
	static double X[BIG * D], all[N * MMAX], one[N * MMAX], big[BIG * MMAX];
	struct rfx_params p;
	struct rfx_draw *w = rfx_draw_alloc(D, M);
	gsl_rng *r = rfx_rng_alloc_stream(11, 0, 0, 0);
	struct rfx_err err;
	long double worst = 0.0L;
	size_t i;
	int m, l, ret, same = 1, sign_ok = 1, zero_ok = 1, zeros = 0;

	rfx_params_init(&p, D);
	p.lambda = 1.0; /* counts 0-4: odd ones, and signs, in every column */
	for (i = 0; i < BIG * D; i++)
		X[i] = 0.5 * sin(0.7 * (double)i + 0.3);
	X[2 * D + 5] = 0.0;  /* row 2, first chunk */
	X[5 * D + 66] = 0.0; /* row 5, second chunk */
	ret = !w || !r ? RFX_ENOMEM : rfx_est_pois.draw(r, RFX_PROJ_IID, &p, M, w, &err);
	ret = ret ? ret : features_of(&p, w, X, N, M, all, &err);
	for (i = 0; !ret && i < N; i++)
		ret = features_of(&p, w, X + i * D, 1, M, one + i * M, &err);
	ret = ret ? ret : features_of(&p, w, X, BIG, M, big, &err);
	for (i = 0; !ret && i < N; i++)
		for (m = 0; m < M; m++) {
			long double v = pois_definition(X + i * D, w->omega + m, D,
							(size_t)w->cap, p.lambda, M);
			long double e = fabsl(all[i * M + m] - v);

			if (v != 0.0L)
				e /= fabsl(v);
			if (e > worst)
				worst = e;
			same &= memcmp(&all[i * M + m], &one[i * M + m], 8) == 0 &&
				memcmp(&all[i * M + m], &big[i * M + m], 8) == 0;
		}
	ok(!ret && same, "pois, M = %d: features of 9 rows at once, one at a time and among 1000 agree byte for byte", M);
	ok(!ret && worst < 1e-12L, "pois, M = %d: and the definition to %.2Lg (< 1e-12)", M, worst);
	for (m = 0; !ret && m < M; m++) {
		zeros += w->omega[5 * w->cap + m] > 0.0;
		zero_ok &= (all[2 * M + m] == 0.0) ==
			   (w->omega[5 * w->cap + m] > 0.0) &&
			   (all[5 * M + m] == 0.0) ==
			   (w->omega[66 * w->cap + m] > 0.0);
	}
	ok(!ret && zero_ok && zeros > 0 && zeros < M,
	   "pois, M = %d: a zero coordinate zeroes the features with a positive count there, and only those (%d of them)",
	   M, zeros);

	p.lambda = 0.25;
	for (i = 0; i < N * D; i++)
		X[i] = i % 3 == 0 ? -0.5 : 0.5;
	for (l = 0; l < D; l++)
		w->omega[(size_t)l * w->cap + 3] = 1125899906842625.0; /* 2^50 + 1 */
	ret = ret ? ret : features_of(&p, w, X, N, M, all, &err);
	for (i = 0; !ret && i < N; i++) {
		int nneg = 0;
		/* e^{lambda d / 2 - |x|^2 / 2} / sqrt(M), |x|^2 = d / 4 */
		double v = exp(0.125 * D - 0.125 * D) / sqrt((double)M);

		for (l = 0; l < D; l++)
			nneg += X[i * D + l] < 0.0;
		v = nneg % 2 ? -v : v;
		sign_ok &= fabs(all[i * M + 3] - v) <= 1e-12 * fabs(v);
	}
	ok(!ret && sign_ok, "pois, M = %d: counts of 2^50 + 1 keep their parity: the sign of the feature", M);
	rfx_params_release(&p);
	rfx_draw_free(w);
	gsl_rng_free(r);
}

static void test_paths(void)
{
	test_paths_at(75);
	test_paths_at(40);
}

/*
 * PoisRF's draw against gsl_ran_poisson on a twin stream: the same counts
 * in the draw's order (coordinates, then features) and the same state
 * after them, below, at and above the mu = 10 where GSL changes method.
 */
static void test_pois_draw(void)
{
	enum { D = 7, M = 33 };
	const double lambdas[] = { 0.05, 1.0, 3.7, 10.0, 10.5, 40.0 };
	size_t t;

	for (t = 0; t < sizeof(lambdas) / sizeof(lambdas[0]); t++) {
		struct rfx_params p;
		struct rfx_draw *w = rfx_draw_alloc(D, M);
		gsl_rng *r = rfx_rng_alloc_stream(5 + t, 0, 0, 0);
		gsl_rng *twin = rfx_rng_alloc_stream(5 + t, 0, 0, 0);
		struct rfx_err err;
		int l, m, ret, same = 1;

		rfx_params_init(&p, D);
		p.lambda = lambdas[t];
		ret = !w || !r || !twin ? RFX_ENOMEM
					: rfx_est_pois.draw(r, RFX_PROJ_IID, &p, M, w, &err);
		for (l = 0; !ret && l < D; l++)
			for (m = 0; m < M; m++)
				same &= w->omega[(size_t)l * w->cap + m] ==
					(double)gsl_ran_poisson(twin, p.lambda);
		ok(!ret && same && gsl_rng_uniform(r) == gsl_rng_uniform(twin),
		   "pois: lambda = %g draws gsl_ran_poisson's counts and leaves its stream where GSL does",
		   lambdas[t]);
		rfx_params_release(&p);
		rfx_draw_free(w);
		gsl_rng_free(r);
		gsl_rng_free(twin);
	}
}

static void test_errors(void)
{
	struct rfx_params p;
	struct rfx_err err;

	rfx_params_init(&p, 3);
	ok(rfx_params_parse(&p, &rfx_est_pois, "lambda=0", &err) == RFX_EINVAL,
	   "lambda = 0 rejected: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_geom, "q=1", &err) == RFX_EINVAL,
	   "q = 1 rejected: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_pois_plus, "c=1,2", &err) == RFX_EINVAL,
	   "c with the wrong length rejected: %s", err.msg);
	ok(rfx_params_parse(&p, &rfx_est_pois_plus, "c=-1,-2,-3", &err) == RFX_OK &&
		   p.c[2] == -3.0,
	   "c of length d parses");
	rfx_params_release(&p);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_closed_forms();
	test_mc();
	test_fits();
	test_shift();
	test_cache();
	test_cache_sets();
	test_paths();
	test_pois_draw();
	test_errors();
	return done_testing();
}

/*
 * Tests for lib/exp/uciexp: the experiment driver on a planted split (exact
 * regression perfect) and on the shipped banknote data: row layout,
 * projections, the validated gamma, accuracies that are counts over the
 * split, bit-identical results for 1 and 2 threads, seeds that matter,
 * and the configuration errors.
 */
#include "exp/uciexp.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/rng.h"

static const char *top;

/* A planted split: two clusters along the first of d = 2 coordinates. */
static void planted_split(struct rfx_uci_split *S, size_t nt, size_t nv,
			  size_t ne)
{
	gsl_rng *r = rfx_rng_alloc_stream(21, 0, 0, 0);
	double *X[3];
	int *y[3], k;
	size_t n[3] = { nt, nv, ne }, i;

	memset(S, 0, sizeof(*S));
	S->d = 2;
	S->nclass = 2;
	S->n_train = nt;
	S->n_val = nv;
	S->n_test = ne;
	for (k = 0; k < 3; k++) {
		X[k] = malloc(n[k] * 2 * sizeof(double));
		y[k] = malloc(n[k] * sizeof(int));
		for (i = 0; i < n[k]; i++) {
			y[k][i] = (int)(i % 2);
			X[k][2 * i] = (y[k][i] ? 2.0 : -2.0) + gsl_ran_gaussian(r, 0.5);
			X[k][2 * i + 1] = gsl_ran_gaussian(r, 0.5);
		}
	}
	S->Xtr = X[0];
	S->Xva = X[1];
	S->Xte = X[2];
	S->ytr = y[0];
	S->yva = y[1];
	S->yte = y[2];
	gsl_rng_free(r);
}

static void config(struct rfx_uciexp_config *c, const struct rfx_uci_split *S,
		   const struct rfx_uciexp_method *m, int nm, const double *g,
		   int ng, int seeds)
{
	memset(c, 0, sizeof(*c));
	c->dataset = "test";
	c->dataset_index = 3;
	c->split = S;
	c->nmethods = nm;
	c->methods = m;
	c->ngammas = ng;
	c->gammas = g;
	c->seeds = seeds;
	c->budget = 128;
	c->seed = 20221121;
}

static void test_planted(void)
{
	struct rfx_uci_split S;
	struct rfx_uciexp_method m[2] = { { NULL, RFX_PROJ_IID },
					  { NULL, RFX_PROJ_IID } };
	struct rfx_uciexp_config c;
	struct rfx_uciexp_gamma_row gr[6];
	struct rfx_uciexp_row rows[2];
	double g[3] = { 0.3, 1.0, 10.0 };
	int k, perfect = 1;

	planted_split(&S, 200, 40, 40);
	m[1].e = rfx_estimator_find("oprf", NULL);
	config(&c, &S, m, 2, g, 3, 4);
	ok(rfx_uciexp_run(&c, gr, rows, NULL) == RFX_OK, "planted split runs");
	for (k = 0; k < 3; k++)
		if (gr[k].val_pct != 100.0 || gr[k].test_pct != 100.0)
			perfect = 0;
	ok(perfect && !strcmp(rows[0].method, "exact") &&
		   !strcmp(rows[0].projection, "none") && rows[0].M == 0 &&
		   rows[0].seeds == 1 && rows[0].test_pct_se == 0.0,
	   "exact: 100%% on a planted two-cluster split at every gamma, one 'seed'");
	ok(rows[0].gamma == 0.3 && rows[0].test_pct == 100.0,
	   "ties in validation accuracy go to the smallest gamma");
	ok(!strcmp(rows[1].method, "oprf") && !strcmp(rows[1].projection, "iid") &&
		   rows[1].M == 128 && rows[1].seeds == 4 && rows[1].test_pct > 90.0,
	   "oprf: 128 features, 4 seeds, > 90%% on the planted split (%g)",
	   rows[1].test_pct);
	ok(!strncmp(gr[3].params, "A=", 2) && !strcmp(gr[0].params, "-"),
	   "oprf's fitted A is recorded per gamma ('%s'), exact has '-'",
	   gr[3].params);
	rfx_uci_split_release(&S);
}

static int load_banknote(struct rfx_uci_split *S)
{
	const struct rfx_uci_spec *s = rfx_uci_find("banknote", NULL);
	char path[4096];
	struct rfx_uci_data *D;
	int ret;

	snprintf(path, sizeof(path), "%s/data/%s", top, s->file);
	D = rfx_uci_load(s, path, RFX_UCI_ORDINAL, NULL);
	if (!D)
		return -1;
	ret = rfx_uci_split(D, 20221121, 1, S, NULL);
	rfx_uci_free(D);
	return ret;
}

/* x * n / 100 is an integer for every accuracy (mean of seeds counts). */
static int is_count(double pct, size_t n, int seeds)
{
	double k = pct * (double)n * seeds / 100.0;

	return fabs(k - floor(k + 0.5)) < 1e-6;
}

static void test_banknote(void)
{
	struct rfx_uci_split S;
	struct rfx_uciexp_method m[5];
	struct rfx_uciexp_config c;
	struct rfx_uciexp_gamma_row g1[15], g2[15], g3[15];
	struct rfx_uciexp_row r1[5], r2[5], r3[5];
	double g[3] = { 0.3, 1.0, 3.0 };
	int k, nthreads = 1, counts = 1, best = 1, layout = 1;
	static const char *const names[5] = { "exact", "trig", "trig", "pois",
					      "geom+" };
	static const char *const projs[5] = { "none", "iid", "ort", "discrete",
					      "discrete" };
	static const int Ms[5] = { 0, 64, 64, 128, 128 };

	if (load_banknote(&S)) {
		ok(0, "banknote loads and splits");
		return;
	}
	m[0].e = NULL;
	m[1].e = m[2].e = rfx_estimator_find("trig", NULL);
	m[3].e = rfx_estimator_find("pois", NULL);
	m[4].e = rfx_estimator_find("geom+", NULL);
	for (k = 0; k < 5; k++)
		m[k].proj = RFX_PROJ_IID;
	m[2].proj = RFX_PROJ_ORT;
	config(&c, &S, m, 5, g, 3, 3);
	c.chunk = 200;
#ifdef _OPENMP
	nthreads = omp_get_max_threads();
	omp_set_num_threads(1);
#endif
	ok(rfx_uciexp_run(&c, g1, r1, NULL) == RFX_OK, "banknote, 1 thread");
#ifdef _OPENMP
	omp_set_num_threads(2);
#endif
	ok(rfx_uciexp_run(&c, g2, r2, NULL) == RFX_OK, "banknote, 2 threads");
#ifdef _OPENMP
	omp_set_num_threads(nthreads);
#endif
	ok(!memcmp(g1, g2, sizeof(g1)) && !memcmp(r1, r2, sizeof(r1)),
	   "1 and 2 threads: bit-identical rows");
	for (k = 0; k < 15; k++) {
		const struct rfx_uciexp_gamma_row *x = &g1[k];
		int mi = k / 3;

		if (strcmp(x->method, names[mi]) || strcmp(x->projection, projs[mi]) ||
		    x->gamma != g[k % 3] || x->M != Ms[mi] ||
		    x->seeds != (mi ? 3 : 1) || strcmp(x->dataset, "test"))
			layout = 0;
		if (!is_count(x->val_pct, S.n_val, x->seeds) ||
		    !is_count(x->test_pct, S.n_test, x->seeds) ||
		    !(x->val_pct_sd >= 0) || (mi == 0 && x->val_pct_sd != 0))
			counts = 0;
	}
	ok(layout, "rows by method then gamma; projections none/iid/ort/discrete; M 0/64/128");
	ok(counts, "accuracies are means of counts over the 69 validation and 69 test rows");
	for (k = 0; k < 5; k++) {
		int j, arg = 0;

		for (j = 1; j < 3; j++)
			if (g1[k * 3 + j].val_pct > g1[k * 3 + arg].val_pct)
				arg = j;
		if (r1[k].gamma != g[arg] || r1[k].test_pct != g1[k * 3 + arg].test_pct ||
		    r1[k].val_pct != g1[k * 3 + arg].val_pct ||
		    fabs(r1[k].test_pct_se -
			 g1[k * 3 + arg].test_pct_sd / sqrt(r1[k].seeds)) > 1e-12 ||
		    r1[k].n_train != 1234 || r1[k].n_test != 69 || r1[k].d != 4 ||
		    r1[k].classes != 2)
			best = 0;
	}
	ok(best, "summary rows: the best validation gamma, its test accuracy, se = sd/sqrt(seeds)");
	ok(r1[0].test_pct > 90.0, "exact kernel regression on banknote: %.1f%% > 90%%",
	   r1[0].test_pct);
	ok(strstr(g1[12].params, "c=") && strstr(g1[12].params, "q="),
	   "geom+ records q and the shift c ('%.40s...')", g1[12].params);

	c.seed = 7;
	rfx_uciexp_run(&c, g3, r3, NULL);
	ok(!memcmp(&g3[0], &g1[0], 3 * sizeof(g1[0])) &&
		   memcmp(&g3[3], &g1[3], 12 * sizeof(g1[0])) != 0,
	   "another seed: exact rows unchanged, random-feature rows change");
	c.seed = 20221121;
	c.dataset = "test2";
	rfx_uciexp_run(&c, g3, r3, NULL);
	{
		int differs = 0;

		for (k = 3; k < 15; k++)
			differs |= g3[k].val_pct != g1[k].val_pct ||
				   g3[k].test_pct != g1[k].test_pct;
		ok(differs, "the dataset's name is part of the streams");
	}
	rfx_uci_split_release(&S);
}

static void test_errors(void)
{
	struct rfx_uci_split S;
	struct rfx_uciexp_method m[1] = { { NULL, RFX_PROJ_IID } };
	struct rfx_uciexp_config c;
	struct rfx_uciexp_gamma_row gr[2];
	struct rfx_uciexp_row rows[1];
	struct rfx_err err;
	double g[2] = { 1.0, -1.0 };

	planted_split(&S, 30, 5, 5);
	config(&c, &S, m, 1, g, 2, 1);
	rfx_err_clear(&err);
	ok(rfx_uciexp_run(&c, gr, rows, &err) == RFX_EINVAL &&
		   strstr(err.msg, "gamma"),
	   "gamma -1: RFX_EINVAL");
	config(&c, &S, m, 1, g, 1, 0);
	rfx_err_clear(&err);
	ok(rfx_uciexp_run(&c, gr, rows, &err) == RFX_EINVAL &&
		   strstr(err.msg, "seeds"),
	   "0 seeds: RFX_EINVAL");
	config(&c, &S, m, 0, g, 1, 1);
	rfx_err_clear(&err);
	ok(rfx_uciexp_run(&c, gr, rows, &err) == RFX_EINVAL, "no methods: RFX_EINVAL");
	config(&c, NULL, m, 1, g, 1, 1);
	rfx_err_clear(&err);
	ok(rfx_uciexp_run(&c, gr, rows, &err) == RFX_EINVAL, "no split: RFX_EINVAL");
	ok(!strcmp(rfx_uciexp_projection(&m[0]), "none"), "exact's projection is 'none'");
	rfx_uci_split_release(&S);
}

int main(void)
{
	gsl_set_error_handler_off();
	top = getenv("RFX_TOP");
	if (!top)
		top = ".";
	test_planted();
	test_banknote();
	test_errors();
	return done_testing();
}

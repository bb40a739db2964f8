/*
 * The estimator registry (lib/est/estimator.h): the list and its order, that
 * every entry is complete and flagged as the thesis describes it, name
 * lookup and list parsing with their errors, parameter parsing, printing
 * and copying for every parameter kind, the fair feature count, block
 * preparation, positivity of the features of every estimator flagged
 * RFX_EST_POSITIVE, and that every registered estimator has a test in
 * tests/t_est_*.c (so a new one cannot be added without one, as curl's
 * test1139 keeps its tables in sync).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "tap.h"
#include "est/estimator.h"
#include "base/rng.h"
#include "exp/varexp.h"

/*
 * The registry: the thesis' nine in the order of its Fig 6.4 panels
 * (non-positive estimators, then positive ones), then the HRF paper's.
 * The order is part of the interface: rfx_varexp keys each method's Monte
 * Carlo stream by its registry index, so new entries are appended.
 */
static const char *const expect_names[] = {
	"trig", "hyb", "gerf", "pois", "geom", "pos", "oprf", "pois+", "geom+",
	"posh", "ang", "ang-ind", "gauss-hyb", "cexp", "cexp-c", "hyb-ind",
	"gauss-hyb-ind",
};
#define NTHESIS 9
#define NEST ((int)(sizeof(expect_names) / sizeof(expect_names[0])))

static int in(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return 1;
	return 0;
}

static void test_registry(void)
{
	static const char *const positive[] = { "pos", "oprf", "pois+", "geom+",
						"posh", NULL };
	static const char *const complex_[] = { "trig", "hyb", "gerf", "ang",
						"ang-ind", "gauss-hyb", "cexp-c",
						"hyb-ind", "gauss-hyb-ind", NULL };
	static const char *const discrete[] = { "pois", "geom", "pois+", "geom+", NULL };
	static const char *const shifted[] = { "pois+", "geom+", NULL };
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	int n = 0, order = 1, complete = 1, flags_pos = 1, flags_cx = 1,
	    flags_disc = 1, flags_shift = 1, names_fit = 1, unique = 1, i, j;

	while (all[n] && n < 100)
		n++;
	ok(n == NEST, "registry has %d entries and is NULL-terminated", n);
	for (i = 0; i < n && i < NEST; i++)
		if (strcmp(all[i]->name, expect_names[i]))
			order = 0;
	ok(order, "registry order: trig, hyb, gerf, pois, geom, pos, oprf, pois+, geom+, posh, ang, ang-ind, gauss-hyb");
	for (i = 0; i < n; i++) {
		const struct rfx_estimator_type *e = all[i];
		int pos_ = (e->flags & RFX_EST_POSITIVE) != 0;

		if (!e->name || !*e->name || !e->title || !*e->title || !e->fit ||
		    !e->log_variance || !e->draw || !e->features ||
		    !strchr(e->title, '(') || !e->kernels ||
		    (e->params && !e->fit_note)) {
			complete = 0;
			diag("incomplete entry %d (%s)", i, e->name ? e->name : "?");
		}
		if (pos_ != in(e->name, positive))
			flags_pos = 0;
		if (((e->flags & RFX_EST_COMPLEX) != 0) != in(e->name, complex_))
			flags_cx = 0;
		if (((e->flags & RFX_EST_DISCRETE) != 0) != in(e->name, discrete))
			flags_disc = 0;
		/* The shifted ones, and only they, act on x - c: they have c. */
		if (((e->flags & RFX_EST_SHIFTED) != 0) != in(e->name, shifted) ||
		    ((e->params & RFX_P(RFX_PARAM_C)) != 0) != in(e->name, shifted))
			flags_shift = 0;
		/* Rows of the result tables hold names in RFX_NAME_LEN bytes. */
		if (strlen(e->name) >= RFX_NAME_LEN)
			names_fit = 0;
		for (j = 0; j < i; j++)
			if (!strcmp(all[j]->name, e->name) || all[j] == e)
				unique = 0;
		/*
		 * Fig 6.4's grouping of the thesis' nine: no positive estimator
		 * before a signed one.
		 */
		if (i > 0 && i < NTHESIS &&
		    (all[i - 1]->flags & RFX_EST_POSITIVE) && !pos_)
			order = 0;
	}
	ok(complete, "every entry has name, title with its source in parentheses, kernels, fit, log_variance, draw, features, and a fit note when it has parameters");
	ok(unique, "names and entries are unique");
	ok(names_fit, "every name fits a table row (< %d bytes)", RFX_NAME_LEN);
	ok(order, "the thesis' positive estimators come after its signed ones");
	ok(flags_pos, "RFX_EST_POSITIVE exactly for pos, oprf, pois+, geom+, posh");
	ok(flags_cx, "RFX_EST_COMPLEX exactly for trig, hyb, gerf, ang, ang-ind, gauss-hyb, cexp-c, hyb-ind, gauss-hyb-ind");
	ok(flags_disc, "RFX_EST_DISCRETE exactly for pois, geom, pois+, geom+");
	ok(flags_shift, "RFX_EST_SHIFTED and parameter c exactly for pois+, geom+");
	ok((rfx_est_pois.flags & RFX_EST_X2Y2) && (rfx_est_pois_plus.flags & RFX_EST_X2Y2) &&
		   !(rfx_est_geom.flags & RFX_EST_X2Y2) && !(rfx_est_trig.flags & RFX_EST_X2Y2),
	   "RFX_EST_X2Y2 for PoisRF (eq. 6.17 needs sum x_l^2 y_l^2), not for GeomRF or TrigRF");
}

static void test_find(void)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	struct rfx_err err;
	int i, found = 1, listed = 1;

	for (i = 0; all[i]; i++)
		if (rfx_estimator_find(all[i]->name, &err) != all[i])
			found = 0;
	ok(found, "every registered name finds its entry");
	rfx_err_clear(&err);
	ok(rfx_estimator_find("bogusrf", &err) == NULL && err.code == RFX_EINVAL,
	   "unknown name is NULL with RFX_EINVAL");
	for (i = 0; all[i]; i++)
		if (!strstr(err.msg, all[i]->name))
			listed = 0;
	ok(listed && strstr(err.msg, "'bogusrf'") && !strstr(err.msg, ", all"),
	   "the message names the unknown name and lists every valid one, not 'all' (no single lookup takes it): %s",
	   err.msg);
	ok(rfx_estimator_find("all", &err) == NULL && !strstr(err.msg, ", all"),
	   "find(\"all\") fails without suggesting 'all': %s", err.msg);
	ok(rfx_estimator_find("TRIG", &err) == &rfx_est_trig &&
		   rfx_estimator_find("Pois+", &err) == &rfx_est_pois_plus,
	   "lookup ignores case (the papers write TrigRF, PoisRF+)");
	ok(rfx_estimator_find("po", &err) == NULL &&
		   rfx_estimator_find("", &err) == NULL &&
		   rfx_estimator_find("pos ", &err) == NULL,
	   "lookup is otherwise exact: no prefixes or trailing blanks");
	rfx_estimator_find("oprff", &err);
	ok(strstr(err.msg, "did you mean 'oprf'?") != NULL,
	   "a misspelt name suggests the nearest: %s", err.msg);
	rfx_estimator_find("favor+++", &err);
	ok(strstr(err.msg, "did you mean 'favor++'?") != NULL,
	   "aliases are suggested too: %s", err.msg);
}

/*
 * Aliases: the papers' names as the papers spell them (case aside) find
 * their estimator; no alias is another entry's name or alias; the
 * projection aliases stand for an estimator and a projection kind.
 */
static void test_aliases(void)
{
	static const struct {
		const char *alias;
		const struct rfx_estimator_type *e;
	} papers[] = {
		{ "RFF", &rfx_est_trig },	 /* ORF paper sec. 1 */
		{ "TrigRF", &rfx_est_trig },	 /* thesis sec. 2.1.3 */
		{ "FAVOR+", &rfx_est_pos },	 /* thesis sec. 4.2 */
		{ "PosRF", &rfx_est_pos },	 /* thesis sec. 4.2 */
		{ "FAVOR++", &rfx_est_oprf },	 /* thesis sec. 6.6.2 */
		{ "OPRF", &rfx_est_oprf },	 /* thesis sec. 6.3 */
		{ "GERF", &rfx_est_gerf },	 /* thesis sec. 6.3 */
		{ "HybRF", &rfx_est_hyb },	 /* thesis sec. 6.2 */
		{ "PoisRF", &rfx_est_pois },	 /* thesis sec. 6.4.1 */
		{ "GeomRF", &rfx_est_geom },	 /* thesis sec. 6.4.2 */
		{ "PoisRF+", &rfx_est_pois_plus }, /* thesis sec. 6.4.3 */
		{ "GeomRF+", &rfx_est_geom_plus }, /* thesis sec. 6.4.3 */
		{ "angular-hybrid", &rfx_est_ang },	/* HRF sec. 2.4 */
		{ "gaussian-hybrid", &rfx_est_gauss_hyb }, /* HRF sec. 2.4 */
	};
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	const struct rfx_proj_alias *pa = rfx_estimator_proj_aliases();
	struct rfx_err err;
	enum rfx_proj proj = RFX_PROJ_IID;
	size_t k;
	int i, j, clash = 0, has = -1;

	for (k = 0; k < sizeof(papers) / sizeof(papers[0]); k++)
		ok(rfx_estimator_find(papers[k].alias, &err) == papers[k].e,
		   "'%s' is %s", papers[k].alias, papers[k].e->name);
	for (i = 0; all[i]; i++)
		for (j = 0; all[j]; j++)
			if (i != j && (rfx_estimator_is(all[j], all[i]->name) ||
				       (all[i]->aliases && all[j]->aliases &&
					!strcmp(all[i]->aliases, all[j]->aliases) &&
					*all[i]->aliases)))
				clash = 1;
	for (; pa->alias; pa++)
		for (i = 0; all[i]; i++)
			if (rfx_estimator_is(all[i], pa->alias))
				clash = 1;
	ok(!clash, "no alias is another estimator's name, alias or a projection alias");
	ok(rfx_estimator_find_proj("ORF", &proj, &has, &err) == &rfx_est_trig &&
		   has == 1 && proj == RFX_PROJ_ORT,
	   "find_proj: ORF is trig on ort (ORF paper sec. 3)");
	ok(rfx_estimator_find_proj("sorf", &proj, &has, &err) == &rfx_est_trig &&
		   has == 1 && proj == RFX_PROJ_SORF,
	   "find_proj: SORF is trig on sorf (ORF paper sec. 4)");
	ok(rfx_estimator_find_proj("rff", &proj, &has, &err) == &rfx_est_trig &&
		   has == 0,
	   "find_proj: RFF names no projection");
	ok(rfx_estimator_find("orf", &err) == NULL &&
		   strstr(err.msg, "--method trig --projection ort"),
	   "find: orf says how to ask for it: %s", err.msg);
}

static void test_parse_list(void)
{
	const struct rfx_estimator_type *out[32];
	struct rfx_err err;
	int n = -1, i, same = 1;

	ok(rfx_estimator_parse_list("all", out, 32, &n, &err) == RFX_OK &&
		   n == NEST,
	   "\"all\" gives all %d", NEST);
	for (i = 0; i < n; i++)
		if (out[i] != rfx_estimator_list()[i])
			same = 0;
	ok(same, "\"all\" keeps the registry order");
	ok(rfx_estimator_parse_list("geom+,trig,oprf", out, 32, &n, &err) ==
			   RFX_OK &&
		   n == 3 && out[0] == &rfx_est_geom_plus && out[1] == &rfx_est_trig &&
		   out[2] == &rfx_est_oprf,
	   "a list keeps the given order: geom+, trig, oprf");
	ok(rfx_estimator_parse_list("pos", out, 32, &n, &err) == RFX_OK && n == 1 &&
		   out[0] == &rfx_est_pos,
	   "a single name");
	rfx_err_clear(&err);
	ok(rfx_estimator_parse_list("pos,trig,pos", out, 32, &n, &err) ==
			   RFX_EINVAL &&
		   n == 0 && strstr(err.msg, "twice"),
	   "a duplicate is RFX_EINVAL and n = 0: %s", err.msg);
	ok(rfx_estimator_parse_list("pos,,trig", out, 32, &n, &err) == RFX_EINVAL &&
		   strstr(err.msg, "empty"),
	   "an empty item is RFX_EINVAL: %s", err.msg);
	ok(rfx_estimator_parse_list("pos,", out, 32, &n, &err) == RFX_EINVAL,
	   "a trailing comma is RFX_EINVAL");
	ok(rfx_estimator_parse_list(",pos", out, 32, &n, &err) == RFX_EINVAL,
	   "a leading comma is RFX_EINVAL");
	ok(rfx_estimator_parse_list("", out, 32, &n, &err) == RFX_EINVAL,
	   "an empty list is RFX_EINVAL");
	rfx_err_clear(&err);
	ok(rfx_estimator_parse_list("pos,favor", out, 32, &n, &err) == RFX_EINVAL &&
		   strstr(err.msg, "'favor'") && strstr(err.msg, "geom+") &&
		   strstr(err.msg, ", all)"),
	   "an unknown name is RFX_EINVAL listing the valid ones and 'all': %s", err.msg);
	ok(rfx_estimator_parse_list("trig,all", out, 32, &n, &err) == RFX_EINVAL &&
		   strstr(err.msg, "alone"),
	   "'all' inside a list is RFX_EINVAL saying it comes alone: %s", err.msg);
	ok(rfx_estimator_parse_list("pos,trig,hyb", out, 2, &n, &err) ==
			   RFX_EINVAL &&
		   strstr(err.msg, "too many"),
	   "more names than the capacity is RFX_EINVAL: %s", err.msg);
	ok(rfx_estimator_parse_list("all", out, 3, &n, &err) == RFX_EINVAL &&
		   n == 0,
	   "\"all\" beyond the capacity is RFX_EINVAL too, not silently cut to 3");
	ok(rfx_estimator_parse_list(
		   "pos,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		   out, 32, &n, &err) == RFX_EINVAL,
	   "an overlong name is RFX_EINVAL");
	ok(rfx_estimator_parse_list("all,pos", out, 32, &n, &err) == RFX_EINVAL,
	   "\"all\" inside a list is not a name");
}

/*
 * Splits "a;b;c" and parses each into p ("-" is no parameters); returns
 * the number that failed.
 */
static int parse_all(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *s, struct rfx_err *err)
{
	char buf[512], *tok, *save = NULL;
	int fails = 0;

	if (!strcmp(s, "-"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		fails += rfx_params_parse(p, e, tok, err) != RFX_OK;
	return fails;
}

static int same_params(const struct rfx_params *a, const struct rfx_params *b,
		       unsigned mask)
{
	int l;

	if ((mask & RFX_P(RFX_PARAM_A)) && (a->A_re != b->A_re || a->A_im != b->A_im))
		return 0;
	if ((mask & RFX_P(RFX_PARAM_T)) && a->t != b->t)
		return 0;
	if ((mask & RFX_P(RFX_PARAM_LAMBDA)) && a->lambda != b->lambda)
		return 0;
	if ((mask & RFX_P(RFX_PARAM_Q)) && a->q != b->q)
		return 0;
	if ((mask & RFX_P(RFX_PARAM_M1)) && a->m1 != b->m1)
		return 0;
	if ((mask & RFX_P(RFX_PARAM_M3)) && a->m3 != b->m3)
		return 0;
	if (mask & RFX_P(RFX_PARAM_C)) {
		if (!a->c || !b->c)
			return 0;
		for (l = 0; l < a->d; l++)
			if (a->c[l] != b->c[l])
				return 0;
	}
	if ((mask & RFX_P(RFX_PARAM_SIGMA)) && a->sigma != b->sigma)
		return 0;
	if ((mask & RFX_P(RFX_PARAM_RHO)) && a->rho != b->rho)
		return 0;
	if (mask & RFX_P(RFX_PARAM_DIAG)) {
		if (!a->a_re || !b->a_re || !a->a_im || !b->a_im)
			return 0;
		for (l = 0; l < a->d; l++)
			if (a->a_re[l] != b->a_re[l] || a->a_im[l] != b->a_im[l])
				return 0;
	}
	return 1;
}

/*
 * Round trips: values with at most 10 significant digits (what the
 * "%.10g" format keeps) through format, then parse of each item, give the
 * same parameters, with every item marked given.
 */
static void test_params_roundtrip(void)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	struct rfx_err err;
	char buf[512];
	int i;

	for (i = 0; all[i]; i++) {
		const struct rfx_estimator_type *e = all[i];
		struct rfx_params p, q;
		size_t len;

		rfx_params_init(&p, 3);
		rfx_params_init(&q, 3);
		p.A_re = -0.0312456789;
		p.A_im = (e->flags & RFX_EST_COMPLEX) ? 0.0701 : 0.0;
		p.t = -1;
		p.lambda = 0.8125;
		p.q = 0.3333333333;
		p.c = malloc(3 * sizeof(double));
		p.c[0] = -1.25;
		p.c[1] = 2.5e-7;
		p.c[2] = -3141.592654;
		p.m1 = 7;
		p.m3 = 12;
		p.sigma = 0.75;
		p.rho = 0.3125;
		p.a_re = malloc(3 * sizeof(double));
		p.a_im = malloc(3 * sizeof(double));
		p.a_re[0] = 0.5;
		p.a_im[0] = 0.0;
		p.a_re[1] = -1.25;
		p.a_im[1] = 2.0;
		p.a_re[2] = 0.0;
		p.a_im[2] = 3e-5;
		len = rfx_params_format(&p, e, buf, sizeof(buf));
		ok(len == strlen(buf) && parse_all(&q, e, buf, &err) == 0 &&
			   same_params(&p, &q, e->params) && q.given == e->params,
		   "%s: format \"%s\" parses back to the same parameters, all given",
		   e->name, buf);
		rfx_params_release(&p);
		rfx_params_release(&q);
	}
	/* By hand. */
	{
		struct rfx_params p;

		rfx_params_init(&p, 2);
		p.A_re = -0.0312;
		p.A_im = 0.5;
		p.t = 1;
		rfx_params_format(&p, &rfx_est_gerf, buf, sizeof(buf));
		ok(!strcmp(buf, "A=-0.0312,0.5;t=1"), "gerf prints \"%s\"", buf);
		rfx_params_format(&p, &rfx_est_oprf, buf, sizeof(buf));
		ok(!strcmp(buf, "A=-0.0312"), "oprf prints the real A only: \"%s\"", buf);
		rfx_params_format(&p, &rfx_est_trig, buf, sizeof(buf));
		ok(!strcmp(buf, "-"), "an estimator without parameters prints \"-\"");
		p.c = malloc(2 * sizeof(double));
		p.c[0] = 1.5;
		p.c[1] = -2;
		p.lambda = 0.25;
		rfx_params_format(&p, &rfx_est_pois_plus, buf, sizeof(buf));
		ok(!strcmp(buf, "lambda=0.25;c=1.5,-2"), "pois+ prints \"%s\"", buf);
		/* "lambda=0.25;c=1.5,-2" is 20 characters */
		ok(rfx_params_format(&p, &rfx_est_pois_plus, buf, 8) == 20 &&
			   !strcmp(buf, "lambda="),
		   "a short buffer holds the first n - 1 = 7 characters and the result says 20 were needed: \"%s\"",
		   buf);
		rfx_params_release(&p);
		ok(p.c == NULL, "release sets c to NULL");
		rfx_params_release(&p);
	}
}

static void test_params_parse_errors(void)
{
	static const struct {
		const struct rfx_estimator_type *e;
		const char *s, *msg;
	} bad[] = {
		{ &rfx_est_trig, "A=0.1", "its parameters: none" },
		{ &rfx_est_oprf, "A=0.1,0.2", "real number" },
		{ &rfx_est_oprf, "A=", "A must be" },
		{ &rfx_est_oprf, "A=x", "A must be" },
		{ &rfx_est_oprf, "t=1", "has no parameter 't'" },
		{ &rfx_est_gerf, "A=1,2,3", "re,im" },
		{ &rfx_est_gerf, "t=0", "-1 or 1" },
		{ &rfx_est_gerf, "t=1.5", "-1 or 1" },
		{ &rfx_est_gerf, "t=", "-1 or 1" },
		{ &rfx_est_pois, "lambda=0", "positive" },
		{ &rfx_est_pois, "lambda=-2", "positive" },
		{ &rfx_est_pois, "lambda=1e400", "positive" },
		{ &rfx_est_pois, "lambda=nan", "positive" },
		{ &rfx_est_pois, "lambda=inf", "positive" },
		{ &rfx_est_pois, "lambda=2x", "positive" },
		{ &rfx_est_pois, "lambda=1 ", "positive" },
		{ &rfx_est_pois, "q=0.5", "its parameters: lambda" },
		{ &rfx_est_geom, "q=0", "(0, 1)" },
		{ &rfx_est_geom, "q=1", "(0, 1)" },
		{ &rfx_est_geom, "q=-0.5", "(0, 1)" },
		{ &rfx_est_geom_plus, "c=1,2", "3 comma-separated" },
		{ &rfx_est_geom_plus, "c=1,2,3,4", "3 comma-separated" },
		{ &rfx_est_geom_plus, "c=1,2,", "3 comma-separated" },
		{ &rfx_est_geom_plus, "c=1,,3", "3 comma-separated" },
		{ &rfx_est_hyb, "m1=0", "positive integer" },
		{ &rfx_est_hyb, "m1=2.5", "positive integer" },
		{ &rfx_est_hyb, "m3=-1", "positive integer" },
		{ &rfx_est_hyb, "m3=2000000", "positive integer" },
		{ &rfx_est_hyb, "m2=3", "its parameters: m1, m3" },
		{ &rfx_est_pos, "lambda", "NAME=VALUE" },
		{ &rfx_est_pos, "=3", "NAME=VALUE" },
	};
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct rfx_params p;
		struct rfx_err err;
		int ret;

		rfx_params_init(&p, 3);
		rfx_err_clear(&err);
		ret = rfx_params_parse(&p, bad[k].e, bad[k].s, &err);
		ok(ret == RFX_EINVAL && strstr(err.msg, bad[k].msg) && p.given == 0 &&
			   p.c == NULL,
		   "%s \"%s\": RFX_EINVAL, nothing set: %s", bad[k].e->name, bad[k].s,
		   err.msg);
		rfx_params_release(&p);
	}
	/* Accepted forms. */
	{
		struct rfx_params p;
		struct rfx_err err;

		rfx_params_init(&p, 3);
		ok(rfx_params_parse(&p, &rfx_est_gerf, "A=-0.25", &err) == RFX_OK &&
			   p.A_re == -0.25 && p.A_im == 0.0,
		   "gerf A=re sets Im A = 0");
		ok(rfx_params_parse(&p, &rfx_est_gerf, "t=-1", &err) == RFX_OK &&
			   p.t == -1 &&
			   p.given == (RFX_P(RFX_PARAM_A) | RFX_P(RFX_PARAM_T)),
		   "t=-1; given has exactly A and t");
		ok(rfx_params_parse(&p, &rfx_est_pois_plus, "c=1,-2e-3,3.5", &err) ==
				   RFX_OK &&
			   p.c[0] == 1 && p.c[1] == -2e-3 && p.c[2] == 3.5,
		   "c=1,-2e-3,3.5");
		ok(rfx_params_parse(&p, &rfx_est_pois_plus, "c=4,5,6", &err) ==
				   RFX_OK &&
			   p.c[0] == 4 && p.c[2] == 6,
		   "c can be given twice (the first is freed)");
		ok(rfx_params_parse(&p, &rfx_est_hyb, "m3=1000000", &err) == RFX_OK &&
			   p.m3 == 1000000,
		   "m3 = 10^6 is the largest accepted");
		rfx_params_release(&p);
	}
}

/* Command-line assignments: plain, method-qualified, not taken, bad. */
static void test_params_apply(void)
{
	struct rfx_params p;
	struct rfx_err err;
	int taken = 0;

	rfx_params_init(&p, 3);
	ok(!rfx_params_apply(&p, &rfx_est_ang, "m3=4", &taken, &err) && taken &&
		   p.m3 == 4 && (p.given & RFX_P(RFX_PARAM_M3)),
	   "m3=4 applies to ang");
	taken = 0;
	ok(!rfx_params_apply(&p, &rfx_est_trig, "m3=4", &taken, &err) && !taken,
	   "m3=4 does not concern trig: not taken, no error");
	ok(!rfx_params_apply(&p, &rfx_est_ang, "ang:m1=7", &taken, &err) && taken &&
		   p.m1 == 7,
	   "ang:m1=7 applies to ang");
	taken = 0;
	ok(!rfx_params_apply(&p, &rfx_est_ang_ind, "ang:m1=9", &taken, &err) &&
		   !taken && p.m1 == 7,
	   "ang:m1=9 is not for ang-ind (a name that is a prefix of another)");
	ok(rfx_params_apply(&p, &rfx_est_ang, "ang:q=0.5", &taken, &err) == RFX_EINVAL,
	   "ang:q=0.5 names a parameter ang lacks: %s", err.msg);
	ok(rfx_params_apply(&p, &rfx_est_ang, "m3", &taken, &err) == RFX_EINVAL,
	   "an assignment without '=' is refused: %s", err.msg);
	taken = 0;
	ok(!rfx_params_apply(&p, &rfx_est_ang, "averyveryverylongname=1", &taken,
			     &err) && !taken,
	   "an unknown long name is not taken");
	rfx_params_release(&p);
}

static void test_params_copy(void)
{
	struct rfx_params a, b;
	struct rfx_err err;

	rfx_params_init(&a, 2);
	rfx_params_init(&b, 2);
	ok(a.d == 2 && a.t == 1 && a.c == NULL && a.given == 0 && a.A_re == 0.0,
	   "init: d set, t = 1, no c, nothing given");
	a.A_re = -0.1;
	a.lambda = 2.0;
	a.m1 = 3;
	a.given = RFX_P(RFX_PARAM_LAMBDA);
	a.c = malloc(2 * sizeof(double));
	a.c[0] = 1.0;
	a.c[1] = -1.0;
	b.c = malloc(2 * sizeof(double)); /* must be freed by the copy */
	ok(rfx_params_copy(&b, &a, &err) == RFX_OK && b.A_re == -0.1 &&
		   b.lambda == 2.0 && b.m1 == 3 && b.given == a.given && b.c &&
		   b.c != a.c && b.c[0] == 1.0 && b.c[1] == -1.0,
	   "copy: every field, c deep-copied");
	a.c[0] = 7.0;
	ok(b.c[0] == 1.0, "copy: changing the source's c leaves the copy's alone");
	rfx_params_release(&a);
	ok(b.c[1] == -1.0, "copy: the copy outlives the source");
	rfx_params_init(&a, 2);
	ok(rfx_params_copy(&b, &a, &err) == RFX_OK && b.c == NULL,
	   "copy of parameters without c clears the destination's c");
	rfx_params_release(&a);
	rfx_params_release(&b);
	ok(!strcmp(rfx_param_name(RFX_PARAM_A), "A") &&
		   !strcmp(rfx_param_name(RFX_PARAM_LAMBDA), "lambda") &&
		   !strcmp(rfx_param_name(RFX_PARAM_M3), "m3") &&
		   !strcmp(rfx_param_name(RFX_PARAM_COUNT), "?"),
	   "parameter names, and \"?\" out of range");
}

static void test_features_count(void)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	struct rfx_params p;
	int i, fair = 1, plain = 1;

	/* Sec. 6.6.1: M = 128 real, M = 64 complex for a budget of 128. */
	for (i = 0; all[i]; i++) {
		/* Paired estimators (two real features per unit) count as complex. */
		int cx = (all[i]->flags & (RFX_EST_COMPLEX | RFX_EST_PAIRED)) != 0;

		if (rfx_estimator_fair_features(all[i], 128) != (cx ? 64 : 128) ||
		    rfx_estimator_fair_features(all[i], 9) != (cx ? 4 : 9) ||
		    rfx_estimator_fair_features(all[i], 1) != 1)
			fair = 0;
	}
	ok(fair, "fair features: budget B gives B for real, floor(B/2) for complex and paired, at least 1");
	rfx_params_init(&p, 3);
	for (i = 0; all[i]; i++)
		/* the hybrids are those with counts m1, m3 */
		if (!(all[i]->params & RFX_P(RFX_PARAM_M1)) &&
		    rfx_estimator_features(all[i], &p, 17) != 17)
			plain = 0;
	ok(plain, "every estimator but the hybrids uses exactly M features");
	ok(rfx_estimator_feature_dim(&rfx_est_posh, &p, 17) == 34 &&
		   rfx_estimator_feature_dim(&rfx_est_pos, &p, 17) == 17,
	   "posh has two feature columns per projection, pos one");
	/* HybRF: 2 m (m + 1) for the largest m fitting the budget. */
	ok(rfx_estimator_features(&rfx_est_hyb, &p, 64) == 60 &&
		   rfx_estimator_features(&rfx_est_hyb, &p, 4) == 4 &&
		   rfx_estimator_features(&rfx_est_hyb, &p, 11) == 4,
	   "hyb uses 2 m (m + 1) features: 64 -> 60, 4 -> 4, 11 -> 4");
	rfx_params_release(&p);
}

static void test_block(void)
{
	static const double X[2 * 2] = { 1, 2, -1, 0.5 }, Y[2] = { 0.5, -1 };
	struct rfx_block *b = rfx_block_alloc(2, 2, 1);
	struct rfx_params p;
	struct rfx_err err;

	rfx_params_init(&p, 2);
	rfx_err_clear(&err);
	ok(rfx_estimator_block(&rfx_est_pois_plus, &p, b, X, 2, Y, 1, &err) ==
			   RFX_EINVAL &&
		   strstr(err.msg, "shift c is not set"),
	   "a shifted estimator without c is RFX_EINVAL: %s", err.msg);
	p.c = malloc(2 * sizeof(double));
	p.c[0] = -2;
	p.c[1] = -3;
	/* x - c = (3, 5), (1, 3.5); y - c = (2.5, 2). */
	ok(rfx_estimator_block(&rfx_est_pois_plus, &p, b, X, 2, Y, 1, &err) ==
			   RFX_OK &&
		   b->has_x2y2 && b->xx[0] == 34 && b->yy[0] == 10.25 &&
		   b->xy[0] == 17.5 && b->x2y2[0] == 9 * 6.25 + 25 * 4,
	   "pois+: block of x - c, y - c with x2y2 (34, 10.25, 17.5, 156.25)");
	ok(rfx_estimator_block(&rfx_est_pos, &p, b, X, 2, Y, 1, &err) == RFX_OK &&
		   !b->has_x2y2 && b->xx[0] == 5 && b->xy[1] == -1,
	   "pos: unshifted (c ignored), no x2y2");
	ok(rfx_estimator_block(&rfx_est_pois, &p, b, X, 2, Y, 1, &err) == RFX_OK &&
		   b->has_x2y2 && b->x2y2[0] == 0.25 + 4,
	   "pois: unshifted with x2y2");
	rfx_params_release(&p);
	rfx_block_free(b);
}

/*
 * Every estimator flagged RFX_EST_POSITIVE has non-negative real features:
 * on random mixed-sign sets (the fitted shift makes pois+/geom+ positive
 * on the sets they were fitted to), over 40 draws, every re >= 0 and im
 * zero unless the matrix is real; and the estimates are > 0.
 */
static void test_positive_features(void)
{
	enum { L = 12, d = 5, M = 8, REPS = 40 };
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	gsl_rng *r = rfx_rng_alloc_stream(501, 0, 0, 0);
	double X[L * d], Y[L * d];
	int i, k, npos = 0;

	for (k = 0; k < L * d; k++) {
		X[k] = gsl_ran_gaussian(r, 0.6) + 0.1;
		Y[k] = gsl_ran_gaussian(r, 0.4) - 0.2;
	}
	for (i = 0; all[i]; i++) {
		const struct rfx_estimator_type *e = all[i];
		struct rfx_params p;
		struct rfx_err err;
		struct rfx_draw *w;
		struct rfx_featmat *F1, *F2;
		int D, q, nonneg = 1, estpos = 1;
		long nfeat = 0;

		if (!(e->flags & RFX_EST_POSITIVE))
			continue;
		npos++;
		rfx_params_init(&p, d);
		if (e->fit(&p, X, L, Y, L, M, &err)) {
			ok(0, "%s: fit failed: %s", e->name, err.msg);
			continue;
		}
		D = rfx_estimator_feature_dim(e, &p, M);
		w = rfx_draw_alloc(d, D > M ? D : M);
		F1 = rfx_featmat_alloc(L, D > M ? D : M);
		F2 = rfx_featmat_alloc(L, D > M ? D : M);
		for (q = 0; q < REPS; q++) {
			int side, ii, kk;

			e->draw(r, RFX_PROJ_IID, &p, M, w, &err);
			e->features(&p, w, 1, X, L, M, F1, &err);
			e->features(&p, w, 2, Y, L, M, F2, &err);
			for (side = 0; side < 2; side++) {
				const struct rfx_featmat *F = side ? F2 : F1;

				for (k = 0; k < (int)F->n * F->D; k++) {
					nfeat++;
					if (!(F->re[k] >= 0.0) ||
					    (F->is_complex && F->im[k] != 0.0))
						nonneg = 0;
				}
			}
			for (ii = 0; ii < L; ii++)
				for (kk = 0; kk < L; kk++) {
					double la;
					int sg;

					rfx_featmat_estimate(F1, ii, F2, kk, &la, &sg);
					if (sg < 0)
						estpos = 0;
				}
		}
		ok(nonneg && nfeat == 2L * REPS * L * D,
		   "%s: all %ld features are real and >= 0 on mixed-sign inputs",
		   e->name, nfeat);
		ok(estpos, "%s: no estimate is negative", e->name);
		rfx_draw_free(w);
		rfx_featmat_free(F1);
		rfx_featmat_free(F2);
		rfx_params_release(&p);
	}
	ok(npos == 5, "five estimators were checked for positivity");
	gsl_rng_free(r);
}

/* Reads a whole file; NULL on failure. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/*
 * Does text mention estimator name: as its C symbol rfx_est_<name> with
 * '+' spelled "_plus" and '-' spelled '_' (not followed by more identifier
 * characters, so pois is not found in rfx_est_pois_plus), or as the quoted
 * CLI name?
 */
static int mentions(const char *text, const char *name)
{
	char sym[64], quoted[32];
	const char *s;
	size_t k = 0, n;

	k = (size_t)snprintf(sym, sizeof(sym), "rfx_est_");
	for (s = name; *s && k + 6 < sizeof(sym); s++) {
		if (*s == '+') {
			memcpy(sym + k, "_plus", 5);
			k += 5;
		} else if (*s == '-') {
			sym[k++] = '_';
		} else {
			sym[k++] = *s;
		}
	}
	sym[k] = '\0';
	n = strlen(sym);
	for (s = strstr(text, sym); s; s = strstr(s + 1, sym))
		if (!ident_char(s[n]))
			return 1;
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	return strstr(text, quoted) != NULL;
}

static void test_every_estimator_tested(void)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	const char *top = getenv("RFX_TOP");
	char dir[1024], path[2048], *texts[64];
	int ntext = 0, i, k;
	DIR *dp;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/tests", top && *top ? top : ".");
	dp = opendir(dir);
	if (dp) {
		while ((de = readdir(dp)) && ntext < 64) {
			size_t n = strlen(de->d_name);

			if (strncmp(de->d_name, "t_est_", 6) || n < 3 ||
			    strcmp(de->d_name + n - 2, ".c"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if ((texts[ntext] = slurp(path)))
				ntext++;
		}
		closedir(dp);
	}
	ok(ntext > 0, "found %d tests/t_est_*.c files in '%s'", ntext, dir);
	for (i = 0; all[i]; i++) {
		int found = 0;

		for (k = 0; k < ntext && !found; k++)
			found = mentions(texts[k], all[i]->name);
		ok(found, "estimator '%s' is exercised by a tests/t_est_*.c file",
		   all[i]->name);
	}
	/* The matcher itself: a symbol prefix does not count. */
	ok(!mentions("x = &rfx_est_pois_plus;", "pois") &&
		   mentions("x = &rfx_est_pois_plus;", "pois+") &&
		   mentions("f(&rfx_est_pois, 1)", "pois") &&
		   mentions("find(\"geom+\")", "geom+") && !mentions("geometry", "geom"),
	   "the name matcher: rfx_est_pois_plus is pois+, not pois");
	for (k = 0; k < ntext; k++)
		free(texts[k]);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_registry();
	test_find();
	test_aliases();
	test_parse_list();
	test_params_roundtrip();
	test_params_parse_errors();
	test_params_apply();
	test_params_copy();
	test_features_count();
	test_block();
	test_positive_features();
	test_every_estimator_tested();
	return done_testing();
}

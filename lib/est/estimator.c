/*
 * The estimator registry: the one list of estimators (after Lua's
 * linit.c), name lookup with a helpful error, and the parameter plumbing
 * shared by all of them (parsing "NAME=VALUE", printing, copying).
 */
#include "est/estimator.h"
#include "base/fmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The thesis' nine first, non-positive then positive as the panels of its
 * Fig 6.4 group them; then the HRF paper's estimators. New entries go at
 * the end: Monte Carlo streams are keyed by the position here.
 */
static const struct rfx_estimator_type *const registry[] = {
	&rfx_est_trig,
	&rfx_est_hyb,
	&rfx_est_gerf,
	&rfx_est_pois,
	&rfx_est_geom,
	&rfx_est_pos,
	&rfx_est_oprf,
	&rfx_est_pois_plus,
	&rfx_est_geom_plus,
	&rfx_est_posh,
	&rfx_est_ang,
	&rfx_est_ang_ind,
	&rfx_est_gauss_hyb,
	&rfx_est_cexp,
	&rfx_est_cexp_c,
	NULL
};

const struct rfx_estimator_type *const *rfx_estimator_list(void)
{
	return registry;
}

static void list_names(char *buf, size_t n)
{
	const struct rfx_estimator_type *const *e = rfx_estimator_list();
	size_t len = 0;

	buf[0] = '\0';
	for (; *e; e++) {
		int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
				 (*e)->name);

		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
}

/*
 * The lookup behind rfx_estimator_find; list says whether the name came
 * from a list, where "all" is also valid (and so worth suggesting).
 */
static const struct rfx_estimator_type *find(const char *name, int list,
					     struct rfx_err *err)
{
	const struct rfx_estimator_type *const *e = rfx_estimator_list();
	char names[256];

	for (; *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	if (list && !strcmp(name, "all")) {
		rfx_error(err, RFX_EINVAL,
			  "'all' stands for every method and comes alone, not in a list");
		return NULL;
	}
	list_names(names, sizeof(names));
	rfx_error(err, RFX_EINVAL, "unknown method '%s' (valid: %s%s)", name,
		  names, list ? ", all" : "");
	return NULL;
}

const struct rfx_estimator_type *rfx_estimator_find(const char *name,
						    struct rfx_err *err)
{
	return find(name, 0, err);
}

int rfx_estimator_parse_list(const char *list,
			     const struct rfx_estimator_type **out, int max,
			     int *n, struct rfx_err *err)
{
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	char item[64];
	const char *p = list;
	int count = 0, i;

	*n = 0;
	if (!strcmp(list, "all")) {
		/* Like an explicit list: too many is an error, not a truncation. */
		for (; *all; all++) {
			if (count == max)
				return rfx_error(err, RFX_EINVAL,
						 "too many methods in '%s'", list);
			out[count++] = *all;
		}
		*n = count;
		return RFX_OK;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const struct rfx_estimator_type *e;

		if (len == 0)
			return rfx_error(err, RFX_EINVAL,
					 "empty method name in '%s'", list);
		if (len >= sizeof(item))
			return rfx_error(err, RFX_EINVAL,
					 "method name too long in '%s'", list);
		memcpy(item, p, len);
		item[len] = '\0';
		e = find(item, 1, err);
		if (!e)
			return RFX_EINVAL;
		for (i = 0; i < count; i++)
			if (out[i] == e)
				return rfx_error(err, RFX_EINVAL,
						 "method '%s' listed twice", item);
		if (count == max)
			return rfx_error(err, RFX_EINVAL, "too many methods in '%s'",
					 list);
		out[count++] = e;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = count;
	return RFX_OK;
}

int rfx_estimator_features(const struct rfx_estimator_type *e,
			   const struct rfx_params *p, int M)
{
	return e->features_used ? e->features_used(p, M) : M;
}

int rfx_estimator_feature_dim(const struct rfx_estimator_type *e,
			      const struct rfx_params *p, int M)
{
	return e->feature_dim ? e->feature_dim(p, M)
			      : rfx_estimator_features(e, p, M);
}

int rfx_estimator_fair_features(const struct rfx_estimator_type *e, int budget)
{
	int m = (e->flags & (RFX_EST_COMPLEX | RFX_EST_PAIRED)) ? budget / 2
								  : budget;

	return m > 0 ? m : 1;
}

int rfx_estimator_block(const struct rfx_estimator_type *e,
			const struct rfx_params *p, struct rfx_block *b,
			const double *X, size_t nx, const double *Y, size_t ny,
			struct rfx_err *err)
{
	const double *shift = (e->flags & RFX_EST_SHIFTED) ? p->c : NULL;

	if ((e->flags & RFX_EST_SHIFTED) && !shift)
		return rfx_error(err, RFX_EINVAL, "%s: shift c is not set", e->name);
	return rfx_block_compute(b, X, nx, Y, ny, shift,
				 (e->flags & RFX_EST_X2Y2) != 0, err);
}

static const char *const param_names[RFX_PARAM_COUNT] = {
	"A", "t", "lambda", "q", "c", "m1", "m3", "sigma", "rho", "a"
};

const char *rfx_param_name(enum rfx_param id)
{
	return (unsigned)id < RFX_PARAM_COUNT ? param_names[id] : "?";
}

void rfx_params_init(struct rfx_params *p, int d)
{
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->t = 1;
}

void rfx_params_release(struct rfx_params *p)
{
	free(p->c);
	free(p->a_re);
	free(p->a_im);
	p->c = p->a_re = p->a_im = NULL;
}

/* A copy of v (d entries), or NULL for NULL; *fail set when out of memory. */
static double *dup_vec(const double *v, int d, int *fail)
{
	double *c;

	if (!v)
		return NULL;
	c = malloc((size_t)d * sizeof(double));
	if (!c) {
		*fail = 1;
		return NULL;
	}
	memcpy(c, v, (size_t)d * sizeof(double));
	return c;
}

int rfx_params_copy(struct rfx_params *dst, const struct rfx_params *src,
		    struct rfx_err *err)
{
	int fail = 0;
	double *c = dup_vec(src->c, src->d, &fail);
	double *ar = dup_vec(src->a_re, src->d, &fail);
	double *ai = dup_vec(src->a_im, src->d, &fail);

	if (fail) {
		free(c);
		free(ar);
		free(ai);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	rfx_params_release(dst);
	*dst = *src;
	dst->c = c;
	dst->a_re = ar;
	dst->a_im = ai;
	return RFX_OK;
}

static void param_list(const struct rfx_estimator_type *e, char *buf, size_t n)
{
	size_t len = 0;
	int id;

	buf[0] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		int w;

		if (!(e->params & RFX_P(id)))
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
			     param_names[id]);
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	if (!len)
		snprintf(buf, n, "none");
}

/* Strict number parsing: the whole token, finite. */
static int parse_num(const char *s, size_t len, double *out)
{
	char tmp[64], *end;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	*out = strtod(tmp, &end);
	if (end == tmp || *end || errno == ERANGE || !isfinite(*out))
		return -1;
	return 0;
}

/* Parses up to max comma-separated numbers; returns the count or -1. */
static int parse_nums(const char *s, double *out, int max)
{
	int n = 0;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (n == max || parse_num(s, len, &out[n]))
			return -1;
		n++;
		if (!comma)
			return n;
		s = comma + 1;
	}
}

/*
 * Parses up to max comma-separated complex numbers "re" or "re:im", none
 * zero (A must be invertible), into re[], im[]; returns the count or -1.
 */
static int parse_complex_list(const char *s, double *re, double *im, int max)
{
	int n = 0;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const char *colon = memchr(s, ':', len);

		if (n == max)
			return -1;
		if (colon) {
			if (parse_num(s, (size_t)(colon - s), &re[n]) ||
			    parse_num(colon + 1, len - (size_t)(colon - s) - 1, &im[n]))
				return -1;
		} else {
			if (parse_num(s, len, &re[n]))
				return -1;
			im[n] = 0.0;
		}
		if (re[n] == 0.0 && im[n] == 0.0)
			return -1;
		n++;
		if (!comma)
			return n;
		s = comma + 1;
	}
}

int rfx_params_parse(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *assignment, struct rfx_err *err)
{
	const char *eq = strchr(assignment, '=');
	char name[16], plist[64];
	size_t len;
	int id, n;
	double v[2];

	param_list(e, plist, sizeof(plist));
	if (!eq || eq == assignment)
		return rfx_error(err, RFX_EINVAL,
				 "parameter '%s' is not of the form NAME=VALUE",
				 assignment);
	len = (size_t)(eq - assignment);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, assignment, len);
	name[len] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++)
		if (!strcmp(name, param_names[id]))
			break;
	if (id == RFX_PARAM_COUNT || !(e->params & RFX_P(id)))
		return rfx_error(err, RFX_EINVAL,
				 "%s has no parameter '%s' (its parameters: %s)",
				 e->name, name, plist);
	eq++;
	switch (id) {
	case RFX_PARAM_A:
		n = parse_nums(eq, v, 2);
		if (n < 1 || (n == 2 && !(e->flags & RFX_EST_COMPLEX)))
			return rfx_error(err, RFX_EINVAL,
					 "%s: A must be %s, got '%s'", e->name,
					 (e->flags & RFX_EST_COMPLEX)
						 ? "a number or re,im"
						 : "a real number",
					 eq);
		p->A_re = v[0];
		p->A_im = n == 2 ? v[1] : 0.0;
		break;
	case RFX_PARAM_T:
		if (parse_nums(eq, v, 1) != 1 || (v[0] != 1.0 && v[0] != -1.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: t must be -1 or 1, got '%s'",
					 e->name, eq);
		p->t = (int)v[0];
		break;
	case RFX_PARAM_LAMBDA:
		if (parse_nums(eq, v, 1) != 1 || !(v[0] > 0.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: lambda must be a positive number, got '%s'",
					 e->name, eq);
		p->lambda = v[0];
		break;
	case RFX_PARAM_Q:
		if (parse_nums(eq, v, 1) != 1 || !(v[0] > 0.0 && v[0] < 1.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: q must be in (0, 1), got '%s'",
					 e->name, eq);
		p->q = v[0];
		break;
	case RFX_PARAM_C: {
		double *c = malloc((size_t)p->d * sizeof(double));

		if (!c)
			return rfx_error(err, RFX_ENOMEM, "out of memory");
		if (parse_nums(eq, c, p->d) != p->d) {
			free(c);
			return rfx_error(err, RFX_EINVAL,
					 "%s: c must be %d comma-separated numbers",
					 e->name, p->d);
		}
		free(p->c);
		p->c = c;
		break;
	}
	case RFX_PARAM_M1:
	case RFX_PARAM_M3:
		if (parse_nums(eq, v, 1) != 1 || v[0] < 1.0 || v[0] > 1e6 ||
		    v[0] != floor(v[0]))
			return rfx_error(err, RFX_EINVAL,
					 "%s: %s must be a positive integer, got '%s'",
					 e->name, name, eq);
		if (id == RFX_PARAM_M1)
			p->m1 = (int)v[0];
		else
			p->m3 = (int)v[0];
		break;
	case RFX_PARAM_DIAG: {
		double *ar = malloc((size_t)p->d * sizeof(double));
		double *ai = malloc((size_t)p->d * sizeof(double));
		int k = ar && ai ? parse_complex_list(eq, ar, ai, p->d) : -2;

		if (k != p->d) {
			free(ar);
			free(ai);
			if (k == -2)
				return rfx_error(err, RFX_ENOMEM, "out of memory");
			return rfx_error(err, RFX_EINVAL,
					 "%s: a must be %d comma-separated nonzero numbers re or re:im",
					 e->name, p->d);
		}
		free(p->a_re);
		free(p->a_im);
		p->a_re = ar;
		p->a_im = ai;
		break;
	}
	case RFX_PARAM_SIGMA:
		if (parse_nums(eq, v, 1) != 1 || !(v[0] > 0.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: sigma must be a positive number, got '%s'",
					 e->name, eq);
		p->sigma = v[0];
		break;
	case RFX_PARAM_RHO:
		if (parse_nums(eq, v, 1) != 1 || !(v[0] > 0.0 && v[0] <= 1.0))
			return rfx_error(err, RFX_EINVAL,
					 "%s: rho must be in (0, 1], got '%s'",
					 e->name, eq);
		p->rho = v[0];
		break;
	default:
		break;
	}
	p->given |= RFX_P(id);
	return RFX_OK;
}

size_t rfx_params_format(const struct rfx_params *p,
			 const struct rfx_estimator_type *e, char *buf,
			 size_t n)
{
	size_t len = 0;
	int id, l, w;
	char a[32], b[32]; /* numbers in their shortest round-trip form */

#define APPEND(...)                                                            \
	do {                                                                   \
		w = snprintf(buf + len, n - len, __VA_ARGS__);                 \
		if (w < 0 || (size_t)w >= n - len)                             \
			return n - 1;                                          \
		len += (size_t)w;                                              \
	} while (0)

	buf[0] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		if (!(e->params & RFX_P(id)))
			continue;
		if (len)
			APPEND(";");
		switch (id) {
		case RFX_PARAM_A:
			rfx_fmt_double(p->A_re, a, sizeof(a));
			rfx_fmt_double(p->A_im, b, sizeof(b));
			if (e->flags & RFX_EST_COMPLEX)
				APPEND("A=%s,%s", a, b);
			else
				APPEND("A=%s", a);
			break;
		case RFX_PARAM_T:
			APPEND("t=%d", p->t);
			break;
		case RFX_PARAM_LAMBDA:
			rfx_fmt_double(p->lambda, a, sizeof(a));
			APPEND("lambda=%s", a);
			break;
		case RFX_PARAM_Q:
			rfx_fmt_double(p->q, a, sizeof(a));
			APPEND("q=%s", a);
			break;
		case RFX_PARAM_C:
			APPEND("c=");
			for (l = 0; p->c && l < p->d; l++) {
				rfx_fmt_double(p->c[l], a, sizeof(a));
				APPEND("%s%s", l ? "," : "", a);
			}
			break;
		case RFX_PARAM_M1:
			APPEND("m1=%d", p->m1);
			break;
		case RFX_PARAM_M3:
			APPEND("m3=%d", p->m3);
			break;
		case RFX_PARAM_SIGMA:
			rfx_fmt_double(p->sigma, a, sizeof(a));
			APPEND("sigma=%s", a);
			break;
		case RFX_PARAM_RHO:
			rfx_fmt_double(p->rho, a, sizeof(a));
			APPEND("rho=%s", a);
			break;
		case RFX_PARAM_DIAG:
			APPEND("a=");
			for (l = 0; p->a_re && l < p->d; l++) {
				rfx_fmt_double(p->a_re[l], a, sizeof(a));
				rfx_fmt_double(p->a_im[l], b, sizeof(b));
				if (p->a_im[l] != 0.0)
					APPEND("%s%s:%s", l ? "," : "", a, b);
				else
					APPEND("%s%s", l ? "," : "", a);
			}
			break;
		default:
			break;
		}
	}
	if (!len)
		APPEND("-");
#undef APPEND
	return len;
}

/*
 * Whether all n values are within RFX_INPUT_MAX (NaN is not): a counting
 * loop that vectorises, where a return at the first bad value does not.
 * Every fit checks both sets, so this runs 18 times per Fig 6.4 task.
 */
static int inputs_ok(const double *v, size_t n)
{
	size_t i;
	double bad = 0.0;

#pragma omp simd reduction(+ : bad)
	for (i = 0; i < n; i++)
		bad += !(fabs(v[i]) <= RFX_INPUT_MAX);
	return bad == 0.0;
}

int rfx_params_check_dim(const struct rfx_params *p, const char *name,
			 const double *X, size_t nx, const double *Y,
			 size_t ny, int M, struct rfx_err *err)
{
	size_t i;

	if (p->d < 1)
		return rfx_error(err, RFX_EINVAL, "%s: d must be positive, got %d",
				 name, p->d);
	if (M < 1)
		return rfx_error(err, RFX_EINVAL,
				 "%s: number of features must be positive, got %d",
				 name, M);
	if (nx == 0 || ny == 0)
		return rfx_error(err, RFX_EINVAL, "%s: empty input set", name);
	if (!inputs_ok(X, nx * (size_t)p->d))
		for (i = 0; i < nx * (size_t)p->d; i++)
			if (!(fabs(X[i]) <= RFX_INPUT_MAX))
				return rfx_error(err, RFX_EINVAL,
						 isfinite(X[i])
							 ? "%s: input x has a coordinate beyond %g"
							 : "%s: input x has a non-finite value",
						 name, RFX_INPUT_MAX);
	if (!inputs_ok(Y, ny * (size_t)p->d))
		for (i = 0; i < ny * (size_t)p->d; i++)
			if (!(fabs(Y[i]) <= RFX_INPUT_MAX))
				return rfx_error(err, RFX_EINVAL,
						 isfinite(Y[i])
							 ? "%s: input y has a coordinate beyond %g"
							 : "%s: input y has a non-finite value",
						 name, RFX_INPUT_MAX);
	return RFX_OK;
}

int rfx_params_apply(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *assignment, int *taken, struct rfx_err *err)
{
	const char *colon = strchr(assignment, ':');
	const char *eq = strchr(assignment, '=');
	char name[16];
	size_t len;
	int id, ret;

	if (colon && (!eq || colon < eq)) {
		if (strlen(e->name) != (size_t)(colon - assignment) ||
		    strncmp(assignment, e->name, (size_t)(colon - assignment)))
			return RFX_OK;
		ret = rfx_params_parse(p, e, colon + 1, err);
		if (!ret)
			*taken = 1;
		return ret;
	}
	if (!eq)
		return rfx_error(err, RFX_EINVAL,
				 "parameter '%s' is not of the form NAME=VALUE",
				 assignment);
	len = (size_t)(eq - assignment);
	if (len >= sizeof(name))
		return RFX_OK;
	memcpy(name, assignment, len);
	name[len] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++)
		if (!strcmp(name, rfx_param_name((enum rfx_param)id)))
			break;
	if (id == RFX_PARAM_COUNT || !(e->params & RFX_P(id)))
		return RFX_OK;
	ret = rfx_params_parse(p, e, assignment, err);
	if (!ret)
		*taken = 1;
	return ret;
}

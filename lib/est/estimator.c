/*
 * The estimator registry: the one list of estimators (after Lua's
 * linit.c), name lookup with a helpful error, and the parameter plumbing
 * shared by all of them (parsing "NAME=VALUE", printing, copying).
 */
#include "est/estimator.h"
#include "base/suggest.h"
#include "base/fmt.h"

#include <ctype.h>
#include <strings.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
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
	&rfx_est_hyb_ind,
	&rfx_est_gauss_hyb_ind,
	&rfx_est_sderf,
	&rfx_est_aderf,
	&rfx_est_saderf,
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
 * Names of the papers that imply a projection kind as well as an
 * estimator. The ORF paper (Yu et al. 2016) calls trigonometric features
 * on Gaussian projections RFF (sec. 1), on orthogonal ones ORF (sec. 3,
 * eq. 2) and on HD1HD2HD3 ones SORF (sec. 4, eq. 5).
 */
static const struct rfx_proj_alias proj_aliases[] = {
	{ "orf", "trig", RFX_PROJ_ORT, "ORF paper sec. 3, eq. 2" },
	{ "sorf", "trig", RFX_PROJ_SORF, "ORF paper sec. 4, eq. 5" },
	{ NULL, NULL, RFX_PROJ_IID, NULL }
};

const struct rfx_proj_alias *rfx_estimator_proj_aliases(void)
{
	return proj_aliases;
}

/* Whether the comma-separated list has item (case aside). */
static int list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);

		if (len == n && !strncasecmp(list, item, n))
			return 1;
		if (!comma)
			break;
		list = comma + 1;
	}
	return 0;
}

int rfx_estimator_is(const struct rfx_estimator_type *e, const char *name)
{
	return !strcasecmp(e->name, name) || list_has(e->aliases, name);
}

/* Every name and alias, for "did you mean"; returns the count. */
static size_t all_names(const char **names, char *buf, size_t bufsize,
			size_t max)
{
	const struct rfx_estimator_type *const *e = rfx_estimator_list();
	const struct rfx_proj_alias *pa;
	size_t n = 0, used = 0;

	for (; *e && n < max; e++) {
		const char *a = (*e)->aliases;

		names[n++] = (*e)->name;
		while (a && *a && n < max) {
			const char *comma = strchr(a, ',');
			size_t len = comma ? (size_t)(comma - a) : strlen(a);

			if (used + len + 1 > bufsize)
				break;
			memcpy(buf + used, a, len);
			buf[used + len] = '\0';
			names[n++] = buf + used;
			used += len + 1;
			if (!comma)
				break;
			a = comma + 1;
		}
	}
	for (pa = proj_aliases; pa->alias && n < max; pa++)
		names[n++] = pa->alias;
	return n;
}

/*
 * The lookup behind rfx_estimator_find; list says whether the name came
 * from a list, where "all" is also valid (and so worth suggesting).
 */
static const struct rfx_estimator_type *find(const char *name, int list,
					     enum rfx_proj *proj, int *has_proj,
					     struct rfx_err *err)
{
	const struct rfx_estimator_type *const *e;
	const struct rfx_proj_alias *pa;
	const char *names[128];
	char names_buf[1024], valid[512], hint[96];
	size_t n;

	if (has_proj)
		*has_proj = 0;
	for (e = rfx_estimator_list(); *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	for (e = rfx_estimator_list(); *e; e++)
		if (rfx_estimator_is(*e, name))
			return *e;
	for (pa = proj_aliases; pa->alias; pa++) {
		if (strcasecmp(pa->alias, name))
			continue;
		if (proj) {
			*proj = pa->proj;
			*has_proj = 1;
			return rfx_estimator_find(pa->name, err);
		}
		rfx_error(err, RFX_EINVAL,
			  "method '%s' is %s on %s projections (%s): use --method %s --projection %s",
			  name, pa->name, rfx_proj_name(pa->proj), pa->source,
			  pa->name, rfx_proj_name(pa->proj));
		return NULL;
	}
	if (list && !strcmp(name, "all")) {
		rfx_error(err, RFX_EINVAL,
			  "'all' stands for every method and comes alone, not in a list");
		return NULL;
	}
	list_names(valid, sizeof(valid));
	n = all_names(names, names_buf, sizeof(names_buf),
		      sizeof(names) / sizeof(names[0]) - 1);
	if (list)
		names[n++] = "all";
	rfx_suggest_phrase(name, names, n, hint, sizeof(hint));
	rfx_error(err, RFX_EINVAL, "unknown method '%s'%s (valid: %s%s)", name,
		  hint, valid, list ? ", all" : "");
	return NULL;
}

const struct rfx_estimator_type *rfx_estimator_find(const char *name,
						    struct rfx_err *err)
{
	return find(name, 0, NULL, NULL, err);
}

const struct rfx_estimator_type *rfx_estimator_find_proj(const char *name,
							 enum rfx_proj *proj,
							 int *has_proj,
							 struct rfx_err *err)
{
	return find(name, 0, proj, has_proj, err);
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
		e = find(item, 1, NULL, NULL, err);
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

#define OFF(field) offsetof(struct rfx_params, field)
#define INF HUGE_VAL

/*
 * The parameters, indexed by enum rfx_param. Ranges are the ones each
 * estimator's fit also enforces; an estimator may narrow them further
 * (its fit says so for a given value).
 */
static const struct rfx_param_info param_table[RFX_PARAM_COUNT] = {
	[RFX_PARAM_A] = { "A", RFX_PK_SCALAR, -INF, INF, 0,
			  "a real number, or re,im for complex estimators",
			  "fitted", "GERF/OPRF matrix A = A I (thesis eq. 6.11)",
			  OFF(A_re), OFF(A_im) },
	[RFX_PARAM_T] = { "t", RFX_PK_SIGN, -1, 1, 0, "-1 or 1", "fitted",
			  "GERF sign t (thesis eq. 6.12)", OFF(t), 0 },
	[RFX_PARAM_LAMBDA] = { "lambda", RFX_PK_REAL, 0, INF, RFX_PI_LO_OPEN,
			       "a positive number", "fitted",
			       "Poisson rate (thesis sec. 6.4.1)", OFF(lambda), 0 },
	[RFX_PARAM_Q] = { "q", RFX_PK_REAL, 0, 1, RFX_PI_LO_OPEN | RFX_PI_HI_OPEN,
			  "in (0, 1)", "fitted",
			  "geometric parameter (thesis sec. 6.4.2)", OFF(q), 0 },
	/*
	 * c as the inputs it shifts; beyond, the shifted products left
	 * double range (geom+ at c = -1e200: NaN)
	 */
	[RFX_PARAM_C] = { "c", RFX_PK_VECTOR, -RFX_INPUT_MAX, RFX_INPUT_MAX, 0,
			  "d comma-separated numbers within 1e75", "fitted",
			  "shift vector (thesis sec. 6.4.3)", OFF(c), 0 },
	[RFX_PARAM_M1] = { "m1", RFX_PK_INT, 1, 1e6, 0, "a positive integer",
			   "from the budget M",
			   "features per base estimator, M1 = M2 (HRF's m)",
			   OFF(m1), 0 },
	[RFX_PARAM_M3] = { "m3", RFX_PK_INT, 1, 1e6, 0, "a positive integer",
			   "from the budget M",
			   "angular features (HRF's n)", OFF(m3), 0 },
	/* sigma t.x must stay finite: sigma 1e300 gave sin(inf), NaN */
	[RFX_PARAM_SIGMA] = { "sigma", RFX_PK_REAL, 0, RFX_INPUT_MAX, RFX_PI_LO_OPEN,
			      "a positive number up to 1e75", "1",
			      "Gaussian hybrid bandwidth (HRF sec. 2.4)",
			      OFF(sigma), 0 },
	/*
	 * rho's weights go as 1/rho^2 against differences of at most 1
	 * (hyb.c, hyb_weights): below 1e-150 they overflowed and the log
	 * variance read inf or NaN. A fitted rho may be smaller, its
	 * differences shrinking with it (inputs near 0).
	 */
	[RFX_PARAM_RHO] = { "rho", RFX_PK_REAL, 1e-100, 1, 0,
			    "in [1e-100, 1]", "HRF eq. 68",
			    "Gaussian hybrid normaliser (HRF appendix F)",
			    OFF(rho), 0 },
	/*
	 * |Z|^2 = |a x + y/a|^2 (cexp.c) stays in double range for inputs
	 * within 1e75: at a = 1e-300 or 1e300 it was inf, and NaN for a
	 * complex a. A fitted a may pass 1e70 (up to 2e191, for centres
	 * 2.2e-308 and 1e75), but only for sets whose own coordinates are
	 * as small as their centre's, where a x stays moderate.
	 */
	[RFX_PARAM_DIAG] = { "a", RFX_PK_CVECTOR, RFX_DIAG_MIN, RFX_DIAG_MAX, 0,
			     "d comma-separated numbers re or re:im of modulus in [1e-70, 1e70]",
			     "fitted",
			     "diagonal of A (HRF eqs. 16, 85-88)", OFF(a_re),
			     OFF(a_im) },
};
#undef OFF
#undef INF

const struct rfx_param_info *rfx_param_info(enum rfx_param id)
{
	return (unsigned)id < RFX_PARAM_COUNT ? &param_table[id] : NULL;
}

const char *rfx_param_name(enum rfx_param id)
{
	return (unsigned)id < RFX_PARAM_COUNT ? param_table[id].name : "?";
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
	free(p->dense);
	p->c = p->a_re = p->a_im = p->dense = NULL;
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
	double *dn = dup_vec(src->dense, src->d * (1 + 2 * src->d), &fail);

	if (fail) {
		free(c);
		free(ar);
		free(ai);
		free(dn);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	rfx_params_release(dst);
	*dst = *src;
	dst->c = c;
	dst->a_re = ar;
	dst->a_im = ai;
	dst->dense = dn;
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
			     param_table[id].name);
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

/* Whether v is in the range of row pi. */
static int in_range(const struct rfx_param_info *pi, double v)
{
	return ((pi->flags & RFX_PI_LO_OPEN) ? v > pi->lo : v >= pi->lo) &&
	       ((pi->flags & RFX_PI_HI_OPEN) ? v < pi->hi : v <= pi->hi);
}

#define FIELD(p, off, type) ((type *)((char *)(p) + (off)))

/* Parses value into p by row pi for estimator e (kind by kind). */
static int parse_value(struct rfx_params *p, const struct rfx_estimator_type *e,
		       const struct rfx_param_info *pi, const char *value,
		       struct rfx_err *err)
{
	double v[2];
	int n, k;

	switch (pi->kind) {
	case RFX_PK_SCALAR:
		n = parse_nums(value, v, 2);
		if (n < 1 || (n == 2 && !(e->flags & RFX_EST_COMPLEX)))
			return rfx_error(err, RFX_EINVAL,
					 "%s: %s must be %s, got '%s'", e->name,
					 pi->name,
					 (e->flags & RFX_EST_COMPLEX)
						 ? "a number or re,im"
						 : "a real number",
					 value);
		*FIELD(p, pi->off, double) = v[0];
		*FIELD(p, pi->off_im, double) = n == 2 ? v[1] : 0.0;
		return RFX_OK;
	case RFX_PK_SIGN:
		if (parse_nums(value, v, 1) != 1 || (v[0] != 1.0 && v[0] != -1.0))
			break;
		*FIELD(p, pi->off, int) = (int)v[0];
		return RFX_OK;
	case RFX_PK_REAL:
		if (parse_nums(value, v, 1) != 1 || !in_range(pi, v[0]))
			break;
		*FIELD(p, pi->off, double) = v[0];
		return RFX_OK;
	case RFX_PK_INT:
		if (parse_nums(value, v, 1) != 1 || !in_range(pi, v[0]) ||
		    v[0] != floor(v[0]))
			break;
		*FIELD(p, pi->off, int) = (int)v[0];
		return RFX_OK;
	case RFX_PK_VECTOR: {
		double *c = malloc((size_t)p->d * sizeof(double));

		if (!c)
			return rfx_error(err, RFX_ENOMEM, "out of memory");
		n = parse_nums(value, c, p->d);
		for (k = 0; n == p->d && k < n; k++)
			if (!in_range(pi, c[k]))
				n = -1;
		if (n != p->d) {
			free(c);
			return rfx_error(err, RFX_EINVAL,
					 "%s: %s must be %d comma-separated numbers within %g",
					 e->name, pi->name, p->d, pi->hi);
		}
		free(*FIELD(p, pi->off, double *));
		*FIELD(p, pi->off, double *) = c;
		return RFX_OK;
	}
	case RFX_PK_CVECTOR: {
		double *ar = malloc((size_t)p->d * sizeof(double));
		double *ai = malloc((size_t)p->d * sizeof(double));
		k = ar && ai ? parse_complex_list(value, ar, ai, p->d) : -2;
		for (n = 0; k == p->d && n < k; n++)
			if (!in_range(pi, hypot(ar[n], ai[n])))
				k = -1;
		if (k != p->d) {
			free(ar);
			free(ai);
			if (k == -2)
				return rfx_error(err, RFX_ENOMEM, "out of memory");
			return rfx_error(err, RFX_EINVAL,
					 "%s: %s must be %d comma-separated numbers re or re:im of modulus in [%g, %g]",
					 e->name, pi->name, p->d, pi->lo, pi->hi);
		}
		free(*FIELD(p, pi->off, double *));
		free(*FIELD(p, pi->off_im, double *));
		*FIELD(p, pi->off, double *) = ar;
		*FIELD(p, pi->off_im, double *) = ai;
		return RFX_OK;
	}
	}
	return rfx_error(err, RFX_EINVAL, "%s: %s must be %s, got '%s'", e->name,
			 pi->name, pi->range, value);
}

int rfx_params_parse(struct rfx_params *p, const struct rfx_estimator_type *e,
		     const char *assignment, struct rfx_err *err)
{
	const char *eq = strchr(assignment, '=');
	char name[16], plist[64];
	size_t len;
	int id, ret;

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
		if (!strcmp(name, param_table[id].name))
			break;
	if (id == RFX_PARAM_COUNT || !(e->params & RFX_P(id)))
		return rfx_error(err, RFX_EINVAL,
				 "%s has no parameter '%s' (its parameters: %s)",
				 e->name, name, plist);
	ret = parse_value(p, e, &param_table[id], eq + 1, err);
	if (ret)
		return ret;
	p->given |= RFX_P(id);
	return RFX_OK;
}

/*
 * Appends to buf (size n, length *len) like snprintf: *len counts the
 * whole text even past n, and buf stays terminated.
 */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(*len < n ? buf + *len : NULL, *len < n ? n - *len : 0, fmt,
		      ap);
	va_end(ap);
	if (w > 0)
		*len += (size_t)w;
}

size_t rfx_params_format(const struct rfx_params *p,
			 const struct rfx_estimator_type *e, char *buf,
			 size_t n)
{
	size_t len = 0;
	int id, l;
	char a[32], b[32]; /* numbers in their shortest round-trip form */

	if (n)
		buf[0] = '\0';
	for (id = 0; id < RFX_PARAM_COUNT; id++) {
		const struct rfx_param_info *pi = &param_table[id];

		if (!(e->params & RFX_P(id)))
			continue;
		if (len)
			append(buf, n, &len, ";");
		append(buf, n, &len, "%s=", pi->name);
		switch (pi->kind) {
		case RFX_PK_SCALAR:
			rfx_fmt_double(*FIELD(p, pi->off, const double), a,
						sizeof(a));
			append(buf, n, &len, "%s", a);
			if (e->flags & RFX_EST_COMPLEX) {
				rfx_fmt_double(
					*FIELD(p, pi->off_im, const double), b,
					sizeof(b));
				append(buf, n, &len, ",%s", b);
			}
			break;
		case RFX_PK_SIGN:
		case RFX_PK_INT:
			append(buf, n, &len, "%d", *FIELD(p, pi->off, const int));
			break;
		case RFX_PK_REAL:
			rfx_fmt_double(*FIELD(p, pi->off, const double), a,
						sizeof(a));
			append(buf, n, &len, "%s", a);
			break;
		case RFX_PK_VECTOR: {
			const double *c = *FIELD(p, pi->off, double *const);

			for (l = 0; c && l < p->d; l++) {
				rfx_fmt_double(c[l], a, sizeof(a));
				append(buf, n, &len, "%s%s", l ? "," : "", a);
			}
			break;
		}
		case RFX_PK_CVECTOR: {
			const double *re = *FIELD(p, pi->off, double *const);
			const double *im = *FIELD(p, pi->off_im, double *const);

			for (l = 0; re && l < p->d; l++) {
				rfx_fmt_double(re[l], a, sizeof(a));
				rfx_fmt_double(im[l], b, sizeof(b));
				if (im[l] != 0.0)
					append(buf, n, &len, "%s%s:%s", l ? "," : "",
					       a, b);
				else
					append(buf, n, &len, "%s%s", l ? "," : "", a);
			}
			break;
		}
		}
	}
	if (!len)
		append(buf, n, &len, "-");
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

/*
 * rfx uci-classify: non-parametric classification by Gaussian kernel
 * regression on the eight UCI datasets of thesis sec. 6.6.2 (Tables
 * 6.1-6.3), exactly and through every random-feature estimator, on any
 * projection kinds of lib/proj/proj.h (i.i.d. and block-orthogonal by
 * default), at the thesis' feature budget or at m = r d features for the
 * ratios r of --ratio (the SimRF paper's accuracy against m/d).
 *
 * Every dataset is loaded and split before any work, so a missing or
 * malformed file fails at once (exit 1); bad options exit 2. stdout gets
 * the summary table (one row per dataset and method: the gamma the
 * validation picked and the test accuracy there); -o writes it with the
 * per-gamma table and the dataset table to an HDF5 file, atomically.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "est/estimator.h"
#include "opt.h"
#include "output.h"
#include "base/fmt.h"
#include "base/rng.h"
#include "data/uci.h"
#include "exp/uciexp.h"

#define MAX_METHODS 64
#define MAX_DATASETS 16
#define MAX_PROJS 16
#define MAX_RATIOS 16

/* The methods of thesis Table 6.3, in its column order. */
static const char *const table63[] = { "trig", "pos",  "hyb",   "gerf", "pois",
				       "geom", "oprf", "pois+", "geom+", NULL };

static const char usage_line[] =
	"[--dataset LIST] [--method LIST] [--projection LIST] "
	"[--seeds N] [--gamma LIST] [--budget B | --ratio LIST] [--encoding ordinal|onehot] "
	"[--scaling standard|none] [--seed S] [-o FILE.h5]\n"
	"   or: rfx uci-classify --dataset FILE (--labels FILE | --label-column N) [...]";

static const char summary[] =
	"Non-parametric classification by kernel regression with the Gaussian\n"
	"kernel (thesis sec. 6.6.2, Tables 6.1-6.3): each dataset split 90/5/5\n"
	"into train/validation/test, gamma tuned on validation, test accuracy\n"
	"(%) averaged over --seeds random-feature draws, M = 128 real or 64\n"
	"complex features (--ratio: M = r d real features for each r).\n"
	"--projection: a list of " RFX_PROJ_NAMES "\n"
	"(both: iid,ort).\n"
	"Datasets: abalone banknote car yeast cmc nursery\n"
	"wifi chess (or all). Methods: exact (kernel regression without random\n"
	"features) trig pos hyb gerf pois geom oprf pois+ geom+ (all: these ten),\n"
	"or any other of 'rfx help estimators' (sderf, aderf, saderf, ...).\n"
	"--dataset FILE (.npy, text or FILE.h5:/dataset, rows are samples) runs\n"
	"the same study on your data, its classes from --labels or --label-column.";

/* --scaling: the choices, indexed by the enum. */
enum { SCALING_STANDARD, SCALING_NONE };
static const char *const scalings[] = { "standard", "none", NULL };

struct uci_opts {
	const char *dataset, *method, *gamma, *encoding;
	const char *projection; /* kinds of lib/proj/proj.h, or both */
	const char *ratio;     /* --ratio LIST, or NULL: --budget */
	int scaling;           /* SCALING_* */
	const char *output, *data;
	const char *labels;    /* --labels FILE for a --dataset FILE */
	int label_column, header;
	int seeds, budget, threads;
	uint64_t seed;
};

static int usage_fail(const struct rfx_err *err)
{
	return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err->msg);
}

/* Copies item k of a comma-separated list into buf; -1 at the end. */
static int list_item(const char **p, char *buf, size_t n)
{
	const char *s = *p, *comma;
	size_t len;

	if (!s)
		return -1;
	comma = strchr(s, ',');
	len = comma ? (size_t)(comma - s) : strlen(s);
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*p = comma ? comma + 1 : NULL;
	return 0;
}

/*
 * The user's files named by --dataset (issue 16): a spec each whose name
 * is the file's base name (the table's dataset column) and whose file is
 * the path given.
 */
static struct rfx_uci_spec file_specs[MAX_DATASETS];
static char file_names[MAX_DATASETS][16];
static char file_paths[MAX_DATASETS][4096];

static int is_file_spec(const struct rfx_uci_spec *s)
{
	return s >= file_specs && s < file_specs + MAX_DATASETS;
}

static int parse_datasets(const char *list, const struct rfx_uci_spec **out,
			  int *n, struct rfx_err *err)
{
	const struct rfx_uci_spec *const *all = rfx_uci_list();
	const char *p = list;
	char item[4096];
	int k;

	*n = 0;
	if (!strcmp(list, "all")) {
		for (; *all; all++)
			out[(*n)++] = *all;
		return RFX_OK;
	}
	while (list_item(&p, item, sizeof(item)) == 0) {
		const struct rfx_uci_spec *s;

		if (!*item)
			return rfx_error(err, RFX_EINVAL,
					 "empty dataset name in '%s'", list);
		if (*n == MAX_DATASETS)
			return rfx_error(err, RFX_EINVAL, "too many datasets");
		if (rfx_cli_is_file(item)) {
			struct rfx_uci_spec *f = &file_specs[*n];
			const char *base = strrchr(item, '/');

			snprintf(file_paths[*n], sizeof(file_paths[*n]), "%s", item);
			/* the table's column holds 15 characters */
			snprintf(file_names[*n], sizeof(file_names[*n]), "%.15s",
				 base ? base + 1 : item);
			memset(f, 0, sizeof(*f));
			f->name = file_names[*n];
			f->file = file_paths[*n];
			out[(*n)++] = f;
			continue;
		}
		s = rfx_uci_find(item, err);
		if (!s)
			return RFX_EINVAL;
		for (k = 0; k < *n; k++)
			if (out[k] == s)
				return rfx_error(err, RFX_EINVAL,
						 "dataset '%s' listed twice", item);
		if (*n == MAX_DATASETS)
			return rfx_error(err, RFX_EINVAL, "too many datasets");
		out[(*n)++] = s;
	}
	return RFX_OK;
}

/*
 * Parses the method list into estimators (NULL for exact); "all" is exact
 * and the nine of Table 6.3. Any registered estimator may be named.
 */
static int parse_methods(const char *list, const struct rfx_estimator_type **out,
			 int *n, struct rfx_err *err)
{
	const char *p = list;
	char item[64];
	int k;

	*n = 0;
	if (!strcmp(list, "all")) {
		out[(*n)++] = NULL;
		for (k = 0; table63[k]; k++) {
			out[*n] = rfx_estimator_find(table63[k], err);
			if (!out[*n])
				return RFX_EINVAL;
			(*n)++;
		}
		return RFX_OK;
	}
	while (list_item(&p, item, sizeof(item)) == 0) {
		const struct rfx_estimator_type *e = NULL;

		if (!*item)
			return rfx_error(err, RFX_EINVAL, "empty method name in '%s'",
					 list);
		if (strcmp(item, "exact")) {
			struct rfx_err e2;

			rfx_err_clear(&e2);
			e = rfx_estimator_find(item, &e2);
			if (!e) {
				/* The registry's message, with exact added. */
				const char *v = strstr(e2.msg, "(valid: ");

				return rfx_error(err, RFX_EINVAL,
						 "unknown method '%s' (valid: exact, %s",
						 item, v ? v + 8 : "all)");
			}
		}
		for (k = 0; k < *n; k++)
			if (out[k] == e)
				return rfx_error(err, RFX_EINVAL,
						 "method '%s' listed twice", item);
		if (*n == MAX_METHODS / 2)
			return rfx_error(err, RFX_EINVAL, "too many methods");
		out[(*n)++] = e;
	}
	return RFX_OK;
}

/*
 * Parses --projection: kinds of lib/proj/proj.h, comma-separated, "both"
 * standing for iid,ort (the thesis' pair, kept for old command lines).
 * Each kind once, in the order given.
 */
static int parse_projections(const char *list, enum rfx_proj *out, int *n,
			     struct rfx_err *err)
{
	const char *item[MAX_PROJS];
	char buf[512];
	int ni, k, j, ret;

	*n = 0;
	ret = rfx_opt_split("projection", list, buf, sizeof(buf), item, MAX_PROJS,
			    &ni, err);
	for (k = 0; !ret && k < ni; k++) {
		enum rfx_proj p[2];
		int np = 1, q;

		if (!strcmp(item[k], "both")) {
			p[0] = RFX_PROJ_IID;
			p[1] = RFX_PROJ_ORT;
			np = 2;
		} else if (rfx_proj_parse(item[k], &p[0], err)) {
			/* the registry's message (with its hint), both added */
			char msg[RFX_ERR_MSG_MAX];
			size_t len = strlen(err->msg);

			if (len && err->msg[len - 1] == ')')
				len--;
			snprintf(msg, sizeof(msg), "%.*s, both)", (int)len, err->msg);
			return rfx_error(err, RFX_EINVAL, "%s", msg);
		}
		for (q = 0; q < np; q++) {
			for (j = 0; j < *n; j++)
				if (out[j] == p[q])
					return rfx_error(err, RFX_EINVAL,
							 "projection '%s' listed twice in '%s'",
							 rfx_proj_name(p[q]), list);
			if (*n == MAX_PROJS)
				return rfx_error(err, RFX_EINVAL, "too many projections");
			out[(*n)++] = p[q];
		}
	}
	return ret;
}

/*
 * Checks that every estimator fits with the budget before any work, on a
 * stand-in pair (the real fits use the training sets).
 */
static int check_budget(const struct rfx_estimator_type **est, int ne,
			int budget, struct rfx_err *err)
{
	double v[2] = { 0.31, -0.12 }, w[2] = { 0.17, 0.25 };
	int k, ret = RFX_OK;

	for (k = 0; k < ne && !ret; k++) {
		struct rfx_params p;
		int M;

		if (!est[k])
			continue;
		M = rfx_estimator_fair_features(est[k], budget);
		rfx_params_init(&p, 2);
		ret = est[k]->fit(&p, v, 1, w, 1, M, err);
		if (!ret && rfx_estimator_feature_dim(est[k], &p, M) < 1)
			ret = rfx_error(err, RFX_EINVAL, "%s: no features for a budget of %d",
					est[k]->name, budget);
		rfx_params_release(&p);
		if (ret) {
			char why[RFX_ERR_MSG_MAX];

			snprintf(why, sizeof(why), "%s", err->msg);
			ret = rfx_error(err, RFX_EINVAL, "--budget %d: %s", budget,
					why);
		}
	}
	return ret;
}

/*
 * The default gamma grid, numpy.logspace(-2, 2, 10): 10^(-2 + 4k/9), k =
 * 0..9, as text (for the file's attributes) and numbers.
 */
static int default_gammas(char *text, size_t n, double **out, int *ng,
			  struct rfx_err *err)
{
	size_t len = 0;
	int k;

	*out = malloc(10 * sizeof(double));
	if (!*out)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	*ng = 10;
	for (k = 0; k < 10; k++) {
		char a[32];

		(*out)[k] = pow(10.0, k == 9 ? 2.0 : -2.0 + k * (4.0 / 9.0));
		rfx_fmt_double((*out)[k], a, sizeof(a));
		len += (size_t)snprintf(text + len, n - len, "%s%s", k ? "," : "", a);
	}
	return RFX_OK;
}

int cmd_uci_classify(int argc, char **argv, const struct rfx_cli *cli)
{
	struct uci_opts o;
	struct rfx_err err;
	struct rfx_out out = { NULL };
	const struct rfx_uci_spec *specs[MAX_DATASETS];
	const struct rfx_estimator_type *est[MAX_METHODS];
	struct rfx_uciexp_method methods[MAX_METHODS];
	enum rfx_proj projs[MAX_PROJS];
	int ratios[MAX_RATIOS];
	struct rfx_uci_data *data[MAX_DATASETS] = { NULL };
	struct rfx_uci_split splits[MAX_DATASETS];
	struct rfx_uci_info info[MAX_DATASETS];
	struct rfx_uciexp_gamma_row *grows = NULL;
	struct rfx_uciexp_row *rows = NULL;
	enum rfx_uci_encoding enc;
	double *gammas = NULL;
	const char *pos[1];
	char path[4096], ctx[64], gamma_text[512];
	int nd, ne, nm = 0, ng, npos, help, k, q, ret, standardize, np, nr = 1;
	int budget_seen, nm_rf = 0, first_rf;
	size_t nrows_done = 0, nrows;

	memset(&o, 0, sizeof(o));
	memset(splits, 0, sizeof(splits));
	o.dataset = "all";
	o.method = "all";
	o.projection = "both";
	o.gamma = NULL; /* the default grid */
	o.encoding = "ordinal";
	o.scaling = SCALING_STANDARD;
	o.seeds = 50;
	o.budget = 128;
	o.seed = RFX_DEFAULT_SEED;
	{
		struct rfx_opt opts[] = {
			{ "dataset", 0, RFX_OPT_STRING, &o.dataset, "LIST",
			  "datasets, comma-separated, or all (default all)", 0,
			  .list = RFX_LIST_STRINGS },
			{ "method", 0, RFX_OPT_STRING, &o.method, "LIST",
			  "exact and/or estimators, comma-separated, or all (default all)", 0,
			  .list = RFX_LIST_STRINGS },
			{ "projection", 0, RFX_OPT_STRING, &o.projection, "LIST",
			  "projection kinds, comma-separated, both = iid,ort (default both)", 0,
			  .list = RFX_LIST_STRINGS },
			{ "seeds", 0, RFX_OPT_INT, &o.seeds, "N",
			  "random-feature draws per method and gamma (default 50)", 0,
			  RFX_RANGE(1, 100000) },
			{ "gamma", 0, RFX_OPT_STRING, &o.gamma, "LIST",
			  "the gamma grid (default 10 log-uniform values 1e-2 .. 1e2)", 0,
			  .list = RFX_LIST_DOUBLES },
			{ "budget", 0, RFX_OPT_INT, &o.budget, "B",
			  "B real features, B/2 complex (default 128)", 0,
			  RFX_RANGE(1, HUGE_VAL) },
			{ "ratio", 0, RFX_OPT_STRING, &o.ratio, "LIST",
			  "instead of --budget: B = r d for each r, integers (default none)", 0,
			  .list = RFX_LIST_INTS },
			{ "encoding", 0, RFX_OPT_STRING, &o.encoding, "E",
			  "categorical attributes: ordinal or onehot (default ordinal)", 0 },
			{ "scaling", 0, RFX_OPT_CHOICE, &o.scaling, "S",
			  "standard (z-score on the training split) or none (default standard)", 0,
			  .choices = scalings },
			{ "seed", 0, RFX_OPT_U64, &o.seed, "S",
			  "random seed of the splits and draws (default 20221121)", 0 },
			RFX_OPTION_THREADS(&o.threads),
			{ "data", 0, RFX_OPT_STRING, &o.data, "DIR",
			  "data directory (default: $RFX_DATA, else data/ next to rfx)", 0 },
			{ "labels", 0, RFX_OPT_STRING, &o.labels, "FILE",
			  "the class labels of a --dataset FILE, one per row (default none)", 0 },
			{ "label-column", 0, RFX_OPT_INT, &o.label_column, "N",
			  "or: column N (from 1) of a --dataset FILE holds the labels (default none)", 0,
			  RFX_RANGE(1, INT_MAX) },
			RFX_OPTION_HEADER(&o.header, "", "a text --dataset FILE"),
			RFX_OPTION_OUTPUT(&o.output, "the tables"),
			RFX_OPTION_END
		};

		ret = rfx_cli_parse("uci-classify", usage_line, summary, opts, argc, argv,
				    pos, 0, &npos, &help);
		if (ret || help)
			return ret;
		budget_seen = rfx_opt_seen(opts, "budget");
	}
	/* Every option is checked before any file is read. */
	if (parse_datasets(o.dataset, specs, &nd, &err) ||
	    parse_methods(o.method, est, &ne, &err) ||
	    parse_projections(o.projection, projs, &np, &err) ||
	    rfx_uci_encoding_parse(o.encoding, &enc, &err))
		return usage_fail(&err);
	if (o.ratio && budget_seen)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--ratio and --budget exclude each other");
	ratios[0] = 0; /* no --ratio: one pass at --budget */
	if (o.ratio && rfx_opt_ints("ratio", o.ratio, ratios, MAX_RATIOS, 1, 4096,
				    &nr, &err))
		return usage_fail(&err);
	{
		int nfiles = 0;

		for (k = 0; k < nd; k++)
			nfiles += is_file_spec(specs[k]);
		if ((o.labels || o.label_column) && nfiles != 1)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--labels and --label-column go with one --dataset FILE, got %d files",
					    nfiles);
	}
	standardize = o.scaling == SCALING_STANDARD;
	if (!o.gamma) {
		if (default_gammas(gamma_text, sizeof(gamma_text), &gammas, &ng,
				   &err))
			return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		o.gamma = gamma_text;
	} else if (rfx_opt_sweep("gamma", o.gamma, &gammas, &ng, &err)) {
		return usage_fail(&err);
	}
	for (k = 0; k < ng; k++)
		if (!(gammas[k] > 0.0)) {
			ret = rfx_cli_fail(RFX_EXIT_USAGE,
					   "gamma must be positive, got %g", gammas[k]);
			free(gammas);
			return ret;
		}
	/* --ratio: budgets r d >= r, checked at the smallest (d = 1) */
	for (k = 1, q = ratios[0]; k < nr; k++)
		q = ratios[k] < q ? ratios[k] : q;
	if (check_budget(est, ne, o.ratio ? q : o.budget, &err)) {
		free(gammas);
		return usage_fail(&err);
	}
	/*
	 * Methods with their projections in the order given, one method for
	 * exact and the discrete estimators. methods[] holds them all,
	 * methods + MAX_METHODS / 2 the random-feature ones alone: with
	 * --ratio, exact (which has no features) runs in the first pass only.
	 */
	for (k = 0; k < ne; k++) {
		const struct rfx_estimator_type *e = est[k];

		if (!e || (e->flags & RFX_EST_DISCRETE)) {
			methods[nm].e = e;
			methods[nm++].proj = RFX_PROJ_IID;
			continue;
		}
		for (q = 0; q < np; q++) {
			if (nm == MAX_METHODS / 2) {
				free(gammas);
				return rfx_cli_fail(RFX_EXIT_USAGE,
						    "too many methods and projections (at most %d)",
						    MAX_METHODS / 2);
			}
			methods[nm].e = e;
			methods[nm++].proj = projs[q];
		}
	}
	first_rf = MAX_METHODS / 2;
	for (k = 0; k < nm; k++)
		if (methods[k].e)
			methods[first_rf + nm_rf++] = methods[k];

	ret = RFX_EXIT_FAIL;
	for (k = 0; k < nd; k++) {
		const char *dir = o.data ? o.data : getenv("RFX_DATA");

		if (is_file_spec(specs[k])) {
			struct rfx_matrix m;

			ret = rfx_cli_load_labelled(&m, specs[k]->file, o.labels,
						    o.label_column, o.header);
			if (ret)
				goto out;
			ret = RFX_EXIT_FAIL;
			data[k] = calloc(1, sizeof(*data[k]));
			if (!data[k]) {
				rfx_matrix_release(&m);
				rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
				goto out;
			}
			/* the dataset takes over the matrix's rows and labels */
			data[k]->spec = specs[k];
			data[k]->n = m.rows;
			data[k]->d = m.cols;
			data[k]->nclass = m.nclass;
			data[k]->X = m.x;
			data[k]->y = m.labels;
			m.x = NULL;
			m.labels = NULL;
			rfx_matrix_release(&m);
		} else {
			if (dir)
				snprintf(path, sizeof(path), "%s/%s", dir,
					 specs[k]->file);
			else
				snprintf(path, sizeof(path), "%s/%s", cli->data_dir,
					 specs[k]->file);
			data[k] = rfx_uci_load(specs[k], path, enc, &err);
		}
		if (!data[k] ||
		    rfx_uci_split(data[k], o.seed, standardize, &splits[k], &err)) {
			rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
			goto out;
		}
		rfx_uci_info_fill(&info[k], data[k], &splits[k], enc, standardize);
		/* a kind without this dimension (sobol past 40) */
		ret = RFX_OK;
		for (q = 0; !ret && q < np; q++)
			ret = rfx_proj_check(projs[q], splits[k].d, &err);
		if (ret) {
			ret = rfx_cli_fail(RFX_EXIT_USAGE, "'%s': %s", specs[k]->name,
					   err.msg);
			goto out;
		}
		ret = RFX_EXIT_FAIL;
	}
	nrows = (size_t)nd * ((size_t)nm + (size_t)(nr - 1) * (size_t)nm_rf);
	grows = calloc(nrows * (size_t)ng, sizeof(*grows));
	rows = calloc(nrows, sizeof(*rows));
	if (!grows || !rows) {
		rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (rfx_out_open(&out, o.output, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	rfx_seed_note(o.seed);
	for (k = 0; k < nd * nr; k++) {
		struct rfx_uciexp_config c;
		int r = k % nr;

		if (r > 0 && nm_rf == 0)
			continue; /* exact alone: once per dataset */
		memset(&c, 0, sizeof(c));
		c.dataset = specs[k / nr]->name;
		/* a user's file: a stream tag past the catalogue's */
		c.dataset_index = is_file_spec(specs[k / nr]) ? 100 + k / nr
							 : rfx_uci_index(specs[k / nr]);
		c.split = &splits[k / nr];
		/* with --ratio, exact only in the first pass */
		c.nmethods = r ? nm_rf : nm;
		c.methods = r ? methods + first_rf : methods;
		c.ngammas = ng;
		c.gammas = gammas;
		c.seeds = o.seeds;
		c.budget = o.ratio ? ratios[r] * splits[k / nr].d : o.budget;
		c.seed = o.seed;
		snprintf(ctx, sizeof(ctx), "uci-classify %s", specs[k / nr]->name);
		c.progress = rfx_progress;
		c.progress_ctx = ctx;
		if (rfx_uciexp_run(&c, grows + nrows_done * (size_t)ng,
				   rows + nrows_done, &err)) {
			rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
			goto out;
		}
		nrows_done += (size_t)c.nmethods;
	}
	if (rfx_out_provenance(&out, cli, o.seed, &err) ||
	    rfx_out_table(&out, &rfx_uciexp_schema, rows, nrows_done, stdout,
			  &err) ||
	    rfx_out_table(&out, &rfx_uciexp_gamma_schema, grows,
			  nrows_done * (size_t)ng, NULL, &err) ||
	    rfx_out_table(&out, &rfx_uci_info_schema, info, (size_t)nd, NULL,
			  &err) ||
	    rfx_out_commit(&out, &err)) {
		rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	ret = RFX_EXIT_OK;
out:
	rfx_out_abort(&out);
	for (k = 0; k < nd; k++) {
		rfx_uci_free(data[k]);
		rfx_uci_split_release(&splits[k]);
	}
	free(grows);
	free(rows);
	free(gammas);
	return ret;
}

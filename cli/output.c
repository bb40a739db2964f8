/*
 * Output plumbing shared by the commands: TSV, the HDF5 file and its
 * provenance, error and progress lines.
 */
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#include <pthread.h>
#endif

#include "base/cancel.h"
#include "dist.h"
#include "base/fmt.h"
#include "base/rng.h"
#include "num/blas.h"
#include "num/isa.h"

const char *volatile rfx_cli_tmpfile;

/*
 * The signal handler's copy of the temporary name: the handle's own is
 * freed inside the aborts and commits of h5out and outfile, and a second signal
 * during either must still find a name to unlink, not freed memory. So
 * rfx_cli_tmpfile points here from open until after the file is renamed
 * or removed; unlinking it once more then is harmless.
 */
static char tmpname[PATH_MAX + sizeof(".tmp.XXXXXX")];

#ifdef _OPENMP
/* threads_startable's threads wait here until it has made them all */
struct probe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go;
};

static void *probe_wait(void *arg)
{
	struct probe *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->go)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * The stack size OpenMP gives its threads: OMP_STACKSIZE, else the older
 * GOMP_STACKSIZE, a number and an optional unit B, K, M or G (K when
 * none; blanks around each), as the OpenMP specification writes it. 0
 * when unset or not of that form (libgomp then warns and ignores it).
 */
static size_t omp_stack_bytes(void)
{
	const char *s = getenv("OMP_STACKSIZE");
	unsigned long long v;
	int shift = 10;
	char *end;

	if (!s)
		s = getenv("GOMP_STACKSIZE");
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 'b': shift = 0; break;
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		default: return 0;
		}
		for (end++; isspace((unsigned char)*end); end++)
			;
	}
	if (errno || *end || v > (SIZE_MAX >> shift))
		return 0;
	return (size_t)v << shift;
}

/*
 * How many threads, this one included, can live at once, up to t. When
 * libgomp cannot create a thread of its team (a limit on processes below
 * the count: `ulimit -u`, a container's pids.max; or no room for its
 * stack: OMP_STACKSIZE=100G) it ends the process with its own message,
 * and the temporary output stayed behind. So the team is made here
 * first, of threads with the stack OpenMP's would have, each alive until
 * all are (the limits count live threads), then joined.
 */
static int threads_startable(int t)
{
	struct probe p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	pthread_t *th = t > 1 ? malloc((size_t)(t - 1) * sizeof(*th)) : NULL;
	size_t stack = omp_stack_bytes();
	pthread_attr_t attr;
	int n, k, sized;

	if (!th)
		return 1;
	pthread_attr_init(&attr);
	/* a size below the least a thread may have: libgomp keeps its own */
	sized = stack && pthread_attr_setstacksize(&attr, stack) == 0;
	for (n = 0; n < t - 1; n++)
		if (pthread_create(&th[n], sized ? &attr : NULL, probe_wait, &p))
			break;
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&p.mu);
	p.go = 1;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	for (k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	free(th);
	return n + 1;
}
#endif

int rfx_cli_threads(int threads)
{
	int t = 1, k;

#ifdef _OPENMP
	t = threads > 0 ? threads : omp_get_max_threads();
#endif
	k = rfx_blas_reserve(t);
#ifdef _OPENMP
	if (k > 1)
		k = threads_startable(k);
	if (k > 0 && (k < t || threads > 0))
		omp_set_num_threads(k);
#endif
	return k;
}

/* "rfx: <what><message>" on stderr, one line. */
static void say(const char *what, const char *fmt, va_list ap)
{
	char raw[RFX_ERR_MSG_MAX], msg[RFX_ERR_MSG_MAX];

	fflush(stdout);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* One line whatever the arguments quoted in it hold. */
	rfx_err_escape(raw, msg, sizeof(msg));
	fprintf(stderr, "rfx: %s%s\n", what, msg);
}

int rfx_cli_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	return code;
}

void rfx_cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

const char *const rfx_out_h5_suffixes[] = { ".h5", ".hdf5", NULL };

int rfx_out_check_name(const char *path, const char *const *suffixes,
		       const char *kind)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(path), ls;
	int k;

	base = base ? base + 1 : path;
	for (k = 0; suffixes[k]; k++) {
		ls = strlen(suffixes[k]);
		if (n < ls || strcasecmp(path + n - ls, suffixes[k]))
			continue;
		/* '.h5' alone: a hidden file, what "$name.h5" gives unset */
		if (!strcasecmp(base, suffixes[k]))
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "output file '%s' has no name before its suffix",
					    path);
		return RFX_EXIT_OK;
	}
	return rfx_cli_fail(RFX_EXIT_USAGE,
			    "output file '%s' must end in %s%s%s (rfx writes %s only)",
			    path, suffixes[0], suffixes[1] ? " or " : "",
			    suffixes[1] ? suffixes[1] : "", kind);
}

int rfx_cli_exit_code(int status)
{
	return status == RFX_OK ? RFX_EXIT_OK
	       : status == RFX_EINVAL ? RFX_EXIT_USAGE
				      : RFX_EXIT_FAIL;
}

/* A failure whose err was never set still fails (exit 1, not 0). */
static int failure_code(int status)
{
	return status == RFX_OK ? RFX_EXIT_FAIL : rfx_cli_exit_code(status);
}

int rfx_cli_error(const struct rfx_err *err)
{
	return rfx_cli_fail(failure_code(err->code), "%s",
			    err->msg[0] ? err->msg : "failed");
}

/*
 * The option table of the run, as rfx_cli_parse left it: a copy, since a
 * command may parse in a helper whose table is gone by the time the file
 * is written (the destinations it points to live as long as the run).
 */
static struct rfx_opt *run_opts;

/*
 * The run's mode as rfx_cli_check_modes last accepted it, with the
 * command's table of options that apply to some modes only (static
 * tables), so that the file leaves out the options its mode ignores.
 */
static const struct rfx_opt_mode *run_modes;
static size_t run_nmodes;
static unsigned run_mode;

/* Keeps a copy of opts for rfx_out_options: 0, or -1 out of memory. */
static int keep_options(const struct rfx_opt *opts)
{
	size_t n = 0;

	free(run_opts);
	run_modes = NULL;
	run_nmodes = 0;
	while (opts[n].name)
		n++;
	run_opts = malloc((n + 1) * sizeof(*run_opts));
	if (!run_opts)
		return -1;
	memcpy(run_opts, opts, (n + 1) * sizeof(*run_opts));
	return 0;
}

int rfx_cli_parse(const char *cmd, const char *usage, const char *summary,
		  struct rfx_opt *opts, int argc, char **argv, const char **pos,
		  int maxpos, int *npos, int *help)
{
	const struct rfx_opt *o;
	struct rfx_err err;

	rfx_err_clear(&err);
	if (rfx_opt_parse(cmd, opts, argc, argv, pos, maxpos, npos, help, &err))
		return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
	if (keep_options(opts))
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	/*
	 * -o '' names no file, and -o x.csv would get HDF5 under a name that
	 * promises text (the HDF5 outputs are the options with metavar
	 * FILE.h5, RFX_OPTION_OUTPUT).
	 */
	for (o = opts; o->name; o++) {
		const char *path;

		if (strcmp(o->name, "output") || !o->seen || o->kind != RFX_OPT_STRING ||
		    !(path = *(const char **)o->dest))
			continue;
		if (!*path)
			return rfx_cli_fail(RFX_EXIT_USAGE, "-o needs a file name");
		if (o->metavar && !strcmp(o->metavar, "FILE.h5") &&
		    rfx_out_check_name(path, rfx_out_h5_suffixes, "HDF5"))
			return RFX_EXIT_USAGE;
	}
	/* --threads (RFX_OPTION_THREADS): 0, the default, leaves OpenMP's */
	for (o = opts; o->name; o++)
		if (!strcmp(o->name, "threads") && o->kind == RFX_OPT_INT &&
		    *(const int *)o->dest > 0) {
			rfx_cli_threads(*(const int *)o->dest);
		}
	if (*help)
		rfx_opt_help(cmd, usage, summary, opts, stdout);
	return RFX_EXIT_OK;
}

int rfx_cli_check_modes(const struct rfx_opt *opts,
			const struct rfx_opt_mode *table, size_t n,
			unsigned mode, const char *mode_name)
{
	struct rfx_err err;

	rfx_err_clear(&err);
	if (rfx_opt_check_modes(opts, table, n, mode, mode_name, &err))
		return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
	run_modes = table;
	run_nmodes = n;
	run_mode = mode;
	return RFX_EXIT_OK;
}

int rfx_out_open(struct rfx_out *o, const char *path, struct rfx_err *err)
{
	o->h5 = NULL;
	o->raw = NULL;
	/* one writer per run (MPI rank 0; a shard writes its own file) */
	path = rfx_dist_writer() ? rfx_dist_output(path) : NULL;
	if (!path)
		return RFX_OK;
	o->h5 = rfx_h5out_open(path, err);
	if (!o->h5)
		return err->code ? err->code : RFX_EIO;
	/* longer names than PATH_MAX fail in mkstemp before this */
	strncpy(tmpname, rfx_h5out_tmpname(o->h5), sizeof(tmpname) - 1);
	rfx_cli_tmpfile = tmpname;
	return RFX_OK;
}

int rfx_out_open_raw(struct rfx_out *o, const char *path,
		     struct rfx_err *err)
{
	o->h5 = NULL;
	o->raw = rfx_outfile_open(path, err);
	if (!o->raw)
		return err->code ? err->code : RFX_EIO;
	strncpy(tmpname, o->raw->tmp, sizeof(tmpname) - 1);
	rfx_cli_tmpfile = tmpname;
	return RFX_OK;
}

int rfx_out_write(struct rfx_out *o, const void *buf, size_t n,
		  struct rfx_err *err)
{
	if (!o->raw)
		return rfx_error(err, RFX_EINVAL, "no raw output file to write");
	return rfx_outfile_write(o->raw, buf, n, err);
}

/*
 * The input files of this run, in the order they were loaded: their
 * strings live as long as the process (a run loads a handful).
 */
static struct rfx_input_file *inputs;
static int ninputs;

int rfx_cli_load_matrix(struct rfx_matrix *m, const char *spec,
			const struct rfx_matrix_opts *o)
{
	struct rfx_input_file *in;
	struct rfx_err err;
	char *path, *sha;

	rfx_err_clear(&err);
	if (rfx_matrix_load(m, spec, o, &err))
		return rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
	in = realloc(inputs, (size_t)(ninputs + 1) * sizeof(*in));
	path = strdup(spec);
	sha = strdup(m->sha256);
	if (!in || !path || !sha) {
		if (in)
			inputs = in;
		free(path);
		free(sha);
		rfx_matrix_release(m);
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	}
	inputs = in;
	in[ninputs].path = path;
	in[ninputs].sha256 = sha;
	in[ninputs].size = m->size;
	ninputs++;
	return RFX_EXIT_OK;
}

int rfx_cli_is_file(const char *name)
{
	return strpbrk(name, "/.:") != NULL;
}

int rfx_cli_load_labelled(struct rfx_matrix *m, const char *spec,
			  const char *labels, int label_column, int header)
{
	struct rfx_matrix_opts mo = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
	struct rfx_matrix lab;
	int ret;

	rfx_matrix_init(m);
	if (labels && label_column)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--labels and --label-column both give the labels of '%s': give one",
				    spec);
	if (!labels && !label_column)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--dataset '%s' needs its labels: --labels FILE or --label-column N",
				    spec);
	if (header)
		mo.header = RFX_MATRIX_HEADER_YES;
	mo.label_column = label_column;
	if ((ret = rfx_cli_load_matrix(m, spec, &mo)))
		return ret;
	if (labels) {
		mo.label_column = 0;
		mo.labels_only = 1;
		if ((ret = rfx_cli_load_matrix(&lab, labels, &mo))) {
			rfx_matrix_release(m);
			return ret;
		}
		if (lab.rows != m->rows) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "'%s' has %zu labels but '%s' has %zu rows",
					   labels, lab.rows, spec, m->rows);
			rfx_matrix_release(&lab);
			rfx_matrix_release(m);
			return ret;
		}
		m->labels = lab.labels;
		m->nclass = lab.nclass;
		lab.labels = NULL;
		rfx_matrix_release(&lab);
	}
	if (m->nclass < 2) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "'%s' has one class only: nothing to classify",
				   labels ? labels : spec);
		rfx_matrix_release(m);
		return ret;
	}
	return RFX_EXIT_OK;
}

/*
 * Stores list option op, whose text is text, as an array of its items'
 * type (op->list); a list whose items are not all numbers of that type
 * (a command that takes a word there too) is stored as strings.
 */
static int write_list(struct rfx_h5out *h5, const struct rfx_opt *op,
		      const char *text, struct rfx_err *err)
{
	struct rfx_attr_value a = { RFX_ATTR_STRING, 1, 1, NULL };
	size_t n = 1, k;
	const char **item = NULL;
	char *copy = strdup(text), *p, *end;
	void *num = NULL;
	int ret;

	for (p = copy; p && *p; p++)
		n += *p == ',';
	item = malloc(n * sizeof(*item));
	num = malloc(n * 8);
	if (!copy || !item || !num) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0, p = copy; k < n; k++) {
		item[k] = p;
		p += strcspn(p, ",");
		if (*p)
			*p++ = '\0';
	}
	a.n = n;
	a.v = item;
	if (op->list == RFX_LIST_INTS || op->list == RFX_LIST_DOUBLES) {
		a.type = op->list == RFX_LIST_INTS ? RFX_ATTR_INT64 : RFX_ATTR_DOUBLE;
		a.v = num;
		for (k = 0; k < n && a.v; k++) {
			/* as rfx_opt_doubles and rfx_opt_ints read them: 1e3 too */
			double v;

			errno = 0;
			v = strtod(item[k], &end);
			if (end == item[k] || *end || errno || !isfinite(v) ||
			    (op->list == RFX_LIST_INTS &&
			     (v != floor(v) || fabs(v) >= 0x1p63)))
				a.v = NULL;
			else if (op->list == RFX_LIST_INTS)
				((int64_t *)num)[k] = (int64_t)v;
			else
				((double *)num)[k] = v;
		}
		if (!a.v) {
			a.type = RFX_ATTR_STRING;
			a.v = item;
		}
	}
	ret = rfx_h5out_option(h5, op->name, &a, err);
out:
	free(num);
	free(item);
	free(copy);
	return ret;
}

/*
 * Stores the value option op has now, typed (see rfx_out_options);
 * nothing for a string or list that has no value.
 */
static int write_option(struct rfx_h5out *h5, const struct rfx_opt *op,
			struct rfx_err *err)
{
	struct rfx_attr_value a = { RFX_ATTR_INT64, 0, 1, NULL };
	const struct rfx_strlist *sl;
	const char *text = NULL;
	int64_t i;
	uint64_t u;
	double d;

	switch (op->kind) {
	case RFX_OPT_INT:
	case RFX_OPT_FLAG:
		i = *(const int *)op->dest;
		a.v = &i;
		break;
	case RFX_OPT_LONG:
		i = *(const long *)op->dest;
		a.v = &i;
		break;
	case RFX_OPT_U64:
		u = *(const uint64_t *)op->dest;
		a.type = RFX_ATTR_UINT64;
		a.v = &u;
		break;
	case RFX_OPT_DOUBLE:
		d = *(const double *)op->dest;
		a.type = RFX_ATTR_DOUBLE;
		a.v = &d;
		break;
	case RFX_OPT_CHOICE:
		text = op->choices[*(const int *)op->dest];
		break;
	case RFX_OPT_STRING:
		text = *(const char *const *)op->dest;
		break;
	case RFX_OPT_PARSE:
		text = op->text;
		break;
	case RFX_OPT_MULTI:
		sl = op->dest;
		if (sl->n == 0)
			return RFX_OK;
		a.type = RFX_ATTR_STRING;
		a.list = 1;
		a.n = (size_t)sl->n;
		a.v = sl->item;
		break;
	}
	if (a.v)
		return rfx_h5out_option(h5, op->name, &a, err);
	if (!text)
		return RFX_OK;
	if (op->list != RFX_LIST_NONE)
		return write_list(h5, op, text, err);
	a.type = RFX_ATTR_STRING;
	a.v = &text;
	return rfx_h5out_option(h5, op->name, &a, err);
}

/* Whether option name applies to the run's mode (rfx_cli_check_modes). */
static int applies(const char *name)
{
	size_t k;

	for (k = 0; k < run_nmodes; k++)
		if (!strcmp(run_modes[k].name, name))
			return (run_modes[k].modes & run_mode) != 0;
	return 1;
}

int rfx_out_options(struct rfx_out *o, struct rfx_err *err)
{
	const struct rfx_opt *op;
	int ret;

	if (!o->h5 || !run_opts)
		return RFX_OK;
	for (op = run_opts; op->name; op++) {
		/* where the file goes and how many threads made it: not results */
		if (!strcmp(op->name, "output") || !strcmp(op->name, "threads") ||
		    !applies(op->name))
			continue;
		if ((ret = write_option(o->h5, op, err)))
			return ret;
	}
	return RFX_OK;
}

int rfx_out_provenance(struct rfx_out *o, const struct rfx_cli *cli,
		       uint64_t seed, struct rfx_err *err)
{
	struct rfx_provenance p;
	int ret;

	if (!o->h5 && !o->raw)
		return RFX_OK;
	p.version = cli->version;
	p.commit = cli->commit;
	p.command = cli->command_line;
	p.seed = seed;
	p.rng = rfx_rng_type()->name;
	p.ninputs = ninputs;
	p.inputs = inputs;
	if ((ret = rfx_h5out_provenance(o->h5, &p, err)))
		return ret;
	/* the BLAS and rfx's kernels: they decide the last bits (num/isa.h) */
	if ((ret = rfx_h5out_attr(o->h5, "blas", rfx_isa_describe(), err)))
		return ret;
	return rfx_out_options(o, err);
}

int rfx_out_table(struct rfx_out *o, const struct rfx_schema *s,
		  const void *rows, size_t n, FILE *tsv, struct rfx_err *err)
{
	if (tsv)
		rfx_tsv_print(s, rows, n, tsv);
	if (o->h5)
		return rfx_h5out_table(o->h5, s, rows, n, err);
	return RFX_OK;
}

int rfx_out_commit(struct rfx_out *o, struct rfx_err *err)
{
	int ret;

	if (!o->h5 && !o->raw)
		return RFX_OK;
	/*
	 * Pair and map runs do not poll for cancellation: a signal that came
	 * during them must still keep the file from appearing.
	 */
	if (rfx_cancel_requested()) {
		rfx_out_abort(o);
		return rfx_error(err, RFX_EINTR, "interrupted");
	}
	/*
	 * The file is the last thing a run does: a run whose tables could
	 * not reach stdout (a full disk, a closed pipe) fails, and must not
	 * have replaced an existing file first.
	 */
	if (fflush(stdout) || ferror(stdout)) {
		rfx_out_abort(o);
		return rfx_error(err, RFX_EIO, "cannot write to standard output");
	}
	ret = o->h5 ? rfx_h5out_commit(o->h5, err)
		    : rfx_outfile_commit(o->raw, err);
	o->h5 = NULL;
	o->raw = NULL;
	rfx_cli_tmpfile = NULL;
	return ret;
}

void rfx_out_abort(struct rfx_out *o)
{
	if (o->h5)
		rfx_h5out_abort(o->h5);
	else if (o->raw)
		rfx_outfile_abort(o->raw);
	o->h5 = NULL;
	o->raw = NULL;
	rfx_cli_tmpfile = NULL;
}

void rfx_tsv_print(const struct rfx_schema *s, const void *rows, size_t n,
		   FILE *out)
{
	size_t i;
	int c;

	for (c = 0; c < s->ncols; c++)
		fprintf(out, "%s%s", c ? "\t" : "", s->cols[c].name);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		const char *row = (const char *)rows + i * s->row_size;

		for (c = 0; c < s->ncols; c++) {
			const struct rfx_column *col = &s->cols[c];
			const void *f = row + col->offset;
			char buf[64];

			if (c)
				fputc('\t', out);
			switch (col->type) {
			case RFX_COL_DOUBLE: {
				double v;

				memcpy(&v, f, sizeof(v));
				rfx_fmt_double(v, buf, sizeof(buf));
				fputs(buf, out);
				break;
			}
			case RFX_COL_INT: {
				int v;

				memcpy(&v, f, sizeof(v));
				fprintf(out, "%d", v);
				break;
			}
			case RFX_COL_LONG: {
				long v;

				memcpy(&v, f, sizeof(v));
				fprintf(out, "%ld", v);
				break;
			}
			case RFX_COL_STRING:
				fprintf(out, "%.*s", (int)col->size, (const char *)f);
				break;
			}
		}
		fputc('\n', out);
	}
}

void rfx_cli_data_dir(const char *opt, const struct rfx_cli *cli, char *buf,
		      size_t n)
{
	const char *env = getenv("RFX_DATA");

	snprintf(buf, n, "%s", opt ? opt : env ? env : cli->data_dir);
}

void rfx_progress(void *what, int done, int total)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rrfx: %s %d/%d%s", (const char *)what, done, total,
		done == total ? "\n" : "");
	fflush(stderr);
}

static int seed_noted;     /* a sampled run recorded its seed */
static uint64_t noted_seed;

void rfx_seed_note(uint64_t seed)
{
	seed_noted = 1;
	noted_seed = seed;
}

int rfx_seed_noted(uint64_t *seed)
{
	*seed = noted_seed;
	return seed_noted;
}

void rfx_seed_flush(void)
{
	if (!seed_noted)
		return;
	seed_noted = 0;
	fprintf(stderr, "rfx: seed %llu, rng %s\n",
		(unsigned long long)noted_seed, rfx_rng_type()->name);
}

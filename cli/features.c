/*
 * rfx features: the real feature matrix of the user's inputs for one
 * estimator, budget, projection kind and seed, through the public library
 * (include/rfx.h, lib/api/rfx.c) exactly as a program or the Python
 * package computes it, so that `rfx features --seed S` and
 * rfx.features(..., seed=S) give the same bytes. The parameters are
 * fitted to --x-file against --y-file (default: against itself) unless
 * --param fixes them; they go to stderr with the seed. Output: -o
 * FILE.npy (NumPy, float64 or float32 with --float32, rows x columns,
 * written to a temporary and renamed), or TSV on stdout, every number in
 * its shortest round-trip form. --log-scale writes what
 * rfx_model_features_log gives, the scaled features and, as one more
 * column, each row's log-scale: one matrix, so that a row and its scale
 * cannot be separated on the way to the user's program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "data/matrix.h"
#include "base/fmt.h"
#include "io/table.h"
#include "opt.h"
#include "output.h"
#include "proj/proj.h"

/* after lib/base/err.h (through the headers above), whose definitions it shares */
#include <rfx.h>

static const char usage_line[] =
	"--x-file FILE --method M [--features M] [--projection P] [--kernel K]\n"
	"       [--param NAME=VALUE]... [--y-file FILE] [--side 1|2] [--seed S]\n"
	"       [--header] [--float32 | --log-scale] [-o FILE.npy]";

static const char summary[] =
	"The random feature matrix of the rows of --x-file (one input per row)\n"
	"for estimator --method with budget --features, projections of kind\n"
	"--projection drawn from --seed: the library's rfx_model_features and\n"
	"Python's rfx.features, byte for byte. Row i of side 1 dotted with row\n"
	"k of side 2 estimates K(x_i, y_k); complex estimators give [Re, Im].\n"
	"Values beyond double range are 0 or +-inf, as the library's;\n"
	"--log-scale keeps them (rfx_model_features_log, Python's log_scale=True):\n"
	"row i is F_i1..F_iD, |F_ij| <= 1, then s_i, the feature being F_ij e^s_i.\n"
	"Parameters not given with --param are fitted to --x-file against\n"
	"--y-file (default: itself) and printed on stderr.";

/* the one suffix of -o (rfx_out_check_name) */
static const char *const npy_suffix[] = { ".npy", NULL };

/* The .npy header of an n x D matrix of type descr, padded to 64 bytes. */
static size_t npy_header(char *buf, size_t cap, const char *descr, size_t n,
			 int D)
{
	char dict[160];
	int len = snprintf(dict, sizeof(dict),
			   "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %d), }",
			   descr, n, D);
	size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64, hl;

	hl = (size_t)len + pad + 1;
	if (10 + hl > cap)
		return 0;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)(hl & 0xff);
	buf[9] = (char)(hl >> 8);
	memcpy(buf + 10, dict, (size_t)len);
	memset(buf + 10 + len, ' ', pad);
	buf[10 + hl - 1] = '\n';
	return 10 + hl;
}

/*
 * The n x D values (elem bytes each, little-endian as the machine: x86-64
 * and arm64 are) into the -o file opened before the run, renamed into
 * place on success (rfx_out_commit: nothing is left behind on failure).
 */
static int write_npy(struct rfx_out *out, const void *data, size_t elem,
		     size_t n, int D, struct rfx_err *err)
{
	char head[256];
	size_t hl = npy_header(head, sizeof(head), elem == 4 ? "<f4" : "<f8",
			       n, D);

	if (!hl)
		return rfx_error(err, RFX_EINVAL, "the .npy header does not fit");
	if (rfx_out_write(out, head, hl, err) ||
	    rfx_out_write(out, data, elem * n * (size_t)D, err))
		return err->code;
	return rfx_out_commit(out, err);
}

/*
 * TSV of the n x D values (floats with f32, each widened exactly to
 * double), every number in its shortest round-trip form.
 */
static int print_tsv(const void *F, int f32, size_t n, int D,
		     struct rfx_err *err)
{
	char num[32];
	size_t i, k;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; j < D; j++) {
			k = i * (size_t)D + (size_t)j;
			rfx_fmt_double(f32 ? (double)((const float *)F)[k]
						    : ((const double *)F)[k],
						num, sizeof(num));
			fputs(num, stdout);
			putchar(j + 1 < D ? '\t' : '\n');
		}
	/* flushed here, so that a full stdout is this run's one line */
	if (fflush(stdout) || ferror(stdout))
		return rfx_error(err, RFX_EIO, "cannot write to standard output");
	return RFX_OK;
}

/*
 * The n x D matrix at F (room for n x (D + 1)) with col as its last
 * column, in place: rows move from the last, each to a place at or after
 * its own, so none is overwritten before it has moved.
 */
static void append_column(double *F, const double *col, size_t n, int D)
{
	size_t i = n;

	while (i-- > 0) {
		memmove(F + i * ((size_t)D + 1), F + i * (size_t)D,
			(size_t)D * sizeof(double));
		F[i * ((size_t)D + 1) + (size_t)D] = col[i];
	}
}

int cmd_features(int argc, char **argv, const struct rfx_cli *cli)
{
	const char *method = NULL, *projection = "iid", *kernel = "gauss";
	const char *x_file = NULL, *y_file = NULL, *output = NULL;
	int M = 256, side = 1, f32 = 0, logs = 0, header = 0, help, npos, ret;
	int k, D, C;
	uint64_t seed = 20221121u;
	struct rfx_strlist params = { 0 };
	struct rfx_matrix X, Y;
	struct rfx_matrix_opts mo = { RFX_MATRIX_HEADER_AUTO, 0, 0 };
	struct rfx_model *m = NULL;
	struct rfx_out out = { NULL };
	struct rfx_err err;
	void *F = NULL;
	double *lscale = NULL;
	char ptext[4096];
	struct rfx_opt opts[] = {
		{ "x-file", 0, RFX_OPT_STRING, &x_file, "FILE",
		  "the inputs, one per row: .npy, text or FILE.h5:/dataset (required, no default)", 0 },
		{ "y-file", 0, RFX_OPT_STRING, &y_file, "FILE",
		  "the other set the parameters are fitted against (default: --x-file)", 0 },
		RFX_OPTION_HEADER(&header, "", "a text file"),
		{ "method", 0, RFX_OPT_STRING, &method, "M",
		  "the estimator, e.g. oprf (required, no default)", 0 },
		{ "features", 0, RFX_OPT_INT, &M, "M",
		  "budget in the estimator's unit, 1..1000000 (default 256)", 0 },
		{ "projection", 0, RFX_OPT_STRING, &projection, "P",
		  "projection kind: " RFX_PROJ_NAMES " (default iid)", 0 },
		{ "kernel", 0, RFX_OPT_STRING, &kernel, "K",
		  "gauss or softmax (default gauss)", 0 },
		{ "param", 0, RFX_OPT_MULTI, &params, "NAME=VALUE",
		  "fix a parameter instead of fitting it, repeatable (default none: all fitted)", 0 },
		{ "side", 0, RFX_OPT_INT, &side, "1|2",
		  "the x side (1) or the y side (2) of K(x, y) (default 1)", 0 },
		{ "float32", 0, RFX_OPT_FLAG, &f32, NULL,
		  "single-precision output (default double)", 0 },
		{ "log-scale", 0, RFX_OPT_FLAG, &logs, NULL,
		  "features over their row's scale e^s, then s as a last column: no 0 or inf (default off)", 0 },
		RFX_OPTION_SEED(&seed),
		{ "output", 'o', RFX_OPT_STRING, &output, "FILE.npy",
		  "write the matrix to this .npy file (default: TSV on stdout)", 0 },
		RFX_OPTION_END
	};

	(void)cli;
	rfx_matrix_init(&X);
	rfx_matrix_init(&Y);
	ret = rfx_cli_parse("features", usage_line, summary, opts, argc, argv,
			    NULL, 0, &npos, &help);
	if (ret || help)
		return ret;
	if (!x_file)
		return rfx_cli_fail(RFX_EXIT_USAGE, "features needs --x-file FILE");
	if (!method)
		return rfx_cli_fail(RFX_EXIT_USAGE, "features needs --method M");
	if (M < 1 || M > 1000000)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--features must be in 1..1000000, got %d", M);
	if (side != 1 && side != 2)
		return rfx_cli_fail(RFX_EXIT_USAGE, "--side must be 1 or 2, got %d",
				    side);
	if (f32 && logs)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--float32 and --log-scale do not go together (the log-scaled output is double)");
	if (output && rfx_out_check_name(output, npy_suffix, "NumPy .npy"))
		return RFX_EXIT_USAGE;
	if (header)
		mo.header = RFX_MATRIX_HEADER_YES;
	rfx_err_clear(&err);
	if (!rfx_estimator_find(method, &err))
		return rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
	/* before any work, as every -o: an unwritable target fails first */
	if (output && rfx_out_open_raw(&out, output, &err))
		return rfx_cli_error(&err);
	if ((ret = rfx_cli_load_matrix(&X, x_file, &mo)))
		goto out;
	if (y_file && (ret = rfx_cli_load_matrix(&Y, y_file, &mo)))
		goto out;
	if (y_file && rfx_matrix_check_same_cols(&X, &Y, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	m = rfx_model_alloc(method, X.cols, M, projection, kernel, &err);
	for (k = 0; m && k < params.n; k++)
		if (rfx_model_set_param(m, params.item[k], &err))
			break;
	if (!m || k < params.n) {
		ret = rfx_cli_fail(RFX_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (rfx_model_fit(m, X.x, X.rows, y_file ? Y.x : X.x,
			  y_file ? Y.rows : X.rows, &err)) {
		ret = rfx_cli_fail(err.code == RFX_EINVAL ? RFX_EXIT_USAGE
							   : RFX_EXIT_FAIL,
				   "%s", err.msg);
		goto out;
	}
	if (rfx_model_draw(m, seed, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	D = rfx_model_dim(m);
	C = D + logs; /* the output's columns */
	F = malloc(X.rows * (size_t)C * (f32 ? sizeof(float) : sizeof(double)));
	lscale = logs ? malloc((X.rows ? X.rows : 1) * sizeof(double)) : NULL;
	if (!F || (logs && !lscale)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL,
				   "out of memory for %zu x %d features", X.rows, D);
		goto out;
	}
	if (f32 ? rfx_model_features_f32(m, side, X.x, X.rows, F, &err)
	    : logs ? rfx_model_features_log(m, side, X.x, X.rows, F, lscale, &err)
		   : rfx_model_features(m, side, X.x, X.rows, F, &err)) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	if (logs)
		append_column(F, lscale, X.rows, D);
	if (output)
		ret = write_npy(&out, F, f32 ? sizeof(float) : sizeof(double),
				X.rows, C, &err);
	else
		ret = print_tsv(F, f32, X.rows, C, &err);
	if (ret) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		goto out;
	}
	/* after the output, so that a failed write is the one line on stderr */
	rfx_model_params(m, ptext, sizeof(ptext));
	fprintf(stderr, "rfx: %s, %d features, %zu x %d matrix, parameters %s\n",
		method, M, X.rows, D, ptext);
	rfx_seed_note(seed);
out:
	rfx_out_abort(&out);
	free(F);
	free(lscale);
	rfx_model_free(m);
	rfx_matrix_release(&X);
	rfx_matrix_release(&Y);
	return ret;
}

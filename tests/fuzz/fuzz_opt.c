/*
 * libFuzzer target: the command-line parsers. The input is split at NUL
 * and newline bytes into an argv (at most 64 words) and parsed by
 * rfx_opt_parse (cli/opt.c) against a table with one option of every
 * kind (bounds, choices, a typed parser and defaults included); then each word goes through the parsers that take users' strings
 * in the subcommands: number lists (rfx_opt_doubles), method lists of
 * the registry and of clustered, "[LABEL=]ESTIMATOR[:PROJECTION]",
 * "NAME=VALUE" and "METHOD:NAME=VALUE" parameters, projection,
 * normalisation, regime, map and encoding names. Each must succeed or
 * return an error with a message, never crash, leak or read out of
 * bounds.
 */
#include <string.h>

#include "opt.h"
#include "exp/clustered.h"
#include "data/dataset.h"
#include "est/estimator.h"
#include "exp/msetable.h"
#include "proj/proj.h"
#include "data/regime.h"
#include "data/uci.h"
#include "exp/varmap.h"
#include "fuzz_util.h"

#define FUZZ_OPT_MAXARG 64

/* A failed parser must have said why. */
static void fuzz_opt_check(int ret, const struct rfx_err *err)
{
	if (ret != RFX_OK && (!err->code || !err->msg[0]))
		__builtin_trap();
}

static void fuzz_opt_word(const char *w, int d)
{
	const struct rfx_estimator_type *est[32];
	const struct rfx_estimator_type *const *all = rfx_estimator_list();
	struct rfx_cl_method cl[32];
	struct rfx_mse_method mm;
	struct rfx_params p;
	struct rfx_err err;
	enum rfx_proj proj;
	enum rfx_norm norm;
	enum rfx_regime reg;
	enum rfx_varmap_kind map;
	enum rfx_uci_encoding enc;
	double *v = NULL;
	int n, k, taken;

	memset(&err, 0, sizeof(err));
	fuzz_opt_check(rfx_opt_doubles("x", w, &v, &n, &err), &err);
	free(v);
	fuzz_opt_check(rfx_estimator_parse_list(w, est, 32, &n, &err), &err);
	fuzz_opt_check(rfx_cl_parse_methods(w, cl, 32, &n, &err), &err);
	fuzz_opt_check(rfx_mse_method_parse(w, &mm, &err), &err);
	fuzz_opt_check(rfx_proj_parse(w, &proj, &err), &err);
	{
		int has;

		if (!rfx_estimator_find_proj(w, &proj, &has, &err) && !err.msg[0])
			__builtin_trap();
	}
	fuzz_opt_check(rfx_norm_parse(w, &norm, &err), &err);
	fuzz_opt_check(rfx_regime_parse(w, &reg, &err), &err);
	fuzz_opt_check(rfx_varmap_parse(w, &map, &err), &err);
	fuzz_opt_check(rfx_uci_encoding_parse(w, &enc, &err), &err);
	for (k = 0; all[k]; k++) {
		rfx_params_init(&p, d);
		fuzz_opt_check(rfx_params_parse(&p, all[k], w, &err), &err);
		rfx_params_release(&p);
		rfx_params_init(&p, d);
		fuzz_opt_check(rfx_params_apply(&p, all[k], w, &taken, &err), &err);
		rfx_params_release(&p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[FUZZ_OPT_MAXARG + 1];
	const char *pos[4];
	int argc = 1, npos, help, k, ret;
	int i_val = 0, flag = 0;
	long l_val = 0;
	uint64_t u_val = 0;
	double d_val = 0.0, r_val = 0.0;
	const char *s_val = NULL;
	static const char *const choices[] = { "one", "two", NULL };
	int c_val = -1, b_val = 0;
	enum rfx_proj p_val = RFX_PROJ_IID;
	struct rfx_strlist multi;
	struct rfx_err err;
	size_t a, i;
	struct rfx_opt opts[] = {
		{ "int", 'i', RFX_OPT_INT, &i_val, "N", "an int", 0 },
		{ "long", 0, RFX_OPT_LONG, &l_val, "N", "a long", 0 },
		{ "seed", 0, RFX_OPT_U64, &u_val, "S", "a seed", 0 },
		{ "num", 'x', RFX_OPT_DOUBLE, &d_val, "X", "a number", 0 },
		{ "output", 'o', RFX_OPT_STRING, &s_val, "FILE", "a string", 0 },
		{ "flag", 0, RFX_OPT_FLAG, &flag, NULL, "a flag", 0 },
		{ "param", 0, RFX_OPT_MULTI, &multi, "P", "repeatable", 0 },
		{ "bounded", 0, RFX_OPT_INT, &b_val, "N", "an int in 0 or 2..9", 0,
		  RFX_RANGE_OR0(2, 9), .dflt = "3" },
		{ "range", 0, RFX_OPT_DOUBLE, &r_val, "X", "a number in (0, 1]", 0,
		  RFX_RANGE_ABOVE(0, 1) },
		{ "choice", 0, RFX_OPT_CHOICE, &c_val, "C", "one or two", 0,
		  .choices = choices, .dflt = "two" },
		{ "projection", 0, RFX_OPT_PARSE, &p_val, "P", "a projection", 0,
		  .parse = rfx_opt_proj, .dflt = "iid" },
		RFX_OPTION_END
	};

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "fuzz";
	for (a = 0, i = 0; i <= size && argc < FUZZ_OPT_MAXARG; i++)
		if (i == size || buf[i] == '\0' || buf[i] == '\n') {
			buf[i] = '\0';
			argv[argc++] = buf + a;
			a = i + 1;
		}
	argv[argc] = NULL;
	memset(&multi, 0, sizeof(multi));
	memset(&err, 0, sizeof(err));
	ret = rfx_opt_parse("fuzz", opts, argc, argv, pos, 4, &npos, &help, &err);
	fuzz_opt_check(ret, &err);
	if (ret == RFX_OK && (npos < 0 || npos > 4 || multi.n < 0 || multi.n > 64 ||
			      c_val < 0 || c_val > 1 || (b_val != 0 && (b_val < 2 || b_val > 9)) ||
			      r_val < 0 || r_val > 1))
		__builtin_trap();
	for (k = 1; k < argc; k++)
		fuzz_opt_word(argv[k], 1 + (int)(size % 8));
	free(buf);
	return 0;
}

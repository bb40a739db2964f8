/*
 * rfx merge OUT.h5 SHARD...: checks that the shard files written by
 * `rfx CMD ... -o FILE --shard i/N` belong to one run (the same serial
 * command line, seed, generator, version and commit, all N shards once,
 * every cell of the sweep exactly once) and that this rfx is the build
 * that wrote them, then replays the serial command with the sweep's
 * cells taken from the shards (cli/dist.c): OUT.h5 and stdout are the
 * serial run's, byte for byte.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmds.h"
#include "dist.h"
#include "num/isa.h"
#include "opt.h"
#include "output.h"

static const char usage[] = "[--check] OUT.h5 SHARD...";
static const char summary[] =
	"Writes OUT.h5 (and prints the tables) from the shard files of one\n"
	"run made with --shard i/N, exactly as the serial run would have.";

/* The first attribute in which b differs from a, or NULL. */
static const char *differs(const struct rfx_shard *a, const struct rfx_shard *b)
{
	if (strcmp(a->command, b->command))
		return "command line";
	if (strcmp(a->seed, b->seed) || strcmp(a->rng, b->rng))
		return "seed";
	if (strcmp(a->version, b->version))
		return "version";
	if (strcmp(a->commit, b->commit))
		return "commit";
	if (a->count != b->count)
		return "shard count";
	return NULL;
}

/* Whether sweep K is the same sweep in both. */
static int same_sweep(const struct rfx_shard_sweep *a,
		      const struct rfx_shard_sweep *b)
{
	return !strcmp(a->experiment, b->experiment) && a->ncells == b->ncells &&
	       a->cell_size == b->cell_size;
}

/*
 * Every cell of sweep K in exactly one shard (K below every shard's
 * count of sweeps).
 */
static int check_cells(const struct rfx_shard *s, const char *const *path,
		       int n, int K)
{
	const struct rfx_shard_sweep *w0 = &s[0].sweeps[K];
	int *from = malloc((w0->ncells ? w0->ncells : 1) * sizeof(int)), q;
	int ret = RFX_EXIT_OK;
	uint64_t k;
	size_t j;

	if (!from)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	for (k = 0; k < w0->ncells; k++)
		from[k] = -1;
	for (q = 0; q < n && !ret; q++) {
		const struct rfx_shard_sweep *w = &s[q].sweeps[K];

		if (!same_sweep(w0, w)) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "'%s' and '%s' are shards of different runs (sweep %d differs)",
					   path[0], path[q], K);
			break;
		}
		for (j = 0; j < w->nown && !ret; j++) {
			uint64_t c = w->cells[j];

			if (from[c] >= 0)
				ret = rfx_cli_fail(RFX_EXIT_FAIL,
						   "cell %" PRIu64 " of sweep '%s' is in both '%s' and '%s'",
						   c, w0->experiment, path[from[c]], path[q]);
			from[c] = q;
		}
	}
	for (k = 0; k < w0->ncells && !ret; k++)
		if (from[k] < 0)
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "cell %" PRIu64 " of sweep '%s' is in no shard",
					   k, w0->experiment);
	free(from);
	return ret;
}

/*
 * The BLAS's and rfx's kernels decide the last bits (lib/num/isa.h), so
 * shards computed with other kernels than this process's, which replays
 * the rest of the run, give a file that may differ from a serial run's
 * in the last bits. Said on one line, not refused: the results agree to
 * rounding, and a login node may well have another CPU than the compute
 * nodes (OPENBLAS_CORETYPE sets the kernels alike).
 */
static void note_blas(const struct rfx_shard *s, const char *const *path,
		      int n)
{
	const char *mine = rfx_isa_describe();
	int q;

	for (q = 0; q < n; q++)
		if (s[q].blas && strcmp(s[q].blas, mine)) {
			rfx_cli_warn("'%s' was computed with kernels '%s', this merge runs '%s': the output may differ from a serial run's in the last bits",
				     path[q], s[q].blas, mine);
			return;
		}
}

static int check(struct rfx_shard *s, const char *const *path, int n,
		 const struct rfx_cli *cli)
{
	int *by_index, q, K, nsw = s[0].nsweeps, ret = RFX_EXIT_OK;

	for (q = 1; q < n; q++) {
		const char *what = differs(&s[0], &s[q]);

		if (what)
			return rfx_cli_fail(RFX_EXIT_FAIL,
					    "'%s' and '%s' are shards of different runs (%s differs)",
					    path[0], path[q], what);
		nsw = s[q].nsweeps < nsw ? s[q].nsweeps : nsw;
	}
	if (strcmp(s[0].version, cli->version) || strcmp(s[0].commit, cli->commit))
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "'%s' was written by rfx %s (commit %s), this is %s (commit %s): merge with the build that ran the shards",
				    path[0], s[0].version, s[0].commit, cli->version,
				    cli->commit);
	by_index = malloc((size_t)s[0].count * sizeof(int));
	if (!by_index)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	for (q = 0; q < s[0].count; q++)
		by_index[q] = -1;
	for (q = 0; q < n && !ret; q++) {
		if (by_index[s[q].index] >= 0)
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "'%s' and '%s' are both shard %d/%d",
					   path[by_index[s[q].index]], path[q],
					   s[q].index, s[q].count);
		by_index[s[q].index] = q;
	}
	for (q = 0; q < s[0].count && !ret; q++)
		if (by_index[q] < 0)
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "shard %d/%d of '%s' is missing", q,
					   s[0].count, s[0].command);
	free(by_index);
	/* the sweeps every shard computed; the replay computes the rest */
	for (K = 0; K < nsw && !ret; K++)
		ret = check_cells(s, path, n, K);
	return ret;
}

/*
 * The shard that OUT names (through links of either kind), or -1. Merging
 * into a shard would replace it: `rfx merge v.h5.shard-0-of-3 v.h5.shard-*`
 * destroyed shard 0 and wrote the merge in its place.
 */
static int out_is_shard(const char *out, const char *const *path, int n)
{
	struct stat so, ss;
	int q;

	if (stat(out, &so) < 0)
		return -1;
	for (q = 0; q < n; q++)
		if (stat(path[q], &ss) == 0 && ss.st_dev == so.st_dev &&
		    ss.st_ino == so.st_ino)
			return q;
	return -1;
}

int cmd_merge(int argc, char **argv, const struct rfx_cli *cli)
{
	int only_check = 0;
	struct rfx_opt opts[] = {
		{ "check", 0, RFX_OPT_FLAG, &only_check, NULL,
		  "only check that the shards make one complete run; write nothing (default off)",
		  0 },
		RFX_OPTION_END
	};
	const char *pos[4096];
	struct rfx_shard *s = NULL;
	struct rfx_err err;
	int npos, help, ret, q, n;

	ret = rfx_cli_parse("merge", usage, summary, opts, argc, argv, pos,
			    (int)(sizeof(pos) / sizeof(pos[0])), &npos, &help);
	if (ret || help)
		return ret;
	if (npos < 2)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "merge needs OUT.h5 and at least one shard (usage: %s)",
				    usage);
	n = npos - 1;
	if (!only_check && (q = out_is_shard(pos[0], pos + 1, n)) >= 0)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "OUT.h5 '%s' is the shard '%s': merge would replace it (usage: %s)",
				    pos[0], pos[q + 1], usage);
	/* then the rules of every -o FILE.h5: out.csv would get HDF5 */
	if (!only_check && rfx_out_check_name(pos[0], rfx_out_h5_suffixes, "HDF5"))
		return RFX_EXIT_USAGE;
	s = calloc((size_t)n, sizeof(*s));
	if (!s)
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	rfx_err_clear(&err);
	for (q = 0; q < n; q++)
		if (rfx_shard_read(pos[q + 1], &s[q], &err)) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
			goto out;
		}
	ret = check(s, pos + 1, n, cli);
	if (!ret)
		note_blas(s, pos + 1, n);
	if (!ret && !only_check)
		ret = rfx_dist_replay(s, n, pos[0], cli);
out:
	for (q = 0; q < n; q++)
		rfx_shard_release(&s[q]);
	free(s);
	return ret;
}

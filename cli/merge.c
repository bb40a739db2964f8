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

#include "cmds.h"
#include "dist.h"
#include "opt.h"
#include "output.h"

static const char usage[] = "rfx merge OUT.h5 SHARD...";
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
	if (strcmp(a->experiment, b->experiment) || a->ncells != b->ncells ||
	    a->cell_size != b->cell_size)
		return "sweep";
	return NULL;
}

static int check(struct rfx_shard *s, const char *const *path, int n,
		 const struct rfx_cli *cli)
{
	int *by_index = NULL, q, ret = RFX_EXIT_FAIL;
	int *cell_from = NULL;
	uint64_t k;
	size_t j;

	for (q = 1; q < n; q++) {
		const char *what = differs(&s[0], &s[q]);

		if (what)
			return rfx_cli_fail(RFX_EXIT_FAIL,
					    "'%s' and '%s' are shards of different runs (%s differs)",
					    path[0], path[q], what);
	}
	if (strcmp(s[0].version, cli->version) || strcmp(s[0].commit, cli->commit))
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "'%s' was written by rfx %s (commit %s), this is %s (commit %s): merge with the build that ran the shards",
				    path[0], s[0].version, s[0].commit, cli->version,
				    cli->commit);
	by_index = malloc((size_t)s[0].count * sizeof(int));
	cell_from = malloc((s[0].ncells ? s[0].ncells : 1) * sizeof(int));
	if (!by_index || !cell_from) {
		ret = rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
		goto out;
	}
	for (q = 0; q < s[0].count; q++)
		by_index[q] = -1;
	for (k = 0; k < s[0].ncells; k++)
		cell_from[k] = -1;
	for (q = 0; q < n; q++) {
		if (by_index[s[q].index] >= 0) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "'%s' and '%s' are both shard %d/%d",
					   path[by_index[s[q].index]], path[q],
					   s[q].index, s[q].count);
			goto out;
		}
		by_index[s[q].index] = q;
		for (j = 0; j < s[q].nown; j++) {
			uint64_t c = s[q].cells[j];

			if (cell_from[c] >= 0) {
				ret = rfx_cli_fail(RFX_EXIT_FAIL,
						   "cell %" PRIu64 " is in both '%s' and '%s'",
						   c, path[cell_from[c]], path[q]);
				goto out;
			}
			cell_from[c] = q;
		}
	}
	for (q = 0; q < s[0].count; q++)
		if (by_index[q] < 0) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "shard %d/%d of '%s' is missing", q,
					   s[0].count, s[0].command);
			goto out;
		}
	for (k = 0; k < s[0].ncells; k++)
		if (cell_from[k] < 0) {
			ret = rfx_cli_fail(RFX_EXIT_FAIL,
					   "cell %" PRIu64 " of sweep '%s' is in no shard",
					   k, s[0].experiment);
			goto out;
		}
	ret = RFX_EXIT_OK;
out:
	free(by_index);
	free(cell_from);
	return ret;
}

int cmd_merge(int argc, char **argv, const struct rfx_cli *cli)
{
	struct rfx_opt opts[] = { RFX_OPTION_END };
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
		ret = rfx_dist_replay(s, n, pos[0], cli);
out:
	for (q = 0; q < n; q++)
		rfx_shard_release(&s[q]);
	free(s);
	return ret;
}

/*
 * The runners behind mpirun, --shard and rfx merge (see dist.h). Every
 * mode partitions a sweep with the same cost-balanced rule of
 * lib/base/cells.c and lets lib/base/cells.c compute the cells it owns;
 * the modes differ only in where the other cells' results come from (MPI
 * ranks, shard files) or go to (a shard file), and in which process
 * writes. Compiled with RFX_MPI in the MPI build (make MPI=1) only; the
 * ordinary build has the shard and merge modes and no MPI at all.
 */
#include "dist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef RFX_MPI
#include <mpi.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/cancel.h"
#include "base/cells.h"
#include "base/rng.h"
#include "num/isa.h"
#include "output.h"

enum mode { MODE_SERIAL, MODE_MPI, MODE_SHARD, MODE_REPLAY };

static struct {
	enum mode mode;
	int rank, size;                 /* MPI */
	int shard_i, shard_n;           /* --shard i/N; shard_n 0 without */
	const char *output;             /* -o FILE, named after by the shard */
	const struct rfx_cli *cli;
	int sweeps;                     /* rfx_cells_run calls so far */
	struct rfx_shard_sweep *sw;     /* --shard: the shares computed */
	int nsw;
	int err_fd;                     /* --shard: stderr, once it is muted */
	const struct rfx_shard *rs;     /* replay: the shards */
	int rn;
	const char *replay_out;
} D = { MODE_SERIAL, 0, 1, 0, 0, NULL, NULL, 0, NULL, 0, -1, NULL, 0, NULL };

/* Commands that are not experiments: no --shard, no runner. */
static const char *const plain_cmds[] = { "dump", "help", "version", "merge",
					  NULL };

static int is_plain(const char *cmd)
{
	int k;

	for (k = 0; plain_cmds[k]; k++)
		if (!strcmp(cmd, plain_cmds[k]))
			return 1;
	return 0;
}

static int parse_shard(const char *v)
{
	const char *nv;
	char *end;
	long i, n;

	i = strtol(v, &end, 10);
	if (end == v || *end != '/')
		goto bad;
	nv = end + 1;
	n = strtol(nv, &end, 10);
	if (end == nv || *end || n < 1 || n > 1000000 || i < 0 || i >= n)
		goto bad;
	D.shard_i = (int)i;
	D.shard_n = (int)n;
	return RFX_EXIT_OK;
bad:
	return rfx_cli_fail(RFX_EXIT_USAGE,
			    "--shard must be i/N with 0 <= i < N, got '%s'", v);
}

int rfx_dist_args(const char *cmd, int *argc, char **argv)
{
	int i, j, ret, nshard = 0;

	if (is_plain(cmd))
		return RFX_EXIT_OK;
	for (i = 2; i < *argc; i++) {
		const char *a = argv[i], *val = NULL;
		int take = 0;

		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--shard")) {
			if (i + 1 >= *argc)
				return rfx_cli_fail(RFX_EXIT_USAGE,
						    "option '--shard' needs a value");
			val = argv[i + 1];
			take = 2;
		} else if (!strncmp(a, "--shard=", 8)) {
			val = a + 8;
			take = 1;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) &&
			   i + 1 < *argc) {
			D.output = argv[++i];
			continue;
		} else if (!strncmp(a, "--output=", 9)) {
			D.output = a + 9;
			continue;
		} else {
			continue;
		}
		if (nshard++)
			return rfx_cli_fail(RFX_EXIT_USAGE, "--shard given twice");
		ret = parse_shard(val);
		if (ret)
			return ret;
		for (j = i; j + take <= *argc; j++)
			argv[j] = argv[j + take];
		*argc -= take;
		i--;
	}
	if (D.shard_n && !D.output)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "--shard needs -o FILE (the shard goes to FILE.shard-I-of-N)");
	return RFX_EXIT_OK;
}

/* The cells of part p of the partition of c into nparts, increasing. */
static size_t *owned(const struct rfx_cells *c, int nparts, int p, int **owner,
		     size_t *nown, struct rfx_err *err)
{
	size_t i, k = 0, *list;
	int *o = malloc((c->n ? c->n : 1) * sizeof(int));

	if (!o) {
		rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells", c->n);
		return NULL;
	}
	if (rfx_cells_partition(c, nparts, o, err)) {
		free(o);
		return NULL;
	}
	list = malloc((c->n ? c->n : 1) * sizeof(size_t));
	if (!list) {
		free(o);
		rfx_error(err, RFX_ENOMEM, "out of memory for %zu cells", c->n);
		return NULL;
	}
	for (i = 0; i < c->n; i++)
		if (o[i] == p)
			list[k++] = i;
	*nown = k;
	if (owner)
		*owner = o;
	else
		free(o);
	return list;
}

static void shard_meta(struct rfx_shard *s, char *seed, size_t n)
{
	uint64_t v;

	memset(s, 0, sizeof(*s));
	s->index = D.shard_i;
	s->count = D.shard_n;
	s->command = (char *)D.cli->command_line;
	s->argc = D.cli->argc;
	s->argv = D.cli->argv;
	s->version = (char *)D.cli->version;
	s->commit = (char *)D.cli->commit;
	if (rfx_seed_noted(&v))
		snprintf(seed, n, "%" PRIu64, v);
	else
		snprintf(seed, n, "none");
	s->seed = seed;
	s->rng = (char *)rfx_rng_type()->name;
	s->blas = (char *)rfx_isa_describe();
	s->nsweeps = D.nsw;
	s->sweeps = D.sw;
}

static int write_shard(struct rfx_shard *s, struct rfx_err *err)
{
	size_t len = strlen(D.output) + 64;
	char *path = malloc(len);
	int ret;

	if (!path)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	snprintf(path, len, "%s.shard-%d-of-%d", D.output, D.shard_i, D.shard_n);
	ret = rfx_shard_write(path, s, err);
	free(path);
	return ret;
}

/* Writes the shard of the sweeps so far and ends the process. */
static void shard_done(void)
{
	struct rfx_shard s;
	struct rfx_err err;
	char seed[32];

	rfx_err_clear(&err);
	shard_meta(&s, seed, sizeof(seed));
	if (write_shard(&s, &err)) {
		if (D.err_fd >= 0)
			dprintf(D.err_fd, "rfx: %s\n", err.msg);
		else
			rfx_cli_fail(RFX_EXIT_FAIL, "%s", err.msg);
		exit(RFX_EXIT_FAIL);
	}
	fflush(stdout);
	exit(RFX_EXIT_OK);
}

/*
 * --shard: computes this shard's cells of the sweep and keeps them for
 * the shard file; the other cells stay zero. The command then goes on
 * with incomplete results, so its output and messages are muted from
 * here, and it stops (writing the shard) at a sweep whose inputs may
 * come from those results.
 */
static int shard_run(void *rctx, const struct rfx_cells *c, struct rfx_err *err)
{
	struct rfx_shard_sweep *w, *grown;
	size_t nown = 0, k;
	size_t *list;
	int ret;

	(void)rctx;
	if (D.nsw > 0 && !c->standalone)
		shard_done();
	list = owned(c, D.shard_n, D.shard_i, NULL, &nown, err);
	if (!list)
		return err->code;
	ret = rfx_cells_compute(c, list, nown, err);
	grown = ret ? NULL : realloc(D.sw, ((size_t)D.nsw + 1) * sizeof(*D.sw));
	if (!ret && !grown)
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
	if (ret) {
		free(list);
		return ret;
	}
	D.sw = grown;
	w = &D.sw[D.nsw];
	memset(w, 0, sizeof(*w));
	w->experiment = (char *)c->name;
	w->ncells = c->n;
	w->cell_size = c->size;
	w->nown = nown;
	w->cells = malloc((nown ? nown : 1) * sizeof(*w->cells));
	w->data = malloc(nown ? nown * c->size : 1);
	if (!w->cells || !w->data) {
		free(list);
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	}
	D.nsw++;
	for (k = 0; k < nown; k++) {
		w->cells[k] = list[k];
		memcpy(w->data + k * c->size, (char *)c->out + list[k] * c->size,
		       c->size);
	}
	memset(c->out, 0, c->n * c->size);
	free(list);
	if (D.err_fd < 0) {
		fflush(stderr);
		D.err_fd = dup(STDERR_FILENO);
		if (!freopen("/dev/null", "w", stderr))
			shard_done();
	}
	return RFX_OK;
}

/*
 * rfx merge: the sweeps all shards computed come from the shards, in
 * order; later ones are computed here.
 */
static int replay_run(void *rctx, const struct rfx_cells *c, struct rfx_err *err)
{
	const struct rfx_shard *s = D.rs;
	const struct rfx_shard_sweep *w;
	int q, K = D.sweeps++;
	size_t k;

	(void)rctx;
	for (q = 0; q < D.rn; q++)
		if (K >= s[q].nsweeps)
			return rfx_cells_compute(c, NULL, c->n, err);
	w = &s[0].sweeps[K];
	if (strcmp(c->name, w->experiment) || c->n != w->ncells ||
	    c->size != w->cell_size)
		return rfx_error(err, RFX_EFORMAT,
				 "shards hold sweep '%s' of %" PRIu64 " cells of %" PRIu64
				 " bytes, the command runs '%s' of %zu cells of %zu bytes",
				 w->experiment, w->ncells, w->cell_size, c->name,
				 c->n, c->size);
	for (q = 0; q < D.rn; q++) {
		w = &s[q].sweeps[K];
		for (k = 0; k < w->nown; k++)
			memcpy((char *)c->out + w->cells[k] * c->size,
			       w->data + k * c->size, c->size);
	}
	return RFX_OK;
}

#ifdef RFX_MPI
/*
 * This rank's cells, in rounds of one cell per thread at first, doubled
 * while a round takes under a quarter of a second. A rank that fails (or
 * is interrupted) raises a flag in every other rank's window, and they
 * stop after their current round instead of finishing their share: the
 * run ends a cell or a fraction of a second after the failure.
 */
static int compute_share(const struct rfx_cells *c, const size_t *list,
			 size_t nown, struct rfx_err *err)
{
	struct rfx_cells part = *c;
	size_t round = 1, pos, n = 0;
	int *flag = NULL, one = 1, r, ret = RFX_OK;
	MPI_Win win;

#ifdef _OPENMP
	round *= (size_t)omp_get_max_threads();
#endif
	part.progress = NULL;
	MPI_Win_allocate((MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL,
			 MPI_COMM_WORLD, &flag, &win);
	*flag = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
	for (pos = 0; pos < nown && !ret; pos += n) {
		n = nown - pos < round ? nown - pos : round;

		double t0 = MPI_Wtime();

		MPI_Win_sync(win);
		if (*(volatile int *)flag)
			break;
		ret = rfx_cells_compute(&part, list + pos, n, err);
		/* short rounds cost a parallel region each: grow them to ~0.25 s */
		if (MPI_Wtime() - t0 < 0.25)
			round *= 2;
		if (ret) {
			for (r = 0; r < D.size; r++)
				if (r != D.rank)
					MPI_Put(&one, 1, MPI_INT, r, 0, 1, MPI_INT, win);
			MPI_Win_flush_all(win);
		} else if (c->progress) {
			c->progress(c->progress_ctx, (int)(pos + n), (int)nown);
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	return ret;
}

/*
 * mpirun: this rank's cells, then one agreement on failure (the lowest
 * failing rank's error, on every rank) and one all-gather of the results.
 */
static int mpi_run(void *rctx, const struct rfx_cells *c, struct rfx_err *err)
{
	size_t nown = 0, k, i;
	int *owner = NULL, *counts = NULL, *displs = NULL, *pos = NULL;
	size_t *list;
	char *send = NULL, *recv = NULL;
	int ret, fail, first, r;
	double t0 = MPI_Wtime(), t1, t2;
	MPI_Datatype cell = MPI_DATATYPE_NULL;

	(void)rctx;
	D.sweeps++;
	list = owned(c, D.size, D.rank, &owner, &nown, err);
	ret = list ? compute_share(c, list, nown, err) : err->code;
	t1 = MPI_Wtime();
	fail = ret ? D.rank : D.size;
	MPI_Allreduce(&fail, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first < D.size) {
		MPI_Bcast(err, (int)sizeof(*err), MPI_BYTE, first, MPI_COMM_WORLD);
		ret = err->code ? err->code : RFX_EINTR;
		goto out;
	}
	if (c->size > (size_t)INT32_MAX || c->n > (size_t)INT32_MAX) {
		ret = rfx_error(err, RFX_EINVAL, "sweep '%s' too large to gather",
				c->name);
		goto out;
	}
	counts = calloc((size_t)D.size, sizeof(int));
	displs = calloc((size_t)D.size, sizeof(int));
	pos = calloc((size_t)D.size, sizeof(int));
	send = malloc(nown ? nown * c->size : 1);
	recv = malloc(c->n ? c->n * c->size : 1);
	fail = !counts || !displs || !pos || !send || !recv;
	MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (fail) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory gathering '%s'",
				c->name);
		goto out;
	}
	for (i = 0; i < c->n; i++)
		counts[owner[i]]++;
	for (r = 1; r < D.size; r++)
		displs[r] = displs[r - 1] + counts[r - 1];
	for (k = 0; k < nown; k++)
		memcpy(send + k * c->size, (char *)c->out + list[k] * c->size,
		       c->size);
	MPI_Type_contiguous((int)c->size, MPI_BYTE, &cell);
	MPI_Type_commit(&cell);
	MPI_Allgatherv(send, (int)nown, cell, recv, counts, displs, cell,
		       MPI_COMM_WORLD);
	/* cells of each rank arrive in increasing order */
	for (r = 0; r < D.size; r++)
		pos[r] = displs[r];
	for (i = 0; i < c->n; i++)
		memcpy((char *)c->out + i * c->size,
		       recv + (size_t)pos[owner[i]]++ * c->size, c->size);
	t2 = MPI_Wtime();
	if (D.rank == 0 && getenv("RFX_DIST_STATS"))
		fprintf(stderr,
			"rfx: mpi: sweep '%s': %zu cells of %zu bytes on %d ranks; "
			"rank 0 computed %zu in %.3f s, gathered in %.3f s; "
			"%zu bytes to each rank, %zu per cell\n",
			c->name, c->n, c->size, D.size, nown, t1 - t0, t2 - t1,
			(c->n - nown) * c->size, c->size);
	ret = RFX_OK;
out:
	if (cell != MPI_DATATYPE_NULL)
		MPI_Type_free(&cell);
	free(list);
	free(owner);
	free(counts);
	free(displs);
	free(pos);
	free(send);
	free(recv);
	return ret;
}

static int launched_by_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
	       getenv("PMI_RANK");
}

/*
 * Rank 0 compares every rank's kernels (num/isa.h) with its own and says
 * on one line which rank first differs, as rfx merge does for shards:
 * the cells that rank computes round otherwise, so the run agrees with a
 * serial one to rounding only. Not refused (a heterogeneous allocation
 * still gives right results); OPENBLAS_CORETYPE and like CPUs avoid it.
 */
#define ISA_LINE 512

static void note_kernels(void)
{
	char mine[ISA_LINE] = { 0 }, first[ISA_LINE] = { 0 };
	int r, odd;

	snprintf(mine, sizeof(mine), "%s", rfx_isa_describe());
	memcpy(first, mine, ISA_LINE);
	MPI_Bcast(first, ISA_LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
	r = strcmp(first, mine) ? D.rank : D.size;
	MPI_Allreduce(&r, &odd, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (odd == D.size)
		return;
	if (D.rank == odd)
		MPI_Send(mine, ISA_LINE, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
	else if (D.rank == 0) {
		MPI_Recv(first, ISA_LINE, MPI_CHAR, odd, 0, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		first[ISA_LINE - 1] = '\0';
		rfx_cli_warn("rank %d runs kernels '%s', rank 0 '%s': the output may differ from a serial run's in the last bits",
			     odd, first, mine);
	}
}
#endif

int rfx_dist_start(const struct rfx_cli *cli)
{
	struct rfx_cells_runner r = { NULL, NULL };

	D.cli = cli;
#ifdef RFX_MPI
	if (launched_by_mpirun()) {
		int provided;

		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) !=
		    MPI_SUCCESS)
			return rfx_cli_fail(RFX_EXIT_FAIL, "cannot start MPI");
		MPI_Comm_rank(MPI_COMM_WORLD, &D.rank);
		MPI_Comm_size(MPI_COMM_WORLD, &D.size);
		D.mode = MODE_MPI;
		if (D.rank != 0 && (!freopen("/dev/null", "w", stdout) ||
				    !freopen("/dev/null", "w", stderr)))
			return RFX_EXIT_FAIL;
		note_kernels();
		if (D.shard_n)
			return rfx_cli_fail(RFX_EXIT_USAGE,
					    "--shard is for separate jobs, not under mpirun");
		r.run = mpi_run;
		rfx_cells_set_runner(&r);
		return RFX_EXIT_OK;
	}
#endif
	if (D.shard_n) {
		D.mode = MODE_SHARD;
		if (!freopen("/dev/null", "w", stdout))
			return rfx_cli_fail(RFX_EXIT_FAIL, "cannot reopen standard output");
		r.run = shard_run;
		rfx_cells_set_runner(&r);
	}
	return RFX_EXIT_OK;
}

int rfx_dist_finish(int ret)
{
	/*
	 * A shard ends here after its last sweep, or without any (the shard
	 * records the run only). After a sweep the command ran on incomplete
	 * results, so its status is not the shard's, unless interrupted.
	 */
	if (D.mode == MODE_SHARD && !rfx_cancel_requested() &&
	    (ret == RFX_EXIT_OK || D.nsw > 0))
		shard_done();
#ifdef RFX_MPI
	if (D.mode == MODE_MPI) {
		int all;

		/* every rank leaves with the same status, signals included */
		MPI_Allreduce(&ret, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		MPI_Finalize();
		ret = all;
	}
#endif
	return ret;
}

int rfx_dist_writer(void)
{
	if (D.mode == MODE_SHARD)
		return 0;
	return D.rank == 0;
}

const char *rfx_dist_output(const char *path)
{
	return D.mode == MODE_REPLAY && path ? D.replay_out : path;
}

int rfx_dist_replay(const struct rfx_shard *s, int n, const char *out,
		    const struct rfx_cli *cli)
{
	struct rfx_cells_runner r = { replay_run, NULL };
	struct rfx_cli c2 = *cli;
	int ret;

	D.mode = MODE_REPLAY;
	D.rs = s;
	D.rn = n;
	D.replay_out = out;
	D.sweeps = 0;
	c2.command_line = s[0].command;
	c2.argc = s[0].argc;
	c2.argv = s[0].argv;
	rfx_cells_set_runner(&r);
	ret = rfx_cli_dispatch(s[0].argc - 1, s[0].argv + 1, &c2);
	rfx_cells_set_runner(NULL);
	D.mode = MODE_SERIAL;
	return ret;
}

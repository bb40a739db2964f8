/*
 * Shard files (lib/io/shard.h): a shard with two sweeps and one without
 * any read back exactly as written (argv with an empty and a spaced
 * argument, cell indices, bytes); a bad index, cells out of order or out
 * of range are refused before anything is written; files that are not
 * shards are refused with their name.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "io/h5out.h"
#include "io/shard.h"
#include "io/table.h"

static char dir[] = "/tmp/t_shard.XXXXXX";

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

int main(void)
{
	char *argv[] = { "rfx", "variance", "", "a b", NULL };
	uint64_t c0[2] = { 1, 4 }, c1[1] = { 0 }, bad[2] = { 4, 1 };
	unsigned char d0[6] = { 1, 2, 3, 4, 5, 6 }, d1[4] = { 9, 8, 7, 6 };
	struct rfx_shard_sweep sw[2] = {
		{ "variance", 5, 3, 2, c0, d0 },
		{ "second", 2, 4, 1, c1, d1 },
	};
	struct rfx_shard s = { 1, 3, "rfx variance '' 'a b'", 4, argv, "0.1.0",
			       "abc1234", "20221121", "xoshiro256**", "OpenBLAS x",
			       2, sw };
	struct rfx_shard r;
	struct rfx_err err;
	char p[256];
	int good, k;
	FILE *f;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (!mkdtemp(dir))
		return printf("Bail out! no temporary directory\n"), 1;

	path_of(p, sizeof(p), "a.shard");
	ok(rfx_shard_write(p, &s, &err) == RFX_OK, "a shard of two sweeps is written");
	ok(rfx_shard_read(p, &r, &err) == RFX_OK, "and read back");
	good = r.index == 1 && r.count == 3 && r.argc == 4 &&
	       !strcmp(r.command, s.command) && !strcmp(r.version, "0.1.0") &&
	       !strcmp(r.commit, "abc1234") && !strcmp(r.seed, "20221121") &&
	       !strcmp(r.rng, "xoshiro256**") && r.blas &&
	       !strcmp(r.blas, "OpenBLAS x") && r.nsweeps == 2;
	for (k = 0; good && k < 4; k++)
		good = !strcmp(r.argv[k], argv[k]);
	ok(good, "provenance and argv (an empty and a spaced argument) survive");
	good = r.nsweeps == 2 && !strcmp(r.sweeps[0].experiment, "variance") &&
	       r.sweeps[0].ncells == 5 && r.sweeps[0].cell_size == 3 &&
	       r.sweeps[0].nown == 2 && r.sweeps[0].cells[0] == 1 &&
	       r.sweeps[0].cells[1] == 4 && !memcmp(r.sweeps[0].data, d0, 6) &&
	       !strcmp(r.sweeps[1].experiment, "second") &&
	       r.sweeps[1].nown == 1 && !memcmp(r.sweeps[1].data, d1, 4);
	ok(good, "each sweep's cells and bytes survive");
	rfx_shard_release(&r);
	ok(r.argv == NULL && r.sweeps == NULL, "release zeroes the shard");

	s.nsweeps = 0;
	s.blas = NULL;
	path_of(p, sizeof(p), "none.shard");
	ok(rfx_shard_write(p, &s, &err) == RFX_OK && rfx_shard_read(p, &r, &err) == RFX_OK &&
		   r.nsweeps == 0 && r.blas == NULL,
	   "a shard without sweeps (a command without cells) nor BLAS");
	rfx_shard_release(&r);
	s.nsweeps = 2;
	s.blas = "OpenBLAS x";

	path_of(p, sizeof(p), "bad.shard");
	s.index = 3;
	ok(rfx_shard_write(p, &s, &err) == RFX_EINVAL && access(p, F_OK) != 0,
	   "index 3 of 3 is refused: %s", err.msg);
	s.index = 1;
	sw[0].cells = bad;
	ok(rfx_shard_write(p, &s, &err) == RFX_EINVAL && access(p, F_OK) != 0,
	   "cells out of order are refused: %s", err.msg);
	c0[1] = 5;
	sw[0].cells = c0;
	ok(rfx_shard_write(p, &s, &err) == RFX_EINVAL && access(p, F_OK) != 0,
	   "a cell beyond the sweep is refused: %s", err.msg);

	path_of(p, sizeof(p), "text");
	f = fopen(p, "w");
	fputs("not hdf5\n", f);
	fclose(f);
	ok(rfx_shard_read(p, &r, &err) == RFX_EIO && strstr(err.msg, "text"),
	   "a text file: %s", err.msg);
	rfx_shard_release(&r);
	{
		struct rfx_h5out *o;

		path_of(p, sizeof(p), "plain.h5");
		o = rfx_h5out_open(p, &err);
		ok(o && rfx_h5out_attr(o, "version", "0.1.0", &err) == RFX_OK &&
			   rfx_h5out_commit(o, &err) == RFX_OK,
		   "an ordinary rfx file");
		ok(rfx_shard_read(p, &r, &err) == RFX_EFORMAT &&
			   strstr(err.msg, "not an rfx shard"),
		   "is not a shard: %s", err.msg);
		rfx_shard_release(&r);
	}
	path_of(p, sizeof(p), "missing.h5");
	ok(rfx_shard_read(p, &r, &err) == RFX_EIO, "a missing file: %s", err.msg);
	rfx_shard_release(&r);

	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			diag("could not remove %s", dir);
	}
	return done_testing();
}

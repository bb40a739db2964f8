/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c) and their replay
 * in make check (tests/t_fuzz.c): the loaders under test read files by
 * path, so each input is written to a file in a private temporary
 * directory first. The directory is made once per process and removed at
 * exit; the targets are single-threaded, as libFuzzer runs them.
 */
#ifndef RFX_FUZZ_UTIL_H
#define RFX_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[64];     /* the temporary directory, "" until made */
static char fuzz_names[32][64]; /* files written into it, for the cleanup */
static int fuzz_nnames;

static void fuzz_cleanup(void)
{
	char path[160];
	int k;

	for (k = 0; k < fuzz_nnames; k++) {
		snprintf(path, sizeof(path), "%.63s/%.63s", fuzz_dir, fuzz_names[k]);
		unlink(path);
	}
	if (fuzz_dir[0])
		rmdir(fuzz_dir);
}

/*
 * Writes size bytes to <dir>/<name> (replacing it) and returns the
 * directory, or NULL if the file system refuses (the caller skips the
 * input: it says nothing about rfx).
 */
static const char *fuzz_write(const char *name, const uint8_t *data,
			      size_t size)
{
	char path[160];
	int fd, k, known = 0;
	size_t done = 0;

	if (!fuzz_dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/rfx_fuzz.XXXXXX",
			 t && strlen(t) < 32 ? t : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			fuzz_dir[0] = '\0';
			return NULL;
		}
		atexit(fuzz_cleanup);
	}
	for (k = 0; k < fuzz_nnames; k++)
		known |= !strcmp(fuzz_names[k], name);
	if (!known && fuzz_nnames < 32 && strlen(name) < sizeof(fuzz_names[0]))
		strcpy(fuzz_names[fuzz_nnames++], name);
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return NULL;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);

		if (w <= 0) {
			close(fd);
			return NULL;
		}
		done += (size_t)w;
	}
	close(fd);
	return fuzz_dir;
}

#endif

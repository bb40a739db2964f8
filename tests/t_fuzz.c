/*
 * The fuzz targets of tests/fuzz/ replayed on their corpora, in every
 * build: each file of tests/fuzz/<target>/ (the seeds, and the inputs that
 * once crashed a target, kept as regression tests) goes through the
 * target's entry point. A target traps on a broken contract (an error
 * without a message, a pixel outside [0, 1], ...); a crash, a sanitizer
 * report (make check SANITIZE=1) or a memcheck error (make valgrind) fails
 * the test. libFuzzer itself needs clang: 'make fuzz'.
 */
#include <dirent.h>
#include <errno.h>
#include <gsl/gsl_errno.h>

#include "tap.h"

#define LLVMFuzzerTestOneInput fuzz_dataset_one
#include "fuzz/fuzz_dataset.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_uci_one
#include "fuzz/fuzz_uci.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_idx_one
#include "fuzz/fuzz_idx.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_opt_one
#include "fuzz/fuzz_opt.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_matrix_one
#include "fuzz/fuzz_matrix.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_h5_one
#include "fuzz/fuzz_h5.c"
#undef LLVMFuzzerTestOneInput

/* The option parser lives in cli/, which librfx.a leaves out. */
#include "../cli/opt.c"

static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
	int min;   /* files the corpus must have */
} targets[] = {
	{ "dataset", fuzz_dataset_one, 10 },
	{ "uci", fuzz_uci_one, 10 },
	{ "idx", fuzz_idx_one, 5 },
	{ "opt", fuzz_opt_one, 10 },
	{ "matrix", fuzz_matrix_one, 10 },
	{ "h5", fuzz_h5_one, 10 },
};

/* Reads a whole file; NULL on failure. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(void)
{
	const char *top = getenv("RFX_TOP");
	size_t t;

	gsl_set_error_handler_off();
	if (!top)
		top = ".";
	for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		char dir[4096], path[8192];
		DIR *dp;
		struct dirent *de;
		int nfiles = 0, unread = 0;

		snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s", top, targets[t].name);
		dp = opendir(dir);
		if (!dp) {
			ok(0, "%s: cannot open '%s': %s", targets[t].name, dir,
			   strerror(errno));
			continue;
		}
		while ((de = readdir(dp))) {
			uint8_t *data;
			size_t size;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			data = slurp(path, &size);
			if (!data) {
				unread++;
				continue;
			}
			targets[t].one(data, size);
			free(data);
			nfiles++;
		}
		closedir(dp);
		ok(nfiles >= targets[t].min && !unread,
		   "%s: %d corpus files replayed without a crash (%d unreadable)",
		   targets[t].name, nfiles, unread);
	}
	return done_testing();
}

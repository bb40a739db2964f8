/*
 * OpenBLAS thread-count guard and buffer reservation (see blas.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "num/blas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <cblas.h>


/*
 * OpenBLAS's pool of buffers (exported by it, declared only in its
 * internal common.h). Weak: with another BLAS they are NULL and
 * rfx_blas_reserve has nothing to do.
 */
void *blas_memory_alloc(int procpos) __attribute__((weak));
void blas_memory_free(void *buffer) __attribute__((weak));

/*
 * What OpenBLAS maps per buffer on x86_64: BUFFER_SIZE (32 << 22) plus the
 * page it aligns with (the 134221824 bytes seen in gdb under `ulimit -v`).
 */
#define BUFFER_BYTES (((size_t)32 << 22) + 4096)

/* The most buffers reserved at once (OpenBLAS has NUM_BUFFERS >= 2 x cores). */
#define RESERVE_MAX 64

/*
 * OpenBLAS's core selection (driver/others/dynamic.c of a DYNAMIC_ARCH
 * build): quit forgets the core, init picks one again, reading
 * OPENBLAS_CORETYPE first. Exported, declared only internally; weak, so
 * that without them (another BLAS, a build for one core) nothing is done.
 */
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));

/* Whether rfx_blas_fit_core changed OpenBLAS's core. */
static int core_set;

/* The newest OpenBLAS core whose instructions the CPU and OS support. */
static const char *core_for_cpu(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	/* libgcc counts AVX-512 only when the OS saves its registers (XCR0) */
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512cd") &&
	    __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl"))
		return "SkylakeX";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return "Haswell";
#endif
	return NULL;
}

/*
 * The rank of an Intel-line OpenBLAS core, oldest first; -1 for the others
 * (AMD's, say), which OpenBLAS picks on purpose and rfx leaves alone.
 */
static int core_rank(const char *name)
{
	static const char *const line[] = {
		"prescott", "core2", "penryn", "dunnington", "nehalem",
		"sandybridge", "haswell", "skylakex", "cooperlake",
		"sapphirerapids",
	};
	size_t i;

	for (i = 0; i < sizeof(line) / sizeof(line[0]); i++)
		if (!strcasecmp(name, line[i]))
			return (int)i;
	return -1;
}

int rfx_blas_fit_core(void)
{
	const char *core, *now;

	if (!gotoblas_dynamic_init || !gotoblas_dynamic_quit || core_set ||
	    getenv("OPENBLAS_CORETYPE"))
		return 0;
	core = core_for_cpu();
	now = openblas_get_corename();
	if (!core || !now || core_rank(now) < 0 ||
	    core_rank(now) >= core_rank(core) ||
	    setenv("OPENBLAS_CORETYPE", core, 1) != 0)
		return 0;
	gotoblas_dynamic_quit();
	gotoblas_dynamic_init();
	unsetenv("OPENBLAS_CORETYPE");
	core_set = strcasecmp(openblas_get_corename(), core) == 0;
	return core_set;
}

const char *rfx_blas_describe(void)
{
	static char line[256];

	snprintf(line, sizeof(line), "%s%s", openblas_get_config(),
		 core_set ? " (core set by rfx)" : "");
	return line;
}

int rfx_blas_single_begin(void)
{
	int saved;

	if (openblas_get_parallel() == OPENBLAS_OPENMP)
		return 0;
	saved = openblas_get_num_threads();
	if (saved != 1)
		openblas_set_num_threads(1);
	return saved;
}

void rfx_blas_single_end(int saved)
{
	if (saved > 1)
		openblas_set_num_threads(saved);
}

int rfx_blas_reserve(int nthreads)
{
	static int held; /* buffers OpenBLAS already has from here */
	void *probe[RESERVE_MAX], *buf[RESERVE_MAX];
	int n, k, want;

	if (!blas_memory_alloc || !blas_memory_free)
		return nthreads;
	want = nthreads < RESERVE_MAX ? nthreads : RESERVE_MAX;
	if (want <= held)
		return nthreads;
	/*
	 * Map what OpenBLAS would, as it would (anonymous, private, read and
	 * write), all at once: as many as fit is what it can have. Then hand
	 * the room to OpenBLAS at once, while no other thread allocates.
	 */
	for (k = held; k < want; k++) {
		probe[k] = mmap(NULL, BUFFER_BYTES, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (probe[k] == MAP_FAILED)
			break;
	}
	for (n = held; n < k; n++)
		munmap(probe[n], BUFFER_BYTES);
	/* OpenBLAS fills its first unused slot: hold k to fill k slots */
	for (n = 0; n < k; n++)
		buf[n] = blas_memory_alloc(0);
	for (n = 0; n < k; n++)
		blas_memory_free(buf[n]);
	held = k;
	return k < want ? k : nthreads;
}

int rfx_blas_cells_run(const struct rfx_cells *cells, struct rfx_err *err)
{
	int saved = rfx_blas_single_begin();
	int ret = rfx_cells_run(cells, err);

	rfx_blas_single_end(saved);
	return ret;
}

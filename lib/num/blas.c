/*
 * OpenBLAS thread-count guard and buffer reservation (see blas.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "num/blas.h"

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

/*
 * OpenBLAS thread-count guard (see blas.h).
 */
#include "num/blas.h"

#include <cblas.h>

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

int rfx_blas_cells_run(const struct rfx_cells *cells, struct rfx_err *err)
{
	int saved = rfx_blas_single_begin();
	int ret = rfx_cells_run(cells, err);

	rfx_blas_single_end(saved);
	return ret;
}

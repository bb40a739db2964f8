/*
 * BLAS plumbing: GSL's BLAS calls must reach OpenBLAS, not the reference
 * libgslcblas that libgsl.so itself links (the Makefile puts -lopenblas
 * first so the dynamic linker binds cblas_* there, for libgsl too), and the
 * single-thread guard of lib/num/blas.h must set and restore OpenBLAS's count,
 * around a whole sweep of cells too (rfx_blas_cells_run).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>

#include "tap.h"
#include "num/blas.h"

/*
 * OpenBLAS's own entry points, declared here: its cblas.h and GSL's
 * gsl_cblas.h declare the same cblas_* functions with different types.
 */
int openblas_get_parallel(void);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int n);
char *openblas_get_config(void);
#define OPENBLAS_OPENMP 2

static void test_binding(void)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "cblas_dgemm");

	ok(sym && dladdr(sym, &info) && info.dli_fname &&
		   strstr(info.dli_fname, "openblas") != NULL,
	   "cblas_dgemm, as the dynamic linker resolves it for libgsl, is OpenBLAS's (%s)",
	   sym && dladdr(sym, &info) ? info.dli_fname : "?");
	sym = dlsym(RTLD_DEFAULT, "openblas_get_config");
	ok(sym != NULL, "OpenBLAS is loaded (%s)", sym ? openblas_get_config() : "-");
}

/* A 2 x 2 product through GSL, checked by hand: GSL really calls it. */
static void test_gsl_product(void)
{
	double a[] = { 1, 2, 3, 4 }, b[] = { 5, 6, 7, 8 }, c[4] = { 0 };
	gsl_matrix_view A = gsl_matrix_view_array(a, 2, 2);
	gsl_matrix_view B = gsl_matrix_view_array(b, 2, 2);
	gsl_matrix_view C = gsl_matrix_view_array(c, 2, 2);

	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &A.matrix, &B.matrix,
		       0.0, &C.matrix);
	ok(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50,
	   "gsl_blas_dgemm gives [[19, 22], [43, 50]]");
}

static void test_guard(void)
{
	int saved;

	if (openblas_get_parallel() == OPENBLAS_OPENMP) {
		ok(rfx_blas_single_begin() == 0,
		   "OpenMP OpenBLAS: the guard leaves the thread count alone");
		return;
	}
	openblas_set_num_threads(2);
	saved = rfx_blas_single_begin();
	ok(openblas_get_num_threads() == 1 && saved == 2,
	   "the guard sets OpenBLAS to one thread and remembers 2");
	rfx_blas_single_end(saved);
	ok(openblas_get_num_threads() == 2, "and restores 2 afterwards");
}

/* A cell that records the OpenBLAS thread count it runs under. */
static int count_cell(void *ctx, void *ws, size_t i, void *out,
		      struct rfx_err *err)
{
	(void)ctx;
	(void)ws;
	(void)i;
	(void)err;
	*(int *)out = openblas_get_num_threads();
	return RFX_OK;
}

static void test_cells(void)
{
	enum { N = 6 };
	int seen[N], i, one = 1, openmp = openblas_get_parallel() == OPENBLAS_OPENMP;
	struct rfx_err err;
	struct rfx_cells c = { .name = "t_blas", .n = N, .size = sizeof(int),
			       .out = seen, .compute = count_cell };

	if (!openmp)
		openblas_set_num_threads(2);
	ok(rfx_blas_cells_run(&c, &err) == RFX_OK, "a sweep under the guard");
	for (i = 0; i < N; i++)
		one &= openmp || seen[i] == 1;
	ok(one, "every cell runs with OpenBLAS at one thread");
	ok(openmp || openblas_get_num_threads() == 2,
	   "and the count is restored after the sweep");
}

int main(void)
{
	gsl_set_error_handler_off();
	test_binding();
	test_gsl_product();
	test_guard();
	test_cells();
	return done_testing();
}

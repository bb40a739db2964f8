/*
 * BLAS plumbing: GSL's BLAS calls must reach OpenBLAS, not the reference
 * libgslcblas that libgsl.so itself links (the Makefile puts -lopenblas
 * first so the dynamic linker binds cblas_* there, for libgsl too), and the
 * single-thread guard of lib/num/blas.h must set and restore OpenBLAS's count,
 * around a whole sweep of cells too (rfx_blas_cells_run).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
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
char *openblas_get_corename(void);
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

/*
 * rfx_blas_fit_core: the core it should pick, worked out here from the
 * CPU's features as blas.h states the rule, is the one OpenBLAS runs
 * after it; a user's OPENBLAS_CORETYPE is never overridden; and the
 * products are still right (against a plain triple loop).
 */
static void test_fit_core(void)
{
	char before[64], *env = getenv("OPENBLAS_CORETYPE");
	const char *want = NULL;
	double A[37 * 300], B[300 * 29], C[37 * 29], err = 0.0;
	int i, j, p, ret;

	snprintf(before, sizeof(before), "%s", openblas_get_corename());
	__builtin_cpu_init();
	/* the cores older than SkylakeX, and than Haswell, that it upgrades */
	if (!env && dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init")) {
		static const char *const older[] = {
			"prescott", "core2", "penryn", "dunnington", "nehalem",
			"sandybridge", "haswell",
		};
		int k, rank = -1;

		for (k = 0; k < 7; k++)
			if (!strcasecmp(before, older[k]))
				rank = k;
		if (rank >= 0 && rank < 7 && __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("avx512cd") &&
		    __builtin_cpu_supports("avx512bw") &&
		    __builtin_cpu_supports("avx512dq") &&
		    __builtin_cpu_supports("avx512vl"))
			want = "SkylakeX";
		else if (rank >= 0 && rank < 6 &&
			 __builtin_cpu_supports("avx2") &&
			 __builtin_cpu_supports("fma"))
			want = "Haswell";
	}
	setenv("OPENBLAS_CORETYPE", before, 1);
	ret = rfx_blas_fit_core();
	ok(ret == 0 && !strcmp(openblas_get_corename(), before),
	   "OPENBLAS_CORETYPE set: the core stays %s", before);
	if (!env)
		unsetenv("OPENBLAS_CORETYPE");
	ret = rfx_blas_fit_core();
	ok(ret == (want != NULL) &&
		   !strcasecmp(openblas_get_corename(), want ? want : before),
	   "core %s -> %s (expected %s)", before, openblas_get_corename(),
	   want ? want : before);
	ok(!strstr(rfx_blas_describe(), "set by rfx") == !ret &&
		   strstr(rfx_blas_describe(), openblas_get_corename()) != NULL,
	   "described as '%s'", rfx_blas_describe());
	ok(rfx_blas_fit_core() == 0, "a second call changes nothing");
	for (i = 0; i < 37 * 300; i++)
		A[i] = sin(0.37 * i);
	for (i = 0; i < 300 * 29; i++)
		B[i] = cos(0.11 * i);
	gsl_matrix_view Av = gsl_matrix_view_array(A, 37, 300);
	gsl_matrix_view Bv = gsl_matrix_view_array(B, 300, 29);
	gsl_matrix_view Cv = gsl_matrix_view_array(C, 37, 29);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &Av.matrix,
		       &Bv.matrix, 0.0, &Cv.matrix);
	for (i = 0; i < 37; i++)
		for (j = 0; j < 29; j++) {
			long double s = 0.0L;

			for (p = 0; p < 300; p++)
				s += (long double)A[i * 300 + p] * B[p * 29 + j];
			err = fmax(err, fabs(C[i * 29 + j] - (double)s));
		}
	/* 300 terms of size <= 1: |error| <= 300 eps (Higham's bound) */
	ok(err <= 300 * 0x1p-52, "a 37 x 300 x 29 product on core %s: error %.3g",
	   openblas_get_corename(), err);
}

int main(void)
{
	gsl_set_error_handler_off();
	test_binding();
	test_gsl_product();
	test_guard();
	test_cells();
	test_fit_core();
	return done_testing();
}

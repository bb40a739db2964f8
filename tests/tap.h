/*
 * A minimal TAP producer for the unit tests, after libtap: plan(), ok(),
 * is_approx() and done_testing() print "ok N - ..." lines that prove reads.
 * Header-only so that every test binary is a single translation unit plus
 * the library.
 */
#ifndef RFX_TAP_H
#define RFX_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run;    /* tests run so far */
static int tap_failed; /* tests that failed */
static int tap_planned = -1;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline int tap_vok(int pass, const char *fmt, va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return pass;
}

static inline int ok(int pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int ok(int pass, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, fmt, ap);
	va_end(ap);
	return r;
}

static inline void diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * Passes when |got - want| <= tol * max(1, |want|), i.e. a relative
 * tolerance for large values and an absolute one near zero.
 */
static inline int is_approx(double got, double want, double tol,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int is_approx(double got, double want, double tol,
			    const char *fmt, ...)
{
	va_list ap;
	double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
	int pass = isfinite(got) && fabs(got - want) <= tol * scale;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("    got %.17g, want %.17g (tol %g)", got, want, tol);
	return r;
}

/*
 * Monte Carlo check (GSL randist/test.c): passes when the estimate is within
 * k standard errors of the exact value.
 */
static inline int is_within_se(double est, double se, double exact, double k,
			       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static inline int is_within_se(double est, double se, double exact, double k,
			       const char *fmt, ...)
{
	va_list ap;
	double z = (est - exact) / se;
	int pass = isfinite(z) && fabs(z) <= k;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("    estimate %.10g +- %.3g, exact %.10g (z = %.2f, limit %g)",
		     est, se, exact, z, k);
	return r;
}

/* One test that did not run, with the reason: "ok N # SKIP why". */
static inline void skip(const char *why)
{
	tap_run++;
	printf("ok %d # SKIP %s\n", tap_run, why);
	fflush(stdout);
}

/*
 * RFX_TEST_SCALE=small (make valgrind, where memcheck runs code ~50-300
 * times slower) asks the slowest tests for smaller samples or fewer
 * corners. A check whose tolerance holds at any sample size (a z-score on
 * the sample's own standard error, a property of every case) keeps
 * running on the smaller sample; one that needs the full size is skipped
 * with a "# SKIP" line saying so. make check always runs at full scale.
 */
static inline int tap_small(void)
{
	const char *s = getenv("RFX_TEST_SCALE");

	return s && !strcmp(s, "small");
}

static inline int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		printf("# planned %d tests but ran %d\n", tap_planned, tap_run);
	return tap_failed || (tap_planned >= 0 && tap_planned != tap_run);
}

/* The epsilon ladder of GSL's specfunc tests: analytic checks. */
#define TEST_TOL0 (2.0 * 2.2204460492503131e-16)
#define TEST_TOL1 (16.0 * 2.2204460492503131e-16)
#define TEST_TOL2 (256.0 * 2.2204460492503131e-16)
#define TEST_TOL3 (2048.0 * 2.2204460492503131e-16)
#define TEST_TOL4 (16384.0 * 2.2204460492503131e-16)
#define TEST_TOL5 (131072.0 * 2.2204460492503131e-16)
#define TEST_TOL6 (1048576.0 * 2.2204460492503131e-16)

#endif

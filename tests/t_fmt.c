/*
 * Tests of lib/base/fmt: the shortest text of a double that reads back as
 * the same double. The expected strings are the decimal forms written by
 * hand (0.1 is the double nearest 1/10; 0.30000000000000004 is 0.1 + 0.2,
 * which no 15- or 16-digit string reaches), and every case also checks the
 * round trip through strtod.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "tap.h"

static void check(double v, const char *want)
{
	char buf[64];

	rfx_fmt_double(v, buf, sizeof(buf));
	if (want)
		ok(!strcmp(buf, want), "%.17g prints as '%s' (got '%s')", v,
		   want, buf);
	if (v == v)
		ok(strtod(buf, NULL) == v, "'%s' reads back as the same double", buf);
}

int main(void)
{
	char small[4];

	plan(16);
	check(0.1, "0.1");
	check(0.1 + 0.2, "0.30000000000000004");
	check(1.0 / 3.0, "0.3333333333333333");
	check(1e75, "1e+75");
	/*
	 * Subnormals carry fewer digits than 15, so any 15-digit text near
	 * them reads back: only the round trip is checked.
	 */
	check(-2.5e-310, NULL);
	check(5e-324, NULL);
	check(NAN, "nan");
	check(INFINITY, "inf");
	check(-INFINITY, "-inf");
	/* Cut like snprintf, never overrun. */
	rfx_fmt_double(123456.0, small, sizeof(small));
	ok(!strcmp(small, "123"), "a short buffer holds the first 3 characters");
	done_testing();
}

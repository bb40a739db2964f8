/*
 * Shortest round-trip text of doubles (see fmt.h). %.17g always reads
 * back as the same double, but prints 0.1 as 0.10000000000000001; the
 * first of 15, 16 and 17 digits that reads back is what a person expects
 * and still loses nothing.
 */
#include "base/fmt.h"

#include <stdio.h>
#include <stdlib.h>

void rfx_fmt_double(double v, char *buf, size_t n)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v || v != v)
			return;
	}
	snprintf(buf, n, "%.17g", v);
}

/*
 * Text forms of numbers shared by every layer: the shortest decimal text
 * of a double that reads back as the same value. It lives in base, not
 * with the HDF5 tables, because the estimators print their fitted
 * parameters with it and must not depend on the I/O layer.
 */
#ifndef RFX_FMT_H
#define RFX_FMT_H

#include <stddef.h>

/*
 * Formats v into buf (n bytes, NUL-terminated, cut at n - 1 like
 * snprintf) as the shortest of %.15g, %.16g and %.17g that strtod reads
 * back as v: 0.1, not 0.10000000000000001. NaN and infinities print as
 * "nan", "inf" and "-inf". The text form of doubles in dumps, TSV output
 * and parameter strings.
 */
void rfx_fmt_double(double v, char *buf, size_t n);

#endif

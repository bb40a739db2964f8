/*
 * What a file must be before rfx reads it as input: a regular file (after
 * symbolic links). Every reader of an input (the user's matrices, the
 * shipped datasets, regression tables, the checksums of provenance) reads
 * to the end, and a character device such as /dev/zero has none: the line
 * readers grew one line until memory ran out (`rfx attention --q-file
 * /dev/zero` reached 24 GB before the kernel killed it, with no word on
 * stderr). A FIFO cannot be sought in, which sniffing a format needs, and
 * a directory has no rows. -o's target must be a regular file too
 * (lib/io/h5out.c), and both name the other kinds with rfx_infile_kind.
 */
#ifndef RFX_INFILE_H
#define RFX_INFILE_H

#include <sys/types.h>

#include "base/err.h"

/*
 * RFX_OK when path names a regular file (or a link to one). Otherwise
 * RFX_EIO with one of "cannot open 'path': <the system's reason>", "'path'
 * is a directory" or "'path' is not a regular file (a character device)"
 * (block device, FIFO, socket).
 */
int rfx_infile_check(const char *path, struct rfx_err *err);

/* "a character device", "a block device", "a FIFO", "a socket" or "not a plain file". */
const char *rfx_infile_kind(mode_t mode);

#endif

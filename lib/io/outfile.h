/*
 * An output file written atomically: the rules of -o for every format
 * rfx writes (HDF5 tables through lib/io/h5out.c, the .npy matrix of
 * `rfx features`), in one place.
 *
 * The bytes go to a temporary "<target>.tmp.XXXXXX" next to the target;
 * rfx_outfile_commit() syncs it, gives it the mode a plain create would
 * and renames it into place, and rfx_outfile_abort() (or a failed commit)
 * removes it, so a failed or interrupted run never leaves a partial file
 * nor truncates an existing one.
 *
 * What -o may name (docs/ROBUSTNESS.md, "Output files"): a new path or a
 * regular file, which is replaced. A symbolic link is followed: the file
 * it names is replaced and the link stays a link. Anything else (a
 * device such as /dev/null, a FIFO, a socket, a directory, a dangling
 * link) is refused before any work, since neither format is streamed
 * and a rename would replace the special file itself.
 *
 * A run killed by SIGKILL (or a power cut) leaves its temporary behind.
 * The temporary is locked (an open-file-description lock) for as long as
 * its writer lives, so the next rfx_outfile_open() for the same target
 * removes every "<target>.tmp.XXXXXX" of the same owner that no live
 * writer holds, and never one that a concurrent run is writing.
 */
#ifndef RFX_OUTFILE_H
#define RFX_OUTFILE_H

#include <stddef.h>

#include "base/err.h"

struct rfx_outfile {
	int fd;       /* the temporary's descriptor, locked; -1 once closed */
	char *path;   /* the name the user gave, for messages */
	char *target; /* the file to replace: path, or a link's target */
	char *tmp;    /* the temporary's name, "<target>.tmp.XXXXXX" */
};

/*
 * Creates and locks the temporary for path (so an unwritable directory
 * fails before any work) after removing the stale temporaries of earlier
 * runs. NULL with err set on failure: RFX_EINVAL for an empty path,
 * RFX_EIO "cannot create 'dir/x': No such file or directory", "'out' is
 * a directory", "'/dev/null' is not a regular file (a character
 * device); ...", "'l' is a dangling symbolic link", RFX_ENOMEM.
 */
struct rfx_outfile *rfx_outfile_open(const char *path, struct rfx_err *err);

/*
 * Writes all n bytes of buf at the temporary's current offset (retrying
 * short writes). RFX_EIO "cannot write 'path': No space left on device".
 */
int rfx_outfile_write(struct rfx_outfile *o, const void *buf, size_t n,
		      struct rfx_err *err);

/*
 * Puts the temporary in place of the target (fsync, mode 0666 less the
 * umask, rename, close) and frees o, also on failure, when the temporary
 * is removed and the target left as it was. RFX_EIO on failure.
 */
int rfx_outfile_commit(struct rfx_outfile *o, struct rfx_err *err);

/* Removes the temporary and frees o; NULL is a no-op. */
void rfx_outfile_abort(struct rfx_outfile *o);

#endif

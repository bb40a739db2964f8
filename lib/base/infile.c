/*
 * The input-file check of infile.h: one stat(2), which follows links, so
 * that a link to a data file reads as the file does and a link to
 * /dev/zero is refused as /dev/zero is.
 */
#include "base/infile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

const char *rfx_infile_kind(mode_t mode)
{
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

int rfx_infile_check(const char *path, struct rfx_err *err)
{
	struct stat st;

	if (!path)
		return rfx_error(err, RFX_EINVAL, "no input file given");
	if (stat(path, &st) != 0)
		return rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
				 strerror(errno));
	if (S_ISDIR(st.st_mode))
		return rfx_error(err, RFX_EIO, "'%s' is a directory", path);
	if (!S_ISREG(st.st_mode))
		return rfx_error(err, RFX_EIO, "'%s' is not a regular file (%s)",
				 path, rfx_infile_kind(st.st_mode));
	return RFX_OK;
}

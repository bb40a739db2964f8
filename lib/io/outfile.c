/*
 * Atomic output files (see outfile.h): what -o may name, the temporary
 * and its lock, the cleaning of stale temporaries, and the commit.
 */
/* F_OFD_SETLK, the lock that no other descriptor's close can drop. */
#define _GNU_SOURCE
#include "io/outfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/infile.h"

#define TMP_SUFFIX ".tmp.XXXXXX" /* mkstemp's template after the target */
#define TMP_TRIES 8 /* mkstemps lost to a cleaner before giving up */

static int nomem(struct rfx_err *err)
{
	return rfx_error(err, RFX_ENOMEM, "out of memory");
}

/*
 * Write-locks the whole of fd's file without waiting. An open file
 * description lock belongs to this descriptor alone: HDF5 opening and
 * closing the same file through its own descriptor does not release it,
 * as it would a classic POSIX lock, and it goes when the descriptor is
 * closed, also by the kernel when the process is killed. 0 or -1.
 */
static int lock_fd(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
#ifdef F_OFD_SETLK
	return fcntl(fd, F_OFD_SETLK, &fl);
#else
	return fcntl(fd, F_SETLK, &fl);
#endif
}

/*
 * Decides what -o path replaces (outfile.h): sets *target to a malloc'd
 * name, path itself or the file a symbolic link names. RFX_OK, or an
 * error for a directory, a special file or a dangling link.
 */
static int resolve_target(const char *path, char **target,
			  struct rfx_err *err)
{
	struct stat st;

	*target = NULL;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return rfx_error(err, RFX_EIO, "cannot create '%s': %s",
					 path, strerror(errno));
		/* A new file; mkstemp reports a missing directory. */
		*target = strdup(path);
		return *target ? RFX_OK : nomem(err);
	}
	if (S_ISLNK(st.st_mode)) {
		/*
		 * Renaming onto the link would replace the link with a file:
		 * follow it, so that the file it names gets the result.
		 */
		*target = realpath(path, NULL);
		if (!*target)
			return errno == ENOENT
				       ? rfx_error(err, RFX_EIO,
						   "'%s' is a dangling symbolic link",
						   path)
				       : rfx_error(err, RFX_EIO,
						   "cannot create '%s': %s", path,
						   strerror(errno));
		if (stat(*target, &st) < 0) {
			free(*target);
			*target = NULL;
			return rfx_error(err, RFX_EIO, "cannot create '%s': %s",
					 path, strerror(errno));
		}
	}
	if (S_ISDIR(st.st_mode)) {
		free(*target);
		*target = NULL;
		return rfx_error(err, RFX_EIO, "'%s' is a directory", path);
	}
	if (!S_ISREG(st.st_mode)) {
		/*
		 * A rename would replace the device or FIFO itself (as root,
		 * /dev/null), and HDF5 needs a file it can seek in.
		 */
		free(*target);
		*target = NULL;
		return rfx_error(err, RFX_EIO,
				 "'%s' is not a regular file (%s); -o takes a new or regular file",
				 path, rfx_infile_kind(st.st_mode));
	}
	if (!*target && !(*target = strdup(path)))
		return nomem(err);
	return RFX_OK;
}

/*
 * Removes the temporaries "<target>.tmp.XXXXXX" that earlier runs for the
 * same target left when they were killed: regular files of this user
 * whose lock nobody holds. A live writer holds its lock from just after
 * mkstemp until its temporary is renamed or removed, so it is never
 * touched; the one window, a writer between mkstemp and its lock, is
 * closed on the writer's side (open_tmp checks that its file is still
 * linked). Failures are ignored: cleaning is a courtesy.
 */
static void remove_stale(const char *target)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	size_t blen = strlen(base);
	size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
	char dir[PATH_MAX];
	char name[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (dlen + 1 > sizeof(dir))
		return;
	memcpy(dir, target, dlen);
	dir[dlen] = '\0';
	if (!(d = opendir(dlen ? dir : ".")))
		return;
	while ((e = readdir(d))) {
		const char *x = e->d_name + blen + 4; /* the six random chars */
		struct stat ls, fs;
		int fd, k;

		if (strncmp(e->d_name, base, blen) ||
		    strncmp(e->d_name + blen, ".tmp.", 5) ||
		    strlen(e->d_name) != blen + sizeof(TMP_SUFFIX) - 1)
			continue;
		for (k = 1; k <= 6 && isalnum((unsigned char)x[k]); k++)
			;
		if (k <= 6 || dlen + strlen(e->d_name) + 1 > sizeof(name))
			continue;
		memcpy(name, dir, dlen);
		strcpy(name + dlen, e->d_name);
		if (lstat(name, &ls) < 0 || !S_ISREG(ls.st_mode) ||
		    ls.st_uid != geteuid())
			continue;
		fd = open(name, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (lock_fd(fd) == 0 && fstat(fd, &fs) == 0 &&
		    fs.st_dev == ls.st_dev && fs.st_ino == ls.st_ino &&
		    lstat(name, &ls) == 0 && fs.st_ino == ls.st_ino)
			unlink(name);
		close(fd); /* drops the lock */
	}
	closedir(d);
}

/*
 * Creates and locks o->tmp from its template. mkstemp fails with errno set
 * when the directory is missing or unwritable, which is the message the
 * user needs ("No such file or directory"). A cleaner in another run may
 * take the fresh file for stale before it is locked: then the lock fails
 * or the file is gone, and a new name is tried.
 */
static int open_tmp(struct rfx_outfile *o, size_t tlen, struct rfx_err *err)
{
	struct stat st;
	int tries;

	for (tries = 0; tries < TMP_TRIES; tries++) {
		memcpy(o->tmp + tlen, TMP_SUFFIX, sizeof(TMP_SUFFIX));
		o->fd = mkstemp(o->tmp);
		if (o->fd < 0)
			return rfx_error(err, RFX_EIO, "cannot create '%s': %s",
					 o->path, strerror(errno));
		if (lock_fd(o->fd) == 0 && fstat(o->fd, &st) == 0 &&
		    st.st_nlink > 0)
			return RFX_OK;
		if (errno != EAGAIN && errno != EACCES && errno != 0) {
			int e = errno;

			close(o->fd);
			o->fd = -1;
			unlink(o->tmp);
			return rfx_error(err, RFX_EIO, "cannot lock '%s': %s",
					 o->tmp, strerror(e));
		}
		close(o->fd);
		o->fd = -1;
		errno = 0;
	}
	return rfx_error(err, RFX_EIO, "cannot create '%s': temporary files keep vanishing",
			 o->path);
}

static void outfile_free(struct rfx_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->target);
	free(o->tmp);
	free(o);
}

struct rfx_outfile *rfx_outfile_open(const char *path, struct rfx_err *err)
{
	struct rfx_outfile *o;
	size_t n;

	if (!path || !path[0]) {
		rfx_error(err, RFX_EINVAL, "empty output file name");
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		nomem(err);
		return NULL;
	}
	o->fd = -1;
	if (resolve_target(path, &o->target, err))
		goto fail;
	n = strlen(o->target);
	o->path = strdup(path);
	o->tmp = malloc(n + sizeof(TMP_SUFFIX));
	if (!o->path || !o->tmp) {
		nomem(err);
		goto fail;
	}
	memcpy(o->tmp, o->target, n);
	remove_stale(o->target);
	if (open_tmp(o, n, err))
		goto fail;
	return o;
fail:
	outfile_free(o);
	return NULL;
}

int rfx_outfile_write(struct rfx_outfile *o, const void *buf, size_t n,
		      struct rfx_err *err)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(o->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return rfx_error(err, RFX_EIO, "cannot write '%s': %s",
					 o->path,
					 strerror(w < 0 ? errno : ENOSPC));
		p += w;
		n -= (size_t)w;
	}
	return RFX_OK;
}

int rfx_outfile_commit(struct rfx_outfile *o, struct rfx_err *err)
{
	int ret = RFX_OK;
	mode_t mask;

	if (!o)
		return rfx_error(err, RFX_EINVAL, "no output file to commit");
	/*
	 * Without fsync the data may still be in the page cache, and a crash
	 * soon after the rename could leave an empty file under the final
	 * name, which is what the temporary file is there to prevent.
	 *
	 * mkstemp made the file 0600; now that it is written, give it the
	 * mode a plain creat() would (earlier, a umask like 0222 would have
	 * kept it from being written). Reading the umask means setting it, a
	 * race only with other threads creating files at this moment.
	 */
	mask = umask(0);
	umask(mask);
	if (fsync(o->fd) < 0 || fchmod(o->fd, 0666 & ~mask) < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot write '%s': %s", o->path,
				strerror(errno));
		goto out;
	}
	/* Renamed while still locked: no cleaner can take it for stale. */
	if (rename(o->tmp, o->target) < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot rename '%s' to '%s': %s",
				o->tmp, o->target, strerror(errno));
		goto out;
	}
	if (close(o->fd) < 0) {
		o->fd = -1;
		/* The data are fsynced; a late error here is only reported. */
		ret = rfx_error(err, RFX_EIO, "cannot write '%s': %s", o->path,
				strerror(errno));
		goto out;
	}
	o->fd = -1;

out:
	if (ret != RFX_OK && o->fd >= 0)
		unlink(o->tmp);
	outfile_free(o);
	return ret;
}

void rfx_outfile_abort(struct rfx_outfile *o)
{
	if (!o)
		return;
	unlink(o->tmp);
	outfile_free(o);
}

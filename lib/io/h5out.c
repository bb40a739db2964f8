/*
 * The HDF5 writer of result tables (see h5out.h): the output-file rules,
 * the temporary file and its lock, the commit, and the tables themselves
 * in H5TB's layout with little-endian packed members.
 */
/* F_OFD_SETLK, the lock that HDF5's own open and close cannot drop. */
#define _GNU_SOURCE
#include "io/h5out.h"

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

#include <hdf5.h>
#include <hdf5_hl.h>

#include "base/infile.h"

#define CHUNK_BYTES 65536 /* target size of one dataset chunk */
#define IO_BYTES (1 << 20) /* rows are copied in blocks of this */
#define TMP_SUFFIX ".tmp.XXXXXX" /* mkstemp's template after the target */
#define TMP_TRIES 8 /* mkstemps lost to a cleaner before giving up */

#define h5_error rfx_table_h5_error

struct rfx_h5out {
	hid_t file;   /* the open temporary file */
	int fd;       /* mkstemp's descriptor of it: lock, fsync, fchmod */
	char *path;   /* the name the user gave, for messages */
	char *target; /* the file to replace: path, or a link's target */
	char *tmp;    /* temporary name, "<target>.tmp.XXXXXX" */
};

/*
 * Set once an HDF5 file could not be closed (a full disk): libhdf5 1.10.8
 * then crashes in H5close (see close_failed), so the caller must not
 * call it. The one piece of state of the library beyond its handles.
 */
static int abandoned;

int rfx_h5out_abandoned(void)
{
	return abandoned;
}

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
 * Decides what -o path replaces (h5out.h): sets *target to a malloc'd
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
static int open_tmp(struct rfx_h5out *o, size_t tlen, struct rfx_err *err)
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

struct rfx_h5out *rfx_h5out_open(const char *path, struct rfx_err *err)
{
	struct rfx_h5out *o = NULL; /* the handle being built */
	struct rfx_h5out *ret = NULL;
	hid_t fcpl = H5I_INVALID_HID;
	hid_t fapl = H5I_INVALID_HID;
	size_t n;

	if (!path || !path[0]) {
		rfx_error(err, RFX_EINVAL, "empty output file name");
		return NULL;
	}

	o = calloc(1, sizeof(*o));
	if (!o) {
		nomem(err);
		goto out;
	}
	o->file = H5I_INVALID_HID;
	o->fd = -1;
	if (resolve_target(path, &o->target, err))
		goto out;
	n = strlen(o->target);
	o->path = strdup(path);
	o->tmp = malloc(n + sizeof(TMP_SUFFIX));
	if (!o->path || !o->tmp) {
		nomem(err);
		goto out;
	}
	memcpy(o->tmp, o->target, n);
	remove_stale(o->target);
	if (open_tmp(o, n, err))
		goto out;

	/*
	 * The root group takes its time tracking from the file-creation
	 * list. With the default (earliest) format HDF5 1.10 stores no root
	 * timestamps anyway, but with version-2 object headers (libver
	 * bounds "latest") it does unless this is off. A strong close makes
	 * H5Fclose really close the file even if an object leaked, so commit
	 * never renames a file that is still being written.
	 */
	if ((fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0 ||
	    H5Pset_obj_track_times(fcpl, 0) < 0 ||
	    (fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
		h5_error(err, RFX_EIO, "cannot create '%s'", path);
		goto out;
	}
	/* Truncates the same inode, which o->fd keeps open and locked. */
	o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, fcpl, fapl);
	if (o->file < 0) {
		h5_error(err, RFX_EIO, "cannot create '%s'", path);
		goto out;
	}
	ret = o;

out:
	if (fapl >= 0)
		H5Pclose(fapl);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (!ret && o) {
		if (o->fd >= 0) {
			unlink(o->tmp);
			close(o->fd);
		}
		free(o->path);
		free(o->target);
		free(o->tmp);
		free(o);
	}
	return ret;
}

int64_t rfx_h5out_hid(const struct rfx_h5out *o)
{
	return (int64_t)o->file;
}

const char *rfx_h5out_tmpname(const struct rfx_h5out *o)
{
	return o ? o->tmp : NULL;
}

static void h5out_free(struct rfx_h5out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->target);
	free(o->tmp);
	free(o);
}

/*
 * Closes the HDF5 file of a run that failed, its temporary already
 * unlinked. When the disk is full, H5Fclose cannot flush the metadata it
 * holds and fails, leaving the file half closed: a second H5Fclose, or
 * HDF5's own exit handler, then crashes in libhdf5 1.10.8. So the file is
 * first truncated (nobody will read it), which gives its blocks back and
 * lets the close's flush succeed; should it fail all the same, the handle
 * is abandoned (rfx_h5out_abandoned).
 */
static void close_failed(struct rfx_h5out *o)
{
	if (o->file < 0)
		return;
	if (o->fd >= 0 && ftruncate(o->fd, 0) < 0) {
		/* the close below reports nothing either way */
	}
	if (H5Fclose(o->file) < 0)
		abandoned = 1;
	H5Eclear2(H5E_DEFAULT);
	o->file = H5I_INVALID_HID;
}

void rfx_h5out_abort(struct rfx_h5out *o)
{
	if (!o)
		return;
	unlink(o->tmp);
	close_failed(o);
	h5out_free(o);
}

int rfx_h5out_commit(struct rfx_h5out *o, struct rfx_err *err)
{
	int ret = RFX_OK;
	mode_t mask;

	if (!o)
		return rfx_error(err, RFX_EINVAL, "no output file to commit");
	if (H5Fclose(o->file) < 0) {
		/* Half closed: never closed again (see close_failed). */
		ret = h5_error(err, RFX_EIO, "cannot write '%s'", o->path);
		abandoned = 1;
		o->file = H5I_INVALID_HID;
		goto out;
	}
	o->file = H5I_INVALID_HID;

	/*
	 * H5Fclose leaves the data in the page cache; without fsync a crash
	 * soon after the rename could leave an empty file under the final
	 * name, which is what the temporary file is there to prevent.
	 *
	 * mkstemp made the file 0600; now that it is written, give it the
	 * mode a plain creat() would (earlier, a umask like 0222 would have
	 * kept HDF5 from writing it). Reading the umask means setting it, a
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
	h5out_free(o);
	return ret;
}

int rfx_h5out_attr(struct rfx_h5out *o, const char *name, const char *value,
		   struct rfx_err *err)
{
	if (!o || !name || !name[0] || !value)
		return rfx_error(err, RFX_EINVAL,
				 "attribute needs a name and a value");
	/* H5LT replaces an attribute of the same name. */
	if (H5LTset_attribute_string(o->file, "/", name, value) < 0)
		return h5_error(err, RFX_EIO, "cannot write attribute '%s' to '%s'",
				name, o->path);
	return RFX_OK;
}

/* Writes a scalar numeric attribute of the root, replacing one of its name. */
static int write_scalar(struct rfx_h5out *o, const char *name, hid_t ftype,
			hid_t mtype, const void *value, struct rfx_err *err)
{
	hid_t sid = H5I_INVALID_HID;
	hid_t aid = H5I_INVALID_HID;
	htri_t has;
	int ret = RFX_OK;

	if (!o || !name || !name[0])
		return rfx_error(err, RFX_EINVAL, "attribute needs a name");
	if ((has = H5Aexists(o->file, name)) < 0 ||
	    (has > 0 && H5Adelete(o->file, name) < 0) ||
	    (sid = H5Screate(H5S_SCALAR)) < 0 ||
	    (aid = H5Acreate2(o->file, name, ftype, sid, H5P_DEFAULT,
			      H5P_DEFAULT)) < 0 ||
	    H5Awrite(aid, mtype, value) < 0) {
		ret = h5_error(err, RFX_EIO, "cannot write attribute '%s' to '%s'",
			       name, o->path);
		goto out;
	}

out:
	if (aid >= 0 && H5Aclose(aid) < 0 && ret == RFX_OK)
		ret = h5_error(err, RFX_EIO, "cannot write attribute '%s' to '%s'",
			       name, o->path);
	if (sid >= 0)
		H5Sclose(sid);
	return ret;
}

int rfx_h5out_attr_long(struct rfx_h5out *o, const char *name, long value,
			struct rfx_err *err)
{
	int64_t v = value;

	return write_scalar(o, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, err);
}

int rfx_h5out_attr_double(struct rfx_h5out *o, const char *name, double value,
			  struct rfx_err *err)
{
	return write_scalar(o, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value,
			    err);
}

/* Writes a scalar unsigned 64-bit attribute of the root (the seed, sizes). */
static int write_u64(struct rfx_h5out *o, const char *name, uint64_t v,
		     struct rfx_err *err)
{
	return write_scalar(o, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v, err);
}

int rfx_h5out_provenance(struct rfx_h5out *o, const struct rfx_provenance *p,
			 struct rfx_err *err)
{
	/* Attribute names, in the order of struct rfx_provenance. */
	const struct {
		const char *name;
		const char *value;
	} s[] = {
		{ "rfx_version", p ? p->version : NULL },
		{ "rfx_commit", p ? p->commit : NULL },
		{ "command", p ? p->command : NULL },
		{ "rng", p ? p->rng : NULL },
	};
	size_t i;
	int ret, k;

	if (!o || !p)
		return rfx_error(err, RFX_EINVAL, "no file or provenance given");
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!s[i].value)
			return rfx_error(err, RFX_EINVAL,
					 "provenance field '%s' is missing",
					 s[i].name);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if ((ret = rfx_h5out_attr(o, s[i].name, s[i].value, err)))
			return ret;
	for (k = 0; k < p->ninputs; k++) {
		const struct rfx_input_file *in = &p->inputs[k];
		char name[32];

		if (!in->path || !in->sha256)
			return rfx_error(err, RFX_EINVAL,
					 "provenance of input %d is missing", k);
		snprintf(name, sizeof(name), "input_%d_path", k);
		if ((ret = rfx_h5out_attr(o, name, in->path, err)))
			return ret;
		snprintf(name, sizeof(name), "input_%d_sha256", k);
		if ((ret = rfx_h5out_attr(o, name, in->sha256, err)))
			return ret;
		snprintf(name, sizeof(name), "input_%d_size", k);
		if ((ret = write_u64(o, name, in->size, err)))
			return ret;
	}
	return write_u64(o, "seed", p->seed, err);
}

/* The group of the options, opened or created without timestamps. */
static hid_t options_group(struct rfx_h5out *o)
{
	hid_t gcpl = H5I_INVALID_HID;
	hid_t g = H5I_INVALID_HID;
	htri_t has = H5Lexists(o->file, RFX_OPTIONS_GROUP, H5P_DEFAULT);

	if (has < 0)
		return H5I_INVALID_HID;
	if (has > 0)
		return H5Gopen2(o->file, RFX_OPTIONS_GROUP, H5P_DEFAULT);
	/* the same bytes for the same run: no creation time */
	if ((gcpl = H5Pcreate(H5P_GROUP_CREATE)) >= 0 &&
	    H5Pset_obj_track_times(gcpl, 0) >= 0)
		g = H5Gcreate2(o->file, RFX_OPTIONS_GROUP, H5P_DEFAULT, gcpl,
			       H5P_DEFAULT);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	return g;
}

/*
 * The strings of a as one block of n fixed-length items of *size bytes
 * (the longest plus its NUL), zero-padded, so no stray byte reaches the
 * file. NULL when out of memory.
 */
static char *pack_strings(const struct rfx_attr_value *a, size_t *size)
{
	const char *const *v = a->v;
	char *buf;
	size_t k;

	*size = 1;
	for (k = 0; k < a->n; k++)
		if (strlen(v[k]) + 1 > *size)
			*size = strlen(v[k]) + 1;
	buf = calloc(a->n, *size);
	for (k = 0; buf && k < a->n; k++)
		memcpy(buf + k * *size, v[k], strlen(v[k]));
	return buf;
}

int rfx_h5out_option(struct rfx_h5out *o, const char *name,
		     const struct rfx_attr_value *a, struct rfx_err *err)
{
	hid_t g = H5I_INVALID_HID;
	hid_t sid = H5I_INVALID_HID;
	hid_t ftype = H5I_INVALID_HID; /* the file's type, little-endian */
	hid_t mtype = H5I_INVALID_HID; /* the memory type */
	hid_t aid = H5I_INVALID_HID;
	hsize_t dims[1];
	char *strings = NULL;          /* packed RFX_ATTR_STRING items */
	const void *buf;
	size_t size, k;
	htri_t has;
	int ret = RFX_OK;

	if (!o || !name || !name[0] || !a || !a->v || a->n < 1 ||
	    (!a->list && a->n != 1))
		return rfx_error(err, RFX_EINVAL,
				 "option attribute '%s' needs a name and one value or a list",
				 name ? name : "");
	buf = a->v;
	switch (a->type) {
	case RFX_ATTR_INT64:
		ftype = H5Tcopy(H5T_STD_I64LE);
		mtype = H5Tcopy(H5T_NATIVE_INT64);
		break;
	case RFX_ATTR_UINT64:
		ftype = H5Tcopy(H5T_STD_U64LE);
		mtype = H5Tcopy(H5T_NATIVE_UINT64);
		break;
	case RFX_ATTR_DOUBLE:
		ftype = H5Tcopy(H5T_IEEE_F64LE);
		mtype = H5Tcopy(H5T_NATIVE_DOUBLE);
		break;
	case RFX_ATTR_STRING:
		for (k = 0; k < a->n; k++)
			if (!((const char *const *)a->v)[k])
				return rfx_error(err, RFX_EINVAL,
						 "option attribute '%s' has a NULL string",
						 name);
		if (!(strings = pack_strings(a, &size)))
			return nomem(err);
		buf = strings;
		if ((ftype = H5Tcopy(H5T_C_S1)) >= 0 &&
		    (H5Tset_size(ftype, size) < 0 ||
		     H5Tset_strpad(ftype, H5T_STR_NULLTERM) < 0))
			goto h5fail;
		mtype = H5Tcopy(ftype);
		break;
	default:
		return rfx_error(err, RFX_EINVAL,
				 "option attribute '%s' has an unknown type", name);
	}
	dims[0] = (hsize_t)a->n;
	if (ftype < 0 || mtype < 0 || (g = options_group(o)) < 0 ||
	    (sid = a->list ? H5Screate_simple(1, dims, NULL)
			   : H5Screate(H5S_SCALAR)) < 0 ||
	    (has = H5Aexists(g, name)) < 0 || (has > 0 && H5Adelete(g, name) < 0) ||
	    (aid = H5Acreate2(g, name, ftype, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
	    H5Awrite(aid, mtype, buf) < 0)
		goto h5fail;
	if (H5Aclose(aid) < 0) {
		aid = H5I_INVALID_HID;
		goto h5fail;
	}
	aid = H5I_INVALID_HID;
	goto out;

h5fail:
	ret = h5_error(err, RFX_EIO, "cannot write option '%s' to '%s'", name,
		       o->path);
out:
	if (aid >= 0)
		H5Aclose(aid);
	if (sid >= 0)
		H5Sclose(sid);
	if (g >= 0)
		H5Gclose(g);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (ftype >= 0)
		H5Tclose(ftype);
	free(strings);
	return ret;
}

/*
 * Whether every string of rows ends within its column, as the header
 * promises: copy_rows relies on it, and a reader of a NULLTERM string may
 * drop its last byte. Returns the first bad row, or nrows.
 */
static size_t check_strings(const struct rfx_schema *s, const char *rows,
			    size_t nrows, int *bad_col)
{
	size_t r;
	int i;

	for (r = 0; r < nrows; r++)
		for (i = 0; i < s->ncols; i++)
			if (s->cols[i].type == RFX_COL_STRING &&
			    !memchr(rows + r * s->row_size + s->cols[i].offset,
				    '\0', s->cols[i].size)) {
				*bad_col = i;
				return r;
			}
	return nrows;
}

/*
 * Copies n rows field by field into dst, zeroed first. H5TBappend_records
 * copies a string member byte for byte when memory and file agree, so the
 * bytes after a string's NUL would reach the file (making it differ from
 * run to run, and PyTables reads them); struct padding is dropped by the
 * packed file type anyway, but is zeroed all the same.
 */
static void copy_rows(const struct rfx_schema *s, char *dst,
		      const char *src, size_t n)
{
	size_t r;
	int i;

	memset(dst, 0, n * s->row_size);
	for (r = 0; r < n; r++) {
		const char *in = src + r * s->row_size;
		char *o = dst + r * s->row_size;

		for (i = 0; i < s->ncols; i++) {
			const struct rfx_column *c = &s->cols[i];

			if (c->type == RFX_COL_STRING)
				memcpy(o + c->offset, in + c->offset,
				       strlen(in + c->offset));
			else
				memcpy(o + c->offset, in + c->offset, c->size);
		}
	}
}

/*
 * The on-disk member type of a column: explicit little-endian types rather
 * than H5T_NATIVE_*, so the file is the same on any host. Returns a type
 * to close, or H5I_INVALID_HID.
 */
static hid_t file_member_type(const struct rfx_column *c)
{
	hid_t t = H5I_INVALID_HID;

	switch (c->type) {
	case RFX_COL_DOUBLE:
		return H5Tcopy(H5T_IEEE_F64LE);
	case RFX_COL_INT:
		return H5Tcopy(H5T_STD_I32LE);
	case RFX_COL_LONG:
		return H5Tcopy(H5T_STD_I64LE);
	case RFX_COL_STRING:
		if ((t = H5Tcopy(H5T_C_S1)) < 0)
			return H5I_INVALID_HID;
		if (H5Tset_size(t, c->size) < 0 ||
		    H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
			H5Tclose(t);
			return H5I_INVALID_HID;
		}
		return t;
	}
	return H5I_INVALID_HID;
}

int rfx_h5out_table(struct rfx_h5out *o, const struct rfx_schema *s,
		    const void *rows, size_t nrows, struct rfx_err *err)
{
	hid_t ftype = H5I_INVALID_HID; /* packed file row type */
	hid_t mtype = H5I_INVALID_HID; /* one member's file type */
	hid_t sid = H5I_INVALID_HID;
	hid_t dcpl = H5I_INVALID_HID;
	hid_t did = H5I_INVALID_HID;
	size_t *offsets = NULL; /* memory offsets, for H5TBappend_records */
	size_t *sizes = NULL;   /* memory sizes, likewise */
	size_t packed = 0;      /* bytes per row on disk */
	char *scratch = NULL;   /* a block of rows, cleaned by copy_rows */
	size_t block = 0;       /* rows per block */
	size_t start, count, bad;
	int bad_col = 0;
	hsize_t dims[1] = { 0 };
	hsize_t maxdims[1] = { H5S_UNLIMITED };
	hsize_t chunk[1];
	char aname[32];
	int i;
	int ret;

	if (!o || !s)
		return rfx_error(err, RFX_EINVAL, "no file or schema given");
	if ((ret = rfx_table_check_schema(s, err)))
		return ret;
	if (nrows > 0 && !rows)
		return rfx_error(err, RFX_EINVAL, "table '%s': no rows given",
				 s->name);
	if ((bad = check_strings(s, rows, nrows, &bad_col)) < nrows)
		return rfx_error(err, RFX_EINVAL,
				 "table '%s': row %zu: column '%s' is not NUL-terminated",
				 s->name, bad, s->cols[bad_col].name);

	block = IO_BYTES / s->row_size;
	if (block > nrows)
		block = nrows;
	if (block < 1)
		block = 1;
	offsets = malloc((size_t)s->ncols * sizeof(*offsets));
	sizes = malloc((size_t)s->ncols * sizeof(*sizes));
	scratch = malloc(block * s->row_size);
	if (!offsets || !sizes || !scratch) {
		ret = nomem(err);
		goto out;
	}
	for (i = 0; i < s->ncols; i++) {
		offsets[i] = s->cols[i].offset;
		sizes[i] = s->cols[i].size;
		packed += s->cols[i].size;
	}

	if ((ftype = H5Tcreate(H5T_COMPOUND, packed)) < 0)
		goto h5fail;
	packed = 0;
	for (i = 0; i < s->ncols; i++) {
		if ((mtype = file_member_type(&s->cols[i])) < 0 ||
		    H5Tinsert(ftype, s->cols[i].name, packed, mtype) < 0)
			goto h5fail;
		packed += s->cols[i].size;
		H5Tclose(mtype);
		mtype = H5I_INVALID_HID;
	}

	/*
	 * One chunk holds the whole of a small table; large ones get chunks
	 * of about CHUNK_BYTES. Extendible, as H5TB and PyTables expect.
	 * Time tracking off keeps the bytes reproducible; writing the fill
	 * value into fresh chunks means the unwritten tail of the last chunk
	 * is zeros rather than whatever the chunk buffer held.
	 */
	chunk[0] = CHUNK_BYTES / packed;
	if (chunk[0] > nrows)
		chunk[0] = nrows;
	if (chunk[0] < 1)
		chunk[0] = 1;
	if ((sid = H5Screate_simple(1, dims, maxdims)) < 0 ||
	    (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
	    H5Pset_chunk(dcpl, 1, chunk) < 0 ||
	    H5Pset_obj_track_times(dcpl, 0) < 0 ||
	    H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) < 0)
		goto h5fail;
	if ((did = H5Dcreate2(o->file, s->name, ftype, sid, H5P_DEFAULT, dcpl,
			      H5P_DEFAULT)) < 0)
		goto h5fail;
	if (H5Dclose(did) < 0) {
		did = H5I_INVALID_HID;
		goto h5fail;
	}
	did = H5I_INVALID_HID;

	/* The attributes H5TBmake_table writes, in its order. */
	if (H5LTset_attribute_string(o->file, s->name, "CLASS", RFX_TABLE_CLASS) < 0 ||
	    H5LTset_attribute_string(o->file, s->name, "VERSION",
				     RFX_TABLE_VERSION) < 0 ||
	    H5LTset_attribute_string(o->file, s->name, "TITLE",
				     s->title ? s->title : "") < 0)
		goto h5fail;
	for (i = 0; i < s->ncols; i++) {
		snprintf(aname, sizeof(aname), "FIELD_%d_NAME", i);
		if (H5LTset_attribute_string(o->file, s->name, aname,
					     s->cols[i].name) < 0)
			goto h5fail;
	}
	/* each column's description, named after FIELD_<i>_NAME */
	for (i = 0; i < s->ncols; i++) {
		snprintf(aname, sizeof(aname), "FIELD_%d_DESC", i);
		if (H5LTset_attribute_string(o->file, s->name, aname,
					     s->cols[i].desc) < 0)
			goto h5fail;
	}

	/*
	 * In blocks, to bound the scratch copy; the loop never appends
	 * nothing, which H5TB treats as an error (an empty selection).
	 */
	for (start = 0; start < nrows; start += count) {
		count = nrows - start < block ? nrows - start : block;
		copy_rows(s, scratch, (const char *)rows + start * s->row_size,
			  count);
		if (H5TBappend_records(o->file, s->name, (hsize_t)count,
				       s->row_size, offsets, sizes, scratch) < 0)
			goto h5fail;
	}
	ret = RFX_OK;
	goto out;

h5fail:
	ret = h5_error(err, RFX_EIO, "cannot write table '%s' to '%s'",
		       s->name, o->path);
out:
	if (did >= 0)
		H5Dclose(did);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sid >= 0)
		H5Sclose(sid);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (ftype >= 0)
		H5Tclose(ftype);
	free(offsets);
	free(sizes);
	free(scratch);
	return ret;
}


/*
 * Result tables in HDF5: writing them in the layout of the HDF5 high-level
 * table API (H5TB), atomically and byte-reproducibly, and reading any such
 * table back as tab-separated text for gnuplot and the shell.
 *
 * On disk a table is a chunked, extendible 1-D dataset of a packed
 * compound type with little-endian standard member types, so the bytes do
 * not depend on the host's struct padding or byte order (padding would
 * also carry whatever the caller's struct held there). The reader does not
 * assume rfx wrote the file: it builds its own native row type from the
 * stored one, so tables made by H5TBmake_table, PyTables or h5py print too.
 */
#include "io/table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#define TABLE_CLASS "TABLE" /* H5TB's CLASS attribute value */
#define TABLE_VERSION "3.0" /* H5TB's VERSION attribute value */

/*
 * H5TBappend_records and friends copy member names into buffers of
 * HLTB_MAX_FIELD_LEN (255) bytes without checking; longer names would
 * overflow inside the library.
 */
#define FIELD_NAME_MAX 254

#define CHUNK_BYTES 65536 /* target size of one dataset chunk */
#define IO_BYTES (1 << 20) /* rows are copied and read in blocks of this */

/* The link-info type changed name in the 1.12 API. */
#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t link_info;
#else
typedef H5L_info_t link_info;
#endif

struct rfx_h5out {
	hid_t file; /* the open temporary file */
	int fd;     /* mkstemp's descriptor of it, for fsync and fchmod */
	char *path; /* final name */
	char *tmp;  /* temporary name, "<path>.tmp.XXXXXX" */
};

/*
 * HDF5's reason for a failure: the innermost entry of its error stack,
 * where the problem was detected (e.g. "name already exists"). Must run
 * right after the failing call, as the next API call clears the stack.
 */
struct h5why {
	char text[200]; /* one line, never empty */
};

static herr_t why_walk(unsigned n, const H5E_error2_t *e, void *data)
{
	struct h5why *w = data;
	char *p;

	if (n == 0 && e->desc && e->desc[0]) {
		snprintf(w->text, sizeof(w->text), "%s", e->desc);
		for (p = w->text; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	}
	return 0;
}

static const char *h5_why(struct h5why *w)
{
	snprintf(w->text, sizeof(w->text), "HDF5 error");
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, why_walk, w);
	return w->text;
}

/* rfx_error() with HDF5's reason appended after a colon. */
static int h5_error(struct rfx_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int h5_error(struct rfx_err *err, int code, const char *fmt, ...)
{
	char what[RFX_ERR_MSG_MAX];
	struct h5why w;
	const char *why = h5_why(&w);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rfx_error(err, code, "%s: %s", what, why);
}

static int nomem(struct rfx_err *err)
{
	return rfx_error(err, RFX_ENOMEM, "out of memory");
}

/*
 * ---------------------------------------------------------------------
 * Writing
 * ---------------------------------------------------------------------
 */

struct rfx_h5out *rfx_h5out_open(const char *path, struct rfx_err *err)
{
	struct rfx_h5out *o = NULL; /* the handle being built */
	struct rfx_h5out *ret = NULL;
	hid_t fcpl = H5I_INVALID_HID;
	hid_t fapl = H5I_INVALID_HID;
	struct stat st;
	size_t n;

	if (!path || !path[0]) {
		rfx_error(err, RFX_EINVAL, "empty output file name");
		return NULL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		rfx_error(err, RFX_EIO, "'%s' is a directory", path);
		return NULL;
	}

	n = strlen(path);
	o = calloc(1, sizeof(*o));
	if (!o) {
		nomem(err);
		goto out;
	}
	o->file = H5I_INVALID_HID;
	o->fd = -1;
	o->path = malloc(n + 1);
	o->tmp = malloc(n + sizeof(".tmp.XXXXXX"));
	if (!o->path || !o->tmp) {
		nomem(err);
		goto out;
	}
	memcpy(o->path, path, n + 1);
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));

	/*
	 * mkstemp picks a name no other run uses and fails with errno set
	 * when the directory is missing or unwritable, which is the message
	 * the user needs ("No such file or directory").
	 */
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		rfx_error(err, RFX_EIO, "cannot create '%s': %s", path,
			  strerror(errno));
		goto out;
	}

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
	/* Truncates the same inode, which o->fd keeps open for commit. */
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
			close(o->fd);
			unlink(o->tmp);
		}
		free(o->path);
		free(o->tmp);
		free(o);
	}
	return ret;
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
	free(o->tmp);
	free(o);
}

void rfx_h5out_abort(struct rfx_h5out *o)
{
	if (!o)
		return;
	if (o->file >= 0)
		H5Fclose(o->file);
	unlink(o->tmp);
	h5out_free(o);
}

int rfx_h5out_commit(struct rfx_h5out *o, struct rfx_err *err)
{
	int ret = RFX_OK;
	mode_t mask;
	herr_t st;

	if (!o)
		return rfx_error(err, RFX_EINVAL, "no output file to commit");
	st = H5Fclose(o->file);
	o->file = H5I_INVALID_HID;
	if (st < 0) {
		ret = h5_error(err, RFX_EIO, "cannot write '%s'", o->path);
		goto out;
	}

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
	st = close(o->fd);
	o->fd = -1;
	if (st < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot write '%s': %s", o->path,
				strerror(errno));
		goto out;
	}
	if (rename(o->tmp, o->path) < 0) {
		ret = rfx_error(err, RFX_EIO, "cannot rename '%s' to '%s': %s",
				o->tmp, o->path, strerror(errno));
		goto out;
	}

out:
	if (ret != RFX_OK)
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

/* Writes a scalar unsigned 64-bit attribute of the root (the seed, sizes). */
static int write_u64(struct rfx_h5out *o, const char *name, uint64_t v,
		     struct rfx_err *err)
{
	hid_t sid = H5I_INVALID_HID;
	hid_t aid = H5I_INVALID_HID;
	htri_t has;
	int ret = RFX_OK;

	if ((has = H5Aexists(o->file, name)) < 0 ||
	    (has > 0 && H5Adelete(o->file, name) < 0) ||
	    (sid = H5Screate(H5S_SCALAR)) < 0 ||
	    (aid = H5Acreate2(o->file, name, H5T_STD_U64LE, sid, H5P_DEFAULT,
			      H5P_DEFAULT)) < 0 ||
	    H5Awrite(aid, H5T_NATIVE_UINT64, &v) < 0) {
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

/* Rejects a schema whose declared layout cannot be the struct it names. */
static int check_schema(const struct rfx_schema *s, struct rfx_err *err)
{
	int i;

	if (!s->name || !s->name[0] || strchr(s->name, '/') ||
	    !strcmp(s->name, "."))
		return rfx_error(err, RFX_EINVAL, "bad table name '%s'",
				 s->name ? s->name : "(null)");
	if (s->ncols <= 0 || !s->cols || s->row_size == 0)
		return rfx_error(err, RFX_EINVAL, "table '%s' has no columns",
				 s->name);
	for (i = 0; i < s->ncols; i++) {
		const struct rfx_column *c = &s->cols[i];
		size_t want = 0; /* the size the type implies, 0 for strings */

		if (!c->name || !c->name[0] || strlen(c->name) > FIELD_NAME_MAX)
			return rfx_error(err, RFX_EINVAL,
					 "table '%s': column %d needs a name of 1 to %d characters",
					 s->name, i, FIELD_NAME_MAX);
		switch (c->type) {
		case RFX_COL_DOUBLE:
			want = sizeof(double);
			break;
		case RFX_COL_INT:
			want = sizeof(int);
			break;
		case RFX_COL_LONG:
			want = sizeof(long);
			break;
		case RFX_COL_STRING:
			break;
		default:
			return rfx_error(err, RFX_EINVAL,
					 "table '%s': column '%s' has unknown type %d",
					 s->name, c->name, (int)c->type);
		}
		if ((want && c->size != want) || c->size == 0 ||
		    c->offset > s->row_size || c->size > s->row_size - c->offset)
			return rfx_error(err, RFX_EINVAL,
					 "table '%s': column '%s' does not fit its row",
					 s->name, c->name);
	}
	return RFX_OK;
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
	if ((ret = check_schema(s, err)))
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
	if (H5LTset_attribute_string(o->file, s->name, "CLASS", TABLE_CLASS) < 0 ||
	    H5LTset_attribute_string(o->file, s->name, "VERSION", TABLE_VERSION) < 0 ||
	    H5LTset_attribute_string(o->file, s->name, "TITLE",
				     s->title ? s->title : "") < 0)
		goto h5fail;
	for (i = 0; i < s->ncols; i++) {
		snprintf(aname, sizeof(aname), "FIELD_%d_NAME", i);
		if (H5LTset_attribute_string(o->file, s->name, aname,
					     s->cols[i].name) < 0)
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

/*
 * ---------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------
 */

/* How a column is read into memory and printed. */
enum kind {
	K_DOUBLE, /* any float wider than float: double, %.17g */
	K_FLOAT,  /* 4-byte float, %.9g (round-trips a float) */
	K_INT,    /* signed integer up to int, %d */
	K_LONG,   /* wider signed integer, %ld */
	K_ULONG,  /* unsigned integer, %lu */
	K_STRING  /* fixed-length string, read with room for a NUL */
};

struct col {
	char *name;     /* member name (malloc) */
	enum kind kind; /* how it is read and printed */
	size_t size;    /* bytes in the memory row */
	size_t offset;  /* offset in the memory row */
};

/* A table opened and checked, ready to print. */
struct tab {
	const char *name; /* dataset name (borrowed) */
	hid_t dset;       /* the open dataset */
	hid_t mtype;      /* native memory row type */
	size_t msize;     /* its size */
	hsize_t nrows;    /* rows in the dataset */
	int ncols;        /* columns */
	struct col *cols; /* the columns */
	int *wcol;        /* the column each where-condition tests */
	double *wval;     /* its value, for floating-point columns */
	long long *wint;  /* its value, for integer columns */
};

/* A growing list of malloc'd names. */
struct names {
	char **v;   /* the names */
	size_t n;   /* used */
	size_t cap; /* allocated */
};

static void names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int names_add(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(name)))
		return -1;
	l->n++;
	return 0;
}

/*
 * Opens path read-only. The file is first opened with open(2) so that a
 * missing or unreadable file gets the system's reason, and a readable
 * file HDF5 does not recognise is reported as such, not as "cannot open".
 */
static int open_input(const char *path, hid_t *file, struct rfx_err *err)
{
	struct stat st;
	htri_t is;
	int fd;

	*file = H5I_INVALID_HID;
	if (!path)
		return rfx_error(err, RFX_EINVAL, "no input file given");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
				 strerror(errno));
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
				 strerror(e));
	}
	close(fd);
	/* It says no (0) for an empty or text file; < 0 is an I/O failure. */
	is = H5Fis_hdf5(path);
	if (is < 0)
		return h5_error(err, RFX_EIO, "cannot open '%s'", path);
	if (is == 0)
		return rfx_error(err, RFX_EFORMAT, "'%s' is not an HDF5 file",
				 path);
	*file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (*file < 0)
		return h5_error(err, RFX_EIO, "cannot open '%s'", path);
	return RFX_OK;
}

/*
 * Reads a string attribute with one element, fixed or variable length
 * (h5py writes the latter), into a malloc'd string. Returns 1 on success,
 * 0 if the attribute is not such a string, -1 on an HDF5 or memory error.
 */
static int read_string_attr(hid_t aid, char **out)
{
	hid_t ftype = H5I_INVALID_HID;
	hid_t mtype = H5I_INVALID_HID;
	hid_t sid = H5I_INVALID_HID;
	hssize_t npoints;
	char *vstr = NULL; /* a variable-length value, HDF5's memory */
	char *buf = NULL;
	size_t size;
	htri_t var;
	int ret = -1;

	*out = NULL;
	if ((ftype = H5Aget_type(aid)) < 0 || (sid = H5Aget_space(aid)) < 0)
		goto out;
	if (H5Tget_class(ftype) != H5T_STRING) {
		ret = 0;
		goto out;
	}
	if ((npoints = H5Sget_simple_extent_npoints(sid)) < 0)
		goto out;
	if (npoints != 1) {
		ret = 0;
		goto out;
	}
	if ((var = H5Tis_variable_str(ftype)) < 0 ||
	    (mtype = H5Tcopy(H5T_C_S1)) < 0)
		goto out;
	/* HDF5 refuses to convert between ASCII and UTF-8; keep the set. */
	if (H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0)
		goto out;
	if (var) {
		if (H5Tset_size(mtype, H5T_VARIABLE) < 0 ||
		    H5Aread(aid, mtype, &vstr) < 0)
			goto out;
		buf = strdup(vstr ? vstr : "");
	} else {
		if ((size = H5Tget_size(ftype)) == 0 ||
		    H5Tset_size(mtype, size + 1) < 0 ||
		    H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
		    !(buf = malloc(size + 1)) || H5Aread(aid, mtype, buf) < 0)
			goto out;
		buf[size] = '\0';
	}
	if (!buf)
		goto out;
	*out = buf;
	buf = NULL;
	ret = 1;

out:
	if (vstr)
		H5free_memory(vstr);
	free(buf);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (sid >= 0)
		H5Sclose(sid);
	if (ftype >= 0)
		H5Tclose(ftype);
	return ret;
}

/*
 * Whether name in group g is a table: a dataset whose CLASS attribute is
 * "TABLE", the test H5TB and PyTables use. 1 yes, 0 no, -1 error.
 */
static int is_table(hid_t g, const char *name)
{
	hid_t obj = H5I_INVALID_HID;
	hid_t aid = H5I_INVALID_HID;
	char *cls = NULL;
	htri_t has;
	int ret = -1;

	if ((obj = H5Oopen(g, name, H5P_DEFAULT)) < 0)
		goto out;
	ret = 0;
	if (H5Iget_type(obj) != H5I_DATASET)
		goto out;
	if ((has = H5Aexists(obj, "CLASS")) <= 0) {
		ret = has < 0 ? -1 : 0;
		goto out;
	}
	if ((aid = H5Aopen(obj, "CLASS", H5P_DEFAULT)) < 0) {
		ret = -1;
		goto out;
	}
	ret = read_string_attr(aid, &cls);
	if (ret > 0)
		ret = strcmp(cls, TABLE_CLASS) == 0;

out:
	free(cls);
	if (aid >= 0)
		H5Aclose(aid);
	if (obj >= 0)
		H5Oclose(obj);
	return ret;
}

static herr_t list_cb(hid_t g, const char *name, const link_info *info,
		      void *data)
{
	struct names *l = data;
	int t;

	/* Soft and external links may dangle; rfx never makes them. */
	if (info->type != H5L_TYPE_HARD)
		return 0;
	if ((t = is_table(g, name)) < 0)
		return -1;
	if (t && names_add(l, name) < 0)
		return -1;
	return 0;
}

/*
 * The tables in the root group of file, in name order (HDF5's name index,
 * i.e. strcmp order), which unlike creation order needs no index of its
 * own in the file and does not change when a file is rewritten.
 */
static int list_tables(hid_t file, const char *path, struct names *l,
		       struct rfx_err *err)
{
	hsize_t idx = 0;

	if (H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &idx, list_cb, l) < 0)
		return h5_error(err, RFX_EIO, "cannot list the tables in '%s'",
				path);
	return RFX_OK;
}

/* "a, b, c", or "none"; NULL if out of memory. */
static char *names_join(const struct names *l)
{
	size_t len = 5, i;
	char *s, *p;

	for (i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 2;
	if (!(s = malloc(len)))
		return NULL;
	if (l->n == 0) {
		strcpy(s, "none");
		return s;
	}
	for (p = s, i = 0; i < l->n; i++) {
		size_t n = strlen(l->v[i]);

		if (i > 0) {
			memcpy(p, ", ", 2);
			p += 2;
		}
		memcpy(p, l->v[i], n);
		p += n;
	}
	*p = '\0';
	return s;
}

static void tab_close(struct tab *t)
{
	int i;

	if (t->cols)
		for (i = 0; i < t->ncols; i++)
			free(t->cols[i].name);
	free(t->cols);
	free(t->wcol);
	free(t->wval);
	free(t->wint);
	if (t->mtype >= 0)
		H5Tclose(t->mtype);
	if (t->dset >= 0)
		H5Dclose(t->dset);
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * Chooses the memory kind of one stored member. Returns -1 for a type
 * the dump cannot print (compound, array, enum, variable-length...).
 */
static int member_kind(hid_t mt, struct col *c)
{
	size_t size = H5Tget_size(mt);
	H5T_sign_t sign;

	if (size == 0)
		return -1;
	switch (H5Tget_class(mt)) {
	case H5T_FLOAT:
		c->kind = size <= sizeof(float) ? K_FLOAT : K_DOUBLE;
		c->size = c->kind == K_FLOAT ? sizeof(float) : sizeof(double);
		return 0;
	case H5T_INTEGER:
		if ((sign = H5Tget_sign(mt)) == H5T_SGN_ERROR)
			return -1;
		if (sign == H5T_SGN_NONE)
			c->kind = K_ULONG;
		else
			c->kind = size <= sizeof(int) ? K_INT : K_LONG;
		c->size = c->kind == K_INT ? sizeof(int) : sizeof(long);
		return 0;
	case H5T_STRING:
		if (H5Tis_variable_str(mt) != 0)
			return -1;
		c->kind = K_STRING;
		c->size = size + 1;
		return 0;
	default:
		return -1;
	}
}

/* The native memory type of a column of kind c->kind; to be closed. */
static hid_t member_mtype(hid_t ft, const struct col *c)
{
	hid_t t;

	switch (c->kind) {
	case K_DOUBLE:
		return H5Tcopy(H5T_NATIVE_DOUBLE);
	case K_FLOAT:
		return H5Tcopy(H5T_NATIVE_FLOAT);
	case K_INT:
		return H5Tcopy(H5T_NATIVE_INT);
	case K_LONG:
		return H5Tcopy(H5T_NATIVE_LONG);
	case K_ULONG:
		return H5Tcopy(H5T_NATIVE_ULONG);
	case K_STRING:
		/*
		 * One byte longer than stored and NUL-terminated, so a full
		 * NULLPAD string (numpy's "S" type) still ends in a NUL. The
		 * character set is kept: HDF5 will not convert between sets.
		 */
		if ((t = H5Tcopy(H5T_C_S1)) < 0)
			return H5I_INVALID_HID;
		if (H5Tset_size(t, c->size) < 0 ||
		    H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
		    H5Tset_cset(t, H5Tget_cset(ft)) < 0) {
			H5Tclose(t);
			return H5I_INVALID_HID;
		}
		return t;
	}
	return H5I_INVALID_HID;
}

/*
 * Opens table name of file, builds a memory row type for it and resolves
 * the where-conditions against its columns, so that every error a dump
 * can foresee is found before it prints anything.
 */
static int tab_open(hid_t file, const char *path, const char *name,
		    const char *const *where, int nwhere, struct tab *t,
		    struct rfx_err *err)
{
	hid_t ftype = H5I_INVALID_HID; /* stored row type */
	hid_t fm = H5I_INVALID_HID;    /* one stored member type */
	hid_t mm = H5I_INVALID_HID;    /* its memory type */
	hid_t sid = H5I_INVALID_HID;
	size_t off = 0;
	hsize_t dims[1];
	char *hname = NULL; /* a member name, HDF5's memory */
	int i, j, n;
	int ret;

	t->name = name;
	t->dset = H5I_INVALID_HID;
	t->mtype = H5I_INVALID_HID;
	t->cols = NULL;
	t->wcol = NULL;
	t->wval = NULL;
	t->wint = NULL;
	t->ncols = 0;

	if ((t->dset = H5Dopen2(file, name, H5P_DEFAULT)) < 0 ||
	    (ftype = H5Dget_type(t->dset)) < 0 ||
	    (sid = H5Dget_space(t->dset)) < 0)
		goto h5fail;
	if (H5Tget_class(ftype) != H5T_COMPOUND ||
	    H5Sget_simple_extent_ndims(sid) != 1) {
		ret = rfx_error(err, RFX_EFORMAT,
				"table '%s' in '%s' is not a 1-D compound dataset",
				name, path);
		goto out;
	}
	if (H5Sget_simple_extent_dims(sid, dims, NULL) < 0 ||
	    (n = H5Tget_nmembers(ftype)) < 0)
		goto h5fail;
	t->nrows = dims[0];
	if (!(t->cols = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->cols)))) {
		ret = nomem(err);
		goto out;
	}
	t->ncols = n;

	/* First the layout, as the compound's size must be known first. */
	for (i = 0; i < n; i++) {
		struct col *c = &t->cols[i];

		if (!(hname = H5Tget_member_name(ftype, (unsigned)i)) ||
		    (fm = H5Tget_member_type(ftype, (unsigned)i)) < 0)
			goto h5fail;
		if (!(c->name = strdup(hname))) {
			ret = nomem(err);
			goto out;
		}
		H5free_memory(hname);
		hname = NULL;
		if (member_kind(fm, c) < 0) {
			ret = rfx_error(err, RFX_EFORMAT,
					"column '%s' of table '%s' in '%s' has a type rfx cannot print",
					c->name, name, path);
			goto out;
		}
		H5Tclose(fm);
		fm = H5I_INVALID_HID;
		off = align_up(off, c->kind == K_STRING ? 1 : c->size);
		c->offset = off;
		off += c->size;
	}
	t->msize = align_up(off > 0 ? off : 1, sizeof(double));

	if ((t->mtype = H5Tcreate(H5T_COMPOUND, t->msize)) < 0)
		goto h5fail;
	for (i = 0; i < n; i++) {
		if ((fm = H5Tget_member_type(ftype, (unsigned)i)) < 0 ||
		    (mm = member_mtype(fm, &t->cols[i])) < 0 ||
		    H5Tinsert(t->mtype, t->cols[i].name, t->cols[i].offset, mm) < 0)
			goto h5fail;
		H5Tclose(mm);
		mm = H5I_INVALID_HID;
		H5Tclose(fm);
		fm = H5I_INVALID_HID;
	}

	if (nwhere > 0 && (!(t->wcol = malloc((size_t)nwhere * sizeof(int))) ||
			   !(t->wval = malloc((size_t)nwhere * sizeof(double))) ||
			   !(t->wint = malloc((size_t)nwhere * sizeof(long long))))) {
		ret = nomem(err);
		goto out;
	}
	for (j = 0; j < nwhere; j++) {
		size_t len = (size_t)(strchr(where[j], '=') - where[j]);

		for (i = 0; i < n; i++)
			if (strlen(t->cols[i].name) == len &&
			    !memcmp(t->cols[i].name, where[j], len))
				break;
		if (i == n) {
			ret = rfx_error(err, RFX_EINVAL,
					"no column '%.*s' in table '%s'",
					(int)len, where[j], name);
			goto out;
		}
		t->wcol[j] = i;
		/*
		 * Numbers compare by value, so gamma=0.1 matches 0.1 however it
		 * is printed; integers exactly, beyond double's 2^53.
		 */
		if (t->cols[i].kind != K_STRING) {
			const char *v = where[j] + len + 1;
			char *end;
			int is_int = t->cols[i].kind == K_INT ||
				     t->cols[i].kind == K_LONG;

			errno = 0;
			if (t->cols[i].kind == K_ULONG)
				t->wint[j] = (long long)strtoull(v, &end, 10);
			else if (is_int)
				t->wint[j] = strtoll(v, &end, 10);
			else
				t->wval[j] = strtod(v, &end);
			if (end == v || *end || errno == ERANGE ||
			    (t->cols[i].kind == K_ULONG && v[0] == '-')) {
				ret = rfx_error(err, RFX_EINVAL,
						"condition '%s': column '%s' is numeric",
						where[j], t->cols[i].name);
				goto out;
			}
		}
	}
	ret = RFX_OK;
	goto out;

h5fail:
	ret = h5_error(err, RFX_EIO, "cannot read table '%s' in '%s'", name,
		       path);
out:
	if (hname)
		H5free_memory(hname);
	if (mm >= 0)
		H5Tclose(mm);
	if (fm >= 0)
		H5Tclose(fm);
	if (sid >= 0)
		H5Sclose(sid);
	if (ftype >= 0)
		H5Tclose(ftype);
	return ret;
}

/*
 * The text of one cell, as printed: numbers are formatted into tmp,
 * strings are returned in place (the memory type made them end in NUL).
 */
static const char *cell_text(const struct col *c, const char *row, char *tmp,
			     size_t n)
{
	const char *p = row + c->offset;

	switch (c->kind) {
	case K_DOUBLE: {
		double v;

		memcpy(&v, p, sizeof(v));
		rfx_table_format_double(v, tmp, n);
		return tmp;
	}
	case K_FLOAT: {
		float v;

		memcpy(&v, p, sizeof(v));
		snprintf(tmp, n, "%.9g", (double)v);
		return tmp;
	}
	case K_INT: {
		int v;

		memcpy(&v, p, sizeof(v));
		snprintf(tmp, n, "%d", v);
		return tmp;
	}
	case K_LONG: {
		long v;

		memcpy(&v, p, sizeof(v));
		snprintf(tmp, n, "%ld", v);
		return tmp;
	}
	case K_ULONG: {
		unsigned long v;

		memcpy(&v, p, sizeof(v));
		snprintf(tmp, n, "%lu", v);
		return tmp;
	}
	case K_STRING:
		return p;
	}
	return "";
}

/* Whether column c of row meets condition cond ("col=value"). */
static int cell_matches(const struct col *c, const char *row, const char *cond,
			double dv, long long iv, char *tmp, size_t n)
{
	const char *p = row + c->offset;

	switch (c->kind) {
	case K_DOUBLE: {
		double v;

		memcpy(&v, p, sizeof(v));
		return v == dv;
	}
	case K_FLOAT: {
		float v;

		memcpy(&v, p, sizeof(v));
		return (double)v == dv;
	}
	case K_INT: {
		int v;

		memcpy(&v, p, sizeof(v));
		return (long long)v == iv;
	}
	case K_LONG: {
		long v;

		memcpy(&v, p, sizeof(v));
		return (long long)v == iv;
	}
	case K_ULONG: {
		unsigned long v;

		memcpy(&v, p, sizeof(v));
		return (unsigned long long)v == (unsigned long long)iv;
	}
	case K_STRING:
		break;
	}
	return !strcmp(cell_text(c, row, tmp, n), strchr(cond, '=') + 1);
}

/* Prints the header and the rows of t that satisfy every condition. */
static int tab_print(const struct tab *t, const char *path,
		     const char *const *where, int nwhere, FILE *out,
		     struct rfx_err *err)
{
	hid_t fsid = H5I_INVALID_HID;
	hid_t msid = H5I_INVALID_HID;
	char *buf = NULL;  /* a block of rows */
	char tmp[64];      /* one formatted number */
	hsize_t block;     /* rows per read */
	hsize_t start, count;
	hsize_t r;
	int i, j;
	int ret = RFX_OK;

	for (i = 0; i < t->ncols; i++) {
		if (i > 0)
			putc('\t', out);
		fputs(t->cols[i].name, out);
	}
	putc('\n', out);

	block = IO_BYTES / t->msize;
	if (block > t->nrows)
		block = t->nrows;
	if (block < 1)
		block = 1;
	if (!(buf = malloc((size_t)block * t->msize))) {
		ret = nomem(err);
		goto out;
	}
	if ((fsid = H5Dget_space(t->dset)) < 0)
		goto h5fail;
	for (start = 0; start < t->nrows; start += count) {
		count = t->nrows - start < block ? t->nrows - start : block;
		if (H5Sselect_hyperslab(fsid, H5S_SELECT_SET, &start, NULL,
					&count, NULL) < 0 ||
		    (msid = H5Screate_simple(1, &count, NULL)) < 0 ||
		    H5Dread(t->dset, t->mtype, msid, fsid, H5P_DEFAULT, buf) < 0)
			goto h5fail;
		H5Sclose(msid);
		msid = H5I_INVALID_HID;
		for (r = 0; r < count; r++) {
			const char *row = buf + (size_t)r * t->msize;

			for (j = 0; j < nwhere; j++) {
				const struct col *c = &t->cols[t->wcol[j]];

				if (!cell_matches(c, row, where[j], t->wval[j],
						  t->wint[j], tmp, sizeof(tmp)))
					break;
			}
			if (j < nwhere)
				continue;
			for (i = 0; i < t->ncols; i++) {
				if (i > 0)
					putc('\t', out);
				fputs(cell_text(&t->cols[i], row, tmp,
						sizeof(tmp)), out);
			}
			putc('\n', out);
		}
	}
	if (ferror(out))
		ret = rfx_error(err, RFX_EIO, "cannot write table '%s': %s",
				t->name, strerror(errno));
	goto out;

h5fail:
	ret = h5_error(err, RFX_EIO, "cannot read table '%s' in '%s'",
		       t->name, path);
out:
	if (msid >= 0)
		H5Sclose(msid);
	if (fsid >= 0)
		H5Sclose(fsid);
	free(buf);
	return ret;
}

int rfx_h5_dump_where(const char *path, const char *table,
		      const char *const *where, int nwhere, FILE *out,
		      struct rfx_err *err)
{
	hid_t file = H5I_INVALID_HID;
	struct names all = { NULL, 0, 0 }; /* every table in the file */
	struct tab *tabs = NULL;           /* the tables to print */
	size_t first = 0;                  /* index in all of the first */
	size_t ntabs = 0, opened = 0, i;
	char *list = NULL;
	int ret;
	int j;

	if (!out || nwhere < 0 || (nwhere > 0 && !where))
		return rfx_error(err, RFX_EINVAL, "bad arguments to dump");
	for (j = 0; j < nwhere; j++)
		if (!where[j] || !strchr(where[j], '=') || where[j][0] == '=')
			return rfx_error(err, RFX_EINVAL,
					 "bad condition '%s' (want column=value)",
					 where[j] ? where[j] : "(null)");

	if ((ret = open_input(path, &file, err)))
		goto out;
	if ((ret = list_tables(file, path, &all, err)))
		goto out;

	if (table) {
		for (i = 0; i < all.n; i++)
			if (!strcmp(all.v[i], table))
				break;
		if (i == all.n) {
			if (!(list = names_join(&all))) {
				ret = nomem(err);
				goto out;
			}
			ret = rfx_error(err, RFX_EINVAL,
					"no table '%s' in '%s' (tables: %s)",
					table, path, list);
			goto out;
		}
		first = i;
		ntabs = 1;
	} else {
		ntabs = all.n;
	}
	if (!(tabs = calloc(ntabs > 0 ? ntabs : 1, sizeof(*tabs)))) {
		ret = nomem(err);
		goto out;
	}
	for (opened = 0; opened < ntabs; opened++) {
		ret = tab_open(file, path, all.v[first + opened], where, nwhere,
			       &tabs[opened], err);
		if (ret) {
			opened++; /* it holds resources too */
			goto out;
		}
	}

	for (i = 0; i < ntabs; i++) {
		/* Two blank lines end a gnuplot data block ("index"). */
		if (!table)
			fprintf(out, "%s# %s\n", i > 0 ? "\n\n" : "",
				tabs[i].name);
		if ((ret = tab_print(&tabs[i], path, where, nwhere, out, err)))
			goto out;
	}

out:
	for (i = 0; i < opened; i++)
		tab_close(&tabs[i]);
	free(tabs);
	free(list);
	names_free(&all);
	if (file >= 0)
		H5Fclose(file);
	return ret;
}

int rfx_h5_dump(const char *path, const char *table, FILE *out,
		struct rfx_err *err)
{
	return rfx_h5_dump_where(path, table, NULL, 0, out, err);
}

/* State shared with attr_cb. */
struct attr_ctx {
	FILE *out;            /* where to print */
	const char *path;     /* the file, for messages */
	struct rfx_err *err;  /* where to report */
	int ret;              /* status of the first failure */
};

/* Prints the numbers of a numeric attribute, comma-separated. */
static int print_numbers(hid_t aid, hid_t ftype, hssize_t npoints, FILE *out)
{
	H5T_class_t cls = H5Tget_class(ftype);
	H5T_sign_t sign = H5Tget_sign(ftype);
	void *buf = NULL;
	hssize_t i;
	int ret = -1;

	if (npoints < 1 || !(buf = malloc((size_t)npoints * 8)))
		goto out;
	if (cls == H5T_FLOAT) {
		const double *v = buf;

		if (H5Aread(aid, H5T_NATIVE_DOUBLE, buf) < 0)
			goto out;
		for (i = 0; i < npoints; i++)
			fprintf(out, "%s%.17g", i ? "," : "", v[i]);
	} else if (sign == H5T_SGN_NONE) {
		const uint64_t *v = buf;

		if (H5Aread(aid, H5T_NATIVE_UINT64, buf) < 0)
			goto out;
		for (i = 0; i < npoints; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
	} else {
		const int64_t *v = buf;

		if (H5Aread(aid, H5T_NATIVE_INT64, buf) < 0)
			goto out;
		for (i = 0; i < npoints; i++)
			fprintf(out, "%s%" PRId64, i ? "," : "", v[i]);
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info,
		      void *data)
{
	struct attr_ctx *x = data;
	hid_t aid = H5I_INVALID_HID;
	hid_t ftype = H5I_INVALID_HID;
	hid_t sid = H5I_INVALID_HID;
	hssize_t npoints;
	H5T_class_t cls;
	char *s = NULL;
	int r;

	(void)info;
	if ((aid = H5Aopen(loc, name, H5P_DEFAULT)) < 0 ||
	    (ftype = H5Aget_type(aid)) < 0 || (sid = H5Aget_space(aid)) < 0 ||
	    (npoints = H5Sget_simple_extent_npoints(sid)) < 0)
		goto h5fail;
	cls = H5Tget_class(ftype);
	if (cls == H5T_STRING) {
		if ((r = read_string_attr(aid, &s)) < 0)
			goto h5fail;
		if (r == 0)
			goto unsupported;
		fprintf(x->out, "%s\t%s\n", name, s);
	} else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
		fprintf(x->out, "%s\t", name);
		if (print_numbers(aid, ftype, npoints, x->out) < 0)
			goto h5fail;
		putc('\n', x->out);
	} else {
		goto unsupported;
	}
	goto out;

unsupported:
	x->ret = rfx_error(x->err, RFX_EFORMAT,
			   "attribute '%s' in '%s' has a type rfx cannot print",
			   name, x->path);
	goto out;
h5fail:
	x->ret = h5_error(x->err, RFX_EIO, "cannot read attribute '%s' in '%s'",
			  name, x->path);
out:
	free(s);
	if (sid >= 0)
		H5Sclose(sid);
	if (ftype >= 0)
		H5Tclose(ftype);
	if (aid >= 0)
		H5Aclose(aid);
	return x->ret ? -1 : 0;
}

int rfx_h5_dump_attrs(const char *path, FILE *out, struct rfx_err *err)
{
	struct attr_ctx x = { out, path, err, RFX_OK };
	hid_t file = H5I_INVALID_HID;
	hid_t root = H5I_INVALID_HID;
	hsize_t idx = 0;
	int ret;

	if (!out)
		return rfx_error(err, RFX_EINVAL, "bad arguments to dump");
	if ((ret = open_input(path, &file, err)))
		goto out;
	if ((root = H5Gopen2(file, "/", H5P_DEFAULT)) < 0) {
		ret = h5_error(err, RFX_EIO, "cannot read '%s'", path);
		goto out;
	}
	if (H5Aiterate2(root, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &x) < 0) {
		/* A callback failure has its own message already. */
		ret = x.ret ? x.ret
			    : h5_error(err, RFX_EIO,
				       "cannot list the attributes of '%s'", path);
		goto out;
	}
	if (ferror(out))
		ret = rfx_error(err, RFX_EIO, "cannot write attributes: %s",
				strerror(errno));

out:
	if (root >= 0)
		H5Gclose(root);
	if (file >= 0)
		H5Fclose(file);
	return ret;
}

void rfx_table_format_double(double v, char *buf, size_t n)
{
	int prec;

	/* The shortest %.Ng that reads back as the same double. */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v || v != v)
			return;
	}
	snprintf(buf, n, "%.17g", v);
}

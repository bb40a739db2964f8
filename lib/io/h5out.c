/*
 * The HDF5 writer of result tables (see h5out.h): an HDF5 file on the
 * temporary of an atomic output file (io/outfile.h), and the tables in
 * H5TB's layout with little-endian packed members.
 */
#include "io/h5out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "io/outfile.h"

#define CHUNK_BYTES 65536 /* target size of one dataset chunk */
#define IO_BYTES (1 << 20) /* rows are copied in blocks of this */

#define h5_error rfx_table_h5_error

struct rfx_h5out {
	hid_t file;             /* the open temporary file */
	struct rfx_outfile *f;  /* its name, descriptor and lock */
	const char *path;       /* f->path, the name the user gave */
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

struct rfx_h5out *rfx_h5out_open(const char *path, struct rfx_err *err)
{
	struct rfx_h5out *o = NULL; /* the handle being built */
	struct rfx_h5out *ret = NULL;
	hid_t fcpl = H5I_INVALID_HID;
	hid_t fapl = H5I_INVALID_HID;

	o = calloc(1, sizeof(*o));
	if (!o) {
		nomem(err);
		return NULL;
	}
	o->file = H5I_INVALID_HID;
	if (!(o->f = rfx_outfile_open(path, err)))
		goto out;
	o->path = o->f->path;

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
	/* Truncates the same inode, which o->f keeps open and locked. */
	o->file = H5Fcreate(o->f->tmp, H5F_ACC_TRUNC, fcpl, fapl);
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
	if (!ret) {
		rfx_outfile_abort(o->f);
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
	return o ? o->f->tmp : NULL;
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
	if (o->f->fd >= 0 && ftruncate(o->f->fd, 0) < 0) {
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
	unlink(o->f->tmp);
	close_failed(o);
	rfx_outfile_abort(o->f);
	free(o);
}

int rfx_h5out_commit(struct rfx_h5out *o, struct rfx_err *err)
{
	int ret;

	if (!o)
		return rfx_error(err, RFX_EINVAL, "no output file to commit");
	if (H5Fclose(o->file) < 0) {
		/* Half closed: never closed again (see close_failed). */
		ret = h5_error(err, RFX_EIO, "cannot write '%s'", o->path);
		abandoned = 1;
		rfx_outfile_abort(o->f);
	} else {
		/* H5Fclose leaves the data in the page cache: commit syncs */
		ret = rfx_outfile_commit(o->f, err);
	}
	free(o);
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


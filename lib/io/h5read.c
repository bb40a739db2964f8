/*
 * The reader of result tables (see h5read.h): opening an HDF5 file that
 * may be damaged, checking each table's metadata before reading a row,
 * printing rows as TSV, the root attributes and the column descriptions.
 */
#include "io/h5read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "base/cancel.h"
#include "base/fmt.h"
#include "base/infile.h"
#include "io/table.h"

#define IO_BYTES (1 << 20) /* rows are read in blocks of this */

/*
 * Compression can make a table's rows take fewer bytes in the file than
 * in memory, but deflate (the usual filter) never by more than about
 * 1032:1; a filtered table claiming more rows than this many per byte of
 * the file is damaged.
 */
#define MAX_RATIO 1100

/* The link-info type changed name in the 1.12 API. */
#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t link_info;
#else
typedef H5L_info_t link_info;
#endif

#define h5_error rfx_table_h5_error

static int nomem(struct rfx_err *err)
{
	return rfx_error(err, RFX_ENOMEM, "out of memory");
}

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
	int lacks;        /* some where-column is not in this table */
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
 * Opens path read-only. A special file or a directory is refused first
 * (base/infile.h); the file is then opened with open(2) so that a
 * missing or unreadable file gets the system's reason, and a readable
 * file HDF5 does not recognise is reported as such, not as "cannot open".
 */
static int open_input(const char *path, hid_t *file, struct rfx_err *err)
{
	htri_t is;
	int fd, ret;

	*file = H5I_INVALID_HID;
	if ((ret = rfx_infile_check(path, err)))
		return ret;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return rfx_error(err, RFX_EIO, "cannot open '%s': %s", path,
				 strerror(errno));
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
		ret = strcmp(cls, RFX_TABLE_CLASS) == 0;

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

/*
 * RFX_EINVAL where a dump or describe of the whole file finds no table:
 * rfx writes every result as one, so such a file is another program's
 * (HDF5 arrays, say), and printing nothing with success would read as an
 * empty result.
 */
static int need_tables(const struct names *all, const char *path,
		       struct rfx_err *err)
{
	if (all->n > 0)
		return RFX_OK;
	return rfx_error(err, RFX_EINVAL,
			 "'%s' has no tables (rfx writes each result as one)",
			 path);
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

/*
 * The index of table in l, or RFX_EINVAL "no table 'x' in 'f.h5' (tables:
 * a, b)" when the file has none of that name (the one message of dump and
 * describe).
 */
static int find_table(const struct names *l, const char *table,
		      const char *path, size_t *idx, struct rfx_err *err)
{
	char *list;
	size_t i;
	int ret;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], table)) {
			*idx = i;
			return RFX_OK;
		}
	if (!(list = names_join(l)))
		return nomem(err);
	ret = rfx_error(err, RFX_EINVAL, "no table '%s' in '%s' (tables: %s)",
			table, path, list);
	free(list);
	return ret;
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

/* A member's place in the stored row, for check_layout. */
struct span {
	size_t off;  /* offset in the stored row */
	size_t size; /* bytes */
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Checks what HDF5 would otherwise trust when reading rows, each seen to
 * crash or run away libhdf5 1.10.8 on a file with one byte changed: the
 * stored row's members must lie inside the row without overlapping (else
 * SIGSEGV in the struct conversion), a chunked layout must be 1-D with
 * rows in its chunk (else SIGFPE), and the rows must fit in the file
 * (else a flipped row count prints 2^31 rows of fill values). RFX_OK or
 * RFX_EFORMAT "table 't' in 'x.h5' is damaged: ...".
 */
static int check_layout(hid_t file, hid_t dset, hid_t ftype, hsize_t nrows,
			const char *name, const char *path, struct rfx_err *err)
{
	hid_t dcpl = H5I_INVALID_HID;
	hid_t mt = H5I_INVALID_HID;
	struct span *sp = NULL;
	size_t rsize = H5Tget_size(ftype); /* bytes per stored row */
	hsize_t fsize = 0;                 /* bytes in the file */
	hsize_t chunk[2];
	H5D_layout_t layout;
	int n = H5Tget_nmembers(ftype);
	int nfilters, i;
	int ret = RFX_OK;
	const char *why = NULL;
	char buf[160];

	if (n <= 0 || rsize == 0) {
		why = "its row type has no members";
		goto out;
	}
	if (!(sp = malloc((size_t)n * sizeof(*sp)))) {
		ret = nomem(err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if ((mt = H5Tget_member_type(ftype, (unsigned)i)) < 0)
			goto h5fail;
		sp[i].off = H5Tget_member_offset(ftype, (unsigned)i);
		sp[i].size = H5Tget_size(mt);
		H5Tclose(mt);
		mt = H5I_INVALID_HID;
		if (sp[i].size == 0 || sp[i].off > rsize ||
		    sp[i].size > rsize - sp[i].off) {
			snprintf(buf, sizeof(buf),
				 "member %d (%zu bytes at %zu) lies outside its %zu-byte row",
				 i, sp[i].size, sp[i].off, rsize);
			why = buf;
			goto out;
		}
	}
	qsort(sp, (size_t)n, sizeof(*sp), span_cmp);
	for (i = 1; i < n; i++)
		if (sp[i - 1].off + sp[i - 1].size > sp[i].off) {
			why = "two members of its row overlap";
			goto out;
		}

	if ((dcpl = H5Dget_create_plist(dset)) < 0 ||
	    (layout = H5Pget_layout(dcpl)) < 0 ||
	    (nfilters = H5Pget_nfilters(dcpl)) < 0 ||
	    H5Fget_filesize(file, &fsize) < 0)
		goto h5fail;
	if (layout == H5D_CHUNKED &&
	    (H5Pget_chunk(dcpl, 2, chunk) != 1 || chunk[0] == 0)) {
		why = "its chunks are not 1-D with at least one row";
		goto out;
	}
	if (nrows > 0 && (nfilters == 0 ? nrows > fsize / rsize
					 : nrows / MAX_RATIO > fsize / rsize)) {
		snprintf(buf, sizeof(buf),
			 "%llu rows of %zu bytes, but the file has %llu bytes",
			 (unsigned long long)nrows, rsize,
			 (unsigned long long)fsize);
		why = buf;
	}
	goto out;

h5fail:
	ret = h5_error(err, RFX_EFORMAT, "table '%s' in '%s' is damaged", name,
		       path);
out:
	if (why)
		ret = rfx_error(err, RFX_EFORMAT, "table '%s' in '%s' is damaged: %s",
				name, path, why);
	if (mt >= 0)
		H5Tclose(mt);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	free(sp);
	return ret;
}

/*
 * Opens table name of file, builds a memory row type for it and resolves
 * the where-conditions against its columns, so that every error a dump
 * can foresee is found before it prints anything. A condition on a
 * column the table lacks is an error, or with lenient sets t->lacks and
 * returns RFX_OK (a dump of every table filters those that have the
 * column and leaves the others out).
 */
static int tab_open(hid_t file, const char *path, const char *name,
		    const char *const *where, int nwhere, int lenient,
		    struct tab *t, struct rfx_err *err)
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
	t->lacks = 0;

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
	if ((ret = check_layout(file, t->dset, ftype, t->nrows, name, path, err)))
		goto out;
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
		if (i == n && lenient) {
			t->lacks = 1;
			ret = RFX_OK;
			goto out;
		}
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
		rfx_fmt_double(v, tmp, n);
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

/*
 * Prints the header and the rows of t that satisfy every condition; with
 * out == NULL only reads every row, so that a table whose rows cannot be
 * read (a damaged chunk index) fails before anything is printed.
 */
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

	for (i = 0; out && i < t->ncols; i++)
		fprintf(out, "%s%s", i > 0 ? "\t" : "", t->cols[i].name);
	if (out)
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
		/* A dump into a pipe can be long: SIGTERM must end it. */
		if (rfx_cancel_requested()) {
			ret = rfx_error(err, RFX_EINTR, "interrupted");
			goto out;
		}
		count = t->nrows - start < block ? t->nrows - start : block;
		if (H5Sselect_hyperslab(fsid, H5S_SELECT_SET, &start, NULL,
					&count, NULL) < 0 ||
		    (msid = H5Screate_simple(1, &count, NULL)) < 0 ||
		    H5Dread(t->dset, t->mtype, msid, fsid, H5P_DEFAULT, buf) < 0)
			goto h5fail;
		H5Sclose(msid);
		msid = H5I_INVALID_HID;
		for (r = 0; out && r < count; r++) {
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
	if (out && ferror(out))
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
	size_t ntabs = 0, opened = 0, i, shown = 0, printed = 0;
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
		if ((ret = find_table(&all, table, path, &i, err)))
			goto out;
		first = i;
		ntabs = 1;
	} else {
		if ((ret = need_tables(&all, path, err)))
			goto out;
		ntabs = all.n;
	}
	if (!(tabs = calloc(ntabs > 0 ? ntabs : 1, sizeof(*tabs)))) {
		ret = nomem(err);
		goto out;
	}
	for (opened = 0; opened < ntabs; opened++) {
		ret = tab_open(file, path, all.v[first + opened], where, nwhere,
			       !table, &tabs[opened], err);
		if (ret) {
			opened++; /* it holds resources too */
			goto out;
		}
		shown += !tabs[opened].lacks;
	}
	/*
	 * Without a TABLE the conditions filter the tables that have their
	 * columns (`--where m=100` on HRF Fig 6's file: mse and table3, not
	 * clusters) and leave the others out; an error only if none has them.
	 */
	if (!table && nwhere > 0 && shown == 0) {
		if (nwhere == 1)
			ret = rfx_error(err, RFX_EINVAL,
					"no table in '%s' has a column '%.*s'", path,
					(int)strcspn(where[0], "="), where[0]);
		else
			ret = rfx_error(err, RFX_EINVAL,
					"no table in '%s' has every column of the %d conditions",
					path, nwhere);
		goto out;
	}

	/* Every row read once before the first is printed (tab_print). */
	for (i = 0; i < ntabs; i++)
		if (!tabs[i].lacks &&
		    (ret = tab_print(&tabs[i], path, where, nwhere, NULL, err)))
			goto out;
	for (i = 0; i < ntabs; i++) {
		if (tabs[i].lacks)
			continue;
		/* Two blank lines end a gnuplot data block ("index"). */
		if (!table)
			fprintf(out, "%s# %s\n", printed++ > 0 ? "\n\n" : "",
				tabs[i].name);
		if ((ret = tab_print(&tabs[i], path, where, nwhere, out, err)))
			goto out;
	}

out:
	for (i = 0; i < opened; i++)
		tab_close(&tabs[i]);
	free(tabs);
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
	const char *prefix;   /* before each name: "" or "options/" */
	int typed;            /* describe: print the type between name and value */
	struct rfx_err *err;  /* where to report */
	int ret;              /* status of the first failure */
};

/* An attribute larger than this is damaged (rfx writes a few bytes). */
#define ATTR_MAX_BYTES (64u << 20)

/* Prints the numbers of a numeric attribute, comma-separated. */
static int print_numbers(hid_t aid, hid_t ftype, hssize_t npoints, FILE *out)
{
	H5T_class_t cls = H5Tget_class(ftype);
	H5T_sign_t sign = H5Tget_sign(ftype);
	void *buf = NULL;
	hssize_t i;
	int ret = -1;

	if (npoints < 1 || (size_t)npoints > ATTR_MAX_BYTES / 8 ||
	    !(buf = malloc((size_t)npoints * 8)))
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

/*
 * Prints the strings of a string attribute (a scalar or an array, fixed
 * or variable length), comma-separated. 0, or -1 on an HDF5 or memory
 * error.
 */
static int print_strings(hid_t aid, hid_t ftype, hssize_t npoints, FILE *out)
{
	hid_t mtype = H5I_INVALID_HID;
	char **vstr = NULL; /* variable-length values, HDF5's memory */
	char *buf = NULL;   /* fixed-length values, size + 1 bytes each */
	size_t size = 0;
	hssize_t i;
	htri_t var;
	int ret = -1;

	if (npoints < 1 || (var = H5Tis_variable_str(ftype)) < 0 ||
	    (mtype = H5Tcopy(H5T_C_S1)) < 0 ||
	    /* HDF5 refuses to convert between ASCII and UTF-8; keep the set. */
	    H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0)
		goto out;
	if (var) {
		if ((size_t)npoints > ATTR_MAX_BYTES / sizeof(char *) ||
		    !(vstr = calloc((size_t)npoints, sizeof(char *))) ||
		    H5Tset_size(mtype, H5T_VARIABLE) < 0 ||
		    H5Aread(aid, mtype, vstr) < 0)
			goto out;
		for (i = 0; i < npoints; i++)
			fprintf(out, "%s%s", i ? "," : "", vstr[i] ? vstr[i] : "");
	} else {
		if ((size = H5Tget_size(ftype)) == 0 ||
		    (size_t)npoints > ATTR_MAX_BYTES / (size + 1) ||
		    H5Tset_size(mtype, size + 1) < 0 ||
		    H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
		    !(buf = malloc((size_t)npoints * (size + 1))) ||
		    H5Aread(aid, mtype, buf) < 0)
			goto out;
		for (i = 0; i < npoints; i++) {
			buf[(size_t)i * (size + 1) + size] = '\0';
			fprintf(out, "%s%s", i ? "," : "", buf + (size_t)i * (size + 1));
		}
	}
	ret = 0;
out:
	if (vstr) {
		for (i = 0; i < npoints; i++)
			if (vstr[i])
				H5free_memory(vstr[i]);
		free(vstr);
	}
	free(buf);
	if (mtype >= 0)
		H5Tclose(mtype);
	return ret;
}

/*
 * The type of an attribute as `rfx dump --describe` names it: int64,
 * uint64, float64, string, with "[n]" after it for an array of n.
 */
static void attr_type_name(hid_t ftype, hid_t sid, hssize_t npoints,
			   char *buf, size_t n)
{
	int rank = H5Sget_simple_extent_ndims(sid);
	size_t bits = 8 * H5Tget_size(ftype);

	switch (H5Tget_class(ftype)) {
	case H5T_FLOAT:
		snprintf(buf, n, "float%zu", bits);
		break;
	case H5T_INTEGER:
		snprintf(buf, n, "%sint%zu",
			 H5Tget_sign(ftype) == H5T_SGN_NONE ? "u" : "", bits);
		break;
	case H5T_STRING:
		snprintf(buf, n, "string");
		break;
	default:
		snprintf(buf, n, "other");
		break;
	}
	if (rank > 0) {
		size_t len = strlen(buf);

		snprintf(buf + len, n - len, "[%lld]", (long long)npoints);
	}
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
	char tname[48];

	(void)info;
	if ((aid = H5Aopen(loc, name, H5P_DEFAULT)) < 0 ||
	    (ftype = H5Aget_type(aid)) < 0 || (sid = H5Aget_space(aid)) < 0 ||
	    (npoints = H5Sget_simple_extent_npoints(sid)) < 0)
		goto h5fail;
	cls = H5Tget_class(ftype);
	if ((cls != H5T_STRING && cls != H5T_INTEGER && cls != H5T_FLOAT) ||
	    npoints < 1)
		goto unsupported;
	fprintf(x->out, "%s%s\t", x->prefix, name);
	if (x->typed) {
		attr_type_name(ftype, sid, npoints, tname, sizeof(tname));
		fprintf(x->out, "%s\t", tname);
	}
	if ((cls == H5T_STRING ? print_strings(aid, ftype, npoints, x->out)
			       : print_numbers(aid, ftype, npoints, x->out)) < 0)
		goto h5fail;
	putc('\n', x->out);
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
	if (sid >= 0)
		H5Sclose(sid);
	if (ftype >= 0)
		H5Tclose(ftype);
	if (aid >= 0)
		H5Aclose(aid);
	return x->ret ? -1 : 0;
}

/* An attribute name rfx never writes, for the check before H5Aiterate2. */
#define NO_SUCH_ATTRIBUTE "\177rfx: no attribute has this name\177"

/*
 * Prints the attributes of group `group` of file (in name order) through
 * attr_cb with x's settings; a missing group prints nothing. RFX_OK or
 * the first failure.
 */
static int print_attrs(hid_t file, const char *group, struct attr_ctx *x)
{
	hid_t g = H5I_INVALID_HID;
	hsize_t idx = 0;
	htri_t has = 1;
	int ret = RFX_OK;

	if (strcmp(group, "/") &&
	    (has = H5Lexists(file, group, H5P_DEFAULT)) < 0)
		return h5_error(x->err, RFX_EIO, "cannot read '%s'", x->path);
	if (!has)
		return RFX_OK;
	if ((g = H5Oopen(file, group, H5P_DEFAULT)) < 0)
		return h5_error(x->err, RFX_EIO, "cannot read '%s'", x->path);
	/* a dataset or a named type of that name is someone else's */
	if (H5Iget_type(g) != H5I_GROUP)
		goto out;
	/*
	 * libhdf5 1.10.8's H5Aiterate2 first decodes every attribute message
	 * into a table, and when one fails to decode it frees the table's
	 * unfilled entries too: uninitialised pointers, a crash or not
	 * depending on the heap (tests/fuzz/known/h5-crash-*; h5dump crashes
	 * the same way). A lookup by name decodes the messages one at a time
	 * and only reports a bad one: asking for a name no file has makes it
	 * decode them all first, so a damaged message is an error here,
	 * before H5Aiterate2 can meet it.
	 */
	if (H5Aexists(g, NO_SUCH_ATTRIBUTE) < 0) {
		ret = h5_error(x->err, RFX_EFORMAT,
			       "cannot read '%s': damaged HDF5 (its attributes do not decode)",
			       x->path);
		goto out;
	}
	if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, x) < 0)
		/* A callback failure has its own message already. */
		ret = x->ret ? x->ret
			     : h5_error(x->err, RFX_EIO,
					"cannot list the attributes of '%s'", x->path);
out:
	H5Oclose(g);
	return ret;
}

int rfx_h5_dump_attrs(const char *path, FILE *out, struct rfx_err *err)
{
	struct attr_ctx x = { out, path, "", 0, err, RFX_OK };
	hid_t file = H5I_INVALID_HID;
	int ret;

	if (!out)
		return rfx_error(err, RFX_EINVAL, "bad arguments to dump");
	if ((ret = open_input(path, &file, err)) ||
	    (ret = print_attrs(file, "/", &x)))
		goto out;
	x.prefix = RFX_OPTIONS_GROUP "/";
	if ((ret = print_attrs(file, RFX_OPTIONS_GROUP, &x)))
		goto out;
	if (ferror(out))
		ret = rfx_error(err, RFX_EIO, "cannot write attributes: %s",
				strerror(errno));

out:
	if (file >= 0)
		H5Fclose(file);
	return ret;
}

/* The stored type of a member as a short name: float64, int32, string[8]. */
static void type_name(hid_t mt, char *buf, size_t n)
{
	size_t size = H5Tget_size(mt);

	switch (H5Tget_class(mt)) {
	case H5T_FLOAT:
		snprintf(buf, n, "float%zu", 8 * size);
		break;
	case H5T_INTEGER:
		snprintf(buf, n, "%sint%zu",
			 H5Tget_sign(mt) == H5T_SGN_NONE ? "u" : "", 8 * size);
		break;
	case H5T_STRING:
		if (H5Tis_variable_str(mt) > 0)
			snprintf(buf, n, "string");
		else
			snprintf(buf, n, "string[%zu]", size);
		break;
	default:
		snprintf(buf, n, "other");
		break;
	}
}

/* Prints the description lines of the open table t. */
static int describe_one(const char *path, const struct tab *t, FILE *out,
			struct rfx_err *err)
{
	hid_t ftype = H5I_INVALID_HID;
	hid_t mt = H5I_INVALID_HID;
	hid_t aid = H5I_INVALID_HID;
	char aname[32];
	char tname[32];
	char *desc = NULL;
	htri_t has;
	int i, r;
	int ret = RFX_OK;

	if ((ftype = H5Dget_type(t->dset)) < 0)
		goto h5fail;
	for (i = 0; i < t->ncols; i++) {
		if ((mt = H5Tget_member_type(ftype, (unsigned)i)) < 0)
			goto h5fail;
		type_name(mt, tname, sizeof(tname));
		H5Tclose(mt);
		mt = H5I_INVALID_HID;
		snprintf(aname, sizeof(aname), "FIELD_%d_DESC", i);
		if ((has = H5Aexists(t->dset, aname)) < 0)
			goto h5fail;
		if (has) {
			if ((aid = H5Aopen(t->dset, aname, H5P_DEFAULT)) < 0 ||
			    (r = read_string_attr(aid, &desc)) < 0)
				goto h5fail;
			H5Aclose(aid);
			aid = H5I_INVALID_HID;
		}
		fprintf(out, "%s\t%s\t%s\t%s\n", t->name, t->cols[i].name, tname,
			desc && desc[0] ? desc : "-");
		free(desc);
		desc = NULL;
	}
	goto out;

h5fail:
	ret = h5_error(err, RFX_EIO, "cannot read table '%s' in '%s'", t->name,
		       path);
out:
	free(desc);
	if (aid >= 0)
		H5Aclose(aid);
	if (mt >= 0)
		H5Tclose(mt);
	if (ftype >= 0)
		H5Tclose(ftype);
	return ret;
}

int rfx_h5_describe(const char *path, const char *table, FILE *out,
		    struct rfx_err *err)
{
	hid_t file = H5I_INVALID_HID;
	struct names all = { NULL, 0, 0 }; /* every table in the file */
	struct attr_ctx x = { NULL, path, "", 1, err, RFX_OK };
	char *opts = NULL;                 /* the options' lines */
	size_t optlen = 0;
	struct tab t;
	size_t i;
	int pass;
	int ret;

	if (!out)
		return rfx_error(err, RFX_EINVAL, "bad arguments to describe");
	if ((ret = open_input(path, &file, err)) ||
	    (ret = list_tables(file, path, &all, err)))
		goto out;
	if ((ret = table ? find_table(&all, table, path, &i, err)
			 : need_tables(&all, path, err)))
		goto out;
	/* The options of the whole file, read before anything is printed. */
	if (!table) {
		if (!(x.out = open_memstream(&opts, &optlen))) {
			ret = nomem(err);
			goto out;
		}
		ret = print_attrs(file, RFX_OPTIONS_GROUP, &x);
		if (fclose(x.out) && !ret)
			ret = nomem(err);
		if (ret)
			goto out;
	}
	/* Pass 0 checks every table, pass 1 prints: no output before an error. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			fputs("table\tcolumn\ttype\tdescription\n", out);
		for (i = 0; i < all.n; i++) {
			if (table && strcmp(all.v[i], table))
				continue;
			ret = tab_open(file, path, all.v[i], NULL, 0, 0, &t, err);
			if (!ret && pass == 1)
				ret = describe_one(path, &t, out, err);
			tab_close(&t);
			if (ret)
				goto out;
		}
	}
	/* After two blank lines (gnuplot's index separator), as dump does. */
	if (optlen)
		fprintf(out, "\n\noption\ttype\tvalue\n%s", opts);
	if (ferror(out))
		ret = rfx_error(err, RFX_EIO, "cannot write the description: %s",
				strerror(errno));

out:
	free(opts);
	names_free(&all);
	if (file >= 0)
		H5Fclose(file);
	return ret;
}

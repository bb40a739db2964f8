/*
 * Shard files (format in shard.h): the writer goes through the atomic
 * HDF5 writer of table.c and adds the three byte/index datasets itself,
 * with object times off like every other rfx object so that a shard's
 * bytes depend only on its contents; the reader checks every size
 * against the attributes before it trusts them.
 */
#include "io/shard.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/table.h"

/* A 1-D dataset of n elements of type t, object times off. */
static int put(hid_t file, const char *name, hid_t t, size_t n,
	       const void *buf)
{
	hsize_t dim = n;
	hid_t sp = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t ds = H5I_INVALID_HID;
	int bad = sp < 0 || dcpl < 0 || H5Pset_obj_track_times(dcpl, 0) < 0;

	if (!bad)
		ds = H5Dcreate2(file, name, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	bad = bad || ds < 0 ||
	      (n > 0 && H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
	if (ds >= 0)
		H5Dclose(ds);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sp >= 0)
		H5Sclose(sp);
	return bad ? -1 : 0;
}

int rfx_shard_write(const char *path, const struct rfx_shard *s,
		    struct rfx_err *err)
{
	struct rfx_h5out *o = NULL;
	char num[3][48];
	size_t k, alen = 0;
	unsigned char *ablob = NULL;
	hid_t f;
	int ret;

	if (s->count < 1 || s->index < 0 || s->index >= s->count)
		return rfx_error(err, RFX_EINVAL, "shard %d/%d out of range",
				 s->index, s->count);
	for (k = 0; k < s->nown; k++)
		if (s->cells[k] >= s->ncells || (k && s->cells[k] <= s->cells[k - 1]))
			return rfx_error(err, RFX_EINVAL,
					 "shard cells must increase below %" PRIu64,
					 s->ncells);
	for (k = 0; k < (size_t)s->argc; k++)
		alen += strlen(s->argv[k]) + 1;
	ablob = malloc(alen ? alen : 1);
	if (!ablob)
		return rfx_error(err, RFX_ENOMEM, "out of memory");
	for (alen = 0, k = 0; k < (size_t)s->argc; k++) {
		size_t l = strlen(s->argv[k]) + 1;

		memcpy(ablob + alen, s->argv[k], l);
		alen += l;
	}
	o = rfx_h5out_open(path, err);
	if (!o) {
		free(ablob);
		return err->code ? err->code : RFX_EIO;
	}
	snprintf(num[0], sizeof(num[0]), "%d/%d", s->index, s->count);
	snprintf(num[1], sizeof(num[1]), "%" PRIu64, s->ncells);
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, s->cell_size);
	f = (hid_t)rfx_h5out_hid(o);
	if ((ret = rfx_h5out_attr(o, "rfx_shard", "1", err)) ||
	    (ret = rfx_h5out_attr(o, "version", s->version, err)) ||
	    (ret = rfx_h5out_attr(o, "commit", s->commit, err)) ||
	    (ret = rfx_h5out_attr(o, "command_line", s->command, err)) ||
	    (ret = rfx_h5out_attr(o, "seed", s->seed, err)) ||
	    (ret = rfx_h5out_attr(o, "rng", s->rng, err)) ||
	    (ret = rfx_h5out_attr(o, "shard", num[0], err)) ||
	    (ret = rfx_h5out_attr(o, "experiment", s->experiment, err)) ||
	    (ret = rfx_h5out_attr(o, "ncells", num[1], err)) ||
	    (ret = rfx_h5out_attr(o, "cell_size", num[2], err)))
		goto out;
	if (put(f, "argv", H5T_NATIVE_UCHAR, alen, ablob) ||
	    put(f, "cells", H5T_NATIVE_UINT64, s->nown, s->cells) ||
	    put(f, "data", H5T_NATIVE_UCHAR, s->nown * (size_t)s->cell_size,
		s->data)) {
		ret = rfx_error(err, RFX_EIO, "cannot write '%s'", path);
		goto out;
	}
	ret = rfx_h5out_commit(o, err);
	o = NULL;
out:
	rfx_h5out_abort(o);
	free(ablob);
	return ret;
}

/* A string attribute of the root group, malloc'ed; NULL if absent. */
static char *get_attr(hid_t f, const char *name)
{
	hsize_t dims = 0;
	H5T_class_t cls;
	size_t size = 0;
	char *v;

	if (H5Aexists(f, name) <= 0 ||
	    H5LTget_attribute_info(f, "/", name, &dims, &cls, &size) < 0 ||
	    cls != H5T_STRING)
		return NULL;
	v = calloc(size + 1, 1);
	if (v && H5LTget_attribute_string(f, "/", name, v) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

/* A 1-D dataset of n elements of type t into a new buffer. */
static void *get_data(hid_t f, const char *name, hid_t t, size_t esize,
		      size_t *n)
{
	hid_t ds = H5Dopen2(f, name, H5P_DEFAULT), sp = H5I_INVALID_HID;
	hsize_t dim = 0;
	void *buf = NULL;

	if (ds >= 0 && (sp = H5Dget_space(ds)) >= 0 &&
	    H5Sget_simple_extent_ndims(sp) == 1 &&
	    H5Sget_simple_extent_dims(sp, &dim, NULL) == 1) {
		buf = malloc(dim ? (size_t)dim * esize : 1);
		if (buf && dim &&
		    H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
			free(buf);
			buf = NULL;
		}
		*n = (size_t)dim;
	}
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	return buf;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	*v = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

int rfx_shard_read(const char *path, struct rfx_shard *s, struct rfx_err *err)
{
	hid_t f;
	char *fmt = NULL, *sh = NULL, *nc = NULL, *cs = NULL, *ablob = NULL;
	size_t alen = 0, ndata = 0, k;
	int ret = RFX_EFORMAT, a;

	memset(s, 0, sizeof(*s));
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return rfx_error(err, RFX_EIO, "cannot open '%s' as an HDF5 file",
				 path);
	fmt = get_attr(f, "rfx_shard");
	if (!fmt || strcmp(fmt, "1")) {
		rfx_error(err, RFX_EFORMAT, "'%s' is not an rfx shard file", path);
		goto out;
	}
	s->command = get_attr(f, "command_line");
	s->version = get_attr(f, "version");
	s->commit = get_attr(f, "commit");
	s->seed = get_attr(f, "seed");
	s->rng = get_attr(f, "rng");
	s->experiment = get_attr(f, "experiment");
	sh = get_attr(f, "shard");
	nc = get_attr(f, "ncells");
	cs = get_attr(f, "cell_size");
	ablob = get_data(f, "argv", H5T_NATIVE_UCHAR, 1, &alen);
	s->cells = get_data(f, "cells", H5T_NATIVE_UINT64, sizeof(uint64_t),
			    &s->nown);
	s->data = get_data(f, "data", H5T_NATIVE_UCHAR, 1, &ndata);
	if (!s->command || !s->version || !s->commit || !s->seed || !s->rng ||
	    !s->experiment || !sh || !nc || !cs || !ablob || !s->cells ||
	    !s->data || sscanf(sh, "%d/%d", &s->index, &s->count) != 2 ||
	    parse_u64(nc, &s->ncells) || parse_u64(cs, &s->cell_size) ||
	    s->count < 1 || s->index < 0 || s->index >= s->count ||
	    (s->nown && s->cell_size && ndata / s->nown != s->cell_size) ||
	    ndata != s->nown * (size_t)s->cell_size || alen == 0 ||
	    ablob[alen - 1] != '\0') {
		rfx_error(err, RFX_EFORMAT, "damaged rfx shard file '%s'", path);
		goto out;
	}
	for (k = 0; k < s->nown; k++)
		if (s->cells[k] >= s->ncells || (k && s->cells[k] <= s->cells[k - 1])) {
			rfx_error(err, RFX_EFORMAT, "damaged rfx shard file '%s'", path);
			goto out;
		}
	for (k = 0; k < alen; k++)
		s->argc += ablob[k] == '\0';
	s->argv = calloc((size_t)s->argc + 1, sizeof(char *));
	if (!s->argv) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0, a = 0; a < s->argc; a++) {
		s->argv[a] = strdup((char *)ablob + k);
		if (!s->argv[a]) {
			ret = rfx_error(err, RFX_ENOMEM, "out of memory");
			goto out;
		}
		k += strlen((char *)ablob + k) + 1;
	}
	ret = RFX_OK;
out:
	H5Fclose(f);
	free(fmt);
	free(sh);
	free(nc);
	free(cs);
	free(ablob);
	return ret;
}

void rfx_shard_release(struct rfx_shard *s)
{
	int a;

	if (s->argv)
		for (a = 0; a < s->argc; a++)
			free(s->argv[a]);
	free(s->argv);
	free(s->command);
	free(s->version);
	free(s->commit);
	free(s->seed);
	free(s->rng);
	free(s->experiment);
	free(s->cells);
	free(s->data);
	memset(s, 0, sizeof(*s));
}

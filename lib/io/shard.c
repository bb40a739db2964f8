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

#include "base/infile.h"
#include "io/h5out.h"
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

/* A string attribute of object at of file f. */
static int put_attr(hid_t f, const char *at, const char *name, const char *v)
{
	return H5LTset_attribute_string(f, at, name, v) < 0 ? -1 : 0;
}

static int check_sweep(const struct rfx_shard_sweep *w, struct rfx_err *err)
{
	size_t k;

	for (k = 0; k < w->nown; k++)
		if (w->cells[k] >= w->ncells || (k && w->cells[k] <= w->cells[k - 1]))
			return rfx_error(err, RFX_EINVAL,
					 "shard cells of '%s' must increase below %" PRIu64,
					 w->experiment, w->ncells);
	return RFX_OK;
}

/* Group /sweepK with its attributes and datasets; object times off. */
static int put_sweep(hid_t f, int K, const struct rfx_shard_sweep *w)
{
	char g[32], n1[32], n2[32];
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), grp = H5I_INVALID_HID;
	int bad;

	snprintf(g, sizeof(g), "/sweep%d", K);
	snprintf(n1, sizeof(n1), "%" PRIu64, w->ncells);
	snprintf(n2, sizeof(n2), "%" PRIu64, w->cell_size);
	bad = gcpl < 0 || H5Pset_obj_track_times(gcpl, 0) < 0 ||
	      (grp = H5Gcreate2(f, g, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0;
	bad = bad || put_attr(f, g, "experiment", w->experiment) ||
	      put_attr(f, g, "ncells", n1) || put_attr(f, g, "cell_size", n2) ||
	      put(grp, "cells", H5T_NATIVE_UINT64, w->nown, w->cells) ||
	      put(grp, "data", H5T_NATIVE_UCHAR, w->nown * (size_t)w->cell_size,
		  w->data);
	if (grp >= 0)
		H5Gclose(grp);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	return bad ? -1 : 0;
}

int rfx_shard_write(const char *path, const struct rfx_shard *s,
		    struct rfx_err *err)
{
	struct rfx_h5out *o = NULL;
	char num[2][48];
	size_t k, alen = 0;
	unsigned char *ablob = NULL;
	hid_t f;
	int ret, K;

	if (s->count < 1 || s->index < 0 || s->index >= s->count)
		return rfx_error(err, RFX_EINVAL, "shard %d/%d out of range",
				 s->index, s->count);
	for (K = 0; K < s->nsweeps; K++)
		if ((ret = check_sweep(&s->sweeps[K], err)))
			return ret;
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
	snprintf(num[1], sizeof(num[1]), "%d", s->nsweeps);
	f = (hid_t)rfx_h5out_hid(o);
	if ((ret = rfx_h5out_attr(o, "rfx_shard", "1", err)) ||
	    (ret = rfx_h5out_attr(o, "version", s->version, err)) ||
	    (ret = rfx_h5out_attr(o, "commit", s->commit, err)) ||
	    (ret = rfx_h5out_attr(o, "command_line", s->command, err)) ||
	    (ret = rfx_h5out_attr(o, "seed", s->seed, err)) ||
	    (ret = rfx_h5out_attr(o, "rng", s->rng, err)) ||
	    (s->blas && (ret = rfx_h5out_attr(o, "blas", s->blas, err))) ||
	    (ret = rfx_h5out_attr(o, "shard", num[0], err)) ||
	    (ret = rfx_h5out_attr(o, "sweeps", num[1], err)))
		goto out;
	if (put(f, "argv", H5T_NATIVE_UCHAR, alen, ablob)) {
		ret = rfx_error(err, RFX_EIO, "cannot write '%s'", path);
		goto out;
	}
	for (K = 0; K < s->nsweeps; K++)
		if (put_sweep(f, K, &s->sweeps[K])) {
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

/* A string attribute of object at, malloc'ed; NULL if absent. */
static char *get_attr_at(hid_t f, const char *at, const char *name)
{
	hsize_t dims = 0;
	H5T_class_t cls;
	size_t size = 0;
	char *v;

	if (H5Aexists_by_name(f, at, name, H5P_DEFAULT) <= 0 ||
	    H5LTget_attribute_info(f, at, name, &dims, &cls, &size) < 0 ||
	    cls != H5T_STRING)
		return NULL;
	v = calloc(size + 1, 1);
	if (v && H5LTget_attribute_string(f, at, name, v) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

static char *get_attr(hid_t f, const char *name)
{
	return get_attr_at(f, "/", name);
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

/* Group /sweepK into w; -1 when missing or inconsistent. */
static int get_sweep(hid_t f, int K, struct rfx_shard_sweep *w)
{
	char g[32], d1[48], d2[48];
	char *nc, *cs;
	size_t ndata = 0, k;
	int bad;

	snprintf(g, sizeof(g), "/sweep%d", K);
	snprintf(d1, sizeof(d1), "%s/cells", g);
	snprintf(d2, sizeof(d2), "%s/data", g);
	if (H5Lexists(f, g, H5P_DEFAULT) <= 0)
		return -1;
	w->experiment = get_attr_at(f, g, "experiment");
	nc = get_attr_at(f, g, "ncells");
	cs = get_attr_at(f, g, "cell_size");
	w->cells = get_data(f, d1, H5T_NATIVE_UINT64, sizeof(uint64_t), &w->nown);
	w->data = get_data(f, d2, H5T_NATIVE_UCHAR, 1, &ndata);
	bad = !w->experiment || !nc || !cs || !w->cells || !w->data ||
	      parse_u64(nc, &w->ncells) || parse_u64(cs, &w->cell_size) ||
	      (w->nown && w->cell_size && ndata / w->nown != w->cell_size) ||
	      ndata != w->nown * (size_t)w->cell_size;
	for (k = 0; !bad && k < w->nown; k++)
		bad = w->cells[k] >= w->ncells || (k && w->cells[k] <= w->cells[k - 1]);
	free(nc);
	free(cs);
	return bad ? -1 : 0;
}

int rfx_shard_read(const char *path, struct rfx_shard *s, struct rfx_err *err)
{
	hid_t f;
	char *fmt = NULL, *sh = NULL, *ns = NULL, *ablob = NULL;
	size_t alen = 0, k;
	int ret = RFX_EFORMAT, a, K, bad = rfx_infile_check(path, err);

	memset(s, 0, sizeof(*s));
	if (bad)
		return bad;
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
	s->blas = get_attr(f, "blas"); /* optional */
	sh = get_attr(f, "shard");
	ns = get_attr(f, "sweeps");
	ablob = get_data(f, "argv", H5T_NATIVE_UCHAR, 1, &alen);
	if (!s->command || !s->version || !s->commit || !s->seed || !s->rng ||
	    !sh || !ns || !ablob || sscanf(sh, "%d/%d", &s->index, &s->count) != 2 ||
	    sscanf(ns, "%d", &s->nsweeps) != 1 || s->nsweeps < 0 ||
	    s->nsweeps > 100000 || s->count < 1 || s->index < 0 ||
	    s->index >= s->count || alen == 0 || ablob[alen - 1] != '\0') {
		rfx_error(err, RFX_EFORMAT, "damaged rfx shard file '%s'", path);
		goto out;
	}
	s->sweeps = calloc((size_t)s->nsweeps + 1, sizeof(*s->sweeps));
	if (!s->sweeps) {
		ret = rfx_error(err, RFX_ENOMEM, "out of memory");
		goto out;
	}
	for (K = 0; K < s->nsweeps; K++)
		if (get_sweep(f, K, &s->sweeps[K])) {
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
	free(ns);
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
	free(s->blas);
	free(s->seed);
	free(s->rng);
	if (s->sweeps)
		for (a = 0; a < s->nsweeps; a++) {
			free(s->sweeps[a].experiment);
			free(s->sweeps[a].cells);
			free(s->sweeps[a].data);
		}
	free(s->sweeps);
	memset(s, 0, sizeof(*s));
}

/*
 * The schema check every table passes before it is written, and the one
 * way the io modules word HDF5's failures. The writer is io/h5out.c, the
 * reader and dump io/h5read.c.
 */
#include "io/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

/*
 * HDF5's reason for a failure: the innermost entry of its error stack,
 * where the problem was detected (e.g. "name already exists").
 */
struct h5why {
	char text[200]; /* one line, never empty */
};

static herr_t why_walk(unsigned n, const H5E_error2_t *e, void *data)
{
	struct h5why *w = data;
	const char *no;
	char *p;
	int e_no;

	if (n != 0 || !e->desc || !e->desc[0])
		return 0;
	/*
	 * The file drivers describe a failed system call in one long line
	 * ("file write failed: time = ..., filename = ..., errno = 28, error
	 * message = '...', buf = 0x..., ..."): the system's reason is what
	 * the user needs, and the addresses would make the message differ
	 * from run to run.
	 */
	no = strstr(e->desc, "errno = ");
	if (no && sscanf(no + 8, "%d", &e_no) == 1 && e_no > 0) {
		size_t k = strcspn(e->desc, ":");

		snprintf(w->text, sizeof(w->text), "%.*s: %s",
			 (int)(k < 60 ? k : 60), e->desc, strerror(e_no));
	} else {
		snprintf(w->text, sizeof(w->text), "%s", e->desc);
	}
	for (p = w->text; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return 0;
}

int rfx_table_h5_error(struct rfx_err *err, int code, const char *fmt, ...)
{
	char what[RFX_ERR_MSG_MAX];
	struct h5why w;
	va_list ap;

	snprintf(w.text, sizeof(w.text), "HDF5 error");
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, why_walk, &w);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rfx_error(err, code, "%s: %s", what, w.text);
}

int rfx_table_check_schema(const struct rfx_schema *s, struct rfx_err *err)
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

		if (!c->name || !c->name[0] || strlen(c->name) > RFX_TABLE_NAME_MAX)
			return rfx_error(err, RFX_EINVAL,
					 "table '%s': column %d needs a name of 1 to %d characters",
					 s->name, i, RFX_TABLE_NAME_MAX);
		/* every column says what it holds (rfx dump --describe) */
		if (!c->desc || !c->desc[0])
			return rfx_error(err, RFX_EINVAL,
					 "table '%s': column '%s' has no description",
					 s->name, c->name);
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

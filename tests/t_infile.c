/*
 * Tests of lib/base/infile.c: rfx_infile_check takes a regular file and
 * a link to one, and refuses, each with its own words, a missing file, a
 * dangling link, a directory, a character device (/dev/null, and a link
 * to /dev/zero), a FIFO and a socket; rfx_infile_kind names each kind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/infile.h"
#include "tap.h"

/* Checks path: the code, and a message containing want (NULL: none). */
static void check(const char *path, int code, const char *want,
		  const char *what)
{
	struct rfx_err err;
	int got;

	rfx_err_clear(&err);
	got = rfx_infile_check(path, &err);
	if (!ok(got == code && (code == RFX_OK ? err.code == RFX_OK
					       : strstr(err.msg, want) != NULL),
		"%s", what))
		diag("    code %d (want %d), message '%s' (want '%s')", got, code,
		     err.msg, want ? want : "");
}

int main(void)
{
	char dir[] = "/tmp/t_infile.XXXXXX", p[512], q[512], m[600];
	struct sockaddr_un sa;
	struct stat st;
	int sock;
	FILE *f;

	if (!mkdtemp(dir))
		return fprintf(stderr, "t_infile: mkdtemp failed\n"), 1;

	snprintf(p, sizeof(p), "%s/data.csv", dir);
	f = fopen(p, "w");
	ok(f && fputs("1,2\n", f) >= 0 && fclose(f) == 0, "a data file written");
	check(p, RFX_OK, NULL, "a regular file");
	snprintf(q, sizeof(q), "%s/link.csv", dir);
	ok(symlink(p, q) == 0, "a link to it");
	check(q, RFX_OK, NULL, "a link to a regular file");

	snprintf(q, sizeof(q), "%s/none.csv", dir);
	snprintf(m, sizeof(m), "cannot open '%s': %s", q, strerror(ENOENT));
	check(q, RFX_EIO, m, "a missing file: the system's reason");
	snprintf(p, sizeof(p), "%s/dangling.csv", dir);
	ok(symlink(q, p) == 0, "a dangling link");
	snprintf(m, sizeof(m), "cannot open '%s'", p);
	check(p, RFX_EIO, m, "a dangling link: cannot open");

	snprintf(m, sizeof(m), "'%s' is a directory", dir);
	check(dir, RFX_EIO, m, "a directory");

	check("/dev/null", RFX_EIO,
	      "'/dev/null' is not a regular file (a character device)",
	      "/dev/null: a character device");
	snprintf(p, sizeof(p), "%s/zero.csv", dir);
	ok(symlink("/dev/zero", p) == 0, "a link to /dev/zero");
	snprintf(m, sizeof(m), "'%s' is not a regular file (a character device)", p);
	check(p, RFX_EIO, m, "a link to /dev/zero: refused as /dev/zero is");

	snprintf(p, sizeof(p), "%s/fifo.csv", dir);
	ok(mkfifo(p, 0600) == 0, "a FIFO made");
	snprintf(m, sizeof(m), "'%s' is not a regular file (a FIFO)", p);
	check(p, RFX_EIO, m, "a FIFO: refused without opening it (no writer, no hang)");

	snprintf(p, sizeof(p), "%s/sock", dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(p) < sizeof(sa.sun_path)) /* dir is short: always */
		memcpy(sa.sun_path, p, strlen(p) + 1);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(sock >= 0 && bind(sock, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	   "a socket bound");
	snprintf(m, sizeof(m), "'%s' is not a regular file (a socket)", p);
	check(p, RFX_EIO, m, "a socket");
	if (sock >= 0)
		close(sock);

	check(NULL, RFX_EINVAL, "no input file given", "no path");

	/* the kinds by the modes of real files (S_IFBLK and the like are XSI) */
	ok(stat("/dev/null", &st) == 0 &&
	   !strcmp(rfx_infile_kind(st.st_mode), "a character device"),
	   "rfx_infile_kind: a character device");
	snprintf(p, sizeof(p), "%s/fifo.csv", dir);
	ok(stat(p, &st) == 0 && !strcmp(rfx_infile_kind(st.st_mode), "a FIFO"),
	   "rfx_infile_kind: a FIFO");
	snprintf(p, sizeof(p), "%s/sock", dir);
	ok(stat(p, &st) == 0 && !strcmp(rfx_infile_kind(st.st_mode), "a socket"),
	   "rfx_infile_kind: a socket");
	snprintf(p, sizeof(p), "%s/data.csv", dir);
	ok(stat(p, &st) == 0 &&
	   !strcmp(rfx_infile_kind(st.st_mode), "not a plain file"),
	   "rfx_infile_kind: anything else (it is asked only of the others)");

	snprintf(m, sizeof(m), "rm -rf '%s'", dir);
	ok(system(m) == 0, "scratch directory removed");
	done_testing();
}

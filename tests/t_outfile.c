/*
 * Tests of lib/io/outfile.c, the atomic output file under every -o: the
 * bytes written reach the target only on commit and exactly; an abort or
 * a failed commit leaves the old file and no temporary; a symbolic link
 * is followed and stays a link; special files, directories, dangling
 * links and missing directories are refused at open; the committed mode
 * is a plain create's; a killed run's temporary is cleaned by the next
 * open, one a live writer holds is not. Expectations are the rules of
 * outfile.h and bytes written by the test itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/outfile.h"
#include "tap.h"

static char dir[PATH_MAX / 2];

static const char *path_in(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* The file's bytes equal want[0..n-1]. */
static int holds(const char *path, const char *want, size_t n)
{
	char buf[256];
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f)
		return 0;
	got = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return got == n && !memcmp(buf, want, n);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Entries of dir other than . and .. */
static int entries(void)
{
	char cmd[PATH_MAX + 32];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static int one_line(const struct rfx_err *err)
{
	return err->msg[0] && !strchr(err->msg, '\n');
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_commit_abort(void)
{
	const char *x = path_in("x.npy");
	struct rfx_err err = { 0 };
	struct rfx_outfile *o;
	struct stat st;
	mode_t mask;

	o = rfx_outfile_open(x, &err);
	ok(o && !strncmp(o->tmp, x, strlen(x)) &&
	   !strncmp(o->tmp + strlen(x), ".tmp.", 5) &&
	   strlen(o->tmp) == strlen(x) + 11 && exists(o->tmp) && !exists(x),
	   "open makes '<path>.tmp.XXXXXX', not the target: %s",
	   o ? o->tmp : err.msg);
	ok(o && rfx_outfile_write(o, "abc", 3, &err) == RFX_OK &&
	   rfx_outfile_write(o, "", 0, &err) == RFX_OK &&
	   rfx_outfile_write(o, "defg", 4, &err) == RFX_OK && !exists(x),
	   "writes go to the temporary only");
	mask = umask(0);
	umask(mask);
	ok(o && rfx_outfile_commit(o, &err) == RFX_OK && holds(x, "abcdefg", 7) &&
	   entries() == 1, "commit puts exactly the bytes written in place");
	ok(stat(x, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask),
	   "with a plain create's mode, %o", (unsigned)(0666 & ~mask));

	o = rfx_outfile_open(x, &err);
	ok(o && rfx_outfile_write(o, "new", 3, &err) == RFX_OK, "a second run");
	rfx_outfile_abort(o);
	ok(holds(x, "abcdefg", 7) && entries() == 1,
	   "aborted: the old file as it was, no temporary");

	/* a commit whose rename fails removes its temporary */
	o = rfx_outfile_open(x, &err);
	unlink(x);
	ok(o && mkdir(x, 0777) == 0, "the target becomes a directory");
	rfx_err_clear(&err);
	ok(rfx_outfile_commit(o, &err) == RFX_EIO && one_line(&err) &&
	   strstr(err.msg, "cannot rename") && entries() == 1,
	   "the commit fails and leaves no temporary: %s", err.msg);
	rmdir(x);
	rfx_outfile_abort(NULL);
	ok(rfx_outfile_commit(NULL, &err) == RFX_EINVAL, "commit(NULL) fails; "
	   "abort(NULL) is a no-op");
}

static void test_links(void)
{
	const char *t = path_in("t.npy"), *l = path_in("l.npy");
	const char *d = path_in("d.npy");
	struct rfx_err err = { 0 };
	struct rfx_outfile *o;
	struct stat st;

	write_file(t, "old");
	ok(symlink("t.npy", l) == 0, "a link to a file");
	o = rfx_outfile_open(l, &err);
	ok(o && rfx_outfile_write(o, "xyz!", 4, &err) == RFX_OK &&
	   rfx_outfile_commit(o, &err) == RFX_OK, "written through the link");
	ok(lstat(l, &st) == 0 && S_ISLNK(st.st_mode) && holds(t, "xyz!", 4),
	   "the link stays a link, the file it names is replaced");
	ok(symlink("nowhere.npy", d) == 0, "a dangling link");
	rfx_err_clear(&err);
	ok(!rfx_outfile_open(d, &err) && err.code == RFX_EIO &&
	   one_line(&err) && strstr(err.msg, "dangling symbolic link") &&
	   !exists(path_in("nowhere.npy")),
	   "is refused, nothing created: %s", err.msg);
	unlink(t);
	unlink(l);
	unlink(d);
}

static void test_refused(void)
{
	const char *fifo = path_in("f.npy"), *sub = path_in("sub");
	char nodir[PATH_MAX + 16];
	struct rfx_err err = { 0 };

	ok(mkfifo(fifo, 0600) == 0 && mkdir(sub, 0777) == 0,
	   "a FIFO and a directory");
	ok(!rfx_outfile_open(fifo, &err) && err.code == RFX_EIO &&
	   one_line(&err) && strstr(err.msg, "not a regular file (a FIFO)"),
	   "a FIFO is refused: %s", err.msg);
	rfx_err_clear(&err);
	ok(!rfx_outfile_open("/dev/null", &err) && err.code == RFX_EIO &&
	   strstr(err.msg, "not a regular file"),
	   "/dev/null is refused: %s", err.msg);
	rfx_err_clear(&err);
	ok(!rfx_outfile_open(sub, &err) && err.code == RFX_EIO &&
	   strstr(err.msg, "is a directory"), "a directory: %s", err.msg);
	snprintf(nodir, sizeof(nodir), "%s/none/x.npy", dir);
	rfx_err_clear(&err);
	ok(!rfx_outfile_open(nodir, &err) && err.code == RFX_EIO &&
	   strstr(err.msg, "cannot create") && strstr(err.msg, strerror(ENOENT)),
	   "a missing directory: %s", err.msg);
	rfx_err_clear(&err);
	ok(!rfx_outfile_open("", &err) && err.code == RFX_EINVAL &&
	   !rfx_outfile_open(NULL, &err), "an empty or no name: %s", err.msg);
	unlink(fifo);
	rmdir(sub);
	ok(entries() == 0, "nothing left behind");
}

static void test_stale(void)
{
	const char *x = path_in("s.npy"), *stale = path_in("s.npy.tmp.AbC123");
	const char *other = path_in("s.npy.tmp.toolong7"), *o2;
	struct rfx_err err = { 0 };
	struct rfx_outfile *live, *o;

	write_file(stale, "killed run");
	write_file(other, "not ours");
	live = rfx_outfile_open(x, &err);
	ok(live && !exists(stale) && exists(other),
	   "open removes an unlocked '<target>.tmp.XXXXXX', not other names");
	o2 = live ? live->tmp : "";
	o = rfx_outfile_open(x, &err);
	ok(o && exists(o2) && strcmp(o->tmp, o2),
	   "a second writer keeps the first's locked temporary");
	ok(o && rfx_outfile_write(o, "2", 1, &err) == RFX_OK &&
	   rfx_outfile_commit(o, &err) == RFX_OK && live &&
	   rfx_outfile_write(live, "1", 1, &err) == RFX_OK &&
	   rfx_outfile_commit(live, &err) == RFX_OK && holds(x, "1", 1),
	   "both commit; the last rename wins");
	unlink(x);
	unlink(other);
	ok(entries() == 0, "nothing left behind");
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/t_outfile.XXXXXX",
		 base && base[0] ? base : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! cannot make a scratch directory\n");
		return 1;
	}
	test_commit_abort();
	test_links();
	test_refused();
	test_stale();
	rmdir(dir);
	return done_testing();
}

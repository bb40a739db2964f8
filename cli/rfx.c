/*
 * rfx: the command-line front end. main() sets up the libraries' error
 * handling (GSL and HDF5 must not print or abort), the signal handlers
 * that turn Ctrl-C into a clean cancellation, and dispatches to the
 * subcommand from the table below; the exit status is the command's (0 ok,
 * 1 run-time failure, 2 usage error, 128 + signal when interrupted).
 * Around the command, cli/dist.c sets up mpirun and --shard runs.
 */
/* memfd_create, for what the libraries' constructors print (below) */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>

#include "base/cancel.h"
#include "base/suggest.h"
#include "cmds.h"
#include "dist.h"
#include "estimators.h"
#include "exp/clustered.h"
#include "num/blas.h"
#include "num/isa.h"
#include "output.h"
#include "version.h"

struct rfx_cmd {
	const char *name;
	int (*fn)(int argc, char **argv, const struct rfx_cli *cli);
	const char *summary;
	/* Which estimators its --method takes (NULL: it takes none). */
	int (*methods)(const struct rfx_estimator_type *e);
	/*
	 * 1 if it never calls the BLAS: it runs under a `ulimit -v` too
	 * tight for OpenBLAS's buffers (rfx_cli_threads).
	 */
	int no_blas;
};

/* A --method that takes every estimator of the registry. */
static int every_estimator(const struct rfx_estimator_type *e)
{
	(void)e;
	return 1;
}

static int cmd_help(int argc, char **argv, const struct rfx_cli *cli);
static int cmd_version(int argc, char **argv, const struct rfx_cli *cli);

static const struct rfx_cmd commands[] = {
	{ "variance", cmd_variance,
	  "closed-form and Monte Carlo variance of Gaussian-kernel estimators (thesis Fig 6.4, 4.1, 6.1, 6.2)",
	  every_estimator },
	{ "pointwise", cmd_pointwise,
	  "softmax-kernel estimators on same-length pairs (HRF Figs 1, 2, 5; Lemma 3.4, Theorem 3.5)",
	  every_estimator },
	{ "mse-table", cmd_mse_table,
	  "MSE of kernel estimators on dataset pairs (HRF Table 1; ORF Figs 2-5) and regression checks",
	  every_estimator },
	{ "clustered", cmd_clustered,
	  "hybrid random features adapted to clustered data (HRF Fig 6, Table 3)",
	  rfx_cl_accepts },
	{ "optis", cmd_optis,
	  "plain against optimal importance sampling (random features representations are equivalent)" },
	{ "attention", cmd_attention,
	  "error and cost of random-feature attention for every estimator (thesis Figs 3.3, 3.6)" },
	{ "features", cmd_features,
	  "the random feature matrix of your inputs, as librfx and Python's rfx.features give it" },
	{ "dump", cmd_dump, "print the tables of an rfx HDF5 file as TSV", NULL, 1 },
	{ "uci-classify", cmd_uci_classify,
	  "kernel regression classification on eight UCI datasets (thesis Tables 6.1-6.3)",
	  every_estimator },
	{ "svm-classify", cmd_svm_classify,
	  "linear SVM on RFF, ORF and SORF features (ORF Table 2)" },
	{ "merge", cmd_merge,
	  "merge the shard files of a run made with --shard i/N into its output" },
	{ "help", cmd_help,
	  "show help for rfx or for a command; 'rfx help estimators' lists the estimators",
	  NULL, 1 },
	{ "version", cmd_version, "print the version and build commit", NULL, 1 },
	{ NULL, NULL, NULL, NULL, 0 }
};

/*
 * OpenBLAS built on pthreads starts its pool of threads in its constructor,
 * before main, and each thread at once asks for its 128 MiB buffer and
 * retries for ever when it cannot have it: under `ulimit -v 150000` a run
 * did its work and then hung at exit, deaf to SIGTERM, with exit() joining
 * that spinning thread in OpenBLAS's destructor. rfx runs every BLAS call
 * on one thread (its parallelism is OpenMP over blocks, lib/num/blas.h), so
 * it never wants that pool.
 *
 * OPENBLAS_NUM_THREADS=1 would keep OpenBLAS from starting it, but nothing
 * in the process can set the variable early enough: a function in the
 * executable's .preinit_array runs before every library's constructor, but
 * libc's own constructor then resets environ to the environment rfx was
 * given (and starting rfx again with the variable doubled its start-up
 * time). So before_libraries (below), run from there, sets what OpenBLAS's
 * constructor would have set from the variable: its thread counts, which
 * it exports, to 1. The constructor then skips reading the environment and
 * starts no thread (blas_thread_init starts blas_num_threads - 1). The
 * references are weak: with a BLAS that has no such counts (an OpenBLAS
 * built on OpenMP starts no pool at load) they are NULL and nothing is
 * done. tests/t_cmd_faults.sh checks the result under `ulimit -v`.
 */
extern int blas_cpu_number __attribute__((weak));
extern int blas_num_threads __attribute__((weak));

/*
 * An OMP_NUM_THREADS that libgomp would refuse, taken out of the
 * environment before libgomp's constructor read it (NULL: none). libgomp
 * printed "libgomp: Invalid value for environment variable OMP_NUM_THREADS"
 * after a blank line and ran on with its default; rfx refuses it in main,
 * in one line, as it does a bad --threads.
 */
static const char *bad_omp_threads;

/*
 * Whether s is what libgomp accepts in OMP_NUM_THREADS: positive integers
 * separated by commas, blanks allowed around each (its
 * parse_unsigned_long_list, with strtoul's syntax), here none above
 * RFX_THREADS_MAX (cli/opt.h says why).
 */
static int omp_threads_ok(const char *s)
{
	for (;;) {
		unsigned long v;
		char *end;

		while (isspace((unsigned char)*s))
			s++;
		if (!isdigit((unsigned char)*s) && *s != '+')
			return 0;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || end == s || v == 0 || v > RFX_THREADS_MAX)
			return 0;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			return 1;
		if (*s++ != ',')
			return 0;
	}
}

/*
 * The other OMP_ and GOMP_ variables libgomp reads (OMP_STACKSIZE,
 * OMP_WAIT_POLICY, OMP_SCHEDULE, OMP_PLACES, ... a dozen, each with a
 * syntax of its own) it also refused with a blank line and its warning,
 * and ran on. Rather than a second parser of each, which could refuse what
 * libgomp takes, rfx asks libgomp: from before the constructors to the
 * start of main, stderr goes to a memory file (caught_fd; the real one is
 * saved_fd), and main refuses a run whose libraries said "Invalid value
 * for environment variable X" (libgomp's words), in one line, as a bad
 * OMP_NUM_THREADS. Anything else they printed (OMP_DISPLAY_ENV's table,
 * say) is passed on as it was, at the start of main.
 */
static int saved_fd = -1, caught_fd = -1;

/* fd moved to a descriptor above 2 (closing fd), or -1 */
static int above_stdio(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

static void catch_stderr(void)
{
	/* a closed fd 2 stays closed: the memory file must not become it */
	if (fcntl(2, F_GETFD) < 0)
		return;
	caught_fd = above_stdio(memfd_create("rfx-constructors", MFD_CLOEXEC));
	saved_fd = caught_fd < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (saved_fd < 0 || dup2(caught_fd, 2) < 0) {
		if (saved_fd >= 0)
			close(saved_fd);
		if (caught_fd >= 0)
			close(caught_fd);
		saved_fd = caught_fd = -1;
	}
}

/*
 * Puts stderr back and reads what the constructors wrote to it: the
 * first variable libgomp refused into var (NUL when none), the rest
 * written on to stderr but its blank lines (libgomp's, before each of its
 * warnings). Only the first 16 KiB are read: libgomp's warnings are a
 * line each, OMP_DISPLAY_ENV=verbose's table about 3 KiB. Returns the
 * number of variables refused.
 */
static int release_stderr(char *var, size_t cap)
{
	static const char said[] = "value for environment variable ";
	char buf[16384], *p, *nl;
	ssize_t n;
	int refused = 0;

	var[0] = '\0';
	if (caught_fd < 0)
		return 0;
	dup2(saved_fd, 2);
	close(saved_fd);
	n = pread(caught_fd, buf, sizeof(buf) - 1, 0);
	close(caught_fd);
	caught_fd = saved_fd = -1;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; *p; p = nl) {
		char *at;

		nl = p + strcspn(p, "\n");
		nl += *nl == '\n';
		at = strstr(p, said);
		if (!strncmp(p, "libgomp: ", 9) && at && at < nl) {
			if (!refused++)
				snprintf(var, cap, "%.*s", (int)strcspn(at + sizeof(said) - 1, " \n"),
					 at + sizeof(said) - 1);
		} else if (*p != '\n') { /* libgomp's blank line before each */
			fwrite(p, 1, (size_t)(nl - p), stderr);
		}
	}
	return refused;
}

/*
 * Runs before every library's constructor (the executable's
 * .preinit_array): OpenBLAS without its pool (above), OMP_NUM_THREADS
 * checked before libgomp reads it, and stderr caught for libgomp's word on
 * the others. environ cannot grow here (libc's constructor resets it to
 * this array), but an entry can be taken out.
 */
static void before_libraries(int argc, char **argv, char **envp)
{
	static const char var[] = "OMP_NUM_THREADS=";
	size_t i, k;

	(void)argc;
	(void)argv;
	catch_stderr();
	if (&blas_cpu_number && &blas_num_threads) {
		blas_cpu_number = 1;
		blas_num_threads = 1;
	}
	for (i = k = 0; envp[i]; i++) {
		if (!strncmp(envp[i], var, sizeof(var) - 1) &&
		    !omp_threads_ok(envp[i] + sizeof(var) - 1)) {
			bad_omp_threads = envp[i] + sizeof(var) - 1;
			continue;
		}
		envp[k++] = envp[i];
	}
	envp[k] = NULL;
}

__attribute__((section(".preinit_array"), used)) static void (*const
	preinit)(int, char **, char **) = before_libraries;

static volatile sig_atomic_t caught_signal;

/*
 * Unlinks the temporary output if one is open: async-signal-safe, for the
 * handlers below, and registered with atexit, because a library that ends
 * the process itself with exit() (libgomp when it cannot create a thread
 * after all, threads_startable in cli/output.c notwithstanding; OpenBLAS
 * when it cannot start its own) would leave it behind.
 */
static void remove_tmp(void)
{
	const char *tmp = rfx_cli_tmpfile;

	if (tmp)
		unlink(tmp);
}

/*
 * First signal: ask the run to stop (it then removes its temporary file
 * and exits). Second signal: remove the temporary file here and exit now.
 */
static void on_signal(int sig)
{
	if (caught_signal) {
		remove_tmp();
		_exit(128 + sig);
	}
	caught_signal = sig;
	rfx_cancel_request();
}

/*
 * A fault (a crash inside a library, or rfx's own bug): the run cannot go
 * on, but it can say so in one line, and its temporary file can still be
 * removed, before the signal's default action (a core dump) takes place.
 * Only write(2) here: stdio is not safe in a signal handler.
 */
static void on_fault(int sig)
{
	static const char head[] = "rfx: fatal signal ";
	static const char tail[] =
		" (a crash in rfx or in a library it uses: please report it with the command line)\n";
	const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS"
			   : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL"
			   : sig == SIGABRT ? "SIGABRT" : sig == SIGSYS ? "SIGSYS"
			   : "SIGTRAP";
	ssize_t w = write(STDERR_FILENO, head, sizeof(head) - 1);

	w += write(STDERR_FILENO, name, strlen(name));
	w += write(STDERR_FILENO, tail, sizeof(tail) - 1);
	(void)w; /* nothing to do if stderr is gone */
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Every signal whose default action ends the process is handled, so that
 * no way of stopping rfx but SIGKILL leaves a temporary file: the ones a
 * user, a shell, a pipe or a resource limit sends (terminal closed, stdout
 * into head, ulimit -f and -t, timers, kill) cancel the run as SIGINT
 * does, and exit 128 + signal once the temporary is gone. Signals the
 * shell ignores (background jobs, nohup) stay ignored. The faults remove
 * the temporary and then take their default action, except under
 * AddressSanitizer, whose own handler reports them.
 */
static void install_signals(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
		SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
		SIGPOLL,
#endif
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
#ifdef SIGPWR
		SIGPWR,
#endif
	};
	static const int faults[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP
	};
	struct sigaction sa, old;
	size_t k;
	int sanitized = 0;

#if defined(__SANITIZE_ADDRESS__)
	sanitized = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	sanitized = 1;
#endif
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[k], &sa, NULL);
	if (sanitized)
		return;
	sa.sa_handler = on_fault;
	for (k = 0; k < sizeof(faults) / sizeof(faults[0]); k++)
		sigaction(faults[k], &sa, NULL);
}

/* argv joined with single spaces, arguments with shell metacharacters quoted. */
static char *join_command_line(int argc, char **argv)
{
	size_t len = 1;
	int i;
	char *s, *p;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		int quote = !*a || strpbrk(a, " \t\n'\"\\$`*?[]{}();&|<>!#~") != NULL;

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '\'';
		for (; *a; a++) {
			if (quote && *a == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *a;
			}
		}
		if (quote)
			*p++ = '\'';
	}
	*p = '\0';
	return s;
}

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return strdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return strdup(buf);
}

/*
 * The data directory when neither --data nor $RFX_DATA names one: data/
 * next to the binary (the source tree), else where make install puts it,
 * PREFIX/share/rfx/data for a binary in PREFIX/bin.
 */
static char *data_dir(const char *exe)
{
	size_t len = strlen(exe) + sizeof("/../share/rfx/data");
	char *s = malloc(len);
	struct stat st;

	if (!s)
		return NULL;
	snprintf(s, len, "%s/data", exe);
	if (stat(s, &st) == 0 && S_ISDIR(st.st_mode))
		return s;
	snprintf(s, len, "%s/../share/rfx/data", exe);
	if (stat(s, &st) == 0 && S_ISDIR(st.st_mode))
		return s;
	snprintf(s, len, "%s/data", exe);
	return s;
}

static void usage(FILE *out)
{
	const struct rfx_cmd *c;

	fprintf(out,
		"usage: rfx <command> [options]\n\n"
		"rfx reproduces the variance studies of random features for the\n"
		"Gaussian and softmax kernels, analytically and by Monte Carlo.\n\n"
		"commands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-12s %s\n", c->name, c->summary);
	fprintf(out, "\n'rfx <command> --help' lists a command's options; "
		     "'rfx help estimators' the estimators.\n");
}

static const struct rfx_cmd *find_cmd(const char *name)
{
	const struct rfx_cmd *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "unknown command 'X'[, did you mean 'Y'?] (see 'rfx help')", exit 2. */
static int unknown_command(const char *name)
{
	const char *names[64];
	char hint[96];
	size_t n = 0;
	const struct rfx_cmd *c;

	for (c = commands; c->name && n < sizeof(names) / sizeof(names[0]); c++)
		names[n++] = c->name;
	rfx_suggest_phrase(name, names, n, hint, sizeof(hint));
	return rfx_cli_fail(RFX_EXIT_USAGE, "unknown command '%s'%s (see 'rfx help')",
			    name, hint);
}

/* rfx help estimators: the commands' method columns from the table above. */
static int help_estimators(int argc, char **argv)
{
	struct rfx_method_taker t[32];
	const struct rfx_cmd *c;
	size_t n = 0;

	for (c = commands; c->name && n < sizeof(t) / sizeof(t[0]); c++)
		if (c->methods) {
			t[n].cmd = c->name;
			t[n++].accepts = c->methods;
		}
	return rfx_help_estimators(argc, argv, t, n);
}

static int cmd_help(int argc, char **argv, const struct rfx_cli *cli)
{
	const struct rfx_cmd *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return RFX_EXIT_OK;
	}
	if (!strcmp(argv[1], "estimators"))
		return help_estimators(argc - 1, argv + 1);
	c = find_cmd(argv[1]);
	if (!c || c->fn == cmd_help || c->fn == cmd_version)
		return c ? (usage(stdout), RFX_EXIT_OK) : unknown_command(argv[1]);
	args[0] = argv[1];
	return c->fn(2, args, cli);
}

static int cmd_version(int argc, char **argv, const struct rfx_cli *cli)
{
	(void)argc;
	(void)argv;
	printf("rfx %s (commit %s)\n", cli->version, cli->commit);
	printf("blas: %s\n", rfx_isa_describe());
	return RFX_EXIT_OK;
}

int rfx_cli_dispatch(int argc, char **argv, const struct rfx_cli *cli)
{
	const struct rfx_cmd *c = argc > 0 ? find_cmd(argv[0]) : NULL;

	if (!c)
		return rfx_cli_fail(RFX_EXIT_USAGE, "unknown command '%s'",
				    argc > 0 ? argv[0] : "");
	return c->fn(argc, argv, cli);
}

/*
 * ret, or a failure when stdout could not take what the run printed (a
 * full disk, a closed pipe): every run's last check, --help's included.
 */
static int stdout_status(int ret)
{
	if ((fflush(stdout) || ferror(stdout)) && !ret)
		return rfx_cli_fail(RFX_EXIT_FAIL, "cannot write to standard output");
	return ret;
}

/*
 * Address space a run must have left once the BLAS has its buffers.
 * libhdf5 1.10.8 does not check all of its allocations: with a few MiB
 * left under `ulimit -v` (attention and variance with -o, 200500-203000
 * KiB), H5Fcreate died of SIGSEGV or of glibc's "corrupted double-linked
 * list" instead of failing. With this much free at the start the files
 * open, and rfx's own arrays, which it checks, fail first.
 */
#define HEADROOM_BYTES ((size_t)32 << 20)

/* Whether HEADROOM_BYTES can be mapped (then unmapped at once). */
static int headroom_left(void)
{
	void *p = mmap(NULL, HEADROOM_BYTES, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, HEADROOM_BYTES);
	return 1;
}

int main(int argc, char **argv)
{
	const struct rfx_cmd *c;
	struct rfx_cli cli;
	char *line, *dir, *data, omp_var[128];
	int ret, nrefused = release_stderr(omp_var, sizeof(omp_var));

	/*
	 * HDF5's exit handler crashes on a file whose close failed (a full
	 * disk, libhdf5 1.10.8): the library is closed at the end of main,
	 * unless that happened (rfx_h5out_abandoned) or the run failed.
	 */
	H5dont_atexit();
	gsl_set_error_handler_off();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	install_signals();
	atexit(remove_tmp);
	if (bad_omp_threads)
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "OMP_NUM_THREADS must be a positive number of threads up to %d (or a list of them), got '%s'",
				    RFX_THREADS_MAX, bad_omp_threads);
	if (nrefused) {
		const char *v = getenv(omp_var);
		char more[64] = "";

		if (nrefused > 1)
			snprintf(more, sizeof(more), ", and %d more variable%s",
				 nrefused - 1, nrefused > 2 ? "s" : "");
		return rfx_cli_fail(RFX_EXIT_USAGE,
				    "libgomp refuses %s='%s' (its values: the libgomp manual, \"Environment Variables\")%s",
				    omp_var, v ? v : "", more);
	}
	/* OpenBLAS's kernels for this CPU if it fell back (num/blas.h) */
	rfx_blas_fit_core();
	if (argc < 2) {
		usage(stderr);
		return RFX_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return stdout_status(RFX_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version"))
		argv[1] = "version";
	c = find_cmd(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	/* OpenBLAS's buffers now, or a product would hang (cli/output.h) */
	if (!c->no_blas && !rfx_cli_threads(0))
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "out of memory: the BLAS needs 128 MiB of address space per thread (ulimit -v)");
	if (!headroom_left())
		return rfx_cli_fail(RFX_EXIT_FAIL,
				    "out of memory: rfx needs %zu MiB of address space free at the start, beside any BLAS buffers (ulimit -v)",
				    HEADROOM_BYTES >> 20);
	/* --shard leaves argv first: files record the serial command line */
	ret = rfx_dist_args(argv[1], &argc, argv);
	if (ret)
		return ret;
	line = join_command_line(argc, argv);
	dir = exe_dir();
	data = dir ? data_dir(dir) : NULL;
	if (!line || !dir || !data) {
		free(line);
		free(dir);
		free(data);
		return rfx_cli_fail(RFX_EXIT_FAIL, "out of memory");
	}
	cli.command_line = line;
	cli.version = RFX_VERSION;
	cli.commit = RFX_GIT_COMMIT;
	cli.exe_dir = dir;
	cli.data_dir = data;
	cli.argc = argc;
	cli.argv = argv;
	ret = rfx_dist_start(&cli);
	if (!ret)
		ret = c->fn(argc - 1, argv + 1, &cli);
	if (caught_signal && ret != RFX_EXIT_USAGE)
		ret = 128 + caught_signal;
	ret = stdout_status(rfx_dist_finish(ret));
	if (!ret)
		rfx_seed_flush();
	free(line);
	free(dir);
	free(data);
	/*
	 * Not after a failed run: libhdf5 1.10.8's H5close crashes when
	 * the run ran out of address space (ulimit -v: attention at 200000
	 * KiB failed in one line, then died of SIGSEGV in H5_term_library),
	 * and a failed run has nothing left to flush (its output is gone).
	 */
	if (!ret && !rfx_h5out_abandoned())
		H5close();
	return ret;
}

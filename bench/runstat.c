/*
 * Runs a command and reports what it cost: wall time, CPU time (user and
 * system, all threads) and peak resident set, from wait4's rusage of that
 * child alone. bench/run.sh times the experiment runs with it: on a
 * machine shared with other work the wall time depends on the load, the
 * CPU time much less (time descheduled is not counted), so the report
 * gives both and the load average.
 *
 *   runstat CMD [ARG...]
 *
 * CMD's stdout and stderr pass through unchanged; the report is one line
 * on file descriptor 3 if it is open, else on stderr:
 *
 *   runstat exit=STATUS wall=SECONDS user=SECONDS sys=SECONDS maxrss_kib=KIB
 *
 * The exit status is CMD's (128 + signal if it was killed; 127 if it
 * could not be run).
 */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double seconds(struct timeval tv)
{
	return tv.tv_sec + 1e-6 * tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t1;
	pid_t pid;
	int st, code;
	FILE *rep;

	if (argc < 2) {
		fprintf(stderr, "usage: runstat CMD [ARG...]\n");
		return 2;
	}
	rep = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	if (!rep)
		rep = stderr;
	fflush(NULL);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runstat: cannot fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		if (rep != stderr)
			close(3); /* the command does not inherit the report */
		execvp(argv[1], argv + 1);
		fprintf(stderr, "runstat: cannot run '%s': %s\n", argv[1],
			strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
			return 127;
		}
	t1 = now();
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	fprintf(rep,
		"runstat exit=%d wall=%.3f user=%.3f sys=%.3f maxrss_kib=%ld\n",
		code, t1 - t0, seconds(ru.ru_utime), seconds(ru.ru_stime),
		ru.ru_maxrss);
	fflush(rep);
	return code;
}

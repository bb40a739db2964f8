/*
 * A preload for tests/t_cmd_faults.sh: pthread_create fails with EAGAIN
 * when libgomp calls it, as under a limit on processes that rfx's own
 * probe of the thread team (cli/output.c, threads_startable) did not meet,
 * because it came later. libgomp then ends the process with exit(); the
 * test checks that rfx's exit handler still removes the temporary output.
 * The caller is told by the object holding the return address, so rfx's
 * probe, which calls pthread_create itself, still gets its threads.
 *
 *   cc -shared -fPIC -o nothread.so tests/nothread.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *,
		      void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*start)(void *), void *arg)
{
	static create_fn *real;
	Dl_info who;

	if (dladdr(__builtin_return_address(0), &who) && who.dli_fname &&
	    strstr(who.dli_fname, "libgomp"))
		return EAGAIN;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	return real ? real(t, attr, start, arg) : EAGAIN;
}

/*
 * The cancellation flag: a sig_atomic_t written from a signal handler and
 * read by worker loops (also from OpenMP threads, where a stale read only
 * delays cancellation by one poll).
 */
#include "base/cancel.h"

#include <signal.h>

static volatile sig_atomic_t cancel_flag;

void rfx_cancel_request(void)
{
	cancel_flag = 1;
}

int rfx_cancel_requested(void)
{
	return cancel_flag != 0;
}

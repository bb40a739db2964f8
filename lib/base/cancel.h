/*
 * Cooperative cancellation. The command line installs SIGINT/SIGTERM
 * handlers that call rfx_cancel_request(); long library loops poll
 * rfx_cancel_requested() and return RFX_EINTR, so that the caller can remove
 * its temporary output and exit non-zero. The library itself never installs
 * handlers.
 */
#ifndef RFX_CANCEL_H
#define RFX_CANCEL_H

/* Async-signal-safe: marks the run as cancelled. */
void rfx_cancel_request(void);

/* Non-zero once rfx_cancel_request() has been called. */
int rfx_cancel_requested(void);

#endif

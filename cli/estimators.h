/*
 * 'rfx help estimators': the estimator registry (lib/est/estimator.h) as
 * a table for people, and as the README's Markdown table, the man page's
 * section and plain lists that the tests compare with every copy, so no
 * list of estimators is kept by hand.
 */
#ifndef RFX_CLI_ESTIMATORS_H
#define RFX_CLI_ESTIMATORS_H

#include <stddef.h>

#include "est/estimator.h"

/*
 * A command that takes estimators in --method: its name and whether it
 * accepts estimator e (cli/rfx.c's command table supplies these).
 */
struct rfx_method_taker {
	const char *cmd;
	int (*accepts)(const struct rfx_estimator_type *e);
};

/*
 * Prints the table: argv[0] is "estimators", then optionally
 * "--format text|markdown|man|names|params". takers lists the commands
 * (n of them) for the "accepted by" column. Returns an exit status.
 */
int rfx_help_estimators(int argc, char **argv,
			const struct rfx_method_taker *takers, size_t n);

/* "A, t, lambda, ..." (every parameter name) into buf (size len). */
void rfx_param_names(char *buf, size_t len);

/*
 * The --param help line: lead, then every parameter name and where their
 * ranges are, then the default, into buf (size len).
 */
void rfx_param_help(char *buf, size_t len, const char *lead);

/*
 * Appends a line "LABEL NAME NAME ... TAIL" to the text in buf (size
 * len), wrapped at 72 columns: every estimator e for which accepts(e)
 * (NULL: all), in registry order.
 */
void rfx_methods_help(char *buf, size_t len, const char *label,
		      int (*accepts)(const struct rfx_estimator_type *e),
		      const char *tail);

#endif

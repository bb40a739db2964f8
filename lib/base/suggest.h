/*
 * "Did you mean": the closest of a list of valid names to a misspelt one,
 * for the one-line errors on unknown methods, options, datasets and other
 * names (after git's help_unknown_cmd). Distance is the optimal string
 * alignment distance (Levenshtein plus transposition of two neighbours,
 * Damerau 1964), ignoring case; a name is suggested only when it is close
 * enough that the suggestion is likely what was meant.
 */
#ifndef RFX_SUGGEST_H
#define RFX_SUGGEST_H

#include <stddef.h>

/*
 * Edit distance between a and b ignoring ASCII case: insertions,
 * deletions, substitutions and swaps of adjacent characters count 1.
 * Names longer than 63 characters are compared on their first 63.
 */
int rfx_suggest_distance(const char *a, const char *b);

/*
 * The entry of names (n of them, NULL entries skipped) nearest to word, or
 * NULL when none is near: the distance must be at most 2 and less than
 * half the longer name's length ("x" suggests nothing), and an entry
 * that word is a prefix of (case aside) counts as distance 1. The first
 * of equally near names wins. The result is borrowed from names.
 */
const char *rfx_suggest(const char *word, const char *const *names, size_t n);

/*
 * Appends ", did you mean 'NAME'?" for the nearest of names to word into
 * buf (size len, always terminated) when there is one, else "".
 * Convenience for building error messages; returns buf.
 */
char *rfx_suggest_phrase(const char *word, const char *const *names, size_t n,
			 char *buf, size_t len);

/*
 * rfx_suggest_phrase for names given as one string separated by commas
 * and blanks ("wine, boston, ..."), as the catalogues' *_NAMES macros
 * spell them; at most 64 names of up to 63 characters are considered.
 */
char *rfx_suggest_phrase_list(const char *word, const char *list, char *buf,
			      size_t len);

#endif

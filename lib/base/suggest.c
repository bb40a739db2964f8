/*
 * "Did you mean" suggestions: the optimal string alignment distance
 * (Damerau-Levenshtein without repeated edits of one substring) over
 * lowercased names, and the rule that decides when a valid name is near
 * enough to suggest.
 */
#include "base/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 63 /* longer names compare on their first 63 characters */

static size_t lower(const char *s, char *out)
{
	size_t n = 0;

	for (; s[n] && n < NAME_MAX_LEN; n++)
		out[n] = (char)tolower((unsigned char)s[n]);
	out[n] = '\0';
	return n;
}

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int rfx_suggest_distance(const char *a, const char *b)
{
	char x[NAME_MAX_LEN + 1], y[NAME_MAX_LEN + 1];
	int t[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1]; /* t[i][j]: x[0..i) vs y[0..j) */
	size_t n = lower(a, x), m = lower(b, y), i, j;

	for (i = 0; i <= n; i++)
		t[i][0] = (int)i;
	for (j = 0; j <= m; j++)
		t[0][j] = (int)j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			int cost = x[i - 1] != y[j - 1];

			t[i][j] = min3(t[i - 1][j] + 1, t[i][j - 1] + 1,
				       t[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && x[i - 1] == y[j - 2] &&
			    x[i - 2] == y[j - 1] && t[i - 2][j - 2] + 1 < t[i][j])
				t[i][j] = t[i - 2][j - 2] + 1;
		}
	return t[n][m];
}

/* Whether word is a proper prefix of name, ignoring case. */
static int is_prefix(const char *word, const char *name)
{
	size_t k;

	for (k = 0; word[k]; k++)
		if (tolower((unsigned char)word[k]) != tolower((unsigned char)name[k]))
			return 0;
	return name[k] != '\0';
}

const char *rfx_suggest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	int best_d = 3; /* suggest at distance 2 at most */
	size_t k;

	if (!word || !*word)
		return NULL;
	for (k = 0; k < n; k++) {
		size_t lw = strlen(word), ln, longer;
		int d;

		if (!names[k])
			continue;
		ln = strlen(names[k]);
		longer = lw > ln ? lw : ln;
		d = is_prefix(word, names[k]) ? 1 : rfx_suggest_distance(word, names[k]);
		if (2 * (size_t)d >= longer)
			continue;
		if (d < best_d) {
			best = names[k];
			best_d = d;
		}
	}
	return best;
}

char *rfx_suggest_phrase(const char *word, const char *const *names, size_t n,
			 char *buf, size_t len)
{
	const char *s = rfx_suggest(word, names, n);

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (s)
		snprintf(buf, len, ", did you mean '%s'?", s);
	return buf;
}

char *rfx_suggest_phrase_list(const char *word, const char *list, char *buf,
			      size_t len)
{
	char store[64][NAME_MAX_LEN + 1];
	const char *names[64];
	size_t n = 0;

	while (list && *list && n < 64) {
		size_t k = strcspn(list, ", \t");

		if (k) {
			size_t c = k < NAME_MAX_LEN ? k : NAME_MAX_LEN;

			memcpy(store[n], list, c);
			store[n][c] = '\0';
			names[n] = store[n];
			n++;
		}
		list += k;
		list += strspn(list, ", \t");
	}
	return rfx_suggest_phrase(word, names, n, buf, len);
}

/*
 * "Did you mean" (lib/base/suggest.h): distances worked by hand from the
 * definition (one edit per insertion, deletion, substitution or swap of
 * neighbours), and which names the rule suggests or withholds.
 */
#include <string.h>

#include "tap.h"
#include "base/suggest.h"

int main(void)
{
	static const char *const methods[] = { "trig", "hyb", "gerf", "pois",
					       "geom", "pos", "oprf", "pois+",
					       "geom+", "favor+", "favor++" };
	static const struct { const char *a, *b; int d; } dist[] = {
		{ "", "", 0 },		 { "trig", "trig", 0 },
		{ "TRIG", "trig", 0 },	 /* case is ignored */
		{ "tirg", "trig", 1 },	 /* one swap, not two substitutions */
		{ "trg", "trig", 1 },	 /* one insertion */
		{ "trigg", "trig", 1 },	 /* one deletion */
		{ "trog", "trig", 1 },	 /* one substitution */
		{ "kitten", "sitting", 3 }, /* the textbook pair: k/s, e/i, +g */
		{ "ca", "abc", 3 },	 /* OSA, not unrestricted Damerau (2) */
		{ "", "abc", 3 },
	};
	const size_t nm = sizeof(methods) / sizeof(methods[0]);
	char buf[64];
	size_t k;

	plan((int)(sizeof(dist) / sizeof(dist[0])) + 12);
	for (k = 0; k < sizeof(dist) / sizeof(dist[0]); k++)
		ok(rfx_suggest_distance(dist[k].a, dist[k].b) == dist[k].d,
		   "distance('%s', '%s') = %d (got %d)", dist[k].a, dist[k].b,
		   dist[k].d, rfx_suggest_distance(dist[k].a, dist[k].b));
	ok(rfx_suggest("tirg", methods, nm) == methods[0], "tirg: trig");
	ok(rfx_suggest("favor", methods, nm) == methods[9],
	   "favor: favor+, the first name it is a prefix of");
	ok(rfx_suggest("FAVOR+++", methods, nm) == methods[10],
	   "FAVOR+++: favor++ (case aside, one deletion)");
	ok(rfx_suggest("pos+", methods, nm) == methods[5],
	   "pos+: pos, the first of the names at distance 1 (pos, pois+)");
	ok(!rfx_suggest("x", methods, nm), "x: nothing (too short to be a typo)");
	ok(!rfx_suggest("gaussian", methods, nm), "gaussian: nothing near");
	ok(!rfx_suggest("", methods, nm), "the empty word: nothing");
	rfx_suggest_phrase("oprff", methods, nm, buf, sizeof(buf));
	ok(!strcmp(buf, ", did you mean 'oprf'?"), "phrase: '%s'", buf);
	rfx_suggest_phrase("zzzz", methods, nm, buf, sizeof(buf));
	ok(buf[0] == '\0', "phrase without a suggestion is empty");
	rfx_suggest_phrase_list("bostn", "wine, boston, letter", buf, sizeof(buf));
	ok(!strcmp(buf, ", did you mean 'boston'?"), "list form: '%s'", buf);
	rfx_suggest_phrase_list("mnst", "letter usps\tmnist", buf, sizeof(buf));
	ok(!strcmp(buf, ", did you mean 'mnist'?"), "blanks and tabs separate too: '%s'",
	   buf);
	rfx_suggest_phrase_list("cifar", "letter, usps, mnist", buf, sizeof(buf));
	ok(buf[0] == '\0', "nothing near: empty");
	done_testing();
}

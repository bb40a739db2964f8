#!/bin/sh
#
# docs/HACKING.md's worked examples list the files a change touches; this
# test keeps those lists true: every path they name (in backquotes, a
# placeholder such as <name> aside) exists in the tree, and each example
# names the files that the corresponding checks rely on. Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

cd "$RFX_TOP" || bail "cannot enter $RFX_TOP"
doc=docs/HACKING.md

# section TITLE: the lines of "### TITLE" up to the next heading.
section() {
	T="### $1" awk '/^##/ { on = ($0 == ENVIRON["T"]) ; next } on' "$doc"
}

for ex in "Add an estimator" "Add a projection kind" \
	"Add an experiment with its figure and report row"; do
	section "$ex" > "$tmp/sec"
	[ -s "$tmp/sec" ]
	ok $? "HACKING.md has the example '$ex'" || continue
	# backquoted words that look like paths of the tree
	tr '\n' ' ' < "$tmp/sec" | grep -o '`[^`]*`' | tr -d '`' |
		grep -E '^(lib|cli|tests|tools|docs|doc|experiments|plots|bench)/|^(Makefile|README\.md)$' |
		grep -v '<' | sort -u > "$tmp/paths"
	missing=$(while read -r p; do [ -e "$p" ] || echo "$p"; done < "$tmp/paths")
	[ -s "$tmp/paths" ] && [ -z "$missing" ]
	ok $? "'$ex': the $(lines "$tmp/paths") files it names exist" || diag "missing: $missing"
done

# The estimator recipe names what the estimator checks read.
section "Add an estimator" > "$tmp/sec"
for f in lib/est/estimator.c lib/est/estimator.h Makefile tests/t_estimator.c \
	tests/t_estimator_lists.sh tools/estimator-lists.sh; do
	grep -q "$f" "$tmp/sec"
	ok $? "'Add an estimator' names $f"
done

done_testing

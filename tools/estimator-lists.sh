#!/bin/sh
#
# Rewrites the copies of the estimator list that live in documents from
# 'rfx help estimators' (the registry): README.md's table (--format
# markdown) and doc/rfx.1's ESTIMATORS section (--format man), between
# their "begin:"/"end:" marker lines. Run it after adding or changing an
# estimator; tests/t_estimator_lists.sh fails until the copies match.
#
# usage: tools/estimator-lists.sh [RFX]   (default ./rfx, from the top)

set -e
rfx=${1:-./rfx}
cd "$(dirname "$0")/.."

# replace FILE FORMAT: the lines between the markers of FORMAT become
# 'rfx help estimators --format FORMAT'.
replace() {
	"$rfx" help estimators --format "$2" > "$1.gen"
	G="$1.gen" M="rfx help estimators --format $2" awk '
	index($0, "begin: " ENVIRON["M"]) { print; while ((getline l < ENVIRON["G"]) > 0) print l; skip = 1; next }
	index($0, "end: " ENVIRON["M"]) { skip = 0 }
	!skip' "$1" > "$1.tmp"
	rm -f "$1.gen"
	mv "$1.tmp" "$1"
}

replace README.md markdown
replace doc/rfx.1 man

#!/bin/sh
#
# The README's headline figures (docs/img/*.png, make readme-figures) are
# current: for each image docs/img/inputs.sha256 records the SHA-256 of
# what it was drawn from (tools/figure-digest.sh: the rfx dump of its
# experiment's results at full scale to 6 digits, its gnuplot script,
# plots/common.gp and plots/styles.gp); this
# recomputes them with the binary under test (the experiments are closed
# forms, under a second each) and fails when one differs, naming 'make
# readme-figures'.
# Also: every recorded image exists, is a PNG, and README.md shows it.
# Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
command -v sha256sum > /dev/null 2>&1 || { echo "1..0 # SKIP no sha256sum"; exit 0; }
img=$RFX_TOP/docs/img
[ -f "$img/inputs.sha256" ]
ok $? "docs/img/inputs.sha256 exists" || { done_testing; exit; }
while read -r want png; do
	f=${png%.png}
	[ -f "$img/$png" ] && [ "$(head -c 4 "$img/$png" | tail -c 3)" = PNG ]
	ok $? "docs/img/$png is a PNG"
	grep -q "(docs/img/$png)" "$RFX_TOP/README.md"
	ok $? "README.md shows docs/img/$png"
	# The sanitized build (make check SANITIZE=1) is other code
	# (instrumented, other inlining and vectorisation): the last bits of
	# its fig_hrf1 dump differ, and the images are the plain build's.
	if [ "${RFX_BUILD:-}" = sanitize ]; then
		skip "docs/img/$png: a sanitized build's last bits differ from the plain build's"
		continue
	fi
	(cd "$RFX_TOP" && SCALE=full RFX=$RFX "experiments/$f.sh" "$tmp/$f.h5" 2> /dev/null)
	got=$("$RFX_TOP/tools/figure-digest.sh" "$RFX" "$tmp/$f.h5" "$f")
	is "$got" "$want" "docs/img/$png is current (else: make readme-figures)"
done < "$img/inputs.sha256"
done_testing

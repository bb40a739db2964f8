#!/bin/sh
#
# An installed rfx finds its datasets: make install puts the binary in
# PREFIX/bin and data/ in PREFIX/share/rfx/data, and rfx looks there when
# there is no data/ next to it (and neither --data nor $RFX_DATA is
# given). The layout is built by hand here, not by make install, so that
# the test does not re-enter make; the install rule itself is a plain
# copy of the same paths. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
unset RFX_DATA

# The install rule copies to these very paths.
grep -q "(INSTALL) -m 755 rfx '\$(DESTDIR)\$(BINDIR)/rfx'" "$RFX_TOP/Makefile" &&
	grep -q "data/\* '\$(DESTDIR)\$(DATADIR)/data'" "$RFX_TOP/Makefile" &&
	grep -q '^DATADIR = \$(PREFIX)/share/rfx$' "$RFX_TOP/Makefile" &&
	grep -q '^BINDIR = \$(PREFIX)/bin$' "$RFX_TOP/Makefile"
ok $? "make install: PREFIX/bin/rfx and PREFIX/share/rfx/data"

mkdir -p p/bin p/share/rfx/data
cp "$RFX" p/bin/rfx
cp "$RFX_TOP/data/wine.csv" "$RFX_TOP/data/wifi_localization.txt" p/share/rfx/data/
args="--dataset wine --method trig:iid --pairs 10 --draws 2 --reps 2"

# shellcheck disable=SC2086
p/bin/rfx mse-table $args > inst.tsv 2> inst.err
rc=$?
# shellcheck disable=SC2086
"$RFX" mse-table $args > tree.tsv 2> /dev/null
[ "$rc" -eq 0 ] && cmp -s inst.tsv tree.tsv
ok $? "mse-table: the installed binary reads PREFIX/share/rfx/data (same table as the tree's)" ||
	diag_file inst.err

p/bin/rfx uci-classify --dataset wifi --method exact --seeds 1 > /dev/null 2> inst.err
ok $? "uci-classify: the installed binary reads PREFIX/share/rfx/data" || diag_file inst.err

# With a data/ next to the binary, that one wins.
mkdir p/bin/data
cp "$RFX_TOP/data/wine.csv" p/bin/data/
printf 'not a dataset\n' > p/share/rfx/data/wine.csv
# shellcheck disable=SC2086
p/bin/rfx mse-table $args > near.tsv 2> /dev/null
cmp -s near.tsv tree.tsv
ok $? "data/ next to the binary comes first"

# Without either, the error names data/ next to the binary.
rm -rf p/bin/data p/share
# shellcheck disable=SC2086
p/bin/rfx mse-table $args > /dev/null 2> none.err
rc=$?
[ "$rc" -eq 1 ] && grep -q "p/bin/data/wine.csv" none.err
ok $? "no data directory: exit 1, naming data/ next to the binary" || diag_file none.err

done_testing

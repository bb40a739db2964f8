#!/bin/sh
#
# Tests of 'rfx dump', the HDF5-to-TSV step the gnuplot scripts read: whole
# files and single tables, --where on numeric and string columns,
# --blank-on, --attrs, and its errors (exit 1 for a file that cannot be
# read, 2 for a bad table, column or condition; one line each). Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# fails CODE DESCRIPTION ARG...: 'rfx ARG...' exits CODE with exactly one
# line "rfx: ..." on stderr and nothing on stdout.
fails() {
	f_code=$1
	f_desc=$2
	shift 2
	run "$@"
	[ "$rc" -eq "$f_code" ] && [ "$(lines "$tmp/err")" -eq 1 ] &&
		grep -q '^rfx: ' "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "$f_desc (exit $f_code, one line)" || {
		diag "exit status $rc" "rfx $*"
		diag_file "$tmp/err"
	}
}

# The file under test: 2 methods x 2 regimes x 2 gammas, ordered by regime,
# gamma, method; oprf has a fitted parameter per sample, trig none.
"$RFX" variance --method trig,oprf --regime normal,sphere --gamma 0.5,1 --L 8 \
	--samples 2 --seed 4242 -o v.h5 > v.tsv 2> /dev/null ||
	bail "rfx variance failed"
"$RFX" variance --method trig --regime normal --gamma 0.5 --L 4 --samples 1 \
	-o 'with space.h5' > /dev/null 2>&1 ||
	bail "rfx variance failed"

run dump v.h5
cp "$tmp/out" all.txt
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]
ok $? "dump FILE: exits 0, quiet"
is "$(grep '^#' all.txt | tr '\n' ' ')" "# params # variance " \
	"dump FILE: every table, in name order, each after '# name'"
{
	echo '# params'
	"$RFX" dump v.h5 params
	printf '\n\n# variance\n'
	cat v.tsv
} > want
cmp -s want all.txt
ok $? "dump FILE: tables separated by two blank lines; variance as the run printed it" ||
	diff want all.txt | diag_file /dev/stdin
run dump v.h5 variance
cmp -s "$tmp/out" v.tsv
ok $? "dump FILE variance: the run's stdout byte for byte"
run dump v.h5 params
[ "$(lines "$tmp/out")" -eq 9 ] &&
	[ "$(cut -f1,5 "$tmp/out" | tail -n +2 | sort -u)" = "$(printf 'oprf\tA_re')" ]
ok $? "dump FILE params: oprf's A for each regime, gamma and sample (8 rows)" ||
	diag_file "$tmp/out"

# --where
run dump v.h5 variance --where gamma=0.5
cp "$tmp/out" g05.txt
awk -F'\t' 'NR == 1 || $3 == 0.5' v.tsv > want
[ "$rc" -eq 0 ] && cmp -s g05.txt want && [ "$(lines g05.txt)" -eq 5 ]
ok $? "--where gamma=0.5: the header and the 4 gamma 0.5 rows" || diag_file g05.txt
for v in 5e-1 0.50 .5; do
	run dump v.h5 variance --where gamma=$v
	cmp -s "$tmp/out" g05.txt
	ok $? "--where gamma=$v: numbers compare by value"
done
run dump v.h5 variance --where method=trig
awk -F'\t' 'NR == 1 || $1 == "trig"' v.tsv > want
[ "$rc" -eq 0 ] && cmp -s "$tmp/out" want && [ "$(lines want)" -eq 5 ]
ok $? "--where method=trig: the trig rows"
run dump v.h5 variance --where method=trig --where regime=sphere --where gamma=1
awk -F'\t' 'NR == 1 || ($1 == "trig" && $2 == "sphere" && $3 == 1)' v.tsv > want
[ "$rc" -eq 0 ] && cmp -s "$tmp/out" want && [ "$(lines want)" -eq 2 ]
ok $? "--where three times: all conditions hold"
run dump v.h5 variance --where method=tri
[ "$rc" -eq 0 ] && [ "$(lines "$tmp/out")" -eq 1 ]
ok $? "--where method=tri: strings match whole, header only"
run dump v.h5 variance --where M=8
[ "$rc" -eq 0 ] && [ "$(cut -f1 "$tmp/out" | tail -n +2 | sort -u)" = oprf ]
ok $? "--where on an integer column"
run dump v.h5 --where method=oprf
[ "$rc" -eq 0 ] && grep -qx '# params' "$tmp/out" && grep -qx '# variance' "$tmp/out" &&
	! grep -q '^trig' "$tmp/out" && [ "$(grep -c '^oprf' "$tmp/out")" -eq 12 ]
ok $? "--where without TABLE filters every table"
fails 2 "--where on an unknown column" dump v.h5 variance --where foo=1
grep -q "foo" "$tmp/err"
ok $? "--where on an unknown column: the message names it"
fails 2 "--where gamma=abc on a numeric column" dump v.h5 variance --where gamma=abc
fails 2 "--where without '='" dump v.h5 variance --where gamma
# A column one table lacks, without TABLE: the tables that have it,
# filtered, and the others left out (a table without the column has no
# row where it equals anything). Before, the whole dump failed.
run dump v.h5 --where sample=0
[ "$rc" -eq 0 ] && [ "$(grep '^# ' "$tmp/out")" = "# params" ] &&
	[ "$(awk -F'\t' 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "sample") c = i }
		NR > 2 && c && $c != 0 { bad = 1 } END { print c && !bad }' "$tmp/out")" = 1 ]
ok $? "--where on a column only params has (no TABLE): params' sample 0 rows alone" ||
	diag_file "$tmp/out"
fails 2 "--where on a column no table has (no TABLE)" dump v.h5 --where nosuch=0
grep -q "no table in 'v.h5' has a column 'nosuch'" "$tmp/err"
ok $? "  the message says no table has it" || diag_file "$tmp/err"

# --blank-on
run dump v.h5 variance --blank-on regime
cp "$tmp/out" blank.txt
[ "$rc" -eq 0 ] && [ "$(grep -c '^$' blank.txt)" -eq 1 ] &&
	grep -v '^$' blank.txt | cmp -s - v.tsv &&
	awk -F'\t' '/^$/ { b = NR } { r[NR] = $2 } END { exit !(r[b - 1] == "normal" && r[b + 1] == "sphere") }' blank.txt
ok $? "--blank-on regime: one blank line, between the normal and sphere rows" ||
	diag_file blank.txt
run dump v.h5 variance --blank-on gamma
[ "$rc" -eq 0 ] && [ "$(grep -c '^$' "$tmp/out")" -eq 3 ] &&
	grep -v '^$' "$tmp/out" | cmp -s - v.tsv && [ "$(sed -n 2p "$tmp/out")" != "" ]
ok $? "--blank-on gamma: a blank line at each of the 3 changes, none after the header"
run dump v.h5 variance --blank-on regime --where method=trig
[ "$rc" -eq 0 ] && [ "$(grep -c '^$' "$tmp/out")" -eq 1 ] && [ "$(lines "$tmp/out")" -eq 6 ]
ok $? "--blank-on with --where"
run dump v.h5 --blank-on gamma
awk '/^# / { h = NR } h && NR == h + 1 && /^$/ { bad = 1 }
	h && NR == h + 2 && /^$/ { bad = 1 } END { exit bad }' "$tmp/out" &&
	[ "$rc" -eq 0 ] && [ "$(grep -v '^$' "$tmp/out")" = "$(grep -v '^$' all.txt)" ]
ok $? "--blank-on without TABLE: per table, no blank line around a table's header" ||
	diag_file "$tmp/out"
fails 2 "--blank-on an unknown column" dump v.h5 variance --blank-on foo
fails 2 "--blank-on a column of the other table only" dump v.h5 variance --blank-on sample
fails 2 "--blank-on a value, not a column" dump v.h5 variance --blank-on normal
fails 2 "--blank-on a column one table lacks (no TABLE)" dump v.h5 --blank-on sample
fails 2 "--blank-on a column only a later table has (no TABLE)" dump v.h5 --blank-on logvar_mean

# --attrs
run dump --attrs v.h5
version=$("$RFX" --version | head -n 1)
{
	printf 'command\t%s\n' "$RFX variance --method trig,oprf --regime normal,sphere --gamma 0.5,1 --L 8 --samples 2 --seed 4242 -o v.h5"
	echo "$version" | sed 's/^rfx \([^ ]*\) (commit \(.*\))$/rfx_commit\t\2/'
	echo "$version" | sed 's/^rfx \([^ ]*\) (commit \(.*\))$/rfx_version\t\1/'
	printf 'rng\txoshiro256**\n'
	printf 'seed\t4242\n'
} > want
grep -E '^(command|rfx_commit|rfx_version|rng|seed)	' "$tmp/out" > prov
[ "$rc" -eq 0 ] && cmp -s prov want
ok $? "--attrs: command, rfx_commit, rfx_version, rng, seed, in name order" ||
	diff want prov | diag_file /dev/stdin
[ "$(sed -n 's/^options\/method\t//p' "$tmp/out")" = "trig,oprf" ] &&
	[ "$(sed -n 's/^options\/L\t//p' "$tmp/out")" = 8 ] &&
	[ "$(sed -n 's/^options\/gamma\t//p' "$tmp/out")" = "0.5,1" ] &&
	[ "$(sed -n 's/^options\/regime\t//p' "$tmp/out")" = "normal,sphere" ] &&
	[ "$(sed -n 's/^options\/samples\t//p' "$tmp/out")" = 2 ] &&
	[ "$(sed -n 's/^options\/mc\t//p' "$tmp/out")" = 1000 ]
ok $? "--attrs: the run's options (method, regime, gamma, L, samples, default mc)"
run dump 'with space.h5' --attrs
is "$(sed -n 's/^command\t//p' "$tmp/out")" \
	"$RFX variance --method trig --regime normal --gamma 0.5 --L 4 --samples 1 -o 'with space.h5'" \
	"--attrs: the command line quotes an argument with a space"

# Other files and errors
run dump "$RFX_TOP/tests/data/golden_table.h5"
[ "$rc" -eq 0 ] && [ "$(sed -n 1p "$tmp/out")" = "# stations" ]
ok $? "dump reads a table written by H5TBmake_table (tests/data/golden_table.h5)"
"$RFX" variance --x 1,2 --y 0.5,1 --method trig -o pair.h5 > pair.tsv 2> /dev/null
run dump pair.h5 pair
cmp -s "$tmp/out" pair.tsv
ok $? "dump of a pair-mode file: table 'pair' as printed"
"$RFX" variance --map angle --method trig --d 2 --steps 3 -o map.h5 > map.tsv 2> /dev/null
run dump map.h5 map
cmp -s "$tmp/out" map.tsv
ok $? "dump of a map-mode file: table 'map' as printed"
run dump v.h5 params --where method=trig
[ "$rc" -eq 0 ] && [ "$(lines "$tmp/out")" -eq 1 ]
ok $? "a table with no matching rows prints its header"

echo 'method	gamma' > notes.txt
fails 1 "dump of a file that is not HDF5" dump notes.txt
grep -q "not an HDF5 file" "$tmp/err"
ok $? "not HDF5: the message says so" || diag_file "$tmp/err"
fails 1 "dump of a missing file" dump missing.h5
grep -q "missing.h5" "$tmp/err"
ok $? "missing file: the message names it" || diag_file "$tmp/err"
fails 1 "dump of a directory" dump .
fails 2 "dump of a missing table" dump v.h5 nosuch
grep -q "tables: params, variance" "$tmp/err"
ok $? "missing table: the message lists the tables" || diag_file "$tmp/err"
# Another program's HDF5 file, arrays and no table: an error, not an
# empty dump that exits 0 (rfx writes every result as a table).
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import h5py, numpy' 2>/dev/null; then
	"$PY" -c 'import h5py, numpy
with h5py.File("arrays.h5", "w") as f:
    f["x"] = numpy.arange(5.0)' || bail "h5py could not write arrays.h5"
	fails 2 "dump of an HDF5 file with no table" dump arrays.h5
	grep -q "'arrays.h5' has no tables" "$tmp/err"
	ok $? "  the message says it has no tables" || diag_file "$tmp/err"
	fails 2 "dump --describe of an HDF5 file with no table" dump --describe arrays.h5
else
	for i in 1 2 3; do skip "h5py is not installed"; done
fi
fails 2 "dump without a file" dump
fails 2 "dump with an extra argument" dump v.h5 variance extra
fails 2 "dump with an unknown option" dump v.h5 --bogus
fails 2 "dump --where without a value" dump v.h5 --where
run dump --help
[ "$rc" -eq 0 ] && head -n 1 "$tmp/out" | grep -q '^usage: rfx dump ' &&
	grep -q -- '--where COL=VALUE' "$tmp/out" && grep -q -- '--blank-on COL' "$tmp/out" &&
	grep -q -- '--attrs' "$tmp/out"
ok $? "dump --help: usage and every option"
run help dump
"$RFX" dump --help | cmp -s - "$tmp/out"
ok $? "rfx help dump prints the same as rfx dump --help"

done_testing

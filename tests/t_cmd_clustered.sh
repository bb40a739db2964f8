#!/bin/sh
#
# Tests of 'rfx clustered' through the command line: the documented
# headers of every table, TSV against HDF5, reproducibility across thread
# counts and runs, bad inputs (one line on stderr, exit 2 for usage
# errors and 1 for run-time failures, no output file left) and SIGINT.
# Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

SUM_HEADER=$(printf 'set\tsigma\ts\tmethod\tm\treps\tmse_min\tmse_max\tmse_mean\tmse_median')
REP_HEADER=$(printf 'set\tsigma\tmethod\tm\trep\tmse\tlog_mse')
EXACT_HEADER=$(printf 'set\tsigma\tmethod\tm\tmse\tlog_mse')
CL_HEADER=$(printf 'set\tsigma\ti\tj\ts_target\ts_means\ts_centres\tnx\tny\tx_moved\ty_moved\tsm_min\tsm_mean\tsm_max')

# A small run: 40 points per cluster, 3 repetitions, m = 20, 50.
SMALL="--points 40 --reps 3 --m 20,50"

# ---------------------------------------------------------------------------
# Tables

rm -f out.h5
run clustered $SMALL -o out.h5
cp "$tmp/out" sum.tsv
is "$rc" 0 "exits 0"
is "$(head -n 1 sum.tsv)" "$SUM_HEADER" "stdout: the documented header of table3"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" \
	"the default seed and generator on stderr"
is "$(rows sum.tsv)" 24 "4 sets x 3 methods (hyb-cluster, pos, trig) x 2 m"
finite sum.tsv 7 10
ok $? "every MSE finite"
is "$(awk -F'\t' 'NR > 1 {print $1, $2, $3}' sum.tsv | sort -u | tr '\n' ';')" \
	"1 1 0.08,0.05,0.04,0.03;2 1 0.11,0.09,0.08,0.07;3 3.1622776601683795 0.05,0.03,0.03,0.02;4 3.1622776601683795 0.07,0.06,0.05,0.04;" \
	"the paper's four sets: s1, s2 with sigma 1, s3, s4 with sigma sqrt 10"
awk -F'\t' 'NR > 1 && !($7 <= $10 && $10 <= $8 && $7 <= $9 && $9 <= $8)' sum.tsv > bad.tsv
[ ! -s bad.tsv ]
ok $? "min <= median, mean <= max in every row"
"$RFX" dump out.h5 table3 > dumped.tsv 2> /dev/null
cmp -s sum.tsv dumped.tsv
ok $? "-o: table3 in the file dumps to the TSV printed"
"$RFX" dump out.h5 mse > rep.tsv 2> /dev/null
is "$(head -n 1 rep.tsv)" "$REP_HEADER" "-o: table mse, documented header"
is "$(rows rep.tsv)" 72 "-o: 24 cells x 3 repetitions"
"$RFX" dump out.h5 exact > exact.tsv 2> /dev/null
is "$(head -n 1 exact.tsv)" "$EXACT_HEADER" "-o: table exact, documented header"
is "$(rows exact.tsv)" 24 "-o: an expected MSE for every cell"
# Closed forms are proportional to 1/m: m = 20 gives 2.5 times m = 50's.
awk -F'\t' 'NR > 1 { v[$1 " " $3 " " $4] = $5 }
	END { for (k in v) { split(k, a, " "); if (a[3] == 20) {
		r = v[k] / v[a[1] " " a[2] " 50"]; if (r < 2.4999999 || r > 2.5000001) bad = 1 } }
	exit bad }' exact.tsv
ok $? "-o: expected MSE scales as 1/m"
"$RFX" dump out.h5 clusters > cl.tsv 2> /dev/null
is "$(head -n 1 cl.tsv)" "$CL_HEADER" "-o: table clusters, documented header"
is "$(rows cl.tsv)" 16 "-o: 4 sets x 4 pairs of clusters"
awk -F'\t' 'NR > 1 { d = $6 - $5; if (d < 0) d = -d; if (d > 0.005) bad = 1 } END { exit bad }' cl.tsv
ok $? "-o: every s within 0.005 of its target at the means"
"$RFX" dump out.h5 --attrs 2> /dev/null | grep -q '^command	.*clustered --points 40 --reps 3 --m 20,50 -o out.h5$'
ok $? "-o: the file records the command line"

# ---------------------------------------------------------------------------
# Reproducibility

run clustered $SMALL --threads 1
cmp -s "$tmp/out" sum.tsv
ok $? "the same bytes on one thread"
run clustered $SMALL --seed 7
cmp -s "$tmp/out" sum.tsv
[ $? -ne 0 ]
ok $? "another seed gives other MSEs"
run clustered $SMALL --set 3 --method trig
awk -F'\t' 'NR == 1 || ($1 == 3 && $4 == "trig")' sum.tsv > sub.tsv
cmp -s "$tmp/out" sub.tsv
ok $? "a set's rows of one method do not depend on the rest of the run"

run clustered --s 0.06,0.04,0.05,0.03 --sigma 0.5 --points 30 --reps 2 --m 10 \
	--method hyb-cluster,hyb-gmix,posh --a complex --tau 0.5 --base0 pos --scaling sphere
is "$rc" 0 "a custom set, complex A, the Gaussian mixture, sphere scaling: exits 0"
is "$(awk -F'\t' 'NR > 1 {print $1, $2, $3, $4}' "$tmp/out" | tr '\n' ';')" \
	"0 0.5 0.06,0.04,0.05,0.03 hyb-cluster;0 0.5 0.06,0.04,0.05,0.03 hyb-gmix;0 0.5 0.06,0.04,0.05,0.03 posh;" \
	"a custom set is set 0 with its own s and sigma"
finite "$tmp/out" 7 10
ok $? "every MSE finite"

# --method all: the two hybrids and every estimator 'rfx help estimators'
# says clustered accepts, in that order, each row finite; as everywhere,
# 'all' comes alone.
run clustered --set 1 --points 30 --reps 2 --m 10 --method all
is "$rc" 0 "--method all: exits 0"
want=$("$RFX" help estimators | awk '/^[a-z]/ { n = $1 }
	/accepted by/ && /clustered/ { printf " %s", n }')
is "$(awk -F'\t' 'NR > 1 { printf " %s", $4 }' "$tmp/out")" " hyb-cluster hyb-gmix$want" \
	"--method all: the hybrids, then the registry's methods for clustered"
finite "$tmp/out" 7 10
ok $? "--method all: every MSE finite"
fails 2 "'all' in a list" clustered --method all,trig -o out.h5

# ---------------------------------------------------------------------------
# Bad inputs

fails 2 "unknown method" clustered --method nope -o out.h5
fails 2 "a method with a two-part budget" clustered --method ang -o out.h5
fails 2 "set 5" clustered --set 5 -o out.h5
fails 2 "set 0" clustered --set 0 -o out.h5
fails 2 "a set listed twice" clustered --set 1,1 -o out.h5
fails 2 "m = 0" clustered --m 0 -o out.h5
fails 2 "m = 2.5" clustered --m 2.5 -o out.h5
fails 2 "m = nan" clustered --m nan -o out.h5
fails 2 "a malformed m list" clustered --m 20,,50 -o out.h5
fails 2 "0 repetitions" clustered --reps 0 -o out.h5
fails 2 "1 point per cluster" clustered --points 1 -o out.h5
fails 2 "d = 1" clustered --d 1 -o out.h5
fails 2 "norm 0" clustered --norm 0 -o out.h5
fails 2 "norm nan" clustered --norm nan -o out.h5
fails 2 "norm 11" clustered --norm 11 -o out.h5
fails 2 "a negative mean sd" clustered --mean-sd -1 -o out.h5
fails 2 "three targets" clustered --s 0.1,0.1,0.1 --sigma 1 -o out.h5
fails 2 "a negative target" clustered --s 0.1,-0.1,0.1,0.1 --sigma 1 -o out.h5
fails 2 "--s without --sigma" clustered --s 0.1,0.1,0.1,0.1 -o out.h5
fails 2 "--s with --set" clustered --s 0.1,0.1,0.1,0.1 --sigma 1 --set 2 -o out.h5
fails 2 "targets out of reach" clustered --s 5,5,5,5 --sigma 1 --points 20 -o out.h5
fails 2 "unknown --a" clustered --a imaginary -o out.h5
fails 2 "unknown --scaling" clustered --scaling cube -o out.h5
fails 2 "--tau without hyb-gmix" clustered --tau 2 -o out.h5
fails 2 "--tau 0" clustered --method hyb-gmix --tau 0 -o out.h5
fails 2 "unknown --base0" clustered --method hyb-gmix --base0 nope -o out.h5
fails 2 "a hybrid --base0" clustered --method hyb-gmix --base0 ang -o out.h5
fails 2 "--threads -1" clustered --threads -1 -o out.h5
fails 2 "an empty -o" clustered -o ''
fails 2 "an unknown option" clustered --frobnicate
fails 1 "an unwritable output directory" clustered --set 1 --points 20 --reps 1 --m 5 -o nodir/out.h5

run clustered --help
cp "$tmp/out" help.txt
is "$rc" 0 "--help exits 0"
grep -q '^usage: rfx clustered' help.txt
ok $? "--help prints the usage"
# Every option with a value states its default, but those without one.
grep -- '^ *-.*--[a-z-]* [A-Z]' help.txt | grep -v -e '(default' -e '--s ' \
	-e '--sigma ' -e '--output ' > nodefault.txt
[ ! -s nodefault.txt ]
ok $? "--help states every default" || diag_file nodefault.txt
run help clustered
cmp -s "$tmp/out" help.txt
ok $? "rfx help clustered prints the same as rfx clustered --help"
run --help
grep -q '^  clustered ' "$tmp/out"
ok $? "rfx --help lists clustered"

# ---------------------------------------------------------------------------
# Interruption

rm -f out.h5
interrupt INT 1 clustered --set 1 --points 200 --reps 100000 --m 200 -o out.h5
interrupted INT 130 "SIGINT: exit 130"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"

echo keep > out.h5
interrupt INT 1 clustered --set 1 --points 200 --reps 100000 --m 200 -o out.h5
interrupted INT 130 "SIGINT with an existing out.h5: exit 130"
is "$(cat out.h5)" keep "SIGINT: an existing out.h5 is left as it was"
rm -f out.h5

done_testing

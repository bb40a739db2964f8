#!/bin/sh
#
# Tests of 'rfx pointwise' through the command line, in its three modes
# (estimates, --map, --max-error): the documented headers, FLOP matching
# as the command applies it, TSV against HDF5, reproducibility across
# thread counts, bad inputs (one line on stderr, exit 2 for usage errors
# and 1 for run-time failures, no output file left) and SIGINT. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

HEAD=$(printf 'method\td\tM\tm1\tm3\tflops\tr\ttheta\tlog_sm\tsm\tana_rel_err\tlog_ana_rel_err')
EST_HEADER=$(printf '%s\ts\tmean\tp05\tp95\temp_rel_err' "$HEAD")
MAP_HEADER=$(printf 'method\td\tM\tm1\tm3\tr\ttheta\tlog_sm\tlog_mse\tlog_rel_err')
MAX_HEADER=$(printf 'method\tcurve\td\tM\tm1\tm3\tr\ttheta\tlog_rel_err')

# ---------------------------------------------------------------------------
# Estimates

run pointwise --method trig,ang --r 1,1.5 --thetas 5 --mc 300
cp "$tmp/out" est.tsv
is "$rc" 0 "estimates: exits 0"
is "$(head -n 1 est.tsv)" "$EST_HEADER" "estimates: documented header"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" \
	"estimates: default seed and generator on stderr"
is "$(rows est.tsv)" 20 "estimates: 2 methods x 2 lengths x 5 angles"
finite est.tsv 2 11 && finite est.tsv 13 17 &&
	awk -F'\t' -v re="$NUM" 'NR > 1 && !($12 ~ re || ($12 == "-inf" && $11 == 0)) { bad = 1 }
		END { exit bad }' est.tsv
ok $? "estimates: every number finite, log_ana_rel_err -inf only where ana_rel_err is 0"
# FLOP matching against trig, M = 128, d = 64 (worked in tests/t_cost.c).
is "$(awk -F'\t' '$1 == "ang" {print $3, $4, $5, $6; exit}' est.tsv)" "3780 35 35 16520" \
	"estimates: ang FLOP-matched to m1 = m3 = 35 (16520 <= 16640 FLOPs)"
is "$(awk -F'\t' '$1 == "trig" {print $3, $6; exit}' est.tsv)" "128 16640" \
	"estimates: trig keeps M = 128, 16640 FLOPs"
# At theta = 0 trig is exact; SM = e^{r^2 cos theta}.
is "$(awk -F'\t' '$1 == "trig" && $7 == 1.5 && $8 == 0 {print $10, $11}' est.tsv)" \
	"9.487735836358526 0" "estimates: SM = e^{2.25} and zero relative error at r = 1.5, theta = 0"

run pointwise --method trig,ang --r 1,1.5 --thetas 5 --mc 300 --threads 1
cmp -s "$tmp/out" est.tsv
ok $? "estimates: the same bytes on one thread"
run pointwise --method trig,ang --r 1,1.5 --thetas 5 --mc 300 --seed 5
cmp -s "$tmp/out" est.tsv
[ $? -ne 0 ]
ok $? "estimates: another seed gives other estimates"
run pointwise --method ang --r 1.5 --thetas 5 --mc 300
awk -F'\t' 'NR == 1 || ($1 == "ang" && $7 == 1.5)' est.tsv > sub.tsv
cmp -s "$tmp/out" sub.tsv
ok $? "estimates: a method's rows at one length do not depend on the rest of the run"

run pointwise --method trig --r 1 --thetas 2 --mc 200 --projection sorf
awk -F'\t' 'NR == 2 { d = $14 - $10; if (d < 0) d = -d; exit !(rc == 0 && d <= 1e-12 * $10 && $17 < 1e-12) }' rc="$rc" "$tmp/out"
ok $? "estimates --projection sorf: trig is exact at theta = 0 on structured projections too"

run pointwise --method ang --r 1 --thetas 3 --mc 0 --param ang:m3=8
is "$(head -n 1 "$tmp/out")" "$HEAD" "estimates --mc 0: the analytic columns only"
is "$(awk -F'\t' 'NR == 2 {print $4, $5, $6}' "$tmp/out")" "85 8 16494" \
	"estimates: with m3 = 8 fixed, m1 = 85 fits (182 m1 + 1024 <= 16640)"
run pointwise --method trig,ang --r 1 --thetas 3 --mc 0 --match none --features 10
is "$(awk -F'\t' 'NR > 1 {printf "%s %s %s %s;", $1, $3, $4, $5}' "$tmp/out" | cut -d';' -f1,4)" \
	"trig 10 0 0;ang 60 10 1" "--match none: M = 10 each, the hybrid m1 = 10, m3 = 1 (60 entries)"

rm -f out.h5
run pointwise --method trig --r 1 --thetas 4 --mc 100 -o out.h5
"$RFX" dump out.h5 estimates > dumped.tsv 2> /dev/null
cmp -s "$tmp/out" dumped.tsv
ok $? "-o: the HDF5 table dumps to the TSV printed"
"$RFX" dump out.h5 --attrs 2> /dev/null | grep -q '^command	.*pointwise --method trig --r 1 --thetas 4 --mc 100 -o out.h5$'
ok $? "-o: the file records the command line"

# ---------------------------------------------------------------------------
# Map and max-error

run pointwise --map --steps 4 --thetas 6
cp "$tmp/out" map.tsv
is "$(head -n 1 map.tsv)" "$MAP_HEADER" "map: documented header"
is "$(rows map.tsv)" 72 "map: trig, posh, ang x 4 lengths x 6 angles"
finite map.tsv 2 10
ok $? "map: every number finite"
is "$(awk -F'\t' '$1 == "ang" {print $3, $4, $5; exit}' map.tsv)" "60 10 1" \
	"map: the hybrid has HRF Fig 1's m = 10, n = 1"
is "$(awk -F'\t' 'NR > 1 {print $6}' map.tsv | sort -u -g | tr '\n' ' ')" "1.25 2.5 3.75 5 " \
	"map: lengths r_max k/steps up to --r-max 5"

run pointwise --max-error --steps 3 --thetas 91
cp "$tmp/out" max.tsv
is "$(head -n 1 max.tsv)" "$MAX_HEADER" "max-error: documented header"
# r = 1, 2, 3; trig, posh: numeric + lemma3.4; ang: numeric + 2 bounds
# (r >= 1); gauss-hyb, pos, oprf: numeric.
is "$(rows max.tsv)" 30 "max-error: 3 lengths x (2 + 2 + 3 + 1 + 1 + 1) curves"
finite max.tsv 3 9
ok $? "max-error: every number finite"
is "$(awk -F'\t' '$1 == "trig" && $7 == 1 {print $2}' max.tsv | tr '\n' ' ')" "numeric lemma3.4 " \
	"max-error: trig has the numeric curve and Lemma 3.4's"

# ---------------------------------------------------------------------------
# Bad inputs

fails 2 "unknown method" pointwise --method nope -o out.h5
fails 2 "d = 0" pointwise --d 0 -o out.h5
fails 2 "unknown projection" pointwise --projection qr -o out.h5
fails 2 "sobol beyond its 40 dimensions" pointwise --projection sobol -o out.h5
fails 2 "d = 1 (pairs need a plane)" pointwise --d 1 -o out.h5
fails 2 "r = 0" pointwise --r 0 -o out.h5
fails 2 "r = 11 beyond the estimates' range" pointwise --r 11 -o out.h5
fails 2 "r = nan" pointwise --r nan -o out.h5
fails 2 "a malformed length list" pointwise --r 1,,2 -o out.h5
fails 2 "one angle" pointwise --thetas 1 -o out.h5
fails 2 "--mc 1" pointwise --mc 1 -o out.h5
fails 2 "--mc -5" pointwise --mc -5 -o out.h5
fails 2 "--features 0" pointwise --features 0 -o out.h5
fails 2 "unknown --match" pointwise --match fast -o out.h5
fails 2 "unknown baseline" pointwise --baseline nope -o out.h5
fails 2 "a baseline map costlier than nothing fits" pointwise --method trig --features 1 --baseline pos -o out.h5
fails 2 "a parameter no method has" pointwise --method trig --param q=0.5 -o out.h5
fails 2 "a bad hybrid count" pointwise --method ang --param m3=0 -o out.h5
fails 2 "--r in map mode" pointwise --map --r 1 -o out.h5
fails 2 "--mc in max-error mode" pointwise --max-error --mc 10 -o out.h5
fails 2 "--map with --max-error" pointwise --map --max-error -o out.h5
fails 2 "--r-min above --r-max" pointwise --max-error --r-min 3 --r-max 2 -o out.h5
fails 2 "--steps 0" pointwise --map --steps 0 -o out.h5
fails 2 "an empty -o" pointwise -o ''
fails 2 "an unknown option" pointwise --frobnicate
fails 1 "an unwritable output directory" pointwise --method trig --r 1 --thetas 3 --mc 10 -o nodir/out.h5

run pointwise --help
is "$rc" 0 "--help exits 0"
grep -q '^usage: rfx pointwise' "$tmp/out"
ok $? "--help prints the usage"

# ---------------------------------------------------------------------------
# Interruption

rm -f out.h5
interrupt INT 1 pointwise --mc 5000000 --r 1 --thetas 2 --method trig -o out.h5
interrupted INT 130 "SIGINT: exit 130"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"

done_testing

#!/bin/sh
#
# Tests of 'rfx optis' through the command line: the documented header and
# one row per regime and estimator, finite logs where the softmax kernel's
# values are far beyond double range, the theorem's ordering (with x and y
# from one pool every real one-feature estimator's plain variance is at or
# above the optimum, TrigRF's real part below it), reproducibility from the
# seed, and bad input (one line on stderr, exit 2, nothing on stdout).
# Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

HEADER=$(printf 'regime\tmethod\tkernel\tgamma\td\tL\tsame\tlog_plain\tlog_optimal\tlog_gain')

run optis --L 16
cp "$tmp/out" two.tsv
is "$rc" 0 "exits 0"
is "$(head -n 1 two.tsv)" "$HEADER" "documented header"
is "$(rows two.tsv)" 12 "three regimes x four estimators"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" "seed and generator on stderr"
finite two.tsv 8 10
ok $? "two sets: finite logs"

run optis --L 16 --same --kernel softmax --d 64 --gamma 1
cp "$tmp/out" soft.tsv
is "$rc" 0 "softmax, d = 64, gamma = 1: exits 0"
finite soft.tsv 8 10
ok $? "softmax: finite logs"
awk -F'\t' 'NR > 1 && $8 > 709 { big = 1 } END { exit !big }' soft.tsv
ok $? "softmax: some variance beyond double range (log > 709), still finite"

# Theorem 1 with Corollary 2: one pool, so log_optimal is the optimum of
# every real one-feature representation, which plain sampling cannot beat.
for k in gauss softmax; do
	run optis --L 16 --same --kernel $k
	cp "$tmp/out" same.tsv
	awk -F'\t' 'NR > 1 && $2 != "trig" && $10 < -1e-12 { print "#     " $0; bad = 1 }
		END { exit bad }' same.tsv
	ok $? "$k, --same: cos, pos, oprf at or above the optimum"
	awk -F'\t' 'NR > 1 && $2 == "trig" && $10 >= 0 { print "#     " $0; bad = 1 }
		END { exit bad }' same.tsv
	ok $? "$k, --same: TrigRF (a complex product's real part) below it"
	awk -F'\t' 'NR > 1 { d = $8 - $9 - $10; if (d > 1e-9 || d < -1e-9) bad = 1 }
		END { exit bad }' same.tsv
	ok $? "$k: log_gain = log_plain - log_optimal"
done

run optis --L 16
cmp -s "$tmp/out" two.tsv
ok $? "same seed, same table"
run optis --L 16 --seed 7
cmp -s "$tmp/out" two.tsv
[ $? -ne 0 ]
ok $? "another seed, another table"
run optis --help
is "$rc" 0 "--help exits 0"
grep -q -- '--same' "$tmp/out"
ok $? "--help lists --same"

fails 2 "unknown kernel" optis --kernel laplace
fails 2 "gamma 0" optis --gamma 0
fails 2 "gamma too large" optis --gamma 11
fails 2 "d 0" optis --d 0
fails 2 "L 0" optis --L 0
fails 2 "L too large" optis --L 5000
fails 2 "not a number" optis --d abc
fails 2 "unknown option" optis --method pos
fails 2 "a stray argument" optis extra

done_testing

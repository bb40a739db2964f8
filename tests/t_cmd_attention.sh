#!/bin/sh
#
# Tests of 'rfx attention' through the command line: the documented
# columns, one row per (method, projection, M, variant), the HDF5 table
# equal to stdout, the same bytes for the same seed whatever the thread
# count, the stabilisers equal to rounding, causal mode, every estimator
# of the registry, the timing mode's rows and exponents, and bad input
# (one line on stderr, exit 2, nothing on stdout, no file). Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

SMALL="--L 96 --d 4 --features 4,8 --draws 3"

run attention $SMALL --method trig,pos -o out.h5
cp "$tmp/out" a.tsv
is "$rc" 0 "exits 0"
is "$(head -n 1 a.tsv | cut -f1-13)" "$(printf 'method\tproj\tbudget\tM\tfeatures\tstab\teps\tf32\tcausal\tL\td\tgamma\tdraws')" \
	"documented leading columns"
head -n 1 a.tsv | tr '\t' '\n' > cols
for c in out_rel_fro_mean out_rel_max_sd out_mse_q50 att_mse_q90 norm_rel_mean \
	frac_nonpos_mean frac_nonfinite_mean params; do
	grep -qx "$c" cols || { diag "no column $c"; false; }
done
ok $? "every error has its mean, sd and quantiles"
is "$(rows a.tsv)" 8 "2 methods x 2 projections x 2 M"
finite a.tsv 14 37
ok $? "finite errors"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" "seed and generator on stderr"
"$RFX" dump out.h5 attention > dump.tsv
cmp -s dump.tsv a.tsv
ok $? "the HDF5 table is the TSV"
"$RFX" dump out.h5 attention_draws > draws.tsv
is "$(rows draws.tsv)" 24 "-o: every draw's errors, 8 rows x 3 draws"
awk -F'\t' 'NR > 1 && $1 == "pos" && $2 == "ort" && $4 == 8 { s += $10; n++ }
	END { printf "%.12g\n", s / n }' draws.tsv > m1
awk -F'\t' 'NR > 1 && $1 == "pos" && $2 == "ort" && $4 == 8 { printf "%.12g\n", $14 }' a.tsv > m2
cmp -s m1 m2
ok $? "the summary's mean is the mean of the draws"

OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$RFX" attention $SMALL --method trig,pos > t1.tsv 2>/dev/null
OMP_NUM_THREADS=2 "$RFX" attention $SMALL --method trig,pos > t2.tsv 2>/dev/null
cmp -s t1.tsv a.tsv && cmp -s t2.tsv a.tsv
ok $? "same seed: same table on 1 and 2 threads"
run attention $SMALL --method trig,pos --seed 7
cmp -s "$tmp/out" a.tsv
[ $? -ne 0 ]
ok $? "another seed, another table"

# Stabilisers: exact in exact arithmetic, so the errors agree to rounding.
run attention $SMALL --method pos,oprf --stabiliser row,global,none --causal
cp "$tmp/out" s.tsv
is "$rc" 0 "causal with three stabilisers: exits 0"
is "$(rows s.tsv)" 24 "2 methods x 2 projections x 2 M x 3 stabilisers"
awk -F'\t' 'NR > 1 { k = $1 FS $2 FS $4; v = $14 + 0
	if (k in ref) { d = v - ref[k]; if (d < 0) d = -d; if (d > 1e-10 * ref[k]) bad = 1 }
	else ref[k] = v }
	END { exit bad }' s.tsv
ok $? "row, global and none give the same error to rounding"
awk -F'\t' 'NR > 1 && $9 != 1 { bad = 1 } END { exit bad }' s.tsv
ok $? "rows say causal"

run attention --L 64 --d 4 --features 8 --draws 2 --method all --projection ort --match fair
cp "$tmp/out" all.tsv
is "$rc" 0 "every estimator: exits 0"
cut -f1 all.tsv | sed 1d | sort -u > methods
is "$(rows all.tsv)" "$(lines methods)" "one row per estimator"
[ "$(lines methods)" -ge 15 ]
ok $? "all: at least the 15 estimators of the registry ($(lines methods))"
finite all.tsv 14 16
ok $? "every estimator: finite output errors"

run attention --L 64 --d 4 --features 8 --draws 2 --method pos --projection iid \
	--eps 0,1e-3 --precision f64,f32
is "$(rows "$tmp/out")" 4 "eps x precision variants"

run attention --time --Ls 64,128,256 --exact-max 128 --d 8 --features 16 --reps 1
cp "$tmp/out" time.tsv
is "$rc" 0 "--time: exits 0"
is "$(rows time.tsv)" 16 "exact at 2 L's, rf and floor at 3, noncausal and causal"
grep -q '^exact	0	256' time.tsv
[ $? -ne 0 ]
ok $? "exact stops at --exact-max"
grep -q '^what	causal	exponent	L_from	L_to' "$tmp/err"
ok $? "exponents on stderr"

# Q, K, V from files (issue 16's loader). K defaults to Q and V to K; a V
# of ones makes both outputs exactly 1 (D^-1 A 1 = 1, and the estimate's
# numerator is its normaliser), so the output errors vanish to rounding.
awk 'BEGIN { for (i = 1; i <= 40; i++) { for (j = 1; j <= 4; j++)
	printf "%s%.6f", (j > 1 ? "," : ""), 0.7 * sin(7.3 * i + 2.1 * j * j); print "" } }' > q.csv
awk 'BEGIN { for (i = 1; i <= 40; i++) { for (j = 1; j <= 4; j++)
	printf "%s%.6f", (j > 1 ? "," : ""), 0.6 * cos(3.1 * i * j + 0.4); print "" } }' > k.csv
awk 'BEGIN { for (i = 1; i <= 40; i++) print "1,1" }' > ones.csv
tr ',' '\t' < q.csv > q.tsv
FILES="--features 8 --draws 3 --method pos,trig"
run attention --q-file q.csv $FILES -o f.h5
cp "$tmp/out" f1.tsv
is "$rc" 0 "--q-file: exits 0"
is "$(col f1.tsv L | sort -u)" 40 "the rows of the file are the tokens"
is "$(col f1.tsv d | sort -u)" 4 "its columns are d"
run attention --q-file q.csv --k-file q.csv --v-file q.csv $FILES
cmp -s "$tmp/out" f1.tsv
ok $? "K defaults to Q and V to K"
run attention --q-file q.tsv $FILES
cmp -s "$tmp/out" f1.tsv
ok $? "the same rows as TSV give the same table"
"$RFX" dump --attrs f.h5 > attrs.txt 2>/dev/null
grep -q "$(sha256sum q.csv | cut -d' ' -f1)" attrs.txt
ok $? "-o records the file's SHA-256"
run attention --q-file q.csv --k-file k.csv --v-file ones.csv $FILES --causal
is "$rc" 0 "Q, K and V files, causal: exits 0"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "out_rel_fro_mean") c = i; next }
	$c > 1e-12 { bad = 1 } END { exit bad }' "$tmp/out"
ok $? "V = 1: the output errors vanish (D^-1 A 1 = 1 for both)"
head -n 39 q.csv > q39.csv
fails 1 "values with other rows" attention --q-file q.csv --k-file k.csv --v-file q39.csv
grep -q "'q39.csv' has 39 rows but there are 40 keys" "$tmp/err"
ok $? "  names the file and the counts"
fails 1 "causal with other numbers of queries and keys" attention --q-file q.csv --k-file q39.csv --causal
fails 1 "keys of another d" attention --q-file q.csv --k-file ones.csv
fails 2 "--gamma with --q-file" attention --q-file q.csv --gamma 1
fails 2 "--k-file without --q-file" attention --k-file k.csv
fails 1 "a missing file" attention --q-file nosuch.csv

# Scale: the relative errors of O^ do not depend on V's scale, and
# V 2^-900 (hex floats, exact) gives exactly V's; the squares of its
# outputs underflowed to 0 and made them 0/0 (NaN) before the sums were
# scaled. Entries beyond 1e75 (float32's range with f32) are refused.
for e in 0 -900; do
	EXP=$e awk 'BEGIN { for (i = 1; i <= 40; i++) { for (j = 1; j <= 3; j++) {
		k = (i * j + 2 * i) % 7 - 3; printf "%s%s0x%xp%s", (j > 1 ? "," : ""),
		(k < 0 ? "-" : ""), (k < 0 ? -k : k), ENVIRON["EXP"] }; print "" } }' > "v$e.csv"
	"$RFX" attention --q-file q.csv --k-file k.csv --v-file "v$e.csv" $FILES 2> /dev/null |
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^out_rel_/) c[i] = 1; next }
		{ for (i in c) printf "%s ", $i; print "" }' > "rel$e.txt"
done
[ -s rel0.txt ] && ! grep -qi nan rel0.txt && cmp -s rel0.txt rel-900.txt
ok $? "V and V 2^-900: the same relative errors, bit for bit" || diag_file rel-900.txt
awk 'BEGIN { for (i = 1; i <= 40; i++) print "1e80,1" }' > vhuge.csv
awk 'BEGIN { for (i = 1; i <= 40; i++) print "1e40,1" }' > vbig.csv
fails 2 "V beyond 1e75" attention --q-file q.csv --v-file vhuge.csv
grep -q "V has 1e+80 at row 1 column 1, beyond 1e+75" "$tmp/err"
ok $? "  names the entry and the bound"
fails 2 "V beyond float range with --precision f32" attention --q-file q.csv \
	--v-file vbig.csv --precision f64,f32
run attention --q-file q.csv --v-file vbig.csv --features 8 --draws 2
is "$rc" 0 "  which f64 alone accepts"

# Queries of norm ~400: trig's normaliser is off by a factor near
# e^26000, beyond double range: norm_rel reads inf (sd 0: every draw
# does), log_norm_rel its log, and no column reads nan.
awk 'BEGIN { for (i = 1; i <= 40; i++) { for (j = 1; j <= 4; j++)
	printf "%s%.6f", (j > 1 ? "," : ""), 200 * sin(7.3 * i + 2.1 * j * j); print "" } }' > qbig.csv
run attention --q-file qbig.csv --method trig --features 8 --draws 3
cp "$tmp/out" big.tsv
is "$rc" 0 "--q-file of norm 400: exits 0"
is "$(col big.tsv norm_rel_mean | sort -u) $(col big.tsv norm_rel_sd | sort -u)" "inf 0" \
	"  norm_rel inf, its sd 0"
v=$(col big.tsv log_norm_rel_mean | head -n 1)
[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 709 && v < 1e300) }'
ok $? "  log_norm_rel finite, beyond 709: $v"
sed 1d big.tsv | cut -f1-11,13- | grep -qi nan
[ $? -ne 0 ]
ok $? "  no nan outside gamma (n/a for files)"

# Without a stabiliser, queries of 1e70 overflow D^ itself in two rows:
# their relative error is infinite, so log_norm_rel is +inf (the running
# log-sum read nan at the second infinite row).
printf '1e70\n1e70\n1\n0.5\n' > qinf.txt
printf '1\n0.5\n-1\n0.2\n' > kinf.txt
run attention --q-file qinf.txt --k-file kinf.txt --method trig --features 8 \
	--draws 2 --stabiliser none --projection iid
cp "$tmp/out" inf.tsv
is "$rc $(col inf.tsv frac_nonfinite_mean) $(col inf.tsv log_norm_rel_mean)" "0 0.5 inf" \
	"--stabiliser none, D^ overflowing in 2 of 4 rows: log_norm_rel +inf, not nan"

run attention --help
is "$rc" 0 "--help exits 0"

fails 2 "L 1" attention --L 1
fails 2 "one draw" attention --draws 1
fails 2 "gamma 0" attention --gamma 0
fails 2 "unknown method" attention --method nope
fails 2 "unknown projection" attention --projection nope
fails 2 "unknown stabiliser" attention --stabiliser max
fails 2 "unknown precision" attention --precision f16
fails 2 "negative eps" attention --eps -1
fails 2 "unknown match" attention --match some
fails 2 "mnist regime" attention --regime mnist
fails 2 "--Ls without --time" attention --Ls 64
fails 2 "--causal with --time" attention --time --causal
fails 2 "a stray argument" attention extra
fails 1 "unwritable output" attention $SMALL -o no/such/dir/out.h5

done_testing

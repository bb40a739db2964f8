#!/bin/sh
#
# Tests of 'rfx variance' through the command line, in its three modes
# (experiment, pair, map): the TSV and HDF5 output, reproducibility across
# seeds and thread counts, the catalogue of bad inputs (one line on stderr,
# exit 2 for usage errors and 1 for run-time failures, no output file
# left), interruption by SIGINT/SIGTERM, and the help and version texts.
# Prints TAP. Small --L keeps it to a few seconds.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# MNIST comes from data/ next to rfx unless the environment says otherwise.
unset RFX_DATA

# every estimator of the registry, in its order (not a hand-kept copy)
METHODS=$("$RFX" help estimators --format names | tr '\n' ' ' | sed 's/ $//')
NMETHODS=$(echo $METHODS | wc -w)
HEADER=$(printf 'method\tregime\tgamma\td\tM\tn_pairs\tn_zero\tlogvar_mean\tlogvar_std\tlogvar_min\tlogvar_max')
MC_HEADER=$(printf '%s\tprojection\tmc_R\tmc_pairs\tsub_logvar_mean\tmc_logvar_mean\tmc_logvar_std\tmc_logvar_se\tmc_zero' "$HEADER")
PAIR_HEADER=$(printf 'method\tparams\td\tM\tlog_kernel\tvariance\tlog_variance\tclosed_form')
MAP_HEADER=$(printf 'map\tmethod\td\tM\tr\ttheta\tw\tlog_kernel\tlog_variance\tlog_ratio\tprojection')
# ---------------------------------------------------------------------------
# Experiment mode

run variance --L 24 --samples 1 --gamma 0.5,1 --regime normal,sphere --method all
cp "$tmp/out" small.tsv
is "$rc" 0 "experiment: exits 0"
is "$(head -n 1 small.tsv)" "$MC_HEADER" "experiment: documented header, Monte Carlo on by default"
run variance --L 8 --samples 1 --gamma 0.5 --regime normal --method trig --mc 0
is "$(head -n 1 "$tmp/out")" "$HEADER" "experiment --mc 0: the analytic columns only"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" \
	"experiment: default seed and generator on stderr"
run variance --x 1,0.5 --y 0.25,1 --method trig --mc 100 --seed 7
is "$(cat "$tmp/err")" "rfx: seed 7, rng xoshiro256**" \
	"pair mode with --mc: the seed line, as sampled runs print it"
run variance --x 1,0.5 --y 0.25,1 --method trig
is "$(cat "$tmp/err")" "" "pair mode without Monte Carlo draws: no seed line"

# Subnormal coordinates (below 2.2e-308 in magnitude, not 0) are refused
# as documented in README: accepted, the angular closed forms (hyb, ang,
# ang-ind, hyb-ind) leave Monte Carlo there (their norms' squares underflow).
run variance --x 1e-310,-4e-320 --y 1,0.5 --method trig
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q -- "--x" "$tmp/err"
ok $? "pair mode: subnormal coordinates refused with one line naming --x" ||
	diag_file "$tmp/err"
for g in normal sphere; do
	for gamma in 0.5 1; do
		for m in $METHODS; do
			printf '%s\t%s\t%s\n' "$m" "$g" "$gamma"
		done
	done
done > want
tail -n +2 small.tsv | cut -f1-3 > got
cmp -s want got
ok $? "experiment: one row per method x regime x gamma, in regime, gamma, method order" ||
	diff want got | diag_file /dev/stdin
finite small.tsv 3 11
ok $? "experiment: every numeric column is finite"
awk -F'\t' 'NR > 1 && $6 + $7 != 24 * 24 * 1 { bad = 1 } END { exit bad }' small.tsv
ok $? "experiment: n_pairs + n_zero = L * L * samples"
# (The mean of equal values may differ from them in the last bits.)
awk -F'\t' 'function abs(v) { return v < 0 ? -v : v }
	NR > 1 { e = 1e-12 * (abs($10) + abs($11))
	if (!($10 - e <= $8 && $8 <= $11 + e && $9 >= 0 && $4 == 64)) bad = 1 }
	END { exit bad }' small.tsv
ok $? "experiment: min <= mean <= max, std >= 0, default d 64"
# Budget 8: 4 complex features (trig, gerf, hyb's 2 m (m + 1) with m = 1) or
# 4 paired projections (posh), 8 real ones; the HRF hybrids use m = n = 1,
# (n + 1)(m + 2m) = 6 features (angular) or (2n + 1)(m + 2m) = 9 (Gaussian).
awk -F'\t' 'function want(m) {
		if (m ~ /^(trig|hyb|hyb-ind|gerf|posh|cexp-c)$/) return 4
		if (m ~ /^ang/) return 6
		if (m ~ /^gauss-hyb/) return 9
		return 8 }
	NR > 1 && $5 != want($1) { bad = 1 }
	END { exit bad }' small.tsv
ok $? "experiment: default budget 8 (4 complex or paired features or 8 real ones)"
# At gamma 1 in d = 64 the pairs are far apart, K ~ 0, and trig's variance
# (1 - K^2)^2 / (2M) is 1 / (2M).
awk -F'\t' 'NR > 1 && $1 == "trig" && $2 == "normal" && $3 == 1 {
	d = $8 - (-log(8)); if (d < 0) d = -d; found = 1; exit !(d < 1e-6) }
	END { exit !found }' small.tsv
ok $? "experiment: trig at normal, gamma 1 has log Var = -log(2M)"

# Another seed order of arguments, explicit default seed: same table.
run variance --seed 20221121 --method all --regime normal,sphere --gamma 0.5,1 \
	--samples 1 --L 24
cmp -s "$tmp/out" small.tsv
ok $? "experiment: --seed 20221121 is the default"

# The issue's first example, at lower cost: default regimes and gammas.
run variance --method oprf --d 64 --L 32 --samples 1
cp "$tmp/out" oprf.tsv
is "$rc" 0 "rfx variance --method oprf --d 64: exits 0"
is "$(rows oprf.tsv)" 40 "rfx variance --method oprf: 4 regimes x 10 gammas rows"
is "$(col oprf.tsv regime | uniq | tr '\n' ' ')" "normal sphere heterogen mnist " \
	"rfx variance --method oprf: default regimes"
is "$(col oprf.tsv gamma | sort -un | tr '\n' ' ')" "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1 " \
	"rfx variance --method oprf: default gammas"
finite oprf.tsv 3 11 &&
	awk -F'\t' 'NR > 1 && ($1 != "oprf" || $6 + $7 != 32 * 32) { bad = 1 }
		END { exit bad }' oprf.tsv
ok $? "rfx variance --method oprf: finite, all oprf, L * L pairs"

# The issue's second example, with -o.
run variance --method all --regime heterogen -o out.h5 --L 16 --samples 1
cp "$tmp/out" het.tsv
is "$rc" 0 "rfx variance --method all --regime heterogen -o out.h5: exits 0"
is "$(rows het.tsv)" $((NMETHODS * 10)) "-o: $NMETHODS methods x 10 gammas rows on stdout"
h5dump -H out.h5 > h5dump.txt 2>&1
ok $? "-o: h5dump -H reads the file" || diag_file h5dump.txt
grep -q 'DATASET "variance"' h5dump.txt && grep -q 'DATASET "params"' h5dump.txt
ok $? "-o: h5dump sees the variance and params datasets"

PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import h5py, pandas, tables' 2>/dev/null; then
	"$PY" - "$RFX variance --method all --regime heterogen -o out.h5 --L 16 --samples 1" \
		"$NMETHODS" > py.txt 2>&1 <<'EOF'
import sys
import h5py
f = h5py.File("out.h5", "r")
assert sorted(f.keys()) == ["options", "params", "variance"], list(f.keys())
a = f.attrs
def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)
assert s(a["command"]) == sys.argv[1], a["command"]
assert int(a["seed"]) == 20221121, a["seed"]
assert s(a["rng"]) == "xoshiro256**", a["rng"]
o = f["options"].attrs
assert o["L"] == 16 and o["L"].dtype == "int64", o["L"]
assert o["seed"] == 20221121 and o["seed"].dtype == "uint64", o["seed"]
assert o["gamma"].dtype == "float64" and list(o["gamma"]) == [
    0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], o["gamma"]
assert [s(m) for m in o["method"]] == ["all"], o["method"]
assert [s(m) for m in o["regime"]] == ["heterogen"], o["regime"]
assert s(o["projection"]) == "iid", o["projection"]
assert "output" not in o and "threads" not in o, list(o)
v = f["variance"]
assert v.shape == (10 * int(sys.argv[2]),), v.shape
assert list(v.dtype.names) == ["method", "regime", "gamma", "d", "M", "n_pairs",
    "n_zero", "logvar_mean", "logvar_std", "logvar_min", "logvar_max",
    "projection", "mc_R", "mc_pairs", "sub_logvar_mean", "mc_logvar_mean",
    "mc_logvar_std", "mc_logvar_se", "mc_zero"], v.dtype.names
assert all(r.decode() == "heterogen" for r in v["regime"])
print("h5py ok")
EOF
	ok $? "-o: h5py reads the tables, the provenance attributes and the typed options" ||
		diag_file py.txt
	"$PY" - "$NMETHODS" > pd.txt 2>&1 <<'EOF'
import math
import sys
import pandas as pd
d = pd.read_hdf("out.h5", "variance")
assert list(d.columns) == ["method", "regime", "gamma", "d", "M", "n_pairs",
    "n_zero", "logvar_mean", "logvar_std", "logvar_min", "logvar_max",
    "projection", "mc_R", "mc_pairs", "sub_logvar_mean", "mc_logvar_mean",
    "mc_logvar_std", "mc_logvar_se", "mc_zero"], list(d.columns)
assert len(d) == 10 * int(sys.argv[1]), len(d)
assert sorted(set(d["gamma"])) == [k / 10 for k in range(1, 11)], sorted(set(d["gamma"]))
assert all(math.isfinite(x) for x in d["logvar_mean"])
p = pd.read_hdf("out.h5", "params")
assert list(p.columns) == ["method", "regime", "gamma", "sample", "param", "value"]
print("pandas ok")
EOF
	ok $? "-o: pandas.read_hdf(path, 'variance') gives the columns and $NMETHODS x 10 rows" ||
		diag_file pd.txt
else
	skip "/usr/bin/python3 with h5py, pandas and tables not available"
	skip "/usr/bin/python3 with h5py, pandas and tables not available"
fi

run dump out.h5
cp "$tmp/out" dump.txt
[ "$rc" -eq 0 ] && grep -qx '# variance' dump.txt && grep -qx '# params' dump.txt
ok $? "rfx dump out.h5: prints the '# variance' and '# params' tables"
sed -n '/^# variance$/,/^$/p' dump.txt | sed '1d;/^$/d' > dump_variance.txt
cmp -s dump_variance.txt het.tsv
ok $? "rfx dump out.h5: its variance section is the run's stdout"
run dump out.h5 variance
cmp -s "$tmp/out" het.tsv
ok $? "rfx dump out.h5 variance equals the run's stdout byte for byte"
run dump out.h5 params
[ "$rc" -eq 0 ] && [ "$(head -n 1 "$tmp/out")" = "$(printf 'method\tregime\tgamma\tsample\tparam\tvalue')" ] &&
	[ "$(rows "$tmp/out")" -gt 0 ] &&
	awk -F'\t' 'NR > 1 && ($2 != "heterogen" || $4 != 0) { bad = 1 } END { exit bad }' "$tmp/out"
ok $? "rfx dump out.h5 params: the fitted parameters of the run"
version=$("$RFX" --version | head -n 1)
run dump --attrs out.h5
{
	printf 'command\t%s\n' "$RFX variance --method all --regime heterogen -o out.h5 --L 16 --samples 1"
	echo "$version" | sed 's/^rfx \([^ ]*\) (commit \(.*\))$/rfx_commit\t\2/'
	echo "$version" | sed 's/^rfx \([^ ]*\) (commit \(.*\))$/rfx_version\t\1/'
	printf 'rng\txoshiro256**\n'
	printf 'seed\t20221121\n'
} > want
grep -E '^(command|rfx_commit|rfx_version|rng|seed)	' "$tmp/out" > prov
cmp -s prov want
ok $? "rfx dump --attrs: rfx_version, rfx_commit, command line, seed, rng" ||
	diff want prov | diag_file /dev/stdin

# Monte Carlo columns.
run variance --L 24 --samples 1 --gamma 0.5 --regime normal,sphere --method all \
	--mc 200 --mc-pairs 4
cp "$tmp/out" mc.tsv
is "$rc" 0 "--mc 200 --mc-pairs 4: exits 0"
is "$(head -n 1 mc.tsv)" "$MC_HEADER" "--mc: the Monte Carlo columns follow the analytic ones"
is "$(rows mc.tsv)" $((NMETHODS * 2)) "--mc: one row per method x regime"
finite mc.tsv 3 11 && finite mc.tsv 13 19
ok $? "--mc: every numeric column is finite"
awk -F'\t' 'NR > 1 && ($13 != 200 || $14 != 4 || $19 != 0 ||
	$12 != ($1 ~ /^(pois|geom)/ ? "discrete" : "iid")) { bad = 1 } END { exit bad }' mc.tsv
ok $? "--mc: mc_R 200, 4 pairs, iid projections (discrete for pois, geom), no zero pairs"
# Where the estimators are light-tailed (the sphere regime, and trig
# everywhere) Monte Carlo agrees with the closed form: |mc - exact| within
# 3 standard errors of a single pair's estimate (the mean of 4 has half).
awk -F'\t' 'NR > 1 && ($2 == "sphere" || $1 == "trig") {
	d = $16 - $15; if (d < 0) d = -d
	if (d > 3 * $18) { print "#     " $1 " " $2 ": " d " > 3 * " $18; bad = 1 } }
	END { exit bad }' mc.tsv
ok $? "--mc: Monte Carlo log Var agrees with the closed form where tails are light"
# --mc-pairs beyond L is capped at L pairs (x_k, y_k) per set pair.
run variance --L 6 --samples 2 --gamma 0.5 --regime sphere --method trig --mc 10 \
	--projection ort
[ "$rc" -eq 0 ] && [ "$(col "$tmp/out" mc_pairs)" = 12 ] &&
	[ "$(col "$tmp/out" projection)" = ort ]
ok $? "--mc: default --mc-pairs 16 capped at L per sample; --projection ort recorded"

# ---------------------------------------------------------------------------
# Reproducibility. The command line is part of the file (attribute
# "command"), so byte-identical files need identical arguments: the thread
# count then comes from OMP_NUM_THREADS. --threads is checked on the tables.

# Split into words where used.
REPRO="variance --L 24 --samples 2 --gamma 0.3,0.9 --regime all --method all --mc 20 --mc-pairs 3 --seed 12345 -o out.h5"
for t in 1 2; do
	mkdir "omp$t" "thr$t"
	(cd "omp$t" && OMP_NUM_THREADS=$t "$RFX" $REPRO > out.tsv 2> err.txt)
	echo $? > "omp$t/rc"
	(cd "thr$t" && "$RFX" $REPRO --threads "$t" > out.tsv 2> err.txt)
	echo $? > "thr$t/rc"
done
is "$(cat omp1/rc omp2/rc thr1/rc thr2/rc | tr '\n' ' ')" "0 0 0 0 " \
	"reproducibility runs exit 0"
cmp -s omp1/out.tsv omp2/out.tsv && cmp -s thr1/out.tsv thr2/out.tsv &&
	cmp -s omp1/out.tsv thr1/out.tsv
ok $? "same seed: identical stdout with 1 and 2 threads"
cmp omp1/out.h5 omp2/out.h5 > /dev/null 2>&1
ok $? "same seed and arguments: byte-identical .h5 with 1 and 2 threads"
"$RFX" dump thr1/out.h5 > thr1/dump.txt && "$RFX" dump thr2/out.h5 > thr2/dump.txt &&
	cmp -s thr1/dump.txt thr2/dump.txt
ok $? "same seed: identical tables in the .h5 with --threads 1 and --threads 2"
"$RFX" dump --attrs thr1/out.h5 | grep -v '^command' > thr1/attrs.txt &&
	"$RFX" dump --attrs thr2/out.h5 | grep -v '^command' > thr2/attrs.txt &&
	cmp -s thr1/attrs.txt thr2/attrs.txt
ok $? "same seed: identical attributes apart from the command line"
mkdir again
(cd again && OMP_NUM_THREADS=2 "$RFX" $REPRO > out.tsv 2> /dev/null)
cmp -s again/out.h5 omp2/out.h5
ok $? "same seed: a second run writes the same bytes"
(cd again && "$RFX" $(echo "$REPRO" | sed 's/12345/12346/') > other.tsv 2> /dev/null)
! cmp -s again/other.tsv omp1/out.tsv &&
	[ "$(cut -f1-7 again/other.tsv)" = "$(cut -f1-7 omp1/out.tsv)" ] &&
	[ "$(cut -f8 again/other.tsv | sort)" != "$(cut -f8 omp1/out.tsv | sort)" ]
ok $? "another seed: same rows, different numbers"

# ---------------------------------------------------------------------------
# Pair mode

X=0.3,-0.2,0.5,1.25
Y=0.1,0.4,-0.25,0.8
run variance --x "$X" --y "$Y" --method all
cp "$tmp/out" pair.tsv
is "$rc" 0 "pair: exits 0"
is "$(head -n 1 pair.tsv)" "$PAIR_HEADER" "pair: documented header"
is "$(col pair.tsv method | tr '\n' ' ')" "$METHODS " "pair: one row per method, in order"
finite pair.tsv 3 7
ok $? "pair: every numeric column is finite"
# |x - y|^2 and the closed forms, computed here independently.
awk -F'\t' -v x="$X" -v y="$Y" '
BEGIN { n = split(x, a, ","); split(y, b, ",")
	for (i = 1; i <= n; i++) s += (a[i] - b[i]) ^ 2 }
NR > 1 {
	if ($3 != n) bad = 1
	e = $5 + s / 2; if (e < 0) e = -e; if (e > 1e-12) bad = 1
	if ($1 == "trig") {
		want = 2 * log(1 - exp(-s)) - log(2 * 4)
		e = $7 - want; if (e < 0) e = -e
		if ($4 != 4 || e > 1e-9) { print "#     trig: " $7 " want " want; bad = 1 }
		seen = 1
	}
	if ($6 <= 0 || ($6 - exp($7)) ^ 2 > (1e-12 * $6) ^ 2) bad = 1
}
END { exit bad || !seen }' pair.tsv
ok $? "pair: trig log Var = 2 log(1 - exp(-|x-y|^2)) - log(2M), M = 4; log K, d, variance consistent"

run variance --x "$X" --y "$Y" --param A=-0.1 --method oprf
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/out")" -eq 1 ] && [ "$(col "$tmp/out" params)" = "A=-0.1" ]
ok $? "pair: --param A=-0.1 --method oprf shows A=-0.1" || diag_file "$tmp/out"
oprf_fitted=$(awk -F'\t' '$1 == "oprf" { print $7 }' pair.tsv)
oprf_fixed=$(col "$tmp/out" log_variance)
awk -v a="$oprf_fitted" -v b="$oprf_fixed" 'BEGIN { exit !(a < b) }'
ok $? "pair: the fitted oprf A beats A=-0.1 ($oprf_fitted < $oprf_fixed)"
run variance --x "$X" --y "$Y" --param gerf:A=0.01,0.02 --param t=-1 --method gerf,oprf
[ "$rc" -eq 0 ] && [ "$(col "$tmp/out" params | sed -n 1p)" = "A=0.01,0.02;t=-1" ] &&
	[ "$(col "$tmp/out" params | sed -n 2p)" = "$(awk -F'\t' '$1 == "oprf" { print $2 }' pair.tsv)" ]
ok $? "pair: --param gerf:A=0.01,0.02 --param t=-1 fix gerf; oprf (no t) keeps its fit" ||
	diag_file "$tmp/out"
run variance --x "$X" --y "$Y" --param A=-0.1 --method gerf,oprf
is "$(col "$tmp/out" params | tr '\n' ' ')" "A=-0.1,0;t=-1 A=-0.1 " \
	"pair: --param A=-0.1 applies to every listed method that has A"
run variance --x "$X" --y "$Y" --param lambda=0.5 --param q=0.3 --param hyb:m1=2 \
	--method pois,geom,hyb
is "$(col "$tmp/out" params | tr '\n' ' ')" "lambda=0.5 q=0.3 m1=2;m3=1 " \
	"pair: --param lambda, q, m1 reach their methods"

# A pair of moderate norms, where no estimator is heavy-tailed enough to
# fool 400 draws (at the pair above, hyb and pos are).
XM=0.3,-0.2,0.5
YM=0.1,0.4,-0.25
run variance --x "$XM" --y "$YM" --method all --mc 400 --seed 7
cp "$tmp/out" pairmc.tsv
is "$(head -n 1 pairmc.tsv)" "$(printf '%s\tmc_R\tmc_mean\tmc_mean_se\tmc_variance\tmc_log_variance\tmc_log_variance_se\tmc_variance_lo\tmc_variance_hi' "$PAIR_HEADER")" \
	"pair --mc: Monte Carlo columns added"
awk -F'\t' -v re="$NUM" 'NR > 1 {
	if ($9 != 400) bad = 1
	for (i = 10; i <= 14; i++)
		if ($i !~ re && !(i == 13 && $i == "-inf" && $12 == 0)) bad = 1
	if ($1 !~ /\+$/ && $13 !~ re) bad = 1
	# the 95% interval brackets the sample variance
	if ($1 !~ /\+$/ && !($15 + 0 <= $12 + 0 && $12 + 0 <= $16 + 0)) bad = 1
	# the mean estimates K, the variance its closed form (4 se, the
	# suite-wide tolerance: 14 checks at 3 se would fail ~4% of seeds)
	# (cexp-c fitted to the pair is exact: its estimates agree to rounding)
	e = $10 - exp($5); if (e < 0) e = -e
	if ($11 > 0 && $7 > -30 && e > 4 * $11) { print "#     " $1 " mean " $10; bad = 1 }
	if ($1 ~ /^(trig|hyb|gerf|pois|geom|pos|oprf|sderf|aderf|saderf)$/) {
		e = $13 - $7; if (e < 0) e = -e
		if (e > 4 * $14) { print "#     " $1 " log var " $13 " vs " $7; bad = 1 } }
}
END { exit bad }' pairmc.tsv
ok $? "pair --mc 400: finite, and agrees with K and the closed forms" ||
	diag_file pairmc.tsv
run variance --x "$XM" --y "$YM" --method all --mc 400 --seed 7
cmp -s "$tmp/out" pairmc.tsv
ok $? "pair --mc: reproducible for a seed"


# Pair mode on coupled projections: trig, pos and oprf get the exact
# variance of the coupling (lib/est/coupvar.h, checked against Monte Carlo
# in tests/t_coupvar.c), named in closed_form; the others keep iid's.
# pos on simplex at d = 4, M = 4 is well below its iid variance there.
run variance --x "$X" --y "$Y" --method pos,oprf,sderf --features 4 --projection simplex
cp "$tmp/out" coupled.tsv
is "$rc" 0 "pair --projection simplex: exits 0"
is "$(col coupled.tsv closed_form | tr '\n' ' ')" "simplex simplex iid " \
	"pair --projection simplex: closed_form names the projection where it is exact"
run variance --x "$X" --y "$Y" --method pos --features 4
lv_iid=$(col "$tmp/out" log_variance)
lv_sim=$(col coupled.tsv log_variance | head -n 1)
awk -v a="$lv_sim" -v b="$lv_iid" 'BEGIN { exit !(a < b - 0.01) }'
ok $? "pos: simplex's exact log Var $lv_sim is below iid's $lv_iid"

# ---------------------------------------------------------------------------
# Map mode

run variance --map angle --method trig,pos --steps 4 --d 2
cp "$tmp/out" angle.tsv
is "$rc" 0 "--map angle: exits 0"
is "$(head -n 1 angle.tsv)" "$MAP_HEADER" "--map angle: documented header"
is "$(rows angle.tsv)" 40 "--map angle --steps 4: 2 methods x 4 lengths x 5 angles rows"
finite angle.tsv 3 10
ok $? "--map angle: every numeric column is finite"
# x = r e1, y = r (cos t e1 + sin t e2): |x - y|^2 = 2 r^2 (1 - cos t),
# |x + y|^2 = 2 r^2 (1 + cos t); r = 2 k / 4, t = pi (j + 1/2) / 5.
awk -F'\t' 'NR > 1 {
	pi = atan2(0, -1); c = cos($6); s = 2 * $5 * $5 * (1 - c)
	k = $5 * 4 / 2; j = $6 * 5 / pi - 0.5
	if ($1 != "angle" || $3 != 2 || k != int(k + 0.5) || (j - int(j + 0.5)) ^ 2 > 1e-20) bad = 1
	if (($7 - 2 * $5 * $5 * (1 + c)) ^ 2 > 1e-20 || ($8 + s / 2) ^ 2 > 1e-20) bad = 1
	key = $5 " " $6
	if ($2 == "trig") {
		want = 2 * log(1 - exp(-s)) - log(8)
		if (($9 - want) ^ 2 > 1e-18) { print "#     trig " key ": " $9 " want " want; bad = 1 }
		tv[key] = $9; tr[key] = $10
	} else {
		if ($10 != 0) bad = 1
		pv[key] = $9
	}
}
END {
	for (key in tv) { n++; if ((tr[key] - (tv[key] - pv[key])) ^ 2 > 1e-18) bad = 1 }
	exit bad || n != 20 }' angle.tsv
ok $? "--map angle: grid, w, log K, trig's closed form, log_ratio against pos"

run variance --map sum --method oprf --d 16,64 --steps 5
cp "$tmp/out" sum.tsv
is "$rc" 0 "--map sum: exits 0"
is "$(rows sum.tsv)" 10 "--map sum --d 16,64 --steps 5: 2 dimensions x 5 points"
is "$(cut -f3 sum.tsv | tail -n +2 | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" "16:5 64:5 " \
	"--map sum: 5 rows per dimension"
finite sum.tsv 3 10 &&
	awk -F'\t' 'NR > 1 && ($8 != 0 || ($7 - 100 * ((NR - 2) % 5 + 1) / 5) ^ 2 > 1e-20) { bad = 1 }
		END { exit bad }' sum.tsv
ok $? "--map sum: finite, w = 20, 40, ..., 100, K = 1"
awk -F'\t' 'NR > 1 { if (p[$3] != "" && $10 >= p[$3]) bad = 1; p[$3] = $10 }
	END { exit bad }' sum.tsv
ok $? "--map sum: OPRF's advantage over PosRF grows with w (Fig 6.2)"
r64=$(awk -F'\t' '$3 == 64 && $7 == 100 { print $10 }' sum.tsv)
awk -v r="$r64" 'BEGIN { exit !(r != "" && r < -60) }'
ok $? "--map sum: at d = 64, w = 100 OPRF's log_ratio is < -60 (Fig 6.2; got $r64)"
# PosRF at x = y, |x + y|^2 = w: Var = (e^w - 1) / M.
run variance --map sum --method pos --d 16 --steps 5
awk -F'\t' 'NR > 1 { want = $7 + log(1 - exp(-$7)) - log(8)
	if ($4 != 8 || ($9 - want) ^ 2 > 1e-18 || $10 != 0) bad = 1; n++ }
	END { exit bad || n != 5 }' "$tmp/out"
ok $? "--map sum: pos log Var = log(e^w - 1) - log(M)"
run variance --map angle --method trig
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/out")" -eq 3660 ] &&
	[ "$(col "$tmp/out" r | sort -un | tail -n 1)" = 2 ] &&
	[ "$(col "$tmp/out" d | sort -u)" = 64 ]
ok $? "--map angle defaults: --steps 60 (60 x 61 points), --r-max 2, --d 64"
run variance --map sum --method pos
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/out")" -eq 240 ] &&
	[ "$(col "$tmp/out" d | uniq | tr '\n' ' ')" = "16 32 64 128 " ] &&
	[ "$(col "$tmp/out" w | sort -g | tail -n 1)" = 100 ]
ok $? "--map sum defaults: --d 16,32,64,128, --w-max 100"
run variance --map angle --method trig,oprf --baseline trig --steps 3
awk -F'\t' 'NR > 1 && $2 == "trig" && $10 != 0 { bad = 1 } END { exit bad }' "$tmp/out"
ok $? "--map --baseline trig: trig's log_ratio is 0"

# --map on coupled projections (issue 19): exact variances of
# lib/est/coupvar.h, a block of rows per kind, the baseline on the same kind.
run variance --map sum --method pos,oprf --d 1,4 --steps 4 --w-max 3 --features 4 \
	--projection iid,ort,simplex,ort-anti
cp "$tmp/out" cmap.tsv
is "$rc" 0 "--map sum --projection iid,ort,simplex,ort-anti: exits 0"
is "$(tail -n +2 cmap.tsv | cut -f3,11 | uniq -c | awk '{ printf "%s:%s:%s ", $2, $3, $1 }')" \
	"1:iid:8 1:ort:8 1:simplex:8 1:ort-anti:8 4:iid:8 4:ort:8 4:simplex:8 4:ort-anti:8 " \
	"--map --projection: per d, a block of rows per kind (4 points x 2 methods)"
# d = 1: a block is one column, no coupled pairs, every kind is iid.
awk -F'\t' 'NR > 1 && $3 == 1 { k = $2 " " $7; if ($11 == "iid") v[k] = $9; else { n++; if ($9 != v[k]) bad = 1 } }
	END { exit bad || n != 24 }' cmap.tsv
ok $? "--map --projection at d = 1: every kind's variance is iid's"
# PosRF, one ort block of M = d = 4 at x = y (K = 1), s^2 = w: Var = (e^w - 1)/M
# + (M - 1)/M (e^-w 1F1(d; d/2; w/2) - 1) (ORF pairs at right angles with
# independent chi(d) norms: E e^{(w + w').s} = 1F1(d; d/2; s^2/2), by the
# series of docs/DERIVATIONS.md "One pair of coupled columns"), summed here.
awk -F'\t' 'function f11(a, b, z,   t, s, n) { t = 1; s = 1
		for (n = 0; n < 200; n++) { t *= (a + n) / (b + n) * z / (n + 1); s += t }
		return s }
	NR > 1 && $2 == "pos" && $3 == 4 && $11 == "ort" { w = $7; M = 4
		want = log((exp(w) - 1) / M + (M - 1) / M * (exp(-w) * f11(4, 2, w / 2) - 1))
		n++; if (($9 - want) ^ 2 > 1e-18) { print "#     w " w ": " $9 " want " want; bad = 1 } }
	END { exit bad || n != 4 }' cmap.tsv
ok $? "--map --projection ort: pos's exact variance is the 1F1 series'"
awk -F'\t' 'NR > 1 && $3 == 4 { k = $2 " " $7; v[$11, k] = $9; keys[k] = 1 }
	END { for (k in keys) { n++; if (!(v["simplex", k] < v["ort", k] && v["ort", k] < v["iid", k])) bad = 1 }
	      exit bad || n != 8 }' cmap.tsv
ok $? "--map --projection at d = 4: simplex < ort < iid for pos and oprf (SimRF's claim)"
awk -F'\t' 'NR > 1 && $2 == "pos" && $10 != 0 { bad = 1 } END { exit bad }' cmap.tsv
ok $? "--map --projection: the baseline pos is on each row's own kind (log_ratio 0)"
fails 2 "--map --projection simplex with gerf (no exact coupled variance)" \
	variance --map sum --method gerf --d 4 --steps 2 --projection simplex -o out.h5
grep -q "no exact variance of 'gerf' on 'simplex' projections" "$tmp/err"
ok $? "--map: a method without an exact coupled variance is named" || diag_file "$tmp/err"
fails 2 "--map --projection simplex+ (no exact variance)" \
	variance --map sum --method pos --d 4 --steps 2 --projection simplex+ -o out.h5
fails 2 "--map --projection with an unknown kind" \
	variance --map sum --method pos --d 4 --steps 2 --projection ort,foo -o out.h5
fails 2 "a projection list outside --map" variance --projection ort,iid --L 8 --samples 1 --gamma 0.5 --regime normal -o out.h5
run variance --map angle --method trig,pos --d 4 --steps 3 --projection ort
is "$rc" 0 "--map angle --projection ort with trig: exits 0 (x = y is not on the grid)"

# ---------------------------------------------------------------------------
# Bad input: one line, exit 2 for usage and 1 for run-time errors, no file.

# Split into words where used.
E="--L 8 --samples 1 --gamma 0.5 --regime normal -o out.h5"
fails 2 "unknown method" variance --method foo $E
fails 2 "unknown projection" variance --projection qr $E
fails 2 "halton beyond its 1229 dimensions" variance --projection halton --d 1300 $E
fails 2 "pair mode: sobol beyond its 40 dimensions" variance --x "$(seq -s, 41)" --y "$(seq -s, 41)" --mc 10 --projection sobol -o out.h5
fails 2 "pair mode: gauss-hyb's fitted rho would underflow (sigma 1e-170)" variance --x 0.6,0.8 --y 0.8,0.6 --method gauss-hyb --param sigma=1e-170 -o out.h5
fails 2 "--d 0" variance --d 0 $E
fails 2 "--d -3" variance --d -3 $E
fails 2 "--d 2.5" variance --d 2.5 $E
fails 2 "--d list outside --map sum" variance --d 64,32 $E
fails 2 "non-numeric gamma" variance --L 8 --samples 1 --gamma 0.1,abc -o out.h5
fails 2 "--gamma -1" variance --L 8 --samples 1 --gamma -1 -o out.h5
fails 2 "--gamma 0" variance --L 8 --samples 1 --gamma 0 -o out.h5
fails 2 "empty gamma list" variance --L 8 --samples 1 --gamma '' -o out.h5
fails 2 "gamma list with an empty item" variance --L 8 --samples 1 --gamma 0.5, -o out.h5
fails 1 "-o in a nonexistent directory" variance $E -o nodir/out.h5
[ ! -e nodir ]
ok $? "-o in a nonexistent directory: creates nothing"
mkdir ro
chmod 555 ro
if [ "$(id -u)" -eq 0 ]; then
	skip "-o in a directory without write permission: root can write anywhere"
else
	fails 1 "-o in a directory without write permission" variance $E -o ro/out.h5
fi
[ -z "$(ls -A ro)" ]
ok $? "-o in a read-only directory: nothing left in it"
chmod 755 ro
mkdir outdir outdir.h5
fails 1 "-o naming an existing directory" variance $E -o outdir.h5
[ -d outdir.h5 ] && [ -z "$(ls -A outdir.h5)" ] && [ -z "$(ls -d outdir.h5.tmp.* 2> /dev/null)" ]
ok $? "-o naming a directory: directory untouched, no temporary file"
fails 2 "unknown option" variance $E --bogus
fails 2 "missing option value (--L at the end)" variance $E --L
fails 2 "--L 1" variance $E --L 1
fails 2 "--L abc" variance $E --L abc
fails 2 "--samples 0" variance $E --samples 0
fails 2 "--features 0" variance $E --features 0
fails 2 "--features -2" variance $E --features -2
fails 2 "--budget 0" variance $E --budget 0
grep -q -- '--budget' "$tmp/err"
ok $? "--budget 0: the message names --budget" || diag_file "$tmp/err"
fails 2 "--mc 1" variance $E --mc 1
fails 2 "--mc -5" variance $E --mc -5
fails 2 "--mc-pairs 0" variance $E --mc 10 --mc-pairs 0
fails 2 "--threads -1" variance $E --threads -1
fails 2 "--seed -1" variance $E --seed -1
run variance --L 8 --samples 1 --gamma 0.5 --regime normal --method oprf,pos \
	--param A=-0.05 -o fixed.h5
[ "$rc" -eq 0 ] &&
	[ "$("$RFX" dump fixed.h5 params --where param=A_re | awk -F'\t' 'NR > 1 { print $6 }' | sort -u)" = "-0.05" ]
ok $? "--param in experiment mode fixes the parameter in every set (params table)"
fails 2 "--param in map mode" variance --map sum --d 4 --steps 3 --method oprf --param A=-0.1 -o out.h5
fails 2 "--param with an infinite-variance value, experiment mode" variance $E --method gerf --param A=0.2
fails 2 "--param no listed method has, experiment mode" variance $E --method trig --param q=0.5
fails 2 "--x and --y of different lengths" variance --x 1,2 --y 1 -o out.h5
fails 2 "--x without --y" variance --x 1,2 -o out.h5
fails 2 "nan in --x" variance --x nan,1 --y 1,2 -o out.h5
fails 2 "inf in --x" variance --x inf,1 --y 1,2 -o out.h5
fails 2 "1e999 in --x" variance --x 1e999,1 --y 1,2 -o out.h5
fails 2 "--mc 1 in pair mode" variance --x 1,2 --y 1,3 --mc 1 -o out.h5
fails 2 "unknown regime" variance --regime foo --L 8 --samples 1 -o out.h5
fails 2 "regime listed twice" variance --regime normal,normal --L 8 --samples 1 -o out.h5
fails 2 "method listed twice" variance --method trig,trig $E
fails 2 "empty method list" variance --method '' $E
fails 2 "unknown projection" variance --projection foo $E
fails 2 "unknown projection in pair mode" \
	variance --x 1,2 --y 0.5,1 --mc 10 --projection foo -o out.h5
run variance --x 1,2 --y 0.5,1 --method trig --mc 10 --projection ort
is "$rc" 0 "pair mode --mc --projection ort: exits 0"
# coordinates are no sweep: repeated values are a point (1, 1), unlike
# --gamma 0.5,0.5 (a usage error, t_cmd_catalogue)
run variance --x 1,1 --y 1,1 --method trig -o out.h5
is "$rc" 0 "--x 1,1 --y 1,1: repeated coordinates are accepted"
fails 2 "--d listed twice" variance --map sum --method pos --d 8,8 -o out.h5
fails 2 "unknown --map kind" variance --map foo -o out.h5
fails 2 "--map angle --d 1" variance --map angle --d 1 --steps 3 -o out.h5
fails 2 "--map --steps 1" variance --map angle --steps 1 -o out.h5
fails 2 "--map --r-max 0" variance --map angle --r-max 0 --steps 3 -o out.h5
fails 2 "--map unknown --baseline" variance --map sum --baseline foo --steps 3 -o out.h5
fails 2 "--param q=0.5 --method oprf: no taker" \
	variance --x 1,2 --y 1,3 --param q=0.5 --method oprf -o out.h5
fails 2 "--param A=1,2 --method oprf: A is real" \
	variance --x 1,2 --y 1,3 --param A=1,2 --method oprf -o out.h5
fails 2 "--param not NAME=VALUE" variance --x 1,2 --y 1,3 --param A -o out.h5
fails 2 "--param gerf:t=2" variance --x 1,2 --y 1,3 --param gerf:t=2 --method gerf -o out.h5
fails 2 "--param A=0.2 makes gerf's variance infinite" \
	variance --x 1,2 --y 1,3 --param A=0.2 --method gerf -o out.h5
grep -q 'infinite' "$tmp/err"
ok $? "--param A=0.2: the message says why" || diag_file "$tmp/err"
fails 2 "unknown --mnist-norm" variance --regime mnist --mnist-norm z $E
# --mnist-norm standard z-scores each pixel over the 10000 images, so the
# inputs have negative entries; unit keeps them in [0, gamma].
run variance --regime mnist --L 8 --samples 1 --gamma 1 --method trig --mnist-norm standard
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/out")" -eq 1 ]
ok $? "--mnist-norm standard runs"
fails 2 "mnist regime with --d 10 (not a square)" \
	variance --regime mnist --d 10 --L 8 --samples 1 --gamma 0.5 -o out.h5
mkdir nodata
fails 1 "mnist regime with a --data directory lacking the file" \
	variance --regime mnist --d 64 --L 8 --samples 1 --gamma 0.5 --data nodata -o out.h5
grep -q "nodata/t10k-images-idx3-ubyte.gz" "$tmp/err"
ok $? "mnist without data: the message names the file" || diag_file "$tmp/err"

# --d in scientific notation is the number it says.
run variance --d 1e1 --L 8 --samples 1 --gamma 0.5 --regime normal --method trig
is "$(col "$tmp/out" d)" 10 "--d 1e1 means d = 10"

# A failed run leaves an existing file alone.
"$RFX" variance --L 8 --samples 1 --gamma 0.5 --regime normal -o out.h5 > /dev/null 2>&1
cp out.h5 keep.h5
run variance --L 8 --samples 1 --gamma 0.1,abc -o out.h5
[ "$rc" -eq 2 ] && cmp -s out.h5 keep.h5
ok $? "a usage error keeps the existing out.h5"
run variance --regime mnist --d 64 --L 8 --samples 1 --gamma 0.5 --data nodata -o out.h5
[ "$rc" -eq 1 ] && cmp -s out.h5 keep.h5
ok $? "a run-time failure keeps the existing out.h5"

rm -f out.h5
interrupt INT 1 variance -o out.h5
interrupted INT 130 "SIGINT: exit 130"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"
rm -f out.h5
interrupt TERM 1 variance -o out.h5
interrupted TERM 143 "SIGTERM: exit 143"
no_output
ok $? "SIGTERM: neither out.h5 nor out.h5.tmp.* remains"
cp keep.h5 out.h5
interrupt INT 1 variance -o out.h5
interrupted INT 130 "SIGINT with an existing out.h5: exit 130"
cmp -s out.h5 keep.h5 && [ -z "$(ls -d out.h5.tmp.* 2> /dev/null)" ]
ok $? "SIGINT with an existing out.h5: file unchanged, no temporary file"
# Map mode does not poll for cancellation; the signal must still keep the
# file from appearing when the computation ends.
rm -f out.h5
interrupt TERM 1 variance --map sum -o out.h5
interrupted TERM 143 "SIGTERM during --map: exit 143"
no_output
ok $? "SIGTERM during --map: no out.h5 appears when the map completes"
# A second signal ends the run at once, removing the temporary file.
rm -f out.h5
interrupt INT 2 variance --map sum -o out.h5
interrupted INT 130 "second SIGINT: exit 130" quiet
no_output
ok $? "second SIGINT: neither out.h5 nor out.h5.tmp.* remains"

# ---------------------------------------------------------------------------
# Help and version

run variance --help
cp "$tmp/out" help.txt
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && head -n 1 help.txt | grep -q '^usage: rfx variance '
ok $? "variance --help: usage on stdout, exit 0"
sed -n 's/^  \(-., \)\{0,1\} *--\([A-Za-z-]*\).*/\2/p' help.txt | sort > got
cat > want_defaults <<'EOF'
method	(default all)
regime	(default all)
gamma	(default 0.1,0.2,...,1)
d	(default 64; a list for --map sum, default 16,32,64,128)
L	(default 1024)
samples	(default 5)
features	(default: fair counting)
budget	(default 8)
projection	(default iid)
mc	(default 1000; 0 in pair mode)
mc-pairs	(default 16)
seed	(default 20221121)
threads	(default: all cores)
data	(default: $RFX_DATA, else data/ next to rfx)
mnist-norm	(default unit)
steps	(default 60)
r-max	(default 2)
w-max	(default 100)
baseline	(default pos)
x	(default none: sampled sets)
y	(default none)
x-file	(default none)
y-file	(default: the x's)
pairs	(default 0: all pairs)
header	(default: detected)
kernel	(default gauss)
attention-scale	(default off)
param	(default: all fitted)
map	(default none)
output	(default none: stdout only)
EOF
printf '%s\n' help > no_default
{ cut -f1 want_defaults; cat no_default; } | sort > want
cmp -s want got
ok $? "variance --help lists exactly the options this test knows" ||
	diff want got | diag_file /dev/stdin
while IFS='	' read -r name dflt; do
	grep -- "--$name " help.txt | grep -qF -- "$dflt" || echo "--$name: no '$dflt'"
done < want_defaults > missing
[ ! -s missing ]
ok $? "variance --help states every default" || diag_file missing
run help variance
cmp -s "$tmp/out" help.txt
ok $? "rfx help variance prints the same as rfx variance --help"
run --version
v1=$(cat "$tmp/out")
run version
is "$(cat "$tmp/out")" "$v1" "rfx version prints what rfx --version does"
want_v=$(sed -n 's/^VERSION = //p' "$RFX_TOP/Makefile")
echo "$v1" | head -n 1 |
	grep -Eq "^rfx $want_v \\(commit ([0-9a-f]{7,}|unknown)(-dirty)?\\)\$"
ok $? "rfx --version: 'rfx <version> (commit ...)' first ($v1)"
# The BLAS line: OpenBLAS's configuration, whose core a user's
# OPENBLAS_CORETYPE chooses over rfx's pick (lib/num/blas.h).
[ "$(echo "$v1" | wc -l)" -eq 2 ] && echo "$v1" | sed -n 2p | grep -q '^blas: '
ok $? "rfx --version: then 'blas: ...'"
v2=$(OPENBLAS_CORETYPE=Prescott "$RFX" --version | sed -n 2p)
case $v2 in
*OpenBLAS*) echo "$v2" | grep -q ' Prescott ' && ! echo "$v2" | grep -q 'set by rfx' ;;
*) true ;; # another BLAS: nothing to choose
esac
ok $? "OPENBLAS_CORETYPE=Prescott is kept, not overridden ($v2)"
for a in --help -h help; do
	run $a
	[ "$rc" -eq 0 ] && head -n 1 "$tmp/out" | grep -q '^usage: rfx ' &&
		grep -q '^  variance ' "$tmp/out" && grep -q '^  dump ' "$tmp/out"
	ok $? "rfx $a: usage with the commands on stdout, exit 0"
done
run
[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && head -n 1 "$tmp/err" | grep -q '^usage: rfx '
ok $? "rfx alone: usage on stderr, exit 2"
fails 2 "unknown subcommand" frobnicate
fails 2 "rfx help of an unknown subcommand" help frobnicate

done_testing

#!/bin/sh
#
# Tests of 'rfx mse-table' through the command line: the table mode (HRF
# Table 1 by default, the Gaussian kernel against D/d), --vs-z, --z-hist
# against Python's all-pairs computation, --check
# against a reference (passing, and failing for a tampered one), TSV
# against HDF5, reproducibility across thread counts, bad inputs (one line
# on stderr, exit 2 for usage errors and 1 for run-time failures, no output
# file left) and SIGINT. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
RFX_DATA=$RFX_TOP/data
export RFX_DATA

HEADER=$(printf 'dataset\tnorm\tmethod\testimator\tprojection\td\tB\tratio\tM\tm1\tm3\tflops\tsigma\tpairs\tdraws\treps\tkernel_mean\tmse\tmse_sd\tmse_se\tmse_iid')
ZHEADER=$(printf 'projection\tcurve\td\tD\tz\tmean\tbias\tbias_se\tvar\tvar_se\tratio\tratio_se\tmse_ratio')
CHEADER=$(printf 'key\tref\tref_se\tgot\tgot_se\tz\tlimit\tverdict')
SMALL="--reps 3 --draws 2 --pairs 20"

# ---------------------------------------------------------------------------
# HRF Table 1 (defaults, small)

run mse-table $SMALL
cp "$tmp/out" t1.tsv
is "$rc" 0 "table: exits 0"
is "$(head -n 1 t1.tsv)" "$HEADER" "table: documented header"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" "table: seed on stderr"
is "$(rows t1.tsv)" 10 "table: wine and Boston x the five methods of HRF Table 1"
is "$(col t1.tsv method | sort -u | tr '\n' ' ')" "HRF-iid HRF-ort Halton-R ORF-Had ORF-reg " \
	"table: HRF-ort, HRF-iid, ORF-reg, ORF-Had, Halton-R"
finite t1.tsv 6 21
ok $? "table: every number finite"
# FLOP matching at d = 13 (worked in tests/t_msetable.c): m = n = 44.
is "$(awk -F'\t' '$3 == "HRF-ort" {print $6, $10, $11, $12; exit}' t1.tsv)" "13 44 44 14168" \
	"table: the hybrid is FLOP-matched to trig with 512 features (m = n = 44)"
is "$(awk -F'\t' '$3 == "ORF-Had" {print $5, $9, $12; exit}' t1.tsv)" "sorf 512 14336" \
	"table: ORF-Had is trig on sorf projections with 512 features"
is "$(col t1.tsv norm | sort -u)" "unit" "table: unit normalisation by default"

run mse-table $SMALL --threads 1
cmp -s "$tmp/out" t1.tsv
ok $? "table: the same bytes on one thread"
run mse-table $SMALL --dataset boston --method ORF-reg=trig:ort
awk -F'\t' 'NR == 1 || ($1 == "boston" && $3 == "ORF-reg")' t1.tsv > sub.tsv
cmp -s "$tmp/out" sub.tsv
ok $? "table: a cell does not depend on the rest of the run"

rm -f out.h5
run mse-table $SMALL --dataset wine --norm unit,ball --method trig:iid -o out.h5
"$RFX" dump out.h5 mse > dumped.tsv 2> /dev/null
cmp -s "$tmp/out" dumped.tsv
ok $? "-o: the HDF5 table dumps to the TSV printed"
is "$(col dumped.tsv norm | tr '\n' ' ')" "unit ball " "--norm: one row per normalisation"
"$RFX" dump out.h5 --attrs 2> /dev/null | grep -q '^command	.*mse-table --reps 3'
ok $? "-o: the file records the command line"

# ---------------------------------------------------------------------------
# The Gaussian kernel against D/d (ORF Fig 4)

run mse-table --kernel gauss --dataset letter --method RFF=trig:iid,ORF=trig:ort \
	--ratio 1,2 --pad pow2 --nn-sample 200 $SMALL
is "$rc" 0 "gauss: exits 0"
is "$(awk -F'\t' 'NR > 1 {printf "%s %s %s %s;", $3, $6, $8, $9}' "$tmp/out")" \
	"RFF 16 1 16;RFF 16 2 32;ORF 16 1 16;ORF 16 2 32;" "gauss: M = ratio d at d = 16"
is "$(col "$tmp/out" norm | sort -u)" "none" "gauss: raw inputs by default"
awk -F'\t' 'NR > 1 && !($13 > 1 && $13 < 20) {exit 1}' "$tmp/out"
ok $? "gauss: the 50th-neighbour bandwidth of letter is a plausible distance"

# --sigma-scale (ORF Fig 5ab): one block of rows per factor, the bandwidth
# times the factor, on the same pairs and projections, so the factor-1
# block is the plain run byte for byte.
GARGS="--kernel gauss --dataset letter --method RFF=trig:iid,ORF=trig:ort --ratio 1 --pad pow2 --nn-sample 200 $SMALL"
run mse-table $GARGS
cp "$tmp/out" plain.tsv
run mse-table $GARGS --sigma-scale 0.5,1,2.5
cp "$tmp/out" scaled.tsv
is "$rc" 0 "--sigma-scale: exits 0"
is "$(rows scaled.tsv)" 6 "--sigma-scale: 3 factors x 2 methods"
{ head -n 1 scaled.tsv; sed -n '4,5p' scaled.tsv; } > mid.tsv
cmp -s mid.tsv plain.tsv
ok $? "--sigma-scale: the factor-1 block is the run without it" || diff mid.tsv plain.tsv | diag_file /dev/stdin
s1=$(col plain.tsv sigma | head -n 1)
is "$(col scaled.tsv sigma | awk -v s="$s1" '{printf "%.12g ", $1 / s}')" "0.5 0.5 1 1 2.5 2.5 " 	"--sigma-scale: sigma is the 50th-neighbour bandwidth times each factor"
run mse-table $SMALL --dataset wine --method trig:iid --sigma 2 --sigma-scale 3
is "$(col "$tmp/out" sigma)" "6" "--sigma-scale: multiplies a given --sigma too"

# ---------------------------------------------------------------------------
# --check

run mse-table $SMALL --dataset wine --method ORF-reg=trig:ort,HRF-iid=ang:iid
cp "$tmp/out" ref.tsv
run mse-table $SMALL --dataset wine --method ORF-reg=trig:ort,HRF-iid=ang:iid --check ref.tsv
is "$rc" 0 "--check: a reference made by the same command passes"
is "$(head -n 1 "$tmp/out")" "$CHEADER" "--check: the comparison on stdout"
is "$(col "$tmp/out" verdict | tr '\n' ' ')" "ok ok " "--check: every cell ok"
is "$(col "$tmp/out" z | tr '\n' ' ')" "0 0 " "--check: z = 0 for identical tables"
# The reference with the trig cell's MSE tripled.
awk -F'\t' 'BEGIN {OFS = "\t"} NR > 1 && $3 == "ORF-reg" {$18 = 3 * $18} {print}' ref.tsv > bad.tsv
rm -f out.h5
run mse-table $SMALL --dataset wine --method ORF-reg=trig:ort,HRF-iid=ang:iid --check bad.tsv -o out.h5
is "$rc" 1 "--check: a tampered reference fails (exit 1)"
is "$(lines "$tmp/err")" 1 "--check: one error line on stderr (the seed is printed on success only)"
grep -q "^rfx: regression: 1 of 2 cells differ from 'bad.tsv'" "$tmp/err"
ok $? "--check: the error names the count and the reference"
is "$(col "$tmp/out" verdict | tr '\n' ' ')" "FAIL ok " "--check: the failing cell is marked"
no_output
ok $? "--check: a failed check leaves no output file"
run mse-table $SMALL --dataset wine --method ORF-reg=trig:ort --check ref.tsv
is "$rc" 1 "--check: a reference made with other settings is an error"
is "$(tail -n 1 "$tmp/err" | cut -c1-40)" "rfx: the reference has 2 rows, the run 1" \
	"--check: which says so"

# ---------------------------------------------------------------------------
# --vs-z

run mse-table --vs-z --d 4,8 --projection ort,sorf --z-steps 3 --mc 200
is "$rc" 0 "--vs-z: exits 0"
is "$(head -n 1 "$tmp/out")" "$ZHEADER" "--vs-z: documented header"
# per d: 2 mc + 1 exact (ort) + 1 limit curve, 3 z each; then d -> infinity
is "$(rows "$tmp/out")" 27 "--vs-z: 2 d x 4 curves x 3 z + 3 limit rows"
finite "$tmp/out" 3 13
ok $? "--vs-z: every number finite"

# ---------------------------------------------------------------------------
# --z-hist (ORF Fig 2(c)), against an independent computation: Python over
# every pair of a small file's 40 inputs gives the 5th-neighbour bandwidth
# (every input a query: --nn-sample above n) exactly, and each bin's share
# of the unordered pairs, which rfx's 200000 sampled pairs estimate: each
# count within 4 binomial standard deviations.

HHEADER=$(printf 'dataset\tnorm\td\tsigma\tpairs\tz_lo\tz_hi\tcount\tdensity\tcdf')
python3 -c '
import random
random.seed(7)
for i in range(40):
    print(" ".join("%.6f" % random.gauss(0, 1 + (i % 3)) for _ in range(3)))
' > pts.txt
run mse-table --z-hist --dataset pts.txt --nn-k 5 --nn-sample 1000 --pairs 200000 \
	--z-max 3 --z-steps 10
cp "$tmp/out" zh.tsv
is "$rc" 0 "--z-hist: exits 0"
is "$(head -n 1 zh.tsv)" "$HHEADER" "--z-hist: documented header"
is "$(rows zh.tsv)" 10 "--z-hist: one row per bin"
finite zh.tsv 3 10
ok $? "--z-hist: every number finite"
python3 - zh.tsv pts.txt > zcheck.txt <<'PY'
import math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
head, rows = rows[0], rows[1:]
c = {n: i for i, n in enumerate(head)}
X = [[float(v) for v in l.split()] for l in open(sys.argv[2])]
n = len(X)
dist = lambda a, b: math.sqrt(sum((p - q) ** 2 for p, q in zip(a, b)))
sigma = sum(sorted(dist(X[i], X[j]) for j in range(n) if j != i)[4] for i in range(n)) / n
got = float(rows[0][c["sigma"]])
print("sigma %s" % ("ok" if abs(got - sigma) <= 1e-12 * sigma else "got %r want %r" % (got, sigma)))
zs = [dist(X[i], X[j]) / sigma for i in range(n) for j in range(i + 1, n)]
P = int(rows[0][c["pairs"]])
bad = []
for r in rows:
    lo, hi, cnt = float(r[c["z_lo"]]), float(r[c["z_hi"]]), int(r[c["count"]])
    p = sum(1 for z in zs if lo <= z < hi) / len(zs)
    sd = math.sqrt(P * p * (1 - p))
    if abs(cnt - P * p) > 4 * sd + 1e-9:
        bad.append("[%g, %g) count %d want %.1f +- %.1f" % (lo, hi, cnt, P * p, sd))
    if abs(float(r[c["density"]]) - cnt / (P * (hi - lo))) > 1e-12 * (1 + cnt):
        bad.append("[%g, %g) density" % (lo, hi))
print("bins %s" % ("ok" if not bad else "; ".join(bad)))
below = sum(1 for z in zs if z < 3) / len(zs)
print("cdf %s" % ("ok" if abs(float(rows[-1][c["cdf"]]) - below) <= 4 * math.sqrt(below * (1 - below) / P) + 1e-12 else "got %s want %g" % (rows[-1][c["cdf"]], below)))
PY
is "$(sed -n 1p zcheck.txt)" "sigma ok" "--z-hist: sigma is the mean 5th-neighbour distance, as Python computes it"
is "$(sed -n 2p zcheck.txt)" "bins ok" "--z-hist: each bin's count within 4 sd of the all-pairs share, density count/(P width)"
is "$(sed -n 3p zcheck.txt)" "cdf ok" "--z-hist: the last cdf is the share of pairs below z-max"
run mse-table --z-hist --dataset pts.txt --nn-k 5 --nn-sample 1000 --pairs 200000 \
	--z-max 3 --z-steps 10 --threads 1
cmp -s "$tmp/out" zh.tsv
ok $? "--z-hist: the same bytes on one thread"
run mse-table --z-hist --dataset letter --nn-sample 100 --pairs 1000 --z-steps 5
is "$(col "$tmp/out" dataset | sort -u)" "letter" "--z-hist: a catalogue dataset"
is "$(col "$tmp/out" norm | sort -u)" "none" "--z-hist: raw inputs by default"

# ---------------------------------------------------------------------------
# Bad inputs

fails 2 "unknown dataset" mse-table --dataset iris -o out.h5
fails 2 "a dataset twice" mse-table --dataset wine,wine -o out.h5
fails 2 "unknown method" mse-table --method X=nope:ort -o out.h5
fails 2 "unknown projection" mse-table --method trig:qr -o out.h5
fails 2 "a label twice" mse-table --method A=trig,A=posh -o out.h5
fails 2 "unknown normalisation" mse-table --norm l2 -o out.h5
fails 2 "--features 0" mse-table --features 0 -o out.h5
fails 2 "--ratio 0" mse-table --ratio 0 -o out.h5
fails 2 "--features with --ratio" mse-table --features 8 --ratio 1 -o out.h5
fails 2 "--reps 1" mse-table --reps 1 -o out.h5
fails 2 "--pairs 0" mse-table --pairs 0 -o out.h5
fails 2 "--draws -1" mse-table --draws -1 -o out.h5
fails 2 "unknown kernel" mse-table --kernel laplace -o out.h5
fails 2 "unknown --match" mse-table --match fast -o out.h5
fails 2 "unknown baseline" mse-table --baseline nope -o out.h5
fails 2 "--sigma -1" mse-table --sigma -1 -o out.h5
fails 2 "--sigma abc" mse-table --sigma abc -o out.h5
fails 2 "--sigma-scale 0" mse-table --sigma-scale 1,0 -o out.h5
fails 2 "--sigma-scale abc" mse-table --sigma-scale abc -o out.h5
fails 2 "--sigma-scale with nine factors" mse-table --sigma-scale 1,2,3,4,5,6,7,8,9 -o out.h5
fails 2 "--sigma-scale with --vs-z" mse-table --vs-z --sigma-scale 2 -o out.h5
fails 2 "--sigma-scale of two factors with --check" mse-table --sigma-scale 1,2 --check ref.tsv -o out.h5
fails 2 "unknown --pad" mse-table --pad pow3 -o out.h5
fails 2 "a parameter no method has" mse-table --param q=0.5 -o out.h5
fails 2 "a vector parameter" mse-table --method pois+ --param c=1 -o out.h5
fails 2 "raw inputs for the softmax kernel" mse-table --norm none -o out.h5
fails 2 "sobol beyond d = 40" mse-table --dataset usps --method trig:sobol -o out.h5
fails 2 "an empty -o" mse-table -o ''
fails 2 "--d in the table mode" mse-table --d 4 -o out.h5
fails 2 "--dataset with --vs-z" mse-table --vs-z --dataset wine -o out.h5
fails 2 "--vs-z d = 1" mse-table --vs-z --d 1 -o out.h5
fails 2 "--vs-z z-max 7" mse-table --vs-z --z-max 7 -o out.h5
fails 2 "--vs-z --mc 1" mse-table --vs-z --mc 1 -o out.h5
fails 2 "--vs-z halton at d = 2048" mse-table --vs-z --projection halton --d 2048 -o out.h5
fails 2 "--z-hist with --vs-z" mse-table --z-hist --vs-z -o out.h5
fails 2 "--method with --z-hist" mse-table --z-hist --method trig -o out.h5
fails 2 "--mc with --z-hist" mse-table --z-hist --mc 10 -o out.h5
fails 2 "--z-hist --z-steps 0" mse-table --z-hist --z-steps 0 -o out.h5
fails 2 "--pairs above a million in the table mode" mse-table --pairs 2000000 -o out.h5
fails 2 "an unknown option" mse-table --frobnicate
fails 1 "a missing reference" mse-table --check nope.tsv -o out.h5
fails 1 "a missing data directory" mse-table --data /nonexistent -o out.h5
fails 1 "an unwritable output directory" mse-table $SMALL --dataset wine --method trig -o nodir/out.h5

run mse-table --help
is "$rc" 0 "--help exits 0"
grep -q '^usage: rfx mse-table' "$tmp/out"
ok $? "--help prints the usage"

# MSEs near 1e198 (gauss-hyb at rho = 1e-100, the end of its range): their
# spread over the reps is finite too, and mse_se = mse_sd / sqrt(reps).
# The squared deviations overflowed to an sd of inf before they were
# scaled.
run mse-table --dataset wine --method gauss-hyb --param rho=1e-100 --pairs 10 \
	--draws 2 --reps 4
cp "$tmp/out" big.tsv
m=$(col big.tsv mse) sd=$(col big.tsv mse_sd) se=$(col big.tsv mse_se)
[ "$rc" -eq 0 ] && awk -v m="$m" -v sd="$sd" -v se="$se" 'BEGIN {
	exit !(m > 1e150 && m < 1e300 && sd > 0 && sd < 1e300 &&
	       se / (sd / 2) > 1 - 1e-12 && se / (sd / 2) < 1 + 1e-12) }'
ok $? "MSEs near 1e198: mse_sd ($sd) and mse_se finite" || diag_file big.tsv

# ---------------------------------------------------------------------------
# Interruption

rm -f out.h5
interrupt INT 1 mse-table --dataset wine --method trig:ort --reps 100000 -o out.h5
interrupted INT 130 "SIGINT: exit 130"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"

done_testing

#!/bin/sh
#
# Tests of 'rfx uci-classify' through the command line: the summary TSV
# and the HDF5 tables (uci, uci_gamma, uci_data), the method and
# projection expansion, the split sizes of thesis Table 6.1, the default
# gamma grid, reproducibility across thread counts, data files that are
# missing or malformed (exit 1, line and column in the message), the
# catalogue of bad options (exit 2, one line, no output file), SIGINT, and
# the help text. Prints TAP. Small datasets, 2 seeds and 2 gammas keep it
# to a few seconds.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# Data come from data/ next to rfx unless the environment says otherwise.
unset RFX_DATA

HEADER=$(printf 'dataset\tmethod\tprojection\td\tclasses\tn_train\tn_val\tn_test\tM\tseeds\tgamma\tval_pct\ttest_pct\ttest_pct_se')
GAMMA_HEADER=$(printf 'dataset\tmethod\tprojection\tgamma\tM\tseeds\tval_pct\tval_pct_sd\ttest_pct\ttest_pct_sd\tparams')
DATA_HEADER=$(printf 'dataset\tfile\tencoding\tscaling\trows\td\tclasses\tn_train\tn_val\tn_test')
# ---------------------------------------------------------------------------
# A small run

SMALL="uci-classify --dataset banknote,wifi --method exact,trig,pois,oprf --seeds 2 --gamma 0.5,2"
run $SMALL -o small.h5
cp "$tmp/out" small.tsv
is "$rc" 0 "small run: exits 0"
is "$(head -n 1 small.tsv)" "$HEADER" "summary TSV: documented header"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" \
	"stderr: the seed and generator only (no progress off a terminal)"
is "$(tail -n +2 small.tsv | cut -f1-3 | tr '\t\n' ': ')" \
	"banknote:exact:none banknote:trig:iid banknote:trig:ort banknote:pois:discrete banknote:oprf:iid banknote:oprf:ort wifi:exact:none wifi:trig:iid wifi:trig:ort wifi:pois:discrete wifi:oprf:iid wifi:oprf:ort " \
	"rows: datasets in order; methods as listed, iid then ort, one row for exact and discrete"
awk -F'\t' -v re="$NUM" 'NR > 1 { for (i = 4; i <= 14; i++) if ($i !~ re) bad = 1
	if ($12 < 0 || $12 > 100 || $13 < 0 || $13 > 100) bad = 1 }
	END { exit bad }' small.tsv
ok $? "summary: every numeric column is a finite number, accuracies in [0, 100]"
awk -F'\t' 'NR > 1 { want = ($2 == "exact") ? 0 : ($2 == "trig") ? 64 : 128
	if ($9 != want || $10 != ($2 == "exact" ? 1 : 2)) bad = 1 }
	END { exit bad }' small.tsv
ok $? "summary: M = 64 complex (trig), 128 real, 0 for exact; 2 seeds (1 for exact)"
awk -F'\t' 'NR > 1 && $1 == "banknote" && ($4 != 4 || $5 != 2 || $6 != 1234 || $7 != 69 || $8 != 69) { bad = 1 }
	NR > 1 && $1 == "wifi" && ($4 != 7 || $5 != 4 || $6 != 1800 || $7 != 100 || $8 != 100) { bad = 1 }
	END { exit bad }' small.tsv
ok $? "summary: d, classes and the 90/5/5 split sizes of banknote and wifi"
awk -F'\t' 'NR > 1 && $2 == "exact" && $13 < 90 { bad = 1 } END { exit bad }' small.tsv
ok $? "exact kernel regression: > 90% on banknote and wifi"

"$RFX" dump small.h5 uci > dump.tsv 2> /dev/null
cmp -s dump.tsv small.tsv
ok $? "-o: table 'uci' is the TSV on stdout"
"$RFX" dump small.h5 uci_gamma > gamma.tsv 2> /dev/null
is "$(head -n 1 gamma.tsv)" "$GAMMA_HEADER" "table uci_gamma: documented header"
is "$(rows gamma.tsv)" 24 "uci_gamma: 2 datasets x 6 methods x 2 gammas"
# The summary's val_pct and test_pct are those of its gamma's row, and that
# gamma has the best validation accuracy.
awk -F'\t' 'FNR == 1 { next }
	NR == FNR { key = $1 ":" $2 ":" $3; v[key, $4] = $7; t[key, $4] = $9
		if (!(key in best) || $7 > best[key]) best[key] = $7; next }
	{ key = $1 ":" $2 ":" $3
	  if (v[key, $11] != $12 || t[key, $11] != $13 || $12 != best[key]) bad = 1 }
	END { exit bad }' gamma.tsv small.tsv
ok $? "summary rows: the validated gamma and its accuracies from uci_gamma"
awk -F'\t' 'NR > 1 && $2 == "oprf" && $11 !~ /^A=-?[0-9.e-]+$/ { bad = 1 }
	NR > 1 && $2 == "pois" && $11 !~ /^lambda=/ { bad = 1 }
	NR > 1 && $2 ~ /^(exact|trig)$/ && $11 != "-" { bad = 1 }
	END { exit bad }' gamma.tsv
ok $? "uci_gamma: fitted parameters per gamma (A for oprf, lambda for pois, - otherwise)"
"$RFX" dump small.h5 uci_data > data.tsv 2> /dev/null
is "$(head -n 1 data.tsv)" "$DATA_HEADER" "table uci_data: documented header"
is "$(tail -n +2 data.tsv | tr '\t\n' ' :')" \
	"banknote banknote.txt ordinal standard 1372 4 2 1234 69 69:wifi wifi_localization.txt ordinal standard 2000 7 4 1800 100 100:" \
	"uci_data: files, encoding, scaling, rows, d, classes, split"
"$RFX" dump --attrs small.h5 > attrs.txt 2> /dev/null
grep -q '^options/dataset	banknote,wifi$' attrs.txt && grep -q '^options/seeds	2$' attrs.txt &&
	grep -q '^options/budget	128$' attrs.txt && grep -q '^options/projection	both$' attrs.txt &&
	grep -q '^options/gamma	0.5,2$' attrs.txt && grep -q '^options/encoding	ordinal$' attrs.txt &&
	grep -q '^options/scaling	standard$' attrs.txt && grep -q '^seed	20221121$' attrs.txt
ok $? "attributes: datasets, seeds, budget, projection, gammas, encoding, scaling, seed" ||
	diag_file attrs.txt

# ---------------------------------------------------------------------------
# Table 6.1: every dataset's size and split (exact only, one gamma: fast).

run uci-classify --method exact --gamma 1 --seeds 1 -o all.h5
is "$rc" 0 "all datasets, exact: exits 0"
"$RFX" dump all.h5 uci_data | tail -n +2 | cut -f1,5-10 > sizes.txt
cat > want_sizes.txt <<'EOF'
abalone	4177	8	28	3759	209	209
banknote	1372	4	2	1234	69	69
car	1728	6	4	1555	86	87
yeast	1484	8	10	1335	74	75
cmc	1473	9	3	1325	74	74
nursery	12960	8	5	11664	648	648
wifi	2000	7	4	1800	100	100
chess	28056	6	18	25250	1403	1403
EOF
cmp -s want_sizes.txt sizes.txt
ok $? "uci_data: rows, d (ordinal), classes and the split of all eight datasets" ||
	diff want_sizes.txt sizes.txt | diag_file /dev/stdin
# Table 6.1's L is ours minus one but for nursery (docs/ERRATA.md, E10).
printf 'abalone 3758\nbanknote 1233\ncar 1554\nyeast 1334\ncmc 1324\nnursery 11664\nwifi 1799\nchess 25249\n' > thesis_L.txt
awk 'NR == FNR { L[$1] = $2; next }
	{ off = ($1 == "nursery") ? 0 : 1; if ($5 != L[$1] + off) bad = 1; n++ }
	END { exit bad || n != 8 }' thesis_L.txt sizes.txt
ok $? "n_train = Table 6.1's L + 1 (nursery: + 0), as documented"
run uci-classify --dataset car,nursery,abalone --method exact --gamma 1 --seeds 1 --encoding onehot -o onehot.h5
is "$("$RFX" dump onehot.h5 uci_data | tail -n +2 | cut -f1,3,6 | tr '\t\n' ' :')" \
	"car onehot 21:nursery onehot 27:abalone onehot 10:" \
	"--encoding onehot: d = 21 (car), 27 (nursery), 10 (abalone)"
is "$(col "$tmp/out" dataset | tr '\n' ' ')" "car nursery abalone " \
	"datasets run in the order given"

# The default grid: numpy.logspace(-2, 2, 10).
run uci-classify --dataset banknote --method exact --seeds 1 -o grid.h5
"$RFX" dump grid.h5 uci_gamma | tail -n +2 | cut -f4 > grid.txt
awk '{ want = 10 ^ (-2 + 4 * (NR - 1) / 9); d = $1 / want - 1; if (d < 0) d = -d
	if (d > 1e-14) bad = 1 } END { exit bad || NR != 10 }' grid.txt
ok $? "default gammas: 10 log-uniform values from 0.01 to 100" || diag_file grid.txt
is "$(head -n 1 grid.txt) $(tail -n 1 grid.txt)" "0.01 100" "the grid's ends are exactly 0.01 and 100"

# ---------------------------------------------------------------------------
# Reproducibility: same seed and arguments, any thread count.

REPRO="uci-classify --dataset car --method trig,gerf,geom+ --seeds 3 --gamma 0.3,1 -o out.h5"
for t in 1 2; do
	mkdir "omp$t"
	(cd "omp$t" && OMP_NUM_THREADS=$t "$RFX" $REPRO > out.tsv 2> err.txt)
	echo $? > "omp$t/rc"
done
is "$(cat omp1/rc omp2/rc | tr '\n' ' ')" "0 0 " "reproducibility runs exit 0"
cmp -s omp1/out.tsv omp2/out.tsv && cmp omp1/out.h5 omp2/out.h5 > /dev/null 2>&1
ok $? "same seed: identical stdout and byte-identical .h5 with 1 and 2 threads"
run uci-classify --dataset car --method trig,gerf,geom+ --seeds 3 --gamma 0.3,1 --threads 1
cmp -s "$tmp/out" omp2/out.tsv
ok $? "--threads 1 gives the same table"
run uci-classify --dataset car --method trig,gerf,geom+ --seeds 3 --gamma 0.3,1 --seed 5
! cmp -s "$tmp/out" omp1/out.tsv && [ "$(cut -f1-10 "$tmp/out")" = "$(cut -f1-10 omp1/out.tsv)" ]
ok $? "another seed: same rows, other accuracies"
run uci-classify --dataset car --method exact --gamma 1 --seeds 1 --scaling none
[ "$rc" -eq 0 ] && [ "$(col "$tmp/out" n_train)" = 1555 ]
ok $? "--scaling none runs"

# ---------------------------------------------------------------------------
# --projection lists and --ratio (issue 19: the SimRF paper's experiment)

PJ="--dataset banknote,wifi --seeds 2 --gamma 0.5,2"
run uci-classify $PJ --method exact,pos,pois --projection iid,ort,simplex,simplex+,ort-anti -o proj.h5
cp "$tmp/out" proj.tsv
is "$rc" 0 "--projection with five kinds: exits 0"
is "$(awk -F'\t' 'NR > 1 && $1 == "banknote" { printf "%s:%s ", $2, $3 }' proj.tsv)" \
	"exact:none pos:iid pos:ort pos:simplex pos:simplex+ pos:ort-anti pois:discrete " \
	"rows: each estimator on the kinds in the order given, one row for exact and discrete"
"$RFX" dump --attrs proj.h5 > pattrs.txt 2> /dev/null
grep -q '^options/projection	iid,ort,simplex,simplex+,ort-anti$' pattrs.txt
ok $? "attribute projection: the list as given" || diag_file pattrs.txt
run uci-classify $PJ --method exact,pos,pois --projection iid,ort
cp "$tmp/out" iidort.tsv
run uci-classify $PJ --method exact,pos,pois --projection both
cmp -s "$tmp/out" iidort.tsv
ok $? "--projection both is iid,ort"
# A method's draws are keyed by its own names: listing other kinds beside
# it does not change its rows.
run uci-classify $PJ --method pos --projection simplex+,ort
awk -F'\t' 'NR == FNR { if (FNR > 1) want[$1 ":" $3] = $0; next }
	FNR > 1 { n++; if (want[$1 ":" $3] != $0) bad = 1 } END { exit bad || n != 4 }' proj.tsv "$tmp/out"
ok $? "a kind's rows do not depend on the other kinds listed, nor on their order"
awk -F'\t' 'NR > 1 && $2 == "pos" { if ($9 != 128 || $10 != 2) bad = 1 } END { exit bad }' proj.tsv
ok $? "every kind at the budget: M = 128, 2 seeds"

# --ratio: M = r d; exact once per dataset (it has no features).
run uci-classify $PJ --method exact,trig,pos --projection ort,simplex --ratio 1,3 -o ratio.h5
cp "$tmp/out" ratio.tsv
is "$rc" 0 "--ratio 1,3: exits 0"
is "$(tail -n +2 ratio.tsv | cut -f1-3,9 | tr '\t\n' ': ')" \
	"banknote:exact:none:0 banknote:trig:ort:2 banknote:trig:simplex:2 banknote:pos:ort:4 banknote:pos:simplex:4 banknote:trig:ort:6 banknote:trig:simplex:6 banknote:pos:ort:12 banknote:pos:simplex:12 wifi:exact:none:0 wifi:trig:ort:3 wifi:trig:simplex:3 wifi:pos:ort:7 wifi:pos:simplex:7 wifi:trig:ort:10 wifi:trig:simplex:10 wifi:pos:ort:21 wifi:pos:simplex:21 " \
	"--ratio: per dataset, exact then a pass per r with r d real (r d / 2 complex) features (d = 4, 7)"
"$RFX" dump ratio.h5 uci_gamma > rg.tsv 2> /dev/null
is "$(rows rg.tsv)" 36 \
	"uci_gamma: (1 + 2 x 4) methods x 2 gammas x 2 datasets"
"$RFX" dump --attrs ratio.h5 > rattrs.txt 2> /dev/null
grep -q '^options/ratio	1,3$' rattrs.txt
ok $? "attributes: ratio as given" || diag_file rattrs.txt
run uci-classify --dataset banknote --seeds 2 --gamma 0.5,2 --method pos --projection ort --budget 12
awk -F'\t' 'NR == FNR { if ($2 == "pos" && $3 == "ort" && $9 == 12 && $1 == "banknote") want = $0; next }
	FNR > 1 { got = $0 } END { exit want == "" || got != want }' ratio.tsv "$tmp/out"
ok $? "--ratio 3 on banknote (d = 4) is --budget 12"

# Many features approach exact kernel regression (Algorithm 1 converges to
# eq. 2.1 as M grows): at gamma 0.2 and M = 1024 d, every kind's test
# accuracy within 3 points of exact's (69 and 100 test rows; rows near a
# tie may flip).
run uci-classify --dataset banknote,wifi --seeds 1 --gamma 0.2 --method exact,pos \
	--projection iid,ort,simplex,simplex+,ort-anti --ratio 1024
awk -F'\t' 'NR > 1 && $2 == "exact" { ex[$1] = $13 }
	NR > 1 && $2 == "pos" { n++; d = $13 - ex[$1]; if (d < -3 || d > 3) bad = 1 }
	END { exit bad || n != 10 }' "$tmp/out"
ok $? "M = 1024 d: every projection kind within 3 points of exact kernel regression" ||
	diag_file "$tmp/out"

fails 2 "unknown projection" uci-classify --projection sobl $PJ
grep -q "did you mean 'sobol'? (valid: iid, ort, .*, simplex, simplex+, ort-anti, both)" "$tmp/err"
ok $? "unknown projection: the registry's message with its hint, and both" || diag_file "$tmp/err"
fails 2 "a kind listed twice (both and ort)" uci-classify --projection both,ort $PJ
fails 2 "an empty projection item" uci-classify --projection ort, $PJ
awk 'BEGIN { for (i = 0; i < 60; i++) { for (j = 0; j < 41; j++) printf "%.3f,", ((i * 41 + j) * 0.618) % 1; print i % 2 } }' > wide41.csv
fails 2 "sobol on a 41-column dataset" uci-classify --dataset wide41.csv --label-column 42 \
	--method pos --projection sobol --seeds 1 --gamma 1 -o out.h5
grep -q "'wide41.csv': sobol projections exist for d <= 40" "$tmp/err"
ok $? "sobol past d = 40: the message names the dataset" || diag_file "$tmp/err"
fails 2 "--ratio with --budget" uci-classify --ratio 2 --budget 64 $PJ -o out.h5
fails 2 "--ratio 0" uci-classify --ratio 0 $PJ -o out.h5
fails 2 "--ratio 1.5" uci-classify --ratio 1.5 $PJ -o out.h5

# ---------------------------------------------------------------------------
# Data files

mkdir baddata
fails 1 "a data directory without the file" \
	uci-classify --dataset wifi --data baddata --seeds 1 -o out.h5
grep -q "baddata/wifi_localization.txt" "$tmp/err"
ok $? "missing file: the message names it" || diag_file "$tmp/err"
head -n 5 "$RFX_TOP/data/wifi_localization.txt" > baddata/wifi_localization.txt
printf -- '-60\t-55\t-61\t-66\tx\t-80\t-81\t1\n' >> baddata/wifi_localization.txt
fails 1 "a malformed data file" uci-classify --dataset wifi --data baddata --seeds 1 -o out.h5
grep -q "wifi_localization.txt' line 6, column 5: bad number 'x'" "$tmp/err"
ok $? "malformed file: file, line and column in the message" || diag_file "$tmp/err"
head -n 30 "$RFX_TOP/data/wifi_localization.txt" > baddata/wifi_localization.txt
RFX_DATA=$tmp/baddata "$RFX" uci-classify --dataset wifi --method exact --seeds 1 --gamma 1 > envdata.tsv 2> /dev/null
[ "$(col envdata.tsv n_train)" = 27 ]
ok $? "\$RFX_DATA chooses the data directory (30 rows: 27 for training)"
printf '1\t2\t3\t4\t5\t6\t7\t1\n' > baddata/wifi_localization.txt
fails 1 "a dataset too small to split" uci-classify --dataset wifi --data baddata --seeds 1 -o out.h5

# ---------------------------------------------------------------------------
# Bad options: one line, exit 2, no file.

E="--dataset banknote --seeds 1 --gamma 1 -o out.h5"
fails 2 "unknown dataset" uci-classify --dataset iris --seeds 1 -o out.h5
grep -q "valid: abalone, banknote, car, yeast, cmc, nursery, wifi, chess, all" "$tmp/err"
ok $? "unknown dataset: the message lists the valid ones" || diag_file "$tmp/err"
fails 2 "dataset listed twice" uci-classify --dataset car,car --seeds 1 -o out.h5
fails 2 "empty dataset name" uci-classify --dataset car, --seeds 1 -o out.h5
fails 2 "unknown method" uci-classify --method foo $E
grep -q "valid: exact, trig" "$tmp/err"
ok $? "unknown method: the message lists exact and the estimators" || diag_file "$tmp/err"
fails 2 "method listed twice" uci-classify --method exact,trig,exact $E
fails 2 "empty method list" uci-classify --method '' $E
fails 2 "--seeds 0" uci-classify --dataset banknote --seeds 0 -o out.h5
fails 2 "--seeds abc" uci-classify --dataset banknote --seeds abc -o out.h5
fails 2 "--gamma 0" uci-classify --dataset banknote --seeds 1 --gamma 0 -o out.h5
fails 2 "--gamma -1" uci-classify --dataset banknote --seeds 1 --gamma 1,-1 -o out.h5
fails 2 "--gamma with an empty item" uci-classify --dataset banknote --seeds 1 --gamma 1, -o out.h5
fails 2 "--budget 0" uci-classify --budget 0 $E
run uci-classify --budget 8 --method trig,hyb,pos --dataset banknote --seeds 1 --gamma 1 --projection iid
is "$(col "$tmp/out" M | tr '\n' ' ')" "4 4 8 " "--budget 8: 4 complex features (HybRF M1 = M2 = M3 = 1), 8 real"
fails 2 "unknown encoding" uci-classify --encoding binary $E
fails 2 "unknown scaling" uci-classify --scaling minmax $E
fails 2 "--threads -1" uci-classify --threads -1 $E
fails 2 "unknown option" uci-classify --bogus $E
fails 2 "-o without a name" uci-classify --dataset banknote --seeds 1 -o ''
fails 1 "-o in a nonexistent directory" uci-classify $E -o nodir/out.h5
[ ! -e nodir ]
ok $? "-o in a nonexistent directory: creates nothing"

# ---------------------------------------------------------------------------
# SIGINT once the temporary file exists: exit 130, no output file.

rm -f out.h5
interrupt INT 1 uci-classify --dataset chess --method pois -o out.h5
interrupted INT 130 "SIGINT during a run: exit 130, 'rfx: interrupted'"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"

# ---------------------------------------------------------------------------
# Help

run uci-classify --help
cp "$tmp/out" help.txt
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && head -n 1 help.txt | grep -q '^usage: rfx uci-classify '
ok $? "uci-classify --help: usage on stdout, exit 0"
sed -n 's/^  \(-., \)\{0,1\} *--\([A-Za-z-]*\).*/\2/p' help.txt | sort > got
cat > want_defaults <<'EOF'
dataset	(default all)
method	(default all)
projection	(default both)
seeds	(default 50)
gamma	(default 10 log-uniform values 1e-2 .. 1e2)
budget	(default 128)
ratio	(default none)
encoding	(default ordinal)
scaling	(default standard)
seed	(default 20221121)
threads	(default: all cores)
data	(default: $RFX_DATA, else data/ next to rfx)
labels	(default none)
label-column	(default none)
header	(default: detected)
EOF
printf '%s\n' output help > no_default
{ cut -f1 want_defaults; cat no_default; } | sort > want
cmp -s want got
ok $? "uci-classify --help lists exactly the options this test knows" ||
	diff want got | diag_file /dev/stdin
while IFS='	' read -r name dflt; do
	grep -- "--$name " help.txt | grep -qF -- "$dflt" || echo "--$name: no '$dflt'"
done < want_defaults > missing
[ ! -s missing ]
ok $? "uci-classify --help states every default" || diag_file missing
run help uci-classify
cmp -s "$tmp/out" help.txt
ok $? "rfx help uci-classify prints the same as rfx uci-classify --help"
run --help
grep -q '^  uci-classify ' "$tmp/out"
ok $? "rfx --help lists uci-classify"

done_testing

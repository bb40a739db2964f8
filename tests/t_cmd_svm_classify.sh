#!/bin/sh
#
# Tests of 'rfx svm-classify' through the command line (ORF Table 2): a
# small run on subsets of letter gives the documented table, the same
# bytes on 1 and 2 threads, the same table in the -o file, accuracies
# above chance; bad inputs give one line on stderr, a non-zero exit and
# no output file, and so does SIGINT. Prints TAP.
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
RFX_DATA=$RFX_TOP/data
export RFX_DATA

HEADER=$(printf 'dataset\td\tratio\tD\tmethod\tprojection\tsigma\tC\tn_train\tn_test\tseeds\tacc_pct\tacc_pct_sd\tunconverged\tmax_epochs')
SMALL="--dataset letter --ratio 1,2 --seeds 2 --n-train 600 --n-test 300 --nn-sample 200"

run svm-classify $SMALL --threads 1
cp "$tmp/out" t1.tsv
is "$rc" 0 "small run exits 0"
is "$(head -n 1 t1.tsv)" "$HEADER" "documented header"
is "$(cat "$tmp/err")" "rfx: seed 20221121, rng xoshiro256**" "seed on stderr"
is "$(awk -F'\t' 'NR > 1 {printf "%s %s %s %s;", $3, $4, $5, $6}' t1.tsv)" \
	"1 16 RFF iid;1 16 ORF ort;1 16 SORF sorf;2 32 RFF iid;2 32 ORF ort;2 32 SORF sorf;" \
	"rows: D = ratio x d (d = 16) for RFF, ORF and SORF"
is "$(col t1.tsv n_train | sort -u) $(col t1.tsv n_test | sort -u)" "600 300" \
	"--n-train, --n-test cap the split"
finite t1.tsv 7 15
ok $? "every number finite"
# 26 letters, so chance is about 4%; 600 training rows and 16 projections
# already separate far more than that (a loose floor, not a fitted value).
awk -F'\t' 'NR > 1 && !($12 > 25 && $12 <= 100) {exit 1}' t1.tsv
ok $? "accuracies well above chance (26 classes: ~4%)"

run svm-classify $SMALL --threads 2
cmp -s "$tmp/out" t1.tsv
ok $? "the same bytes on 2 threads"
run svm-classify $SMALL --threads 2 --seed 7
cmp -s "$tmp/out" t1.tsv
[ $? -ne 0 ]
ok $? "another --seed gives other draws"

rm -f out.h5
run svm-classify $SMALL -o out.h5
"$RFX" dump out.h5 svm_classify > dumped.tsv 2> /dev/null
cmp -s dumped.tsv t1.tsv
ok $? "-o: the HDF5 table dumps to the TSV printed"
"$RFX" dump out.h5 --attrs 2> /dev/null | grep -q '^command	.*svm-classify --dataset letter'
ok $? "-o: the file records the command line"

rm -f out.h5
run svm-classify $SMALL --ratio 1 --cost 0.5,8 -o out.h5
"$RFX" dump out.h5 svm_cost > cost.tsv 2> /dev/null
is "$(col cost.tsv C | tr '\n' ' ')" "0.5 8 " "--cost LIST: one validation row per C"
is "$(awk -F'\t' 'NR > 1 && $7 == 1 {print $3}' cost.tsv)" "$(col "$tmp/out" C | sort -u)" \
	"--cost LIST: the run uses the C the validation chose"
is "$(awk -F'\t' 'NR > 1 {print $4, $5; exit}' cost.tsv)" "480 120" \
	"--cost LIST: validation on the last 20% of the 600 training rows"

fails 2 "a negative --cost in a list" svm-classify --cost 1,-1 -o out.h5
fails 2 "unknown dataset" svm-classify --dataset forest -o out.h5
fails 2 "unknown method" svm-classify --method QMC -o out.h5
fails 2 "D/d = 0" svm-classify --ratio 0 -o out.h5
fails 2 "D/d < 0" svm-classify --ratio -2 -o out.h5
fails 2 "D/d not an integer" svm-classify --ratio 1.5 -o out.h5
fails 2 "--cost 0" svm-classify --cost 0 -o out.h5
fails 2 "--seeds 0" svm-classify --seeds 0 -o out.h5
fails 2 "a dataset listed twice" svm-classify --dataset letter,letter -o out.h5
fails 2 "an unknown option" svm-classify --gamma 1 -o out.h5
fails 1 "a missing data directory" svm-classify $SMALL --data "$tmp/nowhere" -o out.h5
fails 1 "a cell over --max-mem" svm-classify $SMALL --ratio 2 --max-mem 1 --n-train 0 -o out.h5
fails 1 "an output directory that does not exist" svm-classify $SMALL -o nodir/out.h5
mkdir ro && chmod a-w ro
if [ -w ro ]; then
	skip "running as root: a read-only directory is writable"
else
	fails 1 "an unwritable -o" svm-classify $SMALL -o ro/out.h5
	[ -z "$(ls ro)" ]
	ok $? "an unwritable -o leaves nothing in the directory"
fi

# Ctrl-C: the run stops after the draw in progress, exits 130 and leaves
# no file (each draw of this run takes a fraction of a second).
rm -f out.h5
interrupt INT 1 svm-classify --dataset letter --ratio 4 --seeds 10000 --n-train 2000 \
	--n-test 100 --nn-sample 200 -o out.h5
interrupted INT 130 "SIGINT: exit 130"
no_output
ok $? "SIGINT: neither out.h5 nor out.h5.tmp.* remains"

done_testing

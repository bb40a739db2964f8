#!/bin/sh
#
# The user's own data in the subcommands other than variance (issue 16;
# variance's file mode is tests/t_cmd_variance_files.sh): mse-table
# --dataset FILE, uci-classify and svm-classify --dataset FILE with
# --labels FILE or --label-column N, optis --x-file [--y-file]. Each is
# checked against an independent fact: the shipped wine rows cut from
# data/wine.csv give the shipped set's bandwidth; a label column and a
# labels file (numbers or names in the same order) give the same bytes;
# the optimal importance sampling floor of a 4-row file against the
# closed form computed here in awk; the input file's SHA-256 against
# sha256sum. Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

unset RFX_DATA
DATA=$RFX_TOP/data

# ---------------------------------------------------------------------------
# mse-table --dataset FILE

cut -d, -f1-13 "$DATA/wine.csv" > wine13.csv
run mse-table --dataset wine --method trig --kernel gauss --pairs 20 --reps 2
cp "$tmp/out" shipped.tsv
run mse-table --dataset wine13.csv --method trig --kernel gauss --pairs 20 --reps 2 -o m.h5
is "$rc" 0 "mse-table --dataset FILE: exits 0"
is "$(cut -f1 "$tmp/out" | tail -n 1)" "wine13.csv" "the dataset column names the file"
is "$(cut -f6,13 "$tmp/out" | tail -n 1)" "$(cut -f6,13 shipped.tsv | tail -n 1)" \
	"the shipped wine rows as a file: the same d and nn bandwidth as --dataset wine"
"$RFX" dump --attrs m.h5 > attrs.txt 2> /dev/null
is "$(sed -n 's/^input_0_sha256\t//p' attrs.txt)" "$(sha256sum wine13.csv | cut -d' ' -f1)" \
	"-o records the file's SHA-256"
tr ',' '\t' < wine13.csv > wine13.tsv
run mse-table --dataset wine13.tsv --method trig --kernel gauss --pairs 20 --reps 2
sed 's/^wine13.tsv/wine13.csv/' "$tmp/out" > tsv.out
run mse-table --dataset wine13.csv --method trig --kernel gauss --pairs 20 --reps 2
cmp -s tsv.out "$tmp/out"
ok $? "the same rows as TSV give the same table"
run mse-table --dataset wine13.csv --method trig --kernel softmax --sigma attention --pairs 20 --reps 2
awk -F'\t' 'NR == 2 { s = 13 ^ 0.25; exit !($13 - s < 1e-12 && s - $13 < 1e-12) }' "$tmp/out"
ok $? "--sigma attention: sigma = d^(1/4), so x.y / sigma^2 = x.y / sqrt(d)"

# ---------------------------------------------------------------------------
# uci-classify and svm-classify: labels as a column or a file

awk 'BEGIN { srand(5); print "a,b,label,c"; split("setosa versicolor virginica", nm, " ")
	for (i = 0; i < 90; i++) { c = i % 3
		printf "%.6f,%.6f,%s,%.6f\n", c + rand(), rand() - c, nm[c + 1], rand() }
	}' > col.csv
mkdir a b
cut -d, -f1,2,4 col.csv > a/iris.csv
cut -d, -f3 col.csv | tail -n +2 > a/names.txt
cut -d, -f3 col.csv | tail -n +2 | sed 's/setosa/0/; s/versicolor/1/; s/virginica/2/' > a/codes.txt
cp col.csv b/iris.csv
U="--seeds 2 --method exact,pos --projection iid --gamma 0.5,2"
run uci-classify --dataset b/iris.csv --label-column 3 $U
cp "$tmp/out" col.tsv
is "$rc" 0 "uci-classify --dataset FILE --label-column 3: exits 0"
awk -F'\t' 'NR == 2 { exit !($1 == "iris.csv" && $4 == 3 && $5 == 3 && $6 == 81) }' col.tsv
ok $? "... d = 3 once the label column is out, 3 classes, 90/5/5 of 90 rows"
run uci-classify --dataset a/iris.csv --labels a/names.txt $U
cmp -s "$tmp/out" col.tsv
ok $? "--labels FILE of names gives the label column's bytes"
run uci-classify --dataset a/iris.csv --labels a/codes.txt $U
cmp -s "$tmp/out" col.tsv
ok $? "--labels FILE of numbers in the same order gives the same bytes"
S="--ratio 1 --seeds 1 --nn-k 3 --nn-sample 30 --method RFF"
run svm-classify --dataset b/iris.csv --label-column 3 $S
cp "$tmp/out" svm.tsv
awk -F'\t' 'NR == 2 { exit !($1 == "iris.csv" && $2 == 4 && $9 == 72 && $10 == 18) }' svm.tsv
ok $? "svm-classify --dataset FILE: padded d = 4, 80/20 of 90 rows"
run svm-classify --dataset a/iris.csv --labels a/codes.txt $S
cmp -s "$tmp/out" svm.tsv
ok $? "svm-classify: --labels FILE gives the label column's bytes"
head -n 40 a/codes.txt > a/short.txt
run uci-classify --dataset a/iris.csv --labels a/short.txt $U
is "$rc" 1 "labels of another length: exit 1"
grep -q "'a/short.txt' has 40 labels but 'a/iris.csv' has 90 rows" "$tmp/err"
ok $? "... naming both files and both counts"
run uci-classify --dataset a/iris.csv $U
is "$rc" 2 "a --dataset FILE without labels: exit 2"
sed 's/[0-9]/0/' a/codes.txt > a/one.txt
run svm-classify --dataset a/iris.csv --labels a/one.txt $S
grep -q "one class only" "$tmp/err" && [ "$rc" -eq 1 ]
ok $? "one class only: exit 1, said so"

# ---------------------------------------------------------------------------
# optis --x-file: V* = E k(x,x) E k(y,y) - E k(x,y)^2 = 1 - mean exp(-|x - x'|^2)
# for the Gaussian kernel and one distribution (Corollary 2)

printf '0.1 0.2\n-0.3 0.4\n0.5 -0.6\n0 0.25\n' > four.txt
run optis --x-file four.txt
is "$rc" 0 "optis --x-file: exits 0"
awk 'NR == FNR { x[NR] = $1; y[NR] = $2; n = NR; next }
	FNR == 2 { s = 0; for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
		s += exp(-((x[i] - x[j]) ^ 2 + (y[i] - y[j]) ^ 2))
		want = log(1 - s / (n * n)); got = $9
		exit !($1 == "file" && $6 == 4 && $7 == 1 && got - want < 1e-12 && want - got < 1e-12) }' \
	four.txt FS='\t' "$tmp/out"
ok $? "optis --x-file: log V* of the Gaussian kernel equals 1 - mean exp(-|x - x'|^2) worked out in awk"
printf '1 1\n-1 0.5\n' > two.txt
run optis --x-file four.txt --y-file two.txt --kernel softmax
awk -F'\t' 'NR > 1 && ($7 != 0 || $3 != "softmax" || $6 != 4) { bad = 1 } END { exit bad || NR != 5 }' "$tmp/out"
ok $? "optis --x-file --y-file: two distributions (same 0), softmax, four methods"
run optis --x-file four.txt --d 3
is "$rc" 2 "optis: --d with --x-file is a usage error"

done_testing

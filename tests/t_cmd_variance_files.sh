#!/bin/sh
#
# Tests of 'rfx variance --x-file X --y-file Y' (issue 16) through the
# command line: the set study and its ranking on stdout and in the HDF5
# file, the input files' path, size and SHA-256 in the file's attributes
# (against coreutils' sha256sum and wc), the same rows in CSV, TSV,
# blank-separated text and HDF5 giving the same output byte for byte, Y
# defaulting to X, pair mode from one-row files (against --x/--y), the
# softmax kernel and the attention scale. The bad files are in
# tests/t_cmd_catalogue.sh. Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# 30 x's and 20 y's in d = 16, from awk's generator with a fixed seed,
# printed with %.17g so that every format holds the same doubles.
awk 'BEGIN { srand(7); for (i = 0; i < 30; i++) { for (j = 0; j < 16; j++)
	printf "%s%.17g", j ? "," : "", (rand() - 0.5) * 0.6; printf "\n" } }' > x.body
awk 'BEGIN { srand(11); for (i = 0; i < 20; i++) { for (j = 0; j < 16; j++)
	printf "%s%.17g", j ? "," : "", (rand() - 0.3) * 0.5; printf "\n" } }' > y.csv
{ echo "f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,f13,f14,f15,f16"; cat x.body; } > x.csv
tr ',' '\t' < x.body > x.tsv
sed 's/,/   /g; s/$/ /' x.body > x.txt

M=trig,pos,oprf,gerf
run variance --x-file x.csv --y-file y.csv --method $M --mc 0 -o v.h5
is "$rc" 0 "sets: exits 0"
is "$(head -n 1 "$tmp/out")" "$(printf 'method\tregime\tgamma\td\tM\tn_pairs\tn_zero\tlogvar_mean\tlogvar_std\tlogvar_min\tlogvar_max')" \
	"sets: the Fig 6.4 columns"
cp "$tmp/out" sets.tsv
awk -F'\t' 'NR > 1 && NR <= 5 && ($2 != "file" || $3 != 1 || $4 != 16 || $6 != 600) { bad = 1 }
	END { exit bad }' sets.tsv
ok $? "sets: regime 'file', gamma 1 by default, d from the file, 30 x 20 = 600 pairs"
sed -n '/^# ranking$/,$p' sets.tsv | tail -n +2 > rank.tsv
is "$(head -n 1 rank.tsv)" "$(printf 'regime\tgamma\trank\tmethod\tM\tlogvar_mean\tgap\tpositive')" \
	"ranking: after the table, its own header"
awk -F'\t' 'NR > 1 { if ($3 != NR - 1 || (NR > 2 && $6 < prev) || (NR == 2 && $7 != 0)) bad = 1; prev = $6 }
	END { exit bad || NR != 5 }' rank.tsv
ok $? "ranking: 4 methods by ascending mean log variance, the best's gap 0"
awk -F'\t' 'NR > 1 && (($4 == "pos" || $4 == "oprf") != ($8 == 1)) { bad = 1 } END { exit bad }' rank.tsv
ok $? "ranking: positive exactly for pos and oprf"
"$RFX" dump v.h5 ranking > dumped.tsv 2> /dev/null
cmp -s dumped.tsv rank.tsv
ok $? "ranking: the HDF5 file's table 'ranking' is the stdout one"

# provenance of the inputs, checked with other tools
"$RFX" dump --attrs v.h5 > attrs.txt 2> /dev/null || "$RFX" dump -a v.h5 > attrs.txt 2> /dev/null
want_sha=$(sha256sum x.csv | cut -d' ' -f1)
is "$(sed -n 's/^input_0_sha256\t//p' attrs.txt)" "$want_sha" "input_0_sha256 is sha256sum's"
is "$(sed -n 's/^input_0_size\t//p' attrs.txt)" "$(wc -c < x.csv | tr -d ' ')" "input_0_size is the file's size"
is "$(sed -n 's/^input_0_path\t//p' attrs.txt)" "x.csv" "input_0_path is the path given"
is "$(sed -n 's/^input_1_sha256\t//p' attrs.txt)" "$(sha256sum y.csv | cut -d' ' -f1)" \
	"input_1_sha256 is the y file's"

# the same rows in every format: the same bytes out
fail=
for f in x.tsv x.txt; do
	run variance --x-file "$f" --y-file y.csv --method $M --mc 0
	cmp -s "$tmp/out" sets.tsv || fail="$fail $f"
done
[ -z "$fail" ]
ok $? "TSV and blank-separated text give the CSV's output byte for byte${fail:+ (not:$fail)}"
# HDF5: the sets as datasets of a file rfx cannot have written itself is
# made by h5py when present; otherwise the round trip is in t_varexp_sets.
# Debian's python3 (tools/debian-packages), not whatever python3 is first on PATH
PY=/usr/bin/python3
if $PY -c 'import h5py, numpy' 2> /dev/null; then
	$PY - <<'EOF'
import h5py, numpy
x = numpy.loadtxt('x.body', delimiter=',')
y = numpy.loadtxt('y.csv', delimiter=',')
with h5py.File('sets.h5', 'w') as f:
    f['/g/x'] = x
    f['/y'] = y.astype('<f8')
    # h5py's own LZF filter, which Debian's HDF5 library does not have; of
    # data it can shrink (a chunk it cannot is stored as it is, readable)
    f.create_dataset('/lzf', data=numpy.ones((64, 16)), compression='lzf')
numpy.save('x.npy', x)
numpy.save('y_fortran.npy', numpy.asfortranarray(y.astype('>f8')))
EOF
	run variance --x-file sets.h5:/g/x --y-file sets.h5:/y --method $M --mc 0
	cmp -s "$tmp/out" sets.tsv
	ok $? "HDF5 datasets (h5py) give the CSV's output byte for byte"
	run variance --x-file x.npy --y-file y_fortran.npy --method $M --mc 0
	cmp -s "$tmp/out" sets.tsv
	ok $? ".npy files (numpy, one big-endian Fortran-order) give the same bytes"
	fails 1 "a dataset compressed with a filter HDF5 lacks (h5py's lzf)" \
		variance --x-file sets.h5:/lzf --method $M --mc 0 -o out.h5
	grep -q "'sets.h5:/lzf' is compressed with HDF5 filter 32000 (lzf), which this HDF5 library lacks" "$tmp/err"
	ok $? "... naming the filter" || diag_file "$tmp/err"
else
	skip "h5py and numpy not installed (the formats' round trips are in t_varexp_sets)"
	skip "numpy not installed"
	skip "h5py not installed"
	skip "h5py not installed"
fi

# Y defaults to X
run variance --x-file x.csv --method $M --mc 0
cp "$tmp/out" xx.tsv
run variance --x-file x.csv --y-file x.tsv --method $M --mc 0
cmp -s "$tmp/out" xx.tsv
ok $? "without --y-file the y's are the x's"
awk -F'\t' '/^$/ { done = 1 } !done && NR > 1 && $6 + $7 != 900 { bad = 1 } NR == 2 && $7 != 30 { bad = 1 } END { exit bad }' xx.tsv
ok $? "... all 30 x 30 pairs, trig's 30 with x = y of variance exactly 0"

# --pairs: sampled pairs, reproducible, other thread counts the same
run variance --x-file x.csv --y-file y.csv --method $M --mc 0 --pairs 5000 --threads 1
cp "$tmp/out" p1.tsv
run variance --x-file x.csv --y-file y.csv --method $M --mc 0 --pairs 5000 --threads 2
cmp -s "$tmp/out" p1.tsv && awk -F'\t' 'NR == 2 { exit !($6 == 5000) }' p1.tsv
ok $? "--pairs 5000: 5000 pairs, the same bytes for 1 and 2 threads"

# gamma list: one block of rows per gamma, each ranked
run variance --x-file x.csv --y-file y.csv --method $M --mc 0 --gamma 0.5,2
awk -F'\t' '/^# ranking/ { r = 1; next } r && $3 == 1 { n++ } END { exit n != 2 }' "$tmp/out"
ok $? "--gamma 0.5,2: a ranking per gamma"

# Monte Carlo on by default, on sampled pairs
run variance --x-file x.csv --y-file y.csv --method pos --mc 400 --mc-pairs 6
awk -F'\t' 'NR == 2 { z = ($16 - $15) / $18; exit !($14 == 6 && z < 3 && z > -3) }' "$tmp/out"
ok $? "--mc 400 --mc-pairs 6: Monte Carlo agrees with the closed form on 6 pairs"

# pair mode from one-row files equals --x/--y
head -n 2 x.csv > x1.csv
head -n 1 y.csv > y1.csv
x1=$(sed -n 2p x.csv)
y1=$(sed -n 1p y.csv)
run variance --x "$x1" --y "$y1" --method $M
cp "$tmp/out" pair.tsv
run variance --x-file x1.csv --y-file y1.csv --method $M --mc 0
cmp -s "$tmp/out" pair.tsv
ok $? "one-row files are pair mode, the same as --x/--y"

# softmax: log_kernel is x.y and log Var gains |x|^2 + |y|^2
run variance --x-file x1.csv --y-file y1.csv --method pos --mc 0 --kernel softmax
awk -F'\t' -v x="$x1" -v y="$y1" 'NR == 1 { next }
	NR == 2 { n = split(x, a, ","); split(y, b, ","); dot = 0; nn = 0
		for (i = 1; i <= n; i++) { dot += a[i] * b[i]; nn += a[i] * a[i] + b[i] * b[i] }
		kernel = $5; lv = $7 }
	END { while ((getline line < "pair.tsv") > 0) if (line ~ /^pos\t/) { split(line, g, "\t"); glv = g[7] }
		d1 = kernel - dot; d2 = lv - glv - nn
		exit !(d1 < 1e-12 && d1 > -1e-12 && d2 < 1e-12 && d2 > -1e-12) }' "$tmp/out"
ok $? "--kernel softmax: log_kernel = x.y, log Var = the Gaussian's + |x|^2 + |y|^2"

# --attention-scale on d = 16 multiplies by 16^(-1/4) = 1/2 exactly
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = sprintf("%.17g", $i / 2); print }' x.body > xh.csv
awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) $i = sprintf("%.17g", $i / 2); print }' y.csv > yh.csv
run variance --x-file xh.csv --y-file yh.csv --method $M --mc 0 --kernel softmax
cp "$tmp/out" half.tsv
run variance --x-file x.csv --y-file y.csv --method $M --mc 0 --kernel softmax --attention-scale
cmp -s "$tmp/out" half.tsv
ok $? "--attention-scale in d = 16 is the sets halved"

# --header forces a numeric first line out
{ echo "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"; cat x.body; } > xn.csv
{ echo "16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1"; cat y.csv; } > yn.csv
run variance --x-file xn.csv --y-file yn.csv --method $M --mc 0 --header
cmp -s "$tmp/out" sets.tsv
ok $? "--header skips a numeric first line in each file"

# centres that nearly cancel: cexp's fitted a would take |a x| past 1e145
# and its features to NaN (README, "Numerics and valid ranges")
printf '1e30 1\n-1e30 1\n1e-300 1\n' > cancel.txt
printf '1 1\n1 1\n1 1\n' > ones.txt
fails 2 "cexp-c: a fitted a beyond the reach of a given one is refused" \
	variance --x-file cancel.txt --y-file ones.txt --method cexp-c -o out.h5
grep -q 'cannot fit a' "$tmp/err"
ok $? "... naming the fit"

done_testing

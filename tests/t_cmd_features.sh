#!/bin/sh
#
# rfx features: the feature matrix of a file's rows through the public
# library. Checked against values derived here, not against rfx itself:
# TrigRF's rows have squared norm 1 (cos^2 + sin^2 over M features of
# 1/sqrt(M)); the TSV and the .npy hold the same numbers; the same seed
# gives the same bytes and another seed others; float32 is the double
# rounded once; side 2 of TrigRF is side 1 (real form) and the hybrids'
# sides differ; fixed parameters are taken; every bad input is one line
# on stderr, a usage exit 2 (or 1 for a bad file) and no output file;
# --log-scale keeps PosRF's features where the plain ones underflow, and
# is the plain map where they do not.
# Python's byte equality with this command is in tests/python/test_api.py.
# Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# 7 rows in R^3, as CSV (one input per row)
cat > x.csv << 'END'
0.3,-0.2,0.5
0.1,0.4,-0.25
-0.6,0.2,0.1
0.35,-0.1,0.45
0.05,0.05,0.05
-0.2,-0.3,0.15
0.25,0.1,-0.4
END

"$RFX" features --x-file x.csv --method trig --features 8 --projection ort --seed 3 > t.tsv 2> t.err
ok $? "trig on ort: exit 0" || diag_file t.err
awk -F '\t' '{ s = 0; for (j = 1; j <= NF; j++) s += $j * $j
	if (NF != 16 || (s - 1) > 1e-14 || (1 - s) > 1e-14) bad++ }
	END { exit !(NR == 7 && !bad) }' t.tsv
ok $? "7 rows of 16 real columns, each of squared norm 1" || diag_file t.tsv
grep -q "trig, 8 features, 7 x 16 matrix, parameters -" t.err
ok $? "stderr names the matrix and the parameters" || diag_file t.err

"$RFX" features --x-file x.csv --method trig --features 8 --projection ort --seed 3 -o t.npy 2> /dev/null
ok $? "-o t.npy"
# the .npy's body as the TSV's numbers (format version 1.0, '<f8', 7 x 16)
od -An -v -t f8 -j 128 -w8 t.npy | awk '{ printf "%.17g\n", $1 }' > npy.txt
tr '\t' '\n' < t.tsv | awk '{ printf "%.17g\n", $1 }' > tsv.txt
head -c 128 t.npy | grep -q "'descr': '<f8', 'fortran_order': False, 'shape': (7, 16)" &&
	[ "$(wc -c < t.npy)" -eq $((128 + 7 * 16 * 8)) ] && cmp -s npy.txt tsv.txt
ok $? ".npy: header '<f8' (7, 16), the TSV's numbers" || diag_file npy.txt
ls t.npy.tmp.* > /dev/null 2>&1
ok $((!$?)) "no temporary left"

"$RFX" features --x-file x.csv --method trig --features 8 --projection ort --seed 3 --side 2 > t2.tsv 2> /dev/null
cmp -s t.tsv t2.tsv
ok $? "trig: side 2 is side 1 in real form"
"$RFX" features --x-file x.csv --method hyb --features 8 --seed 3 > h1.tsv 2> /dev/null &&
	"$RFX" features --x-file x.csv --method hyb --features 8 --seed 3 --side 2 > h2.tsv 2> /dev/null &&
	! cmp -s h1.tsv h2.tsv
ok $? "hyb: the two sides differ"

"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 9 > a.tsv 2> /dev/null &&
	"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 9 > b.tsv 2> /dev/null &&
	"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 10 > c.tsv 2> /dev/null &&
	cmp -s a.tsv b.tsv && ! cmp -s a.tsv c.tsv
ok $? "the same seed, the same bytes; another seed, other features"
"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 9 --float32 > f.tsv 2> /dev/null
# each float32 value within half an ulp of float (2^-24 relative) of the double
paste a.tsv f.tsv | awk -F '\t' '{ n = NF / 2; for (j = 1; j <= n; j++) {
	a = $j; f = $(j + n); r = (f - a) / a; if (r < 0) r = -r
	if (r > 6e-8 || (r == 0 && a != f)) bad++ } } END { exit !!bad }'
ok $? "--float32: the doubles rounded to float"
"$RFX" features --x-file x.csv --method oprf --features 4 --param A=-0.125 > /dev/null 2> p.err
grep -q "parameters A=-0.125" p.err
ok $? "--param A=-0.125 is taken" || diag_file p.err

# --log-scale. PosRF's feature of x is e^(w.x - |x|^2) / sqrt(M): at x =
# (28, 28, 28, 28), |x|^2 = 3136 and |w.x| is a few |x| = 56, so every
# feature underflows to 0, while the log-scaled row keeps them: entries of
# modulus at most 1, one of them exactly 1 (the row's largest sets the
# scale), and a last column s within 10 |x| of -|x|^2.
printf '28,28,28,28\n28,28,28,28\n' > big.csv
"$RFX" features --x-file big.csv --method pos --features 4 --seed 2 > big.tsv 2> /dev/null &&
	"$RFX" features --x-file big.csv --method pos --features 4 --seed 2 --log-scale \
		> bigl.tsv 2> /dev/null
ok $? "--log-scale: exit 0"
awk -F '\t' '{ for (j = 1; j <= NF; j++) if ($j != 0) bad++ } END { exit !(NR == 2 && !bad) }' big.tsv
ok $? "pos at |x|^2 = 3136: every plain feature is 0" || diag_file big.tsv
awk -F '\t' '{ mx = 0; for (j = 1; j < NF; j++) { a = $j < 0 ? -$j : $j
		if (a > 1) bad++; if (a > mx) mx = a }
	s = $NF + 3136; if (s < 0) s = -s
	if (NF != 5 || mx != 1 || s > 560) bad++ } END { exit !(NR == 2 && !bad) }' bigl.tsv
ok $? "  log-scaled: 4 + 1 columns, |F| <= 1 with a 1 in each row, s near -3136" ||
	diag_file bigl.tsv
# Where nothing under- or overflows, F e^s is the plain feature (a product
# and an exp: within a few ulp, here 1e-15 relative).
"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 9 --log-scale \
	> al.tsv 2> /dev/null
paste a.tsv al.tsv | awk -F '\t' '{ n = (NF - 1) / 2
	if (n != 16) bad++
	for (j = 1; j <= n; j++) { a = $j; f = $(n + j) * exp($NF); r = (f - a) / a
		if (r < 0) r = -r; if (r > 1e-15) bad++ } } END { exit !(NR == 7 && !bad) }'
ok $? "--log-scale on moderate inputs: F e^s is the plain feature within 1e-15"
"$RFX" features --x-file x.csv --method oprf --features 16 --projection ort --seed 9 --log-scale \
	-o al.npy 2> /dev/null
od -An -v -t f8 -j 128 -w8 al.npy | awk '{ printf "%.17g\n", $1 }' > npy.txt
tr '\t' '\n' < al.tsv | awk '{ printf "%.17g\n", $1 }' > tsv.txt
head -c 128 al.npy | grep -q "'descr': '<f8', 'fortran_order': False, 'shape': (7, 17)" &&
	cmp -s npy.txt tsv.txt
ok $? "--log-scale -o: a (7, 17) .npy of the TSV's numbers" || diag_file npy.txt

# bad input: one line on stderr, exit 2 (usage) or 1 (file), no output file
bad() {
	want=$1 what=$2
	shift 2
	"$RFX" features "$@" -o bad.npy > /dev/null 2> bad.err
	rc=$?
	[ "$rc" -eq "$want" ] && [ "$(wc -l < bad.err)" -eq 1 ] && [ ! -e bad.npy ] &&
		! ls bad.npy.tmp.* > /dev/null 2>&1
	ok $? "$what: exit $want, one line, no file" || { diag "rc $rc"; diag_file bad.err; }
}
printf '0.1,nan,0.2\n' > nan.csv
bad 2 "no --x-file" --method trig
bad 2 "no --method" --x-file x.csv
bad 2 "unknown method" --x-file x.csv --method fourier
bad 2 "unknown projection" --x-file x.csv --method trig --projection orth
bad 2 "discrete estimator on ort" --x-file x.csv --method pois --projection ort
bad 2 "--features 0" --x-file x.csv --method trig --features 0
bad 2 "--side 3" --x-file x.csv --method trig --side 3
bad 2 "--float32 with --log-scale" --x-file x.csv --method trig --float32 --log-scale
bad 2 "unknown parameter" --x-file x.csv --method oprf --param B=1
bad 2 "unknown kernel" --x-file x.csv --method oprf --kernel laplace
bad 1 "missing file" --x-file nofile.csv --method trig
bad 1 "NaN in the file" --x-file nan.csv --method trig
"$RFX" features --x-file x.csv --method trig -o out.txt > /dev/null 2> bad.err
[ $? -eq 2 ] && [ ! -e out.txt ]
ok $? "-o other than .npy: exit 2" || diag_file bad.err
"$RFX" features --x-file x.csv --method trig -o .npy > /dev/null 2> bad.err
[ $? -eq 2 ] && [ ! -e .npy ] && grep -q "no name before its suffix" bad.err
ok $? "-o .npy (a suffix without a name): exit 2, nothing written" || diag_file bad.err

# -o follows the rules of every -o (lib/io/outfile.h), checked before any
# work: the one line on stderr is the refusal, not the run's report
echo keep > kept.npy
"$RFX" features --x-file nan.csv --method trig -o kept.npy > /dev/null 2> bad.err
[ $? -eq 1 ] && [ "$(cat kept.npy)" = keep ] && ! ls kept.npy.tmp.* > /dev/null 2>&1
ok $? "a failed run leaves an existing -o file as it was" || diag_file bad.err
ln -s kept.npy link.npy
"$RFX" features --x-file x.csv --method trig -o link.npy > /dev/null 2> bad.err &&
	[ -L link.npy ] && [ "$(head -c 6 kept.npy | tail -c 5)" = NUMPY ]
ok $? "-o through a symbolic link replaces the file it names, the link stays" ||
	diag_file bad.err
ln -s nowhere.npy dangling.npy
mkdir dir.npy
for o in dangling.npy nodir/x.npy dir.npy; do
	"$RFX" features --x-file x.csv --method trig -o "$o" > /dev/null 2> bad.err
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l < bad.err)" -eq 1 ] && ! grep -q features bad.err &&
		[ ! -e nowhere.npy ]
	ok $? "-o $o: exit 1, one line before any work: $(cat bad.err)" || diag "rc $rc"
done

done_testing

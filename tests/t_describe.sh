#!/bin/sh
#
# Every table every subcommand writes describes its columns, and every
# file records the run's options with their types (issue 21): each
# subcommand that writes an HDF5 file (every mode of variance, pointwise,
# mse-table and attention, clustered, uci-classify, svm-classify, optis,
# and the output of rfx merge; features writes .npy only) runs at a small
# size with -o, then `rfx dump --describe` must list every column of
# every table (the columns `rfx dump` prints, counted independently) with
# a type and a description, and the run's options as option/type/value
# lines whose types are the option table's (integers int64, the seed
# uint64, reals float64, lists arrays), without those the run's mode
# ignores. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

# Small inputs for variance's file mode: 6 rows of 3 columns each.
printf '0.1,0.2,0.3\n0.4,-0.5,0.6\n-0.7,0.8,0.9\n0.2,0.1,-0.4\n0.3,0.3,0.3\n-0.1,0.5,0.2\n' > x.csv
printf '0.5,0.1,-0.2\n0.1,0.1,0.9\n-0.3,0.4,0.2\n0.6,-0.6,0.1\n0.2,0.2,0.2\n0.7,0.1,0.3\n' > y.csv

# name<TAB>arguments (before -o)
cat > cases <<'EOF'
variance experiment, Monte Carlo	variance --method trig,oprf --regime normal --gamma 0.5,1 --L 8 --samples 1 --mc 20 --mc-pairs 2
variance experiment, analytic	variance --method trig --regime sphere --gamma 0.5 --L 8 --samples 1 --mc 0
variance pair, Monte Carlo	variance --x 1,0.5 --y 0.25,1 --method trig,oprf --mc 100
variance pair, analytic	variance --x 1,0.5 --y 0.25,1 --method trig
variance map	variance --map angle --method trig,pos --steps 4 --d 2
variance sets (rank)	variance --x-file x.csv --y-file y.csv --method trig,pos --gamma 0.5 --mc 0
pointwise estimates	pointwise --method trig --r 1 --thetas 4 --mc 100
pointwise analytic	pointwise --method trig --r 1 --thetas 4 --mc 0
pointwise map	pointwise --map --steps 4 --thetas 6 --method trig
pointwise max-error	pointwise --max-error --steps 3 --thetas 11 --method trig,ang
clustered	clustered --points 40 --reps 3 --m 20,50 --set 1
uci-classify	uci-classify --dataset banknote --method exact,trig --seeds 2 --gamma 0.5,2
mse-table	mse-table --reps 3 --draws 2 --pairs 20 --dataset wine --method trig:iid
mse-table --vs-z	mse-table --vs-z --d 4 --projection ort --z-steps 3 --mc 50
mse-table --z-hist	mse-table --z-hist --dataset wine --pairs 200 --z-steps 4
svm-classify	svm-classify --dataset letter --ratio 1 --seeds 2 --n-train 300 --n-test 100 --nn-sample 100
optis	optis --L 16
attention	attention --L 64 --d 4 --features 4,8 --draws 2 --method trig
attention --time	attention --time --Ls 64,128 --exact-max 64 --d 4 --features 8 --reps 1
EOF

# check_file FILE NAME: the description of FILE is complete.
check_file() {
	"$RFX" dump --describe "$1" > desc.txt 2> err.txt
	ok $? "$2: dump --describe exits 0" || diag_file err.txt
	# the column blocks: up to the first blank line
	sed '/^$/,$d' desc.txt > cols.txt
	head -n 1 cols.txt | grep -qx 'table	column	type	description'
	ok $? "$2: the columns' header"
	# each table's columns as rfx dump prints them, against describe's
	"$RFX" dump "$1" 2> /dev/null | awk -F'\t' '
		/^# / { t = substr($0, 3); getline; for (i = 1; i <= NF; i++) print t "\t" $i }' \
		> want.txt
	sed 1d cols.txt | cut -f1,2 > got.txt
	[ -s want.txt ] && cmp -s want.txt got.txt
	ok $? "$2: one line for every column of every table" ||
		diff want.txt got.txt | diag_file /dev/stdin
	# a type and a real description on each: not '-', not empty
	bad=$(sed 1d cols.txt | awk -F'\t' 'NF != 4 || $3 == "" || $4 == "" || $4 == "-"')
	is "$bad" "" "$2: no column lacks a description"
	# the options: after two blank lines, typed
	sed -n '/^option	type	value$/,$p' desc.txt > opts.txt
	[ "$(wc -l < opts.txt)" -gt 1 ]
	ok $? "$2: the options follow the columns" || diag_file desc.txt
	bad=$(sed 1d opts.txt | awk -F'\t' '
		NF != 3 || $2 !~ /^(int64|uint64|float64|string)(\[[1-9][0-9]*\])?$/')
	is "$bad" "" "$2: every option has a known type"
	grep -q '^seed	uint64	[0-9][0-9]*$' opts.txt
	ok $? "$2: --seed is a uint64"
	! grep -q '^output	\|^threads	' opts.txt
	ok $? "$2: neither --output nor --threads is recorded"
}

while IFS='	' read -r name args; do
	rm -f out.h5
	# shellcheck disable=SC2086
	"$RFX" $args -o out.h5 > /dev/null 2> err.txt
	ok $? "$name: runs" || { diag "rfx $args"; diag_file err.txt; }
	check_file out.h5 "$name"
done < cases

# The types are the option table's: integers, reals, lists, choices.
"$RFX" variance --method trig,oprf --regime normal --gamma 0.5,1 --L 8 --samples 1 \
	--mc 20 --mc-pairs 2 -o v.h5 > /dev/null 2>&1
"$RFX" dump --describe v.h5 | sed -n '/^option	type	value$/,$p' > opts.txt
for want in 'L	int64	8' 'mc-pairs	int64	2' 'gamma	float64[2]	0.5,1' \
	'method	string[2]	trig,oprf' 'regime	string[1]	normal' \
	'projection	string	iid' 'mnist-norm	string	unit' 'samples	int64	1' \
	'seed	uint64	20221121'; do
	grep -qxF "$want" opts.txt
	ok $? "variance: option line '$want'" || diag_file opts.txt
done
# the experiment ignores the pair, map and file modes' options
! grep -q '^\(r-max\|steps\|map\|pairs\|attention-scale\|kernel\)	' opts.txt
ok $? "variance: no option its mode ignores (--r-max, --steps, --pairs, ...)" ||
	diag_file opts.txt
"$RFX" mse-table --reps 3 --draws 2 --pairs 20 --dataset wine --method trig:iid \
	--ratio 1,2 -o m.h5 > /dev/null 2>&1
"$RFX" dump --describe m.h5 | sed -n '/^option	type	value$/,$p' > opts.txt
grep -qxF 'ratio	float64[2]	1,2' opts.txt && grep -qxF 'reps	int64	3' opts.txt &&
	grep -qxF 'dataset	string[1]	wine' opts.txt
ok $? "mse-table: --ratio a float64 list, --reps an int64, --dataset a string list" ||
	diag_file opts.txt

# An integer list is read as the command reads it: 3.2e1 is the integer 32.
"$RFX" variance --map sum --method pos --d 16,3.2e1 --steps 5 -o m.h5 > /dev/null 2>&1
"$RFX" dump --describe m.h5 | grep -qxF 'd	int64[2]	16,32'
ok $? "variance --map sum --d 16,3.2e1: d is int64[2] 16,32"

# dump TABLE --describe: that table's columns only, no options.
"$RFX" dump --describe v.h5 params > one.txt
[ "$(cut -f1 one.txt | sort -u | tr '\n' ' ')" = "params table " ] &&
	! grep -q '^option' one.txt
ok $? "dump --describe FILE TABLE: that table's columns, no options"

# rfx merge's output is the serial run's, descriptions and options too.
mkdir d
(cd d && for i in 0 1; do
	"$RFX" variance --method trig --L 8 --samples 2 --mc 0 -o out.h5 --shard $i/2 \
		> /dev/null 2>&1
done && "$RFX" merge out.h5 out.h5.shard-0-of-2 out.h5.shard-1-of-2 > /dev/null 2>&1)
ok $? "merge: the shards merge"
check_file d/out.h5 "merge"

# A file from another program: '-' where a table has no description, and
# no options block without an options group.
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import h5py, numpy' 2>/dev/null; then
	"$PY" - <<'PYEOF'
import h5py, numpy
with h5py.File("foreign.h5", "w") as f:
    d = f.create_dataset("t", data=numpy.array([(1, 2.5)], dtype=[("a", "<i4"), ("b", "<f8")]))
    d.attrs["CLASS"] = numpy.bytes_("TABLE")
    d.attrs["FIELD_1_DESC"] = numpy.bytes_("b, metres")
PYEOF
	printf 'table\tcolumn\ttype\tdescription\nt\ta\tint32\t-\nt\tb\tfloat64\tb, metres\n' > want.txt
	"$RFX" dump --describe foreign.h5 > got.txt 2>&1
	cmp -s want.txt got.txt
	ok $? "a foreign table: '-' for an undescribed column, no options" ||
		diff want.txt got.txt | diag_file /dev/stdin
else
	skip "h5py is not installed"
fi

done_testing

#!/bin/sh
#
# Tests of --shard i/N and 'rfx merge' through the command line: for every
# experiment command and mode of tests/dist_cases.sh, the serial run and
# the merge of its 3 shards (given in any order) are cmp-identical, HDF5
# file and stdout; a shard writes nothing to stdout and records the serial
# command line; bad --shard values and shards that do not make one run
# are refused with one line on stderr, a non-zero exit and no file.
# Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
. "$RFX_TOP/tests/dist_cases.sh"

# Each case serially in s/, in 3 shards in d/ (same file names, so the
# recorded command lines agree), merged with the shards in reverse order.
dist_cases > cases
while IFS='	' read -r name args; do
	rm -rf s d
	mkdir s d
	# shellcheck disable=SC2086
	(cd s && "$RFX" $args -o out.h5 > out.tsv 2> err)
	s_rc=$?
	d_rc=0
	for i in 2 0 1; do
		# shellcheck disable=SC2086
		(cd d && "$RFX" $args -o out.h5 --shard $i/3 > "shard$i.out" 2>> err) ||
			d_rc=1
	done
	(cd d && "$RFX" merge out.h5 out.h5.shard-2-of-3 out.h5.shard-1-of-3 \
		out.h5.shard-0-of-3 > out.tsv 2>> err) || d_rc=1
	[ "$s_rc" -eq 0 ] && [ "$d_rc" -eq 0 ] && cmp -s s/out.h5 d/out.h5 &&
		cmp -s s/out.tsv d/out.tsv && [ -s s/out.tsv ]
	ok $? "$name: 3 merged shards give the serial run's file and stdout" || {
		diag "rfx $args"
		diag_file d/err
	}
	[ ! -s d/shard0.out ] && [ ! -e d/out.h5.tmp* ]
	ok $? "$name: a shard prints nothing and leaves no temporary"
done < cases

# The shard records the serial command line, without --shard.
"$RFX" dump --attrs s/out.h5 | grep '^command' | sed 's/-o out.h5//' > want_cmd
"$RFX" variance --method trig --L 8 --samples 2 --mc 0 -o v.h5 --shard 1/2 2> /dev/null
h5dump -a command_line v.h5.shard-1-of-2 2> /dev/null | grep -q -- '--shard' 
[ $? -ne 0 ] && h5dump -a command_line v.h5.shard-1-of-2 2> /dev/null |
	grep -q 'variance --method trig --L 8 --samples 2 --mc 0 -o v.h5"'
ok $? "a shard records the serial command line"

# Bad --shard values: usage errors, nothing written.
for bad in 3/3 -1/2 1/0 a/b 1 1/2x; do
	rm -f x.h5*
	run variance --method trig --L 8 --samples 1 --mc 0 -o x.h5 --shard "$bad"
	[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && ! ls x.h5* > /dev/null 2>&1 &&
		grep -q "got '$bad'\$" "$tmp/err"
	ok $? "--shard $bad: exit 2, one line quoting it whole, no file" || diag_file "$tmp/err"
done
run variance --method trig --L 8 --samples 1 --mc 0 --shard 0/2
[ "$rc" -eq 2 ] && grep -q 'needs -o' "$tmp/err"
ok $? "--shard without -o: exit 2 naming -o" || diag_file "$tmp/err"
run variance --method trig --L 8 --mc 0 -o x.h5 --shard 0/2 --shard 1/2
[ "$rc" -eq 2 ]
ok $? "--shard twice: exit 2"
run dump s/out.h5 --shard 0/2
[ "$rc" -eq 2 ]
ok $? "dump refuses --shard (not an experiment)"

# Shards that do not make one run.
V="variance --method trig,pos --L 16 --samples 3 --mc 0"
mkdir m
for i in 0 1 2; do
	# shellcheck disable=SC2086
	(cd m && "$RFX" $V -o a.h5 --shard $i/3 2> /dev/null)
done
# shellcheck disable=SC2086
mkdir m2 && (cd m2 && "$RFX" $V --seed 7 -o a.h5 --shard 1/3 2> /dev/null &&
	mv a.h5.shard-1-of-3 ../m/seed7.h5 &&
	"$RFX" $V -o a.h5 --shard 1/2 2> /dev/null && mv a.h5.shard-1-of-2 ../m/half.h5)
merge_fails() {
	m_desc=$1
	m_pat=$2
	shift 2
	rm -f m/out.h5
	(cd m && "$RFX" merge out.h5 "$@" > ../m.out 2> ../m.err)
	m_rc=$?
	[ "$m_rc" -eq 1 ] && [ "$(lines m.err)" -eq 1 ] && grep -q "$m_pat" m.err &&
		[ ! -e m/out.h5 ] && [ ! -s m.out ] && ! ls m/out.h5.tmp* > /dev/null 2>&1
	ok $? "merge: $m_desc: exit 1, one line, no file" || {
		diag "exit $m_rc"
		diag_file m.err
	}
}
merge_fails "a missing shard" "shard 1/3 .* is missing" a.h5.shard-0-of-3 a.h5.shard-2-of-3
merge_fails "a shard twice" "both shard 0/3" a.h5.shard-0-of-3 a.h5.shard-0-of-3 \
	a.h5.shard-1-of-3 a.h5.shard-2-of-3
merge_fails "another seed" "different runs (command line differs)" a.h5.shard-0-of-3 seed7.h5 a.h5.shard-2-of-3
merge_fails "another shard count" "shard count differs" a.h5.shard-0-of-3 half.h5 \
	a.h5.shard-2-of-3
merge_fails "not a shard" "not an rfx shard" ../s/out.h5
printf 'not hdf5\n' > m/junk.h5
merge_fails "not HDF5" "cannot open 'junk.h5'" junk.h5 a.h5.shard-1-of-3
merge_fails "no such file" "cannot open 'nope.h5'" nope.h5
(cd m && "$RFX" merge --check out.h5 a.h5.shard-?-of-3 > ../m.out 2> ../m.err)
[ $? -eq 0 ] && [ ! -e m/out.h5 ] && [ ! -s m.out ]
ok $? "merge --check: exit 0, nothing written"
run merge out.h5
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ]
ok $? "merge without shards: exit 2, one line"

# OUT naming one of the shards (itself, a symbolic or a hard link to it)
# would replace that shard: refused, the shard kept. Before, merging into
# shard 0 wrote the run over it.
cp m/a.h5.shard-0-of-3 keep0
ln -s a.h5.shard-2-of-3 m/sym.h5
ln m/a.h5.shard-1-of-3 m/hard.h5
for o in a.h5.shard-0-of-3 sym.h5 hard.h5; do
	(cd m && "$RFX" merge "$o" a.h5.shard-?-of-3 > ../m.out 2> ../m.err)
	m_rc=$?
	[ "$m_rc" -eq 2 ] && [ "$(lines m.err)" -eq 1 ] &&
		grep -q "merge would replace it" m.err && cmp -s keep0 m/a.h5.shard-0-of-3 &&
		[ -L m/sym.h5 ] && [ ! -s m.out ]
	ok $? "merge into $o, a shard: exit 2, one line, every shard kept" || {
		diag "exit $m_rc"
		diag_file m.err
	}
done

# OUT follows the name rules of every -o FILE.h5: before, out.csv and a
# bare .h5 (a hidden file) got the HDF5 run.
for o in out.csv .h5; do
	(cd m && "$RFX" merge "$o" a.h5.shard-?-of-3 > ../m.out 2> ../m.err)
	m_rc=$?
	[ "$m_rc" -eq 2 ] && [ "$(lines m.err)" -eq 1 ] && [ ! -e "m/$o" ] && [ ! -s m.out ]
	ok $? "merge into $o: exit 2, one line, nothing written" || {
		diag "exit $m_rc"
		diag_file m.err
	}
done

# Shards record the BLAS kernels; a merge whose kernels differ says so on
# one line and still writes the run (the results agree to rounding).
h5dump -a blas m/a.h5.shard-0-of-3 2> /dev/null | grep -q 'OpenBLAS'
ok $? "a shard records the BLAS kernels"
(cd m && "$RFX" merge out.h5 a.h5.shard-?-of-3 > ../m.out 2> ../m.err)
[ $? -eq 0 ] && ! grep -q warning m.err && [ -s m/out.h5 ]
ok $? "merge with the shards' kernels: no warning" || diag_file m.err
mkdir m3
ct=Prescott # kernels other than this rfx's own
"$RFX" --version | grep -q "^blas: .*Prescott" && ct=Core2
# shellcheck disable=SC2086
(cd m3 && OPENBLAS_CORETYPE=$ct "$RFX" $V -o a.h5 --shard 1/3 2> /dev/null)
rm -f m/out.h5
(cd m && "$RFX" merge out.h5 a.h5.shard-0-of-3 ../m3/a.h5.shard-1-of-3 \
	a.h5.shard-2-of-3 > ../m.out 2> ../m.err)
[ $? -eq 0 ] && [ "$(grep -c warning m.err)" -eq 1 ] &&
	grep -q "^rfx: warning: '../m3/a.h5.shard-1-of-3' was computed with kernels '.*$ct" m.err &&
	[ -s m/out.h5 ]
ok $? "merge with shards of other kernels: exit 0, one warning line naming the shard" ||
	diag_file m.err

done_testing

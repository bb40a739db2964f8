#!/bin/sh
#
# Tests of bench/history.sh, the benchmark history of bench/run.sh, on a
# synthetic history (no timing, no benchmark runs): the header of a new
# file, rows appended with date, commit, machine and kind, the comparison
# against the previous run of the same machine model and kind only (not
# another machine's or a quick run's later rows), the direction of
# "worse" for lower- and higher-is-better items and its 10% threshold,
# items new in a run, earlier rows left byte for byte, and usage errors.
# Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

h=$RFX_TOP/bench/history.sh
tab=$(printf '\t')

# rec ITEM VALUE UNIT BETTER: one record line
rec() {
	printf '%s\t%s\t%s\t%s\n' "$@"
}

{ rec featmaps.trig.x_dgemm 0.60 ratio lower
  rec featmaps.sklearn-rbf.over_rfx 3.60 ratio higher
  rec run.fig6_4.wall_s 20.0 s lower; } |
	"$h" --file hist.tsv --commit aaa --machine "CPU A, 2 cores" --kind full \
		--date 2026-11-20T10:00Z > out1
ok $? "first run: exit 0"
grep -q "first full run on CPU A, 2 cores" out1
ok $? "first run: says there is nothing to compare"
head -n 2 hist.tsv > head
printf '# rfx benchmark history: bench/history.sh appends, format in bench/README.md\ndate\tcommit\tmachine\tkind\titem\tvalue\tunit\tbetter\n' > want
cmp -s head want
ok $? "a new file starts with the comment and the column names"
is "$(sed -n 3p hist.tsv)" "2026-11-20T10:00Z${tab}aaa${tab}CPU A, 2 cores${tab}full${tab}featmaps.trig.x_dgemm${tab}0.60${tab}ratio${tab}lower" \
	"a row: date, commit, machine, kind, item, value, unit, better"
is "$(grep -c . hist.tsv)" 5 "three items, three rows"

# Rows of another machine and of a quick run on this one, later: ignored.
rec featmaps.trig.x_dgemm 0.10 ratio lower |
	"$h" --file hist.tsv --commit bbb --machine "CPU B, 8 cores" --kind full \
		--date 2026-11-21T10:00Z > /dev/null
rec featmaps.trig.x_dgemm 0.20 ratio lower |
	"$h" --file hist.tsv --commit ccc --machine "CPU A, 2 cores" --kind quick \
		--date 2026-11-22T10:00Z > /dev/null
cp hist.tsv before.tsv

{ rec featmaps.trig.x_dgemm 0.69 ratio lower       # +15%: worse
  rec featmaps.sklearn-rbf.over_rfx 3.30 ratio higher  # -8.3%: within 10%
  rec run.fig6_4.wall_s 17.0 s lower                 # -15%: better
  rec featmaps.trig32.x_f64 0.48 ratio lower; } |     # new
	"$h" --file hist.tsv --commit ddd --machine "CPU A, 2 cores" --kind full \
		--date 2026-11-23T10:00Z > out2
ok $? "second run: exit 0"
grep -q "previous full run on CPU A, 2 cores (2026-11-20T10:00Z commit aaa)" out2
ok $? "compares with the previous full run of the same machine model"
line=$(grep '^featmaps.trig.x_dgemm ' out2)
case $line in *" 0.60 "*" 0.69 "*"+15.0%  worse") r=0 ;; *) r=1 ;; esac
ok $r "lower-is-better up 15%: before 0.60 (not CPU B's 0.10 or the quick 0.20), worse"
[ $r -eq 0 ] || diag "got: $line"
line=$(grep '^featmaps.sklearn-rbf.over_rfx ' out2)
case $line in *"-8.3%") r=0 ;; *) r=1 ;; esac
ok $r "higher-is-better down 8.3%: within the 10%, not marked"
[ $r -eq 0 ] || diag "got: $line"
line=$(grep '^run.fig6_4.wall_s ' out2)
case $line in *"-15.0%") r=0 ;; *) r=1 ;; esac
ok $r "lower-is-better down 15%: better, not marked"
grep -q '^featmaps.trig32.x_f64 .* new$' out2
ok $? "an item the earlier run lacked is new"
grep -q "4 items recorded in hist.tsv; 1 worse by more than 10%" out2
ok $? "the summary counts the worse items"

{ rec featmaps.sklearn-rbf.over_rfx 2.90 ratio higher; } |
	"$h" --file hist.tsv --commit eee --machine "CPU A, 2 cores" --kind full \
		--date 2026-11-24T10:00Z > out3
grep -q '^featmaps.sklearn-rbf.over_rfx .* 3.30 .*2.90 .*worse$' out3
ok $? "higher-is-better down 12%: worse, against the latest run (3.30)"

n=$(wc -l < before.tsv)
head -n "$n" hist.tsv | cmp -s - before.tsv
ok $? "append-only: the earlier rows are unchanged"

"$h" --file hist.tsv --commit x --machine m < /dev/null > /dev/null 2> err
[ $? -eq 2 ] && [ -s err ]
ok $? "missing --kind: usage error, exit 2"
"$h" --file hist.tsv --commit x --machine m --kind full --bogus 1 < /dev/null > /dev/null 2> err
[ $? -eq 2 ] && grep -q usage err
ok $? "unknown option: usage error, exit 2"

done_testing

#!/bin/sh
#
# The benchmark history (issue 23): appends one run's numbers to a
# tab-separated file, one row per item, and prints each item's change
# against the previous run of the same kind on the same machine model, so
# that a regression shows the day it lands. bench/run.sh calls it at the
# end of every run with the lines that bench/featmaps.sh, bench/python.sh
# and its own timed runs recorded; the file is bench/history.tsv, kept in
# git and only ever appended to. Format (bench/README.md, "History"):
#
#   date  commit  machine  kind  item  value  unit  better
#
# date in UTC (YYYY-MM-DDTHH:MMZ), commit the short hash (-dirty for an
# uncommitted tree), machine the CPU model and core count ("Intel(R)
# Xeon(R) Processor, 2 cores"), kind "full" or "quick" (bench/run.sh
# --quick: one round, not comparable with five), item a dotted name
# ("featmaps.trig.x_dgemm"), value a number, unit ("ms", "s", "ratio"),
# better "lower" or "higher". Lines starting with # are comments.
#
#   bench/history.sh --file F --commit C --machine M --kind K [--date D] < RECORDS
#
# RECORDS are lines "item<TAB>value<TAB>unit<TAB>better". An item that
# got worse by more than 10% (the spread of a shared 2-core machine's
# medians) is marked "worse". Nothing here times anything: the test
# (tests/t_bench_history.sh) runs it on a synthetic history.

set -u

file= commit= machine= kind= date=
while [ $# -gt 0 ]; do
	case $1 in
	--file) file=${2:?}; shift ;;
	--commit) commit=${2:?}; shift ;;
	--machine) machine=${2:?}; shift ;;
	--kind) kind=${2:?}; shift ;;
	--date) date=${2:?}; shift ;;
	*) echo "usage: bench/history.sh --file F --commit C --machine M --kind K [--date D] < RECORDS" >&2
	   exit 2 ;;
	esac
	shift
done
if [ -z "$file" ] || [ -z "$commit" ] || [ -z "$machine" ] || [ -z "$kind" ]; then
	echo "usage: bench/history.sh --file F --commit C --machine M --kind K [--date D] < RECORDS" >&2
	exit 2
fi
[ -n "$date" ] || date=$(date -u '+%Y-%m-%dT%H:%MZ')
case $machine$commit$kind in
*"	"*) echo "history: a tab in the commit, machine or kind" >&2; exit 2 ;;
esac

new=$(mktemp) || exit 1
trap 'rm -f "$new"' EXIT
cat >"$new" || exit 1
if [ ! -s "$file" ]; then
	printf '# rfx benchmark history: bench/history.sh appends, format in bench/README.md\n' >"$file" || exit 1
	printf 'date\tcommit\tmachine\tkind\titem\tvalue\tunit\tbetter\n' >>"$file" || exit 1
fi

# The comparison: the last earlier value of each item on this machine and
# kind, then this run's rows appended (awk prints both: the report on
# stdout, the rows to the file).
awk -F '\t' -v machine="$machine" -v kind="$kind" -v commit="$commit" \
    -v date="$date" -v out="$file" '
FNR == NR {
	if ($0 ~ /^#/ || $1 == "date" || NF < 8)
		next
	if ($3 == machine && $4 == kind) {
		prev[$5] = $6; pdate[$5] = $1; pcommit[$5] = $2
		last = $1 " commit " $2
	}
	next
}
NF >= 4 && $0 !~ /^#/ {
	n++
	if (n == 1) {
		if (last == "")
			printf "# history: first %s run on %s, nothing to compare\n", kind, machine
		else
			printf "# history: against the previous %s run on %s (%s)\n", kind, machine, last
		printf "%-44s %12s %12s %9s\n", "# item", "before", "now", "change"
	}
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", date, commit, machine, kind,
	       $1, $2, $3, $4 >> out
	if (!($1 in prev)) {
		printf "%-44s %12s %12s %9s\n", $1, "-", $2, "new"
		next
	}
	ch = prev[$1] != 0 ? 100 * ($2 - prev[$1]) / prev[$1] : 0
	worse = ($4 == "lower" && ch > 10) || ($4 == "higher" && ch < -10)
	printf "%-44s %12s %12s %+8.1f%%%s\n", $1, prev[$1], $2, ch,
	       worse ? "  worse" : ""
	nworse += worse
}
END {
	if (n)
		printf "# %d items recorded in %s; %d worse by more than 10%%\n", n, out, nworse
}' "$file" "$new"

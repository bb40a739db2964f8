#!/bin/sh
# How long `make figures` takes at paper scale from a clean checkout: the
# measurement the README and docs/REPRODUCTION.md quote. Copies the
# committed tree (git archive HEAD, so nothing built or computed comes
# along) into a scratch directory, runs `make -jJOBS figures` there under
# /usr/bin/time while sampling the 1-minute load average every 10 s, and
# prints the wall time, the CPU time (user + sys of make and everything it
# ran, build included), the load, and each experiment's wall and CPU time
# from results/*.time, longest first. On a machine shared with other work
# the wall time grows with the load and the CPU time much less: quote both,
# with the load.
#
# usage: experiments/measure.sh [JOBS [DIR]]   (default 2 and a new
#        directory under ${TMPDIR:-/tmp}; the copy is kept for inspection)
set -eu
jobs=${1:-2}
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/rfx-measure.XXXXXX")}
commit=$(git -C "$top" rev-parse --short HEAD)
mkdir -p "$dir"
git -C "$top" archive HEAD | tar -x -C "$dir"
echo "measure: commit $commit in $dir, make -j$jobs figures" >&2

load() { cut -d' ' -f1 /proc/loadavg; }
(
	while :; do
		load >> "$dir/load.txt"
		sleep 10
	done
) &
sampler=$!
# INT and TERM exit through the EXIT trap, which a shell killed by an
# untrapped signal would not run: after Ctrl-C the sampler (a background
# job, so SIGINT does not reach it) would go on writing load.txt for ever.
trap 'kill "$sampler" 2>/dev/null || :' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
l0=$(load)
status=0
/usr/bin/time -f '%e %U %S' -o "$dir/time.txt" \
	make -C "$dir" -j"$jobs" figures > "$dir/make.log" 2>&1 || status=$?
l1=$(load)
kill "$sampler" 2>/dev/null || :
if [ "$status" -ne 0 ]; then
	echo "measure: make failed (exit $status), see $dir/make.log" >&2
	exit "$status"
fi
read -r wall user sys < "$dir/time.txt"
awk -v c="$commit" -v j="$jobs" -v w="$wall" -v u="$user" -v s="$sys" \
	-v l0="$l0" -v l1="$l1" -v cores="$(getconf _NPROCESSORS_ONLN)" '
{ n++; sum += $1; if ($1 > max) max = $1 }
END {
	printf "commit %s, make -j%s figures on %s cores\n", c, j, cores
	printf "wall %.1f min, CPU %.1f min (user %.0f s + sys %.0f s)\n", w / 60, (u + s) / 60, u, s
	printf "1-minute load average: %s at the start, %s at the end, mean %.1f, max %.1f (%d samples)\n",
		l0, l1, n ? sum / n : 0, max, n
	printf "on %s idle cores the CPU time alone needs at least %.1f min\n", cores, (u + s) / 60 / cores
}' "$dir/load.txt"
printf '\nexperiment\twall_s\tcpu_s\tload_after\n'
for f in "$dir"/results/*.time; do
	awk -F'\t' 'NR == 2 { print $1 "\t" $4 "\t" $5 "\t" $7 }' "$f"
done | sort -t "$(printf '\t')" -k3,3nr

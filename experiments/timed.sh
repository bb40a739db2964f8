#!/bin/sh
# Runs one experiment script and records how long it took, for the
# report (experiments/report.py): `make figures` calls every experiment
# through this, so progress goes to stderr as
#     RUN results/x.h5
#     DONE results/x.h5 in 12.3 s (cpu 21.0 s, load 1.9)
# and results/x.time gets one TSV line (with a header) saying what ran,
# at which scale, its wall and CPU seconds (user + system of the script
# and its children, from the shell's `times`), the 1-minute load average
# before and after, the start and end (seconds since the epoch), the
# number of online cores and the id of the make run ($FIG_RUN).
# Nothing about the experiment itself is here: its command lines are in
# the script.
#
# usage: experiments/timed.sh OUT SCRIPT [ARG...]   (runs SCRIPT OUT ARG...)
set -eu
out=$1
script=$2
shift 2
time_file=${out%.*}.time
# The scratch files go whatever happens, the .time only on success (below).
trap 'rm -f "$time_file.times" "$time_file.c0" "$time_file.c1" "$time_file.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo nan; }
# cpu: user + system seconds of the children so far (second line of
# `times`, run in this shell: in a pipe or $(...) it would see a subshell's).
cpu() {
	times > "$time_file.times"
	awk 'NR == 2 {
		s = 0
		for (i = 1; i <= 2; i++) {
			v = $i; m = 0
			if (v ~ /m/) { m = v; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", v) }
			sub(/s$/, "", v); s += 60 * m + v
		}
		printf "%.2f", s
	}' "$time_file.times"
	rm -f "$time_file.times"
}
now() { date +%s.%N 2>/dev/null | sed 's/N$/0/'; }

name=${out##*/}
name=${name%.*}
progress=
if [ -n "${FIG_PLAN:-}" ] && [ -f "$FIG_PLAN" ]; then
	# This experiment's place is the line of its name in the started list:
	# appends of lines this short are atomic, also with make -j.
	started=$FIG_PLAN.started
	echo "$name" >> "$started"
	progress=$(awk -F'\t' -v name="$name" -v started="$started" '
		BEGIN {
			while ((getline l < started) > 0) {
				k++
				if (l == name) break
				before[l] = 1
			}
		}
		$1 == "jobs" { jobs = $2; next }
		{ n++; if ($1 == name) me = 1 }
		!($1 in before) { if ($2 == "-") unknown++; else left += $2 }
		END {
			if (!me) exit
			printf "[%d/%d] ", k, n
			if (jobs < 1) jobs = 1
			left /= jobs
			if (unknown == n - k + 1) { printf "\t, time left unknown (no earlier run at this scale)"; exit }
			t = left < 90 ? sprintf("%.0f s", left) : sprintf("%.0f min", left / 60)
			printf "\t, about %s left", t
			if (unknown) printf " and %d experiments never timed at this scale", unknown
		}' "$FIG_PLAN")
fi
case $progress in
"") echo "    RUN $out" >&2 ;;
*) printf '    %sRUN %s%s\n' "${progress%%	*}" "$out" "${progress#*	}" >&2 ;;
esac
l0=$(load)
cpu > "$time_file.c0"
t0=$(now)
status=0
"$script" "$out" "$@" || status=$?
t1=$(now)
cpu > "$time_file.c1"
c0=$(cat "$time_file.c0")
c1=$(cat "$time_file.c1")
rm -f "$time_file.c0" "$time_file.c1"
l1=$(load)
if [ "$status" -ne 0 ]; then
	echo "    FAILED $out (exit $status) after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" >&2
	rm -f "$time_file"
	exit "$status"
fi
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo nan)
awk -v out="$out" -v script="$script" -v scale="${SCALE:-full}" \
	-v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v l0="$l0" -v l1="$l1" \
	-v cores="$cores" -v run="${FIG_RUN:-manual}" 'BEGIN {
	name = out; sub(/.*\//, "", name); sub(/\.[^.]*$/, "", name)
	printf "experiment\tscript\tscale\twall_s\tcpu_s\tload_before\tload_after\tstart\tend\tcores\trun\n"
	printf "%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%.0f\t%.0f\t%s\t%s\n", name, script, scale,
		t1 - t0, c1 - c0, l0, l1, t0, t1, cores, run
}' > "$time_file.tmp"
mv "$time_file.tmp" "$time_file"
# The history make figures estimates the time left from: name, scale, wall.
awk -v name="$name" -v scale="${SCALE:-full}" -v t0="$t0" -v t1="$t1" \
	'BEGIN { printf "%s\t%s\t%.2f\n", name, scale, t1 - t0 }' >> "$(dirname "$out")/times.log"
awk -v out="$out" -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v l1="$l1" 'BEGIN {
	printf "    DONE %s in %.1f s (cpu %.1f s, load %s)\n", out, t1 - t0, c1 - c0, l1
}' >&2

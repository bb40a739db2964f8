#!/bin/sh
#
# The user-data benchmark of issue 16: 'rfx variance --x-file X --y-file Y'
# on two sets of L Gaussian inputs in d = 64 (bench/bin/mkset, .npy), the
# nine Gaussian-kernel methods of Fig 6.4, analytic only, against the Fig
# 6.4 experiment itself on the same methods (1024 x 1024 pairs per set
# pair, 8 set pairs). Prints, for each run, the CPU time per pair and
# method (user + system over pairs x methods: the machine's other load
# hardly changes it) and the peak resident set. Targets: the file run's
# time per pair within FILE_RATIO_TARGET of the experiment's (the same
# blocked kernels), and the peak resident set at L = 16384 less than
# PEAK_RATIO_TARGET times that at L = 4096 (16 times the pairs: memory
# linear in L, never in L^2). Called by bench/run.sh; bench/README.md says
# what the lines mean.
#
#   bench/userdata.sh [L ...]     default 4096 16384

set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1

FILE_RATIO_TARGET=2    # file run / experiment, CPU time per pair and method
PEAK_RATIO_TARGET=2    # peak RSS at the largest L / at the smallest
METHODS=trig,hyb,gerf,pois,geom,pos,oprf,pois+,geom+
NM=9
d=64
[ $# -gt 0 ] || set -- 4096 16384
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0

# run NAME PAIRS CMD...: one line "NAME ns/pair/method peak_MiB wall_s"
run() {
	r_name=$1 r_pairs=$2
	shift 2
	bench/bin/runstat "$@" > /dev/null 2> "$dir/err" 3> "$dir/rep"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^runstat ' "$dir/rep"; then
		echo "$r_name: failed (exit $rc)"
		sed 's/^/  /' "$dir/err"
		status=1
		return 1
	fi
	sed 's/[a-z_]*=//g' "$dir/rep" | awk -v n="$r_name" -v p="$r_pairs" -v m="$NM" '{
		printf "%-34s %9.2f ns %9.0f MiB %8.1f s\n", n, ($4 + $5) / (p * m) * 1e9,
		       $6 / 1024, $3 }' | tee -a "$dir/table"
}

printf '%-34s %12s %13s %10s\n' "run" "CPU/pair/meth" "peak RSS" "wall"
run "Fig 6.4 (8 x 1024^2 pairs)" $((8 * 1024 * 1024)) \
	./rfx variance --method $METHODS --mc 0 --regime normal --gamma 0.5,1 --samples 4 ||
	exit 1
for L in "$@"; do
	bench/bin/mkset "$dir/x.npy" "$L" $d 1 && bench/bin/mkset "$dir/y.npy" "$L" $d 2 ||
		{ echo "mkset failed"; exit 1; }
	run "--x-file/--y-file L = $L" $((L * L)) \
		./rfx variance --x-file "$dir/x.npy" --y-file "$dir/y.npy" --method $METHODS --mc 0
done
awk -v rt="$FILE_RATIO_TARGET" -v pt="$PEAK_RATIO_TARGET" '
	NR == 1 { base = $(NF - 5) }
	NR > 1 { t[NR] = $(NF - 5); m[NR] = $(NF - 3); last = NR }
	END {
		if (last < 2) exit
		printf "file run / Fig 6.4, CPU per pair:  %.2f (target < %g) %s\n",
		       t[last] / base, rt, t[last] / base < rt ? "ok" : "SLOW"
		if (last > 2)
			printf "peak RSS, largest L / smallest L: %.2f (target < %g: no L^2 growth) %s\n",
			       m[last] / m[2], pt, m[last] / m[2] < pt ? "ok" : "GROWS"
	}' "$dir/table"
exit $status

#!/bin/sh
#
# The MPI build against the serial run (bench/README.md, "MPI"): parallel
# efficiency of mpirun -n 2 with one thread per rank on thesis Fig 6.4
# (analytic, the bench's Fig 6.4 line) against the serial run with one
# thread, and the gather's cost at 10^4 cells. Run from the top directory
# with build/rfx-mpi built (make build/rfx-mpi); bench/run.sh calls it.
#
#   bench/mpi.sh            Fig 6.4 at the paper's size (about 1.5 minutes)
#   bench/mpi.sh --quick    one sample per (regime, gamma) instead of 5
set -u

RFX=${RFX_MPI:-build/rfx-mpi}
TARGET=0.9
if [ ! -x "$RFX" ] || ! command -v mpirun > /dev/null 2>&1; then
	echo "skipped: no $RFX or no mpirun (make build/rfx-mpi)"
	exit 0
fi
samples=5
[ "${1-}" = --quick ] && samples=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RFX_DATA="${RFX_DATA:-$PWD/data}"
if [ "$(id -u)" -eq 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# "WALL CPU" seconds of a command (CPU: user + system of it and the
# processes it waited for, mpirun's ranks included), its stderr in $tmp/err
wall() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" ||
		{ echo "failed: $*" >&2; sed 's/^/  /' "$tmp/err" >&2; return 1; }
	awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$tmp/time"
}

ARGS="variance --method trig,hyb,gerf,pois,geom,pos,oprf,pois+,geom+ --regime all --mc 0 --samples $samples"
echo "# $ARGS; OMP_NUM_THREADS=1; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
t1=$(wall "$RFX" $ARGS) || exit 1
cp "$tmp/out" "$tmp/serial.tsv"
# shellcheck disable=SC2086
t2=$(RFX_DIST_STATS=1 wall mpirun --bind-to none -n 2 "$RFX" $ARGS) || exit 1
stats=$(grep '^rfx: mpi:' "$tmp/err")
cmp -s "$tmp/out" "$tmp/serial.tsv" && same=identical || same=DIFFERENT
echo "$t1 $t2" | awk -v target="$TARGET" -v same="$same" '{
	eff = $1 / (2 * $3)
	printf "%-34s %8.2f s wall %8.2f s CPU\n", "serial, 1 thread", $1, $2
	printf "%-34s %8.2f s wall %8.2f s CPU (stdout %s)\n",
	       "mpirun -n 2, 1 thread per rank", $3, $4, same
	printf "%-34s %8.2f    target >= %.1f %s\n", "parallel efficiency T1 / (2 T2)",
	       eff, target, (eff >= target ? "ok" : "LOW")
	printf "%-34s %8.2f    (serial CPU / MPI CPU: the efficiency on 2 idle cores, at most)\n",
	       "CPU efficiency", $2 / $4
}'
echo "# $stats"
echo "# (the load average above: other jobs on the machine lower the efficiency)"

# 10^4 cells: 4 regimes x 50 gammas x 50 samples, small sets, so the
# gather is as large a part of the run as it gets.
G=$(awk 'BEGIN { for (k = 1; k <= 50; k++) printf "%s%.2f", (k > 1 ? "," : ""), k / 50 }')
ARGS="variance --method trig,pos,oprf --regime all --gamma $G --samples 50 --L 32 --d 16 --mc 0"
# shellcheck disable=SC2086
t=$(RFX_DIST_STATS=1 wall mpirun --bind-to none -n 2 "$RFX" $ARGS) || exit 1
echo "# 10^4 cells: $ARGS"
echo "mpirun -n 2: ${t%% *} s; $(grep '^rfx: mpi:' "$tmp/err" | sed 's/^rfx: mpi: //')"

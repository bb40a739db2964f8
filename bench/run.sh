#!/bin/sh
#
# Runs rfx's benchmarks and prints one report (what each line means:
# bench/README.md). Called by `make bench` from the top directory, after
# rfx and bench/bin/* are built; takes about 5 minutes on 2 idle cores, a third of
# it the Tables 6.2-6.3 run.
#
#   bench/run.sh            everything
#   bench/run.sh --quick    the small programs once, no scaling, none of the experiment runs (about 30 s)
#   bench/run.sh --no-history   either, without touching bench/history.tsv
#
# Every run appends its numbers (the medians of the feature maps and the
# Python items, the experiments' wall and CPU times) to bench/history.tsv
# with the commit, date and machine model, and ends with each number's
# change against the previous run of its kind on the same machine model
# (bench/history.sh). A missed target is reported, not an error: the exit
# status is non-zero only when a benchmark itself fails.

set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1

quick=0
history=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--no-history) history=0 ;;
	*) echo "usage: bench/run.sh [--quick] [--no-history]" >&2; exit 2 ;;
	esac
	shift
done
RFX_BENCH_RECORD=$(mktemp) || exit 1
export RFX_BENCH_RECORD
trap 'rm -f "$RFX_BENCH_RECORD"' EXIT

# Wall-time targets in seconds on 2 cores for the experiment runs below.
FIG64_TARGET=30  # thesis Fig 6.4, analytic
HRF25_TARGET=20  # HRF Figs 2 and 5 (rfx pointwise defaults)
FIG6_TARGET=60   # HRF Fig 6 / Table 3 (rfx clustered defaults)
UCI_TARGET=300   # thesis Tables 6.2-6.3
status=0

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"

echo "# rfx benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
echo "# machine: ${cpu:-unknown CPU}, $cores cores online, $(uname -sm)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" \
	"(other load on the machine slows every line)"
echo

echo "## Feature maps: rfx, the dgemm floor and the peers (bench/featmaps.sh)"
if [ "$quick" -eq 1 ]; then
	bench/featmaps.sh --rounds 1 || status=1
else
	bench/featmaps.sh || status=1
fi
echo

echo "## rfx from Python: RandomFeatures.transform, RBFSampler and PyTorch (bench/python.sh)"
if [ "$quick" -eq 1 ]; then
	bench/python.sh --rounds 1 || status=1
else
	bench/python.sh || status=1
fi
echo

if [ "$quick" -eq 0 ]; then
	echo "## Scaling: rfx trig map against L (bench/featmaps.sh --scaling)"
	bench/featmaps.sh --scaling || status=1
	echo
fi

echo "## log I0 sums of the geometric features' variance (bench/bench_bessel)"
bench/bin/bench_bessel || status=1
echo

echo "## Attention at L = 65536, d = 64, M = 256 (bench/bench_attention)"
bench/bin/bench_attention || status=1
echo

echo "## Projection samplers at d = 1024 (bench/bench_proj)"
bench/bin/bench_proj || status=1
echo

# timed TITLE TARGET NOTE ITEM CMD...: prints TITLE, then runs CMD once
# (unless --quick) under bench/bin/runstat and prints its wall time against
# TARGET seconds, its CPU time (user + system, all threads) over the cores,
# its peak resident set and the load average around it, or why it failed;
# then NOTE. The times go to the history as run.ITEM.wall_s and .cpu_s.
timed() {
	t_title=$1 t_target=$2 t_note=$3 t_item=$4
	shift 4
	echo "## $t_title"
	if [ "$quick" -eq 1 ]; then
		echo "skipped (--quick)"
		echo
		return
	fi
	err=$(mktemp) || exit 1
	rep=$(mktemp) || exit 1
	l0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
	bench/bin/runstat "$@" >/dev/null 2>"$err" 3>"$rep"
	rc=$?
	l1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
	if [ "$rc" -ne 0 ] || ! grep -q '^runstat ' "$rep"; then
		echo "failed (exit $rc):"
		sed 's/^/  /' "$err"
		status=1
	else
		sed 's/[a-z_]*=//g' "$rep" | awk -v target="$t_target" -v note="$t_note" \
			-v cores="$cores" -v l0="$l0" -v l1="$l1" \
			-v item="$t_item" -v rec="$RFX_BENCH_RECORD" '{
			s = $3; cpu = $4 + $5
			printf "%-26s %10.1f s %8s %6d s %s\n", "wall time", s, "target <",
			       target, s < target ? "ok" : "SLOW"
			printf "%-26s %10.1f s %s\n", "CPU time / cores", cpu / cores,
			       "(user + sys over " cores " cores: the wall time on an idle machine, at best)"
			printf "%-26s %10.0f MiB\n", "peak resident set", $6 / 1024
			printf "# load average %s before, %s after; %s\n", l0, l1, note
			printf "run.%s.wall_s\t%.1f\ts\tlower\n", item, s >> rec
			printf "run.%s.cpu_s\t%.1f\ts\tlower\n", item, cpu / cores >> rec
		}'
	fi
	rm -f "$err" "$rep"
	echo
}

# script TITLE CMD...: a benchmark script's report under TITLE (unless --quick).
script() {
	echo "## $1"
	shift
	if [ "$quick" -eq 1 ]; then
		echo "skipped (--quick)"
	else
		"$@" || status=1
	fi
	echo
}

timed "Fig 6.4: ./rfx variance --method trig,hyb,gerf,pois,geom,pos,oprf,pois+,geom+ --regime all --mc 0 (defaults, analytic)" \
	"$FIG64_TARGET" \
	"4 regimes x 10 gammas x 5 samples x L = 1024 (1024^2 pairs each) x 9 methods, $cores threads" \
	fig6_4 ./rfx variance --method trig,hyb,gerf,pois,geom,pos,oprf,pois+,geom+ --regime all --mc 0

script "Your own sets: rfx variance --x-file X --y-file Y against Fig 6.4 (bench/userdata.sh)" \
	bench/userdata.sh

timed "HRF Figs 2 and 5: ./rfx pointwise (defaults)" "$HRF25_TARGET" \
	"3 lengths x 33 angles x 6 methods x s = 10000 estimates at d = 64, m = 128 or FLOP-matched; $cores threads" \
	hrf_fig2_5 ./rfx pointwise

timed "HRF Fig 6: ./rfx clustered (defaults)" "$FIG6_TARGET" \
	"4 sets x 3 methods x 7 m x 20 repetitions, MSE over 2000 x 2000 pairs each, and the closed forms; $cores threads" \
	hrf_fig6 ./rfx clustered

timed "Tables 6.2-6.3: ./rfx uci-classify --method all --projection both --seeds 50" "$UCI_TARGET" \
	"8 datasets x 15 method variants x 10 gammas x 50 seeds, $cores threads" \
	table6_2 ./rfx uci-classify --method all --projection both --seeds 50

script "MPI: mpirun -n 2 against the serial run (bench/mpi.sh)" bench/mpi.sh

if [ "$history" -eq 1 ]; then
	kind=full
	[ "$quick" -eq 1 ] && kind=quick
	echo "## History: this run against the previous $kind run on this machine model (bench/history.tsv)"
	bench/history.sh --file bench/history.tsv --commit "$commit" \
		--machine "${cpu:-unknown CPU}, $cores cores" --kind "$kind" \
		<"$RFX_BENCH_RECORD" || status=1
	echo
fi

exit $status

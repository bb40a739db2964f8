#!/bin/sh
#
# rfx from Python against the Python peers (issue 18): rfx.sklearn.
# RandomFeatures.transform (bench/pyitems.py, ctypes over librfx.so, the
# output in the memory of the previous one, which the caller dropped, and
# for trig also in a fresh NumPy array per call) beside scikit-learn's
# RBFSampler.transform (bench/peers/featmaps.py) and the same maps written
# in PyTorch on the CPU (bench/peers/torch_featmaps.py). Called by
# bench/run.sh; what the lines mean is in bench/README.md.
#
#   bench/python.sh [--rounds N]     L = 65536, d = 64, M = 256 projections
#
# Every item runs in a process of its own and the items take turns in
# rounds, each reporting the best of 2 runs after a warm-up, as in
# bench/featmaps.sh; times and ratios are medians over the rounds (each
# ratio taken within a round), recorded to $RFX_BENCH_RECORD when set. Without NumPy and scikit-learn the section is
# skipped; without PyTorch (Debian's python3-torch, in the bench section
# of tools/debian-packages) its lines say skipped. The exit status is
# non-zero only when a program fails; a missed target prints SLOW.

set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1
. bench/median.sh

rounds=5
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift ;;
	*) echo "usage: bench/python.sh [--rounds N]" >&2; exit 2 ;;
	esac
	shift
done

L=65536 d=64 M=256
RBF_TARGET=3     # RBFSampler.transform time / RandomFeatures.transform time
TORCH_TARGET=2   # PyTorch time / RandomFeatures.transform time
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$top/python${PYTHONPATH:+:$PYTHONPATH}"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
status=0

if ! "$PY" -c 'import numpy, sklearn' 2>/dev/null; then
	echo "# skipped: $PY has no NumPy or scikit-learn (python3-numpy, python3-sklearn)"
	exit 0
fi
if [ ! -e librfx.so.0 ]; then
	echo "# skipped: librfx.so.0 is not built (make lib)"
	exit 0
fi
torch=1
"$PY" -c 'import torch' 2>/dev/null || torch=0

item() {
	i_name=$1
	shift
	if line=$("$@" 2>/dev/null); then
		echo "$line" | awk -v n="$i_name" -v r="$r" '{ print n, $2, $3, $4, r }' >>"$out"
	else
		echo "# $i_name failed: $*" >&2
		status=1
	fi
}

tv=$([ "$torch" -eq 1 ] && "$PY" -c 'import torch; print(torch.__version__, "on as many threads as rfx")' 2>/dev/null)
echo "# L = $L, d = $d, M = $M projections; medians of $rounds rounds (each the best of 2 runs), one process per item and round"
echo "# rfx: OpenMP ${OMP_NUM_THREADS:-$(getconf _NPROCESSORS_ONLN)} threads; RBFSampler: NumPy's X @ W on OpenBLAS's threads, np.cos on one; PyTorch ${tv:-absent}"
r=0
while [ "$r" -lt "$rounds" ]; do
	item py-trig "$PY" bench/pyitems.py py-trig $L $d $M 2
	item py-trig-fresh "$PY" bench/pyitems.py py-trig-fresh $L $d $M 2
	item py-trig-half "$PY" bench/pyitems.py py-trig $L $d $((M / 2)) 2
	item py-trig-f32 "$PY" bench/pyitems.py py-trig-f32 $L $d $M 2
	item py-pos "$PY" bench/pyitems.py py-pos $L $d $M 2
	item py-oprf "$PY" bench/pyitems.py py-oprf $L $d $M 2
	item sklearn-rbf "$PY" bench/peers/featmaps.py sklearn-rbf $L $d $M 2
	if [ "$torch" -eq 1 ]; then
		item torch-trig "$PY" bench/peers/torch_featmaps.py torch-trig $L $d $M 2
		item torch-pos "$PY" bench/peers/torch_featmaps.py torch-pos $L $d $M 2
	fi
	r=$((r + 1))
done
awk -v rt="$RBF_TARGET" -v tt="$TORCH_TARGET" -v torch="$torch" \
    -v rec="${RFX_BENCH_RECORD:-}" "$MEDIAN_AWK"'
{ t[$1, $5] = $2; if ($5 + 1 > nr) nr = $5 + 1
  if ($3 > kib[$1]) kib[$1] = $3
  nf[$1] = $4 }
function row(who, name,    q) {
	q = med(name, "")
	if (q < 0) {
		printf "%-44s %9s\n", who, "-"
		return 0
	}
	printf "%-44s %9d %9.1f %9.0f\n", who, nf[name], q, kib[name] / 1024
	return 1
}
function ratio(slow, fast, target, what,    q) {
	q = med(slow, fast)
	if (q < 0)
		return
	if (rec != "")
		printf "python.%s.over_%s\t%.4g\tratio\thigher\n", slow, fast, q >> rec
	if (target > 0)
		printf "  %s: rfx %.2fx faster, >= %d %s\n", what, q, target,
		       (q >= target ? "ok" : "SLOW")
	else
		printf "  %s: %.2f\n", what, q
}
END {
	printf "%-44s %9s %9s %9s\n", "# implementation", "columns", "ms", "peak MiB"
	row("RandomFeatures(trig).transform", "py-trig")
	row("RandomFeatures(trig), fresh output array", "py-trig-fresh")
	row("RandomFeatures(trig), M/2 (same width)", "py-trig-half")
	row("RandomFeatures(trig), float32", "py-trig-f32")
	row("RandomFeatures(pos).transform", "py-pos")
	row("RandomFeatures(oprf).transform", "py-oprf")
	row("sklearn RBFSampler.transform", "sklearn-rbf")
	if (torch) {
		row("PyTorch trig map (bench/peers)", "torch-trig")
		row("PyTorch pos map (bench/peers)", "torch-pos")
	} else
		printf "%-44s skipped: no PyTorch (python3-torch)\n", "PyTorch maps (bench/peers)"
	ratio("sklearn-rbf", "py-trig", rt, "RBFSampler.transform / RandomFeatures(trig), 256 projections")
	ratio("sklearn-rbf", "py-trig-fresh", 0, "RBFSampler.transform / RandomFeatures(trig), fresh output")
	ratio("sklearn-rbf", "py-oprf", rt, "RBFSampler.transform / RandomFeatures(oprf), same width")
	ratio("sklearn-rbf", "py-trig-half", 0, "RBFSampler.transform / RandomFeatures(trig, M/2), same width")
	ratio("py-trig", "py-trig-f32", 0, "RandomFeatures(trig) float64 / float32 input")
	if (torch) {
		ratio("torch-trig", "py-trig", tt, "PyTorch trig / RandomFeatures(trig)")
		ratio("torch-pos", "py-pos", tt, "PyTorch pos / RandomFeatures(pos)")
	}
}' "$out"
exit $status

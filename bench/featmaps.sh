#!/bin/sh
#
# The feature maps side by side: rfx's (bench/bin/bench_featmap --item),
# the dgemm of the same shape that every map must do (the floor), and the
# peers a researcher would use instead (bench/peers/featmaps.py: NumPy,
# scikit-learn's RBFSampler). Called by bench/run.sh; what the lines mean
# is in bench/README.md.
#
#   bench/featmaps.sh [--rounds N]    the table, L = 65536, d = 64, M = 256
#   bench/featmaps.sh --scaling       rfx's trig map against L = 2^12 .. 2^18
#
# Every item runs in a process of its own, so that its peak resident set
# is its own; the items take turns in rounds (load from elsewhere hits
# them alike) and each reports the best of 2 runs after a warm-up, so a
# time is the best of 2 x rounds runs. The exit status is non-zero only
# when a program fails; a missed target prints SLOW.

set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1

rounds=5
mode=table
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift ;;
	--scaling) mode=scaling ;;
	*) echo "usage: bench/featmaps.sh [--rounds N] [--scaling]" >&2; exit 2 ;;
	esac
	shift
done

L=65536 d=64 M=256
MAP_TARGET=1.5   # largest map time / dgemm time
PEER_TARGET=3    # smallest peer time / rfx time
PY=${PYTHON:-/usr/bin/python3}
bin=bench/bin/bench_featmap
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
status=0

# item NAME CMD...: runs CMD, appends "NAME ms KiB features" to $out.
item() {
	i_name=$1
	shift
	if line=$("$@" 2>/dev/null); then
		echo "$line" | awk -v n="$i_name" '{ print n, $2, $3, $4 }' >>"$out"
	else
		echo "# $i_name failed: $*" >&2
		status=1
	fi
}

threads="rfx: OpenMP ${OMP_NUM_THREADS:-$(getconf _NPROCESSORS_ONLN)} threads, one OpenBLAS thread per block of rows; dgemm and NumPy's X @ W: OpenBLAS ${OPENBLAS_NUM_THREADS:-$(getconf _NPROCESSORS_ONLN)} threads; NumPy's cos, sin, exp: 1 thread"

if [ "$mode" = scaling ]; then
	echo "# rfx trig map, d = $d, M = $M; best of $rounds rounds x 2 runs, one process per L and round"
	r=0
	while [ "$r" -lt "$rounds" ]; do
		for e in 12 13 14 15 16 17 18; do
			item "L=$((1 << e))" "$bin" --item trig $((1 << e)) $d $M 2
		done
		r=$((r + 1))
	done
	awk '
	{ split($1, a, "="); l = a[2] + 0
	  if (!(l in best) || $2 < best[l]) { best[l] = $2; kib[l] = $3 } }
	END {
		printf "%-10s %10s %12s %10s\n", "# L", "ms", "ns per row", "peak MiB"
		n = 0
		for (e = 12; e <= 18; e++) {
			l = 2 ^ e
			if (!(l in best))
				continue
			printf "%-10d %10.2f %12.1f %10.0f\n", l, best[l],
			       1e6 * best[l] / l, kib[l] / 1024
			x = log(l); y = log(best[l])
			sx += x; sy += y; sxx += x * x; sxy += x * y; n++
		}
		if (n > 1)
			printf "# fitted exponent (least squares, log time on log L): %.3f (1 is linear)\n",
			       (n * sxy - sx * sy) / (n * sxx - sx * sx)
	}' "$out"
	exit $status
fi

peers=1
if ! "$PY" -c 'import numpy, sklearn' 2>/dev/null; then
	peers=0
fi
echo "# L = $L, d = $d, M = $M; best of $rounds rounds x 2 runs, one process per item and round"
echo "# threads: $threads"
r=0
while [ "$r" -lt "$rounds" ]; do
	item dgemm "$bin" --item dgemm $L $d $M 2
	item trig "$bin" --item trig $L $d $M 2
	item trig-half "$bin" --item trig $L $d $((M / 2)) 2
	if [ "$peers" -eq 1 ]; then
		item numpy-trig "$PY" bench/peers/featmaps.py numpy-trig $L $d $M 2
		item sklearn-rbf "$PY" bench/peers/featmaps.py sklearn-rbf $L $d $M 2
		item sklearn-rbf-fit "$PY" bench/peers/featmaps.py sklearn-rbf-fit $L $d $M 2
	fi
	item pos "$bin" --item pos $L $d $M 2
	if [ "$peers" -eq 1 ]; then
		item numpy-pos "$PY" bench/peers/featmaps.py numpy-pos $L $d $M 2
	fi
	item oprf "$bin" --item oprf $L $d $M 2
	item ang "$bin" --item ang $L $d $M 2
	item sderf "$bin" --item sderf $L $d $M 2
	r=$((r + 1))
done
awk -v mt="$MAP_TARGET" -v pt="$PEER_TARGET" -v peers="$peers" '
function row(op, who, name, feat,    t, s) {
	if (!(name in best)) {
		printf "%-10s %-30s %-13s %9s\n", op, who, feat, "-"
		return
	}
	t = best[name]
	printf "%-10s %-30s %-13s %9.1f %8.2f %9.0f", op, who, feat, t,
	       t / best["dgemm"], kib[name] / 1024
}
{ if (!($1 in best) || $2 < best[$1]) { best[$1] = $2; kib[$1] = $3 }
  nf[$1] = $4 }
END {
	printf "%-10s %-30s %-13s %9s %8s %9s  %s\n", "# op", "implementation",
	       "features", "ms", "x dgemm", "peak MiB", "target"
	row("project", "OpenBLAS dgemm (the floor)", "dgemm", "L x M"); printf "\n"
	for (i = 1; i <= 5; i++) {
		m = (i == 1 ? "trig" : (i == 2 ? "pos" : (i == 3 ? "oprf" : (i == 4 ? "ang" : "sderf"))))
		feat = nf[m] ((m == "trig" || m == "ang") ? " complex" : " real")
		row(m " map", "rfx " m, m, feat)
		if (m in best && "dgemm" in best) {
			q = best[m] / best["dgemm"]
			printf "  x dgemm <= %.1f %s\n", mt, (q <= mt ? "ok" : "SLOW")
		}
		if (m != "trig" && m != "pos")
			continue
		np = 0
		split(m == "trig" ? "numpy-trig sklearn-rbf sklearn-rbf-fit" : "numpy-pos", ps, " ")
		for (k in ps) np++
		for (k = 1; k <= np; k++) {
			p = ps[k]
			if (p ~ /^numpy/)
				who = "NumPy (bench/peers)"
			else if (p == "sklearn-rbf")
				who = "sklearn RBFSampler.transform"
			else
				who = "sklearn RBFSampler.fit_transform"
			if (!peers) {
				printf "%-10s %-30s skipped: no NumPy/scikit-learn for the peers\n", "", who
				continue
			}
			row("", who, p, nf[p] " real")
			if (p in best && m in best) {
				q = best[p] / best[m]
				printf "  rfx %.2fx faster, >= %d %s\n", q, pt, (q >= pt ? "ok" : "SLOW")
			} else
				printf "\n"
		}
		# RBFSampler returns M real features cos(w.x + b); rfx trig at
		# M/2 complex returns as many real numbers, [cos, sin] (the
		# lower-variance form): the same output width.
		if (m == "trig" && peers) {
			row("", "rfx trig, M/2 (same width)", "trig-half", nf["trig-half"] " complex")
			if ("trig-half" in best && "sklearn-rbf" in best)
				printf "  RBFSampler.transform / this: %.2f\n",
				       best["sklearn-rbf"] / best["trig-half"]
			else
				printf "\n"
		}
	}
}' "$out"
exit $status

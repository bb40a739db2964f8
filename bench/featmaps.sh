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
# them alike) and each reports the best of 2 runs after a warm-up. The
# table gives medians over the rounds: of the times, and of each ratio
# taken within a round (issue 23: a best-of would flatter the thinnest
# margin). The float32 maps (trig32, pos32, oprf32, sderf32) are compared
# with their float64 maps, in wall time and, since a loaded machine moves
# that much more, in CPU time (all threads, bench_featmap's last field). With RFX_BENCH_RECORD set, the medians are
# also appended there as "item value unit better" lines (bench/run.sh's
# history, bench/history.sh). The exit status is non-zero only when a
# program fails; a missed target prints SLOW.

set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$top" || exit 1
. bench/median.sh

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
MAP_TARGET=0.75  # largest map time / dgemm time (issue 23): trig pos oprf and the DERFs
ANG_TARGET=1.5   # the same for ang (216 complex features)
F32_TARGET=0.5   # largest float32 map time / float64 map time (issue 23)
PEER_TARGET=3    # smallest peer time / rfx time (NumPy, fit_transform)
RBF_TARGET=3.5   # the same for RBFSampler.transform (issue 23)
PY=${PYTHON:-/usr/bin/python3}
bin=bench/bin/bench_featmap
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
status=0

# pair NAME: the map NAME after its reference (the dgemm; the float64
# map for a float32 one), run by run, in one process (bench_featmap
# --pair); appends "NAME@pair RATIO" with the median of its runs' ratios
# as the time field, which the table's ratio columns read.
pair() {
	if line=$("$bin" --pair "$1" $L $d $M 3 2>/dev/null); then
		echo "$line" | awk -v n="$1@pair" -v r="${round:-0}" '{ print n, $6, 0, $4, r }' >>"$out"
	else
		echo "# $1 --pair failed" >&2
		status=1
	fi
}

# item NAME CMD...: runs CMD, appends "NAME ms KiB features" to $out.
item() {
	i_name=$1
	shift
	if line=$("$@" 2>/dev/null); then
		echo "$line" | awk -v n="$i_name" -v r="${round:-0}" '{ print n, $2, $3, $4, r, $5 }' >>"$out"
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
echo "# L = $L, d = $d, M = $M; $rounds rounds, one process per item and round, each the best of 2 runs;"
echo "# times and ratios are medians over the rounds (a ratio is taken within each round: load hits both alike);"
echo "# x dgemm of a float64 map, x float64 map of a float32 one: the median of its runs' times over its reference's run just before each, in one process (--pair)"
echo "# threads: $threads"
r=0
while [ "$r" -lt "$rounds" ]; do
	round=$r
	item dgemm "$bin" --item dgemm $L $d $M 2
	item trig "$bin" --item trig $L $d $M 2
	pair trig
	item trig32 "$bin" --item trig32 $L $d $M 2
	pair trig32
	item trig-half "$bin" --item trig $L $d $((M / 2)) 2
	if [ "$peers" -eq 1 ]; then
		item numpy-trig "$PY" bench/peers/featmaps.py numpy-trig $L $d $M 2
		item sklearn-rbf "$PY" bench/peers/featmaps.py sklearn-rbf $L $d $M 2
		item sklearn-rbf-fit "$PY" bench/peers/featmaps.py sklearn-rbf-fit $L $d $M 2
	fi
	item pos "$bin" --item pos $L $d $M 2
	pair pos
	item pos32 "$bin" --item pos32 $L $d $M 2
	pair pos32
	if [ "$peers" -eq 1 ]; then
		item numpy-pos "$PY" bench/peers/featmaps.py numpy-pos $L $d $M 2
	fi
	item oprf "$bin" --item oprf $L $d $M 2
	pair oprf
	item oprf32 "$bin" --item oprf32 $L $d $M 2
	pair oprf32
	item ang "$bin" --item ang $L $d $M 2
	pair ang
	item sderf "$bin" --item sderf $L $d $M 2
	pair sderf
	item sderf32 "$bin" --item sderf32 $L $d $M 2
	pair sderf32
	item aderf "$bin" --item aderf $L $d $M 2
	pair aderf
	item saderf "$bin" --item saderf $L $d $M 2
	pair saderf
	r=$((r + 1))
done
awk -v mt="$MAP_TARGET" -v at="$ANG_TARGET" -v ft="$F32_TARGET" \
    -v pt="$PEER_TARGET" -v rt="$RBF_TARGET" -v peers="$peers" \
    -v rec="${RFX_BENCH_RECORD:-}" "$MEDIAN_AWK"'
function record(name, value, unit, better) {
	if (rec != "" && value >= 0)
		printf "%s\t%.4g\t%s\t%s\n", name, value, unit, better >> rec
}
function row(op, who, name, feat,    q, x) {
	q = med(name, "")
	if (q < 0) {
		printf "%-10s %-30s %-13s %9s\n", op, who, feat, "-"
		return
	}
	x = name ~ /32$/ ? -1 : med(name "@pair", "")  # paired with the dgemm
	if (x < 0)
		x = med(name, "dgemm")
	printf "%-10s %-30s %-13s %9.1f %8.2f %9.0f", op, who, feat, q,
	       x, kib[name] / 1024
	record("featmaps." name ".ms", q, "ms", "lower")
}
{ t[$1, $5] = $2; if ($5 + 1 > nr) nr = $5 + 1
  if ($6 != "") t[$1 "@cpu", $5] = $6
  if ($3 > kib[$1]) kib[$1] = $3
  nf[$1] = $4 }
END {
	printf "%-10s %-30s %-13s %9s %8s %9s  %s\n", "# op", "implementation",
	       "features", "ms", "x dgemm", "peak MiB", "target"
	row("project", "OpenBLAS dgemm (the floor)", "dgemm", "L x M"); printf "\n"
	nm = split("trig pos oprf ang sderf aderf saderf", maps, " ")
	for (i = 1; i <= nm; i++) {
		m = maps[i]
		feat = nf[m] ((m == "trig" || m == "ang") ? " complex" : " real")
		tg = m == "ang" ? at : mt
		row(m " map", "rfx " m, m, feat)
		q = med(m "@pair", "")  # with the same fallback as in row()
		if (q < 0)
			q = med(m, "dgemm")
		if (q >= 0) {
			printf "  x dgemm <= %.2f %s\n", tg, (q <= tg ? "ok" : "SLOW")
			record("featmaps." m ".x_dgemm", q, "ratio", "lower")
		}
		if ((m "32") in nf) {
			row("", "rfx " m ", float32", m "32", feat)
			q = med(m "32@pair", "")  # paired with the float64 map
			if (q < 0)
				q = med(m "32", m)
			c = med(m "32@cpu", m "@cpu")
			if (q >= 0) {
				printf "  x float64 map %.2f (CPU time %.2f), <= %.1f %s\n",
				       q, c, ft, (q <= ft ? "ok" : "SLOW")
				record("featmaps." m "32.x_f64", q, "ratio", "lower")
				record("featmaps." m "32.x_f64_cpu", c, "ratio", "lower")
			} else
				printf "\n"
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
			q = med(p, m)
			tg = p == "sklearn-rbf" ? rt : pt
			if (q >= 0) {
				printf "  rfx %.2fx faster, >= %.1f %s\n", q, tg, (q >= tg ? "ok" : "SLOW")
				record("featmaps." p ".over_rfx", q, "ratio", "higher")
			} else
				printf "\n"
		}
		# RBFSampler returns M real features cos(w.x + b); rfx trig at
		# M/2 complex returns as many real numbers, [cos, sin] (the
		# lower-variance form): the same output width.
		if (m == "trig" && peers) {
			row("", "rfx trig, M/2 (same width)", "trig-half", nf["trig-half"] " complex")
			q = med("sklearn-rbf", "trig-half")
			if (q >= 0) {
				printf "  RBFSampler.transform / this: %.2f\n", q
				record("featmaps.sklearn-rbf.over_trig_half", q, "ratio", "higher")
			} else
				printf "\n"
		}
	}
}' "$out"
exit $status

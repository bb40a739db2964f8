#!/bin/sh
# Beyond the papers (issue 19): the SimRF paper's (Reid et al., ICML 2023)
# claims on exact variances. SimRF has the smallest MSE among
# weight-independent couplings of positive random features; SimRF+ is
# better still.
#
# OUT.h5: rfx variance --map sum, the exact variance of PosRF and OPRF
# (M = 64 features) on i.i.d., ORF, SimRF and norm-coupled ORF (ort-anti)
# projections against w = |x + y|^2 in (0, 20], d = 4, 8, 16, 64 (closed
# forms of lib/est/coupvar.h; for these estimators Var/K^2 depends on the
# pair through w alone, so x = y = (sqrt(w)/2) e1 loses nothing). M = 64
# is a multiple of every d, and then Var_P / Var_ort does not depend on M.
#
# OUT.mc.tsv: SimRF+ has no closed form (its directions depend on the
# norms): Monte Carlo of simplex and simplex+ side by side, M = d (one
# block), R draws, at w = 0.5 and 2 (where the estimators' tails are
# light enough for a feasible R to resolve a few per cent), d = 4, 8, 16,
# with simplex's closed form beside: rfx variance pair mode rows with the
# pair's d, w and projection in front.
#
# usage: experiments/beyond_simrf.sh OUT.h5   (SCALE=fast: coarser grid, R = 4000)
# Cost: about 10 CPU-s at full scale, nearly all of it the Monte Carlo.
set -eu
RFX=${RFX:-./rfx}
out=$1
case "${SCALE:-full}" in
full) steps=40 R=40000 ;;
fast) steps=10 R=4000 ;;
*) echo "beyond_simrf.sh: SCALE must be full or fast" >&2; exit 2 ;;
esac
trap 'rm -f "$out.mc.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$RFX" variance --map sum --method pos,oprf --d 4,8,16,64 --features 64 \
	--steps "$steps" --w-max 20 --projection iid,ort,simplex,ort-anti \
	-o "$out" >/dev/null
first=1
for d in 4 8 16; do
	for w in 0.5 2; do
		x=$(awk -v d="$d" -v w="$w" 'BEGIN { printf "%.17g", sqrt(w) / 2; for (l = 1; l < d; l++) printf ",0"; print "" }')
		for p in simplex simplex+; do
			"$RFX" variance --x "$x" --y "$x" --method pos,oprf --features "$d" \
				--projection "$p" --mc "$R" --seed 20231 2>/dev/null |
				awk -F'\t' -v d="$d" -v w="$w" -v p="$p" -v first="$first" '
					NR == 1 { if (first) print "pair_d\tw\tprojection\t" $0; next }
					{ print d "\t" w "\t" p "\t" $0 }' >>"$out.mc.tmp"
			first=0
		done
	done
done
mv "$out.mc.tmp" "$out.mc.tsv"

#!/bin/sh
# Beyond the papers (issue 19): the variance of PosRF and OPRF on coupled
# projections relative to ORF (ort), against the input norm, d in
# {4, 8, 16, 64}, one block (M = d). Pairs x = r e_1, y = r (cos 60, sin 60,
# 0, ...), r = 0.25 .. 2. The closed form (lib/est/coupvar.h; column
# closed_form) for ort, simplex and ort-anti, Monte Carlo beside it for
# every projection, simplex+ by Monte Carlo only (no closed form). A
# Monte Carlo variance of a heavy-tailed estimator under-reports: compare
# mc_log_variance with log_variance where both exist.
#
# Output: TSV on OUT, one row per d, r, method, projection, with ratio =
# Var / Var_ort (closed form, or Monte Carlo for simplex+).
# Cost: 4 x 6 x 4 pair runs; SCALE=fast 500 draws each (about 20 s of CPU),
# full 20000 (about 10 min).
#
# usage: experiments/beyond_ratio.sh OUT.tsv
set -eu
RFX=${RFX:-./rfx}
out=$1
case "${SCALE:-full}" in
full) R=20000 ;;
fast) R=500 ;;
*) echo "beyond_ratio.sh: SCALE must be full or fast" >&2; exit 2 ;;
esac
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$out.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf 'd\tr\tmethod\tprojection\tclosed_form\tlog_variance\tmc_log_variance\tmc_log_variance_se\tratio\n' >"$out.tmp"
for d in 4 8 16 64; do
	for r in 0.25 0.5 0.75 1 1.5 2; do
		x=$(awk -v d="$d" -v r="$r" 'BEGIN { printf "%.17g", r; for (l = 1; l < d; l++) printf ",0"; print "" }')
		y=$(awk -v d="$d" -v r="$r" 'BEGIN { printf "%.17g,%.17g", r * 0.5, r * sqrt(0.75); for (l = 2; l < d; l++) printf ",0"; print "" }')
		: >"$tmp"
		for p in ort simplex simplex+ ort-anti; do
			"$RFX" variance --x "$x" --y "$y" --method pos,oprf --features "$d" \
				--projection "$p" --mc "$R" --seed 20231 2>/dev/null |
				awk -F'\t' -v d="$d" -v r="$r" -v p="$p" 'NR > 1 {
					print d "\t" r "\t" $1 "\t" p "\t" $8 "\t" $7 "\t" $13 "\t" $14 }' >>"$tmp"
		done
		awk -F'\t' '{ row[NR] = $0; m[NR] = $3; p[NR] = $4; cf[NR] = $5; lv[NR] = $6; mc[NR] = $7
			if ($4 == "ort") { ort[$3] = $6; ortmc[$3] = $7 } }
		END { for (i = 1; i <= NR; i++) {
			v = cf[i] == p[i] ? lv[i] : mc[i]
			b = cf[i] == p[i] ? ort[m[i]] : ortmc[m[i]]
			printf "%s\t%.6g\n", row[i], exp(v - b) } }' "$tmp" >>"$out.tmp"
	done
done
mv "$out.tmp" "$out"

#!/bin/sh
# HRF appendix H's claim ("HRF estimators adapted to clustered data
# consistently provide notable accuracy gains") over data draws: for data
# seeds 1..N (default 10) and each of the four sets, the closed-form
# expected MSE (table exact, which does not depend on the repetitions) of
# Hybrid-Cluster, FAVOR+ (pos), TrigRF and HRF's eq. 3 estimator (posh) at
# m = 100, and the ratios of the others' to Hybrid-Cluster's. The expected
# MSE is proportional to 1/m for every method, so the ratios hold at
# every m. Prints a Markdown table (docs/REPRODUCTION.md).
#
# usage: experiments/hrf3_seeds.sh [N]
set -eu
RFX=${RFX:-./rfx}
n=${1:-10}
tmp=$(mktemp -d)
# INT and TERM exit through the EXIT trap, which a shell killed by an
# untrapped signal would not run.
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
s=1
while [ "$s" -le "$n" ]; do
	"$RFX" clustered --m 100 --reps 1 --method hyb-cluster,pos,trig,posh \
		--seed "$s" -o "$tmp/s.h5" > /dev/null
	"$RFX" dump "$tmp/s.h5" exact | awk -F'\t' -v s="$s" 'NR > 1 { print s "\t" $1 "\t" $3 "\t" $5 }'
	s=$((s + 1))
done > "$tmp/exact.tsv"
awk -F'\t' -v n="$n" '
{ v[$1, $2, $3] = $4 }
END {
	print "| set | pos / hyb-cluster, seeds 1.." n " | median | trig / hyb-cluster median | hyb-cluster below pos | below trig | below posh |"
	print "|---|---|---|---|---|---|---|"
	for (set = 1; set <= 4; set++) {
		line = ""; bp = bt = bq = 0
		for (s = 1; s <= n; s++) {
			h = v[s, set, "hyb-cluster"]
			rp[s] = v[s, set, "pos"] / h; rt[s] = v[s, set, "trig"] / h
			line = line (s > 1 ? " " : "") sprintf("%.2g", rp[s])
			bp += h < v[s, set, "pos"]; bt += h < v[s, set, "trig"]
			bq += h < v[s, set, "posh"]
		}
		printf "| %d | %s | %.2g | %.2g | %d/%d | %d/%d | %d/%d |\n", set, line,
		       median(rp, n), median(rt, n), bp, n, bt, n, bq, n
	}
}
function median(a, n,    b, i, j, t) {
	for (i = 1; i <= n; i++) b[i] = a[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && b[j - 1] > b[j]; j--) { t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}' "$tmp/exact.tsv"

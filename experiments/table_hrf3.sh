#!/bin/sh
# HRF Table 3 beside rfx's, and the paper's claim in numbers, as Markdown
# (the tables of docs/REPRODUCTION.md): for each set and m the [min, max]
# of the empirical MSE over repetitions, rfx's next to the paper's
# (experiments/reference/hrf_table3.tsv; its FAVOR+ beside rfx's pos); then,
# per set, the mean MSE of each method over the repetitions and the
# ratio of pos's and trig's means to the hybrid's.
#
# usage: experiments/table_hrf3.sh IN.h5 (from experiments/fig_hrf6.sh)
set -eu
RFX=${RFX:-./rfx}
here=$(dirname "$0")
"$RFX" dump "$1" table3 | awk -F'\t' -v paper="$here/reference/hrf_table3.tsv" '
BEGIN {
	while ((getline l < paper) > 0) {
		if (l ~ /^#/ || l ~ /^set/) continue
		split(l, f, "\t")
		p[f[1] " " f[2] " " f[3]] = sprintf("[%.4f, %.4f]", f[4], f[5])
	}
}
NR == 1 { next }
{
	k = $1 " " $5 " " $4
	r[k] = sprintf("[%.4f, %.4f]", $7, $8)
	mean[k] = $9
	sig[$1] = $2; s[$1] = $3
	if (!(($1 " " $5) in seenm)) { seenm[$1 " " $5] = 1; ms[$1] = ms[$1] " " $5 }
	if (!($1 in seens)) { seens[$1] = 1; sets = sets " " $1 }
}
END {
	n = split(sets, S, " ")
	for (i = 1; i <= n; i++) {
		x = S[i]
		printf "\n**Set %d**: s = (%s), sigma = %.4g\n\n", x, s[x], sig[x]
		print "| m | Hybrid-Cluster rfx | paper | FAVOR+ rfx (pos) | paper | trig rfx | paper |"
		print "|---|---|---|---|---|---|---|"
		c = split(ms[x], M, " ")
		for (j = 1; j <= c; j++) {
			m = M[j]
			printf "| %d | %s | %s | %s | %s | %s | %s |\n", m,
			       r[x " " m " hyb-cluster"], p[x " " m " hyb-cluster"],
			       r[x " " m " pos"], p[x " " m " favor+"],
			       r[x " " m " trig"], p[x " " m " trig"]
		}
	}
	printf "\n**Means over repetitions** (Fig 6) and the ratios to Hybrid-Cluster\n\n"
	print "| set | m | hyb-cluster | pos | trig | posh | pos / hyb | trig / hyb | posh / hyb |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		x = S[i]
		c = split(ms[x], M, " ")
		for (j = 1; j <= c; j++) {
			m = M[j]; h = mean[x " " m " hyb-cluster"]
			printf "| %d | %d | %.4f | %.4f | %.4f | %.4f | %.2f | %.2f | %.2f |\n", x, m, h,
			       mean[x " " m " pos"], mean[x " " m " trig"], mean[x " " m " posh"],
			       mean[x " " m " pos"] / h, mean[x " " m " trig"] / h,
			       mean[x " " m " posh"] / h
		}
	}
}'

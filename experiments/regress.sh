#!/bin/sh
# The MSE tables at a CI-sized scale with fixed seeds, against the
# reference tables committed in results/reference/ (make regress), or
# rewriting those references (make regress-update, the only way they
# change). Each table is one rfx mse-table command line below; --check
# compares cell by cell with tolerances from the Monte Carlo standard
# errors (lib/io/regress.h) and exits 1 when a cell differs beyond them.
#
#   experiments/regress.sh check    compare (exit 1 on a difference)
#   experiments/regress.sh update   rewrite results/reference/*.tsv
set -eu
RFX=${RFX:-./rfx}
ref=results/reference
mode=${1:-check}
case $mode in
check | update) ;;
*) echo "usage: experiments/regress.sh check|update" >&2; exit 2 ;;
esac

# name, then the arguments of rfx mse-table.
tables() {
	# HRF Table 1: softmax kernel on wine and Boston, the five methods.
	echo "hrf_table1 --dataset wine,boston --features 512 --pairs 100 --draws 5 --reps 20"
	# ORF Fig 4: Gaussian kernel against D/d on letter and USPS.
	echo "orf_fig4 --kernel gauss --dataset letter,usps --pad pow2 --match none" \
	     "--method RFF=trig:iid,ORF=trig:ort,SORF=trig:sorf,QMC=trig:halton-scr" \
	     "--ratio 1,2,4 --pairs 100 --draws 1 --reps 20 --nn-sample 500"
}

# An interrupted update leaves no partial reference: the loop runs in a
# subshell, so the traps are here, and INT and TERM exit through EXIT.
trap 'rm -f "$ref"/*.tsv.tmp' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
tables | while read -r name args; do
	# shellcheck disable=SC2086
	if [ "$mode" = update ]; then
		mkdir -p "$ref"
		"$RFX" mse-table $args > "$ref/$name.tsv.tmp" 2>/dev/null
		mv "$ref/$name.tsv.tmp" "$ref/$name.tsv"
		echo "regress: wrote $ref/$name.tsv" >&2
	elif "$RFX" mse-table $args --check "$ref/$name.tsv" \
		> "results/regress_$name.tsv" 2> "results/regress_$name.err"; then
		echo "regress: $name ok ($(awk 'END {print NR - 1}' "results/regress_$name.tsv") cells)" >&2
	else
		echo "regress: $name FAILED; cells beyond their tolerance:" >&2
		awk -F'\t' 'NR == 1 || $8 != "ok"' "results/regress_$name.tsv" >&2
		grep -v '^rfx: seed' "results/regress_$name.err" >&2
		exit 1
	fi
done || status=1
exit $status

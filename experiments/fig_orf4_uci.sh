#!/bin/sh
# ORF Fig 4 beyond the paper: the same comparison on the UCI datasets of
# data/, with z-scored columns (their raw units differ by orders of
# magnitude: wine's proline is ~1000, its hue ~1), zero-padded to a power
# of 2 as the paper does.
#
# usage: experiments/fig_orf4_uci.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
# An interrupted or failed run leaves no partial table (rfx removes its
# own temporary .h5): without the INT and TERM traps a shell killed by a
# signal would not run the EXIT trap.
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
ratios=1,2,4,6,8,10 reps=10 pairs=200
data=wine,boston,abalone,wifi,banknote,optdigits,yeast
[ "${SCALE:-full}" = fast ] && ratios=1,2 reps=2 pairs=20 data=wine,wifi
"$RFX" mse-table --kernel gauss --dataset "$data" --norm zscore --pad pow2 \
	--method RFF=trig:iid,ORF=trig:ort,SORF=trig:sorf,QMC=trig:halton-scr \
	--ratio "$ratios" --match none --pairs "$pairs" --draws 1 --reps "$reps" \
	-o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

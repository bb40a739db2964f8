#!/bin/sh
# ORF Fig 5c: fewer Hadamard-diagonal blocks on MNIST (d = 1024 padded):
# HD, HDHD and HDHDHD (= SORF), with ORF for reference, against D/d.
#
# usage: experiments/fig_orf5c.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
# An interrupted or failed run leaves no partial table (rfx removes its
# own temporary .h5): without the INT and TERM traps a shell killed by a
# signal would not run the EXIT trap.
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
ratios=1,2,4,6,8,10 reps=10 pairs=200
[ "${SCALE:-full}" = fast ] && ratios=1,2 reps=2 pairs=20
"$RFX" mse-table --kernel gauss --dataset mnist --pad pow2 \
	--method HD=trig:hd,HDHD=trig:hdhd,HDHDHD=trig:sorf,ORF=trig:ort \
	--ratio "$ratios" --match none --pairs "$pairs" --draws 1 --reps "$reps" \
	-o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

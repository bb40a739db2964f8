#!/bin/sh
# ORF Fig 4: the Gaussian kernel's MSE against D/d for RFF, ORF, SORF and
# QMC (scrambled Halton, our stand-in for the paper's digital net) on the
# paper's datasets that data/ has: letter (d = 16), USPS (d = 256) and the
# 10000 MNIST test images (d = 784 zero-padded to 1024, as the paper pads
# to a power of 2). sigma is the mean distance to the 50th nearest
# neighbour of 1000 sampled inputs; each repetition draws new pairs and a
# new estimator. Inputs are raw (sigma makes the global scale irrelevant).
#
# usage: experiments/fig_orf4.sh OUT.h5   (the table also goes to OUT.tsv)
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
"$RFX" mse-table --kernel gauss --dataset letter,usps,mnist --pad pow2 \
	--method RFF=trig:iid,ORF=trig:ort,SORF=trig:sorf,QMC=trig:halton-scr \
	--ratio "$ratios" --match none --pairs "$pairs" --draws 1 --reps "$reps" \
	-o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

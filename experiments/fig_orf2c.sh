#!/bin/sh
# ORF Fig 2(c): the distribution of z = |x - y|/sigma over random pairs of
# inputs of the paper's datasets that data/ has (letter, d = 16; USPS,
# d = 256; the 10000 MNIST test images, d = 784), at the bandwidth of ORF
# Fig 4 (experiments/fig_orf4.sh): sigma the mean distance to the 50th
# nearest neighbour of 1000 sampled inputs, inputs raw. A density over
# bins of width 0.1 (the paper's "area under curve for each dataset is 1")
# and the fraction of pairs below each bin's end.
#
# usage: experiments/fig_orf2c.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
# An interrupted or failed run leaves no partial table (rfx removes its
# own temporary .h5): without the INT and TERM traps a shell killed by a
# signal would not run the EXIT trap.
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
pairs=100000 nn=1000
[ "${SCALE:-full}" = fast ] && pairs=20000 nn=200
"$RFX" mse-table --z-hist --dataset letter,usps,mnist --nn-sample "$nn" \
	--pairs "$pairs" --z-max 5 --z-steps 50 -o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

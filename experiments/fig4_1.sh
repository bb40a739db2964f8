#!/bin/sh
# Thesis Fig 4.1: variance of PosRF and TrigRF as a function of the common
# length r = |x| = |y| and the angle theta between x and y (one feature
# each; the variances depend on r and theta only).
#
# usage: experiments/fig4_1.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
steps=60
[ "${SCALE:-full}" = fast ] && steps=12
"$RFX" variance --map angle --method trig,pos --features 1 --d 2 \
	--r-max 2 --steps "$steps" -o "$1" >/dev/null

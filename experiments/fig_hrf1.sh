#!/bin/sh
# HRF Fig 1: closed-form MSE of the softmax-kernel estimators TrigRF
# (trig), the positive cosh estimator (posh, HRF's FAVOR+) and the
# angular hybrid (ang, m = 10 base features, n = 1 angular feature) over
# the angle theta and the length r <= 5, m = 10 for all.
#
# usage: experiments/fig_hrf1.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
steps=40 thetas=60
[ "${SCALE:-full}" = fast ] && steps=10 thetas=15
"$RFX" pointwise --map --method trig,posh,ang --features 10 --match none \
	--param ang:m3=1 --r-max 5 --steps "$steps" --thetas "$thetas" \
	-o "$1" >/dev/null

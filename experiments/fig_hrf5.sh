#!/bin/sh
# HRF Figs 2 and 5: s = 10000 estimates of SM(x, y) per angle for 64-dim
# inputs of length r in {1, 1.25, 1.5}: TrigRF and the cosh estimator
# with m = 128, the hybrids FLOP-matched to them, and, beyond the paper,
# PosRF and OPRF (FAVOR++) at the same cost.
#
# usage: experiments/fig_hrf5.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
mc=10000 thetas=33
[ "${SCALE:-full}" = fast ] && mc=1000 thetas=9
"$RFX" pointwise --method trig,posh,ang,gauss-hyb,pos,oprf --r 1,1.25,1.5 \
	--features 128 --baseline trig --mc "$mc" --thetas "$thetas" \
	-o "$1" >/dev/null

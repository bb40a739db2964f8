#!/bin/sh
# Beyond the thesis: the error of random-feature attention for every
# estimator of the registry against M at Fig 3.6's setting (L = 4096,
# d = 16, gamma = 0.5), block-orthogonal projections (the discrete
# PoisRF/GeomRF have none), fair feature counts (a complex or paired
# feature counts as two real ones), 5 draws.
#
# usage: experiments/fig_att_all.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
L=4096 M=16,64,256 R=5
[ "${SCALE:-full}" = fast ] && L=512 M=16,64 R=2
"$RFX" attention --method all --projection ort --match fair --features "$M" \
	--L "$L" --d 16 --draws "$R" --att-rows 64 -o "$1" >/dev/null

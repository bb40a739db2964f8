#!/bin/sh
# Thesis Fig 6.1: TrigRF, PosRF and HybRF over length and angle with the
# caption's fair counting M = 4, M1 = M2 = M3 = 1 for all three.
#
# usage: experiments/fig6_1.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
steps=60
[ "${SCALE:-full}" = fast ] && steps=12
"$RFX" variance --map angle --method trig,pos,hyb --features 4 --d 2 \
	--r-max 2 --steps "$steps" -o "$1" >/dev/null

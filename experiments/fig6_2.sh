#!/bin/sh
# Thesis Fig 6.2: log(Var OPRF / Var PosRF) against |x + y|^2 for several
# dimensions; the thesis reads "> e^60 at d = 64, |x + y|^2 = 100" off it.
#
# usage: experiments/fig6_2.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
steps=200
[ "${SCALE:-full}" = fast ] && steps=20
"$RFX" variance --map sum --method oprf,pos --baseline pos --features 1 \
	--d 8,16,32,64,128 --w-max 100 --steps "$steps" -o "$1" >/dev/null

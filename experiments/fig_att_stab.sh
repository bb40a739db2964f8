#!/bin/sh
# The stabilisers of public Performer implementations: max-subtraction
# (per query row and one for the keys, one for all queries, none), an
# additive epsilon on the stabilised features (0, 1e-4, 1e-3) and
# float32 maps and products against float64, for TrigRF, PosRF and OPRF
# with M = 64 orthogonal features, L = 4096, d = 16, at input scales
# gamma = 0.5 and 6 (where the unstabilised float32 features leave
# float range).
#
# usage: experiments/fig_att_stab.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
L=4096 R=3
[ "${SCALE:-full}" = fast ] && L=512 R=2
"$RFX" attention --method trig,pos,oprf --projection ort --features 64 \
	--L "$L" --d 16 --draws "$R" --gamma 0.5,6 --att-rows 32 \
	--stabiliser row,global,none --eps 0,1e-4,1e-3 --precision f64,f32 \
	-o "$1" >/dev/null

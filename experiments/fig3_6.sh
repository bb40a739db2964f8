#!/bin/sh
# Thesis Fig 3.6 (sec. 3.8.2): the error of random-feature attention
# against exact attention as the number of features M grows, i.i.d.
# against block-orthogonal projections, L = 4096, d = 16, 10 draws
# (standard deviations over them), noncausal. FAVOR's TrigRF as in the
# thesis, and PosRF (FAVOR+) beside it. The thesis does not say how Q, K
# and V were drawn: Q and K have entries N(0, gamma^2), V N(0, 1), and the
# figure is drawn at gamma = 0.5 (logits q.k/sqrt(d) of sd 0.25);
# gamma = 1 (logits of sd 1) shows what the unstated scale does.
#
# usage: experiments/fig3_6.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
L=4096 M=16,32,64,128,256 R=10 g=0.5,1
[ "${SCALE:-full}" = fast ] && L=1024 M=16,64 R=3 g=0.5,1
"$RFX" attention --method trig,pos --projection iid,ort --features "$M" \
	--L "$L" --d 16 --draws "$R" --gamma "$g" --att-rows 64 -o "$1" >/dev/null

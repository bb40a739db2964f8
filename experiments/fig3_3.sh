#!/bin/sh
# Thesis Fig 3.3 (sec. 3.8.1) on this CPU: the wall time of exact
# attention (blocked, row maxima, no L x L matrix) against random-feature
# attention (FAVOR+, PosRF on orthogonal projections, M = 256, feature maps
# included), forward pass, d = 64, noncausal and causal, with Fig 3.5's
# "returns V" floor (a copy of V). Exact attention stops at L = 2^14 in
# make figures: 2^15 alone is three quarters of exact attention's time
# (each doubling 4x), and 2^9 .. 2^14 already show the quadratic growth
# and the ratio to the features' linear one (`rfx attention --time
# --exact-max 65536` runs it to 2^16). The fitted exponents (table
# attention_fit) also go to OUT.fit.
#
# usage: experiments/fig3_3.sh OUT.h5
set -eu
trap 'rm -f "${1%.h5}.fit.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
Ls=512,1024,2048,4096,8192,16384,32768,65536 emax=16384
[ "${SCALE:-full}" = fast ] && Ls=512,1024,2048,4096 emax=4096
"$RFX" attention --time --Ls "$Ls" --exact-max "$emax" -o "$1" >/dev/null 2>&1
"$RFX" dump "$1" attention_fit > "${1%.h5}.fit.tmp"
mv "${1%.h5}.fit.tmp" "${1%.h5}.fit"

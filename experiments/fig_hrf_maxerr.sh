#!/bin/sh
# HRF Lemma 3.4 and Theorem 3.5: max-relative-error over the sphere S(r)
# for r in [1, 3], the Figs 2/5 configuration (trig and posh m = 128,
# the rest FLOP-matched), with the closed form of eq. 26 and the bound of
# eq. 27 (as printed and corrected, docs/ERRATA.md).
#
# usage: experiments/fig_hrf_maxerr.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
steps=41 thetas=721
[ "${SCALE:-full}" = fast ] && steps=9 thetas=181
"$RFX" pointwise --max-error --method trig,posh,ang,gauss-hyb,pos,oprf \
	--features 128 --baseline trig --r-min 1 --r-max 3 --steps "$steps" \
	--thetas "$thetas" -o "$1" >/dev/null

#!/bin/sh
# Beyond the papers (issue 19): the error of random-feature attention at
# thesis Fig 3.6's setting (L = 4096, d = 16, gamma = 0.5; docs/ATTENTION.md)
# for the positive estimators old and new (PosRF, OPRF, SDERF, ADERF,
# SADERF) on every unbiased coupled projection kind (iid, ort, simplex,
# simplex+, ort-anti), against the budget M, fair counting, 5 draws.
# experiments/fig_att_all.sh has every estimator on ort alone.
#
# usage: experiments/beyond_att.sh OUT.h5   (SCALE=fast: L = 512, M = 16, 64, 2 draws)
set -eu
RFX=${RFX:-./rfx}
L=4096 M=16,64,256 R=5
[ "${SCALE:-full}" = fast ] && L=512 M=16,64 R=2
"$RFX" attention --method pos,oprf,sderf,aderf,saderf \
	--projection iid,ort,simplex,simplex+,ort-anti --match fair --features "$M" \
	--L "$L" --d 16 --draws "$R" --att-rows 64 --seed 20231 -o "$1" >/dev/null

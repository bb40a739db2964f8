#!/bin/sh
# HRF Fig 6 and Table 3 (appendix H): the clustered-data experiment. The
# paper's four synthetic sets (s1, s2 with sigma = 1; s3, s4 with
# sigma = sqrt 10), k-means with k = 2, m = 20 .. 200, 20 repetitions, the
# empirical MSE over all 2000 x 2000 pairs of Hybrid-Cluster (zero-one
# lambdas, real A of eq. 88), FAVOR+ (pos, see docs/REPRODUCTION.md for
# why) and TrigRF; beyond the paper, HRF's two-sided positive estimator
# (posh). The data's unstated scales are rfx's defaults (--norm 0.7,
# --mean-sd 10).
#
# usage: experiments/fig_hrf6.sh OUT.h5
set -eu
RFX=${RFX:-./rfx}
points=1000 reps=20 m=20,50,80,100,120,150,200
[ "${SCALE:-full}" = fast ] && points=100 reps=4 m=20,50,100,200
"$RFX" clustered --method hyb-cluster,pos,trig,posh --points "$points" \
	--reps "$reps" --m "$m" -o "$1" >/dev/null

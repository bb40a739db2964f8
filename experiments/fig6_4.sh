#!/bin/sh
# Thesis sec. 6.6.1, Fig 6.4: log-variance of every estimator of the
# Gaussian kernel over four input regimes and gamma = 0.1 .. 1, d = 64,
# 5 samples of two sets of L = 1024 inputs, all L x L pairs, parameters
# fitted from set statistics (eqs. 6.15, 6.18, 6.20), fair feature counting
# (M = 4 complex, 8 real). Monte Carlo on 16 pairs per set pair checks the
# closed forms at every point of the figure.
#
# The same run also computes FAVOR#'s dense-exponential estimators (sderf,
# aderf, saderf) for plots/fig_beyond6_4.gp and the report's "Beyond the
# papers": each method's draws come from its own stream (keyed by its
# name, regime, gamma and sample), so its rows are the same bytes whatever
# else the run computes, and a separate run for the DERFs beside OPRF and
# GeomRF+ computed those two a second time (42 of its 94 CPU-s).
#
# usage: experiments/fig6_4.sh OUT.h5     (SCALE=fast: L = 128, 2 samples)
set -eu
RFX=${RFX:-./rfx}
out=$1
case "${SCALE:-full}" in
full) scale="--L 1024 --samples 5 --mc 2000 --mc-pairs 16" ;;
fast) scale="--L 128 --samples 2 --mc 500 --mc-pairs 4" ;;
*) echo "fig6_4.sh: SCALE must be full or fast" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
"$RFX" variance --method trig,hyb,gerf,pois,geom,pos,oprf,pois+,geom+,sderf,aderf,saderf \
	--regime all --d 64 --seed 20221121 $scale \
	-o "$out" >/dev/null

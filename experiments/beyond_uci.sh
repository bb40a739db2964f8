#!/bin/sh
# Beyond the papers (issue 19): the SimRF paper's (Reid et al., ICML 2023)
# non-parametric classification, thesis sec. 6.6.2's setting (eight UCI
# datasets, 90/5/5 splits, gamma tuned on validation over 10 log-uniform
# values in [1e-2, 1e2]), test accuracy against m/d for PosRF and SDERF on
# i.i.d., ORF, SimRF, SimRF+ and norm-coupled ORF projections, m = r d
# real features for r = 1, 2, 4, 8 (rfx uci-classify --ratio). The paper
# averages more draws; 5 seeds here keep the run at about 20 CPU-s (the
# standard errors are in the table: test_pct_se).
#
# usage: experiments/beyond_uci.sh OUT.h5   (SCALE=fast: 2 seeds, 3 gammas, r = 1, 4)
set -eu
RFX=${RFX:-./rfx}
out=$1
case "${SCALE:-full}" in
full) scale="--ratio 1,2,4,8 --seeds 5" ;;
fast) scale="--ratio 1,4 --seeds 2 --gamma 0.2,0.6,1.7" ;;
*) echo "beyond_uci.sh: SCALE must be full or fast" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
"$RFX" uci-classify --dataset all --method exact,pos,sderf \
	--projection iid,ort,simplex,simplex+,ort-anti --seed 20231 $scale \
	-o "$out" >/dev/null

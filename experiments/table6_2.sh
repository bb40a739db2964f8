#!/bin/sh
# Thesis sec. 6.6.2, Tables 6.1-6.3: non-parametric classification by
# Gaussian kernel regression on eight UCI datasets, exactly and with every
# random-feature estimator (M = 128 real, 64 complex features), i.i.d. and
# block-orthogonal projections; 90/5/5 splits, gamma tuned on validation
# over 10 log-uniform values in [1e-2, 1e2], accuracies averaged over 50
# random-feature seeds. One run gives both tables: Table 6.2 is the iid/ort
# rows of trig, pos, gerf and oprf, Table 6.3 the ort rows of those four
# and the rows of the other five (experiments/uci_tables.sh prints them
# beside the thesis' numbers).
#
# usage: experiments/table6_2.sh OUT.h5     (SCALE=fast: 2 seeds, 3 gammas)
set -eu
RFX=${RFX:-./rfx}
out=$1
case "${SCALE:-full}" in
full) scale="--dataset all --seeds 50" ;;
fast) scale="--dataset all --seeds 2 --gamma 0.2,0.6,1.7" ;;
*) echo "table6_2.sh: SCALE must be full or fast" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
"$RFX" uci-classify --method all --projection both --seed 20221121 $scale \
	-o "$out" >/dev/null

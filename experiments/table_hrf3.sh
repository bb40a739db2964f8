#!/bin/sh
# HRF Table 3 beside rfx's, and the paper's claims in numbers, as Markdown:
# for each set and m the [min, max] of the empirical MSE over repetitions,
# rfx's next to the paper's (experiments/reference/hrf_table3.tsv; its
# FAVOR+ beside rfx's pos), the means over the repetitions and their ratios
# to the hybrid's, and the claims of HRF Fig 6 and Table 3. The comparison
# is the report's (experiments/report.py), the one implementation of it.
#
# usage: experiments/table_hrf3.sh IN.h5 (from experiments/fig_hrf6.sh)
set -eu
RFX=${RFX:-./rfx}
here=$(cd "$(dirname "$0")" && pwd)
case $1 in
*/fig_hrf6.h5) ;;
*) echo "table_hrf3.sh: '$1' is not a results/fig_hrf6.h5" >&2; exit 2 ;;
esac
exec python3 "$here/report.py" --rfx "$RFX" --results "$(dirname "$1")" --tables hrf-table3,hrf-fig6

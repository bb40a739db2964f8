#!/bin/sh
# Our Tables 6.1-6.3 (thesis sec. 6.6.2) next to the thesis' numbers
# (experiments/reference/thesis_table6_{1,2,3}.tsv), the differences in
# accuracy points, and the thesis' claims about them checked in numbers
# (experiments/reference/claims.txt), as Markdown. The comparison is the
# report's (experiments/report.py), the one implementation of it: this
# prints its sections for the three tables.
#
# usage: experiments/uci_tables.sh results/uci.h5
set -eu
RFX=${RFX:-./rfx}
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/report.py" --rfx "$RFX" --results "$(dirname "$1")" \
	--tables thesis-table6.1,thesis-table6.2,thesis-table6.3

#!/bin/sh
# ORF Figs 2 and 3: Var ORF/Var RFF against z = |x - y|/sigma (eq. 3 for
# d -> infinity, our exact finite-d form, simulations), and the bias and
# variance ratio of ORF' and SORF for d = 4 .. 32 (and 64), D = d, 20000
# draws per point as the paper's Fig 3.
#
# usage: experiments/fig_orf23.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
# An interrupted or failed run leaves no partial table (rfx removes its
# own temporary .h5): without the INT and TERM traps a shell killed by a
# signal would not run the EXIT trap.
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
d=4,8,16,32,64 mc=20000 steps=40
[ "${SCALE:-full}" = fast ] && d=4,16 mc=2000 steps=10
"$RFX" mse-table --vs-z --projection iid,ort,orf-prime,sorf --d "$d" \
	--z-max 4 --z-steps "$steps" --mc "$mc" -o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

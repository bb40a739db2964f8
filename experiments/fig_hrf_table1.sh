#!/bin/sh
# HRF Table 1 (sec. 4.1): the softmax kernel's MSE on 100 random pairs of
# wine and of Boston inputs, mean and standard deviation over repetitions:
# the angular hybrid on orthogonal and iid projections FLOP-matched to
# TrigRF with 512 features (m = n = 44 at d = 13, docs/COST.md), TrigRF
# with 512 features on block-orthogonal (ORF-reg), SORF (ORF-Had) and
# randomised Halton (Halton-R) projections; beyond the paper, scrambled
# Halton and plain iid TrigRF. The paper does not say how inputs were
# normalised: unit (z-scored columns, unit-length inputs) is ours, ball,
# minmax and zscore show the effect (lib/data/dataset.h).
#
# usage: experiments/fig_hrf_table1.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
# An interrupted or failed run leaves no partial table (rfx removes its
# own temporary .h5): without the INT and TERM traps a shell killed by a
# signal would not run the EXIT trap.
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
reps=100 draws=20
[ "${SCALE:-full}" = fast ] && reps=5 draws=2
"$RFX" mse-table --dataset wine,boston --norm unit,ball,minmax,zscore \
	--method HRF-ort=ang:ort,HRF-iid=ang:iid,ORF-reg=trig:ort,ORF-Had=trig:sorf,Halton-R=trig:halton,Halton-scr=trig:halton-scr,RFF=trig:iid \
	--features 512 --pairs 100 --draws "$draws" --reps "$reps" -o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"

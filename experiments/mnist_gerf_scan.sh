#!/bin/sh
# Why GERF does not beat TrigRF on MNIST (docs/REPRODUCTION.md): a grid
# over the GERF parameters A (complex) and t, every value fixed for all
# pairs, for the mnist regime at gamma = 1 with pixels in [0, 1] (the
# default) or z-scored per pixel (--mnist-norm standard). Prints the mean
# log-variance of TrigRF, of GERF with fitted parameters, and the best grid
# point.
#
# usage: experiments/mnist_gerf_scan.sh [unit|standard]
set -eu
RFX=${RFX:-./rfx}
norm=${1:-unit}
common="--regime mnist --mnist-norm $norm --gamma 1 --L 256 --samples 1"
mean() { awk -F'\t' 'NR == 2 { print $8 }'; }
trig=$("$RFX" variance --method trig $common 2>/dev/null | mean)
fitted=$("$RFX" variance --method gerf $common 2>/dev/null | mean)
best=""
for t in -1 1; do
	for re in -1 -0.5 -0.25 -0.1 -0.05 -0.02 0 0.02 0.05 0.1; do
		for im in -0.5 -0.2 -0.1 -0.05 0 0.05 0.1 0.2 0.5; do
			v=$("$RFX" variance --method gerf $common \
				--param "A=$re,$im" --param "t=$t" 2>/dev/null | mean)
			best=$(printf '%s\n%s\t%s\t%s\t%s\n' "$best" "$v" "$re" "$im" "$t" |
				grep -v '^$' | sort -g | head -n 1)
		done
	done
done
printf 'mnist (%s), gamma 1: TrigRF %s, GERF fitted %s\n' "$norm" "$trig" "$fitted"
printf 'best grid point: mean log Var %s at A = %s%+gi, t = %s\n' \
	"$(echo "$best" | cut -f1)" "$(echo "$best" | cut -f2)" \
	"$(echo "$best" | cut -f3)" "$(echo "$best" | cut -f4)"

#!/bin/sh
#
# The SHA-256 of what a README figure is drawn from: the rfx dump of its
# results (H5, written by rfx RFX), its gnuplot script plots/NAME.gp,
# plots/common.gp and plots/styles.gp. `make readme-figures` records it in
# docs/img/inputs.sha256 and tests/t_readme_figures.sh recomputes it.
#
# Numbers are rounded to 6 significant digits first: a figure draws none
# finer, and the last bits of a closed form depend on which vector kernels
# the CPU runs (rfx --version's second line: AVX-512, AVX2 or generic
# exp, log, sin and cos), so full digits made the test fail on every CPU
# but the one the images were drawn on. A change to the figure's numbers
# moves the digits that remain.
#
#   tools/figure-digest.sh RFX H5 NAME     prints the digest
set -u
[ $# -eq 3 ] || { echo "usage: tools/figure-digest.sh RFX H5 NAME" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
out=$("$1" dump "$2") || exit 1
{
	printf '%s\n' "$out" | awk -F '\t' -v OFS='\t' '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/)
				$i = sprintf("%.6g", $i)
		print
	}'
	cat "$top/plots/$3.gp" "$top/plots/common.gp" "$top/plots/styles.gp"
} | sha256sum | cut -d' ' -f1

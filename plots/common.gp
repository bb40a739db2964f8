# Shared gnuplot settings for the rfx figures. Scripts are run as
#   gnuplot -e "rfx='./rfx'; in='results/x.h5'; out='plots/x'" plots/x.gp
# and read the HDF5 tables through `rfx dump` (TSV with a header line).

set datafile separator "\t"
set datafile missing "nan"
set key autotitle columnhead
set grid lc rgb "#dddddd"
# A perceptually uniform palette (viridis endpoints) for the heat maps.
set palette defined (0 "#440154", 1 "#3b528b", 2 "#21908d", 3 "#5dc963", 4 "#fde725")

# Rows of `table` where every condition holds, e.g. where("variance", "--where method=trig").
where(table, cond) = "< ".rfx." dump ".in." ".table." ".cond

# One colour per estimator, the same in every figure.
color(m) = m eq "trig" ? "#d62728" : m eq "pos" ? "#1f77b4" : m eq "hyb" ? "#2ca02c" : \
	m eq "gerf" ? "#9467bd" : m eq "oprf" ? "#ff7f0e" : m eq "pois" ? "#8c564b" : \
	m eq "geom" ? "#e377c2" : m eq "pois+" ? "#7f7f7f" : m eq "geom+" ? "#17becf" : \
	m eq "posh" ? "#b8860b" : m eq "ang" ? "#2ca02c" : m eq "ang-ind" ? "#98df8a" : \
	m eq "gauss-hyb" ? "#bcbd22" : m eq "cexp" ? "#8c564b" : m eq "cexp-c" ? "#c49c94" : \
	m eq "hyb-cluster" ? "#2ca02c" : m eq "hyb-gmix" ? "#98df8a" : "#000000"

# And one dash pattern and one point type per estimator (and per method
# name of the ORF paper), so that curves drawn over one another stay
# visible, in colour and printed in grey: where two coincide (TrigRF under
# the hybrids at small gamma, trig under posh) the dashes and marks of
# both show. mdash gives a gnuplot dash string (solid for trig and RFF).
mdash(m) = m eq "trig" || m eq "RFF" ? 1 : m eq "pos" || m eq "ORF" ? "- " : \
	m eq "hyb" || m eq "SORF" || m eq "HDHDHD" ? ". " : m eq "gerf" || m eq "QMC" ? "-." : \
	m eq "oprf" || m eq "HD" ? "_ " : m eq "pois" || m eq "HDHD" ? "-.." : \
	m eq "geom" ? "__." : m eq "pois+" ? "_ ." : m eq "geom+" ? "..-" : \
	m eq "posh" ? "--  " : m eq "ang" ? ".  " : m eq "ang-ind" ? "_.." : \
	m eq "gauss-hyb" ? "-. ." : m eq "cexp" ? "___ " : m eq "cexp-c" ? "_ _." : \
	m eq "hyb-cluster" ? ". " : m eq "hyb-gmix" ? "_.." : 1
mpt(m) = m eq "trig" || m eq "RFF" ? 7 : m eq "pos" || m eq "ORF" ? 5 : \
	m eq "hyb" || m eq "SORF" || m eq "HDHDHD" ? 9 : m eq "gerf" || m eq "QMC" ? 11 : \
	m eq "oprf" || m eq "HD" ? 13 : m eq "pois" || m eq "HDHD" ? 6 : \
	m eq "geom" ? 4 : m eq "pois+" ? 8 : m eq "geom+" ? 10 : m eq "posh" ? 12 : \
	m eq "ang" ? 3 : m eq "ang-ind" ? 2 : m eq "gauss-hyb" ? 1 : m eq "cexp" ? 14 : \
	m eq "cexp-c" ? 15 : m eq "hyb-cluster" ? 9 : m eq "hyb-gmix" ? 8 : 0

png_term = "set terminal pngcairo size 1400,1000 font 'DejaVu Sans,11'"
# small=1: the README's headline images (make readme-figures), a third of
# the pixels, still legible at page width.
if (exists("small")) png_term = "set terminal pngcairo size 800,570 font 'DejaVu Sans,8'"
pdf_term = "set terminal pdfcairo size 10in,7in font 'DejaVu Sans,9'"

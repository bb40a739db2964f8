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
	m eq "posh" ? "#1f3f9f" : m eq "ang" ? "#2ca02c" : m eq "ang-ind" ? "#98df8a" : \
	m eq "gauss-hyb" ? "#bcbd22" : m eq "cexp" ? "#8c564b" : m eq "cexp-c" ? "#c49c94" : \
	m eq "hyb-cluster" ? "#2ca02c" : m eq "hyb-gmix" ? "#98df8a" : "#000000"

png_term = "set terminal pngcairo size 1400,1000 font 'DejaVu Sans,11'"
pdf_term = "set terminal pdfcairo size 10in,7in font 'DejaVu Sans,9'"

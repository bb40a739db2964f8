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

# Each method's colour, dash pattern and point type (color(m), mdash(m),
# mpt(m)), the k-th other series' (scolor(k), sdash(k), spt(k)), and the
# layers' line widths and point sizes (mlw(i, n), mps(i, n)).
load "plots/styles.gp"

png_term = "set terminal pngcairo size 1400,1000 font 'DejaVu Sans,11'"
pdf_term = "set terminal pdfcairo size 10in,7in font 'DejaVu Sans,9'"
# A figure of one panel: smaller, so that its text is as large as a
# multi-panel figure's at page width.
png_term1 = "set terminal pngcairo size 1000,700 font 'DejaVu Sans,12'"
pdf_term1 = "set terminal pdfcairo size 7in,4.9in font 'DejaVu Sans,9'"
# small=1: the README's headline images (make readme-figures), a third of
# the pixels, still legible at page width.
if (exists("small")) png_term = "set terminal pngcairo size 800,570 font 'DejaVu Sans,8'"; \
	png_term1 = "set terminal pngcairo size 700,490 font 'DejaVu Sans,9'"

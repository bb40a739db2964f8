# Thesis sec. 6.6.2, Tables 6.2-6.3 as a figure: test accuracy at the
# validated gamma per dataset and method (bars, +- one standard error over
# the random-feature seeds), i.i.d. and block-orthogonal side by side, the
# thesis' number for the same cell (black diamond; Table 6.2 for the
# projections of TrigRF, PosRF, GERF and OPRF, Table 6.3 otherwise; HybRF's
# Table 6.3 number is drawn at its i.i.d. bar), and the exact kernel
# regression without random features (dashed line).
#
#   gnuplot -e "rfx='./rfx'; in='results/uci.h5'; out='plots/uci'; ref='experiments/reference'" plots/uci.gp
load "plots/common.gp"
if (!exists("ref")) ref = "experiments/reference"
set datafile separator whitespace
# The generated lines have no header (common.gp reads one by default).
set key noautotitle
unset key

# One line per random-feature row of a dataset: x, method, label, accuracy,
# standard error, thesis (NaN if none), exact accuracy; each bar in its
# method's colour (common.gp).
src(d) = "< ".rfx." dump ".in." uci --where dataset=".d." | awk -F'\t' -v t2=".ref."/thesis_table6_2.tsv -v t3=".ref."/thesis_table6_3.tsv '" . \
	"BEGIN { while ((getline l < t2) > 0) if (l !~ /^(#|dataset)/) { split(l, f, \"\\t\"); a[f[1], f[2], f[3]] = f[4]; two[f[2]] = 1 }" . \
	"        while ((getline l < t3) > 0) if (l !~ /^(#|dataset)/) { split(l, f, \"\\t\"); b[f[1], f[2]] = f[3] } }" . \
	"NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }" . \
	"$h[\"method\"] == \"exact\" { ex = $h[\"test_pct\"]; next }" . \
	"{ m = $h[\"method\"]; p = $h[\"projection\"]; d = $h[\"dataset\"]; x++;" . \
	"  t = (m in two) ? a[d, m, p] : (m == \"hyb\" && p != \"iid\") ? \"\" : b[d, m];" . \
	"  lab = (p == \"iid\" || p == \"ort\") ? m \"-\" p : m;" . \
	"  line[x] = x \" \" m \" \" lab \" \" $h[\"test_pct\"] \" \" $h[\"test_pct_se\"] \" \" (t == \"\" ? \"NaN\" : t) }" . \
	"END { for (i = 1; i <= x; i++) print line[i], (ex == \"\" ? \"NaN\" : ex) }'"

# A method's colour as the number lc rgb variable takes.
rgbnum(m) = ("0x".color(m)[2:]) + 0

datasets = "abalone banknote car yeast cmc nursery wifi chess"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 4,2 title "UCI classification by Gaussian kernel regression (thesis Tables 6.2, 6.3): test accuracy at the validated gamma; bars rfx (+- se), diamonds the thesis, dashed exact kernel regression"
	do for [d in datasets] {
		set title d
		set ylabel "test accuracy (%)"
		set yrange [0:105]
		set xrange [0.3:14.7]
		set xtics rotate by 45 right font ",9"
		set style fill solid 0.75 border rgb "#404040"
		set boxwidth 0.8
		plot src(d) using 1:4:(rgbnum(strcol(2))):xtic(3) with boxes lc rgb variable, \
		     src(d) using 1:($4 - $5):(0):(2 * $5) with vectors nohead lw 1.2 lc rgb "#202020", \
		     src(d) using 1:6 with points pt 13 ps 1.1 lc rgb "#000000", \
		     src(d) using 1:7 with lines dt 2 lw 1.5 lc rgb "#000000"
	}
	unset multiplot
	set output
}

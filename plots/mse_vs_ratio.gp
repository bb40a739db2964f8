# Shared by the MSE-against-D/d figures (ORF Figs 4, 5 and the UCI
# extension): one panel per dataset of table "mse" (or, with panel =
# "sigma", per bandwidth), MSE (log scale) against D/d, one curve per
# method with its standard error over the repetitions. The caller sets
# `title` and, optionally, `layout` ("rows,cols") and `panel`.
load "plots/common.gp"

if (!exists("panel")) panel = "dataset"
pcol = panel eq "sigma" ? 13 : 1
datasets = system(rfx." dump ".in." mse | awk -F'\t' -v c=".pcol." 'NR > 1 && !s[$c]++ {printf \"%s \", $c}'")
methods = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$3]++ {printf \"%s \", $3}'")
nm = words(methods)
nd = words(datasets)
# One row of up to three panels, else two rows.
if (!exists("layout")) layout = nd <= 3 ? sprintf("1,%d", nd) : sprintf("2,%d", (nd + 1) / 2)
# The i-th method a little to the side of the budget, so that the error
# bars of methods that agree (ORF and SORF) do not cover one another.
dx(i) = 0.05 * (i - (nm + 1) / 2.0)
# Ticks at the budgets the run has (D/d = 1, 2, 4, ...).
ratios = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$8]++ {printf \"%s \", $8}'")
set xtics ()
do for [r in ratios] {
	set xtics add (r real(r))
}

set logscale y
# The data's own y range (a log axis otherwise widens to whole decades,
# which left a single-panel figure such as Fig 5(c) mostly empty), with a
# margin; ticks at 1, 2 and 5 times each power of ten, so that a range
# within one decade still has labelled ticks.
set autoscale yfix
set offsets 0.3, 0.3, graph 0.06, graph 0.06
set format y "10^{%L}"
set ytics 1e-12, 10
do for [k = -12:2] {
	set ytics add (sprintf("2{/Symbol \327}10^{%d}", k) 2 * 10.0**k, sprintf("5{/Symbol \327}10^{%d}", k) 5 * 10.0**k)
}
set xlabel "D / d"
set ylabel "MSE of the Gaussian kernel"
set key top right

do for [t in "png pdf"] {
	# one panel (Fig 5(c)): a smaller canvas, its text larger in proportion
	eval(t eq "png" ? (nd == 1 ? png_term1 : png_term) : (nd == 1 ? pdf_term1 : pdf_term))
	set output out.".".t
	eval(sprintf("set multiplot layout %s title title", layout))
	do for [ds in datasets] {
		dd = system(rfx." dump ".in." mse --where ".panel."=".ds." | awk -F'\t' 'NR == 2 {print $1, $6}'")
		if (panel eq "sigma") {
			set title sprintf("%s (d = %s), sigma = %.4g", word(dd, 1), word(dd, 2), real(ds))
		} else {
			set title sprintf("%s (d = %s)", ds, word(dd, 2))
		}
		# the i-th method in layers (common.gp's mlw, mps): SORF and
		# ORF overlap (the paper's Fig 4 caption), as do HDHD and
		# HDHDHD; the error bars solid and thin, the lines dashed
		plot for [i = 1:nm] where("mse", "--where ".panel."=".ds." --where method=".word(methods, i)) \
			using (column("ratio") + dx(i)):"mse":"mse_se" with yerrorbars lw 1 dt 1 pt 0 \
			lc rgb color(word(methods, i)) notitle, \
		     for [i = 1:nm] where("mse", "--where ".panel."=".ds." --where method=".word(methods, i)) \
			using (column("ratio") + dx(i)):"mse" with linespoints lw mlw(i, nm) dt mdash(word(methods, i)) \
			pt mpt(word(methods, i)) ps mps(i, nm) lc rgb color(word(methods, i)) title word(methods, i)
	}
	unset multiplot
	set output
}

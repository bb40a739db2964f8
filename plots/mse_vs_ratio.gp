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
if (!exists("layout")) layout = sprintf("1,%d", words(datasets))

# Method colours: the ORF paper's names and the HD ablation.
mcolor(m) = m eq "RFF" ? "#d62728" : m eq "ORF" ? "#1f77b4" : m eq "SORF" ? "#2ca02c" : \
	m eq "QMC" ? "#ff7f0e" : m eq "HD" ? "#9467bd" : m eq "HDHD" ? "#8c564b" : \
	m eq "HDHDHD" ? "#2ca02c" : "#000000"

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
set key top right font ",9"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	eval(sprintf("set multiplot layout %s title title", layout))
	do for [ds in datasets] {
		dd = system(rfx." dump ".in." mse --where ".panel."=".ds." | awk -F'\t' 'NR == 2 {print $1, $6}'")
		if (panel eq "sigma") {
			set title sprintf("%s (d = %s), sigma = %.4g", word(dd, 1), word(dd, 2), real(ds))
		} else {
			set title sprintf("%s (d = %s)", ds, word(dd, 2))
		}
		plot for [m in methods] where("mse", "--where ".panel."=".ds." --where method=".m) \
			using "ratio":"mse":"mse_se" with yerrorlines lw 2 dt mdash(m) pt mpt(m) ps 0.9 lc rgb mcolor(m) title m
	}
	unset multiplot
	set output
}

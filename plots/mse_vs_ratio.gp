# Shared by the MSE-against-D/d figures (ORF Figs 4, 5c and the UCI
# extension): one panel per dataset of table "mse", MSE (log scale) against
# D/d, one curve per method with its standard error over the repetitions.
# The caller sets `title` and, optionally, `layout` ("rows,cols").
load "plots/common.gp"

datasets = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")
methods = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$3]++ {printf \"%s \", $3}'")
if (!exists("layout")) layout = sprintf("1,%d", words(datasets))

# Method colours: the ORF paper's names and the HD ablation.
mcolor(m) = m eq "RFF" ? "#d62728" : m eq "ORF" ? "#1f77b4" : m eq "SORF" ? "#2ca02c" : \
	m eq "QMC" ? "#ff7f0e" : m eq "HD" ? "#9467bd" : m eq "HDHD" ? "#8c564b" : \
	m eq "HDHDHD" ? "#2ca02c" : "#000000"

set logscale y
set format y "10^{%L}"
set xlabel "D / d"
set offsets 0.3, 0.3, 0, 0
set ylabel "MSE of the Gaussian kernel"
set key top right font ",9"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	eval(sprintf("set multiplot layout %s title title", layout))
	do for [ds in datasets] {
		dd = system(rfx." dump ".in." mse --where dataset=".ds." | awk -F'\t' 'NR == 2 {print $6}'")
		set title sprintf("%s (d = %s)", ds, dd)
		plot for [m in methods] where("mse", "--where dataset=".ds." --where method=".m) \
			using "ratio":"mse":"mse_se" with yerrorlines lw 2 pt 7 ps 0.6 lc rgb mcolor(m) title m
	}
	unset multiplot
	set output
}

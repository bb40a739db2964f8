# HRF Table 1 as bars: the softmax kernel's MSE (1e-3 units, log scale) per
# method on wine and Boston, ours for each input normalisation (error bars:
# the standard deviation over repetitions, as the paper's +-) beside the
# paper's values (hatched black, apart from ours in grey print too).
load "plots/common.gp"

# HRF Table 1 as printed (sec. 4.1): experiments/reference/hrf_table1.tsv,
# dataset, method, MSE, std (1e-3 units) with a header line, passed as
# `paper`; its comment lines are skipped.
if (!exists("paper")) paper = "experiments/reference/hrf_table1.tsv"

methods = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$3]++ {printf \"%s \", $3}'")
norms = system(rfx." dump ".in." mse | awk -F'\t' 'NR > 1 && !s[$2]++ {printf \"%s \", $2}'")
nn = words(norms) + 1
bw = 0.8 / nn
ncolor(j) = j == 1 ? "#1f77b4" : j == 2 ? "#2ca02c" : j == 3 ? "#ff7f0e" : j == 4 ? "#9467bd" : "#888888"
# x position of method m: its index in `methods`
xpos(m) = sum [k = 1:words(methods)] (word(methods, k) eq m ? k : 0)

set logscale y
set format y "10^{%L}"
set ylabel "MSE (10^{-3})"
set style fill solid 0.8 noborder
set boxwidth bw
set xrange [0.4:words(methods) + 0.6]
set xtics () font ",9"
set for [k = 1:words(methods)] xtics add (word(methods, k) k)
set key outside right top

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,1 title "HRF Table 1: softmax-kernel MSE on 100 random pairs, 512 features or FLOP-matched"
	do for [ds in "wine boston"] {
		set title ds
		plot for [j = 1:words(norms)] where("mse", "--where dataset=".ds." --where norm=".word(norms, j)) \
			using (xpos(strcol("method")) - 0.4 + (j - 0.5) * bw):(1e3 * column("mse")):(1e3 * column("mse_sd")) \
			with boxerrorbars lc rgb ncolor(j) title "ours, ".word(norms, j), \
		     paper using (strcol(1) eq ds ? xpos(strcol(2)) - 0.4 + (nn - 0.5) * bw : NaN):3:4 \
			with boxerrorbars fs pattern 2 border lc rgb "#000000" lc rgb "#000000" title "HRF paper"
	}
	unset multiplot
	set output
}

# Beyond the thesis: every estimator's random-feature attention error
# against M at Fig 3.6's setting (experiments/fig_att_all.sh): (a) relative
# output error, (b) MSE of D^-1 A, medians over the draws.
load "plots/common.gp"

methods = system(rfx." dump ".in." attention | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")
n = words(methods)
set logscale xy
set format y "10^{%L}"
set xlabel "budget M (real features: a complex or paired feature counts as two)"
set key outside right font ",10"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "Random-feature attention for every estimator, L = 4096, d = 16, gamma = 0.5, orthogonal projections"
	set title "(a) relative output error (median)"
	set ylabel "|O^ - O|_F / |O|_F"
	plot for [i = 1:n] where("attention", "--where method=".word(methods, i)) using "budget":"out_rel_fro_q50" \
		with linespoints lw mlw(i, n) dt mdash(word(methods, i)) pt mpt(word(methods, i)) \
		ps mps(i, n) lc rgb color(word(methods, i)) title word(methods, i)
	set title "(b) attention matrix MSE (median)"
	set ylabel "MSE of D^{-1}A"
	plot for [i = 1:n] where("attention", "--where method=".word(methods, i)) using "budget":"att_mse_q50" \
		with linespoints lw mlw(i, n) dt mdash(word(methods, i)) pt mpt(word(methods, i)) \
		ps mps(i, n) lc rgb color(word(methods, i)) title word(methods, i)
	unset multiplot
	set output
}

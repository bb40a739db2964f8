# The stabilisers of Performer implementations (experiments/fig_att_stab.sh),
# M = 64 orthogonal features, L = 4096, d = 16:
# (a) fraction of rows with a non-finite output at gamma = 6, eps = 0, per
#     method, stabiliser and precision; (b) relative output error (median)
#     against the added epsilon at gamma = 0.5, row stabiliser.
load "plots/common.gp"

set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "Stabilisers, epsilon and precision of random-feature attention (M = 64, L = 4096, d = 16)"
	set title "(a) rows with a non-finite output, gamma = 6, eps = 0"
	set ylabel "fraction of rows"
	set yrange [0:1.05]
	set xtics rotate by -30
	plot for [m in "trig pos oprf"] where("attention", "--where method=".m." --where gamma=6 --where eps=0") \
		using "frac_nonfinite_mean":xticlabels(stringcolumn("stab")." ".(column("f32") > 0 ? "f32" : "f64")) lc rgb color(m) title m
	set title "(b) relative output error against epsilon, gamma = 0.5, row stabiliser"
	set ylabel "|O^ - O|_F / |O|_F (median)"
	set autoscale y
	set logscale y
	plot for [m in "trig pos oprf"] where("attention", "--where method=".m." --where gamma=0.5 --where stab=row --where f32=0") \
		using "out_rel_fro_q50":xticlabels(sprintf("eps %g", column("eps"))) lc rgb color(m) title m
	unset logscale y
	unset multiplot
	set output
}

# Thesis Fig 3.6 from `rfx attention` (experiments/fig3_6.sh).
# out:  (a) MSE of the attention matrix D^-1 A, (b) MSE of the output, against
#       M, i.i.d. (dashed) against block-orthogonal (solid) projections, TrigRF
#       (FAVOR) and PosRF (FAVOR+), gamma = 0.5; bars: one sd over the draws.
# out2: the relative output error against M at gamma = 0.5 and 1 (the input
#       scale the thesis does not state).
load "plots/common.gp"

sel(m, p, g) = sprintf("--where method=%s --where proj=%s --where gamma=%s", m, p, g)
set logscale xy
set format y "10^{%L}"
set xlabel "M (random features)"
set key top right

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "Thesis Fig 3.6: random-feature attention, L = 4096, d = 16, gamma = 0.5 (bars: sd over 10 draws)"
	do for [c in "att_mse out_mse"] {
		set title (c eq "att_mse" ? "(a) attention matrix D^{-1}A: MSE" : "(b) output D^{-1}AV: MSE")
		set ylabel "MSE"
		plot for [m in "trig pos"] where("attention", sel(m, "ort", "0.5")) using "M":c."_mean":c."_sd" \
			with yerrorlines lw 2 pt mpt(m) lc rgb color(m) title m." ort", \
		     for [m in "trig pos"] where("attention", sel(m, "iid", "0.5")) using "M":c."_mean":c."_sd" \
			with yerrorlines lw 2 dt 2 pt mpt(m) lc rgb color(m) title m." iid"
	}
	unset multiplot
	set output
}

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out2.".".t
	set multiplot layout 1,2 title "Fig 3.6's unstated input scale: relative output error |O^ - O|_F / |O|_F (median over draws)"
	do for [g in "0.5 1"] {
		set title "Q, K entries N(0, ".g."^2)"
		set ylabel "relative error"
		plot for [m in "trig pos"] where("attention", sel(m, "ort", g)) using "M":"out_rel_fro_q50" \
			with linespoints lw 2 pt mpt(m) lc rgb color(m) title m." ort", \
		     for [m in "trig pos"] where("attention", sel(m, "iid", g)) using "M":"out_rel_fro_q50" \
			with linespoints lw 2 dt 2 pt mpt(m) lc rgb color(m) title m." iid"
	}
	unset multiplot
	set output
}

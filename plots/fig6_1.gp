# Thesis Fig 6.1: TrigRF, PosRF and HybRF (M = 4, M1 = M2 = M3 = 1) over
# length and angle: heat maps and slices.
load "plots/common.gp"

# Solid at r = 1, dashed and dotted elsewhere (a function: gnuplot reads
# "dt (" as a dash pattern); each method its point type (common.gp), so
# that the methods differ in grey print too.
dash(rr) = rr eq "1" ? 1 : rr eq "1.5" ? 2 : 3

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,2 title "Variance of TrigRF, PosRF and HybRF (thesis Fig 6.1), M = 4"
	set view map
	set xlabel "theta"
	set ylabel "r = |x| = |y|"
	set cblabel "log Var"
	# the grid's own ends (cell midpoints, not 0 and pi): no white margin
	set autoscale xfix
	set autoscale yfix
	do for [m in "trig pos hyb"] {
		set title sprintf("%s", m)
		splot where("map", "--where method=".m." --blank-on r") using "theta":"r":"log_variance" with pm3d notitle
	}
	unset view
	set xrange [0:pi]
	set autoscale y
	set title "slices at r = 1 (solid) and r = 1.5 (dashed)"
	set xlabel "theta"
	set ylabel "log Var"
	set key bottom center
	plot for [m in "trig pos hyb"] for [rr in "1 1.5"] where("map", "--where method=".m." --where r=".rr) \
		using "theta":"log_variance" with linespoints lw 2 lc rgb color(m) dt dash(rr) \
		pt mpt(m) pi 6 title m." r=".rr
	unset multiplot
	set output
}

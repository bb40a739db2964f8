# Thesis Fig 6.2: log(Var OPRF / Var PosRF) against |x + y|^2, one curve per
# dimension d (x = y, where both variances depend on |x + y|^2 and d only).
load "plots/common.gp"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set title "log(Var OPRF / Var PosRF) (thesis Fig 6.2)"
	set xlabel "|x + y|^2"
	set ylabel "log variance ratio"
	set key left bottom
	plot for [d in "8 16 32 64 128"] where("map", "--where method=oprf --where d=".d) \
		using "w":"log_ratio" with lines lw 2 title "d = ".d, \
	     -60 with lines dt 2 lc rgb "#888888" title "-60 (thesis: < -60 at d = 64, |x+y|^2 = 100)"
	set output
}

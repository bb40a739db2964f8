# Thesis Fig 6.2: log(Var OPRF / Var PosRF) against |x + y|^2, one curve per
# dimension d (x = y, where both variances depend on |x + y|^2 and d only).
load "plots/common.gp"

# One series style per d (common.gp's scolor, sdash, spt: dark enough on
# white, where the default cycle's yellow for d = 128 was hard to see, and
# a dash pattern and point type for grey print).
ds = "8 16 32 64 128"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term1 : pdf_term1)
	set output out.".".t
	set title "log(Var OPRF / Var PosRF) (thesis Fig 6.2)"
	set xlabel "|x + y|^2"
	set ylabel "log variance ratio"
	set key left bottom
	plot for [i = 1:words(ds)] where("map", "--where method=oprf --where d=".word(ds, i)) \
		using "w":"log_ratio" with linespoints lw 2 lc rgb scolor(i) dt sdash(i) pt spt(i) pi 8 \
		title "d = ".word(ds, i), \
	     -60 with lines dt 2 lc rgb "#888888" title "-60 (thesis: < -60 at d = 64, |x+y|^2 = 100)"
	set output
}

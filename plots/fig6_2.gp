# Thesis Fig 6.2: log(Var OPRF / Var PosRF) against |x + y|^2, one curve per
# dimension d (x = y, where both variances depend on |x + y|^2 and d only).
load "plots/common.gp"

# One colour per d, dark enough on white (the default cycle's yellow for
# d = 128 was hard to see), and a dash pattern for grey print.
dcolor(d) = d eq "8" ? "#1b9e77" : d eq "16" ? "#d95f02" : d eq "32" ? "#7570b3" : \
	d eq "64" ? "#e7298a" : "#000000"
ddash(d) = d eq "8" ? 1 : d eq "16" ? "- " : d eq "32" ? ". " : d eq "64" ? "-." : "_ "

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set title "log(Var OPRF / Var PosRF) (thesis Fig 6.2)"
	set xlabel "|x + y|^2"
	set ylabel "log variance ratio"
	set key left bottom
	plot for [d in "8 16 32 64 128"] where("map", "--where method=oprf --where d=".d) \
		using "w":"log_ratio" with lines lw 2 lc rgb dcolor(d) dt ddash(d) title "d = ".d, \
	     -60 with lines dt 2 lc rgb "#888888" title "-60 (thesis: < -60 at d = 64, |x+y|^2 = 100)"
	set output
}

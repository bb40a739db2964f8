# Beyond the papers: random-feature attention error against the budget M
# for the positive estimators on every unbiased coupled projection kind
# (experiments/beyond_att.sh), one panel per estimator, one colour per kind.
load "plots/common.gp"

projs = "iid ort simplex simplex+ ort-anti"
methods = "pos oprf sderf aderf saderf"
pcolor(p) = p eq "iid" ? "#7f7f7f" : p eq "ort" ? "#1f77b4" : p eq "simplex" ? "#2ca02c" : \
	p eq "simplex+" ? "#d62728" : "#9467bd"
ppt(p) = p eq "iid" ? 6 : p eq "ort" ? 5 : p eq "simplex" ? 9 : p eq "simplex+" ? 7 : 13
pdt(p) = p eq "iid" ? 2 : p eq "ort" ? 1 : p eq "simplex" ? 4 : p eq "simplex+" ? 1 : 5
set logscale xy
set xlabel "budget M (real features)"
set ylabel "|O^ - O|_F / |O|_F (median)"
set key top right font ",9"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,3 title "Random-feature attention on coupled projections, L = 4096, d = 16, gamma = 0.5 (thesis Fig 3.6's setting)"
	do for [m in methods] {
		set title m
		plot for [p in projs] where("attention", "--where method=".m." --where proj=".p) \
			using "budget":"out_rel_fro_q50" with linespoints lw 2 dt pdt(p) pt ppt(p) lc rgb pcolor(p) title p
	}
	unset multiplot
	set output
}

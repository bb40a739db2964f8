# Beyond the papers: thesis Fig 6.4's regimes with the dense-exponential
# estimators (computed by experiments/fig6_4.sh with the thesis' nine,
# in results/variance.h5): mean log-variance (line) +-
# one standard deviation (band) over L x L pairs against gamma, OPRF and
# GeomRF+ (the thesis' best positive estimators) beside SDERF, ADERF and
# SADERF, fair counting (8 real features).
load "plots/common.gp"
set style fill transparent solid 0.15 noborder

regimes = "normal sphere heterogen mnist"
ms = "oprf geom+ sderf aderf saderf"
# the thesis' two in their colours of common.gp, the DERFs in their own
dc(m) = m eq "sderf" ? "#2ca02c" : m eq "aderf" ? "#d62728" : m eq "saderf" ? "#9467bd" : color(m)
ddt(m) = m eq "sderf" ? 1 : m eq "aderf" ? 2 : m eq "saderf" ? 4 : mdash(m)
dpt(m) = m eq "sderf" ? 9 : m eq "aderf" ? 7 : m eq "saderf" ? 5 : mpt(m)

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,2 title "log-variance of the positive estimators, FAVOR#'s DERFs beside OPRF and GeomRF+ (thesis Fig 6.4's setting, d = 64)"
	do for [reg in regimes] {
		set title reg
		set xlabel "gamma"
		set ylabel "log Var"
		set key left top Left reverse font ",9"
		plot for [m in ms] where("variance", "--where method=".m." --where regime=".reg) \
			using "gamma":(column("logvar_mean")-column("logvar_std")):(column("logvar_mean")+column("logvar_std")) \
			with filledcurves lc rgb dc(m) notitle, \
		     for [m in ms] where("variance", "--where method=".m." --where regime=".reg) \
			using "gamma":"logvar_mean" with linespoints lw 2 dt ddt(m) pt dpt(m) lc rgb dc(m) title m
	}
	unset multiplot
	set output
}

# Thesis Fig 6.4: mean log-variance (line) +- one standard deviation (band)
# against gamma, one panel per input regime; non-positive and positive
# estimators on separate figures (out, out2), and the Monte Carlo check
# (out3).
load "plots/common.gp"
set style fill transparent solid 0.18 noborder

regimes = "normal sphere heterogen mnist"
groups = "nonpositive positive"
methods_nonpositive = "trig hyb gerf pois geom"
methods_positive = "pos oprf pois+ geom+"

do for [g in groups] {
	ms = g eq "positive" ? methods_positive : methods_nonpositive
	do for [t in "png pdf"] {
		eval(t eq "png" ? png_term : pdf_term)
		set output (g eq "positive" ? out2 : out).".".t
		set multiplot layout 2,2 title "log-variance of ".g." estimators (thesis Fig 6.4), d = 64, mean +- std over L x L pairs"
		do for [r in regimes] {
			set title sprintf("%s", r)
			set xlabel "gamma"
			set ylabel "log Var"
			set key left top Left reverse
			plot for [m in ms] where("variance", "--where method=".m." --where regime=".r) \
				using "gamma":(column("logvar_mean")-column("logvar_std")):(column("logvar_mean")+column("logvar_std")) \
				with filledcurves lc rgb color(m) notitle, \
			     for [m in ms] where("variance", "--where method=".m." --where regime=".r) \
				using "gamma":"logvar_mean" with linespoints lw 2 dt mdash(m) pt mpt(m) ps 1.1 lc rgb color(m) title m
		}
		unset multiplot
		set output
	}
}

# Beyond the thesis: the closed form (lines) against Monte Carlo with the
# run's draws (points) on the same pairs. Where the variance is dominated
# by rare events the sample variance of a feasible number of draws falls
# far below it: the estimator looks better than it is.
mc_methods = "trig pos oprf gerf geom+"
do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out3.".".t
	set multiplot layout 2,2 title "closed form (lines) vs Monte Carlo (points) on the same pairs: they agree where the variance is moderate;\npoints far below a line are Monte Carlo missing the rare huge draws that dominate a heavy-tailed variance (the closed form is right)"
	do for [r in regimes] {
		set title sprintf("%s", r)
		set xlabel "gamma"
		set ylabel "mean log Var"
		set key left bottom Left reverse
		plot for [m in mc_methods] where("variance", "--where method=".m." --where regime=".r) \
			using "gamma":"sub_logvar_mean" with lines lw 2 dt mdash(m) lc rgb color(m) title m, \
		     for [m in mc_methods] where("variance", "--where method=".m." --where regime=".r) \
			using "gamma":"mc_logvar_mean" with points pt mpt(m) ps 1.2 lc rgb color(m) notitle
	}
	unset multiplot
	set output
}

# Thesis Fig 6.4: mean log-variance (line) +- one standard deviation (band)
# against gamma, one panel per input regime; non-positive and positive
# estimators on separate figures (out, out2), and the Monte Carlo check
# (out3).
load "plots/common.gp"
set style fill transparent solid 0.18 noborder

# make figures-large passes its own regimes and d (no mnist at d = 1024)
if (!exists("regimes")) regimes = "normal sphere heterogen mnist"
if (!exists("d")) d = 64
groups = "nonpositive positive"
methods_nonpositive = "trig hyb gerf pois geom"
methods_positive = "pos oprf pois+ geom+"

do for [g in groups] {
	ms = g eq "positive" ? methods_positive : methods_nonpositive
	do for [t in "png pdf"] {
		eval(t eq "png" ? png_term : pdf_term)
		set output (g eq "positive" ? out2 : out).".".t
		set multiplot layout 2,2 title "log-variance of ".g." estimators (thesis Fig 6.4), d = ".d.", mean +- std over L x L pairs"
		do for [r in regimes] {
			set title sprintf("%s", r)
			set xlabel "gamma"
			set ylabel "log Var"
			# outside the panel: inside, it covered the curves' start
			set key outside right top vertical Left reverse
			# the i-th method in layers (common.gp's mlw, mps): where
			# two coincide (TrigRF and GERF on the sphere and MNIST)
			# the earlier shows around the later
			n = words(ms)
			plot for [i = 1:n] where("variance", "--where method=".word(ms, i)." --where regime=".r) \
				using "gamma":(column("logvar_mean")-column("logvar_std")):(column("logvar_mean")+column("logvar_std")) \
				with filledcurves lc rgb color(word(ms, i)) notitle, \
			     for [i = 1:n] where("variance", "--where method=".word(ms, i)." --where regime=".r) \
				using "gamma":"logvar_mean" with linespoints lw mlw(i, n) dt mdash(word(ms, i)) \
				pt mpt(word(ms, i)) ps mps(i, n) lc rgb color(word(ms, i)) title word(ms, i)
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
if (!exists("mc_panel")) mc_panel = 1  # make figures-large runs without Monte Carlo
if (mc_panel) do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out3.".".t
	set multiplot layout 2,2 title "closed form (lines) vs Monte Carlo (points) on the same pairs: they agree where the variance is moderate;\npoints far below a line are Monte Carlo missing the rare huge draws that dominate a heavy-tailed variance (the closed form is right)"
	do for [r in regimes] {
		set title sprintf("%s", r)
		set xlabel "gamma"
		set ylabel "mean log Var"
		set key outside right top vertical Left reverse
		n = words(mc_methods)
		plot for [i = 1:n] where("variance", "--where method=".word(mc_methods, i)." --where regime=".r) \
			using "gamma":"sub_logvar_mean" with lines lw mlw(i, n) dt mdash(word(mc_methods, i)) \
			lc rgb color(word(mc_methods, i)) notitle, \
		     for [i = 1:n] where("variance", "--where method=".word(mc_methods, i)." --where regime=".r) \
			using "gamma":"mc_logvar_mean" with points pt mpt(word(mc_methods, i)) ps mps(i, n) \
			lc rgb color(word(mc_methods, i)) notitle, \
		     for [i = 1:n] keyentry with linespoints lw mlw(i, n) dt mdash(word(mc_methods, i)) \
			pt mpt(word(mc_methods, i)) ps mps(i, n) lc rgb color(word(mc_methods, i)) \
			title word(mc_methods, i)
	}
	unset multiplot
	set output
}

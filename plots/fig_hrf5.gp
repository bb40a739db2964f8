# HRF Figs 2 and 5: pointwise estimates of SM(x, y) against the angle, one
# panel per (length, method): the true value and the 5th/95th percentiles
# of the estimates on the left axis, the empirical (points) and analytic
# (line) relative errors on the right axis. The paper's three columns
# (TrigRF, FAVOR+ = posh, the angular hybrid) by its three lengths; the
# other methods the run computed (pos, oprf, gauss-hyb) are in its table
# and in fig_hrf_maxerr. With out2 set, also the paper's Fig 2 subset
# (r = 1 and 1.5).
load "plots/common.gp"

methods = "trig posh ang"
lengths = system(rfx." dump ".in." estimates | awk -F'\t' 'NR > 1 && !s[$7]++ {printf \"%s \", $7}'")

panel(m, r) = sprintf("--where method=%s --where r=%s", m, r)

# One panel: estimates left, relative errors right.
do_panel = 'set title sprintf("%s, r = %s", m, r); \
	plot where("estimates", panel(m, r)) using "theta":"p05":"p95" with filledcurves lc rgb color(m) fs transparent solid 0.2 noborder title "5-95%", \
	     where("estimates", panel(m, r)) using "theta":"sm" with lines lw 2 lc rgb "#000000" title "SM", \
	     where("estimates", panel(m, r)) using "theta":"emp_rel_err" axes x1y2 with points pt 7 ps 0.8 lc rgb "#d62728" title "emp. rel. err", \
	     where("estimates", panel(m, r)) using "theta":"ana_rel_err" axes x1y2 with lines lw 1 dt 2 lc rgb "#d62728" title "rel. err", \
	     0 axes x1y2 with lines lc rgb "#d62728" dt 3 notitle'

set xlabel "theta"
set ylabel "SM"
set y2label "relative error"
set ytics nomirror
set y2tics
set xrange [0:pi]
# One key, at the figure's font size (the same in every panel, it was
# unreadably small when repeated in each), in the second panel (posh at
# the smallest r), whose top right no curve reaches.
set key top right
keyed(i) = i == 2 ? "set key" : "unset key"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout words(lengths),words(methods) title "pointwise estimation of SM(x, y), d = 64, FLOP-matched to trig with m = 128 (HRF Fig 5)"
	k = 0
	do for [r in lengths] {
		do for [m in methods] {
			k = k + 1
			eval(keyed(k))
			eval(do_panel)
		}
	}
	unset multiplot
	set output
}

if (exists("out2")) {
	do for [t in "png pdf"] {
		eval(t eq "png" ? png_term : pdf_term)
		set output out2.".".t
		set multiplot layout 2,3 title "pointwise estimation of SM(x, y), d = 64 (HRF Fig 2)"
		k = 0
		do for [r in "1 1.5"] {
			do for [m in "trig posh ang"] {
				k = k + 1
				eval(keyed(k))
				eval(do_panel)
			}
		}
		unset multiplot
		set output
	}
}

# HRF Fig 1: closed-form MSE of the softmax-kernel estimate over the angle
# theta and the length r (mirrored to -r, as the paper draws it), for
# trig, posh (HRF's FAVOR+) and the angular hybrid, m = 10, n = 1; the
# grey line marks the slice drawn below each map.
load "plots/common.gp"

methods = "trig posh ang"
rs = system(rfx." dump ".in." mse_map | awk -F'\t' 'NR > 1 {print $6}' | sort -g | tail -1")

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,3 title "log MSE of softmax-kernel estimators (HRF Fig 1), m = 10, n = 1"
	do for [m in methods] {
		set title m
		set view map
		set xlabel "theta"
		set ylabel "r"
		set cblabel "log MSE"
		set xrange [0:pi]
		set yrange [-rs:rs]
		set arrow 1 from 0, rs to pi, rs nohead front lc rgb "#bbbbbb" lw 3
		splot where("mse_map", "--where method=".m." --blank-on r") using "theta":"r":"log_mse" with pm3d notitle, \
		      where("mse_map", "--where method=".m." --blank-on r") using "theta":(-column("r")):"log_mse" with pm3d notitle
		unset arrow 1
		unset view
	}
	set autoscale y
	do for [m in methods] {
		set title sprintf("%s at r = %s", m, rs)
		set xlabel "theta"
		set ylabel "log MSE"
		plot where("mse_map", "--where method=".m." --where r=".rs) using "theta":"log_mse" \
			with lines lw 2 lc rgb "#888888" notitle
	}
	unset multiplot
	set output
}

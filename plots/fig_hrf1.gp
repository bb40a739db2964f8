# HRF Fig 1: closed-form MSE of the softmax-kernel estimate over the angle
# theta and the length r (mirrored to -r, as the paper draws it), for
# trig, posh (HRF's FAVOR+) and the angular hybrid, m = 10, n = 1; the
# grey line marks the slice drawn below each map.
load "plots/common.gp"

methods = "trig posh ang"
# One surface from -r_max to r_max: the rows mirrored to -r (r groups in
# reverse, theta ascending within each), then the rows as they are, one
# scan per r. Two separate surfaces left a white band between -r_min and
# r_min (the grid has no r = 0, where the MSE is 0 and its log -inf).
mirrored(m) = "< ".rfx." dump ".in." mse_map --where method=".m." | awk -F'\t' -v OFS='\t' '" . \
	"NR == 1 {print; next} {if ($6 != last) g++; last = $6; n[g]++; row[g, n[g]] = $0} " . \
	"END {for (i = g; i >= 1; i--) {for (j = 1; j <= n[i]; j++) {split(row[i, j], f, \"\t\"); " . \
	"f[6] = -f[6]; l = f[1]; for (k = 2; k in f; k++) l = l OFS f[k]; print l} print \"\"} " . \
	"for (i = 1; i <= g; i++) {for (j = 1; j <= n[i]; j++) print row[i, j]; print \"\"}}'"
rs = system(rfx." dump ".in." mse_map | awk -F'\t' 'NR > 1 {print $6}' | sort -g | tail -1")
# The theta grid's ends (cell midpoints, not 0 and pi): the maps span
# them, with no white margin where pm3d has no cell.
th = system(rfx." dump ".in." mse_map | awk -F'\t' 'NR == 2 {lo = hi = $7} NR > 2 {if ($7 < lo) lo = $7; if ($7 > hi) hi = $7} END {printf \"%.17g %.17g\", lo, hi}'")

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,3 title "log MSE of softmax-kernel estimators (HRF Fig 1), m = 10, n = 1"
	do for [m in methods] {
		set title m
		set view map
		set xlabel "theta"
		set ylabel "r"
		# (the colour is log MSE, as the title says: a colour-box label
		# would run into the next panel's axis label)
		set xrange [real(word(th, 1)):real(word(th, 2))]
		set yrange [-rs:rs]
		set arrow 1 from real(word(th, 1)), rs to real(word(th, 2)), rs nohead front lc rgb "#bbbbbb" lw 3
		splot mirrored(m) using "theta":"r":"log_mse" with pm3d notitle
		unset arrow 1
		unset view
	}
	set autoscale y
	set xrange [0:pi]
	do for [m in methods] {
		set title sprintf("%s at r = %s", m, rs)
		set xlabel "theta"
		set ylabel "log MSE"
		plot where("mse_map", "--where method=".m." --where r=".rs) using "theta":"log_mse" \
			with lines lw 2 lc rgb color(m) notitle
	}
	unset multiplot
	set output
}

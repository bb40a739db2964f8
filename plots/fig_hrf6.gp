# HRF Fig 6: the empirical MSE of the softmax estimates over all pairs of
# each clustered data set against the number of random features m, mean
# over the repetitions (lines) with their minimum and maximum (bars), one
# panel per set. With out2 and paper set, also HRF Table 3 beside ours:
# the [min, max] intervals of the repetitions, ours solid, the paper's
# dashed (its FAVOR+ column beside rfx's pos).
load "plots/common.gp"

methods = system(rfx." dump ".in." table3 | awk -F'\t' 'NR > 1 && !s[$4]++ {printf \"%s \", $4}'")
sets = system(rfx." dump ".in." table3 | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")
label(s) = system(rfx." dump ".in." table3 --where set=".s." | awk -F'\t' 'NR == 2 {printf \"s = (%s), sigma = %.3g\", $3, $2}'")
# A method's offset on the m axis, so that the bars do not overlap.
nmeth = words(methods)
off(i) = 3.0 * (i - (nmeth + 1) / 2.0)

set logscale y
set format y "10^{%L}"
set xlabel "number of random features m"
set ylabel "empirical MSE"
set key top right
set xrange [0:220]

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,2 title "HRF Fig 6: clustered data, mean (lines) and min-max (bars) over repetitions"
	do for [s in sets] {
		set title "set ".s.": ".label(s)
		# bars solid and thin, lines in the methods' dashes and layers
		plot for [i = 1:nmeth] where("table3", "--where set=".s." --where method=".word(methods, i)) \
			using (column("m") + off(i)):"mse_mean":"mse_min":"mse_max" with yerrorbars \
			lw 1.2 dt 1 pt 0 lc rgb color(word(methods, i)) notitle, \
		     for [i = 1:nmeth] where("table3", "--where set=".s." --where method=".word(methods, i)) \
			using (column("m") + off(i)):"mse_mean" with linespoints \
			lw mlw(i, nmeth) dt mdash(word(methods, i)) pt mpt(word(methods, i)) ps mps(i, nmeth) \
			lc rgb color(word(methods, i)) title word(methods, i)
	}
	unset multiplot
	set output
}

if (exists("out2") && exists("paper")) {
	pmeth(m) = m eq "pos" ? "favor+" : m
	# Indices (in methods) of the methods that have a column in Table 3.
	pidx = system("echo '".methods."' | awk '{for (i = 1; i <= NF; i++) if ($i == \"hyb-cluster\" || $i == \"pos\" || $i == \"trig\") printf \"%d \", i}'")
	# With its header line: common.gp's autotitle columnhead takes the
	# first line of every input as the header, so a header-less input
	# would lose its first row (the m = 20 interval).
	ppaper(s, m) = "< awk -F'\t' '$1 == \"set\" || ($1 == ".s." && $3 == \"".pmeth(m)."\")' ".paper
	do for [t in "png pdf"] {
		eval(t eq "png" ? png_term : pdf_term)
		set output out2.".".t
		# the key at the bottom, in room made for it below the data:
		# at the top it covered the intervals
		set key inside bottom right horizontal maxrows 4
		set offsets 0, 0, 0, graph 0.35
		set multiplot layout 2,2 title "HRF Table 3: [min, max] of the empirical MSE over repetitions, rfx (solid) and the paper (dashed)"
		do for [s in sets] {
			set title "set ".s.": ".label(s)
			plot for [i = 1:nmeth] where("table3", "--where set=".s." --where method=".word(methods, i)) \
				using (column("m") + off(i) - 0.8):"mse_min":"mse_min":"mse_max" with yerrorbars \
				lw 3 pt 0 lc rgb color(word(methods, i)) title word(methods, i), \
			     for [j in pidx] ppaper(s, word(methods, j + 0)) \
				using ($2 + off(j + 0) + 0.8):4:4:5 with yerrorbars lw 2 dt "- " pt 0 \
				lc rgb color(word(methods, j + 0)) title "paper ".pmeth(word(methods, j + 0))
		}
		unset multiplot
		set output
	}
}

# ORF Figs 2 and 3 from one table ("zcurve", rfx mse-table --vs-z).
# out:  Fig 2, Var ORF / Var RFF against z: (a) eq. 3 for d -> infinity,
#       (b) simulations (points, 2 standard errors) with the exact finite-d
#       curves (lines) for each d.
# out2: Fig 3, bias of ORF' (a) and SORF (b), variance ratio of ORF' (c)
#       and SORF (d), simulations with ORF''s exact curves.
load "plots/common.gp"

dims = system(rfx." dump ".in." zcurve --where curve=mc | awk -F'\t' 'NR > 1 && !s[$3]++ {printf \"%s \", $3}'")
nd = words(dims)
# The k-th d in common.gp's series styles: its colour, its point type on
# the simulations and its dash pattern on the exact curves, so that the
# curves of nearby d, which coincide at large d, stay apart in grey print.
sel(p, c, d) = sprintf("--where projection=%s --where curve=%s --where d=%s", p, c, d)

set xlabel "z = |x - y| / sigma"
set key top left

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "ORF Fig 2: Var(K_{ORF}) / Var(K_{RFF}), D = d"
	set title "(a) d -> infinity, eq. 3"
	set ylabel "variance ratio"
	set yrange [0:1.1]
	plot where("zcurve", sel("ort", "limit", "0")) using "z":"ratio" with lines lw 2 lc rgb "#000000" title "eq. 3"
	set title "(b) simulation (points) and exact finite-d form (lines)"
	plot for [k = 1:nd] where("zcurve", sel("ort", "mc", word(dims, k))) using "z":"ratio":(2 * column("ratio_se")) \
		with yerrorbars pt spt(k) ps 0.8 lc rgb scolor(k) title "d = ".word(dims, k), \
	     for [k = 1:nd] where("zcurve", sel("ort", "exact", word(dims, k))) using "z":"ratio" \
		with lines lw 1.5 dt sdash(k) lc rgb scolor(k) notitle, \
	     where("zcurve", sel("ort", "limit", "0")) using "z":"ratio" with lines lw 2 dt 2 lc rgb "#000000" title "d -> infinity"
	unset multiplot
	set output
}

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out2.".".t
	set multiplot layout 2,2 title "ORF Fig 3: bias and variance of ORF' and SORF, D = d (points: simulation, 2 s.e.; lines: ORF' exact)"
	set autoscale y
	set ylabel "E K^ - e^{-z^2/2}"
	set title "(a) ORF' bias"
	plot for [k = 1:nd] where("zcurve", sel("orf-prime", "mc", word(dims, k))) using "z":"bias":(2 * column("bias_se")) \
		with yerrorbars pt spt(k) ps 0.8 lc rgb scolor(k) title "d = ".word(dims, k), \
	     for [k = 1:nd] where("zcurve", sel("orf-prime", "exact", word(dims, k))) using "z":"bias" \
		with lines lw 1.5 dt sdash(k) lc rgb scolor(k) notitle, 0 with lines lc rgb "#888888" dt 3 notitle
	set title "(b) SORF bias"
	plot for [k = 1:nd] where("zcurve", sel("sorf", "mc", word(dims, k))) using "z":"bias":(2 * column("bias_se")) \
		with yerrorlines lw 1.5 dt sdash(k) pt spt(k) ps 0.8 lc rgb scolor(k) title "d = ".word(dims, k), 0 with lines lc rgb "#888888" dt 3 notitle
	set ylabel "Var / Var_{RFF}"
	set title "(c) ORF' variance ratio"
	plot for [k = 1:nd] where("zcurve", sel("orf-prime", "mc", word(dims, k))) using "z":"ratio":(2 * column("ratio_se")) \
		with yerrorbars pt spt(k) ps 0.8 lc rgb scolor(k) title "d = ".word(dims, k), \
	     for [k = 1:nd] where("zcurve", sel("orf-prime", "exact", word(dims, k))) using "z":"ratio" \
		with lines lw 1.5 dt sdash(k) lc rgb scolor(k) notitle, \
	     where("zcurve", sel("ort", "limit", "0")) using "z":"ratio" with lines lw 2 dt 2 lc rgb "#000000" title "ORF, d -> infinity"
	set title "(d) SORF variance ratio"
	plot for [k = 1:nd] where("zcurve", sel("sorf", "mc", word(dims, k))) using "z":"ratio":(2 * column("ratio_se")) \
		with yerrorlines lw 1.5 dt sdash(k) pt spt(k) ps 0.8 lc rgb scolor(k) title "d = ".word(dims, k), \
	     where("zcurve", sel("ort", "limit", "0")) using "z":"ratio" with lines lw 2 dt 2 lc rgb "#000000" title "ORF, d -> infinity"
	unset multiplot
	set output
}

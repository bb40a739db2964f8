# Beyond the papers: the SimRF paper's UCI classification (experiments/
# beyond_uci.sh), test accuracy against m/d on the eight datasets, one
# colour per projection kind, PosRF solid and SDERF dashed, exact kernel
# regression as the grey ceiling.
load "plots/common.gp"

projs = "iid ort simplex simplex+ ort-anti"
datasets = "abalone banknote car yeast cmc nursery wifi chess"
# one colour and point type per projection kind (not per estimator)
pcolor(p) = p eq "iid" ? "#7f7f7f" : p eq "ort" ? "#1f77b4" : p eq "simplex" ? "#2ca02c" : \
	p eq "simplex+" ? "#d62728" : "#9467bd"
ppt(p) = p eq "iid" ? 6 : p eq "ort" ? 5 : p eq "simplex" ? 9 : p eq "simplex+" ? 7 : 13
# m/d: the row's M over its d
set xlabel "m / d"
set ylabel "test accuracy (%)"
set logscale x 2
# one key, in car's panel (its curves lie low, near 81%)
set key top right font ",8"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,4 title "UCI classification against m/d (SimRF paper's setting): PosRF solid, SDERF dashed, exact grey"
	do for [ds in datasets] {
		set title ds
		if (ds eq "car") { set key } else { unset key }
		ex = real(system(rfx." dump ".in." uci --where dataset=".ds." --where method=exact | awk -F'\t' 'NR == 2 { print $13 }'"))
		plot for [p in projs] where("uci", "--where dataset=".ds." --where method=pos --where projection=".p) \
			using ($9 / $4):13 with linespoints lw 2 pt ppt(p) lc rgb pcolor(p) title "pos ".p, \
		     for [p in projs] where("uci", "--where dataset=".ds." --where method=sderf --where projection=".p) \
			using ($9 / $4):13 with linespoints lw 2 dt 2 pt ppt(p) lc rgb pcolor(p) title "sderf ".p, \
		     ex with lines lw 1 lc rgb "#aaaaaa" title "exact"
	}
	unset multiplot
	set output
}

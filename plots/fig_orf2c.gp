# ORF Fig 2(c): the distribution of z = |x - y|/sigma over random pairs of
# each dataset, sigma the mean distance to the 50th nearest neighbour
# (rfx mse-table --z-hist): the density (area 1 over all pairs, as the
# paper normalises) at each bin's middle, one curve per dataset, with the
# fraction of pairs below z = 2 in its key (the paper: "most points in all
# the datasets have z < 2").
load "plots/common.gp"

sets = system(rfx." dump ".in." zhist | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")
# "letter (d = 16, sigma = 4.42): 17% of pairs below z = 2"
label(s) = system(rfx." dump ".in." zhist --where dataset=".s." | awk -F'\t' " . \
	"'NR > 1 && !d {printf \"%s (d = %s, sigma = %.3g)\", $1, $3, $4; d = 1} " . \
	"NR > 1 && $7 + 0 <= 2 + 1e-9 {c = $10} END {printf \": %.0f%% of pairs below z = 2\", 100 * c}'")
n = words(sets)

set xlabel "z = |x - y| / sigma"
set ylabel "density of pairs"
set key top right
set arrow 1 from 2, graph 0 to 2, graph 1 nohead dt 3 lc rgb "#888888"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term1 : pdf_term1)
	set output out.".".t
	set title "ORF Fig 2(c): z over random pairs, sigma = mean distance to the 50th neighbour"
	plot for [i = 1:n] where("zhist", "--where dataset=".word(sets, i)) \
		using ((column("z_lo") + column("z_hi")) / 2):"density" with linespoints \
		lw mlw(i, n) dt sdash(i) pt spt(i) ps mps(i, n) pi 3 lc rgb scolor(i) title label(word(sets, i))
	set output
}

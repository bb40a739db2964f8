# Thesis Fig 3.3 on this CPU from `rfx attention --time` (experiments/fig3_3.sh):
# wall time of exact attention, random-feature attention (PosRF, M = 256)
# and Fig 3.5's "returns V" floor against L, d = 64, noncausal and causal,
# and the peak resident memory each adds.
load "plots/common.gp"

sel(w, c) = sprintf("--where what=%s --where causal=%d", w, c)
wcolor(w) = w eq "exact" ? "#d62728" : w eq "rf" ? "#1f77b4" : "#555555"
# and a dash pattern and point type each, for grey print
wdash(w) = w eq "exact" ? 1 : w eq "rf" ? "- " : "-."
wpt(w) = w eq "exact" ? 7 : w eq "rf" ? 5 : 9
wtitle(w) = w eq "exact" ? "exact (blocked)" : w eq "rf" ? "random features (pos, M = 256)" : "returns V (floor)"
set logscale xy
set format x "2^{%L}"
set logscale x 2
set format y "10^{%L}"
set xlabel "L"
set ylabel "wall time (s)"
# keys where no curve runs: the times' bottom right (the floor stays
# above 10^-5 there), the memory's top left

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,3 title "Thesis Fig 3.3 on a CPU: forward attention, d = 64"
	do for [c in "0 1"] {
		set title (c eq "0" ? "noncausal" : "causal (prefix sums)")
		set key bottom right
		plot for [w in "exact rf floor"] where("attention_time", sel(w, c + 0)) using "L":"seconds" \
			with linespoints lw 2 dt wdash(w) pt wpt(w) lc rgb wcolor(w) title wtitle(w)
	}
	set title "peak resident memory added, noncausal"
	set key top left
	set ylabel "MiB"
	plot for [w in "exact rf"] where("attention_time", sel(w, 0)) using "L":"peak_mib" \
		with linespoints lw 2 dt wdash(w) pt wpt(w) lc rgb wcolor(w) title wtitle(w), \
	     where("attention_time", sel("exact", 0)) using "L":(8.0 * column("L")**2 / 1048576) \
		with lines lw 1 dt 2 lc rgb "#d62728" title "an L x L matrix of doubles"
	set ylabel "wall time (s)"
	unset multiplot
	set output
}

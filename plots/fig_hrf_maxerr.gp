# HRF Lemma 3.4 and Theorem 3.5: the max-relative-error over the sphere
# S(r), found numerically, with eq. 26's closed form for trig and posh and
# eq. 27's bound for the angular hybrid, as printed and corrected; right,
# each method against trig.
load "plots/common.gp"

methods = system(rfx." dump ".in." max_rel_err | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "max-relative-error over S(r), d = 64, FLOP-matched to trig with m = 128"
	set title "log max-relative-error"
	set xlabel "r"
	set ylabel "log eps_{S(r)}"
	set key top left
	plot for [m in methods] where("max_rel_err", "--where method=".m." --where curve=numeric") \
		using "r":"log_rel_err" with linespoints lw 2 dt mdash(m) pt mpt(m) ps 1 pi 4 lc rgb color(m) title m, \
	     where("max_rel_err", "--where method=trig --where curve=lemma3.4") \
		using "r":"log_rel_err" with points pt 6 ps 1 lc rgb "#000000" title "eq. 26 (trig, posh)", \
	     where("max_rel_err", "--where method=ang --where curve=thm3.5") \
		using "r":"log_rel_err" with lines lw 1 dt 2 lc rgb color("ang") title "eq. 27 bound as printed", \
	     where("max_rel_err", "--where method=ang --where curve=thm3.5-corrected") \
		using "r":"log_rel_err" with lines lw 1 dt 3 lc rgb color("ang") title "eq. 27 corrected"
	set title "against trig"
	set ylabel "log (eps / eps_{trig})"
	# bottom left is where no curve runs (oprf falls toward the right)
	set key bottom left
	# trig's numeric value at the same r joined as column 10 (buffered: any method order).
	plot for [m in methods] "< ".rfx." dump ".in." max_rel_err --where curve=numeric | awk -F'\t' 'NR == 1 {h = $0; next} {l[NR] = $0; k[NR] = $1; r[NR] = $7} $1 == \"trig\" {t[$7] = $9} END {print h; for (i = 2; i <= NR; i++) if (k[i] == \"".m."\" && (r[i] in t)) print l[i] \"\t\" t[r[i]]}'" \
		using "r":(column("log_rel_err") - column(10)) with linespoints lw 2 dt mdash(m) pt mpt(m) ps 1 pi 4 lc rgb color(m) title m
	unset multiplot
	set output
}

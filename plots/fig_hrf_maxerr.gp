# HRF Lemma 3.4 and Theorem 3.5: the max-relative-error over the sphere
# S(r), found numerically, with eq. 26's closed form for trig and posh and
# eq. 27's bound for the angular hybrid, as printed and corrected; right,
# each method against trig.
load "plots/common.gp"

methods = system(rfx." dump ".in." max_rel_err | awk -F'\t' 'NR > 1 && !s[$1]++ {printf \"%s \", $1}'")
n = words(methods)

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 1,2 title "max-relative-error over S(r), d = 64, FLOP-matched to trig with m = 128"
	set title "log max-relative-error"
	set xlabel "r"
	set ylabel "log eps_{S(r)}"
	# top left, where no curve runs (they rise with r from below 2)
	set key inside top left vertical Left reverse font ",10"
	# in layers (common.gp's mlw, mps): posh's curve is trig's (eq. 26
	# is the same for both), drawn narrower on top of it; the closed
	# forms in black
	plot for [i = 1:n] where("max_rel_err", "--where method=".word(methods, i)." --where curve=numeric") \
		using "r":"log_rel_err" with linespoints lw mlw(i, n) dt mdash(word(methods, i)) \
		pt mpt(word(methods, i)) ps mps(i, n) pi 4 lc rgb color(word(methods, i)) title word(methods, i), \
	     where("max_rel_err", "--where method=trig --where curve=lemma3.4") \
		using "r":"log_rel_err" with points pt 6 ps 1.8 lw 1.5 lc rgb "#000000" title "eq. 26 (trig, posh)", \
	     where("max_rel_err", "--where method=ang --where curve=thm3.5") \
		using "r":"log_rel_err" with lines lw 1.5 dt "- " lc rgb "#000000" title "eq. 27 bound (ang), as printed", \
	     where("max_rel_err", "--where method=ang --where curve=thm3.5-corrected") \
		using "r":"log_rel_err" with lines lw 1.5 dt ". " lc rgb "#000000" title "eq. 27 bound (ang), corrected"
	set title "against trig"
	set ylabel "log (eps / eps_{trig})"
	# bottom left is where no curve runs (oprf falls toward the right)
	set key inside bottom left
	# trig's numeric value at the same r joined as column 10 (buffered: any method order).
	plot for [i = 1:n] "< ".rfx." dump ".in." max_rel_err --where curve=numeric | awk -F'\t' 'NR == 1 {h = $0; next} {l[NR] = $0; k[NR] = $1; r[NR] = $7} $1 == \"trig\" {t[$7] = $9} END {print h; for (i = 2; i <= NR; i++) if (k[i] == \"".word(methods, i)."\" && (r[i] in t)) print l[i] \"\t\" t[r[i]]}'" \
		using "r":(column("log_rel_err") - column(10)) with linespoints lw mlw(i, n) \
		dt mdash(word(methods, i)) pt mpt(word(methods, i)) ps mps(i, n) pi 4 \
		lc rgb color(word(methods, i)) title word(methods, i)
	unset multiplot
	set output
}

# Beyond the papers: the SimRF paper's claims on exact variances
# (experiments/beyond_simrf.sh). Top: log(Var_P / Var_ort) of PosRF and
# OPRF against w = |x + y|^2 for P = iid, simplex and ort-anti, d = 4..64
# (closed forms, M = 64). Bottom: SimRF+ against SimRF by Monte Carlo at
# w = 0.5 and 2 (M = d), with simplex's closed form, log Var with 2-se bars.
load "plots/common.gp"

ds = "4 8 16 64"
dcol(d) = d == 4 ? "#1f77b4" : d == 8 ? "#2ca02c" : d == 16 ? "#ff7f0e" : "#d62728"
# the ratio to ort of one kind: join the kind's rows with ort's on (method, d, w)
ratio(m, p) = "< ".rfx." dump ".in." map | awk -F'\t' 'NR > 1 && $2 == \"".m."\" { k = $3 \" \" $7; if ($11 == \"ort\") o[k] = $9; if ($11 == \"".p."\") { v[k] = $9; d[k] = $3; w[k] = $7; n[++c] = k } } END { print \"d\\tw\\tlr\"; for (i = 1; i <= c; i++) { k = n[i]; if (i > 1 && d[k] != d[n[i-1]]) print \"\"; print d[k] \"\\t\" w[k] \"\\t\" v[k] - o[k] } }'"
mc(m, p) = "< awk -F'\t' 'NR > 1 && $4 == \"".m."\" && $3 == \"".p."\" { print $1 + ($2 == 2 ? 0.15 : -0.15) * $1 / 4 \"\\t\" $2 \"\\t\" $16 \"\\t\" $17 \"\\t\" $10 }' ".in.".mc.tsv"

do for [t in "png pdf"] {
	eval(t eq "png" ? png_term : pdf_term)
	set output out.".".t
	set multiplot layout 2,2 title "SimRF claims on exact variances: coupled projections against ORF (top), SimRF+ against SimRF by Monte Carlo (bottom)"
	do for [m in "pos oprf"] {
		set title m.": log(Var / Var(ort)), M = 64; solid simplex, dashed iid, dotted ort-anti"
		set xlabel "w = |x + y|^2"
		set ylabel "log variance ratio to ort"
		set key bottom right font ",9"
		unset logscale
		set autoscale x
		plot for [d in ds] ratio(m, "simplex") using 2:(column(1) == d+0 ? $3 : 1/0) with lines lw 2 lc rgb dcol(d+0) title "d = ".d, \
		     for [d in ds] ratio(m, "iid") using 2:(column(1) == d+0 ? $3 : 1/0) with lines lw 1 dt 2 lc rgb dcol(d+0) notitle, \
		     for [d in ds] ratio(m, "ort-anti") using 2:(column(1) == d+0 ? $3 : 1/0) with lines lw 1 dt 3 lc rgb dcol(d+0) notitle, \
		     0 with lines lc rgb "#000000" notitle
	}
	do for [m in "pos oprf"] {
		set title m.": log Var at M = d by Monte Carlo (points, 2 se) and simplex's closed form (x)"
		set xlabel "d (w = 0.5 left of each d, w = 2 right)"
		set ylabel "log Var"
		set logscale x 2
		set xrange [3:24]
		set key top right font ",9"
		plot mc(m, "simplex") using 1:3:(2 * $4) with yerrorbars pt 9 lc rgb "#2ca02c" title "simplex (Monte Carlo)", \
		     mc(m, "simplex+") using 1:3:(2 * $4) with yerrorbars pt 7 lc rgb "#d62728" title "simplex+ (Monte Carlo)", \
		     mc(m, "simplex") using 1:5 with points pt 2 ps 1.5 lc rgb "#000000" title "simplex (closed form)"
	}
	unset multiplot
	set output
}

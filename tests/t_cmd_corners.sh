#!/bin/sh
#
# Numerical corners of every subcommand (issue 8): each command run at the
# ends of its documented ranges (README "Numerics and valid ranges": input
# norms from 1e-75 to 1e75, gamma 1e-3 and 10, d = 1 and 1024 or the
# command's own limits, a few features and the largest r, z and --norm)
# must exit 0 and print no nan and no inf in any column of any table, on
# stdout or in the -o file, except where the README says a value column
# reads inf (or a log column -inf) by design:
#
#   pair      variance = exp(log_variance) reads inf beyond e^709.78, and
#             only there;
#   pair      log_variance may be -inf for an estimator that is exact when
#             fitted to one pair: cexp-c in any d (HRF eqs. 85-87), and in
#             d = 1 PoisRF, PoisRF+ and GeomRF+ (their fitted exponent is
#             zero by Cauchy-Schwarz with equality);
#   map       log_variance and log_ratio may be -inf at theta = 0 (x = y)
#             for GERF, whose fit contains TrigRF (A = 0, t = -1), exact
#             there;
#   pair      mc_log_variance is -inf exactly when mc_variance is 0 (every
#             draw gave the same estimate);
#   estimates (pointwise) ana_rel_err = exp(log_ana_rel_err) likewise reads
#             inf beyond e^709.78, and log_ana_rel_err -inf where the
#             variance vanishes (ana_rel_err 0: TrigRF at theta = 0);
#   mse       (clustered) mse reads inf beyond e^709.78 of log_mse, and
#             only there.
#
# Where the README says a configuration is refused instead (PoisRF's rate
# cap, an MSE table or pointwise estimates beyond double range), the test
# checks the refusal: exit 1 or 2 and one line. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

unset RFX_DATA

# nonfinite: reads tables ("# NAME" line, header, rows; blank lines
# between tables) on stdin and prints every nan or inf cell the list above
# does not allow; fails if there is one.
nonfinite() {
	awk -F'\t' '
	function bad(v) { return tolower(v) ~ /^[-+]?(nan|inf)/ }
	function get(n) { return (n in col) ? $(col[n]) : "" }
	function allowed(t, c, v) {
		if (t == "pair" && c == "variance")
			return v == "inf" && get("log_variance") + 0 > 709.78
		if (t == "pair" && c == "log_variance")
			return v == "-inf" && (get("method") == "cexp-c" ||
				get("d") == 1 && get("method") ~ /^(pois|pois\+|geom\+)$/)
		if (t == "map" && (c == "log_variance" || c == "log_ratio"))
			return v == "-inf" && get("theta") == "0" &&
				get("method") == "gerf"
		if (t == "pair" && c == "mc_log_variance")
			return v == "-inf" && get("mc_variance") == "0"
		if (t == "estimates" && c == "ana_rel_err")
			return v == "inf" && get("log_ana_rel_err") + 0 > 709.78
		if (t == "estimates" && c == "log_ana_rel_err")
			return v == "-inf" && get("ana_rel_err") == "0"
		if (t == "mse" && c == "mse")
			return v == "inf" && get("log_mse") + 0 > 709.78
		return 0
	}
	/^# / { t = substr($0, 3); hdr = 1; next }
	/^$/ { next }
	hdr { delete col; for (i = 1; i <= NF; i++) { name[i] = $i; col[$i] = i }
		hdr = 0; next }
	{ for (i = 1; i <= NF; i++)
		if (bad($i) && !allowed(t, name[i], $i)) {
			if (n++ < 5)
				print "#     " t " row " NR ", " name[i] ": " $i
			ret = 1 } }
	END { exit ret }'
}

# corner DESCRIPTION TABLE ARG...: runs 'rfx ARG... -o out.h5', which must
# exit 0; its stdout (as table TABLE) and every table of out.h5 must pass
# nonfinite.
corner() {
	c_desc=$1
	c_tab=$2
	shift 2
	rm -f out.h5
	run "$@" -o out.h5
	c_why=
	if [ "$rc" -ne 0 ]; then
		c_why="exit status $rc"
	elif [ "$(rows "$tmp/out")" -lt 1 ]; then
		c_why="no rows"
	elif ! { echo "# $c_tab"; cat "$tmp/out"; echo; "$RFX" dump out.h5; } |
		nonfinite > "$tmp/why"; then
		c_why="nan or inf outside the documented cells: $(cat "$tmp/why")"
	fi
	[ -z "$c_why" ]
	ok $? "$c_desc: finite" || {
		diag "$c_why" "rfx $*"
		diag_file "$tmp/err"
	}
}

# The checker itself, on tables made here: it must refuse each of these.
printf '# pair\nmethod\tvariance\tlog_variance\nposh\tinf\t700\n' | nonfinite > /dev/null
r1=$?
printf '# pair\nmethod\td\tvariance\tlog_variance\ntrig\t1\t0\t-inf\npois\t2\t0\t-inf\n' |
	nonfinite > "$tmp/why"
r2=$?$(grep -c 'log_variance' "$tmp/why")
printf '# t\na\tb\n1\tnan\n' | nonfinite > /dev/null
r3=$?
printf '# t\na\tb\n1\t-nan\n' | nonfinite > /dev/null
r4=$?
printf '# pair\nmethod\tvariance\tlog_variance\nposh\tinf\t710\n# t\na\n-Inf\n' | nonfinite > /dev/null
r5=$?
printf '# pair\nmethod\td\tvariance\tlog_variance\tmc_variance\tmc_log_variance\nposh\t3\tinf\t710\t0\t-inf\ncexp-c\t3\t0\t-inf\t0\t-inf\ngeom+\t1\t0\t-inf\t1e-300\t-690\n' |
	nonfinite > /dev/null
r6=$?
is "$r1$r2$r3$r4$r5$r6" "1121110" \
	"the checker refuses inf below e^709.78, -inf for trig and for pois at d = 2, nan, -nan, -Inf; takes the documented cells"

# Vectors of d coordinates, s times fixed numbers in (-1, 1).
vec() {
	awk -v s="$1" -v d="$2" -v k="$3" 'BEGIN {
		for (i = 1; i <= d; i++)
			printf "%s%.6g", (i > 1 ? "," : ""), s * sin(7.1 * i + k)
	}'
}

# ---------------------------------------------------------------------------
# rfx variance, pair mode: every method at d = 1 and 1024 and norms from
# 1e-75 to 1e75 (coordinates up to s), with Monte Carlo. PoisRF and
# PoisRF+ refuse rates above 1e9 (a usage error, README), reached at
# norms >= 1e3, so the huge corners leave them out.
ALL=all
# every estimator of the registry but those named (lists derived from
# 'rfx help estimators', so a new estimator is in every corner)
all_but() {
	"$RFX" help estimators --format names | grep -vx "$(printf '%s\n' "$@")" | paste -sd, -
}
BIG=$(all_but pois pois+)
for s in 1e-75 1e-8 1 30 1e75; do
	case $s in 30 | 1e75) m=$BIG ;; *) m=$ALL ;; esac
	for d in 1 1024; do
		corner "variance pair, d = $d, norms ~ $s" pair \
			variance --x "$(vec "$s" "$d" 1)" --y "$(vec "$s" "$d" 2)" \
			--method "$m" --mc 20
	done
done
# The same points pushed to the edge of the input range: |x_l| = 1e75.
corner "variance pair, d = 2, |x_l| = 1e75 exactly" pair \
	variance --x 1e75,-1e75 --y -1e75,-1e75 --method "$BIG" --mc 20
run variance --x 1e75,2 --y 1,2 --method pois
is "$rc" 2 "variance pair: pois at norm 1e75 is refused as documented (exit 2)"
# The documented overflow does happen at these corners, and reads as the
# README says: variance inf, log_variance finite and beyond e^709.78.
run variance --x "$(vec 30 1024 1)" --y "$(vec 30 1024 2)" --method pos,oprf
awk -F'\t' -v re="$NUM" 'NR > 1 && $1 == "pos" { seen = 1
	if ($6 != "inf" || $7 !~ re || $7 + 0 <= 709.78) bad = 1 }
	NR > 1 && $1 == "oprf" && $6 !~ re { bad = 1 }
	END { exit bad || !seen }' "$tmp/out"
ok $? "variance pair at norms ~ 30 in d = 1024: pos reads inf with a finite log beyond e^709.78, oprf stays in range" ||
	diag_file "$tmp/out"

# ---------------------------------------------------------------------------
# rfx variance, experiment mode: gamma 1e-3 and 10 at d = 1 and 1024 (the
# mnist regime takes d = 1 and at most 784), and the maps.
E="--gamma 0.001,10 --L 8 --samples 1 --mc 20 --mc-pairs 2"
for d in 1 1024; do
	corner "variance, regimes normal, sphere, heterogen, d = $d" variance \
		variance --d $d --regime normal,sphere,heterogen $E
done
for d in 1 784; do
	corner "variance, regime mnist, d = $d" variance variance --d $d --regime mnist $E
done
corner "variance --map angle, d = 2, r up to 1e-8" map \
	variance --map angle --method all --d 2 --r-max 1e-8 --steps 3
corner "variance --map angle, d = 1024, r up to 30" map \
	variance --map angle --method all --d 1024 --r-max 30 --steps 3
corner "variance --map angle, d = 1024, r up to 1e75" map \
	variance --map angle --method "$BIG" --d 1024 --r-max 1e75 --steps 3
# x = y in the sum map: the estimators with zero variance there (TrigRF
# and the hybrids built on it, README) are left out.
POS=pos,oprf,gerf,posh,geom,geom+,pois+,cexp
for w in 1e-6 1e6; do
	corner "variance --map sum, d = 1 and 1024, w up to $w" map \
		variance --map sum --method "$POS" --d 1,1024 --w-max "$w" --steps 3
done

# ---------------------------------------------------------------------------
# rfx pointwise: r from 1e-3 to 10 with estimates, to 100 for the closed
# forms of --map and --max-error; d = 2 (the smallest plane) and 1024.
# cexp and cexp-c, fitted to the centres of the angle grid, whose
# coordinates beyond the plane vanish (A = 1e3 there, lib/est/cexp.c),
# have relative errors near e^250000 even at r = 1: their analytic column
# reads inf by design, and their estimates, beyond double range, are
# refused (README).
PM=$(all_but cexp cexp-c)
for d in 2 1024; do
	corner "pointwise, d = $d, r = 0.001 and 10, estimates" estimates \
		pointwise --method "$PM" --r 0.001,10 --thetas 3 --mc 20 --d $d
	corner "pointwise, d = $d, r = 0.001 and 10, every method, closed forms" estimates \
		pointwise --method all --r 0.001,10 --thetas 3 --mc 0 --d $d
	corner "pointwise --max-error, d = $d, r from 0.001 to 100" max_rel_err \
		pointwise --method all --max-error --r-min 0.001 --r-max 100 --steps 3 --thetas 5 --d $d
done
corner "pointwise --map, r up to 100" map \
	pointwise --method all --map --r-max 100 --steps 3 --thetas 3 --d 2
run pointwise --method cexp-c --r 1 --thetas 3 --mc 0
awk -F'\t' -v re="$NUM" 'NR > 1 && $8 == 0 { seen = 1
	if ($11 != "inf" || $12 !~ re || $12 + 0 <= 709.78) bad = 1 }
	END { exit bad || !seen }' "$tmp/out"
ok $? "pointwise cexp-c at r = 1: ana_rel_err reads inf, log_ana_rel_err finite beyond e^709.78" ||
	diag_file "$tmp/out"
run pointwise --method cexp-c --r 1 --thetas 3 --mc 20
[ "$rc" -eq 1 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 'exceed double range' "$tmp/err"
ok $? "pointwise cexp-c estimates beyond double range: a one-line run-time failure (exit 1)" ||
	diag_file "$tmp/err"

# ---------------------------------------------------------------------------
# rfx clustered: --norm 1e-3 and 10, d = 2 and 200, every method. The
# paper's sets reach their targets only near the default scales, so the
# extremes use targets of 0 (any scale reaches them). d = 1000, the
# documented maximum, costs 15 s of data generation and is left out.
CM=hyb-cluster,hyb-gmix,trig,gerf,pois,geom,pos,oprf,pois+,geom+,posh,cexp,cexp-c
C="--method $CM --points 20 --reps 2 --m 5"
for n in 1e-3 10; do
	for d in 2 200; do
		corner "clustered, norm $n, d = $d" table3 \
			clustered $C --s 0,0,0,0 --sigma 1 --norm $n --d $d
	done
done
corner "clustered, mean sd 1e6, norm 10" table3 \
	clustered $C --s 0,0,0,0 --sigma 0 --norm 10 --d 2 --mean-sd 1e6
corner "clustered, set 2, complex A" table3 clustered $C --set 2 --a complex

# ---------------------------------------------------------------------------
# rfx mse-table: every normalisation of the softmax kernel; the Gaussian
# kernel with bandwidths that make the inputs huge (TrigRF, bounded) and
# tiny (every method); --vs-z at d = 2 and 1024 and the largest z.
MALL=$(all_but)
S="--features 8 --pairs 5 --draws 2 --reps 2"
corner "mse-table, softmax, every normalisation, every method" mse \
	mse-table --dataset wine,boston --norm zscore,unit,ball,minmax --method "$MALL" $S
corner "mse-table, gauss, sigma 1e3" mse \
	mse-table --dataset wine --kernel gauss --norm zscore --sigma 1e3 --method "$MALL" $S
corner "mse-table, gauss, sigma 1e-3 on raw inputs, TrigRF projections" mse \
	mse-table --dataset wine,boston --kernel gauss --sigma 1e-3 \
	--method trig:iid,trig:ort,trig:sorf,trig:halton-scr,trig:orf-prime $S
corner "mse-table, one feature each" mse \
	mse-table --dataset usps --norm unit --method "$MALL" --features 1 --match none \
	--pairs 5 --draws 2 --reps 2
corner "mse-table --vs-z, d = 2 and 1024, z = 6" vs_z \
	mse-table --vs-z --d 2,1024 --z-max 6 --z-steps 1 --mc 20 --projection iid,ort,sorf
corner "mse-table --vs-z, z = 0.001" vs_z \
	mse-table --vs-z --d 2 --z-max 0.001 --z-steps 1 --mc 20
# Where a closed-form MSE leaves double range (PosRF on raw wine, whose
# proline reaches 1680), the table is refused, not printed as inf.
run mse-table --dataset wine --kernel gauss --norm none --sigma 10 --method pos $S
[ "$rc" -eq 1 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 'exceed double range' "$tmp/err"
ok $? "mse-table: an MSE beyond double range is a one-line run-time failure (exit 1)" ||
	diag_file "$tmp/err"

# ---------------------------------------------------------------------------
# rfx uci-classify: gamma 1e-3 and 10 (and 1e3 without scaling), the
# smallest and a large budget.
corner "uci-classify, gamma 1e-3 and 10, every method" uci \
	uci-classify --dataset banknote,car --gamma 1e-3,10 --seeds 1 --method all
corner "uci-classify, gamma 1e3 unscaled, budget 1" uci \
	uci-classify --dataset banknote --gamma 1e-3,1e3 --seeds 1 --method all --budget 1 --scaling none
corner "uci-classify, one-hot, budget 1024" uci \
	uci-classify --dataset car --encoding onehot --gamma 1e-3,10 --seeds 1 --budget 1024 \
	--method exact,trig,oprf

done_testing

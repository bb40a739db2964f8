#!/bin/sh
#
# One estimator list (issue 15): the registry of lib/est/estimator.c is the
# only hand-kept list of estimators; every other one is generated from it
# or checked against it here, so that none can drift. 'rfx help
# estimators' prints the registry; this test fails when
#   - README.md's estimator table or doc/rfx.1's ESTIMATORS section is not
#     that output (--format markdown, --format man), byte for byte;
#   - a command's --help names other methods or parameters than the
#     registry (variance, pointwise, clustered; --param lines);
#   - the "accepted by" column is wrong: each command listed there runs
#     every estimator it claims, and clustered refuses those it does not;
#   - an estimator is not laid out as docs/HACKING.md's "Add an estimator"
#     says: defined in lib/est/<file>.c with a LIB_OBJS line, tested in
#     tests/t_est_<name>.c or in the file the table below names.
# Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

"$RFX" help estimators --format names > names || bail "rfx help estimators failed"
"$RFX" help estimators --format params > params || bail "rfx help estimators failed"
[ "$(lines names)" -ge 9 ]
ok $? "rfx help estimators --format names lists $(lines names) estimators"

# between FILE BEGIN END: the lines strictly between the marker lines.
between() {
	B=$2 E=$3 awk 'index($0, ENVIRON["E"]) { on = 0 } on { print } index($0, ENVIRON["B"]) { on = 1 }' "$1"
}

# generated FILE FORMAT WHAT: the lines of FILE between the markers of
# FORMAT are 'rfx help estimators --format FORMAT'.
generated() {
	"$RFX" help estimators --format "$2" > want
	between "$RFX_TOP/$1" "begin: rfx help estimators --format $2" \
		"end: rfx help estimators --format $2" > got
	[ -s got ] && cmp -s want got
	ok $? "$1's $3 is 'rfx help estimators --format $2'" || {
		diff want got | sed "s/^</generated:/; s|^>|$1:|" > why
		diag_file why
	}
}
generated README.md markdown "estimator table"
generated doc/rfx.1 man "ESTIMATORS section"

# listed HELP LABEL: the names of the paragraph of HELP that starts with
# LABEL, up to the closing parenthesis, one per line.
listed() {
	awk -v l="$2" 'index($0, l) == 1 { on = 1; sub(l, "") } on { print } on && /\(/ { exit }' "$1" |
		sed 's/(.*//' | tr ' ' '\n' | sed '/^$/d'
}

for cmd in variance pointwise; do
	"$RFX" "$cmd" --help > help.txt
	listed help.txt "Methods:" > got
	cmp -s names got
	ok $? "rfx $cmd --help names every estimator of the registry, in order" || {
		diff names got > why
		diag_file why
	}
done

# The accepted-by column, one "NAME<TAB>cmd, cmd" line per estimator.
"$RFX" help estimators | awk '/^[a-z]/ && !/ / { n = $1 } /^  accepted by/ { sub(/^  accepted by +/, ""); print n "\t" $0 }' > takers
is "$(lines takers)" "$(lines names)" "every estimator has an 'accepted by' line"
accepts() { # accepts CMD: the estimators whose line names CMD
	awk -F'\t' -v c="$1" '{ n = split($2, a, /, /); for (i = 1; i <= n; i++) if (a[i] == c) print $1 }' takers
}
accepts clustered > cl_names
"$RFX" clustered --help > help.txt
listed help.txt "Estimators:" > got
[ -s cl_names ] && cmp -s cl_names got
ok $? "rfx clustered --help names the $(lines cl_names) estimators it accepts" || {
	diff cl_names got > why
	diag_file why
}

for cmd in variance pointwise mse-table; do
	"$RFX" "$cmd" --help > help.txt
	line=$(grep -- '--param' help.txt | grep -v '^usage\|^ *or:')
	miss=
	while read -r p; do
		case $line in
		*"($p,"* | *" $p,"* | *" $p;"*) ;;
		*) miss="$miss $p" ;;
		esac
	done < params
	[ -z "$miss" ]
	ok $? "rfx $cmd --help: --param names every parameter" || diag "missing:$miss"
done

# Every command of the accepted-by column runs every estimator it claims.
all=$(accepts variance | paste -sd, -)
run variance --x 0.3,-0.2,0.5 --y 0.1,0.4,-0.25 --method "$all"
[ "$rc" -eq 0 ] && [ "$(rows "$tmp/out")" -eq "$(accepts variance | wc -l)" ]
ok $? "rfx variance takes all it claims ($all)" || diag_file "$tmp/err"
all=$(accepts pointwise | paste -sd, -)
run pointwise --method "$all" --mc 0 --r 1 --thetas 2 --d 4 --features 8 --match none
[ "$rc" -eq 0 ]
ok $? "rfx pointwise takes all it claims" || diag_file "$tmp/err"
all=$(accepts mse-table | paste -sd, -)
run mse-table --dataset wine --method "$all" --pairs 3 --draws 2 --reps 2 --features 8 --match none
[ "$rc" -eq 0 ]
ok $? "rfx mse-table takes all it claims" || diag_file "$tmp/err"
all=$(accepts uci-classify | paste -sd, -)
run uci-classify --dataset banknote --method "$all" --seeds 1 --gamma 1 --projection iid --budget 4
[ "$rc" -eq 0 ]
ok $? "rfx uci-classify takes all it claims" || diag_file "$tmp/err"
all=$(accepts clustered | paste -sd, -)
run clustered --method "$all" --set 1 --m 2 --reps 1 --points 20 --d 50 --no-exact
[ "$rc" -eq 0 ]
ok $? "rfx clustered takes all it claims" || diag_file "$tmp/err"
bad=
for n in $(grep -vxF -f cl_names names); do
	run clustered --method "$n" --set 1 --m 2 --reps 1 --points 3 --d 4 --no-exact
	[ "$rc" -eq 2 ] || bad="$bad $n"
done
[ -z "$bad" ]
ok $? "rfx clustered refuses the estimators it does not claim" || diag "took:$bad"

# Aliases work wherever --method is read, in the papers' spelling.
run variance --x 1,0 --y 0,1 --method FAVOR++,RFF,PosRF
[ "$rc" -eq 0 ] && [ "$(col "$tmp/out" method | paste -sd, -)" = "oprf,trig,pos" ]
ok $? "rfx variance --method FAVOR++,RFF,PosRF is oprf,trig,pos" || diag_file "$tmp/err"
run mse-table --dataset wine --method ORF,SORF --pairs 3 --draws 2 --reps 2 --features 8
[ "$rc" -eq 0 ] && [ "$(col "$tmp/out" method | paste -sd, -)" = "trig:ort,trig:sorf" ]
ok $? "rfx mse-table --method ORF,SORF is trig on ort and sorf projections" || diag_file "$tmp/err"
run variance --x 1,0 --y 0,1 --method favor
[ "$rc" -eq 2 ] && grep -q "did you mean 'favor+'" "$tmp/err"
ok $? "an unknown method suggests the nearest alias" || diag_file "$tmp/err"

# The layout of docs/HACKING.md's "Add an estimator": each estimator is
# defined in lib/est/<name>.c and tested in tests/t_est_<name>.c, or in the
# files this table names (several estimators share a file).
cat > layout <<'END'
trig	trig	estimator
hyb	hyb	est_hyb
gerf	gerf	est_gerf
pois	pois	estimator
geom	geom	estimator
pos	pos	estimator
oprf	gerf	est_gerf
pois+	pois	estimator
geom+	geom	estimator
posh	posh	est_hrf
ang	hyb	est_hrf
ang-ind	hyb	est_hrf
gauss-hyb	hyb	est_hrf
cexp	cexp	est_cexp
cexp-c	cexp	est_cexp
hyb-ind	hyb	est_hyb
gauss-hyb-ind	hyb	est_hrf
END
cd "$RFX_TOP" || bail "cannot enter $RFX_TOP"
bad=
while read -r n; do
	src=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$tmp/layout")
	t=$(awk -F'\t' -v n="$n" '$1 == n { print $3 }' "$tmp/layout")
	[ -n "$src" ] || { src=$n; t=est_$n; }
	f=lib/est/$src.c
	if ! grep -Eq "(\.name = |HYB_ENTRY\([a-z_]+, [a-z_]+, )\"$n\"" "$f" 2> /dev/null; then
		bad="$bad $n:$f"
	elif ! grep -qx "LIB_OBJS += lib/est/$src.o" Makefile; then
		bad="$bad $n:no-LIB_OBJS"
	elif ! grep -q "\"$n\"\|rfx_est_$(echo "$n" | sed 's/+/_plus/; s/-/_/g')\b" "tests/t_$t.c" 2> /dev/null; then
		bad="$bad $n:tests/t_$t.c"
	fi
done < "$tmp/names"
[ -z "$bad" ]
ok $? "every estimator is defined in lib/est/<file>.c, built, and named in its test file" || diag "$bad"

done_testing

#!/bin/sh
#
# The figures' one list of method styles (plots/styles.gp) against the
# estimator registry: every estimator `rfx help estimators` lists has a
# line, in registry order, and no line names an estimator that is gone;
# within each group of lines (estimators, clustered hybrids, the ORF
# paper's methods) and among the series styles no two share a colour, a
# dash pattern or a point type, so that any two curves differ in colour and
# in greyscale print; every colour has a contrast ratio of at least 2 with
# white (WCAG 2 relative luminance: the old d = 128 yellow of Fig 6.2 had
# 1.3); and gnuplot's lookups (color, mdash, mpt) give each line's values.
# Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
command -v python3 > /dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }
styles=$RFX_TOP/plots/styles.gp

"$RFX" help estimators 2> /dev/null | awk '/^[a-z]/ {print $1}' > registry
[ -s registry ]
ok $? "rfx help estimators lists the registry"

# One line per check: "ok" or what is wrong.
python3 - "$styles" registry > checks <<'PY'
import re, shlex, sys

def block(text, name):
    m = re.search(r"^\$%s << EOD\n(.*?)^EOD$" % name, text, re.S | re.M)
    return [shlex.split(l) for l in m.group(1).splitlines() if l.strip()] if m else []

def groups(rows):
    out, cur = [], []
    for r in rows:
        if r[0] == "-":
            out.append(cur)
            cur = []
        else:
            cur.append(r)
    return out + [cur]

def lum(c):
    v = [int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]

text = open(sys.argv[1]).read()
registry = open(sys.argv[2]).read().split()
styles, series = block(text, "STYLES"), block(text, "SERIES")
gs = groups(styles)
est = [r[0] for r in gs[0]] if gs else []
print("ok" if est == registry else "estimator lines %s, registry %s" % (est, registry))
bad = []
for g in gs + [series]:
    for col, what in ((1, "colour"), (2, "dash"), (3, "point")):
        seen = {}
        for r in g:
            if len(r) != 4:
                bad.append("line %s has %d fields" % (r, len(r)))
                continue
            if r[col] in seen:
                bad.append("%s and %s share the %s %s" % (seen[r[col]], r[0], what, r[col]))
            seen[r[col]] = r[0]
print("ok" if not bad else "; ".join(sorted(set(bad))))
low = ["%s %s (%.2f)" % (r[0], r[1], 1.05 / (lum(r[1]) + 0.05)) for r in styles + series
       if len(r) == 4 and r[0] != "-" and 1.05 / (lum(r[1]) + 0.05) < 2.0]
print("ok" if not low else "contrast with white below 2: " + ", ".join(low))
pts = [r[0] for r in styles + series if len(r) == 4 and r[0] != "-" and
       (r[3].isdigit() and not 1 <= int(r[3]) <= 15)]
print("ok" if not pts else "point types outside 1-15 (gnuplot repeats them): %s" % pts)
# what gnuplot must print for each name (see below)
with open("want", "w") as fh:
    for r in styles:
        if r[0] != "-":
            fh.write("%s|%s|%s|%s\n" % (r[0], r[1], "1" if r[2] == "solid" else r[2], r[3]))
PY
is "$(sed -n 1p checks)" ok "every estimator of the registry has a line, in registry order"
is "$(sed -n 2p checks)" ok "within each group no two lines share a colour, dash or point"
is "$(sed -n 3p checks)" ok "every colour has a contrast of 2 or more with white"
is "$(sed -n 4p checks)" ok "numeric point types are gnuplot's distinct 1-15"

if command -v gnuplot > /dev/null 2>&1; then
	cut -d'|' -f1 want | while read -r m; do
		printf 'print "%s|", color("%s"), "|", mdash("%s"), "|", mpt("%s")\n' "$m" "$m" "$m" "$m"
	done > lookups.gp
	(cd "$RFX_TOP" && gnuplot -e 'load "plots/styles.gp"' "$OLDPWD/lookups.gp" 2>&1) |
		sed 's/| /|/g; s/ |/|/g' > got
	cmp -s got want
	ok $? "gnuplot's color, mdash and mpt give every line's values" || diff want got | diag_file /dev/stdin
else
	skip "no gnuplot"
fi
done_testing

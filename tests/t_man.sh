#!/bin/sh
#
# Keeps the manual page, the command table and each command's --help in
# step, the way curl's test1139 keeps its man page and -h: every command
# 'rfx help' lists has a section in doc/rfx.1; the options a command's
# --help lists are exactly the options its section describes; every
# option's help line states its default; 'rfx help CMD' is 'rfx CMD
# --help'; the page's version is the Makefile's; and, where groff is
# installed, the page renders without warnings. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

page=$RFX_TOP/doc/rfx.1
[ -f "$page" ] || bail "no $page"

# The commands of 'rfx help', two-space indented "  name  summary" lines.
"$RFX" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' > commands
[ "$(lines commands)" -ge 6 ]
ok $? "rfx help lists the commands ($(tr '\n' ' ' < commands))" || diag_file commands

# section CMD: the man source of '.SS "rfx CMD..."' up to the next .SS/.SH,
# with the escaped hyphens (\-) as plain ones.
section() {
	awk -v c="$1" '
	/^\.S[SH]/ { on = 0 }
	/^\.SS / {
		t = $0; sub(/^\.SS "?/, "", t); gsub(/\\-/, "-", t)
		split(t, w, /[ ,"]+/)
		if (w[1] == "rfx" && w[2] == c) on = 1
		if (c == "version" && t ~ /rfx version/) on = 1
	}
	on' "$page" | sed 's/\\-/-/g'
}

# man_options CMD: the long options the .TP items of CMD's section name.
man_options() {
	section "$1" | awk '
	prev == ".TP" && /^\.B/ {
		s = $0
		while (match(s, /--[A-Za-z0-9][A-Za-z0-9-]*/)) {
			print substr(s, RSTART + 2, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
	}
	{ prev = $1 }' | sort -u
}

# help_options FILE: the long options of a --help text, without --help.
help_options() {
	sed -n 's/^  \(-., \)\{0,1\} *--\([A-Za-z0-9-]*\).*/\2/p' "$1" | grep -vx help | sort -u
}

while read -r cmd; do
	section "$cmd" > sec.txt
	[ -s sec.txt ]
	ok $? "doc/rfx.1 has a section for rfx $cmd"
	case $cmd in
	help | version) continue ;;
	esac
	run "$cmd" --help
	cp "$tmp/out" help.txt
	[ "$rc" -eq 0 ] && head -n 1 help.txt | grep -q "^usage: rfx $cmd "
	ok $? "rfx $cmd --help: usage on stdout, exit 0"
	run help "$cmd"
	cmp -s "$tmp/out" help.txt
	ok $? "rfx help $cmd prints what rfx $cmd --help does"
	help_options help.txt > want
	man_options "$cmd" > got
	[ -s want ] && cmp -s want got
	ok $? "rfx $cmd: the man page describes exactly the $(lines want) options of --help" || {
		diff want got | sed -n 's/^</only in --help:/p; s/^>/only in the man page:/p' > why
		diag_file why
	}
	awk '/^options:/ { on = 1; next }
	     on && /^  / && !/^  -h, --help / && !/default/' help.txt > nodefault
	[ ! -s nodefault ]
	ok $? "rfx $cmd --help states a default for every option" || diag_file nodefault
done < commands

want_v=$(sed -n 's/^VERSION = //p' "$RFX_TOP/Makefile")
grep -q "^\.TH RFX 1 \"[^\"]*\" \"rfx $want_v\"" "$page"
ok $? "doc/rfx.1's .TH names version $want_v, the Makefile's"
run --version
head -n 1 "$tmp/out" | grep -Eq "^rfx $want_v \\(commit ([0-9a-f]{7,}|unknown)(-dirty)?\\)\$"
ok $? "rfx --version: 'rfx $want_v (commit ...)'" || diag_file "$tmp/out"

# Each of the four exit codes the page documents is named in it.
for code in 0 1 2 '128 + signal'; do
	grep -qx "\.B $code" "$page"
	ok $? "doc/rfx.1 documents exit status $code"
done

if command -v groff > /dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$page" > groff.err 2>&1
	[ ! -s groff.err ]
	ok $? "groff -man renders doc/rfx.1 without warnings" || diag_file groff.err
else
	skip "groff is not installed"
fi

done_testing

#!/bin/sh
#
# The layering of lib/ (docs/HACKING.md, "Layers"): lib/ is one folder per
# pipeline stage, and the Makefile's LAYERS lists them lowest first. A
# module may include the headers of its own layer and of the layers before
# it, never of a later one, and lib/ never includes cli/. This test reads
# every #include of lib/ and fails on any that goes upwards, so the include
# graph stays acyclic by construction. It also checks that every folder of
# lib/ is a listed layer (a new folder must be placed in the order) and
# that every module is built (one LIB_OBJS line each). Prints TAP.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

cd "$RFX_TOP" || bail "cannot enter $RFX_TOP"
layers=$(sed -n 's/^LAYERS = //p' Makefile)
[ -n "$layers" ]
ok $? "the Makefile lists the layers ($layers)" || bail "no LAYERS line"

# rank LAYER: its position in $layers (1-based), empty when not listed.
rank() {
	i=0
	for l in $layers; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
}

for dir in lib/*/; do
	l=$(basename "$dir")
	[ -n "$(rank "$l")" ]
	ok $? "lib/$l is a layer of the Makefile's LAYERS"
done
n=$(ls lib/*.[ch] 2> /dev/null | wc -l)
is "$n" 0 "no module lies loose in lib/ outside a layer"

bad=$(
	for f in lib/*/*.[ch]; do
		l=$(basename "$(dirname "$f")")
		rl=$(rank "$l")
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
			case $inc in
			*/*) il=${inc%%/*} ;;
			*) echo "$f: #include \"$inc\" names no layer"; continue ;;
			esac
			ri=$(rank "$il")
			if [ -z "$ri" ]; then
				echo "$f: #include \"$inc\" is outside lib/"
			elif [ "$ri" -gt "$rl" ]; then
				echo "$f: layer $l includes the later layer $il ($inc)"
			elif [ ! -f "lib/$inc" ]; then
				echo "$f: #include \"$inc\" does not exist"
			fi
		done
	done
)
[ -z "$bad" ]
ok $? "no module includes a later layer or cli/" || diag "$bad"

missing=$(
	for c in lib/*/*.c; do
		grep -qx "LIB_OBJS += ${c%.c}.o" Makefile || echo "$c"
	done
)
[ -z "$missing" ]
ok $? "every lib/ module has its LIB_OBJS line" || diag "$missing"

done_testing

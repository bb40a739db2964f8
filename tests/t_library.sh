#!/bin/sh
#
# librfx installed: `make install PREFIX=DIR` puts the shared library (with
# its soname and version), the static one, include/rfx.h (the only
# header), rfx.pc and the Python package in DIR; a program built in a
# clean directory with `pkg-config --cflags --libs rfx` runs against it
# (examples/features.c), statically too; the installed Python package
# loads the installed library from any directory and gives the tree's
# features; the library exports the functions of rfx.h and nothing else;
# `make uninstall` leaves no file behind, and DESTDIR stages the same tree
# for PREFIX=/usr with Debian's python path. Prints TAP.
#
# This test runs make install from the tree, which copies files only: make
# check built everything first, and the same MAKEFLAGS (SANITIZE=1, OPT)
# reach the inner make, so nothing is rebuilt.

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

MAKE=${MAKE:-make}
PY=/usr/bin/python3
p=$tmp/p

$MAKE --no-print-directory -C "$RFX_TOP" install PREFIX="$p" > make.out 2>&1
ok $? "make install PREFIX=DIR" || diag_file make.out

for f in bin/rfx lib/librfx.so.0.1.0 lib/librfx.a include/rfx.h \
	lib/pkgconfig/rfx.pc lib/python3/dist-packages/rfx/__init__.py \
	lib/python3/dist-packages/rfx/sklearn.py; do
	[ -f "$p/$f" ]
	ok $? "installed $f"
done
[ "$(readlink "$p/lib/librfx.so.0")" = librfx.so.0.1.0 ] &&
	[ "$(readlink "$p/lib/librfx.so")" = librfx.so.0 ]
ok $? "librfx.so -> librfx.so.0 -> librfx.so.0.1.0"
is "$(ls "$p/include")" "rfx.h" "rfx.h is the only header installed"
soname=$(readelf -d "$p/lib/librfx.so.0.1.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
is "$soname" "librfx.so.0" "soname librfx.so.0"

# The exported functions are rfx.h's, and every one of them is exported.
nm -D --defined-only "$p/lib/librfx.so.0.1.0" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
	sort > exported
grep -o '^[a-z].* \**rfx_[a-z0-9_]*(' "$RFX_TOP/include/rfx.h" |
	grep -o 'rfx_[a-z0-9_]*(' | tr -d '(' | sort -u > declared
cmp -s exported declared
ok $? "librfx.so exports exactly the functions of rfx.h ($(wc -l < declared))" ||
	diag "$(diff declared exported)"

export PKG_CONFIG_PATH="$p/lib/pkgconfig"
is "$(pkg-config --modversion rfx)" "0.1.0" "pkg-config --modversion rfx"
mkdir clean
cp "$RFX_TOP/examples/features.c" clean/
(
	cd clean || exit 1
	# shellcheck disable=SC2046
	cc -std=c11 -Wall -Wextra -Werror -o features features.c \
		$(pkg-config --cflags --libs rfx) -lm
) > cc.out 2>&1
ok $? "examples/features.c builds with pkg-config --cflags --libs rfx" || diag_file cc.out
LD_LIBRARY_PATH="$p/lib" clean/features oprf 64 7 > ex.out 2> ex.err
ok $? "the example runs against the installed librfx.so" || diag_file ex.err
LD_LIBRARY_PATH="$p/lib" ldd clean/features | grep -q "librfx.so.0 => $p/lib/librfx.so.0"
ok $? "... the installed one (ldd)"
# Every estimate of K is within 5 closed-form standard deviations of the
# exact value (Chebyshev: a miss has probability below 4% each; at 5 sd and
# a Gaussian-like error, below 1e-6), the diagonal has K = 1.
awk -F '\t' 'NR > 2 { if (($4 - $3) > 5 * $5 || ($3 - $4) > 5 * $5) bad++; n++ }
	$1 == $2 && NR > 2 && $3 != "1.000000" { bad++ }
	END { exit !(n == 10 && !bad) }' ex.out
ok $? "its 10 estimates are within 5 sd of K" || diag_file ex.out
LD_LIBRARY_PATH="$p/lib" clean/features nope > /dev/null 2> bad.err
[ $? -eq 1 ] && grep -q "unknown method 'nope'" bad.err
ok $? "an unknown method: exit 1 and librfx's message" || diag_file bad.err
# make check SANITIZE=1 installs a sanitized librfx.a: link it so
san=
nm "$p/lib/librfx.a" 2> /dev/null | grep -q __asan_ && san=-fsanitize=address,undefined
(
	cd clean || exit 1
	# shellcheck disable=SC2046
	cc -std=c11 $san -o features_static features.c $(pkg-config --cflags rfx) \
		"$p/lib/librfx.a" $(pkg-config --static --libs rfx | sed 's/-lrfx//')
) > cc.out 2>&1 && ! ldd clean/features_static | grep -q librfx &&
	clean/features_static oprf 64 7 > ex_static.out 2>&1 && cmp -s ex.out ex_static.out
ok $? "linked with librfx.a (pkg-config --static), the same output" || diag_file cc.out

# The Python package from a directory that is neither the tree nor PREFIX.
if "$PY" -c 'import numpy' 2> /dev/null; then
	cd clean || bail "no clean directory"
	PYTHONPATH="$p/lib/python3/dist-packages" "$PY" -c '
import sys, numpy as np, rfx
print(rfx.__file__); print(rfx._lib._name)
X = np.random.default_rng(3).normal(size=(50, 4)) * 0.4
np.save("f.npy", rfx.features(X, "oprf", 32, "ort", seed=5))
' > py.out 2> py.err
	ok $? "the installed package imports and computes features" || diag_file py.err
	sed -n 1p py.out | grep -q "^$p/lib/python3/dist-packages/rfx/"
	ok $? "... from PREFIX's dist-packages" || diag_file py.out
	sed -n 2p py.out | grep -qx "$p/lib/librfx.so.0"
	ok $? "... with PREFIX/lib/librfx.so.0" || diag_file py.out
	PYTHONPATH="$RFX_TOP/python" "$PY" -c '
import numpy as np, rfx
X = np.random.default_rng(3).normal(size=(50, 4)) * 0.4
assert np.load("f.npy").tobytes() == rfx.features(X, "oprf", 32, "ort", seed=5).tobytes()
' 2> py.err
	ok $? "... and the tree's features, byte for byte" || diag_file py.err
	cd "$tmp" || bail "cannot return to $tmp"
else
	skip "$PY with NumPy not available"
	skip "$PY with NumPy not available"
	skip "$PY with NumPy not available"
	skip "$PY with NumPy not available"
fi

$MAKE --no-print-directory -C "$RFX_TOP" uninstall PREFIX="$p" > make.out 2>&1
ok $? "make uninstall PREFIX=DIR" || diag_file make.out
left=$(find "$p" ! -type d)
is "$left" "" "make uninstall leaves no file"

$MAKE --no-print-directory -C "$RFX_TOP" install DESTDIR="$tmp/stage" PREFIX=/usr > make.out 2>&1
ok $? "make install DESTDIR=STAGE PREFIX=/usr" || diag_file make.out
[ -f stage/usr/lib/python3/dist-packages/rfx/__init__.py ] &&
	[ -f stage/usr/lib/librfx.so.0.1.0 ] &&
	grep -qx 'prefix=/usr' stage/usr/lib/pkgconfig/rfx.pc &&
	grep -qx 'libdir=/usr/lib' stage/usr/lib/pkgconfig/rfx.pc
ok $? "staged under DESTDIR for /usr: Debian's python path, rfx.pc for /usr"
$MAKE --no-print-directory -C "$RFX_TOP" uninstall DESTDIR="$tmp/stage" PREFIX=/usr > make.out 2>&1
is "$(find stage ! -type d)" "" "make uninstall DESTDIR=STAGE leaves no file"

done_testing

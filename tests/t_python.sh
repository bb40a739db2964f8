#!/bin/sh
#
# The Python package (python/rfx) over the librfx.so of the tree: the
# unittest modules of tests/python/, reported as TAP (tests/python/tap.py).
# They use Debian's python3 with NumPy and scikit-learn (tools/debian-packages)
# and $RFX for the command-line comparisons. Skips cleanly when that python3
# or its NumPy is missing (scikit-learn's tests skip one by one).

: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

PY=${RFX_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import numpy' > /dev/null 2>&1; then
	echo "1..0 # SKIP $PY with NumPy not available"
	exit 0
fi
if [ ! -e "$RFX_TOP/librfx.so.0" ]; then
	echo "1..0 # SKIP librfx.so.0 not built (make lib)"
	exit 0
fi
# rfx built with the sanitizers (make check SANITIZE=1) is other code
# than librfx.so, which never is: its features may differ in the last bit
# (test_api.py then compares them to 1e-13 instead of byte for byte).
if ldd "$RFX" 2> /dev/null | grep -q libasan; then
	RFX_SANITIZED=1
	export RFX_SANITIZED
fi
export RFX RFX_TOP
cd "$RFX_TOP/tests/python" || exit 1
# OpenMP and OpenBLAS at two threads at most: the tests are small.
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} PYTHONPATH="$RFX_TOP/python" \
	PYTHONDONTWRITEBYTECODE=1 TMPDIR="$tmp" "$PY" tap.py test_api test_sklearn

# TAP helpers for the command-line tests (tests/t_cmd_*.sh), the shell
# counterpart of tests/tap.h. Sourced, not run: the Makefile copies only
# tests/t_*.sh into tests/bin/, so a test finds this file through $RFX_TOP
# (set by 'make test'; otherwise the test looks for it next to itself).
#
# After sourcing: $RFX is the binary (absolute), $tmp a fresh directory that
# is also the working directory and is removed on exit. The test prints its
# results with ok/is/skip and ends with done_testing, which prints the plan
# and gives the script's exit status.

LC_ALL=C
export LC_ALL

tap_n=0
tap_failed=0

# ok STATUS DESCRIPTION: passes when STATUS is 0 (pass it $?).
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
	return "$1"
}

# is GOT WANT DESCRIPTION: string equality, with both shown on failure.
is() {
	[ "$1" = "$2" ]
	ok $? "$3" || {
		diag "got:  '$1'"
		diag "want: '$2'"
	}
}

# skip REASON: one test that did not run.
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

# diag LINE...: comment lines (each input line prefixed with "# ").
diag() {
	printf '%s\n' "$@" | sed 's/^/#     /'
}

# diag_file FILE: the first lines of a file (or /dev/stdin) as comments.
diag_file() {
	sed -n '1,8s/^/#     | /p' "$1" 2> /dev/null
	return 0
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

bail() {
	echo "Bail out! $*"
	exit 1
}

# run ARG...: runs rfx with stdout in $tmp/out, stderr in $tmp/err and the
# exit status in $rc.
run() {
	"$RFX" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# lines FILE: number of lines.
lines() {
	wc -l < "$1" | tr -d ' '
}

# The binary: $RFX, else ../../rfx from tests/bin/, ../rfx from tests/,
# else ./rfx.
tap_here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$RFX" ]; then
	for f in "$tap_here/../../rfx" "$tap_here/../rfx" ./rfx; do
		if [ -x "$f" ] && [ -f "$f" ]; then
			RFX=$f
			break
		fi
	done
fi
[ -n "$RFX" ] && [ -x "$RFX" ] || bail "cannot find rfx (set RFX)"
case $RFX in
/*) ;;
*) RFX=$(cd "$(dirname "$RFX")" && pwd)/${RFX##*/} ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rfx_${0##*/}.XXXXXX") || bail "mktemp failed"
# chmod: a test may leave a read-only directory behind.
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
cd "$tmp" || bail "cannot cd to '$tmp'"

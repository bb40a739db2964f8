# TAP helpers for the command-line tests (tests/t_cmd_*.sh), the shell
# counterpart of tests/tap.h. Sourced, not run: the Makefile copies only
# tests/t_*.sh into tests/bin/, so a test finds this file through $RFX_TOP
# (set by 'make test'; a test run by hand as tests/t_*.sh takes the
# directory above its own).
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

# ---------------------------------------------------------------------------
# Shared by the command tests: output checks and the bad-input harness.

NUM='^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$'

# finite FILE FIRST LAST: columns FIRST..LAST of every data row are finite
# numbers (no nan, inf); prints the offenders.
finite() {
	awk -F'\t' -v a="$2" -v b="$3" -v re="$NUM" '
	NR > 1 { for (i = a; i <= b; i++) if ($i !~ re) {
		print "#     row " NR - 1 " column " i ": \"" $i "\""; bad = 1 } }
	END { exit bad }' "$1"
}

# rows FILE: data rows (lines after the header).
rows() {
	echo $(($(lines "$1") - 1))
}

# col FILE NAME: the values of column NAME, one per line.
col() {
	awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) k = i; next }
		k { print $k }' "$1"
}

# no_output: neither out.h5 nor out.h5.tmp.* in the working directory.
no_output() {
	for f in out.h5 out.h5.tmp.*; do
		if [ -e "$f" ]; then
			diag "left behind: $f"
			return 1
		fi
	done
	return 0
}

# fails CODE DESCRIPTION ARG...: 'rfx ARG...' exits CODE, prints exactly
# one line "rfx: ..." on stderr and nothing on stdout, and leaves neither
# out.h5 nor out.h5.tmp.* behind.
fails() {
	f_code=$1
	f_desc=$2
	shift 2
	rm -f out.h5 out.h5.tmp.*
	run "$@"
	f_why=
	if [ "$rc" -ne "$f_code" ]; then
		f_why="exit status $rc, want $f_code"
	elif [ "$(lines "$tmp/err")" -ne 1 ]; then
		f_why="$(lines "$tmp/err") lines on stderr, want 1"
	elif ! grep -q '^rfx: ' "$tmp/err"; then
		f_why="stderr does not start with 'rfx: '"
	elif [ -s "$tmp/out" ]; then
		f_why="output on stdout"
	elif ! no_output; then
		f_why="an output file was left"
	fi
	[ -z "$f_why" ]
	ok $? "$f_desc (exit $f_code, one line)" || {
		diag "$f_why" "rfx $*"
		diag_file "$tmp/err"
	}
}

# wait_for_tmp DIR BASE TRIES: waits up to TRIES x 0.05 s for DIR/BASE.h5.tmp.*
# (BASE may be a glob), the temporary of an HDF5 output being written, to
# appear; sets $saw_tmp to yes or no.
wait_for_tmp() {
	saw_tmp=no
	_w=0
	while [ $_w -lt "$3" ]; do
		for f in "$1"/$2.h5.tmp.*; do
			[ -e "$f" ] && saw_tmp=yes
		done
		[ $saw_tmp = yes ] && return 0
		sleep 0.05
		_w=$((_w + 1))
	done
}

# Interruption: a signal once the temporary file exists stops the run with
# 128 + signal, leaving neither out.h5 nor out.h5.tmp.*; an existing out.h5
# stays as it was.

# interrupt SIGNAL COUNT ARG...: starts rfx ARG... in the background,
# sends SIGNAL COUNT times as soon as out.h5.tmp.* exists, and waits (a
# watchdog kills rfx after 10 s). Sets $rc and $saw_tmp.
interrupt() {
	i_sig=$1
	i_count=$2
	shift 2
	rm -f "$tmp/done"
	# A background job of a script starts with SIGINT ignored, and rfx
	# (like most programs) leaves an ignored signal ignored: restore the
	# default dispositions, as an interactive shell's job would have them.
	env --default-signal=INT,TERM "$RFX" "$@" > "$tmp/out" 2> "$tmp/err" &
	i_pid=$!
	wait_for_tmp . out 200
	while [ "$i_count" -gt 0 ]; do
		kill -"$i_sig" "$i_pid" 2> /dev/null
		i_count=$((i_count - 1))
		[ "$i_count" -gt 0 ] && sleep 0.05
	done
	(
		i=0
		while [ $i -lt 100 ] && [ ! -e "$tmp/done" ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -e "$tmp/done" ] || kill -KILL "$i_pid" 2> /dev/null
	) > /dev/null 2>&1 &
	i_dog=$!
	wait "$i_pid"
	rc=$?
	touch "$tmp/done"
	wait "$i_dog"
}

# interrupted SIGNAL CODE DESCRIPTION: checks the run interrupt just did.
interrupted() {
	i_why=
	if [ $saw_tmp != yes ]; then
		i_why="no temporary file appeared"
	elif [ "$rc" -ne "$2" ]; then
		i_why="exit status $rc, want $2"
	elif [ "$(tail -n 1 "$tmp/err")" != "rfx: interrupted" ] && [ "$4" != quiet ]; then
		i_why="stderr does not end with 'rfx: interrupted'"
	fi
	[ -z "$i_why" ]
	ok $? "$3" || {
		diag "$i_why"
		diag_file "$tmp/err"
	}
}


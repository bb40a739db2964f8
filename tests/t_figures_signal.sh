#!/bin/sh
#
# An interrupted experiment of 'make figures' leaves no temporary file.
# The chain is make -> experiments/timed.sh -> experiments/<fig>.sh -> rfx,
# and Ctrl-C or timeout(1) signal all of it at once: rfx removes its own
# .h5.tmp.*, but a shell without INT and TERM traps dies at once and
# leaves what it was writing (the table's .tsv.tmp, timed.sh's scratch
# files). Checked two ways:
#
#   - statically: every experiment script and every make recipe that
#     writes a temporary file traps INT and TERM into its EXIT trap
#     (experiments/*.sh) or starts with $(TMP_TRAP) (the Makefiles), so
#     that a script added later cannot forget it;
#   - by running timed.sh and experiments/fig_hrf_table1.sh (at full scale,
#     so that it runs long enough) in a process group of their own, as
#     make runs them, signalling the group early or once rfx's temporary
#     file exists, and checking that nothing but finished results remains.
#
# make is not re-entered (compare tests/t_install.sh): it would relink rfx
# under the flags of whichever build is current. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
for c in setsid env; do
	command -v $c > /dev/null 2>&1 || { echo "1..0 # SKIP no $c"; exit 0; }
done
exp=$RFX_TOP/experiments

# --- static: the traps are there ------------------------------------------

# Scripts that write a temporary file: a .tmp name, mktemp or $TMPDIR.
bad=
for f in "$exp"/*.sh; do
	grep -Eq '\.tmp|mktemp|TMPDIR' "$f" || continue
	grep -q "^trap '.*' EXIT$" "$f" &&
		grep -q "^trap 'exit 130' INT$" "$f" &&
		grep -q "^trap 'exit 143' TERM$" "$f" || bad="$bad ${f##*/}"
done
is "$bad" "" "experiments/*.sh that write a temporary trap EXIT, and INT and TERM into it"

# Recipe lines that write $@.tmp: the command they belong to (continued
# lines included) starts with $(TMP_TRAP); the rules made from the figure
# manifest too.
rules=${TMPDIR:-/tmp}/t_figures_signal.$$.mk
python3 "$exp/manifest.py" make > "$rules" 2> /dev/null || : > "$rules"
bad=$(awk '{
		if (!cont)
			trapped = $0 ~ /^\t@?\$\(TMP_TRAP\)/
		if ($0 ~ />[ ]*\$@\.tmp/ && !trapped)
			print FILENAME ":" FNR
		cont = $0 ~ /\\$/
	}' "$RFX_TOP/Makefile" "$exp/figures.mk" "$rules")
rm -f "$rules"
is "$bad" "" "make recipes writing \$@.tmp start with \$(TMP_TRAP)"
grep -q "^TMP_TRAP = trap 'rm -f \"\$@.tmp\"' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM;$" \
	"$RFX_TOP/Makefile"
ok $? "TMP_TRAP removes \$@.tmp on EXIT and exits through it on INT and TERM"
grep -q '^\.DELETE_ON_ERROR:' "$RFX_TOP/Makefile"
ok $? "the Makefile has .DELETE_ON_ERROR (a failed recipe's half-written target goes)"

# --- dynamic: an experiment interrupted -----------------------------------

# figure SIGNAL WHEN: runs timed.sh on fig_hrf_table1.sh into $tmp/res in
# a new process group, sends SIGNAL to the whole group (WHEN = early: as
# soon as it started; tmp: once rfx's .h5.tmp.* exists), waits for every
# process of the group to end (SIGKILL after 60 s) and sets $rc, $saw_tmp
# and $left (files in $tmp/res that are not finished results).
figure() {
	rm -rf "$tmp/res" "$tmp/pgid"
	mkdir "$tmp/res"
	# A background job of a script starts with SIGINT ignored: restore
	# the defaults, as make's jobs have them under an interactive shell.
	(cd "$RFX_TOP" && export RFX && exec env --default-signal=INT,TERM setsid -w \
		sh -c 'echo $$ > "$1/pgid"; shift; exec "$@"' sh "$tmp" \
		experiments/timed.sh "$tmp/res/fig_hrf_table1.h5" \
		experiments/fig_hrf_table1.sh) > /dev/null 2> "$tmp/err" &
	f_job=$!
	i=0
	while [ ! -s "$tmp/pgid" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	f_pg=$(cat "$tmp/pgid" 2> /dev/null)
	saw_tmp=no
	[ "$2" = tmp ] && wait_for_tmp "$tmp/res" '*' 600
	[ -n "$f_pg" ] && kill -"$1" -"$f_pg" 2> /dev/null
	i=0
	while [ -n "$f_pg" ] && kill -0 -"$f_pg" 2> /dev/null; do
		if [ $i -eq 600 ]; then
			diag "still running after 60 s: SIGKILL"
			kill -KILL -"$f_pg" 2> /dev/null
		fi
		sleep 0.1
		i=$((i + 1))
	done
	wait "$f_job"
	rc=$?
	left=
	for f in "$tmp"/res/* "$tmp"/res/.[!.]*; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		fig_hrf_table1.h5 | fig_hrf_table1.time | fig_hrf_table1.tsv) ;;
		*) left="$left${f##*/} " ;;
		esac
	done
}

for sig in TERM INT; do
	case $sig in
	TERM) code=143 ;;
	INT) code=130 ;;
	esac
	figure $sig tmp
	[ $saw_tmp = yes ]
	ok $? "SIG$sig once rfx's temporary exists: it appeared" || diag_file "$tmp/err"
	is "$rc" "$code" "SIG$sig once rfx's temporary exists: timed.sh exits $code"
	is "$left" "" "SIG$sig once rfx's temporary exists: no temporary left (.h5.tmp.*, .tsv.tmp, timed.sh's)"
	[ ! -e "$tmp/res/fig_hrf_table1.h5" ] && [ ! -e "$tmp/res/fig_hrf_table1.time" ]
	ok $? "SIG$sig once rfx's temporary exists: neither the .h5 nor the .time"
done

figure TERM early
[ "$rc" -ne 0 ]
ok $? "SIGTERM at once: timed.sh fails (exit $rc)"
is "$left" "" "SIGTERM at once: no temporary left"

done_testing

#!/bin/sh
#
# Tests of the MPI build (make MPI=1; make check-mpi runs them): for every
# experiment command and mode of tests/dist_cases.sh, the serial run and
# mpirun -n 1, -n 2 and -n 3 (an uneven partition, oversubscribed) give
# cmp-identical HDF5 files and identical stdout, with no warning (a rank
# on other kernels gets one); a usage error, a run-time error and a
# SIGTERM to one rank end every rank with the usual exit status, one rfx
# line on stderr and no file. Skipped when $RFX is not the
# MPI build or mpirun is missing, so plain make check passes without MPI.
# Prints TAP.
#
# As root (CI), Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"
. "$RFX_TOP/tests/dist_cases.sh"

if ! command -v mpirun > /dev/null 2>&1; then
	echo "1..0 # SKIP mpirun not installed"
	exit 0
fi
if ! ldd "$RFX" 2> /dev/null | grep -q libmpi; then
	echo "1..0 # SKIP $RFX is not the MPI build (make MPI=1; make check-mpi)"
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ]; then
	bail "as root, Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
fi

# No core binding: -n 3 oversubscribes a two-core machine.
MPIRUN="mpirun --oversubscribe --bind-to none"

dist_cases > cases
while IFS='	' read -r name args; do
	rm -rf s n1 n2 n3
	mkdir s n1 n2 n3
	# shellcheck disable=SC2086
	(cd s && "$RFX" $args -o out.h5 > out.tsv 2> err)
	s_rc=$?
	for k in 1 2 3; do
		# shellcheck disable=SC2086
		(cd n$k && $MPIRUN -n $k "$RFX" $args -o out.h5 < /dev/null > out.tsv 2> err)
		m_rc=$?
		[ "$s_rc" -eq 0 ] && [ "$m_rc" -eq 0 ] && cmp -s s/out.h5 n$k/out.h5 &&
			cmp -s s/out.tsv n$k/out.tsv && [ -s s/out.tsv ]
		ok $? "$name: mpirun -n $k gives the serial run's file and stdout" || {
			diag "exit $m_rc: rfx $args"
			diag_file n$k/err
		}
	done
	[ "$(grep -c '^rfx: seed' n3/err)" -le 1 ] && ! grep -q '^rfx: warning' n3/err
	ok $? "$name: at most one seed line, from rank 0, no warning" || diag_file n3/err
done < cases

# A rank on other kernels (num/isa.h; here another OpenBLAS core): rank 0
# names it on one warning line, and the run still writes its file.
ct=Prescott
"$RFX" --version | grep -q "^blas: .*Prescott" && ct=Core2
args=$(head -n 1 cases | cut -f2-)
rm -rf h && mkdir h
# shellcheck disable=SC2086
(cd h && $MPIRUN -n 1 "$RFX" $args -o out.h5 : \
	-n 1 env OPENBLAS_CORETYPE=$ct "$RFX" $args -o out.h5 < /dev/null > out.tsv 2> err)
rc=$?
[ "$rc" -eq 0 ] && [ -s h/out.h5 ] && [ "$(grep -c '^rfx: warning' h/err)" -eq 1 ] &&
	grep -q "^rfx: warning: rank 1 runs kernels '.*$ct" h/err
ok $? "a rank on other kernels: one warning naming it, the file written" || {
	diag "exit $rc: rfx $args"
	diag_file h/err
}

# Errors end every rank with the command's status, no file.
rm -f e.h5*
$MPIRUN -n 2 "$RFX" variance --bogus -o e.h5 > e.out 2> e.err
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c '^rfx:' e.err)" -eq 1 ] && ! ls e.h5* > /dev/null 2>&1
ok $? "usage error under mpirun: exit 2, one rfx line, no file" || diag_file e.err
$MPIRUN -n 2 "$RFX" uci-classify --data "$tmp/nodata" --dataset banknote \
	--method trig -o e.h5 > e.out 2> e.err
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '^rfx:' e.err)" -eq 1 ] && ! ls e.h5* > /dev/null 2>&1
ok $? "run-time error under mpirun: exit 1, one rfx line, no file" || diag_file e.err

# SIGTERM to one rank (what a scheduler's time limit sends): every rank
# stops within about a cell, status 143, no file.
$MPIRUN -n 2 "$RFX" variance --method all --L 1024 --d 64 --samples 8 \
	-o big.h5 > big.out 2> big.err &
pid=$!
wait_for_tmp . big 600
rank=$(pgrep -P "$pid" | tail -n 1)
[ -n "$rank" ] && kill -TERM "$rank"
wait "$pid"
rc=$?
[ "$saw_tmp" = yes ] && [ "$rc" -eq 143 ] && ! ls big.h5* > /dev/null 2>&1 &&
	[ "$(grep -c '^rfx:' big.err)" -eq 1 ]
ok $? "SIGTERM to one rank: exit 143, one rfx line, no file" || {
	diag "exit $rc, temporary seen: $saw_tmp"
	diag_file big.err
}

done_testing

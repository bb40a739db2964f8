#!/bin/sh
# Runs libFuzzer targets (make fuzz): each build/fuzz/fuzz_<target> for
# $FUZZ_TIME seconds (default 60), from the seeds in tests/fuzz/<target>/
# with new inputs kept in build/fuzz/corpus/<target>/, and prints one line
# per target: executions reached, corpus size, exit status. A crash, leak,
# sanitizer report or timeout (10 s for one input) stops that target and
# fails the run; the input that did it is in build/fuzz/artifacts/ and
# belongs in tests/fuzz/<target>/ once fixed (tests/t_fuzz.c replays it).
# Run from the top of the tree.
set -u
time=${FUZZ_TIME:-60}
# libhdf5 1.10.8 leaks inside a failed H5Fopen of a damaged file (fuzz_h5
# finds it in seconds); tests/lsan.supp names the library, as for make
# check SANITIZE=1. A leak of rfx's own still fails the run.
LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
status=0
mkdir -p build/fuzz/artifacts
for t in "$@"; do
	bin=build/fuzz/fuzz_$t
	log=build/fuzz/$t.log
	mkdir -p "build/fuzz/corpus/$t"
	"$bin" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
		"build/fuzz/corpus/$t" "tests/fuzz/$t" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	echo "fuzz_$t: ${time} s, ${execs:-?} executions (${rate:-?}/s), $cov, corpus $(ls "build/fuzz/corpus/$t" | wc -l), exit $rc"
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -E 'ERROR|SUMMARY|runtime error|artifact' "$log" | head -n 20
	fi
done
exit $status

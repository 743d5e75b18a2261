#!/bin/bash
# Runs every libFuzzer harness built in $FUZZ_DIR (make fuzz / make fuzz-smoke):
# first over its regression inputs (tests/fuzz/regressions/NAME/, each must
# pass), then FUZZ_RUNS executions from the seed corpus tests/fuzz/corpus/NAME.
# New inputs go to $FUZZ_DIR/corpus/NAME, crashes to $FUZZ_DIR/crash/NAME/.
# FUZZ_SMOKE=1: a quick pass for the test suite; with FUZZ_SECONDS, each
# harness stops after that many seconds at the latest.
# FUZZ_ONLY=NAME runs one harness. Exit status 1 when any harness failed.
cd "$(dirname "$0")/../.." || exit 1
FUZZ_DIR=${FUZZ_DIR:-build/libfuzzer}
FUZZ_RUNS=${FUZZ_RUNS:-2000000}
FUZZ_SECONDS=${FUZZ_SECONDS:-0}	# per harness, 0 = no limit
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# The suppressions by function name (leak:tep_parse_event) match only frames
# that llvm-symbolizer named; clang's runtime has no symbolizer of its own and
# Debian puts llvm-14's outside PATH. Without one a library leak fails a run.
if [ -z "$ASAN_SYMBOLIZER_PATH" ]; then
	for s in "$(command -v llvm-symbolizer)" /usr/bin/llvm-symbolizer-* /usr/lib/llvm-*/bin/llvm-symbolizer; do
		[ -x "$s" ] && export ASAN_SYMBOLIZER_PATH=$s && break
	done
	[ -n "$ASAN_SYMBOLIZER_PATH" ] ||
		echo "fuzz: no llvm-symbolizer (Debian package llvm-14): leaks inside the tracing libraries cannot be told from ours"
fi
rc=0
for bin in "$FUZZ_DIR"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	[ -n "$FUZZ_ONLY" ] && [ "$FUZZ_ONLY" != "$name" ] && continue
	runs=$FUZZ_RUNS
	seeds=tests/fuzz/corpus/$name regs=tests/fuzz/regressions/$name
	work=$FUZZ_DIR/corpus/$name crash=$FUZZ_DIR/crash/$name
	mkdir -p "$work" "$crash"
	if [ -d "$regs" ] && [ -n "$(ls -A "$regs")" ]; then
		if ! "$bin" -runs=0 "$regs"/* >"$crash/regressions.log" 2>&1; then
			echo "fuzz $name: a regression input fails again, see $crash/regressions.log"
			rc=1
			continue
		fi
	fi
	start=$(date +%s%N)
	"$bin" -runs="$runs" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$crash/" -print_final_stats=1 \
		"$work" "$seeds" >"$crash/fuzz.log" 2>&1
	st=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$crash/fuzz.log" | tail -1)
	if [ "$st" -ne 0 ]; then
		echo "fuzz $name: FAILED after ${execs:-?} runs (status $st), see $crash/fuzz.log:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$crash/fuzz.log" | head -5
		ls "$crash" | grep -E '^(crash|leak|timeout|oom)-' | sed 's/^/    /'
		rc=1
	else
		printf 'fuzz %s: %s runs in %d.%03d s, no crash\n' "$name" "${execs:-?}" $((ms / 1000)) $((ms % 1000))
	fi
done
exit $rc

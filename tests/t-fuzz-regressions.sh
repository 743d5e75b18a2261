#!/bin/bash
# Every input that once crashed a fuzz harness (tests/fuzz/regressions/) and
# every seed: haltstat report must end with a clean result (exit 0) or the
# documented bad-input error (exit 3, one "haltstat:" line), never a crash,
# a sanitizer report or a hang. Runs under the plain and the SANITIZE build.
. "$(dirname "$0")/lib.sh"

n=0
for f in "$HS_TOP"/tests/fuzz/regressions/*/* "$HS_TOP"/tests/fuzz/corpus/{text,tracedat,tracedat_v7}/*; do
	[ -f "$f" ] || continue
	name=fuzz_input_$(basename "$(dirname "$f")")_$(basename "$f")
	timeout 60 "$HALTSTAT" report -i "$f" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if grep -qE 'Sanitizer|runtime error|LeakSanitizer' "$TMP/err"; then
		fail "$name" "sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$TMP/err")"
	elif [ "$rc" -eq 0 ]; then
		ok "$name"
	elif [ "$rc" -eq 3 ] && [ "$(grep -c '^haltstat: ' "$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]; then
		ok "$name"
	else
		fail "$name" "exit $rc: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail fuzz_inputs "no regression or seed inputs found"

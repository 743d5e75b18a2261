#!/bin/bash
# make fuzz-smoke: every libFuzzer harness of tests/fuzz/ built with clang
# (ASan + UBSan + coverage), run over its regression inputs, then for a
# short while from its seed corpus. A crash, a leak of ours, a timeout or an
# allocation past the RSS limit fails. Skipped without clang's libFuzzer,
# and in the SANITIZE=1 pass (the harnesses are sanitized already).
. "$(dirname "$0")/lib.sh"

rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
if ! have clang || [ ! -e "$rt" ] && ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	skip fuzz_smoke "clang with libFuzzer (libclang-rt-14-dev) not installed"
	exit 0
fi
if [ "$SANITIZE" = 1 ]; then
	skip fuzz_smoke "already run by the plain pass (the harnesses carry ASan + UBSan)"
	exit 0
fi
cd "$HS_TOP" || exit 1
dir=${HS_BUILD:-$HS_TOP/build/rel}/libfuzzer
if ! make -s -j2 fuzz-build FUZZ_DIR="$dir" >"$TMP/build.log" 2>&1; then
	fail fuzz_build "$(grep -m3 -E 'error|Error' "$TMP/build.log" | tr '\n' ' ')"
	exit 0
fi
ok fuzz_build
start=$SECONDS
make -s fuzz-smoke FUZZ_DIR="$dir" FUZZ_SMOKE_RUNS=${FUZZ_SMOKE_RUNS:-20000} \
	FUZZ_SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-8} >"$TMP/smoke.log" 2>&1
rc=$?
sed 's/^/# /' "$TMP/smoke.log"
n=$(ls "$HS_TOP"/tests/fuzz/fuzz_*.c | wc -l)
for h in "$HS_TOP"/tests/fuzz/fuzz_*.c; do
	h=${h##*/fuzz_}; h=${h%.c}
	if grep -q "^fuzz $h: .* no crash" "$TMP/smoke.log"; then
		ok "fuzz_smoke_$h"
	else
		fail "fuzz_smoke_$h" "$(grep -m1 "^fuzz $h:" "$TMP/smoke.log")"
	fi
done
[ "$rc" -eq 0 ] || fail fuzz_smoke_status "make fuzz-smoke exited $rc"
echo "# $n harnesses in $((SECONDS - start)) s"

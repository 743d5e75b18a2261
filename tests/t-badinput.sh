#!/bin/bash
# The README's "Bad input" table, row by row, through `haltstat report`:
# each input gives its documented exit status and one clear line (or a
# report marked partial, with the count of what was skipped, in the text
# and the JSON), never a crash, a sanitizer report, a hang or unbounded
# memory. Row names match the table.
. "$(dirname "$0")/lib.sh"

SYNTH=$HS_BUILD/tests/tools/hs-synth
MKDAT=$HS_TOP/tests/tools/hs-mkdat.py
CUTS=$HS_TOP/tests/tools/hs-datcuts.py
PY=$(command -v python3)
[ -x "$SYNTH" ] || { fail badinput_synth "no $SYNTH"; exit 0; }
"$SYNTH" -H 200 -v 2 -o "$TMP/good.dat" -t "$TMP/good.txt" -j /dev/null ||
	fail badinput_synth "hs-synth failed"

sane() {	# RC ERRFILE: no signal, no sanitizer report
	[ "$1" -lt 124 ] && ! grep -qE 'Sanitizer|runtime error' "$2"
}
# bad NAME RC REGEX FILE|-: exit RC, exactly one "haltstat: " line matching REGEX, no output
bad() {
	local name=$1 want=$2 re=$3 in=$4 rc
	if [ "$in" = - ]; then
		timeout 120 "$HALTSTAT" report -i - >"$TMP/out" 2>"$TMP/err"
	else
		timeout 120 "$HALTSTAT" report -i "$in" >"$TMP/out" 2>"$TMP/err" </dev/null
	fi
	rc=$?
	if sane $rc "$TMP/err" && [ $rc = "$want" ] && [ ! -s "$TMP/out" ] &&
	   [ "$(wc -l < "$TMP/err")" = 1 ] && grep -qE "^haltstat: .*$re" "$TMP/err"; then
		ok "badinput_$name"
	else
		fail "badinput_$name" "rc=$rc: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
	fi
}
# partial NAME REGEX JSONKEY COUNT FILE: exit 0, text warning REGEX, JSON skipped.KEY = COUNT
partial() {
	local name=$1 re=$2 key=$3 count=$4 in=$5 rc rj got
	timeout 120 "$HALTSTAT" report -i "$in" >"$TMP/out" 2>"$TMP/err"; rc=$?
	timeout 120 "$HALTSTAT" report -i "$in" --json >"$TMP/out.json" 2>>"$TMP/err"; rj=$?
	got=$("$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["skipped"][sys.argv[2]], any(sys.argv[3] in w for w in j["warnings"]))' \
		"$TMP/out.json" "$key" "$(echo "$re" | cut -d' ' -f1)" 2>&1)
	if sane $rc "$TMP/err" && [ "$rc $rj" = "0 0" ] && grep -qE "warning: .*$re" "$TMP/out" &&
	   [ "$got" = "$count True" ]; then
		ok "badinput_$name"
	else
		fail "badinput_$name" "rc=$rc/$rj json=$got: $(grep -m1 warning "$TMP/out") $(head -c 200 "$TMP/err")"
	fi
}

# --- empty, foreign, wrong magic, wrong version -----------------------------
: > "$TMP/empty"
bad empty_file 3 'empty input' "$TMP/empty"
bad empty_stdin 3 'empty input' - < /dev/null
head -c 65536 /dev/urandom > "$TMP/garbage"
bad binary_garbage_stdin 3 'neither a trace.dat nor a text trace' - < "$TMP/garbage"
{ printf '\x17\x08\x44tracinX6\0'; tail -c +13 "$TMP/good.dat"; } > "$TMP/magic.dat"
bad wrong_magic 3 'neither a trace.dat nor a text trace' "$TMP/magic.dat"
for v in 5 8; do
	{ printf '\x17\x08\x44tracing%s\0' $v; tail -c +13 "$TMP/good.dat"; } > "$TMP/v$v.dat"
	bad "unsupported_version_$v" 3 "unsupported trace.dat version \"$v\"" "$TMP/v$v.dat"
done

# --- truncated at every section boundary and at random offsets --------------
n=0 badn=0 full=0 msg=
cuts=$("$PY" "$CUTS" "$TMP/good.dat" 16 120)
for off in $cuts $(for i in $(seq 30); do echo $((RANDOM * 32768 + RANDOM)); done); do
	off=$((off % $(stat -c %s "$TMP/good.dat")))
	head -c "$off" "$TMP/good.dat" > "$TMP/cut.dat"
	timeout 60 "$HALTSTAT" report -i "$TMP/cut.dat" >/dev/null 2>"$TMP/cut.err"; rc=$?
	n=$((n + 1))
	if ! sane $rc "$TMP/cut.err" || { [ $rc != 0 ] && { [ $rc != 3 ] ||
	   [ "$(wc -l < "$TMP/cut.err")" != 1 ] || ! grep -qE 'truncated|empty|neither' "$TMP/cut.err"; }; }; then
		badn=$((badn + 1)); msg="offset $off rc $rc: $(head -c 200 "$TMP/cut.err")"
	fi
	[ $rc = 0 ] && full=$((full + 1))
done
[ $badn = 0 ] && ok "badinput_truncated ($n cuts; $full in the metadata trailer, read in full)" ||
	fail badinput_truncated "$badn of $n: $msg"
# a cut in the page data, before the trailer: always an error
size=$(stat -c %s "$TMP/good.dat")
head -c $((size / 2)) "$TMP/good.dat" > "$TMP/half.dat"
bad truncated_half 3 'truncated trace.dat: CPU [0-9]+ data' "$TMP/half.dat"

# --- pages and events: impossible sizes, backwards time, the same CPU twice -
if "$PY" "$MKDAT" --badpage "$TMP/badpage.dat" >"$TMP/badpage.exp" 2>&1; then
	# the generator's own count of the pages it broke
	want=$(awk '$1 == "bad_pages" { print $2 }' "$TMP/badpage.exp")
	partial page_impossible_size "skipped $want damaged pages" pages "$want" "$TMP/badpage.dat"
else
	fail badinput_page_impossible_size "hs-mkdat.py --badpage failed"
fi
if "$PY" "$MKDAT" --backwards "$TMP/back.dat" >/dev/null 2>&1; then
	"$HALTSTAT" report -i "$TMP/back.dat" --json > "$TMP/back.json" 2>/dev/null
	c=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["skipped"]["clamped_timestamps"])' "$TMP/back.json")
	[ "${c:-0}" -gt 0 ] && partial timestamps_backwards 'time stamp earlier' clamped_timestamps "$c" "$TMP/back.dat" ||
		fail badinput_timestamps_backwards "no clamped time stamps counted"
fi
"$PY" - "$TMP/good.dat" "$TMP/samecpu.dat" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"flyrecord\0") + 10
o0, s0 = struct.unpack_from("<QQ", d, i)
struct.pack_into("<QQ", d, i + 16, o0, s0)	# CPU 1 points at CPU 0's pages
open(sys.argv[2], "wb").write(d)
PYEOF
bad same_cpu_twice 3 'CPU 1 data .* overlaps CPU 0 data' "$TMP/samecpu.dat"

# --- event formats missing or malformed ------------------------------------
"$PY" - "$TMP/good.dat" "$TMP/nofmt.dat" "$TMP/badfmt.dat" <<'PYEOF'
import sys
d = open(sys.argv[1], "rb").read()
# the wanted events renamed: formats present, ours missing
open(sys.argv[2], "wb").write(d.replace(b"name: kvm_vcpu_wakeup\n", b"name: kvm_vcpu_wakeuX\n")
			      .replace(b"name: kvm_halt_poll_ns\n", b"name: kvm_halt_poll_nX\n"))
# a field line made unreadable
open(sys.argv[3], "wb").write(d.replace(b"name: kvm_vcpu_wakeup\nID:", b"name: kvm_vcpu_wakeup\nID?", 1))
PYEOF
"$HALTSTAT" report -i "$TMP/nofmt.dat" >"$TMP/out" 2>"$TMP/err"; rc=$?
sane $rc "$TMP/err" && [ $rc = 0 ] && grep -q 'no kvm event formats in the input' "$TMP/out" &&
	ok badinput_formats_missing || fail badinput_formats_missing "rc=$rc $(head -c 200 "$TMP/err")"
bad formats_malformed 3 'unreadable kvm event format at offset [0-9]+' "$TMP/badfmt.dat"
for f in "$HS_TOP"/tests/fuzz/regressions/tracedat/tep-*; do
	bad "formats_hostile_$(basename "$f" .dat)" 3 'trace.dat' "$f"
done

# --- text: garbage lines mixed in, numbers at the type limits ---------------
awk 'NR % 10 == 5 { print "%%% not a trace line " NR " %%%" } { print }' "$TMP/good.txt" > "$TMP/mixed.txt"
g=$(grep -c '^%%%' "$TMP/mixed.txt")
partial text_garbage_lines "skipped $g unreadable input lines" lines "$g" "$TMP/mixed.txt"
line() { printf '       CPU 0/KVM-6020    [000] .....  %s: %s\n' "$1" "$2"; }
{
	line 1000.000001 'kvm_vcpu_wakeup: wait time 18446744073709551615 ns, polling valid'
	line 1000.000002 'kvm_halt_poll_ns: vcpu 0: halt_poll_ns 4294967295 (grow 4294967295)'
	line 1000.000003 'kvm_vcpu_wakeup: poll time 0 ns, polling valid'
	line 18446744073.709551615 'kvm_vcpu_wakeup: poll time 1 ns, polling valid'
} > "$TMP/limits.txt"
"$HALTSTAT" report -i "$TMP/limits.txt" --json >"$TMP/lim.json" 2>"$TMP/err"; rc=$?
h=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["vcpus"][0]["halts"])' "$TMP/lim.json" 2>&1)
sane $rc "$TMP/err" && [ $rc = 0 ] && [ "$h" = 3 ] && ok badinput_type_limits ||
	fail badinput_type_limits "rc=$rc halts=$h $(head -c 200 "$TMP/err")"
{
	cat "$TMP/limits.txt"
	line 1000.000004 'kvm_vcpu_wakeup: wait time 18446744073709551616 ns, polling valid'
	line 1000.000005 'kvm_halt_poll_ns: vcpu 0: halt_poll_ns 4294967296 (grow 1)'
} > "$TMP/over.txt"
partial type_limits_exceeded 'skipped 2 unreadable input lines' lines 2 "$TMP/over.txt"

# --- a new vCPU thread on every line: the first 4096 analysed, the rest counted
"$PY" -c 'import sys
for i in range(5000):
    print("       CPU 0/KVM-%d   [000] ..... 1000.%06d: kvm_vcpu_wakeup: wait time 1000 ns, polling valid" % (20000 + i, i))
    print("       CPU 0/KVM-%d   [000] ..... 1000.%06d: kvm_vcpu_wakeup: wait time 2000 ns, polling valid" % (20000 + i, i))' >"$TMP/tids.txt"
partial too_many_vcpu_threads '1808 events of vCPU threads .* were not analysed' over_limit 1808 "$TMP/tids.txt"

# --- a 2 GiB line on standard input: bounded time and memory ---------------
if [ -x /usr/bin/time ]; then
	"$PY" -c 'import sys; b = b"x" * (1 << 20)
for _ in range(2048): sys.stdout.buffer.write(b)' |
		/usr/bin/time -f '%M %e' -o "$TMP/time" timeout 300 "$HALTSTAT" report -i - >"$TMP/out" 2>"$TMP/err"
	rc=$?
	read -r kb secs < <(tail -n 1 "$TMP/time")
	echo "# 2 GiB line: exit $rc, peak RSS $kb KiB, $secs s"
	sane $rc "$TMP/err" && [ $rc = 3 ] && grep -q '^haltstat: no trace lines recognised' "$TMP/err" &&
		ok badinput_2gib_line || fail badinput_2gib_line "rc=$rc $(head -c 200 "$TMP/err")"
	lim=262144; [ "$SANITIZE" = 1 ] && lim=1048576
	[ "${kb:-0}" -lt $lim ] && ok badinput_2gib_line_memory ||
		fail badinput_2gib_line_memory "peak RSS $kb KiB (limit $lim)"
else
	skip badinput_2gib_line "no /usr/bin/time"
fi

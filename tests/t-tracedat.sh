#!/bin/bash
# trace.dat readers (formats/trace/tracedat_parse.c v6, formats/trace/tracedat_v7.c v7,
# formats/trace/tracecmd_read.c libtracecmd for v7 compressed otherwise).
# Oracles: the synthetic writer's own tally (tests/tools/hs-mkdat.py), and
# trace-cmd report on the same files; v6 and v7 of the same events must agree.
. "$(dirname "$0")/lib.sh"
RD=$HS_BUILD/tests/tools/hs-readdump
export LSAN_OPTIONS=suppressions=$HS_TOP/tests/lsan-tracelibs.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
MK="python3 $HS_TOP/tests/tools/hs-mkdat.py"
CUTS="python3 $HS_TOP/tests/tools/hs-datcuts.py"
[ -x "$RD" ] || { fail tracedat-tool "missing $RD"; exit 0; }
have python3 || { skip tracedat "python3 missing"; exit 0; }

counts() { grep -E '^(count|total) ' "$1" | sort; }
val() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }
# same_events NAME A B: two hs-readdump outputs saw the same events
same_events() {
	check_eq "$1" "$(val "$2" checksum) $(val "$2" total)" "$(val "$3" checksum) $(val "$3" total)"
}
# per event and CPU counts as trace-cmd report prints them; BUFFER: only
# that instance's lines ("-": only the top level's), else all of them
tc_counts() {
	trace-cmd report -i "$1" 2>/dev/null | awk -v buf="${2:-}" '
		buf == "-" && $1 ~ /:$/ && $1 !~ /^(cpus|version)/ { next }
		buf != "" && buf != "-" && $1 != buf ":" { next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^(kvm_vcpu_wakeup|kvm_halt_poll_ns|cpu_idle|guest_halt_poll_ns):$/) {
			cpu = ""; for (j = 1; j < i; j++) if ($j ~ /^\[[0-9]+\]$/) cpu = $j
			gsub(/[\[\]:]/, "", cpu); name = $i; sub(/:$/, "", name)
			c["count " name " cpu" (cpu + 0)]++; t++ } }
		END { for (k in c) print k, c[k]; print "total", t + 0 }' | sort
}

# 1. synthetic files: counts, losses, skipped pages, clamping, layouts
synth() {
	local name=$1; shift
	$MK "$TMP/$name.dat" --events 3000 "$@" >"$TMP/$name.exp" || { fail "synth-$name" "generator failed"; return 1; }
	if ! "$RD" --raw "$TMP/$name.dat" >"$TMP/$name.out" 2>"$TMP/$name.err"; then
		fail "synth-$name" "$(cat "$TMP/$name.err")"; return 1
	fi
	check_eq "synth-$name-counts" "$(counts "$TMP/$name.exp")" "$(counts "$TMP/$name.out")"
	check_eq "synth-$name-order" 0 "$(val "$TMP/$name.out" order_bad)"
}
synth plain
synth extend --extend --long --cpus 3
synth bigendian --big-endian --extend --long
synth novalid --no-valid
synth manycpus --cpus 16 --events 20000
synth missed --missed
check_eq missed-known "$(val "$TMP/missed.exp" lost_known)" "$(val "$TMP/missed.out" lost_known)"
check_eq missed-unknown "$(val "$TMP/missed.exp" lost_unknown)" "$(val "$TMP/missed.out" lost_unknown)"
synth badpage --badpage
check_eq badpage-skipped "$(val "$TMP/badpage.exp" bad_pages)" "$(val "$TMP/badpage.out" skipped_pages)"
synth backwards --backwards
[ "$(val "$TMP/backwards.out" clamped_ts)" -gt 0 ] && ok backwards-clamped || fail backwards-clamped "no clamped timestamps"
synth instance --instance vmhost
check_eq instance-name vmhost "$(val "$TMP/instance.out" buffer)"
synth trailer --trailer --missed
check_eq trailer-lost "$(val "$TMP/trailer.exp" lost_known)" "$(val "$TMP/trailer.out" lost_known)"
check_eq trailer-format haltstat "$(val "$TMP/trailer.out" format)"

# 2. through hs_input_read and an hs_account: file, stdin, metadata
if "$RD" "$TMP/trailer.dat" >"$TMP/acct.out" 2>"$TMP/acct.err"; then
	exp=$(awk '$1 == "count" { n[$2] += $4 } END { for (k in n) print k, n[k] }' "$TMP/trailer.exp" | sort)
	got=$(awk '$1 == "events" && $3 > 0 { print $2, $3 }' "$TMP/acct.out" | sort)
	check_eq account-events "$exp" "$got"
	check_eq account-kernel 9.9.9-trailer "$(val "$TMP/acct.out" kernel)"
	check_eq account-param 200000 "$(val "$TMP/acct.out" halt_poll_ns)"
	check_eq account-lost "$(val "$TMP/trailer.exp" lost_known)" "$(val "$TMP/acct.out" lost)"
else
	fail account "$(cat "$TMP/acct.err")"
fi
"$RD" "$TMP/plain.dat" >"$TMP/plainacct.out" 2>&1
check_eq uname-release 9.9.9-synth "$(val "$TMP/plainacct.out" kernel)"
check_eq v6-format "trace.dat v6" "$(val "$TMP/plainacct.out" format)"
"$RD" - <"$TMP/plain.dat" >"$TMP/stdin.out" 2>&1
check_eq stdin-v6 "$(grep ^events "$TMP/plainacct.out")" "$(grep ^events "$TMP/stdin.out")"

# 3. bad input: one line naming the file, exit 3, never a signal
bad() {
	local name=$1 file=$2 want=$3 rc lines
	"$RD" "$file" >/dev/null 2>"$TMP/bad.err"; rc=$?
	lines=$(wc -l <"$TMP/bad.err")
	if [ "$rc" -eq 3 ] && [ "$lines" -eq 1 ] && grep -q -- "$file" "$TMP/bad.err" &&
	   grep -qi -- "$want" "$TMP/bad.err"; then ok "bad-$name"
	else fail "bad-$name" "rc=$rc lines=$lines: $(head -c 300 "$TMP/bad.err")"; fi
}
: >"$TMP/empty.dat"; bad empty "$TMP/empty.dat" empty
head -c 5000 /dev/urandom | tr -d '\n' | sed 's/^/\x01/' >"$TMP/garbage.dat"; bad garbage "$TMP/garbage.dat" "binary"
{ printf '\x17\x08\x44tracinX6\0'; head -c 100 "$TMP/plain.dat" | tail -c 88; } >"$TMP/magic.dat"; bad magic "$TMP/magic.dat" "binary"
for v in 5 9; do
	{ printf '\x17\x08\x44tracing%s\0' $v; tail -c +13 "$TMP/plain.dat"; } >"$TMP/v$v.dat"
	bad "version-$v" "$TMP/v$v.dat" "unsupported trace.dat version"
done
{ printf '\x17\x08\x44tracing6\0'; } >"$TMP/hdr.dat"; bad header-only "$TMP/hdr.dat" truncated

# 4. truncated at every section boundary and many other offsets
trunc() {
	local name=$1 file=$2 step=$3 limit=${4:-0} n=0 badn=0 partial=0 rc msg
	for off in $($CUTS "$file" "$step" "$limit"); do
		head -c "$off" "$file" >"$TMP/cut.dat"
		"$RD" "$TMP/cut.dat" >"$TMP/cut.out" 2>"$TMP/cut.err"; rc=$?
		n=$((n + 1))
		if grep -q Sanitizer "$TMP/cut.err" || [ "$rc" -ge 124 ] ||
		   { [ "$rc" -ne 0 ] && { [ "$(wc -l <"$TMP/cut.err")" -ne 1 ] ||
		     ! grep -qE 'truncated|corrupt|empty|binary' "$TMP/cut.err"; }; }; then
			badn=$((badn + 1)); msg="offset $off rc $rc: $(head -c 200 "$TMP/cut.err")"
		fi
		[ "$rc" -eq 0 ] && partial=$((partial + 1))
	done
	[ "$badn" -eq 0 ] && ok "truncate-$name ($n cuts, $partial read in full)" || fail "truncate-$name" "$badn of $n: $msg"
}
trunc synth "$TMP/missed.dat" 8 250
trunc instance "$TMP/instance.dat" 16 100

# 5. the same events as v7 (zstd, none, zlib) through the own v7 reader and
# libtracecmd, and trace-cmd report's counts. This trace-cmd cannot write
# zlib: hs-v7zlib.py recompresses the uncompressed v7, in chunks of 5000
# bytes so that pages straddle chunks.
Z7="python3 $HS_TOP/tests/tools/hs-v7zlib.py"
if have trace-cmd; then
	for f in plain extend missed instance manycpus; do
		trace-cmd convert --file-version 7 --compression zstd -i "$TMP/$f.dat" -o "$TMP/$f.v7" >/dev/null 2>&1 ||
			{ fail "v7-$f" "trace-cmd convert failed"; continue; }
		"$RD" --raw "$TMP/$f.v7" >"$TMP/$f.v7out" 2>&1
		same_events "v7-$f-same-events" "$TMP/$f.out" "$TMP/$f.v7out"
		check_eq "report-$f" "$(tc_counts "$TMP/$f.dat")" "$(counts "$TMP/$f.out")"
		HALTSTAT_READER=libtracecmd "$RD" --raw "$TMP/$f.v7" >"$TMP/$f.v7ltc" 2>&1
		check_eq "v7-$f-own-equals-libtracecmd" "$(grep -v '^format ' "$TMP/$f.v7ltc")" \
			"$(grep -v '^format ' "$TMP/$f.v7out")"
		trace-cmd convert --file-version 7 --compression none -i "$TMP/$f.dat" -o "$TMP/$f.v7n" >/dev/null 2>&1 ||
			{ fail "v7none-$f" "trace-cmd convert failed"; continue; }
		"$RD" --raw "$TMP/$f.v7n" >"$TMP/$f.v7nout" 2>&1
		same_events "v7none-$f-same-events" "$TMP/$f.out" "$TMP/$f.v7nout"
		if $Z7 "$TMP/$f.v7n" "$TMP/$f.v7z" 5000 >/dev/null 2>"$TMP/z7.err"; then
			"$RD" --raw "$TMP/$f.v7z" >"$TMP/$f.v7zout" 2>&1
			same_events "v7zlib-$f-same-events" "$TMP/$f.out" "$TMP/$f.v7zout"
		else
			fail "v7zlib-$f" "$(cat "$TMP/z7.err")"
		fi
	done
	# one chunk a CPU, each larger compressed than the blocks the reader
	# reads compressed bytes in (tracedat_chunks.c): read whole instead
	synth onechunk --events 60000 --cpus 2
	if trace-cmd convert --file-version 7 --compression none -i "$TMP/onechunk.dat" \
		-o "$TMP/onechunk.v7n" >/dev/null 2>&1 &&
	   big=$($Z7 "$TMP/onechunk.v7n" "$TMP/onechunk.v7z" 4000000 2>"$TMP/z7.err"); then
		[ "$big" -gt 131072 ] && ok "v7zlib-onechunk-size ($big bytes)" ||
			fail v7zlib-onechunk-size "largest chunk $big bytes: not past a read block"
		"$RD" --raw "$TMP/onechunk.v7z" >"$TMP/onechunk.v7zout" 2>&1
		same_events v7zlib-onechunk-same-events "$TMP/onechunk.out" "$TMP/onechunk.v7zout"
	else
		fail v7zlib-onechunk "$(cat "$TMP/z7.err")"
	fi
	# damaged chunk headers, found as the chunks are read: by one reader,
	# and by the report's two, which inflate each chunk once between them
	for d in "csize:compressed chunk size" "usize:does not inflate" "count:compressed chunk header"; do
		if $Z7 "$TMP/plain.v7n" "$TMP/dmg.v7z" 5000 "${d%%:*}" >/dev/null 2>"$TMP/z7.err"; then
			bad "v7zlib-${d%%:*}" "$TMP/dmg.v7z" "${d#*:}"
			HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$TMP/dmg.v7z" -o /dev/null 2>"$TMP/dmg.err"
			rc=$?
			[ "$rc" -eq 3 ] && [ "$(wc -l <"$TMP/dmg.err")" -eq 1 ] && grep -q -- "${d#*:}" "$TMP/dmg.err" &&
				ok "v7zlib-${d%%:*}-two-readers" ||
				fail "v7zlib-${d%%:*}-two-readers" "rc=$rc: $(head -c 300 "$TMP/dmg.err")"
		else
			fail "v7zlib-${d%%:*}" "$(cat "$TMP/z7.err")"
		fi
	done
	check_eq v7-format-none "trace.dat v7 (none)" "$(val "$TMP/plain.v7nout" format)"
	check_eq v7-format-zlib "trace.dat v7 (zlib)" "$(val "$TMP/plain.v7zout" format)"
	check_eq missed-v7zlib-known "$(val "$TMP/missed.exp" lost_known)" "$(val "$TMP/missed.v7zout" lost_known)"
	check_eq instance-v7-name vmhost "$(val "$TMP/instance.v7zout" buffer)"
	# truncated at every section, option and chunk boundary (hs-datcuts.py
	# walks v7); under the sanitizers (0.2 s a run) an even spread of 120
	lim=0; [ "$SANITIZE" = 1 ] && lim=120
	trunc v7zstd "$TMP/missed.v7" 256 $lim
	trunc v7none "$TMP/missed.v7n" 256 $lim
	trunc v7zlib "$TMP/missed.v7z" 256 $lim
	[ "$SANITIZE" = 1 ] || trunc v7instance "$TMP/instance.v7" 256
	# an algorithm the own reader does not link goes to libtracecmd, which names it
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(d[:18] + b"lzzz" + d[22:])' \
		"$TMP/plain.v7" "$TMP/lzzz.v7"
	bad v7-other-compression "$TMP/lzzz.v7" 'unsupported trace.dat compression "lzzz"'
	check_eq v7-format "trace.dat v7 (zstd)" "$(val "$TMP/plain.v7out" format)"
	"$RD" - <"$TMP/plain.v7" >"$TMP/stdin7.out" 2>&1
	check_eq stdin-v7 "$(grep ^events "$TMP/plainacct.out")" "$(grep ^events "$TMP/stdin7.out")"
	n=0; badn=0
	sz=$(stat -c %s "$TMP/missed.v7")
	for off in $(seq 0 $((sz / 60 + 1)) "$sz"); do
		head -c "$off" "$TMP/missed.v7" >"$TMP/cut7.dat"
		"$RD" --raw "$TMP/cut7.dat" >/dev/null 2>"$TMP/cut7.err"; rc=$?
		n=$((n + 1))
		{ grep -q Sanitizer "$TMP/cut7.err" || [ "$rc" -ge 124 ]; } && badn=$((badn + 1))
	done
	check_eq "truncate-v7 ($n cuts)" 0 "$badn"
else
	skip v7 "trace-cmd not installed"
fi

# 6. a real trace from this kernel, via trace-cmd extract -B (v7) and convert (v6)
if need_tracefs && have trace-cmd && [ -d /sys/kernel/tracing/events/power/cpu_idle ]; then
	inst=hs_datread_test_$$
	dir=/sys/kernel/tracing/instances/$inst
	if mkdir "$dir" 2>/dev/null; then
		echo 1 >"$dir/events/power/cpu_idle/enable"
		sleep 1
		echo 0 >"$dir/tracing_on"
		(cd "$TMP" && trace-cmd extract -B "$inst" -o "$TMP/real7.dat" >/dev/null 2>&1)
		rmdir "$dir" 2>/dev/null
		# extract -B takes the top level too: what others left there is not ours to read
		if [ -s "$TMP/real7.dat" ] && [ "$(tc_counts "$TMP/real7.dat" - | tail -1)" != "total 0" ]; then
			skip real "the top-level buffer holds another program's events"
		elif [ -s "$TMP/real7.dat" ] && [ "$(tc_counts "$TMP/real7.dat" "$inst" | tail -1)" = "total 0" ]; then
			skip real "the instance recorded no cpu_idle events (or vanished before extract)"
		elif [ -s "$TMP/real7.dat" ] &&
		   trace-cmd convert --file-version 6 --compression none -i "$TMP/real7.dat" -o "$TMP/real6.dat" >/dev/null 2>&1; then
			"$RD" --raw "$TMP/real6.dat" >"$TMP/real6.out" 2>&1
			"$RD" --raw "$TMP/real7.dat" >"$TMP/real7.out" 2>&1
			grep -q '^total ' "$TMP/real6.out" || fail real-v6-read "$(head -c 300 "$TMP/real6.out")"
			check_eq real-v6-vs-report "$(tc_counts "$TMP/real6.dat" "$inst")" "$(counts "$TMP/real6.out")"
			check_eq real-v7-vs-report "$(tc_counts "$TMP/real7.dat" "$inst")" "$(counts "$TMP/real7.out")"
			check_eq real-v6-v7 "$(val "$TMP/real6.out" checksum)" "$(val "$TMP/real7.out" checksum)"
			check_eq real-instance "$inst" "$(val "$TMP/real6.out" buffer)"
			[ "$(val "$TMP/real6.out" total)" -gt 0 ] && ok real-has-events || fail real-has-events "no cpu_idle events"
			trunc real "$TMP/real6.dat" 100000 60
		else
			fail real-extract "trace-cmd extract/convert failed"
		fi
	else
		skip real "cannot create a tracefs instance"
	fi
else
	skip real "needs root, tracefs, trace-cmd and power:cpu_idle"
fi

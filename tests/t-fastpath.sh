#!/bin/bash
# The fast paths (own v6 and v7 readers with pread windows, two readers
# that each keep half of the vCPUs, a reader whose accounting runs on a
# second thread, batched candidates in AVX-512 and AVX2 against the
# plain loop (HALTSTAT_VECTOR=none), streamed text and pipes) must give
# exactly the report of the straightforward ones: libtracecmd on the same
# file (HALTSTAT_READER=libtracecmd, for v6 and v7), one reader
# (HALTSTAT_THREADS=1 against =2), the trace-cmd v7 conversions (zstd, none,
# and zlib made by hs-v7zlib.py), and the same events as kernel text. The
# traces have several CPUs, migrations, unrelated sched_switch noise and
# losses; and a real recording of this machine's idle events.
. "$(dirname "$0")/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth
JCMP=$HS_TOP/tests/tools/hs-jcmp.py

if [ ! -x "$SYNTH" ]; then fail fastpath-built "no $SYNTH"; exit 0; fi
if ! have python3; then skip fastpath "python3 not installed"; exit 0; fi

# same NAME A B [ts|meta|meta-ts] (tests/tools/hs-jcmp.py)
same() {
	local out
	if out=$(python3 "$JCMP" "$2" "$3" $4 2>&1); then ok "$1"; else fail "$1" "$(head -3 <<<"$out" | tr '\n' ' ')"; fi
}

# two_readers NAME FILE: one reader, two and three give the same JSON and
# text, byte for byte, and the same exit status (within a minute: no hang)
two_readers() {
	local n
	for fmt in --json ""; do
		for n in 1 2 3; do
			HALTSTAT_THREADS=$n timeout 60 "$HALTSTAT" report -i "$2" $fmt >"$TMP/readers$n" 2>&1
			echo "exit $?" >>"$TMP/readers$n"
		done
		check "$1-two-readers-identical${fmt:+-json}" cmp "$TMP/readers1" "$TMP/readers2"
		check "$1-three-readers-identical${fmt:+-json}" cmp "$TMP/readers1" "$TMP/readers3"
	done
}

run_case() {
	local c=$1; shift
	local d=$TMP/$c
	if ! "$SYNTH" "$@" -o "$d.dat" -t "$d.txt" -j "$d.exp" >"$TMP/synth.out" 2>&1; then
		fail "fastpath-$c-synth" "$(head -c 200 "$TMP/synth.out")"; return
	fi
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$d.dat" --json >"$d.own.json" 2>"$TMP/err" ||
		{ fail "fastpath-$c-own" "$(cat "$TMP/err")"; return; }
	# the generator's own counts: an independent reference for all paths
	local want got
	want=$(python3 -c 'import json,sys; print(sum(t["halts"] for t in json.load(open(sys.argv[1]))["threads"]))' "$d.exp")
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["halts"])' "$d.own.json")
	check_eq "fastpath-$c-halts-as-generated" "$want" "$got"

	# libtracecmd leaks 6 bytes per v6 file; under ASan the full stack lets
	# tests/lsan.supp match it (ignored in a normal build)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions=$HS_TOP/tests/lsan.supp:print_suppressions=0 \
	HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i "$d.dat" --json >"$d.ltc.json" 2>"$TMP/err" ||
		fail "fastpath-$c-libtracecmd-runs" "$(cat "$TMP/err")"
	grep -q '"format": ".*libtracecmd' "$d.ltc.json" && ok "fastpath-$c-libtracecmd-forced" ||
		fail "fastpath-$c-libtracecmd-forced" "HALTSTAT_READER=libtracecmd was not used"
	same "fastpath-$c-v6-own-equals-libtracecmd" "$d.own.json" "$d.ltc.json"

	HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$d.dat" --json >"$d.two.json" 2>&1
	check "fastpath-$c-two-readers-bit-identical" cmp "$d.own.json" "$d.two.json"
	HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$d.dat" >"$d.two.txt" 2>&1
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$d.dat" >"$d.one.txt" 2>&1
	check "fastpath-$c-two-readers-text-identical" cmp "$d.one.txt" "$d.two.txt"
	# the default: two readers where halts are many (multi: 5.6 MiB, half of
	# its events halts), else the reading and the accounting cut apart
	"$HALTSTAT" report -i "$d.dat" --json >"$d.default.json" 2>&1
	check "fastpath-$c-default-bit-identical" cmp "$d.own.json" "$d.default.json"
	# read on one thread, accounted on another (what a large input gets)
	HALTSTAT_PIPE=1 "$HALTSTAT" report -i "$d.dat" --json >"$d.pipe1.json" 2>&1
	check "fastpath-$c-pipelined-bit-identical" cmp "$d.own.json" "$d.pipe1.json"
	HALTSTAT_PIPE=1 "$HALTSTAT" report -i "$d.txt" --json >"$d.txtpipe1.json" 2>&1
	HALTSTAT_PIPE=0 "$HALTSTAT" report -i "$d.txt" --json >"$d.txtpipe0.json" 2>&1
	check "fastpath-$c-text-pipelined-bit-identical" cmp "$d.txtpipe0.json" "$d.txtpipe1.json"
	HALTSTAT_VECTOR=none HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$d.dat" --json >"$d.scalar.json" 2>&1
	check "fastpath-$c-scalar-replay-bit-identical" cmp "$d.own.json" "$d.scalar.json"
	# where the default is AVX-512's eight lanes, AVX2's four too
	HALTSTAT_VECTOR=avx2 HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$d.dat" --json >"$d.avx2.json" 2>&1
	check "fastpath-$c-avx2-replay-bit-identical" cmp "$d.own.json" "$d.avx2.json"

	"$HALTSTAT" report -i - --json <"$d.dat" >"$d.stdin.json" 2>&1
	cat "$d.dat" | "$HALTSTAT" report -i - --json >"$d.pipe.json" 2>&1
	same "fastpath-$c-stdin-file" "$d.own.json" "$d.stdin.json"
	same "fastpath-$c-pipe-spooled" "$d.own.json" "$d.pipe.json"

	"$HALTSTAT" report -i "$d.txt" --json >"$d.txt.json" 2>&1
	cat "$d.txt" | "$HALTSTAT" report -i - --json >"$d.txtpipe.json" 2>&1
	same "fastpath-$c-text-equals-v6" "$d.own.json" "$d.txt.json" meta-ts
	same "fastpath-$c-text-pipe-streamed" "$d.txt.json" "$d.txtpipe.json"

	if have trace-cmd && trace-cmd convert -i "$d.dat" -o "$d.v7" --file-version 7 \
		--compression zstd >/dev/null 2>&1; then
		if "$HALTSTAT" report -i "$d.v7" --json >"$d.v7.json" 2>"$TMP/err"; then
			same "fastpath-$c-v7-zstd-equals-v6" "$d.own.json" "$d.v7.json" meta
		else
			fail "fastpath-$c-v7-zstd-equals-v6" "$(head -c 300 "$TMP/err")"
		fi
		# the own v7 reader against libtracecmd on the same file
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0 \
		HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i "$d.v7" --json >"$d.v7ltc.json" 2>"$TMP/err" ||
			fail "fastpath-$c-v7-libtracecmd-runs" "$(head -c 300 "$TMP/err")"
		same "fastpath-$c-v7-own-equals-libtracecmd" "$d.v7.json" "$d.v7ltc.json"
		"$HALTSTAT" report -i - --json <"$d.v7" >"$d.v7pipe.json" 2>&1
		same "fastpath-$c-v7-stdin" "$d.v7.json" "$d.v7pipe.json"
		# two readers inflate each chunk once between them (tracedat_share.c)
		two_readers "fastpath-$c-v7-zstd" "$d.v7"
		# uncompressed (pages read in place) and zlib (this trace-cmd cannot write it)
		if trace-cmd convert -i "$d.dat" -o "$d.v7n" --file-version 7 --compression none >/dev/null 2>&1 &&
		   python3 "$HS_TOP/tests/tools/hs-v7zlib.py" "$d.v7n" "$d.v7z" >/dev/null 2>&1; then
			"$HALTSTAT" report -i "$d.v7n" --json >"$d.v7n.json" 2>&1
			"$HALTSTAT" report -i "$d.v7z" --json >"$d.v7z.json" 2>&1
			same "fastpath-$c-v7-none-equals-zstd" "$d.v7.json" "$d.v7n.json"
			same "fastpath-$c-v7-zlib-equals-zstd" "$d.v7.json" "$d.v7z.json"
			two_readers "fastpath-$c-v7-zlib" "$d.v7z"
		else
			fail "fastpath-$c-v7-none-zlib" "conversion failed"
		fi
	else
		skip "fastpath-$c-v7" "trace-cmd convert unavailable"
	fi
}

# 3 CPUs, vCPUs migrating on 30% of wakes, noise, 3 losses; 80000 halts
run_case multi -v 4 -V 2 -H 20000 -g exp:150us -c 3 --migrate 0.3 --noise 3000 --lost 3:50
# 2 CPUs, one VM, periodic wakes, other module values (shrink 0), the 5.x era
run_case era5 -v 2 -V 1 -H 40000 -g period:180us -c 2 --migrate 0.05 --noise 1000 \
	--shrink 0 --release 5.15.0-91-generic
# one CPU only, a few halts
run_case small -v 1 -H 3000 -g 30us,100us,600us -c 1
# 12 CPUs: the decoder's merge starts as a heap and goes on as a scan once
# 8 CPUs or fewer have events left (tracedat_decode.c, TD_SCAN_MAX)
run_case wide -v 6 -V 2 -H 3000 -g exp:150us -c 12 --migrate 0.2 --noise 2000 --lost 2:40

# A damaged v7: two readers sharing its chunks end as one does (a chunk
# that does not inflate, or one that inflates to damaged pages, which are
# skipped and counted), with the same words, and neither waits for the other
if [ -s "$TMP/multi.v7" ]; then
	sz=$(stat -c %s "$TMP/multi.v7")
	for at in 40 70 90; do
		cp "$TMP/multi.v7" "$TMP/bad$at.v7"
		head -c 64 /dev/zero | tr '\0' '\377' |
			dd of="$TMP/bad$at.v7" bs=1 seek=$((sz * at / 100)) conv=notrunc 2>/dev/null
		two_readers "fastpath-v7-damaged-at-$at" "$TMP/bad$at.v7"
		grep -Eq '^exit [1-9]|skipped [0-9]+ damaged pages' "$TMP/readers2" &&
			ok "fastpath-v7-damaged-at-$at-shown" ||
			fail "fastpath-v7-damaged-at-$at-shown" "$(tail -c 300 "$TMP/readers2")"
	done
fi

# Damaged files the two readers must also agree on: time stamps going
# backwards (clamped the same whether an event is kept or only counted),
# pages that lost events, big-endian and extended time stamps.
MKDAT=$HS_TOP/tests/tools/hs-mkdat.py
for opts in "--backwards --cpus 3" "--missed --cpus 4" "--big-endian --extend --long --backwards"; do
	name=mkdat-$(tr -d ' -' <<<"$opts")
	if ! python3 "$MKDAT" $opts --events 20000 "$TMP/$name.dat" >/dev/null 2>&1; then
		fail "fastpath-$name" "hs-mkdat.py failed"; continue
	fi
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$TMP/$name.dat" --json >"$TMP/$name.one" 2>&1
	HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$TMP/$name.dat" --json >"$TMP/$name.two" 2>&1
	check "fastpath-$name-two-readers-bit-identical" cmp "$TMP/$name.one" "$TMP/$name.two"
done

# Without kvm event formats (a guest's recording, a host without kvm) no
# halt can ask for the runqueues: the reader only counts the sched events
# (tracedat_decode.c, count_sched), in the fast layout and in the general
# one (big-endian). The counts are the writer's, the report that of every
# reader and thread mode, with time stamps going back and pages that lost
# events.
for opts in "--missed --backwards --cpus 3" "--big-endian --extend --long --backwards" \
	    "--missed --cpus 12"; do
	name=mkdat-sched-$(tr -d ' -' <<<"$opts")
	if ! python3 "$MKDAT" --systems power,sched $opts --events 30000 "$TMP/$name.dat" \
		>"$TMP/$name.tally" 2>&1; then
		fail "fastpath-$name" "hs-mkdat.py failed"; continue
	fi
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$TMP/$name.dat" --json >"$TMP/$name.one" 2>&1
	want=$(awk '$1 == "count" && $2 == "sched_switch" { n += $4 } END { print n + 0 }' "$TMP/$name.tally")
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"]["sched_switch"])' \
		"$TMP/$name.one" 2>&1)
	check_eq "fastpath-$name-sched-counted-as-written" "$want" "$got"
	for mode in HALTSTAT_THREADS=2 HALTSTAT_THREADS=3 HALTSTAT_PIPE=1; do
		env $mode "$HALTSTAT" report -i "$TMP/$name.dat" --json >"$TMP/$name.$mode" 2>&1
		check "fastpath-$name-$mode-bit-identical" cmp "$TMP/$name.one" "$TMP/$name.$mode"
	done
	HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i "$TMP/$name.dat" --json >"$TMP/$name.ltc" 2>&1
	same "fastpath-$name-own-equals-libtracecmd" "$TMP/$name.one" "$TMP/$name.ltc"
done

# The first look's plan (lib/shard_plan.c): three VMs of one vCPU each,
# halts nearly every event, which the plain hash of their tids puts two to
# a reader, are read by three readers, one vCPU each; eight vCPUs that it
# splits 4:4 keep it and two readers. The report is the one reader's.
plan_case() {
	local name=$1 want=$2; shift 2
	local f=$TMP/plan-$name.dat got
	if ! "$SYNTH" "$@" -o "$f" -j /dev/null >/dev/null 2>&1; then
		fail "fastpath-plan-$name" "hs-synth failed"; return
	fi
	HALTSTAT_SPLIT_TRACE=1 "$HALTSTAT" report -i "$f" --json >"$f.plan.json" 2>"$f.err"
	got=$(grep -o '[0-9]* readers, salt [0-9]*' "$f.err")
	check_eq "fastpath-plan-$name-chosen" "$want" "${got:-none}"
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$f" --json >"$f.one.json" 2>&1
	check "fastpath-plan-$name-bit-identical" cmp "$f.one.json" "$f.plan.json"
}
plan_case 3vms "3 readers, salt 2027808484" -s 6 -v 3 -V 3 -H 67000 -g 20us,30us,50us -c 1
plan_case 8vcpus "2 readers, salt 0" -s 2 -v 8 -V 2 -H 25000 -g exp:40us -c 4

# A real recording from this machine: power:cpu_idle (guest idle, the
# events a guest records) and sched:sched_switch noise while two sleepers
# wake the CPUs thousands of times a second. The same comparisons as
# above: one reader, two readers, libtracecmd, v7, and trace-cmd's text.
real_case() {
	local d=$TMP/real sleeper=$TMP/sleeper.py pids="" cpu
	cat >"$sleeper" <<'PY'
import sys, time
end = time.time() + float(sys.argv[1])
i = 0
while time.time() < end:
    time.sleep(0.00003 * (1 + i % 11))
    i += 1
PY
	for cpu in 0 1; do taskset -c $cpu python3 "$sleeper" 3 2>/dev/null & pids+=" $!"; done
	"$HALTSTAT" record --guest -e sched:sched_switch -d 2 -o "$d.dat" >/dev/null 2>"$TMP/rec.err"
	local rc=$?
	wait $pids
	if [ $rc -ne 0 ]; then fail fastpath-real-record "$(head -c 300 "$TMP/rec.err")"; return; fi
	HALTSTAT_THREADS=1 "$HALTSTAT" report -i "$d.dat" --json >"$d.one.json" 2>"$TMP/err" ||
		{ fail fastpath-real-own "$(cat "$TMP/err")"; return; }
	if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["events"]["cpu_idle"] < 1000)' "$d.one.json"; then
		skip fastpath-real "fewer than 1000 cpu_idle events recorded (CPUs busy?)"; return
	fi
	HALTSTAT_THREADS=2 "$HALTSTAT" report -i "$d.dat" --json >"$d.two.json" 2>&1
	check fastpath-real-two-readers-bit-identical cmp "$d.one.json" "$d.two.json"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0 \
	HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i "$d.dat" --json >"$d.ltc.json" 2>&1
	same fastpath-real-own-equals-libtracecmd "$d.one.json" "$d.ltc.json"
	if ! have trace-cmd; then skip fastpath-real-v7-text "trace-cmd not installed"; return; fi
	trace-cmd convert -i "$d.dat" -o "$d.v7" --file-version 7 --compression zstd >/dev/null 2>&1 &&
		"$HALTSTAT" report -i "$d.v7" --json >"$d.v7.json" 2>&1
	same fastpath-real-v7-equals-v6 "$d.one.json" "$d.v7.json"
	trace-cmd report "$d.dat" >"$d.txt" 2>/dev/null &&
		"$HALTSTAT" report -i "$d.txt" --json >"$d.txt.json" 2>&1
	same fastpath-real-text-equals-v6 "$d.one.json" "$d.txt.json" ts
}
if need_tracefs && have taskset; then
	real_case
else
	skip fastpath-real "needs root, tracefs and taskset"
fi

#!/bin/bash
# formats/trace/text_read.c on real text made on this machine from power:cpu_idle
# (fires constantly in a guest): the kernel's trace file in its column
# variants, trace_pipe, trace-cmd report of the same buffer, perf script.
# Expected numbers come from grep/awk on the same files, never from haltstat.
. "$(dirname "$0")/lib.sh"
DUMP=$HS_BUILD/tests/tools/hs-textdump
T=/sys/kernel/tracing/instances

if [ ! -x "$DUMP" ]; then
	fail text-read "hs-textdump not built"
	exit 0
fi
# key FILE: value of "key value" in a dump
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"; }
idle_events() { awk '$1 == "events" && $2 == "cpu_idle" { print $3 }' "$1"; }
# events / min ts / max ts (ns) of the cpu_idle lines of a text file
oracle_count() { grep -c "cpu_idle: " "$1"; }
oracle_ts() {
	grep "cpu_idle: " "$1" | sed -E 's/.* ([0-9]+)\.([0-9]+): .*cpu_idle:.*/\1 \2/' |
		awk '{ ns = $1 * 1e9 + $2 * 10 ^ (9 - length($2)); if (NR == 1 || ns < lo) lo = ns;
		       if (ns > hi) hi = ns } END { printf "%.0f %.0f\n", lo, hi }'
}
dump() { "$DUMP" "$1" > "$1.dump" 2> "$1.err"; }

# --- no root needed: binary input is refused with the input status ---
head -c 4096 /bin/ls > "$TMP/bin"
"$DUMP" "$TMP/bin" > /dev/null 2> "$TMP/bin.err"
rc=$?
check_eq "text-read binary input: exit status 3" 3 "$rc"
check "text-read binary input: one-line message" grep -q "no trace lines recognised" "$TMP/bin.err"

if ! need_tracefs; then
	skip text-read-tracefs "needs root and tracefs"
	exit 0
fi
I=$T/haltstat_textread_$$
I2=$T/haltstat_textread2_$$
cleanup() {
	local d
	for d in "$I" "$I2"; do
		[ -d "$d" ] || continue
		echo 0 > "$d/tracing_on"
		echo 0 > "$d/events/power/cpu_idle/enable"
		rmdir "$d"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

if ! mkdir "$I" || ! echo 1 > "$I/events/power/cpu_idle/enable"; then
	skip text-read-tracefs "cannot create an instance with power:cpu_idle"
	exit 0
fi
# a busy machine rarely idles: wait (up to 10 s) for some events
echo 1 > "$I/tracing_on"
for _ in $(seq 20); do
	sleep 0.5
	[ "$(grep -c "cpu_idle: " "$I/trace")" -ge 20 ] && break
done
echo 0 > "$I/tracing_on"

# --- one buffer, four column layouts of the kernel's trace file ---
cat "$I/trace" > "$TMP/k.txt"
echo 1 > "$I/options/record-tgid"
cat "$I/trace" > "$TMP/k_tgid.txt"
echo 0 > "$I/options/irq-info"
cat "$I/trace" > "$TMP/k_noirq_tgid.txt"
echo 0 > "$I/options/record-tgid"
cat "$I/trace" > "$TMP/k_noirq.txt"
echo 1 > "$I/options/irq-info"
n=$(oracle_count "$TMP/k.txt")
ts=$(oracle_ts "$TMP/k.txt")
if [ "$n" -lt 2 ]; then
	skip text-read-tracefs "only $n cpu_idle events in 10 s (CPUs never idle)"
	exit 0
fi
for v in k k_tgid k_noirq_tgid k_noirq; do
	f=$TMP/$v.txt
	dump "$f"
	check_eq "text-read $v: events = grep count" "$(oracle_count "$f")" "$(idle_events "$f.dump")"
	check_eq "text-read $v: same events as the first layout" "$n" "$(oracle_count "$f")"
	check_eq "text-read $v: first/last ts" "$ts" "$(val first_ts "$f.dump") $(val last_ts "$f.dump")"
	check_eq "text-read $v: nothing skipped" 0 "$(val skipped_lines "$f.dump")"
	check_eq "text-read $v: format" "text (kernel trace)" "$(val format "$f.dump")"
	check_eq "text-read $v: ncpus from #P:" "$(nproc)" "$(val ncpus "$f.dump")"
done
grep -q '(-------)' "$TMP/k_tgid.txt" && grep -q '\] d' "$TMP/k_tgid.txt" &&
	! grep -q '(-------)' "$TMP/k_noirq.txt"
check_eq "text-read layouts really differ" 0 $?

# --- trace-cmd report of the same buffer ---
# trace-cmd extract -B also takes the top-level buffer, with whatever another
# program left there: of the report, only the header and our buffer's lines
report_own() {
	trace-cmd report "$@" "$TMP/x.dat" 2> /dev/null |
		awk -v b="${I##*/}: " '(NR == 1 && /^cpus=/) || index($0, b) == 1'
}
if have trace-cmd && trace-cmd extract -B "${I##*/}" -o "$TMP/x.dat" > /dev/null 2>&1; then
	report_own > "$TMP/r.txt"
	report_own -l > "$TMP/r_lat.txt"
	report_own -t > "$TMP/r_ns.txt"
	for v in r r_lat r_ns; do
		f=$TMP/$v.txt
		dump "$f"
		check_eq "text-read report $v: events = grep count" "$(oracle_count "$f")" "$(idle_events "$f.dump")"
		check_eq "text-read report $v: same events as the trace file" "$n" "$(oracle_count "$f")"
		check_eq "text-read report $v: format" "text (trace-cmd report)" "$(val format "$f.dump")"
		check_eq "text-read report $v: first/last ts" "$(oracle_ts "$f")" "$(val first_ts "$f.dump") $(val last_ts "$f.dump")"
		check_eq "text-read report $v: nothing skipped" 0 "$(val skipped_lines "$f.dump")"
	done
	check_eq "text-read report: buffer instance" "${I##*/}" "$(val buffer "$TMP/r.txt.dump")"
	# both round ns to the nearest microsecond (the kernel's ns2usecs)
	read -r klo khi <<< "$ts"
	read -r rlo rhi <<< "$(val first_ts "$TMP/r_ns.txt.dump") $(val last_ts "$TMP/r_ns.txt.dump")"
	[ "$rlo" -ge $((klo - 500)) ] && [ "$rlo" -lt $((klo + 500)) ] &&
		[ "$rhi" -ge $((khi - 500)) ] && [ "$rhi" -lt $((khi + 500)) ]
	check_eq "text-read report -t: ns stamps round to the kernel's microseconds" 0 $?
	# --- a paste mixing both forms and some noise ---
	{ cat "$TMP/k.txt"; printf 'hello\n[000] nothing: here\n\001\002\n'; cat "$TMP/r.txt"; } > "$TMP/mix.txt"
	dump "$TMP/mix.txt"
	check_eq "text-read mixed paste: events add up" $((2 * n)) "$(idle_events "$TMP/mix.txt.dump")"
	check_eq "text-read mixed paste: 3 garbage lines skipped" 3 "$(val skipped_lines "$TMP/mix.txt.dump")"
else
	skip text-read-report "trace-cmd extract unavailable"
fi
[ -d "$I" ] && { echo 0 > "$I/events/power/cpu_idle/enable"; rmdir "$I"; }

# --- trace_pipe ---
if mkdir "$I2" && echo 1 > "$I2/events/power/cpu_idle/enable"; then
	echo 1 > "$I2/tracing_on"
	timeout 2 cat "$I2/trace_pipe" > "$TMP/p.txt"
	echo 0 > "$I2/tracing_on"
	dump "$TMP/p.txt"
	check_eq "text-read trace_pipe: events = grep count" "$(oracle_count "$TMP/p.txt")" "$(idle_events "$TMP/p.txt.dump")"
	check_eq "text-read trace_pipe: lost = LOST markers" "$(awk '/^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/ { s += $3 } END { print s + 0 }' FS='[ []' "$TMP/p.txt")" "$(val lost "$TMP/p.txt.dump")"
	check_eq "text-read trace_pipe: nothing skipped" 0 "$(val skipped_lines "$TMP/p.txt.dump")"
else
	fail text-read-trace-pipe "cannot create a second instance"
fi

# --- perf script (perf_event_open, not tracefs) ---
if have perf && perf record -q -e power:cpu_idle -a -o "$TMP/perf.data" -- sleep 2 > /dev/null 2>&1; then
	perf script -i "$TMP/perf.data" > "$TMP/s.txt" 2> /dev/null
	perf script -i "$TMP/perf.data" -F comm,pid,tid,cpu,time,event,trace > "$TMP/s_pidtid.txt" 2> /dev/null
	perf script --ns -i "$TMP/perf.data" > "$TMP/s_ns.txt" 2> /dev/null
	pn=$(oracle_count "$TMP/s.txt")
	[ "$pn" -gt 0 ] || { skip text-read-perf "no cpu_idle sample in 2 s (CPUs never idle)"; exit 0; }
	for v in s s_pidtid s_ns; do
		f=$TMP/$v.txt
		dump "$f"
		check_eq "text-read perf $v: events = grep count" "$pn" "$(idle_events "$f.dump")"
		check_eq "text-read perf $v: format" "text (perf script)" "$(val format "$f.dump")"
		check_eq "text-read perf $v: first/last ts" "$(oracle_ts "$f")" "$(val first_ts "$f.dump") $(val last_ts "$f.dump")"
		check_eq "text-read perf $v: losses not known" 0 "$(val lost_known "$f.dump")"
	done
else
	skip text-read-perf "perf record unavailable"
fi

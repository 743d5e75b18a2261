#!/bin/bash
# hs-synth: trace-cmd (an independent decoder) and awk over the kernel text
# must count exactly what the generator says it wrote, and the adaptive
# window must follow hand-derived sequences.
. "$(dirname "$0")/lib.sh"
SYNTH=$HS_BUILD/tests/tools/hs-synth
FORMATS=$HS_TOP/tests/data/formats

if [ ! -x "$SYNTH" ]; then fail synth-built "no $SYNTH"; exit 0; fi
if ! have trace-cmd; then skip synth "trace-cmd not installed"; exit 0; fi
if ! have python3; then skip synth "python3 not installed"; exit 0; fi

# Per thread "TID COMM HALTS HITS WAITS GROWS SHRINKS" from `trace-cmd report`
# or kernel text: the task is what precedes " [CPU]", its pid follows the last '-'.
count_lines() {
	awk '
	/ kvm_vcpu_wakeup: | kvm_halt_poll_ns: / {
		i = index($0, " ["); head = substr($0, 1, i - 1)
		n = split(head, a, "-"); tid = a[n] + 0
		comm = substr(head, 1, length(head) - length(a[n]) - 1); sub(/^ +/, "", comm)
		name[tid] = comm
		if ($0 ~ / kvm_vcpu_wakeup: +poll time/) { h[tid]++; hit[tid]++ }
		else if ($0 ~ / kvm_vcpu_wakeup: +wait time/) { h[tid]++; w[tid]++ }
		else if ($0 ~ /\(grow [0-9]+\)$/) g[tid]++
		else if ($0 ~ /\(shrink [0-9]+\)$/) s[tid]++
	}
	END { for (t in name) printf "%d %s %d %d %d %d %d\n", t, name[t], h[t], hit[t], w[t], g[t], s[t] }
	' "$1" | sort -n
}

expected_lines() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for t in sorted(d["threads"], key=lambda t: t["tid"]):
    print(t["tid"], t["comm"], t["halts"], t["poll_hits"], t["waits"], t["grows"], t["shrinks"])
' "$1"
}

jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$1" "$2"; }

cd "$TMP" || exit 1

# 1. Several VMs, migration, sched_switch noise, injected losses.
if "$SYNTH" --formats "$FORMATS" -v 5 -V 2 -H 4000 -g 30us,100us,600us,45us -c 3 \
	--migrate 0.05 --noise 3000 --lost 3:40 -o a.dat -t a.txt -j a.json 2>a.err; then
	ok synth-run
else
	fail synth-run "$(head -c 300 a.err)"
fi
trace-cmd report a.dat >a.rep 2>a.rep.err
check_eq synth-report-exit 0 $?
check_eq synth-report-no-warnings "" "$(head -c 300 a.rep.err)"
expected_lines a.json >a.exp
count_lines a.rep >a.got
check_eq synth-report-per-thread "$(cat a.exp)" "$(cat a.got)"
count_lines a.txt >a.gotx
check_eq synth-text-per-thread "$(cat a.exp)" "$(cat a.gotx)"
check_eq synth-report-lost "$(jget a.json 'd["lost"]')" \
	"$(awk '/EVENTS DROPPED\]/ { s += $2 } END { print s + 0 }' FS='[][ ]+' a.rep)"
check_eq synth-text-lost "$(jget a.json 'd["lost"]')" \
	"$(awk '/^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]/ { s += $3 } END { print s + 0 }' FS='[][ ]+' a.txt)"
check_eq synth-report-events "$(jget a.json 'd["events"]')" \
	"$(grep -c -E '^ +.*\[[0-9]+\] +[0-9]+\.[0-9]+: ' a.rep)"
# the text's haltstat notes (trace_marker) are not events of the trace
check_eq synth-text-events "$(jget a.json 'd["events"]')" "$(grep -v -E '^(#|CPU:)' a.txt | grep -vc 'haltstat-meta: ')"
check_eq synth-sched-noise "$(jget a.json 'd["noise_events"]')" "$(grep -c ' sched_switch: ' a.rep)"
check synth-meta-trailer sh -c "tail -c 8 a.dat | grep -q HSMETA01 && grep -a -q '^param.halt_poll_ns=200000$' a.dat && grep -a -q '^thread=5001 5000 CPU 0/KVM$' a.dat"

# 2. Hand-derived: period 50us, Delta 20us, M 200000, grow 2 from 10000.
#    P: 0 (wait 70us, grow 10000), 10000/20000/40000 (misses, grow), 80000: hits.
"$SYNTH" --formats "$FORMATS" -v 1 -H 1000 -g period:50us -d 20us -m 200000 \
	--migrate 0 -o b.dat -j b.json 2>b.err || fail synth-run-b "$(head -c 300 b.err)"
trace-cmd report b.dat >b.rep 2>/dev/null
check_eq synth-converge "5001 CPU 0/KVM 1000 996 4 4 0" "$(count_lines b.rep)"
check_eq synth-converge-window "80000" \
	"$(grep -o 'halt_poll_ns [0-9]* (grow 40000)' b.rep | awk '{ print $2 }')"

# 3. Hand-derived flapping: 30us and 600us alternate; shrink 10000/2 < grow_start -> 0.
"$SYNTH" --formats "$FORMATS" -v 1 -H 1000 -g 30us,600us -d 20us -m 200000 \
	--migrate 0 -o c.dat -j c.json 2>c.err || fail synth-run-c "$(head -c 300 c.err)"
trace-cmd report c.dat >c.rep 2>/dev/null
check_eq synth-flap "5001 CPU 0/KVM 1000 0 1000 500 500" "$(count_lines c.rep)"
check_eq synth-flap-shrinks-to-zero 500 "$(grep -c 'halt_poll_ns 0 (shrink 10000)' c.rep)"

# 4. M = 0: no window changes, no polling.
"$SYNTH" --formats "$FORMATS" -v 2 -H 500 -g exp:80us -m 0 -o d.dat -j d.json 2>/dev/null
trace-cmd report d.dat >d.rep 2>/dev/null
check_eq synth-m0 "0 0 1000" "$(grep -c kvm_halt_poll_ns d.rep) $(grep -c 'poll time' d.rep) $(grep -c 'wait time' d.rep)"

# 5. Long gaps need time-extend records (deltas above 2^27 ns = 134 ms).
"$SYNTH" --formats "$FORMATS" -v 1 -H 20 -g 300ms -o e.dat -t e.txt -j e.json 2>/dev/null
trace-cmd report e.dat >e.rep 2>/dev/null
stamps() { grep kvm_vcpu_wakeup "$1" | grep -o -E ' [0-9]+\.[0-9]{6}: ' | tr -d ' :' | tr '\n' ' '; }
check_eq synth-time-extend "$(stamps e.txt)" "$(stamps e.rep)"
# 300 ms gap + 20 us wake-up + 2 us run between halts: 300.022 ms apart.
check_eq synth-time-extend-spacing "0.300022" "$(stamps e.rep | awk '{ printf "%.6f", $2 - $1 }')"

# 6. Guest idle pairs: per CPU, entries and exits alternate; one pair per halt.
"$SYNTH" --formats "$FORMATS" -v 2 -c 2 -H 300 -g 100us --guest-idle -o f.dat -j f.json 2>/dev/null
trace-cmd report f.dat >f.rep 2>/dev/null
check_eq synth-guest-idle 1200 "$(grep -c ' cpu_idle: ' f.rep)"
check_eq synth-guest-idle-alternates "" "$(awk '/ cpu_idle: / { c = $3; e = ($0 ~ /4294967295/); if (c in last && last[c] == e) print "repeat on " c; last[c] = e }' f.rep)"

# 7. The formats of the running kernel, when tracefs is readable.
if [ -r /sys/kernel/tracing/events/header_page ]; then
	"$SYNTH" -v 2 -H 300 -o g.dat -j g.json 2>g.err
	trace-cmd report g.dat >g.rep 2>g.rep.err
	check_eq synth-tracefs-formats "$(expected_lines g.json)" "$(count_lines g.rep)"
else
	skip synth-tracefs-formats "tracefs not readable"
fi

# 8. Bad input: a clear one-line error and a non-zero status.
"$SYNTH" -g 3xs -j /dev/null 2>h.err
rc=$?
check_eq synth-bad-gap "2 1" "$rc $(wc -l <h.err)"

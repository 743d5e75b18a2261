#!/bin/bash
# Polling CPU against KVM's own count (halt_poll_success_ns +
# halt_poll_fail_ns, from the vCPU's stats fd), compared per polled halt
# (KVM's halt_attempted_poll against haltstat's hits + misses: the same
# halts, whichever part of the run a recording covers).
#  - The real recordings of tests/data/real-kvm with their workload.json:
#    within 5% where the halts do not show polls being cut; where they do
#    (3 vCPUs on 2 CPUs, no sched events) the figure is flagged an upper
#    bound, holds as one, and the suggestion stays at the recorded setting.
#  - A synthetic overcommitted recording without sched events (hs-synth
#    --cut: polls cut at a uniform moment under a runnable task): "polls
#    cut" as generated, the wake-up overhead within 30%, no suggestion
#    above the recorded setting, and the bound above the generator's truth.
#  - On a KVM host, record -- hs-workload (quiet; a CPU hog on the vCPU's
#    CPU; three VMs on one CPU): within 5% of the stats fd, every run; the
#    same with --no-sched is an upper bound and says so. top --textfile and
#    the Prometheus output never rise faster than wall time per vCPU.
. "$(dirname "$0")/lib.sh"
DATA=$HS_TOP/tests/data/real-kvm
SYNTH=$HS_BUILD/tests/tools/hs-synth
WL=$HS_BUILD/tests/tools/hs-workload

if ! have python3 || ! have xz; then skip pollcpu "python3 or xz missing"; exit 0; fi
cd "$TMP" || exit 1

# pc_compare NAME REPORT.json WORKLOAD.json: "ours kvm ratio upper_bound cut_pct"
pc_compare() {
	python3 - "$2" "$3" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["host"]
w = json.load(open(sys.argv[2]))["vm"]
k = sum(v["kvm_stats"]["halt_poll_success_ns"] + v["kvm_stats"]["halt_poll_fail_ns"] for v in w)
att = sum(v["kvm_stats"]["halt_attempted_poll"] for v in w)
polled = h["poll_hits"] + h["poll_misses"]
ours = h["poll_ns"] / polled if polled else 0.0
kvm = k / att if att else 0.0
ratio = ours / kvm if kvm else (1.0 if ours == 0 else float("inf"))
cut = 100.0 * h["polls_cut"] / h["poll_misses"] if h["poll_misses"] else 0.0
print("%.0f %.0f %.4f %d %.2f" % (ours, kvm, ratio, h["poll_cpu_upper_bound"], cut))
PY
}

# --- the real recordings, from the files alone ---
n=0
for wj in "$DATA"/*.workload.json; do
	name=$(basename "$wj" .workload.json)
	[ -f "$DATA/$name.dat.xz" ] || continue
	n=$((n + 1))
	xz -dc "$DATA/$name.dat.xz" >"$name.dat"
	"$HALTSTAT" report -i "$name.dat" --json >"$name.json" 2>"$name.err" ||
		{ fail "pollcpu-$name-report" "$(head -c 200 "$name.err")"; continue; }
	read -r ours kvm ratio bound cut <<<"$(pc_compare "$name" "$name.json" "$wj")"
	echo "# $name: $ours ns a polled halt, KVM $kvm: ${ratio}x (upper bound $bound, cut $cut% of misses)"
	if [ "$bound" = 1 ] && awk "BEGIN { exit !($cut > 1) }"; then
		# polls cut by tasks nobody recorded: an upper bound, and honest about it
		check_eq "pollcpu-$name-flagged-upper-bound" 1 "$bound"
		check "pollcpu-$name-bound-holds" awk "BEGIN { exit !($ratio >= 0.98) }"
		check "pollcpu-$name-no-suggestion-above-recorded" python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); a = r["advice"]
sys.exit(not (a["halt_poll_ns"] <= r["params"]["halt_poll_ns"] and "polls_cut" in a["findings"]
              and a["confidence"] == "low"))' "$name.json"
	else
		check "pollcpu-$name-within-5pct-of-kvm" awk "BEGIN { exit !($ratio >= 0.95 && $ratio <= 1.05) }"
	fi
done
check "pollcpu-real-recordings-found" test "$n" -ge 10

# --- synthetic: polls cut under a runnable task, no sched events ---
if [ -x "$SYNTH" ]; then
	"$SYNTH" -v 3 -V 3 -H 20000 -g exp:150us -d 25us --cut 0.6 -c 2 -s 3 \
		-o cut.dat -j cut.exp >/dev/null 2>synth.err
	"$HALTSTAT" report -i cut.dat --json >cut.json 2>cut.err
	check_eq pollcpu-synth-report 0 $?
	check pollcpu-synth-cut-as-generated python3 -c '
import json, sys
exp = {t["tid"]: t for t in json.load(open(sys.argv[1]))["threads"]}
got = {v["tid"]: v for v in json.load(open(sys.argv[2]))["vcpus"]}
bad = [t for t in exp if got[t]["polls_cut"] != exp[t]["polls_cut"] or not exp[t]["polls_cut"]]
sys.exit("polls cut differ: %s" % bad if bad else 0)' cut.exp cut.json
	check pollcpu-synth-delta-within-30pct python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["delta_ns"]
got = [v["wake_overhead_ns"] for v in json.load(open(sys.argv[2]))["vcpus"]]
sys.exit(0 if all(abs(g - d) <= 0.3 * d for g in got) else "%s against %d" % (got, d))' cut.exp cut.json
	check pollcpu-synth-no-suggestion-above-recorded python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); a = r["advice"]
sys.exit(not (a["halt_poll_ns"] <= 200000 and "polls_cut" in a["findings"]))' cut.json
	check pollcpu-synth-upper-bound-holds python3 -c '
import json, sys
exp = {t["tid"]: t for t in json.load(open(sys.argv[1]))["threads"]}
got = {v["tid"]: v for v in json.load(open(sys.argv[2]))["vcpus"]}
sys.exit(not all(got[t]["poll_cpu_upper_bound"] and got[t]["poll_ns"] >= exp[t]["poll_cpu_ns"]
                 for t in exp))' cut.exp cut.json
	# the same halts without cuts: nothing is called cut
	"$SYNTH" -v 2 -H 5000 -g exp:150us -s 3 -o nocut.dat -j /dev/null >/dev/null 2>&1
	"$HALTSTAT" report -i nocut.dat --json >nocut.json 2>/dev/null
	check pollcpu-synth-uncut-none-cut python3 -c '
import json, sys
sys.exit(json.load(open(sys.argv[1]))["host"]["polls_cut"] != 0)' nocut.json
else
	fail pollcpu-synth-built "no $SYNTH"
fi

# Prometheus never exports more polling than the time watched, per vCPU
"$HALTSTAT" report -i overcommit3-hp200000.dat --format prometheus >oc.prom 2>/dev/null
check pollcpu-prometheus-within-wall-time python3 -c '
import sys, re
t = dur = None; worst = 0.0
for line in open(sys.argv[1]):
    m = re.match(r"haltstat_poll_cpu_seconds_total\{.*\} (\S+)", line)
    if m: worst = max(worst, float(m.group(1)))
    m = re.match(r"haltstat_trace_duration_seconds (\S+)", line)
    if m: dur = float(m.group(1))
sys.exit(not (dur and 0 < worst <= dur + 0.01))' oc.prom

# --- on a KVM host: the stats fd over exactly the recorded run ---
if ! need_kvm; then skip pollcpu-kvm "no usable /dev/kvm"; exit 0; fi
if ! need_tracefs; then skip pollcpu-kvm "needs root and tracefs"; exit 0; fi
hog_pid=
trap '[ -n "$hog_pid" ] && kill $hog_pid 2>/dev/null; rm -rf "$TMP"' EXIT
# kvm_run NAME [--no-sched] -- WORKLOAD-ARGS: record the whole run, compare
kvm_run() {
	local name=$1 flag=; shift
	[ "$1" = --no-sched ] && { flag=$1; shift; }
	shift
	"$HALTSTAT" record $flag -o "$name.dat" -- "$WL" "$@" -o "$name.w.json" \
		>/dev/null 2>"$name.rerr" || { fail "pollcpu-kvm-$name-run" "$(tail -c 300 "$name.rerr")"; return 1; }
	"$HALTSTAT" report -i "$name.dat" --json --no-advice >"$name.json" 2>/dev/null
	read -r ours kvm ratio bound cut <<<"$(pc_compare "$name" "$name.json" "$name.w.json")"
	echo "# kvm $name: $ours ns a polled halt, KVM's stats fd $kvm: ${ratio}x (upper bound $bound)"
}
hog_start() {	# a task on CPU 0 busy 2 ms of every 5
	taskset -c 0 python3 -c '
import time
while True:
    t = time.monotonic()
    while time.monotonic() - t < 0.002: pass
    time.sleep(0.003)' &
	hog_pid=$!
}
# within 5%, or within 300 ns a polled halt: a poll that another task cuts at
# once still costs KVM one pass of its loop (230 ns a failed poll measured
# here under load), which no event shows; on a host whose every poll is cut
# that pass is the whole figure
near_kvm() { awk -v o="$ours" -v k="$kvm" 'BEGIN { d = o - k; if (d < 0) d = -d; exit !(d <= 0.05 * k || d <= 300) }'; }
# Three VMs on one CPU: every poll is cut by another vCPU thread's wake-up,
# which counts from its sched_waking (lib/runq.h): from sched_wakeup,
# after the reschedule IPI, haltstat counted 4-6% more than KVM on the
# project's nested host; from sched_waking, 0.973-0.995 in 14 runs.
for i in 1 2; do
	kvm_run quiet$i -- -n 1 -H 6000 -g exp:120us -c 0 -w 1 -p 200000 &&
		check "pollcpu-kvm-quiet$i-within-5pct" near_kvm
	hog_start
	kvm_run hog$i -- -n 1 -H 6000 -g 40us,150us,800us -c 0 -w 1 -p 400000 &&
		check "pollcpu-kvm-hog$i-within-5pct" near_kvm
	kill $hog_pid; wait $hog_pid 2>/dev/null; hog_pid=
	kvm_run three$i -- -n 3 -H 6000 -g exp:200us -c 0 -w 1 -p 200000 &&
		check "pollcpu-kvm-three-on-one-cpu$i-within-5pct" near_kvm
done
# without sched events the same three VMs: an upper bound, said so
kvm_run three-nosched --no-sched -- -n 3 -H 6000 -g exp:200us -c 0 -w 1 -p 200000 &&
	check pollcpu-kvm-nosched-upper-bound awk "BEGIN { exit !($bound == 1 && $ratio >= 0.98) }"

# top --textfile: each vCPU's poll CPU counter never rises faster than the
# time watched (the file's own haltstat_trace_duration_seconds)
"$WL" -n 3 -H 40000 -g 20us,30us,50us -c 0 -w 1 -p 200000 -o top.w.json >/dev/null 2>&1 &
wl=$!
sleep 0.3
"$HALTSTAT" top -s 0.5 -n 5 --textfile top.prom >top.ndjson 2>top.err &
top_pid=$!
for k in $(seq 1 14); do
	sleep 0.2
	[ -s top.prom ] && cp top.prom "top.$k.prom"
done
wait $top_pid
wait $wl
check pollcpu-top-textfile-within-wall-time python3 - top.*.prom <<'PY'
import re, sys
seen, prev = [], None
for f in sys.argv[1:]:
    text = open(f).read()
    dur = re.search(r"^haltstat_trace_duration_seconds (\S+)$", text, re.M)
    poll = dict(re.findall(r"^(haltstat_poll_cpu_seconds_total\{.*\}) (\S+)$", text, re.M))
    if not dur or not poll:
        continue
    d, p = float(dur.group(1)), {k: float(v) for k, v in poll.items()}
    if any(v > d + 1e-6 for v in p.values()):
        sys.exit("%s: a vCPU polled more than the %.3f s watched" % (f, d))
    if prev and d > prev[0]:
        rise = max(v - prev[1].get(k, 0) for k, v in p.items())
        if rise > d - prev[0] + 0.001:
            sys.exit("%s: rose %.3f s in %.3f s" % (f, rise, d - prev[0]))
        seen.append(d)
    prev = (d, p)
sys.exit(0 if len(seen) >= 2 else "fewer than 3 distinct files")
PY

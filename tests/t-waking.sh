#!/bin/bash
# Timed waits: with sched:sched_waking in a recording each wait's exact time
# to wake and its own wake-up overhead are known, and the what-if replays
# them as they were. Synthetic recordings (tests/tools/hs-synth, whose window
# logic is written apart from lib/sim.c) at halt_poll_ns 0 with an overhead
# that varies from wait to wait, against runs of the same seed at other
# settings: the prediction must match what the kernel's rules give there,
# the wake model must come out as generated, and every reader must agree.
# Then, where tracefs is writable, record --sched must capture sched_waking.
. "$HS_TOP/tests/lib.sh"

SYNTH=$HS_BUILD/tests/tools/hs-synth
[ -x "$SYNTH" ] || { fail waking-built "no $SYNTH"; exit 0; }
have python3 || { skip waking "python3 missing"; exit 0; }
cd "$TMP" || exit 1

# synth NAME M LOOP [EXTRA...]: 12000 halts of one vCPU, exponential gaps,
# overhead 30 us plus an exponential of mean 15 us per wait
synth() {
	local name=$1 m=$2 loop=$3; shift 3
	"$SYNTH" -v 1 -c 2 -H 12000 -g exp:150us -s 9 -m "$m" -d 30us --delta-spread 15us \
		--migrate 0 $loop -o "$name.dat" -j "$name.json" "$@" >/dev/null 2>err ||
		fail "waking-synth-$name" "$(head -c 300 err)"
}

# check_case LOOP MODEL: the prediction from the recording at 0 with its
# sched_waking against the runs at 100000, 200000 and 300000
check_case() {
	local loop=$1 model=$2 tag=${2}
	synth rec-$tag 0 "$loop" --waking -t rec-$tag.txt
	for m in 100000 200000 300000; do synth run-$tag-$m $m "$loop"; done
	"$HALTSTAT" report --json -i rec-$tag.dat --candidates 100000,200000,300000 \
		>rec-$tag.report.json 2>err || { fail "waking-$tag-report" "$(head -c 300 err)"; return; }
	python3 - rec-$tag.report.json "$model" run-$tag-100000.json run-$tag-200000.json \
		run-$tag-300000.json <<'PY'
import json, sys
rep, model = json.load(open(sys.argv[1])), sys.argv[2]
v = rep["vcpus"][0]
def res(name, good, why=""):
    print(("ok " if good else "not ok ") + name + ("" if good else ": " + why))
tag = model
wm, mo = v["wake_model"], v["wake_overhead_measured"]
# each sched_waking times one wait, the first too: its thread is not known
# as a vCPU thread before its first kvm event, and its waking is kept aside
res("waking-%s-timed-waits" % tag, rep["events"]["sched_waking"] > 0 and
    v["timed_waits"] == rep["events"]["sched_waking"] and v["timed_waits"] > 0.5 * v["halts"],
    "%d timed of %d halts, %d sched_waking" % (v["timed_waits"], v["halts"], rep["events"]["sched_waking"]))
# overheads of 30 us + exp(15 us): median 30 + 15 ln 2 = 40.4 us, 10th 31.6, 90th 64.5
res("waking-%s-overhead-measured" % tag, v["wake_overhead_source"] == "sched_waking" and
    mo and abs(mo["p50_ns"] - 40400) <= 2000 and abs(mo["p10_ns"] - 31600) <= 1500 and
    abs(mo["p90_ns"] - 64500) <= 4000 and v["wake_overhead_ns"] == mo["p50_ns"], str(mo))
res("waking-%s-wake-model" % tag, wm["evidence"] == "timed_waits" and wm["model"] == model and
    wm["supported"], str(wm))
for f in sys.argv[3:]:
    truth = json.load(open(f))
    t = truth["threads"][0]
    m = truth["halt_poll_ns"]
    # KVM's halt_successful_poll: hits with a window in force
    measured = 100.0 * t["successful_polls"] / t["sim_halts"]
    row = [w for w in v["what_if"] if w["halt_poll_ns"] == m][0]
    lo, pt, hi = (100 * row[k] for k in ("hit_rate_low", "hit_rate", "hit_rate_high"))
    print("# %s loop -> %d: predicted %.2f%% [%.2f, %.2f], the kernel's rules give %.2f%%" %
          (model, m, pt, lo, hi, measured))
    res("waking-%s-%d-inside" % (tag, m), lo <= measured <= hi and hi - lo <= 6,
        "%.2f outside [%.2f, %.2f] or wider than 6 points" % (measured, lo, hi))
    res("waking-%s-%d-point" % (tag, m), abs(pt - measured) <= 1.5,
        "point %.2f, %.2f the kernel's rules give" % (pt, measured))
PY
}

check_case "" closed
check_case --open-loop open

# --- without sched_waking the same recording falls back to one estimated overhead ---
grep -v ' sched_waking: ' rec-closed.txt >nowaking.txt
"$HALTSTAT" report --json -i nowaking.txt >nowaking.json 2>/dev/null
"$HALTSTAT" advise -i nowaking.txt >nowaking.advise 2>&1
python3 - nowaking.json <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["vcpus"][0]
good = v["wake_overhead_source"] == "estimated" and v["wake_overhead_measured"] is None and \
    v["timed_waits"] == 0 and v["wake_model"]["evidence"] != "timed_waits"
print(("ok " if good else "not ok ") + "waking-absent-estimated" +
      ("" if good else ": " + json.dumps({k: v[k] for k in ("wake_overhead_source", "timed_waits")})))
PY
grep -q "Without sched_waking each wait's time to wake is its length minus this one figure" nowaking.advise &&
	ok waking-absent-advise-says-so || fail waking-absent-advise-says-so "$(grep 'A wait costs' nowaking.advise)"
"$HALTSTAT" advise -i rec-closed.dat >closed.advise 2>&1
grep -q "as sched_waking timed the waits of 1 of 1 vCPUs" closed.advise &&
	grep -q "Wakes are replayed closed loop, as the timed waits show" closed.advise &&
	ok waking-advise-words || fail waking-advise-words "$(grep -E 'A wait costs|Wakes are' closed.advise)"
# sched_waking alone is not enough to tell contention: every format names the two missing
"$HALTSTAT" report -i rec-closed.dat --no-histograms >closed.txt 2>&1
"$HALTSTAT" report -i rec-closed.dat --format markdown >closed.md 2>&1
grep -q "^contention: unknown (no sched_switch and sched_wakeup events recorded" closed.txt &&
	grep -q "| contention | unknown (no sched_switch and sched_wakeup events recorded) |" closed.md &&
	grep -q "Contention unknown: the recording has no sched_switch and sched_wakeup events," closed.advise &&
	ok waking-contention-words ||
	fail waking-contention-words "$(grep -ih 'contention' closed.txt closed.md closed.advise | head -3)"

# --- every reader times the same waits (text to the microsecond) ---
if have trace-cmd; then
	trace-cmd report rec-closed.dat >tc.txt 2>/dev/null
	trace-cmd convert -i rec-closed.dat -o rec7.dat --file-version 7 --compression any >/dev/null 2>&1
fi
HALTSTAT_READER=libtracecmd "$HALTSTAT" report --json -i rec-closed.dat >lib.json 2>/dev/null
"$HALTSTAT" report --json -i rec-closed.txt >ktext.json 2>/dev/null
for f in lib.json ktext.json $(have trace-cmd && echo tc.txt rec7.dat); do
	case $f in
	*.json) j=$f ;;
	*) "$HALTSTAT" report --json -i "$f" >"$f.json" 2>/dev/null; j=$f.json ;;
	esac
	python3 - rec-closed.report.json "$j" "$f" <<'PY'
import json, sys
a, b = (json.load(open(p))["vcpus"][0] for p in sys.argv[1:3])
ma, mb = a["wake_overhead_measured"], b["wake_overhead_measured"] or {}
# text rounds to the microsecond: a wake within one of its halt's start may not be timed
slack = 0 if sys.argv[3].endswith(("dat", "json")) and sys.argv[3] != "ktext.json" else a["timed_waits"] // 500
same = 0 <= a["timed_waits"] - b["timed_waits"] <= slack and \
    all(abs(ma[k] - mb.get(k, -1e9)) <= 1000 for k in ("p10_ns", "p50_ns", "p90_ns"))
print(("ok " if same else "not ok ") + "waking-reader-" + sys.argv[3] +
      ("" if same else ": %d timed, %s against %d, %s" % (b["timed_waits"], mb, a["timed_waits"], ma)))
PY
done

# --- record --sched captures sched_waking, and leaves tracing as it was ---
if ! need_tracefs; then skip waking-record "needs root and tracefs"; exit 0; fi
"$HALTSTAT" record --sched -d 0.5 -o rs.dat -- sh -c 'for i in 1 2 3 4 5; do sleep 0.05; done' \
	>rs.out 2>rs.err
check_eq waking-record-exit 0 $?
"$HALTSTAT" report --json -i rs.dat >rs.json 2>/dev/null
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["events"]; sys.exit(0 if e["sched_waking"] > 0 and e["sched_switch"] > 0 else 1)' rs.json &&
	ok waking-record-captured || fail waking-record-captured "$(grep -i sched rs.err | tr '\n' ' ')"
check_eq waking-record-no-instance-left "" "$(ls /sys/kernel/tracing/instances | grep '^haltstat' || true)"

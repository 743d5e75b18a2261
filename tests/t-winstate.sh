#!/bin/bash
# The window state a recording starts in, and the maximum in force.
# Recordings of long-running VMs begin mid-life: the window is unknown until a
# vCPU's first kvm_halt_poll_ns, and what came before is told afterwards (the
# next event's old value, else the kernel's rules). A VMM may set its own
# maximum (KVM_CAP_HALT_POLL): where the window events contradict the module
# parameter, the self-check replays the maximum they show, and says so.
. "$HS_TOP/tests/lib.sh"
DATA=$HS_TOP/tests/data/real-kvm
SCHEMA=$HS_TOP/formats/render/report.schema.json
[ -x "$HALTSTAT" ] || { fail winstate-binary "missing $HALTSTAT"; exit 0; }
have python3 || { skip winstate "python3 missing"; exit 0; }
have xz || { skip winstate "xz missing"; exit 0; }
PY=
python3 -c 'import jsonschema' 2>/dev/null && PY=python3

validate() {	# validate NAME FILE
	if [ -z "$PY" ]; then skip "$1" "python3-jsonschema not installed"; return; fi
	check "$1" "$PY" -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$SCHEMA" "$2"
}
# jtrue NAME FILE EXPR: EXPR over the report d (and its first vCPU v, first VM m) is true
jtrue() {
	check "$1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); v = d["vcpus"][0]; m = d["vms"][0]
ok = eval(sys.argv[2])
print(sys.argv[2], "->", ok); sys.exit(not ok)' "$2" "$3"
}

# --- a VMM's own maximum: cyc40-150-800-hp300000-r1 (module 200000, VM 300000) ---
b=cyc40-150-800-hp300000-r1-slice
xz -dc "$DATA/$b.dat.xz" >"$TMP/hp3.dat"
"$HALTSTAT" report -i "$TMP/hp3.dat" --json >"$TMP/hp3.json" 2>"$TMP/hp3.err"
check_eq winstate-hp300000-exit 0 $?
validate winstate-hp300000-schema "$TMP/hp3.json"
jtrue winstate-hp300000-vm-max "$TMP/hp3.json" \
	'm["max_in_force"]["ns"] == 300000 and m["max_in_force"]["source"] == "inferred_contradicts_module" and m["max_in_force"]["module_ns"] == 200000'
jtrue winstate-hp300000-vcpu-max "$TMP/hp3.json" \
	'v["max_in_force"]["ns"] == 300000 and v["selfcheck"]["replayed_max_ns"] == 300000 and v["selfcheck"]["max_source"] == "inferred_contradicts_module"'
jtrue winstate-hp300000-bounds "$TMP/hp3.json" \
	'v["max_in_force"]["lo_ns"] <= 300000 <= (v["max_in_force"]["hi_ns"] or 1e18)'
jtrue winstate-hp300000-selfcheck "$TMP/hp3.json" \
	'v["selfcheck"]["agree_pct"] >= 95 and v["selfcheck"]["halts_compared"] == v["halts"]'
jtrue winstate-hp300000-advice "$TMP/hp3.json" \
	'"vm_sets_own_max" in d["advice"]["findings"] and "selfcheck_low" not in d["advice"]["findings"] and d["advice"]["confidence"] != "low"'
"$HALTSTAT" report -i "$TMP/hp3.dat" >"$TMP/hp3.txt" 2>/dev/null
check winstate-hp300000-text grep -q "^VM hs-workload: maximum 300000 inferred from its window events.*module's halt_poll_ns is 200000, so the VMM sets its own (KVM_CAP_HALT_POLL)" "$TMP/hp3.txt"
check winstate-hp300000-advice-text grep -q "Self-check: replaying the maximum in force (the module's 200000, but for VM hs-workload 300000" "$TMP/hp3.txt"
# --- a VM with maximum 0 and a recording that starts mid-life: cyc40-150-800-hp0-r1 ---
b=cyc40-150-800-hp0-r1-slice
xz -dc "$DATA/$b.dat.xz" >"$TMP/hp0.dat"
"$HALTSTAT" report -i "$TMP/hp0.dat" --json >"$TMP/hp0.json" 2>/dev/null
validate winstate-hp0-schema "$TMP/hp0.json"
jtrue winstate-hp0-none-unknown "$TMP/hp0.json" \
	'v["waits"] > 1000 and v["unknown_waits"] == 0 and v["nopoll_waits"] == v["waits"]'
jtrue winstate-hp0-told-by-rule "$TMP/hp0.json" \
	'v["window_inferred"]["no_polling"] == v["waits"] and sum(d["host"]["unknown_why"].values()) == 0'
jtrue winstate-hp0-max-zero "$TMP/hp0.json" \
	'm["max_in_force"]["ns"] == 0 and v["selfcheck"]["agree_pct"] == 100 and v["selfcheck"]["halts_compared"] == v["halts"]'
"$HALTSTAT" report -i "$TMP/hp0.dat" --no-histograms >"$TMP/hp0.txt" 2>/dev/null
check winstate-hp0-text grep -q "^waits before the window was known: [0-9]* told afterwards (no polling [0-9]*), 0 still unknown" "$TMP/hp0.txt"

# --- synthetic: threads by the 6.11 rules, printed only after a warm-up ---
cat >"$TMP/gen.py" <<'EOF'
import json, random, sys
# gen.py TRUTH [nomax] [lost]: kernel text on stdout, the true classes in TRUTH
random.seed(5)
DELTA, WARM, N = 20000, 500, 3000
nomax, lost = "nomax" in sys.argv, "lost" in sys.argv
cyc = lambda *g: (lambda i: g[i % len(g)] + random.randrange(2000))
threads = {  # tid: tgid, VM, maximum in force, gaps
    101: (100, "vma", 200000, lambda i: random.choice([300000, 700000, 1100000, 2000000])),
    102: (100, "vma", 200000, cyc(40000, 150000, 800000)),
    201: (200, "vmb", 0, cyc(40000, 150000, 800000)),
    301: (300, "vmc", 300000, cyc(40000, 250000, 250000, 800000)),
    # no window event at all: its maximum is its VM's, told by 301
    302: (300, "vmc", 300000, lambda i: random.choice([400000, 900000, 2000000])),
}
out, truth = [], {}
for tid, (tgid, vm, M, gap) in threads.items():
    P, t = 0, 1000.0
    tr = truth[tid] = {"halts": 0, "hits": 0, "misses": 0, "nopoll": 0}
    for i in range(WARM + N):
        P = min(P, M)
        d = gap(i)
        waited = not (P and d < P)
        ns = d + DELTA if waited else d
        t += (ns + 5000) / 1e9
        ev, win = None, P
        if M and ns > P:
            if P and ns > M:
                P = 0 if P // 2 < 10000 else P // 2; ev = (P, "shrink", win)
            elif P < M and ns < M:
                P = max(P * 2, 10000); ev = (P, "grow", win)
        elif not M:
            P = 0
        if i < WARM:
            continue
        tr["halts"] += 1
        if not waited: tr["hits"] += 1
        elif win > 0: tr["misses"] += 1
        else: tr["nopoll"] += 1
        if ev:
            out.append((t - 1e-6, "       CPU 0/KVM-%d   [000] .....  %.6f: kvm_halt_poll_ns: vcpu 0: halt_poll_ns %d (%s %d)" % (tid, t - 1e-6, *ev)))
        out.append((t, "       CPU 0/KVM-%d   [000] .....  %.6f: kvm_vcpu_wakeup: %s time %d ns, polling valid" % (tid, t, "wait" if waited else "poll", ns)))
notes = ["kernel_release=6.11.0"] + ([] if nomax else ["param.halt_poll_ns=200000"])
for tid, (tgid, vm, M, gap) in threads.items():
    notes += ["thread=%d %d CPU 0/KVM" % (tid, tgid), "process=%d %s\t%s" % (tgid, vm, vm)]
for n in notes:
    print("          <...>-1     [000] .....   999.000000: tracing_mark_write: haltstat-meta: " + n)
out.sort(key=lambda x: x[0])
for k, (t, l) in enumerate(out):
    if lost and k == len(out) // 2:
        print("CPU:0 [LOST 7 EVENTS]")
    print(l)
json.dump(truth, open(sys.argv[1], "w"))
EOF
python3 "$TMP/gen.py" "$TMP/truth.json" >"$TMP/mid.txt"
"$HALTSTAT" report -i "$TMP/mid.txt" --json >"$TMP/mid.json" 2>/dev/null
check_eq winstate-synth-exit 0 $?
validate winstate-synth-schema "$TMP/mid.json"
# every wait lands in its true class, none stays unknown, and each VM's maximum is found
check winstate-synth-classes python3 - "$TMP/mid.json" "$TMP/truth.json" <<'EOF'
import json, sys
d, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
for v in d["vcpus"]:
    t = truth[str(v["tid"])]
    got = (v["halts"], v["poll_hits"], v["poll_misses"], v["nopoll_waits"], v["unknown_waits"])
    want = (t["halts"], t["hits"], t["misses"], t["nopoll"], 0)
    if got != want:
        bad.append("tid %d %s != %s" % (v["tid"], got, want))
    if v["selfcheck"]["agree_pct"] != 100:
        bad.append("tid %d self-check %s" % (v["tid"], v["selfcheck"]["agree_pct"]))
vm = {m["name"]: m["max_in_force"] for m in d["vms"]}
want = {"vma": (200000, "module"), "vmb": (0, "inferred_contradicts_module"),
        "vmc": (300000, "inferred_contradicts_module")}
for n, (ns, src) in want.items():
    if (vm[n]["ns"], vm[n]["source"]) != (ns, src):
        bad.append("%s max %s" % (n, vm[n]))
if [x["max_in_force"]["ns"] for x in d["vcpus"] if x["tid"] == 302] != [300000]:
    bad.append("302 does not take its VM's maximum")
inf = d["host"]["window_inferred"]
if inf["longer_than_max"] != truth["101"]["nopoll"] + truth["302"]["nopoll"] or \
   inf["no_polling"] != truth["201"]["nopoll"]:
    bad.append("told by %s" % inf)
print("; ".join(bad)); sys.exit(bool(bad))
EOF
# the same without the module parameter: what nothing decides is said
python3 "$TMP/gen.py" "$TMP/truth.json" nomax >"$TMP/nomax.txt"
"$HALTSTAT" report -i "$TMP/nomax.txt" --json >"$TMP/nomax.json" 2>/dev/null
validate winstate-nomax-schema "$TMP/nomax.json"
check winstate-nomax-unknown python3 - "$TMP/nomax.json" "$TMP/truth.json" <<'EOF'
import json, sys
d, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
v = {x["tid"]: x for x in d["vcpus"]}
# 201 has no event, and neither has its VM: no maximum to hold its halts against
ok = v[201]["unknown_waits"] == truth["201"]["nopoll"] == v[201]["unknown_why"]["max_unknown"]
# 101 has none either, but its VM's 102 bounds their maximum: told
ok &= v[101]["unknown_waits"] == 0 and v[101]["nopoll_waits"] == truth["101"]["nopoll"]
# 301's own events bound its maximum: inferred, and everything told
ok &= v[301]["max_in_force"]["source"] == "inferred" and v[301]["unknown_waits"] == 0
print(v[201]["unknown_why"], v[101]["max_in_force"], v[301]["max_in_force"]); sys.exit(not ok)
EOF
"$HALTSTAT" report -i "$TMP/nomax.txt" --no-histograms >"$TMP/nomax.out" 2>/dev/null
check winstate-nomax-text grep -q "[0-9]* still unknown (max unknown [0-9]*)" "$TMP/nomax.out"
# lost events: the halt right after them stays unknown, and says why
python3 "$TMP/gen.py" "$TMP/truth.json" lost >"$TMP/lost.txt"
"$HALTSTAT" report -i "$TMP/lost.txt" --json >"$TMP/lost.json" 2>/dev/null
jtrue winstate-lost-reason "$TMP/lost.json" \
	'0 < d["host"]["unknown_waits"] <= 4 and d["host"]["unknown_waits"] == d["host"]["unknown_why"]["after_lost_events"]'

# --- on KVM: 24 one-vCPU VMs with 300-2000 us gaps, recorded after they settled ---
WL=$HS_BUILD/tests/tools/hs-workload
if ! need_tracefs || ! need_kvm; then
	skip winstate-kvm "needs root, tracefs and a working /dev/kvm"
elif ! mod=$(cat /sys/module/kvm/parameters/halt_poll_ns 2>/dev/null) ||
     [ "$mod" -le 0 ] || [ "$mod" -ge 300000 ]; then
	skip winstate-kvm "module halt_poll_ns is ${mod:-unreadable}, not below the 300 us gaps"
else
	"$WL" -n 24 -H 4000 -g 300us,700us,1100us,1500us,2000us -o "$TMP/wl.json" >/dev/null 2>&1 &
	wl=$!
	sleep 1
	"$HALTSTAT" record -d 2 -o "$TMP/k.dat" >"$TMP/k.out" 2>&1
	check_eq winstate-kvm-record 0 $?
	wait $wl
	"$HALTSTAT" report -i "$TMP/k.dat" --json >"$TMP/k.json" 2>/dev/null
	validate winstate-kvm-schema "$TMP/k.json"
	python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["host"]
print("# 24 VMs, 2 s mid-life: %d halts, %d waits, %d told afterwards %s, %d unknown %s" % (h["halts"],
      h["waits"], sum(h["window_inferred"].values()), h["window_inferred"], h["unknown_waits"], h["unknown_why"]))' "$TMP/k.json"
	jtrue winstate-kvm-told "$TMP/k.json" \
		'd["host"]["halts"] > 1000 and sum(d["host"]["window_inferred"].values()) > 0 and d["host"]["unknown_waits"] == sum(d["host"]["unknown_why"].values()) and d["host"]["unknown_waits"] <= d["host"]["unknown_why"]["after_lost_events"] + d["host"]["waits"] // 100'
fi

#!/bin/bash
# haltstat record on a real KVM workload, against a second private tracefs
# instance of the test's own that captures the same kvm events at the same
# time: the per-thread counts must be equal, exactly (a guest's own HLT
# count is not an oracle: KVM does not block for a HLT whose wake-up is
# already pending). Every vCPU thread keeps its name, VM and vCPU index
# though it exits before the recording ends, for QEMU-, Firecracker- and
# plain-named threads; trace-cmd report shows the names; nothing is left
# behind. Then haltstat's numbers against trace-cmd's decoding, and the
# metadata of the v7 and text copies against the original.
. "$(dirname "$0")/lib.sh"
WL=$HS_BUILD/tests/tools/hs-workload
T=/sys/kernel/tracing

if ! need_kvm; then skip record-kvm "no usable /dev/kvm"; exit 0; fi
if ! need_tracefs; then skip record-kvm "needs root and tracefs"; exit 0; fi
if ! have trace-cmd || ! have python3; then skip record-kvm "trace-cmd or python3 missing"; exit 0; fi
if [ ! -x "$WL" ] || [ ! -x "$HALTSTAT" ]; then fail record-kvm-built "missing tools"; exit 0; fi

ORACLE=$T/instances/hstest_oracle_$$
oracle_remove() { [ -d "$ORACLE" ] && { echo 0 >"$ORACLE/tracing_on"; echo 0 >"$ORACLE/events/enable"; rmdir "$ORACLE"; }; }
trap 'oracle_remove 2>/dev/null; rm -rf "$TMP"' EXIT
oracle_start() {
	mkdir "$ORACLE" && echo 32768 >"$ORACLE/buffer_size_kb" &&
		echo 1 >"$ORACLE/events/kvm/kvm_vcpu_wakeup/enable" &&
		echo 1 >"$ORACLE/events/kvm/kvm_halt_poll_ns/enable" && echo 1 >"$ORACLE/tracing_on"
}
oracle_stop() {	# FILE: the instance's text, then the instance is gone
	echo 0 >"$ORACLE/tracing_on"
	cat "$ORACLE/trace" >"$1"
	oracle_remove
}
top_before=$(md5sum < $T/set_event)
cd "$TMP" || exit 1

# kvm_case NAME VMM-ARGS: record hs-workload -n 3 while the oracle instance
# runs, then compare per thread; VM and index expectations from VMM-ARGS.
kvm_case() {
	local name=$1; shift
	oracle_start || { fail "record-kvm-$name-oracle" "cannot make $ORACLE"; return 1; }
	"$HALTSTAT" record -o "$name.dat" -- "$WL" -n 3 -H 4000 -g 40us,300us,90us "$@" \
		-o "$name.w.json" >"$name.out" 2>"$name.err" &
	local pid=$!
	wait $pid
	local rc=$?
	oracle_stop "$name.oracle"
	check_eq "record-kvm-$name-run" 0 $rc
	[ $rc = 0 ] || { echo "# $(head -c 300 "$name.err")"; return 1; }
	check_eq "record-kvm-$name-instance-gone" 0 "$(ls $T/instances | grep -c "^haltstat_$pid\$")"
	check_eq "record-kvm-$name-top-set-event" "$top_before" "$(md5sum < $T/set_event)"
	"$HALTSTAT" report -i "$name.dat" --json --no-advice >"$name.json" 2>"$name.rerr"
	check_eq "record-kvm-$name-report" 0 $?
	trace-cmd report "$name.dat" >"$name.rep" 2>/dev/null
	check_eq "record-kvm-$name-trace-cmd" 0 $?
}

# expect NAME VM COMM-PATTERN INDEX-RULE: per vCPU thread of the workload,
# "tid count-ok comm vm index" against the oracle, haltstat's JSON and
# trace-cmd's text. COMM-PATTERN has {i} for the VM's index; INDEX-RULE
# is "index" (the name carries it) or a number (KVM's vcpu id); VM "comm"
# means the process's name.
expect() {
	python3 - "$@" <<'PY' >"$1.cmp"
import json, re, sys
name, vm_want, comm_pat, index_rule = sys.argv[1:5]
w = json.load(open(name + ".w.json"))
rep = {v["tid"]: v for v in json.load(open(name + ".json"))["vcpus"]}
pat = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\].* kvm_vcpu_wakeup: ")
oracle, tcmd = {}, {}
for line in open(name + ".oracle"):
    m = pat.match(line)
    if m:
        oracle[int(m.group(2))] = oracle.get(int(m.group(2)), 0) + 1
for line in open(name + ".rep"):
    m = pat.match(line)
    if m:
        tcmd[int(m.group(2))] = m.group(1).strip()
for v in w["vm"]:
    tid, r = v["tid"], rep.get(v["tid"], {})
    comm = comm_pat.replace("{i}", str(v["index"]))
    vm = comm if vm_want == "comm" else vm_want
    index = v["index"] if index_rule == "index" else int(index_rule)
    print(tid,
          "count" if oracle.get(tid, -1) == r.get("halts", -2) else
          "COUNT %s vs oracle %s" % (r.get("halts"), oracle.get(tid)),
          "comm" if r.get("comm") == comm else "COMM %r" % r.get("comm"),
          "vm" if r.get("vm") == vm and r.get("tgid") == v["pid"] else
          "VM %r/%r" % (r.get("vm"), r.get("tgid")),
          "index" if r.get("vcpu_index") == index else "INDEX %r" % r.get("vcpu_index"),
          "tcmd" if tcmd.get(tid) == comm else "TCMD %r" % tcmd.get(tid))
PY
	local got bad
	got=$(cat "$1.cmp")
	bad=$(grep -v ' count comm vm index tcmd$' <<<"$got")
	if [ "$(wc -l <<<"$got")" = 3 ] && [ -z "$bad" ]; then ok "record-kvm-$1-threads"; else
		fail "record-kvm-$1-threads" "$(tr '\n' ';' <<<"${bad:-$got}")"; fi
}

# QEMU as libvirt starts it: "CPU N/KVM" threads, -name guest=...
kvm_case qemu -name guest=web1,debug-threads=on && expect qemu web1 'CPU {i}/KVM' index
# Firecracker: "fc_vcpu N", the VM's name from --id
kvm_case firecracker --vmm firecracker --id fc-vm7 && expect firecracker fc-vm7 'fc_vcpu {i}' index
# QEMU without debug-threads, one process per VM: every thread has the
# process's name; the index is KVM's own vcpu id (each VM's only vCPU: 0)
kvm_case plain --vmm plain --fork --comm qemu-system-x86 && expect plain comm qemu-system-x86 0

cp qemu.dat f.dat
cp qemu.rep f.rep
check_eq record-kvm-no-loss "" "$(grep -E 'EVENTS DROPPED|LOST' f.rep | head -3)"
check_eq record-kvm-meta-no-loss "" "$(grep -a -E '^lost\.cpu[0-9]+=' f.dat | grep -v '=0$')"

# haltstat report against trace-cmd's own decoding of the same file: exact
# halts, hits, waits and log2 histogram per thread, p50/p99 within 1%; then
# the same numbers from the v7 conversion and from trace-cmd's text.
"$HALTSTAT" report -i f.dat --json --no-advice >r6.json 2>r6.err
check_eq record-kvm-report-json 0 $?
trace-cmd convert --file-version 7 --compression zstd -i f.dat -o f7.dat >/dev/null 2>&1 &&
	"$HALTSTAT" report -i f7.dat --json --no-advice >r7.json 2>/dev/null
check_eq record-kvm-report-v7 0 $?
"$HALTSTAT" report -i f.rep --json --no-advice >rt.json 2>/dev/null
check_eq record-kvm-report-text 0 $?
# The notes in the trace carry the metadata into both copies: parameters,
# kernel, VM names and tgids agree with the original.
check record-kvm-v7-metadata-equals-v6 python3 "$HS_TOP/tests/tools/hs-jcmp.py" r6.json r7.json
check record-kvm-text-metadata-equals-v6 python3 "$HS_TOP/tests/tools/hs-jcmp.py" r6.json rt.json ts
# trace-cmd's text with whole nanoseconds (report -t) carries every
# timestamp: everything agrees, exactly, the polls cut by sched events too.
trace-cmd report -t f.dat >fns.rep 2>/dev/null &&
	"$HALTSTAT" report -i fns.rep --json --no-advice >rns.json 2>/dev/null
check_eq record-kvm-report-text-ns 0 $?
check record-kvm-text-ns-equals-v6 python3 "$HS_TOP/tests/tools/hs-jcmp.py" r6.json rns.json
python3 - f.rep r6.json r7.json rt.json <<'PY' >vs.out
import json, math, re, sys
want = {}
pat = re.compile(r"-(\d+)\s+\[\d+\].*kvm_vcpu_wakeup:\s+(poll|wait) time (\d+) ns")
for line in open(sys.argv[1]):
    m = pat.search(line)
    if not m:
        continue
    tid, kind, ns = int(m.group(1)), m.group(2), int(m.group(3))
    w = want.setdefault(tid, {"halts": 0, "poll_hits": 0, "waits": 0, "ns": [], "hist": {}})
    w["halts"] += 1
    w["poll_hits" if kind == "poll" else "waits"] += 1
    w["ns"].append(ns)
    k = 0 if ns == 0 else ns.bit_length()
    h = w["hist"].setdefault(k, [0, 0])
    h[0 if kind == "poll" else 1] += 1
def pct(v, q):
    v = sorted(v)
    return v[max(0, math.ceil(q * len(v)) - 1)]
for path in sys.argv[2:]:
    bad = []
    got = {v["tid"]: v for v in json.load(open(path))["vcpus"]}
    for tid, w in want.items():
        g = got.get(tid)
        if not g:
            bad.append("tid %d missing" % tid)
            continue
        for key in ("halts", "poll_hits", "waits"):
            if g[key] != w[key]:
                bad.append("tid %d %s %d vs %d" % (tid, key, g[key], w[key]))
        hist = {}
        for b in g["histogram"]:
            k = 0 if b["lo_ns"] == 0 else b["lo_ns"].bit_length()
            hist[k] = [b["poll"], b["wait"]]
        if hist != w["hist"]:
            bad.append("tid %d histogram" % tid)
        for q, key in ((0.5, "p50"), (0.99, "p99")):
            exact = pct(w["ns"], q)
            if abs(g["halt_ns"][key] - exact) > 0.01 * exact:
                bad.append("tid %d %s %d vs %d" % (tid, key, g["halt_ns"][key], exact))
    print(path, "ok" if not bad else " ".join(bad[:5]))
PY
check_eq record-kvm-report-exact "$(printf '%s ok\n' r6.json r7.json rt.json)" "$(cat vs.out)"

# The fast paths on this real recording: one reader against two, and the
# own reader against libtracecmd (tests/t-fastpath.sh does the same on
# generated traces).
HALTSTAT_THREADS=1 "$HALTSTAT" report -i f.dat --json >one.json 2>&1
HALTSTAT_THREADS=2 "$HALTSTAT" report -i f.dat --json >two.json 2>&1
check record-kvm-two-readers-bit-identical cmp one.json two.json
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0 \
HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i f.dat --json >ltc.json 2>&1
check record-kvm-own-equals-libtracecmd python3 "$HS_TOP/tests/tools/hs-jcmp.py" one.json ltc.json

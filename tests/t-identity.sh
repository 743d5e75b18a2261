#!/bin/bash
# Who the threads of a recording were, on any machine with tracefs: a fake
# VMM (tests/tools/hs-fakevmm) whose threads are named as QEMU, Firecracker
# or nothing at all names vCPU threads, with the VM's name on its command
# line, starts after the recording and exits before it ends. Its threads
# emit sched_switch events only (no KVM needed): the file must still name
# them, in trace-cmd report (cmdlines) and in haltstat report --threads
# (process, VM, vCPU index), and so must its v7 copy and its text.
. "$(dirname "$0")/lib.sh"
FAKE=$HS_BUILD/tests/tools/hs-fakevmm
T=/sys/kernel/tracing

if ! need_tracefs; then skip identity "needs root and tracefs"; exit 0; fi
if ! have trace-cmd || ! have python3; then skip identity "trace-cmd or python3 missing"; exit 0; fi
if [ ! -x "$FAKE" ] || [ ! -x "$HALTSTAT" ]; then fail identity-built "missing tools"; exit 0; fi
top_before=$(md5sum < $T/set_event)
cd "$TMP" || exit 1

# names FILE-PREFIX FAKE-JSON VM COMM-PATTERN INDEX: each fake thread in
# trace-cmd's text and in the --threads JSON of the file, its v7 copy and
# its text; prints one "tid ..." line per thread, "ok" words when right.
names() {
	python3 - "$@" <<'PY'
import json, re, sys
prefix, fake, vm_want, comm_pat, index_rule = sys.argv[1:6]
f = json.load(open(fake))
pat = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\]")
tcmd = {}
for line in open(prefix + ".rep"):
    m = pat.match(line)
    if m:
        tcmd.setdefault(int(m.group(2)), m.group(1).strip())
reports = [{t["tid"]: t for t in json.load(open(prefix + x)).get("threads", [])}
           for x in (".json", ".v7.json", ".txt.json")]
for t in f["threads"]:
    comm = comm_pat.replace("{i}", str(t["index"]))
    vm = comm if vm_want == "comm" else vm_want
    index = t["index"] if index_rule == "index" else None
    words = [str(t["tid"]), "tcmd" if tcmd.get(t["tid"]) == comm else "TCMD=%r" % tcmd.get(t["tid"])]
    for name, r in zip(("v6", "v7", "txt"), reports):
        g = r.get(t["tid"], {})
        good = (g.get("comm") == comm and g.get("tgid") == f["pid"] and g.get("vm") == vm and
                g.get("vcpu_index") == index and g.get("vcpu") is False)
        words.append(name if good else "%s=%r" % (name.upper(), g))
    print(" ".join(words))
PY
}

# check_names NAME FAKE-JSON VM COMM-PATTERN INDEX
check_names() {
	local name=$1 got bad
	trace-cmd report "$name.dat" >"$name.rep" 2>/dev/null
	trace-cmd convert --file-version 7 --compression zstd -i "$name.dat" -o "$name.v7" >/dev/null 2>&1
	"$HALTSTAT" report -i "$name.dat" --threads --json --no-advice >"$name.json" 2>/dev/null
	"$HALTSTAT" report -i "$name.v7" --threads --json --no-advice >"$name.v7.json" 2>/dev/null
	"$HALTSTAT" report -i "$name.rep" --threads --json --no-advice >"$name.txt.json" 2>/dev/null
	got=$(names "$name" "$2" "$3" "$4" "$5" 2>&1)
	bad=$(grep -v ' tcmd v6 v7 txt$' <<<"$got")
	if [ -n "$got" ] && [ -z "$bad" ]; then ok "identity-$name-names"; else
		fail "identity-$name-names" "$(tr '\n' ';' <<<"${bad:-no threads}" | head -c 600)"; fi
}

# A recording running while the fake VMMs come and go.
"$HALTSTAT" record --guest -e sched:sched_switch -d 2 -o during.dat 2>during.err &
rec=$!
sleep 0.4
"$FAKE" -n 2 -t 300ms --comm qemu-system-x86 -name guest=web1,debug-threads=on -o fake-qemu.json
"$FAKE" -n 2 -t 300ms --vmm firecracker --comm firecracker --id fc-vm7 -o fake-fc.json
"$FAKE" -n 1 -t 300ms --vmm plain --comm qemu-system-x86 -o fake-plain.json
wait $rec
check_eq identity-during-record 0 $?
check_eq identity-during-instance-gone 0 "$(ls $T/instances | grep -c "^haltstat_$rec\$")"
check_names during fake-qemu.json web1 'CPU {i}/KVM' index
cp during.dat fc.dat
check_names fc fake-fc.json fc-vm7 'fc_vcpu {i}' index
cp during.dat plain.dat
check_names plain fake-plain.json comm qemu-system-x86 none

# The most common way to record: while the command runs, which has exited
# (and its threads with it) by the time the recording is saved.
"$HALTSTAT" record --guest -e sched:sched_switch -o cmd.dat -- \
	"$FAKE" -n 3 -t 200ms --comm qemu-system-x86 -name guest=db2 -o fake-cmd.json 2>cmd.err
check_eq identity-command-record 0 $?
check_names cmd fake-cmd.json db2 'CPU {i}/KVM' index

check_eq identity-top-set-event "$top_before" "$(md5sum < $T/set_event)"

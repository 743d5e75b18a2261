#!/bin/bash
# haltstat record on a real KVM workload: one kvm_vcpu_wakeup per guest halt
# on each vCPU thread, the QEMU-style thread names, and nothing lost.
. "$(dirname "$0")/lib.sh"
WL=$HS_BUILD/tests/tools/hs-workload

if ! need_kvm; then skip record-kvm "no usable /dev/kvm"; exit 0; fi
if ! need_tracefs; then skip record-kvm "needs root and tracefs"; exit 0; fi
if ! have trace-cmd || ! have python3; then skip record-kvm "trace-cmd or python3 missing"; exit 0; fi
if [ ! -x "$WL" ] || [ ! -x "$HALTSTAT" ]; then fail record-kvm-built "missing tools"; exit 0; fi

cd "$TMP" || exit 1
if "$HALTSTAT" record -o f.dat -- "$WL" -n 3 -H 5000 -g 30us,100us,600us -o w.json \
	>rec.out 2>rec.err; then
	ok record-kvm-run
else
	fail record-kvm-run "$(head -c 300 rec.err)"
	exit 0
fi
trace-cmd report f.dat >f.rep 2>f.err
check_eq record-kvm-report 0 $?

# "TID COMM COUNT" of kvm_vcpu_wakeup per thread, from trace-cmd's decoding.
awk '/ kvm_vcpu_wakeup: / {
	i = index($0, " ["); head = substr($0, 1, i - 1)
	n = split(head, a, "-"); tid = a[n] + 0
	comm = substr(head, 1, length(head) - length(a[n]) - 1); sub(/^ +/, "", comm)
	name[tid] = comm; c[tid]++
} END { for (t in c) print t, c[t], name[t] }' f.rep | sort -n >got
python3 - w.json got <<'PY' >cmp.out
import json, sys
d = json.load(open(sys.argv[1]))
got = {}
for line in open(sys.argv[2]):
    tid, cnt, comm = line.rstrip("\n").split(" ", 2)
    got[int(tid)] = (int(cnt), comm)
for v in d["vm"]:
    cnt, comm = got.get(v["tid"], (0, ""))
    # A wake raised just before the guest's hlt skips the halt in KVM: a few may be missing.
    print("count" if abs(cnt - v["halts"]) <= 5 else "COUNT %d vs %d" % (cnt, v["halts"]),
          "name" if comm == v["comm"] else "NAME %r vs %r" % (comm, v["comm"]))
PY
check_eq record-kvm-per-thread "$(printf 'count name\n%.0s' 1 2 3)" "$(cat cmp.out)"
check_eq record-kvm-no-loss "" "$(grep -E 'EVENTS DROPPED|LOST' f.rep | head -3)"
check_eq record-kvm-meta-no-loss "" "$(grep -a -E '^lost\.cpu[0-9]+=' f.dat | grep -v '=0$')"

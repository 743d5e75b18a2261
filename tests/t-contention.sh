#!/bin/bash
# Contention from sched events (lib/runq.c): how often another task was
# runnable on a vCPU's CPU during its halts, the what-if polls cut there,
# "unknown" without sched events, and a wake-up overhead estimate that
# holds when polls end early. Real recordings of one KVM host
# (tests/data/real-kvm/README.md), no KVM needed.
. "$HS_TOP/tests/lib.sh"

have python3 || { skip contention "python3 missing"; exit 0; }
DATA=$HS_TOP/tests/data/real-kvm
for b in contended-hp0-slice overcommit3-hp200000-slice exp120-hp200000-slice; do
	xz -dc "$DATA/$b.dat.xz" >"$TMP/$b.dat" || { fail contention-data "$b"; exit 0; }
done
C=$TMP/contended-hp0-slice.dat

# the same recording with its sched events renamed away: no format by those names left
python3 - "$C" "$TMP/nosched.dat" <<'PY' || fail contention-nosched-file "python failed"
import sys
d = open(sys.argv[1], "rb").read()
for a, b in ((b"name: sched_switch\n", b"name: sched_swxtch\n"),
             (b"name: sched_wakeup\n", b"name: sched_wakeuq\n")):
    assert d.count(a) == 1, a
    d = d.replace(a, b)
open(sys.argv[2], "wb").write(d)
PY

# --- the report states how often another task was runnable ---
"$HALTSTAT" report -i "$C" --no-histograms >"$TMP/r.txt" 2>&1
check_eq contention-report-exit 0 $?
if grep -q "^contention: halts during which another task was runnable on the vCPU's CPU" "$TMP/r.txt" &&
   grep -Eq '^  ALL \(host total\) +[0-9]+ of +[0-9]+ halts +[0-9.]+% +[0-9.]+% of halt time' "$TMP/r.txt"; then
	ok contention-report-text
else
	fail contention-report-text "$(grep -A3 '^contention' "$TMP/r.txt" | tr '\n' ' ')"
fi
grep -q 'sched_switch [1-9][0-9]*, sched_wakeup [1-9]' "$TMP/r.txt" &&
	ok contention-report-event-counts || fail contention-report-event-counts "no sched counts"
"$HALTSTAT" advise -i "$C" >"$TMP/a.txt" 2>&1
grep -q "Another task was runnable on the vCPU's CPU during [0-9.]*% of [0-9]* halts" "$TMP/a.txt" &&
	grep -q 'findings:.*contention' "$TMP/a.txt" &&
	ok contention-advise-says-so || fail contention-advise-says-so "$(grep -i contention "$TMP/a.txt")"

# --- JSON: the share, and the prediction at 400000 against KVM's own count ---
"$HALTSTAT" report -i "$C" --json >"$TMP/c.json" 2>/dev/null
"$HALTSTAT" report -i "$TMP/nosched.dat" --json >"$TMP/n.json" 2>/dev/null
python3 - "$TMP/c.json" "$TMP/n.json" <<'PY' || fail contention-json "python failed"
import json, sys
c, n = (json.load(open(p)) for p in sys.argv[1:3])
def res(name, good, why=""):
    print(("ok " if good else "not ok ") + name + ("" if good else ": " + why))
h = c["host"]["contention"]
# the task on CPU 0 is busy 40% of the time; it is runnable during a sixth of the halts
res("contention-json-share", h["known"] and 0.10 <= h["halt_share"] <= 0.30 and
    0.30 <= h["time_share"] <= 0.50 and c["vcpus"][0]["contention"] == h, str(h))
def at(d, m):
    return [r for r in d["advice"]["what_if"] if r["halt_poll_ns"] == m][0]["hit_rate"] * 100
measured = 100.0 * 3561 / 12000
p = at(c, 400000)
res("contention-prediction-400000", abs(p - measured) <= 1.5,
    "predicted %.1f%%, KVM measured %.1f%%" % (p, measured))
hn = n["host"]["contention"]
res("contention-unknown-json", not hn["known"] and hn["halts_tracked"] == 0 and
    hn["halt_share"] is None and hn["time_share"] is None and
    "contention_unknown" in n["advice"]["findings"], str(hn))
# the cut polls are what brings the prediction down: without them it is higher
res("contention-cut-moves-prediction", at(n, 400000) > p + 1,
    "%.1f%% without sched events, %.1f%% with" % (at(n, 400000), p))
PY

# --- the same file without sched events: contention unknown, in words ---
"$HALTSTAT" report -i "$TMP/nosched.dat" --no-histograms >"$TMP/n.txt" 2>&1
grep -q '^contention: unknown (no sched events recorded' "$TMP/n.txt" &&
	ok contention-unknown-report || fail contention-unknown-report "$(grep -i contention "$TMP/n.txt")"
"$HALTSTAT" advise -i "$TMP/nosched.dat" >"$TMP/na.txt" 2>&1
grep -q '^  Contention unknown: the recording has no sched events' "$TMP/na.txt" &&
	ok contention-unknown-advise || fail contention-unknown-advise "$(grep -i contention "$TMP/na.txt")"
"$HALTSTAT" report -i "$TMP/nosched.dat" --csv >"$TMP/n.csv" 2>/dev/null
"$HALTSTAT" report -i "$C" --csv >"$TMP/c.csv" 2>/dev/null
python3 - "$TMP/c.csv" "$TMP/n.csv" <<'PY' || fail contention-csv "python failed"
import csv, sys
c, n = (list(csv.DictReader(open(p)))[0] for p in sys.argv[1:3])
good = float(c["contention_halt_share"]) > 0 and n["contention_halt_share"] == "" and \
    int(c["contention_halts"]) <= int(c["contention_halts_tracked"])
print("ok contention-csv" if good else "not ok contention-csv: %s / %s" %
      (c["contention_halt_share"], n["contention_halt_share"]))
PY

# --- every reader decodes the sched events alike ---
HALTSTAT_READER=libtracecmd "$HALTSTAT" report -i "$C" --json >"$TMP/l.json" 2>/dev/null
python3 - "$TMP/c.json" "$TMP/l.json" <<'PY' || fail contention-libtracecmd-reader "python failed"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = a["host"]["contention"] == b["host"]["contention"] and \
    a["events"]["sched_switch"] == b["events"]["sched_switch"] > 0 and \
    a["events"]["sched_wakeup"] == b["events"]["sched_wakeup"] > 0 and "libtracecmd" in b["format"]
print("ok contention-libtracecmd-reader" if same else "not ok contention-libtracecmd-reader: " +
      json.dumps(b["host"]["contention"]) + " " + b["format"])
PY
if have trace-cmd; then
	trace-cmd convert -i "$C" -o "$TMP/c7.dat" --file-version 7 --compression any >/dev/null 2>&1
	trace-cmd report "$C" >"$TMP/c.txt" 2>/dev/null
	for f in c7.dat c.txt; do
		"$HALTSTAT" report -i "$TMP/$f" --json >"$TMP/$f.json" 2>/dev/null
		python3 - "$TMP/c.json" "$TMP/$f.json" "$f" <<'PY' || fail contention-reader-$f "python failed"
import json, sys
a, b = (json.load(open(p))["host"]["contention"] for p in sys.argv[1:3])
# text has microseconds: the time share may move in the fifth digit
same = a["halts_contended"] == b["halts_contended"] and a["halts_tracked"] == b["halts_tracked"] \
    and abs(a["time_share"] - b["time_share"]) < 1e-4
print(("ok " if same else "not ok ") + "contention-reader-" + sys.argv[3] +
      ("" if same else ": %s against %s" % (b, a)))
PY
	done
else
	skip contention-reader-v7-text "trace-cmd missing"
fi

# --- the wake-up overhead estimate under contention ---
"$HALTSTAT" report -i "$TMP/overcommit3-hp200000-slice.dat" --json >"$TMP/o.json" 2>/dev/null
"$HALTSTAT" report -i "$TMP/exp120-hp200000-slice.dat" --json >"$TMP/e.json" 2>/dev/null
python3 - "$TMP/o.json" "$TMP/e.json" <<'PY' || fail contention-delta "python failed"
import json, sys
o, e = (json.load(open(p)) for p in sys.argv[1:3])
do, de = o["advice"]["wake_overhead_ns"], e["advice"]["wake_overhead_ns"]
good = de > 10000 and abs(do - de) <= 0.3 * de
print(("ok " if good else "not ok ") + "contention-delta-overcommit-within-30pct" +
      ("" if good else ": %.1f us overcommitted, %.1f us uncontended" % (do / 1e3, de / 1e3)))
PY

# --- record --sched on a KVM host: the scheduler's events of the vCPU's CPU only ---
if ! need_kvm; then skip contention-record-sched "no usable /dev/kvm"; exit 0; fi
if ! need_tracefs; then skip contention-record-sched "needs root and tracefs"; exit 0; fi
[ "$(nproc)" -ge 2 ] || { skip contention-record-sched "one CPU: nothing to filter"; exit 0; }
WL=${HS_BUILD:-$HS_TOP/build/rel}/tests/tools/hs-workload
"$WL" -n 1 -H 100000 -g 40us,150us,800us -c 0 -w 1 --stall 20 -o "$TMP/wl.json" >/dev/null 2>&1 &
wl=$!
for _ in $(seq 50); do	# until its vCPU thread exists
	ls -l "/proc/$wl/fd" 2>/dev/null | grep -q 'anon_inode:kvm-vcpu' && break
	sleep 0.1
done
"$HALTSTAT" record --sched -d 1 -o "$TMP/rs.dat" >"$TMP/rs.out" 2>"$TMP/rs.err"
rc=$?
kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null
check_eq contention-record-sched-exit 0 $rc
"$HALTSTAT" report -i "$TMP/rs.dat" --json >"$TMP/rs.json" 2>/dev/null
if have trace-cmd; then
	trace-cmd report "$TMP/rs.dat" >"$TMP/rs.txt" 2>/dev/null
	python3 - "$TMP/rs.txt" "$TMP/rs.json" <<'PY' || fail contention-record-sched-filtered "python failed"
import json, re, sys
sw = wk = wg = 0
bad = []
for line in open(sys.argv[1]):
    m = re.search(r"\[(\d+)\].*?(sched_switch|sched_wakeup|sched_waking):\s+(.*)", line)
    if not m:
        continue
    cpu, ev, rest = int(m.group(1)), m.group(2), m.group(3)
    if ev == "sched_switch":
        sw += 1
        if cpu != 0:
            bad.append(line.strip())
    else:
        wk += ev == "sched_wakeup"
        wg += ev == "sched_waking"
        t = re.search(r"(?:CPU:|target_cpu=)(\d+)\s*$", rest)
        if not t or int(t.group(1)) != 0:
            bad.append(line.strip())
d = json.load(open(sys.argv[2]))
good = sw > 0 and wk > 0 and wg > 0 and not bad and d["host"]["contention"]["known"]
print(("ok " if good else "not ok ") + "contention-record-sched-filtered" +
      ("" if good else ": %d switches, %d wakeups, %d wakings, outside CPU 0: %s" %
       (sw, wk, wg, bad[:3])))
# the vCPU's waits are timed by its sched_waking, and replayed with their own overheads
v = max(d["vcpus"], key=lambda v: v["halts"]) if d["vcpus"] else None
good = v is not None and v["timed_waits"] > 0.5 * v["waits"] and \
    v["wake_overhead_source"] == "sched_waking"
print(("ok " if good else "not ok ") + "contention-record-sched-timed-waits" +
      ("" if good or v is None else ": %d of %d waits timed, %s" %
       (v["timed_waits"], v["waits"], v["wake_overhead_source"])))
PY
else
	skip contention-record-sched-filtered "trace-cmd missing"
fi

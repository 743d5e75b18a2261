#!/bin/bash
# haltstat report end to end on hand-made ftrace text in the kernel's format:
# the JSON must validate against formats/render/report.schema.json and its per-thread
# counts, poll/wait split and log2 histograms must equal an independent awk
# count of the same text; CSV, filters, the no-KVM case, NO_COLOR, errors.
. "$(dirname "$0")/lib.sh"

SCHEMA=$HS_TOP/formats/render/report.schema.json
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done

if [ ! -x "$HALTSTAT" ]; then
	fail report_binary "no $HALTSTAT"
	exit 0
fi

# gen SEED N: N halts over four vCPU threads of two VMs, window changes, guest
# idle periods. All offsets from the first event are 3 + 10k us, so the
# --start/--end boundaries (whole tenths of a second) never hit an event.
gen() {
	awk -v seed="$1" -v n="$2" '
	function ts(t) { return sprintf("%d.%06d", int(t / 1000000), t % 1000000) }
	function line(comm, tid, cpu, t, what) {
		printf "%16s-%-7d [%03d] ..... %s: %s\n", comm, tid, cpu, ts(t), what
	}
	BEGIN {
		srand(seed)
		tid[0] = 6020; comm[0] = "CPU 0/KVM"
		tid[1] = 6021; comm[1] = "CPU 1/KVM"
		tid[2] = 7030; comm[2] = "CPU 0/KVM"
		tid[3] = 7031; comm[3] = "CPU 1/KVM"
		for (k = 0; k < 4; k++) win[k] = 0
		t = 1000000001
		print "# tracer: nop"
		print "#"
		line(comm[0], tid[0], 0, t, "kvm_vcpu_wakeup: poll time 500 ns, polling valid")
		t += 3
		for (i = 0; i < n; i++) {
			k = int(rand() * 4)
			cpu = k % 2
			poll = rand() < 0.35
			if (poll)
				ns = rand() < 0.05 ? 0 : int(rand() * 60000)
			else
				ns = int(exp(log(1000) + rand() * log(5000)))
			valid = rand() < 0.98 ? "valid" : "invalid"
			if (rand() < 0.2) {
				old = win[k]
				if (rand() < 0.6) {
					new = old * 2; if (new < 10000) new = 10000; g = "grow"
				} else {
					new = int(old / 2); if (new < 10000) new = 0; g = "shrink"
				}
				win[k] = new
				t += 10
				line(comm[k], tid[k], cpu, t, sprintf("kvm_halt_poll_ns: vcpu %d: halt_poll_ns %d (%s %d)", k % 2, new, g, old))
			}
			t += 10 * (int(ns / 10000) + 1 + int(rand() * 50))
			line(comm[k], tid[k], cpu, t, sprintf("kvm_vcpu_wakeup: %s time %d ns, polling %s", poll ? "poll" : "wait", ns, valid))
			if (rand() < 0.2) {
				st = rand() < 0.5 ? 0 : 1
				t += 10
				line("<idle>", 0, cpu, t, sprintf("cpu_idle: state=%d cpu_id=%d", st, cpu))
				t += 10 * (1 + int(rand() * 20))
				line("<idle>", 0, cpu, t, sprintf("cpu_idle: state=4294967295 cpu_id=%d", cpu))
			}
		}
	}'
}

# expect FILE [START_S END_S]: the numbers a report must show, counted here
# from the text alone. Lines: T tid comm halts hits waits invalid misses nopoll unknown
#                             H tid lo hi poll wait    G cpu state entries
expect() {
	awk -v start="${2:-}" -v end="${3:-}" '
	function bucket(ns,   lo) { if (ns == 0) return "0 1"; lo = 1; while (lo * 2 <= ns) lo *= 2; return lo " " lo * 2 }
	/^#/ { next }
	{
		i = index($0, " [")
		task = substr($0, 1, i - 1); sub(/^ +/, "", task); sub(/ +$/, "", task)
		d = match(task, /-[0-9]+$/)
		tid = substr(task, d + 1); comm = substr(task, 1, d - 1)
		rest = substr($0, i)
		match(rest, /[0-9]+\.[0-9]+: /)
		t = substr(rest, RSTART, RLENGTH - 2) + 0
		if (first == "") first = t
		if (start != "" && (t < first + start || t > first + end)) next
		payload = substr(rest, RSTART + RLENGTH)
	}
	payload ~ /^kvm_halt_poll_ns: / {
		split(payload, f, " ")
		pend[tid] = 1; pold[tid] = f[7] + 0; win[tid] = f[5] + 0
		# the waits before a thread first knew its window ran under this old
		if (!known[tid] && useg[tid]) {
			if (pold[tid] > 0) mis[tid] += useg[tid]; else nop[tid] += useg[tid]
			unk[tid] -= useg[tid]
		}
		useg[tid] = 0; known[tid] = 1
		next
	}
	payload ~ /^kvm_vcpu_wakeup: / {
		split(payload, f, " ")
		ns = f[4] + 0
		w = pend[tid] ? pold[tid] : (known[tid] ? win[tid] : -1)
		pend[tid] = 0
		name[tid] = comm; halts[tid]++
		if (f[7] == "invalid") inv[tid]++
		b = bucket(ns)
		if (f[2] == "poll") { hits[tid]++; hp[tid " " b]++ }
		else {
			waits[tid]++; hw[tid " " b]++
			if (w > 0) mis[tid]++; else if (w == 0) nop[tid]++; else { unk[tid]++; useg[tid]++ }
		}
		hb[tid " " b] = 1
		next
	}
	payload ~ /^cpu_idle: state=[0-9]+ / {
		split(payload, f, /[= ]/)
		if (f[3] != "4294967295") ent[f[5] " " f[3]]++
	}
	END {
		for (x in halts)
			printf "T %s %s %d %d %d %d %d %d %d\n", x, name[x], halts[x], hits[x], waits[x], inv[x], mis[x], nop[x], unk[x]
		for (x in hb)
			printf "H %s %d %d\n", x, hp[x], hw[x]
		for (x in ent)
			printf "G %s %d\n", x, ent[x]
	}' "$1"
}

cat >"$TMP/compare.py" <<'EOF'
import json, sys
# compare.py NAME REPORT.json EXPECTED [nowindow]: prints ok/not ok lines
name, rep, exp = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read().split("\n")
nowin = len(sys.argv) > 4
T, H, G = {}, {}, {}
for l in exp:
    f = l.split()
    if not f:
        continue
    if f[0] == "T":
        # comm holds a space: "CPU 0/KVM"
        T[int(f[1])] = (" ".join(f[2:-7]), [int(x) for x in f[-7:]])
    elif f[0] == "H":
        H.setdefault(int(f[1]), {})[(int(f[2]), int(f[3]))] = (int(f[4]), int(f[5]))
    elif f[0] == "G":
        G[(int(f[1]), int(f[2]))] = int(f[3])
keys = ["halts", "poll_hits", "waits", "invalid", "poll_misses", "nopoll_waits", "unknown_waits"]
if nowin:
    keys = keys[:4]
bad = []
got = {v["tid"]: v for v in rep["vcpus"]}
if sorted(got) != sorted(T):
    bad.append("threads %s != %s" % (sorted(got), sorted(T)))
for tid, (comm, nums) in T.items():
    v = got.get(tid)
    if not v:
        continue
    if v["comm"] != comm:
        bad.append("tid %d comm %r != %r" % (tid, v["comm"], comm))
    for k, want in zip(keys, nums):
        if v[k] != want:
            bad.append("tid %d %s %d != %d" % (tid, k, v[k], want))
    hist = {(b["lo_ns"], b["hi_ns"]): (b["poll"], b["wait"]) for b in v["histogram"]}
    if hist != H.get(tid, {}):
        bad.append("tid %d histogram %s != %s" % (tid, sorted(hist.items()), sorted(H.get(tid, {}).items())))
print(("ok %s" % name) if not bad else ("not ok %s: %s" % (name, "; ".join(bad)[:600])))
if G and not nowin:
    gg = {(g["cpu"], s["state"]): s["entries"] for g in rep["guest"] for s in g["idle_states"]}
    gg = {k: v for k, v in gg.items() if v}
    print(("ok %s_guest" % name) if gg == G else ("not ok %s_guest: %s != %s" % (name, sorted(gg.items()), sorted(G.items()))))
EOF

compare() {	# compare NAME REPORT.json EXPECTED [nowindow]
	python3 "$TMP/compare.py" "$@" || fail "$1" "compare.py failed"
}

validate() {	# validate NAME FILE
	if [ -z "$PY" ]; then
		skip "$1" "python3-jsonschema not installed"
		return
	fi
	check "$1" "$PY" -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$SCHEMA" "$2"
}

gen 7 3000 >"$TMP/trace.txt"
expect "$TMP/trace.txt" >"$TMP/expect"
check_eq report_input_has_4_threads 4 "$(grep -c '^T ' "$TMP/expect")"

# --- JSON: schema and exact counts ---
"$HALTSTAT" report -i "$TMP/trace.txt" --json >"$TMP/r.json" 2>"$TMP/err"
check_eq report_json_exit 0 $?
validate report_json_schema "$TMP/r.json"
compare report_json_counts "$TMP/r.json" "$TMP/expect"

# the schema is not a rubber stamp: a renamed required key must fail it
if [ -n "$PY" ]; then
	sed 's/"lost_events"/"lost"/' "$TMP/r.json" >"$TMP/bad.json"
	if "$PY" -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$SCHEMA" "$TMP/bad.json" 2>/dev/null; then
		fail report_schema_rejects "a document without lost_events validated"
	else
		ok report_schema_rejects
	fi
fi
check_eq report_json_schema_name haltstat.report/1 \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schema"])' "$TMP/r.json")"

# stdin gives the same numbers
"$HALTSTAT" report -i - --json <"$TMP/trace.txt" >"$TMP/stdin.json" 2>/dev/null
compare report_stdin_counts "$TMP/stdin.json" "$TMP/expect"

# --- filters ---
"$HALTSTAT" report -i "$TMP/trace.txt" --json --pid 6021 >"$TMP/pid.json" 2>/dev/null
grep -E '^(T|H) 6021 ' "$TMP/expect" >"$TMP/expect.pid"
compare report_filter_pid "$TMP/pid.json" "$TMP/expect.pid"

"$HALTSTAT" report -i "$TMP/trace.txt" --json --pid 6020,7031 >"$TMP/pids.json" 2>/dev/null
grep -E '^(T|H) (6020|7031) ' "$TMP/expect" >"$TMP/expect.pids"
compare report_filter_pid_list "$TMP/pids.json" "$TMP/expect.pids"

"$HALTSTAT" report -i "$TMP/trace.txt" --json --vcpu 1 >"$TMP/vcpu.json" 2>/dev/null
grep -E '^(T|H) (6021|7031) ' "$TMP/expect" >"$TMP/expect.vcpu"
compare report_filter_vcpu "$TMP/vcpu.json" "$TMP/expect.vcpu"

"$HALTSTAT" report -i "$TMP/trace.txt" --json --start 0.2 --end 500ms >"$TMP/win.json" 2>/dev/null
expect "$TMP/trace.txt" 0.2 0.5 >"$TMP/expect.win"
compare report_filter_time "$TMP/win.json" "$TMP/expect.win" nowindow
validate report_filter_time_schema "$TMP/win.json"

# --- CSV ---
"$HALTSTAT" report -i "$TMP/trace.txt" --csv >"$TMP/r.csv" 2>/dev/null
check_eq report_csv_exit 0 $?
check_eq report_csv_rows 5 "$(wc -l <"$TMP/r.csv")"
python3 - "$TMP/r.csv" "$TMP/expect" <<'EOF' || fail report_csv_counts "python failed"
import csv, sys
rows = {int(r["tid"]): r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
for l in open(sys.argv[2]):
    f = l.split()
    if f and f[0] == "T":
        r, n = rows.get(int(f[1])), [int(x) for x in f[-7:]]
        if not r or [int(r[k]) for k in ("halts", "poll_hits", "waits", "invalid")] != n[:4]:
            bad.append(f[1])
print("ok report_csv_counts" if not bad else "not ok report_csv_counts: threads " + " ".join(bad))
EOF

# --- text ---
"$HALTSTAT" report -i "$TMP/trace.txt" >"$TMP/r.txt" 2>/dev/null
check_eq report_text_exit 0 $?
h6020=$(awk '$1 == "T" && $2 == 6020 { print $(NF-6) }' "$TMP/expect")
if grep -E "^[^ ]+ +0 +6020 +CPU 0/KVM +$h6020 " "$TMP/r.txt" >/dev/null; then
	ok report_text_row
else
	fail report_text_row "no row for tid 6020 with $h6020 halts"
fi
check report_text_histogram grep -q 'ns range (log2) :       poll       wait  distribution' "$TMP/r.txt"
check report_text_guest grep -q 'guest idle residency' "$TMP/r.txt"
"$HALTSTAT" report -i "$TMP/trace.txt" --linear --bucket-size 20us --entries 10 >"$TMP/lin.txt" 2>/dev/null
check report_text_linear grep -q 'over: >= 200us' "$TMP/lin.txt"
"$HALTSTAT" report -i "$TMP/trace.txt" --no-histograms --no-advice >"$TMP/nohist.txt" 2>/dev/null
if grep -q 'distribution' "$TMP/nohist.txt"; then fail report_no_histograms; else ok report_no_histograms; fi

# --- colour: only on a TTY, never with NO_COLOR, never into -o ---
if have script; then
	script -qec "'$HALTSTAT' report -i '$TMP/trace.txt' --no-advice" /dev/null >"$TMP/tty.txt" 2>&1
	if grep -q $'\033\\[' "$TMP/tty.txt"; then ok report_color_tty; else fail report_color_tty "no escape on a tty"; fi
	NO_COLOR=1 script -qec "'$HALTSTAT' report -i '$TMP/trace.txt' --no-advice" /dev/null >"$TMP/nocolor.txt" 2>&1
	if grep -q $'\033\\[' "$TMP/nocolor.txt"; then fail report_no_color "escape with NO_COLOR"; else ok report_no_color; fi
	script -qec "'$HALTSTAT' report -i '$TMP/trace.txt' -o '$TMP/o.txt'" /dev/null >/dev/null 2>&1
	if grep -q $'\033\\[' "$TMP/o.txt"; then fail report_no_color_file; else ok report_no_color_file; fi
else
	skip report_color_tty "no script(1)"
fi
if grep -q $'\033' "$TMP/r.txt"; then fail report_no_color_pipe; else ok report_no_color_pipe; fi

# --- no KVM events: says so once, in words that fit the input, still shows the guest ---
grep -v 'kvm_' "$TMP/trace.txt" >"$TMP/guest.txt"
"$HALTSTAT" report -i "$TMP/guest.txt" >"$TMP/guest.out" 2>&1
check_eq report_nokvm_exit 0 $?
# pasted text keeps no event formats: it cannot tell whether kvm was loaded
check_eq report_nokvm_line 1 "$(grep -c 'no kvm_vcpu_wakeup events, and the input does not tell whether kvm was loaded' "$TMP/guest.out")"
check_eq report_nokvm_json_unknown None "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kvm", "missing"))' <("$HALTSTAT" report -i "$TMP/guest.txt" --json))"
# trace.dat files: no kvm formats at all, kvm formats and no halts, halts
MKDAT=$HS_TOP/tests/tools/hs-mkdat.py
kvm_words() {	# kvm_words NAME JSON_KVM TEXT MKDAT_OPTIONS...
	local name=$1 want=$2 words=$3; shift 3
	python3 "$MKDAT" "$TMP/$name.dat" "$@" >/dev/null || { fail "report_kvm_$name" "hs-mkdat.py failed"; return; }
	"$HALTSTAT" report -i "$TMP/$name.dat" >"$TMP/$name.out" 2>&1
	check_eq "report_kvm_${name}_words" 1 "$(grep -c "$words" "$TMP/$name.out")"
	check_eq "report_kvm_${name}_json" "$want" "$("$HALTSTAT" report -i "$TMP/$name.dat" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["kvm"])')"
}
kvm_words absent absent 'no kvm event formats in the input: kvm was not loaded' --systems power
kvm_words loaded idle 'kvm was loaded (the input has its event formats or events) but no vCPU halted' --no-kvm-events
kvm_words polls idle 'kvm was loaded (the input has its event formats or events) but no vCPU halted' --no-wakeups
python3 "$MKDAT" "$TMP/halting.dat" >/dev/null
"$HALTSTAT" report -i "$TMP/halting.dat" >"$TMP/halting.out" 2>&1
check_eq report_kvm_halting_no_words 0 "$(grep -c 'no vCPU halted\|no kvm' "$TMP/halting.out")"
check_eq report_kvm_halting_json halting "$("$HALTSTAT" report -i "$TMP/halting.dat" --json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["kvm"])')"
check report_nokvm_guest grep -q 'state 1' "$TMP/guest.out"
"$HALTSTAT" report -i "$TMP/guest.txt" --json >"$TMP/guest.json" 2>/dev/null
validate report_nokvm_schema "$TMP/guest.json"
compare report_nokvm_json "$TMP/guest.json" <(grep '^G ' "$TMP/expect")

# --- errors: one line, documented status ---
"$HALTSTAT" report -i "$TMP/missing.dat" >/dev/null 2>"$TMP/e1"
rc=$?
check_eq report_missing_input_status 3 $rc
check_eq report_missing_input_one_line 1 "$(wc -l <"$TMP/e1")"
"$HALTSTAT" report --bogus >/dev/null 2>&1
check_eq report_bad_option_status 2 $?
"$HALTSTAT" report --json --csv >/dev/null 2>&1
check_eq report_json_csv_status 2 $?
"$HALTSTAT" report --start 2 --end 1 >/dev/null 2>&1
check_eq report_bad_range_status 2 $?
"$HALTSTAT" report --objective fast >/dev/null 2>&1
check_eq report_bad_objective_status 2 $?
"$HALTSTAT" report -i "$TMP/trace.txt" -o /nonexistent/dir/out.txt >/dev/null 2>&1
check_eq report_bad_output_status 7 $?
"$HALTSTAT" report --help >"$TMP/help" 2>&1
check_eq report_help_status 0 $?
check report_help_text grep -q -- '--bucket-size' "$TMP/help"

# --- the synthetic trace generator (helper tool with its own known answers) ---
SYNTH=$HS_BUILD/tests/tools/hs-synth
cat >"$TMP/synth.py" <<'EOF'
import json, sys
# synth.py NAME REPORT.json EXPECTED.json [dat]: per-thread counts must be equal
name, rep, exp = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
dat = len(sys.argv) > 4
got = {v["tid"]: v for v in rep["vcpus"]}
bad = []
if sorted(got) != sorted(t["tid"] for t in exp["threads"]):
    bad.append("threads %s" % sorted(got))
for t in exp["threads"]:
    v = got.get(t["tid"])
    if not v:
        continue
    pairs = [(k, v[k], t[k]) for k in ("halts", "poll_hits", "waits")]
    # a wait before the thread's first window event is "unknown" to any
    # reader of the trace, while the generator knows it: those must add up
    unk = v["unknown_waits"]
    if v["poll_misses"] > t["poll_misses"] or v["nopoll_waits"] > t["nopoll_waits"] or \
       v["poll_misses"] + v["nopoll_waits"] + unk != t["poll_misses"] + t["nopoll_waits"]:
        bad.append("tid %d misses/nopoll/unknown %d/%d/%d vs true %d/%d" % (t["tid"],
                   v["poll_misses"], v["nopoll_waits"], unk, t["poll_misses"], t["nopoll_waits"]))
    pairs += [(k, v["window"][k], t[k]) for k in ("grows", "shrinks")]
    pairs.append(("comm", v["comm"], t["comm"]))
    pairs.append(("histogram total", sum(b["poll"] + b["wait"] for b in v["histogram"]), t["halts"]))
    pairs.append(("histogram poll", sum(b["poll"] for b in v["histogram"]), t["poll_hits"]))
    if dat:
        pairs += [("tgid", v["tgid"], t["tgid"]), ("vm", v["vm"], t["vm"])]
    bad += ["tid %d %s %r != %r" % (t["tid"], k, a, b) for k, a, b in pairs if a != b]
tot = exp["totals"]
if rep["host"]["halts"] != tot["halts"] or rep["host"]["poll_hits"] != tot["poll_hits"]:
    bad.append("host %d/%d != %d/%d" % (rep["host"]["halts"], rep["host"]["poll_hits"], tot["halts"], tot["poll_hits"]))
print(("ok %s" % name) if not bad else ("not ok %s: %s" % (name, "; ".join(bad)[:600])))
EOF
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
if [ -x "$SYNTH" ]; then
	if "$SYNTH" -v 5 -V 2 -H 2000 -g exp:150us -s 3 -c 6 --guest-idle -o "$TMP/s.dat" \
		-t "$TMP/s.txt" -j "$TMP/s.json" >/dev/null 2>"$TMP/synth.err"; then
		for in in dat txt; do
			"$HALTSTAT" report -i "$TMP/s.$in" --json >"$TMP/s.$in.json" 2>/dev/null
			check_eq report_synth_${in}_exit 0 $?
			validate report_synth_${in}_schema "$TMP/s.$in.json"
			python3 "$TMP/synth.py" report_synth_${in}_counts "$TMP/s.$in.json" "$TMP/s.json" \
				$([ $in = dat ] && echo dat) || fail report_synth_${in}_counts "synth.py failed"
		done
		check_eq report_synth_dat_lost_zero 0 "$(jget "$TMP/s.dat.json" lost_events)"
		# Prometheus' linter on what a recording with every metric gives
		if have promtool; then
			"$HALTSTAT" report -i "$TMP/s.dat" --format prometheus >"$TMP/s.prom"
			grep -q '^haltstat_suggested_halt_poll_seconds ' "$TMP/s.prom" &&
			grep -q '^haltstat_halt_poll_seconds ' "$TMP/s.prom" &&
			grep -q '^haltstat_window_seconds{' "$TMP/s.prom" && ok report_synth_prom_gauges ||
				fail report_synth_prom_gauges "a gauge is missing"
			check_eq report_synth_promtool "" "$(promtool check metrics <"$TMP/s.prom" 2>&1)"
		else
			skip report_synth_promtool "promtool not installed (Debian package prometheus)"
		fi
	else
		fail report_synth_run "$(head -c 200 "$TMP/synth.err")"
	fi
	# losses: counted exactly from the trace.dat, and the report says so
	if "$SYNTH" -v 2 -H 3000 -s 5 --lost 3:40 -o "$TMP/l.dat" -j "$TMP/l.json" >/dev/null 2>&1; then
		"$HALTSTAT" report -i "$TMP/l.dat" --json >"$TMP/l.out.json" 2>/dev/null
		validate report_synth_lost_schema "$TMP/l.out.json"
		check_eq report_synth_lost_count "$(jget "$TMP/l.json" lost)" \
			"$(jget "$TMP/l.out.json" lost_events)"
		"$HALTSTAT" report -i "$TMP/l.dat" >"$TMP/l.txt" 2>/dev/null
		check report_synth_lost_warning grep -q '^warning: lost [0-9]* events (' "$TMP/l.txt"
	else
		fail report_synth_lost_run "hs-synth --lost failed"
	fi
	# a host of many small VMs: the text scales with it (a table, one
	# histogram per VM in one table, per vCPU on request), busiest first
	wins=$(seq 0 10000 230000 | tr '\n' , | sed 's/,$//')
	if "$SYNTH" -v 24 -V 24 -H 300 -g exp:150us -s 4 --vm-halt-poll-ns "$wins" \
		-o "$TMP/v24.dat" -j /dev/null >/dev/null 2>&1; then
		"$HALTSTAT" report -i "$TMP/v24.dat" >"$TMP/v24.txt" 2>/dev/null
		"$HALTSTAT" report -i "$TMP/v24.dat" --json >"$TMP/v24.json" 2>/dev/null
		validate report_many_vms_schema "$TMP/v24.json"
		n=$(wc -l <"$TMP/v24.txt")
		[ "$n" -le 150 ] && ok report_many_vms_short || fail report_many_vms_short "$n lines"
		check_eq report_many_vms_no_vcpu_hists 0 "$(grep -c '^vCPU [0-9]* of ' "$TMP/v24.txt")"
		python3 - "$TMP/v24.txt" "$TMP/v24.json" <<'PYEOF'
import json, sys
text, rep = open(sys.argv[1]).read().split("\n"), json.load(open(sys.argv[2]))
bad = []
# the summary table: one row per vCPU, most polling CPU first
rows = [l.split()[0] for l in text if l.split()[:2] and l.split()[1:3] and l.split()[2].isdigit()
        and l.startswith("vm")]
byvm = {v["vm"]: v for v in rep["vcpus"]}
want = [v["vm"] for v in sorted(rep["vcpus"], key=lambda v: v["rank"])]
if rows != want:
    bad.append("table order %s != ranks %s" % (rows[:5], want[:5]))
cpu = [byvm[n]["poll_ns"] for n in rows]
if cpu != sorted(cpu, reverse=True) or len(set(cpu)) < 10:
    bad.append("table not busiest first: %s" % cpu[:6])
# the per-VM table: a poll row and a wait row per VM, the VM's own buckets
i = next((k for k, l in enumerate(text) if l.startswith("halt duration per VM")), None)
if i is None:
    bad.append("no per-VM table")
else:
    head = text[i + 1].split()
    cols = head[head.index("vCPUs") + 1:-1]
    vms = {v["name"]: v for v in rep["vms"]}
    k, seen = i + 2, 0
    while k + 1 < len(text) and text[k].split()[2:3] == ["poll"]:
        name, p, w = text[k].split()[0], text[k].split()[3:], text[k + 1].split()[1:]
        h = vms[name]["histogram"]
        if int(p[-1]) != vms[name]["poll_hits"] or int(w[-1]) != vms[name]["waits"]:
            bad.append("%s totals" % name)
        if sum(map(int, p[:-1])) != sum(b["poll"] for b in h) or \
           sum(map(int, w[:-1])) != sum(b["wait"] for b in h) or len(p) - 1 != len(cols):
            bad.append("%s buckets" % name)
        seen += 1
        k += 2
    if seen != len(rep["vms"]):
        bad.append("%d VM rows, %d VMs" % (seen, len(rep["vms"])))
print("ok report_many_vms_layout" if not bad else "not ok report_many_vms_layout: " + "; ".join(bad)[:500])
PYEOF
		"$HALTSTAT" report -i "$TMP/v24.dat" --per-vcpu >"$TMP/v24v.txt" 2>/dev/null
		check_eq report_per_vcpu_hists 24 "$(grep -c '^vCPU 0 of vm[0-9]* (tid' "$TMP/v24v.txt")"
		"$HALTSTAT" report -i "$TMP/v24.dat" --vm vm7 >"$TMP/v24f.txt" 2>/dev/null
		check_eq report_filter_shows_vcpu 1 "$(grep -c '^vCPU 0 of vm7 (tid' "$TMP/v24f.txt")"
		"$HALTSTAT" report -i "$TMP/v24.dat" --per-vm --per-vcpu >/dev/null 2>&1
		check_eq report_per_vm_vcpu_exclusive 2 $?
	else
		fail report_many_vms_run "hs-synth failed"
	fi
else
	skip report_synth "tests/tools/hs-synth not built"
fi

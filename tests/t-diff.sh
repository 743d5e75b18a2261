#!/bin/bash
# haltstat diff on two synthetic recordings of the same gap pattern at
# halt_poll_ns 0 and 200000, the second with other thread ids: vCPUs must be
# matched by VM name and vCPU index, every A and B figure must equal the
# generator's own counts (tests/tools/hs-synth -j), the hit rate and polling
# CPU must go up, the JSON must validate against formats/render/diff.schema.json;
# then the tid and order fallbacks, unmatched vCPUs, text output and errors.
. "$HS_TOP/tests/lib.sh"
S=$HS_BUILD/tests/tools/hs-synth
SCHEMA=$HS_TOP/formats/render/diff.schema.json
[ -x "$S" ] || { fail diff-synth "missing $S"; exit 0; }
[ -x "$HALTSTAT" ] || { fail diff-binary "missing $HALTSTAT"; exit 0; }
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done

common=(-v 3 -V 2 --vm-names web,db -H 4000 -g 30us,100us,600us -s 7)
"$S" "${common[@]}" -m 0 --tid-base 5000 -o "$TMP/a.dat" -t "$TMP/a.txt" -j "$TMP/a.json" >/dev/null &&
"$S" "${common[@]}" -m 200000 --tid-base 9000 -o "$TMP/b.dat" -t "$TMP/b.txt" -j "$TMP/b.json" >/dev/null ||
	{ fail diff-synth "hs-synth failed"; exit 0; }

"$HALTSTAT" diff --json "$TMP/a.dat" "$TMP/b.dat" >"$TMP/d.json" 2>"$TMP/err"
check_eq diff-json-exit 0 $?

if [ -n "$PY" ]; then
	check diff-schema "$PY" -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$SCHEMA" "$TMP/d.json"
else
	skip diff-schema "python3-jsonschema not installed"
fi

# Every figure against the generator's counts, and the direction of change.
check diff-numbers python3 - "$TMP/d.json" "$TMP/a.json" "$TMP/b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exp = [{(t["vm"], t["vcpu_id"]): t for t in json.load(open(p))["threads"]} for p in sys.argv[2:4]]
assert d["schema"] == "haltstat.diff/1"
assert d["a"]["halt_poll_ns"] == 0 and d["b"]["halt_poll_ns"] == 200000, (d["a"], d["b"])
assert len(d["vcpus"]) == 3 and d["unmatched"] == [], d["unmatched"]
def close(x, y):
    return abs(x - y) <= 1e-9 * max(1.0, abs(y))
for r in d["vcpus"]:
    key = (r["vm"], r["vcpu"])
    ta, tb = exp[0][key], exp[1][key]
    assert r["match"] == "vm_vcpu", r["match"]
    assert (r["tid_a"], r["tid_b"]) == (ta["tid"], tb["tid"]) and ta["tid"] != tb["tid"], key
    assert (r["halts_a"], r["halts_b"]) == (ta["halts"], tb["halts"]), key
    m = r["metrics"]
    for side, t, dur in (("a", ta, d["a"]["duration_s"]), ("b", tb, d["b"]["duration_s"])):
        assert close(m["hit_rate"][side], t["poll_hits"] / t["halts"]), (key, side)
        assert m["poll_ns"][side] == t["poll_cpu_ns"], (key, side, m["poll_ns"][side])
        assert close(m["poll_cpu_pct"][side], t["poll_cpu_ns"] / (dur * 1e9) * 100), (key, side)
        assert close(m["halts_per_s"][side], t["halts"] / dur), (key, side)
        assert close(m["grows_per_s"][side], t["grows"] / dur), (key, side)
        assert close(m["shrinks_per_s"][side], t["shrinks"] / dur), (key, side)
    assert m["hit_rate"]["a"] == 0 and m["hit_rate"]["delta"] > 0.05, m["hit_rate"]
    assert m["poll_cpu_pct"]["delta"] > 0 and m["poll_ns"]["a"] == 0, m["poll_cpu_pct"]
    assert m["poll_cpu_pct"]["rel"] is None   # from zero: no relative change
    assert close(m["hit_rate"]["delta"], m["hit_rate"]["b"] - m["hit_rate"]["a"])
    assert close(m["halts_per_s"]["rel"], m["halts_per_s"]["delta"] / m["halts_per_s"]["a"])
h = d["host"]
assert h["match"] == "total"
assert h["halts_a"] == sum(t["halts"] for t in exp[0].values())
assert h["metrics"]["poll_ns"]["b"] == sum(t["poll_cpu_ns"] for t in exp[1].values())
hits_b = sum(t["poll_hits"] for t in exp[1].values())
assert close(h["metrics"]["hit_rate"]["b"], hits_b / h["halts_b"])
EOF

# Text: the same direction, shown with signs.
"$HALTSTAT" diff "$TMP/a.dat" "$TMP/b.dat" >"$TMP/d.txt" 2>&1
check_eq diff-text-exit 0 $?
check diff-text-match grep -q 'web vCPU 1  (tid 5002 -> 9002, matched by vm_vcpu)' "$TMP/d.txt"
check diff-text-hit-up grep -Eq '^  poll hit rate +0\.0% +[0-9.]+% +\+[0-9.]+ pt' "$TMP/d.txt"
check diff-text-cpu-up grep -Eq '^  polling CPU \(% of one CPU\) +0\.00 +[0-9.]+ +\+[0-9.]+' "$TMP/d.txt"
[ "$(grep -c 'matched by' "$TMP/d.txt")" = 3 ] && ok diff-text-rows || fail diff-text-rows "want 3 vCPU blocks"

# Fallbacks: threads not named "CPU N/KVM" have no vCPU index.
sed 's|CPU \([0-9]\)/KVM|vcpu-thread|' "$TMP/a.txt" >"$TMP/a-noname.txt"
sed 's|CPU \([0-9]\)/KVM|vcpu-thread|' "$TMP/b.txt" >"$TMP/b-noname.txt"
sed 's/-9\([0-9][0-9][0-9]\) /-5\1 /' "$TMP/b-noname.txt" >"$TMP/b-sametid.txt"
"$HALTSTAT" diff --json "$TMP/a-noname.txt" "$TMP/b-sametid.txt" >"$TMP/tid.json"
check diff-match-tid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["vcpus"]) == 3 and not d["unmatched"], d
assert all(r["match"] == "tid" and r["tid_a"] == r["tid_b"] for r in d["vcpus"]), d["vcpus"]
' "$TMP/tid.json"
"$HALTSTAT" diff --json "$TMP/a-noname.txt" "$TMP/b-noname.txt" >"$TMP/order.json"
check diff-match-order python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["vcpus"]) == 3 and not d["unmatched"], d
assert all(r["match"] == "order" and r["tid_b"] - r["tid_a"] == 4000 for r in d["vcpus"]), d["vcpus"]
' "$TMP/order.json"

# A vCPU more on one side is listed, not matched to a stranger.
"$S" -v 4 -V 2 --vm-names web,db -H 2000 -g 30us,100us,600us -m 200000 --tid-base 9000 \
	-o "$TMP/c.dat" -j "$TMP/c.json" >/dev/null
"$HALTSTAT" diff --json "$TMP/a.dat" "$TMP/c.dat" >"$TMP/un.json"
check diff-unmatched python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["vcpus"]) == 3, d["vcpus"]
assert [(u["side"], u["vm"], u["vcpu"], u["tid"]) for u in d["unmatched"]] == [("b", "db", 1, 9102)], d["unmatched"]
' "$TMP/un.json"
"$HALTSTAT" diff "$TMP/c.dat" "$TMP/a.dat" >"$TMP/un.txt"
check diff-unmatched-text grep -q 'only in A: db vCPU 1 (tid 9102), 2000 halts' "$TMP/un.txt"

# A VMM that sets its own maximum (KVM_CAP_HALT_POLL): the real recordings
# were made at per-VM 0 and 300000 under a module 200000, and each side says
# the maximum its VM had, inferred from the window events
R=$HS_TOP/tests/data/real-kvm
if xz -dc "$R/cyc40-150-800-hp0-r1-slice.dat.xz" >"$TMP/v0.dat" &&
   xz -dc "$R/cyc40-150-800-hp300000-r1-slice.dat.xz" >"$TMP/v3.dat"; then
	"$HALTSTAT" diff "$TMP/v0.dat" "$TMP/v3.dat" >"$TMP/vm.txt" 2>&1
	check diff-vm-own-max grep -q '^B: .*halt_poll_ns 200000 (module; 1 VM sets its own: 300000)' "$TMP/vm.txt"
	"$HALTSTAT" diff --json "$TMP/v0.dat" "$TMP/v3.dat" >"$TMP/vm.json" 2>&1
	check_eq diff-vm-own-max-json "0 300000" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["a"]["vm_max_ns"], d["b"]["vm_max_ns"])' "$TMP/vm.json")"
else
	fail diff-vm-own-max "cannot decompress the real recordings"
fi

# Errors: usage 2, unreadable input 3, help 0.
"$HALTSTAT" diff "$TMP/a.dat" >/dev/null 2>&1
check_eq diff-one-arg 2 $?
"$HALTSTAT" diff --bogus "$TMP/a.dat" "$TMP/b.dat" >/dev/null 2>&1
check_eq diff-bad-option 2 $?
"$HALTSTAT" diff "$TMP/a.dat" "$TMP/missing.dat" >/dev/null 2>"$TMP/err"
check_eq diff-missing-input 3 $?
check_eq diff-error-one-line 1 "$(wc -l <"$TMP/err")"
"$HALTSTAT" diff - - </dev/null >/dev/null 2>&1
check_eq diff-stdin-twice 2 $?
"$HALTSTAT" diff -h | grep -q 'haltstat.diff/1'
check_eq diff-help 0 $?

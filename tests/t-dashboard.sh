#!/bin/bash
# contrib/grafana/haltstat.json against what haltstat exports: a Grafana JSON
# model that imports (schemaVersion, every panel with a datasource and a
# query), PromQL that promtool parses, and every metric name and label it
# queries found in real `report --format prometheus` outputs (the recordings
# in tests/data/real-kvm, and a hand-built report with per-VM suggestions)
# and, with root and tracefs, among the families of the file
# `top --textfile` writes (tests/tools/dash_check.py).
. "$HS_TOP/tests/lib.sh"
DASH=$HS_TOP/contrib/grafana/haltstat.json
CHK=$HS_TOP/tests/tools/dash_check.py
R=$HS_BUILD/tests/tools/hs-render
[ -x "$HALTSTAT" ] || { fail dashboard-binary "missing $HALTSTAT"; exit 0; }
have python3 || { skip dashboard "python3 missing"; exit 0; }
check dashboard-json python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$DASH"

exports=()
for f in "$HS_TOP"/tests/data/real-kvm/*.dat.xz; do
	b=$(basename "$f" .dat.xz)
	xz -dc "$f" >"$TMP/$b.dat" &&
		"$HALTSTAT" report -i "$TMP/$b.dat" --format prometheus -o "$TMP/$b.prom" &&
		exports+=("$TMP/$b.prom")
done
[ ${#exports[@]} -ge 3 ] && ok dashboard-exports || fail dashboard-exports "${#exports[@]} outputs"
# per-VM suggestions carry the labels vm and tgid; a hand-built report has one
"$R" prometheus basic >"$TMP/render.prom" && exports+=("$TMP/render.prom")

families=()
if need_tracefs; then
	if "$HALTSTAT" top -s 0.2 -n 1 --textfile "$TMP/top.prom" </dev/null >/dev/null 2>&1; then
		families=(--families "$TMP/top.prom")
	else
		fail dashboard-top "top --textfile failed"
	fi
else
	skip dashboard-top "root and tracefs needed for the textfile of top"
fi

# dash_ok NAME DASHBOARD: the checker and promtool find nothing
dash_ok() {
	local out
	if out=$(python3 "$CHK" "$2" "$TMP/rules.yml" "${exports[@]}" "${families[@]}" 2>&1); then
		ok "$1"
	else
		fail "$1" "$(grep '^not ok' <<<"$out" | head -3 | sed 's/^not ok //' | tr '\n' ';')"
	fi
	grep '^#' <<<"$out"
}
dash_ok dashboard-names "$DASH"
if have promtool; then
	check_eq dashboard-promql "" "$(promtool check rules "$TMP/rules.yml" 2>&1 | grep -v 'SUCCESS\|^Checking')"
else
	skip dashboard-promql "promtool not installed (Debian package prometheus)"
fi

# The checks must catch what they are there for.
bad() {	# bad N PYTHON-EDIT: the edited dashboard must fail
	python3 - "$DASH" "$TMP/bad$1.json" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
	if python3 "$CHK" "$TMP/bad$1.json" "$TMP/badrules.yml" "${exports[@]}" "${families[@]}" \
		>/dev/null 2>&1; then fail "dashboard-catches-$1"; else ok "dashboard-catches-$1"; fi
}
p='[p for p in d["panels"] if p.get("targets")]'
bad old-metric-name "t = $p[0][\"targets\"][0]; t[\"expr\"] = t[\"expr\"].replace(\"haltstat_poll_hits_total\", \"haltstat_window_ns\")"
bad unknown-label "t = $p[0][\"targets\"][0]; t[\"expr\"] = t[\"expr\"].replace(\"by (instance)\", \"by (instance, cpu)\")"
bad legend-label "$p[1][\"targets\"][0][\"legendFormat\"] = \"{{pid}}\""
bad no-datasource "del $p[2][\"datasource\"]"
bad no-query "$p[3][\"targets\"] = []"
bad no-schema "del d[\"schemaVersion\"]"
bad undefined-variable "t = $p[0][\"targets\"][0]; t[\"expr\"] = t[\"expr\"].replace(\"\$instance\", \"\$host\")"
if have promtool; then
	python3 - "$DASH" "$TMP/bad-syntax.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = [p for p in d["panels"] if p.get("targets")][0]["targets"][0]
t["expr"] = t["expr"].replace("rate(", "rate((", 1)
json.dump(d, open(sys.argv[2], "w"))
PYEOF
	python3 "$CHK" "$TMP/bad-syntax.json" "$TMP/badrules.yml" "${exports[@]}" >/dev/null 2>&1
	if promtool check rules "$TMP/badrules.yml" >/dev/null 2>&1; then
		fail dashboard-catches-syntax; else ok dashboard-catches-syntax; fi
fi

#!/bin/bash
# SVG and OpenMetrics writers on hand-built reports (tests/tools/hs-render.c):
# well-formed output, escaping of hostile names, no NaN, and the numbers the
# writers were given, checked by an independent parser (tests/tools/om_check.py).
. "$HS_TOP/tests/lib.sh"
R=$HS_BUILD/tests/tools/hs-render
OMC=$HS_TOP/tests/tools/om_check.py
[ -x "$R" ] || { fail render-tool "missing $R"; exit 0; }
have python3 || { skip render "python3 missing"; exit 0; }
PY=python3
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null && PY=/usr/bin/python3

for s in basic nasty empty many; do
	"$R" svg $s >"$TMP/$s.svg" || fail "svg-$s" "exit $?"
	"$R" openmetrics $s >"$TMP/$s.om" || fail "om-$s" "exit $?"
	"$R" prometheus $s >"$TMP/$s.prom" || fail "prom-$s" "exit $?"
	"$R" expect $s >"$TMP/$s.exp" || fail "expect-$s" "exit $?"
done
"$R" svg basic --per-vm >"$TMP/pervm.svg"
"$R" svg basic --no-advice >"$TMP/noadv.svg"

# --- SVG ---
for s in basic nasty empty many; do
	check "svg-$s-wellformed" $PY -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/$s.svg"
	if grep -qiE '="[^"]*(nan|inf)' "$TMP/$s.svg"; then fail "svg-$s-finite" "NaN/inf attribute"; else ok "svg-$s-finite"; fi
	if grep -qiE '<script|href|url\(|@import|<image|<foreignObject' "$TMP/$s.svg"; then
		fail "svg-$s-selfcontained"; else ok "svg-$s-selfcontained"; fi
	if have rsvg-convert; then
		check "svg-$s-renders" rsvg-convert -o "$TMP/$s.png" "$TMP/$s.svg"
	fi
done
if have xmllint; then check svg-xmllint xmllint --noout "$TMP/nasty.svg"; fi
grep -q '<script>' "$TMP/nasty.svg" && fail svg-escape "raw <script> in output" || ok svg-escape
check svg-escaped-name grep -q '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;q&apos;' "$TMP/nasty.svg"

bars() { grep -cE '<rect class="(poll|wait)"' "$1"; }
exp_bars() { awk -v k="$2" '$1 == k { for (i = 1; i < NF; i++) if ($i == "bars") n += $(i + 1) } END { print n + 0 }' "$1"; }
check_eq svg-bars-per-vcpu "$(exp_bars "$TMP/basic.exp" vcpu)" "$(bars "$TMP/basic.svg")"
check_eq svg-bars-extreme-buckets "$(exp_bars "$TMP/nasty.exp" vcpu)" "$(bars "$TMP/nasty.svg")"
check_eq svg-bars-per-vm-auto "$(exp_bars "$TMP/many.exp" vm)" "$(bars "$TMP/many.svg")"
check_eq svg-bars-per-vm-flag "$(exp_bars "$TMP/basic.exp" vm)" "$(bars "$TMP/pervm.svg")"
check_eq svg-candidates "$(awk '$1 == "candidates" { print $2 }' "$TMP/basic.exp")" \
	"$(grep -c 'class="candidate"' "$TMP/basic.svg")"
check_eq svg-suggested-marked 1 "$(grep -c 'class="suggested"' "$TMP/basic.svg")"
check_eq svg-no-advice-unmarked 0 "$(grep -c 'class="suggested"' "$TMP/noadv.svg")"
check svg-suggested-label grep -q '200us suggested' "$TMP/basic.svg"
check svg-window-label grep -q '>window 200us<' "$TMP/basic.svg"
check svg-window-off grep -q '>window 0ns (off)<' "$TMP/nasty.svg"
check svg-empty-whatif grep -q 'no what-if data' "$TMP/empty.svg"

# --- OpenMetrics / Prometheus text ---
for s in basic nasty empty many; do
	check "om-$s-strict" $PY "$OMC" openmetrics "$TMP/$s.om"
	check "prom-$s-strict" $PY "$OMC" prometheus "$TMP/$s.prom"
done
# The checker must catch real faults, or the checks above mean nothing.
grep -v 'le="+Inf"' "$TMP/basic.om" >"$TMP/bad1.om"
sed 's/le="0.000004096"/le="0.000000001"/' "$TMP/basic.om" >"$TMP/bad2.om"
sed '$d' "$TMP/basic.om" >"$TMP/bad3.om"
sed 's/vm="web-01"/vm="we\\b"/' "$TMP/basic.om" >"$TMP/bad4.om"
for b in 1 2 3 4; do
	if $PY "$OMC" openmetrics "$TMP/bad$b.om" >/dev/null 2>&1; then
		fail "om-checker-catches-$b"; else ok "om-checker-catches-$b"; fi
done
# promtool (Debian's prometheus package) lints what Prometheus will scrape:
# base units, _total on counters, HELP on every family. It prints nothing
# when all is well.
if have promtool; then
	for s in basic nasty empty many; do
		out=$(promtool check metrics <"$TMP/$s.prom" 2>&1)
		check_eq "prom-$s-promtool" "" "$out"
	done
	# and it is not silent on everything: an abbreviated unit is a finding
	sed 's/haltstat_window_seconds/haltstat_window_ns/' "$TMP/basic.prom" >"$TMP/bad.prom"
	if [ -n "$(promtool check metrics <"$TMP/bad.prom" 2>&1)" ]; then
		ok prom-promtool-catches; else fail prom-promtool-catches "no finding on _ns"; fi
else
	skip prom-promtool "promtool not installed (Debian package prometheus)"
fi
if [ "$PY" = /usr/bin/python3 ]; then
	for s in basic nasty empty many; do
		check "om-$s-prometheus_client" $PY -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
n = len(list(p(open(sys.argv[1]).read())))
sys.exit(0 if n == 16 else "%d families" % n)' "$TMP/$s.om"
	done
	if $PY -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
list(p(open(sys.argv[1]).read()))' "$TMP/bad1.om" >/dev/null 2>&1; then
		fail om-prometheus_client-catches; else ok om-prometheus_client-catches; fi
else
	skip om-prometheus_client "python3-prometheus-client not installed"
fi

# Values: the samples against what hs-render put into the report.
for s in basic nasty many; do
	$PY "$OMC" openmetrics "$TMP/$s.om" >"$TMP/$s.samples" || continue
	check "om-$s-values" $PY - "$TMP/$s.samples" "$TMP/$s.exp" <<'PYEOF'
import sys
samples = {}
for line in open(sys.argv[1]):
    name, labels, value = line.rstrip('\n').split('\t')
    lab = dict(kv.split('=', 1) for kv in labels.split(',') if kv) if labels else {}
    samples.setdefault(name, []).append((lab, float(value)))

def one(name, tid=None):
    got = [v for lab, v in samples.get(name, []) if tid is None or lab.get('tid') == tid]
    if len(got) != 1:
        sys.exit('%s tid=%s: %d samples' % (name, tid, len(got)))
    return got[0]

exp = [l.split() for l in open(sys.argv[2])]
for e in exp:
    if e[0] == 'vcpu':
        d = dict(zip(e[2::2], e[3::2]))
        tid = d['tid']
        for metric, key in (('haltstat_halts_total', 'halts'), ('haltstat_poll_hits_total', 'hits'),
                            ('haltstat_waits_total', 'waits'), ('haltstat_poll_misses_total', 'misses'),
                            ('haltstat_invalid_halts_total', 'invalid')):
            if one(metric, tid) != int(d[key]):
                sys.exit('%s tid %s: %s != %s' % (metric, tid, one(metric, tid), d[key]))
        if abs(one('haltstat_halt_duration_seconds_sum', tid) - int(d['sum_ns']) / 1e9) > 1e-6 * int(d['sum_ns']) / 1e9:
            sys.exit('sum mismatch for tid %s' % tid)
        if abs(one('haltstat_poll_cpu_seconds_total', tid) - int(d['poll_ns']) / 1e9) > 1e-9:
            sys.exit('poll cpu mismatch for tid %s' % tid)
        if one('haltstat_halt_duration_seconds_count', tid) != int(d['halts']):
            sys.exit('count != halts for tid %s' % tid)
        if int(d['window']) >= 0 and abs(one('haltstat_window_seconds', tid) - int(d['window']) / 1e9) > 1e-12:
            sys.exit('window mismatch for tid %s' % tid)
    elif e[0] == 'suggested':
        if not any(lab == {} and abs(v - int(e[1]) / 1e9) < 1e-12
                   for lab, v in samples.get('haltstat_suggested_halt_poll_seconds', [])):
            sys.exit('host-wide suggestion missing')
    elif e[0] == 'lost':
        if one('haltstat_lost_events_total') != int(e[1]):
            sys.exit('lost mismatch')
PYEOF
done
check om-label-roundtrip grep -qF "vm=<script>alert(\"x\")</script> & 'q' \\ \\n" "$TMP/nasty.samples"
check_eq om-eof-once 1 "$(grep -c '^# EOF$' "$TMP/basic.om")"
check_eq prom-no-eof 0 "$(grep -c '^# EOF$' "$TMP/basic.prom")"

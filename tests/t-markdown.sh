#!/bin/bash
# report --format markdown through cmark-gfm (GitHub's CommonMark parser,
# Debian package cmark-gfm): the facts and vCPU tables come out as tables
# with the report's numbers, the histograms and the command line as code
# blocks, hostile names as text (no HTML, no table cell split), and a
# 24-VM host stays short enough for a comment.
. "$HS_TOP/tests/lib.sh"
DATA=$HS_TOP/tests/data/real-kvm
SYNTH=$HS_BUILD/tests/tools/hs-synth
[ -x "$HALTSTAT" ] || { fail markdown-binary "missing $HALTSTAT"; exit 0; }
if ! have cmark-gfm; then
	skip markdown "cmark-gfm not installed (Debian package cmark-gfm)"
	exit 0
fi

cat >"$TMP/md.py" <<'EOF'
import html.parser, json, sys
# md.py NAME REPORT.md REPORT.html REPORT.json COMMAND: prints ok / not ok lines
name, md, page, rep, command = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read(), \
    json.load(open(sys.argv[4])), sys.argv[5]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.code, self.tags, self.cell, self.headings = [], [], [], None, []
        self.in_code = self.in_h = None
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""
        elif tag == "code" and self.tags[-2:-1] == ["pre"]:
            self.in_code = [dict(attrs).get("class", ""), ""]
        elif tag in ("h3", "h4"):
            self.in_h = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell.strip())
            self.cell = None
        elif tag == "code" and self.in_code is not None:
            self.code.append(tuple(self.in_code))
            self.in_code = None
        elif tag in ("h3", "h4"):
            self.headings.append(self.in_h)
            self.in_h = None
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.in_code is not None:
            self.in_code[1] += d
        if self.in_h is not None:
            self.in_h += d

p = Page()
p.feed(page)
bad = []
def check(what, cond):
    print(("ok %s-%s" % (name, what)) if cond else ("not ok %s-%s" % (name, what)))

facts = {r[0]: r[1] for r in p.tables[0] if len(r) == 2} if p.tables else {}
check("facts-table", facts.get("input", "").startswith(rep["source"]) and
      facts.get("lost events") == str(rep["lost_events"]) and
      facts.get("vCPU threads", "").startswith("%d in %d VM" % (len(rep["vcpus"]), len(rep["vms"]))))
table = p.tables[1] if len(p.tables) > 1 else [[]]
head = table[0]
check("vcpu-table-head", head[:6] == ["VM", "vCPU", "tid", "halts", "halts/s", "hit %"])
rows = [r for r in table[1:] if len(r) == len(head) and r[2] != "-"]
by_tid = {v["tid"]: v for v in rep["vcpus"]}
want = [v["tid"] for v in sorted(rep["vcpus"], key=lambda v: v["rank"])][:16]
check("vcpu-rows-busiest-first", [int(r[2]) for r in rows] == want)
check("vcpu-rows-numbers", all(int(r[3]) == by_tid[int(r[2])]["halts"] and
      r[0] == (by_tid[int(r[2])]["vm"] or "?") for r in rows))
check("cells-not-split", all(len(r) == len(head) for r in table))
host = [r for r in table[1:] if r[0] == "ALL (host)"]
check("host-row", len(host) == 1 and int(host[0][3]) == rep["host"]["halts"])
hist = [c for cls, c in p.code if "ns range (log2)" in c]
hsum = sum(b["poll"] + b["wait"] for b in rep["host"]["histogram"])
counts = []
if hist:
    for line in hist[0].split("\n"):
        f = line.split(":")
        if len(f) == 2 and "->" in f[0]:
            counts.append(sum(int(x) for x in f[1].split("|")[0].split()))
check("histogram-code-block", bool(hist) and sum(counts) == hsum and hsum > 0)
adv = rep["advice"]
check("suggestion", adv is None or any(h.startswith("Suggestion: halt_poll_ns=%d" % adv["halt_poll_ns"])
                                      for h in p.headings))
check("command-code-block", any(cls == "language-sh" and c.strip() == command for cls, c in p.code))
# raw HTML: only the <details> folds haltstat writes itself
check("no-raw-html", set(t for t in p.tags) <= {"h3", "h4", "table", "thead", "tbody", "tr", "th",
      "td", "p", "ul", "li", "strong", "code", "pre", "hr", "details", "summary", "a"})
EOF

# md_check NAME INPUT [OPTIONS...]: render, parse, compare with the JSON
md_check() {
	local name=$1 in=$2; shift 2
	"$HALTSTAT" report -i "$in" --format markdown "$@" >"$TMP/$name.md" 2>"$TMP/$name.err" ||
		{ fail "$name-runs" "$(head -c 200 "$TMP/$name.err")"; return 1; }
	"$HALTSTAT" report -i "$in" --json "$@" >"$TMP/$name.json" 2>/dev/null
	cmark-gfm -e table -e strikethrough -e autolink --unsafe "$TMP/$name.md" >"$TMP/$name.html" ||
		{ fail "$name-cmark" "cmark-gfm failed"; return 1; }
	python3 "$TMP/md.py" "$name" "$TMP/$name.md" "$TMP/$name.html" "$TMP/$name.json" \
		"haltstat report -i $in --format markdown${*:+ $*}" || fail "$name-parse" "md.py failed"
}

n=0
for f in "$DATA"/*.dat.xz; do
	b=$(basename "$f" .dat.xz)
	xz -dc "$f" >"$TMP/$b.dat" || continue
	md_check "md-${b%-slice}" "$TMP/$b.dat" && n=$((n + 1))
done
[ "$n" -ge 3 ] && ok md-real-recordings || fail md-real-recordings "$n recordings"
b=overcommit3-hp200000-slice
if [ -e "$TMP/$b.dat" ]; then
	lines=$(wc -l <"$TMP/md-overcommit3-hp200000.md")
	[ "$lines" -le 120 ] && ok md-short || fail md-short "$lines lines for 3 vCPUs"
	md_check md-per-vcpu "$TMP/$b.dat" --per-vcpu
	check_eq md-per-vcpu-folded 3 "$(grep -c '^vCPU [0-9] of ' "$TMP/md-per-vcpu.md")"
fi

if [ -x "$SYNTH" ]; then
	# a host of 24 VMs: 16 rows, the rest counted; the per-VM table folded away; what
	# stays outside the folds (facts, table, host histogram, advice) fits a screen or two
	wins=$(seq 0 10000 230000 | tr '\n' , | sed 's/,$//')
	"$SYNTH" -v 24 -V 24 -H 300 -g exp:150us -s 4 --vm-halt-poll-ns "$wins" -o "$TMP/v24.dat" \
		-j /dev/null >/dev/null 2>&1
	md_check md-many "$TMP/v24.dat"
	check md-many-rest-counted grep -q '^8 more vCPU threads are in the totals' "$TMP/md-many.md"
	shown=$(sed '/^<details>/,/^<\/details>/d' "$TMP/md-many.md" | wc -l)
	[ "$shown" -le 95 ] && ok md-many-short || fail md-many-short "$shown lines outside the folds"
	# hostile VM names: text, not markup, and the table keeps its columns
	"$SYNTH" -v 2 -V 2 -H 300 -s 3 \
		--vm-names 'we|b*<script>_x_,[l](http://e) `c` ~~s~~ $m$ &amp;' \
		-o "$TMP/evil.dat" -j /dev/null >/dev/null 2>&1
	md_check md-hostile "$TMP/evil.dat"
	check md-hostile-name-kept grep -qF '<td>we|b*&lt;script&gt;_x_</td>' "$TMP/md-hostile.html"
else
	skip md-synth "hs-synth not built"
fi

# no halts: the words that fit, and no table
python3 "$HS_TOP/tests/tools/hs-mkdat.py" "$TMP/idle.dat" --no-kvm-events >/dev/null
"$HALTSTAT" report -i "$TMP/idle.dat" --format markdown >"$TMP/idle.md" 2>/dev/null
check md-idle-words grep -q '^- kvm was loaded (the input has its event formats or events) but no vCPU halted' "$TMP/idle.md"
check_eq md-idle-no-table 0 "$(grep -c '^| VM |' "$TMP/idle.md")"

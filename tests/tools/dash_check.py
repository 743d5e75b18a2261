#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks a Grafana dashboard against what haltstat exports.

dash_check.py DASHBOARD.json RULES.yml EXPORT.prom... [--families TEXTFILE.prom]

- The JSON model: schemaVersion, a uid and title, every panel (rows aside)
  with a Prometheus datasource, a gridPos inside the 24 columns and at least
  one query with an expression; unique ids; every $variable defined.
- Every PromQL expression (queries, and the selectors of label_values()
  variables), with the variables put in, is written to RULES.yml as a
  recording rule, for `promtool check rules` to parse.
- Every metric name it queries is a sample name in the EXPORT files (outputs
  of haltstat report --format prometheus) and, with --families, a family
  (# TYPE line) of the file top --textfile writes; every label it matches,
  groups by or shows in a legend is a label of a metric of that same
  expression in the EXPORT files, or one Prometheus adds when it scrapes
  (instance, job).

Prints "not ok WHAT" for each fault, "# N expressions, N metrics, N labels"
at the end; exits 1 on a fault.
"""
import json
import re
import sys

SCRAPE_LABELS = {"instance", "job"}
BUILTINS = {"__rate_interval", "__interval", "__range", "__range_s", "__interval_ms"}
# PromQL words that are not metric names
WORDS = {"sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk",
         "quantile", "count_values", "group", "rate", "irate", "increase", "delta", "idelta",
         "histogram_quantile", "clamp_min", "clamp_max", "abs", "absent", "label_replace",
         "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
         "unless", "offset", "bool", "time", "vector", "scalar", "sort", "sort_desc",
         "changes", "resets", "deriv", "avg_over_time", "max_over_time", "min_over_time",
         "last_over_time", "inf", "nan"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}


def exported(paths):
    """{metric: set(labels)} of the samples, and the family names of # TYPE lines."""
    samples, families = {}, set()
    for p in paths:
        for line in open(p):
            if line.startswith("# TYPE "):
                name, typ = line.split()[2:4]
                families.add(name)
                if typ == "histogram":
                    families |= {name + "_bucket", name + "_sum", name + "_count"}
                continue
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s", line)
            if not m:
                continue
            labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or ""))
            samples.setdefault(m.group(1), set()).update(labels)
    return samples, families


def tokens(expr):
    """PromQL tokens with string literals dropped: (kind, text)."""
    out = []
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`'
                         r'|[a-zA-Z_:][a-zA-Z0-9_:]*|=~|!~|!=|==|[<>]=?|[0-9.]+[a-z]*'
                         r'|\S', expr):
        t = m.group(0)
        kind = "str" if t[0] in "\"'`" else "id" if re.match(r"[a-zA-Z_:]", t) else "op"
        out.append((kind, t))
    return out


def names(expr):
    """(metric names, label names) an expression uses."""
    metrics, labels = set(), set()
    toks = tokens(expr)
    depth_brace = 0
    i = 0
    while i < len(toks):
        kind, t = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else ""
        if t == "{":
            depth_brace += 1
        elif t == "}":
            depth_brace -= 1
        elif kind == "id" and depth_brace and nxt in ("=", "!=", "=~", "!~"):
            labels.add(t)
        elif kind == "id" and t in GROUPING and nxt == "(":
            j = i + 2
            while j < len(toks) and toks[j][1] != ")":
                if toks[j][0] == "id":
                    labels.add(toks[j][1])
                j += 1
            i = j
        elif kind == "id" and not depth_brace and t not in WORDS:
            metrics.add(t)
        i += 1
    return metrics, labels


def fill(expr):
    """Grafana variables in, so that the expression is plain PromQL."""
    expr = re.sub(r"\$\{?__rate_interval\}?|\$\{?__interval\}?|\$\{?__range\}?", "5m", expr)
    return re.sub(r"\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?", ".*", expr)


def main():
    args = sys.argv[1:]
    fam_paths = []
    if "--families" in args:
        k = args.index("--families")
        fam_paths = args[k + 1:]
        args = args[:k]
    dash, rules_path, export_paths = json.load(open(args[0])), args[1], args[2:]
    samples, _ = exported(export_paths)
    top_samples, top_families = exported(fam_paths) if fam_paths else ({}, set())
    faults = []

    # the JSON model
    if not isinstance(dash.get("schemaVersion"), int):
        faults.append("model: no schemaVersion")
    for k in ("uid", "title", "panels", "templating"):
        if not dash.get(k):
            faults.append("model: no %s" % k)
    variables = {v["name"] for v in dash.get("templating", {}).get("list", [])}
    ids = [p.get("id") for p in dash.get("panels", [])]
    if len(ids) != len(set(ids)):
        faults.append("model: panel ids not unique")
    exprs = []          # (where, expression, legend)
    for p in dash.get("panels", []):
        if p.get("type") == "row":
            continue
        where = "panel %r" % p.get("title")
        ds = p.get("datasource") or {}
        if ds.get("type") != "prometheus" or not ds.get("uid"):
            faults.append("%s: no Prometheus datasource" % where)
        g = p.get("gridPos") or {}
        if not all(isinstance(g.get(k), int) for k in "hwxy") or g.get("x", 0) + g.get("w", 0) > 24:
            faults.append("%s: bad gridPos %s" % (where, g))
        targets = p.get("targets") or []
        if not targets or not all(t.get("expr") and t.get("refId") for t in targets):
            faults.append("%s: a panel without a query" % where)
        if p.get("type") == "heatmap" and not all(t.get("format") == "heatmap" for t in targets):
            faults.append("%s: heatmap queries must have format heatmap" % where)
        for t in targets:
            exprs.append((where, t.get("expr", ""), t.get("legendFormat", "")))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        if v.get("type") == "query":
            m = re.fullmatch(r"\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*", q or "")
            if not m:
                faults.append("variable %s: not a label_values() query" % v["name"])
                continue
            exprs.append(("variable %s" % v["name"], m.group(1), "{{%s}}" % m.group(2)))
    text = json.dumps(dash)
    for ref in set(re.findall(r"\$\{?([a-zA-Z_][a-zA-Z0-9_]*)", text)):
        if ref not in variables and ref not in BUILTINS:
            faults.append("model: $%s is not a variable" % ref)

    # PromQL syntax is promtool's to judge: the rules file
    with open(rules_path, "w") as f:
        f.write("groups:\n- name: dashboard\n  rules:\n")
        for i, (_, e, _) in enumerate(exprs):
            f.write("  - record: dashboard:expr%d\n    expr: %s\n" % (i, json.dumps(fill(e))))

    used_metrics, used_labels = set(), set()
    for where, e, legend in exprs:
        metrics, labels = names(fill(e))
        labels |= set(re.findall(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}", legend))
        if not metrics:
            faults.append("%s: no metric in %r" % (where, e))
        have = set()
        for m in metrics:
            if m not in samples:
                faults.append("%s: metric %s is not exported by haltstat report" % (where, m))
            elif fam_paths and m not in top_families:
                faults.append("%s: metric %s is not in top's textfile" % (where, m))
            have |= samples.get(m, set()) | top_samples.get(m, set())
        for lab in labels - SCRAPE_LABELS:
            if lab not in have:
                faults.append("%s: label %s is not a label of %s" % (where, lab,
                                                                   ", ".join(sorted(metrics))))
        used_metrics |= metrics
        used_labels |= labels
    for f in faults:
        print("not ok %s" % f)
    print("# %d expressions, %d metrics (%s), %d labels (%s)" % (
        len(exprs), len(used_metrics), " ".join(sorted(used_metrics)), len(used_labels),
        " ".join(sorted(used_labels))))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()

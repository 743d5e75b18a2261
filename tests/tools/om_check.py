#!/usr/bin/env python3
"""Strict checker of the OpenMetrics 1.0 / Prometheus 0.0.4 text formats.

usage: om_check.py openmetrics|prometheus FILE
Exits 1 with one line on the first violation; otherwise prints every sample
as 'name<TAB>label=value,...<TAB>value' (labels sorted, values unescaped) so
tests can compare numbers with what the writer was given.
"""
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
NUMBER = re.compile(r'[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped', 'unknown',
         'info', 'stateset', 'gaugehistogram'}


class Bad(Exception):
    pass


def parse_value(s):
    if s in ('+Inf', '-Inf', 'NaN'):
        return float(s)
    if not NUMBER.match(s):
        raise Bad('bad value %r' % s)
    return float(s)


def parse_labels(s, i):
    """s[i] == '{'; returns (dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        if s[i] == '}':
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            raise Bad('bad label name at %d' % i)
        name = m.group(0)
        i = m.end()
        if s[i:i + 2] != '="':
            raise Bad('expected =" after label %s' % name)
        i += 2
        val = []
        while s[i] != '"':
            if s[i] == '\\':
                esc = s[i + 1]
                if esc not in '\\"n':
                    raise Bad('bad escape \\%s' % esc)
                val.append('\n' if esc == 'n' else esc)
                i += 2
            elif s[i] == '\n':
                raise Bad('raw newline in label value')
            else:
                val.append(s[i])
                i += 1
        i += 1
        if name in labels:
            raise Bad('duplicate label %s' % name)
        labels[name] = ''.join(val)
        if s[i] == ',':
            i += 1
        elif s[i] != '}':
            raise Bad('expected , or } after label %s' % name)


def family_of(sample, types, om):
    for fam, typ in types.items():
        if typ == 'counter':
            names = [fam + '_total', fam + '_created'] if om else [fam]
        elif typ == 'histogram':
            names = [fam + '_bucket', fam + '_sum', fam + '_count']
        else:
            names = [fam]
        if sample in names:
            return fam
    raise Bad('sample %s belongs to no declared family' % sample)


def check_meta(line, om, meta, done):
    parts = line.split(' ', 3)
    if len(parts) < 4 or parts[1] not in ('HELP', 'TYPE', 'UNIT'):
        raise Bad('bad comment line: %s' % line)
    kind, fam, arg = parts[1], parts[2], parts[3]
    if not NAME.fullmatch(fam):
        raise Bad('bad family name %s' % fam)
    if kind == 'UNIT' and not om:
        raise Bad('UNIT in the Prometheus format')
    if fam in done:
        raise Bad('metadata for %s after its samples' % fam)
    entry = meta.setdefault(fam, {})
    if kind in entry:
        raise Bad('second %s for %s' % (kind, fam))
    entry[kind] = arg
    if kind == 'TYPE':
        if arg not in TYPES:
            raise Bad('bad type %s' % arg)
        if arg == 'counter' and om == fam.endswith('_total'):
            raise Bad('counter family %s: _total is %s in this format'
                      % (fam, 'the sample suffix' if om else 'required'))
    if kind == 'UNIT' and not fam.endswith('_' + arg):
        raise Bad('unit %s does not end family %s' % (arg, fam))


def check_histograms(samples, types):
    groups = {}
    for fam, typ in types.items():
        if typ != 'histogram':
            continue
        for name, labels, value in samples:
            if not name.startswith(fam + '_'):
                continue
            key = tuple(sorted((k, v) for k, v in labels.items() if k != 'le'))
            g = groups.setdefault((fam, key), {'le': [], 'sum': None, 'count': None})
            if name == fam + '_bucket':
                if 'le' not in labels:
                    raise Bad('bucket without le')
                g['le'].append((parse_value(labels['le']), value))
            elif name == fam + '_sum':
                g['sum'] = value
            elif name == fam + '_count':
                g['count'] = value
    for (fam, key), g in groups.items():
        les = g['le']
        if not les or les[-1][0] != math.inf:
            raise Bad('%s %s: no +Inf bucket last' % (fam, key))
        for (a, ca), (b, cb) in zip(les, les[1:]):
            if not b > a:
                raise Bad('%s %s: le not increasing' % (fam, key))
            if cb < ca:
                raise Bad('%s %s: buckets not cumulative' % (fam, key))
        if any(c != int(c) or c < 0 for _, c in les):
            raise Bad('%s: bucket count not a non-negative integer' % fam)
        if g['count'] is None or g['sum'] is None:
            raise Bad('%s %s: _count or _sum missing' % (fam, key))
        if g['count'] != les[-1][1]:
            raise Bad('%s %s: _count != +Inf bucket' % (fam, key))


def check(text, om):
    if not text.endswith('\n'):
        raise Bad('no final newline')
    lines = text[:-1].split('\n')
    if om:
        if lines[-1] != '# EOF':
            raise Bad('last line is not # EOF')
        lines = lines[:-1]
    meta, types, samples, seen, done = {}, {}, [], set(), set()
    current = None
    for line in lines:
        if line == '':
            raise Bad('blank line')
        if line == '# EOF':
            raise Bad('# EOF before the end')
        if line.startswith('#'):
            check_meta(line, om, meta, done)
            if 'TYPE' in meta[line.split(' ')[2]]:
                types[line.split(' ')[2]] = meta[line.split(' ')[2]]['TYPE']
            continue
        m = NAME.match(line)
        if not m:
            raise Bad('bad sample line: %s' % line)
        name, i = m.group(0), m.end()
        labels = {}
        if i < len(line) and line[i] == '{':
            labels, i = parse_labels(line + '\n', i)
        rest = line[i:]
        if not rest.startswith(' ') or ' ' in rest[1:]:
            raise Bad('expected one value (no timestamp): %s' % line)
        value = parse_value(rest[1:])
        fam = family_of(name, types, om)
        if 'HELP' not in meta[fam]:
            raise Bad('family %s has no HELP' % fam)
        if fam != current:
            if fam in done:
                raise Bad('family %s interleaved' % fam)
            if current:
                done.add(current)
            current = fam
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            raise Bad('duplicate series %s' % (key,))
        seen.add(key)
        if types[fam] in ('counter', 'histogram') and (math.isnan(value) or value < 0):
            raise Bad('negative or NaN counter %s' % line)
        samples.append((name, labels, value))
    for fam, entry in meta.items():
        if 'TYPE' not in entry or 'HELP' not in entry:
            raise Bad('family %s lacks HELP or TYPE' % fam)
    check_histograms(samples, types)
    return samples


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('openmetrics', 'prometheus'):
        print(__doc__.strip().split('\n')[2], file=sys.stderr)
        return 2
    with open(sys.argv[2], 'rb') as f:
        raw = f.read()
    try:
        text = raw.decode('utf-8')
        samples = check(text, sys.argv[1] == 'openmetrics')
    except (Bad, UnicodeDecodeError, IndexError) as e:
        print('om_check: %s' % e, file=sys.stderr)
        return 1
    for name, labels, value in samples:
        lab = ','.join('%s=%s' % (k, labels[k]) for k in sorted(labels))
        print('%s\t%s\t%s' % (name, lab.replace('\n', '\\n'), repr(value)))
    return 0


if __name__ == '__main__':
    sys.exit(main())

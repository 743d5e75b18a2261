#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes a synthetic trace.dat v6 with the 4 haltstat events, written from
the v6 layout description (not by haltstat), and prints what it wrote
("count KIND cpuN X", "total X", "lost_known X", "lost_unknown X",
"bad_pages X", "backwards X") so tests compare the reader with it.

hs-mkdat.py OUT [--cpus N] [--events N] [--seed S] [--extend] [--long]
            [--missed] [--badpage] [--backwards] [--trailer] [--big-endian]
            [--no-valid] [--instance NAME] [--systems kvm,power] [--no-wakeups]
            [--no-kvm-events]

--systems: only these event systems' formats and events are in the file
(without kvm: a host where kvm was not loaded; sched adds sched_switch,
most of the records then); --no-wakeups: no
kvm_vcpu_wakeup events, --no-kvm-events: no kvm events at all, the formats
kept (kvm loaded, no vCPU halted).
"""
import argparse
import random
import struct

PAGE = 4096
HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
                b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def fmt(name, eid, fields, pfmt):
    s = "name: %s\nID: %d\nformat:\n%s" % (name, eid, COMMON)
    for typ, fname, off, size in fields:
        s += "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:0;\n" % (typ, fname, off, size)
    return (s + "\nprint fmt: %s\n" % pfmt).encode()


def formats(no_valid):
    wake = [("__u64", "ns", 8, 8), ("bool", "waited", 16, 1)]
    if not no_valid:
        wake.append(("bool", "valid", 17, 1))
    return {
        "kvm": [
            fmt("kvm_vcpu_wakeup", 41, wake, '"%s time %lld ns", REC->waited ? "wait" : "poll", REC->ns'),
            fmt("kvm_halt_poll_ns", 31, [("bool", "grow", 8, 1), ("unsigned int", "vcpu_id", 12, 4),
                                         ("unsigned int", "new", 16, 4), ("unsigned int", "old", 20, 4)],
                '"vcpu %u: halt_poll_ns %u (%s %u)", REC->vcpu_id, REC->new, REC->grow ? "grow" : "shrink", REC->old'),
        ],
        "power": [
            fmt("cpu_idle", 568, [("u32", "state", 8, 4), ("u32", "cpu_id", 12, 4)],
                '"state=%lu cpu_id=%lu", (unsigned long)REC->state, (unsigned long)REC->cpu_id'),
            fmt("guest_halt_poll_ns", 552, [("bool", "grow", 8, 1), ("unsigned int", "new", 12, 4),
                                            ("unsigned int", "old", 16, 4)],
                '"halt_poll_ns %u (%s %u)", REC->new, REC->grow ? "grow" : "shrink", REC->old'),
            fmt("cpu_frequency", 570, [("u32", "state", 8, 4), ("u32", "cpu_id", 12, 4)],
                '"state=%lu cpu_id=%lu", (unsigned long)REC->state, (unsigned long)REC->cpu_id'),
        ],
        "sched": [
            fmt("sched_switch", 372, [("char", "prev_comm[16]", 8, 16), ("pid_t", "prev_pid", 24, 4),
                                      ("int", "prev_prio", 28, 4), ("long", "prev_state", 32, 8),
                                      ("char", "next_comm[16]", 40, 16), ("pid_t", "next_pid", 56, 4),
                                      ("int", "next_prio", 60, 4)],
                '"prev_pid=%d prev_state=%ld ==> next_pid=%d", REC->prev_pid, REC->prev_state, REC->next_pid'),
        ],
    }


KINDS = {41: "kvm_vcpu_wakeup", 31: "kvm_halt_poll_ns", 568: "cpu_idle", 552: "guest_halt_poll_ns",
         372: "sched_switch"}
SYSTEM = {41: "kvm", 31: "kvm", 372: "sched"}


class Gen:
    def __init__(self, a):
        self.a = a
        self.e = ">" if a.big_endian else "<"
        self.rng = random.Random(a.seed)
        systems = a.systems.split(",")
        # with sched: sched_switch is most records, as in a real recording
        self.eids = [e for e in [41, 41, 31, 568, 568, 552, 570] + [372] * 12
                     if SYSTEM.get(e, "power") in systems and
                     not (a.no_wakeups and e == 41) and
                     not (a.no_kvm_events and e in (41, 31))]

    def p(self, f, *v):
        return struct.pack(self.e + f, *v)

    def payload(self, eid, cpu):
        r = self.rng
        pid = 1000 + cpu
        head = self.p("HBBi", eid, 0, 0, pid)
        if eid == 41:
            body = self.p("QBBxxxxxx", r.randrange(1, 10**7), r.randrange(2), 1)
        elif eid == 31:
            body = self.p("B3xIII", r.randrange(2), cpu, r.randrange(10**6), r.randrange(10**6))
        elif eid == 372:
            prev, nxt = r.randrange(1, 40), r.choice([0, r.randrange(1, 40)])
            body = self.p("16siiq16sii", b"task", prev, 120, r.choice([0, 1]), b"task", nxt, 120)
        elif eid == 568 or eid == 570:
            body = self.p("II", r.choice([0, 1, 4294967295]), cpu)
        else:
            body = self.p("B3xII", r.randrange(2), r.randrange(10**6), r.randrange(10**6))
        return head + body

    def hdr(self, type_len, delta):
        v = (type_len << 27) | delta if self.a.big_endian else (delta << 5) | type_len
        return self.p("I", v)

    def record(self, payload, delta):
        """One data record (optionally with a time extend in front)."""
        out = b""
        if delta >= (1 << 27) or (self.a.extend and self.rng.random() < 0.05):
            out += self.hdr(30, delta & ((1 << 27) - 1)) + self.p("I", delta >> 27)
            delta = 0
        if self.a.long and self.rng.random() < 0.2:
            # type_len 0: the u32 after the header is length + 4
            out += self.hdr(0, delta) + self.p("I", len(payload) + 4) + payload
        else:
            out += self.hdr(len(payload) // 4, delta) + payload
        return out

    def cpu_pages(self, cpu, n, stats):
        r = self.rng
        pages, ts = [], 10**9 + cpu * 1000
        i = 0
        while i < n:
            page_ts = ts
            if self.a.backwards and len(pages) == 2:
                page_ts -= 10**6        # page starts 1 ms before the previous one ended
                stats["backwards_pages"] += 1
            data, t = b"", page_ts
            events = []
            while i < n:
                eid = r.choice(self.eids)
                delta = r.choice([r.randrange(1, 5000), r.randrange(1, 1 << 20)])
                if self.a.extend and r.random() < 0.01:
                    delta = r.randrange(1 << 27, 1 << 33)
                rec = self.record(self.payload(eid, cpu), delta)
                if len(data) + len(rec) > PAGE - 16 - 8:
                    break
                data += rec
                t += delta
                events.append(eid)
                i += 1
            flags = 0
            missed = b""
            if self.a.missed and len(pages) % 3 == 1:
                flags = 1 << 31
                if len(pages) % 2:
                    flags |= 1 << 30
                    cnt = r.randrange(1, 1000)
                    missed = self.p("Q", cnt)
                    stats["lost_known"] += cnt
                    if cpu == 0:
                        stats["lost_cpu0"] += cnt
                else:
                    stats["lost_unknown"] += 1
            commit = len(data)
            if self.a.badpage and len(pages) == 1:
                commit = PAGE * 2          # impossible: the page is skipped
                stats["bad_pages"] += 1
            else:
                for eid in events:
                    if eid in KINDS:
                        k = (KINDS[eid], cpu)
                        stats["count"][k] = stats["count"].get(k, 0) + 1
            page = self.p("QQ", page_ts, commit | flags) + data + missed
            pages.append(page + b"\0" * (PAGE - len(page)))
            ts = t
        return b"".join(pages)

    def write(self, out):
        a = self.a
        stats = {"count": {}, "lost_known": 0, "lost_unknown": 0, "bad_pages": 0,
                 "backwards_pages": 0, "lost_cpu0": 0}
        cpus = [self.cpu_pages(c, a.events // a.cpus, stats) for c in range(a.cpus)]
        h = b"\x17\x08Dtracing6\0" + bytes([1 if a.big_endian else 0, 8]) + self.p("I", PAGE)
        h += b"header_page\0" + self.p("Q", len(HEADER_PAGE)) + HEADER_PAGE
        h += b"header_event\0" + self.p("Q", len(HEADER_EVENT)) + HEADER_EVENT
        h += self.p("I", 0)                       # no ftrace formats
        fm = {k: v for k, v in formats(a.no_valid).items() if k in a.systems.split(",")}
        h += self.p("I", len(fm))
        for sysname, evs in fm.items():
            h += sysname.encode() + b"\0" + self.p("I", len(evs))
            for e in evs:
                h += self.p("Q", len(e)) + e
        h += self.p("I", 0) + self.p("I", 0)      # kallsyms, printk
        cmd = "".join("%d vcpu-thread-%d\n" % (1000 + c, c) for c in range(a.cpus)).encode()
        h += self.p("Q", len(cmd)) + cmd
        h += self.p("I", a.cpus)
        h += b"options  \0"
        opt = lambda oid, data: self.p("H", oid) + self.p("I", len(data)) + data
        h += opt(4, b"[local] global counter\0")
        h += opt(5, b"Linux synth 9.9.9-synth #1 SMP x86_64\0")
        for c in range(a.cpus):
            h += opt(2, ("CPU: %d\nentries: 0\noverrun: %d\ncommit overrun: 0\n"
                         "dropped events: 0\n" % (c, 0)).encode() + b"\0")
        inst_pos = None
        if a.instance:
            inst_pos = len(h) + 6
            h += opt(3, b"\0" * 8 + a.instance.encode() + b"\0")
        h += self.p("H", 0)
        # top flyrecord (empty when the data goes to an instance), then the instance's
        top_fly_pos = len(h)
        h += b"flyrecord\0" + b"\0" * 16 * a.cpus
        if a.instance:
            inst_fly = len(h)
            h = h[:inst_pos] + self.p("Q", inst_fly) + h[inst_pos + 8:]
            h += b"flyrecord\0" + b"\0" * 16 * a.cpus
        off = (len(h) + PAGE - 1) // PAGE * PAGE
        table = b""
        for c in range(a.cpus):
            table += self.p("QQ", off, len(cpus[c]))
            off += len(cpus[c])
        fly = inst_fly if a.instance else top_fly_pos
        h = h[:fly + 10] + table + h[fly + 10 + len(table):]
        body = h + b"\0" * ((len(h) + PAGE - 1) // PAGE * PAGE - len(h)) + b"".join(cpus)
        data_offset = len(body) - sum(len(x) for x in cpus)
        if a.trailer:
            text = ("haltstat_version=0.1.0\nkernel_release=9.9.9-trailer\nclock=local\n"
                    "param.halt_poll_ns=200000\nlost.cpu0=%d\n" % (stats["lost_cpu0"] + 5) +
                    "".join("thread=%d 999 vcpu %d\n" % (1000 + c, c) for c in range(a.cpus)) +
                    "process=999 myvm\tqemu-system-x86\n").encode()
            body += text + struct.pack("<Q", len(text)) + b"HSMETA01"
            stats["lost_known"] += 5 if a.cpus > 0 else 0
        with open(out, "wb") as f:
            f.write(body)
        total = 0
        for (k, c), v in sorted(stats["count"].items()):
            print("count %s cpu%d %d" % (k, c, v))
            total += v
        print("total %d" % total)
        print("lost_known %d" % stats["lost_known"])
        print("lost_unknown %d" % stats["lost_unknown"])
        print("bad_pages %d" % stats["bad_pages"])
        print("backwards_pages %d" % stats["backwards_pages"])
        print("data_offset %d" % data_offset)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    for flag in ("extend", "long", "missed", "badpage", "backwards", "trailer",
                 "big_endian", "no_valid", "no_wakeups",
                 "no_kvm_events"):
        ap.add_argument("--" + flag.replace("_", "-"), action="store_true")
    ap.add_argument("--instance")
    ap.add_argument("--systems", default="kvm,power")
    Gen(ap.parse_args()).write(ap.parse_args().out)


if __name__ == "__main__":
    main()

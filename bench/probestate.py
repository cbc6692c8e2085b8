#!/usr/bin/env python3
"""Where a TCP probe's time went: two snapshots, one line.

    probestate.py BEFORE AFTER

Each snapshot is what qemu/soak.sh's probe_state writes, in "## NAME"
sections: the guest's benchsnap ("snap": the CPU split in USER_HZ ticks and
the NIC's counters, as a bench run records them), its /proc/net/netstat and
/proc/net/snmp ("net"), the host's view ("host": the wall clock in
seconds, QEMU's utime + stime and the host's steal time, both in ticks),
bench/hostspeed.c's line for each host CPU ("speed": CPU, Msteps/s got,
the best chunk's, chunks) and QEMU's HMP "info jit" ("jit").

Prints the guest's CPU split over the probe (idle, softirq, user, system,
in %), QEMU's host CPU (% of one core), the host's stolen seconds, how fast
each host CPU ran just before and just after, how many frames the guest's
GRO merged into each TCP segment (rx_packets over Tcp InSegs: about 2 in
every slow probe seen, 7-12 in the fast ones), what TCG did meanwhile
(translation-buffer flushes, TB invalidations, full TLB flushes, TBs
translated), and the TCP and driver counters that moved and say why a
receiver slows (drops, pruning, memory pressure, out-of-order, ring
exhaustion, allocation failures). A slow probe with the guest idle and
QEMU below a core is the host; with the guest busy it is the guest, and
the counters say on what.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import row  # noqa: E402

TICK = 100.0	# USER_HZ, the unit of /proc/<pid>/stat and /proc/stat

# Counters whose rise slows a TCP receiver, by the name the kernel gives.
WATCH = ("TCPRcvQDrop", "PruneCalled", "RcvPruned", "OfoPruned", "TCPMemoryPressures",
         "TCPMemoryPressuresChrono", "PFMemallocDrop", "TCPBacklogDrop", "TCPOFODrop",
         "TCPOFOQueue", "TCPRcvCollapsed", "TCPZeroWindowDrop", "TCPWantZeroWindowAdv",
         "TCPToZeroWindowAdv", "TCPFromZeroWindowAdv", "InErrors", "RcvbufErrors",
         "InCsumErrors", "rx_ring_exhausted", "alloc_rx_buff_failed", "rx_no_buffer_count",
         "rx_missed_errors")


def parse(path):
    """{section: [lines]} of one snapshot."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                cur = line[3:].strip()
                out.setdefault(cur, [])
            elif cur is not None and line.strip():
                out[cur].append(line)
    return out


def counters(snap):
    """{name: int} from the snap ("name value" lines) and net (header/value
    line pairs) sections."""
    c = row.counters(snap.get("snap", []))
    net = snap.get("net", [])
    for head, vals in zip(net[0::2], net[1::2]):
        h, v = head.split(), vals.split()
        if not h or h[0] != v[0]:
            continue
        for k, x in zip(h[1:], v[1:]):
            if x.lstrip("-").isdigit():
                c[k] = int(x)
    return c


# benchsnap's CPU split as a bench run's row has it (row.cpu_split), in words.
CPU = (("cpu_idle", "guest idle"), ("cpu_softirq", "softirq"), ("cpu_user", "user"),
       ("cpu_system", "system"))


# HMP "info jit" lines whose rise says TCG retranslated or refilled its TLB.
JIT = (("TB flush count", "TB flushes"), ("TB invalidate count", "TB invalidations"),
       ("TLB full flushes", "full TLB flushes"), ("TB count", "TBs"))


def jit(snap):
    """{info jit name: int} of the statistics in JIT."""
    out = {}
    for line in snap.get("jit", []):
        for name, _ in JIT:
            rest = line[len(name):].split()
            if line.startswith(name + " ") and rest and rest[0].isdigit():
                out[name] = int(rest[0])
    return out


def host(snap):
    """(wall clock s, QEMU's CPU ticks, the host's steal ticks or None), or
    None."""
    try:
        f = snap["host"][0].split()
        return float(f[0]), int(f[1]), int(f[2]) if len(f) > 2 else None
    except (KeyError, IndexError, ValueError):
        return None


def speed(snap):
    """{host CPU: Msteps/s a thread got there} from the "speed" section
    (bench/hostspeed.c's mean; a CPU it could not use is left out)."""
    out = {}
    for line in snap.get("speed", []):
        f = line.split()
        try:
            out[int(f[0])] = float(f[1])
        except (IndexError, ValueError):
            continue
    return out


def summary(a, b):
    na, nb = counters(a), counters(b)
    if "cpu_total" not in na or "cpu_total" not in nb:
        raise KeyError("snap")  # the guest did not answer: no CPU split
    split = row.cpu_split(na, nb)  # empty when no guest time passed
    parts = [", ".join("%s %.0f %%" % (words, split.get(k, 0)) for k, words in CPU)]
    ha, hb = host(a), host(b)
    if ha and hb and hb[0] > ha[0]:
        parts.append("QEMU %.0f %% of a host core"
                     % (100.0 * (hb[1] - ha[1]) / TICK / (hb[0] - ha[0])))
        if ha[2] is not None and hb[2] is not None:
            parts.append("host steal %.2f s in %.1f s" % ((hb[2] - ha[2]) / TICK, hb[0] - ha[0]))
    sa, sb = speed(a), speed(b)
    cpus = sorted(set(sa) & set(sb))
    if cpus:
        parts.append("host CPU speed (Msteps/s, before -> after): " +
                     ", ".join("%d %.0f -> %.0f" % (c, sa[c], sb[c]) for c in cpus))
    ja, jb = jit(a), jit(b)
    if ja and jb:
        parts.append("TCG: " + ", ".join("%s +%d" % (words, jb[k] - ja[k])
                                         for k, words in JIT if k in ja and k in jb))
    segs = nb.get("InSegs", 0) - na.get("InSegs", 0)
    frames = nb.get("rx_packets", 0) - na.get("rx_packets", 0)
    if segs > 0 and frames > 0:
        parts.append("%.1f frames per TCP segment (GRO)" % (frames / segs))
    moved = ["%s +%d" % (k, nb[k] - na[k]) for k in WATCH
             if k in na and k in nb and nb[k] != na[k]]
    parts.append("moved: " + (", ".join(moved) if moved else "none of the receiver's drop, "
                              "prune or pressure counters"))
    return "; ".join(parts)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    try:
        print(summary(parse(argv[0]), parse(argv[1])))
    except KeyError as e:
        print("probestate: a snapshot without its %r section (the guest did not answer?)"
              % e.args[0], file=sys.stderr)
        return 1
    except (OSError, IndexError, ValueError) as e:
        print("probestate: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Gaps between frames of two tap0 captures (bench/experiments/wire.sh): the unpaced
link and the wire, as text and a plot.

    wiregaps.py OUTDIR UNPACED.pcap WIRE.pcap
"""
import os, struct, sys


def frames(path):
    """(time in ns, frame length) of every record of a pcap file."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xa1b23c4d, 0xa1b2c3d4):
        raise SystemExit("wire: %s is not a little-endian pcap" % path)
    scale = 1 if magic == 0xa1b23c4d else 1000
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        out.append((sec * 10**9 + frac * scale, orig))
        off += 16 + incl
    return out


outdir = sys.argv[1]
lines, series = [], {}
for label, path in (("unpaced (LINK=none)", sys.argv[2]),
                    ("wire (LINK=1gbit, LINK_BURST=3kb)", sys.argv[3])):
    f = frames(path)
    gaps, need = [], []
    for (t0, l0), (t1, _) in zip(f, f[1:]):
        gaps.append((t1 - t0) / 1000.0)            # us between frame starts
        need.append((l0 + 24) * 8 / 1000.0)        # us the first frame takes at 1 Gbit/s
    # tbf counts a frame's bytes without preamble, FCS and gap: 1514 B take
    # 12.1 us at its 1 Gbit/s, 12.3 us on a real wire; the bound is
    # 12 us for a 1500 B frame.
    full = sorted(g for g, (_, l) in zip(gaps, f) if l >= 1500)
    short = sum(g < 12.0 for g in full)
    back2back = sum(g < 6.0 for g in full)
    series[label] = full
    lines.append("%s: %d frames, %d full-size (>= 1500 B) gaps: median %.1f us, 1st "
                 "percentile %.1f us; %.1f %% shorter than 12 us, %.1f %% shorter than 6 us "
                 "(two frames back to back)"
                 % (label, len(f), len(full),
                    full[len(full) // 2] if full else float("nan"),
                    full[len(full) // 100] if full else float("nan"),
                    100.0 * short / max(1, len(full)), 100.0 * back2back / max(1, len(full))))
open(os.path.join(outdir, "wire-gaps.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(7, 4))
for label, gaps in series.items():
    g = sorted(x for x in gaps if x > 0)
    ax.plot(g, [i / len(g) for i in range(len(g))], label=label)
ax.axvline(12.0, color="k", ls="--", label="a 1500 B frame at 1 Gbit/s (12 us)")
ax.set_xscale("log")
ax.set_xlabel("gap after a full-size frame, start to start, on tap0, us (log)")
ax.set_ylabel("fraction of gaps below")
ax.set_title("TCP into the guest: what leaves the host side of the tap")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(outdir, "wire-gaps.png"), dpi=90)

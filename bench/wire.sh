#!/bin/bash
# Is the wire a wire? Boot the baseline kernel, send TCP into it for SECS
# (3) in each link mode (LINK=none: unpaced; LINK=1gbit LINK_BURST=3kb: the
# bench's default wire), capture what leaves the host side of tap0 (after
# the qdisc, inside the lab's netns), and plot the gaps between frame starts
# against the time a frame needs on a 1 Gbit/s wire ((length + 24 B of
# preamble, FCS and inter-frame gap) * 8 ns; a 1514 B frame: 12.3 us).
#
#   bench/wire.sh OUTDIR      -> OUTDIR/wire-gaps.png, OUTDIR/wire-gaps.txt
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/args.sh"
out=${1:-}
[ -n "$out" ] || args_die "usage: bench/wire.sh OUTDIR"
args_path OUTDIR "$out"
SECS=${SECS:-3}
args_num SECS "$SECS" 1 60
. "$top/qemu/lib/lab.sh"
for k in build/baseline/bzImage build/initramfs.img; do
	[ -f "$top/$k" ] || { echo "wire: $k missing (make baseline initramfs)" >&2; exit 1; }
done
command -v tcpdump >/dev/null || { echo "wire: tcpdump missing (make deps)" >&2; exit 1; }

lab_init wire
mkdir -p "$out"
lab_boot "$top/build/baseline/bzImage" "$top/build/initramfs.img"
lab_ctl /lab/iperf3-server >/dev/null
for mode in none 1gbit; do
	if [ "$mode" = none ]; then
		lab_host tc qdisc del dev tap0 root 2>/dev/null || true
	else
		lab_host tc qdisc replace dev tap0 root tbf rate 1gbit burst 3kb latency 20ms
	fi
	pcap=$LAB_RUN/wire-$mode.pcap
	lab_host timeout $((SECS + 20)) tcpdump -q -i tap0 -s 64 -c 30000 \
		--time-stamp-precision=nano -w "$pcap" 'ip and tcp and dst host 198.18.0.2' \
		2>"$pcap.err" &
	dump=$!
	sleep 1	# tcpdump opens the tap (bounded: its own timeout above)
	lab_host timeout $((SECS + 30)) iperf3 -c "$LAB_GUEST_IP" -t "$SECS" --json \
		> "$LAB_RUN/wire-$mode.json" 2>&1 || true
	kill -INT "$dump" 2>/dev/null || true
	wait "$dump" || true
done
lab_poweroff || true

/usr/bin/python3 - "$out" "$LAB_RUN/wire-none.pcap" "$LAB_RUN/wire-1gbit.pcap" <<'PY'
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
    short = sum(g < n for g, n in zip(gaps, need))
    full = [g for g, (_, l) in zip(gaps, f) if l >= 1500]
    full.sort()
    series[label] = gaps
    lines.append("%s: %d frames, %d gaps; %.1f %% shorter than the frame's time on a "
                 "1 Gbit/s wire; full-size frames: median gap %.1f us, 1st percentile %.1f us"
                 % (label, len(f), len(gaps), 100.0 * short / max(1, len(gaps)),
                    full[len(full) // 2] if full else float("nan"),
                    full[len(full) // 100] if full else float("nan")))
open(os.path.join(outdir, "wire-gaps.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(7, 4))
for label, gaps in series.items():
    g = sorted(x for x in gaps if x > 0)
    ax.plot(g, [i / len(g) for i in range(len(g))], label=label)
ax.axvline(12.3, color="k", ls="--", label="1514 B frame at 1 Gbit/s (12.3 us)")
ax.set_xscale("log")
ax.set_xlabel("gap between frame starts on tap0, us (log)")
ax.set_ylabel("fraction of gaps below")
ax.set_title("TCP into the guest: what leaves the host side of the tap")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(outdir, "wire-gaps.png"), dpi=90)
PY

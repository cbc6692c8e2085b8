#!/bin/bash
# Is the wire a wire? Boot the baseline kernel, send TCP into it for SECS
# (3) in each link mode (LINK=none: unpaced; LINK=1gbit LINK_BURST=3kb: the
# bench's default wire), capture what leaves the host side of tap0 (after
# the qdisc, inside the lab's netns), and plot the gaps between frame starts
# against the time a frame needs on a 1 Gbit/s wire ((length + 24 B of
# preamble, FCS and inter-frame gap) * 8 ns; a 1514 B frame: 12.3 us).
#
#   bench/experiments/wire.sh OUTDIR  -> OUTDIR/wire-gaps.png, OUTDIR/wire-gaps.txt
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
wire_die() { echo "wire: $*" >&2; exit 2; }
out=${1:-}
[ -n "$out" ] || wire_die "usage: bench/experiments/wire.sh OUTDIR"
[[ $out =~ ^[A-Za-z0-9._/-]+$ ]] || wire_die "OUTDIR: '$out' has characters outside [A-Za-z0-9._/-]"
SECS=${SECS:-3}
[[ $SECS =~ ^[1-9][0-9]?$ ]] && ((SECS <= 60)) || wire_die "SECS: 1..60 seconds, not '$SECS'"
. "$top/qemu/lib/lab.sh"
for k in "$(lab_kernel baseline)/bzImage" "$top/build/initramfs.img"; do
	[ -f "$k" ] || { echo "wire: $k missing (make baseline initramfs)" >&2; exit 1; }
done
command -v tcpdump >/dev/null || { echo "wire: tcpdump missing (make deps)" >&2; exit 1; }

lab_init wire
mkdir -p "$out"
lab_boot "$(lab_kernel baseline)/bzImage" "$top/build/initramfs.img"
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

/usr/bin/python3 "$top/bench/experiments/wiregaps.py" "$out" "$LAB_RUN/wire-none.pcap" "$LAB_RUN/wire-1gbit.pcap"

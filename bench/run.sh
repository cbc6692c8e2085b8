#!/bin/bash
# The bench: boot the patched and the unpatched (baseline) kernel side by
# side, each with an emulated e1000 on a tap in its own netns, and run iperf3
# from the host across the axes below, interleaved and repeated. Writes
# results/<UTC stamp>/{runs.csv,meta.json} and calls bench/report.py.
#
# Axes (environment or make variables; lists are space-separated):
#   WEIGHTS  sysfs weight of the patched e1000      "4 8 16 32 64 128"
#   REFILL   rx_refill_batch (0: after the poll)   "0 16"
#   ADAPTIVE adaptive quota (devlink adaptive_quota) "off"
#   IDLE     poll_idle_limit: empty polls before re-arming  "0"
#   DEFER    napi_defer_hard_irqs (gro_flush_timeout 20 us when > 0)  "0"
#   RING     RX ring size, ethtool -G (48..4096)   "256"
#   FIFO     tap txqueuelen in frames, the NIC FIFO "32"
#   LINK     host-side pacing of the tap (tbf rate, e.g. 1gbit) or none  "none"
#   PROFILES tcp tcp4 udp1470 udp64 zeroloss idle  "tcp tcp4 udp1470 udp64"
#   REPS 3, SECS 5 (per run), UDP1470_RATE 150M, UDP64_RATE 20M,
#   CALIB 1 (calibration runs), PIN 1 (vCPU on CPU 1; QEMU I/O and the
#   iperf3 client on CPU 0), OUT (results directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"
# QUICK=1 (plain `make`): a short sweep, about 6 minutes once the kernels exist.
if [ "${QUICK:-0}" = 1 ]; then
	WEIGHTS=${WEIGHTS:-"8 16 64"} PROFILES=${PROFILES:-"tcp udp1470"} SECS=${SECS:-4}
fi
export WEIGHTS=${WEIGHTS:-"4 8 16 32 64 128"} REFILL=${REFILL:-"0 16"}
export ADAPTIVE=${ADAPTIVE:-off} IDLE=${IDLE:-0} DEFER=${DEFER:-0} RING=${RING:-256}
export FIFO=${FIFO:-32} LINK=${LINK:-none} REPS=${REPS:-3} CALIB=${CALIB:-1}
export PROFILES=${PROFILES:-"tcp tcp4 udp1470 udp64"}
SECS=${SECS:-5} UDP1470_RATE=${UDP1470_RATE:-150M} UDP64_RATE=${UDP64_RATE:-20M}
PIN=${PIN:-1}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
csv=$OUT/runs.csv

die() { echo "bench: $*" >&2; exit 1; }
num_list() { local v; for v in $2; do [[ $v =~ ^[0-9]+$ ]] || die "$1: '$v' is not a number"; done; }
num_list WEIGHTS "$WEIGHTS"; num_list REFILL "$REFILL"; num_list DEFER "$DEFER"
num_list IDLE "$IDLE"
for v in $IDLE; do ((v <= 1000)) || die "IDLE: $v is outside 0..1000"; done
num_list RING "$RING"; num_list FIFO "$FIFO"; num_list REPS "$REPS"; num_list SECS "$SECS"
for v in $WEIGHTS; do ((v >= 1 && v <= 1024)) || die "WEIGHTS: $v is outside 1..1024"; done
for v in $RING; do ((v >= 48 && v <= 4096)) || die "RING: $v is outside 48..4096"; done
for v in $REFILL; do for r in $RING; do ((v <= r)) || die "REFILL $v exceeds RING $r"; done; done
for v in $ADAPTIVE; do [ "$v" = off ] || [ "$v" = on ] || die "ADAPTIVE: on or off, not $v"; done
for v in $LINK; do [[ $v = none || $v =~ ^[0-9]+[kmg]?bit$ ]] || die "LINK: none or a tc rate like 1gbit, not $v"; done
for v in $PROFILES; do
	case $v in tcp | tcp4 | udp1470 | udp64 | zeroloss | idle) ;; *) die "PROFILES: unknown profile $v" ;; esac
done
for k in build/kernel/bzImage build/baseline/bzImage build/initramfs.img; do
	[ -f "$top/$k" ] || die "$k missing (make kernel baseline initramfs)"
done
mkdir -p "$OUT"
python3 "$top/bench/plan.py" > "$OUT/plan.tsv"

lab_init bench
declare -A PINS
for k in patched baseline; do
	lab_new "$k"
	img=$top/build/kernel/bzImage
	[ "$k" = baseline ] && img=$top/build/baseline/bzImage
	lab_boot "$img" "$top/build/initramfs.img"
	lab_ctl /lab/iperf3-server >/dev/null
	PINS[$k]=$([ "$PIN" = 1 ] && lab_pin 1 0 || echo "not pinned")
	echo "$(lab_ctl uname -r) $(lab_ctl cat /proc/version)" > "$LAB_RUN/version"
done
client_pin=(taskset -c 0)
[ "$PIN" = 1 ] || client_pin=()

python3 - "$OUT/meta.json" <<PY
import json, os, subprocess, sys
def sh(c):
    return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
meta = {
    "git_revision": sh("git -C '$top' rev-parse HEAD") + (" (dirty)" if sh("git -C '$top' status --porcelain --untracked-files=no") else ""),
    "kernels": {k: {"release": open("$top/build/run/bench-$$/%s/version" % k).read().strip(),
                    "config_sha256": sh("sha256sum '$top/build/%s/config'" % ("kernel" if k == "patched" else "baseline")).split()[0]}
                for k in ("patched", "baseline")},
    "qemu": sh("qemu-system-x86_64 --version | head -1"),
    "iperf3": sh("iperf3 --version | head -1"),
    "host_cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
    "host_cores": os.cpu_count(),
    "host_kernel": sh("uname -r"),
    "accel": os.environ.get("ACCEL", "tcg"), "vcpus": os.environ.get("VCPUS", "1"),
    "pinning": {"patched_qemu_threads": """${PINS[patched]}""", "baseline_qemu_threads": """${PINS[baseline]}""",
                "iperf3_client": "${client_pin[*]:-not pinned}"},
    "parameters": {k: os.environ.get(k, "") for k in ("WEIGHTS", "REFILL", "ADAPTIVE", "IDLE", "DEFER", "RING", "FIFO", "LINK", "PROFILES", "REPS", "CALIB")},
    "secs": $SECS, "udp1470_rate": "$UDP1470_RATE", "udp64_rate": "$UDP64_RATE",
    "started_utc": "$stamp",
}
json.dump(meta, open(sys.argv[1], "w"), indent=2)
PY

# Host side of the current guest's link: FIFO depth and pacing.
set_link() {
	local fifo=$1 link=$2
	lab_host ip link set tap0 txqueuelen "$fifo"
	if [ "$link" = none ]; then
		lab_host tc qdisc del dev tap0 root 2>/dev/null || true
	else
		lab_host tc qdisc replace dev tap0 root tbf rate "$link" burst 64kb latency 20ms
	fi
}

tapdrops() { lab_host cat /sys/class/net/tap0/statistics/tx_dropped; }

# Bounded wait until the guest answers on its NIC again (after a ring change).
reachable() {
	local i
	for i in $(seq 20); do
		lab_host ping -q -c 1 -W 1 "$LAB_GUEST_IP" >/dev/null 2>&1 && return 0
	done
	die "guest $LAB_CUR does not answer ping on eth0 after 20 tries"
}

iperf() {	# iperf OUT.json ARGS...: a client run, bounded
	local out=$1
	shift
	lab_host timeout $((SECS + 30)) "${client_pin[@]}" iperf3 -c "$LAB_GUEST_IP" \
		-t "$SECS" --json "$@" > "$out" 2> "$out.err" || true
}

udp_loss_ok() {	# the last UDP run lost at most 0.1 %
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["end"]["sum"]; sys.exit(not (s["packets"] > 0 and s["lost_packets"] * 1000 <= s["packets"]))' "$1" 2>/dev/null
}

# RFC 2544 throughput: the highest rate with <= 0.1 % loss, by bisection on a
# log scale between 1 Mbit/s and HI until within 5 %. Leaves the last passing
# run in OUT.json and prints its rate in Mbit/s (0 if none passed).
zeroloss() {
	local len=$1 out=$2 lo=0 hi=$3 mid
	iperf "$out.try" -u -l "$len" -b "${hi}M"
	if udp_loss_ok "$out.try"; then cp "$out.try" "$out"; echo "$hi"; return; fi
	lo=1
	iperf "$out.try" -u -l "$len" -b "${lo}M"
	udp_loss_ok "$out.try" || { cp "$out.try" "$out"; echo 0; return; }
	cp "$out.try" "$out"
	while ((hi * 100 > lo * 105)); do
		mid=$(python3 -c "import math; print(max($lo + 1, round(math.sqrt($lo * $hi))))")
		((mid < hi)) || break
		iperf "$out.try" -u -l "$len" -b "${mid}M"
		if udp_loss_ok "$out.try"; then lo=$mid; cp "$out.try" "$out"; else hi=$mid; fi
	done
	echo "$lo"
}

run_one() {
	local kernel=$1 role=$2 w=$3 n=$4 a=$5 i=$6 d=$7 ring=$8 fifo=$9 link=${10} prof=${11} rep=${12}
	local dir=$OUT/raw/$k_run t0 t1 res=- offered=
	mkdir -p "$dir"
	lab_use "$kernel"
	if [ "$kernel" = patched ]; then
		lab_ctl benchset "$w" "$n" "$a" "$i" "$d" "$ring" >/dev/null
	else
		lab_ctl benchset - - - - "$d" "$ring" >/dev/null
	fi
	set_link "$fifo" "$link"
	reachable
	lab_ctl benchsnap > "$dir/before"
	t0=$(tapdrops)
	case $prof in
	tcp) res=$dir/iperf.json; iperf "$res" ;;
	tcp4) res=$dir/iperf.json; iperf "$res" -P 4 ;;
	udp1470) res=$dir/iperf.json; offered=${UDP1470_RATE%M}; iperf "$res" -u -l 1470 -b "$UDP1470_RATE" ;;
	udp64) res=$dir/iperf.json; offered=${UDP64_RATE%M}; iperf "$res" -u -l 64 -b "$UDP64_RATE" ;;
	idle)
		res=$dir/ping.txt
		lab_host timeout $((SECS + 10)) ping -q -c $((SECS * 5)) -i 0.2 "$LAB_GUEST_IP" > "$res" 2>&1 || true ;;
	zeroloss1470) res=$dir/iperf.json; offered=$(zeroloss 1470 "$res" 1000) ;;
	zeroloss64) res=$dir/iperf.json; offered=$(zeroloss 64 "$res" 200) ;;
	esac
	t1=$(tapdrops)
	lab_ctl benchsnap > "$dir/after"
	python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
		kernel="$kernel" role="$role" weight="$w" refill="$n" adaptive="$a" idle_limit="$i" defer="$d" \
		ring="$ring" fifo="$fifo" link="$link" profile="$prof" rep="$rep" secs="$SECS" \
		offered_mbps="$offered" || echo "bench: run $k_run ($kernel $prof) recorded an error" >&2
}

# zeroloss expands to one run per frame size.
expand() {
	local line=$1 prof
	prof=$(cut -f11 <<<"$line")
	if [ "$prof" = zeroloss ]; then
		sed 's/\tzeroloss\t/\tzeroloss1470\t/' <<<"$line"
		sed 's/\tzeroloss\t/\tzeroloss64\t/' <<<"$line"
	else
		echo "$line"
	fi
}
while IFS= read -r l; do expand "$l"; done < "$OUT/plan.tsv" > "$OUT/plan-expanded.tsv"
total=$(wc -l < "$OUT/plan-expanded.tsv")

start=$SECONDS
k_run=0
echo "bench: $total runs, results in ${OUT#"$top"/}"
while IFS=$'\t' read -r kernel role w n a i d ring fifo link prof rep; do
	k_run=$((k_run + 1))
	el=$((SECONDS - start))
	eta=$(( k_run > 1 ? el * (total - k_run + 1) / (k_run - 1) : 0 ))
	printf '\rbench: run %d of %d  %dm%02ds elapsed, ETA %dm%02ds  %-8s %-5s w=%-4s n=%-3s ring=%-4s %-12s' \
		"$k_run" "$total" $((el / 60)) $((el % 60)) $((eta / 60)) $((eta % 60)) \
		"$kernel" "$role" "$w" "$n" "$ring" "$prof"
	run_one "$kernel" "$role" "$w" "$n" "$a" "$i" "$d" "$ring" "$fifo" "$link" "$prof" "$rep" < /dev/null
done < "$OUT/plan-expanded.tsv"
echo
for k in patched baseline; do
	lab_use "$k"
	lab_poweroff || true
	cp "$LAB_RUN/console.log" "$OUT/console-$k.log"
	splats=$(lab_console_splats)
	[ -z "$splats" ] || echo "bench: the $k kernel logged errors (see $OUT/console-$k.log): $splats" >&2
done
/usr/bin/python3 "$top/bench/report.py" "$OUT"

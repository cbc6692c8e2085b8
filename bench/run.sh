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
#   LINK_BURST the tbf bucket (64kb): how many bytes may leave back to back
#   PROFILES tcp tcp4 udp1470 udp64 zeroloss idle  "tcp tcp4 udp1470 udp64"
#   REPS 3, SECS 5 (per run), UDP64_RATE 20M, OUT (results directory).
#   UDP1470_RATE: offered rate of udp1470; by default half the baseline's
#     saturation rate, measured first (SAT_REPS 3 runs offering SAT_OFFER
#     1000M on each kernel, role sat).
#   PIN: CPU layout of the sweep runs (split): none (host scheduler), split
#     (vCPUs on CPU 1; QEMU's main loop, which reads the tap, and the iperf3
#     client on CPU 0), client-on-vcpu (vCPUs and the client on CPU 1, QEMU's
#     main loop alone on CPU 0). PIN=1 means split, PIN=0 none.
#   CALIB 1: calibration runs (ring 4096, tcp) in each layout of CALIB_PINS
#     ("none split client-on-vcpu"): the emulator's drop floor.
#   HIST 1: per repetition, tcp and udp1470 runs of both kernels at their
#     defaults with an in-kernel napi_poll work/budget histogram (role hist).
#   BOOT_ORDER "patched baseline": which guest boots first (to check the slots).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"
# QUICK=1 (plain `make`): a short sweep, about 6 minutes once the kernels exist.
if [ "${QUICK:-0}" = 1 ]; then
	WEIGHTS=${WEIGHTS:-"8 16 64"} PROFILES=${PROFILES:-"tcp udp1470"} SECS=${SECS:-4}
	CALIB_PINS=${CALIB_PINS:-split} HIST=${HIST:-0} SAT_REPS=${SAT_REPS:-2}
fi
export WEIGHTS=${WEIGHTS:-"4 8 16 32 64 128"} REFILL=${REFILL:-"0 16"}
export ADAPTIVE=${ADAPTIVE:-off} IDLE=${IDLE:-0} DEFER=${DEFER:-0} RING=${RING:-256}
export FIFO=${FIFO:-32} LINK=${LINK:-none} REPS=${REPS:-3} CALIB=${CALIB:-1}
export LINK_BURST=${LINK_BURST:-64kb}
export PROFILES=${PROFILES:-"tcp tcp4 udp1470 udp64"}
SECS=${SECS:-5} UDP64_RATE=${UDP64_RATE:-20M}
UDP1470_RATE=${UDP1470_RATE:-} SAT_REPS=${SAT_REPS:-3} SAT_OFFER=${SAT_OFFER:-1000M}
case ${PIN:-split} in 1) PIN=split ;; 0) PIN=none ;; *) PIN=${PIN:-split} ;; esac
export PIN CALIB_PINS=${CALIB_PINS:-"none split client-on-vcpu"} HIST=${HIST:-1}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
csv=$OUT/runs.csv

die() { echo "bench: $*" >&2; exit 1; }
num_list() { local v; for v in $2; do [[ $v =~ ^[0-9]+$ ]] || die "$1: '$v' is not a number"; done; }
num_list WEIGHTS "$WEIGHTS"; num_list REFILL "$REFILL"; num_list DEFER "$DEFER"
num_list IDLE "$IDLE"
for v in $IDLE; do ((v <= 1000)) || die "IDLE: $v is outside 0..1000"; done
num_list RING "$RING"; num_list FIFO "$FIFO"; num_list REPS "$REPS"; num_list SECS "$SECS"
num_list SAT_REPS "$SAT_REPS"
for v in $PIN $CALIB_PINS; do
	case $v in none | split | client-on-vcpu) ;; *) die "PIN/CALIB_PINS: none, split or client-on-vcpu, not $v" ;; esac
done
[ "$HIST" = 0 ] || [ "$HIST" = 1 ] || die "HIST: 0 or 1, not $HIST"
for v in $UDP1470_RATE $UDP64_RATE $SAT_OFFER; do
	[[ $v =~ ^[1-9][0-9]*M$ ]] || die "UDP rates are in Mbit/s like 150M, not $v"
done
for v in $WEIGHTS; do ((v >= 1 && v <= 1024)) || die "WEIGHTS: $v is outside 1..1024"; done
for v in $RING; do ((v >= 48 && v <= 4096)) || die "RING: $v is outside 48..4096"; done
for v in $REFILL; do for r in $RING; do ((v <= r)) || die "REFILL $v exceeds RING $r"; done; done
for v in $ADAPTIVE; do [ "$v" = off ] || [ "$v" = on ] || die "ADAPTIVE: on or off, not $v"; done
for v in $LINK; do [[ $v = none || $v =~ ^[0-9]+[kmg]?bit$ ]] || die "LINK: none or a tc rate like 1gbit, not $v"; done
[[ $LINK_BURST =~ ^[1-9][0-9]*kb$ ]] && ((${LINK_BURST%kb} >= 2)) ||
	die "LINK_BURST: a tc size of at least 2kb (one frame must fit), like 3kb or 64kb, not $LINK_BURST"
# BOOT_ORDER: which guest boots first (its QEMU also started first); to check
# that the two slots are alike, swap it.
BOOT_ORDER=${BOOT_ORDER:-"patched baseline"}
[ "$BOOT_ORDER" = "patched baseline" ] || [ "$BOOT_ORDER" = "baseline patched" ] ||
	die "BOOT_ORDER: \"patched baseline\" or \"baseline patched\", not $BOOT_ORDER"
export BOOT_ORDER
for v in $PROFILES; do
	case $v in tcp | tcp4 | udp1470 | udp64 | zeroloss | idle) ;; *) die "PROFILES: unknown profile $v" ;; esac
done
for k in build/kernel/bzImage build/baseline/bzImage build/initramfs.img; do
	[ -f "$top/$k" ] || die "$k missing (make kernel baseline initramfs)"
done
[ ! -e "$csv" ] || die "$csv exists: give a new OUT (rows of two sweeps would mix)"
mkdir -p "$OUT"
python3 "$top/bench/plan.py" > "$OUT/plan.tsv"

lab_init bench
for k in $BOOT_ORDER; do
	lab_new "$k"
	img=$top/build/kernel/bzImage
	[ "$k" = baseline ] && img=$top/build/baseline/bzImage
	lab_boot "$img" "$top/build/initramfs.img"
	lab_ctl /lab/iperf3-server >/dev/null
	echo "$(lab_ctl uname -r) $(lab_ctl cat /proc/version)" > "$LAB_RUN/version"
done

# CPU layouts (2 host CPUs): QEMU's vCPU threads, its other threads (the main
# loop reads the tap) and the iperf3 client. Applied to both guests, checked
# from /proc, recorded per layout in pinning.txt.
declare -A PIN_VCPU=([none]=0,1 [split]=1 [client-on-vcpu]=1)
declare -A PIN_REST=([none]=0,1 [split]=0 [client-on-vcpu]=0)
declare -A PIN_CLIENT=([none]=0,1 [split]=0 [client-on-vcpu]=1)
pin_cur=
client_pin=()
apply_pin() {
	local layout=$1 k cur=$LAB_CUR
	[ "$layout" != "$pin_cur" ] || return 0
	for k in patched baseline; do
		lab_use "$k"
		echo "$layout $k: $(lab_pin "${PIN_VCPU[$layout]}" "${PIN_REST[$layout]}")" >> "$OUT/pinning.txt"
	done
	[ -z "$cur" ] || [ "$cur" = main ] || lab_use "$cur"
	client_pin=(taskset -c "${PIN_CLIENT[$layout]}")
	pin_cur=$layout
}


write_meta() {
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
    # make exports ACCEL and VCPUS empty when unset; lab.sh's defaults then apply
    "accel": os.environ.get("ACCEL") or "tcg", "vcpus": os.environ.get("VCPUS") or "1",
    "mem_mib": os.environ.get("MEM") or "512",
    "pinning": {"sweep_layout": "$PIN", "calib_layouts": "$CALIB_PINS",
                "layouts": {l: {"qemu_vcpu_threads": "CPU %s" % v, "qemu_other_threads": "CPU %s" % r, "iperf3_client": "CPU %s" % c}
                            for l, v, r, c in (("none", "0,1", "0,1", "0,1"), ("split", "1", "0", "0"), ("client-on-vcpu", "1", "0", "1"))},
                "applied": sorted(set(open("$OUT/pinning.txt").read().splitlines())) if os.path.exists("$OUT/pinning.txt") else []},
    "parameters": {k: os.environ.get(k, "") for k in ("WEIGHTS", "REFILL", "ADAPTIVE", "IDLE", "DEFER", "RING", "FIFO", "LINK", "LINK_BURST", "BOOT_ORDER", "PROFILES", "REPS", "CALIB", "CALIB_PINS", "PIN", "HIST")},
    "secs": $SECS, "udp1470_rate": "$UDP1470_RATE", "udp64_rate": "$UDP64_RATE",
    "udp1470_rate_source": "$rate_source", "saturation": {"offered": "$SAT_OFFER", "reps": $SAT_REPS,
                                                       "baseline_median_mbps": "$sat_mbps"},
    "started_utc": "$stamp",
}
json.dump(meta, open(sys.argv[1], "w"), indent=2)
PY
}

# Host side of the current guest's link: FIFO depth and pacing.
set_link() {
	local fifo=$1 link=$2
	lab_host ip link set tap0 txqueuelen "$fifo"
	if [ "$link" = none ]; then
		lab_host tc qdisc del dev tap0 root 2>/dev/null || true
	else
		lab_host tc qdisc replace dev tap0 root tbf rate "$link" burst "$LINK_BURST" latency 20ms
	fi
}

tapdrops() { lab_host cat /sys/class/net/tap0/statistics/tx_dropped; }
# Drops of the host's qdisc on tap0 (the LINK tbf): a place the tap's
# tx_dropped does not count.
qdiscdrops() {
	lab_host tc -s qdisc show dev tap0 root |
		awk '{ for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); s += $(i + 1) } }
		     END { print s + 0 }'
}

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

# The places one zero-loss trial is attributed to, one line "fifo link sock
# softnet": the tap's and the qdisc's drops on the host, the guest's UDP
# socket and backlog drops (one benchsnap).
zl_counters() {
	echo "$(tapdrops) $(qdiscdrops) $(lab_ctl benchsnap after |
		awk '$1 == "udp_RcvbufErrors" { r = $2 } $1 == "softnet_dropped" { d = $2 }
		     END { print r + 0, d + 0 }')"
}

# One zero-loss trial: zl_trial LEN RATE_MBPS OUT.json; succeeds when the
# trial lost at most 0.1 %. Appends "rate ok|fail sent lost fifo link sock
# softnet" to OUT.json.trials, the drops counted around this trial alone, so
# the loss that ends the bisection can be attributed.
zl_trial() {
	local len=$1 rate=$2 out=$3 c0 c1 verdict=fail
	c0=$(zl_counters)
	iperf "$out.try" -u -l "$len" -b "${rate}M"
	c1=$(zl_counters)
	! udp_loss_ok "$out.try" || verdict=ok
	python3 -c 'import json, sys
try:
    s = json.load(open(sys.argv[1]))["end"]["sum"]
    sent, lost = s["packets"], s["lost_packets"]
except (OSError, ValueError, KeyError):
    sent = lost = "-"
c = list(map(int, sys.argv[4:12]))
print(sys.argv[2], sys.argv[3], sent, lost, *(b - a for a, b in zip(c[:4], c[4:])))' \
		"$out.try" "$rate" "$verdict" $c0 $c1 >> "$out.trials"
	[ "$verdict" = ok ]
}

# RFC 2544 throughput: the highest rate with <= 0.1 % loss, by bisection on a
# log scale between 1 Mbit/s and HI until within 5 %. Leaves the last passing
# run in OUT.json, every trial in OUT.json.trials, and prints the rate found
# in Mbit/s (0 if none passed).
zeroloss() {
	local len=$1 out=$2 lo=0 hi=$3 mid
	: > "$out.trials"
	if zl_trial "$len" "$hi" "$out"; then cp "$out.try" "$out"; echo "$hi"; return; fi
	lo=1
	zl_trial "$len" "$lo" "$out" || { cp "$out.try" "$out"; echo 0; return; }
	cp "$out.try" "$out"
	while ((hi * 100 > lo * 105)); do
		mid=$(python3 -c "import math; print(max($lo + 1, round(math.sqrt($lo * $hi))))")
		((mid < hi)) || break
		if zl_trial "$len" "$mid" "$out"; then lo=$mid; cp "$out.try" "$out"; else hi=$mid; fi
	done
	echo "$lo"
}

run_one() {
	local kernel=$1 role=$2 w=$3 n=$4 a=$5 i=$6 d=$7 ring=$8 fifo=$9 link=${10} pin=${11}
	local prof=${12} rep=${13} dir=$OUT/raw/$k_run t0 t1 q0 q1 res=- offered= rate=$UDP1470_RATE
	mkdir -p "$dir"
	apply_pin "$pin"
	lab_use "$kernel"
	[ "$role" != sat ] || rate=$SAT_OFFER
	if [ "$kernel" = patched ]; then
		lab_ctl benchset "$w" "$n" "$a" "$i" "$d" "$ring" >/dev/null
	else
		lab_ctl benchset - - - - "$d" "$ring" >/dev/null
	fi
	set_link "$fifo" "$link"
	reachable
	lab_ctl benchsnap before > "$dir/before"
	[ "$role" != hist ] || lab_ctl benchhist start >/dev/null
	q0=$(qdiscdrops)
	t0=$(tapdrops)
	case $prof in
	tcp) res=$dir/iperf.json; iperf "$res" ;;
	tcp4) res=$dir/iperf.json; iperf "$res" -P 4 ;;
	udp1470) res=$dir/iperf.json; offered=${rate%M}; iperf "$res" -u -l 1470 -b "$rate" ;;
	udp64) res=$dir/iperf.json; offered=${UDP64_RATE%M}; iperf "$res" -u -l 64 -b "$UDP64_RATE" ;;
	idle)
		res=$dir/ping.txt
		lab_host timeout $((SECS + 10)) ping -q -c $((SECS * 5)) -i 0.2 "$LAB_GUEST_IP" > "$res" 2>&1 || true ;;
	zeroloss1470) res=$dir/iperf.json; offered=$(zeroloss 1470 "$res" 1000) ;;
	zeroloss64) res=$dir/iperf.json; offered=$(zeroloss 64 "$res" 200) ;;
	esac
	t1=$(tapdrops)
	q1=$(qdiscdrops)
	lab_ctl benchsnap after > "$dir/after"
	[ "$role" != hist ] || lab_ctl benchhist stop >> "$dir/after"
	python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
		kernel="$kernel" role="$role" weight="$w" refill="$n" adaptive="$a" idle_limit="$i" defer="$d" \
		ring="$ring" fifo="$fifo" link="$link" pin="$pin" profile="$prof" rep="$rep" secs="$SECS" \
		offered_mbps="$offered" link_drops=$((q1 - q0)) trials="$res.trials" || echo "bench: run $k_run ($kernel $prof) recorded an error" >&2
}

# zeroloss expands to one run per frame size.
expand() {
	local line=$1 prof
	prof=$(cut -f12 <<<"$line")
	if [ "$prof" = zeroloss ]; then
		sed 's/\tzeroloss\t/\tzeroloss1470\t/' <<<"$line"
		sed 's/\tzeroloss\t/\tzeroloss64\t/' <<<"$line"
	else
		echo "$line"
	fi
}
while IFS= read -r l; do expand "$l"; done < "$OUT/plan.tsv" > "$OUT/plan-expanded.tsv"
total=$(wc -l < "$OUT/plan-expanded.tsv")

# The goals' ring: 256 if swept, else the first RING.
ring_goal=$(for r in $RING; do echo "$r"; done | grep -x 256 || echo "${RING%% *}")
# Saturation first (role sat): udp1470 offering SAT_OFFER on both kernels at
# their defaults; half the baseline's median received rate becomes
# UDP1470_RATE unless it was given.
: > "$OUT/sat.tsv"
rate_source=given sat_mbps=
if [ -z "$UDP1470_RATE" ]; then
	rate_source="half the baseline's median saturation rate"
	[[ " $PROFILES " = *" udp1470 "* ]] || [ "$HIST" = 1 ] || rate_source=unused UDP1470_RATE=-
	[ "$UDP1470_RATE" = - ] || ((SAT_REPS > 0)) || die "SAT_REPS=0 needs UDP1470_RATE"
	if [ "$UDP1470_RATE" != - ]; then
		for rep in $(seq "$SAT_REPS"); do
			for k in baseline patched; do
				printf '%s\tsat\t64\t16\toff\t0\t0\t%s\t%s\t%s\t%s\tudp1470\t%s\n' \
					"$k" "$ring_goal" "${FIFO%% *}" "${LINK%% *}" "$PIN" "$rep"
			done
		done > "$OUT/sat.tsv"
	fi
fi
total=$(( $(wc -l < "$OUT/sat.tsv") + $(wc -l < "$OUT/plan-expanded.tsv") ))

start=$SECONDS
k_run=0
do_runs() {
	local kernel role w n a i d ring fifo link pin prof rep el eta
	while IFS=$'\t' read -r kernel role w n a i d ring fifo link pin prof rep; do
		k_run=$((k_run + 1))
		el=$((SECONDS - start))
		eta=$(( k_run > 1 ? el * (total - k_run + 1) / (k_run - 1) : 0 ))
		printf '\rbench: run %d of %d  %dm%02ds elapsed, ETA %dm%02ds  %-8s %-5s w=%-4s n=%-3s ring=%-4s %-14s %-12s' \
			"$k_run" "$total" $((el / 60)) $((el % 60)) $((eta / 60)) $((eta % 60)) \
			"$kernel" "$role" "$w" "$n" "$ring" "$pin" "$prof"
		run_one "$kernel" "$role" "$w" "$n" "$a" "$i" "$d" "$ring" "$fifo" "$link" "$pin" "$prof" "$rep" < /dev/null
	done < "$1"
}
echo "bench: $total runs, results in ${OUT#"$top"/}"
do_runs "$OUT/sat.tsv"
if [ -s "$OUT/sat.tsv" ]; then
	sat_mbps=$(python3 -c 'import csv, statistics, sys
v = [float(r["mbps"]) for r in csv.DictReader(open(sys.argv[1]))
     if r["role"] == "sat" and r["kernel"] == "baseline" and r["mbps"]]
print("%.1f" % statistics.median(v) if v else "")' "$csv")
	[ -n "$sat_mbps" ] || die "no saturation measurement of the baseline (see $OUT/raw/*/iperf.json.err)"
	UDP1470_RATE=$(python3 -c "print('%dM' % max(1, round($sat_mbps / 2)))")
	printf '\nbench: baseline saturates at %s Mbit/s (median of %s); udp1470 offers %s\n' \
		"$sat_mbps" "$SAT_REPS" "$UDP1470_RATE"
fi
write_meta
do_runs "$OUT/plan-expanded.tsv"
write_meta	# again, with every CPU layout as applied
echo
for k in patched baseline; do
	lab_use "$k"
	lab_poweroff || true
	cp "$LAB_RUN/console.log" "$OUT/console-$k.log"
	cp "$LAB_RUN/qemu.cmdline" "$OUT/qemu-$k.cmdline"
	splats=$(lab_console_splats)
	[ -z "$splats" ] || echo "bench: the $k kernel logged errors (see $OUT/console-$k.log): $splats" >&2
done
/usr/bin/python3 "$top/bench/report.py" "$OUT"

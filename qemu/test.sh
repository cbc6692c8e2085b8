#!/bin/bash
# make test: boot the patched kernel under QEMU and test it there.
# Prints one KTAP document (guest scripts' KTAP as subtests) and closes with
# "# N skipped" and then "N passed, N failed", counting every leaf test case
# (a skip is neither); exits non-zero on any failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"

KERNEL=${KERNEL:-$(lab_kernel patched)/bzImage}
INITRD=${INITRD:-$top/build/initramfs.img}
PASS=0 FAIL=0 SKIP=0 TOP=0

summary() {
	echo "# console log: ${LAB_RUN#"$top"/}/console.log"
	echo "# $SKIP skipped"
	echo "$PASS passed, $FAIL failed"
}

# Top-level result of a host-side test: result RC NAME [DIAG]
result() {
	local rc=$1 name=$2
	TOP=$((TOP + 1))
	[ -n "${3:-}" ] && ktap_diag "$3"
	if [ "$rc" -eq 0 ]; then
		PASS=$((PASS + 1))
		echo "ok $TOP $name"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $TOP $name"
	fi
}

ktap_diag() {
	local l
	while IFS= read -r l; do echo "# $l"; done <<<"$*"
}

# A fatal lab error (boot, channel) is one failed test, then the summary.
lab_on_die() {
	result 1 "${PHASE:-lab}" "$*"
	summary
}

# Run a guest KTAP script as a subtest: guest_ktap NAME TIMEOUT COMMAND...
# Each of its cases counts; a short count against its plan is one failure more.
guest_ktap() {
	local name=$1 t=$2 out rc=0
	shift 2
	out=$(lab_ctl --timeout "$t" "$@") || rc=$?
	subtest "$name" "$rc" "$out"
}

# A host-side KTAP script as a subtest: host_ktap NAME TIMEOUT COMMAND...
host_ktap() {
	local name=$1 t=$2 out rc=0
	shift 2
	out=$(timeout "$t" "$@" 2>&1) || rc=$?
	subtest "$name" "$rc" "$out"
}

# subtest NAME RC OUTPUT: count a KTAP subtest's cases, print it indented.
subtest() {
	local name=$1 rc=$2 out=$3 plan ran ok notok skip
	echo "    # Subtest: $name"
	sed 's/^/    /' <<<"$out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out" | head -1)
	ok=$(grep -cE '^ok [0-9]+' <<<"$out" || true)
	skip=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$out" || true)
	notok=$(grep -cE '^not ok [0-9]+' <<<"$out" || true)
	ran=$((ok + notok))
	PASS=$((PASS + ok - skip)) SKIP=$((SKIP + skip)) FAIL=$((FAIL + notok))
	if [ -z "$plan" ] || [ "$ran" -ne "$plan" ]; then
		FAIL=$((FAIL + 1))
		ktap_diag "$name: planned ${plan:-?}, ran $ran (exit $rc)"
		rc=1
	fi
	TOP=$((TOP + 1))
	if [ "$rc" -eq 0 ] && [ "$notok" -eq 0 ]; then
		echo "ok $TOP $name"
	else
		echo "not ok $TOP $name"
	fi
}

# UDP from the host to the guest, bounded: flood SECS RATE LEN OUT.json
flood() {
	lab_host timeout $(( $1 + 20 )) iperf3 -u -c "$LAB_GUEST_IP" -b "$2" -l "$3" \
		-t "$1" --json > "$4" 2> "$4.err"
}

# Wait (bounded) for a background host job: wait_job PID LIMIT_S NAME
wait_job() {
	local deadline=$((SECONDS + $2))
	while kill -0 "$1" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
	if kill -0 "$1" 2>/dev/null; then
		kill "$1" 2>/dev/null || true
		echo "$3 still running after $2 s" >&2
		return 1
	fi
	wait "$1"
}

iperf3_mbps() {	# received Mbit/s from an iperf3 --json file, or nothing
	/usr/bin/python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' "$1" 2>/dev/null
}

# A second NIC, virtio-net with TX NAPI off, for the weight knob's
# weight_txnapi test (qemu/lib/lab.sh); the e1000 stays eth0.
export LAB_VIRTIO=${LAB_VIRTIO:-1}

echo "KTAP version 1"
lab_init test

PHASE=boot
lab_boot "$KERNEL" "$INITRD"
result 0 boot "$(lab_ctl 'uname -r; cat /proc/cmdline')"

PHASE=kunit
guest_ktap kunit 30 /lab/tests/kunit e1000_policy e1000_quota

PHASE=sysfs_weight
guest_ktap sysfs_weight 60 /lab/tests/sysfs-weight eth0

# netdev netlink's napi-get reports each instance's weight (6.12's patch 11;
# 6.1 has no netdev family, so the 6.1 suite has no such case).
if [ "$LAB_LINUX" = 6.12 ]; then
	PHASE=napi_get
	guest_ktap napi_get 120 /lab/tests/napi-get eth0 eth1
fi

# The wake-up probe's floor (issue 21, observation 2): idle, before traffic.
PHASE=wakeup_idle
guest_ktap wakeup_idle 30 /lab/tests/wakeup-idle 3

# The bench's softirq knobs at the defaults bench/knobs.py gives them, and
# the wake-up probe as a bench run starts and stops it.
PHASE=softirq_knobs
softirq_defaults=$(cd "$top/bench" && /usr/bin/python3 -c 'import knobs
print(knobs.KNOBS["NETDEV_BUDGET"].default, knobs.KNOBS["NETDEV_BUDGET_USECS"].default)')
# shellcheck disable=SC2086 # two numbers
guest_ktap softirq_knobs 60 /lab/tests/softirq-knobs $softirq_defaults

PHASE=weight_under_traffic
lab_ctl /lab/iperf3-server
lab_host iperf3 -c "$LAB_GUEST_IP" -t 8 --json >"$LAB_RUN/iperf3-weight.json" 2>&1 &
client=$!
guest_ktap weight_under_traffic 60 /lab/tests/weight-trace eth0 16 48 2
deadline=$((SECONDS + 30))
while kill -0 "$client" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
if kill -0 "$client" 2>/dev/null; then
	kill "$client"
	result 1 iperf3_host_to_guest "iperf3 client still running 30 s after the 8 s test"
else
	rc=0
	wait "$client" || rc=$?
	mbps=$(iperf3_mbps "$LAB_RUN/iperf3-weight.json")
	if [ "$rc" -eq 0 ] && [ -n "$mbps" ] && /usr/bin/python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$mbps"; then
		result 0 iperf3_host_to_guest "host to guest TCP: $mbps Mbit/s"
	else
		result 1 iperf3_host_to_guest "iperf3 exit $rc: $(tail -5 "$LAB_RUN/iperf3-weight.json")"
	fi
fi

PHASE=e1000_trace
flood 8 200M 1470 "$LAB_RUN/flood-trace.json" &
job=$!
guest_ktap e1000_trace 60 /lab/tests/e1000-trace 32 3
wait_job "$job" 40 "iperf3 UDP flood" || true

PHASE=refill
for n in 0 4 16; do
	lab_ctl /lab/tests/refill-phase begin "$n"
	rc=0
	flood 3 300M 1470 "$LAB_RUN/flood-refill-$n.json" || rc=$?
	[ "$rc" -eq 0 ] || ktap_diag "iperf3 UDP flood exit $rc: $(tail -3 "$LAB_RUN/flood-refill-$n.json")"
	guest_ktap "refill_n$n" 30 /lab/tests/refill-phase end "$n"
done

PHASE=ring_dry
# hw_min (patch 10): at ring 48, refill 0 drains the ring during polls.
for n in 0 16; do
	lab_ctl /lab/tests/ring-dry begin "$n"
	rc=0
	flood 3 300M 1470 "$LAB_RUN/flood-ring-dry-$n.json" || rc=$?
	[ "$rc" -eq 0 ] || ktap_diag "iperf3 UDP flood exit $rc: $(tail -3 "$LAB_RUN/flood-ring-dry-$n.json")"
	guest_ktap "ring_dry_n$n" 40 /lab/tests/ring-dry end "$n"
done

PHASE=napi_hist
# The bench's tracepoint histogram (both kernels) agrees with the driver's.
lab_ctl /lab/tests/napi-hist begin
flood 3 200M 1470 "$LAB_RUN/flood-napi-hist.json" || true
guest_ktap napi_hist 30 /lab/tests/napi-hist end

PHASE=adaptive
# The weight bounds the adaptive quota; adaptive off keeps quota == budget.
lab_ctl /lab/tests/adaptive-phase begin w8 8 on 200 1
flood 3 100M 1470 "$LAB_RUN/flood-adaptive-w8.json" || true
guest_ktap adaptive_weight8 30 /lab/tests/adaptive-phase end w8
lab_ctl /lab/tests/adaptive-phase begin off 64 off
flood 3 100M 1470 "$LAB_RUN/flood-adaptive-off.json" || true
guest_ktap adaptive_off 30 /lab/tests/adaptive-phase end off
# Two traffic types with different costs per packet, weight 64, quota_min 1,
# a 200 us target (about 23 packets at 8.5 us: below the weight, so that the
# quota follows the cost instead of sitting at the budget).
lab_ctl /lab/tests/adaptive-phase begin udp64 64 on 200 1
flood 3 20M 64 "$LAB_RUN/flood-adaptive-udp64.json" || true
guest_ktap adaptive_udp64 30 /lab/tests/adaptive-phase end udp64
lab_ctl /lab/tests/adaptive-phase begin tcp 64 on 200 1
lab_host timeout 30 iperf3 -c "$LAB_GUEST_IP" -t 3 --json > "$LAB_RUN/adaptive-tcp.json" 2>&1 || true
guest_ktap adaptive_tcp 30 /lab/tests/adaptive-phase end tcp
read -r c1 q1 <<<"$(lab_ctl /lab/tests/adaptive-phase cost udp64)"
read -r c2 q2 <<<"$(lab_ctl /lab/tests/adaptive-phase cost tcp)"
diag="median cost/quota: udp64 ${c1} ns/${q1}, tcp ${c2} ns/${q2}"
if /usr/bin/python3 -c "import sys; c1,q1,c2,q2=map(float,sys.argv[1:]); sys.exit(not (min(c1,c2) > 0 and max(c1,c2) >= 1.2 * min(c1,c2)))" "$c1" "$q1" "$c2" "$q2"; then
	/usr/bin/python3 -c "import sys; c1,q1,c2,q2=map(float,sys.argv[1:]); r=(q1/q2)/(c2/c1); sys.exit(not 0.7 <= r <= 1.3)" "$c1" "$q1" "$c2" "$q2"
	result $? quota_inverse_to_cost "$diag"
else
	TOP=$((TOP + 1)) SKIP=$((SKIP + 1))
	ktap_diag "$diag"
	echo "ok $TOP quota_inverse_to_cost # SKIP the two costs differ by less than 20 %"
fi

PHASE=devlink_params
guest_ktap devlink_params 60 /lab/tests/devlink-params

PHASE=ring_batch_race
# rx_refill_batch written while ethtool -G resizes the ring: never above it.
guest_ktap ring_batch_race 180 /lab/tests/ring-batch-race

PHASE=knob_churn
# A flood the guest can take while it still has CPU for a change every 100 ms.
CHURN_SECS=${CHURN_SECS:-30}
lab_ctl /lab/tests/knob-churn begin
flood $((CHURN_SECS + 3)) 50M 1470 "$LAB_RUN/flood-churn.json" &
job=$!
lab_ctl --timeout $((CHURN_SECS + 60)) /lab/tests/knob-churn run "$CHURN_SECS"
rc=0
wait_job "$job" 60 "iperf3 UDP flood" || rc=$?
guest_ktap knob_churn 30 /lab/tests/knob-churn end
result "$rc" flood_survived_knob_churn "$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print("%d of %d datagrams lost" % (e["lost_packets"], e["packets"]))' "$LAB_RUN/flood-churn.json" 2>&1 || true)"

PHASE=ethtool_selftest
guest_ktap ethtool_selftest 60 /lab/tests/ethtool-selftest eth0

PHASE=weight_optout
# A driver that did not opt in (veth with GRO on) keeps its weight.
guest_ktap weight_optout 60 /lab/tests/weight-optout

PHASE=weight_txnapi
# Last guest test: on a kernel with the bug, `ip link set down` hangs with
# rtnl_lock held and nothing that needs rtnl works afterwards.
guest_ktap weight_txnapi 90 /lab/tests/weight-txnapi eth1

PHASE=poweroff
rc=0
lab_poweroff || rc=$?
result "$rc" clean_poweroff

splats=$(lab_console_splats)
result "$([ -z "$splats" ] && echo 0 || echo 1)" console_free_of_splats "$splats"

# Two e1000 NICs on one vCPU (NICS=2, eth1 on tap1 in a netns of its own):
# both flooded at once, each NIC's weight bounds its own polls, and changing
# eth0's leaves eth1's alone.
PHASE=two_nic
lab_new twonic
NICS=2 LAB_VIRTIO=0 lab_boot "$KERNEL" "$INITRD"
lab_ctl /lab/iperf3-server >/dev/null
lab_ctl /lab/iperf3-server 5202 >/dev/null
flood 8 60M 1470 "$LAB_RUN/flood-nic0.json" &
job0=$!
lab_host1 timeout 28 iperf3 -u -c "$LAB_GUEST_IP1" -p 5202 -b 60M -l 1470 -t 8 --json \
	> "$LAB_RUN/flood-nic1.json" 2> "$LAB_RUN/flood-nic1.json.err" &
job1=$!
guest_ktap two_nic 60 /lab/tests/two-nic 16 32 8 2
rc=0
wait_job "$job0" 40 "iperf3 UDP flood on eth0" || rc=$?
wait_job "$job1" 40 "iperf3 UDP flood on eth1" || rc=$?
result "$rc" two_nic_floods_completed "$(for f in "$LAB_RUN"/flood-nic[01].json; do
	/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print("%s: %d of %d datagrams lost" % (sys.argv[1].split("/")[-1], e["lost_packets"], e["packets"]))' "$f" 2>&1 || true
done)"
rc=0
lab_poweroff || rc=$?
result "$rc" two_nic_clean_poweroff
splats=$(lab_console_splats)
result "$([ -z "$splats" ] && echo 0 || echo 1)" two_nic_console_free_of_splats "$splats"

# The harness itself, on the host: bad input stops before anything runs;
# interrupted runs leave nothing behind; one run at a time. The guest is
# gone; the lock is released so that these tests can start runs of their own.
lab_teardown
# The bench's Python tests (make unit: bench/tests, pytest), each a result:
# statistics, rows, plan, report and layout report on synthetic data, and
# the sweeps recorded in docs/results/ re-rendered (no guest, seconds).
PHASE=bench_unit
host_ktap bench_unit 300 /usr/bin/python3 "$top/bench/ktap.py"
# The compared kernels: one config but for the series, page-aligned code.
PHASE=layout
host_ktap layout 300 "$top/qemu/hosttests/layout"
if [ "${HOST_TESTS:-1}" = 1 ]; then
	PHASE=deps
	host_ktap deps 120 "$top/qemu/hosttests/deps"
	PHASE=bad_input
	host_ktap bad_input 600 "$top/qemu/hosttests/bad-input"
	PHASE=interruption
	host_ktap interruption 2400 "$top/qemu/hosttests/interrupt"
	PHASE=failures
	host_ktap failures 1800 "$top/qemu/hosttests/failures"
fi
# Both trees in one sweep (make bench LINUX="6.1 6.12"): with the 6.12
# suite, whose kernels it needs (6.1's are built if missing), whatever
# HOST_TESTS says: it tests the cross-tree sweep, not the harness alone.
if [ "$LAB_LINUX" = 6.12 ]; then
	PHASE=trees
	host_ktap trees 2400 "$top/qemu/hosttests/trees"
fi

# The soak's console scanner on canned consoles of every kind of kernel
# report (make soak; no guest, no lab run, a second or so).
PHASE=console_scanner
host_ktap console_scanner 60 /usr/bin/python3 "$top/qemu/soak/test_scan.py"

echo "1..$TOP"
summary
[ "$FAIL" -eq 0 ]

#!/bin/bash
# make race: the soak's findings as focused reproducers, one race at a time,
# on a debug kernel with 2 vCPUs, under TCP in both
# directions (host -> guest on 5201, guest -> host on 5202 with -R):
#
#   qemu/race.sh VARIANT tp     napi:napi_poll and e1000:e1000_napi_poll
#                               switched on and off in a tight loop (module
#                               text patched while the other vCPU runs the
#                               poll in softirq)
#   qemu/race.sh VARIANT down   ethtool -G eth0 tx 512 / tx 256 in a loop
#                               (e1000_down() while the poll cleans TX and
#                               the stack transmits); NAPI threaded
#
# VARIANT is debug (patched tree) or baseline-debug. RACE_SECS (120) long;
# TCG_THREAD=multi|single chooses QEMU's TCG threading (see docs/harness.md,
# "What the soak found"). Prints the KTAP of its checks and ends
# "N passed, N failed": the guest answered throughout, and its console holds
# no report (qemu/soak/scan.py).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"
. "$top/qemu/lib/checks.sh"

variant=${1:-} what=${2:-}
case $variant in
debug) baseline=0 ;;
baseline-debug) baseline=1 ;;
*) echo "race: usage: qemu/race.sh debug|baseline-debug tp|down" >&2; exit 2 ;;
esac
case $what in
tp | down) ;;
*) echo "race: usage: qemu/race.sh debug|baseline-debug tp|down" >&2; exit 2 ;;
esac
secs=${RACE_SECS:-120}
[[ $secs =~ ^[1-9][0-9]{0,4}$ ]] && ((secs >= 10)) ||
	{ echo "race: RACE_SECS: at least 10 seconds, not '$secs'" >&2; exit 2; }
KERNEL=$top/build/$variant/bzImage
INITRD=$top/build/$variant/initramfs.img
export VCPUS=${VCPUS:-2} MEM=${MEM:-1024} BOOT_TIMEOUT=${BOOT_TIMEOUT:-300} LAB_VIRTIO=0 NICS=1
export LAB_APPEND="acpi=noirq"	# as qemu/soak.sh
G=$LAB_GUEST_IP
clients=()

report() {
	checks_ktap "race $what on $variant, RACE_SECS=$secs, VCPUS=$VCPUS, TCG_THREAD=${TCG_THREAD:-multi}"
}
scan() {	# every report counts here: no known list
	local rc=0
	checks_scan "$baseline" || rc=$?
	result "$rc" console_free_of_reports "$(cat "$LAB_RUN/reports.txt")"
}
lab_on_die() {
	result 1 "${PHASE:-lab}" "$*"
	[ -f "$LAB_RUN/console.log" ] && scan
	report | tee "$LAB_RUN/race.ktap"
}
lab_on_exit() {
	local p
	for p in "${clients[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${clients[@]}"; do wait "$p" 2>/dev/null || true; done
}

lab_init race
PHASE=boot
lab_boot "$KERNEL" "$INITRD"
out=$(lab_ctl --timeout 120 /lab/soak/soak setup) || lab_die "guest setup failed: $out"
if [ "$what" = tp ]; then
	# As the churn does it: napi:napi_poll (core text), then the e1000
	# event (module text; the baseline has none); NAPI in softirq, as in
	# the soak's oopses.
	loop='ev=/sys/kernel/tracing/events; tps=$ev/napi/napi_poll/enable
		[ -e $ev/e1000/e1000_napi_poll/enable ] && tps="$tps $ev/e1000/e1000_napi_poll/enable"
		echo "events $tps"
		n=0; end=$((SECONDS + S)); while ((SECONDS < end)); do
		for v in 1 0; do for f in $tps; do echo $v > $f || exit 1; done; done
		n=$((n + 1)); done; echo "toggles $n"'
else
	lab_ctl 'echo 1 > /sys/class/net/eth0/threaded' || lab_die "cannot make eth0's NAPI threaded"
	loop='n=0; end=$((SECONDS + S)); while ((SECONDS < end)); do
		ethtool -G eth0 tx 512 || exit 1; sleep 0.3
		ethtool -G eth0 tx 256 || exit 1; sleep 0.3
		n=$((n + 1)); done; echo "resizes $((2 * n))"'
fi

PHASE=race
# The clients outlast the loop; a run cut short by a resize is restarted.
for args in "-p 5201" "-p 5202 -R"; do
	# shellcheck disable=SC2086 # two fixed argument lists
	(
		c=
		trap '[ -z "$c" ] || kill "$c" 2>/dev/null; exit 0' TERM
		end=$((SECONDS + secs + 20))
		while ((SECONDS < end)); do
			ip netns exec "$LAB_NS" timeout $((secs + 30)) iperf3 -c "$G" $args -t $((end - SECONDS)) \
				>> "$LAB_RUN/iperf3${args// /}.log" 2>&1 9>&- &
			c=$!
			wait "$c" || sleep 1
			c=
		done
	) 9>&- &
	clients+=($!)
done
sleep 3
out=$(lab_ctl --timeout $((secs + 120)) "S=$secs; $loop" 2>&1) && rc=0 || rc=$?
result "$rc" "loop_ran" "$out"
lab_on_exit
clients=()
PHASE=after
rc=0
lab_ctl --timeout 60 'ip -s link show eth0 >/dev/null' || rc=$?
result "$rc" guest_answers_after
rc=0
if kill -0 "$LAB_QEMU_PID" 2>/dev/null; then
	lab_poweroff || rc=$?
	result "$rc" clean_poweroff
else
	result 1 clean_poweroff "QEMU had exited before the poweroff: the guest died"
fi
scan
report | tee "$LAB_RUN/race.ktap"
[ "$FAIL" -eq 0 ]

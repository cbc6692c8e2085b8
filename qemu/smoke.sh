#!/bin/bash
# make (until the bench exists): boot the patched kernel, run one short
# host-to-guest iperf3 run, print the weight and the NIC counters around it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"
SECS=${SECS:-5}

lab_init smoke
lab_boot "${KERNEL:-$(lab_kernel patched)/bzImage}" "${INITRD:-$top/build/initramfs.img}"
lab_ctl /lab/iperf3-server
echo "== guest $(lab_ctl uname -r): eth0 weight $(lab_ctl cat /sys/class/net/eth0/weight)"
irqs() { lab_ctl "awk '/eth0/ { print \$2 }' /proc/interrupts"; }
lab_ctl 'ethtool -S eth0' > "$LAB_RUN/ethtool-before.txt"
irq0=$(irqs)
lab_host iperf3 -c "$LAB_GUEST_IP" -t "$SECS" --json > "$LAB_RUN/iperf3.json" ||
	lab_die "iperf3 failed: $(tail -5 "$LAB_RUN/iperf3.json")"
lab_ctl 'ethtool -S eth0' > "$LAB_RUN/ethtool-after.txt"
irq1=$(irqs)
/usr/bin/python3 - "$LAB_RUN/iperf3.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
print("== iperf3 TCP host->guest %ss: %.1f Mbit/s received, %d retransmits"
      % (round(e["sum_sent"]["seconds"]), e["sum_received"]["bits_per_second"] / 1e6,
         e["sum_sent"].get("retransmits", 0)))
PY
echo "== e1000 counters that moved (ethtool -S eth0, delta over the run):"
join <(sed -n 's/^ *\([a-z0-9_]*\): \([0-9]*\)$/\1 \2/p' "$LAB_RUN/ethtool-before.txt" | sort) \
     <(sed -n 's/^ *\([a-z0-9_]*\): \([0-9]*\)$/\1 \2/p' "$LAB_RUN/ethtool-after.txt" | sort) |
	awk '$3 != $2 { printf "   %-24s %12d\n", $1, $3 - $2 }'
echo "== host tap0 (the NIC FIFO, txqueuelen ${FIFO:-32}): tx_dropped $(lab_host cat /sys/class/net/tap0/statistics/tx_dropped)"
echo "== guest: eth0 interrupts during the run: $((irq1 - irq0))"
lab_poweroff
echo "== console log: ${LAB_RUN#"$top"/}/console.log"

#!/bin/bash
# Idle ping RTT of each kernel booted alone, one guest at a time, alternating
# patched and baseline REPS (3) times: the control for the bench's two guests
# side by side (docs/results.md, the idle RTT goal). Prints one line a boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/qemu/lib/lab.sh"
REPS=${REPS:-3} PINGS=${PINGS:-25}
for k in "$(lab_kernel patched)/bzImage" "$(lab_kernel baseline)/bzImage" "$top/build/initramfs.img"; do
	[ -f "$k" ] || { echo "idle-alone: $k missing (make kernel baseline initramfs)" >&2; exit 1; }
done
lab_init idlealone
for rep in $(seq "$REPS"); do
	for k in patched baseline; do
		img=$(lab_kernel "$k")/bzImage
		lab_new "$k$rep"
		lab_boot "$img" "$top/build/initramfs.img"
		sleep 3	# let the boot's own work settle
		r=$(lab_host timeout $((PINGS / 5 + 10)) ping -q -c "$PINGS" -i 0.2 "$LAB_GUEST_IP" |
			sed -n 's/.*= [0-9.]*\/\([0-9.]*\)\/.*/\1/p') || true
		echo "rep $rep $k alone: avg rtt ${r:-(no answer)} ms"
		lab_poweroff
	done
done

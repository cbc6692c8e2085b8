#!/bin/bash
# make boot: the patched kernel with a shell on the console, the e1000 on a tap
# in a private netns (host side 198.18.0.1). Ctrl-A x quits QEMU.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/lab.sh"
lab_init boot
echo "lab: host side: ip netns exec $LAB_NS ...  (tap0 $LAB_HOST_IP, guest $LAB_GUEST_IP)"
lab_boot "${KERNEL:-$(lab_kernel patched)/bzImage}" "${INITRD:-$top/build/initramfs.img}" shell

#!/bin/bash
# Build build/initramfs.img: bash, the guest tools and qemu/guest/ as /lab,
# with qemu/guest/init as /init. Uncompressed, so the kernel needs no
# decompressor. Rebuilt only when an input changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/initramfs.img
stage=$top/build/initramfs
tools=(
	ip ethtool iperf3 devlink setpriv stty base64 cat grep sed awk sort uniq wc
	head tail tr cut uname basename dirname join readlink sleep date mount umount dmesg ls mkdir rm cp mv ln chmod seq
	timeout env tee ps nproc taskset
)

mkdir -p "$stage"
gcc -static -O2 -Wall -Wextra -Werror -o "$stage/labutil.new" "$top/qemu/guest/labutil.c"
if cmp -s "$stage/labutil.new" "$stage/labutil"; then
	rm "$stage/labutil.new"
else
	mv "$stage/labutil.new" "$stage/labutil"
fi

paths=()
for t in "${tools[@]}"; do
	p=$(type -P "$t") || { echo "mkinitramfs: $t not found (make deps)" >&2; exit 1; }
	paths+=("$p")
done

stamp=$( (cd "$top" && find qemu/guest qemu/mkinitramfs.sh -type f | LC_ALL=C sort |
	  xargs sha256sum; sha256sum "${paths[@]}") | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$stage/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

echo "  INITRD  build/initramfs.img"
includes=(--include "$top/qemu/guest/init" /init)
for f in "$top"/qemu/guest/bin/* "$stage/labutil"; do
	includes+=(--include "$f" "/lab/$(basename "$f")")
done
for f in "$top"/qemu/guest/tests/*; do
	[ -f "$f" ] && includes+=(--include "$f" "/lab/tests/$(basename "$f")")
done
dracut --quiet --force --no-kernel --no-hostonly --no-compress --no-early-microcode \
	-m bash --install "${paths[*]}" "${includes[@]}" "$out.tmp" 2>"$stage/dracut.log" || {
	cat "$stage/dracut.log" >&2
	echo "mkinitramfs: dracut failed" >&2
	exit 1
}
mv "$out.tmp" "$out"
echo "$stamp" > "$stage/stamp"

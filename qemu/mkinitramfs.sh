#!/bin/bash
# Build build/initramfs.img: bash, the guest tools and qemu/guest/ as /lab,
# with qemu/guest/init as /init. Uncompressed, so the kernel needs no
# decompressor. Rebuilt only when an input changed.
#
#   qemu/mkinitramfs.sh                   build/initramfs.img
#   qemu/mkinitramfs.sh debug             build/debug/initramfs.img
#   qemu/mkinitramfs.sh baseline-debug    build/baseline-debug/initramfs.img
#
# A debug image (make soak) adds the kernel's modules, the module tools and
# qemu/guest/soak/ as /lab/soak; its /init loads e1000 first and then runs
# qemu/guest/init. The soak's files are not in the normal image.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:-}
case $variant in
'') out=$top/build/initramfs.img stage=$top/build/initramfs ;;
debug|baseline-debug)
	out=$top/build/$variant/initramfs.img stage=$top/build/initramfs-$variant
	moddir=$top/build/$variant/modules/lib/modules
	[ -d "$moddir" ] || { echo "mkinitramfs: no modules in ${moddir#"$top"/} (make $variant)" >&2; exit 1; }
	;;
*) echo "mkinitramfs: unknown variant '$variant' (debug or baseline-debug)" >&2; exit 2 ;;
esac
tools=(
	ip ethtool iperf3 devlink nft setpriv stty base64 cat grep sed awk sort uniq wc
	head tail tr cut uname basename dirname join readlink sleep date mount umount dmesg ls mkdir rm cp mv ln chmod seq
	timeout env tee ps nproc taskset unshare nsenter
)
[ -z "$variant" ] || tools+=(modprobe rmmod insmod lsmod)

# The guest's C programs (qemu/guest/*.c named here), static, in /lab.
cprogs=(labutil wakeup napiget)
mkdir -p "$stage"
for c in "${cprogs[@]}"; do
	gcc -static -O2 -Wall -Wextra -Werror -o "$stage/$c.new" "$top/qemu/guest/$c.c"
	if cmp -s "$stage/$c.new" "$stage/$c"; then
		rm "$stage/$c.new"
	else
		mv "$stage/$c.new" "$stage/$c"
	fi
done

paths=()
for t in "${tools[@]}"; do
	p=$(type -P "$t") || { echo "mkinitramfs: $t not found (make deps)" >&2; exit 1; }
	paths+=("$p")
done

stamp=$( (cd "$top" && find qemu/guest qemu/mkinitramfs.sh -path qemu/guest/soak -prune -o -type f -print |
	  LC_ALL=C sort | xargs sha256sum; sha256sum "${paths[@]}"
	  if [ -n "$variant" ]; then
		(cd "$top" && find qemu/guest/soak -type f | LC_ALL=C sort | xargs sha256sum)
		find "$moddir" -type f -printf '%P %s %T@\n' | LC_ALL=C sort
	  fi) | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$stage/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

echo "  INITRD  ${out#"$top"/}"
if [ -z "$variant" ]; then
	includes=(--include "$top/qemu/guest/init" /init)
else
	includes=(--include "$top/qemu/guest/soak/init" /init
		  --include "$top/qemu/guest/init" /lab/init-lab
		  --include "$moddir" /lib/modules)
	for f in "$top"/qemu/guest/soak/*; do
		[ "${f##*/}" = init ] || includes+=(--include "$f" "/lab/soak/$(basename "$f")")
	done
fi
for f in "$top"/qemu/guest/bin/* "${cprogs[@]/#/$stage/}"; do
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

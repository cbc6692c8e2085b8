#!/bin/bash
# Build a kernel from the Debian linux-source-6.1 tarball (LINUX=6.12: from
# linux-source-6.12).
#
#   qemu/build-kernel.sh patched          -> build/kernel/{bzImage,config}
#   qemu/build-kernel.sh baseline         -> build/baseline/{bzImage,config}
#   qemu/build-kernel.sh baseline-pad     -> build/baseline-pad/... (PAD)
#   qemu/build-kernel.sh debug            -> build/debug/{bzImage,config,modules}
#   qemu/build-kernel.sh baseline-debug   -> build/baseline-debug/...
#
# The tree (qemu/lib/tree.sh): LINUX=6.1, the default, builds from
# /usr/src/linux-source-6.1.tar.xz with patches/series into the paths
# above; LINUX=6.12 from /usr/src/linux-source-6.12.tar.xz with
# patches/6.12/series, plus qemu/kernel-6.12.config merged after the other
# fragments, into paths of its own, so that neither tree's build touches
# the other's: build/src/6.12/<tree>, build/obj/6.12/<variant>,
# build/kernel-6.12, build/baseline-6.12, build/baseline-pad-6.12 (and
# their -plain twins). The drivers/ overlay is one for both, its
# kernel-version tests resolved for the tree (qemu/overlay.py). The debug
# variants (make soak, make race) build 6.1 only.
#
# Layout (docs/bench.md, "Code layout"): under TCG a kernel's speed depends on
# where its hot loops sit against 4 KiB guest pages, so the kernels the bench
# compares (patched, baseline, baseline-pad) are built with every C function
# starting on a page of its own: -O2 (qemu/kernel-layout.config) and
# KCFLAGS=-falign-functions=4096 (gcc ignores function alignment at -Os).
# A function whose code is the same then has the same page offsets in every
# image, whatever the series adds before it, in another object or in its
# own. LAYOUT=plain builds them as the lab did before (tinyconfig's -Os,
# natural layout) into build/<dir>-plain/ and build/obj/<variant>-plain/,
# to measure the bias that alignment removes.
# baseline-pad is the baseline tree built with one more object linked first
# in init/: PAD bytes of NOPs (make aa PAD=N: the layout A/A). The hook for
# it (init/lab_layout_pad.S and two lines of init/Makefile) is in the
# baseline tree, inert unless LAB_LAYOUT_PAD_Y=y: the baseline links the
# same objects as the pristine tree. baseline-pad's object directory starts
# as a copy of the baseline's, so only the pad object is built and the
# image relinked. The debug variants keep the natural layout (they are
# never compared for speed).
#
# The debug variants (make soak) build the patched and the baseline source
# trees into object directories of their own (build/obj/debug,
# build/obj/baseline-debug) with qemu/kernel-debug.config merged last.
# "patched" applies patches/series and overlays drivers/; "baseline" is the same
# tarball and the same config fragment with neither. The source tree is unpacked
# afresh whenever its inputs (tarball, series, patches, list of overlay files)
# change, so a patch is never applied to a patched tree; the object directory goes
# with it and ccache makes the rebuild cheap. An edit to an overlay file only
# copies that file and rebuilds what depends on it.
set -euo pipefail

variant=${1:?usage: build-kernel.sh patched|baseline|debug|baseline-debug}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/tree.sh"
lab_tree build-kernel.sh
tarball=${KSRC_TAR:-$LAB_KSRC_TAR}
# tree: which source tree (patched or baseline); a debug variant shares it.
layout=${LAYOUT:-aligned}
case $layout in aligned|plain) ;; *) echo "build-kernel.sh: LAYOUT: '$layout' is not one of: aligned plain" >&2; exit 2 ;; esac
pad=${PAD:-6144}
if ! [[ $pad =~ ^(0|[1-9][0-9]{0,7})$ ]] || ((pad % 16 != 0 || pad > 1048576)); then
	echo "build-kernel.sh: PAD: '$pad' is not a multiple of 16 in 0..1048576" >&2
	exit 2
fi
case $variant in
patched) tree=patched out=$top/build/kernel ;;
baseline) tree=baseline out=$top/build/baseline ;;
baseline-pad) tree=baseline out=$top/build/baseline-pad ;;
debug) tree=patched out=$top/build/debug layout=natural ;;
baseline-debug) tree=baseline out=$top/build/baseline-debug layout=natural ;;
*) echo "build-kernel.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac
case $variant in
*debug)
	[ "$LAB_LINUX" = 6.1 ] || {
		echo "build-kernel.sh: LINUX: the debug kernels (make soak, make race) are built from 6.1 only, not $LAB_LINUX" >&2
		exit 2
	}
	;;
esac
fragments=("$top/qemu/kernel.config")
[ "$tree" = patched ] && fragments+=("$top/qemu/kernel-patched.config")
[ "$layout" = aligned ] && fragments+=("$top/qemu/kernel-layout.config")
[ -z "$LAB_FRAGMENT" ] || fragments+=("$LAB_FRAGMENT")
case $variant in *debug) fragments+=("$top/qemu/kernel-debug.config") ;; esac
kcflags=()
[ "$layout" = aligned ] && kcflags=(KCFLAGS=-falign-functions=4096)
out=$out$LAB_KSFX
srcroot=$top/build/src/$LAB_SUB$tree
src=$srcroot/linux
objs=$top/build/obj/$LAB_SUB
obj=$objs$variant
if [ "$layout" = plain ]; then
	out=$out-plain obj=$obj-plain
fi
# The objects live in a direct subdirectory of the source tree, and
# build/obj/<variant> is a link to it: kbuild then names the source ".."
# (srctree) instead of its absolute path, so the patched and the baseline
# tree compile with the same command lines, and ccache (preprocessor mode)
# hits for every file the series does not reach: the second kernel of a
# cold build costs minutes, not a full build.
objdir() { echo "$src/obj-${1#"$objs"}"; }
objreal=$(objdir "$obj")
# Every object directory built from this tree: they go when it is unpacked.
case $tree in
patched) tree_objs=("$objs"patched{,-plain} "${objs}debug") ;;
baseline) tree_objs=("$objs"baseline{,-plain} "$objs"baseline-pad{,-plain}
	"${objs}baseline-debug") ;;
esac

die() { echo "build-kernel.sh: $*" >&2; exit 1; }
log() { echo "  KERNEL  [$variant] $*"; }

[ -r "$tarball" ] || die "$tarball missing (make deps installs $LAB_KSRC_PKG)"

# The series' patches, by name, in LAB_PATCHES (patches/ or patches/6.12/).
pdir=${LAB_PATCHES#"$top"/}
series=()
if [ "$tree" = patched ]; then
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$LAB_PATCHES/$p" ] || die "$pdir/series names $p, which does not exist"
		series+=("$p")
	done < "$LAB_PATCHES/series"
fi

# Everything that decides the content of the unpacked tree.
tree_stamp() {
	stat -c '%n %s %Y' "$tarball"
	echo "variant $tree"
	[ "$tree" != baseline ] || echo "pad hook v1"
	local p
	# A patch's diff, not its commit message (everything up to the first
	# "---" line): rewording a commit must not unpack and rebuild the tree.
	for p in "${series[@]}"; do
		echo "patch $p $(sed '1,/^---$/d' "$LAB_PATCHES/$p" | sha256sum)"
	done
	if [ "$tree" = patched ]; then
		(cd "$top" && find drivers -type f | LC_ALL=C sort)
	fi
}
want_tree=$(tree_stamp | sha256sum | cut -d' ' -f1)

if [ "$(cat "$srcroot/.tree-stamp" 2>/dev/null)" != "$want_tree" ]; then
	log "unpacking $(basename "$tarball")"
	rm -rf "$srcroot" "${tree_objs[@]}"
	mkdir -p "$srcroot/tmp"
	tar -C "$srcroot/tmp" -xf "$tarball"
	mv "$srcroot"/tmp/linux-source-* "$src"
	rmdir "$srcroot/tmp"
	for p in "${series[@]}"; do
		log "applying $p"
		if ! out_patch=$(patch -d "$src" -p1 --batch --forward \
				--no-backup-if-mismatch < "$LAB_PATCHES/$p" 2>&1); then
			echo "$out_patch" >&2
			find "$src" -name '*.rej' -exec sh -c \
				'echo "--- reject: $1"; cat "$1"' _ {} \; >&2
			rm -rf "$srcroot"
			die "patch $p does not apply (rejects above); tree removed"
		fi
	done
	if [ "$tree" = baseline ]; then
		# The layout A/A's hook: with LAB_LAYOUT_PAD_Y=y (baseline-pad
		# only) one object linked before any other text of the image,
		# PAD bytes of NOPs, its size from the environment
		# (LAB_LAYOUT_PAD), so that a new PAD rebuilds this object
		# alone. Not a function: objtool is told to leave it alone.
		cat > "$src/init/lab_layout_pad.S" <<-'EOF'
		/* SPDX-License-Identifier: GPL-2.0 */
		/* The napi lab's layout A/A: LAB_LAYOUT_PAD bytes of text. */
		.pushsection .text, "ax"
		.globl lab_layout_pad
		lab_layout_pad:
		.fill LAB_LAYOUT_PAD, 1, 0x90
		.popsection
		EOF
		cat >> "$src/init/Makefile" <<-'EOF'

		# The napi lab's layout A/A (qemu/build-kernel.sh baseline-pad).
		obj-$(LAB_LAYOUT_PAD_Y) += lab_layout_pad.o
		AFLAGS_lab_layout_pad.o := -DLAB_LAYOUT_PAD=$(LAB_LAYOUT_PAD)
		OBJECT_FILES_NON_STANDARD_lab_layout_pad.o := y
		EOF
	fi
	echo "$want_tree" > "$srcroot/.tree-stamp"
fi

if [ "$tree" = patched ] && [ -d "$top/drivers" ]; then
	# The overlay as it lands in this tree: drivers/ serves 6.1 and 6.12,
	# and qemu/overlay.py resolves its kernel-version tests for this one
	# (no LINUX_VERSION_CODE reaches the tree), staged beside it. -c: copy
	# only files whose content differs, so untouched files keep their mtime
	# and kbuild rebuilds only what changed.
	rm -rf "$srcroot/overlay"
	/usr/bin/python3 "$top/qemu/overlay.py" tree "$LAB_LINUX" "$top/drivers" "$srcroot/overlay"
	rsync -rc "$srcroot/overlay/" "$src/drivers/"
fi

# Objects built from another tree than this one (the tree was unpacked again
# since) would be stale where a file went back to an older mtime.
if [ -f "$obj/.tree-stamp" ] && [ "$(cat "$obj/.tree-stamp")" != "$want_tree" ]; then
	rm -rf "$obj" "$objreal"
fi
# An object directory of the layout before the link (a directory at
# build/obj/<variant>) was built with absolute paths: built again.
[ -L "$obj" ] || rm -rf "$obj"
pad_y=
if [ "$variant" = baseline-pad ]; then
	pad_y=y
	base_obj=${objs}baseline
	[ "$layout" != plain ] || base_obj=$base_obj-plain
	if [ ! -d "$objreal" ] && [ -L "$base_obj" ] &&
		[ "$(cat "$base_obj/.tree-stamp" 2>/dev/null)" = "$want_tree" ]; then
		log "starting from a copy of ${base_obj#"$top"/}"
		rm -rf "$objreal.tmp"
		cp -a "$(objdir "$base_obj")" "$objreal.tmp" && mv "$objreal.tmp" "$objreal"
	fi
fi
mkdir -p "$objreal" "$out" "$(dirname "$obj")"
ln -sfn "$(realpath --relative-to="$(dirname "$obj")" "$objreal")" "$obj"
echo "$want_tree" > "$obj/.tree-stamp"
kmake() {
	make -s -C "$src" O="$obj" ARCH=x86_64 \
		CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="2005-06-15 00:00 UTC" KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab \
		LAB_LAYOUT_PAD="$pad" LAB_LAYOUT_PAD_Y="$pad_y" "${kcflags[@]}" "$@"
}

want_cfg=$( (echo "$want_tree"; echo "${kcflags[*]}"; cat "${fragments[@]}") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$obj/.config-stamp" 2>/dev/null)" != "$want_cfg" ]; then
	log "configuring: tinyconfig + ${fragments[*]#"$top"/}"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	# The last fragment to set a symbol wins (the debug fragment makes
	# e1000 a module); "is not set" lines are not checked.
	missing=$(awk '
		/^CONFIG_[A-Z0-9_]+=/ { n = $0; sub(/=.*/, "", n); want[n] = $0; next }
		/^# CONFIG_[A-Z0-9_]+ is not set/ { delete want[$2] }
		END { for (n in want) print want[n] }' "${fragments[@]}" | LC_ALL=C sort |
		while IFS= read -r line; do
			grep -qxF "$line" "$obj/.config" || echo "$line"
		done)
	[ -z "$missing" ] || die "config symbols dropped by Kconfig (check dependencies): $missing"
	echo "$want_cfg" > "$obj/.config-stamp"
fi

log "building (ccache, -j$(( $(nproc) + 1 )))"
kmake -j"$(( $(nproc) + 1 ))" bzImage
if grep -q '^CONFIG_MODULES=y' "$obj/.config"; then
	kmake -j"$(( $(nproc) + 1 ))" modules
	rm -rf "$out/modules"
	kmake INSTALL_MOD_PATH="$out/modules" modules_install >/dev/null
fi
cp "$obj/arch/x86/boot/bzImage" "$out/bzImage.tmp" && mv "$out/bzImage.tmp" "$out/bzImage"
cp "$obj/.config" "$out/config"
# The layout report (bench/layout.py) reads the symbols of the image.
cp "$obj/System.map" "$out/System.map"
nm -S --defined-only "$obj/vmlinux" > "$out/symbols.tmp" && mv "$out/symbols.tmp" "$out/symbols"
# The functions defined by the objects the series changes (its patches'
# C files and drivers/): bench/layout.py leaves their places out of the
# layout comparison, since they are the series' own doing.
if [ "$tree" = patched ]; then
	{ cat "${series[@]/#/$LAB_PATCHES/}" /dev/null | sed -n 's|^+++ b/\(.*\)\.c\t*.*$|\1|p; s|^+++ b/\(.*\)\.c$|\1|p'
	  (cd "$top" && find drivers -name '*.c' | sed 's/\.c$//'); } | sort -u |
	while read -r f; do
		[ ! -f "$obj/$f.o" ] || nm --defined-only "$obj/$f.o" | awk '$2 ~ /^[tTW]$/ { print $3 }'
	done | sort -u > "$out/series-functions"
fi
printf '%s\n' "layout $layout" "kcflags ${kcflags[*]}" "pad $([ "$pad_y" = y ] && echo "$pad" || echo 0)" > "$out/layout"
# Which tree it was built from (bench/meta.py records it in meta.json).
release=$(kmake -s kernelrelease)
printf '%s\n' "linux $LAB_LINUX" "tarball $(basename "$tarball")" "patches $([ "$tree" = patched ] && echo "$pdir/series" || echo none)" \
	"release $release" > "$out/source"
log "ready: ${out#"$top"/}/bzImage ($release)"

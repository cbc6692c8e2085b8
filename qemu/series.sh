#!/bin/bash
# make series: the series as a maintainer would get it, every prefix built.
#
#  1. Puts patches/NNNN-*.patch and the drivers/ overlay back together
#     (patches/overlay.map says which patch adds each overlay file,
#     patches/overlay/<patch> what a later patch changes in it; every step's
#     files with their kernel-version tests resolved for the tree by
#     qemu/overlay.py, so that none reaches a mailed patch) into git
#     commits on the base files, signed off by whoever runs this (git config
#     user.name and user.email; nothing stored in the repo), and writes
#     build/series/NNNN-*.patch with `git format-patch` and
#     build/series/0000-cover-letter.patch from patches/cover-letter.txt.
#  2. Applies the mailed patches 1..k to a fresh linux-source-6.1 tree and, for
#     every k, builds bzImage in build/series/obj/k (tinyconfig +
#     qemu/kernel.config + qemu/kernel-patched.config), and again with e1000
#     as a module in build/series/obj/k-m (bzImage and modules), all under
#     flock build/.build.lock, then checks what patch k touches: checkpatch
#     --strict on the mailed patch, W=1 and sparse (C=2) on its C files, where
#     a warning on a line the patch adds (or in a file it adds) fails.
#     The whole series is also built once for i386 (build/series/obj/i386),
#     and patch 1, a fix that stands alone, is written again as a net patch
#     (build/series/net/).
#  3. Checks that the full mailed series gives the tree qemu/build-kernel.sh
#     builds (patches/series, then drivers/ copied over): `diff -r`.
#
# LINUX=6.12 (qemu/lib/tree.sh): the same for patches/6.12/series on
# linux-source-6.12, into build/series-6.12/, checked against the tree
# `make kernel LINUX=6.12` builds (build/src/6.12/patched); its cover letter
# is patches/6.12/cover-letter.txt, or, until that is written, the 6.1 one
# (it says so).
#
# Ends with the time it took; exit status non-zero on any failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/tree.sh"
lab_tree series
tarball=${KSRC_TAR:-$LAB_KSRC_TAR}
out=$top/build/series$LAB_KSFX
pdir=${LAB_PATCHES#"$top"/}
src=$out/src/linux
repo=$out/git
prefix=${SERIES_PREFIX:-RFC PATCH net-next}
t0=$(date +%s)

die() { echo "series: $*" >&2; exit 1; }
log() { echo "  SERIES  $*"; }
elapsed() { local s=$(( $(date +%s) - t0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "git config user.name and user.email must be set: the series is signed off by whoever runs make series (git config --global user.name 'Your Name'; git config --global user.email you@example.org)"
[ -r "$tarball" ] || die "$tarball missing (make deps installs $LAB_KSRC_PKG)"
letter=$LAB_PATCHES/cover-letter.txt
if [ ! -f "$letter" ] && [ "$LAB_LINUX" != 6.1 ]; then
	log "note: no $pdir/cover-letter.txt yet: patches/cover-letter.txt (the 6.1 series') stands in"
	letter=$top/patches/cover-letter.txt
fi
[ -f "$letter" ] || die "${letter#"$top"/} missing"

mapfile -t series < <(grep -v -e '^#' -e '^$' "$LAB_PATCHES/series")
n=${#series[@]}
waivers=$LAB_PATCHES/checkpatch-waivers
waivers_rel=${waivers#"$top"/}
/usr/bin/python3 "$top/qemu/waivers.py" validate "$waivers" "$n" || die "$waivers_rel refused (above)"

rm -rf "$out"
mkdir -p "$out/src" "$repo"

# The overlay at every step (qemu/overlay.py steps): step n is drivers/;
# step k-1 is step k with patch k's changes to earlier files undone
# (patches/overlay/<patch>) and the files it adds (patches/overlay.map)
# removed; every step then stripped for this tree, its kernel-version
# tests resolved, as qemu/build-kernel.sh copies the overlay.
/usr/bin/python3 "$top/qemu/overlay.py" steps "$LAB_LINUX" "$LAB_PATCHES/series" "$out/overlay" ||
	die "the overlay at each step could not be assembled (above)"

log "unpacking $(basename "$tarball")"
tar -C "$out/src" -xf "$tarball"
mv "$out"/src/linux-source-* "$src"

# The base versions of every file the series touches, in a small repository:
# format-patch only needs those, and the patches it writes are the same.
touched=$(cat "${series[@]/#/$LAB_PATCHES/}" |
	sed -n -e 's|^--- a/||p' -e 's|^+++ b/||p' | sort -u)
git -C "$repo" init -q
(cd "$src" && for f in $touched; do [ -f "$f" ] && echo "$f"; done) |
	rsync -a --files-from=- "$src/" "$repo/"
git -C "$repo" add -A
git -C "$repo" -c user.name=base -c user.email=base@invalid commit -q -m "$LAB_KSRC_PKG (base)"
git -C "$repo" tag base
for ((k = 1; k <= n; k++)); do
	p=${series[$((k - 1))]}
	git -C "$repo" apply --index "$LAB_PATCHES/$p" || die "$pdir/$p does not apply"
	cp -a "$out/overlay/$k/." "$repo/drivers/"
	git -C "$repo" add -A
	git mailinfo "$out/msg" /dev/null < "$LAB_PATCHES/$p" > "$out/info"
	{ sed -n 's/^Subject: //p' "$out/info"; echo; cat "$out/msg"; } > "$out/msg.full"
	git -C "$repo" -c user.name="$name" -c user.email="$email" commit -q -s -F "$out/msg.full"
done
rm -f "$out/msg" "$out/info" "$out/msg.full"
git -C "$repo" -c user.name="$name" -c user.email="$email" format-patch -q \
	--cover-letter --subject-prefix="$prefix" -o "$out" base..HEAD
cover=$out/0000-cover-letter.patch
subject=$(head -1 "$letter")
/usr/bin/python3 - "$cover" "$subject" "$letter" <<'EOF'
import sys
path, subject, blurb = sys.argv[1], sys.argv[2], sys.argv[3]
body = open(blurb).read().split('\n', 1)[1].lstrip('\n').rstrip('\n')
s = open(path).read()
assert '*** SUBJECT HERE ***' in s and '*** BLURB HERE ***' in s
open(path, 'w').write(s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body))
EOF
log "wrote ${out#"$top"/}/: $(cd "$out" && ls [0-9]*.patch | wc -l) files, signed off by $name <$email>"

# Patch 1 fixes upstream code and stands alone: also as a ready-to-send net
# patch (build/series/net/), without the RFC and the rest of the series,
# for Intel's wired LAN tree (iwl-net), which takes e1000 fixes for net.
# (all of rev-list's output is read: `| head -1` would kill it with SIGPIPE,
# which pipefail turns into a failure)
mapfile -t commits < <(git -C "$repo" rev-list --reverse base..HEAD)
first=${commits[0]}
git -C "$repo" -c user.name="$name" -c user.email="$email" format-patch -q \
	--subject-prefix="PATCH iwl-net" -o "$out/net" -1 "$first"
log "wrote ${out#"$top"/}/net/$(cd "$out/net" && ls)"
# netdev wants a Fixes: tag on a net patch; its commit id needs upstream git.
grep -q '^Fixes: [0-9a-f]\{12\} ("' "$out"/net/*.patch ||
	log "note: the net patch has no Fixes: tag yet (the cover letter names the commit; its id needs upstream git)"

mapfile -t mailed < <(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-')
[ ${#mailed[@]} -eq "$n" ] || die "format-patch wrote ${#mailed[@]} patches for $n"

fragments=("$top/qemu/kernel.config" "$top/qemu/kernel-patched.config")
[ -z "$LAB_FRAGMENT" ] || fragments+=("$LAB_FRAGMENT")
modfrag=$out/e1000-module.config
printf 'CONFIG_MODULES=y\nCONFIG_E1000=m\n' > "$modfrag"
kmake() {
	make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="2005-06-15 00:00 UTC" KBUILD_BUILD_USER=lab \
		KBUILD_BUILD_HOST=lab "$@"
}
# Build prefix k in $obj (the build lock held by the caller).
build_prefix() {
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	kmake -j"$(( $(nproc) + 1 ))" bzImage
}
# Prefix k again with e1000 as a module, in $obj (CONFIG_MODULES=y, E1000=m:
# the driver's objects link into e1000.ko, its symbols must resolve there).
build_prefix_m() {
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" "$modfrag" >/dev/null
	kmake olddefconfig >/dev/null
	grep -qx 'CONFIG_E1000=m' "$obj/.config" || { echo "CONFIG_E1000 is not m in $obj/.config" >&2; return 1; }
	kmake -j"$(( $(nproc) + 1 ))" bzImage modules
}
# The whole series once as a 32-bit (i386) kernel, in $obj: the u64
# divisions and the u64_stats of a 32-bit build.
build_i386() {
	kmake ARCH=i386 tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" >/dev/null
	kmake ARCH=i386 olddefconfig >/dev/null
	grep -qx 'CONFIG_E1000=y' "$obj/.config" || { echo "CONFIG_E1000 is not y in $obj/.config" >&2; return 1; }
	kmake ARCH=i386 -j"$(( $(nproc) + 1 ))" bzImage
}
# checkpatch, W=1 and sparse on what mailed patch $1 touches.
check_patch() {
	local m=$1 fail=0 out added files f o log ours
	# Two checks that need what this tree lacks: UNKNOWN_COMMIT_ID looks a
	# cited SHA up in the git history (an unpacked tarball has none; the
	# cited commits are upstream's), FILE_PATH_CHANGES asks whether a new
	# file needs a MAINTAINERS line (drivers/net/ethernet/intel/ and
	# Documentation/networking/devlink/ are covered already).
	# A finding the lab cannot fix here is waived only by a line of
	# $LAB_PATCHES/checkpatch-waivers with its reason (qemu/waivers.py),
	# printed here; a waiver checkpatch no longer needs fails.
	out=$({ perl "$src/scripts/checkpatch.pl" --strict --no-tree -q --show-types \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$out_dir/$m" || true; } |
		/usr/bin/python3 "$top/qemu/waivers.py" filter "$waivers" "${m%%-*}") || fail=1
	if [ $fail = 1 ]; then
		echo "$out"
	elif [ -n "$out" ]; then
		log "[$k] checkpatch --strict: clean but for a waiver ($waivers_rel):"
		sed 's/^/  SERIES    /' <<<"$out"
	else
		log "[$k] checkpatch --strict: clean"
	fi
	# "file line" for every line the patch adds; new files are wholly added.
	added=$(awk '/^\+\+\+ b\// { f = substr($2, 3); next }
		/^@@/ { split($3, a, ","); n = substr(a[1], 2); next }
		f && /^\+/ { print f, n; n++; next }
		f && /^ / { n++ }' "$out_dir/$m")
	files=$(awk '{ print $1 }' <<<"$added" | grep '\.c$' | sort -u || true)
	for f in $files; do
		o=${f%.c}.o
		rm -f "$obj/$o"
		log=$(kmake W=1 C=2 CC=gcc "$o" 2>&1 || echo "BUILD FAILED")
		ours=$( (grep -E "(^|/)$f:[0-9]+" <<<"$log" || true) | while IFS=: read -r wf line _; do
			grep -qxF "$f $line" <<<"$added" && grep -F ":$line:" <<<"$log" | grep -F "$f"
		done | sort -u)
		if [ -n "$ours" ] || grep -q "BUILD FAILED" <<<"$log"; then
			echo "W=1/sparse: $f: on lines patch $k adds:"; echo "$ours"
			grep -q "BUILD FAILED" <<<"$log" && echo "$log"
			fail=1
		else
			log "[$k] W=1 C=2 $f: none on added lines ($(grep -cE '(warning|error):' <<<"$log" || true) upstream)"
		fi
	done
	return $fail
}

# build_in DIR FUNC WHAT WHY: FUNC (build_prefix, build_prefix_m or
# build_i386) in object directory DIR under the build lock; stops the series
# with WHY if it fails, logs how long WHAT took.
build_in() {
	local ks
	obj=$1
	mkdir -p "$obj"
	ks=$(date +%s)
	if ! flock "$top/build/.build.lock" bash -c "set -e; $(declare -f kmake "$2"); $(declare -p src obj fragments modfrag); $2"; then
		echo "series: $4" >&2
		exit 1
	fi
	log "$3: built in $(( $(date +%s) - ks )) s"
}

out_dir=$out
fail=0
mkdir -p "$top/build"
for ((k = 1; k <= n; k++)); do
	m=${mailed[$((k - 1))]}
	patch -s -d "$src" -p1 --batch --forward --no-backup-if-mismatch < "$out/$m" ||
		die "mailed $m does not apply on 1..$((k - 1))"
	flock -n "$top/build/.build.lock" true || log "waiting for another kernel build (build/.build.lock)"
	build_in "$out/obj/$k" build_prefix "[$k/$n] $m" "patches 1..$k do not build ($m)"
	build_in "$out/obj/$k-m" build_prefix_m "[$k/$n] $m with E1000=m" \
		"patches 1..$k do not build with E1000=m ($m)"
	obj=$out/obj/$k
	if ! flock "$top/build/.build.lock" bash -c "$(declare -f kmake check_patch log); $(declare -p top src obj out_dir k waivers waivers_rel); check_patch $m"; then
		fail=1
	fi
done
build_in "$out/obj/i386" build_i386 "[$n/$n] the whole series for i386" \
	"the series does not build for i386"

# The full mailed series against what qemu/build-kernel.sh builds.
patched=$top/build/src/${LAB_SUB}patched/linux
[ -d "$patched" ] || die "no $patched: run make kernel$([ "$LAB_LINUX" = 6.1 ] || echo " LINUX=$LAB_LINUX")"
# build-kernel.sh builds inside its tree (obj-<variant> at the top, so
# that both trees' compile lines match for ccache): those directories are
# the build's, not the series', and are left out.
rc=0
d=$(flock "$top/build/.build.lock" diff -rq "$src" "$patched" 2>&1) || rc=$?
((rc <= 1)) || die "diff -r of the two trees failed: $d"
d=$(grep -v "^Only in $patched: obj-" <<<"$d" || true)
if [ -z "$d" ]; then
	log "the mailed series gives the tree build-kernel.sh builds (diff -r: identical but for its obj-* directories)"
else
	echo "series: the mailed series and build-kernel.sh's tree differ:" >&2
	echo "$d" >&2
	fail=1
fi
rm -rf "$out/overlay"
log "done in $(elapsed): ${out#"$top"/}/ ($( [ $fail = 0 ] && echo "every prefix builds, checks clean" || echo FAILED))"
exit $fail

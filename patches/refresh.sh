#!/bin/bash
# Regenerate patches/ and drivers/ from a git work tree of linux-source-6.1
# whose commits after BASE are the series, new files included (the way this
# series is developed):
#
#   patches/refresh.sh build/dev <base-commit>
#   LINUX=6.12 patches/refresh.sh build/dev-6.12 <base-commit>
#
# LINUX=6.12: a tree of linux-source-6.12; its patches and series go to
# patches/6.12/ (the overlay files, overlay.map and the deltas are shared).
#
# The lab keeps kernel code as a patch series plus its own new files in the
# drivers/ overlay (qemu/build-kernel.sh applies patches/series, then copies
# drivers/ over the tree). So the series is split three ways:
#
#  - patches/NNNN-*.patch: each commit, without the new files under drivers/
#    (a new file elsewhere, such as documentation, stays in its patch);
#  - drivers/: those new files as the last commit has them;
#  - patches/overlay.map: "<file> <patch>", the patch that adds each of them,
#    and patches/overlay/<patch>: what a later patch changes in a file an
#    earlier one added (a diff, applied in reverse to go back a step).
#
# drivers/ is one overlay for 6.1 and 6.12: where the trees' APIs differ, a
# file holds both spellings under `#if LINUX_VERSION_CODE ...` tests (valid C
# on either tree with <linux/version.h>), and the scripts that copy it into a
# tree resolve them (qemu/overlay.py). So the development tree's new files
# are those files, tests and all; they are copied here as they are, and the
# deltas in patches/overlay/ are between such files. A development tree
# whose files were stripped for one tree would write that tree's files into
# drivers/: bench/tests/test_overlay.py then fails for the other tree.
#
# qemu/series.sh puts the three back together into the mailed series, in
# which every file enters with the patch that adds it (and checks that this
# gives the tree build-kernel.sh builds).
#
# No identity is stored: Signed-off-by lines are dropped (`make series` adds
# the one of whoever runs it), and the development tree's commits should have
# a neutral author (e.g. "NAPI weight lab <napi-lab@example.invalid>").
#
# Blank context lines are written as empty lines (GNU patch and git apply take
# both), so that checkpatch run on a tracked patch file, which it then reads
# as a source file, finds no trailing whitespace that is only diff syntax.
set -euo pipefail
tree=${1:?usage: [LINUX=6.1|6.12] refresh.sh TREE BASE}
base=${2:?usage: [LINUX=6.1|6.12] refresh.sh TREE BASE}
dir=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$dir")
die() { echo "refresh.sh: $*" >&2; exit 1; }
# pdir: where this tree's patches and series go
case ${LINUX:-6.1} in
6.1) pdir=$dir ;;
6.12) pdir=$dir/6.12 ;;
*) echo "refresh.sh: LINUX: '$LINUX' is not one of: 6.1 6.12" >&2; exit 2 ;;
esac
g() { git -C "$tree" "$@"; }

mapfile -t commits < <(g rev-list --reverse "$base..HEAD")
[ ${#commits[@]} -gt 0 ] || die "no commits after $base"
# The overlay: files under drivers/ that the series adds.
mapfile -t overlay < <(g diff --name-only --diff-filter=A "$base" HEAD -- drivers/)
excl=()
for f in "${overlay[@]}"; do excl+=(":(exclude)$f"); done

rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
rm -rf "$dir/overlay"
g format-patch -q --no-signature -o "$pdir" "$base..HEAD" -- . "${excl[@]}"
mapfile -t names < <(cd "$pdir" && ls [0-9][0-9][0-9][0-9]-*.patch)
# A commit that only touched overlay files would have no patch of its own
# and shift the numbering: refuse rather than mis-map.
[ ${#names[@]} -eq ${#commits[@]} ] ||
	die "${#commits[@]} commits but ${#names[@]} patches: a commit touches only new drivers/ files"
sed -i -e 's/^ $//' -e '/^Signed-off-by: /d' "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
printf '%s\n' "${names[@]}" > "$pdir/series"

# drivers/ holds only the overlay: rewrite it whole.
rm -rf "$top/drivers"
for f in "${overlay[@]}"; do
	mkdir -p "$top/$(dirname "$f")"
	g show "HEAD:$f" > "$top/$f"
done

: > "$dir/overlay.map"
for i in "${!commits[@]}"; do
	c=${commits[$i]} p=${names[$i]}
	mapfile -t added < <(g diff --name-only --diff-filter=A "$c^" "$c" -- drivers/)
	for f in "${added[@]}"; do echo "$f $p" >> "$dir/overlay.map"; done
	# Earlier overlay files this commit changes.
	mapfile -t earlier < <(for f in "${overlay[@]}"; do
		g cat-file -e "$c^:$f" 2>/dev/null && echo "$f"; done)
	[ ${#earlier[@]} -gt 0 ] || continue
	d=$(g diff "$c^" "$c" -- "${earlier[@]}")
	[ -n "$d" ] || continue
	mkdir -p "$dir/overlay"
	printf '%s\n' "$d" | sed -e 's/^ $//' > "$dir/overlay/$p"
done
echo "refresh.sh: ${#names[@]} patches in ${pdir#"$top"/}/, ${#overlay[@]} overlay files, $(ls "$dir/overlay" 2>/dev/null | wc -l) overlay deltas"

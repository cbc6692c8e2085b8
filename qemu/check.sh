#!/bin/bash
# make check: the series against the kernel's own standards.
#  - scripts/checkpatch.pl --strict on every patch in patches/series, and
#    on our own files in drivers/ as they landed in the tree;
#  - every C file the series or the overlay touches, rebuilt with W=1 and
#    sparse (C=2); a warning on a line we added or in a file we own fails.
#    Warnings on untouched lines are upstream's and are only counted.
# LINUX=6.12 (qemu/lib/tree.sh): patches/6.12/series and the 6.12 tree that
# `make kernel LINUX=6.12` built.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/lib/tree.sh"
lab_tree check
src=$top/build/src/${LAB_SUB}patched/linux
obj=$top/build/obj/${LAB_SUB}patched
[ -d "$src" ] && [ -f "$obj/.config" ] || { echo "check: run make kernel$([ "$LAB_LINUX" = 6.1 ] || echo " LINUX=$LAB_LINUX") first" >&2; exit 1; }
fail=0
waivers=$LAB_PATCHES/checkpatch-waivers
/usr/bin/python3 "$top/qemu/waivers.py" validate "$waivers" "$(grep -cv -e '^#' -e '^$' "$LAB_PATCHES/series")" ||
	{ echo "check: ${waivers#"$top"/} refused (above)" >&2; exit 1; }

while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	# On stdin: checkpatch reads a file that git tracks as a source file.
	# --no-signoff: patches/ stores no identity; `make series` adds the sign-off.
	# UNKNOWN_COMMIT_ID needs the kernel's git history (a cited SHA is
	# upstream's), FILE_PATH_CHANGES asks for MAINTAINERS lines that the
	# directories already have (qemu/series.sh ignores the same two).
	# A finding the lab cannot fix here is waived only by a line of
	# checkpatch-waivers beside the series, with its reason (qemu/waivers.py),
	# and printed; a waiver checkpatch no longer needs fails.
	rc=0
	out=$({ perl "$src/scripts/checkpatch.pl" --strict --no-tree --no-signoff -q --show-types \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES - < "$LAB_PATCHES/$p" || true; } |
		/usr/bin/python3 "$top/qemu/waivers.py" filter "$waivers" "${p%%-*}") || rc=$?
	if [ $rc != 0 ]; then
		echo "checkpatch: $p"; echo "$out"; fail=1
	elif [ -n "$out" ]; then
		echo "  CHECKPATCH $p: clean but for a waiver (${waivers#"$top"/}):"
		sed 's/^/    /' <<<"$out"
	else
		echo "  CHECKPATCH $p: clean"
	fi
done < "$LAB_PATCHES/series"

# Our own files, whole, as they landed in the tree (qemu/overlay.py: the
# kernel-version tests of drivers/ resolved for it).
for f in $(cd "$top" && find drivers -type f \( -name '*.c' -o -name '*.h' \) | sort); do
	out=$(perl "$src/scripts/checkpatch.pl" --strict --no-tree -q -f "$src/$f" || true)
	if [ -n "$out" ]; then
		echo "checkpatch: $f"; echo "$out"; fail=1
	else
		echo "  CHECKPATCH $f: clean"
	fi
done

# Added line numbers per file, from the patches' hunks: "file line" pairs.
added=$(while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	awk '/^\+\+\+ b\// { f = substr($2, 3); next }
	     /^@@/ { split($3, a, ","); n = substr(a[1], 2); next }
	     f && /^\+/ { print f, n; n++; next }
	     f && (/^ / || /^$/) { n++ }' "$LAB_PATCHES/$p"
done < "$LAB_PATCHES/series")
owned=$(cd "$top" && find drivers -name '*.c' 2>/dev/null | sort)
files=$( (awk '{print $1}' <<<"$added" | grep '\.c$' || true; echo "$owned") | sort -u | grep . || true)

for f in $files; do
	o=${f%.c}.o
	rm -f "$obj/$o"
	# CC and HOSTCC as qemu/build-kernel.sh gives them: another compiler
	# string makes kbuild re-run syncconfig, and the next make kernel
	# rebuilds the whole tree instead of these objects. (ccache replays a
	# cached object's warnings.)
	log=$(make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		W=1 C=2 "$o" 2>&1 || echo "BUILD FAILED")
	total=$(grep -cE '(warning|error):' <<<"$log" || true)
	ours=$( (grep -E "(^|/)$f:[0-9]+" <<<"$log" || true) | while IFS=: read -r wf line _; do
		wf=${wf#"$src"/}; wf=${wf#../}
		if grep -qxF "$f" <<<"$owned" || grep -qxF "$f $line" <<<"$added"; then
			grep -F "$wf:$line:" <<<"$log"
		fi
	done | sort -u)
	if [ -n "$ours" ] || grep -q "BUILD FAILED" <<<"$log"; then
		echo "W=1/sparse: $f: on our lines:"; echo "$ours"; fail=1
		grep -q "BUILD FAILED" <<<"$log" && echo "$log"
	else
		echo "  W=1 C=2   $f: none on our lines ($total upstream)"
	fi
done
exit $fail

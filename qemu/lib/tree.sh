# shellcheck shell=bash
# Which kernel tree a lab script works on (issue 22): LINUX=6.1 (the
# default, Debian 12's kernel) or LINUX=6.12. Sourced by the scripts that
# build or find a kernel (qemu/build-kernel.sh, qemu/series.sh,
# qemu/check.sh, qemu/lib/lab.sh); bench/knobs.py's table (LINUX) checks
# the value before make runs anything, and lab_tree checks it again for a
# script run by hand.
#
#   lab_tree PROG    sets, for the tree LINUX names (exit 2 with one line,
#                    "PROG: LINUX: ...", for any other value):
#     LAB_LINUX      6.1 or 6.12
#     LAB_KSRC_TAR   /usr/src/linux-source-<x.y>.tar.xz (the Debian package
#                    linux-source-<x.y>, LAB_KSRC_PKG, ships it)
#     LAB_PATCHES    the series' directory: patches/ or patches/6.12/ (a
#                    `series` file and the patches it lists; the drivers/
#                    overlay, overlay.map and patches/overlay/ are shared)
#     LAB_SUB        where the tree's sources and objects go under
#                    build/src/ and build/obj/: "" for 6.1 (the paths it
#                    always had), "6.12/" for 6.12
#     LAB_KSFX       the suffix of its kernel directories: build/kernel,
#                    build/baseline, ... for 6.1; build/kernel-6.12,
#                    build/baseline-6.12, ... for 6.12
#     LAB_FRAGMENT   the tree's own config fragment, merged after the
#                    others (qemu/kernel-6.12.config), or "" for 6.1

LAB_TREES="6.1 6.12"

# The LAB_* variables are for the scripts that source this file.
# shellcheck disable=SC2034
lab_tree() {
	local prog=$1 top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	LAB_LINUX=${LINUX:-6.1}
	case $LAB_LINUX in
	6.1) LAB_PATCHES=$top/patches LAB_SUB='' LAB_KSFX='' LAB_FRAGMENT='' ;;
	6.12)
		LAB_PATCHES=$top/patches/6.12 LAB_SUB=6.12/ LAB_KSFX=-6.12
		LAB_FRAGMENT=$top/qemu/kernel-6.12.config
		;;
	*)
		echo "$prog: LINUX: '$LAB_LINUX' is not one of: $LAB_TREES" >&2
		exit 2
		;;
	esac
	LAB_KSRC_PKG=linux-source-$LAB_LINUX
	LAB_KSRC_TAR=/usr/src/$LAB_KSRC_PKG.tar.xz
}

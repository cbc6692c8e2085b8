#!/bin/bash
# Check the machine, then install the Debian packages the lab needs, only when
# missing. Installing may add packages (and upgrade a library a new package
# needs at a newer version); it never removes or replaces one: apt's plan is
# simulated first and refused if it removes anything.
#
# Checks, before any download or build, one line each:
#   root    apt-get, network namespaces and taps need it
#   disk    free space where build/ and ccache live (NEED_GB, see below)
#   accel   tcg (default) or kvm (ACCEL=kvm, needs /dev/kvm)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# LINUX=6.12 (qemu/lib/tree.sh): that tree's source package too.
. "$top/qemu/lib/tree.sh"
lab_tree deps

# Measured after a cold `make kernel baseline initramfs` here: build/ 4.9 GiB
# (two unpacked 6.1 trees of 1.5 GiB, their objects of 0.2 GiB each, the
# tarball's copy in the trees, the initramfs) and ccache 0.1 GiB; 10 GiB
# leaves room for results and a debug kernel.
NEED_GB=${NEED_GB:-10}

# dracut-core, not dracut: Debian's dracut Conflicts: initramfs-tools and would
# take over the host's own initramfs; dracut-core ships /usr/bin/dracut alone.
pkgs=(
	linux-source-6.1 gcc make bc flex bison libelf-dev libssl-dev cpio kmod
	xz-utils ccache rsync patch perl sparse git
	qemu-system-x86 iperf3 tcpdump dracut-core ethtool iproute2 iputils-ping util-linux procps coreutils nftables
	python3 python3-matplotlib python3-numpy python3-scipy python3-pytest
)
[ "$LAB_KSRC_PKG" = linux-source-6.1 ] || pkgs+=("$LAB_KSRC_PKG")

# --list: the packages, one a line (qemu/hosttests/deps simulates them).
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi

die() { echo "deps: $*" >&2; exit 1; }
say() { echo "  CHECK   $*"; }

[ "$(id -u)" -eq 0 ] || die "root: must run as root (apt-get, netns, tap); try sudo make"
say "root: yes"

free_gb() {
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	df -Pk "$d" | awk 'NR == 2 { printf "%d", $4 / 1048576 }'
}
ccache_dir=${CCACHE_DIR:-$HOME/.cache/ccache}
for d in "$top/build" "$ccache_dir"; do
	gb=$(free_gb "$d")
	if [ "$gb" -lt "$NEED_GB" ] && [ ! -f "$top/build/kernel$LAB_KSFX/bzImage" ]; then
		die "disk: $gb GiB free for $d, the lab needs $NEED_GB GiB (two kernel trees, objects, ccache)"
	fi
done
say "disk: $(free_gb "$top/build") GiB free for build/ (need $NEED_GB GiB)"

case ${ACCEL:-tcg} in
tcg) say "accel: tcg (software emulation; ACCEL=kvm to try KVM)" ;;
kvm)
	[ -c /dev/kvm ] || die "accel: ACCEL=kvm but /dev/kvm is missing; leave ACCEL unset for tcg"
	say "accel: kvm (a KVM guest hangs on some machines; tcg is the default)"
	;;
*) die "accel: ACCEL must be tcg or kvm" ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
plan=$(apt-get -s install --no-install-recommends "${missing[@]}") ||
	die "apt-get cannot install ${missing[*]}: $plan"
removed=$(awk '$1 == "Remv" { print $2 }' <<<"$plan" | tr '\n' ' ')
[ -z "$removed" ] ||
	die "apt would remove $removed to install ${missing[*]}; refusing (install by hand if you mean it)"
apt-get install -y -qq --no-remove --no-install-recommends "${missing[@]}" >/dev/null

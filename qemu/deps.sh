#!/bin/bash
# Install the Debian packages the lab needs, quietly and only when missing.
set -euo pipefail

pkgs=(
	linux-source-6.1 gcc make bc flex bison libelf-dev libssl-dev cpio kmod
	xz-utils ccache rsync patch perl sparse
	qemu-system-x86 iperf3 dracut ethtool iproute2 iputils-ping util-linux procps coreutils
	python3 python3-matplotlib gnuplot-nox
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages (${missing[*]}) and not root: install them or run as root" >&2
	exit 1
fi
echo "  DEPS    installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

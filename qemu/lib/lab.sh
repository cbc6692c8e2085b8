# shellcheck shell=bash
# Host side of the QEMU lab: a private netns with a tap, QEMU with an emulated
# e1000 on that tap, a control channel on the second serial port, teardown.
# Source it from a script that runs with `set -euo pipefail`:
#
#   . qemu/lib/lab.sh
#   lab_init test                         # checks, traps, names
#   lab_boot build/kernel/bzImage build/initramfs.img
#   lab_ctl 'ethtool -S eth0'             # run in the guest
#   lab_host iperf3 -c "$LAB_GUEST_IP"    # run on the host side, in the netns
#   lab_poweroff
#
# Settings (environment): ACCEL=tcg|kvm (tcg; kvm hangs on these machines),
# VCPUS (1), MEM in MiB (512), FIFO = tap txqueuelen, the emulated NIC FIFO in
# frames (32), BOOT_TIMEOUT in s (60), LAB_LOCK_WAIT in s (0: a second lab run
# refuses at once; S: it waits up to S seconds for the running one), NICS (1;
# 2: a second e1000, eth1, on tap1 in a netns of its own, 198.18.2.0/24),
# TCG_THREAD=multi|single (multi: one host thread per vCPU; single: QEMU
# runs all vCPUs in one thread, taking turns), LINUX=6.1|6.12 (6.1: which
# tree's kernels lab_kernel finds; qemu/lib/tree.sh).
#
# What a run starts, and only that, goes when it ends (EXIT, or INT, TERM or
# HUP at any point): its QEMU (whose own pid the harness holds), every process
# in its namespaces, the namespaces with their taps and qdiscs. Namespaces are
# named napilab-<tag>-<pid> (napilab-<tag>-<guest>-<pid> for several guests);
# one run at a time holds the machine-wide lock $LAB_LOCK.

LAB_TOP=${LAB_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# The tree (LINUX, 6.1 by default): a bad value stops the script here.
# shellcheck source-path=SCRIPTDIR source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"
lab_tree lab
LAB_HOST_IP=198.18.0.1
LAB_GUEST_IP=198.18.0.2
LAB_HOST_IP1=198.18.2.1		# NICS=2: the second NIC's network
LAB_GUEST_IP1=198.18.2.2
LAB_PREFIX=24
LAB_QEMU_PID=
LAB_NS=
LAB_RUN=
LAB_TAG=
# Several guests in one script (the bench boots patched and baseline side by
# side): lab_new NAME / lab_use NAME switch the three globals above.
LAB_CUR=
declare -A LAB_ALL_NS=() LAB_ALL_RUN=() LAB_ALL_QEMU=()
LAB_LOCK=${LAB_LOCK:-/run/lock/napilab.lock}
LAB_LOCK_FD=	# 9 while held; children never inherit it (9>&-)
LAB_SIGNAL=
# The names this harness gives its namespaces, and only those.
LAB_NS_RE='^napilab-[a-z0-9]+(-[a-z0-9]+)?-([0-9]+)$'

# lab_kernel patched|baseline|baseline-pad: the directory of that bench
# kernel (bzImage, config, symbols, layout, source) of the tree LINUX
# selects, in the layout LAYOUT selects: build/kernel, build/baseline,
# build/baseline-pad (6.1), build/kernel-6.12, ... (LINUX=6.12), or their
# -plain twins (LAYOUT=plain; qemu/build-kernel.sh and docs/bench.md,
# "Code layout").
lab_kernel() {
	local d
	case $1 in
	patched) d=kernel ;;
	baseline | baseline-pad) d=$1 ;;
	*) echo "lab: lab_kernel: no bench kernel '$1'" >&2; return 2 ;;
	esac
	d=$d$LAB_KSFX
	[ "${LAYOUT:-aligned}" = aligned ] || d=$d-plain
	echo "$LAB_TOP/build/$d"
}

# lab_hostspeed: the path of bench/hostspeed.c built for this host (in
# build/bin/, build output), built first when missing or older than its
# source: how fast a host CPU runs a fixed chain of work right now (the
# bench's host_speed_* columns, the soak's probe snapshots).
lab_hostspeed() {
	local exe=$LAB_TOP/build/bin/hostspeed src=$LAB_TOP/bench/hostspeed.c
	if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ]; then
		mkdir -p "${exe%/*}"
		gcc -O2 -Wall -Wextra -Werror -o "$exe.new" "$src" >&2 || return 1
		mv "$exe.new" "$exe"
	fi
	echo "$exe"
}

# A script may define lab_on_die to report the failure its own way first.
lab_die() {
	echo "lab: $*" >&2
	if declare -F lab_on_die >/dev/null; then
		lab_on_die "$*"
	fi
	exit 1
}

# Last console lines, for error messages.
lab_console_tail() {
	local n=${1:-15}
	[ -n "$LAB_RUN" ] && [ -f "$LAB_RUN/console.log" ] || return 0
	echo "--- last $n console lines ($LAB_RUN/console.log):"
	tail -n "$n" "$LAB_RUN/console.log" | tr -d '\r'
}

# Kill every process inside netns $1 and wait (bounded) until none is left.
lab_ns_kill() {
	local i pids
	for i in $(seq 50); do
		pids=$(ip netns pids "$1" 2>/dev/null) || return 0
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086 # one pid a word
		kill -9 $pids 2>/dev/null || true
		sleep 0.1
	done
	echo "lab: processes still in netns $1 after 5 s: $(ip netns pids "$1" 2>/dev/null | tr '\n' ' ')" >&2
}

# Remove what a killed earlier run left: a namespace named by this harness
# (LAB_NS_RE) whose run's pid is gone, and whatever still runs inside it.
# Nothing else is touched: no pid from a file, no other namespace.
lab_reap_stale() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns =~ $LAB_NS_RE ]] || continue
		pid=${BASH_REMATCH[2]}
		kill -0 "$pid" 2>/dev/null && continue
		echo "lab: removing netns $ns left by an earlier run (pid $pid is gone)" >&2
		lab_ns_kill "$ns"
		ip netns del "$ns" 2>/dev/null || true
	done
}

# One lab run at a time on this machine (guests share 2 CPUs; a second run
# would void the first one's measurements). LAB_LOCK_WAIT=S waits S seconds.
lab_lock() {
	local wait=${LAB_LOCK_WAIT:-0} owner
	[[ $wait =~ ^(0|[1-9][0-9]{0,5})$ ]] || lab_die "LAB_LOCK_WAIT: seconds, not '$wait'"
	mkdir -p "$(dirname "$LAB_LOCK")"
	exec 9>>"$LAB_LOCK"
	LAB_LOCK_FD=9
	if ! flock -n "$LAB_LOCK_FD"; then
		owner=$(cat "$LAB_LOCK.owner" 2>/dev/null || echo "unknown")
		if [ "$wait" -eq 0 ]; then
			exec 9>&-
			LAB_LOCK_FD=
			lab_die "another lab run is running ($owner); wait for it, stop it, or set LAB_LOCK_WAIT=seconds to queue"
		fi
		echo "lab: waiting up to $wait s for the running lab run ($owner)" >&2
		if ! flock -w "$wait" "$LAB_LOCK_FD"; then
			exec 9>&-
			LAB_LOCK_FD=
			lab_die "the running lab run ($owner) did not end within $wait s"
		fi
	fi
	echo "pid $$, $LAB_TAG in $LAB_TOP, since $(date -u +%H:%M:%SZ)" > "$LAB_LOCK.owner"
}

lab_unlock() {
	[ -n "$LAB_LOCK_FD" ] || return 0
	rm -f "$LAB_LOCK.owner"
	flock -u "$LAB_LOCK_FD" 2>/dev/null || true
	exec 9>&-
	LAB_LOCK_FD=
}

lab_save() {
	[ -n "$LAB_CUR" ] || return 0
	LAB_ALL_NS[$LAB_CUR]=$LAB_NS
	LAB_ALL_RUN[$LAB_CUR]=$LAB_RUN
	LAB_ALL_QEMU[$LAB_CUR]=$LAB_QEMU_PID
}

lab_use() {
	lab_save
	[ -n "${LAB_ALL_NS[$1]+set}" ] || lab_die "no guest named $1"
	LAB_CUR=$1
	LAB_NS=${LAB_ALL_NS[$1]}
	LAB_RUN=${LAB_ALL_RUN[$1]}
	LAB_QEMU_PID=${LAB_ALL_QEMU[$1]}
}

# A further guest, with its own netns and run directory; it becomes current.
lab_new() {
	lab_save
	LAB_CUR=$1
	LAB_NS=napilab-$LAB_TAG-$1-$$
	LAB_RUN=$LAB_TOP/build/run/$LAB_TAG-$$/$1
	LAB_QEMU_PID=
	mkdir -p "$LAB_RUN"
	lab_save
}

# Every guest of this run, then the lock. Safe to call twice.
lab_teardown() {
	local n
	lab_save
	for n in "${!LAB_ALL_NS[@]}"; do
		LAB_CUR=$n LAB_NS=${LAB_ALL_NS[$n]} LAB_QEMU_PID=${LAB_ALL_QEMU[$n]}
		lab_teardown_one
		LAB_ALL_NS[$n]= LAB_ALL_QEMU[$n]=
	done
	lab_unlock
}

# The EXIT trap: a script's own lab_on_exit (status files, reports) first,
# then the teardown. Further INT/TERM/HUP are ignored so that it completes.
lab_exit() {
	local rc=$?
	trap '' INT TERM HUP
	if declare -F lab_on_exit >/dev/null; then
		lab_on_exit "$rc" || true
	fi
	lab_teardown
	return "$rc"
}

# INT, TERM, HUP: note which, leave through the EXIT trap with 128 + signo.
lab_signal() {
	LAB_SIGNAL=$1
	trap '' INT TERM HUP
	printf '\nlab: SIG%s: stopping, removing what this run started\n' "$1" >&2
	exit "$2"
}

# The netns of a guest's second NIC (NICS=2): napilab-<tag>[-<guest>]nic1-<pid>
lab_ns1() { echo "${1%-*}nic1-${1##*-}"; }

# A command in the netns of the current guest's second NIC (NICS=2).
lab_host1() {
	ip netns exec "$(lab_ns1 "$LAB_NS")" "$@" 9>&-
}

lab_teardown_one() {
	local i ns1
	if [ -n "$LAB_QEMU_PID" ] && kill -0 "$LAB_QEMU_PID" 2>/dev/null; then
		kill "$LAB_QEMU_PID" 2>/dev/null || true
		for i in $(seq 50); do
			kill -0 "$LAB_QEMU_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$LAB_QEMU_PID" 2>/dev/null || true
	fi
	LAB_QEMU_PID=
	if [ -n "$LAB_NS" ]; then
		ns1=$(lab_ns1 "$LAB_NS")
		if ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qxF "$ns1"; then
			lab_ns_kill "$ns1"
			ip netns del "$ns1" 2>/dev/null || true
		fi
		lab_ns_kill "$LAB_NS"
		ip netns del "$LAB_NS" 2>/dev/null || true
	fi
	LAB_NS=
}

lab_init() {
	local tag=${1:?lab_init TAG}
	[ "$(id -u)" -eq 0 ] || lab_die "must run as root (netns, tap)"
	[ -c /dev/net/tun ] || lab_die "/dev/net/tun is not available: cannot create the tap"
	ip netns list >/dev/null 2>&1 || lab_die "'ip netns' does not work here: $(ip netns list 2>&1)"
	case ${ACCEL:-tcg} in
	tcg) ;;
	kvm) echo "lab: ACCEL=kvm requested; a KVM guest hangs on these machines" >&2 ;;
	*) lab_die "ACCEL must be tcg or kvm, not '${ACCEL}'" ;;
	esac
	case ${TCG_THREAD:-multi} in
	multi | single) ;;
	*) lab_die "TCG_THREAD must be multi or single, not '${TCG_THREAD}'" ;;
	esac
	[[ $tag =~ ^[a-z0-9]+$ ]] || lab_die "lab_init: tag '$tag' is not [a-z0-9]+"
	LAB_TAG=$tag
	trap 'lab_exit' EXIT
	trap 'lab_signal INT 130' INT
	trap 'lab_signal TERM 143' TERM
	trap 'lab_signal HUP 129' HUP
	lab_lock
	lab_reap_stale
	LAB_NS=napilab-$tag-$$
	LAB_RUN=$LAB_TOP/build/run/$tag-$$
	rm -rf "$LAB_RUN"
	mkdir -p "$LAB_RUN"
	LAB_CUR=main
	lab_save
}

# A command in the current guest's netns; it does not inherit the lock.
lab_host() {
	ip netns exec "$LAB_NS" "$@" 9>&-
}

# A QMP command to the current guest's QEMU (qemu/qmp.py):
#   lab_qmp set_link name=n0 up=false     lab_qmp stop     lab_qmp cont
lab_qmp() {
	/usr/bin/python3 "$LAB_TOP/qemu/qmp.py" "$LAB_RUN/qmp.sock" "$@"
}

lab_ctl() {
	local t=60
	if [ "${1:-}" = --timeout ]; then
		t=$2
		shift 2
	fi
	/usr/bin/python3 "$LAB_TOP/qemu/ctl.py" --timeout "$t" "$LAB_RUN/ctl.sock" "$@"
}

lab_netns_up() {
	ip netns add "$LAB_NS" || lab_die "cannot create netns $LAB_NS"
	lab_host ip link set lo up
	lab_host ip tuntap add dev tap0 mode tap || lab_die "cannot create tap0 in $LAB_NS"
	lab_host ip link set tap0 txqueuelen "${FIFO:-32}"
	lab_host ip addr add "$LAB_HOST_IP/$LAB_PREFIX" dev tap0
	lab_host ip link set tap0 up
	if [ "${LAB_VIRTIO:-0}" = 1 ]; then	# the second NIC's tap (lab_boot)
		lab_host ip tuntap add dev tap1 mode tap || lab_die "cannot create tap1 in $LAB_NS"
		lab_host ip addr add 198.18.1.1/24 dev tap1
		lab_host ip link set tap1 up
	fi
	if [ "${NICS:-1}" = 2 ]; then
		# QEMU opens tap1 here, in its own netns; lab_nic1_up moves it to
		# the second NIC's netns once QEMU holds it.
		ip netns add "$(lab_ns1 "$LAB_NS")" || lab_die "cannot create netns $(lab_ns1 "$LAB_NS")"
		lab_host1 ip link set lo up
		lab_host ip tuntap add dev tap1 mode tap || lab_die "cannot create tap1 in $LAB_NS"
	fi
	# No default route: the netns reaches only 198.18.0.0/24 (and 198.18.1.0/24).
}

# lab_boot KERNEL INITRD [interactive]
lab_boot() {
	local kernel=$1 initrd=$2 mode=${3:-test} console qemu_args nic2=() append2=
	[ -f "$kernel" ] || lab_die "no kernel at $kernel (make kernel)"
	# LAB_VIRTIO=1: a second NIC, virtio-net with TX NAPI off, on tap1
	# (198.18.1.0/24); the guest init keeps the e1000 as eth0.
	case ${LAB_VIRTIO:-0} in
	0) ;;
	1) nic2=(-netdev tap,id=n1,ifname=tap1,script=no,downscript=no
		 -device virtio-net-pci,netdev=n1,mac=52:54:00:12:34:57)
	   append2="virtio_net.napi_tx=0 lab.addr1=198.18.1.2/24" ;;
	*) lab_die "LAB_VIRTIO must be 0 or 1, not '$LAB_VIRTIO'" ;;
	esac
	case ${NICS:-1} in
	1) ;;
	2)
		[ "${LAB_VIRTIO:-0}" = 0 ] || lab_die "NICS=2 and LAB_VIRTIO=1 both want tap1"
		nic2=(-netdev tap,id=n1,ifname=tap1,script=no,downscript=no
		      -device e1000,netdev=n1,mac=52:54:00:12:34:58)
		append2="lab.addr1=$LAB_GUEST_IP1/$LAB_PREFIX" ;;
	*) lab_die "NICS must be 1 or 2, not '$NICS'" ;;
	esac
	[ -f "$initrd" ] || lab_die "no initramfs at $initrd (make initramfs)"
	lab_netns_up
	if [ "$mode" = shell ]; then
		console=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$LAB_RUN/console.log"
			 -serial chardev:con -mon chardev=con,mode=readline)
	else
		console=(-chardev "file,id=con,path=$LAB_RUN/console.log" -serial chardev:con)
	fi
	local accel=${ACCEL:-tcg}
	[ "$accel" != tcg ] || accel=tcg,thread=${TCG_THREAD:-multi}
	qemu_args=(
		-name "${LAB_NS},debug-threads=on"
		-machine pc -accel "$accel" -smp "${VCPUS:-1}" -m "${MEM:-512}"
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0,115200 panic=-1 lab.mode=$mode lab.addr=$LAB_GUEST_IP/$LAB_PREFIX $append2 ${LAB_APPEND:-}"
		"${console[@]}"
		-chardev "socket,id=ctl,path=$LAB_RUN/ctl.sock,server=on,wait=off"
		-serial chardev:ctl
		-netdev tap,id=n0,ifname=tap0,script=no,downscript=no
		-device e1000,netdev=n0,mac=52:54:00:12:34:56
		"${nic2[@]}"
		-qmp "unix:$LAB_RUN/qmp.sock,server=on,wait=off"
		-pidfile "$LAB_RUN/qemu.pid"
	)
	echo "${qemu_args[*]}" > "$LAB_RUN/qemu.cmdline"
	# Started directly (no function, no subshell): the child execs ip, which
	# execs QEMU in the netns, so $! is QEMU's own pid (checked against its
	# pidfile below).
	if [ "$mode" = shell ]; then
		ip netns exec "$LAB_NS" qemu-system-x86_64 "${qemu_args[@]}" 9>&- &
		LAB_QEMU_PID=$!
		lab_save
		wait "$LAB_QEMU_PID" || true
		LAB_QEMU_PID=
		lab_save
		return 0
	fi
	ip netns exec "$LAB_NS" qemu-system-x86_64 "${qemu_args[@]}" \
		</dev/null >"$LAB_RUN/qemu.log" 2>&1 9>&- &
	LAB_QEMU_PID=$!
	lab_save
	lab_wait_agent "${BOOT_TIMEOUT:-60}"
	[ "$(cat "$LAB_RUN/qemu.pid" 2>/dev/null)" = "$LAB_QEMU_PID" ] ||
		lab_die "QEMU's pidfile says $(cat "$LAB_RUN/qemu.pid" 2>/dev/null), the harness holds $LAB_QEMU_PID"
	[ "${NICS:-1}" != 2 ] || lab_nic1_up
}

# NICS=2: QEMU holds tap1; move it to the second NIC's netns and give it its
# address there (a tap keeps its queue and its file across the move).
lab_nic1_up() {
	local ns1
	ns1=$(lab_ns1 "$LAB_NS")
	lab_host ip link set tap1 netns "$ns1" || lab_die "cannot move tap1 to $ns1"
	lab_host1 ip link set tap1 txqueuelen "${FIFO:-32}"
	lab_host1 ip addr add "$LAB_HOST_IP1/$LAB_PREFIX" dev tap1
	lab_host1 ip link set tap1 up
	# No default route here either: this netns reaches only 198.18.2.0/24.
}

lab_wait_agent() {
	local limit=$1 start=$SECONDS
	while :; do
		if ! kill -0 "$LAB_QEMU_PID" 2>/dev/null; then
			lab_die "QEMU exited during boot: $(cat "$LAB_RUN/qemu.log")
$(lab_console_tail)"
		fi
		if [ -S "$LAB_RUN/ctl.sock" ] &&
		   lab_ctl --timeout 2 true >/dev/null 2>&1; then
			return 0
		fi
		if (( SECONDS - start >= limit )); then
			lab_die "guest did not reach init in $limit s (no answer on the control channel)
$(lab_console_tail)"
		fi
		sleep 0.2
	done
}

# Power the guest off and wait (bounded) for QEMU to exit.
lab_poweroff() {
	local i
	[ -n "$LAB_QEMU_PID" ] || return 0
	lab_ctl --timeout 2 'labutil poweroff' >/dev/null 2>&1 || true
	for i in $(seq 150); do
		kill -0 "$LAB_QEMU_PID" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$LAB_QEMU_PID" 2>/dev/null; then
		echo "lab: guest did not power off in 30 s; killing QEMU" >&2
		lab_console_tail >&2
		return 1
	fi
	wait "$LAB_QEMU_PID" 2>/dev/null || true
	LAB_QEMU_PID=
	lab_save
}

# Pin the current guest's QEMU threads: vCPU threads ("CPU n/TCG" or
# "CPU n/KVM", named by -name debug-threads=on; with TCG_THREAD=single the
# one thread that runs them all, "ALL CPUs/TCG") to $1, every other thread
# (main loop with the tap's I/O, workers) to $2. Prints what it did.
lab_pin() {
	local vcpu=$1 rest=$2 t comm qpid=$LAB_QEMU_PID
	[ -n "$qpid" ] || lab_die "lab_pin: guest $LAB_CUR has no QEMU"
	for t in /proc/"$qpid"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		case $comm in
		CPU* | "ALL CPUs/"*) taskset -p -c "$vcpu" "${t##*/}" >/dev/null ;;
		*) taskset -p -c "$rest" "${t##*/}" >/dev/null ;;
		esac
	done
	for t in /proc/"$qpid"/task/*; do
		printf '%s=%s ' "$(tr ' ' _ < "$t/comm")" "$(taskset -p -c "${t##*/}" | awk '{ print $NF }')"
	done
	echo
}

# Kernel messages that mean something went wrong in the guest.
lab_console_splats() {
	grep -aE 'BUG:|WARNING:|Oops|KASAN|UBSAN|general protection|Call Trace:|possible circular locking|inconsistent lock state|RCU stall|soft lockup|hung_task|Kernel panic' \
		"$LAB_RUN/console.log" || true
}

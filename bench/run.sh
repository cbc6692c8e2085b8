#!/bin/bash
# The bench: boot the patched and the unpatched (baseline) kernel side by
# side, each with an emulated e1000 on a tap in its own netns, and run iperf3
# from the host across its axes, in pairs: every patched run has its
# baseline twin (same profile and environment) right before or after it, in
# an order drawn at random (bench/plan.py); the other guest is paused (QMP
# stop) while one is measured. Writes results/<UTC stamp>/{runs.csv,
# meta.json} and calls bench/report.py, whose verdicts (verdicts.json) are
# paired ratios with 95 % intervals (bench/paired.py).
#
# The knobs (the axes, space-separated lists, and the settings), their
# values and defaults are bench/knobs.py's table (`make help`, docs/bench.md);
# the profiles, what each sends and counts, bench/profiles.py; the runs and
# their pairs, bench/plan.py. In short: WEIGHTS (eth0's sysfs weight),
# REFILL, ADAPTIVE, DEFER, RING, FIFO, LINK and LINK_BURST, COST and
# WEIGHTS_ETH1 are axes; PROFILES the traffic (the two-NIC ones, share,
# share-adaptive and router, boot both guests with NICS=2); REPS a number of
# pairs, or auto: MIN_REPS first, then one more at a time until every goal
# has a verdict or MAX_REPS ran. NETDEV_BUDGET, NETDEV_BUDGET_USECS and
# THREADED (the guest's softirq) are axes too, shared by a pair's two runs;
# WAKEUP=1 runs the application wake-up probe in the guest during every
# run's traffic (wake_* columns). UDP1470_RATE is by default half the
# baseline's saturation rate, measured first (SAT_REPS runs offering
# SAT_OFFER on each kernel, role sat). AA=1 (make aa): the baseline kernel in
# both slots, the lab's resolution. QUICK=1 (plain make): the goals at the
# defaults.
#
# meta.json's "status" is running, then complete, failed (the sweep
# stopped on an error: FAILED says which run, command, exit code, output and
# the console tail) or interrupted (INT, TERM, HUP). A run whose iperf3 did
# not connect, whose JSON is missing or broken, or whose counters could not
# be read is kept in runs.csv with status=failed and its error, and left out
# of every figure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# Every knob is checked (one line per bad value, exit 2, nothing written),
# then given its value: the user's, else the preset's (QUICK=1: plain make,
# the goals at the defaults; AA=1: make aa, the goal profiles baseline
# against baseline), else the default, all from bench/knobs.py's table. The
# NAME=value lines are assigned and exported here, never evaluated; the
# two-NIC profiles set NICS=2 (they boot both guests with eth1: lab.sh).
# BENCH_RATE_NEEDED, BENCH_ROUTER: whether a profile swept (or HIST) offers
# UDP1470_RATE, and whether router is swept; BASELINE_WEIGHT, _REFILL,
# _ADAPTIVE: the baseline triple (bench/profiles.py).
knob_values=$(/usr/bin/python3 "$top/bench/knobs.py" resolve) || exit 2
while IFS='=' read -r knob knob_value; do
	printf -v "$knob" '%s' "$knob_value"
	export "${knob?}"
done <<<"$knob_values"
unset knob knob_value knob_values
# make bench LINUX="6.1 6.12" (bench/knobs.py checked it: make bench only,
# the two trees in that order): the four kernels of both trees in one
# sweep, each pair run on both trees back to back, in an order drawn at
# random; each tree's runs go to OUT/<tree>/ as a sweep of their own, and
# bench/trees.py pairs them across the trees (OUT/trees.md). lab.sh works
# on the first tree; use_tree switches the rest.
read -r -a TREES <<<"$LINUX"
LINUX=${TREES[0]}
. "$top/qemu/lib/lab.sh"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
csv=$OUT/runs.csv

die() { echo "bench: $*" >&2; exit 1; }

# How fast each host CPU runs just before and after every run
# (host_speed_cpu0/1, host_peak_cpu0/1; bench/hostspeed.c).
hostspeed=$(lab_hostspeed) || die "bench/hostspeed.c does not build (above)"
# The kernel each slot boots (lab_kernel: LINUX's tree in LAYOUT's build): the patched one
# and the baseline; make aa: the baseline in both, or with PAD the baseline
# built with PAD bytes of text linked first in the patched slot (the layout
# A/A: the same code, another layout).
declare -A KDIR=([patched]=$(lab_kernel patched) [baseline]=$(lab_kernel baseline))
if [ "$AA" = 1 ]; then
	KDIR[patched]=${KDIR[baseline]}
	[ -z "${PAD:-}" ] || KDIR[patched]=$(lab_kernel baseline-pad)
fi
# The guests (lab_new names, [a-z0-9]+): patched and baseline, and with two
# trees the second tree's patched612 and baseline612. slot KERNEL: the
# guest of KERNEL in the current tree (TI); SLOTS: every guest.
TI=0 TSFX=("") SLOTS=(patched baseline)
declare -A SLOT_TREE=([patched]=${TREES[0]} [baseline]=${TREES[0]})
if ((${#TREES[@]} > 1)); then
	TSFX+=("${TREES[1]//./}")
	for k in patched baseline; do
		KDIR[$k${TSFX[1]}]=$(LINUX=${TREES[1]}; lab_tree bench; lab_kernel "$k")
		SLOTS+=("$k${TSFX[1]}")
		SLOT_TREE[$k${TSFX[1]}]=${TREES[1]}
	done
fi
slot() { echo "$1${TSFX[TI]}"; }
for s in "${SLOTS[@]}"; do
	k=${KDIR[$s]}/bzImage t=${SLOT_TREE[$s]}
	[ -f "$k" ] || die "${k#"$top"/} missing (make kernel baseline$([ -z "$PAD" ] || echo " baseline-pad PAD=$PAD")$([ "$LAYOUT" = aligned ] || echo " LAYOUT=$LAYOUT")$([ "$t" = 6.1 ] || echo " LINUX=$t"))"
done
[ -f "$top/build/initramfs.img" ] || die "build/initramfs.img missing (make initramfs)"
if [ -n "$PAD" ] && [ "$(sed -n 's/^pad //p' "${KDIR[patched]}/layout")" != "$PAD" ]; then
	die "${KDIR[patched]#"$top"/} was built with another PAD than $PAD (make baseline-pad PAD=$PAD)"
fi
[ ! -e "$OUT" ] || die "$OUT exists: give a new OUT (rows of two sweeps would mix)"
# Each tree's directory (one tree: OUT itself) and runs; use_tree I makes
# tree I current: its directory (OUT), runs.csv (csv) and LINUX, for
# meta.py. K_T: the runs made on each tree so far (its raw/ numbers).
OUT_TOP=$OUT OUTS=("$OUT") K_T=(0)
if ((${#TREES[@]} > 1)); then
	OUTS=("$OUT/${TREES[0]}" "$OUT/${TREES[1]}") K_T=(0 0)
fi
use_tree() {
	TI=$1 OUT=${OUTS[$1]} LINUX=${TREES[$1]}
	csv=$OUT/runs.csv
}

# What the failure report needs: where the sweep was, and the command that
# failed (lab_die's message, or the last failing command with its output).
STATUS= CUR_STEP="the start" FAIL_CMD= FAIL_RC= FAIL_OUT= FAIL_MSG= IN_REPORT=0
total=0 k_run=0 rate_source= sat_mbps=
lab_on_die() { FAIL_MSG=$1; }
set -E
trap 'FAIL_RC=$?; FAIL_CMD=$BASH_COMMAND' ERR

# must CMD...: run CMD; on failure record the command, its exit code and
# output (for FAILED) and stop the sweep. Its stdout is passed on.
must() {
	local rc=0 o e
	e=$(mktemp)
	o=$("$@" 2>"$e") || rc=$?
	if [ "$rc" -ne 0 ]; then
		FAIL_CMD="$*" FAIL_RC=$rc FAIL_OUT="$o
$(cat "$e")"
		rm -f "$e"
		trap - ERR
		exit 1
	fi
	rm -f "$e"
	[ -z "$o" ] || printf '%s\n' "$o"
}

# The EXIT hook (lab.sh runs it before the teardown): the status, FAILED,
# and a summary marked INCOMPLETE from whatever was recorded.
lab_on_exit() {
	local rc=$1 st d
	[ -n "$STATUS" ] || return 0	# nothing written yet
	if [ "$STATUS" = complete ]; then
		if [ "$IN_REPORT" = 1 ]; then
			rm -f "$OUT/.summary.md.tmp"
			echo "bench: report interrupted; \`make report R=${OUT#"$top"/}\` redoes it" >&2
		fi
		return 0
	fi
	st=failed
	[ -z "$LAB_SIGNAL" ] || st=interrupted
	echo >&2
	if [ "$st" = failed ]; then
		failure_report > "$OUT_TOP/FAILED"
		cat "$OUT_TOP/FAILED" >&2
		for d in "${OUTS[@]}"; do
			[ "$d" = "$OUT_TOP" ] || cp "$OUT_TOP/FAILED" "$d/FAILED"
		done
	fi
	STATUS=$st
	set_status "$st"
	for d in "${OUTS[@]}"; do
		if [ -s "$d/runs.csv" ]; then
			timeout 60 /usr/bin/python3 "$top/bench/report.py" --no-plots "$d" >/dev/null 2>&1 || true
		fi
	done
	echo "bench: $st (exit $rc) after $k_run of $total runs; what was recorded is in ${OUT_TOP#"$top"/}" >&2
}

failure_report() {
	echo "bench: the sweep stopped on an error at $CUR_STEP"
	[ -z "$FAIL_MSG" ] || echo "error: $FAIL_MSG"
	if [ -n "$FAIL_CMD" ]; then
		echo "command: $FAIL_CMD"
		echo "exit code: $FAIL_RC"
	fi
	if [ -n "${FAIL_OUT//[$'\n' ]/}" ]; then
		echo "output (last 30 lines):"
		tail -n 30 <<<"$FAIL_OUT"
	fi
	if [ -n "$LAB_RUN" ] && [ -f "$LAB_RUN/console.log" ]; then
		lab_console_tail 20
	fi
}

# meta.json from what is known so far (kernel releases once booted): every
# value reaches bench/meta.py through the environment.
# With two trees, each tree's meta.json (its kernels, its runs, "trees").
declare -a RATE_SRC=() SAT_T=()
write_meta() {
	local cur=$TI i p b trees=
	((${#TREES[@]} == 1)) || trees=${TREES[*]}
	for i in "${!OUTS[@]}"; do
		use_tree "$i"
		p=$(slot patched) b=$(slot baseline)
		M_TOP=$top M_OUT=$OUT M_UDP1470_RATE=$UDP1470_RATE M_RATE_SOURCE=${RATE_SRC[i]:-$rate_source} \
		M_SAT_MBPS=${SAT_T[i]:-$sat_mbps} M_STAMP=$stamp M_STATUS=$STATUS \
		M_TOTAL=$((total / ${#OUTS[@]})) M_TREES=$trees \
		M_RUN_PATCHED=${LAB_ALL_RUN[$p]:-} M_RUN_BASELINE=${LAB_ALL_RUN[$b]:-} \
		M_KDIR_PATCHED=${KDIR[$p]} M_KDIR_BASELINE=${KDIR[$b]} \
		/usr/bin/python3 "$top/bench/meta.py" write "$OUT/meta.json"
	done
	use_tree "$cur"
}

# Only the status changes (the EXIT hook: failed or interrupted).
set_status() {
	local d
	for d in "${OUTS[@]}"; do
		[ -f "$d/meta.json" ] || continue
		/usr/bin/python3 "$top/bench/meta.py" status "$d/meta.json" "$1" ||
			echo "bench: could not set status $1 in ${d#"$top"/}/meta.json" >&2
	done
}

lab_init bench
mkdir -p "${OUTS[@]}"
use_tree 0
STATUS=running
# The plan (bench/plan.py): $OUT/plan-REP.tsv, the runs of each repetition
# (zeroloss is one run per frame size, zeroloss1470 and zeroloss64), and
# $OUT/sat.tsv, the saturation runs (role sat: udp1470 offering SAT_OFFER on
# both kernels at their defaults, in pairs; half the baseline's median
# received rate becomes UDP1470_RATE unless it was given; none when no
# profile offers it). A header line names the fields; do_runs reads them by
# name. plan_runs FILE...: how many runs the files hold.
plan_runs() {
	local f n=0
	for f; do n=$((n + $(wc -l < "$f") - 1)); done
	echo "$n"
}
if [ "$REPS" = auto ]; then
	reps_first=$MIN_REPS reps_last=$MAX_REPS
else
	reps_first=$REPS reps_last=$REPS
fi
for rep in $(seq "$reps_last"); do must /usr/bin/python3 "$top/bench/plan.py" "$rep" > "$OUT/plan-$rep.tsv"; done
must /usr/bin/python3 "$top/bench/plan.py" sat > "$OUT/sat.tsv"
# the second tree runs the same plan (its directory keeps a copy)
for d in "${OUTS[@]:1}"; do cp "$OUT"/plan-[0-9]*.tsv "$OUT/sat.tsv" "$d/"; done
rate_source=given
if [ -z "$UDP1470_RATE" ]; then
	rate_source="half the baseline's median saturation rate"
	[ "$BENCH_RATE_NEEDED" = 1 ] || rate_source=unused UDP1470_RATE=-
fi
# Planned: every repetition up to MAX_REPS with REPS=auto (fewer when the
# verdicts are decided earlier: runs_planned is then lowered to what ran).
total=$(($(plan_runs "$OUT/sat.tsv" "$OUT"/plan-[0-9]*.tsv) * ${#OUTS[@]}))
write_meta

# CPU layouts (2 host CPUs): QEMU's vCPU threads, its other threads (the main
# loop reads the tap) and the iperf3 client. Applied to both guests, checked
# from /proc, recorded per layout in pinning.txt.
declare -A PIN_VCPU=([none]=0,1 [split]=1 [client-on-vcpu]=1)
declare -A PIN_REST=([none]=0,1 [split]=0 [client-on-vcpu]=0)
declare -A PIN_CLIENT=([none]=0,1 [split]=0 [client-on-vcpu]=1)
pin_cur=
client_pin=()
apply_pin() {
	local layout=$1 s cur=$LAB_CUR line d
	[ "$layout" != "$pin_cur" ] || return 0
	for s in "${SLOTS[@]}"; do
		lab_use "$s"
		line="$layout $s: $(lab_pin "${PIN_VCPU[$layout]}" "${PIN_REST[$layout]}")"
		for d in "${OUTS[@]}"; do echo "$line" >> "$d/pinning.txt"; done
	done
	[ -z "$cur" ] || [ "$cur" = main ] || lab_use "$cur"
	client_pin=(taskset -c "${PIN_CLIENT[$layout]}")
	pin_cur=$layout
}

# The router's receiver shares host CPU 0 with the sender and QEMU's main
# loop; with the default 208 KB buffer its socket dropped 90 000 datagrams
# in 3 s in two of three baseline runs (docs/results.md, sweep 14), which
# measured the host, not the guest. Its netns gets a receive buffer of
# ROUTER_RCVBUF bytes (net.core.rmem_default and rmem_max). Those are the
# netns's own only where the host kernel namespaces them (they then exist
# in a netns other than the host's: 6.x); otherwise nothing is written, and
# the host's own value is compared before and after all the same.
ROUTER_RCVBUF=33554432
rcvbuf_setup() {
	local f host0 host1
	for f in rmem_max rmem_default; do
		if ! lab_host1 test -e "/proc/sys/net/core/$f"; then
			echo "bench: net.core.$f is not per-netns on this host: the router's receiver keeps the host's buffer" >&2
			return 0
		fi
	done
	host0=$(sysctl -n net.core.rmem_max net.core.rmem_default | tr '\n' ' ')
	must lab_host1 sysctl -q -w "net.core.rmem_max=$ROUTER_RCVBUF" "net.core.rmem_default=$ROUTER_RCVBUF"
	host1=$(sysctl -n net.core.rmem_max net.core.rmem_default | tr '\n' ' ')
	if [ "$host0" != "$host1" ]; then
		read -r f d <<<"$host0"
		sysctl -q -w "net.core.rmem_max=$f" "net.core.rmem_default=$d" ||
			echo "bench: could not put back net.core.rmem_max=$f rmem_default=$d" >&2
		lab_die "setting the receiver netns's net.core.rmem_* changed the host's ($host0-> $host1; put back)"
	fi
}

# The router's forwarded datagrams are counted where the guest hands them to
# the host, not at the receiver: an nftables counter on tap1's ingress hook
# (tap1's netns), whose one rule matches the router's own datagrams (IPv4
# UDP to RECEIVER_PORT, IP length ROUTER_PAYLOAD + 28), not the ping, iperf3's
# control connection and connect datagram, ARP or IPv6 that tap1's own RX
# counters count too (bench/fwdcount.py). The flood's rate and the PDR
# trials' loss are then the guest's; the receiver's socket drops (rcvdrops)
# are recorded and judge nothing. ROUTER_PAYLOAD is the router's payload in
# bench/profiles.py (a test checks).
ROUTER_PAYLOAD=1470
RECEIVER_PORT=5201
# host_has MODULE: the host's kernel has MODULE already, built in or loaded
# (or takes no modules at all). The lab loads nothing into the host's
# kernel, and a first nft or tc command would load nf_tables or sch_tbf on
# a modular kernel that lacks them: the sweep refuses instead.
host_has() {
	[ -e /proc/modules ] || return 0
	grep -q "^$1 " /proc/modules ||
		grep -qs "/$1\.ko" "/lib/modules/$(uname -r)/modules.builtin"
}
need_host_module() {	# need_host_module MODULE WHAT
	host_has "$1" ||
		lab_die "$2 needs $1 in the host's kernel, which has it as a module that is not loaded; the lab loads nothing into the host's kernel (load it yourself to run this)"
}
fwd_setup() {
	need_host_module nf_tables "the router's count at tap1"
	must lab_host1 nft add table netdev labfwd
	must lab_host1 nft add counter netdev labfwd datagrams
	must lab_host1 nft add chain netdev labfwd in "{ type filter hook ingress device \"tap1\" priority 0; }"
	must lab_host1 nft add rule netdev labfwd in ip protocol udp udp dport "$RECEIVER_PORT" \
		ip length $((ROUTER_PAYLOAD + 28)) counter name datagrams
}
# fwdframes: the router's datagrams that tap1 has received so far.
fwdframes() {
	lab_host1 nft -j list counter netdev labfwd datagrams | /usr/bin/python3 "$top/bench/fwdcount.py"
}

# NICS=2, once per guest after its boot: the guest's second iperf3 server
# (port 5202, for eth1's stream in share), and the router's paths: tap0's
# netns reaches tap1's network through the guest and back (198.18.0.0/15
# only, no route out), with an iperf3 server in tap1's netns as the
# receiver (router), pinned where the sweep's iperf3 clients run.
nic1_setup() {
	local i
	must lab_ctl /lab/iperf3-server 5202 >/dev/null
	must lab_host ip route add "${LAB_HOST_IP1%.*}.0/$LAB_PREFIX" via "$LAB_GUEST_IP"
	must lab_host1 ip route add "${LAB_HOST_IP%.*}.0/$LAB_PREFIX" via "$LAB_GUEST_IP1"
	[ "$BENCH_ROUTER" = 1 ] || return 0
	rcvbuf_setup
	fwd_setup
	must lab_host1 taskset -c "${PIN_CLIENT[$PIN]}" iperf3 -s -D -p "$RECEIVER_PORT" \
		--logfile "$LAB_RUN/iperf3-receiver.log"
	for i in $(seq 100); do
		[ -z "$(lab_host1 ss -Hltn "sport = :$RECEIVER_PORT")" ] || return 0
		sleep 0.1
	done
	FAIL_OUT=$(cat "$LAB_RUN/iperf3-receiver.log" 2>/dev/null || true)
	lab_die "the router's receiver (iperf3 -s in $(lab_ns1 "$LAB_NS")) not listening after 10 s"
}


# boot_guests ORDER: boot every tree's two guests, the kernels in ORDER
# ("patched baseline" or the reverse), and set up what each needs.
boot_guests() {
	local ti k
	for ti in "${!OUTS[@]}"; do
		use_tree "$ti"
		for k in $1; do
			CUR_STEP="the boot of the $(slot "$k") guest$( ((BOOT == 1)) || echo " (boot $BOOT)")"
			lab_new "$(slot "$k")"
			lab_boot "${KDIR[$(slot "$k")]}/bzImage" "$top/build/initramfs.img"
			must lab_ctl /lab/iperf3-server >/dev/null
			[ "$NICS" != 2 ] || nic1_setup
			release=$(must lab_ctl uname -r)
			version=$(must lab_ctl cat /proc/version)
			echo "$release $version" > "$LAB_RUN/version"
			# the softirq's settings as the kernel booted with them, before any
			# run sets NETDEV_BUDGET, NETDEV_BUDGET_USECS and THREADED
			must lab_ctl grep -H . /proc/sys/net/core/netdev_budget /proc/sys/net/core/netdev_budget_usecs \
				/sys/class/net/eth0/threaded > "$OUT/softirq-booted-$k.txt"
		done
		echo "boot $BOOT: $1 (repetitions $2)" >> "$OUT/boots.txt"
	done
	use_tree 0
}

# BOOTS > 1: the repetitions run in BOOTS blocks of consecutive ones, as
# even as they divide (boot_of REP: REP's block, 1..BOOTS), both guests
# booted again before each block, in the other order than the block
# before (boot_order BOOT). What a boot carries (where the guest's memory
# and the chain sit, the ring's mode it settles in; docs/bench.md, "Boots")
# then varies inside the sweep, and every row records its boot.
boot_of() {
	echo $((($1 - 1) * BOOTS / reps_last + 1))
}
boot_order() {
	if (($1 % 2)); then echo "$BOOT_ORDER"; else echo "$BOOT_ORDER" | awk '{ print $2, $1 }'; fi
}
# boot_reps BOOT: its repetitions, "FIRST-LAST" (boot_of's inverse: REP is
# in BOOT when (BOOT - 1) * reps_last <= (REP - 1) * BOOTS < BOOT * reps_last)
boot_reps() {
	echo "$(((($1 - 1) * reps_last + BOOTS - 1) / BOOTS + 1))-$((($1 * reps_last + BOOTS - 1) / BOOTS))"
}
# power off every guest (its console log kept as console-KERNEL-bootN.log,
# its errors reported as after the last run), remove its netns, and boot
# them all again for boot BOOT: nothing a guest held (paused, COST's
# chain, settings, pinning) carries over
reboot_guests() {
	local ti k splats
	for ti in "${!OUTS[@]}"; do
		use_tree "$ti"
		for k in patched baseline; do
			CUR_STEP="the poweroff of the $(slot "$k") guest before boot $BOOT"
			lab_use "$(slot "$k")"
			lab_qmp cont >/dev/null 2>&1 || true	# a stopped guest cannot power off
			lab_poweroff || lab_die "the $(slot "$k") guest did not power off before boot $BOOT"
			cp "$LAB_RUN/console.log" "$OUT/console-$k-boot$((BOOT - 1)).log"
			splats=$(lab_console_splats)
			[ -z "$splats" ] || echo "bench: the $(slot "$k") kernel logged errors in boot $((BOOT - 1)) (see $OUT/console-$k-boot$((BOOT - 1)).log): $splats" >&2
			lab_teardown_one
			rm -f "$LAB_RUN/ctl.sock" "$LAB_RUN/qmp.sock" "$LAB_RUN/qemu.pid" "$LAB_RUN/console.log"
			lab_save
		done
	done
	use_tree 0
	STOPPED=() COST_CUR=() SYS_CUR=() TGT_CUR=() pin_cur=
	boot_guests "$(boot_order "$BOOT")" "$(boot_reps "$BOOT")"
	write_meta
}
BOOT=1
boot_guests "$BOOT_ORDER" "$(boot_reps 1)"
write_meta

# on_nic NIC CMD...: CMD on the host side of the guest's NIC (eth0: in
# tap0's netns, eth1: in tap1's); tap_of NIC: that tap.
on_nic() {
	local nic=$1
	shift
	if [ "$nic" = eth1 ]; then lab_host1 "$@"; else lab_host "$@"; fi
}
tap_of() { if [ "$1" = eth1 ]; then echo tap1; else echo tap0; fi; }
nics() { if [ "$NICS" = 2 ]; then echo eth0 eth1; else echo eth0; fi; }

# Host side of the current guest's links (both taps with NICS=2): FIFO
# depth and pacing.
set_link() {
	local fifo=$1 link=$2 nic tap
	for nic in $(nics); do
		tap=$(tap_of "$nic")
		on_nic "$nic" ip link set "$tap" txqueuelen "$fifo"
		if [ "$link" = none ]; then
			on_nic "$nic" tc qdisc del dev "$tap" root 2>/dev/null || true
		else
			need_host_module sch_tbf "LINK=$link (a tbf on the tap)"
			on_nic "$nic" tc qdisc replace dev "$tap" root tbf rate "$link" burst "$LINK_BURST" latency 20ms
		fi
	done
}

# tapdrops [NIC]: the tap's drops (its queue, the NIC's FIFO, full).
# shellcheck disable=SC2120 # NIC is passed through must
tapdrops() { on_nic "${1:-eth0}" cat "/sys/class/net/$(tap_of "${1:-eth0}")/statistics/tx_dropped"; }
# qdiscdrops [NIC]: drops of the host's qdisc on the tap (the LINK tbf): a
# place the tap's tx_dropped does not count.
# shellcheck disable=SC2120 # NIC is passed through must
qdiscdrops() {
	on_nic "${1:-eth0}" tc -s qdisc show dev "$(tap_of "${1:-eth0}")" root |
		awk '{ for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); s += $(i + 1) } }
		     END { print s + 0 }'
}
# The router's receiver: UDP receive buffer drops in tap1's netns.
rcvdrops() {
	lab_host1 cat /proc/net/snmp | awk '$1 == "Udp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1 }
		else { print $c + 0; exit } }'
}

# reachable [NIC [ADDR]]: bounded wait until ADDR (the guest on NIC by
# default) answers ping from NIC's side (after a ring change; through the
# guest for the router).
reachable() {
	local i nic=${1:-eth0} addr=${2:-}
	[ -n "$addr" ] || addr=$([ "$nic" = eth1 ] && echo "$LAB_GUEST_IP1" || echo "$LAB_GUEST_IP")
	for i in $(seq 20); do
		on_nic "$nic" ping -q -c 1 -W 1 "$addr" >/dev/null 2>&1 && return 0
	done
	FAIL_CMD="ping -c 1 -W 1 $addr (from the host side of $nic), 20 tries" FAIL_RC=1
	FAIL_OUT=$(on_nic "$nic" ping -c 1 -W 1 "$addr" 2>&1 || true)
	lab_die "guest $LAB_CUR: $addr does not answer ping from the host side of $nic after 20 tries"
}

# iperf OUT.json ARGS...: a client run of SECS (IPERF_SECS), bounded; its
# exit code in OUT.json.rc. With PING_OUT set, ping runs beside it at 100
# per second for as long (latency under load: the other side of a long poll).
# The client runs on the host side of IPERF_NIC (eth0) and sends to
# IPERF_DST:IPERF_PORT (the guest's eth0 address:5201); ping goes to
# IPERF_DST as well.
iperf() {
	local out=$1 rc=0 t=${IPERF_SECS:-$SECS} ping_pid= extra=0 nic=${IPERF_NIC:-eth0}
	local dst=${IPERF_DST:-$LAB_GUEST_IP}
	shift
	[[ " $* " != *" -O 1 "* ]] || extra=1
	if [ -n "${PING_OUT:-}" ]; then
		on_nic "$nic" timeout $((t + extra + 15)) ping -n -i 0.01 -W 1 -c $(((t + extra) * 100)) \
			"$dst" > "$PING_OUT" 2>&1 &
		ping_pid=$!
	fi
	on_nic "$nic" timeout $((t + extra + 30)) "${client_pin[@]}" iperf3 -c "$dst" \
		-p "${IPERF_PORT:-5201}" -t "$t" --json "$@" > "$out" 2> "$out.err" || rc=$?
	echo "$rc" > "$out.rc"
	[ -z "$ping_pid" ] || wait "$ping_pid" || true
}

# The verdict of one UDP trial: ok (at most LOSS_MAX lost: bench/schema.py),
# fail (more), or error (no result: iperf3 failed, never connected, or its
# JSON is missing or broken; an error says nothing about the rate).
udp_verdict() {
	/usr/bin/python3 - "$top/bench" "$1" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import schema
path = sys.argv[2]
try:
    rc = int(open(path + ".rc").read())
    s = json.load(open(path))["end"]["sum"]
    sent, lost = int(s["packets"]), int(s["lost_packets"])
except (OSError, ValueError, KeyError, TypeError):
    print("error")
    sys.exit()
if rc != 0 or sent <= 0:
    print("error")
else:
    print(schema.trial_verdict(sent, lost))
PY
}

# The places one zero-loss trial is attributed to, one line "fifo link sock
# softnet": the tap's and the qdisc's drops on the host, the guest's UDP
# socket and backlog drops (one benchsnap). ZL_ROUTER=1 (the router's PDR):
# the socket is the receiver's, in tap1's netns, and a fifth counter, fwd,
# the router's datagrams that reached tap1 (fwdframes).
zl_counters() {
	local snap
	snap=$(lab_ctl benchsnap after |
		awk '$1 == "udp_RcvbufErrors" { r = $2 } $1 == "softnet_dropped" { d = $2 }
		     END { print r + 0, d + 0 }')
	[ "${ZL_ROUTER:-0}" = 0 ] || snap="$(rcvdrops) ${snap#* } $(fwdframes)"
	echo "$(tapdrops) $(qdiscdrops) $snap"
}

# One zero-loss trial: zl_trial LEN RATE_MBPS OUT.json prints ok, fail or
# error. Appends "rate verdict sent lost fifo link sock softnet" (a router
# trial: and fwd) to OUT.json.trials, the counters taken around this trial
# alone, so the loss that ends the bisection can be attributed.
zl_trial() {
	local len=$1 rate=$2 out=$3 c0 c1 verdict
	c0=$(zl_counters)
	iperf "$out.try" -u -l "$len" -b "${rate}M"
	c1=$(zl_counters)
	verdict=$(udp_verdict "$out.try")
	# A router trial is judged by what reached the host side of tap1 (the
	# fifth counter) against what iperf3's client sent (bench/schema.py
	# forwarded_verdict), not by the receiver, whose socket may drop what
	# the guest forwarded; an error (no count, or more than was sent) is
	# tried once more, then the run fails, never a lower rate.
	if [ "${ZL_ROUTER:-0}" = 1 ] && [ "$verdict" != error ]; then
		verdict=$(/usr/bin/python3 - "$top/bench" "$out.try" "$c0" "$c1" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import schema
try:
    sent = int(json.load(open(sys.argv[2]))["end"]["sum"]["packets"])
    fwd0, fwd1 = (int(c.split()[4]) for c in sys.argv[3:5])
except (OSError, ValueError, KeyError, TypeError, IndexError):
    print("error")
    sys.exit()
print(schema.forwarded_verdict(sent, fwd1 - fwd0))
PY
)
	fi
	/usr/bin/python3 - "$out.try" "$rate" "$verdict" "$c0" "$c1" >> "$out.trials" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))["end"]["sum"]
    sent, lost = s["packets"], s["lost_packets"]
except (OSError, ValueError, KeyError, TypeError):
    sent = lost = "-"
try:
    c0, c1 = (list(map(int, c.split())) for c in sys.argv[4:6])
except ValueError:  # a counter not read: "-" for each
    c0 = c1 = [None] * max(len(c.split()) for c in sys.argv[4:6])
print(sys.argv[2], sys.argv[3], sent, lost,
      *("-" if a is None else b - a for a, b in zip(c0, c1)))
PY
	echo "$verdict"
}

# A trial that errors is run once more; a second error ends the bisection
# as an error (the run is then failed), never as a lower rate.
zl_try() {
	local v
	v=$(zl_trial "$@")
	[ "$v" != error ] || v=$(zl_trial "$@")
	echo "$v"
}

# RFC 2544 throughput: the highest rate with <= LOSS_MAX loss, by bisection on a
# log scale between 1 Mbit/s and HI until within 5 %. Leaves the last passing
# run in OUT.json, every trial in OUT.json.trials, and prints the rate found
# in Mbit/s (0 if none passed), or "error RATE" if a trial errored twice.
zeroloss() {
	local len=$1 out=$2 lo=0 hi=$3 mid v
	: > "$out.trials"
	v=$(zl_try "$len" "$hi" "$out")
	case $v in
	ok) cp "$out.try" "$out"; cp "$out.try.rc" "$out.rc"; echo "$hi"; return ;;
	error) echo "error $hi"; return ;;
	esac
	lo=1
	v=$(zl_try "$len" "$lo" "$out")
	case $v in
	error) echo "error $lo"; return ;;
	fail) cp "$out.try" "$out"; cp "$out.try.rc" "$out.rc"; echo 0; return ;;
	esac
	cp "$out.try" "$out"
	cp "$out.try.rc" "$out.rc"
	while ((hi * 100 > lo * 105)); do
		mid=$(/usr/bin/python3 -c 'import math, sys; lo, hi = map(int, sys.argv[1:]); print(max(lo + 1, round(math.sqrt(lo * hi))))' "$lo" "$hi")
		((mid < hi)) || break
		v=$(zl_try "$len" "$mid" "$out")
		case $v in
		ok) lo=$mid; cp "$out.try" "$out"; cp "$out.try.rc" "$out.rc" ;;
		fail) hi=$mid ;;
		*) echo "error $mid"; return ;;
		esac
	done
	# The rate found is confirmed by a final trial twice as long (RFC 9971's
	# final trial); the row says whether it held (pdr_confirmed).
	v=$(IPERF_SECS=$((SECS * 2)) zl_try "$len" "$lo" "$out")
	case $v in
	ok) echo "$lo confirmed" ;;
	fail) echo "$lo unconfirmed" ;;
	*) echo "error $lo" ;;
	esac
}

# The guest must still be there: a QEMU that died stops the sweep.
guest_alive() {
	kill -0 "$LAB_QEMU_PID" 2>/dev/null ||
		lab_die "the $LAB_CUR guest's QEMU (pid $LAB_QEMU_PID) has exited: $(tail -5 "$LAB_RUN/qemu.log" 2>/dev/null)
$(lab_console_tail)"
}

# CPU seconds QEMU has used (utime + stime), for the run's disturbance record.
qemu_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# CPU seconds QEMU's vCPU threads have used ("CPU n/TCG", "CPU n/KVM", or
# "ALL CPUs/TCG" with TCG_THREAD=single; -name debug-threads=on names them):
# the guest's vCPU ran (TCG translating, executing, emulating its device
# accesses) for that long; halted, or waiting for a lock, it sleeps.
vcpu_cpu() {
	local t c sum=0
	for t in /proc/"$1"/task/*; do
		c=$(cat "$t/comm" 2>/dev/null) || continue
		case $c in
		CPU* | "ALL CPUs/"*)
			# after "(comm) " the fields start at the 3rd: utime is the 12th
			sum=$(sed 's/.*) //' "$t/stat" 2>/dev/null |
				awk -v a="$sum" -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", a + ($12 + $13) / hz }') ;;
		esac
	done
	echo "$sum"
}

cpu_delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# CPU seconds stolen from this host by its hypervisor so far, all CPUs
# (/proc/stat "cpu" line, the eighth value): 0 on bare metal.
host_steal() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.2f", $9 / hz; exit }' /proc/stat
}

# host_speed: "mean0 mean1 peak0 peak1", Msteps/s of host CPUs 0 and 1
# (bench/hostspeed.c, 50 ms each, bounded); "-" for a CPU it could not use.
host_speed() {
	local c m p n mean=() peak=()
	for c in 0 1; do
		read -r m p n < <(timeout 5 "$hostspeed" "$c" 50 2>/dev/null || echo "- - -")
		mean+=("${m:--}") peak+=("${p:--}")
	done
	echo "${mean[*]} ${peak[*]}"
}
# speed_mean A B: the mean of two host_speed lines, field by field, comma
# separated ("" where either has "-").
speed_mean() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++)
			printf "%s%s", (x[i] == "-" || y[i] == "-") ? "" : sprintf("%.1f", (x[i] + y[i]) / 2), i < n ? "," : "\n"
	}'
}

# Only the guest being measured runs: the others are stopped (QMP) so that
# their timers and housekeeping do not share the host CPUs with the run.
# pause_other GUEST: stop every other guest still running, and GUEST
# runs.
declare -A STOPPED=()
pause_other() {
	local this=$1 s
	for s in "${SLOTS[@]}"; do
		if [ "$s" = "$this" ] || [ -n "${STOPPED[$s]:-}" ]; then continue; fi
		lab_use "$s"
		must lab_qmp stop >/dev/null
		STOPPED[$s]=1
	done
	lab_use "$this"
	[ -n "${STOPPED[$this]:-}" ] || return 0
	must lab_qmp cont >/dev/null
	unset "STOPPED[$this]"
}
# others_cpu: the CPU seconds every other guest's QEMU has used.
others_cpu() {
	local s sum=0
	for s in "${SLOTS[@]}"; do
		[ "$s" = "$LAB_CUR" ] ||
			sum=$(awk -v a="$sum" -v b="$(qemu_cpu "${LAB_ALL_QEMU[$s]}")" 'BEGIN { printf "%.2f", a + b }')
	done
	echo "$sum"
}

# The guest-wide settings a profile needs, applied only when they change:
# benchcost (COST's nftables chain on eth0) and benchsys (ip_forward,
# gro_normal_batch, netdev_budget, netdev_budget_usecs, threaded NAPI).
# Values come from the plan, checked by bench/args.sh.
declare -A COST_CUR=() SYS_CUR=()
guest_cost() {
	[ "${COST_CUR[$LAB_CUR]:-}" != "$1" ] || return 0
	must lab_ctl benchcost "$1" >/dev/null
	COST_CUR[$LAB_CUR]=$1
}
guest_sys() {
	[ "${SYS_CUR[$LAB_CUR]:-}" != "$*" ] || return 0
	must lab_ctl benchsys "$@" >/dev/null
	SYS_CUR[$LAB_CUR]="$*"
}

# The application wake-up probe (WAKEUP=1; qemu/guest/bin/benchwake): started
# after the run's "before" snapshots, stopped before its "after" ones, so it
# covers the traffic as the counters do. Not in a zero-loss bisection (a
# string of trials at other rates, no one load). Bounded twice: the probe
# ends by itself after WAKE_SECS (SECS + the iperf3 client's 31 s of slack +
# 15; at most wakeup's 3600), and benchwake stop waits at most 10 s for it
# after SIGTERM (lab_ctl: 30 s).
WAKE_SECS=$((SECS + 46 > 3600 ? 3600 : SECS + 46))
wake_wanted() {
	[ "$WAKEUP" = 1 ] || return 1
	case $1 in zeroloss*) return 1 ;; esac
}

# The adaptive quota's targets of the patched guest's two NICs, "t0 q0 t1
# q1" (poll_target_usecs and quota_min of eth0, then eth1), as read back
# from devlink. share-adaptive with TARGET=weight gets each NIC's
# round(500 w / max(w_eth0, w_eth1)) and quota_min 1, with TARGET=per-weight
# round(500 w / 64) (at most 2000) and quota_min 1; every other run the
# driver's defaults, 500 and 8 (so TARGET=fixed changes nothing). Applied
# only when they differ from what the guest holds, read once per guest
# (NICS=2 only: eth1 must exist). guest_target PROFILE W0 W1 sets TGT.
declare -A TGT_CUR=()
TGT=
# shellcheck disable=SC2016 # run by the guest's bash
guest_params() {	# guest_params [T0 Q0 T1 Q1]: set them if given; print them
	local set=:
	[ $# = 0 ] || set="set -e; for x in eth0:$1:$2 eth1:$3:$4; do IFS=: read -r d t q <<<\$x;"'
		h=pci/$(basename $(readlink /sys/class/net/$d/device));
		devlink dev param set $h name poll_target_usecs value $t cmode runtime;
		devlink dev param set $h name quota_min value $q cmode runtime; done'
	lab_ctl "$set;" 'for d in eth0 eth1; do h=pci/$(basename $(readlink /sys/class/net/$d/device));
		for p in poll_target_usecs quota_min; do devlink dev param show $h name $p |
		awk "/cmode runtime value/ { printf \"%s \", \$NF }"; done; done'
}
guest_target() {
	local prof=$1 w0=$2 w1=$3 m t0 t1 want got
	want="500 8 500 8"
	if [ "$prof" = share-adaptive ] && [ "$TARGET" != fixed ]; then
		# round(500 w / m): m the larger weight (weight) or 64, the
		# driver's default weight (per-weight); devlink takes 1..2000
		m=$((w0 > w1 ? w0 : w1))
		[ "$TARGET" = weight ] || m=64
		t0=$(((1000 * w0 + m) / (2 * m))) t1=$(((1000 * w1 + m) / (2 * m)))
		t0=$((t0 < 1 ? 1 : t0 > 2000 ? 2000 : t0)) t1=$((t1 < 1 ? 1 : t1 > 2000 ? 2000 : t1))
		want="$t0 1 $t1 1"
	fi
	TGT=$want
	[ "$NICS" = 2 ] || return 0
	if [ -z "${TGT_CUR[$LAB_CUR]:-}" ]; then
		got=$(must guest_params)
		TGT_CUR[$LAB_CUR]=${got% }
	fi
	[ "${TGT_CUR[$LAB_CUR]}" != "$want" ] || return 0
	# shellcheck disable=SC2086 # four numbers
	got=$(must guest_params $want)
	TGT_CUR[$LAB_CUR]=${got% }
	[ "${TGT_CUR[$LAB_CUR]}" = "$want" ] ||
		lab_die "guest $LAB_CUR: poll_target_usecs/quota_min read back '${TGT_CUR[$LAB_CUR]}', not '$want'"
}

# run_one: the run whose plan fields (bench/plan.py's FIELDS) RUN holds.
declare -A RUN=()
run_one() {
	local kernel=${RUN[kernel]} role=${RUN[role]} w=${RUN[weight]} n=${RUN[refill]}
	local a=${RUN[adaptive]} d=${RUN[defer]} ring=${RUN[ring]} fifo=${RUN[fifo]}
	local link=${RUN[link]} pin=${RUN[pin]} prof=${RUN[profile]} w1=${RUN[weight_eth1]}
	local cost=${RUN[cost]} rep=${RUN[rep]} pair=${RUN[pair]} dir=$OUT/raw/${K_T[TI]} t0 t1 q0 q1
	local res=- offered= rate=$UDP1470_RATE
	local err= confirmed= load1 c0 c1 o0 o1 ping_out= cc1 patched=0 st0 st1
	local hs0 hs_m0 hs_m1 hs_p0 hs_p1 v0 v1 wall0 wall1
	local two=0 fwd=${RUN[forward]} batch=${RUN[gro_batch]} j0 j1 res1 t0b t1b q0b q1b r0 r1 err1=
	local common tg0 tg1 g0 g1 g2 g3 traced=0 f0 f1 wake=
	local budget=${RUN[netdev_budget]} usecs=${RUN[netdev_budget_usecs]} threaded=${RUN[threaded]}
	mkdir -p "$dir"
	apply_pin "$pin"
	pause_other "$(slot "$kernel")"
	guest_alive
	[ "$role" != sat ] || rate=$SAT_OFFER
	[ "$kernel" != patched ] || [ "$AA" = 1 ] || patched=1
	# the profile's facts (bench/profiles.py): eth1 carries traffic too; the
	# guest forwards; gro_normal_batch (1: stack work inside the poll that
	# received it, benchsys); ping beside the traffic
	[ "${RUN[nics]}" != 2 ] || two=1
	# the patched guest's polls, traced for the CPU shares (POLL_TRACE=1:
	# two NICs) and the ring's hw_min (POLL_TRACE=2: every profile)
	if [ "$patched" = 1 ] && { [ "$POLL_TRACE" = 2 ] || { [ "$POLL_TRACE" = 1 ] && [ "$two" = 1 ]; }; }; then
		traced=1
	fi
	if [ "$patched" = 1 ]; then
		must lab_ctl benchset "$w" "$n" "$a" "$d" "$ring" >/dev/null
		if [ "$NICS" = 2 ] && [ "$w1" = - ]; then	# eth1 idle: its defaults
			must lab_ctl benchset "$BASELINE_WEIGHT" "$BASELINE_REFILL" "$BASELINE_ADAPTIVE" \
				"$d" "$ring" eth1 >/dev/null
		elif [ "$NICS" = 2 ]; then
			must lab_ctl benchset "$w1" "$n" "$a" "$d" "$ring" eth1 >/dev/null
		fi
		guest_target "$prof" "$w" "$w1"
	else
		must lab_ctl benchset - - - "$d" "$ring" >/dev/null
		[ "$NICS" != 2 ] || must lab_ctl benchset - - - "$d" "$ring" eth1 >/dev/null
	fi
	guest_cost "$cost"
	guest_sys "$fwd" "$batch" "$budget" "$usecs" "$threaded"
	must set_link "$fifo" "$link"
	reachable eth0
	[ "$two" = 0 ] || reachable eth1
	[ "$fwd" = 0 ] || reachable eth0 "$LAB_HOST_IP1"
	lab_ctl benchsnap before > "$dir/before" 2>&1 || err="benchsnap before failed"
	if [ "$two" = 1 ]; then
		lab_ctl benchsnap before eth1 > "$dir/before.eth1" 2>&1 || err=${err:-"benchsnap before (eth1) failed"}
	fi
	[ "$traced" = 0 ] || must lab_ctl benchpoll start >/dev/null
	[ "$role" != hist ] || must lab_ctl benchhist start >/dev/null
	if wake_wanted "$prof"; then
		wake=$dir/wakeup
		lab_ctl benchwake start "$WAKE_SECS" > "$wake" 2>&1 || err=${err:-"benchwake start failed (see $wake)"}
	fi
	q0=$(must qdiscdrops)
	t0=$(must tapdrops)
	if [ "$two" = 1 ]; then
		q0b=$(must qdiscdrops eth1)
		t0b=$(must tapdrops eth1)
	fi
	if [ "$fwd" = 1 ]; then
		r0=$(must rcvdrops)
		f0=$(must fwdframes)
	fi
	read -r load1 _ < /proc/loadavg
	# a compiler running on the host voids the run (a kernel build)
	cc1=$(pgrep -c -x 'cc1|cc1plus|ld' || true)
	hs0=$(host_speed)
	c0=$(qemu_cpu "$LAB_QEMU_PID") o0=$(others_cpu) st0=$(host_steal)
	v0=$(vcpu_cpu "$LAB_QEMU_PID") wall0=$EPOCHREALTIME
	[ "${RUN[ping_load]}" = 0 ] || ping_out=$dir/ping-load.txt
	case $prof in
	tcp) res=$dir/iperf.json; PING_OUT=$ping_out iperf "$res" -O 1 ;;
	tcp4) res=$dir/iperf.json; PING_OUT=$ping_out iperf "$res" -O 1 -P 4 ;;
	udp1470) res=$dir/iperf.json; offered=${rate%M}; PING_OUT=$ping_out iperf "$res" -u -l 1470 -b "$rate" ;;
	udp64) res=$dir/iperf.json; offered=${UDP64_RATE%M}; PING_OUT=$ping_out iperf "$res" -u -l 64 -b "$UDP64_RATE" ;;
	idle)
		res=$dir/ping.txt
		lab_host timeout $((SECS + 10)) ping -q -c $((SECS * 5)) -i 0.2 "$LAB_GUEST_IP" > "$res" 2>&1 || true ;;
	zeroloss1470) res=$dir/iperf.json; offered=$(zeroloss 1470 "$res" 1000) ;;
	zeroloss64) res=$dir/iperf.json; offered=$(zeroloss 64 "$res" 200) ;;
	share | share-adaptive)
		# both floods at once, each bounded by iperf's own timeout
		res=$dir/iperf.json res1=$dir/iperf.eth1.json offered=${SAT_OFFER%M}
		iperf "$res" -u -l 1470 -b "$SAT_OFFER" &
		j0=$!
		IPERF_NIC=eth1 IPERF_DST=$LAB_GUEST_IP1 IPERF_PORT=5202 \
			iperf "$res1" -u -l 1470 -b "$SAT_OFFER" &
		j1=$!
		wait "$j0" || true
		wait "$j1" || true ;;
	router)
		res=$dir/iperf.json
		PING_OUT=$ping_out IPERF_DST=$LAB_HOST_IP1 IPERF_PORT=$RECEIVER_PORT \
			iperf "$res" -u -l "$ROUTER_PAYLOAD" -b "$SAT_OFFER" ;;
	eth1ping)
		# eth0 flooded; eth1 only pinged, at 100/s, from tap1's side for as
		# long, bounded like iperf's own ping: its RTT is the row's rtt_p*
		res=$dir/iperf.json offered=${SAT_OFFER%M}
		on_nic eth1 timeout $((SECS + 15)) ping -n -i 0.01 -W 1 -c $((SECS * 100)) \
			"$LAB_GUEST_IP1" > "$ping_out" 2>&1 &
		j1=$!
		iperf "$res" -u -l 1470 -b "$SAT_OFFER"
		wait "$j1" || true ;;
	esac
	# The router's counters cover its flood; its PDR search follows.
	if [ "$fwd" = 1 ]; then
		[ -z "$wake" ] || lab_ctl --timeout 30 benchwake stop > "$wake" 2>&1 ||
			err=${err:-"benchwake stop failed (see $wake)"}
		t1=$(must tapdrops)
		q1=$(must qdiscdrops)
		r1=$(must rcvdrops)
		f1=$(must fwdframes)
		lab_ctl benchsnap after > "$dir/after" 2>&1 || err=${err:-"benchsnap after failed"}
		lab_ctl benchsnap after eth1 > "$dir/after.eth1" 2>&1 || err=${err:-"benchsnap after (eth1) failed"}
		[ "$traced" = 0 ] || lab_ctl benchpoll stop > "$dir/poll" 2>&1 || err=${err:-"benchpoll stop failed"}
		[ "$ROUTER_PDR" = 0 ] ||
			offered=$(ZL_ROUTER=1 IPERF_DST=$LAB_HOST_IP1 IPERF_PORT=$RECEIVER_PORT \
				zeroloss "$ROUTER_PAYLOAD" "$dir/pdr.json" 1000)
	fi
	c1=$(qemu_cpu "$LAB_QEMU_PID") o1=$(others_cpu) st1=$(host_steal)
	v1=$(vcpu_cpu "$LAB_QEMU_PID") wall1=$EPOCHREALTIME
	IFS=, read -r hs_m0 hs_m1 hs_p0 hs_p1 <<<"$(speed_mean "$hs0" "$(host_speed)")"
	cc1=$((cc1 + $(pgrep -c -x 'cc1|cc1plus|ld' || true)))
	if [[ $offered = error* ]]; then
		err="zero-loss trial at ${offered#error } Mbit/s errored twice (see ${res%.json}*.try.err$([ "$fwd" = 0 ] || echo "; a router trial errs when tap1's count is missing or exceeds what was sent, see pdr.json.trials"))"
		offered=
	elif [[ $offered = *" "* ]]; then
		confirmed=$([ "${offered#* }" = confirmed ] && echo 1 || echo 0)
		offered=${offered%% *}
	fi
	if [ "$fwd" = 0 ]; then
		[ -z "$wake" ] || lab_ctl --timeout 30 benchwake stop > "$wake" 2>&1 ||
			err=${err:-"benchwake stop failed (see $wake)"}
		t1=$(must tapdrops)
		q1=$(must qdiscdrops)
		lab_ctl benchsnap after > "$dir/after" 2>&1 || err=${err:-"benchsnap after failed"}
	fi
	[ "$role" != hist ] || lab_ctl benchhist stop >> "$dir/after" 2>&1 || err=${err:-"benchhist stop failed"}
	if [ "$two" = 1 ] && [ "$fwd" = 0 ]; then
		t1b=$(must tapdrops eth1)
		q1b=$(must qdiscdrops eth1)
		lab_ctl benchsnap after eth1 > "$dir/after.eth1" 2>&1 || err1="benchsnap after (eth1) failed"
	fi
	# every traced run but the router's (stopped after its flood, above)
	if [ "$fwd" = 0 ] && [ "$traced" = 1 ]; then
		lab_ctl benchpoll stop > "$dir/poll" 2>&1 || err=${err:-"benchpoll stop failed"}
	fi
	guest_alive
	common=(kernel="$kernel" role="$role" weight="$w" refill="$n" adaptive="$a" defer="$d"
		ring="$ring" fifo="$fifo" link="$link" pin="$pin" profile="$prof" rep="$rep" secs="$SECS"
		pair="$pair" host_load1="$load1" host_compilers="$cc1" weight_eth1="$w1" cost="$cost"
		qemu_cpu_s="$(cpu_delta "$c0" "$c1")" other_qemu_cpu_s="$(cpu_delta "$o0" "$o1")"
		host_steal_s="$(cpu_delta "$st0" "$st1")"
		host_speed_cpu0="$hs_m0" host_speed_cpu1="$hs_m1" host_peak_cpu0="$hs_p0" host_peak_cpu1="$hs_p1"
		vcpu_cpu_s="$(cpu_delta "$v0" "$v1")" window_s="$(cpu_delta "$wall0" "$wall1")"
		netdev_budget="$budget" netdev_budget_usecs="$usecs" threaded="$threaded" boot="$BOOT")
	[ -z "$wake" ] || common+=(wakeup="$wake")
	[ "$traced" = 0 ] || common+=(poll="$dir/poll")
	# share-adaptive on the patched kernel: TARGET and each NIC's targets
	tg0=() tg1=()
	if [ "$patched" = 1 ] && [ "$prof" = share-adaptive ]; then
		read -r g0 g1 g2 g3 <<<"$TGT"
		tg0=(target="$TARGET" poll_target_usecs="$g0" quota_min="$g1")
		tg1=(target="$TARGET" poll_target_usecs="$g2" quota_min="$g3")
	fi
	case $prof in
	share | share-adaptive)
		must /usr/bin/python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
			"${common[@]}" nic=eth0 peer="$dir/before.eth1,$dir/after.eth1" \
			offered_mbps="$offered" link_drops=$((q1 - q0)) error="$err" "${tg0[@]}"
		must /usr/bin/python3 "$top/bench/row.py" "$csv" "$dir/before.eth1" "$dir/after.eth1" "$t0b" "$t1b" \
			"$res1" "${common[@]}" nic=eth1 peer="$dir/before,$dir/after" \
			offered_mbps="$offered" link_drops=$((q1b - q0b)) error="${err:-$err1}" "${tg1[@]}" ;;
	router)
		must /usr/bin/python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
			"${common[@]}" peer="$dir/before.eth1,$dir/after.eth1" rcv_sock_drops=$((r1 - r0)) \
			fwd_frames=$((f1 - f0)) \
			offered_mbps="$offered" link_drops=$((q1 - q0)) trials="$dir/pdr.json.trials" \
			error="$err" pdr_confirmed="$confirmed" ping_load="$ping_out" ;;
	*)
		must /usr/bin/python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
			"${common[@]}" offered_mbps="$offered" link_drops=$((q1 - q0)) trials="$res.trials" \
			error="$err" pdr_confirmed="$confirmed" ping_load="$ping_out" ;;
	esac
}

start=$SECONDS
# make article runs this script once per regime (bench/article.sh) with
# ARTICLE_PROGRESS="REGIME DONE TOTAL START ESTIMATE": the runs of the
# regimes before this one, the runs of all, when the first began (epoch
# seconds) and the seconds all were expected to take; the progress line
# then counts and estimates over them all. Anything else is ignored.
art_label='' art_done=0 art_total=0 art_start=0 art_est=0
if [[ ${ARTICLE_PROGRESS:-} =~ ^(obs[0-9])\ ([0-9]{1,6})\ ([0-9]{1,6})\ ([0-9]{1,12})\ ([0-9]{1,8})$ ]]; then
	art_label=${BASH_REMATCH[1]} art_done=${BASH_REMATCH[2]} art_total=${BASH_REMATCH[3]}
	art_start=${BASH_REMATCH[4]} art_est=${BASH_REMATCH[5]}
fi
# progress K_RUN: where the sweep is and how long the rest should take, the
# ETA from the pace of the runs so far (make article: of every regime's).
progress() {
	local k=$1 el eta ak
	if [ -n "$art_label" ]; then
		el=$((EPOCHSECONDS - art_start)) ak=$((art_done + k))
		eta=$(( ak > 1 ? el * (art_total - ak + 1) / (ak - 1) : art_est ))
		((eta >= 0)) || eta=0
		printf 'article %s: run %d of %d (%d of %d in all)  %dm%02ds elapsed, ETA %dm%02ds' \
			"$art_label" "$k" "$total" "$ak" "$art_total" $((el / 60)) $((el % 60)) \
			$((eta / 60)) $((eta % 60))
	else
		el=$((SECONDS - start))
		eta=$(( k > 1 ? el * (total - k + 1) / (k - 1) : 0 ))
		printf 'bench: run %d of %d  %dm%02ds elapsed, ETA %dm%02ds' \
			"$k" "$total" $((el / 60)) $((el % 60)) $((eta / 60)) $((eta % 60))
	fi
}
# do_runs PLAN: every run of a plan file, its fields by the header's names
# (every value one word: bench/plan.py checks them). With two trees a
# pair's runs (the plan's consecutive lines of one pair id) run on both,
# the trees in an order drawn at random (BENCH_SEED), logged to
# OUT/tree-order.txt.
do_runs() {
	local -a head vals lines=() order
	local i j settings line n first=0 last pc=-1 ti
	{
		IFS=$'\t' read -r -a head
		while IFS= read -r line; do lines+=("$line"); done
	} < "$1"
	for i in "${!head[@]}"; do [ "${head[$i]}" != pair ] || pc=$i; done
	n=${#lines[@]}
	while ((first < n)); do
		last=$((first + 1))
		if ((pc >= 0)); then
			IFS=$'\t' read -r -a vals <<<"${lines[first]}"
			line=${vals[pc]}
			while ((last < n)); do
				IFS=$'\t' read -r -a vals <<<"${lines[last]}"
				[ "${vals[pc]}" = "$line" ] || break
				last=$((last + 1))
			done
		fi
		order=("${!OUTS[@]}")
		if ((${#OUTS[@]} > 1)) && ((RANDOM % 2)); then order=(1 0); fi
		((${#OUTS[@]} == 1)) || echo "$(basename "$1") ${line:-} ${TREES[order[0]]} ${TREES[order[1]]}" >> "$OUT_TOP/tree-order.txt"
		for ti in "${order[@]}"; do
			use_tree "$ti"
			for ((i = first; i < last; i++)); do
				IFS=$'\t' read -r -a vals <<<"${lines[i]}"
				[ "${#vals[@]}" = "${#head[@]}" ] || lab_die "$1: a run with ${#vals[@]} fields, not ${#head[@]}"
				RUN=() settings=
				for j in "${!head[@]}"; do
					RUN[${head[$j]}]=${vals[$j]}
					settings+=" ${head[$j]}=${vals[$j]}"
				done
				k_run=$((k_run + 1)) K_T[ti]=$((K_T[ti] + 1))
				CUR_STEP="run $k_run of $total (${settings# }$( ((${#OUTS[@]} == 1)) || echo " tree=${TREES[ti]}"))"
				printf '\r%s  %-8s %-5s w=%-4s n=%-3s d=%-3s ring=%-4s %-14s %-12s%s' \
					"$(progress "$k_run")" "${RUN[kernel]}" "${RUN[role]}" "${RUN[weight]}" \
					"${RUN[refill]}" "${RUN[defer]}" "${RUN[ring]}" "${RUN[pin]}" "${RUN[profile]}" \
					"$( ((${#OUTS[@]} == 1)) || echo " ${TREES[ti]}")"
				run_one < /dev/null
			done
		done
		first=$last
	done
	use_tree 0
}
planned="$total runs"
[ "$REPS" != auto ] || planned="at most $total runs (REPS=auto: $reps_first to $reps_last repetitions)"
echo "bench: $planned, results in ${OUT_TOP#"$top"/}$( ((${#OUTS[@]} == 1)) || echo " (${TREES[*]}: one directory each)")"
((${#OUTS[@]} == 1)) || RANDOM=$BENCH_SEED	# the trees' order in each pair
do_runs "$OUT/sat.tsv"
sat_median() {	# sat_median CSV: the baseline's median saturation rate, or ""
	/usr/bin/python3 - "$1" <<'PY'
import csv, statistics, sys
v = [float(r["mbps"]) for r in csv.DictReader(open(sys.argv[1]))
     if r["role"] == "sat" and r["kernel"] == "baseline" and r["status"] == "ok" and r["mbps"]]
print("%.1f" % statistics.median(v) if v else "")
PY
}
if [ "$(plan_runs "$OUT/sat.tsv")" -gt 0 ]; then
	sat_mbps=$(sat_median "$csv")
	[ -n "$sat_mbps" ] || lab_die "no saturation measurement of the baseline succeeded (see $OUT/raw/*/iperf.json.err)"
	# two trees: one load for both, the first tree's (like for like);
	# each tree's meta.json keeps its own baseline's saturation
	if ((${#OUTS[@]} > 1)); then
		SAT_T=("$sat_mbps" "$(sat_median "${OUTS[1]}/runs.csv")")
		[ "$rate_source" = given ] ||
			RATE_SRC=("$rate_source" "half the ${TREES[0]} baseline's median saturation rate (one load for both trees)")
	fi
	UDP1470_RATE=$(/usr/bin/python3 -c 'import sys; print("%dM" % max(1, round(float(sys.argv[1]) / 2)))' "$sat_mbps")
	printf '\nbench: baseline saturates at %s Mbit/s (median of %s); udp1470 offers %s\n' \
		"$sat_mbps" "$SAT_REPS" "$UDP1470_RATE"
fi
write_meta
# Fixed REPS: every repetition. REPS=auto: MIN_REPS first, then one more at a
# time until every goal has a verdict (met or not_met) or MAX_REPS ran.
reps_done=0
for rep in $(seq "$reps_last"); do
	if [ "$(boot_of "$rep")" != "$BOOT" ]; then
		BOOT=$(boot_of "$rep")
		printf '\nbench: boot %d of %d (%s first)\n' "$BOOT" "$BOOTS" "$(boot_order "$BOOT" | cut -d' ' -f1)"
		reboot_guests
	fi
	do_runs "$OUT/plan-$rep.tsv"
	reps_done=$rep
	if [ "$REPS" = auto ] && ((rep >= reps_first && rep < reps_last)); then
		undecided=0
		for d in "${OUTS[@]}"; do
			/usr/bin/python3 "$top/bench/report.py" --decided "$d" > "$d/decided.txt" 2>&1 || undecided=1
		done
		if [ "$undecided" = 0 ]; then
			stop="every question decided"
			[ "$AA" != 1 ] || stop="every A/A metric within its aim"
			printf '\nbench: %s after %d repetitions\n' "$stop" "$rep"
			break
		fi
	fi
done
for rep in $(seq $((reps_done + 1)) "$reps_last"); do
	for d in "${OUTS[@]}"; do rm -f "$d/plan-$rep.tsv"; done
done
total=$k_run
echo
CUR_STEP="the poweroff after the last run"
for ti in "${!OUTS[@]}"; do
	use_tree "$ti"
	for k in patched baseline; do
		lab_use "$(slot "$k")"
		lab_qmp cont >/dev/null 2>&1 || true	# a stopped guest cannot power off
		lab_poweroff || true
		cp "$LAB_RUN/console.log" "$OUT/console-$k.log"
		cp "$LAB_RUN/qemu.cmdline" "$OUT/qemu-$k.cmdline"
		splats=$(lab_console_splats)
		[ -z "$splats" ] || echo "bench: the $(slot "$k") kernel logged errors (see $OUT/console-$k.log): $splats" >&2
	done
done
use_tree 0
STATUS=complete
write_meta	# again, with every CPU layout as applied
CUR_STEP="the report"
IN_REPORT=1
rc=0
for d in "${OUTS[@]}"; do
	r=0
	/usr/bin/python3 "$top/bench/report.py" "$d" || r=$?
	[ "$rc" -ne 0 ] || rc=$r
done
if ((${#OUTS[@]} > 1)); then
	/usr/bin/python3 "$top/bench/trees.py" "${OUTS[0]}" "${OUTS[1]}" \
		--out "$OUT_TOP/trees.md" --json "$OUT_TOP/trees.json" || { [ "$rc" -ne 0 ] || rc=1; }
	echo "bench: ${TREES[1]} against ${TREES[0]}, paired across the trees: ${OUT_TOP#"$top"/}/trees.md"
fi
IN_REPORT=0
# 3: an A/A interval excludes 1.0 (make aa fails: the method is broken)
# 4: make aa judged nothing (no A/A interval: it cannot vouch for the method)
[ "$rc" -eq 0 ] || { echo "bench: the report exited $rc" >&2; exit "$rc"; }

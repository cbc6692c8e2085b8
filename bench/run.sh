#!/bin/bash
# The bench: boot the patched and the unpatched (baseline) kernel side by
# side, each with an emulated e1000 on a tap in its own netns, and run iperf3
# from the host across the axes below, in pairs: every patched run has its
# baseline twin (same profile and environment) right before or after it, in
# an order drawn at random (bench/plan.py); the other guest is paused (QMP
# stop) while one is measured. Writes results/<UTC stamp>/{runs.csv,
# meta.json} and calls bench/report.py, whose verdicts (verdicts.json) are
# paired ratios with 95 % intervals (bench/stats.py).
#
# Axes (environment or make variables; lists are space-separated):
#   WEIGHTS  sysfs weight of the patched e1000      "4 8 16 32 64 128"
#   REFILL   rx_refill_batch (0: after the poll)   "0 16"
#   ADAPTIVE adaptive quota (devlink adaptive_quota) "off"
#   DEFER    napi_defer_hard_irqs (gro_flush_timeout 20 us when > 0)  "0"
#   RING     RX ring size, ethtool -G (48..4096)   "256"
#   FIFO     tap txqueuelen in frames, the NIC FIFO "32"
#   LINK     host-side pacing of the tap (tbf rate, e.g. 1gbit) or none  "1gbit"
#   LINK_BURST the tbf bucket (3kb): how many bytes may leave back to back;
#            1gbit with 3kb is a wire (frame by frame), none is unpaced
#   PROFILES tcp tcp4 udp1470 udp64 zeroloss idle  "tcp tcp4 udp1470 udp64"
#   REPS 3, or auto: pairs are added a repetition at a time (at least
#     MIN_REPS, 6) until every goal has a verdict or MAX_REPS (12) is reached.
#   SECS 5 (per run; TCP omits 1 s of slow start more), UDP64_RATE 20M,
#   OUT (results directory), BENCH_SEED (random: the pairs' order).
#   AA=1 (make aa): the baseline kernel in both slots, the lab's resolution.
#   UDP1470_RATE: offered rate of udp1470; by default half the baseline's
#     saturation rate, measured first (SAT_REPS 3 runs offering SAT_OFFER
#     1000M on each kernel, role sat).
#   PIN: CPU layout of the sweep runs (split): none (host scheduler), split
#     (vCPUs on CPU 1; QEMU's main loop, which reads the tap, and the iperf3
#     client on CPU 0), client-on-vcpu (vCPUs and the client on CPU 1, QEMU's
#     main loop alone on CPU 0). PIN=1 means split, PIN=0 none.
#   CALIB 1: calibration runs (ring 4096, tcp) in each layout of CALIB_PINS
#     ("none split client-on-vcpu"): the emulator's drop floor.
#   HIST 1: per repetition, tcp and udp1470 runs of both kernels at their
#     defaults with an in-kernel napi_poll work/budget histogram (role hist).
#   BOOT_ORDER "patched baseline": which guest boots first (to check the slots).
#
# Every knob is checked first (bench/args.sh: one line, exit 2, nothing
# written). meta.json's "status" is running, then complete, failed (the sweep
# stopped on an error: FAILED says which run, command, exit code, output and
# the console tail) or interrupted (INT, TERM, HUP). A run whose iperf3 did
# not connect, whose JSON is missing or broken, or whose counters could not
# be read is kept in runs.csv with status=failed and its error, and left out
# of every figure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/args.sh"
ARGS_WHO=bench args_bench
. "$top/qemu/lib/lab.sh"
# QUICK=1 (plain `make`): the goals at the defaults, paired, with verdicts.
if [ "${QUICK:-0}" = 1 ]; then
	WEIGHTS=${WEIGHTS:-64} REFILL=${REFILL:-16} PROFILES=${PROFILES:-"tcp udp1470"}
	SECS=${SECS:-4} REPS=${REPS:-auto} MAX_REPS=${MAX_REPS:-8} CALIB=${CALIB:-0}
	CALIB_PINS=${CALIB_PINS:-split} HIST=${HIST:-0} SAT_REPS=${SAT_REPS:-2}
fi
# AA=1 (make aa): the goal profiles, baseline against baseline.
if [ "${AA:-0}" = 1 ]; then
	WEIGHTS=${WEIGHTS:-64} REFILL=${REFILL:-16} ADAPTIVE=${ADAPTIVE:-off}
	PROFILES=${PROFILES:-"tcp udp1470 udp64"} CALIB=${CALIB:-0} HIST=${HIST:-0}
	SAT_REPS=${SAT_REPS:-2}
fi
export WEIGHTS=${WEIGHTS:-"4 8 16 32 64 128"} REFILL=${REFILL:-"0 16"}
export ADAPTIVE=${ADAPTIVE:-off} DEFER=${DEFER:-0} RING=${RING:-256}
export FIFO=${FIFO:-32} LINK=${LINK:-1gbit} REPS=${REPS:-3} CALIB=${CALIB:-1}
export LINK_BURST=${LINK_BURST:-3kb} MIN_REPS=${MIN_REPS:-6} MAX_REPS=${MAX_REPS:-12}
export AA=${AA:-0} BENCH_SEED=${BENCH_SEED:-$((RANDOM * 32768 + RANDOM))}
export PROFILES=${PROFILES:-"tcp tcp4 udp1470 udp64"}
SECS=${SECS:-5} UDP64_RATE=${UDP64_RATE:-20M}
UDP1470_RATE=${UDP1470_RATE:-} SAT_REPS=${SAT_REPS:-3} SAT_OFFER=${SAT_OFFER:-1000M}
case ${PIN:-split} in 1) PIN=split ;; 0) PIN=none ;; *) PIN=${PIN:-split} ;; esac
export PIN CALIB_PINS=${CALIB_PINS:-"none split client-on-vcpu"} HIST=${HIST:-1}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
csv=$OUT/runs.csv

stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
csv=$OUT/runs.csv
# BOOT_ORDER: which guest boots first (its QEMU also started first); to check
# that the two slots are alike, swap it.
BOOT_ORDER=${BOOT_ORDER:-"patched baseline"}
export BOOT_ORDER
if [ -z "$UDP1470_RATE" ] && [ "$SAT_REPS" = 0 ] &&
   { [[ " $PROFILES " = *" udp1470 "* ]] || [ "$HIST" = 1 ]; }; then
	args_die "SAT_REPS=0 needs UDP1470_RATE (the udp1470 load is half the measured saturation)"
fi

die() { echo "bench: $*" >&2; exit 1; }
for k in build/kernel/bzImage build/baseline/bzImage build/initramfs.img; do
	[ "$AA" = 1 ] && [ "$k" = build/kernel/bzImage ] && continue
	[ -f "$top/$k" ] || die "$k missing (make kernel baseline initramfs)"
done
[ ! -e "$OUT" ] || die "$OUT exists: give a new OUT (rows of two sweeps would mix)"

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
	local rc=$1 st
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
		failure_report > "$OUT/FAILED"
		cat "$OUT/FAILED" >&2
	fi
	STATUS=$st
	set_status "$st"
	if [ -s "$csv" ]; then
		timeout 60 python3 "$top/bench/report.py" --no-plots "$OUT" >/dev/null 2>&1 || true
	fi
	echo "bench: $st (exit $rc) after $k_run of $total runs; what was recorded is in ${OUT#"$top"/}" >&2
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

# meta.json from what is known so far (kernel releases once booted); every
# value reaches Python as an argument or through the environment.
write_meta() {
	M_TOP=$top M_OUT=$OUT M_PIN=$PIN M_SECS=$SECS M_UDP1470_RATE=$UDP1470_RATE \
	M_UDP64_RATE=$UDP64_RATE M_RATE_SOURCE=$rate_source M_SAT_OFFER=$SAT_OFFER \
	M_SAT_REPS=$SAT_REPS M_SAT_MBPS=$sat_mbps M_STAMP=$stamp M_STATUS=$STATUS \
	M_TOTAL=$total M_RUN_PATCHED=${LAB_ALL_RUN[patched]:-} \
	M_RUN_BASELINE=${LAB_ALL_RUN[baseline]:-} \
	python3 - "$OUT/meta.json" <<'PY'
import json, os, subprocess, sys
E = os.environ


def run(*a):
    return subprocess.run(a, capture_output=True, text=True).stdout.strip()


def read(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None


top = E["M_TOP"]
dirty = run("git", "-C", top, "status", "--porcelain", "--untracked-files=no")
kernels = {}
for k, d in (("patched", "kernel"), ("baseline", "baseline")):
    run_dir = E.get("M_RUN_" + k.upper())
    cfg = run("sha256sum", os.path.join(top, "build", d, "config")).split()
    kernels[k] = {"release": read(os.path.join(run_dir, "version")) if run_dir else None,
                  "config_sha256": cfg[0] if cfg else None}
cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
pin_file = os.path.join(E["M_OUT"], "pinning.txt")
meta = {
    "status": E["M_STATUS"],
    "runs_planned": int(E["M_TOTAL"]),
    "aa": int(E.get("AA") or 0),
    "bench_seed": int(E["BENCH_SEED"]),
    "reps": E.get("REPS", ""), "min_reps": E.get("MIN_REPS", ""), "max_reps": E.get("MAX_REPS", ""),
    "git_revision": run("git", "-C", top, "rev-parse", "HEAD") + (" (dirty)" if dirty else ""),
    "kernels": kernels,
    "qemu": (run("qemu-system-x86_64", "--version").splitlines() or [""])[0],
    "iperf3": (run("iperf3", "--version").splitlines() or [""])[0],
    "host_cpu": cpu[0] if cpu else "",
    "host_cores": os.cpu_count(),
    "host_kernel": os.uname().release,
    # make exports ACCEL and VCPUS empty when unset; lab.sh's defaults then apply
    "accel": E.get("ACCEL") or "tcg", "vcpus": E.get("VCPUS") or "1",
    "mem_mib": E.get("MEM") or "512",
    "pinning": {"sweep_layout": E["M_PIN"], "calib_layouts": E.get("CALIB_PINS", ""),
                "layouts": {l: {"qemu_vcpu_threads": "CPU %s" % v, "qemu_other_threads": "CPU %s" % r,
                                "iperf3_client": "CPU %s" % c}
                            for l, v, r, c in (("none", "0,1", "0,1", "0,1"), ("split", "1", "0", "0"),
                                               ("client-on-vcpu", "1", "0", "1"))},
                "applied": sorted(set(open(pin_file).read().splitlines())) if os.path.exists(pin_file) else []},
    "parameters": {k: E.get(k, "") for k in ("WEIGHTS", "REFILL", "ADAPTIVE", "DEFER", "RING", "FIFO", "LINK",
                                             "LINK_BURST", "BOOT_ORDER", "PROFILES", "REPS", "CALIB",
                                             "CALIB_PINS", "PIN", "HIST")},
    "secs": int(E["M_SECS"]), "udp1470_rate": E["M_UDP1470_RATE"], "udp64_rate": E["M_UDP64_RATE"],
    "udp1470_rate_source": E["M_RATE_SOURCE"],
    "saturation": {"offered": E["M_SAT_OFFER"], "reps": int(E["M_SAT_REPS"]),
                   "baseline_median_mbps": E["M_SAT_MBPS"]},
    "started_utc": E["M_STAMP"],
}
with open(sys.argv[1] + ".tmp", "w") as f:
    json.dump(meta, f, indent=2)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
PY
}

# Only the status changes (the EXIT hook: failed or interrupted).
set_status() {
	python3 - "$OUT/meta.json" "$1" <<'PY' || echo "bench: could not set status $1 in meta.json" >&2
import json, os, sys
path, status = sys.argv[1:3]
meta = json.load(open(path))
meta["status"] = status
with open(path + ".tmp", "w") as f:
    json.dump(meta, f, indent=2)
os.replace(path + ".tmp", path)
PY
}

lab_init bench
mkdir -p "$OUT"
STATUS=running
# zeroloss expands to one run per frame size.
expand() {
	local line=$1 prof
	prof=$(cut -f11 <<<"$line")
	if [ "$prof" = zeroloss ]; then
		sed 's/\tzeroloss\t/\tzeroloss1470\t/' <<<"$line"
		sed 's/\tzeroloss\t/\tzeroloss64\t/' <<<"$line"
	else
		echo "$line"
	fi
}
# plan_rep REP: the runs of one repetition, in $OUT/plan-REP.tsv
plan_rep() {
	local l
	python3 "$top/bench/plan.py" "$1" > "$OUT/plan-$1.raw"
	while IFS= read -r l; do expand "$l"; done < "$OUT/plan-$1.raw" > "$OUT/plan-$1.tsv"
	rm -f "$OUT/plan-$1.raw"
}
if [ "$REPS" = auto ]; then
	reps_first=$MIN_REPS reps_last=$MAX_REPS
else
	reps_first=$REPS reps_last=$REPS
fi
for rep in $(seq "$reps_last"); do plan_rep "$rep"; done

# The goals' ring: 256 if swept, else the first RING.
ring_goal=$(for r in $RING; do echo "$r"; done | grep -x 256 || echo "${RING%% *}")
# Saturation first (role sat): udp1470 offering SAT_OFFER on both kernels at
# their defaults, in pairs; half the baseline's median received rate
# becomes UDP1470_RATE unless it was given.
: > "$OUT/sat.tsv"
rate_source=given
if [ -z "$UDP1470_RATE" ]; then
	rate_source="half the baseline's median saturation rate"
	[[ " $PROFILES " = *" udp1470 "* ]] || [ "$HIST" = 1 ] || rate_source=unused UDP1470_RATE=-
	if [ "$UDP1470_RATE" != - ]; then
		for rep in $(seq "$SAT_REPS"); do
			for k in baseline patched; do
				printf '%s\tsat\t64\t16\toff\t0\t%s\t%s\t%s\t%s\tudp1470\t%s\tsat-%s\n' \
					"$k" "$ring_goal" "${FIFO%% *}" "${LINK%% *}" "$PIN" "$rep" "$rep"
			done
		done > "$OUT/sat.tsv"
	fi
fi
# Planned: every repetition up to MAX_REPS with REPS=auto (fewer when the
# verdicts are decided earlier: runs_planned is then lowered to what ran).
total=$(( $(wc -l < "$OUT/sat.tsv") + $(cat "$OUT"/plan-[0-9]*.tsv | wc -l) ))
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
	local layout=$1 k cur=$LAB_CUR
	[ "$layout" != "$pin_cur" ] || return 0
	for k in patched baseline; do
		lab_use "$k"
		echo "$layout $k: $(lab_pin "${PIN_VCPU[$layout]}" "${PIN_REST[$layout]}")" >> "$OUT/pinning.txt"
	done
	[ -z "$cur" ] || [ "$cur" = main ] || lab_use "$cur"
	client_pin=(taskset -c "${PIN_CLIENT[$layout]}")
	pin_cur=$layout
}


for k in $BOOT_ORDER; do
	CUR_STEP="the boot of the $k guest"
	lab_new "$k"
	img=$top/build/kernel/bzImage
	# A/A: the baseline kernel in both slots
	[ "$k" = baseline ] || [ "$AA" = 1 ] && img=$top/build/baseline/bzImage
	lab_boot "$img" "$top/build/initramfs.img"
	must lab_ctl /lab/iperf3-server >/dev/null
	release=$(must lab_ctl uname -r)
	version=$(must lab_ctl cat /proc/version)
	echo "$release $version" > "$LAB_RUN/version"
done
write_meta

# Host side of the current guest's link: FIFO depth and pacing.
set_link() {
	local fifo=$1 link=$2
	lab_host ip link set tap0 txqueuelen "$fifo"
	if [ "$link" = none ]; then
		lab_host tc qdisc del dev tap0 root 2>/dev/null || true
	else
		lab_host tc qdisc replace dev tap0 root tbf rate "$link" burst "$LINK_BURST" latency 20ms
	fi
}

tapdrops() { lab_host cat /sys/class/net/tap0/statistics/tx_dropped; }
# Drops of the host's qdisc on tap0 (the LINK tbf): a place the tap's
# tx_dropped does not count.
qdiscdrops() {
	lab_host tc -s qdisc show dev tap0 root |
		awk '{ for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); s += $(i + 1) } }
		     END { print s + 0 }'
}

# Bounded wait until the guest answers on its NIC again (after a ring change).
reachable() {
	local i
	for i in $(seq 20); do
		lab_host ping -q -c 1 -W 1 "$LAB_GUEST_IP" >/dev/null 2>&1 && return 0
	done
	FAIL_CMD="ping -c 1 -W 1 $LAB_GUEST_IP (from netns $LAB_NS), 20 tries" FAIL_RC=1
	FAIL_OUT=$(lab_host ping -c 1 -W 1 "$LAB_GUEST_IP" 2>&1 || true)
	lab_die "guest $LAB_CUR does not answer ping on eth0 after 20 tries"
}

# iperf OUT.json ARGS...: a client run of SECS (IPERF_SECS), bounded; its
# exit code in OUT.json.rc. With PING_OUT set, ping runs beside it at 100
# per second for as long (latency under load: the other side of a long poll).
iperf() {
	local out=$1 rc=0 t=${IPERF_SECS:-$SECS} ping_pid= extra=0
	shift
	[[ " $* " != *" -O 1 "* ]] || extra=1
	if [ -n "${PING_OUT:-}" ]; then
		lab_host timeout $((t + extra + 15)) ping -n -i 0.01 -W 1 -c $(((t + extra) * 100)) \
			"$LAB_GUEST_IP" > "$PING_OUT" 2>&1 &
		ping_pid=$!
	fi
	lab_host timeout $((t + extra + 30)) "${client_pin[@]}" iperf3 -c "$LAB_GUEST_IP" \
		-t "$t" --json "$@" > "$out" 2> "$out.err" || rc=$?
	echo "$rc" > "$out.rc"
	[ -z "$ping_pid" ] || wait "$ping_pid" || true
}

# The verdict of one UDP trial: ok (at most 0.1 % lost), fail (more), or
# error (no result: iperf3 failed, never connected, or its JSON is missing
# or broken; an error says nothing about the rate).
udp_verdict() {
	python3 - "$1" <<'PY'
import json, sys
path = sys.argv[1]
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
    print("ok" if lost * 1000 <= sent else "fail")
PY
}

# The places one zero-loss trial is attributed to, one line "fifo link sock
# softnet": the tap's and the qdisc's drops on the host, the guest's UDP
# socket and backlog drops (one benchsnap).
zl_counters() {
	echo "$(tapdrops) $(qdiscdrops) $(lab_ctl benchsnap after |
		awk '$1 == "udp_RcvbufErrors" { r = $2 } $1 == "softnet_dropped" { d = $2 }
		     END { print r + 0, d + 0 }')"
}

# One zero-loss trial: zl_trial LEN RATE_MBPS OUT.json prints ok, fail or
# error. Appends "rate verdict sent lost fifo link sock softnet" to
# OUT.json.trials, the drops counted around this trial alone, so the loss
# that ends the bisection can be attributed.
zl_trial() {
	local len=$1 rate=$2 out=$3 c0 c1 verdict
	c0=$(zl_counters)
	iperf "$out.try" -u -l "$len" -b "${rate}M"
	c1=$(zl_counters)
	verdict=$(udp_verdict "$out.try")
	# shellcheck disable=SC2086 # eight counters, one a word
	python3 - "$out.try" "$rate" "$verdict" $c0 $c1 >> "$out.trials" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))["end"]["sum"]
    sent, lost = s["packets"], s["lost_packets"]
except (OSError, ValueError, KeyError, TypeError):
    sent = lost = "-"
c = list(map(int, sys.argv[4:12]))
print(sys.argv[2], sys.argv[3], sent, lost, *(b - a for a, b in zip(c[:4], c[4:])))
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

# RFC 2544 throughput: the highest rate with <= 0.1 % loss, by bisection on a
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
		mid=$(python3 -c 'import math, sys; lo, hi = map(int, sys.argv[1:]); print(max(lo + 1, round(math.sqrt(lo * hi))))' "$lo" "$hi")
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

cpu_delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# Only the guest being measured runs: the other one is stopped (QMP) so that
# its timers and housekeeping do not share the host CPUs with the run.
PAUSED=
pause_other() {
	local this=$1 other=patched
	[ "$this" = patched ] && other=baseline
	[ "$PAUSED" != "$other" ] || return 0
	lab_use "$other"
	must lab_qmp stop >/dev/null
	lab_use "$this"
	must lab_qmp cont >/dev/null
	PAUSED=$other
}

run_one() {
	local kernel=$1 role=$2 w=$3 n=$4 a=$5 d=$6 ring=$7 fifo=$8 link=$9 pin=${10}
	local prof=${11} rep=${12} pair=${13} dir=$OUT/raw/$k_run t0 t1 q0 q1 res=- offered= rate=$UDP1470_RATE
	local err= confirmed= load1 c0 c1 o0 o1 other_pid ping_out= cc1
	mkdir -p "$dir"
	apply_pin "$pin"
	pause_other "$kernel"
	lab_use "$kernel"
	guest_alive
	other_pid=${LAB_ALL_QEMU[$([ "$kernel" = patched ] && echo baseline || echo patched)]}
	[ "$role" != sat ] || rate=$SAT_OFFER
	if [ "$kernel" = patched ] && [ "$AA" != 1 ]; then
		must lab_ctl benchset "$w" "$n" "$a" "$d" "$ring" >/dev/null
	else
		must lab_ctl benchset - - - "$d" "$ring" >/dev/null
	fi
	must set_link "$fifo" "$link"
	reachable
	lab_ctl benchsnap before > "$dir/before" 2>&1 || err="benchsnap before failed"
	[ "$role" != hist ] || must lab_ctl benchhist start >/dev/null
	q0=$(must qdiscdrops)
	t0=$(must tapdrops)
	read -r load1 _ < /proc/loadavg
	# a compiler running on the host voids the run (a kernel build)
	cc1=$(pgrep -c -x 'cc1|cc1plus|ld' || true)
	c0=$(qemu_cpu "$LAB_QEMU_PID") o0=$(qemu_cpu "$other_pid")
	case $prof in tcp | tcp4 | udp1470 | udp64) ping_out=$dir/ping-load.txt ;; esac
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
	esac
	c1=$(qemu_cpu "$LAB_QEMU_PID") o1=$(qemu_cpu "$other_pid")
	cc1=$((cc1 + $(pgrep -c -x 'cc1|cc1plus|ld' || true)))
	if [[ $offered = error* ]]; then
		err="zero-loss trial at ${offered#error } Mbit/s errored twice (see $res.try.err)"
		offered=
	elif [[ $offered = *" "* ]]; then
		confirmed=$([ "${offered#* }" = confirmed ] && echo 1 || echo 0)
		offered=${offered%% *}
	fi
	t1=$(must tapdrops)
	q1=$(must qdiscdrops)
	lab_ctl benchsnap after > "$dir/after" 2>&1 || err=${err:-"benchsnap after failed"}
	[ "$role" != hist ] || lab_ctl benchhist stop >> "$dir/after" 2>&1 || err=${err:-"benchhist stop failed"}
	guest_alive
	must python3 "$top/bench/row.py" "$csv" "$dir/before" "$dir/after" "$t0" "$t1" "$res" \
		kernel="$kernel" role="$role" weight="$w" refill="$n" adaptive="$a" defer="$d" \
		ring="$ring" fifo="$fifo" link="$link" pin="$pin" profile="$prof" rep="$rep" secs="$SECS" \
		offered_mbps="$offered" link_drops=$((q1 - q0)) trials="$res.trials" error="$err" \
		pair="$pair" pdr_confirmed="$confirmed" host_load1="$load1" ping_load="$ping_out" \
		host_compilers="$cc1" \
		qemu_cpu_s="$(cpu_delta "$c0" "$c1")" other_qemu_cpu_s="$(cpu_delta "$o0" "$o1")"
}

start=$SECONDS
do_runs() {
	local kernel role w n a d ring fifo link pin prof rep pair el eta
	while IFS=$'\t' read -r kernel role w n a d ring fifo link pin prof rep pair; do
		k_run=$((k_run + 1))
		CUR_STEP="run $k_run of $total ($kernel $role weight=$w refill=$n adaptive=$a defer=$d ring=$ring fifo=$fifo link=$link pin=$pin profile=$prof rep=$rep pair=$pair)"
		el=$((SECONDS - start))
		eta=$(( k_run > 1 ? el * (total - k_run + 1) / (k_run - 1) : 0 ))
		printf '\rbench: run %d of %d  %dm%02ds elapsed, ETA %dm%02ds  %-8s %-5s w=%-4s n=%-3s ring=%-4s %-14s %-12s' \
			"$k_run" "$total" $((el / 60)) $((el % 60)) $((eta / 60)) $((eta % 60)) \
			"$kernel" "$role" "$w" "$n" "$ring" "$pin" "$prof"
		run_one "$kernel" "$role" "$w" "$n" "$a" "$d" "$ring" "$fifo" "$link" "$pin" "$prof" "$rep" "$pair" < /dev/null
	done < "$1"
}
echo "bench: $total runs, results in ${OUT#"$top"/}"
do_runs "$OUT/sat.tsv"
if [ -s "$OUT/sat.tsv" ]; then
	sat_mbps=$(python3 - "$csv" <<'PY'
import csv, statistics, sys
v = [float(r["mbps"]) for r in csv.DictReader(open(sys.argv[1]))
     if r["role"] == "sat" and r["kernel"] == "baseline" and r["status"] == "ok" and r["mbps"]]
print("%.1f" % statistics.median(v) if v else "")
PY
)
	[ -n "$sat_mbps" ] || lab_die "no saturation measurement of the baseline succeeded (see $OUT/raw/*/iperf.json.err)"
	UDP1470_RATE=$(python3 -c 'import sys; print("%dM" % max(1, round(float(sys.argv[1]) / 2)))' "$sat_mbps")
	printf '\nbench: baseline saturates at %s Mbit/s (median of %s); udp1470 offers %s\n' \
		"$sat_mbps" "$SAT_REPS" "$UDP1470_RATE"
fi
write_meta
# Fixed REPS: every repetition. REPS=auto: MIN_REPS first, then one more at a
# time until every goal has a verdict (met or not_met) or MAX_REPS ran.
reps_done=0
for rep in $(seq "$reps_last"); do
	do_runs "$OUT/plan-$rep.tsv"
	reps_done=$rep
	if [ "$REPS" = auto ] && ((rep >= reps_first && rep < reps_last)); then
		if /usr/bin/python3 "$top/bench/report.py" --decided "$OUT" > "$OUT/decided.txt" 2>&1; then
			printf '\nbench: every goal decided after %d repetitions\n' "$rep"
			break
		fi
	fi
done
for rep in $(seq $((reps_done + 1)) "$reps_last"); do rm -f "$OUT/plan-$rep.tsv"; done
total=$k_run
echo
CUR_STEP="the poweroff after the last run"
for k in patched baseline; do
	lab_use "$k"
	lab_qmp cont >/dev/null 2>&1 || true	# a stopped guest cannot power off
	lab_poweroff || true
	cp "$LAB_RUN/console.log" "$OUT/console-$k.log"
	cp "$LAB_RUN/qemu.cmdline" "$OUT/qemu-$k.cmdline"
	splats=$(lab_console_splats)
	[ -z "$splats" ] || echo "bench: the $k kernel logged errors (see $OUT/console-$k.log): $splats" >&2
done
STATUS=complete
write_meta	# again, with every CPU layout as applied
CUR_STEP="the report"
IN_REPORT=1
rc=0
/usr/bin/python3 "$top/bench/report.py" "$OUT" || rc=$?
IN_REPORT=0
# 3: an A/A interval excludes 1.0 (make aa fails: the method is broken)
[ "$rc" -eq 0 ] || { echo "bench: the report exited $rc" >&2; exit "$rc"; }

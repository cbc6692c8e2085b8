# shellcheck shell=bash
# Shared by the host-side tests that start lab runs (interrupt, failures):
# start a make target in a session of its own, wait for a point in it, wait
# for the whole session to end, and check that nothing of it is left.
# The caller sets top, sources qemu/guest/bin/ktap.sh, then this file.
LOCK=/run/lock/napilab.lock
work=$(mktemp -d)
job=
cleanup() {
	[ -z "$job" ] || kill -KILL -- "-$job" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The namespaces of the runs this test starts (smoke, bench), and nothing of
# another lab run that may queue behind them.
lab_ns() { ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E '^napilab-(smoke|bench)-' || true; }
host_state() {	# what a run must not leave in the host's own namespace
	{
		ip -o link show | awk -F': ' '{ print $2 }' | sort
		tc qdisc show | sort
	} 2>/dev/null
}

# wait_for SECS CMD...: poll CMD every 0.05 s until it succeeds; 1 on timeout
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.05
	done
}

# Processes of the job's session whose command line matches $1.
in_job() { pgrep -s "$job" -f "$1" >/dev/null; }
ns_of_job() { lab_ns | grep -qE "^napilab-$1"; }
iperf_client_running() {
	local ns p
	for ns in $(lab_ns); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = iperf3 ] && return 0
		done
	done
	return 1
}
second_guest_booting() { lab_ns | grep -qE '^napilab-bench-baseline-'; }
log_has() { grep -q "$1" "$work/log" 2>/dev/null; }

# start MAKEARGS...: make in a new session (its pid is the group's id). The
# kernels and the initramfs were made before (make test builds them first):
# -o keeps make from remaking them, so that each case takes seconds.
start() {
	: > "$work/log"
	# A non-interactive shell starts background jobs with SIGINT ignored, and
	# a shell cannot trap a signal ignored on entry: reset it, as a terminal's
	# foreground job has it, and make the job a session of its own.
	LAB_LOCK_WAIT=600 /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' \
		make -s -o deps -o kernel -o baseline -o initramfs "$@" > "$work/log" 2>&1 < /dev/null &
	job=$!
	REACHED=0 SCRIPT_PID=none
}

# The job's run holds the lab lock (it may first queue behind another run:
# LAB_LOCK_WAIT above).
job_owns_lock() {
	local owner
	owner=$(sed -n 's/^pid \([0-9]*\),.*/\1/p' "$LOCK.owner" 2>/dev/null)
	[ -n "$owner" ] && pgrep -s "$job" | grep -qx "$owner"
}

# at SECS WHAT CMD...: wait for the point where the signal is to land; SECS
# count from the moment the job's run holds the lock.
at() {
	local t=$1 what=$2
	shift 2
	wait_for 600 job_owns_lock || ktap_diag "the run never got the lab lock: $(cat "$LOCK.owner" 2>/dev/null)"
	if wait_for "$t" "$@"; then
		REACHED=1
		SCRIPT_PID=$(pgrep -s "$job" -f 'qemu/smoke.sh|bench/run.sh' | head -1)
	else
		ktap_diag "never reached $what in $t s: $(tail -5 "$work/log")"
	fi
}

# finish: wait (bounded) for the job to end; its exit status in RC
finish() {
	local i
	RC=
	# make may exit before its children have finished their traps: wait
	# until no process of the session is left.
	for i in $(seq 1200); do
		kill -0 "$job" 2>/dev/null || pgrep -s "$job" >/dev/null || break
		sleep 0.1
	done
	if kill -0 "$job" 2>/dev/null || pgrep -s "$job" >/dev/null; then
		ktap_diag "still running 120 s after the signal; killing it"
		kill -KILL -- "-$job" 2>/dev/null || true
		RC=timeout
	fi
	wait "$job" 2>/dev/null && RC=${RC:-0} || RC=${RC:-$?}
	job=
}

# check_clean NAME [nosignal]: nothing of the run is left (and, unless
# nosignal, the run saw the signal sent to it)
check_clean() {
	local name=$1 bad=() now
	[ "$REACHED" = 1 ] || bad+=("the run never reached the point of the test")
	[ "$RC" != 0 ] && [ "$RC" != timeout ] || bad+=("exit status $RC")
	# The trap's "lab: SIG..." line, or make's report of the script's exit
	# status 128 + signal (the line can be lost when the signal lands during
	# a command whose stderr goes to /dev/null: bash runs the trap then).
	[ "${2:-}" = nosignal ] || grep -qE 'lab: SIG|Error 1(29|30|43)' "$work/log" ||
		bad+=("the script never saw the signal")
	[ -z "$(lab_ns)" ] || bad+=("netns left: $(lab_ns | tr '\n' ' ')")
	! pgrep -f 'qemu-system.*napilab-(smoke|bench)-' >/dev/null ||
		bad+=("QEMU left: $(pgrep -af 'qemu-system.*napilab-(smoke|bench)-' | cut -c1-80)")
	now=$(host_state)
	[ "$now" = "$before" ] || bad+=("host state changed: $(diff <(echo "$before") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')")
	flock -n "$LOCK" true || ! grep -qs "^pid $SCRIPT_PID," "$LOCK.owner" ||
		bad+=("lock $LOCK still held by the run (pid $SCRIPT_PID)")
	if [ ${#bad[@]} -eq 0 ]; then
		ktap_diag "$name: exit $RC; $(grep -m1 -oE 'lab: SIG.*|Error 1(29|30|43)' "$work/log")"
		ktap_result 0 "$name"
	else
		ktap_diag "$name: ${bad[*]}"
		ktap_diag "$(tail -15 "$work/log")"
		ktap_result 1 "$name"
	fi
}


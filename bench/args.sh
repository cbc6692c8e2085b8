#!/bin/bash
# Check every user knob before anything runs: one line on stderr naming the
# knob and exit status 2 at the first bad value; nothing is written.
#
#   bench/args.sh lab       ACCEL VCPUS MEM FIFO SECS ... (every target that boots)
#   bench/args.sh bench     the above and every axis of bench/run.sh, OUT
#   bench/args.sh report    R: an existing results directory
#
# Values come from the environment (make exports them; empty means unset,
# the default applies) and are only ever compared, never evaluated.
set -euo pipefail

args_die() {
	echo "${ARGS_WHO:-lab}: $*" >&2
	exit 2
}

# A decimal number without leading zeros or sign, at most 9 digits.
args_num() {	# args_num NAME VALUE MIN MAX
	[[ $2 =~ ^(0|[1-9][0-9]{0,8})$ ]] ||
		args_die "$1: '$2' is not a decimal number (digits only, no leading zero)"
	(($2 >= $3 && $2 <= $4)) || args_die "$1: $2 is outside $3..$4"
}

# One word, not a list.
args_one() {	# args_one NAME VALUE
	local -a w
	read -r -a w <<<"$2"
	[ "${#w[@]}" -le 1 ] || args_die "$1: one value, not '$2'"
}

# args_opt_num NAME MIN MAX / args_opt_word NAME ALLOWED...: the variable
# NAME, when set, is one number in MIN..MAX / one of ALLOWED.
args_opt_num() {
	local v=${!1:-}
	[ -z "$v" ] || { args_one "$1" "$v"; args_num "$1" "$v" "$2" "$3"; }
}
args_opt_word() {
	local name=$1 v=${!1:-}
	shift
	[ -z "$v" ] || { args_one "$name" "$v"; args_words "$name" "$v" "$@"; }
}

args_list() {	# args_list NAME VALUE MIN MAX: a space-separated list of numbers
	local v
	[ -n "${2// /}" ] || args_die "$1: empty list"
	for v in $2; do args_num "$1" "$v" "$3" "$4"; done
}

args_words() {	# args_words NAME VALUE ALLOWED...: every word one of ALLOWED
	local name=$1 list=$2 v a ok
	shift 2
	[ -n "${list// /}" ] || args_die "$name: empty list"
	for v in $list; do
		ok=0
		for a in "$@"; do [ "$v" = "$a" ] && ok=1; done
		[ "$ok" = 1 ] || args_die "$name: '$v' is not one of: $*"
	done
}

args_path() {	# args_path NAME VALUE: only [A-Za-z0-9._/-]
	[[ $2 =~ ^[A-Za-z0-9._/-]+$ ]] ||
		args_die "$1: '$2' has characters outside [A-Za-z0-9._/-]"
}

args_rate() {	# args_rate NAME VALUE: Mbit/s like 150M
	args_one "$1" "$2"
	[[ $2 =~ ^[1-9][0-9]{0,5}M$ ]] || args_die "$1: a rate in Mbit/s like 150M, not '$2'"
}

args_lab() {
	local v
	v=${ACCEL:-}
	[ -z "$v" ] || args_words ACCEL "$v" tcg kvm
	[ -z "$v" ] || args_one ACCEL "$v"
	args_opt_num VCPUS 1 16
	args_opt_num MEM 128 16384
	[ -z "${FIFO:-}" ] || args_list FIFO "$FIFO" 1 100000
	args_opt_num BOOT_TIMEOUT 10 3600
	args_opt_num CHURN_SECS 1 3600
	args_opt_num SECS 1 3600
	args_opt_word NICS 1 2
	args_opt_word TCG_THREAD multi single
	[ -z "${COST:-}" ] || args_list COST "$COST" 0 100000
	args_opt_num LAB_LOCK_WAIT 0 86400
	# The compared kernels' code layout (qemu/build-kernel.sh): aligned or
	# plain; PAD: the layout A/A's bytes of text linked first (make aa PAD=N)
	args_opt_word LAYOUT aligned plain
	args_opt_num PAD 16 1048576
	[ -z "${PAD:-}" ] || ((PAD % 16 == 0)) || args_die "PAD: $PAD is not a multiple of 16"
}

args_bench() {
	local v r
	args_lab
	[ -z "${WEIGHTS:-}" ] || args_list WEIGHTS "$WEIGHTS" 1 64
	[ -z "${WEIGHTS_ETH1:-}" ] || args_list WEIGHTS_ETH1 "$WEIGHTS_ETH1" 1 64
	args_opt_word TARGET fixed weight per-weight
	args_opt_word POLL_TRACE 0 1
	args_opt_word ROUTER_PDR 0 1
	[ -z "${RING:-}" ] || args_list RING "$RING" 48 4096
	[ -z "${REFILL:-}" ] || args_list REFILL "$REFILL" 0 4096
	if [ -n "${REFILL:-}" ]; then
		for v in $REFILL; do
			for r in ${RING:-256}; do
				((v <= r)) || args_die "REFILL: $v exceeds RING $r"
			done
		done
	fi
	[ -z "${ADAPTIVE:-}" ] || args_words ADAPTIVE "$ADAPTIVE" on off
	[ -z "${DEFER:-}" ] || args_list DEFER "$DEFER" 0 1000
	if [ -n "${LINK:-}" ]; then
		for v in $LINK; do
			[[ $v = none || $v =~ ^[1-9][0-9]{0,5}[kmg]?bit$ ]] ||
				args_die "LINK: none or a tc rate like 1gbit, not '$v'"
		done
	fi
	if [ -n "${LINK_BURST:-}" ]; then
		args_one LINK_BURST "$LINK_BURST"
		[[ $LINK_BURST =~ ^[1-9][0-9]{0,5}kb$ ]] && ((${LINK_BURST%kb} >= 2)) ||
			args_die "LINK_BURST: a tc size of at least 2kb (one frame must fit), like 3kb or 64kb, not '$LINK_BURST'"
	fi
	[ -z "${PROFILES:-}" ] || args_words PROFILES "$PROFILES" tcp tcp4 udp1470 udp64 zeroloss idle \
		share share-adaptive router
	# share, share-adaptive and router need eth1: they boot both guests with NICS=2
	if [ "${NICS:-}" = 1 ] && [[ " ${PROFILES:-} " =~ \ (share|share-adaptive|router)\  ]]; then
		args_die "NICS: profile ${BASH_REMATCH[1]} needs two NICs, not NICS=1"
	fi
	if [ -n "${REPS:-}" ] && [ "$REPS" != auto ]; then
		args_one REPS "$REPS"
		[[ $REPS =~ ^[0-9]+$ ]] || args_die "REPS: a number of repetitions or auto, not '$REPS'"
		args_num REPS "$REPS" 1 100
	fi
	args_opt_num MIN_REPS 1 100
	args_opt_num MAX_REPS 1 100
	[ "${REPS:-}" != auto ] || ((${MIN_REPS:-6} <= ${MAX_REPS:-12})) ||
		args_die "MIN_REPS ${MIN_REPS:-6} exceeds MAX_REPS ${MAX_REPS:-12}"
	args_opt_word AA 0 1
	[ -z "${PAD:-}" ] || [ "${AA:-0}" = 1 ] ||
		args_die "PAD: only for the layout A/A (make aa PAD=N), not for a patched/baseline sweep"
	args_opt_num BENCH_SEED 0 2147483647
	args_opt_num SAT_REPS 0 100
	args_opt_word CALIB 0 1
	args_opt_word HIST 0 1
	args_opt_word PIN none split client-on-vcpu 0 1
	[ -z "${CALIB_PINS:-}" ] || args_words CALIB_PINS "$CALIB_PINS" none split client-on-vcpu
	[ -z "${UDP1470_RATE:-}" ] || args_rate UDP1470_RATE "$UDP1470_RATE"
	[ -z "${UDP64_RATE:-}" ] || args_rate UDP64_RATE "$UDP64_RATE"
	[ -z "${SAT_OFFER:-}" ] || args_rate SAT_OFFER "$SAT_OFFER"
	if [ -n "${BOOT_ORDER:-}" ] && [ "$BOOT_ORDER" != "patched baseline" ] &&
	   [ "$BOOT_ORDER" != "baseline patched" ]; then
		args_die "BOOT_ORDER: \"patched baseline\" or \"baseline patched\", not '$BOOT_ORDER'"
	fi
	if [ -n "${OUT:-}" ]; then
		args_one OUT "$OUT"
		args_path OUT "$OUT"
		[ ! -e "$OUT" ] || args_die "OUT: $OUT exists: give a new directory (rows of two sweeps would mix)"
	fi
}

args_report() {
	[ -n "${R:-}" ] || args_die "usage: make report R=results/<stamp> (a directory the bench wrote)"
	args_one R "$R"
	args_path R "$R"
	[ -d "$R" ] || args_die "R: $R is not a directory"
	[ -f "$R/runs.csv" ] && [ -f "$R/meta.json" ] ||
		args_die "R: $R is not a results directory (no runs.csv and meta.json)"
}

# make soak: the lab's knobs, SOAK_SECS (long enough for one fault window and
# one reload) and SOAK_SEED (the guest's and host's random choices).
args_soak() {
	args_lab
	args_opt_num SOAK_SECS 60 86400
	args_opt_num SOAK_SEED 0 32767
}

args_race() {
	args_lab
	[ -n "${WHAT:-}" ] || args_die "WHAT: say which race, WHAT=tp or WHAT=down"
	args_opt_word WHAT tp down
	args_opt_num RACE_SECS 10 86400
}

# Executed (not sourced): check the knobs of MODE.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	lab) ARGS_WHO=lab args_lab ;;
	bench) ARGS_WHO=bench args_bench ;;
	report) ARGS_WHO=report args_report ;;
	soak) ARGS_WHO=soak args_soak ;;
	race) ARGS_WHO=race args_race ;;
	*) echo "usage: bench/args.sh lab|bench|report|soak|race" >&2; exit 2 ;;
	esac
fi

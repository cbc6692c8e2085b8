# shellcheck shell=bash
# KTAP output for guest test scripts (Documentation/dev-tools/ktap.rst).
#   . /lab/ktap.sh
#   ktap_begin 3
#   ktap_result 0 name          # 0: ok, anything else: not ok
#   ktap_skip name reason
#   ktap_diag text
#   ktap_end                    # exit status: 0 when all ran ok
#   ktap_fail_rest WHY NAME...  # NAME... the plan's case names: the ones not
#                               # run yet fail, with WHY, and the test ends
KTAP_N=0
KTAP_FAILED=0
KTAP_PLAN=0

ktap_begin() {
	KTAP_PLAN=$1
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_diag() {
	local l
	while IFS= read -r l; do echo "# $l"; done <<<"$*"
}

ktap_result() {
	local rc=$1
	shift
	KTAP_N=$((KTAP_N + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $KTAP_N $*"
	else
		echo "not ok $KTAP_N $*"
		KTAP_FAILED=$((KTAP_FAILED + 1))
	fi
}

ktap_skip() {
	local name=$1
	shift
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $name # SKIP $*"
}

# ktap_eq NAME EXPECTED ACTUAL
ktap_eq() {
	if [ "$2" = "$3" ]; then
		ktap_result 0 "$1"
	else
		ktap_diag "$1: expected '$2', got '$3'"
		ktap_result 1 "$1"
	fi
}

ktap_end() {
	if [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		ktap_diag "planned $KTAP_PLAN tests, ran $KTAP_N"
		return 1
	fi
	[ "$KTAP_FAILED" -eq 0 ]
}

# ktap_fail_rest WHY NAME...: when a test cannot go on, every case of the
# plan (NAME..., in order) from the next one on is reported failed after the
# diagnostic WHY, and the script ends with ktap_end's status.
ktap_fail_rest() {
	local n
	ktap_diag "$1"
	shift
	for n in "${@:KTAP_N+1}"; do
		ktap_result 1 "$n"
	done
	ktap_end
	exit
}

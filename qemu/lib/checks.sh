# shellcheck shell=bash
# KTAP checks of a host-driven guest run (qemu/soak.sh, qemu/race.sh): each
# check is recorded as it is decided and printed at the end, with the
# console scan's verdict among them. Source after qemu/lib/lab.sh.
#
#   result RC NAME [DIAG]     ok (RC 0) or not ok, DIAG lines before it
#   skip NAME REASON          ok ... # SKIP REASON
#   diag TEXT                 "# " lines
#   t COMMAND...              0 if it holds, else 1 (for result, under set -e)
#   checks_scan BASELINE [ARGS...]
#                             qemu/soak/scan.py [ARGS] on the console into
#                             $LAB_RUN/reports.txt (--baseline when BASELINE
#                             is 1); its exit status
#   checks_ktap HEADER        the KTAP, the console log, "# N skipped" and
#                             "N passed, N failed"

KTAP=() PASS=0 FAIL=0 SKIP=0

diag() {
	local l
	while IFS= read -r l; do KTAP+=("# $l"); done <<<"$*"
}
result() {
	[ -n "${3:-}" ] && diag "$3"
	if [ "$1" -eq 0 ]; then
		PASS=$((PASS + 1)); KTAP+=("ok $((PASS + FAIL + SKIP)) $2")
	else
		FAIL=$((FAIL + 1)); KTAP+=("not ok $((PASS + FAIL + SKIP)) $2")
	fi
}
t() { if "$@"; then echo 0; else echo 1; fi; }
skip() {
	SKIP=$((SKIP + 1))
	KTAP+=("ok $((PASS + FAIL + SKIP)) $1 # SKIP $2")
}
checks_scan() {
	local flag=() rc=0
	[ "$1" = 1 ] && flag=(--baseline)
	shift
	/usr/bin/python3 "$LAB_TOP/qemu/soak/scan.py" "${flag[@]}" "$@" "$LAB_RUN/console.log" \
		> "$LAB_RUN/reports.txt" 2>&1 || rc=$?
	return "$rc"
}
checks_ktap() {
	echo "KTAP version 1"
	echo "# $1"
	echo "1..$((PASS + FAIL + SKIP))"
	printf '%s\n' "${KTAP[@]}"
	echo "# console log: ${LAB_RUN#"$LAB_TOP"/}/console.log"
	echo "# $SKIP skipped"
	echo "$PASS passed, $FAIL failed"
}

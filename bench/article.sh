#!/bin/bash
# make article: the 2005 article's four observations (LWN, "NAPI
# performance - a weighty matter"), each in its regime, one bench/run.sh
# sweep per observation into one results directory:
#
#   results/<UTC stamp>/obs1/ ... obs4/   each regime's sweep (runs.csv,
#                                         meta.json, summary.md, plots)
#   results/<UTC stamp>/verdicts.json     the article's records (kind article)
#   results/<UTC stamp>/summary.md        the verdicts and the plots
#
# The regimes are bench/article.py's (REGIME=obsN presets of knobs.py,
# ARTICLE=1 for what they share); OBS picks which run; the usual knobs
# (REPS, SECS, ...) apply to every regime, and an axis given on the command
# line replaces every regime's. Every regime's knobs are checked before the
# first one runs (one line per bad value, exit 2, nothing written). The
# progress line counts and estimates over all the regimes (run.sh,
# ARTICLE_PROGRESS). A regime that fails leaves its directory marked as
# run.sh marks it, and the next one runs; an interrupt (INT, TERM, HUP) is
# passed to the regime running, which stops as run.sh stops, and no other
# starts. The verdicts are written from whatever was recorded, and `make
# report R=...` is not needed: `bench/article.py report DIR` redoes them.
#
# Exit status: 0 when every regime completed, 1 when one failed, 2 on a
# bad knob, 128 + the signal's number when interrupted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
export ARTICLE=1

regimes=$("$py" "$top/bench/article.py" regimes) || exit 2
for o in $regimes; do
	REGIME=$o "$py" "$top/bench/knobs.py" check bench || exit 2
done
# "obsN RUNS SECONDS" per regime, then "total RUNS SECONDS" (digits only)
declare -A runs_of=()
est=$("$py" "$top/bench/article.py" estimate --total) || exit 2
while read -r name n s; do
	[[ $name =~ ^(obs[0-9]|total)$ && $n =~ ^[0-9]+$ && $s =~ ^[0-9]+$ ]] ||
		{ echo "article: estimate: unexpected line '$name $n $s'" >&2; exit 2; }
	runs_of[$name]=$n
	[ "$name" != total ] || est_s=$s
done <<<"$est"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$top/results/$stamp}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
[ ! -e "$OUT" ] || { echo "article: $OUT exists: give a new OUT" >&2; exit 2; }
mkdir -p "$OUT"
printf 'article: %s regimes (%s), %d runs, expected %dm%02ds; results in %s\n' \
	"$(wc -w <<<"$regimes")" "$regimes" "${runs_of[total]}" $((est_s / 60)) $((est_s % 60)) \
	"${OUT#"$top"/}"

# The regime running, and the signal that stops the rest: passed on to it
# (run.sh runs in a process group of its own, set -m, so that a terminal's
# Ctrl-C reaches it only through here, once).
child='' sig='' rc=0
# shellcheck disable=SC2317 # called by the traps
stop() {
	sig=$1
	[ -z "$child" ] || kill -s "$sig" "$child" 2>/dev/null || true
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP

start=$EPOCHSECONDS done=0 failed=()
for o in $regimes; do
	[ -z "$sig" ] || break
	set -m
	REGIME=$o OUT=$OUT/$o ARTICLE_PROGRESS="$o $done ${runs_of[total]} $start $est_s" \
		"$top/bench/run.sh" </dev/null &
	child=$!
	set +m
	r=0
	wait "$child" || r=$?
	# a trapped signal ends the wait early: wait (bounded) for the regime's
	# own teardown, which lab.sh bounds in turn
	for _ in $(seq 300); do
		kill -0 "$child" 2>/dev/null || break
		sleep 1
		r=0
		wait "$child" || r=$?
	done
	if kill -0 "$child" 2>/dev/null; then
		echo "article: $o's run.sh (pid $child) still running after 300 s; left to finish" >&2
		exit 1
	fi
	child=
	[ "$r" = 0 ] || failed+=("$o (exit $r)")
	done=$((done + ${runs_of[$o]}))
done
echo
"$py" "$top/bench/article.py" report "$OUT" || rc=$?
el=$((EPOCHSECONDS - start))
printf 'article: %dm%02ds (expected %dm%02ds)\n' $((el / 60)) $((el % 60)) $((est_s / 60)) $((est_s % 60))
if [ -n "$sig" ]; then
	echo "article: interrupted ($sig); what was recorded is in ${OUT#"$top"/}" >&2
	case $sig in INT) exit 130 ;; TERM) exit 143 ;; *) exit 129 ;; esac
fi
if [ "${#failed[@]}" -gt 0 ]; then
	echo "article: regimes that did not complete: ${failed[*]}" >&2
	exit 1
fi
exit "$rc"

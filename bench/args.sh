#!/bin/bash
# Check every user knob before anything runs: one line on stderr per bad
# value, naming the knob, and exit status 2; nothing is written.
#
#   bench/args.sh lab       ACCEL VCPUS MEM FIFO SECS ... (every target that boots)
#   bench/args.sh bench     the above and every knob of bench/run.sh, OUT
#   bench/args.sh report    R: an existing results directory
#   bench/args.sh soak      the lab's and SOAK_SECS, SOAK_SEED
#   bench/args.sh race      the lab's and WHAT, RACE_SECS
#
# The knobs, their ranges and defaults are bench/knobs.py's table. Values
# come from the environment (make exports them; empty means unset, the
# default applies) and are only ever compared, never evaluated.
set -euo pipefail
case ${1:-} in
lab | bench | report | soak | race) ;;
*) echo "usage: bench/args.sh lab|bench|report|soak|race" >&2; exit 2 ;;
esac
exec /usr/bin/python3 "$(dirname "$0")/knobs.py" check "$1"

"""bench/schema.py: the 0.1 % rules (a zero-loss trial, a router trial
counted at tap1, the host's receiver) and the +-10 % band, and their users
in bench/run.sh and bench/report.py."""
import json
import os
import re
import subprocess
import sys

import pytest

import paired
import report
import row as rowmod
import schema
from shellfn import run_sh_function

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("sent, lost, verdict", [
    (1000, 0, "ok"), (1000, 1, "ok"), (1000, 2, "fail"),
    (3000, 3, "ok"), (2999, 3, "fail"), (3001, 3, "ok"),
    (10**9, 10**6, "ok"), (10**9, 10**6 + 1, "fail"),
])
def test_trial_verdict_at_most_0_1_percent_of_what_was_sent(sent, lost, verdict):
    assert schema.trial_verdict(sent, lost) == verdict


def test_trial_verdict_is_exact_at_the_limit():
    # 0.001 as a float is not 1/1000: n of 1000 n must pass for every n
    assert all(schema.trial_verdict(1000 * n, n) == "ok" for n in range(1, 20000))
    assert all(schema.trial_verdict(1000 * n - 1, n) == "fail" for n in range(1, 20000))


@pytest.mark.parametrize("sent, lost, drops, limited", [
    (1000, 1, 1, False),    # 1 of the 1000 that reached it
    (1000, 2, 2, True),     # 2 of 1000
    (1000, 750, 1, True),   # 1 of 251: 0.1 % of what was sent, 0.4 % of what reached it
    (1000, 0, 0, False),
    (1000, 1000, 0, False),  # nothing reached it, nothing dropped
    (0, 0, 0, False),
])
def test_receiver_limited_counts_what_reached_the_receiver(sent, lost, drops, limited):
    assert schema.receiver_limited(sent, lost, drops) is limited


@pytest.mark.parametrize("sent, forwarded, verdict", [
    (425, 425, "ok"),        # a 1 Mbit/s trial of 5 s: nothing may be lost
    (425, 424, "fail"),      # 1 of 425 is more than 0.1 %
    (100000, 99900, "ok"),   # 100 of 100000, at the limit
    (100000, 99899, "fail"),
    (100000, 0, "fail"),     # nothing came out of eth1
    (100000, 100001, "error"),  # more than was sent: not the trial's datagrams alone
    (0, 0, "error"),         # nothing sent: no trial
    (1000, -1, "error"),     # a counter that went back
])
def test_forwarded_verdict_counts_the_loss_at_tap1(sent, forwarded, verdict):
    """A router trial is judged by what reached the host side of tap1
    against what iperf3's client sent, on the 0.1 % rule of any trial."""
    assert schema.forwarded_verdict(sent, forwarded) == verdict


def test_forwarded_verdict_ignores_the_receiver():
    """sweep 33's case: the guest forwarded all of it, the receiver's socket
    dropped 150 of 100000 (a receiver-limited trial, an error before the
    count at tap1): counted at tap1 the trial passes."""
    assert schema.receiver_limited(100000, 150, 150)
    assert schema.forwarded_verdict(100000, 100000) == "ok"


def run_sh_snippet(function, n=0):
    """The n-th Python snippet that a function of bench/run.sh runs
    (python3 - <<'PY')."""
    body = run_sh_function(function)
    return re.findall(r"<<'PY'\n(.*?)\nPY\n", body, re.S)[n]


def iperf_result(tmp_path, sent, lost, rc=0):
    p = tmp_path / "trial.json"
    p.write_text(json.dumps({"end": {"sum": {"packets": sent, "lost_packets": lost}}}))
    (tmp_path / "trial.json.rc").write_text("%d\n" % rc)
    return str(p)


@pytest.mark.parametrize("sent, lost, rc, verdict", [
    (3000, 3, 0, "ok"), (2999, 3, 0, "fail"), (3000, 3, 1, "error"), (0, 0, 0, "error"),
])
def test_run_sh_udp_verdict_is_schemas(tmp_path, sent, lost, rc, verdict):
    out = subprocess.run([sys.executable, "-", BENCH, iperf_result(tmp_path, sent, lost, rc)],
                         input=run_sh_snippet("udp_verdict"), capture_output=True, text=True)
    assert out.stdout.strip() == verdict, out.stderr


@pytest.mark.parametrize("sent, lost, fwd, verdict", [
    (100000, 200, 100000, "ok"),     # the receiver lost 200, the guest forwarded all
    (100000, 0, 99899, "fail"),      # the receiver saw no gap, tap1 counted 101 short
    (100000, 0, 100001, "error"),
])
def test_run_sh_router_trial_is_schemas(tmp_path, sent, lost, fwd, verdict):
    """zl_trial's verdict of a router trial: the fifth of zl_counters's
    counters before and after ("fifo link sock softnet fwd"), the datagrams
    tap1 received their difference, against iperf3's sent; iperf3's lost
    (the receiver's) plays no part."""
    out = subprocess.run([sys.executable, "-", BENCH, iperf_result(tmp_path, sent, lost),
                          "1 2 3 4 50", "1 2 9 4 %d" % (50 + fwd)],
                         input=run_sh_snippet("zl_trial"), capture_output=True, text=True)
    assert out.stdout.strip() == verdict == schema.forwarded_verdict(sent, fwd), out.stderr


@pytest.mark.parametrize("c1", ["1 2 3 4", "1 2 3 4 x", ""])
def test_run_sh_router_trial_without_a_count_is_an_error(tmp_path, c1):
    """No count at tap1 (fwdcount.py failed: a missing or broken field) is
    an error, tried once more, never a pass or a fail."""
    out = subprocess.run([sys.executable, "-", BENCH, iperf_result(tmp_path, 1000, 0),
                          "1 2 3 4 50", c1],
                         input=run_sh_snippet("zl_trial"), capture_output=True, text=True)
    assert out.stdout.strip() == "error", out.stderr


def test_run_sh_router_trials_line_keeps_the_zero_loss_fields(tmp_path):
    """A router trial's line in pdr.json.trials: the eight fields of every
    trial (row.py reads those), then the datagrams tap1 received."""
    out = subprocess.run([sys.executable, "-", iperf_result(tmp_path, 1000, 7), "250", "fail",
                          "10 0 100 5 50", "13 0 104 5 1040"],
                         input=run_sh_snippet("zl_trial", 1), capture_output=True, text=True)
    assert out.stdout.split() == ["250", "fail", "1000", "7", "3", "0", "4", "0", "990"]
    trials = tmp_path / "pdr.json.trials"
    trials.write_text(out.stdout)
    r = {}
    rowmod.zeroloss_trials(str(trials), r)
    assert (r["zl_trials"], r["zl_fail_mbps"], r["zl_fail_lost"], r["zl_fail_sock"]) == (
        1, "250", "7", "4")


def test_report_takes_the_band_and_the_loss_from_schema():
    assert report.SHARE_BAND == (0.9, 1.1)
    assert report.BAND == "+-10 %" and report.PDR == "PDR 0.1 %"
    assert paired.band_verdict(paired.ratio_interval([0.91, 0.95, 1.0, 1.05, 1.09, 1.0]),
                               *report.SHARE_BAND) == "met"


def test_min_pairs_is_the_fewest_with_a_95_percent_interval():
    assert paired.MIN_PAIRS == 6
    x = [0.1, 0.3, -0.2, 0.5, 0.05, 0.2, 0.15]
    for n in range(2, len(x) + 1):
        _, lo, hi = paired.hl_interval(x[:n])
        assert (lo > -float("inf") and hi < float("inf")) == (n >= paired.MIN_PAIRS), n


ZL_TRIAL_HARNESS = r'''
set -euo pipefail
top=$1 d=$2 sent=$3 lost=$4 py=$5	# top: the lab's top directory, as in run.sh
python3() { "$py" "$@"; }	# the interpreter running the tests
eval "$(sed -n '/^udp_verdict() {/,/^}/p; /^zl_trial() {/,/^}/p' "$top/bench/run.sh")"
# the counters before and after the trial, "fifo link sock softnet fwd",
# from the files c0 and c1; iperf3's result: sent and lost
zl_counters() { local f; f=$(ls "$d"/c* | head -1); cat "$f"; rm "$f"; }
iperf() {
	printf '{"end": {"sum": {"packets": %d, "lost_packets": %d}}}' "$sent" "$lost" > "$1"
	echo 0 > "$1.rc"
}
ZL_ROUTER=1 zl_trial 1470 250 "$d/pdr.json"
'''


@pytest.mark.parametrize("lost, fwd, verdict", [
    (30, 1000, "ok"),    # the receiver lost 30, the guest forwarded every one
    (0, 998, "fail"),    # the receiver saw no gap, 2 never reached tap1
    (0, 1001, "error"),  # tap1 counted more than was sent
])
def test_run_sh_zl_trial_judges_a_router_trial_at_tap1(tmp_path, lost, fwd, verdict):
    """bench/run.sh's zl_trial itself (bash, its counters and iperf3 stubbed):
    a router trial's verdict is the count at tap1's, and its line in
    pdr.json.trials ends with that count."""
    (tmp_path / "c0").write_text("5 0 7 0 100\n")
    (tmp_path / "c1").write_text("5 0 9 0 %d\n" % (100 + fwd))
    out = subprocess.run(["bash", "-c", ZL_TRIAL_HARNESS, "harness", os.path.dirname(BENCH),
                          str(tmp_path), "1000", str(lost), sys.executable],
                         capture_output=True, text=True)
    assert out.stdout.strip() == verdict, out.stderr
    assert (tmp_path / "pdr.json.trials").read_text().split() == [
        "250", verdict, "1000", str(lost), "0", "0", "2", "0", str(fwd)]

"""bench/schema.py: the 0.1 % rules (a zero-loss trial, the host's
receiver) and the +-10 % band, and their users in bench/run.sh and
bench/report.py."""
import json
import os
import re
import subprocess
import sys

import pytest

import paired
import report
import schema

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


@pytest.mark.parametrize("sent, lost, drops, limited", [
    (100000, 200, 150, True),   # the guest lost 50: the receiver alone failed it
    (100000, 250, 150, True),   # the guest lost 100, at the limit: a pass without the drops
    (100000, 301, 150, False),  # the guest lost 151: the guest failed it too
    (100000, 200, 100, True),   # 100 of the 99900 that reached it: a sent-based rule said no
    (100000, 100, 100, False),  # dropped 100 of 100000, lost nothing else: the trial passed
])
def test_receiver_limited_trial(sent, lost, drops, limited):
    """A PDR trial is an error, not a lower rate, when it failed only by the
    host's receiver: the same rule as a router row (of what reached it),
    and the rest of the loss would have passed."""
    assert schema.receiver_limited_trial(sent, lost, drops) is limited


def run_sh_snippet(function):
    """The Python that a function of bench/run.sh runs (python3 - <<'PY')."""
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    body = text[text.index("\n%s() {\n" % function):]
    return re.search(r"<<'PY'\n(.*?)\nPY\n", body, re.S).group(1)


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


@pytest.mark.parametrize("sent, lost, drops, limited", [
    (100000, 200, 100, True), (100000, 301, 150, False)])
def test_run_sh_router_trial_is_schemas(tmp_path, sent, lost, drops, limited):
    """zl_trial's test of a failed router trial: the socket counters before
    and after, the receiver's drops their difference."""
    rc = subprocess.run([sys.executable, "-", BENCH, iperf_result(tmp_path, sent, lost),
                         "7", str(7 + drops)], input=run_sh_snippet("zl_trial"),
                        capture_output=True, text=True).returncode
    assert rc == (0 if limited else 1)


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

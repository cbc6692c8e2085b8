"""The application wake-up probe (issue 21, observation 2): bench/wakeup.py's
parser and summaries, and qemu/guest/wakeup.c itself, built with the host's
gcc as qemu/mkinitramfs.sh builds it and run for about 1.5 s in all (it
only sleeps). Its accuracy under TCG is the guest test wakeup_idle's.
"""
import os
import shutil
import signal
import subprocess
import time

import pytest

import wakeup

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(os.path.dirname(BENCH), "qemu", "guest", "wakeup.c")

GOOD = """wakeup_samples 2990
wakeup_p50_ns 60000
wakeup_p99_ns 900000
wakeup_max_ns 4000000
wakeup_mean_ns 80000
wakeup_over_1ms 12
wakeup_missed 10
wakeup_period_us 1000
wakeup_fifo 0
"""


def run_of(p99, p50=50, mx=None, samples=1000, over=0, missed=0):
    mx = p99 if mx is None else mx
    return wakeup.parse("\n".join("%s %d" % kv for kv in (
        ("wakeup_samples", samples), ("wakeup_p50_ns", p50), ("wakeup_p99_ns", p99),
        ("wakeup_max_ns", mx), ("wakeup_mean_ns", p50), ("wakeup_over_1ms", over),
        ("wakeup_missed", missed))))


def test_parse_good():
    r = wakeup.parse(GOOD)
    assert r["wakeup_samples"] == 2990 and r["wakeup_p99_ns"] == 900000
    assert r["wakeup_period_us"] == 1000 and r["wakeup_fifo"] == 0
    assert all(isinstance(v, int) for v in r.values())
    assert set(wakeup.KEYS) <= set(r)


def test_parse_no_samples():
    """A probe stopped before its first wake-up prints zeros: accepted."""
    r = wakeup.parse("".join("%s 0\n" % k for k in wakeup.KEYS))
    assert r["wakeup_samples"] == 0


@pytest.mark.parametrize("key", wakeup.KEYS)
def test_parse_missing_key(key):
    text = "".join(l + "\n" for l in GOOD.splitlines() if l.split()[0] != key)
    with pytest.raises(wakeup.WakeupError, match="missing key: " + key):
        wakeup.parse(text)


@pytest.mark.parametrize("text,why", [
    (GOOD.replace("wakeup_p99_ns 900000", "wakeup_p99_ns 9e5"), "not an integer"),
    (GOOD.replace("wakeup_p99_ns 900000", "wakeup_p99_ns"), "is not 'wakeup_KEY VALUE'"),
    (GOOD.replace("wakeup_p99_ns 900000", "wakeup_p99_ns 900000 ns"), "is not 'wakeup_KEY"),
    (GOOD + "Segmentation fault\n", "line 10 is not"),
    (GOOD + "samples 3\n", "line 10 is not"),
    (GOOD + "wakeup_samples 3\n", "wakeup_samples given twice"),
    (GOOD.replace("wakeup_missed 10", "wakeup_missed -1"), "negative"),
    (GOOD.replace("wakeup_p50_ns 60000", "wakeup_p50_ns 960000"), "out of order"),
    (GOOD.replace("wakeup_max_ns 4000000", "wakeup_max_ns 800000"), "out of order"),
    (GOOD.replace("wakeup_mean_ns 80000", "wakeup_mean_ns 5000000"), "mean 5000000 above"),
    (GOOD.replace("wakeup_over_1ms 12", "wakeup_over_1ms 3000"), "over 1 ms of 2990"),
    ("", "missing keys: wakeup_samples, "),
    ("usage: wakeup [-f] SECS\n", "line 1 is not"),
])
def test_parse_garbage(text, why):
    with pytest.raises(wakeup.WakeupError, match=why.replace("(", r"\(")):
        wakeup.parse(text)


def test_summary_median_of_runs():
    s = wakeup.summary([run_of(300, mx=5000, over=1), run_of(100, over=2, missed=1),
                        run_of(200, samples=998)])
    assert s["runs"] == 3 and s["p99_median_ns"] == 200
    assert (s["p99_min_ns"], s["p99_max_ns"], s["max_ns"]) == (100, 300, 5000)
    assert (s["samples"], s["over_1ms"], s["missed"]) == (2998, 3, 1)
    assert s["over_1ms_share"] == pytest.approx(3 / 2998)
    assert wakeup.summary([run_of(100), run_of(200)])["p99_median_ns"] == 150
    with pytest.raises(ValueError):
        wakeup.summary([])


def test_by_config_groups_in_first_seen_order():
    pairs = [(("w64", "threaded0"), run_of(900)), (("w8", "threaded0"), run_of(100)),
             (("w64", "threaded0"), run_of(700)), (("w8", "threaded0"), run_of(300)),
             (("w64", "threaded0"), run_of(800))]
    s = wakeup.by_config(pairs)
    assert list(s) == [("w64", "threaded0"), ("w8", "threaded0")]
    assert s[("w64", "threaded0")]["p99_median_ns"] == 800
    assert s[("w8", "threaded0")]["p99_median_ns"] == 200
    assert s[("w64", "threaded0")]["runs"] == 3


# The probe itself, built on the host.

@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    gcc = shutil.which("gcc")
    if not gcc:
        pytest.skip("no gcc on this host: wakeup.c is built and run only where gcc is")
    exe = str(tmp_path_factory.mktemp("wakeup") / "wakeup")
    # as qemu/mkinitramfs.sh builds it; -static where the host's libc allows it
    r = subprocess.run([gcc, "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, SRC],
                       capture_output=True, text=True)
    if r.returncode and "-lc" in r.stderr:
        pytest.skip("no static libc on this host (libc6-dev's libc.a): " + r.stderr.strip())
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.parametrize("args", [
    [], ["0"], ["3601"], ["-1"], ["1.5"], ["1x"], [" 1"], ["+1"], ["abc"],
    ["1", "99"], ["1", "1000001"], ["1", "0"], ["1", "1000", "3"], ["-f"], ["-x", "1"],
    ["99999999999999999999"],
])
def test_probe_bad_args(probe, args):
    r = subprocess.run([probe] + args, capture_output=True, text=True, timeout=5)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("usage: wakeup")


def test_probe_one_second(probe):
    t0 = time.monotonic()
    r = subprocess.run([probe, "1", "1000"], capture_output=True, text=True, timeout=10)
    took = time.monotonic() - t0
    assert r.returncode == 0 and r.stderr == ""
    w = wakeup.parse(r.stdout)
    assert set(wakeup.KEYS) <= set(w)
    assert 900 <= w["wakeup_samples"] <= 1000
    # every period of the second was woken for or skipped, none twice
    assert w["wakeup_samples"] + w["wakeup_missed"] == 1000
    assert w["wakeup_p50_ns"] <= w["wakeup_p99_ns"] <= w["wakeup_max_ns"]
    assert w["wakeup_period_us"] == 1000 and w["wakeup_fifo"] == 0
    assert 0.95 <= took < 5


def test_probe_sigterm_prints_what_it_recorded(probe):
    p = subprocess.Popen([probe, "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=5)
    assert p.returncode == 0 and err == ""
    w = wakeup.parse(out)
    assert 0 < w["wakeup_samples"] < 5000
    assert w["wakeup_samples"] + w["wakeup_missed"] < 1000  # stopped near 0.3 s
    assert w["wakeup_p50_ns"] <= w["wakeup_p99_ns"] <= w["wakeup_max_ns"]

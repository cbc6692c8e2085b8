"""The softirq's knobs (NETDEV_BUDGET, NETDEV_BUDGET_USECS, THREADED) and the
application wake-up probe in bench runs (WAKEUP; issue 21, observation 2):
the knobs' checks, the plan's new axes and their baseline twins, the wake_*
columns row.py takes from a captured probe output, the report's grouping
by the softirq's settings, and qemu/guest/bin/benchwake run on the host
with the probe built by the host's gcc (about 1 s).
"""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import knobs
import plan
import report
import row
import schema
import wakeup

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)
BENCHWAKE = os.path.join(TOP, "qemu", "guest", "bin", "benchwake")

# A probe's output as benchwake stop prints it (a loaded guest: 3 s of 1 ms)
PROBE = """wakeup_samples 2990
wakeup_p50_ns 189000
wakeup_p99_ns 2604321
wakeup_max_ns 4300999
wakeup_mean_ns 250000
wakeup_over_1ms 40
wakeup_missed 10
wakeup_period_us 1000
wakeup_fifo 0
"""

NEW = ("NETDEV_BUDGET", "NETDEV_BUDGET_USECS", "THREADED", "WAKEUP")


# The knobs

def test_defaults_are_the_kernels():
    """6.1's own values (net/core/dev.c: netdev_budget 300,
    netdev_budget_usecs 2 * USEC_PER_SEC / HZ; threaded off): a sweep that
    leaves them unset runs the guest as it boots."""
    assert knobs.KNOBS["NETDEV_BUDGET"].default == "300"
    assert knobs.KNOBS["NETDEV_BUDGET_USECS"].default == "8000" == str(schema.BUDGET_USECS_MIN)
    assert knobs.KNOBS["THREADED"].default == "0"
    assert knobs.KNOBS["WAKEUP"].default == "0"  # off: old sweeps stay comparable


def test_guest_hz_is_the_built_kernels():
    """schema.GUEST_HZ against the config of every kernel built here
    (build/<kernel>/config, build/obj/<tree>/.config; skipped when none is)."""
    cfgs = sorted(glob.glob(os.path.join(TOP, "build", "*", "config"))
                  + glob.glob(os.path.join(TOP, "build", "obj", "*", ".config")))
    if not cfgs:
        pytest.skip("no kernel built under build/")
    for cfg in cfgs:
        with open(cfg) as f:
            hz = [line.split("=", 1)[1].strip() for line in f if line.startswith("CONFIG_HZ=")]
        assert hz == [str(schema.GUEST_HZ)], cfg


@pytest.mark.parametrize("kv,line", [
    ({"NETDEV_BUDGET": "0"}, "bench: NETDEV_BUDGET: 0 is outside 1..100000"),
    ({"NETDEV_BUDGET": "300 x"}, "bench: NETDEV_BUDGET: 'x' is not a decimal number (digits "
     "only, no leading zero)"),
    ({"NETDEV_BUDGET_USECS": "2000"}, "bench: NETDEV_BUDGET_USECS: 2000 is outside "
     "8000..1000000"),
    ({"NETDEV_BUDGET_USECS": "8000 07999"}, "bench: NETDEV_BUDGET_USECS: '07999' is not a "
     "decimal number (digits only, no leading zero)"),
    ({"THREADED": "0 2"}, "bench: THREADED: '2' is not one of: 0 1"),
    ({"THREADED": "on"}, "bench: THREADED: 'on' is not one of: 0 1"),
    ({"WAKEUP": "0 1"}, "bench: WAKEUP: one value, not '0 1'"),
    ({"WAKEUP": "yes"}, "bench: WAKEUP: 'yes' is not one of: 0 1"),
])
def test_bad_values_refused_with_one_line(kv, line):
    e = {k.name: "" for k in knobs.TABLE}
    e.update(kv)
    p = subprocess.run([os.path.join(BENCH, "args.sh"), "bench"], env=dict(os.environ, **e),
                       capture_output=True, text=True)
    assert (p.returncode, p.stdout, p.stderr.splitlines()) == (2, "", [line])


def test_good_values_pass_and_resolve():
    e = {k.name: "" for k in knobs.TABLE}
    e.update(NETDEV_BUDGET="64 300", NETDEV_BUDGET_USECS=" 8000  40000", THREADED="0 1",
             WAKEUP="1", BENCH_SEED="1")
    assert knobs.check("bench", e) == []
    r = dict(knobs.resolve(e))
    assert (r["NETDEV_BUDGET"], r["NETDEV_BUDGET_USECS"], r["THREADED"], r["WAKEUP"]) == (
        "64 300", "8000 40000", "0 1", "1")
    # recorded in meta.json's parameters only when set other than the default
    assert set(NEW) <= set(knobs.meta_parameters(r))
    assert not set(NEW) & set(knobs.meta_parameters(dict(knobs.resolve(
        {k.name: "" for k in knobs.TABLE} | {"BENCH_SEED": "1"}))))


# The plan

def planned(arg, **env):
    e = {k: v for k, v in os.environ.items() if k not in knobs.KNOBS}
    e.update(BENCH_SEED="3", **env)
    p = subprocess.run([sys.executable, os.path.join(BENCH, "plan.py"), arg], env=e,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    head, *rest = [line.split("\t") for line in p.stdout.splitlines()]
    assert tuple(head) == plan.FIELDS
    return [dict(zip(head, r)) for r in rest]


SOFT = [f for f, _ in plan.SOFTIRQ]


def test_softirq_axes_multiply_the_sweep_and_twins_share_them():
    runs = planned("1", PROFILES="tcp udp1470", WEIGHTS="8 64", REFILL="16", CALIB="0", HIST="0",
                   UDP1470_RATE="100M", NETDEV_BUDGET="300", NETDEV_BUDGET_USECS="8000 16000",
                   THREADED="0 1")
    sweep = [r for r in runs if r["role"] == "sweep"]
    assert len(sweep) == 2 * 2 * 2 * 2 * 2  # profiles x weights x usecs x threaded, pairs
    patched = {(r["profile"], r["weight"], *(r[f] for f in SOFT))
               for r in sweep if r["kernel"] == "patched"}
    assert len(patched) == 16
    assert {(r["netdev_budget_usecs"], r["threaded"]) for r in sweep} == {
        ("8000", "0"), ("8000", "1"), ("16000", "0"), ("16000", "1")}
    by_pair = {}
    for r in sweep:
        by_pair.setdefault(r["pair"], []).append(r)
    for pair in by_pair.values():
        assert sorted(r["kernel"] for r in pair) == ["baseline", "patched"]
        assert len({tuple(r[f] for f in SOFT) for r in pair}) == 1, pair


def test_other_roles_take_the_first_value():
    runs = planned("1", PROFILES="tcp", WEIGHTS="64", REFILL="16", NETDEV_BUDGET="600 300",
                   NETDEV_BUDGET_USECS="16000 8000", THREADED="1 0")
    assert {r["role"] for r in runs} >= {"calib", "hist"}
    for r in runs:
        if r["role"] != "sweep":
            assert (r["netdev_budget"], r["netdev_budget_usecs"], r["threaded"]) == (
                "600", "16000", "1"), r
    sat = planned("sat", PROFILES="udp1470", THREADED="1 0")
    assert sat and {r["threaded"] for r in sat} == {"1"}


def test_defaults_plan_the_kernels_values():
    runs = planned("1", PROFILES="tcp", WEIGHTS="64", REFILL="16")
    assert {tuple(r[f] for f in SOFT) for r in runs} == {("300", "8000", "0")}


# The row

def snapfile(d, name, **kv):
    base = dict(cpu_total=1000, cpu_idle=500, cpu_user=100, cpu_system=100,
                cpu_softirq=300, irqs=10, sys_rx_packets=100)
    base.update(kv)
    p = d / name
    p.write_text("".join("%s %d\n" % kv for kv in base.items()))
    return str(p)


def row_of(tmp_path, *kv, before=None, after=None):
    """One tcp run through row.py: (its runs.csv row, row.py's exit status);
    before and after: extra counters of the two snapshots."""
    res = tmp_path / "iperf.json"
    res.write_text('{"end": {"sum_received": {"bits_per_second": 9e8}, '
                   '"sum_sent": {"retransmits": 3}}}')
    (tmp_path / "iperf.json.rc").write_text("0\n")
    csv_path = tmp_path / "runs.csv"
    p = subprocess.run(
        [sys.executable, os.path.join(BENCH, "row.py"), str(csv_path),
         snapfile(tmp_path, "before", **(before or {})),
         snapfile(tmp_path, "after", **dict(dict(cpu_total=2000, sys_rx_packets=5100),
                                            **(after or {}))),
         "0", "0", str(res), "kernel=patched", "role=sweep", "weight=8", "profile=tcp",
         "netdev_budget=300", "netdev_budget_usecs=16000", "threaded=1"] + list(kv),
        capture_output=True, text=True)
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1
    return rows[0], p.returncode


def test_row_takes_the_wake_columns_from_the_probe(tmp_path):
    (tmp_path / "wakeup").write_text(PROBE)
    r, rc = row_of(tmp_path, "wakeup=%s" % (tmp_path / "wakeup"))
    assert rc == 0 and r["status"] == "ok", r["error"]
    assert (r["wake_samples"], r["wake_missed"], r["wake_p50_us"], r["wake_p99_us"],
            r["wake_max_us"]) == ("2990", "10", "189.0", "2604.3", "4301.0")
    assert (r["netdev_budget"], r["netdev_budget_usecs"], r["threaded"]) == ("300", "16000", "1")


def test_row_without_the_probe_leaves_the_columns_empty(tmp_path):
    r, rc = row_of(tmp_path)
    assert rc == 0 and r["status"] == "ok", r["error"]
    assert all(r[c] == "" for c in row.WAKE_COLUMNS), r


def test_row_with_no_wake_up_has_no_lateness(tmp_path):
    """A probe stopped before its first wake-up prints zeros: a count, not
    a lateness of 0."""
    (tmp_path / "wakeup").write_text("".join("%s 0\n" % k for k in wakeup.KEYS))
    r, rc = row_of(tmp_path, "wakeup=%s" % (tmp_path / "wakeup"))
    assert r["status"] == "ok" and (r["wake_samples"], r["wake_missed"]) == ("0", "0")
    assert (r["wake_p50_us"], r["wake_p99_us"], r["wake_max_us"]) == ("", "", "")


@pytest.mark.parametrize("text,why", [
    (None, "wake-up probe: output missing"),
    ("", "wake-up probe: missing keys: wakeup_samples"),
    (PROBE + "benchwake: wakeup (pid 7) still running 10 s after SIGTERM: killed\n",
     "wake-up probe: line 10 is not 'wakeup_KEY VALUE'"),
    (PROBE.replace("wakeup_p99_ns 2604321", "wakeup_p99_ns 5000000"),
     "wake-up probe: percentiles out of order"),
])
def test_row_fails_on_a_broken_probe_output(tmp_path, text, why):
    if text is not None:
        (tmp_path / "wakeup").write_text(text)
    r, rc = row_of(tmp_path, "wakeup=%s" % (tmp_path / "wakeup"))
    assert rc == 0 and r["status"] == "failed"
    assert r["error"].startswith(why), r["error"]
    assert r["mbps"] == "900.0"  # what could be read is kept


def test_columns_are_appended_at_the_end():
    """Old runs.csv files keep their columns in place: the new ones come last."""
    n = len(row.SOFTIRQ_COLUMNS) + len(row.WAKE_COLUMNS)
    assert row.COLUMNS[-n - 9:-9] == row.SOFTIRQ_COLUMNS + row.WAKE_COLUMNS
    assert row.COLUMNS[-n - 10] == "hw_min_256_up"
    assert row.COLUMNS[-9] == "host_steal_s"  # after them
    assert row.COLUMNS[-8:-4] == ["host_speed_cpu0", "host_speed_cpu1",
                                  "host_peak_cpu0", "host_peak_cpu1"]
    assert row.COLUMNS[-4:-2] == ["vcpu_cpu_s", "window_s"]
    assert row.COLUMNS[-2] == "tcp_in_segs"
    assert row.COLUMNS[-1] == "boot"  # the newest
    assert SOFT == row.SOFTIRQ_COLUMNS  # the plan's fields are the columns


def test_run_sh_brackets_the_traffic_with_the_probe():
    """run.sh starts the probe after the "before" snapshot and stops it
    before every "after" one, bounded."""
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    body = text[text.index("\nrun_one() {"):text.index("\n}\n", text.index("\nrun_one() {"))]
    start = body.index("benchwake start")
    assert body.index("benchsnap before >") < start < body.index("case $prof in")
    stops = [i for i in range(len(body)) if body.startswith("lab_ctl --timeout 30 benchwake stop", i)]
    afters = [i for i in range(len(body)) if body.startswith("lab_ctl benchsnap after >", i)]
    assert len(stops) == len(afters) == 2
    assert all(s < a for s, a in zip(stops, afters))
    assert body.count("lab_ctl --timeout 30 benchwake stop") == 2
    assert "WAKE_SECS=$((SECS + 46 > 3600 ? 3600 : SECS + 46))" in text


# The report

def sweep(tmp_path, threaded):
    """A one-profile sweep's runs.csv and meta.json, one pair per value of
    threaded: (patched mbps 100 * (1 + t), baseline 100)."""
    d = tmp_path / "sweep"
    d.mkdir()
    for t in threaded:
        for k, mbps in (("patched", 100 * (1 + int(t))), ("baseline", 100)):
            row.append(str(d / "runs.csv"), dict(
                status="ok", pair="1-%s" % t, kernel=k, role="sweep",
                weight="8" if k == "patched" else "64", refill="16", adaptive="off", defer="0",
                ring="256", fifo="32", link="1gbit", pin="split", profile="tcp", rep="1",
                mbps=str(mbps), cost="0", netdev_budget="300", netdev_budget_usecs="8000",
                threaded=t, wake_p99_us="%d.0" % (500 + 1000 * int(t))))
    (d / "meta.json").write_text(json.dumps({"status": "complete"}))
    return str(d)


def test_report_separates_threaded_only_when_set(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "CONFIG", report.CONFIG)
    monkeypatch.setattr(report, "ENV", report.ENV)
    rows, _ = report.load(sweep(tmp_path, ["0", "1"]))
    assert report.CONFIG == report.BASE_CONFIG + ("threaded",)
    table = report.profile_table(rows, "tcp")
    assert "| threaded |" in table[2] and "wake-up p99 us" in table[2], table[2]
    assert table[2].count("|") == table[3].count("|")
    patched = [line for line in table if line.startswith("| patched")]
    assert len(patched) == 2, table  # not one row of both settings
    assert any("| 1 |" in line and "| 1500 [1500-1500] |" in line for line in patched), patched
    # each against the baseline twin of its own threaded setting
    assert sorted(line.split(" | ")[-2] for line in patched) == ["1.00x", "2.00x"]


def test_report_of_an_unset_sweep_is_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "CONFIG", report.CONFIG)
    monkeypatch.setattr(report, "ENV", report.ENV)
    rows, _ = report.load(sweep(tmp_path, ["0"]))
    assert (report.CONFIG, report.ENV) == (report.BASE_CONFIG, report.BASE_ENV)
    assert "threaded" not in report.profile_table(rows, "tcp")[2]


# benchwake, on the host

@pytest.fixture(scope="module")
def probe_dir(tmp_path_factory):
    gcc = shutil.which("gcc")
    if not gcc:
        pytest.skip("no gcc on this host")
    d = tmp_path_factory.mktemp("benchwake")
    subprocess.run([gcc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(d / "wakeup"),
                    os.path.join(TOP, "qemu", "guest", "wakeup.c")], check=True)
    return d


def benchwake(d, *args):
    env = dict(os.environ, BENCHWAKE_DIR=str(d), PATH="%s:%s" % (d, os.environ["PATH"]))
    return subprocess.run([BENCHWAKE] + list(args), env=env, capture_output=True, text=True,
                          timeout=20)


def test_benchwake_start_stop(probe_dir):
    assert benchwake(probe_dir, "start", "30").returncode == 0
    pid = int((probe_dir / "benchwake.pid").read_text())
    time.sleep(0.3)
    t0 = time.monotonic()
    p = benchwake(probe_dir, "stop")
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - t0 < 5  # SIGTERM ends it at once, not after 30 s
    w = wakeup.parse(p.stdout)
    assert 0 < w["wakeup_samples"] and w["wakeup_samples"] + w["wakeup_missed"] < 2000
    assert not os.path.exists("/proc/%d/comm" % pid) or \
        open("/proc/%d/stat" % pid).read().split()[2] == "Z"
    assert not (probe_dir / "benchwake.pid").exists()
    p = benchwake(probe_dir, "stop")  # nothing started
    assert p.returncode == 1 and "no probe started" in p.stderr


def test_benchwake_start_ends_a_probe_left_running(probe_dir):
    assert benchwake(probe_dir, "start", "30").returncode == 0
    first = int((probe_dir / "benchwake.pid").read_text())
    assert benchwake(probe_dir, "start", "30").returncode == 0
    second = int((probe_dir / "benchwake.pid").read_text())
    assert first != second
    time.sleep(0.2)
    try:
        state = open("/proc/%d/stat" % first).read().split()[2]
    except OSError:
        state = "gone"
    assert state in ("gone", "Z")
    assert benchwake(probe_dir, "stop").returncode == 0


@pytest.mark.parametrize("args", [[], ["start"], ["start", "0"], ["start", "3601"],
                                  ["start", "1x"], ["go"]])
def test_benchwake_bad_usage(probe_dir, args):
    p = benchwake(probe_dir, *args)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and p.stdout == ""
    assert not (probe_dir / "benchwake.pid").exists()


def test_host_steal_is_recorded(tmp_path):
    """run.sh passes the host's stolen CPU seconds; the row keeps them."""
    r, rc = row_of(tmp_path, "host_steal_s=1.25")
    assert rc == 0 and r["host_steal_s"] == "1.25"


def test_host_speed_is_recorded(tmp_path):
    """run.sh passes each host CPU's speed around the run; the row keeps it,
    and a CPU it could not measure stays empty."""
    r, rc = row_of(tmp_path, "host_speed_cpu0=301.5", "host_speed_cpu1=", "host_peak_cpu0=358.8",
                   "host_peak_cpu1=")
    assert rc == 0
    assert (r["host_speed_cpu0"], r["host_speed_cpu1"], r["host_peak_cpu0"], r["host_peak_cpu1"]) == \
        ("301.5", "", "358.8", "")


def test_vcpu_time_and_window_are_recorded(tmp_path):
    """run.sh passes the vCPU thread's CPU seconds and the window's wall
    seconds; the row keeps both."""
    r, rc = row_of(tmp_path, "vcpu_cpu_s=7.85", "window_s=8.42")
    assert rc == 0 and (r["vcpu_cpu_s"], r["window_s"]) == ("7.85", "8.42")


def test_tcp_segments_are_counted(tmp_path):
    """benchsnap's tcp_InSegs becomes tcp_in_segs, the segments the guest's
    TCP received over the run (with rx_packets: frames per GRO segment)."""
    r, rc = row_of(tmp_path, before=dict(tcp_InSegs=1000), after=dict(tcp_InSegs=1500))
    assert rc == 0 and r["tcp_in_segs"] == "500" and r["rx_packets"] == "5000"

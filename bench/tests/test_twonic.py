"""Tests of the two-NIC bench pieces on synthetic data: the plan's new axes
(bench/plan.py), a share and a router row (bench/row.py), the shares the
report computes from them (bench/report.py), and the guest's parser of the
tracepoint's histograms (qemu/guest/bin/benchpoll).
No guest, no root: a second.
"""
import csv
import json
import math
import os
import re
import subprocess
import sys

import pytest

import knobs
import paired
import plan as planmod
import profiles
import report
import row as rowmod

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)


def plan(**env):
    """plan.py's runs of repetition 1, as dicts by its header's field names.
    Every axis plan.py reads is the test's own (make exports the ones not
    given as empty strings: bench/knobs.py's defaults then apply)."""
    e = {k: v for k, v in os.environ.items() if k not in knobs.KNOBS}
    e.update(BENCH_SEED="3", **env)
    out = subprocess.run([sys.executable, os.path.join(BENCH, "plan.py"), "1"], env=e,
                         capture_output=True, text=True, check=True).stdout
    head, *rows = [line.split("\t") for line in out.splitlines()]
    assert tuple(head) == planmod.FIELDS
    return [dict(zip(head, r)) for r in rows]


def test_plan_one_nic_profiles_unchanged_by_new_axes():
    """With COST and WEIGHTS_ETH1 at their defaults a one-NIC sweep plans the
    same runs in the same order; the new columns are "-" and "0"."""
    a = plan(WEIGHTS="8 64", PROFILES="tcp zeroloss")
    b = plan(WEIGHTS="8 64", PROFILES="tcp zeroloss", WEIGHTS_ETH1="16 64")
    assert a == b
    for r in a:
        assert len(r) == len(planmod.FIELDS) and r["weight_eth1"] == "-" and r["cost"] == "0", r


def test_plan_splits_zeroloss_by_frame_size():
    """zeroloss is two pairs, 1470 B and 64 B payloads (bench/run.sh runs the
    plan's lines as they are)."""
    runs = plan(WEIGHTS="64", REFILL="16", PROFILES="zeroloss tcp", CALIB="0", HIST="0")
    assert sorted(r["profile"] for r in runs) == ["tcp", "tcp", "zeroloss1470", "zeroloss1470",
                                                  "zeroloss64", "zeroloss64"], runs


def test_plan_share_profiles():
    """share is always adaptive off, share-adaptive always on (once, not per
    ADAPTIVE value), both at every WEIGHTS x WEIGHTS_ETH1 x COST; every
    patched run has a baseline twin at 64/64 and the same COST."""
    runs = plan(WEIGHTS="64 16", WEIGHTS_ETH1="64 16", COST="0 1000",
                PROFILES="share share-adaptive tcp", ADAPTIVE="off on", REFILL="16",
                CALIB="0", HIST="0")
    pat = [r for r in runs if r["kernel"] == "patched"]
    base = [r for r in runs if r["kernel"] == "baseline"]
    share = [r for r in pat if r["profile"] == "share"]
    adapt = [r for r in pat if r["profile"] == "share-adaptive"]
    assert len(share) == 8 and len(adapt) == 8
    assert all(r["adaptive"] == "off" for r in share) and all(r["adaptive"] == "on" for r in adapt)
    for r in base:
        if r["profile"] != "tcp":
            assert (r["weight_eth1"], r["weight"], r["adaptive"]) == ("64", "64", "off"), r
    assert len([r for r in pat if r["profile"] == "tcp"]) == 8
    pairs = {}
    for r in runs:
        pairs.setdefault(r["pair"], []).append(r)
    for p in pairs.values():
        assert len(p) == 2 and {x["kernel"] for x in p} == {"patched", "baseline"}, p
        assert p[0]["cost"] == p[1]["cost"] and p[0]["profile"] == p[1]["profile"], p


def snapfile(d, name, **kv):
    base = dict(cpu_total=1000, cpu_idle=500, cpu_user=100, cpu_system=100,
                cpu_softirq=300, irqs=10, sys_rx_packets=0, sys_tx_packets=0)
    base.update(kv)
    p = os.path.join(d, name)
    with open(p, "w") as f:
        for k, v in base.items():
            f.write("%s %d\n" % (k, v))
    return p


def iperf_json(d, name, received_mbps, lost, sent):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write('{"end": {"sum": {"lost_packets": %d, "packets": %d, "jitter_ms": 0.1,'
                ' "bits_per_second": 1e9}, "sum_received": {"bits_per_second": %f}}}'
                % (lost, sent, received_mbps * 1e6))
    with open(p + ".rc", "w") as f:
        f.write("0\n")
    return p


def row(d, csv_path, before, after, res, *kv):
    subprocess.run([sys.executable, os.path.join(BENCH, "row.py"), csv_path, before, after,
                    "0", "5", res] + list(kv), check=True, capture_output=True, text=True)


def share_run(d, csv_path, kernel, w0, w1, pkts, ns, pair, cost="0", profile="share",
              target=None):
    """Both rows of one share run: eth0 got pkts[0] packets in polls of
    ns[0] ns, eth1 pkts[1] in ns[1] (ns None: the baseline, no poll file).
    target (share-adaptive): (TARGET, (target eth0, quota_min eth0),
    (target eth1, quota_min eth1)), as bench/run.sh passes them."""
    b0 = snapfile(d, "b0", sys_rx_packets=100)
    a0 = snapfile(d, "a0", sys_rx_packets=100 + pkts[0], cpu_total=2000, cpu_idle=600)
    b1 = snapfile(d, "b1", sys_rx_packets=7)
    a1 = snapfile(d, "a1", sys_rx_packets=7 + pkts[1], cpu_total=2000, cpu_idle=600)
    common = ["kernel=" + kernel, "role=sweep", "weight=" + w0, "refill=16", "adaptive=off",
              "defer=0", "ring=256", "fifo=32", "link=1gbit", "pin=split", "profile=" + profile,
              "rep=1", "secs=3", "pair=" + pair, "weight_eth1=" + w1, "cost=" + cost]
    if ns:
        poll = os.path.join(d, "poll")
        with open(poll, "w") as f:
            for nic, p, n in (("eth0", pkts[0], ns[0]), ("eth1", pkts[1], ns[1])):
                f.write("trace_%s_polls %d\ntrace_%s_work %d\ntrace_%s_ns %d\n"
                        "trace_%s_quota %d\ntrace_%s_ewma 0\n" % (
                            nic, p // 8, nic, p, nic, n, nic, p, nic))
            f.write("trace_poll_dropped 0\n")
        common.append("poll=" + poll)
    tg = [[], []]
    if target:
        tg = [["target=" + target[0], "poll_target_usecs=%d" % t, "quota_min=%d" % q]
              for t, q in target[1:]]
    row(d, csv_path, b0, a0, iperf_json(d, "i0.json", 100, 10, 100), *common, "nic=eth0",
        "peer=%s,%s" % (b1, a1), *tg[0])
    row(d, csv_path, b1, a1, iperf_json(d, "i1.json", 50, 10, 100), *common, "nic=eth1",
        "peer=%s,%s" % (b0, a0), *tg[1])


def read_csv(p):
    with open(p) as f:
        return list(csv.DictReader(f))


def header_of(p):
    with open(p) as f:
        return f.readline().strip().split(",")


def test_share_rows_carry_shares(tmp_path):
    """A share run is two rows; eth0's packet share 3/4 and CPU share 9/10
    come out of the two NICs' snapshots and the poll sums; the report pairs
    the rows and finds CPU 1.8x eth0's weight share at 64/64 (0.2x eth1's)."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    share_run(d, c, "patched", "64", "64", (3000, 1000), (9 * 10**9, 10**9), "1-1", "1000")
    rows = read_csv(c)
    assert [r["nic"] for r in rows] == ["eth0", "eth1"]
    e0, e1 = rows
    assert (e0["pkt_share"], e1["pkt_share"]) == ("0.7500", "0.2500")
    assert (e0["ns_share"], e1["ns_share"]) == ("0.9000", "0.1000")
    assert e0["poll_ns_per_pkt"] == "3000000" and e0["cost"] == "1000"
    assert e0["status"] == "ok", e0["error"]
    runs = report.share_runs([dict(r) for r in rows])
    assert len(runs) == 1
    assert abs(runs[0]["c0x"] - 1.8) < 1e-9 and abs(runs[0]["c1x"] - 0.2) < 1e-9, runs


def test_share_adaptive_rows_carry_their_targets(tmp_path):
    """TARGET=weight: each share-adaptive row records its NIC's poll target
    and quota_min (new columns at the end); the share tables gain a poll
    target column and group by it; without targets (sweeps before TARGET)
    the tables have no such column."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    share_run(d, c, "patched", "16", "64", (100, 400), (2 * 10**8, 8 * 10**8), "1-1",
              "1000", "share-adaptive", ("weight", (125, 1), (500, 1)))
    share_run(d, c, "patched", "16", "64", (100, 400), (2 * 10**8, 8 * 10**8), "1-2",
              "1000", "share-adaptive", ("fixed", (500, 8), (500, 8)))
    share_run(d, c, "baseline", "64", "64", (250, 250), None, "1-1", "1000",
              "share-adaptive")
    rows = read_csv(c)
    h = header_of(c)
    assert h[h.index("target"):h.index("quota_min") + 1] == ["target", "poll_target_usecs", "quota_min"]
    e0, e1 = rows[:2]
    assert (e0["target"], e0["poll_target_usecs"], e0["quota_min"]) == ("weight", "125", "1")
    assert (e1["target"], e1["poll_target_usecs"], e1["quota_min"]) == ("weight", "500", "1")
    assert not rows[4]["target"]
    runs = report.share_runs([dict(r) for r in rows])
    summary = report.share_summary(runs)
    text = "\n".join(summary)
    assert "| poll target eth0/eth1, quota_min |" in summary[4], text
    lines = [line for line in summary if line.startswith("| share-adaptive | patched")]
    assert len(lines) == 2, text
    assert any("| 16/64 | 16 | weight 125/500 us, min 1 | 1000 |" in x for x in lines), text
    assert any("| 16/64 | 16 | fixed 500/500 us, min 8 | 1000 |" in x for x in lines), text
    assert any("| 64/64 (fixed) | 16 (fixed) | - | 1000 |" in x for x in summary), text
    assert all(x.count("|") == summary[4].count("|") for x in summary[4:-1]), text
    assert any("weight 125/500 us, min 1" in x for x in report.share_nic_tables(runs))
    old = report.share_summary(report.share_runs(
        [{k: v for k, v in r.items() if k not in ("target", "poll_target_usecs", "quota_min")}
         for r in rows]))
    assert not any("poll target" in x for x in old)


def test_share_row_without_its_poll_sums_fails(tmp_path):
    """A patched share row whose NIC is missing from the poll sums is
    failed, not a share of 0."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    share_run(d, c, "patched", "16", "64", (100, 400), (10, 10), "1-1")
    with open(os.path.join(d, "poll"), "w") as f:
        f.write("trace_eth1_polls 1\ntrace_eth1_work 1\ntrace_eth1_ns 1\n")
    b, a = os.path.join(d, "b0"), os.path.join(d, "a0")
    row(d, c, b, a, os.path.join(d, "i0.json"), "kernel=patched", "profile=share",
        "role=sweep", "nic=eth0", "poll=" + os.path.join(d, "poll"),
        "peer=%s,%s" % (os.path.join(d, "b1"), os.path.join(d, "a1")))
    last = read_csv(c)[-1]
    assert last["status"] == "failed" and "e1000_napi_poll" in last["error"], last["error"]
    assert not last["ns_share"]


def test_one_nic_row_keeps_its_columns(tmp_path):
    """A one-NIC row: weight_eth1 "-" is written empty, nic empty, cost as
    given; the old columns come first, in their old order."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    row(d, c, snapfile(d, "b", sys_rx_packets=0), snapfile(d, "a", sys_rx_packets=10),
        iperf_json(d, "i.json", 10, 0, 10), "kernel=patched", "profile=udp1470",
        "role=sweep", "weight_eth1=-", "cost=0")
    r = read_csv(c)[0]
    header = header_of(c)
    assert r["weight_eth1"] == "" and r["nic"] == "" and r["cost"] == "0"
    assert header[:3] == ["status", "error", "pair"]
    assert header.index("host_compilers") == header.index("nic") - 1, header[-14:]


def test_router_row_counts_forwarding_drops(tmp_path):
    """A router row: fwd_drops is what eth0 received and eth1 did not send."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    b1 = snapfile(d, "b1", sys_tx_packets=50)
    a1 = snapfile(d, "a1", sys_tx_packets=50 + 900)
    row(d, c, snapfile(d, "b", sys_rx_packets=0), snapfile(d, "a", sys_rx_packets=1000),
        iperf_json(d, "i.json", 10, 120, 1000), "kernel=baseline", "profile=router",
        "role=sweep", "peer=%s,%s" % (b1, a1), "rcv_sock_drops=7", "weight_eth1=64")
    r = read_csv(c)[0]
    assert (r["fwd_drops"], r["rcv_sock_drops"], r["nic"]) == ("100", "7", ""), r


# sent 1000: 1 dropped of the 1000 that reached it, ok; 2 of 1000, failed;
# 1 of 251 (750 lost, 1 of them at the receiver), failed
@pytest.mark.parametrize("drops, lost, status", [(1, 1, "ok"), (2, 2, "failed"),
                                                 (1, 750, "failed")])
def test_router_row_fails_when_the_hosts_receiver_dropped(tmp_path, drops, lost, status):
    """Without the count at tap1 (no fwd_frames: the rate is the receiver's,
    as recorded before it), more than 0.1 % of what reached the host's
    receiver dropped at its socket: the run measured the host and fails;
    0.1 % or less keeps it ok. Under a flood most of what was sent dies
    before the receiver, so the share is of what reached it (sent - lost +
    socket drops)."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    row(d, c, snapfile(d, "b", sys_rx_packets=0), snapfile(d, "a", sys_rx_packets=1000),
        iperf_json(d, "i.json", 10, lost, 1000), "kernel=baseline", "profile=router",
        "role=sweep", "rcv_sock_drops=%d" % drops, "weight_eth1=64")
    r = read_csv(c)[0]
    assert (r["rcv_sock_drops"], r["lost"]) == (str(drops), str(lost))
    assert r["status"] == status, r["error"]
    assert ("host-limited" in r["error"]) == (status == "failed"), r["error"]


def router_json(d, received_mbps, lost, sent, seconds):
    """A router flood's iperf3 result: the sender's seconds (sum_sent's),
    and a receiver that ended 3 s late (as 5 of sweep 36's 80 runs did)."""
    p = os.path.join(d, "i.json")
    with open(p, "w") as f:
        json.dump({"end": {"sum": {"lost_packets": lost, "packets": sent, "jitter_ms": 0.1,
                                   "seconds": seconds + 3},
                           "sum_sent": {"seconds": seconds},
                           "sum_received": {"bits_per_second": received_mbps * 1e6,
                                            "seconds": seconds + 3}}}, f)
    with open(p + ".rc", "w") as f:
        f.write("0\n")
    return p


# sent 100000 in 4 s; the receiver got 99000 (1000 lost, 900 of them at its
# socket), the guest forwarded 99900 to tap1: 99900 x 1470 B x 8 / 4 s
@pytest.mark.parametrize("fwd, status, mbps", [
    (99900, "ok", "293.7"),      # the receiver's 900 drops fail it no longer
    (100000, "ok", "294.0"),
    (100001, "failed", "291.1"),  # more than was sent: the count is not the flood's
])
def test_router_row_counted_at_tap1(tmp_path, fwd, status, mbps):
    """A router row with fwd_frames: mbps is the guest's forwarding rate
    from the count at tap1, in Mbit/s of UDP payload over the flood's
    seconds (the sender's, not the late receiver's); the receiver's socket
    drops are recorded and do not fail it."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    # the guest busy for 3 of the window's seconds (300 ticks): not idle
    # during the 3 s flood, so not host-limited
    row(d, c, snapfile(d, "b", sys_rx_packets=0),
        snapfile(d, "a", sys_rx_packets=100000, cpu_total=1300),
        router_json(d, 291.1, 1000, 100000, 4.0), "kernel=baseline", "profile=router",
        "role=sweep", "secs=3", "rcv_sock_drops=900", "fwd_frames=%d" % fwd,
        "weight_eth1=64")
    r = read_csv(c)[0]
    assert (r["status"], r["mbps"], r["fwd_frames"], r["rcv_sock_drops"]) == (
        status, mbps, str(fwd), "900"), r["error"]
    assert ("host-limited" in r["error"]) is False
    assert ("tap1 counted 100001 of the flood's datagrams, 100000 were sent" in r["error"]) == (
        status == "failed")


def test_router_row_without_iperf3_seconds_takes_secs(tmp_path):
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    row(d, c, snapfile(d, "b"), snapfile(d, "a"), iperf_json(d, "i.json", 10, 0, 5000),
        "kernel=patched", "profile=router", "role=sweep", "secs=2", "fwd_frames=5000",
        "rcv_sock_drops=0", "weight_eth1=64")
    assert read_csv(c)[0]["mbps"] == "29.4"  # 5000 x 1470 x 8 / 2 s


def router_sweep(tmp_path, with_count):
    """A copy of a recorded router sweep (two-nic-router-aa), with an empty
    fwd_frames column added or not."""
    src = os.path.join(TOP, "docs", "results", "two-nic-router-aa")
    rows = read_csv(os.path.join(src, "runs.csv"))
    header = header_of(os.path.join(src, "runs.csv"))
    if with_count:
        header = header + ["fwd_frames"]
    d = str(tmp_path)
    with open(os.path.join(d, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(src, "meta.json")) as f, \
            open(os.path.join(d, "meta.json"), "w") as g:
        g.write(f.read())
    rows, _ = report.load(d)
    return rows


@pytest.mark.parametrize("with_count", [False, True])
def test_router_table_says_where_the_rate_was_counted(tmp_path, with_count):
    """A sweep with the fwd_frames column says its rate was counted at tap1
    and that the receiver judges nothing; one recorded before keeps its
    words (test_golden checks them byte for byte)."""
    rows = router_sweep(tmp_path, with_count)
    text = "\n".join(report.router_table([r for r in rows if r["status"] == "ok"]))
    assert ("reached the host side of tap1" in text) is with_count
    assert ("Forwarding rate: what arrived when offered SAT_OFFER" in text) is not with_count
    failed = dict(rows[0], status="failed", error="host-limited: the guest was 44.0 % idle")
    named = "\n".join(report.host_limited_runs([failed]))
    assert ("a router run whose receiver on the host dropped" in named) is not with_count


def idle_for(rec, idle):
    """rec with cpu_us_per_pkt set so that the guest was idle% idle during
    its SECS of flood (row.flood_idle)."""
    pkts = float(rec["rx_packets"])
    if rec["profile"] in profiles.SHARE:
        pkts /= float(rec["pkt_share"])
    busy = (1 - idle / 100.0) * float(rec["secs"])
    return dict(rec, cpu_us_per_pkt="%.3f" % (busy * 1e6 / pkts))


def test_share_run_is_host_limited_when_the_guest_idles(tmp_path):
    """The host-limited rule on a recorded share run (sweep two-nic-share-
    cost0, AMD host: guest 11 % idle, 99 % of polls at full quota) passes
    it; the same run with the guest 44 % idle during the flood (as on the
    Intel host, where eth0 took 0.51 of the packets for a weight share of
    0.20) or with half of its polls short of their quota fails as
    host-limited, and the report names it. A router run is judged by the
    guest's idle time too, but not by its quota use. The idle time is the
    flood's: cpu_idle over the snapshot window (a run busy through its
    flood shows 35-40 % there, sweep 36) decides only without the columns
    that give the busy seconds."""
    src = os.path.join(TOP, "docs", "results", "two-nic-share-cost0")
    rec = next(r for r in read_csv(os.path.join(src, "runs.csv"))
               if r["kernel"] == "patched" and r["status"] == "ok" and r["nic"] == "eth0")
    assert rowmod.flood_idle(rec) < rowmod.IDLE_MAX
    idle = idle_for(rec, 44.0)
    short = dict(rec, napi_quota_full=str(int(rec["napi_polls"]) // 2))
    window = dict(rec, cpu_idle="44.0")  # busy through the flood, idle around it
    router = idle_for(dict(rec, profile="router", nic="", pkt_share=""), 44.0)
    busy_router = dict(short, profile="router", nic="", pkt_share="",
                       cpu_us_per_pkt=idle_for(dict(rec, profile="router"), 5.0)["cpu_us_per_pkt"])
    blind = dict(rec, cpu_us_per_pkt="", cpu_idle="44.0")
    assert rowmod.guest_not_the_limit(rec) == ""
    assert rowmod.guest_not_the_limit(idle).startswith(
        "host-limited: the guest was 44.0 % idle during the flood")
    assert rowmod.guest_not_the_limit(short).startswith(
        "host-limited: eth0's polls used their whole quota in 50 %")
    assert rowmod.guest_not_the_limit(window) == ""
    assert rowmod.guest_not_the_limit(router).startswith(
        "host-limited: the guest was 44.0 % idle during the flood")
    assert rowmod.guest_not_the_limit(busy_router) == ""
    assert rowmod.guest_not_the_limit(blind).startswith(
        "host-limited: the guest was 44.0 % idle during the snapshot window")
    d = str(tmp_path)
    with open(os.path.join(d, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rec))
        w.writeheader()
        w.writerows([rec, idle])
    with open(os.path.join(src, "meta.json")) as f, \
            open(os.path.join(d, "meta.json"), "w") as g:
        g.write(f.read())
    rows, _ = report.load(d)
    assert [r["status"] for r in rows] == ["ok", "failed"]
    named = report.host_limited_runs(rows)
    assert any("| share | patched | 1 |" in line for line in named), named


def aa_rows(ratios, pairs):
    """A/A tcp rows: slot "patched" at ratio x slot "baseline" for each
    metric (name: a per-pair list of ratios), baseline values near 100."""
    rows = []
    for i in range(pairs):
        base = {"role": "sweep", "profile": "tcp", "nic": "", "cost": "0", "pair": "%d-1" % i,
                "ring": "256", "fifo": "32", "link": "1gbit"}
        b = dict(base, kernel="baseline")
        p = dict(base, kernel="patched")
        for key, rs in ratios.items():
            v = 100.0 + 3 * i
            b[key], p[key] = str(v), str(v * rs[i])
        rows += [p, b]
    return rows


NOISE = [1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015, 0.985]


def aa_metrics(n):
    """make aa's judgement of n pairs all higher by 10 % in mbps and only
    noise in the two other metrics: {metric: (p Holm, verdict, excludes 1)}."""
    rows = aa_rows({"mbps": [1.1] * n, "cpu_us_per_pkt": NOISE[:n],
                    "rtt_p99_ms": list(reversed(NOISE))[:n]}, n)
    r = {x["metric"]: x for x in report.resolution_rows(rows, {"status": "complete"})}
    return {k: (round(v["p_holm"], 4), v["verdict"], v["ci_low"] > 1.0) for k, v in r.items()}


def test_aa_alarm_is_holm_corrected_over_the_metrics():
    """make aa: 6 pairs all higher by 10 % in one of three metrics give an
    interval that excludes 1 (p 0.031 two-sided) but not an alarm after Holm
    (0.094): chance, said so; 8 such pairs (p 0.0078, Holm 0.023) raise it."""
    six, eight = aa_metrics(6), aa_metrics(8)
    assert six["mbps"] == (0.0938, "met", True), six
    assert eight["mbps"][1] == "not_met" and eight["mbps"][0] < 0.05, eight
    assert all(v[1] == "met" for k, v in eight.items() if k != "mbps"), eight
    rows = aa_rows({"mbps": [1.1] * 6, "cpu_us_per_pkt": NOISE[:6],
                    "rtt_p99_ms": list(reversed(NOISE))[:6]}, 6)
    table = "\n".join(report.resolution_table(
        report.resolution_rows(rows, {"status": "complete"})))
    assert "chance after Holm" in table, table


def test_share_ratio_intervals():
    """paired.ratio_interval: no interval below 6 runs; with 6 the exact
    interval is the runs' range; a NIC that got nothing counts its runs."""
    five = paired.ratio_interval([1.0, 1.01, 0.99, 1.02, 0.98])
    six = paired.ratio_interval([1.0, 1.01, 0.99, 1.02, 0.98, 1.0])
    assert five[1] == 0 and math.isinf(five[2]), five
    assert abs(six[1] - 0.98) < 1e-9 and abs(six[2] - 1.02) < 1e-9, six
    assert paired.ratio_interval([0, 0, 0.05, 0, 0.1, 0])[3] == 6
    assert paired.ratio_interval([None, None]) is None


@pytest.mark.parametrize("ratios, verdict", [
    ([1.0, 1.01, 0.99, 1.02, 0.98], "inconclusive"),  # five runs: no interval
    ([1.0, 1.01, 0.99, 1.02, 0.98, 1.0], "met"),
    ([2.0, 2.1, 1.9, 2.2, 2.0, 1.95], "not_met"),
    ([0.85, 0.95, 1.0, 1.05, 0.9, 0.92], "inconclusive"),  # across the edge
    ([0, 0, 0.05, 0, 0.1, 0], "not_met"),  # a NIC that got nothing
], ids=["five", "six", "far", "edge", "starved"])
def test_share_band_verdicts(ratios, verdict):
    """The +-10 % band verdicts of paired.band_verdict."""
    iv = paired.ratio_interval(ratios)
    assert paired.band_verdict(iv, 0.9, 1.1) == verdict, iv


def test_share_verdict_table_tests_the_cpu_goal(tmp_path):
    """Six runs of a configuration whose eth0 takes 0.5 of the CPU at 64/64
    are within +-10 %; six at 0.8 are not; the baseline has no CPU verdict."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    for i in range(6):
        share_run(d, c, "patched", "64", "64", (1000, 1000), (500 + i, 500 - i), "a%d" % i)
        share_run(d, c, "patched", "16", "16", (1000, 1000), (800 + i, 200), "b%d" % i)
        share_run(d, c, "baseline", "64", "64", (1000, 1000), None, "c%d" % i)
    table = report.share_verdicts(report.share_runs(read_csv(c)))
    text = "\n".join(table)
    rows = [line for line in table if line.startswith("| share |")]
    head = [line for line in table if line.startswith("| profile |")][0]
    sep = [line for line in table if line.startswith("|---")][0]
    cells = {(x.split(" | ")[1], x.split(" | ")[2]): x.split(" | ")[-1] for x in rows}
    assert cells.get(("patched", "64/64")) == "met |", text
    assert cells.get(("patched", "16/16")) == "not_met |", text
    assert cells.get(("baseline", "64/64 (fixed)")) == "- |", text
    assert head.count("|") == sep.count("|") == rows[0].count("|"), text


def test_report_shows_cost_column_only_when_swept():
    """A profile table gains a cost column only when its rows have a COST."""
    base = dict(status="ok", error="", pair="1-1", kernel="baseline", role="sweep", weight="64",
                refill="16", adaptive="off", idle_limit="0", defer="0", ring="256", fifo="32",
                link="1gbit", pin="split", profile="udp1470", rep="1", mbps="100",
                nic="", weight_eth1="", cost="0")
    plain = report.profile_table([dict(base)], "udp1470")
    costly = report.profile_table([dict(base), dict(base, cost="1000", pair="1-2")], "udp1470")
    assert "cost |" not in plain[2], plain[2]
    assert "| cost |" in costly[2], costly[2]
    assert any("| 1000 |" in line for line in costly), costly


def benchpoll_awk():
    with open(os.path.join(TOP, "qemu", "guest", "bin", "benchpoll")) as f:
        m = re.search(r"\tawk '(.*?)' \$ev/hist", f.read(), re.S)
    return m.group(1)


def test_benchpoll_sums_exactly_past_2_32():
    """The guest's parser of the two histograms: polls from the first, sums
    of every line per device as exact decimals (mawk would print 5e+12)."""
    hist = """# event histogram
#
# trigger info: hist:keys=dev:vals=hitcount,work,ns:sort=hitcount:size=256 [active]
#

{ dev: eth1                              } hitcount:       1523  work:      48000  ns:  123456789012
{ dev: eth0                              } hitcount:       1600  work:      51200  ns:  9999999999999999999

Totals:
    Dropped: 0

# trigger info: hist:keys=dev,budget:vals=hitcount,quota,ns_per_pkt:sort=hitcount:size=256 [active]

{ dev: eth0                 , budget:         64 } hitcount:       1000  quota:     102400  ns_per_pkt:      12345
{ dev: eth0                 , budget:         16 } hitcount:        600  quota:     102400  ns_per_pkt:      99999999999

Totals:
    Dropped: 3
"""
    awk = "mawk" if subprocess.run(["sh", "-c", "command -v mawk"],
                                   capture_output=True).returncode == 0 else "awk"
    out = subprocess.run([awk, benchpoll_awk()], input=hist, capture_output=True, text=True,
                         check=True).stdout
    got = dict(line.split() for line in out.splitlines())
    want = {"trace_eth0_polls": "1600", "trace_eth0_ns": "9999999999999999999",
            "trace_eth0_quota": "204800", "trace_eth0_ewma": "100000012344",
            "trace_eth1_polls": "1523", "trace_eth1_work": "48000", "trace_eth1_quota": "0",
            "trace_poll_dropped": "3"}
    bad = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    assert not bad, out


def test_one_nic_traced_row_reports_hw_min(tmp_path):
    """POLL_TRACE=2: a one-NIC patched row gets the mean of the polls'
    hw_min and the polls per hw_min bucket from benchpoll's sums; hw_min_0
    is the polls during which the ring ran dry."""
    d = str(tmp_path)
    c = os.path.join(d, "runs.csv")
    poll = os.path.join(d, "poll")
    with open(poll, "w") as f:
        f.write("trace_eth0_polls 100\ntrace_eth0_work 3000\ntrace_eth0_ns 5000000\n"
                "trace_eth0_quota 6400\ntrace_eth0_ewma 0\ntrace_eth0_hw_min 10200\n"
                "trace_eth0_hw_min_0 30\ntrace_eth0_hw_min_1_15 20\n"
                "trace_eth0_hw_min_16_63 0\ntrace_eth0_hw_min_64_255 50\n"
                "trace_eth0_hw_min_256_up 0\ntrace_poll_dropped 0\n")
    row(d, c, snapfile(d, "b", sys_rx_packets=0), snapfile(d, "a", sys_rx_packets=3000),
        iperf_json(d, "i.json", 10, 0, 10), "kernel=patched", "profile=udp1470",
        "role=sweep", "weight_eth1=-", "cost=0", "poll=" + poll)
    r = read_csv(c)[0]
    assert r["hw_min_mean"] == "102.0"
    assert [r["hw_min_" + b] for b in ("0", "1_15", "16_63", "64_255", "256_up")] == \
        ["30", "20", "0", "50", "0"]
    assert r["trace_polls"] == "100" and r["ns_share"] == "1.0000"


HIST = """# trigger info: hist:keys=dev:vals=hitcount,work,ns:sort=hitcount:size=256 [active]

{ dev: eth0 } hitcount:        100  work:       3000  ns:    5000000

Totals:
    Dropped: 0

# trigger info: hist:keys=dev,budget:vals=hitcount,quota,ns_per_pkt:sort=hitcount:size=256 [active]

{ dev: eth0, budget:         64 } hitcount:        100  quota:       6400  ns_per_pkt:          0

Totals:
    Dropped: 0

# trigger info: hist:keys=dev,hw_min:vals=hitcount:sort=hitcount:size=16384 [active]

{ dev: eth0, hw_min:          0 } hitcount:         30
{ dev: eth0, hw_min:         10 } hitcount:         20
{ dev: eth0, hw_min:        200 } hitcount:         49
{ dev: eth0, hw_min:        300 } hitcount:          1

Totals:
    Dropped: 2
"""


def test_benchpoll_buckets_hw_min(tmp_path):
    """The guest's benchpoll turns the hw_min trigger's lines into polls
    per bucket and a hitcount-weighted sum, beside the other sums."""
    src = open(os.path.join(BENCH, "..", "qemu", "guest", "bin", "benchpoll")).read()
    prog = src[src.index("\tawk '") + len("\tawk '"):src.index("' $ev/hist")]
    hist = tmp_path / "hist"
    hist.write_text(HIST)
    out = subprocess.run(["awk", prog, str(hist)], check=True, capture_output=True,
                         text=True).stdout
    got = dict(line.split() for line in out.splitlines())
    assert got["trace_eth0_polls"] == "100" and got["trace_eth0_work"] == "3000"
    assert got["trace_eth0_hw_min"] == str(10 * 20 + 200 * 49 + 300)
    assert [got["trace_eth0_hw_min_" + b] for b in ("0", "1_15", "16_63", "64_255", "256_up")] \
        == ["30", "20", "0", "49", "1"]
    assert got["trace_poll_dropped"] == "2"

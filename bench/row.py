#!/usr/bin/env python3
"""Append one bench run to runs.csv.

    row.py CSV BEFORE AFTER TAPDROPS_BEFORE TAPDROPS_AFTER RESULT k=v...

BEFORE/AFTER: guest counter snapshots ("name value" lines, benchsnap).
RESULT: iperf3 --json output, a ping output (profile idle), or "-".
k=v: the run's parameters (kernel, role, weight, ..., rep, secs, offered_mbps)
and link_drops (the host qdisc's drops on tap0, measured by run.sh); for a
zero-loss run trials=FILE, the bisection's trials (zl_trial in run.sh);
error=TEXT when run.sh already knows the run failed. Every other k must be
a column: an unknown one (a typo) stops with exit status 2, nothing
written.

Every run gets a row. status is ok, or failed with the first reason in error:
the run's own error, counters that could not be read (a snapshot missing or
without its CPU and packet counters), iperf3's JSON missing or broken, an
iperf3 error (it never connected), a non-zero iperf3 exit code (RESULT.rc),
no result in the JSON, or (idle) no ping reply. A failed row keeps what
could be read and is left out of every figure by report.py.
A zero-loss row's counters span the whole bisection; the zl_fail_* columns
are those of its lowest failing trial alone.
Counters the kernel does not have (the baseline has no napi_* counters) are
left empty, never zero.

Two NICs (NICS=2): nic=eth0|eth1 makes the row one NIC's of a share run
(BEFORE/AFTER are that NIC's snapshots, so its own counters; the CPU split,
softnet and socket counters are guest-wide), peer=BEFORE,AFTER the other
NIC's snapshots (for its share of the packets, pkt_share) and poll=FILE the
per-NIC sums of the patched driver's tracepoint (benchpoll stop: the
trace_* columns and its share of the RX softirq time, ns_share). A router
row (profile router, no nic) has eth0's counters, eth0's trace sums, and
from peer (eth1's snapshots) fwd_drops: packets eth0 received that eth1 did
not send. fwd_frames=N are the flood's datagrams that reached the host side
of tap1 (bench/fwdcount.py): the router's mbps is then theirs (forwarded),
not the receiver's, and more than were sent fails the row; rcv_sock_drops=N
are the receiver's socket drops on the host, recorded. A router row without
fwd_frames (as recorded before the count at tap1) keeps iperf3's received
rate, and its receiver's drops of more than schema.LOSS_MAX of what reached
it fail it as host-limited.
weight_eth1 "-" (a one-NIC profile) is written empty. target,
poll_target_usecs, quota_min: a share-adaptive row of the patched kernel,
its NIC's settings (TARGET=fixed: the defaults, 500 and 8); empty otherwise.
Role hist: napi_polls and the hist_* columns come from the hist trigger on
the core's poll tracepoint (profiles.HIST_TRACEPOINT; trace_hist_* lines in
AFTER, benchhist) on both kernels, so the two are measured the same way.
netdev_budget, netdev_budget_usecs, threaded: the guest's softirq settings
of the run (the plan's). wakeup=FILE (WAKEUP=1): the application wake-up
probe's output over the run's traffic (benchwake stop; bench/wakeup.py
parses it): wake_samples, wake_missed, and the lateness's wake_p50_us,
wake_p99_us, wake_max_us (empty when it recorded no wake-up). A probe
output that does not parse fails the run: with WAKEUP=1 it is what the run
is for. Without the probe the wake_* columns are empty.
"""
import csv
import json
import os
import re
import sys

import profiles
import schema
import wakeup

HW_MIN_BUCKETS = ("0", "1_15", "16_63", "64_255", "256_up")
HW_MIN_COLUMNS = ["hw_min_mean"] + ["hw_min_" + b for b in HW_MIN_BUCKETS]
SOFTIRQ_COLUMNS = ["netdev_budget", "netdev_budget_usecs", "threaded"]
WAKE_COLUMNS = ["wake_samples", "wake_missed", "wake_p50_us", "wake_p99_us", "wake_max_us"]

COLUMNS = [
    "status", "error", "pair",
    "kernel", "role", "weight", "refill", "adaptive", "defer",
    "ring", "fifo",
    "link", "pin", "profile", "rep", "secs", "offered_mbps", "mbps", "retrans",
    "lost", "sent", "jitter_ms", "fifo_drops", "link_drops", "sock_drops", "softnet_drops",
    "time_squeeze", "rx_packets", "rx_no_buffer", "rx_missed", "irqs",
    "napi_polls", "napi_work", "napi_quota_full", "napi_complete",
    "hist_0", "hist_1_25", "hist_26_50", "hist_51_75", "hist_76_99",
    "hist_100", "rx_refills", "rx_refill_descs", "ring_exhausted",
    "cpu_softirq", "cpu_user", "cpu_system", "cpu_idle", "rtt_ms",
    "zl_trials", "zl_fail_mbps", "zl_fail_sent", "zl_fail_lost",
    "zl_fail_fifo", "zl_fail_sock", "zl_fail_softnet", "zl_fail_link",
    "pdr_confirmed", "rtt_p50_ms", "rtt_p99_ms", "ping_sent", "ping_lost",
    "cpu_us_per_pkt", "host_load1", "qemu_cpu_s", "other_qemu_cpu_s", "host_compilers",
    # two NICs (NICS=2) and COST; empty (cost 0) for the one-NIC profiles
    "nic", "weight_eth1", "cost", "trace_polls", "trace_work", "trace_ns",
    "poll_ns_per_pkt", "quota_mean", "ewma_ns_per_pkt", "pkt_share", "ns_share",
    "fwd_drops", "rcv_sock_drops", "fwd_frames",
    # share-adaptive on the patched kernel: TARGET (fixed, weight or
    # per-weight) and this NIC's adaptive-quota settings as read back from
    # devlink
    "target", "poll_target_usecs", "quota_min",
    # the traced polls' hw_min (POLL_TRACE): the mean over polls of the
    # fewest RX descriptors the NIC owned during a poll, and polls per
    # bucket of it; hw_min_0 counts the polls during which the ring ran dry
] + HW_MIN_COLUMNS + [
    # the guest's softirq settings (NETDEV_BUDGET, NETDEV_BUDGET_USECS,
    # THREADED) and the application wake-up probe (WAKEUP=1)
] + SOFTIRQ_COLUMNS + WAKE_COLUMNS + [
    # CPU seconds the host's hypervisor took from the host during the run
    # (/proc/stat steal, all host CPUs): a cloud host's neighbours
    "host_steal_s",
    # how fast each host CPU ran a fixed integer chain just before and just
    # after the run (bench/hostspeed.c, 50 ms a CPU each time; the mean of
    # the two): Msteps/s a thread got there, and the best 64k-step chunk's
    # rate, the CPU's own speed without what shared it
    "host_speed_cpu0", "host_speed_cpu1", "host_peak_cpu0", "host_peak_cpu1",
    # the CPU seconds QEMU's vCPU thread used over the run's window, and the
    # window's wall-clock seconds (QEMU's CPU read to QEMU's CPU read): the
    # share of the window the guest's vCPU ran, seen from the host, which
    # no accounting inside the guest can skew
    "vcpu_cpu_s", "window_s",
    # the TCP segments the guest's stack received (/proc/net/snmp InSegs):
    # with rx_packets, how many frames GRO merged into each segment
    "tcp_in_segs",
    # which boot of its guest the run ran in (BOOTS: 1..BOOTS; 1 with one)
    "boot",
]

# column <- guest counter
COUNTERS = {
    "sock_drops": "udp_RcvbufErrors", "softnet_drops": "softnet_dropped",
    "time_squeeze": "softnet_time_squeeze", "rx_packets": "sys_rx_packets",
    "rx_no_buffer": "rx_no_buffer_count", "rx_missed": "rx_missed_errors",
    "irqs": "irqs", "napi_polls": "napi_polls", "napi_work": "napi_work",
    "napi_quota_full": "napi_quota_full", "napi_complete": "napi_complete",
    "hist_0": "napi_work_hist_0", "hist_1_25": "napi_work_hist_1_25",
    "hist_26_50": "napi_work_hist_26_50", "hist_51_75": "napi_work_hist_51_75",
    "hist_76_99": "napi_work_hist_76_99", "hist_100": "napi_work_hist_100",
    "rx_refills": "rx_refills", "rx_refill_descs": "rx_refill_descs",
    "ring_exhausted": "rx_ring_exhausted", "tcp_in_segs": "tcp_InSegs",
}


# Without these a snapshot was not read: the run cannot be counted.
NEEDED = ("cpu_total", "cpu_idle", "sys_rx_packets", "irqs")


def counters(lines):
    """{name: int} of "name value" lines (benchsnap's output); others left out."""
    out = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and re.fullmatch(r"-?\d+", parts[1]):
            out[parts[0]] = int(parts[1])
    return out


def snap(path):
    try:
        with open(path) as f:
            return counters(f)
    except OSError:
        return {}


CPU_SPLIT = ("cpu_softirq", "cpu_user", "cpu_system", "cpu_idle")


def cpu_split(b, a):
    """{column: % of the guest's CPU time} between snapshots b and a."""
    total = a["cpu_total"] - b["cpu_total"] if "cpu_total" in a and "cpu_total" in b else 0
    if not total:
        return {}
    return {col: 100.0 * (a[col] - b[col]) / total for col in CPU_SPLIT if col in a and col in b}


def iperf(path, row):
    """Fill the row from iperf3's JSON; return why the run failed, or None."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return "iperf3 JSON missing"
    try:
        j = json.loads(text)
    except ValueError as e:
        return "iperf3 JSON broken (%s)" % e
    if not isinstance(j, dict):
        return "iperf3 JSON broken (not an object)"
    if "error" in j:
        return "iperf3: %s" % j["error"]
    end = j.get("end", {})
    try:
        if "sum" in end:  # UDP: the receiver's report of loss
            row["lost"] = int(end["sum"]["lost_packets"])
            row["sent"] = int(end["sum"]["packets"])
            row["jitter_ms"] = "%.3f" % end["sum"]["jitter_ms"]
        if "sum_received" in end:
            row["mbps"] = "%.1f" % (end["sum_received"]["bits_per_second"] / 1e6)
        elif "sum" in end:
            row["mbps"] = "%.1f" % (end["sum"]["bits_per_second"] / 1e6)
        else:
            return "iperf3 JSON has no result (never connected?)"
        if "sum" not in end:  # TCP
            row["retrans"] = end.get("sum_sent", {}).get("retransmits", "")
    except (KeyError, TypeError, ValueError) as e:
        return "iperf3 JSON broken (%r)" % e
    return None


def exit_code(path):
    try:
        return int(open(path + ".rc").read())
    except (OSError, ValueError):
        return None


def zeroloss_trials(path, row):
    """Zero-loss bisection: its trial count and, of the lowest offered rate
    that lost more than schema.LOSS_MAX (the bisection's own verdict), what was lost
    and where, counted around that trial alone: what ended the bisection."""
    fields = ("zl_fail_mbps", "verdict", "zl_fail_sent", "zl_fail_lost",
              "zl_fail_fifo", "zl_fail_link", "zl_fail_sock", "zl_fail_softnet")
    with open(path) as f:  # run.sh zl_trial: "-" for sent, lost: no result
        trials = [dict(zip(fields, line.split())) for line in f if line.strip()]
    row["zl_trials"] = len(trials)
    failed = [t for t in trials if t["verdict"] == "fail"]
    if failed:
        t = min(failed, key=lambda t: int(t["zl_fail_mbps"]))
        for col in fields:
            if col != "verdict":
                row[col] = "" if t[col] == "-" else t[col]


def ping(path, row):
    try:
        with open(path) as f:
            m = re.search(r"= [\d.]+/([\d.]+)/", f.read())
    except OSError:
        return "ping output missing"
    if not m:
        return "ping: no reply"
    row["rtt_ms"] = m.group(1)
    return None


def wake(path, row):
    """The wake-up probe's output: its columns, or why it cannot be read."""
    try:
        with open(path) as f:
            w = wakeup.parse(f.read())
    except OSError:
        return "wake-up probe: output missing"
    except wakeup.WakeupError as e:
        return "wake-up probe: %s" % e
    row["wake_samples"] = w["wakeup_samples"]
    row["wake_missed"] = w["wakeup_missed"]
    if w["wakeup_samples"]:  # no wake-up: no lateness (its zeros are not one)
        for col, key in (("wake_p50_us", "wakeup_p50_ns"), ("wake_p99_us", "wakeup_p99_ns"),
                         ("wake_max_us", "wakeup_max_ns")):
            row[col] = "%.1f" % (w[key] / 1000.0)
    return None


def ping_load(path, row):
    """ping at 100/s beside a load run: the median and 99th percentile of
    the replies' RTT, and how many of the pings got no reply."""
    try:
        text = open(path).read()
    except OSError:
        return "ping under load: output missing"
    rtts = sorted(float(m) for m in re.findall(r"time=([\d.]+) ms", text))
    m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
    if not m:
        return "ping under load: no summary"
    row["ping_sent"] = int(m.group(1))
    row["ping_lost"] = int(m.group(1)) - int(m.group(2))
    if rtts:
        def pct(q):
            return rtts[min(len(rtts) - 1, int(q * len(rtts)))]
        row["rtt_p50_ms"] = "%.3f" % pct(0.5)
        row["rtt_p99_ms"] = "%.3f" % pct(0.99)
    return None


# USER_HZ of the guest's /proc/stat
USER_HZ = 100


def two_nics(row, a, b, peer, poll, errors):
    """The per-NIC columns of a share or router row (see the docstring)."""
    nic = row.get("nic") or "eth0"
    pb, pa = (snap(p) for p in peer.split(",", 1)) if peer else ({}, {})
    key = "sys_rx_packets"
    if peer and not all(key in s and "sys_tx_packets" in s for s in (pb, pa)):
        errors.append("counters unreadable (the other NIC's snapshot)")
        pb = pa = {}
    own = a.get(key, 0) - b.get(key, 0) if key in a and key in b else None
    other = pa[key] - pb[key] if key in pa else None
    if row.get("nic") and own is not None and other is not None:
        if own + other:
            row["pkt_share"] = "%.4f" % (own / (own + other))
        if "cpu_total" in a and "cpu_idle" in b and own + other:  # guest-wide, both NICs
            busy = (a["cpu_total"] - b["cpu_total"]) - (a["cpu_idle"] - b["cpu_idle"])
            row["cpu_us_per_pkt"] = "%.3f" % (busy * 1e6 / USER_HZ / (own + other))
    if row.get("profile") == profiles.ROUTER and own is not None and "sys_tx_packets" in pa:
        row["fwd_drops"] = own - (pa["sys_tx_packets"] - pb["sys_tx_packets"])
    if not poll:
        return
    t = snap(poll)
    if "trace_%s_polls" % nic not in t:
        errors.append("counters unreadable (no %s sums for %s)"
                      % (profiles.POLL_TRACEPOINT, nic))
        return
    if t.get("trace_poll_dropped"):
        print("bench: the %s hist trigger dropped %d entries"
              % (profiles.POLL_TRACEPOINT, t["trace_poll_dropped"]), file=sys.stderr)
    polls, work, ns = (t["trace_%s_%s" % (nic, k)] for k in ("polls", "work", "ns"))
    row.update(trace_polls=polls, trace_work=work, trace_ns=ns)
    if work:
        row["poll_ns_per_pkt"] = "%.0f" % (ns / work)
    if polls:
        row["quota_mean"] = "%.1f" % (t["trace_%s_quota" % nic] / polls)
        row["ewma_ns_per_pkt"] = "%.0f" % (t["trace_%s_ewma" % nic] / polls)
    if polls and "trace_%s_hw_min" % nic in t:
        row["hw_min_mean"] = "%.1f" % (t["trace_%s_hw_min" % nic] / polls)
        for b in HW_MIN_BUCKETS:
            row["hw_min_" + b] = t.get("trace_%s_hw_min_%s" % (nic, b), 0)
    total = sum(v for k, v in t.items() if k in ("trace_eth0_ns", "trace_eth1_ns"))
    if total:
        row["ns_share"] = "%.4f" % (ns / total)


def udp_seconds(path, keys):
    """The seconds of iperf3's UDP result, from the first of keys (end's
    sum_sent, sum_received, sum) that has them; None when absent."""
    try:
        with open(path) as f:
            end = json.load(f)["end"]
        for k in keys:
            s = end.get(k, {}).get("seconds")
            if s:
                return float(s)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def forwarded(row, result, errors):
    """A router row counted at tap1 (fwd_frames): its rate `mbps` is the
    guest's, the flood's datagrams that came out of eth1 and reached the
    host side of tap1, in Mbit/s of UDP payload (the profile's payload each,
    as iperf3 counts its own rate) over the flood's seconds, the sender's
    (sum_sent; SECS without it). Not the receiver's: a receiver short of
    CPU ends its test late, and its seconds ran to 7-34 s for a 5 s flood
    in 5 of sweep 36's 80 router runs, which then read as forwarding a
    third to a seventh of what tap1 counted. Whatever the receiver's socket
    dropped (rcv_sock_drops) is recorded and judges nothing.
    More datagrams counted than sent is an error: the count matches the
    flood's own, so it counted something else."""
    try:
        n = int(row.get("fwd_frames"))
    except (TypeError, ValueError):
        return
    if row.get("profile") != profiles.ROUTER:
        return
    try:
        sent = int(row.get("sent"))
    except (TypeError, ValueError):
        sent = None
    if n < 0 or sent is not None and n > sent:
        errors.append("tap1 counted %d of the flood's datagrams%s: the count is not the "
                      "flood's alone" % (n, "" if sent is None else ", %d were sent" % sent))
        return
    seconds = udp_seconds(result, ("sum_sent",))
    try:
        seconds = seconds or float(row.get("secs"))
    except (TypeError, ValueError):
        return
    if seconds > 0:
        payload = profiles.PROFILES[profiles.ROUTER].payload
        row["mbps"] = "%.1f" % (n * payload * 8 / seconds / 1e6)


def host_limited(row, errors):
    """A router run without the count at tap1 (no fwd_frames: its rate is
    its receiver's) whose receiver (on the host) dropped more than
    schema.LOSS_MAX of what reached it (schema.receiver_limited: what it
    received plus what its socket dropped; under a flood the guest forwards
    only part of what was sent) measured the host, not the guest: it fails
    and never counts. Counted at tap1, the rate is the guest's whatever the
    receiver dropped."""
    if row.get("fwd_frames") not in (None, ""):
        return
    try:
        drops, sent, lost = (int(row.get(k)) for k in ("rcv_sock_drops", "sent", "lost"))
    except (TypeError, ValueError):
        return
    if row.get("profile") == profiles.ROUTER and schema.receiver_limited(sent, lost, drops):
        errors.append("host-limited: the receiver's socket on the host dropped %d of the "
                      "%d datagrams that reached it" % (drops, sent - lost + drops))


# A flood whose question is how the guest divides its CPU (share,
# share-adaptive: do the weights bind?) needs the guest to be the limit. On
# a 2-core AMD EPYC host both NICs flooded leave the guest 8-12 % idle, with
# 98-100 % of the patched driver's polls using their whole quota (sweeps
# 19-25); on a 2-core Intel Xeon host the same runs left it 38-51 % idle
# and eth0 took a packet share of 0.51 for a weight share of 0.20: the host
# (senders and QEMU's main loop on one CPU) was the limit, and no weight can
# bind then. Such a run is host-limited: it fails, never counts, and the
# summary names it.
#
# The router's question (how much does the guest forward under a flood)
# needs the same: a guest that idles could have forwarded more, and its
# rate is what the host delivered. Every router run the lab has recorded,
# on every host, left the guest 27-77 % idle with the tap (FIFO) dropping
# (docs/results.md, sweep 36): the idle rule applies to it. The quota rule
# does not: a router run counts no polls (its rows carry no napi_*), and
# eth0's quota use there is not a share question.
#
# The idle time that decides is the flood's, not cpu_idle's: the guest's
# /proc/stat is read before the host's counters and iperf3's start and
# after the flood and the host's counters again, a window 3-4.5 s longer
# than a 5 s flood (sweep 36's raw snapshots: 8.2-9.7 s). A guest busy
# through the whole flood then shows 35-40 % cpu_idle, as every router run
# at COST 1000 did; the busy seconds it spent against the flood's SECS are
# the measure (flood_idle). Work outside the flood (the ring drained after
# it, iperf3's control connection) counts as flood work, so the estimate
# errs towards a busy guest; a flood that overran SECS errs the same way.
SATURATED = profiles.SATURATED  # whose question needs the guest to be the limit
IDLE_MAX = 20.0        # % of the guest's CPU idle during the flood
QUOTA_FULL_MIN = 0.9   # share of the polls that used their whole quota


def flood_idle(row):
    """The guest's idle share of the flood in %: 100 x (1 - busy / SECS),
    busy being the guest's busy CPU seconds over the snapshot window
    (cpu_us_per_pkt times the packets it is per: eth0's for the router,
    both NICs' for a share row, rx_packets / pkt_share), at least 0. None
    when a column is missing."""
    try:
        us, pkts, secs = (float(row.get(k)) for k in ("cpu_us_per_pkt", "rx_packets", "secs"))
        if row.get("profile") in profiles.SHARE:
            pkts /= float(row.get("pkt_share"))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if secs <= 0:
        return None
    return max(0.0, 100.0 * (1.0 - us * pkts / 1e6 / secs))


def guest_not_the_limit(row):
    """Why a run whose question needs the guest saturated was host-limited
    (a string), or "" (the guest was the limit, or the rule does not apply).
    The quota's use is counted by the patched driver only; the guest's idle
    time by both kernels (flood_idle; without its columns, cpu_idle over
    the snapshot window, which overstates it)."""
    if row.get("profile") not in SATURATED:
        return ""
    idle, where = flood_idle(row), "the flood"
    if idle is None:
        try:
            idle, where = float(row.get("cpu_idle")), "the snapshot window"
        except (TypeError, ValueError):
            return ""
    if idle > IDLE_MAX:
        return ("host-limited: the guest was %.1f %% idle during %s (more than %d %%: "
                "the host, not the guest, was the limit)" % (idle, where, IDLE_MAX))
    if row.get("profile") not in profiles.SHARE:
        return ""
    try:
        polls, full = int(row.get("napi_polls")), int(row.get("napi_quota_full"))
    except (TypeError, ValueError):
        return ""
    if polls and full < QUOTA_FULL_MIN * polls:
        return ("host-limited: %s's polls used their whole quota in %.0f %% of %d polls (less "
                "than %d %%: its ring ran empty, so its weight could not bind)" % (
                    row.get("nic") or "eth0", 100.0 * full / polls, polls, 100 * QUOTA_FULL_MIN))
    return ""


def append(csv_path, row):
    """Append a row to runs.csv, its header first when the file is new. A
    key that is not one of COLUMNS (a mistyped k=v) raises ValueError and
    writes nothing, rather than vanish from the row."""
    unknown = sorted(set(row) - set(COLUMNS))
    if unknown:
        raise ValueError("not a column of runs.csv: %s" % ", ".join(unknown))
    new = not os.path.exists(csv_path)
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            w.writeheader()
        w.writerow(row)


def main():
    csv_path, before, after, tap0, tap1, result = sys.argv[1:7]
    row = dict(a.split("=", 1) for a in sys.argv[7:])
    errors = [row.pop("error", "")]
    ping_file = row.pop("ping_load", "")
    wake_file = row.pop("wakeup", "")
    peer, poll = row.pop("peer", ""), row.pop("poll", "")
    if row.get("weight_eth1") == "-":
        row["weight_eth1"] = ""
    b, a = snap(before), snap(after)
    for name, s in (("before", b), ("after", a)):
        missing = [k for k in NEEDED if k not in s]
        if missing:
            errors.append("counters unreadable (%s: no %s)" % (name, ", ".join(missing)))
    for col, key in COUNTERS.items():
        if key in a and key in b:
            row[col] = a[key] - b[key]
    if row.get("role") == "hist":
        hist = [c for c in COLUMNS if c.startswith("hist_")]
        if all("trace_" + c in a for c in hist):
            for col in hist:
                row[col] = a["trace_" + col]
            row["napi_polls"] = sum(row[c] for c in hist)
        else:
            errors.append("counters unreadable (no napi_poll histogram)")
        if a.get("trace_hist_dropped"):
            print("hist trigger dropped %d entries" % a["trace_hist_dropped"],
                  file=sys.stderr)
    row["fifo_drops"] = int(tap1) - int(tap0)
    for col, pct in cpu_split(b, a).items():
        row[col] = "%.1f" % pct
    if "cpu_total" in a and "cpu_idle" in b and row.get("rx_packets"):
        busy = (a["cpu_total"] - b["cpu_total"]) - (a["cpu_idle"] - b["cpu_idle"])
        row["cpu_us_per_pkt"] = "%.3f" % (busy * 1e6 / USER_HZ / row["rx_packets"])
    if peer or poll:
        two_nics(row, a, b, peer, poll, errors)
    if ping_file:  # latency is an extra: without it the run still counts
        note = ping_load(ping_file, row)
        if note:
            print("bench: %s" % note, file=sys.stderr)
    if wake_file:
        errors.append(wake(wake_file, row))
    trials = row.pop("trials", "")
    if trials and os.path.exists(trials):
        zeroloss_trials(trials, row)
    if result != "-":
        if row.get("profile") in profiles.PING_ONLY:
            errors.append(ping(result, row))
        else:
            errors.append(iperf(result, row))
            rc = exit_code(result)
            if rc is None:
                errors.append("iperf3 exit code not recorded")
            elif rc != 0:
                errors.append("iperf3 exit %d%s" % (rc, " (timed out)" if rc == 124 else ""))
    forwarded(row, result, errors)
    host_limited(row, errors)
    errors.append(guest_not_the_limit(row))
    errors = [e for e in errors if e]
    row["status"] = "failed" if errors else "ok"
    row["error"] = "; ".join(errors)
    try:
        append(csv_path, row)
    except ValueError as e:
        print("row.py: %s" % e, file=sys.stderr)
        return 2
    if errors:
        print("\nbench: run failed (kept in runs.csv, left out of every figure): %s"
              % row["error"], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

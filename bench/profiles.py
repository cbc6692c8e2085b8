#!/usr/bin/env python3
"""Every bench profile as data, once: what it sends, on which NICs, what it
counts, which verdicts it yields, and the baseline's settings.

    profiles.py           one line per profile (the PROFILES knob's words)

PROFILES (the knob, bench/knobs.py) takes the names of KNOB_NAMES; plan.py
expands them into the profiles a run carries (zeroloss is two: zeroloss1470
and zeroloss64) and writes each run's profile facts into the plan (nics,
forward, gro_batch, ping_load), which bench/run.sh reads by name.

BASELINE is the baseline triple: the unpatched driver's fixed weight 64, RX
refill every 16 descriptors, no adaptive quota. The baseline twin of every
patched run has it, the calibration and histogram runs are at it on both
kernels, and `make aa` and plain `make` sweep it (bench/knobs.py's presets).

The patched driver's defaults are the same triple: the goals judge the
patched kernel at them (report.is_default), against its baseline twin.

GOALS and AA are the verdicts the profiles yield, in the order the reports
list them: the goals (patched at its defaults against the baseline, a
target each) and what `make aa` judges; VERDICTS is the same by profile.
bench/report.py, bench/results.py and bench/row.py name profiles only
through this module.
"""
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema  # noqa: E402

# The baseline triple, and eth1's weight on the baseline in the two-NIC
# profiles (the unpatched driver has no weight knob: 64).
BASELINE = {"weight": "64", "refill": "16", "adaptive": "off"}
BASELINE_WEIGHT_ETH1 = "64"

# The tracepoints the bench reads (in-kernel hist triggers, nothing written
# to the trace buffer): the patched driver's per-poll one, summed per NIC by
# qemu/guest/bin/benchpoll for the two-NIC profiles' CPU shares, and the
# core's, which both kernels have, for role hist's work/budget histogram
# (qemu/guest/bin/benchhist). The guest scripts run inside the initramfs and
# cannot import this; tests/test_profiles.py checks their paths against it.
POLL_TRACEPOINT = "e1000:e1000_napi_poll"
HIST_TRACEPOINT = "napi:napi_poll"


@dataclass(frozen=True)
class Profile:
    name: str
    traffic: str             # what the host sends (one line)
    counts: str              # what a run of it counts (one line)
    nics: int = 1            # 2: boots both guests with eth1 (NICS=2)
    forward: bool = False    # the guest forwards eth0 -> eth1 (ip_forward=1)
    ping_load: bool = False  # ping at 100/s beside the traffic (RTT under load)
    adaptive: str = ""       # its own adaptive setting, whatever ADAPTIVE says
    saturates: bool = False  # its question needs the guest to be the limit (row.py)
    udp1470_rate: bool = False  # its load is UDP1470_RATE (half the saturation)
    part_of: str = ""        # the PROFILES word it comes from (zeroloss)
    tcp: bool = False        # TCP (its table has the calibration's column)
    payload: int = 0         # the UDP payload in bytes (zero-loss: the frame column)
    kpps: bool = False       # its question is a packet rate (a kpps column)
    pdr: str = ""            # the metric of its PDR verdicts (kind pdr), if any
    ping_only: bool = False  # no iperf3: its result is ping's output (row.py)

    @property
    def gro_batch(self):
        """net.core.gro_normal_batch in the guest (benchsys): the two-NIC
        profiles put every packet's stack work inside its poll."""
        return 1 if self.nics == 2 else 8


_ALL = (
    Profile("tcp", "TCP, one stream, SECS s (1 s of slow start left out)",
            "throughput, retransmissions, drops by place, RTT under load", ping_load=True,
            tcp=True),
    Profile("tcp4", "TCP, four streams", "as tcp", ping_load=True, tcp=True),
    Profile("udp1470", "UDP 1470 B at UDP1470_RATE",
            "throughput, loss, drops by place, interrupts, RTT under load",
            ping_load=True, udp1470_rate=True, payload=1470),
    Profile("udp64", "UDP 64 B (a 106 B frame) at UDP64_RATE", "packet rate (kpps), loss",
            ping_load=True, payload=64, kpps=True),
    Profile("zeroloss1470", "UDP 1470 B, bisected 1..1000 Mbit/s",
            schema.PDR + " (RFC 9971), the trials and what ended the bisection",
            part_of="zeroloss", payload=1470, pdr="pdr_mbps"),
    Profile("zeroloss64", "UDP 64 B, bisected 1..200 Mbit/s", "as zeroloss1470",
            part_of="zeroloss", payload=64, pdr="pdr_kpps"),
    Profile("idle", "no traffic, 5 pings a second", "guest CPU split, ping RTT",
            ping_only=True),
    Profile("share", "UDP 1470 B floods at SAT_OFFER into eth0 and eth1 at once",
            "per NIC: delivered rate, drops by place, packet share, CPU share (patched)",
            nics=2, adaptive="off", saturates=True, payload=1470),
    Profile("share-adaptive", "as share", "as share, and each NIC's poll targets",
            nics=2, adaptive="on", saturates=True, payload=1470),
    Profile("router", "UDP 1470 B at SAT_OFFER through the guest, eth0 -> eth1",
            "forwarding rate, drops by place, RTT through the guest, then its " + schema.PDR,
            nics=2, forward=True, ping_load=True, saturates=True, payload=1470,
            pdr="pdr_mbps"),
    Profile("eth1ping", "UDP 1470 B at SAT_OFFER into eth0; eth1 only pinged, 100 a second",
            "eth1's ping RTT under eth0's flood (rtt_p50_ms, rtt_p99_ms), time_squeeze, "
            "eth0's drops by place", nics=2, ping_load=True, payload=1470),
)
PROFILES = {p.name: p for p in _ALL}

# The words of the PROFILES knob, in this order, and its default.
KNOB_NAMES = ("tcp", "tcp4", "udp1470", "udp64", "zeroloss", "idle",
              "share", "share-adaptive", "router", "eth1ping")
DEFAULT = ("tcp", "tcp4", "udp1470", "udp64")
TWO_NIC = tuple(p.name for p in _ALL if p.nics == 2)
# The forced adaptive setting of share and share-adaptive.
FORCED_ADAPTIVE = {p.name: p.adaptive for p in _ALL if p.adaptive}
SATURATED = tuple(p.name for p in _ALL if p.saturates)
ONE_NIC = tuple(p.name for p in _ALL if p.nics == 1)  # the "By profile" tables' order
TCP = tuple(p.name for p in _ALL if p.tcp)
ZERO_LOSS = tuple(p.name for p in _ALL if p.part_of == "zeroloss")
PING_ONLY = tuple(p.name for p in _ALL if p.ping_only)
# The share profiles (two NICs flooded at once: the guest must be the
# limit), the router (the guest forwards eth0 -> eth1) and eth1ping (eth0
# flooded, eth1 pinged: make article's observation 3).
SHARE = tuple(p.name for p in _ALL if p.nics == 2 and p.saturates and not p.forward)
ROUTER = next(p.name for p in _ALL if p.forward)
# The profiles whose runs the reports plot against the weight.
BY_WEIGHT = tuple(p for p in ONE_NIC if p not in ZERO_LOSS)
# The runs that are not the sweep's: the calibration's and the histogram's
# profiles, and the saturation's (which measures UDP1470_RATE).
CALIB = "tcp"
HIST = ("tcp", "udp1470")
SAT = "udp1470"


def is_zero_loss(name):
    """Whether a profile (a runs.csv row's) is a zero-loss one: its lost is
    its last passing trial's, its PDR the rate found."""
    return name in ZERO_LOSS


# The verdicts the profiles yield (bench/report.py, bench/verdicts.py).
# A goal: the patched kernel at its defaults against the baseline, a target
# each; "no worse" goals carry their margin in the target (<= 1.05x). The
# estimator: ratio or count (bench/paired.py).
@dataclass(frozen=True)
class Goal:
    metric: str     # the runs.csv column or derived metric (report.value)
    label: str      # the question in words (a record's question)
    profile: str
    target: str
    estimator: str


PDR = schema.PDR  # "PDR 0.1 %"
GOALS = (
    Goal("pdr_mbps", PDR + " rate, 1470 B (Mbit/s)", "zeroloss1470", ">= 1.25x", "ratio"),
    Goal("pdr_kpps", PDR + " rate, 64 B payload / 106 B frame (kpps)", "zeroloss64",
         ">= 1.25x", "ratio"),
    Goal("mbps", "TCP 1 stream (Mbit/s)", "tcp", ">= 1.25x", "ratio"),
    Goal("fifo_drops", "TCP 1 stream FIFO drops", "tcp", "<= 0.5x", "count"),
    Goal("rtt_p99_ms", "TCP: ping RTT p99 under load (no worse)", "tcp", "<= 1.05x", "ratio"),
    Goal("cpu_us_per_pkt", "TCP: guest CPU per packet (no worse)", "tcp", "<= 1.05x", "ratio"),
    Goal("lost", "UDP 1470 B lost datagrams", "udp1470", "<= 0.5x", "count"),
    Goal("irq_per_1000", "UDP 1470 B interrupts per 1000 packets", "udp1470", "<= 0.5x",
         "ratio"),
    Goal("cpu_busy", "idle: guest CPU busy % (no worse)", "idle", "<= 1.05x", "ratio"),
    Goal("rtt_ms", "idle: ping RTT (no worse)", "idle", "<= 1.05x", "ratio"),
)


# What `make aa` judges: the resolution the lab aims at in % (the CI's
# half-width), or None. Only metrics that a verdict or a comparison of the
# lab uses are judged; two were retired (docs/bench.md, "A/A"): UDP 1470 B
# CPU per packet (no goal uses it; at half the saturation rate the guest is
# 60-90 % idle, so the busy time per packet is mostly the guest's own
# housekeeping: +-21.6 % in 20 pairs) and TCP interrupts per packet (no goal
# uses it; +-13.9 %). The router and share rows are the layout A/A's (make
# aa PAD=N): the same code in two layouts must forward and share alike.
@dataclass(frozen=True)
class AA:
    metric: str
    label: str
    profile: str
    nic: str        # eth0 or eth1 where the metric is one NIC's, else ""
    aim: object     # the resolution aimed at, in %, or None


AAS = (
    AA("mbps", "TCP throughput", "tcp", "", 5),
    AA("cpu_us_per_pkt", "TCP CPU per packet", "tcp", "", 10),
    AA("rtt_p99_ms", "TCP ping RTT p99 under load", "tcp", "", None),
    AA("mbps", "UDP 1470 B throughput", "udp1470", "", 5),
    AA("irq_per_1000", "UDP 1470 B interrupts per 1000 packets", "udp1470", "", 10),
    AA("kpps", "UDP 64 B packet rate", "udp64", "", 5),
    AA("mbps", "Router: forwarded rate under the flood", "router", "", 3),
    AA("pdr_mbps", "Router: " + PDR + " rate", "router", "", 5),
    AA("kpps", "Share: eth0's delivered rate", "share", "eth0", 3),
    AA("kpps", "Share: eth1's delivered rate", "share", "eth1", 3),
    AA("pkt_share", "Share: eth0's packet share", "share", "eth0", 3),
)

# The other questions answered in summary.md and verdicts.json.
_BAND = ("each NIC's packet and CPU share within +-%s of its weight share"
         % schema.percent(schema.SHARE_BAND))
OTHER = {"share": (_BAND,), "share-adaptive": (_BAND,),
         "router": ("forwarded rate and PDR against the baseline",)}


def _by_profile():
    out = {p.name: {} for p in _ALL}
    for kind, table in (("goals", GOALS), ("aa", AAS)):
        for v in table:
            have = out[v.profile].get(kind, ())
            if v.metric not in have:
                out[v.profile][kind] = have + (v.metric,)
    for name, words in OTHER.items():
        out[name]["other"] = words
    return out


# {profile: {"goals": metrics, "aa": metrics, "other": words}}: the verdicts
# each profile yields, from GOALS, AAS and OTHER.
VERDICTS = _by_profile()
# The profiles make aa sweeps (bench/knobs.py's preset): the one-NIC ones
# with a metric the A/A judges; and plain make's quick look, one TCP and
# one UDP profile.
AA_PROFILES = tuple(p for p in ONE_NIC if "aa" in VERDICTS[p])
QUICK_PROFILES = ("tcp", "udp1470")


def expand(words):
    """The run profiles of PROFILES's words, in their order (zeroloss: its
    two frame sizes)."""
    out = []
    for w in words:
        out += [p.name for p in _ALL if p.part_of == w] or [w]
    return out


def two_nic(words):
    """The first two-NIC profile among PROFILES's words, or None."""
    return next((w for w in words if w in TWO_NIC), None)


def needs_udp1470_rate(words, hist):
    """Whether a sweep of these PROFILES words (and HIST=1 or not) offers
    UDP1470_RATE: its default is then measured first (role sat)."""
    return hist or any(PROFILES[p].udp1470_rate for p in expand(words) if p in PROFILES)


def main():
    for w in KNOB_NAMES:
        for name in expand([w]):
            p = PROFILES[name]
            print("%-15s %s NIC%s%s: %s; counts %s" % (
                name, p.nics, "s" if p.nics > 1 else "", ", default" if w in DEFAULT else "",
                p.traffic, p.counts))
    print("baseline: weight %(weight)s, refill %(refill)s, adaptive %(adaptive)s" % BASELINE)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

report.py still holds its own copies of the profile names and the goals'
profiles (GOALS, RESOLUTION); tests/test_profiles.py checks that they agree
with VERDICTS here until it reads them from this module.
"""
import sys
from dataclasses import dataclass

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

    @property
    def gro_batch(self):
        """net.core.gro_normal_batch in the guest (benchsys): the two-NIC
        profiles put every packet's stack work inside its poll."""
        return 1 if self.nics == 2 else 8


_ALL = (
    Profile("tcp", "TCP, one stream, SECS s (1 s of slow start left out)",
            "throughput, retransmissions, drops by place, RTT under load", ping_load=True),
    Profile("tcp4", "TCP, four streams", "as tcp", ping_load=True),
    Profile("udp1470", "UDP 1470 B at UDP1470_RATE",
            "throughput, loss, drops by place, interrupts, RTT under load",
            ping_load=True, udp1470_rate=True),
    Profile("udp64", "UDP 64 B (a 106 B frame) at UDP64_RATE", "packet rate (kpps), loss",
            ping_load=True),
    Profile("zeroloss1470", "UDP 1470 B, bisected 1..1000 Mbit/s",
            "PDR 0.1 % (RFC 9971), the trials and what ended the bisection",
            part_of="zeroloss"),
    Profile("zeroloss64", "UDP 64 B, bisected 1..200 Mbit/s", "as zeroloss1470",
            part_of="zeroloss"),
    Profile("idle", "no traffic, 5 pings a second", "guest CPU split, ping RTT"),
    Profile("share", "UDP 1470 B floods at SAT_OFFER into eth0 and eth1 at once",
            "per NIC: delivered rate, drops by place, packet share, CPU share (patched)",
            nics=2, adaptive="off", saturates=True),
    Profile("share-adaptive", "as share", "as share, and each NIC's poll targets",
            nics=2, adaptive="on", saturates=True),
    Profile("router", "UDP 1470 B at SAT_OFFER through the guest, eth0 -> eth1",
            "forwarding rate, drops by place, RTT through the guest, then its PDR 0.1 %",
            nics=2, forward=True, ping_load=True),
)
PROFILES = {p.name: p for p in _ALL}

# The words of the PROFILES knob, in this order, and its default.
KNOB_NAMES = ("tcp", "tcp4", "udp1470", "udp64", "zeroloss", "idle",
              "share", "share-adaptive", "router")
DEFAULT = ("tcp", "tcp4", "udp1470", "udp64")
TWO_NIC = tuple(p.name for p in _ALL if p.nics == 2)
# The forced adaptive setting of share and share-adaptive.
FORCED_ADAPTIVE = {p.name: p.adaptive for p in _ALL if p.adaptive}
SATURATED = tuple(p.name for p in _ALL if p.saturates)
# The runs that are not the sweep's: the calibration's and the histogram's
# profiles, and the saturation's (which measures UDP1470_RATE).
CALIB = "tcp"
HIST = ("tcp", "udp1470")
SAT = "udp1470"

# The verdicts each profile yields (bench/report.py): the goals (patched
# against baseline, a target each), the metrics `make aa` judges, and the
# other questions answered in summary.md.
VERDICTS = {
    "tcp": {"goals": ("mbps", "fifo_drops", "rtt_p99_ms", "cpu_us_per_pkt"),
            "aa": ("mbps", "cpu_us_per_pkt", "rtt_p99_ms")},
    "tcp4": {},
    "udp1470": {"goals": ("lost", "irq_per_1000"), "aa": ("mbps", "irq_per_1000")},
    "udp64": {"aa": ("kpps",)},
    "zeroloss1470": {"goals": ("pdr_mbps",)},
    "zeroloss64": {"goals": ("pdr_kpps",)},
    "idle": {"goals": ("cpu_busy", "rtt_ms")},
    "share": {"aa": ("kpps", "pkt_share"),
              "other": ("each NIC's packet and CPU share within +-10 % of its weight share",)},
    "share-adaptive": {"other": ("each NIC's packet and CPU share within +-10 % of its "
                                 "weight share",)},
    "router": {"aa": ("mbps", "pdr_mbps"),
               "other": ("forwarded rate and PDR against the baseline",)},
}


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

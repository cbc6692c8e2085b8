"""The profiles as data (bench/profiles.py): every profile the docs name
exists, the knob's words expand to them, the baseline triple, the
tracepoints the guest scripts read, and report.py's copies agree.
"""
import os
import re

import pytest

import knobs
import profiles
import report

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)


def read(*path):
    with open(os.path.join(TOP, *path)) as f:
        return f.read()


def test_every_profile_the_docs_name_exists():
    """Every `name` in docs/bench.md's profile lists is a profile or a
    PROFILES word, and every profile is documented there."""
    doc = read("docs", "bench.md")
    named = set()
    for m in re.finditer(r'PROFILES="([^"]+)"', doc):
        named |= set(m.group(1).split())
    for m in re.finditer(r"^\* \*\*([a-z0-9-]+)\*\*:", doc, re.M):
        named.add(m.group(1))
    assert named and named <= set(profiles.KNOB_NAMES) | set(profiles.PROFILES), named
    for name in profiles.PROFILES:
        assert "`%s`" % name in doc or name in named or profiles.PROFILES[name].part_of, name


def test_knob_words_expand_to_profiles():
    assert knobs.KNOBS["PROFILES"].allowed == profiles.KNOB_NAMES
    assert set(profiles.expand(profiles.KNOB_NAMES)) == set(profiles.PROFILES)
    assert profiles.expand(["zeroloss", "tcp"]) == ["zeroloss1470", "zeroloss64", "tcp"]
    assert set(profiles.DEFAULT) <= set(profiles.KNOB_NAMES)
    assert knobs.KNOBS["PROFILES"].default == " ".join(profiles.DEFAULT)


def test_baseline_triple():
    """The unpatched driver's settings: weight 64, refill 16, no adaptive
    quota; eth1 at 64 too; the presets of make and make aa sweep it."""
    assert profiles.BASELINE == {"weight": "64", "refill": "16", "adaptive": "off"}
    assert profiles.BASELINE_WEIGHT_ETH1 == "64"
    presets = dict(knobs.PRESETS)
    assert presets["AA"]["WEIGHTS"] == "64" and presets["AA"]["REFILL"] == "16"
    assert presets["AA"]["ADAPTIVE"] == "off" and presets["QUICK"]["WEIGHTS"] == "64"


def test_two_nic_profiles():
    assert profiles.TWO_NIC == ("share", "share-adaptive", "router", "eth1ping")
    assert profiles.FORCED_ADAPTIVE == {"share": "off", "share-adaptive": "on"}
    assert [p for p in profiles.TWO_NIC if profiles.PROFILES[p].forward] == ["router"]
    assert all(profiles.PROFILES[p].gro_batch == 1 for p in profiles.TWO_NIC)
    assert profiles.two_nic(["tcp", "router", "share"]) == "router"
    assert profiles.two_nic(["tcp", "idle"]) is None


def test_udp1470_rate_needed():
    assert profiles.needs_udp1470_rate(["udp1470"], False)
    assert profiles.needs_udp1470_rate(["tcp"], True)
    assert not profiles.needs_udp1470_rate(["tcp", "zeroloss", "router"], False)


@pytest.mark.parametrize("script,event", [("benchpoll", profiles.POLL_TRACEPOINT),
                                          ("benchhist", profiles.HIST_TRACEPOINT)])
def test_guest_scripts_trace_the_tracepoints(script, event):
    """The guest's scripts (they run in the initramfs, without this module)
    attach to the tracepoints named here."""
    text = read("qemu", "guest", "bin", script)
    assert re.findall(r"^ev=/sys/kernel/tracing/events/(\S+)$", text, re.M) == [
        event.replace(":", "/")]


def test_report_reads_the_goals_from_here():
    """report.py's goals and A/A metrics are the tables here, and VERDICTS
    says the same by profile."""
    assert report.GOALS is profiles.GOALS and report.RESOLUTION is profiles.AAS
    assert set(profiles.VERDICTS) == set(profiles.PROFILES)
    assert {(g.profile, g.metric) for g in profiles.GOALS} == {
        (p, m) for p, v in profiles.VERDICTS.items() for m in v.get("goals", ())}
    assert {(a.profile, a.metric) for a in profiles.AAS} == {
        (p, m) for p, v in profiles.VERDICTS.items() for m in v.get("aa", ())}
    assert all(g.profile in profiles.PROFILES and g.estimator in ("ratio", "count")
               for g in profiles.GOALS)
    assert all(a.profile in profiles.PROFILES and a.nic in ("", "eth0", "eth1")
               for a in profiles.AAS)
    assert profiles.GOALS[0].label == "PDR 0.1 % rate, 1470 B (Mbit/s)"
    assert "+-10 %" in profiles.VERDICTS["share"]["other"][0]


def test_profile_groups():
    """The names report.py, results.py, row.py and knobs.py use instead of
    lists of profile names."""
    assert profiles.ONE_NIC == ("tcp", "tcp4", "udp1470", "udp64", "zeroloss1470",
                                "zeroloss64", "idle")
    assert profiles.TCP == ("tcp", "tcp4")
    assert profiles.ZERO_LOSS == ("zeroloss1470", "zeroloss64")
    assert profiles.PING_ONLY == ("idle",)
    assert profiles.is_zero_loss("zeroloss64") and not profiles.is_zero_loss("udp64")
    assert not profiles.is_zero_loss("no-such-profile")
    assert profiles.SHARE == ("share", "share-adaptive")
    assert profiles.SATURATED == ("share", "share-adaptive", "router")
    assert profiles.ROUTER == "router"
    assert set(profiles.TWO_NIC) == set(profiles.SHARE) | {profiles.ROUTER, "eth1ping"}
    assert profiles.BY_WEIGHT == ("tcp", "tcp4", "udp1470", "udp64", "idle")
    assert report.SHARE == profiles.SHARE and report.ROUTER == profiles.ROUTER
    assert profiles.AA_PROFILES == ("tcp", "udp1470", "udp64")
    assert profiles.QUICK_PROFILES == ("tcp", "udp1470")
    presets = dict(knobs.PRESETS)
    assert presets["AA"]["PROFILES"] == " ".join(profiles.AA_PROFILES)
    assert presets["QUICK"]["PROFILES"] == " ".join(profiles.QUICK_PROFILES)


def test_payloads_and_pdr_metrics():
    """The zero-loss table's frame column and pdr_kpps come from the
    payload; each zero-loss profile and the router name their PDR metric."""
    pp = profiles.PROFILES
    assert [pp[p].payload for p in profiles.ZERO_LOSS] == [1470, 64]
    assert pp["udp64"].payload == 64 and pp["udp64"].kpps
    assert [p for p in pp if pp[p].kpps] == ["udp64"]
    assert {p: pp[p].pdr for p in pp if pp[p].pdr} == {
        "zeroloss1470": "pdr_mbps", "zeroloss64": "pdr_kpps", "router": "pdr_mbps"}
    # 64 B at 1 Mbit/s: 1e6 / 512 packets a second
    r = {"profile": "zeroloss64", "offered_mbps": "1"}
    assert report.value(r, "pdr_kpps") == pytest.approx(1e6 / 512 / 1000)


def test_report_baseline_cells():
    """The baseline's cells and the goals' settings come from BASELINE."""
    assert report.fixed("weight") == "64 (fixed)" and report.fixed("refill") == "16 (fixed)"
    assert report.BASE_WEIGHTS == "64/64"
    row = dict(kernel="patched", idle_limit="0", defer="0", cost="0", **profiles.BASELINE)
    assert report.is_default(row)
    assert not report.is_default(dict(row, weight="32"))
    assert not report.is_default(dict(row, kernel="baseline"))
    assert report.config_label({"ring": "256", "fifo": "32", "link": "none"}, {}) == (
        "weight 64, refill 16, adaptive off, defer 0, ring 256, FIFO 32, link none")

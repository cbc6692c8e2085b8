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
    assert profiles.TWO_NIC == ("share", "share-adaptive", "router")
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


def test_report_copies_agree():
    """report.py's goals and A/A metrics name the profiles and metrics of
    profiles.VERDICTS (until report.py reads them from there)."""
    goals = {(g[2], g[0]) for g in report.GOALS}
    aa = {(r[2], r[0]) for r in report.RESOLUTION}
    assert goals == {(p, m) for p, v in profiles.VERDICTS.items() for m in v.get("goals", ())}
    assert aa == {(p, m) for p, v in profiles.VERDICTS.items() for m in v.get("aa", ())}
    assert set(profiles.VERDICTS) == set(profiles.PROFILES)
    assert report.SHARE == profiles.SATURATED

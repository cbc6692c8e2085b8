#!/usr/bin/env python3
"""make article: the four observations of LWN's "NAPI performance - a
weighty matter" (2005) as data, the regime each is measured in, and their
verdicts (issue 21; docs/ARTICLE.md, docs/bench.md "make article").

    article.py regimes         the observations make article runs (OBS), one
                               word each, in order
    article.py estimate [--total]
                               the runs and the running time expected, per
                               regime and in all (--total: "obsN RUNS SECONDS"
                               lines, then "total RUNS SECONDS", for
                               bench/article.sh's progress line)
    article.py report DIR      DIR/verdicts.json (records of kind article),
                               DIR/summary.md and the plots, from the
                               regimes' sweeps DIR/obsN/ (runs.csv and
                               meta.json); re-runnable without measuring

Every comparison is between two settings of the patched image, run back to
back in random order (bench/plan.py, REF): the same code in the same
layout, so layout cannot touch it (docs/bench.md, "Code layout"). The
paired statistics are bench/paired.py's: the ratio setting / reference
(Hodges-Lehmann over the pairs' log ratios with the exact signed-rank
interval, or for counts that can be 0 the ratio of means with a bootstrap
interval over pairs), 95 %, and the one-sided p of an effect in the
article's direction, Holm-corrected within its family: the observations'
primary comparisons (their verdicts), and apart from them the others.

A comparison's verdict (decide()):

* reproduced: the interval excludes no effect (1.0) in the direction the
  article predicts, and its Holm-corrected p is below 0.05;
* contrary: the interval excludes no effect in the opposite direction;
* refuted: the interval lies within 1 +- margin (equivalence: any effect
  is smaller than the margin the observation states);
* inconclusive: none of these (more pairs decide it; fewer than
  paired.MIN_PAIRS pairs give no interval at all);
* not measured: runs.csv lacks the metric's columns, the regime did not
  run, or no pair has a value on both sides;
* incomplete: the regime's sweep did not complete (nothing judged).

An observation's verdict is its primary comparison's.
"""
import csv
import json
import math
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired  # noqa: E402
import schema  # noqa: E402
import verdicts  # noqa: E402


def _report():
    # report imports knobs, which imports this module for OBS: report is
    # imported when first used, not at load.
    import report  # pylint: disable=import-outside-toplevel
    return report


BENCH = os.path.dirname(os.path.abspath(__file__))

# make article's settings for every regime (knobs.py's ARTICLE=1 preset,
# for the knobs the user and the regime leave unset): 4 s runs, no
# calibration or histogram runs, and REPS set below the observations: the
# fewest pairs whose verdicts can pass their Holm correction.
PRESET = {"REPS": None, "SECS": "4", "CALIB": "0", "HIST": "0"}

# The running time: SECS + RUN_OVERHEAD_S a run, TCP 1 s of slow start
# more, and per regime the boot of both guests and their poweroff. The
# first recorded make article (docs/results/article-1: 168 runs, 4 regimes,
# SECS=4) took 29m37s on the README's 2-core machine: 8.9 s a run besides
# the boots, SECS + 4.9; 6 leaves room for a slower host.
RUN_OVERHEAD_S = 6
BOOT_S = 60
# The default must fit in an hour (issue 21); tests/test_article.py checks it.
BUDGET_S = 3600


@dataclass(frozen=True)
class Comparison:
    """One paired question: the plan field KNOB at SETTING against
    REFERENCE, every other setting equal (WHERE pins those the regime
    sweeps), on PROFILE's runs, judged on METRIC."""
    knob: str
    setting: str
    reference: str
    metric: str
    direction: str      # "lower" or "higher": setting / reference as the article predicts
    margin: float       # refuted when the interval lies within 1 +- margin
    profile: str
    where: tuple = ()   # ((plan field, value), ...)
    primary: bool = False


@dataclass(frozen=True)
class Observation:
    id: str
    claim: str          # what the article said, one line
    knobs: dict         # the regime: knobs.py's REGIME=id preset
    why: str            # why this regime, one paragraph
    comparisons: tuple
    changed: str        # what the kernel changed since 2005
    knob_now: str       # the knob that matters now
    plots: tuple = ()   # (name, metric, series field, x field) of plot()


# Derived metrics: (numerator column, denominator column, words), per 1000
# of the denominator.
PER_1000 = {
    "dry_polls_per_1000": ("hw_min_0", "rx_packets",
                           "polls during which the ring ran dry (hw_min 0) per 1000 packets"),
    "ring_exhausted_per_1000": ("ring_exhausted", "rx_packets",
                                "driver's ring-exhausted events per 1000 packets"),
    "fifo_drops_per_1000": ("fifo_drops", "rx_packets", "tap FIFO drops per 1000 packets"),
    "sock_drops_per_1000": ("sock_drops", "rx_packets", "socket drops per 1000 packets"),
}
# Metrics that are counts (can be 0 in a run): paired.py's count estimator.
COUNTS = tuple(PER_1000) + ("time_squeeze",)
WORDS = dict({k: v[2] for k, v in PER_1000.items()}, **{
    "wake_p99_us": "application wake-up lateness p99 (us)",
    "rtt_p99_ms": "ping RTT p99 under load (ms)",
    "rtt_p50_ms": "ping RTT p50 under load (ms)",
    "time_squeeze": "net_rx_action time squeezes per run",
    "irq_per_1000": "interrupts per 1000 packets",
    "cpu_us_per_pkt": "guest CPU per packet (us)",
})

C = Comparison
OBSERVATIONS = (
    Observation(
        "obs1",
        "The RX ring runs dry during a long poll: e1000 refilled it only after its whole "
        "quota of 64, and a weight near 10 helped.",
        {"PROFILES": "tcp", "LINK": "none", "RING": "64", "COST": "100", "WEIGHTS": "8 64",
         "REFILL": "0 16", "REF": "refill=16 weight=64", "POLL_TRACE": "2"},
        "Below the guest's capacity a poll of w packets lasts w x cost, during which fewer "
        "than w arrive: the ring runs dry during a poll only with bursts, a small ring or "
        "time away from the NIC. Unpaced TCP (LINK=none: the host's 64 KB GSO bursts reach "
        "the tap at memory speed) into a 64-descriptor ring, with COST 100 lengthening "
        "every packet: at weight 64 and refill 0 a poll takes the whole ring before giving "
        "any back. POLL_TRACE=2 records hw_min, the fewest descriptors the NIC owned during "
        "each poll (rx_missed stays near 0 under QEMU and cannot show a dry ring).",
        (C("refill", "0", "16", "dry_polls_per_1000", "higher", 0.25, "tcp",
           (("weight", "64"),), primary=True),
         C("refill", "0", "16", "ring_exhausted_per_1000", "higher", 0.25, "tcp",
           (("weight", "64"),)),
         C("refill", "0", "16", "fifo_drops_per_1000", "higher", 0.25, "tcp",
           (("weight", "64"),)),
         C("weight", "8", "64", "dry_polls_per_1000", "lower", 0.25, "tcp",
           (("refill", "0"),)),
         C("weight", "8", "64", "dry_polls_per_1000", "lower", 0.25, "tcp",
           (("refill", "16"),))),
        "e1000 gives buffers back every 16 descriptors inside the poll (E1000_RX_BUFFER_WRITE), "
        "whatever the weight; the series' rx_refill_batch 0 brings back the 2005 behaviour.",
        "rx_refill_batch (devlink), not the weight",
        plots=(("obs1_drops_vs_weight.png", "drops", "refill", "weight"),)),
    Observation(
        "obs2",
        "Costly per-packet work starves the application: smaller weights interleave system "
        "and application time better.",
        {"PROFILES": "udp1470", "COST": "1000", "WEIGHTS": "8 64", "REFILL": "16",
         "THREADED": "0 1", "REF": "weight=64 threaded=0", "UDP1470_RATE": "300M",
         "WAKEUP": "1"},
        "The application wake-up probe (qemu/guest/wakeup.c: a timer every millisecond, "
        "its lateness; WAKEUP=1) beside a costly UDP flood (COST 1000, about 42 us a "
        "packet, 300 Mbit/s offered: far more than the guest takes; at COST 100 the "
        "first run left the guest 16-79 % idle), weight 8 against 64, with NAPI in the "
        "softirq and "
        "threaded. net_rx_action() now polls across instances until netdev_budget (300) "
        "or netdev_budget_usecs (2 jiffies, the floor 6.1 allows) runs out, so one NIC's "
        "smaller weight may not shorten a softirq run; threaded NAPI hands the polls to a "
        "kthread the scheduler interleaves with the application.",
        (C("weight", "8", "64", "wake_p99_us", "lower", 0.20, "udp1470",
           (("threaded", "0"),), primary=True),
         C("weight", "8", "64", "wake_p99_us", "lower", 0.20, "udp1470",
           (("threaded", "1"),)),
         C("threaded", "1", "0", "wake_p99_us", "lower", 0.20, "udp1470",
           (("weight", "64"),)),
         C("weight", "8", "64", "sock_drops_per_1000", "lower", 0.25, "udp1470",
           (("threaded", "0"),))),
        "net_rx_action() bounds a softirq run by netdev_budget packets and "
        "netdev_budget_usecs over all instances, then defers to ksoftirqd; threaded NAPI "
        "(6.1: /sys/class/net/<dev>/threaded) lets the scheduler interleave.",
        "threaded NAPI and netdev_budget, not the weight",
        plots=(("obs2_wake_p99_vs_weight.png", "wake_p99_us", "threaded", "weight"),
               ("obs2_wake_p99_vs_budget_usecs.png", "wake_p99_us", "weight",
                "netdev_budget_usecs"))),
    Observation(
        "obs3",
        "The softirq's time limit cuts other interfaces short: a busy interface with a "
        "large weight delays the others.",
        {"PROFILES": "eth1ping", "COST": "1000", "WEIGHTS": "8 64", "REFILL": "16",
         "ADAPTIVE": "off on", "REF": "weight=64"},
        "Two NICs on one vCPU: eth0 flooded (UDP 1470 B at SAT_OFFER) with COST 1000 on its "
        "path (about 45 us a packet: a poll of 64 lasts about 3 ms), eth1 only pinged 100 "
        "times a second. eth1's RTT p99 against eth0's weight, 8 against 64, with the "
        "adaptive quota off and on.",
        (C("weight", "8", "64", "rtt_p99_ms", "lower", 0.20, "eth1ping",
           (("adaptive", "off"),), primary=True),
         C("weight", "8", "64", "rtt_p99_ms", "lower", 0.20, "eth1ping",
           (("adaptive", "on"),)),
         C("weight", "8", "64", "time_squeeze", "lower", 0.25, "eth1ping",
           (("adaptive", "off"),))),
        "net_rx_action() round-robins the instances with work and stops at netdev_budget "
        "or netdev_budget_usecs; a poll still runs its whole quota once started.",
        "the busy NIC's weight, or the series' adaptive quota (devlink adaptive_quota)",
        plots=(("obs3_eth1_rtt_p99_vs_weight.png", "rtt_p99_ms", "adaptive", "weight"),)),
    Observation(
        "obs4",
        "At moderate traffic a large weight bounces between polling and interrupts; polling "
        "should continue while traffic lasts.",
        {"PROFILES": "udp1470", "LINK": "100mbit", "UDP1470_RATE": "60M", "COST": "100",
         "WEIGHTS": "8 64", "REFILL": "16", "DEFER": "0 2", "REF": "weight=64 defer=0"},
        "A 100 Mbit/s wire offered 60 Mbit/s (about 5100 packets a second, below QEMU's "
        "e1000 interrupt ceiling of about 7800 a second: its mitigation delays are clamped "
        "to at least 128 us), COST 100 so that packets arrive during a poll: interrupts "
        "per packet against weight, and today's answer to \"keep polling while traffic "
        "lasts\", napi_defer_hard_irqs 2 with gro_flush_timeout 20 us, against none.",
        (C("weight", "8", "64", "irq_per_1000", "lower", 0.10, "udp1470",
           (("defer", "0"),), primary=True),
         C("defer", "2", "0", "irq_per_1000", "lower", 0.10, "udp1470", (("weight", "64"),)),
         C("weight", "8", "64", "cpu_us_per_pkt", "lower", 0.10, "udp1470",
           (("defer", "0"),)),
         C("defer", "2", "0", "irq_per_1000", "lower", 0.10, "udp1470", (("weight", "8"),))),
        "napi_defer_hard_irqs and gro_flush_timeout (per device in 6.1) keep a NAPI "
        "instance polling for a number of empty polls before interrupts come back; "
        "interrupt mitigation in the NIC (ITR) bounds the rate anyway.",
        "napi_defer_hard_irqs with gro_flush_timeout, not the weight",
        plots=(("obs4_irq_vs_weight.png", "irq_per_1000", "defer", "weight"),)),
)


def pairs_for(m):
    """The fewest pairs (at least paired.MIN_PAIRS) at which a comparison
    can pass a Holm correction over M: the exact signed-rank test's
    smallest one-sided p at n pairs is 2^-n, so M x 2^-n must be below
    paired.ALPHA (6 pairs cannot pass even over 4 comparisons)."""
    n = paired.MIN_PAIRS
    while m * 2.0 ** -n >= paired.ALPHA:
        n += 1
    return n


# The two families a Holm correction runs over: the observations' primary
# comparisons (their verdicts) and the other comparisons.
PRIMARIES = sum(c.primary for o in OBSERVATIONS for c in o.comparisons)
SECONDARIES = sum(not c.primary for o in OBSERVATIONS for c in o.comparisons)
PRESET["REPS"] = str(pairs_for(max(PRIMARIES, SECONDARIES)))
BY_ID = {o.id: o for o in OBSERVATIONS}
IDS = tuple(BY_ID)


@dataclass(frozen=True)
class Regime:
    knobs: dict


# knobs.py's REGIME=obsN presets
REGIMES = {o.id: Regime(o.knobs) for o in OBSERVATIONS}

# The plan fields a comparison holds equal besides the one it compares.
SETTINGS = ("weight", "refill", "adaptive", "defer", "ring", "fifo", "link", "pin", "cost",
            "weight_eth1", "netdev_budget", "netdev_budget_usecs", "threaded")


# ---- the verdict ----

VERDICTS = schema.ARTICLE_VERDICTS


def decide(ratio, lo, hi, direction, margin, p_holm=None, n=0, measured=True, complete=True):
    """A comparison's verdict from its effect (setting / reference), its 95 %
    interval LO-HI (None: no interval), the article's DIRECTION (lower or
    higher), the equivalence MARGIN and the Holm-corrected one-sided p of
    an effect in that direction (None: not computed, e.g. one comparison)."""
    assert direction in ("lower", "higher"), direction
    if not measured or n == 0:
        return "not measured"
    if not complete:
        return "incomplete"
    if ratio is None or lo is None or hi is None or math.isinf(hi):
        return "inconclusive"
    beyond, against = (hi < 1.0, lo > 1.0) if direction == "lower" else (lo > 1.0, hi < 1.0)
    if beyond and (p_holm is None or p_holm < paired.ALPHA):
        return "reproduced"
    if against:
        return "contrary"
    if 1.0 - margin <= lo and hi <= 1.0 + margin:
        return "refuted"
    return "inconclusive"


# ---- the runs ----

def num(v):
    return _report().num(v)


def value(r, metric):
    """One run's value of METRIC, or None."""
    if metric in PER_1000:
        a, b, _ = PER_1000[metric]
        x, y = num(r.get(a)), num(r.get(b))
        return 1000.0 * x / y if x is not None and y else None
    return _report().value(r, metric)


def columns_of(metric):
    """The runs.csv columns METRIC needs."""
    if metric in PER_1000:
        return PER_1000[metric][:2]
    if metric == "irq_per_1000":
        return ("irqs", "rx_packets")
    return (metric,)


def pid(r):
    return r.get("pair") or "rep-" + r["rep"]


def halves(rows, c):
    """{pair: {"sweep": row, "ref": row}} of the patched runs of C's profile
    (one row per run: a two-NIC run's eth0 row)."""
    by = defaultdict(dict)
    for r in rows:
        if (r["kernel"] == "patched" and r["role"] in ("sweep", "ref")
                and r["profile"] == c.profile and r.get("nic", "") in ("", "eth0")):
            by[pid(r)][r["role"]] = r
    return by


def matches(s, ref, c):
    """Whether a pair (setting half S, reference half REF) is one of C's."""
    return (s[c.knob] == c.setting and ref[c.knob] == c.reference
            and all(s.get(f) == v for f, v in c.where)
            and all(s.get(f) == ref.get(f) for f in SETTINGS if f != c.knob))


def pairs_of(rows, c):
    """[(pair id, setting value, reference value)] of C's pairs with a value
    on both sides."""
    out = []
    for p, h in sorted(halves(rows, c).items()):
        s, ref = h.get("sweep"), h.get("ref")
        if s and ref and matches(s, ref, c):
            a, b = value(s, c.metric), value(ref, c.metric)
            if a is not None and b is not None:
                out.append((p, a, b))
    return out


def excluded_of(all_rows, c):
    """[{kernel, pair, why}]: C's pairs with a half that failed (host-limited
    among them) or is missing: left out."""
    out = []
    for p, h in sorted(halves(all_rows, c).items()):
        s, ref = h.get("sweep"), h.get("ref")
        if not (s and s[c.knob] == c.setting and all(s.get(f) == v for f, v in c.where)):
            continue
        if ref is not None and not matches(s, ref, c):
            continue
        for role, r in (("setting", s), ("reference", ref)):
            if r is None:
                out.append({"kernel": "patched", "pair": p, "why": "no %s run" % role})
            elif r["status"] != "ok":
                out.append({"kernel": "patched", "pair": p, "why": "%s: %s" % (role, r["error"])})
    return out


def load_regime(d):
    """(all rows, ok rows, meta, header) of a regime's sweep, or None when it
    did not run."""
    if not (os.path.isfile(os.path.join(d, "runs.csv"))
            and os.path.isfile(os.path.join(d, "meta.json"))):
        return None
    with open(os.path.join(d, "runs.csv")) as f:
        header = csv.DictReader(f).fieldnames or []
    rows, meta = _report().load(d)
    return rows, [r for r in rows if r["status"] == "ok"], meta, header


def comparison_words(c):
    where = ", ".join("%s %s" % kv for kv in c.where)
    return "%s %s against %s%s" % (c.knob.replace("_", " "), c.setting, c.reference,
                                   " (%s)" % where if where else "")


def records(d):
    """The article's verdict records for the regimes under D (D/obsN/),
    Holm-corrected within each family (primaries, the others) over the
    comparisons with an interval."""
    specs = []
    for o in OBSERVATIONS:
        got = load_regime(os.path.join(d, o.id))
        for c in o.comparisons:
            spec = dict(o=o, c=c, pairs=[], excluded=[], note="", complete=True, measured=True,
                        regime={})
            if got is None:
                spec.update(measured=False, note="%s did not run (no %s/runs.csv)" % (o.id, o.id))
            else:
                all_rows, rows, meta, header = got
                spec["regime"] = meta.get("parameters", {})
                spec["complete"] = _report().complete(meta)
                missing = [col for col in columns_of(c.metric) if col not in header]
                if missing:
                    spec.update(measured=False,
                                note="runs.csv has no column %s" % ", ".join(missing))
                else:
                    spec["pairs"] = pairs_of(rows, c)
                    spec["excluded"] = excluded_of(all_rows, c)
                    if not spec["pairs"]:
                        spec["note"] = "no pair with a value on both sides"
            specs.append(spec)
    judged = []
    for s in specs:
        c = s["c"]
        s["cmp"] = None
        if s["pairs"]:
            s["cmp"] = paired.compare([(a, b) for _, a, b in s["pairs"]],
                                      "<= 1.0x" if c.direction == "lower" else ">= 1.0x",
                                      "count" if c.metric in COUNTS else "ratio")
            if s["cmp"]["ci_low"] is not None and not s["cmp"]["note"] \
                    and not math.isinf(s["cmp"]["ci_high"]):
                judged.append(s)
    # Holm over each family apart: the primaries (one per observation,
    # its verdict) and the other comparisons.
    for family in ([s for s in judged if s["c"].primary],
                   [s for s in judged if not s["c"].primary]):
        for s, p in zip(family, paired.holm([s["cmp"]["p"] for s in family])):
            s["cmp"]["p_holm"] = p
    return [record_of(s) for s in specs]


def record_of(s):
    o, c, k = s["o"], s["c"], s["cmp"]
    ratio = lo = hi = p_holm = None
    note = s["note"]
    if k is not None:
        ratio, lo, hi = verdicts.interval(k["ratio"], k["ci_low"], k["ci_high"])
        p_holm = k.get("p_holm")
        note = k["note"] or note
        if k["note"]:  # every pair equal, or a reference of 0: no interval to judge
            lo = hi = None
        if ratio is not None and lo is None:
            note = note or "%d pairs: no 95 %% interval below %d" % (k["n_pairs"],
                                                                   paired.MIN_PAIRS)
    n = len(s["pairs"])
    v = decide(ratio, lo, hi, c.direction, c.margin, p_holm, n, s["measured"], s["complete"])
    if v == "inconclusive" and lo is not None and p_holm is not None and (
            hi < 1.0 if c.direction == "lower" else lo > 1.0):
        note = note or ("the interval excludes 1 in the article's direction, but the "
                        "Holm-corrected p is %.3g: more pairs decide it (at %d pairs the "
                        "exact test's smallest p is %.3g)" % (p_holm, n, 2.0 ** -n))
    if v == "inconclusive" and note.startswith("baseline 0 in every pair"):
        note = "reference 0 in every pair%s: the event did not occur in this regime" % (
            note[len("baseline 0 in every pair"):].replace("(difference", "(setting - reference"))
    return verdicts.article_record(
        observation=o.id, claim=o.claim, regime=s["regime"], profile=c.profile, knob=c.knob,
        setting=c.setting, reference=c.reference, settings=dict(c.where), metric=c.metric,
        estimator="count" if c.metric in COUNTS else "ratio", direction=c.direction,
        effect=ratio, ci_low=lo, ci_high=hi, margin=c.margin, p_holm=p_holm, pairs=n,
        primary=c.primary, verdict=v, note=note, excluded=s["excluded"])


# ---- summary.md ----

def effect_cell(r):
    if r["effect"] is None:
        return "-"
    if r["ci_low"] is None:
        return "%.3fx (no interval, %d pairs)" % (r["effect"], r["pairs"])
    return "%.3fx [%.3f-%.3f] (%d pairs)" % (r["effect"], r["ci_low"], r["ci_high"], r["pairs"])


def primary_of(recs, obs):
    return next((r for r in recs if r["observation"] == obs and r["primary"]), None)


def summary(recs, metas):
    out = ["# make article: the 2005 article's observations on today's kernel", "",
           "Each comparison pairs two settings of the patched image, back to back in random "
           "order (layout cannot touch it); the effect is setting / reference with its 95 % "
           "interval (bench/paired.py). reproduced: the interval excludes 1 in the "
           "article's direction (Holm-corrected p < 0.05); contrary: it excludes 1 the other "
           "way; refuted: it lies within 1 +- the margin; inconclusive: neither (more pairs "
           "decide it); not measured: no column or no pair. docs/ARTICLE.md says what each "
           "means for today's kernel.", "",
           "| observation | the article (2005) | compared | metric | effect [95 % CI] | "
           "margin | verdict |", "|---|---|---|---|---|---|---|"]
    for o in OBSERVATIONS:
        r = primary_of(recs, o.id)
        out.append("| %s | %s | %s | %s | %s | +-%d %% | **%s** |" % (
            o.id, o.claim, comparison_words(next(c for c in o.comparisons if c.primary)),
            WORDS.get(r["metric"], r["metric"]), effect_cell(r), round(100 * r["margin"]),
            r["verdict"]))
    out += ["", "## Every comparison", "",
            "| observation | profile | compared | metric | predicted | effect [95 % CI] | "
            "p (Holm) | margin | verdict | left out | note |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        c = Comparison(r["knob"], r["setting"], r["reference"], r["metric"], r["direction"],
                       r["margin"], r["profile"], tuple(r["settings"].items()))
        out.append("| %s%s | %s | %s | %s | %s | %s | %s | +-%d %% | %s | %d | %s |" % (
            r["observation"], " (primary)" if r["primary"] else "", r["profile"],
            comparison_words(c), WORDS.get(r["metric"], r["metric"]), r["direction"],
            effect_cell(r), "%.3g" % r["p_holm"] if r["p_holm"] is not None else "-",
            round(100 * r["margin"]), r["verdict"], len(r["excluded"]),
            r["note"].replace("|", "/")))
    out += ["", "## Regimes", ""]
    for o in OBSERVATIONS:
        m = metas.get(o.id)
        state = ("status %s, %s runs planned, git %s" % (
            m.get("status", "?"), m.get("runs_planned", "?"), m.get("git_revision", "?"))
            if m else "not run")
        out += ["- **%s** (%s): %s. Knobs: %s." % (
            o.id, state, o.why.rstrip("."), ", ".join("%s=%s" % kv for kv in o.knobs.items()))]
    return out + [""]


# ---- plots ----

def plot_rows(d, obs):
    got = load_regime(os.path.join(d, obs))
    if got is None:
        return None, []
    _, rows, _, header = got
    return header, [r for r in rows if r["kernel"] == "patched" and r["role"] in ("sweep", "ref")
                    and r.get("nic", "") in ("", "eth0")]


def plots(d):
    """The article's plots in D; returns (made, skipped lines)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made, skipped = [], []
    for o in OBSERVATIONS:
        for name, metric, series, x in o.plots:
            header, rows = plot_rows(d, o.id)
            if header is None:
                skipped.append("%s: skipped, %s did not run" % (name, o.id))
                continue
            metrics = (["fifo_drops_per_1000", "ring_exhausted_per_1000", "dry_polls_per_1000"]
                       if metric == "drops" else [metric])
            need = {col for m in metrics for col in columns_of(m)} | {x, series}
            missing = sorted(need - set(header))
            if missing:
                skipped.append("%s: skipped, runs.csv has no column %s" % (
                    name, ", ".join(missing)))
                continue
            fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 4),
                                     squeeze=False)
            for ax, m in zip(axes[0], metrics):
                for key, runs in sorted(_report().group(rows, (series,)).items()):
                    pts = [(num(r.get(x)), value(r, m)) for r in runs]
                    pts = [(a, b) for a, b in pts if a is not None and b is not None]
                    if not pts:
                        continue
                    xs = sorted({a for a, _ in pts})
                    med = [statistics.median(b for a, b in pts if a == v) for v in xs]
                    line, = ax.plot(xs, med, marker="_", ms=12,
                                    label="%s %s (median)" % (series, key[0]))
                    ax.scatter([a for a, _ in pts], [b for _, b in pts], s=10, alpha=0.6,
                               color=line.get_color())
                if x == "weight":
                    ax.set_xscale("log", base=2)
                ax.set_xlabel(x.replace("_", " ") + (" (eth0)" if o.id == "obs3" else ""))
                ax.set_ylabel(WORDS.get(m, m))
                ax.set_title("%s: %s" % (o.id, WORDS.get(m, m)), fontsize=9)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=7)
            _report().save(plt, fig, d, name, made)
    return made, skipped


# ---- the report ----

def write_report(d, with_plots=True):
    recs = records(d)
    verdicts.write(d, recs)
    recs = verdicts.load(os.path.join(d, "verdicts.json"))  # the cells come from the file
    metas = {}
    for o in OBSERVATIONS:
        p = os.path.join(d, o.id, "meta.json")
        if os.path.isfile(p):
            with open(p) as f:
                metas[o.id] = json.load(f)
    md = summary(recs, metas)
    if with_plots:
        try:
            made, skipped = plots(d)
            md += ["## Plots", ""] + ["![%s](%s)" % (m, m) for m in made] + [""]
            md += ["- %s" % s for s in skipped] + ([""] if skipped else [])
        except ImportError as e:
            md += ["(no plots: %s)" % e, ""]
    _report().write_summary(d, md)
    return recs, md


# ---- the running time ----

def regime_env(obs, env=None):
    """The environment of OBS's sweep: the user's knobs, ARTICLE=1, REGIME."""
    e = dict(os.environ if env is None else env)
    e.update(ARTICLE="1", REGIME=obs)
    return e


def plan_lines(arg, env):
    p = subprocess.run([sys.executable, os.path.join(BENCH, "plan.py"), arg], env=env,
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("article: plan.py %s: %s" % (arg, p.stderr.strip()))
    lines = p.stdout.splitlines()
    return [dict(zip(lines[0].split("\t"), ln.split("\t"))) for ln in lines[1:]] if lines else []


def estimate(obs, env=None):
    """(runs, seconds) OBS's sweep is expected to take (REPS=auto: its
    MAX_REPS)."""
    import knobs
    e = regime_env(obs, env)
    e.setdefault("BENCH_SEED", "1")
    if not e["BENCH_SEED"]:
        e["BENCH_SEED"] = "1"
    reps = knobs.value(e, "REPS")
    reps = int(knobs.value(e, "MAX_REPS") if reps == "auto" else reps)
    secs = int(knobs.value(e, "SECS"))
    runs = plan_lines("1", e) * reps + plan_lines("sat", e)
    import profiles
    total = BOOT_S + sum(secs + RUN_OVERHEAD_S + (1 if profiles.PROFILES[r["profile"]].tcp else 0)
                         for r in runs)
    return len(runs), total


def selected(env=None):
    import knobs
    return knobs.value(dict(os.environ if env is None else env), "OBS").split()


def minutes(s):
    return "%dm%02ds" % (s // 60, s % 60)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "regimes" and len(argv) == 2:
        print(" ".join(selected()))
        return 0
    if cmd == "estimate" and len(argv) in (2, 3) and argv[2:] in ([], ["--total"]):
        n_all = s_all = 0
        for o in selected():
            n, s = estimate(o)
            n_all, s_all = n_all + n, s_all + s
            print("%s %d %d" % (o, n, s) if argv[2:] else
                  "%s: %d runs, about %s" % (o, n, minutes(s)))
        print("total %d %d" % (n_all, s_all) if argv[2:] else
              "make article: %d runs, about %s on the README's 2-core machine "
              "(SECS + %d s a run, %d s per regime to boot)" % (
                  n_all, minutes(s_all), RUN_OVERHEAD_S, BOOT_S))
        return 0
    if cmd == "report" and len(argv) in (3, 4) and argv[3:] in ([], ["--no-plots"]):
        d = argv[2]
        if not os.path.isdir(d):
            print("article: %s is not a directory" % d, file=sys.stderr)
            return 2
        recs, md = write_report(d, with_plots=not argv[3:])
        print("\n".join(md[:md.index("## Every comparison")]))
        print("article: %s" % os.path.join(d, "summary.md"))
        return 0
    print("usage: article.py regimes | estimate [--total] | report DIR [--no-plots]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

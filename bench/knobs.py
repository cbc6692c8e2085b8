#!/usr/bin/env python3
"""Every knob of the lab's make targets, once: its name, kind, allowed
values, default and one line of doc. From this table come the checks before
anything runs (bench/args.sh), the values bench/run.sh runs with, the
parameters meta.json records (bench/meta.py), `make help` and the knob
table of docs/bench.md.

    knobs.py check MODE    MODE's knobs (lab, bench, report, soak, race) as
                           the environment holds them: one line on stderr per
                           bad value, exit status 2; nothing is written
    knobs.py resolve       check bench's knobs, then print every one as a
                           NAME=value line: the user's value, else the preset's
                           (QUICK=1: plain make; AA=1: make aa), else the
                           default; then the DERIVED facts (bench/run.sh reads
                           the lines and assigns them, never evaluates them)
    knobs.py help          the knobs, their values and defaults (make help)
    knobs.py table [--update FILE]   the Markdown table of docs/bench.md
                           (--update: rewrite it between FILE's markers)

Values come from the environment (make exports every knob, empty when not
given: empty means unset, the default applies) and are only compared,
never evaluated.
"""
import os
import random
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import article  # noqa: E402
import profiles  # noqa: E402
import schema  # noqa: E402
from paired import MIN_PAIRS  # noqa: E402

# The modes of bench/args.sh: which knobs each target checks. Every mode but
# report checks the lab's knobs too.
MODES = ("lab", "bench", "report", "soak", "race")
# The kernel trees (qemu/lib/tree.sh's LAB_TREES), in the order a sweep of
# both compares them: the second against the first.
LINUX_TREES = ("6.1", "6.12")

NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str        # num, nums, word, words, rate, links, burst, reps, order, refs, newdir,
                     # resultsdir
    allowed: tuple   # (lo, hi) for num and nums; the words for word, words, order
    default: object  # a string, "" (unset), or None (computed when it runs)
    doc: str
    mode: str = "bench"   # where it is checked (lab: every target that boots)
    meta: str = ""        # meta.json's parameters: always, nics2, changed, nics2-or-changed
    computed: str = ""    # what a default of None or "" is, for help and the doc


# REF's FIELD=VALUE words: the plan fields a reference may set, and the knob
# whose allowed values its VALUE must have.
REF_FIELDS = {"weight": "WEIGHTS", "refill": "REFILL", "adaptive": "ADAPTIVE",
              "defer": "DEFER", "weight_eth1": "WEIGHTS_ETH1", "threaded": "THREADED",
              "netdev_budget": "NETDEV_BUDGET", "netdev_budget_usecs": "NETDEV_BUDGET_USECS"}

K = Knob
TABLE = (
    # In the order meta.json records them (bench/meta.py), then the rest;
    # mode lab: every target that boots (qemu/lib/lab.sh applies them)
    K("WEIGHTS", "nums", (1, 64), "4 8 16 32 64", "sysfs weight of the patched e1000 (eth0)",
      meta="always"),
    K("REFILL", "nums", (0, 4096), "0 16", "rx_refill_batch (0: after the poll), at most RING",
      meta="always"),
    K("ADAPTIVE", "words", ("on", "off"), "off", "adaptive quota (devlink adaptive_quota)",
      meta="always"),
    K("DEFER", "nums", (0, 1000), "0", "napi_defer_hard_irqs (gro_flush_timeout 20 us when > 0)",
      meta="always"),
    K("RING", "nums", (48, 4096), "256", "RX ring size (ethtool -G)", meta="always"),
    K("FIFO", "nums", (1, 100000), "32", "tap txqueuelen in frames, the NIC's FIFO (bench: an axis)",
      "lab", "always"),
    K("LINK", "links", (), "1gbit", "host-side pacing of the tap (a tbf rate like 1gbit) or none",
      meta="always"),
    K("LINK_BURST", "burst", (), "3kb",
      "the tbf bucket: bytes that may leave back to back (3kb: frame by frame)", meta="always"),
    K("BOOT_ORDER", "order", ("patched baseline", "baseline patched"), "patched baseline",
      "which guest boots first (to check the two slots)", meta="always"),
    K("PROFILES", "words", profiles.KNOB_NAMES, " ".join(profiles.DEFAULT),
      "the traffic (bench/profiles.py; %s and %s need two NICs)" % (
          ", ".join(profiles.TWO_NIC[:-1]), profiles.TWO_NIC[-1]),
      meta="always"),
    K("REPS", "reps", (1, 400), "3",
      "repetitions (pairs), or auto: MIN_REPS, then one more until every goal is decided"
      " (make aa: until every A/A metric is within its aim)",
      meta="always"),
    K("BOOTS", "num", (1, 200), "1",
      "boots of each guest: the repetitions run in BOOTS blocks, both guests booted again"
      " before each, the boot order alternating; BOOTS > 1 makes the boot the unit of every"
      " interval (%d boots for one)" % MIN_PAIRS, meta="changed"),
    K("CALIB", "word", ("0", "1"), "1",
      "calibration runs (ring 4096, %s) per CALIB_PINS layout" % profiles.CALIB, meta="always"),
    K("CALIB_PINS", "words", ("none", "split", "client-on-vcpu"), "none split client-on-vcpu",
      "the calibration's CPU layouts", meta="always"),
    K("PIN", "word", ("none", "split", "client-on-vcpu", "0", "1"), "split",
      "the sweep's CPU layout (1: split, 0: none)", meta="always"),
    K("HIST", "word", ("0", "1"), "1",
      "per repetition, %s at the defaults with the %s histogram" % (
          " and ".join(profiles.HIST), profiles.HIST_TRACEPOINT.split(":")[1]),
      meta="always"),
    K("REF", "refs", (), "",
      "pair every patched setting with the patched image at FIELD=VALUE (one of %s), "
      "not with the baseline: layout cannot touch the comparison" % ", ".join(REF_FIELDS),
      meta="changed", computed="unset: the baseline twin"),
    K("WEIGHTS_ETH1", "nums", (1, 64), profiles.BASELINE_WEIGHT_ETH1,
      "eth1's weight in the two-NIC profiles (baseline: %s)" % profiles.BASELINE_WEIGHT_ETH1,
      meta="nics2"),
    K("COST", "nums", (0, 100000), "0",
      "rules of an nftables chain eth0's packets walk (bench: an axis of every profile)",
      "lab", "nics2-or-changed"),
    K("NICS", "word", ("1", "2"), "1", "NICs per guest; the two-NIC profiles set 2", "lab", "nics2"),
    K("SAT_OFFER", "rate", (), "1000M",
      "the saturation runs' and the two-NIC floods' offered rate", meta="nics2"),
    K("TARGET", "word", ("fixed", "weight", "per-weight"), "fixed",
      "share-adaptive's poll targets: the driver's, by weight share, or per unit of weight",
      meta="changed"),
    K("POLL_TRACE", "word", ("0", "1", "2"), "1",
      "trace the patched guest's polls: 1 in the two-NIC profiles (the CPU shares), 2 in every"
      " profile (hw_min; costs MMIO reads per refill)", meta="changed"),
    K("ROUTER_PDR", "word", ("0", "1"), "1",
      "every %s run ends with its %s search" % (profiles.ROUTER, schema.PDR), meta="changed"),
    # net_rx_action()'s limits and threaded NAPI (issue 21, observation 2):
    # guest settings of every run, axes shared by a pair's two runs
    # (bench/plan.py), applied by the guest's benchsys
    K("NETDEV_BUDGET", "nums", (1, 100000), "300",
      "net.core.netdev_budget: packets one NET_RX softirq run may take over all NAPI"
      " instances (6.1: 300)", meta="changed"),
    K("NETDEV_BUDGET_USECS", "nums", (schema.BUDGET_USECS_MIN, 1000000),
      str(schema.BUDGET_USECS_MIN),
      "net.core.netdev_budget_usecs: that run's time limit, counted in whole jiffies (%d us at"
      " HZ=%d); 6.1 defaults to 2 jiffies and refuses less" % (
          1000000 // schema.GUEST_HZ, schema.GUEST_HZ), meta="changed"),
    K("THREADED", "words", ("0", "1"), "0",
      "threaded NAPI (/sys/class/net/<dev>/threaded) on the guest's NICs: polls in a kthread,"
      " not the softirq", meta="changed"),
    K("WAKEUP", "word", ("0", "1"), "0",
      "the application wake-up probe (1 ms, SCHED_OTHER) in the guest during every run"
      " (wake_* columns); its wake-ups take vCPU time from the softirq, so off by default"
      " (make article: 1)", meta="changed"),
    K("LAYOUT", "word", ("aligned", "plain"), "aligned",
      "the compared kernels' code layout: functions page-aligned at -O2, or tinyconfig's -Os",
      "lab", "changed"),
    K("LINUX", "words", LINUX_TREES, "6.1",
      "the kernel tree built, booted and compared: Debian's linux-source-6.1 (patches/) or"
      " linux-source-6.12 (patches/6.12/, build/kernel-6.12, ...); make soak and race: 6.1;"
      ' make bench LINUX="6.1 6.12": both trees\' four kernels in one paired sweep',
      "lab", "changed"),
    K("PAD", "num", (16, 1048576), "",
      "the layout A/A: bytes of text linked first in the baseline's twin (make aa PAD=N)", "lab", "changed", "unset; make baseline-pad: 6144"),
    K("ACCEL", "word", ("tcg", "kvm"), "tcg", "QEMU's accelerator", "lab"),
    K("VCPUS", "num", (1, 16), "1", "the guest's vCPUs (make soak, make race: 2)", "lab"),
    K("MEM", "num", (128, 16384), "512", "the guest's memory in MiB (make soak, make race: 1024)",
      "lab"),
    K("BOOT_TIMEOUT", "num", (10, 3600), "60", "seconds a guest may take to boot", "lab"),
    K("CHURN_SECS", "num", (1, 3600), "30", "make test: seconds of knob churn under traffic", "lab"),
    K("SECS", "num", (1, 3600), "5", "seconds per run (TCP: 1 s of slow start more)", "lab"),
    K("TCG_THREAD", "word", ("multi", "single"), "multi",
      "TCG's threads: one per vCPU, or one for all", "lab"),
    K("LAB_LOCK_WAIT", "num", (0, 86400), "0", "seconds to queue behind another lab run", "lab"),
    K("MIN_REPS", "num", (1, 100), str(MIN_PAIRS),
      "REPS=auto: the repetitions first run (the fewest pairs with a 95 % interval)"),
    K("MAX_REPS", "num", (1, 100), "12", "REPS=auto: the most repetitions"),
    K("SAT_REPS", "num", (0, 100), "3", "saturation runs per kernel (0: give UDP1470_RATE)"),
    K("UDP1470_RATE", "rate", (), "", "udp1470's offered rate",
      computed="half the baseline's measured saturation"),
    K("UDP64_RATE", "rate", (), "20M", "udp64's offered rate"),
    K("BENCH_SEED", "num", (0, 2147483647), None, "the pairs' order (meta.json records it)",
      computed="random"),
    K("OUT", "newdir", (), None, "the results directory; must not exist",
      computed="results/<UTC stamp>"),
    K("AA", "word", ("0", "1"), "0", "the baseline in both slots (set by make aa)"),
    K("OBS", "words", article.IDS, " ".join(article.IDS),
      "make article: the article's observations whose regimes run, in order"),
    K("ARTICLE", "word", ("0", "1"), "0", "make article's settings (set by make article)"),
    K("REGIME", "word", article.IDS, "",
      "the article regime a sweep runs (set by make article, one sweep per observation)",
      meta="changed", computed="unset"),
    K("QUICK", "word", ("0", "1"), "0", "the goals at the defaults, paired (set by plain make)"),
    K("R", "resultsdir", (), None, "the results directory to re-render", "report",
      computed="required"),
    K("SOAK_SECS", "num", (60, 86400), "600", "the soak's seconds", "soak"),
    K("SOAK_SEED", "num", (0, 32767), None, "the soak's random choices", "soak",
      computed="random"),
    K("WHAT", "word", ("tp", "down"), None, "which race (tp or down)", "race", computed="required"),
    K("RACE_SECS", "num", (10, 86400), "120", "the race's seconds", "race"),
)
KNOBS = {k.name: k for k in TABLE}

# Presets, applied in this order to the knobs left unset, before the
# defaults: QUICK=1 (plain make), AA=1 (make aa) and ARTICLE=1 (make
# article's every regime). Before them all, REGIME=obsN: that observation's
# regime (bench/article.py's REGIMES).
PRESETS = (
    ("QUICK", {"WEIGHTS": profiles.BASELINE["weight"], "REFILL": profiles.BASELINE["refill"],
               "PROFILES": " ".join(profiles.QUICK_PROFILES), "SECS": "4", "REPS": "auto",
               "MAX_REPS": "8", "CALIB": "0", "CALIB_PINS": "split", "HIST": "0", "SAT_REPS": "2"}),
    ("AA", {"WEIGHTS": profiles.BASELINE["weight"], "REFILL": profiles.BASELINE["refill"],
            "ADAPTIVE": profiles.BASELINE["adaptive"],
            "PROFILES": " ".join(profiles.AA_PROFILES), "CALIB": "0", "HIST": "0", "SAT_REPS": "2",
            "REPS": "auto", "MIN_REPS": "20", "MAX_REPS": "80"}),
    ("ARTICLE", article.PRESET),
)

# What resolve prints after the knobs: facts of the profiles swept, and the
# baseline triple (bench/profiles.py), which eth1 keeps when idle.
DERIVED = ("BENCH_RATE_NEEDED", "BENCH_ROUTER", "BASELINE_WEIGHT", "BASELINE_REFILL",
           "BASELINE_ADAPTIVE")

LIST_KINDS = ("nums", "words", "links", "refs")


def modes_of(mode):
    """The knob modes checked by MODE."""
    return {"lab": ("lab",), "bench": ("lab", "bench"), "report": ("report",),
            "soak": ("lab", "soak"), "race": ("lab", "race")}[mode]


def number_error(name, v, lo, hi):
    if not NUMBER.fullmatch(v):
        return "%s: '%s' is not a decimal number (digits only, no leading zero)" % (name, v)
    if not lo <= int(v) <= hi:
        return "%s: %s is outside %d..%d" % (name, v, lo, hi)
    return None


def value_error(k, v):
    """Why the set value V of knob K is bad (one line), or None."""
    n, w = k.name, v.split()
    if k.kind in LIST_KINDS and not w:
        return "%s: empty list" % n
    if k.kind not in LIST_KINDS + ("order",) and len(w) > 1:
        return "%s: one value, not '%s'" % (n, v)
    if k.kind == "num":
        err = number_error(n, v, *k.allowed)
        if not err and n == "PAD" and int(v) % 16:
            err = "PAD: %s is not a multiple of 16" % v
        return err
    if k.kind == "nums":
        return next(filter(None, (number_error(n, x, *k.allowed) for x in w)), None)
    if k.kind in ("word", "words"):
        bad = [x for x in w if x not in k.allowed]
        return "%s: '%s' is not one of: %s" % (n, bad[0], " ".join(k.allowed)) if bad else None
    if k.kind == "rate":
        if not re.fullmatch(r"[1-9][0-9]{0,5}M", v):
            return "%s: a rate in Mbit/s like 150M, not '%s'" % (n, v)
    elif k.kind == "links":
        bad = [x for x in w if x != "none" and not re.fullmatch(r"[1-9][0-9]{0,5}[kmg]?bit", x)]
        if bad:
            return "%s: none or a tc rate like 1gbit, not '%s'" % (n, bad[0])
    elif k.kind == "burst":
        m = re.fullmatch(r"([1-9][0-9]{0,5})kb", v)
        if not m or int(m.group(1)) < 2:
            return ("%s: a tc size of at least 2kb (one frame must fit), like 3kb or 64kb, "
                    "not '%s'" % (n, v))
    elif k.kind == "refs":
        seen = set()
        for x in w:
            f, eq, val = x.partition("=")
            if not eq or f not in REF_FIELDS:
                return "%s: FIELD=VALUE with FIELD one of %s, not '%s'" % (
                    n, " ".join(REF_FIELDS), x)
            if f in seen:
                return "%s: %s given twice" % (n, f)
            seen.add(f)
            err = value_error(KNOBS[REF_FIELDS[f]], val)
            if err:
                return "%s: %s: %s" % (n, x, err.split(": ", 1)[1])
    elif k.kind == "reps":
        if v == "auto":
            return None
        if not re.fullmatch(r"[0-9]+", v):
            return "%s: a number of repetitions or auto, not '%s'" % (n, v)
        return number_error(n, v, *k.allowed)
    elif k.kind == "order":
        if v not in k.allowed:
            return '%s: %s, not \'%s\'' % (n, " or ".join('"%s"' % a for a in k.allowed), v)
    elif k.kind in ("newdir", "resultsdir"):
        if not re.fullmatch(r"[A-Za-z0-9._/-]+", v):
            return "%s: '%s' has characters outside [A-Za-z0-9._/-]" % (n, v)
        if k.kind == "newdir" and os.path.lexists(v):
            return "%s: %s exists: give a new directory (rows of two sweeps would mix)" % (n, v)
        if k.kind == "resultsdir" and not os.path.isdir(v):
            return "%s: %s is not a directory" % (n, v)
        if k.kind == "resultsdir" and not all(os.path.isfile(os.path.join(v, f))
                                              for f in ("runs.csv", "meta.json")):
            return "%s: %s is not a results directory (no runs.csv and meta.json)" % (n, v)
    return None


def given(env, name):
    """The user's value of NAME, or "" (unset: make exports it empty)."""
    return env.get(name, "")


def preset_value(env, name):
    """What REGIME=obsN, QUICK=1, AA=1 or ARTICLE=1 gives NAME when the user
    did not, or None."""
    regime = article.REGIMES.get(given(env, "REGIME"))
    if regime is not None and name in regime.knobs:
        return regime.knobs[name]
    for switch, values in PRESETS:
        if given(env, switch) == "1" and name in values:
            return values[name]
    return None


def value(env, name):
    """NAME's value: the user's, the preset's, or the default (None: computed
    when it runs); a list's words joined by one space."""
    k = KNOBS[name]
    v = given(env, name) or preset_value(env, name)
    if v is None or v == "":
        return k.default
    if k.kind == "order":
        return v
    if name == "PIN":  # PIN=1 means split, PIN=0 none
        return {"1": "split", "0": "none"}.get(v.strip(), v.strip())
    return " ".join(v.split())


def cross_errors(mode, env, bad):
    """The checks between knobs (each only when its knobs are good)."""
    errs = []

    def ok(*names):
        return not bad.intersection(names)

    def v(name):
        return value(env, name)

    if mode == "report" and not given(env, "R"):
        errs.append("usage: make report R=results/<stamp> (a directory the bench wrote)")
    if mode == "race" and not given(env, "WHAT"):
        errs.append("WHAT: say which race, WHAT=tp or WHAT=down")
    trees = value(env, "LINUX").split() if ok("LINUX") else []
    if len(trees) > 1:
        if len(set(trees)) != len(trees):
            errs.append("LINUX: a tree named twice in '%s'" % " ".join(trees))
        elif mode != "bench" or any(v(s) == "1" for s in ("AA", "QUICK", "ARTICLE")):
            errs.append('LINUX: one tree here, not "%s" (only make bench compares two: '
                        'make bench LINUX="%s")' % (" ".join(trees), " ".join(LINUX_TREES)))
        elif trees != list(LINUX_TREES):
            errs.append('LINUX: two trees in the order "%s", not "%s" (the first is the '
                        'reference of the ratios)' % (" ".join(LINUX_TREES), " ".join(trees)))
    if mode in ("soak", "race") and len(trees) == 1 and trees[0] != "6.1":
        errs.append("LINUX: make %s builds its debug kernel from 6.1 only, not %s"
                    % (mode, value(env, "LINUX")))
    if mode != "bench":
        return errs
    if given(env, "REFILL") and ok("REFILL", "RING"):
        for n in v("REFILL").split():
            over = [r for r in v("RING").split() if int(n) > int(r)]
            if over:
                errs.append("REFILL: %s exceeds RING %s" % (n, over[0]))
                break
    two = profiles.two_nic(v("PROFILES").split())
    if given(env, "NICS") == "1" and two and ok("NICS", "PROFILES"):
        errs.append("NICS: profile %s needs two NICs, not NICS=1" % two)
    if v("REPS") == "auto" and ok("REPS", "MIN_REPS", "MAX_REPS") \
            and int(v("MIN_REPS")) > int(v("MAX_REPS")):
        errs.append("MIN_REPS %s exceeds MAX_REPS %s" % (v("MIN_REPS"), v("MAX_REPS")))
    if v("BOOTS") != "1" and ok("BOOTS", "REPS"):
        if v("REPS") == "auto":
            errs.append("BOOTS: %s boots need a number of repetitions, not REPS=auto"
                        % v("BOOTS"))
        elif int(v("BOOTS")) > int(v("REPS")):
            errs.append("BOOTS: %s boots exceed REPS %s (every boot runs a repetition or more)"
                        % (v("BOOTS"), v("REPS")))
    if v("BOOTS") != "1" and ok("BOOTS", "LINUX", "ARTICLE") \
            and (v("ARTICLE") == "1" or len(v("LINUX").split()) > 1):
        errs.append("BOOTS: make bench or make aa on one tree only (make article and a sweep"
                    " of two trees boot once)")
    if given(env, "PAD") and ok("PAD", "AA") and v("AA") != "1":
        errs.append("PAD: only for the layout A/A (make aa PAD=N), not for a patched/baseline sweep")
    if v("REF") and ok("REF", "RING"):
        for x in v("REF").split():
            f, _, val = x.partition("=")
            over = [r for r in v("RING").split() if f == "refill" and int(val) > int(r)]
            if over:
                errs.append("REF: refill=%s exceeds RING %s" % (val, over[0]))
    if v("REF") and ok("REF", "AA") and v("AA") == "1":
        errs.append("REF: the A/A pairs the baseline with itself, not with a reference setting")
    if v("SAT_REPS") == "0" and not v("UDP1470_RATE") and ok("SAT_REPS", "PROFILES", "HIST") \
            and profiles.needs_udp1470_rate(v("PROFILES").split(), v("HIST") == "1"):
        errs.append("SAT_REPS=0 needs UDP1470_RATE (the udp1470 load is half the measured "
                    "saturation)")
    return errs


def check(mode, env):
    """Every bad value of MODE's knobs in ENV, one line each (without the
    "MODE: " prefix)."""
    errs, bad = [], set()
    for k in TABLE:
        if k.mode in modes_of(mode) and given(env, k.name):
            err = value_error(k, given(env, k.name))
            if err:
                errs.append(err)
                bad.add(k.name)
    return errs + cross_errors(mode, env, bad)


def resolve(env):
    """The bench's knobs and DERIVED facts as (name, value) pairs."""
    out = []
    for k in TABLE:
        if k.mode not in ("lab", "bench"):
            continue
        v = value(env, k.name)
        if k.name == "BENCH_SEED" and v is None:
            v = str(random.SystemRandom().randrange(2 ** 30))
        elif k.name == "NICS" and profiles.two_nic(value(env, "PROFILES").split()):
            v = "2"
        out.append((k.name, v or ""))
    words = value(env, "PROFILES").split()
    out.append(("BENCH_RATE_NEEDED",
                "1" if profiles.needs_udp1470_rate(words, value(env, "HIST") == "1") else "0"))
    out.append(("BENCH_ROUTER", "1" if profiles.ROUTER in words else "0"))
    out += [("BASELINE_" + k.upper(), v) for k, v in profiles.BASELINE.items()]
    return out


def meta_parameters(env):
    """meta.json's "parameters": the knobs that decide what a sweep measured
    (always), those of the two-NIC profiles (when NICS=2) and those that
    change it only when not at their default. ENV holds resolved values."""
    nics2 = env.get("NICS") == "2"
    out = {}
    for k in TABLE:
        v = env.get(k.name, "")
        changed = v != (k.default or "")
        if (k.meta == "always" or (k.meta == "nics2" and nics2)
                or (k.meta == "changed" and changed)
                or (k.meta == "nics2-or-changed" and (nics2 or changed))):
            out[k.name] = v
    return out


def describe(k):
    """A knob's values in words: 1..64 (list), tcg|kvm, ..."""
    if k.kind in ("num", "nums"):
        s = "%d..%d" % k.allowed
    elif k.kind in ("word", "words", "order"):
        s = "|".join(k.allowed) if k.kind != "order" else " | ".join(k.allowed)
    else:
        s = {"rate": "Mbit/s like 150M", "links": "none or a tc rate like 1gbit",
             "burst": "a tc size >= 2kb", "reps": "1..400 or auto",
             "refs": "FIELD=VALUE words",
             "newdir": "a new directory", "resultsdir": "a results directory"}[k.kind]
    if k.name == "PAD":
        s += ", a multiple of 16"
    return s + (" (list)" if k.kind in LIST_KINDS else "")


def default_text(k):
    return k.default if k.default else "(%s)" % (k.computed or "unset")


TARGETS = {"lab": "every target that boots", "bench": "make, make bench, make aa, make article",
           "report": "make report", "soak": "make soak", "race": "make race"}


def help_text():
    out = []
    for mode in ("lab", "bench", "report", "soak", "race"):
        out.append("%s knobs (%s):" % (mode, TARGETS[mode]))
        for k in TABLE:
            if k.mode == mode:
                out.append("  %-13s %-26s %s; %s" % (k.name, default_text(k), describe(k), k.doc))
    out.append("presets (knobs left unset): " + "; ".join(
        "%s=1 %s" % (s, " ".join("%s=%s" % (n, v if " " not in v else '"%s"' % v)
                                 for n, v in values.items())) for s, values in PRESETS))
    out.append("make article's regimes (before ARTICLE=1; bench/article.py): " + "; ".join(
        "REGIME=%s %s" % (i, " ".join("%s=%s" % (n, v if " " not in v else '"%s"' % v)
                                      for n, v in r.knobs.items()))
        for i, r in article.REGIMES.items()))
    return "\n".join(out)


MARK_BEGIN = "<!-- knobs table: generated by bench/knobs.py table; do not edit -->"
MARK_END = "<!-- end of the knobs table -->"


def md(s):
    return s.replace("|", "\\|")


def table():
    out = ["| knob | targets | values | default | what |", "|---|---|---|---|---|"]
    for k in sorted(TABLE, key=lambda k: MODES.index(k.mode)):
        out.append("| `%s` | %s | %s | %s | %s |" % (
            k.name, TARGETS[k.mode], md(describe(k)),
            "`%s`" % k.default if k.default else "(%s)" % k.computed if k.computed else "(unset)",
            md(k.doc)))
    for s, values in PRESETS:
        out.append("")
        out.append("%s=1 (%s) presets, for the knobs left unset: %s." % (
            s, {"QUICK": "plain `make`", "AA": "`make aa`"}.get(s, "`make article`"),
            ", ".join("`%s=%s`" % kv for kv in values.items())))
    for i, r in article.REGIMES.items():
        out.append("")
        out.append("REGIME=%s (`make article`, before ARTICLE=1): %s." % (
            i, ", ".join("`%s=%s`" % kv for kv in r.knobs.items())))
    return "\n".join(out)


def doc_block(text):
    """The table between the markers of a document's text, or None."""
    if MARK_BEGIN not in text or MARK_END not in text:
        return None
    return text.split(MARK_BEGIN, 1)[1].split(MARK_END, 1)[0].strip("\n")


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "check" and len(argv) == 3 and argv[2] in MODES:
        errs = check(argv[2], os.environ)
        for e in errs:
            print("%s: %s" % (argv[2], e), file=sys.stderr)
        return 2 if errs else 0
    if cmd == "resolve" and len(argv) == 2:
        errs = check("bench", os.environ)
        for e in errs:
            print("bench: %s" % e, file=sys.stderr)
        if errs:
            return 2
        for name, v in resolve(os.environ):
            if "\n" in v or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
                print("bench: %s: a value on more than one line" % name, file=sys.stderr)
                return 2
            print("%s=%s" % (name, v))
        return 0
    if cmd == "help" and len(argv) == 2:
        print(help_text())
        return 0
    if cmd == "table" and len(argv) == 2:
        print(table())
        return 0
    if cmd == "table" and len(argv) == 4 and argv[2] == "--update":
        text = open(argv[3]).read()
        if doc_block(text) is None:
            print("knobs.py: %s has no knobs table markers" % argv[3], file=sys.stderr)
            return 1
        head, rest = text.split(MARK_BEGIN, 1)
        with open(argv[3], "w") as f:
            f.write(head + MARK_BEGIN + "\n" + table() + "\n" + MARK_END + rest.split(MARK_END, 1)[1])
        return 0
    print("usage: knobs.py check lab|bench|report|soak|race | resolve | help | "
          "table [--update FILE]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Report of a bench run: summary.md and PNG plots from runs.csv + meta.json.

    report.py [--no-plots] RESULTS_DIR

Re-runnable at any time without measuring again. Every figure is a median
over the repetitions with [min-max] beside it; the patched kernel is always
shown beside the baseline measured in the same run. Runs with status failed
are left out of every figure and counted in the n column (n=ok/recorded); a
sweep whose meta.json status is not complete gets a summary that begins
**INCOMPLETE: K of N runs** and goals whose verdict is "incomplete".
summary.md is written whole or not at all.
"""
import csv
import json
import math
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knobs  # noqa: E402
import paired  # noqa: E402
import profiles  # noqa: E402
import row  # noqa: E402
import schema  # noqa: E402
import verdicts  # noqa: E402

PDR = schema.PDR  # "PDR 0.1 %"
BASE = profiles.BASELINE  # the baseline triple, also the patched kernel's defaults

CONFIG = ("kernel", "role", "weight", "refill", "adaptive", "idle_limit",
          "defer", "ring", "fifo", "link", "cost")
ENV = ("defer", "ring", "fifo", "link", "cost")  # what the baseline shares
BASE_CONFIG, BASE_ENV = CONFIG, ENV
# The guest's softirq settings (runs.csv column <- knob), environment of a
# pair like COST: part of CONFIG and ENV in the sweeps that set one of them
# other than its default (load()), so that the others group, render and
# label their records as before.
SOFTIRQ = tuple(zip(row.SOFTIRQ_COLUMNS, ("NETDEV_BUDGET", "NETDEV_BUDGET_USECS", "THREADED")))
DROPS = (("fifo_drops", "FIFO (tap)"), ("link_drops", "host link (tbf qdisc)"),
         ("rx_missed", "ring (NIC missed)"), ("softnet_drops", "softnet backlog"),
         ("sock_drops", "socket"))


def unattributed(r):
    """UDP: datagrams iperf3 counted lost that no counter of a place saw
    (zero-loss runs: see zeroloss_table, which attributes their trials).

    Signed: FIFO drops also count the few frames of iperf3's control
    connection, and the receiver does not count the tail of a run as lost.
    """
    lost = num(r.get("lost"))
    if lost is None or not r.get("sent") or profiles.is_zero_loss(r["profile"]):
        return None  # a zero-loss row's lost is its last passing trial's
    return lost - sum(num(r.get(k)) or 0 for k, _ in DROPS)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def stats(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def fmt(s, digits=0):
    if s is None:
        return "-"
    f = "%%.%df" % digits
    return "%s [%s-%s]" % (f % s[0], f % s[1], f % s[2])


def per(r, key, den, scale=1.0):
    """scale x key / den of one run, or None where either is missing or
    den is 0."""
    d = num(r.get(den))
    k = num(r.get(key))
    return scale * k / d if d and k is not None else None


def per_1000(r, key):
    return per(r, key, "rx_packets", 1000.0)


# Every row recorded, failed ones too: for the n=ok/recorded cells.
ALL = []


def load(d):
    with open(os.path.join(d, "runs.csv")) as f:
        rows = list(csv.DictReader(f))
    for r in rows:  # sweeps recorded before these columns
        r.setdefault("pin", "")
        r.setdefault("idle_limit", "0")  # poll_idle_limit, removed since
        r.setdefault("status", "ok")
        r.setdefault("error", "")
        r.setdefault("nic", "")  # before two NICs and COST
        r.setdefault("weight_eth1", "")
        r.setdefault("cost", "0")
        for col, knob in SOFTIRQ:  # before them: the kernel's defaults
            r.setdefault(col, knobs.KNOBS[knob].default)
        # The host-limited rule (bench/row.py) on sweeps recorded before it
        why = row.guest_not_the_limit(r) if r["status"] == "ok" else ""
        if why:
            r["status"], r["error"] = "failed", why
    global CONFIG, ENV
    swept = tuple(c for c, k in SOFTIRQ if {r[c] for r in rows} - {knobs.KNOBS[k].default})
    CONFIG, ENV = BASE_CONFIG + swept, BASE_ENV + swept
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    return rows, meta


def n_cell(runs, keys, values):
    """n=ok/recorded for the rows of ALL that match keys = values."""
    rec = [r for r in ALL if all(r.get(k) == v for k, v in zip(keys, values))]
    return "n=%d/%d" % (len(runs), len(rec))


def complete(meta):
    # sweeps recorded before the status field ran to the end or left no meta
    return meta.get("status", "complete") == "complete"


def group(rows, keys):
    g = defaultdict(list)
    for r in rows:
        g[tuple(r[k] for k in keys)].append(r)
    return g


def metric(runs, key):
    if key == "unattributed":
        return stats([unattributed(r) for r in runs])
    if key == "loss_pct":
        return stats([100.0 * num(r["lost"]) / num(r["sent"])
                      if num(r.get("sent")) else None for r in runs])
    return stats([value(r, key) for r in runs])


def calib_mbps(rows, env):
    """The calibration's TCP median (ring 4096, both kernels) at the same
    FIFO, link and CPU layout: the ceiling no RX policy can pass."""
    c = [r for r in rows if r["role"] == "calib" and r["fifo"] == env["fifo"]
         and r["link"] == env["link"] and r["pin"] == env.get("pin", r["pin"])]
    m = metric(c, "mbps")
    return m[0] if m else None


def baseline_for(rows, cfg, prof):
    env = dict(zip(CONFIG, cfg))
    return [r for r in rows if r["kernel"] == "baseline" and r["role"] == "sweep"
            and r["profile"] == prof and all(r[k] == env[k] for k in ENV)]


def ratio(a, b):
    if a is None or b is None or b[0] == 0:
        return "-"
    return "%.2fx" % (a[0] / b[0])


def profile_table(rows, prof):
    cols = [("mbps", "Mbit/s", 1), ("retrans", "retrans", 0),
            ("loss_pct", "loss %", 2), ("jitter_ms", "jitter ms", 3),
            ("fifo_drops", "FIFO drops", 0), ("link_drops", "link drops", 0),
            ("sock_drops", "socket drops", 0), ("softnet_drops", "softnet", 0),
            ("unattributed", "lost, no place", 0),
            ("ring_exhausted", "ring exhausted", 0),
            ("irq_per_1000", "irq/1000 pkt", 1),
            ("refills_per_1000", "refills/1000 pkt", 1), ("cpu_softirq", "softirq %", 1),
            ("cpu_us_per_pkt", "CPU us/pkt", 2), ("kpps", "kpps received", 1),
            ("rtt_p50_ms", "RTT p50 ms (load)", 3), ("rtt_p99_ms", "RTT p99 ms (load)", 3),
            ("rtt_ms", "RTT ms", 3), ("wake_p99_us", "wake-up p99 us", 0),
            ("wake_max_us", "wake-up max us", 0)]
    prow = [r for r in rows if r["profile"] == prof and r["role"] == "sweep"]
    if not prow:
        return []
    paced = any(r["link"] != "none" for r in prow)
    present = [c for c in cols if (c[0] != "link_drops" or paced) and (
        any(num(r.get(c[0])) is not None for r in prow)
        or (c[0] == "loss_pct" and any(r.get("sent") for r in prow))
        or (c[0] == "unattributed" and not profiles.is_zero_loss(prof)
            and any(r.get("sent") for r in prow))
        or (c[0] == "irq_per_1000")
        or (c[0] in ("refills_per_1000", "cpu_us_per_pkt")
            and any(value(r, c[0]) is not None for r in prow))
        or (c[0] == "kpps" and profiles.PROFILES[prof].kpps))]
    calib = prof in profiles.TCP and any(r["role"] == "calib" for r in rows)
    costly = any(r["cost"] != "0" for r in prow)  # COST swept: a column of its own
    soft = CONFIG[len(BASE_CONFIG):]  # the softirq's settings, where set
    out = ["### %s" % prof, "",
           "| kernel | weight | refill | adaptive | idle limit | defer | ring | fifo | link | " +
           ("cost | " if costly else "") + "".join(c.replace("_", " ") + " | " for c in soft) +
           "n | " +
           " | ".join(c[1] for c in present) + " | Mbit/s vs baseline | FIFO drops vs baseline |"
           + (" of calibration |" if calib else ""),
           "|" + "---|" * (10 + costly + len(soft) + len(present) + 2 + calib)]
    g = group(prow, CONFIG)
    for cfg in sorted(g, key=lambda c: (c[0] != "baseline", int(c[7]), int(c[8]), c[9],
                                        int(c[10]), int(c[6]), c[4], c[5], c[3], int(c[2]))):
        runs = g[cfg]
        base = baseline_for(rows, cfg, prof)
        env = dict(zip(CONFIG, cfg))
        cells = [fmt(metric(runs, c[0]), c[2]) for c in present]
        rv = [ratio(metric(runs, "mbps"), metric(base, "mbps")),
              ratio(metric(runs, "fifo_drops"), metric(base, "fifo_drops"))]
        if env["kernel"] == "baseline":
            rv = ["(reference)", "(reference)"]
            w, n = fixed("weight"), fixed("refill")
        else:
            w, n = env["weight"], env["refill"]
        frac = ""
        if calib:
            c = calib_mbps(rows, dict(env, pin=runs[0]["pin"]))
            m = metric(runs, "mbps")
            frac = " %s |" % ("%.2f" % (m[0] / c) if c and m else "-")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s | %s | %s |%s" % (
            env["kernel"], w, n, env["adaptive"], env["idle_limit"], env["defer"], env["ring"],
            env["fifo"], env["link"], env["cost"] + " | " if costly else "",
            "".join(env[c] + " | " for c in soft),
            n_cell(runs, CONFIG + ("role", "profile"), cfg + ("sweep", prof)),
            " | ".join(cells), " | ".join(rv), frac))
    out.append("")
    return out


def fixed(knob):
    """The baseline's setting of a knob it does not have, as the tables
    write it: its value in profiles.BASELINE, "(fixed)"."""
    return "%s (fixed)" % BASE[knob]


# The baseline's weights of eth0 and eth1 (two NICs), as "eth0/eth1"
BASE_WEIGHTS = "%s/%s" % (BASE["weight"], profiles.BASELINE_WEIGHT_ETH1)


def defaults_cfg(rows):
    """The patched kernel at its defaults (the baseline triple), sweep runs."""
    return [r for r in rows if r["role"] == "sweep" and is_default(r)]


def value(r, key):
    """One run's value of a metric (None when the run lacks it)."""
    if key == "irq_per_1000":
        return per_1000(r, "irqs")
    if key == "refills_per_1000":
        return per_1000(r, "rx_refills")
    if key == "work_per_poll":  # the patched driver's counters
        return per(r, "napi_work", "napi_polls")
    if key == "quota_full_per_1000":  # per 1000 polls
        return per(r, "napi_quota_full", "napi_polls", 1000.0)
    if key == "cpu_busy":
        return 100.0 - num(r["cpu_idle"]) if num(r.get("cpu_idle")) is not None else None
    if key == "kpps":  # datagrams received per second, in thousands
        sent, lost, secs = num(r.get("sent")), num(r.get("lost")), num(r.get("secs"))
        return (sent - lost) / secs / 1000.0 if sent and lost is not None and secs else None
    if key == "pdr_kpps":  # the PDR rate found, in packets of the profile's payload
        v = num(r.get("offered_mbps"))
        payload = profiles.PROFILES[r["profile"]].payload
        return v * 1e6 / (payload * 8) / 1000.0 if v is not None else None
    if key == "pdr_mbps":
        return num(r.get("offered_mbps"))
    return num(r.get(key))


# The goals and what `make aa` judges (bench/profiles.py, where each says why)
GOALS = profiles.GOALS
RESOLUTION = profiles.AAS


def goal_env(rows):
    """The goals' setting: ring 256, FIFO 32, the first link mode swept."""
    sw = [r for r in rows if r["role"] == "sweep"]

    def pick(col, want):
        have = sorted({r[col] for r in sw},
                      key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else v))
        return want if want in have else (have[0] if have else want)
    links = [r["link"] for r in sw]
    return {"ring": pick("ring", "256"), "fifo": pick("fifo", "32"),
            "link": links[0] if links else "none", "cost": "0"}


def pairs_of(rows, prof, key, env, patched_ok=lambda r: True):
    """(patched, baseline) values of the pairs of one profile at env: the
    patched run at its defaults and its baseline twin of the same pair (old
    sweeps without a pair column pair by repetition)."""
    def pid(r):
        return r.get("pair") or "rep-" + r["rep"]
    p = {pid(r): r for r in defaults_cfg(rows)
         if r["profile"] == prof and all(r[k] == v for k, v in env.items())
         and patched_ok(r)}
    b = {pid(r): r for r in rows if r["kernel"] == "baseline" and r["role"] == "sweep"
         and r["defer"] == "0" and r["profile"] == prof
         and all(r[k] == v for k, v in env.items())}
    return join_pairs(p, b, key)


def join_pairs(p, b, key):
    """(p, b) values of one metric for the pair ids both sides have. When
    those pairs ran in more than one boot (BOOTS > 1), one (p, b) per boot
    instead: the means of its pairs' values, in boot order. A boot carries
    what it settled into (sweeps 47 and 51: the same two images, 1.18x in
    one boot and 1.00x in the next), so its pairs are not independent of
    each other, and an interval over them would be narrower than what the
    sweep knows: the boot is then the unit, and n counts boots."""
    vals = []
    for k in sorted(set(p) & set(b)):
        x, y = value(p[k], key), value(b[k], key)
        if x is not None and y is not None:
            vals.append((boot_of(p[k]), x, y))
    if len({boot for boot, _, _ in vals}) < 2:
        return [(x, y) for _, x, y in vals]
    by = {}
    for boot, x, y in vals:
        by.setdefault(boot, []).append((x, y))
    return [(sum(x for x, _ in v) / len(v), sum(y for _, y in v) / len(v))
            for _, v in sorted(by.items())]


def boot_of(r):
    """The boot a run ran in: its boot column, 1 in sweeps before it."""
    return int(r.get("boot") or 1)


def boots_note(rows):
    """summary.md's paragraph on a sweep of several boots, or nothing."""
    boots = sorted({boot_of(r) for r in rows if r["role"] == "sweep"})
    if len(boots) < 2:
        return []
    return ["**Boots: %d.** Each guest was booted %d times, the boot order alternating "
            "(boots.txt); every interval below has the boot as its unit: the pairs of a boot "
            "count once, as the means of their values, and the \"pairs\" columns count "
            "boots (%d for a 95 %% interval)." % (len(boots), len(boots), paired.MIN_PAIRS), ""]


def config_label(env, meta):
    link = env["link"]
    if link != "none":
        link = "%s/%s" % (link, meta.get("parameters", {}).get("LINK_BURST") or "?")
    return ("weight %(weight)s, refill %(refill)s, adaptive %(adaptive)s" % BASE
            + ", defer 0, ring %s, FIFO %s, link %s" % (env["ring"], env["fifo"], link))


def excluded(match):
    """[{kernel, pair, why}]: the sweep runs recorded but failed (host-limited
    among them) that match, one per run (a share run has two rows)."""
    seen = {}
    for r in ALL:
        if r["status"] != "ok" and r["role"] == "sweep" and match(r):
            seen.setdefault((r["kernel"], r.get("pair") or "rep-" + r["rep"]), r["error"])
    return [{"kernel": k, "pair": p, "why": why} for (k, p), why in sorted(seen.items())]


def is_default(r):
    """The patched kernel at its defaults: the baseline triple
    (profiles.BASELINE), no idle limit, no defer, COST 0."""
    return (r["kernel"] == "patched" and all(r[k] == v for k, v in BASE.items())
            and r["idle_limit"] == "0" and r["defer"] == "0" and r["cost"] == "0")


def goal_specs(rows, meta):
    """The goals measured in this sweep, as verdicts.judge takes them: none
    in a sweep without baseline runs (REF: settings of the patched image
    paired with each other, judged by bench/article.py)."""
    if not any(r["kernel"] == "baseline" and r["role"] == "sweep" for r in ALL):
        return []
    env = goal_env(rows)
    cfg = config_label(env, meta)
    settings = dict(BASE, defer="0", **env)
    todo = []
    for g in GOALS:
        key, label, prof, target, kind = g.metric, g.label, g.profile, g.target, g.estimator
        pr = pairs_of(rows, prof, key, env)
        if not pr and not any(r["profile"] == prof for r in ALL):
            continue  # not part of this sweep

        def theirs(r, prof=prof):
            return (r["profile"] == prof and all(r[k] == v for k, v in env.items())
                    and (is_default(r) or r["kernel"] == "baseline" and r["defer"] == "0"))
        todo.append(dict(metric=key, profile=prof, config=cfg, target=target, kind=kind,
                         pairs=pr, label=label, kind_of="goal", settings=settings,
                         excluded=excluded(theirs)))
    return todo


def verdict_rows(rows, meta):
    """The goals' records (kind goal): one per goal measured in this sweep."""
    return verdicts.judge(goal_specs(rows, meta), complete=complete(meta))


def aa_pairs(rows, prof, nic, key, cost):
    """A/A: (slot patched, slot baseline) values of one metric, paired by the
    pair id, for one profile, NIC and COST (both slots run the baseline's
    settings, so there is no configuration to match)."""
    def pick(kernel):
        return {r["pair"]: r for r in rows if r["kernel"] == kernel and r["role"] == "sweep"
                and r["profile"] == prof and r.get("nic", "") == nic and r["cost"] == cost}
    return join_pairs(pick("patched"), pick("baseline"), key)


def two_sided_p(pairs):
    """The two-sided p of "the ratio is 1" (twice the smaller one-sided p)."""
    up = paired.compare(pairs, ">= 1.0x")["p"]
    down = paired.compare(pairs, "<= 1.0x")["p"]
    return min(1.0, 2.0 * min(up, down))


def resolution_rows(rows, meta):
    """A/A (records of kind aa): every metric judged at every COST swept. The
    intervals are 95 % each; the alarm (not_met) is raised only where the
    two-sided p of "the ratio is 1" stays below 0.05 after a Holm
    correction over all the metrics judged, since of m true 95 % intervals
    about 1 - 0.95^m exclude 1 by chance (a third of them for 8)."""
    costs = sorted({r["cost"] for r in rows if r["role"] == "sweep"}, key=int)
    env = goal_env(rows)
    cfg = config_label(env, meta)
    out, ps = [], []
    for cost in costs:
        for a in RESOLUTION:
            key, label, prof, nic, aim = a.metric, a.label, a.profile, a.nic, a.aim
            pr = aa_pairs(rows, prof, nic, key, cost)
            if not pr:
                continue
            c = paired.compare(pr, ">= 1.0x")
            ps.append(two_sided_p(pr) if c["ci_low"] is not None
                      and not math.isinf(c["ci_high"]) else None)
            ratio, lo, hi = verdicts.interval(c["ratio"], c["ci_low"], c["ci_high"])

            def theirs(r, prof=prof, nic=nic, cost=cost):
                return r["profile"] == prof and r.get("nic", "") == nic and r["cost"] == cost
            out.append(verdicts.record(
                kind="aa", question=label + (" (COST %s)" % cost if cost != "0" else ""),
                profile=prof + ("/" + nic if nic else ""), nic=nic, metric=key,
                config=cfg + ", cost %s" % cost, settings=dict(env, cost=cost),
                estimator="ratio", ratio=ratio, ci_low=lo, ci_high=hi, n=c["n_pairs"],
                target=verdicts.AA_TARGET, aim=aim, verdict="inconclusive", note=c["note"],
                excluded=excluded(theirs)))
    judged = [i for i, p in enumerate(ps) if p is not None]
    for i, a in zip(judged, paired.holm([ps[i] for i in judged])):
        out[i]["p_holm"] = a
    for r in out:
        if not complete(meta):
            r["verdict"] = "incomplete"
        elif r["p_holm"] is None:
            r["verdict"] = "inconclusive"  # too few pairs for an interval
        else:
            r["verdict"] = "not_met" if r["p_holm"] < paired.ALPHA else "met"
    return out


def pdr_records(rows, meta):
    """Records of kind pdr for the zero-loss profiles: every patched setting
    other than the goals' (patched at its defaults at the goals' setting,
    a goal already) against its baseline twins, paired (pairs_of's rule)."""
    env = goal_env(rows)
    specs = []
    for prof, key in ((p, profiles.PROFILES[p].pdr) for p in profiles.ZERO_LOSS):
        pr = [r for r in rows if r["profile"] == prof and r["role"] == "sweep"
              and r["kernel"] == "patched"]
        for cfg, runs in sorted(group(pr, CONFIG).items()):
            s = dict(zip(CONFIG, cfg))
            if is_default(runs[0]) and all(s[k] == v for k, v in env.items()):
                continue  # the goal's

            def pid(r):
                return r.get("pair") or "rep-" + r["rep"]
            base = {pid(r): r for r in baseline_for(rows, cfg, prof)}
            pairs = join_pairs({pid(r): r for r in runs}, base, key)
            mine = {pid(r) for r in ALL if r["profile"] == prof and r["role"] == "sweep"
                    and r["kernel"] == "patched" and all(r[k] == v for k, v in s.items())}

            def theirs(r, s=s, mine=mine, prof=prof):
                return r["profile"] == prof and (
                    all(r[k] == v for k, v in s.items())
                    or r["kernel"] == "baseline" and (r.get("pair") or "rep-" + r["rep"]) in mine
                    and all(r[k] == s[k] for k in ENV))
            del s["kernel"], s["role"]
            specs.append(dict(metric=key, profile=prof, target=verdicts.AHEAD, kind="ratio",
                              pairs=pairs, kind_of="pdr", settings=s,
                              label="%s: %s against the baseline" % (prof, PDR),
                              config=setting_label(s), excluded=excluded(theirs)))
    return specs


def setting_label(s):
    """A patched setting in words, for a record's config."""
    return ", ".join("%s %s" % (k.replace("_", " "), v) for k, v in s.items()
                     if not (k == "idle_limit" and v == "0"))


# The verdicts' tables, rendered from the records (bench/verdicts.py)
verdict_table = verdicts.verdict_table
resolution_table = verdicts.resolution_table


def disturbed(rows):
    """Runs during which the paused guest's QEMU still used CPU (> 0.1 s):
    the pause did not hold, so the run shared the host."""
    built = [r for r in rows if (num(r.get("host_compilers")) or 0) > 0]
    out = []
    if built:
        out += ["**%d run(s) shared the host with a compiler** (a kernel build: cc1 or ld "
                "seen at the run's start or end; `host_compilers`). Measurements taken "
                "while a build runs are void: repeat the sweep on a quiet machine." %
                len(built), ""]
    bad = [r for r in rows if (num(r.get("other_qemu_cpu_s")) or 0) > 0.1]
    if not bad:
        return out
    return out + ["**%d run(s) disturbed**: the other guest's QEMU used CPU while paused (%s). "
            "They are kept; check them before trusting a close verdict." % (
                len(bad), ", ".join("%s %s pair %s: %s s" % (r["kernel"], r["profile"],
                                                              r.get("pair", "?"),
                                                              r["other_qemu_cpu_s"])
                                    for r in bad[:8])), ""]


def saturation(rows):
    s = [r for r in rows if r["role"] == "sat"]
    if not s:
        return []
    out = ["## Saturation: udp1470 offered far above what the guest takes", "",
           "| kernel | offered Mbit/s | received Mbit/s | loss % | FIFO drops | socket drops |",
           "|---|---|---|---|---|---|"]
    for k, runs in sorted(group(s, ("kernel",)).items(), reverse=True):
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            k[0], runs[0]["offered_mbps"], fmt(metric(runs, "mbps"), 1),
            fmt(metric(runs, "loss_pct"), 1), fmt(metric(runs, "fifo_drops")),
            fmt(metric(runs, "sock_drops"))))
    return out + [""]


HIST = (("hist_0", "0"), ("hist_1_25", "1-25 %"), ("hist_26_50", "26-50 %"),
        ("hist_51_75", "51-75 %"), ("hist_76_99", "76-99 %"), ("hist_100", "100 %"))


def hist_share(runs, col):
    return stats([100.0 * num(r[col]) / num(r["napi_polls"])
                  if num(r.get("napi_polls")) else None for r in runs])


def napi_hist(rows):
    h = [r for r in rows if r["role"] == "hist"]
    if not h:
        return []
    out = ["## napi_poll work/budget (role hist: both kernels at their defaults, "
           "hist trigger on %s)" % profiles.HIST_TRACEPOINT, "",
           "Share of polls (%) by packets handled as a share of the budget; "
           "median [min-max] over the repetitions.", "",
           "| profile | kernel | polls | packets per poll | " +
           " | ".join(lab for _, lab in HIST) + " | Mbit/s |",
           "|" + "---|" * (5 + len(HIST))]
    for k, runs in sorted(group(h, ("profile", "kernel")).items(), reverse=True):
        ppp = stats([num(r["rx_packets"]) / num(r["napi_polls"])
                     if num(r.get("napi_polls")) else None for r in runs])
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            k[0], k[1], fmt(metric(runs, "napi_polls")), fmt(ppp, 1),
            " | ".join(fmt(hist_share(runs, c), 1) for c, _ in HIST),
            fmt(metric(runs, "mbps"), 1)))
    return out + ["", "The trigger runs on every poll of both kernels, so these runs "
                  "are kept out of the sweep tables.", ""]


def calibration(rows, meta):
    c = [r for r in rows if r["role"] == "calib"]
    if not c:
        return []
    layouts = meta.get("pinning", {}).get("layouts", {})
    out = ["## Calibration: the emulator's drop floor (ring 4096, tcp), by CPU layout", "",
           "| CPU layout | kernel | weight | Mbit/s | FIFO drops | ring exhausted | "
           "softnet | retrans |", "|---|---|---|---|---|---|---|---|"]
    for k, runs in sorted(group(c, ("pin", "kernel", "weight")).items(),
                          key=lambda kv: (kv[0][0] or "", kv[0][1])):
        lay = layouts.get(k[0])
        name = k[0] or "(not recorded)"
        if lay:
            name = "%s (vCPU %s, QEMU main loop %s, client %s)" % (
                k[0], lay["qemu_vcpu_threads"], lay["qemu_other_threads"],
                lay["iperf3_client"])
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, k[1], k[2], fmt(metric(runs, "mbps"), 1), fmt(metric(runs, "fifo_drops")),
            fmt(metric(runs, "ring_exhausted")), fmt(metric(runs, "softnet_drops")),
            fmt(metric(runs, "retrans"))))
    out += ["", "Drops here, with a ring far larger than any poll, come from QEMU not "
            "draining the tap (its I/O thread), not from the driver's ring.", ""]
    return out


def zeroloss_table(rows):
    """What ended each bisection: the lowest failing trial, by place."""
    zl = [r for r in rows if r["role"] == "sweep" and profiles.is_zero_loss(r["profile"])
          and r.get("zl_trials")]
    if not zl:
        return []
    out = ["## Zero-loss: what ended the bisection", "",
           "Per configuration: the rate found (highest offered rate with at most %s "
           "loss), the lowest rate that lost more, and where that trial's datagrams died "
           "(counted around that trial alone); median [min-max] over the repetitions."
           % schema.percent(schema.LOSS_MAX), "",
           "| frame | kernel | weight | refill | adaptive | idle limit | defer | ring | fifo | "
           "link | zero-loss Mbit/s | first failing Mbit/s | its loss % | FIFO | host link | "
           "socket | softnet | no place | trials |",
           "|" + "---|" * 19]
    g = group(zl, ("profile",) + CONFIG)
    for k in sorted(g, key=lambda k: (k[0], k[1] != "baseline", int(k[8]), k[4], k[5],
                                      int(k[3]))):
        runs = g[k]
        env = dict(zip(("profile",) + CONFIG, k))

        def share(col):
            return stats([100.0 * num(r[col]) / num(r["zl_fail_lost"])
                          if num(r.get("zl_fail_lost")) and num(r.get(col)) is not None
                          else None for r in runs])

        def rest(r):
            lost = num(r.get("zl_fail_lost"))
            if not lost:
                return None
            c = [num(r.get(x)) or 0 for x in ("zl_fail_fifo", "zl_fail_sock",
                                                "zl_fail_softnet", "zl_fail_link")]
            return 100.0 * (lost - sum(c)) / lost
        loss = stats([100.0 * num(r["zl_fail_lost"]) / num(r["zl_fail_sent"])
                      if num(r.get("zl_fail_sent")) and num(r.get("zl_fail_lost")) is not None
                      else None for r in runs])
        base = env["kernel"] == "baseline"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                   "%s %% | %s %% | %s %% | %s %% | %s %% | %s |" % (
            "%d B" % profiles.PROFILES[env["profile"]].payload, env["kernel"],
            fixed("weight") if base else env["weight"], fixed("refill") if base else env["refill"],
            env["adaptive"], env["idle_limit"], env["defer"], env["ring"], env["fifo"],
            env["link"] + ("" if env["cost"] == "0" else " (COST %s)" % env["cost"]),
            fmt(metric(runs, "offered_mbps")),
            fmt(metric(runs, "zl_fail_mbps")), fmt(loss, 2), fmt(share("zl_fail_fifo")),
            fmt(share("zl_fail_link")), fmt(share("zl_fail_sock")), fmt(share("zl_fail_softnet")),
            fmt(stats([rest(r) for r in runs])), fmt(metric(runs, "zl_trials"))))
    return out + ["", "Shares are of the failing trial's lost datagrams, signed: a place can "
                  "count more than iperf3 counted lost (frames of the control connection, "
                  "the run's tail), which shows as over 100 % there and below 0 under no "
                  "place. Host link shares are empty for sweeps before they were recorded. "
                  "The zero-loss rows of the tables below count drops over the whole "
                  "bisection.", ""]


def series(rows, prof):
    """Patched sweep runs of a profile, by (refill, adaptive, defer, ring)."""
    pr = [r for r in rows if r["kernel"] == "patched" and r["role"] == "sweep"
          and r["profile"] == prof]
    return group(pr, ("refill", "adaptive", "idle_limit", "defer", "ring"))


def plots(rows, d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    profs = [p for p in profiles.BY_WEIGHT if any(r["profile"] == p for r in rows)]
    made = []

    hist_plot(rows, d, plt, made)

    def by_weight(runs, fn):
        xs, ys, lo, hi = [], [], [], []
        for w, rr in sorted(group(runs, ("weight",)).items(), key=lambda k: int(k[0][0])):
            s = fn(rr)
            if s:
                xs.append(int(w[0]))
                ys.append(s[0])
                lo.append(s[0] - s[1])
                hi.append(s[2] - s[0])
        return xs, ys, [lo, hi]

    def line_plot(name, key, ylabel, title):
        """Every repetition a point (jittered sideways within its weight),
        the median a line; the baseline's runs as points at the left edge
        and its median as a horizontal line."""
        fig, axes = plt.subplots(1, len(profs), figsize=(5 * len(profs), 4), squeeze=False)
        for ax, prof in zip(axes[0], profs):
            for i, (s, runs) in enumerate(sorted(series(rows, prof).items())):
                xs, ys, _ = by_weight(runs, lambda rr: metric(rr, key))
                if not xs:
                    continue
                line, = ax.plot(xs, ys, marker="_", ms=12,
                                label="refill %s adaptive %s idle %s defer %s ring %s" % s)
                px, py = [], []
                for r in runs:
                    v = value(r, key)
                    if v is not None:
                        px.append(int(r["weight"]) * 2 ** (0.06 * (i - 1) + 0.03 * (int(r["rep"]) % 3 - 1)))
                        py.append(v)
                ax.scatter(px, py, s=10, alpha=0.6, color=line.get_color())
            brows = [r for r in rows if r["kernel"] == "baseline"
                     and r["role"] == "sweep" and r["profile"] == prof]
            styles = iter(["--", ":", "-.", (0, (1, 4))] * 8)
            for env, runs in sorted(group(brows, ("defer", "ring")).items()):
                base = metric(runs, key)
                if base:
                    ax.axhline(base[0], color="k", ls=next(styles),
                               label="baseline w%s defer %%s ring %%s (median; points: runs)"
                               % BASE["weight"] % env)
                    left = min((int(r["weight"]) for r in rows if r["kernel"] == "patched"
                                and r["role"] == "sweep"), default=int(BASE["weight"]))
                    bv = [value(r, key) for r in runs if value(r, key) is not None]
                    ax.scatter([left * 0.8] * len(bv), bv, s=10, marker="x", color="k")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("weight")
            ax.set_ylabel(ylabel)
            ax.set_title("%s: %s" % (prof, title))
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        save(plt, fig, d, name, made)

    made += share_plots(rows, d, plt) + router_plot(rows, d, plt)
    if not profs:
        return made + zeroloss_plot(rows, d, plt)
    line_plot("throughput_vs_weight.png", "mbps", "Mbit/s (every run; line: median)", "throughput")
    if any(value(r, "rtt_p99_ms") is not None for r in rows):
        line_plot("rtt_p99_vs_weight.png", "rtt_p99_ms",
                  "ping RTT p99 under load, ms (every run; line: median)", "latency under load")
    line_plot("irqs_vs_weight.png", "irq_per_1000", "interrupts per 1000 packets", "interrupts")
    line_plot("ring_exhausted_vs_weight.png", "ring_exhausted", "ring exhaustions per run",
              "RX ring exhausted")

    fig, axes = plt.subplots(1, len(profs), figsize=(5 * len(profs), 4), squeeze=False)
    for ax, prof in zip(axes[0], profs):
        labels, stacks = [], {k: [] for k, _ in DROPS}
        for s, runs in sorted(series(rows, prof).items()):
            for w, rr in sorted(group(runs, ("weight",)).items(), key=lambda k: int(k[0][0])):
                labels.append("w%s n%s%s%s%s" % (w[0], s[0], " a" if s[1] == "on" else "",
                                                   " i" + s[2] if s[2] != "0" else "",
                                                   " d" + s[3] if s[3] != "0" else ""))
                for k, _ in DROPS:
                    m = metric(rr, k)
                    stacks[k].append(m[0] if m else 0)
        b = [r for r in rows if r["kernel"] == "baseline" and r["role"] == "sweep"
             and r["profile"] == prof]
        if b:
            labels.append("baseline")
            for k, _ in DROPS:
                m = metric(b, k)
                stacks[k].append(m[0] if m else 0)
        bottom = [0] * len(labels)
        for k, lab in DROPS:
            ax.bar(range(len(labels)), stacks[k], bottom=bottom, label=lab)
            bottom = [x + y for x, y in zip(bottom, stacks[k])]
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=60, fontsize=7)
        ax.set_ylabel("dropped packets per run (median)")
        ax.set_title("%s: drops by place" % prof)
        ax.legend(fontsize=7)
    save(plt, fig, d, "drops_by_place.png", made)

    return made + zeroloss_plot(rows, d, plt)


# ---- Two NICs on one vCPU (NICS=2): share, share-adaptive, router ----

SHARE = profiles.SHARE
ROUTER = profiles.ROUTER


def share_runs(rows):
    """The share runs whose two rows (eth0, eth1) are both ok, as dicts with
    the run's configuration and its per-run shares."""
    by = defaultdict(dict)
    for r in rows:
        if r["role"] == "sweep" and r["profile"] in SHARE and r["nic"] in ("eth0", "eth1"):
            by[(r["kernel"], r["profile"], r.get("pair") or r["rep"])][r["nic"]] = r
    out = []
    for v in by.values():
        if "eth0" not in v or "eth1" not in v:
            continue
        e0, e1 = v["eth0"], v["eth1"]
        w0, w1 = num(e0["weight"]), num(e0["weight_eth1"])
        ws = w0 / (w0 + w1) if w0 and w1 else None
        run = {k: e0[k] for k in ("kernel", "profile", "weight", "weight_eth1", "cost",
                                   "refill", "defer", "ring", "fifo", "link", "rep")}
        ps, cs = num(e0.get("pkt_share")), num(e0.get("ns_share"))
        run.update(eth0=e0, eth1=e1, wshare=ws, pshare=ps, cshare=cs, target=target_of(e0, e1))
        if ws:
            run["p0x"] = ps / ws if ps is not None else None
            run["p1x"] = (1 - ps) / (1 - ws) if ps is not None else None
            run["c0x"] = cs / ws if cs is not None else None
            run["c1x"] = (1 - cs) / (1 - ws) if cs is not None else None
        out.append(run)
    return out


def target_of(e0, e1):
    """share-adaptive's poll targets (TARGET, columns target, poll_target_usecs,
    quota_min of the patched kernel's rows): "weight 500/125 us, min 1", or
    "" where not recorded (the baseline, share, sweeps before TARGET)."""
    if not e0.get("target"):
        return ""
    q0, q1 = e0.get("quota_min") or "?", e1.get("quota_min") or "?"
    return "%s %s/%s us, min %s" % (e0["target"], e0.get("poll_target_usecs") or "?",
                                    e1.get("poll_target_usecs") or "?",
                                    q0 if q0 == q1 else "%s/%s" % (q0, q1))


SHARE_KEY = ("profile", "kernel", "weight", "weight_eth1", "cost", "refill", "defer", "ring",
             "fifo", "link", "target")


def share_groups(runs):
    g = defaultdict(list)
    for r in runs:
        g[tuple(r[k] for k in SHARE_KEY)].append(r)
    return sorted(g.items(), key=lambda kv: (kv[0][0], kv[0][1] != "baseline", int(kv[0][4]),
                                            -int(kv[0][2]) / int(kv[0][3]), -int(kv[0][2]),
                                            int(kv[0][5])))


def rstats(runs, fn):
    return stats([fn(r) for r in runs])


def weights_cell(k, targets=False):
    """weights eth0/eth1 | refill, of a SHARE_KEY; with targets, then the
    poll targets eth0/eth1 of share-adaptive (TARGET)"""
    if k[1] == "baseline":
        cell = "%s (fixed) | %s" % (BASE_WEIGHTS, fixed("refill"))
    else:
        cell = "%s/%s | %s" % (k[2], k[3], k[5])
    return cell + (" | %s" % (k[10] or "-") if targets else "")


def has_targets(runs):
    """Whether the sweep recorded share-adaptive's poll targets (a column of
    the share tables then; sweeps before TARGET report as they did)."""
    return any(r["target"] for r in runs)


TARGET_HEAD = ("poll target eth0/eth1, quota_min | ", "---|")
# The adaptive quota's goal (issue 14): a share within schema.SHARE_BAND of
# the weight's share, as the bounds of the ratio and as the reports write it.
SHARE_BAND = (1 - schema.SHARE_BAND, 1 + schema.SHARE_BAND)
BAND = "+-" + schema.percent(schema.SHARE_BAND)  # "+-10 %"


def share_tables(rows, records=None):
    runs = share_runs(rows)
    if not runs:
        return []
    return (share_summary(runs) + share_verdicts(runs, records) + cost_table(runs)
            + share_nic_tables(runs))


# The four shares over their weight shares of a share run: (column of
# share_runs, metric, NIC, words)
SHARE_RATIOS = (("p0x", "pkt_share", "eth0", "eth0's packet share"),
                ("p1x", "pkt_share", "eth1", "eth1's packet share"),
                ("c0x", "ns_share", "eth0", "eth0's CPU share"),
                ("c1x", "ns_share", "eth1", "eth1's CPU share"))


def share_settings(k):
    """A SHARE_KEY's settings (the profile apart), and its config in words."""
    s = dict(zip(SHARE_KEY[1:], k[1:]))
    s["poll_target"] = s.pop("target")
    if k[1] == "baseline":
        words = "baseline %s (fixed), refill %s" % (BASE_WEIGHTS, fixed("refill"))
    else:
        words = "patched, weights %s/%s, refill %s" % (k[2], k[3], k[5])
    words += ", COST %s, defer %s, ring %s, FIFO %s, link %s" % (k[4], k[6], k[7], k[8], k[9])
    return s, words + (", poll target %s" % k[10] if k[10] else "")


def band_records(runs, complete=True):
    """Statements 1-3 of issue 14 as records of kind band: each NIC's packet
    and CPU share over its weight share, per configuration, within BAND
    (verdicts.band); None for a share no run has (the baseline's CPU)."""
    out = []
    for k, rr in share_groups(runs):
        s, words = share_settings(k)

        def theirs(r, k=k):
            return all(r[c] == v for c, v in zip(SHARE_KEY[:-1], k[:-1]))
        gone = excluded(theirs)
        for col, metric_, nic, what in SHARE_RATIOS:
            rec = verdicts.band("band", "%s: %s over its weight share" % (k[0], what), k[0],
                                nic, metric_, words, s, [r.get(col) for r in rr], complete,
                                gone)
            if rec:
                out.append(rec)
    return out


def band_of(records, k):
    """{(metric, nic): record} of one share configuration (a SHARE_KEY)."""
    s, _ = share_settings(k)
    return {(r["metric"], r["nic"]): r for r in records
            if r["kind"] == "band" and r["profile"] == k[0] and r["settings"] == s}


def share_verdicts(runs, records=None):
    """Statements 1-3 of issue 14 as tests, a row per configuration, every
    interval and verdict from the records of kind band (band_records when
    none are given): each NIC's packet and CPU share over its weight share,
    the centre of the runs (Hodges-Lehmann of the log ratios) with its
    exact 95 % interval (inverted signed-rank test, MIN_PAIRS runs or more),
    and whether it lies within BAND of the weight share (met: the whole
    interval inside; not_met: wholly outside)."""
    if not runs:
        return []
    if records is None:
        records = band_records(runs)
    tg = has_targets(runs)
    out = ["### Shares against the weight share, with 95 % intervals", "",
           "Per configuration, over its runs: the centre (Hodges-Lehmann estimate of the "
           "log ratios) of each NIC's share over its weight share, with the exact 95 % "
           "interval that inverts the signed-rank test (none below {n} runs). The shares are "
           "measured inside each run (both NICs at once), so no pairing with the baseline is "
           "needed; the baseline has packet shares only. Within {band}: `met` when the whole "
           "interval lies in {:.2f}-{:.2f}x for both NICs, `not_met` when it lies wholly outside "
           "for one of them, else `inconclusive`; one verdict per row, not corrected for the "
           "number of rows. A share of 0 counts as the lowest ratio (it has no log). With "
           "fixed weights (`share`) the packet share follows the weight by design; with "
           "the adaptive quota (`share-adaptive`) it moves away from it, and with poll "
           "targets that follow the weights (TARGET weight or per-weight) the CPU share "
           "is what should follow (with TARGET fixed both NICs aim at the same 500 us)."
           .format(*SHARE_BAND, n=paired.MIN_PAIRS, band=BAND), "",
           "| profile | kernel | weights eth0/eth1 | refill | " + (TARGET_HEAD[0] if tg else "")
           + "COST | runs | packets x weight eth0 | packets x weight eth1 | packets within "
           "%s | CPU x weight eth0 | CPU x weight eth1 | CPU within %s |" % (BAND, BAND),
           "|" + "---|" * 12 + (TARGET_HEAD[1] if tg else "")]
    for k, rr in share_groups(runs):
        b = band_of(records, k)
        recs = [b.get((m, nic)) for _, m, nic, _ in SHARE_RATIOS]
        used = {r["n"] for r in recs if r}
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k[0], k[1], weights_cell(k, tg), k[4],
            "%d" % len(rr) if used <= {len(rr)} else "%d (%s with shares)" % (
                len(rr), "/".join(str(u) for u in sorted(used))),
            verdicts.band_cell(recs[0]), verdicts.band_cell(recs[1]),
            verdicts.both(recs[0], recs[1]) if recs[0] else "-",
            verdicts.band_cell(recs[2]), verdicts.band_cell(recs[3]),
            verdicts.both(recs[2], recs[3]) if recs[2] else "-"))
    return out + [""]


def share_summary(runs):
    if not runs:
        return []
    tg = has_targets(runs)
    out = ["## Two NICs on one vCPU: who gets the packets and the CPU (share, share-adaptive)",
           "",
           "Both NICs flooded at once with UDP 1470 B from their two host netns, each offered "
           "more than the guest takes; `share-adaptive` with the adaptive quota on for both "
           "NICs (the baseline has neither weight nor adaptive quota: %s). Weight share: "
           "eth0's weight / the sum of both. Packet share: eth0's share of the packets both "
           "NICs received. CPU share: eth0's share of the time both NICs' polls took (the sum "
           "of `%s`'s `ns`: patched kernel only; the baseline has no such "
           "tracepoint). `x weight`: a share over its weight share, for eth0 and eth1 (1.00: "
           "exactly the weight's share). The goal of the adaptive quota (issue 14): the CPU "
           "share of both NICs within %s of their weight share (%.2f-%.2fx). ns/pkt: "
           "a NIC's polls' ns / their packets. Median [min-max] over the repetitions; every "
           "run counted needs both of its rows ok." % (
               (BASE_WEIGHTS, profiles.POLL_TRACEPOINT, BAND) + SHARE_BAND)
           + (" Poll target: share-adaptive's poll_target_usecs of eth0/eth1 and quota_min "
              "(TARGET fixed: the driver's 500 and 8; weight: 500 w / max(w_eth0, w_eth1) "
              "and 1; per-weight: 500 w / 64 and 1)." if tg else ""), "",
           "| profile | kernel | weights eth0/eth1 | refill | " + (TARGET_HEAD[0] if tg else "")
           + "COST | n | weight share eth0 | "
           "packet share eth0 | packets x weight eth0 / eth1 | CPU share eth0 | "
           "CPU x weight eth0 | CPU x weight eth1 | within %s | ns/pkt eth0 | ns/pkt eth1 | "
           "quota eth0 | quota eth1 | Mbit/s eth0 + eth1 |" % BAND,
           "|" + "---|" * 18 + (TARGET_HEAD[1] if tg else "")]
    for k, rr in share_groups(runs):
        within = [r for r in rr if r.get("c0x") is not None]
        lo, hi = SHARE_BAND
        ok = sum(1 for r in within if lo <= r["c0x"] <= hi and lo <= r["c1x"] <= hi)
        px = rstats(rr, lambda r: r.get("p0x")), rstats(rr, lambda r: r.get("p1x"))
        out.append("| %s | %s | %s | %s | n=%d | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s "
                   "| %s | %s | %s |" % (
                       k[0], k[1], weights_cell(k, tg), k[4], len(rr),
                       "%.3f" % rr[0]["wshare"] if rr[0]["wshare"] else "-",
                       fmt(rstats(rr, lambda r: r["pshare"]), 3),
                       fmt(px[0], 2), fmt(px[1], 2),
                       fmt(rstats(rr, lambda r: r["cshare"]), 3),
                       fmt(rstats(rr, lambda r: r.get("c0x")), 2),
                       fmt(rstats(rr, lambda r: r.get("c1x")), 2),
                       "%d of %d runs" % (ok, len(within)) if within else "-",
                       fmt(rstats(rr, lambda r: num(r["eth0"].get("poll_ns_per_pkt")))),
                       fmt(rstats(rr, lambda r: num(r["eth1"].get("poll_ns_per_pkt")))),
                       fmt(rstats(rr, lambda r: num(r["eth0"].get("quota_mean"))), 1),
                       fmt(rstats(rr, lambda r: num(r["eth1"].get("quota_mean"))), 1),
                       fmt(rstats(rr, lambda r: (num(r["eth0"].get("mbps")) or 0)
                                  + (num(r["eth1"].get("mbps")) or 0)), 1)))
    return out + [""]


def cost_table(runs):
    """What COST did to a packet: each NIC's ns per packet by COST."""
    pr = [r for r in runs if r["kernel"] == "patched"
          and num(r["eth0"].get("poll_ns_per_pkt")) is not None]
    costs = sorted({int(r["cost"]) for r in pr})
    if len(costs) < 2 and not any(c for c in costs):
        return []
    out = ["### The cost of a packet by COST (patched kernel, the polls' ns per packet)", "",
           "COST = K rules of an nftables prerouting chain that eth0's packets walk and never "
           "match (eth1's leave it at the first rule). Per rule: eth0's extra ns per packet "
           "over COST 0 at the same weights and profile, divided by K.", "",
           "| profile | weights eth0/eth1 | refill | COST | n | ns/pkt eth0 | ns/pkt eth1 | "
           "eth0 / eth1 | ns per rule |", "|---|---|---|---|---|---|---|---|---|"]
    g = defaultdict(list)
    for r in pr:
        g[(r["profile"], r["weight"], r["weight_eth1"], r["refill"], int(r["cost"]))].append(r)
    for k in sorted(g, key=lambda k: (k[0], -int(k[1]) / int(k[2]), -int(k[1]), int(k[3]),
                                      k[4])):
        rr = g[k]
        n0 = rstats(rr, lambda r: num(r["eth0"]["poll_ns_per_pkt"]))
        n1 = rstats(rr, lambda r: num(r["eth1"].get("poll_ns_per_pkt")))
        base = g.get(k[:4] + (0,))
        per_rule = "-"
        if k[4] and base and n0:
            b0 = rstats(base, lambda r: num(r["eth0"]["poll_ns_per_pkt"]))
            per_rule = "%.1f" % ((n0[0] - b0[0]) / k[4]) if b0 else "-"
        out.append("| %s | %s/%s | %s | %d | n=%d | %s | %s | %s | %s |" % (
            k[0], k[1], k[2], k[3], k[4], len(rr), fmt(n0), fmt(n1),
            fmt(rstats(rr, lambda r: num(r["eth0"]["poll_ns_per_pkt"])
                       / num(r["eth1"]["poll_ns_per_pkt"])
                       if num(r["eth1"].get("poll_ns_per_pkt")) else None), 2), per_rule))
    return out + [""]


def share_nic_tables(runs):
    out = []
    tg = has_targets(runs)
    for nic in ("eth0", "eth1"):
        out += ["### %s in the share profiles" % nic, "",
                "Delivered: what iperf3's receiver got. Drops by place: the tap (FIFO), the "
                "host's qdisc (link), the NIC (ring: `rx_missed`), and what the stream lost "
                "after the NIC (socket or softnet: iperf3's loss minus the three, signed). "
                "time_squeeze, softirq % and CPU us/pkt are the guest's, both NICs together.",
                "",
                "| profile | kernel | weights eth0/eth1 | refill | "
                + (TARGET_HEAD[0] if tg else "") + "COST | n | delivered Mbit/s | "
                "loss % | FIFO drops | link drops | ring drops | lost after the NIC | packet share | "
                "CPU share | polls | packets per poll | ns/pkt | quota | time_squeeze | "
                "softirq % | CPU us/pkt |", "|" + "---|" * 21 + (TARGET_HEAD[1] if tg else "")]
        for k, rr in share_groups(runs):
            rs = [r[nic] for r in rr]

            def after_nic(r):
                lost = num(r.get("lost"))
                if lost is None:
                    return None
                return lost - sum(num(r.get(c)) or 0 for c in ("fifo_drops", "link_drops",
                                                                 "rx_missed"))

            def share_of(r, col):
                v = num(r.get(col))
                return v if nic == "eth0" or v is None else 1 - v
            out.append("| %s | %s | %s | %s | n=%d | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                       "| %s | %s | %s | %s | %s | %s |" % (
                           k[0], k[1], weights_cell(k, tg), k[4], len(rr),
                           fmt(metric(rs, "mbps"), 1), fmt(metric(rs, "loss_pct"), 1),
                           fmt(metric(rs, "fifo_drops")), fmt(metric(rs, "link_drops")),
                           fmt(metric(rs, "rx_missed")), fmt(stats([after_nic(r) for r in rs])),
                           fmt(stats([share_of(r, "pkt_share") for r in rs]), 3),
                           fmt(stats([share_of(r, "ns_share") for r in rs]), 3),
                           fmt(metric(rs, "trace_polls")),
                           fmt(stats([num(r["trace_work"]) / num(r["trace_polls"])
                                      if num(r.get("trace_polls")) else None for r in rs]), 1),
                           fmt(metric(rs, "poll_ns_per_pkt")), fmt(metric(rs, "quota_mean"), 1),
                           fmt(metric(rs, "time_squeeze")), fmt(metric(rs, "cpu_softirq"), 1),
                           fmt(metric(rs, "cpu_us_per_pkt"), 2)))
        out.append("")
    return out


ROUTER_KEY = ("kernel", "weight", "weight_eth1", "refill", "adaptive", "cost", "defer", "ring",
              "fifo", "link")


def router_specs(rows):
    """The router's questions, as verdicts.judge takes them: every patched
    setting's forwarding rate (kind router) and, where measured, its PDR
    (kind pdr) against the baseline runs of the same pairs."""
    rr = [r for r in rows if r["role"] == "sweep" and r["profile"] == ROUTER]
    base = {r.get("pair"): r for r in rr if r["kernel"] == "baseline"}
    specs = []
    for k, runs in sorted(group([r for r in rr if r["kernel"] != "baseline"],
                                ROUTER_KEY).items()):
        s = dict(zip(ROUTER_KEY[1:], k[1:]))
        mine = {r.get("pair") for r in ALL if r["profile"] == ROUTER and r["role"] == "sweep"
                and all(r[c] == v for c, v in zip(ROUTER_KEY, k))}

        def theirs(r, k=k, mine=mine):
            return r["profile"] == ROUTER and (
                all(r[c] == v for c, v in zip(ROUTER_KEY, k))
                or r["kernel"] == "baseline" and r.get("pair") in mine)
        gone = excluded(theirs)
        words = ("%s, weights %s/%s, refill %s, adaptive %s, COST %s, defer %s, ring %s, "
                 "FIFO %s, link %s" % ((k[0],) + k[1:]))
        for kind, key, what in (("router", "mbps", "forwarding rate under the flood"),
                                ("pdr", profiles.PROFILES[ROUTER].pdr, PDR + " rate")):
            pr = join_pairs({r["pair"]: r for r in runs
                             if r.get("pair") in base and value(r, key)},
                            {q: r for q, r in base.items() if value(r, key)}, key)
            if kind == "pdr" and not pr and not any(
                    value(r, key) is not None for r in runs + list(base.values())):
                continue  # no PDR in this sweep (ROUTER_PDR=0)
            specs.append(dict(metric=key, profile=ROUTER, config=words, target=verdicts.AHEAD,
                              kind="ratio", pairs=pr, kind_of=kind, settings=s,
                              label="router: %s against the baseline" % what, excluded=gone))
    return specs


def router_records(rows, meta=None, aa=False):
    """Records of kinds router and pdr (router_specs, and pdr_records' of the
    zero-loss profiles), Holm-corrected together. In make aa both slots run
    one kernel: not_judged there (kind aa judges the same pairs)."""
    meta = meta or {}
    recs = verdicts.judge(router_specs(rows) + pdr_records(rows, meta), complete=complete(meta))
    if aa:
        for r in recs:
            r["verdict"] = "not_judged"
            r["note"] = "A/A: one kernel in both slots (kind aa judges it)"
    return recs


def tap_counted(rows):
    """Whether the sweep counted the router's forwarded datagrams at the host
    side of tap1 (runs.csv has fwd_frames). Sweeps recorded before have the
    receiver's rate, and a receiver that dropped failed the run."""
    return any("fwd_frames" in r for r in rows)


def router_table(rows, records=None):
    rr = [r for r in rows if r["role"] == "sweep" and r["profile"] == ROUTER]
    if not rr:
        return []
    if tap_counted(rr):
        what = ("Forwarding rate: the flood's datagrams that reached the host side of tap1 "
                "(`fwd_frames`, before the receiver), in Mbit/s of UDP payload, when offered "
                "SAT_OFFER, with ping through the guest at 100/s beside it (RTT under load); "
                "the PDR trials' loss is counted there too, so the receiver's socket drops "
                "judge nothing.")
    else:
        what = ("Forwarding rate: what arrived when offered SAT_OFFER, with ping through the "
                "guest at 100/s beside it (RTT under load).")
    out = ["## Router: the guest forwards eth0 -> eth1", "",
           "The host sends UDP 1470 B from tap0's netns to tap1's address through the guest "
           "(ip_forward); the receiver is in tap1's netns. %s %s: the highest offered rate "
           "with at most %s loss (bisection, "
           "confirmed by a trial twice as long). Drops by place, during the flood: the tap "
           "(FIFO), the host's qdisc (link), eth0's ring (`rx_missed`), the guest between "
           "eth0 and eth1 (forward/TX: eth0's received packets that eth1 did not send), the "
           "receiver's socket, and what no counter saw (signed). vs baseline: the pairs' "
           "ratio patched / baseline (Hodges-Lehmann; a 95 %% interval needs %d pairs)."
           % (what, PDR, schema.percent(schema.LOSS_MAX), paired.MIN_PAIRS), "",
           "| kernel | weight eth0 | weight eth1 | refill | adaptive | COST | n | forwarding "
           "Mbit/s | " + PDR + " Mbit/s | PDR confirmed | loss % | FIFO | link | ring | "
           "forward/TX | receiver socket | no place | RTT p50 ms | RTT p99 ms | ping lost | "
           "ns/pkt eth0 | forwarding vs baseline | PDR vs baseline |", "|" + "---|" * 23]
    g = group(rr, ROUTER_KEY)

    def no_place(r):
        lost = num(r.get("lost"))
        if lost is None:
            return None
        return lost - sum(num(r.get(c)) or 0 for c in (
            "fifo_drops", "link_drops", "rx_missed", "fwd_drops", "rcv_sock_drops",
            "softnet_drops"))

    if records is None:
        records = router_records(rows)

    def vs_base(runs, kind):
        if runs[0]["kernel"] == "baseline":
            return "(reference)"
        s = dict(zip(ROUTER_KEY[1:], (runs[0][c] for c in ROUTER_KEY[1:])))
        return verdicts.vs_cell(next((r for r in records if r["kind"] == kind
                                      and r["profile"] == ROUTER and r["settings"] == s),
                                     None))
    for k in sorted(g, key=lambda k: (k[0] != "baseline", int(k[5]), -int(k[1]), -int(k[2]),
                                      k[3], k[4])):
        runs = g[k]
        env = dict(zip(ROUTER_KEY, k))
        base = env["kernel"] == "baseline"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                   "%s | %s | %s | %s | %s | %s | %s | %s |" % (
                       env["kernel"], fixed("weight") if base else env["weight"],
                       "%s (fixed)" % profiles.BASELINE_WEIGHT_ETH1 if base
                       else env["weight_eth1"],
                       fixed("refill") if base else env["refill"], env["adaptive"], env["cost"],
                       n_cell(runs, ROUTER_KEY + ("role", "profile"), k + ("sweep", ROUTER)),
                       fmt(metric(runs, "mbps"), 1), fmt(metric(runs, "offered_mbps")),
                       "%d of %d" % (sum(1 for r in runs if r.get("pdr_confirmed") == "1"),
                                     len(runs)),
                       fmt(metric(runs, "loss_pct"), 1), fmt(metric(runs, "fifo_drops")),
                       fmt(metric(runs, "link_drops")), fmt(metric(runs, "rx_missed")),
                       fmt(metric(runs, "fwd_drops")), fmt(metric(runs, "rcv_sock_drops")),
                       fmt(stats([no_place(r) for r in runs])),
                       fmt(metric(runs, "rtt_p50_ms"), 3), fmt(metric(runs, "rtt_p99_ms"), 3),
                       fmt(metric(runs, "ping_lost")), fmt(metric(runs, "poll_ns_per_pkt")),
                       vs_base(runs, "router"), vs_base(runs, "pdr")))
    return out + [""]


def share_plots(rows, d, plt):
    """eth0's packet share and CPU share against its weight share, per COST;
    the diagonal is the weight's share exactly."""
    runs = share_runs(rows)
    made = []
    if not runs:
        return made
    profs = [p for p in SHARE if any(r["profile"] == p for r in runs)]
    costs = sorted({int(r["cost"]) for r in runs})
    colors = dict(zip(costs, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4))
    for name, key, ylabel, patched_only in (
            ("share_packets_vs_weight.png", "pshare", "eth0's share of the packets", False),
            ("share_cpu_vs_weight.png", "cshare",
             "eth0's share of the polls' time (RX softirq)", True)):
        fig, axes = plt.subplots(1, len(profs), figsize=(5.5 * len(profs), 4.5), squeeze=False)
        for ax, prof in zip(axes[0], profs):
            ax.plot([0, 1], [0, 1], color="0.6", ls="--", lw=1, label="weight share (ideal)")
            for c in costs:
                pr = [r for r in runs if r["profile"] == prof and int(r["cost"]) == c
                      and r["kernel"] == "patched" and r.get(key) is not None and r["wshare"]]
                if pr:
                    ax.scatter([r["wshare"] for r in pr], [r[key] for r in pr], s=14, alpha=0.6,
                               color=colors[c])
                # a line of medians per weight of eth1 (64/64 and 16/16 are both 0.5)
                w1s = sorted({int(r["weight_eth1"]) for r in pr}, reverse=True)
                for w1, ls in zip(w1s, ["-", "--", ":", "-."] * 8):
                    pw = [r for r in pr if int(r["weight_eth1"]) == w1]
                    med = sorted((ws, statistics.median(r[key] for r in pw if r["wshare"] == ws))
                                 for ws in {r["wshare"] for r in pw})
                    ax.plot([m[0] for m in med], [m[1] for m in med], color=colors[c], ls=ls,
                            marker="_", ms=12,
                            label="patched, COST %d, eth1 weight %d (median)" % (c, w1))
                br = [r for r in runs if r["profile"] == prof and int(r["cost"]) == c
                      and r["kernel"] == "baseline" and r.get(key) is not None]
                if br and not patched_only:
                    ax.scatter([0.5] * len(br), [r[key] for r in br], marker="x", s=30,
                               color=colors[c], label="baseline %s, COST %d" % (BASE_WEIGHTS, c))
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_xlabel("eth0's weight share, w0 / (w0 + w1)")
            ax.set_ylabel(ylabel)
            ax.set_title("%s: %s" % (prof, "CPU time" if patched_only else "packets"))
            ax.legend(fontsize=7, loc="upper left")
        save(plt, fig, d, name, made)
    return made


def router_plot(rows, d, plt):
    rr = [r for r in rows if r["role"] == "sweep" and r["profile"] == ROUTER]
    made = []
    if not rr:
        return made
    g = group(rr, ROUTER_KEY)
    keys = sorted(g, key=lambda k: (k[0] != "baseline", int(k[5]), -int(k[1]), -int(k[2]),
                                    k[3], k[4]))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(keys)), 4))
    for j, (col, lab) in enumerate((("mbps", "forwarding rate at SAT_OFFER"),
                                    ("offered_mbps", PDR))):
        med = [metric(g[k], col) for k in keys]
        ax.bar([i + (j - 0.5) * 0.4 for i in range(len(keys))], [m[0] if m else 0 for m in med],
               width=0.4, label=lab,
               yerr=[[m[0] - m[1] if m else 0 for m in med], [m[2] - m[0] if m else 0 for m in med]],
               capsize=3)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(["baseline" + (" c%s" % k[5] if k[5] != "0" else "") if k[0] == "baseline"
                        else "w%s/%s n%s%s%s" % (k[1], k[2], k[3], " a" if k[4] == "on" else "",
                                                 " c%s" % k[5] if k[5] != "0" else "")
                        for k in keys], rotation=45, fontsize=7)
    ax.set_ylabel("Mbit/s (median, min-max)")
    ax.set_title("router: eth0 -> eth1")
    ax.legend(fontsize=7)
    save(plt, fig, d, "router.png", made)
    return made


def save(plt, fig, d, name, made):
    fig.tight_layout()
    fig.savefig(os.path.join(d, name), dpi=90)
    plt.close(fig)
    made.append(name)


def hist_plot(rows, d, plt, made):
    h = [r for r in rows if r["role"] == "hist"]
    if not h:
        return
    g = group(h, ("profile", "kernel"))
    profs = sorted({k[0] for k in g}, reverse=True)
    fig, axes = plt.subplots(1, len(profs), figsize=(6 * len(profs), 4), squeeze=False)
    for ax, prof in zip(axes[0], profs):
        for j, kern in enumerate(("patched", "baseline")):
            runs = g.get((prof, kern))
            if not runs:
                continue
            sh = [hist_share(runs, c) for c, _ in HIST]
            xs = [i + (j - 0.5) * 0.4 for i in range(len(HIST))]
            ax.bar(xs, [v[0] if v else 0 for v in sh], width=0.4, label=kern,
                   yerr=[[v[0] - v[1] if v else 0 for v in sh],
                         [v[2] - v[0] if v else 0 for v in sh]], capsize=3)
        ax.set_xticks(range(len(HIST)))
        ax.set_xticklabels([lab for _, lab in HIST])
        ax.set_xlabel("packets per poll, share of the budget")
        ax.set_ylabel("share of polls, % (median, min-max)")
        ax.set_title("%s: napi_poll work/budget" % prof)
        ax.legend(fontsize=8)
    save(plt, fig, d, "napi_hist.png", made)


def zeroloss_plot(rows, d, plt):
    made = []
    zl = [r for r in rows if profiles.is_zero_loss(r["profile"]) and r["role"] == "sweep"]
    if zl:
        fig, ax = plt.subplots(figsize=(8, 4))
        g = group(zl, ("profile",) + CONFIG)
        keys = sorted(g)
        meds = [metric(g[k], "offered_mbps") for k in keys]
        ax.bar(range(len(keys)), [m[0] if m else 0 for m in meds],
               yerr=[[m[0] - m[1] if m else 0 for m in meds], [m[2] - m[0] if m else 0 for m in meds]])
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(["%s %s w%s n%s a%s i%s d%s" % (k[0], k[1], k[3], k[4], k[5], k[6], k[7])
                            for k in keys],
                           rotation=60, fontsize=7)
        ax.set_ylabel("zero-loss rate, Mbit/s offered")
        save(plt, fig, d, "zeroloss.png", made)
    return made


def pinning_line(p):
    if "layouts" not in p:  # sweeps before the CPU layouts
        return "iperf3 client `%s`; QEMU threads (patched) `%s`" % (
            p["iperf3_client"], p["patched_qemu_threads"])
    lay = p["layouts"][p["sweep_layout"]]
    return ("sweep runs `%s` (QEMU vCPU threads %s, other QEMU threads %s, iperf3 "
            "client %s); calibration layouts `%s`; what was applied: pinning.txt" % (
                p["sweep_layout"], lay["qemu_vcpu_threads"], lay["qemu_other_threads"],
                lay["iperf3_client"], p["calib_layouts"]))


def is_host_limited(r):
    return r["error"].startswith("host-limited") or "; host-limited" in r["error"]


def host_limited_runs(rows):
    """Every run that the host, not the guest, limited, named by profile and
    kernel (they fail: left out of every figure and verdict)."""
    hl = [r for r in rows if is_host_limited(r)]
    if not hl:
        return []
    # counted at tap1, a router run's receiver no longer decides (bench/row.py)
    router = "" if tap_counted(rows) else ", a router run whose receiver on the host dropped"
    out = ["## Host-limited runs: never counted", "",
           "%d run(s) measured the host, not the guest (bench/row.py: a share or router flood "
           "that left the guest more than %d %% idle, a share flood whose polls fell short of "
           "their quota%s): left out of every figure and verdict." % (len(hl), row.IDLE_MAX,
                                                                       router), "",
           "| profile | kernel | runs | first reason |", "|---|---|---|---|"]
    for key, runs in sorted(group(hl, ("profile", "kernel")).items()):
        out.append("| %s | %s | %d | %s |" % (key[0], key[1], len(runs),
                                               runs[0]["error"].replace("|", "/")))
    return out + [""]


def failed_runs(rows):
    bad = [r for r in rows if r["status"] != "ok" and not is_host_limited(r)]
    if not bad:
        return []
    out = ["## Failed runs (kept in runs.csv, left out of every figure)", "",
           "| kernel | role | weight | refill | profile | rep | error |",
           "|---|---|---|---|---|---|---|"]
    for r in bad:
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["kernel"], r["role"], r["weight"], r["refill"], r["profile"], r["rep"],
            r["error"].replace("|", "/")))
    return out + [""]


def runs_of(rows):
    """Runs, not rows: a share run has a row per NIC."""
    return sum(1 for r in rows if r["nic"] != "eth1")


def all_records(rows, meta, aa=False):
    """Every question this sweep answers, as verdict records (bench/verdicts.py):
    the goals (make aa: the A/A instead), the shares against their weight
    shares, the router's and the zero-loss settings' against the baseline."""
    first = resolution_rows(rows, meta) if aa else verdict_rows(rows, meta)
    return (first + band_records(share_runs(rows), complete(meta))
            + router_records(rows, meta, aa))


def sweep_records(d):
    """(meta, records) of the sweep in d, derived from its runs.csv and
    meta.json by today's code (nothing written): docs/RESULTS.md's source."""
    ALL[:], meta = load(d)
    rows = [r for r in ALL if r["status"] == "ok"]
    return meta, all_records(rows, meta, str(meta.get("aa", "0")) == "1")


def write_summary(d, md):
    """D/summary.md from the lines MD, whole or not at all."""
    tmp = os.path.join(d, ".summary.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(md))
    os.replace(tmp, os.path.join(d, "summary.md"))


def usage(msg):
    print("report: %s" % msg, file=sys.stderr)
    print("usage: make report R=results/<stamp>  (bench/report.py [--no-plots] DIR)",
          file=sys.stderr)
    return 2


def auto_note(rows, meta, recs, aa):
    """REPS=auto: how many repetitions ran and why they stopped (every
    question decided; make aa: every metric within its aim), or that
    MAX_REPS ran first."""
    if meta.get("reps") != "auto" or not complete(meta):
        return []
    reps = {r["rep"] for r in rows if r["role"] == "sweep"}
    n = max((int(x) for x in reps if x.isdigit()), default=0)
    if aa and verdicts.aa_decided(recs):
        why = "every A/A metric has an interval within its aim"
    elif not aa and verdicts.decided(recs):
        why = "every question judged is decided"
    else:
        why = "MAX_REPS %s ran first: %s" % (meta.get("max_reps"), (
            "the metrics whose aim says **not reached** stayed wider" if aa else
            "the questions still inconclusive stayed so"))
    return ["REPS=auto (%s to %s repetitions): %d ran; %s." % (
        meta.get("min_reps"), meta.get("max_reps"), n, why), ""]


def main():
    args = sys.argv[1:]
    no_plots = "--no-plots" in args
    decided_only = "--decided" in args
    args = [a for a in args if a not in ("--no-plots", "--decided")]
    if len(args) != 1:
        return usage("one results directory expected")
    d = args[0]
    if not (os.path.isfile(os.path.join(d, "runs.csv"))
            and os.path.isfile(os.path.join(d, "meta.json"))):
        return usage("%s is not a results directory (no runs.csv and meta.json)" % d)
    try:
        ALL[:], meta = load(d)
    except (OSError, ValueError, csv.Error) as e:
        return usage("cannot read %s: %s" % (d, e))
    rows = [r for r in ALL if r["status"] == "ok"]
    kernels = meta.get("kernels", {})
    aa = str(meta.get("aa", "0")) == "1"
    if decided_only:
        # REPS=auto: exit 0 (stop) once every question judged has met or
        # not_met, judged as if complete (the sweep is still running); exit 1
        # (go on) while one is open or nothing was judged. make aa stops once
        # every A/A metric has an interval within its aim
        # (verdicts.aa_decided: the widths, never the verdicts).
        recs = all_records(rows, dict(meta, status="complete"), aa)
        for r in recs:
            w = verdicts.resolution(r) if r["kind"] == "aa" else None
            print("%s %s %s%s: %s (%d %s%s)" % (
                r["kind"], r["profile"], r["metric"], " " + r["nic"] if r["nic"] else "",
                r["verdict"], r["n"], "runs" if r["kind"] == "band" else "pairs",
                "" if w is None else ", +-%.1f %%%s" % (
                    w, ", aim %d %%" % r["aim"] if r["aim"] else "")))
        if aa:
            return 0 if verdicts.aa_decided(recs) else 1
        return 0 if verdicts.decided(recs) else 1
    verdicts.write(d, all_records(rows, meta, aa))
    # Every verdict cell below comes from the records as the file holds them.
    recs = verdicts.load(os.path.join(d, "verdicts.json"))
    vtable = resolution_table(recs, meta) if aa else verdict_table(recs, meta)

    def release(k):
        return ((kernels.get(k) or {}).get("release") or "(not booted)").split()[0]
    md = []
    if not complete(meta):
        md += ["**INCOMPLETE: %d of %s runs**" % (len(rows), meta.get("runs_planned", "?")), "",
               "This sweep's status is `%s`: what it recorded is below, and no goal "
               "has a verdict." % meta.get("status"), ""]
    md += ["# Bench %s" % meta.get("started_utc", ""), "",
           "- git %s; patched `%s`, baseline `%s` (same tree and config, without our patches)"
           % (meta["git_revision"], release("patched"), release("baseline")),
           "- %s, %s; host %s (%s cores), accel %s, %s vCPU" % (
               meta["qemu"], meta["iperf3"], meta["host_cpu"], meta["host_cores"],
               meta["accel"], meta["vcpus"]),
           "- pinning: %s" % pinning_line(meta["pinning"]),
           "- parameters: %s; %s s per run" % (
               ", ".join("%s=%s" % kv for kv in meta["parameters"].items()), meta["secs"]),
           "- status %s; %d runs recorded, %d failed (left out); figures are median [min-max] "
           "over the repetitions" % (meta.get("status", "complete (recorded before the status "
                                                 "field)"), runs_of(ALL), runs_of(ALL) - runs_of(rows)), ""]
    if aa:
        md += ["A/A sweep: the baseline kernel runs in both slots (the `patched` slot "
               "is a second baseline%s), so every difference below is the lab's own noise%s." % (
                   ", built with %s bytes of text linked first" % meta["pad"] if meta.get("pad") else "",
                   " or the layout's" if meta.get("pad") else ""), ""]
    md += boots_note(rows)
    md += auto_note(ALL, meta, recs, aa)
    md += vtable
    md += disturbed(rows)
    md += host_limited_runs(ALL)
    md += failed_runs(ALL)
    md += saturation(rows)
    md += calibration(rows, meta)
    md += napi_hist(rows)
    md += zeroloss_table(rows)
    md += share_tables(rows, recs)
    md += router_table(rows, recs)
    md += ["## By profile", ""]
    for prof in profiles.ONE_NIC:
        md += profile_table(rows, prof)
    if not no_plots:
        try:
            made = plots(rows, d)
            md += ["## Plots", ""] + ["![%s](%s)" % (m, m) for m in made] + [""]
        except ImportError as e:
            md += ["(no plots: %s)" % e, ""]
    write_summary(d, md)
    # The terminal gets the verdicts (or the A/A resolution) and the tcp table.
    print("\n".join(md[:2] if not complete(meta) else []))
    print("\n".join(vtable + profile_table(rows, profiles.CALIB) + share_summary(share_runs(rows))
                    + router_table(rows, recs)))
    print("report: %s" % os.path.join(d, "summary.md"))
    if aa:
        rc, why = verdicts.aa_outcome(recs)
        if rc:
            print(why, file=sys.stderr)
        return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())

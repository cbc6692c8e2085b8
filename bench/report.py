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
import paired  # noqa: E402

CONFIG = ("kernel", "role", "weight", "refill", "adaptive", "idle_limit",
          "defer", "ring", "fifo", "link")
ENV = ("defer", "ring", "fifo", "link")  # what the baseline shares
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
    if lost is None or not r.get("sent") or r["profile"].startswith("zeroloss"):
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


def per_1000(r, key):
    pk = num(r.get("rx_packets"))
    k = num(r.get(key))
    return 1000.0 * k / pk if pk and k is not None else None


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
            ("rtt_ms", "RTT ms", 3)]
    prow = [r for r in rows if r["profile"] == prof and r["role"] == "sweep"]
    if not prow:
        return []
    paced = any(r["link"] != "none" for r in prow)
    present = [c for c in cols if (c[0] != "link_drops" or paced) and (
        any(num(r.get(c[0])) is not None for r in prow)
        or (c[0] == "loss_pct" and any(r.get("sent") for r in prow))
        or (c[0] == "unattributed" and not prof.startswith("zeroloss")
            and any(r.get("sent") for r in prow))
        or (c[0] == "irq_per_1000")
        or (c[0] in ("refills_per_1000", "cpu_us_per_pkt")
            and any(value(r, c[0]) is not None for r in prow))
        or (c[0] == "kpps" and prof == "udp64"))]
    calib = prof in ("tcp", "tcp4") and any(r["role"] == "calib" for r in rows)
    out = ["### %s" % prof, "",
           "| kernel | weight | refill | adaptive | idle limit | defer | ring | fifo | link | n | " +
           " | ".join(c[1] for c in present) + " | Mbit/s vs baseline | FIFO drops vs baseline |"
           + (" of calibration |" if calib else ""),
           "|" + "---|" * (10 + len(present) + 2 + calib)]
    g = group(prow, CONFIG)
    for cfg in sorted(g, key=lambda c: (c[0] != "baseline", int(c[7]), int(c[8]), c[9],
                                        int(c[6]), c[4], c[5], c[3], int(c[2]))):
        runs = g[cfg]
        base = baseline_for(rows, cfg, prof)
        env = dict(zip(CONFIG, cfg))
        cells = [fmt(metric(runs, c[0]), c[2]) for c in present]
        rv = [ratio(metric(runs, "mbps"), metric(base, "mbps")),
              ratio(metric(runs, "fifo_drops"), metric(base, "fifo_drops"))]
        if env["kernel"] == "baseline":
            rv = ["(reference)", "(reference)"]
            w = n = "64 (fixed)"
            n = "16 (fixed)"
        else:
            w, n = env["weight"], env["refill"]
        frac = ""
        if calib:
            c = calib_mbps(rows, dict(env, pin=runs[0]["pin"]))
            m = metric(runs, "mbps")
            frac = " %s |" % ("%.2f" % (m[0] / c) if c and m else "-")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s" % (
            env["kernel"], w, n, env["adaptive"], env["idle_limit"], env["defer"], env["ring"],
            env["fifo"], env["link"], n_cell(runs, CONFIG + ("role", "profile"), cfg + ("sweep", prof)),
            " | ".join(cells), " | ".join(rv), frac))
    out.append("")
    return out


def defaults_cfg(rows):
    """The patched kernel at its defaults: weight 64, refill 16, adaptive off."""
    return [r for r in rows if r["kernel"] == "patched" and r["role"] == "sweep"
            and r["weight"] == "64" and r["refill"] == "16"
            and r["adaptive"] == "off" and r["idle_limit"] == "0"
            and r["defer"] == "0"]


def value(r, key):
    """One run's value of a metric (None when the run lacks it)."""
    if key == "irq_per_1000":
        return per_1000(r, "irqs")
    if key == "refills_per_1000":
        return per_1000(r, "rx_refills")
    if key == "cpu_busy":
        return 100.0 - num(r["cpu_idle"]) if num(r.get("cpu_idle")) is not None else None
    if key == "kpps":  # datagrams received per second, in thousands
        sent, lost, secs = num(r.get("sent")), num(r.get("lost")), num(r.get("secs"))
        return (sent - lost) / secs / 1000.0 if sent and lost is not None and secs else None
    if key == "pdr_kpps":  # the PDR rate found, 64 B payloads
        v = num(r.get("offered_mbps"))
        return v * 1e6 / (64 * 8) / 1000.0 if v is not None else None
    if key == "pdr_mbps":
        return num(r.get("offered_mbps"))
    return num(r.get(key))


# The goals of docs/results.md: (metric, label, profile, target, estimator).
# "No worse" goals carry their margin in the target (<= 1.05x).
GOALS = (
    ("pdr_mbps", "PDR 0.1 % rate, 1470 B (Mbit/s)", "zeroloss1470", ">= 1.25x", "ratio"),
    ("pdr_kpps", "PDR 0.1 % rate, 64 B payload / 106 B frame (kpps)", "zeroloss64",
     ">= 1.25x", "ratio"),
    ("mbps", "TCP 1 stream (Mbit/s)", "tcp", ">= 1.25x", "ratio"),
    ("fifo_drops", "TCP 1 stream FIFO drops", "tcp", "<= 0.5x", "count"),
    ("rtt_p99_ms", "TCP: ping RTT p99 under load (no worse)", "tcp", "<= 1.05x", "ratio"),
    ("cpu_us_per_pkt", "TCP: guest CPU per packet (no worse)", "tcp", "<= 1.05x", "ratio"),
    ("lost", "UDP 1470 B lost datagrams", "udp1470", "<= 0.5x", "count"),
    ("irq_per_1000", "UDP 1470 B interrupts per 1000 packets", "udp1470", "<= 0.5x", "ratio"),
    ("cpu_busy", "idle: guest CPU busy % (no worse)", "idle", "<= 1.05x", "ratio"),
    ("rtt_ms", "idle: ping RTT (no worse)", "idle", "<= 1.05x", "ratio"),
)

# What `make aa` reports as the lab's resolution: (metric, label, profile,
# the resolution the lab aims at in %, or None).
RESOLUTION = (
    ("mbps", "TCP throughput", "tcp", 5),
    ("mbps", "UDP 1470 B throughput", "udp1470", 5),
    ("kpps", "UDP 64 B packet rate", "udp64", 5),
    ("irq_per_1000", "TCP interrupts per 1000 packets", "tcp", 10),
    ("irq_per_1000", "UDP 1470 B interrupts per 1000 packets", "udp1470", 10),
    ("cpu_us_per_pkt", "TCP CPU per packet", "tcp", 10),
    ("cpu_us_per_pkt", "UDP 1470 B CPU per packet", "udp1470", 10),
    ("rtt_p99_ms", "TCP ping RTT p99 under load", "tcp", None),
)


def goal_env(rows):
    """The goals' setting: ring 256, FIFO 32, the first link mode swept."""
    sw = [r for r in rows if r["role"] == "sweep"]

    def pick(col, want):
        have = sorted({r[col] for r in sw},
                      key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else v))
        return want if want in have else (have[0] if have else want)
    links = [r["link"] for r in sw]
    return {"ring": pick("ring", "256"), "fifo": pick("fifo", "32"),
            "link": links[0] if links else "none"}


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
    out = []
    for k in sorted(set(p) & set(b)):
        x, y = value(p[k], key), value(b[k], key)
        if x is not None and y is not None:
            out.append((x, y))
    return out


def config_label(env, meta):
    link = env["link"]
    if link != "none":
        link = "%s/%s" % (link, meta.get("parameters", {}).get("LINK_BURST") or "?")
    return "weight 64, refill 16, adaptive off, defer 0, ring %s, FIFO %s, link %s" % (
        env["ring"], env["fifo"], link)


def verdict_rows(rows, meta):
    """verdicts.json: one object per goal measured in this sweep."""
    env = goal_env(rows)
    cfg = config_label(env, meta)
    todo = []
    for key, label, prof, target, kind in GOALS:
        pr = pairs_of(rows, prof, key, env)
        if not pr and not any(r["profile"] == prof for r in ALL):
            continue  # not part of this sweep
        todo.append(dict(metric=key, profile=prof, config=cfg, target=target, kind=kind,
                         pairs=pr, label=label))
    out = paired.judge(todo, complete=complete(meta))
    for o, g in zip(out, todo):
        o["_label"] = g["label"]
    return out


def resolution_rows(rows, meta):
    """A/A: every comparison must contain 1.0; the half-widths are the lab's
    resolution."""
    env = goal_env(rows)
    cfg = config_label(env, meta)
    out = []
    for key, label, prof, aim in RESOLUTION:
        pr = pairs_of(rows, prof, key, env)
        if not pr:
            continue
        c = paired.compare(pr, ">= 1.0x")
        ok = c["ci_low"] is not None and c["ci_low"] <= 1.0 <= c["ci_high"]
        out.append({"metric": key, "profile": prof, "config": cfg, "ratio": c["ratio"],
                    "ci_low": c["ci_low"], "ci_high": c["ci_high"], "n_pairs": c["n_pairs"],
                    "p_holm": None, "target": "contains 1.0 (A/A)",
                    "verdict": ("met" if ok else "not_met") if complete(meta) else "incomplete",
                    "_label": label, "_note": c["note"], "_aim": aim})
    return out


def finite(v):
    return None if v is None or math.isinf(v) else v


def write_verdicts(d, vrows):
    keys = ("metric", "profile", "config", "ratio", "ci_low", "ci_high", "n_pairs",
            "p_holm", "target", "verdict")
    data = [{k: finite(r[k]) if k in ("ratio", "ci_low", "ci_high", "p_holm") else r[k]
             for k in keys} for r in vrows]
    for o in data:  # an unbounded interval (fewer than 6 pairs) has no ends
        if o["ci_high"] is None:
            o["ci_low"] = None
    tmp = os.path.join(d, ".verdicts.json.tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
    os.replace(tmp, os.path.join(d, "verdicts.json"))


def ci_text(r):
    if r["ci_low"] is None:
        return "-"
    if math.isinf(r["ci_high"]):
        return "unbounded (< 6 pairs)"
    return "%.3f - %.3f" % (r["ci_low"], r["ci_high"])


def verdict_table(vrows, meta):
    if not vrows:
        return []
    env_line = vrows[0]["config"]
    out = ["## Verdicts: patched at its defaults vs baseline, paired (%s)" % env_line, "",
           "Each pair is one patched and one baseline run of the same profile, back to "
           "back in random order, the other guest paused. Ratio: patched / baseline "
           "(Hodges-Lehmann over the pairs' log ratios, or the ratio of means for counts "
           "that can be 0), its 95 % interval, and the one-sided p of the goal "
           "Holm-corrected over the goals (bench/paired.py). `met`: the whole interval is "
           "beyond the target; `not_met`: the whole interval is on the wrong side; "
           "otherwise `inconclusive`.", "",
           "| goal | pairs | ratio | 95 % CI | p (Holm) | target | verdict |",
           "|---|---|---|---|---|---|---|"]
    for r in vrows:
        note = " (%s)" % r["_note"] if r.get("_note") else ""
        out.append("| %s | %d | %s | %s | %s | %s | **%s**%s |" % (
            r["_label"], r["n_pairs"], "%.3fx" % r["ratio"] if r["ratio"] is not None else "-",
            ci_text(r), "%.3g" % r["p_holm"] if r["p_holm"] is not None else "-",
            r["target"], r["verdict"], note))
    src = meta.get("udp1470_rate_source", "given")
    if any(r["profile"] == "udp1470" for r in vrows):
        if src.startswith("half"):
            out += ["", "The UDP 1470 B goals are measured at %s, half the baseline's median "
                    "saturation rate (%s Mbit/s received when offered %s)." % (
                        meta["udp1470_rate"], meta["saturation"]["baseline_median_mbps"],
                        meta["saturation"]["offered"])]
        else:
            out += ["", "The UDP 1470 B goals are stated at half the baseline's saturation "
                    "rate; this sweep was given UDP1470_RATE=%s instead." %
                    meta.get("udp1470_rate", "?")]
    return out + [""]


def resolution_table(rrows):
    if not rrows:
        return []
    broken = [r for r in rrows if r["verdict"] == "not_met"]
    out = ["## A/A: the lab's resolution (baseline kernel in both slots)", ""]
    if broken:
        out += ["**THE METHOD IS BROKEN: %d A/A interval(s) exclude 1.0 (%s). Two "
                "identical kernels differ here; no verdict of this lab can be trusted until "
                "that is explained.**" % (len(broken), ", ".join(r["_label"] for r in broken)),
                ""]
    out += ["| metric | pairs | ratio | 95 % CI | resolution (CI half-width) | aim | "
            "contains 1.0 |", "|---|---|---|---|---|---|---|"]
    for r in rrows:
        hw, aim = "-", "-"
        if r["ci_low"] is not None and not math.isinf(r["ci_high"]) and r["ci_low"] > 0:
            w = 50.0 * (r["ci_high"] - r["ci_low"]) / r["ratio"]
            hw = "+-%.1f %%" % w
            if r["_aim"]:
                aim = "<= %d %%: %s" % (r["_aim"], "reached" if w <= r["_aim"] else "**not reached**")
        elif r["_aim"]:
            aim = "<= %d %%: no interval" % r["_aim"]
        out.append("| %s | %d | %s | %s | %s | %s | %s |" % (
            r["_label"], r["n_pairs"], "%.3fx" % r["ratio"] if r["ratio"] is not None else "-",
            ci_text(r), hw, aim, {"met": "yes", "not_met": "**NO**"}.get(r["verdict"], r["verdict"])))
    return out + [""]


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
           "hist trigger on napi:napi_poll)", "",
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
    zl = [r for r in rows if r["role"] == "sweep" and r["profile"].startswith("zeroloss")
          and r.get("zl_trials")]
    if not zl:
        return []
    out = ["## Zero-loss: what ended the bisection", "",
           "Per configuration: the rate found (highest offered rate with at most 0.1 % "
           "loss), the lowest rate that lost more, and where that trial's datagrams died "
           "(counted around that trial alone); median [min-max] over the repetitions.", "",
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
            env["profile"][len("zeroloss"):] + " B", env["kernel"],
            "64 (fixed)" if base else env["weight"], "16 (fixed)" if base else env["refill"],
            env["adaptive"], env["idle_limit"], env["defer"], env["ring"], env["fifo"],
            env["link"], fmt(metric(runs, "offered_mbps")),
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

    profs = [p for p in ("tcp", "tcp4", "udp1470", "udp64", "idle")
             if any(r["profile"] == p for r in rows)]
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
        drawn = False
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
                drawn = True
            brows = [r for r in rows if r["kernel"] == "baseline"
                     and r["role"] == "sweep" and r["profile"] == prof]
            styles = iter(["--", ":", "-.", (0, (1, 4))] * 8)
            for env, runs in sorted(group(brows, ("defer", "ring")).items()):
                base = metric(runs, key)
                if base:
                    ax.axhline(base[0], color="k", ls=next(styles),
                               label="baseline w64 defer %s ring %s (median; points: runs)" % env)
                    left = min((int(r["weight"]) for r in rows if r["kernel"] == "patched"
                                and r["role"] == "sweep"), default=64)
                    bv = [value(r, key) for r in runs if value(r, key) is not None]
                    ax.scatter([left * 0.8] * len(bv), bv, s=10, marker="x", color="k")
                    drawn = True
            ax.set_xscale("log", base=2)
            ax.set_xlabel("weight")
            ax.set_ylabel(ylabel)
            ax.set_title("%s: %s" % (prof, title))
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        save(plt, fig, d, name, made)

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
    zl = [r for r in rows if r["profile"].startswith("zeroloss") and r["role"] == "sweep"]
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


def failed_runs(rows):
    bad = [r for r in rows if r["status"] != "ok"]
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


def usage(msg):
    print("report: %s" % msg, file=sys.stderr)
    print("usage: make report R=results/<stamp>  (bench/report.py [--no-plots] DIR)",
          file=sys.stderr)
    return 2


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
        # REPS=auto: exit 0 once every goal measured has met or not_met
        # (judged as if complete: the sweep is still running).
        meta = dict(meta, status="complete")
        vrows = resolution_rows(rows, meta) if aa else verdict_rows(rows, meta)
        for r in vrows:
            print("%s %s: %s (%d pairs)" % (r["profile"], r["metric"], r["verdict"], r["n_pairs"]))
        return 0 if aa or paired.decided(vrows) else 1
    vrows = resolution_rows(rows, meta) if aa else verdict_rows(rows, meta)
    write_verdicts(d, vrows)
    vtable = resolution_table(vrows) if aa else verdict_table(vrows, meta)

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
                                                 "field)"), len(ALL), len(ALL) - len(rows)), ""]
    if aa:
        md += ["A/A sweep: the baseline kernel runs in both slots (the `patched` slot "
               "is a second baseline), so every difference below is the lab's own noise.", ""]
    md += vtable
    md += disturbed(rows)
    md += failed_runs(ALL)
    md += saturation(rows)
    md += calibration(rows, meta)
    md += napi_hist(rows)
    md += zeroloss_table(rows)
    md += ["## By profile", ""]
    for prof in ("tcp", "tcp4", "udp1470", "udp64", "zeroloss1470", "zeroloss64", "idle"):
        md += profile_table(rows, prof)
    if not no_plots:
        try:
            made = plots(rows, d)
            md += ["## Plots", ""] + ["![%s](%s)" % (m, m) for m in made] + [""]
        except ImportError as e:
            md += ["(no plots: %s)" % e, ""]
    tmp = os.path.join(d, ".summary.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(md))
    os.replace(tmp, os.path.join(d, "summary.md"))
    # The terminal gets the verdicts (or the A/A resolution) and the tcp table.
    print("\n".join(md[:2] if not complete(meta) else []))
    print("\n".join(vtable + profile_table(rows, "tcp")))
    print("report: %s" % os.path.join(d, "summary.md"))
    if aa and any(r["verdict"] == "not_met" for r in vrows):
        print("report: A/A FAILED: an interval excludes 1.0 between two identical kernels",
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
import os
import statistics
import sys
from collections import defaultdict

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
    if key == "irq_per_1000":
        return stats([per_1000(r, "irqs") for r in runs])
    if key == "cpu_busy":
        return stats([100.0 - num(r["cpu_idle"]) if num(r.get("cpu_idle")) is not None
                      else None for r in runs])
    if key == "unattributed":
        return stats([unattributed(r) for r in runs])
    if key == "loss_pct":
        return stats([100.0 * num(r["lost"]) / num(r["sent"])
                      if num(r.get("sent")) else None for r in runs])
    return stats([num(r.get(key)) for r in runs])


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
            ("irq_per_1000", "irq/1000 pkt", 1), ("cpu_softirq", "softirq %", 1),
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
        or (c[0] == "irq_per_1000"))]
    out = ["### %s" % prof, "",
           "| kernel | weight | refill | adaptive | idle limit | defer | ring | fifo | link | n | " +
           " | ".join(c[1] for c in present) + " | Mbit/s vs baseline | FIFO drops vs baseline |",
           "|" + "---|" * (10 + len(present) + 2)]
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
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            env["kernel"], w, n, env["adaptive"], env["idle_limit"], env["defer"], env["ring"],
            env["fifo"], env["link"], n_cell(runs, CONFIG + ("role", "profile"), cfg + ("sweep", prof)),
            " | ".join(cells), " | ".join(rv)))
    out.append("")
    return out


def defaults_cfg(rows):
    """The patched kernel at its defaults: weight 64, refill 16, adaptive off."""
    return [r for r in rows if r["kernel"] == "patched" and r["role"] == "sweep"
            and r["weight"] == "64" and r["refill"] == "16"
            and r["adaptive"] == "off" and r["idle_limit"] == "0"
            and r["defer"] == "0"]


def goals(rows, meta):
    sw = [r for r in rows if r["role"] == "sweep"]

    def pick(col, want):
        have = sorted({r[col] for r in sw}, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else v))
        return want if want in have else have[0]
    # The goals' setting: ring 256, FIFO 32, no pacing, where swept.
    ring, fifo, link = pick("ring", "256"), pick("fifo", "32"), pick("link", "none")
    env = {"ring": ring, "fifo": fifo, "link": link}
    p = [r for r in defaults_cfg(rows) if all(r[k] == v for k, v in env.items())]
    b = [r for r in sw if r["kernel"] == "baseline" and r["defer"] == "0"
         and all(r[k] == v for k, v in env.items())]
    lines = ["## Goals: patched at its defaults (weight 64, refill 16, adaptive off, "
             "idle limit 0) vs baseline, ring %s, FIFO %s, link %s, same run"
             % (ring, fifo, link), "",
             "| goal | patched | baseline | ratio | paired ratio (reps) | target | met |",
             "|---|---|---|---|---|---|---|"]
    done = complete(meta)

    def paired(pr, br, key):
        """Ratio of patched to baseline within each repetition: the two ran
        minutes apart, so drift between repetitions cancels."""
        out = []
        for rep in sorted({r["rep"] for r in pr} & {r["rep"] for r in br}):
            x = metric([r for r in pr if r["rep"] == rep], key)
            y = metric([r for r in br if r["rep"] == rep], key)
            if x is not None and y is not None and y[0]:
                out.append(x[0] / y[0])
        s = stats(out)
        return "%.2fx [%.2f-%.2f] (%d)" % (s + (len(out),)) if s else "-"

    def row(name, key, prof, target, better_high=True, digits=1):
        pr = [r for r in p if r["profile"] == prof]
        br = [r for r in b if r["profile"] == prof]
        a, c = metric(pr, key), metric(br, key)
        if a is None or c is None:
            lines.append("| %s | - | - | - | - | %s | %s |" % (
                name, target, "not measured in this sweep" if done else "incomplete"))
            return
        if c[0] == 0:
            r = "-"
            if not a[0]:  # 0 is the best a lower-is-better figure can do
                met = "yes (both 0)" if not better_high else "**no** (both 0)"
            else:  # no ratio; a higher-is-better figure above 0 beats it
                met = "yes (baseline 0)" if better_high else "**no** (baseline 0)"
        else:
            rv = a[0] / c[0]
            r = "%.2fx" % rv
            t = float(target.strip("<>= x"))
            met = "yes" if (rv >= t if better_high else rv <= t) else "**no**"
        if (a[0] or c[0]) and a[1] <= c[2] and c[1] <= a[2]:  # both 0 needs no caveat
            met += " (min-max ranges overlap: not significant)"
        if not done:
            met = "incomplete"
        lines.append("| %s | %s (n=%d) | %s (n=%d) | %s | %s | %s | %s |" % (
            name, fmt(a, digits), len(pr), fmt(c, digits), len(br), r, paired(pr, br, key),
            target, met))

    row("zero-loss rate 1470 B (Mbit/s)", "offered_mbps", "zeroloss1470", ">= 1.25x")
    row("zero-loss rate 64 B (Mbit/s)", "offered_mbps", "zeroloss64", ">= 1.25x")
    row("TCP 1 stream (Mbit/s)", "mbps", "tcp", ">= 1.25x")
    row("TCP 1 stream FIFO drops", "fifo_drops", "tcp", "<= 0.5x", False, 0)
    src = meta.get("udp1470_rate_source", "given")
    at = "%s offered" % meta.get("udp1470_rate", "?")
    row("UDP 1470 B lost packets (%s)" % at, "lost", "udp1470", "<= 0.5x", False, 0)
    row("UDP 1470 B interrupts per 1000 packets (%s)" % at, "irq_per_1000", "udp1470",
        "<= 0.5x", False)
    row("idle: guest CPU busy % (100 - idle)", "cpu_busy", "idle", "<= 1.0x", False, 2)
    row("idle: ping RTT (ms)", "rtt_ms", "idle", "<= 1.0x", False, 3)
    if src.startswith("half"):
        note = ("The UDP goals are measured at %s, half the baseline's median saturation "
                "rate (%s Mbit/s received when offered %s; see Saturation)."
                % (meta["udp1470_rate"], meta["saturation"]["baseline_median_mbps"],
                   meta["saturation"]["offered"]))
    else:
        note = ("The UDP goals are stated at half the baseline's saturation rate; this "
                "sweep was given UDP1470_RATE=%s instead (stated in runs.csv as "
                "offered_mbps)." % meta.get("udp1470_rate", "?"))
    lines += ["", note, ""]
    return lines


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
        fig, axes = plt.subplots(1, len(profs), figsize=(5 * len(profs), 4), squeeze=False)
        for ax, prof in zip(axes[0], profs):
            for s, runs in sorted(series(rows, prof).items()):
                xs, ys, err = by_weight(runs, lambda rr: metric(rr, key))
                if xs:
                    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3,
                                label="refill %s adaptive %s idle %s defer %s ring %s" % s)
            brows = [r for r in rows if r["kernel"] == "baseline"
                     and r["role"] == "sweep" and r["profile"] == prof]
            styles = iter(["--", ":", "-.", (0, (1, 4))] * 8)
            for env, runs in sorted(group(brows, ("defer", "ring")).items()):
                base = metric(runs, key)
                if base:
                    ax.axhline(base[0], color="k", ls=next(styles),
                               label="baseline w64 defer %s ring %s" % env)
                    ax.axhspan(base[1], base[2], color="k", alpha=0.06)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("weight")
            ax.set_ylabel(ylabel)
            ax.set_title("%s: %s" % (prof, title))
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        save(plt, fig, d, name, made)

    if not profs:
        return made + zeroloss_plot(rows, d, plt)
    line_plot("throughput_vs_weight.png", "mbps", "Mbit/s (median, min-max)", "throughput")
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
    args = [a for a in args if a != "--no-plots"]
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
    md += goals(rows, meta)
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
    # The terminal gets the goals and the tcp table.
    print("\n".join(md[:2] if not complete(meta) else []))
    print("\n".join(goals(rows, meta) + profile_table(rows, "tcp")))
    print("report: %s" % os.path.join(d, "summary.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

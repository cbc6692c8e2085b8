#!/usr/bin/python3
"""The same sweep on two kernel trees, side by side (issue 22).

    /usr/bin/python3 bench/trees.py R_A R_B [--out FILE.md] [--json FILE.json]

R_A and R_B are results directories of the same plain `make` (or `make
bench`) run with LINUX=6.1 and LINUX=6.12 (their meta.json says which).
For each kernel (baseline, patched) and profile, each metric's median
[min-max] over the ok sweep runs of either tree, the ratio B / A of the
medians and a 95 % interval for it: Hodges-Lehmann over all cross-tree
pairs of log values, with the Moses (Mann-Whitney) interval. That is an
unpaired comparison of two sweeps run one after the other: the time
between them, the code and the layout of the images all differ at once,
so "differs" says the trees' images behave differently on this host at
that hour, not why. Within each tree the sweep's own paired verdicts
(patched / baseline) are copied from verdicts.json, so that "do the
patches behave the same on both trees" compares like with like. The
records (--json: one per kernel, profile and metric, kind "tree", verdict
differs, no_difference or no_interval) are what the Markdown is rendered
from.

Needs at least MIN_N runs per tree and cell for an interval; a cell with
fewer, or a sweep that did not complete, gets none.

Paired, when R_A and R_B are the two halves of one sweep of both trees
(`make bench LINUX="6.1 6.12"`: their meta.json name the same "trees",
start and seed). That sweep booted the four kernels and ran one plan on
both trees, each pair's two runs on one tree right before or after the
other tree's, so a run of 6.12 has a twin of the same kernel, profile and
settings on 6.1 minutes apart, with the same pair id. The ratio is then
B / A over those twins, the Hodges-Lehmann estimate with its Wilcoxon
interval (bench/paired.py, as the sweep's own verdicts), per setting:
the drift of the host cancels inside a pair; code and layout still differ
at once. MIN_PAIRS twins (6) give an interval.
"""
import argparse
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired  # noqa: E402
import report  # noqa: E402

MIN_N = 6
Z95 = 1.959963984540054

# (key of report.value, label, the kernels that have it: the baseline has
# none of the series' counters)
METRICS = (
    ("mbps", "Mbit/s", ("baseline", "patched")),
    ("fifo_drops", "FIFO drops", ("baseline", "patched")),
    ("irq_per_1000", "irq/1000 pkt", ("baseline", "patched")),
    ("cpu_us_per_pkt", "CPU us/pkt", ("baseline", "patched")),
    ("rtt_p99_ms", "RTT p99 ms", ("baseline", "patched")),
    ("time_squeeze", "time_squeeze", ("baseline", "patched")),
    ("work_per_poll", "packets/poll", ("patched",)),
    ("quota_full_per_1000", "full polls/1000", ("patched",)),
    ("ring_exhausted", "ring exhausted", ("patched",)),
)


def moses(a, b, alpha_z=Z95):
    """Ratio median(b)/median(a) as Hodges-Lehmann of log(b_j) - log(a_i)
    over all pairs, with its Moses interval; None when a value is <= 0 or
    a side has fewer than MIN_N values. Returns (ratio, low, high)."""
    if len(a) < MIN_N or len(b) < MIN_N or min(a + b) <= 0:
        return None
    d = sorted(math.log(y) - math.log(x) for x in a for y in b)
    m, n = len(a), len(b)
    k = int(math.floor(m * n / 2.0 - alpha_z * math.sqrt(m * n * (m + n + 1) / 12.0)))
    if k < 1:
        return None
    return (math.exp(statistics.median(d)), math.exp(d[k - 1]), math.exp(d[m * n - k]))


# What a pair's runs share besides kernel and profile (bench/plan.py's axes,
# and the NIC of a two-NIC row): the settings a paired cell is made of.
AXES = ("weight", "refill", "adaptive", "defer", "ring", "fifo", "link", "cost",
        "weight_eth1", "netdev_budget", "netdev_budget_usecs", "threaded", "nic")


def one_sweep(ma, mb):
    """Whether two meta.json are the halves of one sweep of both trees."""
    t = ma.get("trees")
    return bool(t) and t == mb.get("trees") and all(
        ma.get(k) == mb.get(k) for k in ("started_utc", "bench_seed"))


def setting(r):
    return tuple(r.get(k) or "" for k in AXES)


def twins(ra, rb, kernel, profile, key):
    """{setting: [(a, b)]}: each ok sweep run of A with its twin in B (same
    kernel, profile, settings and pair id), by METRIC key; a twin missing or
    without the value leaves the pair out."""
    def index(rows):
        out = {}
        for r in rows:
            if r["status"] == "ok" and r["role"] == "sweep" and r["kernel"] == kernel \
                    and r["profile"] == profile:
                v = report.value(r, key)
                if v is not None and math.isfinite(v):
                    out[(setting(r), r.get("pair"))] = v
        return out
    ia, ib = index(ra), index(rb)
    res = {}
    for (st, pair), va in sorted(ia.items()):
        if (st, pair) in ib:
            res.setdefault(st, []).append((va, ib[(st, pair)]))
    return res


def settings_label(profile_settings, st):
    """The axes that vary among a profile's settings, as "weight 16, cost 0"
    (empty when it has one)."""
    vary = [i for i, k in enumerate(AXES) if len({x[i] for x in profile_settings}) > 1]
    return ", ".join("%s %s" % (AXES[i], st[i]) for i in vary)


def cell(rows, kernel, profile, key):
    return [v for v in (report.value(r, key) for r in rows
                        if r["status"] == "ok" and r["role"] == "sweep"
                        and r["kernel"] == kernel and r["profile"] == profile)
            if v is not None and math.isfinite(v)]


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.2f" % v


def summary(vals):
    if not vals:
        return "-"
    return "%s [%s-%s] (n=%d)" % (fmt(statistics.median(vals)), fmt(min(vals)), fmt(max(vals)), len(vals))


def records(a_dir, b_dir):
    """The comparison as data: {"trees", "sweeps", "complete", "offered",
    "verdicts": one record per kernel, profile and metric (kind "tree")}.
    The Markdown (render()) is made from it, never the other way."""
    # read as bench/report.py reads a sweep: its status rules (the
    # host-limited rule among them) applied
    (ra, ma), (rb, mb) = report.load(a_dir), report.load(b_dir)
    ta, tb = ma.get("linux") or "A", mb.get("linux") or "B"
    if ta == tb:
        ta, tb = ta + " (A)", tb + " (B)"
    complete = ma.get("status") == "complete" and mb.get("status") == "complete"
    is_paired = one_sweep(ma, mb)
    doc = {"schema": 1, "trees": [ta, tb], "complete": complete,
           "sweeps": [{"tree": t, "dir": os.path.basename(os.path.normpath(d)),
                       "status": m.get("status"), "git": m.get("git_revision", "?")}
                      for m, d, t in ((ma, a_dir, ta), (mb, b_dir, tb))],
           "offered": {}, "verdicts": [],
           "within": [verdicts(a_dir), verdicts(b_dir)]}
    if is_paired:  # unpaired records (sweeps 39-40) stay as recorded
        doc["paired"] = True
    for prof in sorted({r["profile"] for r in ra + rb if r["role"] == "sweep"}):
        doc["offered"][prof] = [[o for o in sorted({r["offered_mbps"] for r in rs
                                                    if r["status"] == "ok" and r["profile"] == prof
                                                    and r["role"] == "sweep"}) if o]
                                for rs in (ra, rb)]
        if is_paired:
            doc["verdicts"] += paired_records(ra, rb, prof, complete)
            continue
        for kernel in ("baseline", "patched"):
            for key, label, kernels in METRICS:
                if kernel not in kernels:
                    continue
                va, vb = cell(ra, kernel, prof, key), cell(rb, kernel, prof, key)
                if not va and not vb:
                    continue
                rec = {"kind": "tree", "profile": prof, "kernel": kernel, "metric": key,
                       "label": label, "a": va, "b": vb, "ratio": None, "ci_low": None,
                       "ci_high": None, "verdict": "no_interval"}
                c = moses(va, vb) if complete else None
                if c is None:
                    if va and vb and statistics.median(va):
                        rec["ratio"] = statistics.median(vb) / statistics.median(va)
                else:
                    rec["ratio"], rec["ci_low"], rec["ci_high"] = c
                    rec["verdict"] = "differs" if (c[1] > 1 or c[2] < 1) else "no_difference"
                doc["verdicts"].append(rec)
    return doc


def paired_records(ra, rb, prof, complete):
    """The records of one profile of a sweep of both trees: per kernel,
    setting and metric, the twins' ratio B / A (bench/paired.py's
    Hodges-Lehmann with its Wilcoxon interval; a count with a zero, the
    ratio of the means with its bootstrap interval)."""
    out = []
    for kernel in ("baseline", "patched"):
        for key, label, kernels in METRICS:
            if kernel not in kernels:
                continue
            cells = twins(ra, rb, kernel, prof, key)
            for st, pairs in sorted(cells.items()):
                rec = {"kind": "tree", "profile": prof, "kernel": kernel, "metric": key,
                       "label": label, "setting": dict(zip(AXES, st)),
                       "a": [a for a, _ in pairs], "b": [b for _, b in pairs], "n": len(pairs),
                       "ratio": None, "ci_low": None, "ci_high": None, "verdict": "no_interval"}
                c = paired.compare([(b, a) for a, b in pairs], ">= 1x")
                rec["ratio"] = c["ratio"]
                if complete and c["ci_low"] is not None and c["ci_low"] > 0 \
                        and math.isfinite(c["ci_high"]):
                    rec["ci_low"], rec["ci_high"] = c["ci_low"], c["ci_high"]
                    rec["verdict"] = "differs" if (c["ci_low"] > 1 or c["ci_high"] < 1) \
                        else "no_difference"
                out.append(rec)
    return out


WORDS = {"differs": "differs", "no_difference": "no difference seen",
         "no_interval": "no interval"}


def render(doc):
    """The Markdown of records(), as lines."""
    ta, tb = doc["trees"]
    out = ["# %s against %s: the same sweep on two trees" % (tb, ta), ""]
    for sw in doc["sweeps"]:
        out.append("- %s: `%s`, status %s, git %s" % (sw["tree"], sw["dir"], sw["status"], sw["git"]))
    incomplete = "" if doc["complete"] else " **A sweep is not complete: no intervals.**"
    if doc.get("paired"):
        out += ["", "Paired: one sweep booted the four kernels and ran each pair on both",
                "trees back to back, in an order drawn at random; each ratio is over the",
                "twins (same kernel, profile, settings and pair), so the host's drift",
                "cancels inside a pair, but code and layout still differ at once: an",
                "interval that excludes 1 says the trees' images behave differently",
                "here, not why. 95 %% each, no correction for their number.%s" % incomplete, ""]
    else:
        out += ["", "Unpaired: the two sweeps ran one after the other, so time, code and",
                "layout differ at once; an interval that excludes 1 says the images",
                "behave differently here, not why.%s" % incomplete, ""]
    for prof, (oa, ob) in doc["offered"].items():
        if doc.get("paired"):
            out += render_paired(doc, prof, oa, ob)
            continue
        out.append("## %s" % prof)
        if oa != ob:
            out.append("")
            out.append("Offered load differs (%s: %s, %s: %s Mbit/s: each sweep's half of its own "
                       "baseline's saturation), so rates and drops are not like for like." % (
                           ta, "/".join(oa) or "-", tb, "/".join(ob) or "-"))
        out += ["", "| kernel | metric | %s | %s | %s / %s | 95 %% CI | |" % (ta, tb, tb, ta),
                "|---|---|---|---|---|---|---|"]
        for rec in (r for r in doc["verdicts"] if r["profile"] == prof):
            if rec["ci_low"] is None:
                out.append("| %s | %s | %s | %s | %s | - | %s |" % (
                    rec["kernel"], rec["label"], summary(rec["a"]), summary(rec["b"]),
                    "-" if rec["ratio"] is None else "%.2fx" % rec["ratio"], WORDS[rec["verdict"]]))
            else:
                out.append("| %s | %s | %s | %s | %.2fx | %.2f - %.2f | %s |" % (
                    rec["kernel"], rec["label"], summary(rec["a"]), summary(rec["b"]),
                    rec["ratio"], rec["ci_low"], rec["ci_high"], WORDS[rec["verdict"]]))
        out.append("")
    out += ["## Patched / baseline within each tree (paired, from verdicts.json)", "",
            "| goal | %s | %s |" % (ta, tb), "|---|---|---|"]
    va, vb = doc["within"]
    for name in [n for n in va if n in vb] + [n for n in vb if n not in va]:
        out.append("| %s | %s | %s |" % (name, va.get(name, "-"), vb.get(name, "-")))
    return out


def render_paired(doc, prof, oa, ob):
    """One profile's tables of a paired comparison: one per setting."""
    ta, tb = doc["trees"]
    recs = [r for r in doc["verdicts"] if r["profile"] == prof]
    sts = sorted({tuple(r["setting"][k] for k in AXES) for r in recs})
    out = []
    if oa != ob:
        out += ["Offered load differs (%s: %s, %s: %s Mbit/s), so rates and drops are not "
                "like for like." % (ta, "/".join(oa) or "-", tb, "/".join(ob) or "-"), ""]
    for st in sts:
        lab = settings_label(sts, st)
        out += ["## %s%s" % (prof, ": " + lab if lab else ""), "",
                "| kernel | metric | %s | %s | %s / %s (pairs) | 95 %% CI | |" % (ta, tb, tb, ta),
                "|---|---|---|---|---|---|---|"]
        for rec in (r for r in recs if tuple(r["setting"][k] for k in AXES) == st):
            ratio = "-" if rec["ratio"] is None else "%.2fx" % rec["ratio"]
            ci = "-" if rec["ci_low"] is None else "%.2f - %.2f" % (rec["ci_low"], rec["ci_high"])
            out.append("| %s | %s | %s | %s | %s (%d) | %s | %s |" % (
                rec["kernel"], rec["label"], summary(rec["a"]), summary(rec["b"]), ratio,
                rec["n"], ci, WORDS[rec["verdict"]]))
        out.append("")
    return out


def compare(a_dir, b_dir):
    """The report, as markdown lines."""
    return render(records(a_dir, b_dir))


def verdicts(rdir):
    """question -> "ratio [low-high] verdict" of a sweep's verdicts.json."""
    try:
        with open(os.path.join(rdir, "verdicts.json")) as f:
            v = json.load(f)
    except OSError:
        return {}
    res = {}
    for g in v.get("verdicts", []):
        name = g.get("question")
        if not name:
            continue
        if g.get("ratio") is None or g.get("ci_low") is None:
            res[name] = "%s (%s pairs)" % (g.get("verdict", "?"), g.get("n", "?"))
        else:
            res[name] = "%.3fx [%.3f-%.3f] %s" % (
                g["ratio"], g["ci_low"], g["ci_high"], g.get("verdict", "?"))
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--out", help="the Markdown (default: standard output)")
    p.add_argument("--json", help="the records the Markdown is made from")
    args = p.parse_args(argv)
    for d in (args.a, args.b):
        if not os.path.isfile(os.path.join(d, "runs.csv")):
            print("trees: %s: no runs.csv" % d, file=sys.stderr)
            return 2
    doc = records(args.a, args.b)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    text = "\n".join(render(doc)) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

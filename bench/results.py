#!/usr/bin/env python3
"""docs/RESULTS.md: does the patched driver help, and when.

    results.py [--check] [OUT]     (make results; OUT: docs/RESULTS.md)

One page, generated from every recorded sweep under docs/results/ (a
directory with runs.csv and meta.json): each sweep's verdict records are
derived again by today's bench/report.py (report.sweep_records: the
records its verdicts.json would hold; the recorded files are not read or
written) and written one line each, grouped by question, each linking its
sweep. What a sweep's records may claim is data here (SWEEPS, from
docs/results.md's index and its "Code layout" section): sweeps before the
paired method, smoke runs and superseded sweeps are listed, not presented
as results; the router comparisons of statement 4 were withdrawn (the
code-layout artefact, issue 18); kernel-against-kernel ratios of images of
the natural layout (every sweep before 27) are marked as not credited to
code. --check: exit 1 when OUT is not what would be written.
"""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired  # noqa: E402
import profiles  # noqa: E402
import report  # noqa: E402
import schema  # noqa: E402
import verdicts  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(TOP, "docs", "results")
OUT = os.path.join(TOP, "docs", "RESULTS.md")

BEFORE_PAIRED = ("before the paired method (min-max ranges of 3-5 runs, no pairs, the "
                 "other guest not paused): descriptions in docs/results.md, not verdicts")
GOAL_SUPERSEDED = "superseded by sweeps 19-20 and 24 (the controller with the carry, 6 runs)"
WITHDRAWN = ("withdrawn: the code-layout artefact (issue 18; docs/results.md, \"Code layout\" "
             "and statement 4): in the natural-layout images nft_do_chain's rule loop "
             "straddled a page in the baseline only; on aligned images (sweep 28) the lead "
             "is gone")
NATURAL = "natural layout: a kernel-against-kernel ratio, not credited to code"

# Every recorded sweep: (its number in docs/results.md's index, what its
# records may claim): "result", "natural" (results whose ratios between
# the two kernels are not credited to code), "withdrawn", or the reason it
# is not a result at all (None: a result, the line in words).
SWEEPS = {
    "sweep-weight-refill-ring": ("1", BEFORE_PAIRED + "; QEMU's threads unpinned"),
    "sweep-adaptive-idle-defer": ("2", BEFORE_PAIRED + "; QEMU's threads unpinned"),
    "sweep-goals": ("3", BEFORE_PAIRED),
    "sweep-zeroloss": ("4", BEFORE_PAIRED),
    "link-pacing-3kb": ("5", BEFORE_PAIRED),
    "link-pacing-64kb": ("5", BEFORE_PAIRED),
    "sweep-paced-weights": ("6", BEFORE_PAIRED),
    "idle-boot-order-patched-first": ("7", BEFORE_PAIRED),
    "idle-boot-order-baseline-first": ("7", BEFORE_PAIRED),
    "zeroloss-smoke": ("-", "a smoke run of the zero-loss search (2 s trials), "
                       "before the paired method"),
    "paired-make-wire": ("8", "natural"),
    "aa-wire": ("9", "result"),
    "goals-wire": ("10", "natural"),
    "goals-unpaced": ("11", "natural"),
    "two-nic-share": ("12", "2 runs per configuration (no interval), the controller before "
                      "the carry; " + GOAL_SUPERSEDED),
    "two-nic-cost": ("13", "2 runs per configuration (no interval): the ns per packet by "
                     "COST, a description (docs/results.md)"),
    "two-nic-router": ("14", "1 run per setting at COST 0; superseded by sweep 21, itself "
                       "withdrawn (statement 4)"),
    "two-nic-smoke-cost1000": ("15", "a smoke run (one pair, 2 s runs)"),
    "two-nic-target": ("16", "2 runs per configuration, the controller before the carry; "
                       + GOAL_SUPERSEDED),
    "two-nic-target-fixed": ("17", "2 runs per configuration, the controller before the "
                             "carry; " + GOAL_SUPERSEDED),
    "two-nic-carry-weight": ("19", "result"),
    "two-nic-carry-per-weight": ("20", "result"),
    "two-nic-router-weights": ("21", "withdrawn"),
    "two-nic-router-refill0": ("22", "withdrawn"),
    "two-nic-router-adaptive": ("23", "withdrawn"),
    "two-nic-share-cost0": ("24", "result"),
    "two-nic-router-notrace": ("25", "withdrawn"),
    "two-nic-router-aa": ("26", "result"),
    "layout-aa-aligned": ("27", "result"),
    "layout-patched-vs-baseline": ("28", "result"),
    "honest-new-tcp": ("29", "result"),
    "honest-old-tcp": ("30", "result"),
    "honest-new-share": ("31", "result"),
    "honest-old-share": ("32", "result"),
    "layout-aa-aligned-2": ("33", "result"),
    "layout-aa-aligned-3": ("36", "result"),
    "layout-aa-tcp15": ("37", "result"),
    "layout-patched-vs-baseline-2": ("38", "result"),
    "paired-make-6.12": ("39", "result"),
    "paired-make-6.1-beside-6.12": ("40", "result"),
    "layout-aa-tcp50": ("41", "result"),
    "layout-aa-6.12": ("42", "result"),
    "layout-aa-tcp50-cost1000": ("43", "result"),
    "layout-aa-router-aligned-b": ("44", "6 router pairs, 5 counted (no interval): the "
                                   "spread within one guest, a description"),
    "layout-aa-router-plain": ("45", "6 router pairs on natural-layout images, 4 counted "
                               "(no interval): the spread within one guest, a description"),
    "aa-fresh-clone": ("46", "result"),
    "layout-aa-router200-pad6144": ("47", "result"),
    "layout-aa-router200-pad12288": ("48", "result"),
    "layout-aa-router200-pad2048": ("49", "result"),
    "layout-aa-router200-pad20480": ("50", "result"),
    "layout-aa-router200-pad6144-bootorder": ("51", "result"),
    "layout-aa-tcp-router-cost": ("52", "result"),
    "layout-aa-tcp-router-cost-2": ("53", "result"),
    "trees-paired-6.1": ("54", "result"),
    "trees-paired-6.12": ("55", "result"),
    "layout-aa-tcp16-noisy": ("56", "result"),
    "layout-aa-tcp-secs20": ("57", "result"),
    "layout-aa-tcp-steal": ("59", "result"),
    "trees-livelock-6.1": ("61", "result"),
    "trees-livelock-6.12": ("62", "result"),
    "layout-aa-tcp-hostspeed": ("63", "result"),
    "layout-aa-router-hostspeed": ("64", "6 router pairs, 5 counted (no interval): "
                                   "the host CPU's speed beside each run, a description"),
    "layout-aa-tcp8-failed": ("65", "result"),
    "layout-aa-router-vcpu": ("66", "result"),
    "layout-aa-tcp-vcpu": ("67", "result"),
    "layout-aa-tcp-gro": ("68", "result"),
    "layout-aa-router-boots50": ("69", "result"),
    "layout-patched-vs-baseline-boots12": ("70", "result"),
    "layout-patched-vs-baseline-boots12-notrace": ("71", "result"),
    "layout-aa-tcp-boots12": ("72", "result"),
    "layout-aa-router-boots55": ("73", "result"),
    "aa-fresh-clone-auto": ("74", "result"),
}
CLAIMS = ("result", "natural", "withdrawn")

INTRO = """\
# Results: does the patched driver help, and when

Generated by `make results` (bench/results.py) from every sweep recorded
under `docs/results/`: each sweep's verdicts derived again from its
runs.csv and meta.json by today's bench/report.py, one line per verdict,
grouped by question; do not edit (`make unit` checks that this page is
what the script writes). The journal behind it, with every table and the
reasoning: docs/results.md; the method and the verdicts: docs/bench.md.

A ratio is patched / baseline over pairs run back to back (or, for the
shares, a share over its weight share within each run), with its 95 %
interval and the pairs or runs behind it. `met`: the interval is beyond
the target; `not_met`: on the wrong side; `inconclusive`: neither (or no
interval: fewer than {min_pairs} pairs); `not_judged`: nothing to judge. Runs left
out (failed, or host-limited: the host, not the guest, was the limit) are
counted on each line.

## The answer, in short (from docs/results.md)

- **At its defaults** (weight {weight}, refill {refill}, adaptive {adaptive}) the patched
  kernel is at parity with upstream wherever the lab resolves it (TCP
  throughput on the wire, UDP interrupts per packet): the old targets
  (1.25x, 0.5x) are `not_met`, and no goal is `met`. Those sweeps compare
  images of the natural layout, so their ratios are not credited to code;
  on aligned images (sweep 28) TCP at COST 1000 is 0.98x with an interval
  that contains 1.
- **Weights as shares** (two NICs on one vCPU): the packet share follows
  the weight ratio within {band} at equal cost; with unequal cost fixed
  weights do not give CPU time by weight, and the adaptive quota brings
  the CPU share within {band} at most weight pairs (sweeps 19-20, 24).
  These compare settings of one image and stand.
- **The router**: the 1.24-1.39x lead of the patched kernel at COST 1000
  was the code layout, not the driver (withdrawn below); on aligned images,
  over 12 boots of each kernel with its tracepoint off, it forwards what
  the baseline does: 0.985x [0.929-1.057] (sweep 71), where the layout A/A
  of that setting resolves +-2.9 % over 55 boots (sweep 73). At COST 0
  the router's question needs a host where the guest, not the host, is
  the limit.
""".format(min_pairs=paired.MIN_PAIRS, band=report.BAND, **profiles.BASELINE)


def pct_runs(r):
    """The runs a record left out, in words ("" when none)."""
    gone = r["excluded"]
    if not gone:
        return ""
    hl = sum(1 for g in gone if g["why"].startswith("host-limited") or "; host-limited" in g["why"])
    return "; %d run(s) left out%s" % (len(gone), " (%d host-limited)" % hl if hl else "")


def interval_words(r, name=None):
    """A record's ratio, interval and units (runs for a band, boots for a
    paired record of sweep NAME when it booted more than once, else pairs)."""
    if r["ratio"] is None:
        return "no ratio (%s)" % (r["note"] or "no pairs")
    unit = "runs" if r["kind"] == "band" else "boots" if name and boots(name) > 1 else "pairs"
    if verdicts.bounded(r):
        return "%.3fx [%.3f-%.3f], %d %s" % (r["ratio"], r["ci_low"], r["ci_high"], r["n"], unit)
    return "%.3fx (no interval: %d %s)" % (r["ratio"], r["n"], unit if r["n"] != 1 else unit[:-1])


@functools.lru_cache(maxsize=None)
def sweep_meta(name):
    """A recorded sweep's meta.json, or {} when it has none."""
    try:
        with open(os.path.join(RESULTS, name, "meta.json")) as f:
            return json.load(f)
    except OSError:
        return {}


def boots(name):
    """How many times a sweep booted each guest (BOOTS; 1 before it existed).
    With more than one, its paired records count boots (bench/report.py's
    join_pairs)."""
    return int(sweep_meta(name).get("parameters", {}).get("BOOTS") or 1)


def tree(name):
    """The kernel tree a sweep measured, from its meta.json ("6.1" for the
    sweeps recorded before LINUX existed)."""
    return sweep_meta(name).get("linux") or "6.1"


def link(name):
    num = SWEEPS[name][0]
    t = tree(name)
    return "[%s](results/%s/)%s%s" % (name, name, "" if num == "-" else " (%s)" % num,
                                      "" if t == "6.1" else ", linux-%s" % t)


def line(name, r, what=None, mark=""):
    return "- %s: %s%s: %s, target %s: **%s**%s%s" % (
        link(name), what or r["config"], "" if what is None else "",
        interval_words(r, name), r["target"], r["verdict"], pct_runs(r),
        "; " + mark if mark else "")


def band_lines(name, recs, mark=""):
    """One line per configuration and share (packets, CPU): both NICs."""
    out = []
    by = {}
    for r in recs:
        key = (r["profile"], r["config"], r["metric"])
        by.setdefault(key, {})[r["nic"]] = r
    for (prof, cfg, metric), nics in by.items():
        e0, e1 = nics.get("eth0"), nics.get("eth1")
        words = "packets" if metric == "pkt_share" else "CPU"
        out.append("- %s: %s, %s: %s share x weight: eth0 %s, eth1 %s: **%s**%s%s" % (
            link(name), prof, cfg, words, interval_words(e0) if e0 else "-",
            interval_words(e1) if e1 else "-", verdicts.both(e0, e1),
            pct_runs(e0 or e1), "; " + mark if mark else ""))
    return out


def derive():
    """{sweep: (meta, records, share runs recorded, those host-limited)} of
    every recorded sweep."""
    out = {}
    for name in sorted(os.listdir(RESULTS)):
        d = os.path.join(RESULTS, name)
        if not (os.path.isfile(os.path.join(d, "runs.csv"))
                and os.path.isfile(os.path.join(d, "meta.json"))):
            continue
        if name not in SWEEPS:
            raise SystemExit("results: %s is not in bench/results.py's SWEEPS: say what it "
                             "may claim" % name)
        meta, recs = report.sweep_records(d)
        share = [r for r in report.ALL if r["profile"] in profiles.SHARE]
        hl = report.runs_of([r for r in share if report.is_host_limited(r)])
        out[name] = (meta, recs, report.runs_of(share), hl)
    return out


def order(name):
    n = SWEEPS[name][0]
    return (int(n) if n.isdigit() else 0, name)


def render(sweeps):
    md = [INTRO]
    claims = [s for s in sorted(sweeps, key=order) if SWEEPS[s][1] in CLAIMS]

    def records(kind, which=CLAIMS):
        for s in claims:
            if SWEEPS[s][1] in which:
                for r in sweeps[s][1]:
                    if r["kind"] == kind:
                        yield s, r

    md += ["## 1. The goals: the patched kernel at its defaults against the baseline", ""]
    questions = []
    for s, r in records("goal"):
        if r["question"] not in questions:
            questions.append(r["question"])
    for q in questions:
        md += ["**%s**" % q, ""]
        for s, r in records("goal"):
            if r["question"] != q:
                continue
            if r["verdict"] == "not_judged" and not r["excluded"]:
                md.append("- %s: no pairs at the goals' setting (the defaults, COST 0: %s)"
                          % (link(s), r["config"]))
                continue
            md.append(line(s, r, mark=NATURAL if SWEEPS[s][1] == "natural" else ""))
        md.append("")

    md += ["## 2. A/A: the lab's resolution (one kernel in both slots)", "",
           "`met`: the interval may contain 1 after the Holm correction (no difference "
           "between two kernels of the same code); `inconclusive`: no interval.", ""]
    for s in claims:
        aa = [r for r in sweeps[s][1] if r["kind"] == "aa"]
        if not aa:
            continue
        md += ["**%s** (%s)" % (link(s), aa[0]["config"].rsplit(", cost ", 1)[0]), ""]
        for r in aa:
            w = verdicts.resolution(r)
            md.append("- %s: %s%s: **%s**%s" % (
                r["question"], interval_words(r, s),
                "" if w is None else ", resolution +-%.1f %%" % w, r["verdict"], pct_runs(r)))
        md.append("")

    md += ["## 3. Shares against the weight share (two NICs on one vCPU, issue 14)", "",
           "Each NIC's share over its weight share, per configuration, within %s; "
           "measured within each run, so no baseline is needed (the baseline's row is its "
           "packet share at %s)." % (report.BAND, report.BASE_WEIGHTS), ""]
    for s in claims:
        b = [r for r in sweeps[s][1] if r["kind"] == "band"]
        swept = str(sweeps[s][0].get("parameters", {}).get("PROFILES", "")).split()
        share_profiles = any(p in profiles.SHARE for p in swept)
        if b:
            md += band_lines(s, b)
        elif share_profiles:
            md.append("- %s: no verdict: %d of %d share runs host-limited (the guest was not "
                      "the limit)" % (link(s), sweeps[s][3], sweeps[s][2]))
    md.append("")

    md += ["## 4. The router and the PDR against the baseline", "",
           "Forwarding rate under the flood (kind router) and the %s rate (kind pdr) "
           "of each patched setting against the baseline runs of the same pairs, target "
           "`>= 1.0x` (ahead of the baseline); the zero-loss settings other than the goals'."
           % schema.PDR,
           ""]
    for kind in ("router", "pdr"):
        for s, r in records(kind, ("result", "natural")):
            if str(sweeps[s][0].get("aa", "0")) == "1":
                continue  # the A/A's slots: section 2
            md.append(line(s, r, mark=NATURAL if SWEEPS[s][1] == "natural" else ""))
    md.append("")

    md += ["## Withdrawn: the code-layout artefact", "", WITHDRAWN + ".", ""]
    for s in claims:
        if SWEEPS[s][1] != "withdrawn":
            continue
        for r in sweeps[s][1]:
            md.append("- %s: %s %s: %s: **withdrawn** (its verdict: %s)" % (
                link(s), r["kind"], r["config"], interval_words(r, s), r["verdict"]))
    md.append("")

    md += ["## Not results", "",
           "Recorded, and kept for the journal, but not presented as results here:", ""]
    for s in sorted(sweeps, key=order):
        if SWEEPS[s][1] not in CLAIMS:
            md.append("- %s: %s" % (link(s), SWEEPS[s][1]))
    return "\n".join(md) + "\n"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    out = args[0] if args else OUT
    text = render(derive())
    if check:
        with open(out) as f:
            if f.read() != text:
                print("results: %s is not what bench/results.py writes (make results)" % out,
                      file=sys.stderr)
                return 1
        return 0
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out)
    print("results: %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Golden tests: every sweep recorded under docs/results/ with a runs.csv,
re-rendered by today's bench/report.py from its runs.csv and meta.json in a
copy (the record is never written), gives the recorded summary.md and
verdicts.json byte for byte, or differs as STALE below says and why.

The plots are drawn but not written: report.save is replaced by one that
only names them, which is all summary.md says of them (about 4 s for every
sweep instead of about a minute with the PNGs). test_cli_writes_the_plots
renders one sweep the way `make report` does, PNGs included.
"""
import contextlib
import filecmp
import io
import json
import os
import shutil
import subprocess
import sys
from unittest import mock

import pytest

import report
import verdicts

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(os.path.dirname(BENCH), "docs", "results")
SWEEPS = sorted(s for s in os.listdir(RESULTS)
                if os.path.isfile(os.path.join(RESULTS, s, "runs.csv")))
INPUTS = ("runs.csv", "meta.json")  # all report.py reads

# Recorded files that today's report.py renders otherwise. Each was written
# by the bench/ of the commit that recorded it: re-rendered with that
# commit's bench/ it comes out byte for byte (the plots aside: the oldest
# were rendered without matplotlib). The renderer changed since, at the
# commits named; the records stay as they were (`make report R=...` would
# bring one up to date, and its entry here must then go: the test fails
# while an entry names a file that re-renders identically).
BEFORE_STATUS = (
    "recorded at 15e5f6c/31bd1b2, before c91b1ae (the status line, n=ok/recorded "
    "columns) and 1d5c7a1 (paired verdicts with 95 % intervals replace the goals "
    "table; refills per 1000 packets); no plots then (no matplotlib)")
BEFORE_SHARE_INTERVALS = (
    "recorded at 7d03676, before aed8794 (the table of shares against the weight share "
    "with 95 % intervals) and 1168f43 (its explanation extended, its header row's "
    "missing column fixed)")
BEFORE_TARGET_PER_WEIGHT = (
    "recorded at 274200b, before aed8794 (shares against the weight share with 95 % "
    "intervals), 4c41090 (TARGET per-weight in the poll target's explanation) and "
    "1168f43 (the shares table's explanation and header row)")
BEFORE_AA_HOLM = (
    "recorded at 77b2719, before 435728c: the A/A is judged on the metrics the verdicts "
    "use, at each COST, two-sided and Holm-corrected (p_holm, config ends \", cost 0\"); "
    "the two metrics it no longer judges are in AA_NOT_JUDGED; every other verdict and "
    "interval is unchanged")
# Sweep 36 found cpu_idle to be over a snapshot window of 8.2-9.7 s for a
# 5 s flood, and the host-limited rule judged by it; the rule now takes the
# flood's idle time (bench/row.py, flood_idle) and holds the router to it.
BEFORE_FLOOD_IDLE = (
    "recorded before the host-limited rule took the guest's idle time during the flood "
    "(not over the snapshot window) and applied it to the router: the rule's wording, and "
    "in the layout A/As the router's COST 0 runs (more than 20 % idle during the flood) "
    "host-limited, their verdict no longer judged (AA_NOT_JUDGED)")
STALE = {
    **{(s, "summary.md"): BEFORE_STATUS for s in (
        "idle-boot-order-baseline-first", "idle-boot-order-patched-first",
        "link-pacing-3kb", "link-pacing-64kb", "sweep-adaptive-idle-defer", "sweep-goals",
        "sweep-paced-weights", "sweep-weight-refill-ring", "sweep-zeroloss",
        "zeroloss-smoke")},
    **{(s, "summary.md"): BEFORE_SHARE_INTERVALS for s in (
        "two-nic-cost", "two-nic-share", "two-nic-smoke-cost1000")},
    **{(s, "summary.md"): BEFORE_TARGET_PER_WEIGHT for s in (
        "two-nic-target", "two-nic-target-fixed")},
    ("aa-wire", "summary.md"): BEFORE_AA_HOLM,
    ("aa-wire", "verdicts.json"): BEFORE_AA_HOLM,
    ("two-nic-router-aa", "summary.md"):
        "recorded at bcaf95d, before 435728c judged the router in the A/A (its forwarding "
        "rate and PDR): a resolution table where there was none",
    ("two-nic-router-aa", "verdicts.json"):
        "recorded at bcaf95d as [], before 435728c judged the router in the A/A: the two "
        "verdicts in AA_NEWLY_JUDGED",
    **{(s, "summary.md"): BEFORE_FLOOD_IDLE for s in (
        "honest-new-share", "honest-old-share", "layout-aa-aligned", "layout-aa-aligned-2",
        "layout-patched-vs-baseline")},
    **{(s, "verdicts.json"): BEFORE_FLOOD_IDLE for s in (
        "layout-aa-aligned", "layout-aa-aligned-2")},
    **{(s, "summary.md"):
       "recorded before summary.md said how many repetitions REPS=auto ran and why it "
       "stopped (report.py auto_note): one line more, nothing else"
       for s in ("paired-make-wire", "paired-make-6.12", "paired-make-6.1-beside-6.12")},
    ("two-nic-router-notrace", "summary.md"):
        "recorded at bcaf95d, before 435728c named host-limited runs in a section of "
        "their own and 68b6567 took them out of the failed runs",
}

# Every verdicts.json recorded before the verdict records (schema 2) is a
# bare list: it re-renders as {"schema": 2, "verdicts": [...]}, its goals'
# and A/A's objects as records of kind goal and aa with the same metric,
# profile, config, target, verdict, ratio and interval (ratio, ci_low,
# ci_high; n_pairs is n), checked by test_recorded_verdicts_hold; the kinds
# band, router and pdr are new: schema 1 kept those verdicts only as
# Markdown cells of summary.md, which re-renders from them unchanged
# (test_rerenders_as_recorded), and NEW_KINDS is all it may gain.
BEFORE_SCHEMA_2 = (
    "recorded in verdicts schema 1 (a list of the goals' or the A/A's objects), before "
    "the verdict records of schema 2 (bench/verdicts.py): the same verdicts, in records, "
    "and the shares', router's and PDR's verdicts, which were summary.md cells only")
NEW_KINDS = {"band", "router", "pdr"}
# A goal without a single pair (its metric not measured in that sweep:
# rtt_p99_ms, the ping under load, in honest-*-tcp and
# layout-patched-vs-baseline) was recorded inconclusive; its record says
# not_judged now (nothing was judged; its summary.md row still reads
# inconclusive, and REPS=auto no longer waits on it).
NO_PAIRS = ("inconclusive", "not_judged")


def schema_1(sweep, f):
    return f == "verdicts.json" and isinstance(json.loads(recorded(sweep, f)), list)


# Verdicts (metric, profile, COST) recorded but no longer judged, and judged
# now but not recorded: the A/A changes of 435728c and the flood's idle time
# (see STALE).
AA_NOT_JUDGED = {"aa-wire": {("irq_per_1000", "tcp", "0"), ("cpu_us_per_pkt", "udp1470", "0")},
                 **{s: {("mbps", "router", "0")}
                    for s in ("layout-aa-aligned", "layout-aa-aligned-2")}}
AA_NEWLY_JUDGED = {"two-nic-router-aa": {("mbps", "router", "1000"),
                                          ("pdr_mbps", "router", "1000")}}
# Recorded A/As whose report exits 4 ("A/A FAILED: nothing judged"): fewer
# than 6 pairs counted, so no interval; recorded for the spread within a
# guest (docs/results.md, sweeps 44 and 45; 64 for the host CPU's speed
# beside each run), and rendered with that status.
# Exit 3 ("A/A FAILED": a comparison differs after Holm): sweep 47, the
# router at SAT_OFFER=200M, whose two layouts differed, and did not again
# (sweeps 48-51; docs/results.md); sweep 65, TCP at 8 pairs, whose images
# passed at 16 and 8 pairs around it (sweeps 63 and 67).
REPORT_RC = {"layout-aa-router-aligned-b": 4, "layout-aa-router-plain": 4,
             "layout-aa-router200-pad6144": 3, "layout-aa-router-hostspeed": 4,
             "layout-aa-tcp8-failed": 3}


def name_plot(plt, fig, d, name, made):
    """report.save without the PNG."""
    plt.close(fig)
    made.append(name)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """rendered(sweep): the directory where today's report.py rendered it
    (once per sweep), from a copy of its inputs alone."""
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pytest.skip("python3-matplotlib missing (make deps): summary.md lists the plots")
    done = {}

    def render(sweep):
        if sweep not in done:
            d = str(tmp_path_factory.mktemp(sweep))
            for f in INPUTS:
                shutil.copy(os.path.join(RESULTS, sweep, f), d)
            out = io.StringIO()
            with mock.patch.object(report, "save", name_plot), \
                    mock.patch.object(sys, "argv", ["report.py", d]), \
                    contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                rc = report.main()
            assert rc == REPORT_RC.get(sweep, 0), out.getvalue()[-2000:]
            done[sweep] = d
        return done[sweep]
    return render


def recorded(sweep, f):
    with open(os.path.join(RESULTS, sweep, f)) as fh:
        return fh.read()


def cases(*files):
    """(sweep, file) of every recorded file of these names."""
    return [pytest.param(s, f, id="%s/%s" % (s, f)) for s in SWEEPS for f in files
            if os.path.isfile(os.path.join(RESULTS, s, f))]


@pytest.mark.parametrize("sweep, f", cases("summary.md", "verdicts.json"))
def test_rerenders_as_recorded(rendered, sweep, f):
    with open(os.path.join(rendered(sweep), f)) as fh:
        now = fh.read()
    why = STALE.get((sweep, f)) or (BEFORE_SCHEMA_2 if schema_1(sweep, f) else None)
    if why:
        assert now != recorded(sweep, f), (
            "%s/%s re-renders identically now: take it out of STALE" % (sweep, f))
    else:
        assert now == recorded(sweep, f), (
            "docs/results/%s/%s is not what report.py renders (diff it against %s)"
            % (sweep, f, rendered(sweep)))


def judged(records):
    """{(metric, profile, COST): what was judged} of the goals and the A/A
    (kinds goal and aa) of a verdicts.json's records. Sweeps from before
    COST have no ", cost N" in their config: COST 0 (as report.load takes
    their rows)."""
    out = {}
    for v in records:
        if v["kind"] not in ("goal", "aa"):
            continue
        key = (v["metric"], v["profile"], verdicts.cost_of(v))
        assert key not in out, key
        out[key] = {k: v[k] for k in ("verdict", "ratio", "ci_low", "ci_high", "n", "target")}
    return out


@pytest.mark.parametrize("sweep, f", cases("verdicts.json"))
def test_recorded_verdicts_hold(rendered, sweep, f):
    """Every verdict recorded is today's, with the same ratio and interval,
    also where the file's bytes differ (STALE, BEFORE_SCHEMA_2); verdicts
    gained or lost only as AA_NEWLY_JUDGED and AA_NOT_JUDGED say; a file
    of schema 1 gains records of NEW_KINDS only."""
    then_all = verdicts.load(os.path.join(RESULTS, sweep, f))
    now_all = verdicts.load(os.path.join(rendered(sweep), f))
    then, now = judged(then_all), judged(now_all)
    assert set(then) - set(now) == AA_NOT_JUDGED.get(sweep, set())
    assert set(now) - set(then) == AA_NEWLY_JUDGED.get(sweep, set())
    for k in set(then) & set(now):
        if then[k]["n"] == 0 and then[k]["verdict"] == NO_PAIRS[0]:
            then[k]["verdict"] = NO_PAIRS[1]
        assert now[k] == then[k], k
    if schema_1(sweep, f):
        assert {r["kind"] for r in now_all} - {"goal", "aa"} <= NEW_KINDS
    elif (sweep, f) not in STALE:
        assert now_all == then_all


def test_stale_entries_are_recorded_files():
    for sweep, f in STALE:
        assert os.path.isfile(os.path.join(RESULTS, sweep, f)), (sweep, f)


def test_cli_writes_the_plots(tmp_path):
    """`make report` on a copy of a sweep with a plot: the same summary.md,
    the PNG written."""
    pytest.importorskip("matplotlib")
    d = str(tmp_path)
    for f in INPUTS:
        shutil.copy(os.path.join(RESULTS, "two-nic-router", f), d)
    subprocess.run([sys.executable, os.path.join(BENCH, "report.py"), d], check=True,
                   capture_output=True)
    assert filecmp.cmp(os.path.join(d, "summary.md"),
                       os.path.join(RESULTS, "two-nic-router", "summary.md"), shallow=False)
    assert os.path.getsize(os.path.join(d, "router.png")) > 0

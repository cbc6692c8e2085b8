"""make article (bench/article.py, bench/article.sh): pairs between two
settings of the patched image in the plan (REF), the regimes as knobs.py
presets, the verdict's outcomes on constructed pairs, the records through
verdicts.json, the report's "not measured" and skipped plots, and the
running time against the hour.
"""
import csv
import json
import os
import random
import re
import subprocess
import sys

import pytest

import article
import knobs
import paired
import plan
import profiles
import row
import schema
import verdicts

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)


def env(**kv):
    e = {k: v for k, v in os.environ.items() if k not in knobs.KNOBS}
    e.update(kv)
    return e


def planned(arg, **kv):
    p = subprocess.run([sys.executable, os.path.join(BENCH, "plan.py"), arg],
                       env=env(**kv), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    head, *rest = [line.split("\t") for line in p.stdout.splitlines()]
    assert tuple(head) == plan.FIELDS
    return p.stdout, [dict(zip(head, r)) for r in rest]


# ---- the plan: pairs between settings ----

OBS1 = dict(PROFILES="tcp", WEIGHTS="8 64", REFILL="0 16", REF="refill=16 weight=64",
            CALIB="0", HIST="0", BENCH_SEED="5")


def by_pair(runs):
    out = {}
    for r in runs:
        out.setdefault(r["pair"], []).append(r)
    return out


def test_ref_pairs_two_settings_of_the_patched_image():
    _, runs = planned("1", **OBS1)
    pairs = by_pair(runs)
    assert len(pairs) == 4 and all(len(p) == 2 for p in pairs.values())
    got = set()
    for p in pairs.values():
        assert {r["kernel"] for r in p} == {"patched"}, p
        s, ref = sorted(p, key=lambda r: r["role"] != "sweep")
        assert (s["role"], ref["role"]) == ("sweep", "ref")
        differ = [f for f in plan.FIELDS if s[f] != ref[f] and f != "role"]
        assert len(differ) == 1, (s, ref)
        f = differ[0]
        assert ref[f] == {"refill": "16", "weight": "64"}[f]
        got.add((f, s["weight"], s["refill"], ref[f]))
    # no pair of a setting with itself (weight 64 refill 16 is its own reference)
    assert got == {("refill", "8", "0", "16"), ("refill", "64", "0", "16"),
                   ("weight", "8", "0", "64"), ("weight", "8", "16", "64")}
    assert all(plan.WORD.fullmatch(v) for r in runs for v in r.values())
    assert all(set(r) == set(plan.FIELDS) for r in runs)


def test_ref_order_is_reproducible_and_shuffled():
    a, runs_a = planned("1", **OBS1)
    b, _ = planned("1", **OBS1)
    assert a == b
    orders = {tuple((r["role"], r["weight"], r["refill"]) for r in planned(
        "1", **dict(OBS1, BENCH_SEED=str(s)))[1]) for s in range(1, 9)}
    assert len(orders) > 1
    # which half runs first is drawn per pair: both orders occur over seeds
    firsts = {planned("1", **dict(OBS1, BENCH_SEED=str(s)))[1][0]["role"] for s in range(1, 9)}
    assert firsts == {"sweep", "ref"}


def test_ref_leaves_forced_adaptive_and_one_nic_eth1_alone():
    _, runs = planned("1", PROFILES="tcp share", WEIGHTS="8", REFILL="16",
                      ADAPTIVE="on", REF="adaptive=off weight_eth1=16", CALIB="0", HIST="0",
                      BENCH_SEED="1")
    pairs = by_pair(runs).values()
    kinds = sorted((p[0]["profile"], next(f for f in ("adaptive", "weight_eth1")
                                          if p[0][f] != p[1][f])) for p in pairs)
    assert kinds == [("share", "weight_eth1"), ("tcp", "adaptive")]


def test_without_ref_every_pair_has_a_baseline_twin():
    _, runs = planned("1", PROFILES="tcp", WEIGHTS="8 64", REFILL="0 16", CALIB="0", HIST="0",
                      BENCH_SEED="5")
    for p in by_pair(runs).values():
        assert sorted(r["kernel"] for r in p) == ["baseline", "patched"]
        assert {r["role"] for r in p} == {"sweep"}


def test_run_sh_acts_on_the_kernel_field_only():
    """A ref run is a patched run to run.sh: it boots no other slot and sets
    the weight, refill and adaptive like any patched run."""
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    assert '[ "$kernel" != patched ] || [ "$AA" = 1 ] || patched=1' in text
    assert not re.search(r'role" *[!=]+ *"?ref', text)


# ---- knobs: REF, the regimes, the presets ----

@pytest.mark.parametrize("kv,line", [
    ({"REF": "weight=65"}, "bench: REF: weight=65: 65 is outside 1..64"),
    ({"REF": "ring=64"}, "bench: REF: FIELD=VALUE with FIELD one of weight refill adaptive "
                         "defer weight_eth1 threaded netdev_budget netdev_budget_usecs, "
                         "not 'ring=64'"),
    ({"REF": "weight=8 weight=64"}, "bench: REF: weight given twice"),
    ({"REF": "adaptive=maybe"}, "bench: REF: adaptive=maybe: 'maybe' is not one of: on off"),
    ({"REF": "refill=300"}, "bench: REF: refill=300 exceeds RING 256"),
    ({"REF": "weight=64", "AA": "1"},
     "bench: REF: the A/A pairs the baseline with itself, not with a reference setting"),
    ({"OBS": "obs5"}, "bench: OBS: 'obs5' is not one of: obs1 obs2 obs3 obs4"),
])
def test_ref_and_obs_checks(kv, line):
    assert ["bench: " + e for e in knobs.check("bench", env(**kv))] == [line]


def test_every_regime_passes_the_check_and_names_only_knobs():
    for o in article.OBSERVATIONS:
        assert set(o.knobs) <= set(knobs.KNOBS), o.id
        assert knobs.check("bench", env(ARTICLE="1", REGIME=o.id)) == [], o.id
        assert knobs.value(env(REGIME=o.id), "REF"), o.id  # settings of the patched image


def test_regime_preset_order():
    """The user's value, then the regime's, then ARTICLE=1's, then the
    default."""
    r = dict(knobs.resolve(env(ARTICLE="1", REGIME="obs1", BENCH_SEED="1")))
    assert (r["WEIGHTS"], r["REFILL"], r["REF"], r["RING"], r["POLL_TRACE"]) == (
        "8 64", "0 16", "refill=16 weight=64", "64", "2")
    assert (r["REPS"], r["SECS"], r["CALIB"], r["HIST"]) == ("8", "4", "0", "0")
    r = dict(knobs.resolve(env(ARTICLE="1", REGIME="obs1", BENCH_SEED="1", WEIGHTS="16 64",
                               REPS="10")))
    assert (r["WEIGHTS"], r["REPS"]) == ("16 64", "10")


def test_article_pairs_can_pass_their_holm_correction():
    """At the preset's pairs the smallest p of the exact test, Holm-corrected
    over the larger family, is below alpha; one pair fewer it is not."""
    n = int(article.PRESET["REPS"])
    m = max(article.PRIMARIES, article.SECONDARIES)
    assert m * 2.0 ** -n < paired.ALPHA <= m * 2.0 ** -(n - 1)
    assert article.pairs_for(4) == 7 and article.pairs_for(1) == paired.MIN_PAIRS
    assert dict(knobs.resolve(env(BENCH_SEED="1")))["REF"] == ""


def test_comparisons_are_in_their_regimes_plan():
    """Every comparison's profile, setting and reference are pairs the
    regime's plan makes (a comparison no run can answer is a typo)."""
    for o in article.OBSERVATIONS:
        _, runs = planned("1", ARTICLE="1", REGIME=o.id, BENCH_SEED="2")
        made = set()
        for p in by_pair(runs).values():
            if len(p) != 2 or {r["role"] for r in p} != {"sweep", "ref"}:
                continue
            s, ref = sorted(p, key=lambda r: r["role"] != "sweep")
            f = next(f for f in knobs.REF_FIELDS if s[f] != ref[f])
            made.add((s["profile"], f, s[f], ref[f], tuple(sorted(s.items()))))
        for c in o.comparisons:
            assert any(m[:4] == (c.profile, c.knob, c.setting, c.reference)
                       and all((k, v) in m[4] for k, v in c.where) for m in made), (o.id, c)
        assert sum(c.primary for c in o.comparisons) == 1, o.id


def test_the_default_fits_in_an_hour_and_make_help_says_so():
    e = env()
    runs = secs = 0
    for o in article.IDS:
        n, s = article.estimate(o, e)
        assert n > 0, o
        runs, secs = runs + n, secs + s
    assert secs <= article.BUDGET_S
    with open(os.path.join(TOP, "Makefile")) as f:
        mk = f.read()
    help_text = " ".join(re.findall(r"^## (.*)$", mk, re.M))
    assert "%d runs, about %d minutes" % (runs, round(secs / 60)) in help_text


def test_estimate_follows_the_knobs():
    n6, s6 = article.estimate("obs4", env())
    n12, s12 = article.estimate("obs4", env(REPS="12", SECS="8"))
    oh = article.RUN_OVERHEAD_S
    n6, s6 = article.estimate("obs4", env(REPS="6"))
    assert n12 == 2 * n6 and s12 - article.BOOT_S == 2 * (s6 - article.BOOT_S) * (8 + oh) // (4 + oh)


# ---- the verdict ----

@pytest.mark.parametrize("ratio,lo,hi,direction,p,verdict", [
    (0.5, 0.4, 0.6, "lower", 0.01, "reproduced"),
    (2.0, 1.5, 2.5, "higher", 0.01, "reproduced"),
    (0.5, 0.4, 0.6, "lower", 0.2, "inconclusive"),   # Holm took it back
    (2.0, 1.5, 2.5, "lower", 0.99, "contrary"),
    (0.5, 0.4, 0.6, "higher", 0.99, "contrary"),
    (1.01, 0.95, 1.08, "lower", 0.4, "refuted"),
    (1.01, 0.95, 1.12, "lower", 0.4, "inconclusive"),  # past the margin
    (0.9, 0.7, 1.05, "lower", 0.1, "inconclusive"),
    (0.9, None, None, "lower", None, "inconclusive"),  # too few pairs
])
def test_decide(ratio, lo, hi, direction, p, verdict):
    assert article.decide(ratio, lo, hi, direction, 0.10, p, 8) == verdict


def test_decide_not_measured_and_incomplete():
    assert article.decide(None, None, None, "lower", 0.1, None, 0) == "not measured"
    assert article.decide(0.5, 0.4, 0.6, "lower", 0.1, 0.01, 8, measured=False) == "not measured"
    assert article.decide(0.5, 0.4, 0.6, "lower", 0.1, 0.01, 8, complete=False) == "incomplete"


# ---- constructed sweeps ----

WAKE_COLUMNS = tuple(c for c in row.COLUMNS if c.startswith("wake_"))


def run_row(pair, role, profile, rep, **kv):
    r = {c: "" for c in row.COLUMNS}
    r.update(status="ok", error="", pair=pair, kernel="patched", role=role, weight="64",
             refill="16", adaptive="off", defer="0", ring="256", fifo="32", link="1gbit",
             pin="split", profile=profile, rep=str(rep), secs="4", cost="0",
             rx_packets="100000", irqs="5000", cpu_idle="30", cpu_us_per_pkt="10",
             netdev_budget="300", netdev_budget_usecs="8000", threaded="0")
    r.update({k: str(v) for k, v in kv.items()})
    return r


def write_sweep(d, rows, extra=(), status="complete", drop=()):
    os.makedirs(d)
    cols = [c for c in list(row.COLUMNS) + list(extra) if c not in drop]
    with open(os.path.join(d, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"status": status, "parameters": {"REGIME": os.path.basename(d)},
                   "runs_planned": len(rows), "git_revision": "test"}, f)


def pairs_rows(n, profile, knob, setting, reference, metric_cols, fn, where=None, seed=1):
    """N pairs: the setting half's metric columns from fn(i, "sweep"), the
    reference's from fn(i, "ref")."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        base = dict(where or {})
        s = run_row("%d-%d" % (i + 1, 1), "sweep", profile, i + 1, **dict(base, **{knob: setting}))
        r = run_row("%d-%d" % (i + 1, 1), "ref", profile, i + 1, **dict(base, **{knob: reference}))
        for half, role in ((s, "sweep"), (r, "ref")):
            half.update({k: str(v) for k, v in fn(i, role, rng).items()})
        out += [s, r] if rng.random() < 0.5 else [r, s]
    return out


def constructed(tmp_path):
    d = str(tmp_path / "article")
    os.makedirs(d)
    # obs1: refill 0 dries the ring about twice as often (reproduced)
    write_sweep(os.path.join(d, "obs1"), pairs_rows(
        8, "tcp", "refill", "0", "16", None,
        lambda i, role, rng: {"hw_min_0": int((400 if role == "sweep" else 200)
                                              * rng.uniform(0.9, 1.1))},
        where={"weight": "64"}))
    # obs2: recorded without the wake-up columns (not measured)
    write_sweep(os.path.join(d, "obs2"), pairs_rows(
        8, "udp1470", "weight", "8", "64", None, lambda i, role, rng: {},
        where={"threaded": "0"}), drop=WAKE_COLUMNS)
    # obs3: weight 8 gives eth1 twice the RTT (contrary)
    write_sweep(os.path.join(d, "obs3"), pairs_rows(
        8, "eth1ping", "weight", "8", "64", None,
        lambda i, role, rng: {"rtt_p99_ms": (4.0 if role == "sweep" else 2.0)
                              * rng.uniform(0.95, 1.05)},
        where={"adaptive": "off"}))
    # obs4: interrupts per packet the same within 2 % (refuted)
    write_sweep(os.path.join(d, "obs4"), pairs_rows(
        10, "udp1470", "weight", "8", "64", None,
        lambda i, role, rng: {"irqs": int(5000 * rng.uniform(0.99, 1.01))},
        where={"defer": "0"}))
    return d


def primary(recs, obs):
    return article.primary_of(recs, obs)


def test_records_of_constructed_sweeps(tmp_path):
    d = constructed(tmp_path)
    recs = article.records(d)
    assert [r["observation"] for r in recs] == [
        o.id for o in article.OBSERVATIONS for _ in o.comparisons]
    v = {o: primary(recs, o)["verdict"] for o in article.IDS}
    assert v == {"obs1": "reproduced", "obs2": "not measured", "obs3": "contrary",
                 "obs4": "refuted"}
    r1 = primary(recs, "obs1")
    assert r1["pairs"] == 8 and 1.6 < r1["effect"] < 2.4 and r1["ci_low"] > 1.0
    assert (r1["knob"], r1["setting"], r1["reference"], r1["settings"]) == (
        "refill", "0", "16", {"weight": "64"})
    assert "no column wake_p99_us" in primary(recs, "obs2")["note"]
    assert primary(recs, "obs4")["ci_low"] >= 0.9 and primary(recs, "obs4")["ci_high"] <= 1.1
    # obs1's other comparisons had no pair with their settings (weight 8)
    w = [r for r in recs if r["observation"] == "obs1" and r["knob"] == "weight"]
    assert w and all(r["verdict"] == "not measured" and r["pairs"] == 0 for r in w)


def test_few_pairs_inconclusive_and_a_failed_half_left_out(tmp_path):
    d = str(tmp_path / "a")
    os.makedirs(d)
    rows = pairs_rows(4, "eth1ping", "weight", "8", "64", None,
                      lambda i, role, rng: {"rtt_p99_ms": 1.0 if role == "sweep" else 2.0},
                      where={"adaptive": "off"})
    rows[0].update(status="failed", error="iperf3 exit 1")
    write_sweep(os.path.join(d, "obs3"), rows)
    r = primary(article.records(d), "obs3")
    assert r["verdict"] == "inconclusive" and r["pairs"] == 3 and r["ci_low"] is None
    assert len(r["excluded"]) == 1 and "iperf3 exit 1" in r["excluded"][0]["why"]


def test_wake_columns_decide_obs2(tmp_path):
    d = str(tmp_path / "a")
    os.makedirs(d)
    write_sweep(os.path.join(d, "obs2"), pairs_rows(
        8, "udp1470", "weight", "8", "64", None,
        lambda i, role, rng: {"wake_p99_us": (300 if role == "sweep" else 900)
                              * rng.uniform(0.9, 1.1)},
        where={"threaded": "0"}))
    assert primary(article.records(d), "obs2")["verdict"] == "reproduced"


def test_incomplete_regime(tmp_path):
    d = str(tmp_path / "a")
    os.makedirs(d)
    write_sweep(os.path.join(d, "obs4"), pairs_rows(
        8, "udp1470", "weight", "8", "64", None,
        lambda i, role, rng: {"irqs": 1000 if role == "sweep" else 5000},
        where={"defer": "0"}), status="interrupted")
    assert primary(article.records(d), "obs4")["verdict"] == "incomplete"


def test_records_round_trip_through_verdicts_json(tmp_path):
    d = constructed(tmp_path)
    recs = article.records(d)
    verdicts.write(d, recs)
    back = verdicts.load(os.path.join(d, "verdicts.json"))
    assert back == recs
    assert all(list(r) == list(schema.ARTICLE_FIELDS) for r in back)
    assert {r["kind"] for r in back} == {"article"}
    assert all(r["verdict"] in schema.ARTICLE_VERDICTS for r in back)


def test_an_article_record_has_exactly_its_fields():
    r = dict(article.records("/nonexistent")[0])
    assert r["verdict"] == "not measured" and "did not run" in r["note"]
    del r["kind"]
    assert verdicts.article_record(**r)["kind"] == "article"
    with pytest.raises(KeyError):
        verdicts.article_record(**dict(r, ratio=1.0))
    r.pop("margin")
    with pytest.raises(KeyError):
        verdicts.article_record(**r)


def test_report_writes_verdicts_summary_and_plots(tmp_path):
    d = constructed(tmp_path)
    p = subprocess.run([sys.executable, os.path.join(BENCH, "article.py"), "report", d],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.load(open(os.path.join(d, "verdicts.json")))["schema"] == schema.VERDICTS_SCHEMA
    md = open(os.path.join(d, "summary.md")).read()
    assert "| obs1 |" in md and "**reproduced**" in md and "**not measured**" in md
    assert os.path.isfile(os.path.join(d, "obs1_drops_vs_weight.png"))
    assert os.path.isfile(os.path.join(d, "obs4_irq_vs_weight.png"))
    assert "obs2_wake_p99_vs_weight.png: skipped, runs.csv has no column wake_p99_us" in md
    assert not os.path.exists(os.path.join(d, "obs2_wake_p99_vs_weight.png"))


# ---- the scripts ----

def test_article_sh_checks_every_regime_before_running(tmp_path):
    """A bad knob stops make article before anything is written."""
    p = subprocess.run([os.path.join(BENCH, "article.sh")], cwd=str(tmp_path),
                       env=env(OBS="obs1 obs9", OUT=str(tmp_path / "out")),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and list(tmp_path.iterdir()) == []
    p = subprocess.run([os.path.join(BENCH, "article.sh")], cwd=str(tmp_path),
                       env=env(REPS="0", OUT=str(tmp_path / "out")),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "REPS: 0 is outside 1..400" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_sh_progress_takes_only_a_well_formed_article_progress():
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    assert "ARTICLE_PROGRESS:-} =~ ^(obs[0-9])" in text
    with open(os.path.join(BENCH, "article.sh")) as f:
        sh = f.read()
    assert 'ARTICLE_PROGRESS="$o $done ${runs_of[total]} $start $est_s"' in sh


def test_eth1ping_is_a_two_nic_profile_outside_the_share_tables():
    p = profiles.PROFILES["eth1ping"]
    assert p.nics == 2 and p.ping_load and not p.forward and not p.saturates
    assert "eth1ping" not in profiles.SHARE and "eth1ping" in profiles.TWO_NIC
    with open(os.path.join(BENCH, "run.sh")) as f:
        assert re.search(r"^\teth1ping\)$", f.read(), re.M)


STUB_RUN_SH = r"""#!/bin/bash
# a stand-in for bench/run.sh: records what make article gave it, writes an
# empty sweep, and fails for the regime named in STUB_FAIL
set -euo pipefail
echo "$REGIME|$ARTICLE|$ARTICLE_PROGRESS|${OUT##*/}" >> "$STUB_LOG"
mkdir -p "$OUT"
printf 'status,role\n' > "$OUT/runs.csv"
printf '{"status": "complete", "parameters": {}}\n' > "$OUT/meta.json"
[ "$REGIME" != "${STUB_FAIL:-}" ] || exit 1
"""


def stub_tree(tmp_path):
    """A copy of bench/ whose run.sh is STUB_RUN_SH."""
    top = tmp_path / "lab"
    (top / "bench").mkdir(parents=True)
    for name in os.listdir(BENCH):
        if name.endswith(".py") or name == "article.sh":
            (top / "bench" / name).write_text(open(os.path.join(BENCH, name)).read())
    os.chmod(top / "bench" / "article.sh", 0o755)
    (top / "bench" / "run.sh").write_text(STUB_RUN_SH)
    os.chmod(top / "bench" / "run.sh", 0o755)
    return top


def test_article_sh_runs_the_regimes_in_order_then_the_verdicts(tmp_path):
    top = stub_tree(tmp_path)
    log, out = tmp_path / "log", tmp_path / "out"
    p = subprocess.run([str(top / "bench" / "article.sh")], capture_output=True, text=True,
                       env=env(OBS="obs3 obs1", OUT=str(out), STUB_LOG=str(log),
                               STUB_FAIL="obs3"), timeout=120)
    assert p.returncode == 1 and "obs3 (exit 1)" in p.stderr, p.stderr
    calls = [line.split("|") for line in log.read_text().splitlines()]
    n3, _ = article.estimate("obs3", env())
    n1, _ = article.estimate("obs1", env())
    assert [(c[0], c[1], c[3]) for c in calls] == [("obs3", "1", "obs3"), ("obs1", "1", "obs1")]
    assert [c[2].split()[:3] for c in calls] == [["obs3", "0", str(n1 + n3)],
                                                 ["obs1", str(n3), str(n1 + n3)]]
    recs = verdicts.load(str(out / "verdicts.json"))
    assert {r["observation"] for r in recs} == set(article.IDS)
    assert all(r["verdict"] == "not measured" for r in recs)
    assert (out / "summary.md").is_file()

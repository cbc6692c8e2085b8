"""bench/trees.py: the same sweep on two trees, unpaired, and the halves of one sweep of both, paired."""
import csv
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import trees  # noqa: E402

FIELDS = ["status", "role", "kernel", "profile", "offered_mbps", "mbps", "irqs",
          "rx_packets", "napi_work", "napi_polls", "napi_quota_full", "fifo_drops"]


def sweep(path, linux, mbps, status="complete", n=8, offered=""):
    os.makedirs(path)
    with open(os.path.join(path, "meta.json"), "w") as f:
        json.dump({"linux": linux, "status": status, "git_revision": "x"}, f)
    with open(os.path.join(path, "verdicts.json"), "w") as f:
        json.dump({"verdicts": [{"question": "TCP 1 stream (Mbit/s)", "ratio": 1.01,
                                 "ci_low": 0.9, "ci_high": 1.1, "verdict": "not_met", "n": n}]}, f)
    with open(os.path.join(path, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for k in range(n):
            for kernel in ("baseline", "patched"):
                w.writerow({"status": "ok", "role": "sweep", "kernel": kernel, "profile": "tcp",
                            "offered_mbps": offered, "mbps": mbps[k], "irqs": 100,
                            "rx_packets": 10000, "napi_work": 10000, "napi_polls": 500,
                            "napi_quota_full": 0, "fifo_drops": 0})
        w.writerow({"status": "failed", "role": "sweep", "kernel": "baseline",
                    "profile": "tcp", "mbps": 1})
    return path


def rows(text, kernel, metric):
    return [line for line in text if line.startswith("| %s | %s |" % (kernel, metric))]


def test_moses_covers_the_shift_and_one_for_the_same_sample():
    rng = random.Random(3)
    a = [300 * rng.uniform(0.8, 1.2) for _ in range(8)]
    r, lo, hi = trees.moses(a, [2 * x for x in a])
    assert abs(r - 2) < 1e-9 and lo < 2 < hi
    r, lo, hi = trees.moses(a, list(a))
    assert lo < 1 < hi and abs(r - 1) < 1e-9


def test_moses_needs_six_positive_values_a_side():
    assert trees.moses([1.0] * 5, [1.0] * 8) is None
    assert trees.moses([1.0] * 8 + [0.0], [1.0] * 8) is None


def test_a_doubled_rate_differs_and_an_equal_one_does_not(tmp_path):
    rng = random.Random(1)
    base = [300 * rng.uniform(0.85, 1.15) for _ in range(8)]
    a = sweep(str(tmp_path / "a"), "6.1", base)
    b = sweep(str(tmp_path / "b"), "6.12", [2 * x for x in base])
    c = sweep(str(tmp_path / "c"), "6.12", list(reversed(base)))
    ab = trees.compare(a, b)
    assert rows(ab, "baseline", "Mbit/s")[0].endswith("| differs |")
    assert "2.00x" in rows(ab, "baseline", "Mbit/s")[0]
    ac = trees.compare(a, c)
    assert rows(ac, "patched", "Mbit/s")[0].endswith("| no difference seen |")
    # zero counts: a ratio of medians is undefined, no interval
    assert rows(ac, "baseline", "FIFO drops")[0].endswith("| no interval |")
    # the failed run is left out: 8, not 9, baseline runs
    assert "(n=8)" in rows(ac, "baseline", "Mbit/s")[0]
    # the patched kernel's own counters, only for it
    assert rows(ac, "patched", "packets/poll") and not rows(ac, "baseline", "packets/poll")
    assert any("6.1 | 6.12" in line for line in ac)
    assert any(line.startswith("| TCP 1 stream (Mbit/s) | 1.010x [0.900-1.100] not_met") for line in ac)


def test_an_incomplete_sweep_gets_no_interval(tmp_path):
    base = [300.0 + k for k in range(8)]
    a = sweep(str(tmp_path / "a"), "6.1", base)
    b = sweep(str(tmp_path / "b"), "6.12", [2 * x for x in base], status="interrupted")
    out = trees.compare(a, b)
    assert any("not complete" in line for line in out)
    assert rows(out, "baseline", "Mbit/s")[0].endswith("| no interval |")


def test_different_offered_loads_are_said(tmp_path):
    base = [60.0 + k for k in range(8)]
    a = sweep(str(tmp_path / "a"), "6.1", base, offered="70")
    b = sweep(str(tmp_path / "b"), "6.12", base, offered="62")
    assert any(line.startswith("Offered load differs (6.1: 70, 6.12: 62") for line in trees.compare(a, b))


def test_refuses_a_directory_without_runs(tmp_path, capsys):
    assert trees.main([str(tmp_path), str(tmp_path)]) == 2
    assert "no runs.csv" in capsys.readouterr().err


def test_the_recorded_comparison_renders_again():
    """docs/results/trees-6.1-6.12.{json,md} are what trees.py gives for
    sweeps 40 and 39, and the Markdown is rendered from the records."""
    res = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "results")
    doc = trees.records(os.path.join(res, "paired-make-6.1-beside-6.12"),
                        os.path.join(res, "paired-make-6.12"))
    with open(os.path.join(res, "trees-6.1-6.12.json")) as f:
        recorded = json.load(f)
    assert json.loads(json.dumps(doc)) == recorded
    with open(os.path.join(res, "trees-6.1-6.12.md")) as f:
        assert "\n".join(trees.render(recorded)) + "\n" == f.read()
    kinds = {(r["kind"], r["verdict"]) for r in recorded["verdicts"]}
    assert ("tree", "differs") in kinds and ("tree", "no_difference") in kinds


def test_main_writes_the_records_and_the_markdown(tmp_path):
    base = [300.0 + 3 * k for k in range(8)]
    a = sweep(str(tmp_path / "a"), "6.1", base)
    b = sweep(str(tmp_path / "b"), "6.12", [1.5 * x for x in base])
    md, js = str(tmp_path / "t.md"), str(tmp_path / "t.json")
    assert trees.main([a, b, "--out", md, "--json", js]) == 0
    with open(js) as f:
        doc = json.load(f)
    rec = [r for r in doc["verdicts"] if r["kernel"] == "baseline" and r["metric"] == "mbps"][0]
    assert rec["verdict"] == "differs" and rec["ci_low"] > 1
    with open(md) as f:
        assert f.read() == "\n".join(trees.render(doc)) + "\n"


def half(path, linux, mbps, pairs, weight="64", meta=None, drop=()):
    """One tree's half of a sweep of both trees: pair ids, settings."""
    os.makedirs(path, exist_ok=True)
    m = {"linux": linux, "status": "complete", "git_revision": "x", "trees": ["6.1", "6.12"],
         "started_utc": "20261207T070000Z", "bench_seed": 7}
    m.update(meta or {})
    with open(os.path.join(path, "meta.json"), "w") as f:
        json.dump(m, f)
    fields = FIELDS + ["pair", "weight", "cost"]
    new = not os.path.exists(os.path.join(path, "runs.csv"))
    with open(os.path.join(path, "runs.csv"), "a", newline="") as f:
        w = csv.DictWriter(f, fields)
        if new:
            w.writeheader()
        for k, pair in enumerate(pairs):
            for kernel in ("baseline", "patched"):
                if (kernel, pair) in drop:
                    continue
                w.writerow({"status": "ok", "role": "sweep", "kernel": kernel, "profile": "tcp",
                            "mbps": mbps[k], "irqs": 100, "rx_packets": 10000,
                            "napi_work": 10000, "napi_polls": 500, "napi_quota_full": 0,
                            "fifo_drops": 10 + k, "pair": pair, "weight": weight, "cost": "0"})
    return path


def test_the_halves_of_one_sweep_are_paired_by_twin(tmp_path):
    """A run's twin is the other tree's run of the same pair: a drift that
    both share cancels, which the unpaired comparison cannot do."""
    rng = random.Random(5)
    drift = [300 * rng.uniform(0.5, 1.5) for _ in range(8)]   # the host, pair by pair
    pairs = ["%d-1" % (k + 1) for k in range(8)]
    a = half(str(tmp_path / "a"), "6.1", drift, pairs)
    b = half(str(tmp_path / "b"), "6.12", [1.05 * x for x in drift], pairs)
    doc = trees.records(a, b)
    assert doc["paired"] is True
    rec = [r for r in doc["verdicts"] if r["kernel"] == "baseline" and r["metric"] == "mbps"][0]
    assert rec["n"] == 8 and abs(rec["ratio"] - 1.05) < 1e-9
    assert rec["ci_low"] > 1 and rec["verdict"] == "differs"
    # unpaired, the same numbers cannot tell 5 % inside a +-50 % drift
    assert trees.moses(rec["a"], rec["b"])[1] < 1
    text = trees.render(doc)
    assert any(line.startswith("Paired: one sweep booted the four kernels") for line in text)
    assert any(line.startswith("| baseline | Mbit/s |") and "1.05x (8)" in line for line in text)


def test_twins_need_the_same_pair_and_setting(tmp_path):
    pairs = ["%d-1" % (k + 1) for k in range(8)]
    vals = [300.0 + 7 * k for k in range(8)]
    a = half(str(tmp_path / "a"), "6.1", vals, pairs, drop={("patched", "3-1")})
    half(a, "6.1", vals, pairs, weight="16")
    b = half(str(tmp_path / "b"), "6.12", vals, pairs)
    half(b, "6.12", vals, pairs, weight="16")
    doc = trees.records(a, b)
    mb = [r for r in doc["verdicts"] if r["kernel"] == "patched" and r["metric"] == "mbps"]
    assert sorted((r["setting"]["weight"], r["n"]) for r in mb) == [("16", 8), ("64", 7)]
    assert all(r["verdict"] == "no_difference" and r["ratio"] == 1.0 for r in mb)
    heads = [line for line in trees.render(doc) if line.startswith("## tcp")]
    assert heads == ["## tcp: weight 16", "## tcp: weight 64"]


def test_halves_of_two_sweeps_stay_unpaired(tmp_path):
    pairs = ["%d-1" % (k + 1) for k in range(8)]
    vals = [300.0 + 7 * k for k in range(8)]
    a = half(str(tmp_path / "a"), "6.1", vals, pairs)
    b = half(str(tmp_path / "b"), "6.12", vals, pairs, meta={"started_utc": "20261207T080000Z"})
    doc = trees.records(a, b)
    assert "paired" not in doc and all("setting" not in r for r in doc["verdicts"])
    assert trees.one_sweep({"trees": ["6.1", "6.12"], "started_utc": "s", "bench_seed": 1},
                           {"trees": ["6.1", "6.12"], "started_utc": "s", "bench_seed": 1})
    assert not trees.one_sweep({}, {})


def test_a_paired_half_that_did_not_complete_gets_no_interval(tmp_path):
    pairs = ["%d-1" % (k + 1) for k in range(8)]
    vals = [300.0 + 7 * k for k in range(8)]
    a = half(str(tmp_path / "a"), "6.1", vals, pairs)
    b = half(str(tmp_path / "b"), "6.12", [2 * x for x in vals], pairs, meta={"status": "failed"})
    doc = trees.records(a, b)
    rec = [r for r in doc["verdicts"] if r["kernel"] == "baseline" and r["metric"] == "mbps"][0]
    assert rec["verdict"] == "no_interval" and rec["ci_low"] is None and abs(rec["ratio"] - 2) < 1e-9


@pytest.mark.parametrize("name", ["trees-paired", "trees-livelock"])
def test_the_recorded_paired_comparison_renders_again(name):
    """docs/results/NAME.{json,md} are what trees.py gives for the two
    halves of one make bench LINUX="6.1 6.12" (sweeps 54-55, 61-62),
    compared pair by pair."""
    res = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "results")
    doc = trees.records(os.path.join(res, name + "-6.1"), os.path.join(res, name + "-6.12"))
    assert doc["paired"] is True
    with open(os.path.join(res, name + ".json")) as f:
        recorded = json.load(f)
    assert json.loads(json.dumps(doc)) == recorded
    with open(os.path.join(res, name + ".md")) as f:
        assert "\n".join(trees.render(recorded)) + "\n" == f.read()

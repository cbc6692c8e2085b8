"""Tests of bench/paired.py on synthetic data.

The data are drawn with a fixed seed, so every run sees the same samples.
"""
import math
import random

import paired as stats


def pairs_with(effect, n, noise, rng, base=400.0):
    """n pairs whose patched value is effect x baseline, both with
    multiplicative noise of sd `noise` (the drift that a pair shares is
    drawn once per pair, as on the machine)."""
    out = []
    for _ in range(n):
        drift = math.exp(rng.gauss(0, 0.3))  # minutes apart: +-30 %
        b = base * drift * math.exp(rng.gauss(0, noise))
        p = base * effect * drift * math.exp(rng.gauss(0, noise))
        out.append((p, b))
    return out


def goal(pairs, target=">= 1.25x", kind="ratio", metric="m", profile="tcp", complete=True):
    """The verdict row of one goal judged alone."""
    return stats.judge([dict(metric=metric, profile=profile, config="c", target=target,
                             kind=kind, pairs=pairs)], complete=complete)[0]


def test_known_1_3x_effect_is_met():
    r = stats.judge([dict(metric="tcp_mbps", profile="tcp", config="defaults",
                          target=">= 1.25x", kind="ratio",
                          pairs=pairs_with(1.3, 12, 0.01, random.Random(1)))])[0]
    assert r["verdict"] == "met", r
    assert r["ci_low"] > 1.25 and r["ci_high"] < 1.35, r


def test_identical_samples_are_inconclusive():
    base = pairs_with(1.0, 12, 0.05, random.Random(2))
    r = goal([(b, b) for _, b in base])
    assert r["verdict"] == "inconclusive", r


def test_a_0_7x_effect_is_not_met():
    r = goal(pairs_with(0.7, 12, 0.03, random.Random(3)))
    assert r["verdict"] == "not_met", r
    assert r["ci_high"] < 0.8, r


def test_drift_between_pairs_cancels():
    # +-30 % drift between pairs, 1 % inside: the interval is still narrow
    r = stats.compare(pairs_with(1.1, 12, 0.01, random.Random(4)), ">= 1.05x")
    assert r["ci_high"] / r["ci_low"] < 1.03, r


def test_five_pairs_have_no_95_percent_interval():
    r = goal(pairs_with(1.5, 5, 0.01, random.Random(5)))
    assert r["verdict"] == "inconclusive", r
    assert r["ci_low"] == 0.0, r


def test_six_pairs_interval_is_min_to_max_walsh():
    x = [0.1, 0.3, -0.2, 0.5, 0.05, 0.2]
    est, lo, hi = stats.hl_interval(x)
    assert abs(lo - min(x)) < 1e-12 and abs(hi - max(x)) < 1e-12, (est, lo, hi)


def test_signed_rank_p_matches_scipy():
    from scipy.stats import wilcoxon
    rng = random.Random(6)
    worst = 0.0
    for n in (6, 8, 10, 12):
        for _ in range(20):
            d = [rng.gauss(0.2, 1) for _ in range(n)]
            ours = stats.wilcoxon_greater(d)
            theirs = wilcoxon(d, alternative="greater", method="exact").pvalue
            worst = max(worst, abs(ours - theirs))
    assert worst < 1e-9, "largest difference %g" % worst


def test_interval_covers_the_truth_95_percent():
    rng = random.Random(7)
    hits = trials = 0
    for _ in range(400):
        r = stats.compare(pairs_with(1.0, 10, 0.05, rng), ">= 1.25x")
        trials += 1
        hits += r["ci_low"] <= 1.0 <= r["ci_high"]
    assert hits / trials >= 0.93, "%d of %d intervals contain 1.0" % (hits, trials)


def test_counts_with_zeros_use_ratio_of_means():
    rng = random.Random(8)
    pairs = []
    for _ in range(12):
        b = max(0, round(rng.gauss(1000, 150)))
        p = max(0, round(rng.gauss(300, 60)))
        pairs.append((p, b))
    pairs[0] = (0, pairs[0][1])  # a patched run without a drop
    r = goal(pairs, "<= 0.5x", "count", "fifo_drops")
    assert r["verdict"] == "met", r
    assert r["ci_high"] < 0.5, r


def test_baseline_zero_everywhere_is_inconclusive():
    r = goal([(5, 0), (0, 0), (3, 0), (1, 0), (0, 0), (2, 0)], "<= 0.5x", "count", "lost",
             "udp1470")
    assert r["verdict"] == "inconclusive", r
    assert r["ratio"] is None, r


def test_no_worse_goal_with_margin():
    same = goal(pairs_with(1.0, 12, 0.01, random.Random(9)), "<= 1.05x", metric="rtt",
                profile="idle")
    worse = goal(pairs_with(1.2, 12, 0.01, random.Random(9)), "<= 1.05x", metric="rtt",
                 profile="idle")
    assert same["verdict"] == "met", same
    assert worse["verdict"] == "not_met", worse


def test_holm_adjusts_as_published():
    # Holm 1979 style example: sorted p 0.01, 0.02, 0.03, 0.04 with m = 4
    adj = stats.holm([0.04, 0.01, 0.03, 0.02])
    want = [0.06, 0.04, 0.06, 0.06]
    assert len(adj) == len(want), adj
    assert all(abs(a - w) < 1e-12 for a, w in zip(adj, want)), adj


def test_holm_correction_can_undo_a_verdict():
    # one goal with p just under 0.05 stays met alone, not among 10 goals
    # whose p are 1 (the correction multiplies the smallest p by 10)
    pairs = [(1.3 * b, b) for b in (100, 101, 99, 102, 98, 100.5)]
    pairs = [(p * (1 + 0.001 * i), b) for i, (p, b) in enumerate(pairs)]
    g = dict(metric="m", profile="tcp", config="c", target=">= 1.25x", kind="ratio",
             pairs=pairs)
    alone = stats.judge([g])[0]
    others = [dict(g, metric="m%d" % i, pairs=[(b, b * 1.01) for b in range(100, 106)])
              for i in range(9)]
    crowd = stats.judge([g] + others)[0]
    assert alone["verdict"] == "met", alone["p_holm"]
    assert crowd["verdict"] == "inconclusive", crowd["p_holm"]


def test_incomplete_sweep_has_no_verdict():
    r = goal(pairs_with(1.3, 12, 0.01, random.Random(1)), complete=False)
    assert r["verdict"] == "incomplete", r

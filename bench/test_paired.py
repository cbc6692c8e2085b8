#!/usr/bin/env python3
"""Tests of bench/paired.py on synthetic data (KTAP; make test runs it).

The data are drawn with a fixed seed, so every run sees the same samples.
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402
import paired as stats  # noqa: E402

CASES = []
case = ktap.collector(CASES)


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


@case
def known_1_3x_effect_is_met():
    rows = stats.judge([dict(metric="tcp_mbps", profile="tcp", config="defaults",
                             target=">= 1.25x", kind="ratio",
                             pairs=pairs_with(1.3, 12, 0.01, random.Random(1)))])
    r = rows[0]
    return r["verdict"] == "met" and r["ci_low"] > 1.25 and r["ci_high"] < 1.35, r


@case
def identical_samples_are_inconclusive():
    base = pairs_with(1.0, 12, 0.05, random.Random(2))
    same = [(b, b) for _, b in base]
    r = stats.judge([dict(metric="m", profile="tcp", config="c", target=">= 1.25x",
                          kind="ratio", pairs=same)])[0]
    return r["verdict"] == "inconclusive", r


@case
def a_0_7x_effect_is_not_met():
    r = stats.judge([dict(metric="m", profile="tcp", config="c", target=">= 1.25x",
                          kind="ratio", pairs=pairs_with(0.7, 12, 0.03, random.Random(3)))])[0]
    return r["verdict"] == "not_met" and r["ci_high"] < 0.8, r


@case
def drift_between_pairs_cancels():
    # +-30 % drift between pairs, 1 % inside: the interval is still narrow
    r = stats.compare(pairs_with(1.1, 12, 0.01, random.Random(4)), ">= 1.05x")
    return r["ci_high"] / r["ci_low"] < 1.03, r


@case
def five_pairs_have_no_95_percent_interval():
    r = stats.judge([dict(metric="m", profile="tcp", config="c", target=">= 1.25x",
                          kind="ratio", pairs=pairs_with(1.5, 5, 0.01, random.Random(5)))])[0]
    return r["verdict"] == "inconclusive" and r["ci_low"] == 0.0, r


@case
def six_pairs_interval_is_min_to_max_walsh():
    x = [0.1, 0.3, -0.2, 0.5, 0.05, 0.2]
    est, lo, hi = stats.hl_interval(x)
    return (abs(lo - min(x)) < 1e-12 and abs(hi - max(x)) < 1e-12), (est, lo, hi)


@case
def signed_rank_p_matches_scipy():
    from scipy.stats import wilcoxon
    rng = random.Random(6)
    worst = 0.0
    for n in (6, 8, 10, 12):
        for _ in range(20):
            d = [rng.gauss(0.2, 1) for _ in range(n)]
            ours = stats.wilcoxon_greater(d)
            theirs = wilcoxon(d, alternative="greater", method="exact").pvalue
            worst = max(worst, abs(ours - theirs))
    return worst < 1e-9, "largest difference %g" % worst


@case
def interval_covers_the_truth_95_percent():
    rng = random.Random(7)
    hits = trials = 0
    for _ in range(400):
        r = stats.compare(pairs_with(1.0, 10, 0.05, rng), ">= 1.25x")
        trials += 1
        hits += r["ci_low"] <= 1.0 <= r["ci_high"]
    return hits / trials >= 0.93, "%d of %d intervals contain 1.0" % (hits, trials)


@case
def counts_with_zeros_use_ratio_of_means():
    rng = random.Random(8)
    pairs = []
    for _ in range(12):
        b = max(0, round(rng.gauss(1000, 150)))
        p = max(0, round(rng.gauss(300, 60)))
        pairs.append((p, b))
    pairs[0] = (0, pairs[0][1])  # a patched run without a drop
    r = stats.judge([dict(metric="fifo_drops", profile="tcp", config="c",
                          target="<= 0.5x", kind="count", pairs=pairs)])[0]
    return r["verdict"] == "met" and r["ci_high"] < 0.5, r


@case
def baseline_zero_everywhere_is_inconclusive():
    r = stats.judge([dict(metric="lost", profile="udp1470", config="c",
                          target="<= 0.5x", kind="count",
                          pairs=[(5, 0), (0, 0), (3, 0), (1, 0), (0, 0), (2, 0)])])[0]
    return r["verdict"] == "inconclusive" and r["ratio"] is None, r


@case
def no_worse_goal_with_margin():
    same = pairs_with(1.0, 12, 0.01, random.Random(9))
    r = stats.judge([dict(metric="rtt", profile="idle", config="c", target="<= 1.05x",
                          kind="ratio", pairs=same)])[0]
    worse = stats.judge([dict(metric="rtt", profile="idle", config="c", target="<= 1.05x",
                              kind="ratio", pairs=pairs_with(1.2, 12, 0.01,
                                                             random.Random(9)))])[0]
    return r["verdict"] == "met" and worse["verdict"] == "not_met", (r, worse)


@case
def holm_adjusts_as_published():
    # Holm 1979 style example: sorted p 0.01, 0.02, 0.03, 0.04 with m = 4
    adj = stats.holm([0.04, 0.01, 0.03, 0.02])
    want = [0.06, 0.04, 0.06, 0.06]
    return all(abs(a - w) < 1e-12 for a, w in zip(adj, want)), adj


@case
def holm_correction_can_undo_a_verdict():
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
    return (alone["verdict"] == "met" and crowd["verdict"] == "inconclusive",
            (alone["p_holm"], crowd["p_holm"]))


@case
def incomplete_sweep_has_no_verdict():
    r = stats.judge([dict(metric="m", profile="tcp", config="c", target=">= 1.25x",
                          kind="ratio", pairs=pairs_with(1.3, 12, 0.01, random.Random(1)))],
                    complete=False)[0]
    return r["verdict"] == "incomplete", r


if __name__ == "__main__":
    sys.exit(ktap.run(CASES))

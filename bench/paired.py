#!/usr/bin/env python3
"""Paired comparisons for the bench: estimates, 95 % intervals, verdicts.

Every comparison is of pairs: one patched run and one baseline run of the
same profile, run back to back (bench/plan.py), so that the drift of a
shared machine between minutes cancels inside a pair.

Two estimators, chosen by what the metric can be:

* ``ratio``: a positive measurement (throughput, interrupts per 1000
  packets, CPU per packet, RTT). The log ratios log(p_i / b_i) of the pairs
  are summarised by their Hodges-Lehmann estimate (the median of the Walsh
  averages) with the exact distribution-free confidence interval that
  inverts the Wilcoxon signed-rank test (Hollander & Wolfe). With fewer
  than 6 pairs (MIN_PAIRS) no interval of 95 % exists (the most extreme
  outcome of 5 pairs has two-sided p = 1/16): the interval is then
  unbounded and the verdict inconclusive, which is what the data can say.
* ``count``: a count that can be 0 in a run (drops, lost datagrams). The
  ratio of the means over the pairs, with a percentile bootstrap interval
  over pairs (10000 resamples, fixed seed). When every baseline value is 0
  there is no ratio: the paired difference is reported instead.

p-values test the goal itself, one-sided: for a "higher is better" goal
with target t, H0 is that the ratio is t or less. ``ratio`` uses the exact
Wilcoxon signed-rank test on log(p_i / b_i) - log(t); ``count`` the exact
sign-flip permutation test on p_i - t * b_i (all 2^n flips for n <= 16,
else 20000 random ones). The p-values of the goals judged in one sweep are
Holm-corrected together (p_holm).

Verdicts: ``met`` when the whole interval is beyond the target (and
p_holm < 0.05), ``not_met`` when the whole interval is on the wrong side of
it, else ``inconclusive``; ``incomplete`` when the sweep did not complete.
Pairs that are all exactly equal carry no information about a ratio (the
rank tests drop zero differences): ``inconclusive``.
"""
import itertools
import math
import random

ALPHA = 0.05
# The fewest pairs (or runs) with an exact two-sided 1 - ALPHA interval of
# the signed-rank family: the most extreme of n pairs has one-sided p 2^-n,
# which must not exceed ALPHA / 2 (6 for 95 %: 5 pairs give 1/32).
MIN_PAIRS = next(n for n in itertools.count(1) if 0.5 ** n <= ALPHA / 2)


def signed_rank_counts(n):
    """Exact null distribution of the Wilcoxon signed-rank statistic W+
    for n non-zero differences: counts[w] = number of sign patterns with
    W+ = w (out of 2^n)."""
    top = n * (n + 1) // 2
    counts = [0] * (top + 1)
    counts[0] = 1
    for r in range(1, n + 1):
        for w in range(top, r - 1, -1):
            counts[w] += counts[w - r]
    return counts


def hl_interval(x, alpha=ALPHA):
    """Hodges-Lehmann estimate of the centre of x and its exact 1 - alpha
    interval (inverted signed-rank test). Returns (est, lo, hi); lo/hi are
    -inf/+inf when n is too small for the confidence asked."""
    n = len(x)
    walsh = sorted((x[i] + x[j]) / 2.0 for i in range(n) for j in range(i, n))
    m = len(walsh)
    mid = m // 2
    est = walsh[mid] if m % 2 else (walsh[mid - 1] + walsh[mid]) / 2.0
    counts = signed_rank_counts(n)
    total = 2 ** n
    # the largest k with P(W+ <= k - 1) <= alpha / 2
    k, cum = 0, 0
    for w, c in enumerate(counts):
        if (cum + c) / total > alpha / 2:
            break
        cum += c
        k = w + 1
    if k == 0:
        return est, -math.inf, math.inf
    return est, walsh[k - 1], walsh[m - k]


def wilcoxon_greater(d):
    """Exact one-sided p of the signed-rank test for H1: centre of d > 0.
    Zeros are dropped; ties get mid-ranks (the exact distribution is then
    approximate); no non-zero d gives p = 1."""
    d = [v for v in d if v != 0]
    n = len(d)
    if n == 0:
        return 1.0
    order = sorted(range(n), key=lambda i: abs(d[i]))
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    wplus = sum(r for r, v in zip(ranks, d) if v > 0)
    counts = signed_rank_counts(n)
    total = 2 ** n
    # P(W+ >= observed); mid-ranks can be half-integers: round down to the
    # integer grid conservatively
    w0 = math.floor(wplus + 1e-9)
    return sum(counts[w0:]) / total if w0 < len(counts) else 0.0


def signflip_greater(d, rng):
    """One-sided p of the sign-flip permutation test for H1: mean of d > 0."""
    n = len(d)
    obs = sum(d)
    if n == 0 or all(v == 0 for v in d):
        return 1.0
    if n <= 16:
        hits = total = 0
        for signs in itertools.product((1, -1), repeat=n):
            total += 1
            hits += sum(s * v for s, v in zip(signs, d)) >= obs - 1e-12
        return hits / total
    hits = 0
    reps = 20000
    for _ in range(reps):
        hits += sum(v if rng.random() < 0.5 else -v for v in d) >= obs - 1e-12
    return (hits + 1) / (reps + 1)


def bootstrap_ratio(p, b, rng, reps=10000, alpha=ALPHA):
    """Ratio of means over pairs and its percentile bootstrap interval."""
    n = len(p)
    est = sum(p) / sum(b)
    stats = []
    for _ in range(reps):
        idx = [rng.randrange(n) for _ in range(n)]
        sb = sum(b[i] for i in idx)
        if sb > 0:
            stats.append(sum(p[i] for i in idx) / sb)
        else:
            stats.append(math.inf)
    stats.sort()
    lo = stats[int(math.floor(alpha / 2 * len(stats)))]
    hi = stats[min(len(stats) - 1, int(math.ceil((1 - alpha / 2) * len(stats))) - 1)]
    return est, lo, hi


def parse_target(target):
    """'>= 1.25x' -> (1.25, True); '<= 0.5x' -> (0.5, False). A 'no worse'
    goal is written with its margin: '<= 1.05x'."""
    t = target.replace(" ", "")
    higher = t.startswith(">=")
    return float(t.strip("<>=x")), higher


def compare(pairs, target, kind="ratio", seed=1):
    """pairs: [(patched, baseline)] values of one metric. Returns a dict
    with ratio, ci_low, ci_high, n_pairs, p (one-sided, not yet corrected),
    and the verdict before any correction."""
    rng = random.Random(seed)
    t, higher = parse_target(target)
    pairs = [(float(a), float(b)) for a, b in pairs
             if a is not None and b is not None]
    n = len(pairs)
    out = {"ratio": None, "ci_low": None, "ci_high": None, "n_pairs": n,
           "p": 1.0, "note": ""}
    if n == 0:
        out["note"] = "no pairs"
        return out
    p = [a for a, _ in pairs]
    b = [v for _, v in pairs]
    if kind == "ratio":
        if min(p) <= 0 or min(b) <= 0:
            kind = "count"  # a zero: log ratios do not exist
        else:
            lr = [math.log(x / y) for x, y in pairs]
            if all(v == 0 for v in lr):
                out.update(ratio=1.0, ci_low=1.0, ci_high=1.0,
                           note="every pair equal: no information")
                return out
            est, lo, hi = hl_interval(lr)
            out.update(ratio=math.exp(est), ci_low=math.exp(lo),
                       ci_high=math.exp(hi))
            sign = 1 if higher else -1
            out["p"] = wilcoxon_greater([sign * (v - math.log(t)) for v in lr])
            return out
    if n < MIN_PAIRS:  # as for ratios: too few pairs for a 95 % statement
        out.update(ratio=(sum(p) / sum(b)) if sum(b) else None, ci_low=0.0,
                   ci_high=math.inf)
        return out
    if sum(b) == 0:
        out["note"] = "baseline 0 in every pair: no ratio (difference %.3g)" % (
            (sum(p) - sum(b)) / n)
        return out
    if all(x == y for x, y in pairs):
        out.update(ratio=1.0, ci_low=1.0, ci_high=1.0,
                   note="every pair equal: no information")
        return out
    est, lo, hi = bootstrap_ratio(p, b, rng)
    out.update(ratio=est, ci_low=lo, ci_high=hi)
    sign = 1 if higher else -1
    out["p"] = signflip_greater([sign * (x - t * y) for x, y in pairs], rng)
    return out


RATIO_FLOOR = 1e-9


def ratio_interval(values, alpha=ALPHA):
    """One sample of ratios (one per run, e.g. a NIC's CPU share over its
    weight share, measured within the run): the Hodges-Lehmann centre of
    their logs and its exact interval, back as ratios. Returns (est, lo,
    hi, n); lo, hi are 0, inf below MIN_PAIRS runs (no 95 % interval); None
    when no run has a value. A ratio of 0 (a NIC that got nothing) has no log:
    it counts as RATIO_FLOOR, below any other, so that the rank-based
    interval keeps it where it belongs instead of losing the run."""
    v = [max(float(x), RATIO_FLOOR) for x in values if x is not None]
    if not v:
        return None
    est, lo, hi = hl_interval([math.log(x) for x in v], alpha)
    return math.exp(est), math.exp(lo), math.exp(hi), len(v)


def has_interval(iv):
    """Whether ratio_interval gave a bounded interval (MIN_PAIRS runs or more)."""
    return iv is not None and iv[1] > 0 and not math.isinf(iv[2])


def band_verdict(iv, low, high):
    """A centre that should lie in [low, high]: met when the whole interval
    is inside, not_met when the whole interval is outside on one side,
    else inconclusive (and always inconclusive without an interval)."""
    if not has_interval(iv):
        return "inconclusive"
    if low <= iv[1] and iv[2] <= high:
        return "met"
    if iv[2] < low or iv[1] > high:
        return "not_met"
    return "inconclusive"


def holm(ps):
    """Holm-Bonferroni adjusted p-values, in the order given."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        adj[i] = run
    return adj


def verdict(c, target, complete=True):
    if not complete:
        return "incomplete"
    if c["ci_low"] is None or c["note"]:
        return "inconclusive"
    t, higher = parse_target(target)
    lo, hi = c["ci_low"], c["ci_high"]
    if higher:
        if lo >= t and c.get("p_holm", c["p"]) < ALPHA:
            return "met"
        if hi < t:
            return "not_met"
    else:
        if hi <= t and c.get("p_holm", c["p"]) < ALPHA:
            return "met"
        if lo > t:
            return "not_met"
    return "inconclusive"


def judge(goals, complete=True):
    """goals: [dict(metric, profile, config, target, kind, pairs)]. Returns
    the verdicts.json rows, p-values Holm-corrected over the goals that
    have pairs."""
    res = [compare(g["pairs"], g["target"], g.get("kind", "ratio"))
           for g in goals]
    idx = [i for i, r in enumerate(res) if r["n_pairs"] and not r["note"]]
    for i, a in zip(idx, holm([res[i]["p"] for i in idx])):
        res[i]["p_holm"] = a
    rows = []
    for g, r in zip(goals, res):
        rows.append({
            "metric": g["metric"], "profile": g["profile"], "config": g["config"],
            "ratio": r["ratio"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "n_pairs": r["n_pairs"], "p_holm": r.get("p_holm"),
            "target": g["target"], "verdict": verdict(r, g["target"], complete),
        })
        rows[-1]["_note"] = r["note"]
    return rows


def decided(rows):
    """Every row has met or not_met, and there is one: nothing judged is not
    decided (REPS=auto must not stop on a sweep that answered nothing)."""
    return bool(rows) and all(r["verdict"] in ("met", "not_met") for r in rows)

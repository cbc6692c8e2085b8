#!/usr/bin/env python3
"""The application wake-up probe's output (qemu/guest/wakeup.c, /lab/wakeup
in the guest; issue 21, observation 2) and the summaries the report needs.

    wakeup.py FILE...      parse each probe output, print one summary line

parse(text) reads the probe's "key value" lines into a dict of ints and
refuses, with a WakeupError that says which line or key, anything else: a
line that is not "key integer", a key that does not start with "wakeup_", a
key twice, a missing key (KEYS), a negative value, or statistics out of
order (p50 <= p99 <= max, mean <= max). Keys the probe may add later
(wakeup_period_us, wakeup_fifo today) are kept, not required.

summary(runs) combines the runs of one configuration: the median of their
p99 (and p50) with its spread, the worst max, and the totals of samples,
wake-ups over 1 ms and missed periods. by_config(pairs) does that per
configuration, for (configuration, parsed run) pairs, in the order the
configurations first appear. A median over runs, not the p99 of the pooled
samples: a run is the unit the bench repeats, and one bad run moves a
median of runs by one rank at most.
"""
import statistics
import sys

# Every key the probe prints and the parser requires, in the probe's order.
KEYS = ("wakeup_samples", "wakeup_p50_ns", "wakeup_p99_ns", "wakeup_max_ns",
        "wakeup_mean_ns", "wakeup_over_1ms", "wakeup_missed")


class WakeupError(ValueError):
    """The probe's output is malformed or incomplete."""


def parse(text):
    """The probe's output as {key: int}; WakeupError when it is not one."""
    out = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = line.split()
        if len(f) != 2 or not f[0].startswith("wakeup_"):
            raise WakeupError("line %d is not 'wakeup_KEY VALUE': %r" % (no, line))
        key, val = f
        try:
            v = int(val, 10)
        except ValueError:
            raise WakeupError("line %d: %s is not an integer: %r" % (no, key, val)) from None
        if v < 0:
            raise WakeupError("line %d: %s is negative: %d" % (no, key, v))
        if key in out:
            raise WakeupError("line %d: %s given twice" % (no, key))
        out[key] = v
    missing = [k for k in KEYS if k not in out]
    if missing:
        raise WakeupError("missing key%s: %s" % ("s" if len(missing) > 1 else "",
                                                  ", ".join(missing)))
    if out["wakeup_samples"] and not (out["wakeup_p50_ns"] <= out["wakeup_p99_ns"]
                                      <= out["wakeup_max_ns"]):
        raise WakeupError("percentiles out of order: p50 %d, p99 %d, max %d" % (
            out["wakeup_p50_ns"], out["wakeup_p99_ns"], out["wakeup_max_ns"]))
    if out["wakeup_mean_ns"] > out["wakeup_max_ns"]:
        raise WakeupError("mean %d above max %d" % (out["wakeup_mean_ns"],
                                                    out["wakeup_max_ns"]))
    if out["wakeup_over_1ms"] > out["wakeup_samples"]:
        raise WakeupError("%d wake-ups over 1 ms of %d samples" % (
            out["wakeup_over_1ms"], out["wakeup_samples"]))
    return out


def summary(runs):
    """One configuration's runs (parsed dicts, at least one) combined."""
    runs = list(runs)
    if not runs:
        raise ValueError("no runs to summarise")
    p99 = [r["wakeup_p99_ns"] for r in runs]
    samples = sum(r["wakeup_samples"] for r in runs)
    over = sum(r["wakeup_over_1ms"] for r in runs)
    return {
        "runs": len(runs),
        "p50_median_ns": statistics.median(r["wakeup_p50_ns"] for r in runs),
        "p99_median_ns": statistics.median(p99),
        "p99_min_ns": min(p99),
        "p99_max_ns": max(p99),
        "max_ns": max(r["wakeup_max_ns"] for r in runs),
        "samples": samples,
        "over_1ms": over,
        "over_1ms_share": over / samples if samples else 0.0,
        "missed": sum(r["wakeup_missed"] for r in runs),
    }


def by_config(pairs):
    """{configuration: summary} for (configuration, parsed run) pairs; the
    configurations in the order they first appear."""
    groups = {}
    for cfg, run in pairs:
        groups.setdefault(cfg, []).append(run)
    return {cfg: summary(runs) for cfg, runs in groups.items()}


def main(argv):
    if len(argv) < 2:
        print("usage: wakeup.py FILE...", file=sys.stderr)
        return 2
    for path in argv[1:]:
        try:
            with open(path) as f:
                r = parse(f.read())
        except (OSError, WakeupError) as e:
            print("wakeup.py: %s: %s" % (path, e), file=sys.stderr)
            return 1
        print("%s: samples %d p50 %d p99 %d max %d ns, over 1 ms %d, missed %d" % (
            path, r["wakeup_samples"], r["wakeup_p50_ns"], r["wakeup_p99_ns"],
            r["wakeup_max_ns"], r["wakeup_over_1ms"], r["wakeup_missed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The bench's thresholds that more than one place applies, each defined
here once: the Python modules import them, and so do the Python snippets
of bench/run.sh (its trial verdicts).

LOSS_MAX, 0.1 %: a zero-loss (RFC 2544) trial passes when at most this share
of what was sent was lost; the PDR is the highest rate that passes. The
router's trial counts its loss at the host side of tap1 (forwarded_verdict:
what iperf3's client sent against what the guest forwarded out of eth1),
so the host's receiver behind tap1 judges nothing. Before that count (a
router row without fwd_frames, bench/row.py) the router's rate was its
receiver's, and the receiver limited a measurement when its socket dropped
more than LOSS_MAX of the datagrams that reached it: what it received
(sent - lost) plus what it dropped. Of what reached it, not of what was
sent: under a flood most of what is sent dies before the receiver (in the
FIFO, the ring, the guest), and the question is whether the receiver kept
up with what it was given; a share of what was sent would let a receiver
that dropped 1 in 250 pass as 1 in 1000. Exact: a Fraction, so that 1 in
1000 is never lost to rounding.

SHARE_BAND, +-10 %: the adaptive quota's goal (issue 14), a NIC's share
within this of its weight's share.

The fewest pairs for a 95 % interval (6) follows from the test's level:
paired.MIN_PAIRS, beside paired.ALPHA.
"""
from fractions import Fraction

LOSS_MAX = Fraction(1, 1000)
SHARE_BAND = 0.10


def percent(share):
    """A share as the reports write it: 0.1 %, 10 %."""
    return "%g %%" % (100 * float(share))


# The zero-loss rate's name, as the reports and the records' questions write it.
PDR = "PDR " + percent(LOSS_MAX)  # "PDR 0.1 %"


def trial_verdict(sent, lost):
    """A zero-loss trial: "ok" when at most LOSS_MAX of what was sent was
    lost, else "fail"."""
    return "ok" if lost <= LOSS_MAX * sent else "fail"


def forwarded_verdict(sent, forwarded):
    """A router trial judged at the host side of tap1: "ok" when at most
    LOSS_MAX of the datagrams iperf3's client sent did not come out of the
    guest's eth1, "fail" when more did not, "error" when nothing was sent
    or tap1 counted more than was sent (its count matches the trial's own
    datagrams only, so more means it counted something else: no verdict)."""
    if sent <= 0 or forwarded < 0 or forwarded > sent:
        return "error"
    return trial_verdict(sent, sent - forwarded)


def receiver_limited(sent, lost, drops):
    """Whether the host's receiver dropped more than LOSS_MAX of the
    datagrams that reached it (lost counts its drops too): a router row
    recorded without the count at tap1, whose rate is then the receiver's."""
    reached = sent - lost + drops
    return reached > 0 and drops > LOSS_MAX * reached



# The guest kernel's CONFIG_HZ (Kconfig's default; qemu/kernel.config does
# not set it) and what 6.1 makes of it: net_rx_action() stops after
# netdev_budget_usecs counted in jiffies, by default 2 jiffies, and its
# sysctl refuses less than that (net/core/sysctl_net_core.c,
# netdev_budget_usecs_min = 2 * USEC_PER_SEC / HZ).
GUEST_HZ = 250
BUDGET_USECS_MIN = 2 * 1000000 // GUEST_HZ


# The version of what a sweep records (meta.json's schema_version; runs.csv,
# the plan files): raised when a field is added, renamed or changes meaning,
# so that a reader can tell an old sweep from a new one instead of guessing
# from the keys it lacks. 1: every sweep recorded before the version was
# written (no schema_version in meta.json). 2: meta.json has schema_version
# and "knobs" (every knob's value, bench/knobs.py), the plan files a header
# naming their fields (bench/plan.py). 3: runs.csv has fwd_frames, and a
# router row's mbps is what reached the host side of tap1 (the guest's
# forwarding, bench/row.py), no longer what its receiver got; the plan and
# runs.csv have netdev_budget, netdev_budget_usecs and threaded, runs.csv
# the wake_* columns (WAKEUP=1). 4: meta.json has "linux" (the kernel tree,
# LINUX: 6.1 or 6.12) and each kernel's "source" (what its build directory
# says it was built from: linux, tarball, patches, release).
SCHEMA_VERSION = 4


# verdicts.json (bench/verdicts.py): {"schema": VERDICTS_SCHEMA, "verdicts":
# [record, ...]}, every record with exactly VERDICT_FIELDS, in this order.
# Schema 1 (sweeps recorded before it) was a bare list of the goals' or the
# A/A's objects with metric, profile, config, ratio, ci_low, ci_high,
# n_pairs, p_holm, target, verdict.
VERDICTS_SCHEMA = 2
VERDICT_FIELDS = (
    "kind",       # one of KINDS: which question
    "question",   # its words, as the tables and docs/RESULTS.md write it
    "profile",    # the bench profile (share, router, tcp, ...)
    "nic",        # eth0 or eth1 where the question is one NIC's, else ""
    "metric",     # the runs.csv column or derived metric (report.value)
    "config",     # the settings judged, as one line of words
    "settings",   # the same as data: {knob: value}
    "estimator",  # ratio, count (paired, bench/paired.py) or runs (one sample)
    "ratio",      # the estimate: patched / baseline, or a share / its weight share
    "ci_low",     # its 95 % interval; both null when there is none
    "ci_high",
    "n",          # pairs (paired kinds) or runs (band) behind it
    "p_holm",     # the Holm-corrected p where the kind has one, else null
    "target",     # what met means: ">= 1.25x", "contains 1.0 (A/A)", a band
    "aim",        # A/A: the resolution aimed at (CI half-width, %), else null
    "verdict",    # one of VERDICTS
    "note",       # why there is no interval or no ratio, else ""
    "excluded",   # [{kernel, pair, why}]: failed or host-limited runs left out
)
KINDS = (
    "goal",    # patched at its defaults against the baseline, a target each
    "aa",      # make aa: one kernel in both slots, the interval must contain 1
    "band",    # a NIC's share over its weight share, within SHARE_BAND
    "router",  # a router setting's forwarding rate against the baseline's
    "pdr",     # a setting's zero-loss rate (PDR) against the baseline's
    "article",  # make article: two settings of the patched image (ARTICLE_FIELDS)
)
VERDICTS = (
    "met", "not_met",  # decided
    "inconclusive",    # judged, the interval straddles the target (or none)
    "incomplete",      # the sweep did not complete: nothing judged
    "not_judged",      # nothing to judge: no pairs or runs left, or an A/A's
                       # slot comparison (kind router or pdr in make aa)
)
DECIDED = ("met", "not_met")

# make article's records (bench/article.py), kind "article": one per
# observation and comparison, with exactly ARTICLE_FIELDS, in this order, in
# the verdicts.json of the article's results directory. Two settings of the
# patched image, paired: the effect is setting / reference.
ARTICLE_KIND = "article"
ARTICLE_FIELDS = (
    "kind",         # ARTICLE_KIND
    "observation",  # obs1..obs4 (bench/article.py OBSERVATIONS)
    "claim",        # what the article said in 2005, one line
    "regime",       # the regime's sweep parameters as run (its meta.json's), {} if not run
    "profile",      # the bench profile whose pairs are compared
    "knob",         # the plan field compared: weight, refill, adaptive, defer, weight_eth1
    "setting",      # its value in the compared half
    "reference",    # its value in the reference half (the plan's role ref)
    "settings",     # the other plan fields the comparison holds at, {field: value}
    "metric",       # the runs.csv column or derived metric (bench/article.py)
    "estimator",    # ratio or count (bench/paired.py)
    "direction",    # lower or higher: what the article predicts for setting / reference
    "effect",       # setting / reference over the pairs, or null
    "ci_low",       # its 95 % interval; both null when there is none
    "ci_high",
    "margin",       # refuted when the interval lies within 1 +- margin
    "p_holm",       # one-sided p of an effect in the direction, Holm over the article's
    "pairs",        # valid pairs behind the effect
    "primary",      # true for the comparison that decides the observation
    "verdict",      # one of ARTICLE_VERDICTS
    "note",         # why there is no interval, no pair or no column, else ""
    "excluded",     # [{kernel, pair, why}]: pairs left out (a half failed or is missing)
)
ARTICLE_VERDICTS = (
    "reproduced",    # the interval excludes no effect in the article's direction
    "refuted",       # the interval lies within 1 +- margin (equivalence)
    "contrary",      # the interval excludes no effect in the opposite direction
    "inconclusive",  # none of these: more pairs decide it
    "not measured",  # no column, no regime run, or no pair with values
    "incomplete",    # the regime's sweep did not complete
)

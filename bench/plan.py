#!/usr/bin/env python3
"""Expand the bench axes into the list of runs: a TSV whose first line names
the fields (FIELDS), then one line per run.

    plan.py REP          the runs of repetition REP (1, 2, ...)
    plan.py sat          the saturation runs (role sat), none when the sweep
                         does not need them

bench/run.sh reads the header and each run's fields by name; so do the
tests. Every value is one shell-safe word ([A-Za-z0-9._-]); weight_eth1 is
"-" for the one-NIC profiles. The last four fields are the profile's facts
(bench/profiles.py) that run.sh acts on: nics (1, or 2: eth1 carries
traffic too), forward (1: the guest routes eth0 -> eth1), gro_batch (the
guest's net.core.gro_normal_batch) and ping_load (1: ping beside the
traffic).

Every run is one half of a pair: a patched configuration and the baseline
(profiles.BASELINE: the unpatched driver's fixed weight and refill, no
adaptive quota) with the same environment (defer, ring, fifo, link, CPU
layout, COST, and the softirq's netdev_budget, netdev_budget_usecs and
threaded NAPI) and profile,
run back to back, so that the drift of the machine between minutes cancels
inside the pair. Which of the two runs first is drawn at random for every
pair (AB or BA). The pairs:

* role sweep: every combination of the patched axes, each with its
  baseline twin; or, with REF (FIELD=VALUE words, e.g. "weight=64
  refill=16"), with a twin on the patched image too, role ref: the same
  run with FIELD at VALUE, one pair per REF word, none where the
  combination has VALUE already (it is its own reference). Both halves
  boot the same image, so code layout cannot touch the comparison
  (docs/bench.md, "Code layout"); paired.py's ratio is then setting /
  reference. adaptive=... leaves share and share-adaptive alone (their
  adaptive setting is their own) and weight_eth1=... the one-NIC
  profiles. COST (rules on eth0's path, default 0) multiplies every
  profile. The two-NIC profiles (share, share-adaptive, router) also take
  WEIGHTS_ETH1 (eth1's weight, default 64; the baseline's is 64 too);
  share runs with the adaptive quota off and share-adaptive with it on,
  whatever ADAPTIVE says, so ADAPTIVE multiplies only the other profiles;
* role calib (CALIB=1): ring 4096 (weight 256 on the patched kernel), tcp,
  once per link mode of LINK and CPU layout of CALIB_PINS: the ceiling no RX
  policy can pass;
* role hist (HIST=1): both kernels at their defaults (ring 256 if swept,
  else the first RING), tcp and udp1470, with the napi_poll histogram on;
* role sat (plan.py sat): udp1470 offering SAT_OFFER on both kernels at
  their defaults, SAT_REPS pairs, baseline first, when UDP1470_RATE is not
  given and a profile (or HIST) offers it.

Within a repetition the pairs are shuffled. Everything random comes from
BENCH_SEED (meta.json records it) and the repetition, so a sweep is
reproducible and REPS=auto can add repetitions one at a time. The axes'
defaults are bench/knobs.py's.
"""
import itertools
import os
import random
import re
import sys

import knobs
import profiles

# The plan's fields, in the order of its columns.
FIELDS = ("kernel", "role", "weight", "refill", "adaptive", "defer", "ring", "fifo", "link",
          "pin", "profile", "weight_eth1", "cost", "netdev_budget", "netdev_budget_usecs",
          "threaded", "rep", "pair",
          "nics", "forward", "gro_batch", "ping_load")
# The guest's softirq settings (guest-wide sysctls and threaded NAPI): an
# environment of the pair like ring or COST, field <- knob.
SOFTIRQ = (("netdev_budget", "NETDEV_BUDGET"), ("netdev_budget_usecs", "NETDEV_BUDGET_USECS"),
           ("threaded", "THREADED"))
WORD = re.compile(r"[A-Za-z0-9._-]+")
BASE = profiles.BASELINE


def axis(name):
    return knobs.value(os.environ, name).split()


def run(kernel, role, profile, **kv):
    """One run as a dict of FIELDS: the baseline's settings unless KV says
    otherwise, and the profile's facts."""
    p = profiles.PROFILES[profile]
    r = dict(kernel=kernel, role=role, weight=BASE["weight"], refill=BASE["refill"],
             adaptive=BASE["adaptive"], defer="0", profile=profile, weight_eth1="-", cost="0",
             nics=str(p.nics), forward=str(int(p.forward)), gro_batch=str(p.gro_batch),
             ping_load=str(int(p.ping_load)))
    r.update((name, axis(k)[0]) for name, k in SOFTIRQ)
    r.update(kv)
    return r


def twins(role, profile, **kv):
    """A pair at the baseline's settings on both kernels."""
    return (run("patched", role, profile, **kv), run("baseline", role, profile, **kv))


def ring_goal():
    """The goals' ring: 256 if swept, else the first RING."""
    rings = axis("RING")
    return "256" if "256" in rings else rings[0]


def refs():
    """REF's words as (plan field, value) pairs, in their order ([]: the
    baseline twins)."""
    return [tuple(w.split("=", 1)) for w in axis("REF")]


def twins_of(patched, profile, two, env):
    """The pairs of one patched run: its baseline twin, or one patched
    reference twin (role ref) per REF word that changes it."""
    ref = refs()
    if not ref:
        return [(patched, run("baseline", "sweep", profile,
                              weight_eth1=profiles.BASELINE_WEIGHT_ETH1 if two else "-", **env))]
    out = []
    for field, v in ref:
        if (field == "adaptive" and profile in profiles.FORCED_ADAPTIVE
                or field == "weight_eth1" and not two or patched[field] == v):
            continue
        out.append((patched, dict(patched, role="ref", **{field: v})))
    return out


def pairs():
    weights, refills, adaptive = axis("WEIGHTS"), axis("REFILL"), axis("ADAPTIVE")
    weights1, costs, defers = axis("WEIGHTS_ETH1"), axis("COST"), axis("DEFER")
    rings, fifos, links = axis("RING"), axis("FIFO"), axis("LINK")
    run_profiles = profiles.expand(axis("PROFILES"))
    pin = knobs.value(os.environ, "PIN")

    out = []
    softirq = list(itertools.product(*(axis(k) for _, k in SOFTIRQ)))
    for w, n, a, d, r, f, l in itertools.product(
            weights, refills, adaptive, defers, rings, fifos, links):
        for p in run_profiles:
            if p in profiles.FORCED_ADAPTIVE and a != adaptive[0]:
                continue  # once, at its own setting
            ap = profiles.FORCED_ADAPTIVE.get(p, a)
            two = p in profiles.TWO_NIC
            for w1, c, sq in itertools.product(weights1 if two else ["-"], costs, softirq):
                env = dict(defer=d, ring=r, fifo=f, link=l, pin=pin, cost=c,
                           **dict(zip((name for name, _ in SOFTIRQ), sq)))
                out += twins_of(run("patched", "sweep", p, weight=w, refill=n, adaptive=ap,
                                    weight_eth1=w1, **env), p, two, env)
    if knobs.value(os.environ, "CALIB") == "1":
        for f, l, c in itertools.product(fifos, links, axis("CALIB_PINS")):
            out.append(twins("calib", profiles.CALIB, ring="4096", fifo=f, link=l, pin=c))
    if knobs.value(os.environ, "HIST") == "1":
        for p in profiles.HIST:
            out.append(twins("hist", p, ring=ring_goal(), fifo=fifos[0], link=links[0], pin=pin))
    return out


def sat_runs():
    """The saturation runs, or [] when UDP1470_RATE is given or unused."""
    if knobs.value(os.environ, "UDP1470_RATE") or not profiles.needs_udp1470_rate(
            axis("PROFILES"), knobs.value(os.environ, "HIST") == "1"):
        return []
    out = []
    for rep in range(1, int(knobs.value(os.environ, "SAT_REPS")) + 1):
        for k in ("baseline", "patched"):
            out.append(run(k, "sat", profiles.SAT, ring=ring_goal(), fifo=axis("FIFO")[0],
                           link=axis("LINK")[0], pin=knobs.value(os.environ, "PIN"),
                           rep=str(rep), pair="sat-%d" % rep))
    return out


def write(runs):
    """The header and RUNS, every value checked to be one shell-safe word."""
    lines = ["\t".join(FIELDS)]
    for r in runs:
        vals = [r[f] for f in FIELDS]
        bad = [(f, v) for f, v in zip(FIELDS, vals) if not WORD.fullmatch(v)]
        if bad or set(r) != set(FIELDS):
            print("plan.py: not a plan field or value: %s" % (bad or sorted(set(r) ^ set(FIELDS))),
                  file=sys.stderr)
            return 2
        lines.append("\t".join(vals))
    print("\n".join(lines))
    return 0


def read(path):
    """A plan file as a list of dicts (the header names the fields)."""
    with open(path) as f:
        head, *rows = [line.rstrip("\n").split("\t") for line in f]
    return [dict(zip(head, r)) for r in rows]


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "sat":
        return write(sat_runs())
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: plan.py REP | plan.py sat", file=sys.stderr)
        return 2
    rep = int(sys.argv[1])
    seed = int(knobs.value(os.environ, "BENCH_SEED") or "1")
    rng = random.Random(seed * 100003 + rep)
    order = pairs()
    rng.shuffle(order)
    runs = []
    for i, pair in enumerate(order):
        if rng.random() < 0.5:
            pair = pair[::-1]
        for r in pair:
            runs.append(dict(r, rep=str(rep), pair="%d-%d" % (rep, i + 1)))
    rc = write(runs)
    return rc or (0 if order else 1)


if __name__ == "__main__":
    sys.exit(main())

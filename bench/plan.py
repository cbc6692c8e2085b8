#!/usr/bin/env python3
"""Expand the bench axes into the list of runs, one TSV line each.

    plan.py REP          the runs of repetition REP (1, 2, ...)

Columns: kernel role weight refill adaptive defer ring fifo link pin
profile weight_eth1 cost rep pair (weight_eth1 "-" for the one-NIC
profiles).

Every run is one half of a pair: a patched configuration and the baseline
(fixed weight 64, refill 16, no adaptive quota) with the same environment
(defer, ring, fifo, link, CPU layout, COST) and profile, run back to back,
so that the drift of the machine between minutes cancels inside the pair.
Which of the two runs first is drawn at random for every pair (AB or BA).
The pairs:

* role sweep: every combination of the patched axes, each with its
  baseline twin. COST (rules on eth0's path, default 0) multiplies every
  profile. The two-NIC profiles (share, share-adaptive, router) also take
  WEIGHTS_ETH1 (eth1's weight, default 64; the baseline's is 64 too);
  share runs with the adaptive quota off and share-adaptive with it on,
  whatever ADAPTIVE says, so ADAPTIVE multiplies only the other profiles;
* role calib (CALIB=1): ring 4096 (weight 256 on the patched kernel), tcp,
  once per link mode of LINK and CPU layout of CALIB_PINS: the ceiling no RX
  policy can pass;
* role hist (HIST=1): both kernels at their defaults (ring 256 if swept,
  else the first RING), tcp and udp1470, with the napi_poll histogram on.

Within a repetition the pairs are shuffled. Everything random comes from
BENCH_SEED (meta.json records it) and the repetition, so a sweep is
reproducible and REPS=auto can add repetitions one at a time.
"""
import itertools
import os
import random
import sys


# The profiles that need eth1 (NICS=2), and those whose adaptive setting is
# their own.
TWO_NIC = ("share", "share-adaptive", "router")
FORCED_ADAPTIVE = {"share": "off", "share-adaptive": "on"}


def axis(name, default):
    return os.environ.get(name, default).split()


def pairs():
    weights = axis("WEIGHTS", "4 8 16 32 64")
    refills = axis("REFILL", "0 16")
    adaptive = axis("ADAPTIVE", "off")
    weights1 = axis("WEIGHTS_ETH1", "64")
    costs = axis("COST", "0")
    defers = axis("DEFER", "0")
    rings = axis("RING", "256")
    fifos = axis("FIFO", "32")
    links = axis("LINK", "1gbit")
    # zeroloss is two pairs: 1470 B and 64 B payloads
    profiles = []
    for p in axis("PROFILES", "tcp tcp4 udp1470 udp64"):
        profiles += ["zeroloss1470", "zeroloss64"] if p == "zeroloss" else [p]
    calib = os.environ.get("CALIB", "1") == "1"
    pin = os.environ.get("PIN", "split")
    calib_pins = axis("CALIB_PINS", "none split client-on-vcpu")
    hist = os.environ.get("HIST", "1") == "1"
    ring_goal = "256" if "256" in rings else rings[0]

    out = []
    for w, n, a, d, r, f, l in itertools.product(
            weights, refills, adaptive, defers, rings, fifos, links):
        for p in profiles:
            if p in FORCED_ADAPTIVE and a != adaptive[0]:
                continue  # once, at its own setting
            ap = FORCED_ADAPTIVE.get(p, a)
            for w1, c in itertools.product(weights1 if p in TWO_NIC else ["-"], costs):
                out.append((("patched", "sweep", w, n, ap, d, r, f, l, pin, p, w1, c),
                            ("baseline", "sweep", "64", "16", "off", d, r, f, l, pin, p,
                             "-" if w1 == "-" else "64", c)))
    if calib:
        for f, l, c in itertools.product(fifos, links, calib_pins):
            out.append((("patched", "calib", "64", "16", "off", "0", "4096", f, l, c, "tcp",
                         "-", "0"),
                        ("baseline", "calib", "64", "16", "off", "0", "4096", f, l, c, "tcp",
                         "-", "0")))
    if hist:
        for p in ("tcp", "udp1470"):
            out.append((("patched", "hist", "64", "16", "off", "0", ring_goal, fifos[0],
                         links[0], pin, p, "-", "0"),
                        ("baseline", "hist", "64", "16", "off", "0", ring_goal, fifos[0],
                         links[0], pin, p, "-", "0")))
    return out


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: plan.py REP", file=sys.stderr)
        return 2
    rep = int(sys.argv[1])
    seed = int(os.environ.get("BENCH_SEED", "1"))
    rng = random.Random(seed * 100003 + rep)
    order = pairs()
    rng.shuffle(order)
    n = len(order)
    for i, pair in enumerate(order):
        if rng.random() < 0.5:
            pair = pair[::-1]
        for run in pair:
            print("\t".join(run + (str(rep), "%d-%d" % (rep, i + 1))))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Expand the bench axes into the list of runs, one TSV line each.

Columns: kernel role weight refill adaptive defer ring fifo link pin
profile rep.
The patched kernel gets every combination of the axes; the baseline (fixed
weight 64, refill 16, no adaptive quota) every combination of the axes it has
(defer, ring, fifo, link); the calibration (role calib: ring 4096, weight 256
on the patched kernel, ring 4096 on the baseline) measures the emulator's own
drop floor with tcp, once per CPU layout of CALIB_PINS (the sweep runs use
PIN); with HIST=1 both kernels at their defaults (ring 256 if swept, else the
first RING) run tcp and udp1470 with the napi_poll histogram on (role hist).
Within a repetition the runs are shuffled with the
repetition as seed, so drift spreads evenly and a sweep is reproducible.
"""
import itertools
import os
import random
import sys


def axis(name, default):
    return os.environ.get(name, default).split()


def main():
    weights = axis("WEIGHTS", "4 8 16 32 64 128")
    refills = axis("REFILL", "0 16")
    adaptive = axis("ADAPTIVE", "off")
    defers = axis("DEFER", "0")
    rings = axis("RING", "256")
    fifos = axis("FIFO", "32")
    links = axis("LINK", "none")
    profiles = axis("PROFILES", "tcp tcp4 udp1470 udp64")
    reps = int(os.environ.get("REPS", "3"))
    calib = os.environ.get("CALIB", "1") == "1"
    pin = os.environ.get("PIN", "split")
    calib_pins = axis("CALIB_PINS", "none split client-on-vcpu")
    hist = os.environ.get("HIST", "1") == "1"
    ring_goal = "256" if "256" in rings else rings[0]

    configs = []
    for w, n, a, d, r, f, l in itertools.product(
            weights, refills, adaptive, defers, rings, fifos, links):
        configs.append(("patched", "sweep", w, n, a, d, r, f, l, pin))
    for d, r, f, l in itertools.product(defers, rings, fifos, links):
        configs.append(("baseline", "sweep", "64", "16", "off", d, r, f, l,
                        pin))
    runs = [c + (p,) for c in configs for p in profiles]
    if calib:
        for f, l, c in itertools.product(fifos, links, calib_pins):
            runs.append(("patched", "calib", "256", "16", "off", "0",
                         "4096", f, l, c, "tcp"))
            runs.append(("baseline", "calib", "64", "16", "off", "0",
                         "4096", f, l, c, "tcp"))
    if hist:
        for k, p in itertools.product(("patched", "baseline"),
                                      ("tcp", "udp1470")):
            runs.append((k, "hist", "64", "16", "off", "0", ring_goal,
                         fifos[0], links[0], pin, p))
    for rep in range(1, reps + 1):
        order = list(runs)
        random.Random(rep).shuffle(order)
        for r in order:
            print("\t".join(r + (str(rep),)))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A sweep's meta.json (bench/run.sh writes it at the start, after the
boots, after the saturation and at the end).

    meta.py write PATH          from what is known so far (M_* below, and the
                                knobs' values bench/run.sh exports)
    meta.py status PATH STATUS  only the status (failed, interrupted)

Every value reaches it through the environment or as an argument, never
pasted into code. M_TOP, M_OUT, M_STAMP, M_STATUS, M_TOTAL: the tree, the
results directory, the start, the status, the runs planned; M_RUN_PATCHED,
M_RUN_BASELINE: the guests' run directories once booted; M_KDIR_PATCHED,
M_KDIR_BASELINE: their kernels' build directories; M_UDP1470_RATE,
M_RATE_SOURCE, M_SAT_MBPS: the udp1470 rate, where it came from and the
baseline's saturation. "linux" is the tree the sweep ran on (LINUX: 6.1 or
6.12); M_TREES, in a sweep of both trees (make bench LINUX="6.1 6.12"),
the trees, as "trees": each tree's directory then holds its half. Each
kernel's "source" is what its build directory says it was built from
(qemu/build-kernel.sh).

schema_version (bench/schema.py) says which fields a reader may expect;
"knobs" holds every knob of the bench as it ran (bench/knobs.py), and
"parameters" those that decide what it measured (knobs.meta_parameters).
The other keys are as they always were, for the report and older readers.
"""
import json
import os
import subprocess
import sys

import knobs
import schema

# Where the CPU layouts put QEMU's vCPU threads, its other threads and the
# iperf3 client (bench/run.sh's PIN_* tables apply them).
LAYOUTS = (("none", "0,1", "0,1", "0,1"), ("split", "1", "0", "0"),
           ("client-on-vcpu", "1", "0", "1"))


def run(*a):
    return subprocess.run(a, capture_output=True, text=True).stdout.strip()


def read(p):
    try:
        with open(p) as f:
            return f.read().strip()
    except OSError:
        return None


def dump(meta, path):
    with open(path + ".tmp", "w") as f:
        json.dump(meta, f, indent=2)
    os.replace(path + ".tmp", path)


def kernels(E, top):
    out = {}
    for k in ("patched", "baseline"):
        run_dir, kdir = E.get("M_RUN_" + k.upper()), E["M_KDIR_" + k.upper()]
        cfg = run("sha256sum", os.path.join(kdir, "config")).split()
        out[k] = {"release": read(os.path.join(run_dir, "version")) if run_dir else None,
                  "image": os.path.relpath(kdir, top),
                  # the tree it was built from (qemu/build-kernel.sh's source
                  # file: linux, tarball, patches, release); {} before issue 22
                  "source": dict(line.split(" ", 1) for line in
                                 (read(os.path.join(kdir, "source")) or "").splitlines()
                                 if " " in line),
                  "layout": dict(line.split(" ", 1) for line in
                                 (read(os.path.join(kdir, "layout")) or "").splitlines()
                                 if " " in line),
                  "config_sha256": cfg[0] if cfg else None}
    return out


def layout_report(E, top):
    """Where the two images' functions on the measured paths sit against
    4 KiB pages (bench/layout.py): the static half of the layout control."""
    lay = subprocess.run([sys.executable, os.path.join(top, "bench", "layout.py"),
                          E["M_KDIR_PATCHED"], E["M_KDIR_BASELINE"], "--json", "-", "--quiet"],
                         capture_output=True, text=True)
    try:
        rep = json.loads(lay.stdout)
        rep.pop("hot")  # every hot function's place: bench/layout.py prints it
        return rep
    except ValueError:
        return {"error": (lay.stderr.strip() or "bench/layout.py gave no report")[:500]}


def meta(E):
    top = E["M_TOP"]

    def v(name):
        return knobs.value(E, name) or ""

    dirty = run("git", "-C", top, "status", "--porcelain", "--untracked-files=no")
    cpu = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
           if line.startswith("model name")]
    pin_file = os.path.join(E["M_OUT"], "pinning.txt")
    m = {
        "schema_version": schema.SCHEMA_VERSION,
        "status": E["M_STATUS"],
        "runs_planned": int(E["M_TOTAL"]),
        "aa": int(v("AA")),
        "bench_seed": int(E["BENCH_SEED"]),
        "reps": v("REPS"), "min_reps": v("MIN_REPS"), "max_reps": v("MAX_REPS"),
        "git_revision": run("git", "-C", top, "rev-parse", "HEAD") + (" (dirty)" if dirty else ""),
        "linux": v("LINUX"),
        "kernels": kernels(E, top),
        "layout": v("LAYOUT"), "pad": int(v("PAD") or 0),
        "layout_report": layout_report(E, top),
        "qemu": (run("qemu-system-x86_64", "--version").splitlines() or [""])[0],
        "iperf3": (run("iperf3", "--version").splitlines() or [""])[0],
        "host_cpu": cpu[0] if cpu else "",
        "host_cores": os.cpu_count(),
        "host_kernel": os.uname().release,
        "accel": v("ACCEL"), "vcpus": v("VCPUS"), "mem_mib": v("MEM"),
        "pinning": {"sweep_layout": v("PIN"), "calib_layouts": v("CALIB_PINS"),
                    "layouts": {lay: {"qemu_vcpu_threads": "CPU %s" % vc,
                                      "qemu_other_threads": "CPU %s" % rest,
                                      "iperf3_client": "CPU %s" % cl}
                                for lay, vc, rest, cl in LAYOUTS},
                    "applied": sorted(set(open(pin_file).read().splitlines()))
                    if os.path.exists(pin_file) else []},
        "parameters": knobs.meta_parameters(E),
        "knobs": {k.name: E.get(k.name, "") for k in knobs.TABLE if k.mode in ("lab", "bench")},
        "secs": int(v("SECS")), "udp1470_rate": E["M_UDP1470_RATE"], "udp64_rate": v("UDP64_RATE"),
        "udp1470_rate_source": E["M_RATE_SOURCE"],
        "saturation": {"offered": v("SAT_OFFER"), "reps": int(v("SAT_REPS")),
                       "baseline_median_mbps": E["M_SAT_MBPS"]},
        "started_utc": E["M_STAMP"],
    }
    if E.get("M_TREES"):  # make bench LINUX="6.1 6.12": this tree's half of one sweep
        m["trees"] = E["M_TREES"].split()
    return m


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        dump(meta(os.environ), argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "status":
        m = json.load(open(argv[2]))
        m["status"] = argv[3]
        dump(m, argv[2])
        return 0
    print("usage: meta.py write PATH | meta.py status PATH STATUS", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

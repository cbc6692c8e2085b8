"""The host-side readings around every bench run: bench/hostspeed.c, the
host CPU speed probe (columns host_speed_cpu0/1, host_peak_cpu0/1), builds
warning-free, pins itself, reports a rate no higher than its best chunk's
and refuses bad arguments with one line; bench/run.sh averages two probes
field by field, sums the vCPU threads' CPU time (vcpu_cpu_s) and keeps
those readings out of run_one's other variables.
"""
import os
import re
import subprocess

import pytest
from shellfn import run_sh_function

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def hostspeed(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("hs") / "hostspeed")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    os.path.join(TOP, "bench", "hostspeed.c")], check=True)
    return exe


def test_reports_mean_best_and_chunks(hostspeed):
    p = subprocess.run([hostspeed, "0", "20"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 0 and p.stderr == ""
    mean, best, chunks = p.stdout.split()
    assert 0 < float(mean) <= float(best) * 1.0001
    assert int(chunks) >= 1


def test_runs_on_the_cpu_it_names(hostspeed):
    """A CPU the process may not use is an error, not a number."""
    p = subprocess.run([hostspeed, str(os.cpu_count() + 64), "5"], capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout == "" and "CPU" in p.stderr


@pytest.mark.parametrize("args", [[], ["0"], ["x", "5"], ["0", "0"], ["0", "10001"],
                                  ["-1", "5"], ["0", "5ms"], ["0", "5", "1"]])
def test_bad_arguments(hostspeed, args):
    p = subprocess.run([hostspeed] + args, capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1


@pytest.mark.parametrize("a, b, want", [
    ("100.0 200.0 300.0 400.0", "110.0 190.0 310.0 420.0", "105.0,195.0,305.0,410.0"),
    ("100.0 - 300.0 -", "110.0 190.0 310.0 420.0", "105.0,,305.0,"),
])
def test_run_sh_averages_two_probes(a, b, want):
    script = run_sh_function("speed_mean") + 'speed_mean "$1" "$2"\n'
    p = subprocess.run(["bash", "-c", script, "x", a, b], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == want


def test_run_sh_probes_both_cpus_bounded(hostspeed, tmp_path):
    script = run_sh_function("host_speed") + 'hostspeed=$1; host_speed\n'
    p = subprocess.run(["bash", "-c", script, "x", hostspeed], capture_output=True, text=True,
                       timeout=20)
    fields = p.stdout.split()
    assert p.returncode == 0 and len(fields) == 4
    # a CPU the host lacks reads "-" (the row leaves it empty)
    for f in fields[:os.cpu_count() >= 2 and 2 or 1]:
        assert float(f) > 0
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    p = subprocess.run(["bash", "-c", script, "x", str(broken)], capture_output=True, text=True)
    assert p.stdout.split() == ["-"] * 4


def test_run_sh_counts_the_vcpu_threads_only(tmp_path):
    """vcpu_cpu PID sums the CPU time of the threads QEMU names "CPU n/TCG"
    (or "ALL CPUs/TCG"), whatever the spaces in the name do to
    /proc/<tid>/stat, and nothing of the others: a thread of this process
    named like a vCPU burns 0.3 s, the main thread burns as much unnamed."""
    import ctypes
    import threading
    import time

    def burn(name):
        if name:
            libc = ctypes.CDLL(None)
            libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
        t0 = time.thread_time()
        while time.thread_time() - t0 < 0.3:
            pass
        done.wait(10)

    done = threading.Event()
    threads = [threading.Thread(target=burn, args=("CPU 0/TCG",)),
               threading.Thread(target=burn, args=("ALL CPUs/TCG",))]
    for t in threads:
        t.start()
    t0 = time.thread_time()
    while time.thread_time() - t0 < 0.3:  # this thread: not a vCPU
        pass
    time.sleep(0.2)
    script = run_sh_function("vcpu_cpu") + 'vcpu_cpu "$1"\n'
    try:
        p = subprocess.run(["bash", "-c", script, "x", str(os.getpid())], capture_output=True,
                           text=True, timeout=10)
    finally:
        done.set()
        for t in threads:
            t.join()
    assert p.returncode == 0
    got = float(p.stdout)
    assert 0.5 <= got <= 0.7, got  # the two named threads' 0.6 s, not the main one's


def test_run_one_keeps_the_eth1_weight():
    """run_one's w1 is eth1's weight (weight_eth1) and nothing else: the
    first version of the window's clock reads reused the name, and every
    row's weight_eth1 became a wall-clock time (the router report then
    failed on it). The run's new host-side readings are locals of their
    own."""
    body = run_sh_function("run_one")
    assigned = [line.strip() for line in body.splitlines()
                if re.search(r"(^|[\s;])w1=", line)]
    assert len(assigned) == 1 and "w1=${RUN[weight_eth1]}" in assigned[0], assigned
    for name in ("hs0", "v0", "v1", "wall0", "wall1", "st0", "st1"):
        assert re.search(r"^\s*local .*\b%s\b" % name, body, re.M), name

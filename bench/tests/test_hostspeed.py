"""bench/hostspeed.c, the host CPU speed probe that brackets every bench run
(columns host_speed_cpu0/1, host_peak_cpu0/1): it builds warning-free, pins
itself, reports a rate no higher than its best chunk's, refuses bad
arguments with one line, and bench/run.sh averages two probes field by
field.
"""
import os
import subprocess

import pytest

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


def run_sh_function(name):
    with open(os.path.join(TOP, "bench", "run.sh")) as f:
        text = f.read()
    start = text.index("\n%s() {" % name) + 1
    return text[start:text.index("\n}\n", start) + 3]


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

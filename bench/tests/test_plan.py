"""The plan files (bench/plan.py): a header naming FIELDS, every value one
shell-safe word, the baseline's settings on every baseline run, the
saturation runs, and bench/run.sh reading the fields by name only.
"""
import os
import re
import subprocess
import sys

import knobs
import plan
import profiles

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def planned(arg, **env):
    e = {k: v for k, v in os.environ.items() if k not in knobs.KNOBS}
    e.update(BENCH_SEED="3", **env)
    p = subprocess.run([sys.executable, os.path.join(BENCH, "plan.py"), arg], env=e,
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def rows(text):
    head, *rest = [line.split("\t") for line in text.splitlines()]
    assert tuple(head) == plan.FIELDS
    return [dict(zip(head, r)) for r in rest]


def test_header_and_words():
    rc, out, err = planned("2", PROFILES="tcp zeroloss share router idle", WEIGHTS="8 64")
    assert rc == 0, err
    runs = rows(out)
    assert runs and all(len(r) == len(plan.FIELDS) for r in runs)
    assert all(plan.WORD.fullmatch(v) for r in runs for v in r.values())
    assert {r["rep"] for r in runs} == {"2"}


def test_read_gives_the_same_dicts(tmp_path):
    rc, out, _ = planned("1", PROFILES="tcp", WEIGHTS="64")
    (tmp_path / "p.tsv").write_text(out)
    assert plan.read(str(tmp_path / "p.tsv")) == rows(out)


def test_baseline_runs_have_the_baseline_triple():
    rc, out, _ = planned("1", PROFILES="tcp share router", WEIGHTS="8 64", REFILL="0 16",
                         ADAPTIVE="off on", WEIGHTS_ETH1="16")
    for r in rows(out):
        if r["kernel"] == "baseline":
            assert {k: r[k] for k in profiles.BASELINE} == profiles.BASELINE, r
            assert r["weight_eth1"] == ("64" if r["profile"] in profiles.TWO_NIC else "-")


def test_profile_facts():
    rc, out, _ = planned("1", PROFILES="tcp udp64 zeroloss idle share share-adaptive router",
                         WEIGHTS="64", REFILL="16", CALIB="0", HIST="0")
    for r in rows(out):
        p = profiles.PROFILES[r["profile"]]
        assert (r["nics"], r["forward"], r["gro_batch"], r["ping_load"]) == (
            str(p.nics), str(int(p.forward)), str(p.gro_batch), str(int(p.ping_load))), r


def test_sat_runs():
    rc, out, _ = planned("sat", PROFILES="tcp udp1470", SAT_REPS="2", RING="48 512",
                         FIFO="64 32", LINK="none 1gbit", PIN="1")
    runs = rows(out)
    assert [(r["kernel"], r["pair"]) for r in runs] == [
        ("baseline", "sat-1"), ("patched", "sat-1"), ("baseline", "sat-2"), ("patched", "sat-2")]
    for r in runs:
        assert (r["role"], r["profile"], r["ring"], r["fifo"], r["link"], r["pin"]) == (
            "sat", "udp1470", "48", "64", "none", "split")
    assert rows(planned("sat", PROFILES="tcp", HIST="0")[1]) == []
    assert rows(planned("sat", UDP1470_RATE="100M")[1]) == []


def test_bad_value_stops_the_plan():
    rc, out, err = planned("1", PROFILES="tcp", WEIGHTS="64", LINK="1gbit;x")
    assert rc == 2 and out == "" and "not a plan field or value" in err


def test_run_sh_reads_fields_by_name():
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    used = set(re.findall(r"\$\{RUN\[([a-z_0-9]+)\]\}", text))
    assert used and used <= set(plan.FIELDS), used - set(plan.FIELDS)
    assert set(plan.FIELDS) - {"rep"} <= used | {"rep"}
    assert "cut -f" not in text and "\\tsat\\t" not in text

"""meta.json (bench/meta.py): its schema version, every knob's value, the
parameters from the knobs' table, and every key a recorded sweep's meta.json
has, so that the report reads a new sweep as it read the old ones.
"""
import glob
import json
import os

import knobs
import meta
import schema

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)


def fake_env(tmp_path, **kv):
    e = dict(knobs.resolve({"BENCH_SEED": "11", "PROFILES": "tcp router", **kv}))
    e.update(M_TOP=TOP, M_OUT=str(tmp_path), M_UDP1470_RATE="-", M_RATE_SOURCE="unused",
             M_SAT_MBPS="", M_STAMP="20270101T000000Z", M_STATUS="running", M_TOTAL="12",
             M_KDIR_PATCHED=str(tmp_path / "k1"), M_KDIR_BASELINE=str(tmp_path / "k2"))
    e.update((k, v) for k, v in kv.items() if k.startswith("M_"))
    return e


def written(tmp_path, monkeypatch, **kv):
    # no external program: git, sha256sum, qemu and iperf3 answer nothing
    monkeypatch.setattr(meta, "run", lambda *a: "")
    monkeypatch.setattr(meta, "layout_report", lambda E, top: {"error": "not in a test"})
    return meta.meta(fake_env(tmp_path, **kv))


def test_schema_version_and_knobs(tmp_path, monkeypatch):
    m = written(tmp_path, monkeypatch)
    assert m["schema_version"] == schema.SCHEMA_VERSION >= 2
    assert set(m["knobs"]) == {k.name for k in knobs.TABLE if k.mode in ("lab", "bench")}
    assert m["knobs"]["NICS"] == "2" and m["bench_seed"] == 11
    assert m["parameters"]["PROFILES"] == "tcp router" and m["parameters"]["NICS"] == "2"
    assert (m["accel"], m["vcpus"], m["mem_mib"], m["secs"]) == ("tcg", "1", "512", 5)
    assert m["min_reps"] == knobs.KNOBS["MIN_REPS"].default
    json.dumps(m)


def test_the_tree_is_recorded(tmp_path, monkeypatch):
    """meta.json says which tree the sweep ran on (LINUX) and what each
    kernel's build directory says it was built from (build-kernel.sh's
    source file; {} for a kernel built before it wrote one)."""
    (tmp_path / "k1").mkdir()
    (tmp_path / "k1" / "source").write_text(
        "linux 6.12\ntarball linux-source-6.12.tar.xz\npatches patches/6.12/series\n"
        "release 6.12.118\n")
    m = written(tmp_path, monkeypatch, LINUX="6.12")
    assert m["linux"] == "6.12" and m["parameters"]["LINUX"] == "6.12"
    assert m["kernels"]["patched"]["source"] == {
        "linux": "6.12", "tarball": "linux-source-6.12.tar.xz",
        "patches": "patches/6.12/series", "release": "6.12.118"}
    assert m["kernels"]["baseline"]["source"] == {}
    m = written(tmp_path, monkeypatch)
    assert m["linux"] == "6.1" and "LINUX" not in m["parameters"]


def test_a_half_of_a_sweep_of_both_trees_says_so(tmp_path, monkeypatch):
    """make bench LINUX="6.1 6.12": each tree's meta.json has its own tree
    as "linux" and both as "trees" (bench/trees.py pairs the halves by
    them); a one-tree sweep has no "trees"."""
    m = written(tmp_path, monkeypatch, LINUX="6.12", M_TREES="6.1 6.12")
    assert (m["linux"], m["trees"]) == ("6.12", ["6.1", "6.12"])
    assert "trees" not in written(tmp_path, monkeypatch, LINUX="6.12")


def test_every_recorded_key_is_still_written(tmp_path, monkeypatch):
    latest = max(glob.glob(os.path.join(TOP, "docs", "results", "*", "meta.json")),
                 key=lambda p: json.load(open(p)).get("started_utc", ""))
    old = json.load(open(latest))
    # A half of a sweep of both trees has "trees" too: write one alike.
    both = {"M_TREES": " ".join(old["trees"])} if "trees" in old else {}
    m = written(tmp_path, monkeypatch, **both)
    assert set(old) <= set(m), set(old) - set(m)
    assert set(old["pinning"]) <= set(m["pinning"]) and set(old["saturation"]) <= set(m["saturation"])


def test_status(tmp_path):
    p = tmp_path / "meta.json"
    p.write_text(json.dumps({"status": "running", "x": 1}))
    assert meta.main(["meta.py", "status", str(p), "interrupted"]) == 0
    assert json.loads(p.read_text()) == {"status": "interrupted", "x": 1}

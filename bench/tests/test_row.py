"""bench/row.py writes runs.csv: a key that is not a column is an error."""
import csv
import os
import re
import subprocess
import sys

import pytest

import row

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_append_writes_the_header_then_rows(tmp_path):
    p = str(tmp_path / "runs.csv")
    row.append(p, {"kernel": "patched", "weight": "8"})
    row.append(p, {"kernel": "baseline", "status": "ok"})
    with open(p) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == row.COLUMNS
    assert [(r["kernel"], r["weight"], r["status"]) for r in rows] == [
        ("patched", "8", ""), ("baseline", "", "ok")]


def test_append_raises_on_an_unknown_key(tmp_path):
    p = tmp_path / "runs.csv"
    with pytest.raises(ValueError, match="wieght"):
        row.append(str(p), {"kernel": "patched", "wieght": "8"})
    assert not p.exists()  # not even the header
    row.append(str(p), {"kernel": "patched"})
    before = p.read_text()
    with pytest.raises(ValueError, match="cots"):
        row.append(str(p), {"kernel": "patched", "cots": "0"})
    assert p.read_text() == before


def row_py(tmp_path, *kv):
    """row.py on two empty snapshots and no result; (exit status, stderr)."""
    snap = tmp_path / "snap"
    snap.write_text("")
    r = subprocess.run([sys.executable, os.path.join(BENCH, "row.py"), str(tmp_path / "runs.csv"),
                        str(snap), str(snap), "0", "0", "-"] + list(kv),
                       capture_output=True, text=True)
    return r.returncode, r.stderr


def test_row_py_stops_on_a_mistyped_key(tmp_path):
    rc, err = row_py(tmp_path, "kernel=patched", "profile=tcp", "wieght=8")
    assert rc == 2, err
    assert err.strip() == "row.py: not a column of runs.csv: wieght"
    assert not (tmp_path / "runs.csv").exists()


def run_sh_keys():
    """The k of every k=v that bench/run.sh's run_one passes to row.py."""
    with open(os.path.join(BENCH, "run.sh")) as f:
        text = f.read()
    start = text.index("\tcommon=(kernel=")
    body = text[start:text.index("\tesac\n", start)]
    return set(re.findall(r"(?<=[\s(])([a-z][a-z0-9_]*)=(?=[\"$a-z0-9])", body))


def test_every_key_run_sh_passes_is_known(tmp_path):
    """run.sh's keys are columns or row.py's own inputs (files): row.py
    takes all of them at once."""
    keys = run_sh_keys()
    assert {"kernel", "weight_eth1", "nic", "peer", "poll", "trials", "ping_load",
            "rcv_sock_drops", "target", "quota_min", "pdr_confirmed"} <= keys, keys
    files = {"peer": "%s,%s" % (tmp_path / "x", tmp_path / "y")}
    rc, err = row_py(tmp_path, *("%s=%s" % (k, files.get(k, "1")) for k in sorted(keys)))
    assert rc == 0, err

"""Checkpatch waivers (qemu/waivers.py, issue 22): a finding the lab cannot
fix is waived one type on one patch, with a reason, printed, and failed
once it is stale; the tree's real waiver file is sound for its series.
"""
import os
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "qemu"))
import waivers  # noqa: E402

SCRIPT = os.path.join(TOP, "qemu", "waivers.py")

# What 6.12's checkpatch --strict --show-types -q printed for 0001.
FIXES = ("WARNING:MISSING_FIXES_TAG: The commit message has 'BUG: KASAN: ', "
         "perhaps it also needs a 'Fixes:' tag?\n\n"
         "total: 0 errors, 1 warnings, 0 checks, 15 lines checked\n")
LONG = ("CHECK:LONG_LINE: line length of 101 exceeds 100 columns\n"
        "#42: FILE: drivers/net/ethernet/intel/e1000/e1000_main.c:530:\n"
        "+\tfoo();\n\n")
REASON = "the mainline id is not findable here (issue 19)"


def write(tmp_path, text):
    p = tmp_path / "checkpatch-waivers"
    p.write_text(text)
    return str(p)


def run(*args, stdin=""):
    return subprocess.run([sys.executable, SCRIPT, *args], input=stdin,
                          capture_output=True, text=True)


def test_waived_message_is_printed_and_passes(tmp_path):
    w = waivers.parse(write(tmp_path, f"# why\n0001 MISSING_FIXES_TAG {REASON}\n"))
    stays, stale, waived = waivers.filter_output(w, "0001", FIXES)
    assert stays == [] and stale == []
    assert waived == [f"waived MISSING_FIXES_TAG: {REASON}"]


def test_waiver_covers_one_type_on_one_patch(tmp_path):
    w = waivers.parse(write(tmp_path, f"0001 MISSING_FIXES_TAG {REASON}\n"))
    # Another type on the waived patch stays.
    stays, _, _ = waivers.filter_output(w, "0001", FIXES + LONG)
    assert len(stays) == 1 and stays[0].startswith("CHECK:LONG_LINE:")
    assert "+\tfoo();" in stays[0]
    # The waived type on another patch stays.
    stays, stale, waived = waivers.filter_output(w, "0002", FIXES)
    assert len(stays) == 1 and "MISSING_FIXES_TAG" in stays[0] and waived == []


def test_stale_waiver_fails(tmp_path):
    path = write(tmp_path, f"0001 MISSING_FIXES_TAG {REASON}\n")
    r = run("filter", path, "0001", stdin="")
    assert r.returncode == 1
    assert "stale waiver: 0001 MISSING_FIXES_TAG" in r.stdout


def test_filter_status(tmp_path):
    path = write(tmp_path, f"0001 MISSING_FIXES_TAG {REASON}\n")
    ok = run("filter", path, "0001", stdin=FIXES)
    assert ok.returncode == 0 and ok.stdout.startswith("waived MISSING_FIXES_TAG:")
    bad = run("filter", path, "0001", stdin=FIXES + LONG)
    assert bad.returncode == 1 and "LONG_LINE" in bad.stdout
    clean = run("filter", str(tmp_path / "none"), "0003", stdin="")
    assert clean.returncode == 0 and clean.stdout == ""


def test_unparsed_output_is_never_dropped(tmp_path):
    w = waivers.parse(write(tmp_path, f"0001 MISSING_FIXES_TAG {REASON}\n"))
    stays, _, _ = waivers.filter_output(w, "0001", "Must be run from the top-level dir\n" + FIXES)
    assert stays == ["Must be run from the top-level dir"]


@pytest.mark.parametrize("text, fault", [
    ("1 MISSING_FIXES_TAG " + REASON, "not 'NNNN TYPE reason'"),
    ("0001 missing_fixes_tag " + REASON, "not 'NNNN TYPE reason'"),
    ("0001 MISSING_FIXES_TAG", "not 'NNNN TYPE reason'"),
    ("0001 MISSING_FIXES_TAG no id", "at least 4 words"),
    ("0012 MISSING_FIXES_TAG " + REASON, "not in the series (1..11)"),
    ("0000 MISSING_FIXES_TAG " + REASON, "not in the series (1..11)"),
    (f"0001 MISSING_FIXES_TAG {REASON}\n0001 MISSING_FIXES_TAG {REASON}", "waived twice"),
])
def test_bad_waivers_refused(tmp_path, text, fault):
    path = write(tmp_path, text + "\n")
    r = run("validate", path, "11")
    assert r.returncode == 2 and fault in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [("validate", "x", "eleven"), ("filter", "x", "1"),
                                  ("frob", "x", "1"), ("filter",)])
def test_bad_arguments_refused(args):
    r = run(*args)
    assert r.returncode == 2 and r.stderr.strip()


def test_the_trees_waivers_are_sound():
    """Every tree's waiver file validates against its series, and every
    waiver names its issue, so a reader can follow it."""
    for tree in ("", "6.12"):
        pdir = os.path.join(TOP, "patches", tree)
        path = os.path.join(pdir, "checkpatch-waivers")
        with open(os.path.join(pdir, "series")) as f:
            n = sum(1 for line in f if line.strip() and not line.startswith("#"))
        for (patch, kind), reason in waivers.parse(path, n).items():
            assert "issue " in reason, (patch, kind)

"""BOOTS: a sweep's repetitions in blocks, both guests booted again before
each (bench/run.sh), and the boot as the unit of every interval when a
sweep has more than one (bench/report.py's join_pairs)."""
import math
import subprocess

import pytest

import paired
import report
import results
from shellfn import run_sh_function

BLOCKS = run_sh_function("boot_of") + run_sh_function("boot_order") + run_sh_function("boot_reps")


def shell(body, reps, boots, order="patched baseline"):
    script = BLOCKS + 'reps_last=$1 BOOTS=$2 BOOT_ORDER=$3\n' + body
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", script, "x", str(reps), str(boots),
                        order], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.split("\n")[:-1]


@pytest.mark.parametrize("reps", [1, 2, 5, 6, 7, 12, 20, 31])
def test_blocks_cover_every_repetition_in_order(reps):
    """Every boot gets one repetition or more (the knob refuses BOOTS >
    REPS), consecutive ones, the blocks' sizes differ by one at most, and
    one boot is the whole sweep."""
    for boots in range(1, reps + 1):
        got = [int(x) for x in shell('for r in $(seq "$reps_last"); do boot_of "$r"; done',
                                     reps, boots)]
        assert got == sorted(got) and got[0] == 1 and set(got) == set(range(1, boots + 1))
        sizes = [got.count(b) for b in range(1, boots + 1)]
        assert max(sizes) - min(sizes) <= 1
        spans = shell('for b in $(seq "$BOOTS"); do boot_reps "$b"; done', reps, boots)
        first = [got.index(b) + 1 for b in range(1, boots + 1)]
        last = [len(got) - got[::-1].index(b) for b in range(1, boots + 1)]
        assert spans == ["%d-%d" % fl for fl in zip(first, last)]


def test_boot_order_alternates():
    assert shell('for b in 1 2 3 4; do boot_order "$b"; done', 4, 4) == [
        "patched baseline", "baseline patched", "patched baseline", "baseline patched"]
    assert shell('boot_order 2', 4, 4, "baseline patched") == ["patched baseline"]


def test_run_sh_reboots_before_a_new_block_and_records_the_boot():
    """The repetition loop boots again when a repetition's block changes,
    every row carries the boot, and a reboot forgets what the old guests
    held (paused, COST's chain, settings, pinning)."""
    text = open(report.__file__.replace("report.py", "run.sh")).read()
    loop = text[text.index('for rep in $(seq "$reps_last"); do\n\tif [ "$(boot_of'):]
    assert loop.index("reboot_guests") < loop.index('do_runs "$OUT/plan-$rep.tsv"')
    assert 'boot="$BOOT")' in text
    reboot = run_sh_function("reboot_guests")
    for held in ("STOPPED=()", "COST_CUR=()", "SYS_CUR=()", "TGT_CUR=()", "pin_cur="):
        assert held in reboot
    assert reboot.index("lab_poweroff") < reboot.index("lab_teardown_one") \
        < reboot.index("\tboot_guests ")
    assert 'console-$k-boot$((BOOT - 1)).log' in reboot


def rows(values):
    """Rows of an A/A pair per (boot, patched, baseline); pair ids 1-1, ..."""
    out = []
    for i, (boot, p, b) in enumerate(values, 1):
        for kernel, v in (("patched", p), ("baseline", b)):
            r = {"pair": "%d-1" % i, "kernel": kernel, "role": "sweep", "profile": "tcp",
                 "nic": "", "cost": "0", "mbps": str(v)}
            if boot is not None:
                r["boot"] = str(boot)
            out.append(r)
    return out


def test_one_boot_pairs_are_the_unit():
    got = report.aa_pairs(rows([(1, 100, 110), (1, 120, 100), (1, 90, 95)]), "tcp", "", "mbps", "0")
    assert got == [(100.0, 110.0), (120.0, 100.0), (90.0, 95.0)]


def test_sweeps_without_a_boot_column_are_one_boot():
    got = report.aa_pairs(rows([(None, 100, 110), (None, 120, 100)]), "tcp", "", "mbps", "0")
    assert got == [(100.0, 110.0), (120.0, 100.0)]


def test_several_boots_give_one_pair_per_boot():
    """Boot 2's pairs count once, as the means of their values, in boot order
    (boot 10 after boot 2: numbers, not strings)."""
    got = report.aa_pairs(rows([(2, 100, 110), (10, 50, 50), (2, 120, 100), (1, 90, 95)]),
                          "tcp", "", "mbps", "0")
    assert got == [(90.0, 95.0), (110.0, 105.0), (50.0, 50.0)]


def test_a_boot_effect_widens_the_interval():
    """Twelve pairs in two boots, one boot 20 % up: over the pairs the
    interval is narrow and excludes 1; over the boots there is none (two
    units), which is what two boots know."""
    vals = [(1, 120 + i, 100) for i in range(6)] + [(2, 100 + i, 100) for i in range(6)]
    by_pair = paired.compare([(p, b) for _, p, b in vals], ">= 1.0x")
    assert by_pair["ci_low"] > 1.0
    by_boot = paired.compare(report.aa_pairs(rows(vals), "tcp", "", "mbps", "0"), ">= 1.0x")
    assert by_boot["n_pairs"] == 2 and math.isinf(by_boot["ci_high"])


def test_summary_names_the_unit():
    assert report.boots_note(rows([(1, 1, 1), (1, 2, 2)])) == []
    note = report.boots_note(rows([(1, 1, 1), (2, 2, 2), (3, 1, 1)]))
    assert note and note[0].startswith("**Boots: 3.**") and "count boots" in note[0]


def test_results_count_boots_where_a_sweep_booted_more_than_once():
    """docs/RESULTS.md says boots, not pairs, for a recorded sweep of
    several boots (sweep 69: 100 pairs over 50 boots), and pairs for one
    of one boot."""
    rec = {"kind": "aa", "ratio": 0.97, "ci_low": 0.94, "ci_high": 1.0, "n": 50, "note": ""}
    assert results.boots("layout-aa-router-boots50") == 50
    assert results.interval_words(rec, "layout-aa-router-boots50").endswith("50 boots")
    assert results.boots("layout-aa-tcp50") == 1
    assert results.interval_words(rec, "layout-aa-tcp50").endswith("50 pairs")
    assert results.interval_words(dict(rec, kind="band")).endswith("50 runs")

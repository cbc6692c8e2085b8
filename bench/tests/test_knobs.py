"""The knobs' table (bench/knobs.py): defaults in range, the check accepts
them and rejects every kind of bad value with one line, the bad-input
test's cases as make's check sees them, resolve and its presets, meta.json's
parameters, and the generated table of docs/bench.md.
"""
import os
import re
import subprocess
import sys

import pytest

import knobs
import profiles

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)


def makefile():
    with open(os.path.join(TOP, "Makefile")) as f:
        return f.read()


def exported():
    """The knobs the Makefile exports to the scripts (every one, empty when
    not given)."""
    names = set()
    for m in re.finditer(r"^export ((?:[A-Z0-9_ \t]|\\\n)+)$", makefile(), re.M):
        names |= set(m.group(1).replace("\\\n", " ").split())
    return names


def env(**kv):
    """make's environment: every exported knob empty, then KV."""
    e = {n: "" for n in exported()}
    e.update(kv)
    return e


def checked(mode, e):
    """What bench/args.sh MODE prints (in this process: the check is
    knobs.check; the tests below run args.sh itself too)."""
    return ["%s: %s" % (mode, line) for line in knobs.check(mode, e)]


def args_sh(mode, e, cwd=TOP):
    p = subprocess.run(["bash", os.path.join(BENCH, "args.sh"), mode], env=dict(os.environ, **e),
                       capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("k", knobs.TABLE, ids=lambda k: k.name)
def test_default_is_in_range(k):
    if k.default:
        assert knobs.value_error(k, k.default) is None, k
    else:
        assert k.computed or k.default == "", k
    assert k.mode in knobs.MODES and k.doc and "\n" not in k.doc


@pytest.mark.parametrize("mode", knobs.MODES)
def test_check_accepts_the_defaults(mode, tmp_path):
    e = env(**{k.name: k.default for k in knobs.TABLE if k.default})
    e["PAD"] = ""  # only for the layout A/A
    if mode == "report":
        (tmp_path / "runs.csv").write_text("")
        (tmp_path / "meta.json").write_text("{}")
        e["R"] = str(tmp_path)
    if mode == "race":
        e["WHAT"] = "tp"
    assert knobs.check(mode, e) == []


def test_every_knob_is_exported_and_every_export_a_knob():
    """make exports every knob of the table to the scripts; what else it
    exports is the lab's own (qemu/lib/lab.sh, the soak)."""
    lab_only = {"R"}  # make report passes R on its command line
    # set by a recipe (ARTICLE, and REGIME per regime by bench/article.sh),
    # or passed by make race
    internal = {"QUICK", "AA", "WHAT", "ARTICLE", "REGIME"}
    assert set(knobs.KNOBS) - exported() <= lab_only | internal
    assert exported() - set(knobs.KNOBS) == set()


# One bad value of each kind, and the one line the check prints for it.
BAD = [
    ("bench", {"WEIGHTS": "abc"}, "bench: WEIGHTS: 'abc' is not a decimal number (digits only, no leading zero)"),
    ("bench", {"WEIGHTS": "010"}, "bench: WEIGHTS: '010' is not a decimal number (digits only, no leading zero)"),
    ("bench", {"WEIGHTS": "65"}, "bench: WEIGHTS: 65 is outside 1..64"),
    ("bench", {"WEIGHTS": " "}, "bench: WEIGHTS: empty list"),
    ("bench", {"SECS": "5 6"}, "bench: SECS: one value, not '5 6'"),
    ("bench", {"PROFILES": "tcp nope"}, "bench: PROFILES: 'nope' is not one of: "
     + " ".join(profiles.KNOB_NAMES)),
    ("bench", {"PIN": "split none"}, "bench: PIN: one value, not 'split none'"),
    ("bench", {"UDP64_RATE": "20"}, "bench: UDP64_RATE: a rate in Mbit/s like 150M, not '20'"),
    ("bench", {"LINK": "1gbit fast"}, "bench: LINK: none or a tc rate like 1gbit, not 'fast'"),
    ("bench", {"LINK_BURST": "1kb"}, "bench: LINK_BURST: a tc size of at least 2kb (one frame "
     "must fit), like 3kb or 64kb, not '1kb'"),
    ("bench", {"REPS": "3x"}, "bench: REPS: a number of repetitions or auto, not '3x'"),
    ("bench", {"REPS": "0"}, "bench: REPS: 0 is outside 1..400"),
    ("bench", {"BOOT_ORDER": "baseline"},
     "bench: BOOT_ORDER: \"patched baseline\" or \"baseline patched\", not 'baseline'"),
    ("bench", {"OUT": "results/x;y"}, "bench: OUT: 'results/x;y' has characters outside [A-Za-z0-9._/-]"),
    ("bench", {"OUT": BENCH}, "bench: OUT: %s exists: give a new directory (rows of two sweeps would mix)" % BENCH),
    ("bench", {"REFILL": "300", "RING": "256"}, "bench: REFILL: 300 exceeds RING 256"),
    ("bench", {"PROFILES": "tcp router", "NICS": "1"}, "bench: NICS: profile router needs two NICs, not NICS=1"),
    ("bench", {"REPS": "auto", "MIN_REPS": "9", "MAX_REPS": "8"}, "bench: MIN_REPS 9 exceeds MAX_REPS 8"),
    ("bench", {"PAD": "6144"}, "bench: PAD: only for the layout A/A (make aa PAD=N), not for a "
     "patched/baseline sweep"),
    ("bench", {"SAT_REPS": "0"}, "bench: SAT_REPS=0 needs UDP1470_RATE (the udp1470 load is half "
     "the measured saturation)"),
    ("bench", {"BOOTS": "0"}, "bench: BOOTS: 0 is outside 1..200"),
    ("bench", {"BOOTS": "2x"}, "bench: BOOTS: '2x' is not a decimal number (digits only, no "
     "leading zero)"),
    ("bench", {"BOOTS": "4", "REPS": "auto"}, "bench: BOOTS: 4 boots need a number of "
     "repetitions, not REPS=auto"),
    ("bench", {"BOOTS": "5", "REPS": "4"}, "bench: BOOTS: 5 boots exceed REPS 4 (every boot runs "
     "a repetition or more)"),
    ("bench", {"BOOTS": "2", "REPS": "4", "ARTICLE": "1"}, "bench: BOOTS: make bench or make aa "
     "on one tree only (make article and a sweep of two trees boot once)"),
    ("bench", {"BOOTS": "2", "REPS": "4", "LINUX": "6.1 6.12"}, "bench: BOOTS: make bench or "
     "make aa on one tree only (make article and a sweep of two trees boot once)"),
    ("lab", {"PAD": "4097"}, "lab: PAD: 4097 is not a multiple of 16"),
    ("lab", {"LINUX": "6.2"}, "lab: LINUX: '6.2' is not one of: 6.1 6.12"),
    ("lab", {"LINUX": "6.1 6.12"}, 'lab: LINUX: one tree here, not "6.1 6.12" (only make bench '
     'compares two: make bench LINUX="6.1 6.12")'),
    ("bench", {"LINUX": "6.1 6.12", "AA": "1"}, 'bench: LINUX: one tree here, not "6.1 6.12" (only '
     'make bench compares two: make bench LINUX="6.1 6.12")'),
    ("bench", {"LINUX": "6.1 6.12", "QUICK": "1"}, 'bench: LINUX: one tree here, not "6.1 6.12" '
     '(only make bench compares two: make bench LINUX="6.1 6.12")'),
    ("bench", {"LINUX": "6.12 6.1"}, 'bench: LINUX: two trees in the order "6.1 6.12", not '
     '"6.12 6.1" (the first is the reference of the ratios)'),
    ("bench", {"LINUX": "6.12 6.12"}, "bench: LINUX: a tree named twice in '6.12 6.12'"),
    ("bench", {"LINUX": "6.1 6.2"}, "bench: LINUX: '6.2' is not one of: 6.1 6.12"),
    ("soak", {"LINUX": "6.1 6.12"}, 'soak: LINUX: one tree here, not "6.1 6.12" (only make bench '
     'compares two: make bench LINUX="6.1 6.12")'),
    ("soak", {"LINUX": "6.12"}, "soak: LINUX: make soak builds its debug kernel from 6.1 only, "
     "not 6.12"),
    ("race", {"WHAT": "tp", "LINUX": "6.12"}, "race: LINUX: make race builds its debug kernel "
     "from 6.1 only, not 6.12"),
    ("report", {}, "report: usage: make report R=results/<stamp> (a directory the bench wrote)"),
    ("report", {"R": "/etc"}, "report: R: /etc is not a results directory (no runs.csv and meta.json)"),
    ("report", {"R": "nonexistent"}, "report: R: nonexistent is not a directory"),
    ("race", {}, "race: WHAT: say which race, WHAT=tp or WHAT=down"),
    ("soak", {"SOAK_SECS": "30"}, "soak: SOAK_SECS: 30 is outside 60..86400"),
]


@pytest.mark.parametrize("mode,kv,line", BAD, ids=lambda x: x if isinstance(x, str) else None)
def test_check_rejects_with_one_line(mode, kv, line):
    assert checked(mode, env(**kv)) == [line]


def test_args_sh_prints_one_line_per_bad_value():
    rc, out, err = args_sh("bench", env(WEIGHTS="0", RING="47", PIN="x", REFILL="300"))
    assert rc == 2 and out == ""
    assert err.splitlines() == ["bench: WEIGHTS: 0 is outside 1..64", "bench: RING: 47 is outside 48..4096",
                                "bench: PIN: 'x' is not one of: none split client-on-vcpu 0 1"]


def test_a_value_is_never_evaluated(tmp_path):
    for v in ("$(touch owned)", "`touch owned`", "x; touch owned", "__import__('os')"):
        rc, _, err = args_sh("bench", env(WEIGHTS=v, OUT=v, PROFILES=v), cwd=str(tmp_path))
        assert rc == 2 and len(err.splitlines()) == 3, err
    assert list(tmp_path.iterdir()) == []


def bad_input_cases():
    """qemu/hosttests/bad-input's cases: (target, {knob: value})."""
    with open(os.path.join(TOP, "qemu", "hosttests", "bad-input")) as f:
        text = f.read()
    body = text[text.index("cases=(\n"):text.index("\n)\n")]
    out = []
    for c in re.findall(r'^\t"(.*)"$', body, re.M):
        c = c.replace("\\`", "`")
        target, assign = c.split(" ", 1)
        var, val = assign.split("=", 1)
        kv = {}
        m = re.fullmatch(r"([^ ]*) ([A-Z_]+)=(.*)", val)
        if m:
            val = m.group(1)
            kv[m.group(2)] = m.group(3)
        kv[var] = val
        out.append((target, kv))
    return out


def mode_of(target):
    """The args-* prerequisite of a make target, as (mode, extra env)."""
    mk = makefile()
    pre = re.search(r"^%s:.*?\bargs-(\w+)" % re.escape(target), mk, re.M).group(1)
    recipe = re.search(r"^args-%s:\n\t@(.*)$" % pre, mk, re.M).group(1)
    extra = dict(re.findall(r"([A-Z]+)=(\S+) ", recipe))
    return recipe.split()[-1], extra


@pytest.mark.parametrize("target,kv", bad_input_cases(), ids=lambda x: x if isinstance(x, str) else None)
def test_bad_input_cases_rejected_with_one_line(target, kv, tmp_path):
    """Each case of the bad-input host test, as make's knob check runs it
    (the host test itself runs make, under make test)."""
    mode, extra = mode_of(target)
    lines = checked(mode, env(**extra, **kv))
    assert len(lines) == 1 and re.match(r"(bench|report|lab|soak|race): ", lines[0]), lines


def test_bad_input_good_values_pass():
    e = env(WEIGHTS="8 64", REFILL="0 16", PIN="split", PROFILES="tcp zeroloss", REPS="3",
            SECS="4", LINK="none 1gbit", LINK_BURST="3kb", OUT="results/not-created-by-the-check")
    assert args_sh("bench", e) == (0, "", "")
    # make aa's 20 repetitions over 3 boots; its REPS=auto cannot be split
    assert checked("bench", env(BOOTS="3", AA="1", REPS="20")) == []
    assert checked("bench", env(BOOTS="3", AA="1")) == [
        "bench: BOOTS: 3 boots need a number of repetitions, not REPS=auto"]


def resolved(**kv):
    return dict(knobs.resolve(env(**kv)))


def test_resolve_defaults_and_presets():
    r = resolved(BENCH_SEED="7")
    for k in knobs.TABLE:
        if k.mode in ("lab", "bench") and k.default:
            assert r[k.name] == k.default, k.name
    assert r["BENCH_SEED"] == "7" and r["NICS"] == "1"
    q = resolved(QUICK="1", SECS="6")
    assert (q["WEIGHTS"], q["REFILL"], q["REPS"], q["MAX_REPS"], q["SECS"]) == ("64", "16", "auto", "8", "6")
    a = resolved(AA="1")
    assert (a["WEIGHTS"], a["REFILL"], a["ADAPTIVE"]) == tuple(
        profiles.BASELINE[x] for x in ("weight", "refill", "adaptive"))
    assert (a["REPS"], a["MIN_REPS"], a["MAX_REPS"]) == ("auto", "20", "80")
    assert a["PROFILES"] == "tcp udp1470 udp64"
    assert resolved(AA="1", REPS="6")["REPS"] == "6"  # a given REPS is kept
    assert resolved()["BENCH_SEED"].isdigit()


def test_resolve_normalises():
    r = resolved(PIN="1", PROFILES="tcp  router", WEIGHTS=" 8\t64 ")
    assert (r["PIN"], r["NICS"], r["PROFILES"], r["WEIGHTS"]) == ("split", "2", "tcp router", "8 64")
    assert r["BENCH_ROUTER"] == "1" and r["BENCH_RATE_NEEDED"] == "1"
    r = resolved(PROFILES="tcp", HIST="0")
    assert r["BENCH_ROUTER"] == "0" and r["BENCH_RATE_NEEDED"] == "0"
    assert (r["BASELINE_WEIGHT"], r["BASELINE_REFILL"], r["BASELINE_ADAPTIVE"]) == ("64", "16", "off")


def test_resolve_prints_lines_run_sh_reads():
    p = subprocess.run([sys.executable, os.path.join(BENCH, "knobs.py"), "resolve"],
                       env=dict(os.environ, **env(BENCH_SEED="1")), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    names = [line.split("=", 1)[0] for line in p.stdout.splitlines()]
    assert names == [k.name for k in knobs.TABLE if k.mode in ("lab", "bench")] + list(knobs.DERIVED)
    p = subprocess.run([sys.executable, os.path.join(BENCH, "knobs.py"), "resolve"],
                       env=dict(os.environ, **env(WEIGHTS="0")), capture_output=True, text=True)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", "bench: WEIGHTS: 0 is outside 1..64\n")


def test_meta_parameters():
    one = dict(resolved(BENCH_SEED="1"))
    p = knobs.meta_parameters(one)
    assert list(p) == ["WEIGHTS", "REFILL", "ADAPTIVE", "DEFER", "RING", "FIFO", "LINK",
                       "LINK_BURST", "BOOT_ORDER", "PROFILES", "REPS", "CALIB", "CALIB_PINS",
                       "PIN", "HIST"]
    two = dict(resolved(BENCH_SEED="1", PROFILES="share", TARGET="weight", POLL_TRACE="0"))
    assert list(knobs.meta_parameters(two))[15:] == ["WEIGHTS_ETH1", "COST", "NICS", "SAT_OFFER",
                                                     "TARGET", "POLL_TRACE"]
    cost = dict(resolved(BENCH_SEED="1", COST="1000", LAYOUT="plain"))
    assert list(knobs.meta_parameters(cost))[15:] == ["COST", "LAYOUT"]


def test_lab_defaults_are_lab_sh_s():
    """qemu/lib/lab.sh applies the lab's knobs with the table's defaults."""
    with open(os.path.join(TOP, "qemu", "lib", "lab.sh")) as f:
        lab = f.read()
    for name in ("ACCEL", "VCPUS", "MEM", "FIFO", "BOOT_TIMEOUT", "NICS", "TCG_THREAD",
                 "LAB_LOCK_WAIT", "LAYOUT"):
        found = set(re.findall(r"\$\{%s:-([^}]*)\}" % name, lab))
        assert found == {knobs.KNOBS[name].default}, (name, found)


def test_tree_sh_knows_the_knob_s_trees():
    """qemu/lib/tree.sh, which every script that builds or finds a kernel
    sources, has LINUX's default and values; a script run by hand refuses
    a bad one with the same line as make's check."""
    with open(os.path.join(TOP, "qemu", "lib", "tree.sh")) as f:
        tree = f.read()
    k = knobs.KNOBS["LINUX"]
    assert set(re.findall(r"\$\{LINUX:-([^}]*)\}", tree)) == {k.default}
    assert re.search(r'^LAB_TREES="%s"$' % " ".join(k.allowed), tree, re.M)
    p = subprocess.run(["bash", "-c", '. qemu/lib/tree.sh; lab_tree lab; echo "$LAB_KSRC_TAR $LAB_KSFX"'],
                       env=dict(os.environ, LINUX="6.12"), capture_output=True, text=True, cwd=TOP)
    assert (p.returncode, p.stdout) == (0, "/usr/src/linux-source-6.12.tar.xz -6.12\n"), p.stderr
    p = subprocess.run(["bash", "-c", ". qemu/lib/tree.sh; lab_tree lab; echo reached"],
                       env=dict(os.environ, LINUX="6.2"), capture_output=True, text=True, cwd=TOP)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", checked("lab", env(LINUX="6.2"))[0] + "\n")


def test_docs_table_is_generated():
    """docs/bench.md's knob table is knobs.py's (regenerate it with
    /usr/bin/python3 bench/knobs.py table --update docs/bench.md)."""
    with open(os.path.join(TOP, "docs", "bench.md")) as f:
        assert knobs.doc_block(f.read()) == knobs.table()


def test_make_help_lists_every_knob():
    p = subprocess.run([sys.executable, os.path.join(BENCH, "knobs.py"), "help"],
                       capture_output=True, text=True, check=True)
    for k in knobs.TABLE:
        assert re.search(r"^  %s " % k.name, p.stdout, re.M), k.name
    assert re.search(r"^help:", makefile(), re.M)


def test_min_reps_is_the_fewest_pairs():
    import paired
    assert knobs.KNOBS["MIN_REPS"].default == str(paired.MIN_PAIRS)

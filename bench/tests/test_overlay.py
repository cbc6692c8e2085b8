"""The drivers/ overlay as it lands in each tree (qemu/overlay.py, issue 22):
the filter that resolves its kernel-version conditionals, and the proof
that the 6.1 kernel the lab builds gets the very files it got before the
overlay was shared with 6.12.

overlay.sha256 holds, for both trees, the sha256 of every file of the
overlay after every patch of the series, as qemu/series.sh assembles the
steps (qemu/overlay.py steps: drivers/, the patches/overlay/ deltas undone
one step at a time, then stripped); the last step is what
qemu/build-kernel.sh copies into the tree. The 6.1 lines are those of
main's drivers/ and deltas at aac2f42, before the overlay had a version
test: every file of every step is the same byte for byte. The 6.12 lines
are the port's (patches/6.12/README), two comments about the lab itself
left out. A deliberate change to drivers/ or patches/overlay/ changes them:
check the new files, then write the file again with

    /usr/bin/python3 bench/tests/test_overlay.py --update
"""
import hashlib
import os
import shutil
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "qemu"))
import overlay  # noqa: E402

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "overlay.sha256")
TREES = {"6.1": os.path.join(TOP, "patches", "series"),
         "6.12": os.path.join(TOP, "patches", "6.12", "series")}
needs_patch = pytest.mark.skipif(shutil.which("patch") is None, reason="no patch(1) (make deps)")


def strip(text, linux="6.1"):
    return overlay.strip_text(text, overlay.parse_linux(linux), "t.c")


def digests(linux, work):
    """'LINUX STEP FILE SHA256' for every file of every step."""
    out = os.path.join(work, linux)
    overlay.steps(TOP, TREES[linux], out, overlay.parse_linux(linux))
    lines = []
    for k in sorted(os.listdir(out), key=int):
        for d, dirs, files in os.walk(os.path.join(out, k)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(d, f)
                with open(p, "rb") as fh:
                    h = hashlib.sha256(fh.read()).hexdigest()
                lines.append("%s %s drivers/%s %s" % (linux, k, os.path.relpath(p, os.path.join(out, k)), h))
    return lines


def expected():
    with open(EXPECTED) as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


@needs_patch
@pytest.mark.parametrize("linux", sorted(TREES))
def test_every_step_lands_as_recorded(linux, tmp_path):
    """6.1: every file of every step of the series as before the overlay was
    shared (main at aac2f42); 6.12: as ported."""
    want = [line for line in expected() if line.split()[0] == linux]
    got = digests(linux, str(tmp_path))
    assert want, "no %s lines in %s" % (linux, EXPECTED)
    differ = sorted(set(want) ^ set(got))
    assert got == want, (
        "the overlay lands otherwise in %s (see the docstring): %s" % (linux, differ[:6]))


@needs_patch
def test_the_last_step_is_what_build_kernel_copies(tmp_path):
    """qemu/build-kernel.sh copies `overlay.py tree` of drivers/; series.sh's
    last step must be the same files, or its final diff -r fails."""
    for linux in TREES:
        overlay.steps(TOP, TREES[linux], str(tmp_path / linux), overlay.parse_linux(linux))
        assert overlay.main(["overlay.py", "tree", linux, os.path.join(TOP, "drivers"),
                             str(tmp_path / ("tree-" + linux))]) == 0
        n = str(len(overlay.series_names(TREES[linux])))
        for d, _, files in os.walk(tmp_path / ("tree-" + linux)):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), tmp_path / ("tree-" + linux))
                with open(os.path.join(d, f), "rb") as a, \
                        open(tmp_path / linux / n / rel, "rb") as b:
                    assert a.read() == b.read(), rel


def test_no_version_test_reaches_a_tree():
    for d, _, files in os.walk(os.path.join(TOP, "drivers")):
        for f in files:
            p = os.path.join(d, f)
            with open(p) as fh:
                raw = fh.read()
            for linux in TREES:
                s = overlay.strip_file(p, overlay.parse_linux(linux))
                assert "LINUX_VERSION_CODE" not in s and "linux/version.h" not in s, (p, linux)
                if "LINUX_VERSION_CODE" not in raw:
                    assert s == raw, "%s: a file without a version test is copied as it is" % p


def test_the_trees_differ_where_the_versions_do():
    p = os.path.join(TOP, "drivers", "net", "ethernet", "intel", "e1000", "e1000_devlink.c")
    old, new = (overlay.strip_file(p, overlay.parse_linux(v)) for v in ("6.1", "6.12"))
    assert "devlink_param_value_changed(adapter->devlink," in old and "devl_lock" not in old
    assert "devl_param_value_changed(devlink," in new and "schedule_work(" in new
    assert old.count("struct netlink_ext_ack *extack)") == 1  # the validator's alone
    assert new.count("struct netlink_ext_ack *extack)") == 3  # and both set()s


V = "#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)\n"


def test_branches():
    src = ("#include <linux/rtnetlink.h>\n#include <linux/version.h>\n" + V
           + "new\n#else\nold\n#endif\nboth\n")
    assert strip(src, "6.1") == "#include <linux/rtnetlink.h>\nold\nboth\n"
    assert strip(src, "6.12") == "#include <linux/rtnetlink.h>\nnew\nboth\n"
    assert strip(V + "new\n#endif /* x */\n", "6.1") == ""
    chain = ("#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0) /* why */\nc\n"
             "#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)\nb\n#else\na\n#endif\n")
    assert [strip(chain, v) for v in ("6.1", "6.3.0", "6.12")] == ["a\n", "b\n", "c\n"]
    # 6.1 against 6.2.0, every operator
    for op, want in ((">", ""), (">=", ""), ("<", "x\n"), ("<=", "x\n"), ("==", ""),
                     ("!=", "x\n")):
        t = "#if LINUX_VERSION_CODE %s KERNEL_VERSION(6, 2, 0)\nx\n#endif\n" % op
        assert strip(t, "6.1") == want, op
    assert strip("#if LINUX_VERSION_CODE > KERNEL_VERSION(6, 1, 5)\nx\n#endif\n",
                 "6.1.192") == "x\n"


def test_other_conditionals_stay():
    src = ("#ifdef CONFIG_X\n" + V + "new\n#else\nold\n#endif\n#else\n#define A \\\n"
           "\t1\n#endif\n#if IS_ENABLED(CONFIG_Y)\ny\n#endif\n")
    assert strip(src, "6.1") == ("#ifdef CONFIG_X\nold\n#else\n#define A \\\n\t1\n#endif\n"
                                 "#if IS_ENABLED(CONFIG_Y)\ny\n#endif\n")
    # an other #if inside a branch not taken goes with it
    assert strip(V + "#ifdef CONFIG_X\nx\n#endif\n#endif\nz\n", "6.1") == "z\n"
    # a file without a version test, byte for byte (no newline at its end too)
    for s in ("a\n\fb\r\n#if 0\nc\n#endif", ""):
        assert strip(s) == s


@pytest.mark.parametrize("src,why", [
    ("#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0) && defined(X)\n#endif\n",
     "must be exactly"),
    ("#if LINUX_VERSION_CODE >= \\\n KERNEL_VERSION(6, 3, 0)\n#endif\n", "continued"),
    ("#if defined(X)\n#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)\n#endif\n",
     "#elif of another"),
    (V + "#elif defined(X)\n#endif\n", "no version test"),
    (V + "x\n", "without #endif"),
    ("#endif\n", "without #if"),
    ("int v = LINUX_VERSION_CODE;\n", "outside a version test"),
    ("#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 100)\n#endif\n", "full version"),
])
def test_refuses_what_it_cannot_decide(src, why):
    with pytest.raises(overlay.StripError, match=why):
        strip(src, "6.1")


def test_cli(tmp_path):
    src = tmp_path / "d"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "f.c").write_text(V + "new\n#else\nold\n#endif\n")
    assert overlay.main(["overlay.py", "tree", "6.1", str(src), str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "sub" / "f.c").read_text() == "old\n"
    assert overlay.main(["overlay.py", "tree", "6.1", str(src), str(tmp_path / "o")]) == 1
    assert overlay.main(["overlay.py", "tree", "6.2x", str(src), str(tmp_path / "p")]) == 1
    assert overlay.main(["overlay.py", "strip", "6.1"]) == 2


def update():
    import tempfile
    head = [line for line in open(EXPECTED) if line.startswith("#")] if os.path.exists(EXPECTED) else []
    with tempfile.TemporaryDirectory() as work:
        lines = digests("6.1", work) + digests("6.12", work)
    with open(EXPECTED, "w") as f:
        f.write("".join(head) + "\n".join(lines) + "\n")


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    update()

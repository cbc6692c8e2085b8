#!/usr/bin/env python3
"""The drivers/ overlay as it lands in one tree: its kernel-version
conditionals resolved (issue 22).

drivers/ serves linux-source-6.1 and 6.12 alike. Where the two trees' APIs
differ, a file holds both spellings, whole lines in each branch of

    #if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)   (or <, <=, >, ==, !=)
    ...
    #else                (optional; #elif with another version test too)
    ...
    #endif

and includes <linux/version.h>. A tree never gets that file: the scripts
that copy the overlay into a tree (qemu/build-kernel.sh, qemu/series.sh)
copy it through this filter, which keeps the lines of the branch the tree
takes and drops the directives, the other branches and the
`#include <linux/version.h>` line. What lands in a tree has no version test
at all (checkpatch refuses LINUX_VERSION_CODE in a mailed patch), and a file
without one is copied as it is. Every other #if is left alone, with the
version tests inside it resolved.

    overlay.py strip LINUX FILE          FILE as it lands in LINUX's tree, on stdout
    overlay.py tree LINUX SRC DST        every file under SRC, stripped, into DST
                                         (which must not exist)
    overlay.py steps LINUX SERIES OUT    the overlay after each patch k of SERIES
                                         (a series file) in OUT/<k>/, stripped
                                         (qemu/series.sh; below)

LINUX is a version, 6.1 or 6.12 (the lab's trees), or a full one like
6.12.118: a test against a sublevel of LINUX's own major.minor needs the
full version, and the filter refuses it otherwise rather than guess.
Anything it cannot decide exactly stops it with the file and line (status
1): a version test combined with anything else (&&, ||, defined()), one
continued on the next line, a version chain mixed with other tests, an
unbalanced #if, a LINUX_VERSION_CODE or KERNEL_VERSION left outside a
directive it resolves.

steps: the overlay at every step of the series, newest first, the way the
mailed series needs it: step n is drivers/; step k-1 is step k with patch
k's changes to earlier overlay files undone (patches/overlay/<patch>,
reversed with patch -R, against the unstripped files) and the files patch k
adds (patches/overlay.map) removed; then every step is stripped. The
overlay map and deltas are one for both trees (patches/6.12/README).
"""
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DIRECTIVE = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
# "LINUX_VERSION_CODE OP KERNEL_VERSION(a, b, c)", then at most a comment
VERSION_TEST = re.compile(
    r"\s*LINUX_VERSION_CODE\s*(>=|<=|==|!=|<|>)\s*"
    r"KERNEL_VERSION\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)"
    r"\s*(?:/\*.*?\*/\s*)?$")
VERSION_WORD = re.compile(r"\b(LINUX_VERSION_CODE|KERNEL_VERSION)\b")
VERSION_INCLUDE = re.compile(r"\s*#\s*include\s*<linux/version\.h>\s*$")
OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
       "!=": lambda a, b: a != b, "<": lambda a, b: a < b, ">": lambda a, b: a > b}


class StripError(Exception):
    pass


def parse_linux(s):
    """'6.1' -> (6, 1, None); '6.12.118' -> (6, 12, 118)."""
    m = re.fullmatch(r"([1-9][0-9]?)\.(0|[1-9][0-9]?)(?:\.(0|[1-9][0-9]{0,2}))?", s)
    if not m:
        raise StripError("LINUX: '%s' is not a kernel version like 6.1, 6.12 or 6.12.118" % s)
    return int(m.group(1)), int(m.group(2)), None if m.group(3) is None else int(m.group(3))


def version_test(cond, linux, where):
    """True or False for a version test CONDition, None when COND is no
    version test at all; StripError when it is one this filter cannot
    decide exactly."""
    m = VERSION_TEST.fullmatch(cond)
    if not m:
        if VERSION_WORD.search(cond):
            raise StripError("%s: a version test must be exactly 'LINUX_VERSION_CODE OP "
                             "KERNEL_VERSION(a, b, c)', not '%s'" % (where, cond.strip()))
        return None
    op, want = m.group(1), tuple(min(int(x), 255) if i == 2 else int(x)
                                 for i, x in enumerate(m.group(2, 3, 4)))
    major, minor, sub = linux
    if sub is None:
        if (major, minor) != want[:2] or want[2] == 0 and op in (">=", "<"):
            # x.y stands for every x.y.z, all on one side of the test
            sub = 0
        else:
            raise StripError("%s: KERNEL_VERSION%s needs the full version of the tree "
                             "(LINUX=%d.%d.N)" % (where, str(want).replace(" ", ""),
                                                  major, minor))
    return OPS[op]((major, minor, min(sub, 255)), want)


def logical_lines(lines):
    """The lines grouped as the preprocessor joins them: (first index,
    [physical lines]) for every line and its backslash continuations."""
    i = 0
    while i < len(lines):
        j = i
        while lines[j].rstrip("\n").endswith("\\") and j + 1 < len(lines):
            j += 1
        yield i, lines[i:j + 1]
        i = j + 1


def strip_text(text, linux, name="<stdin>"):
    """TEXT as it lands in LINUX's tree (LINUX from parse_linux)."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    out = []
    # One frame per open #if: kind "version" (a chain of version tests:
    # taken, whether a branch of it was taken yet) or "other" (left as
    # written). A line is kept when every enclosing version frame is taken.
    stack = []

    def keeping():
        return all(f["taken"] for f in stack if f["kind"] == "version")

    for i, phys in logical_lines(lines):
        where = "%s:%d" % (name, i + 1)
        m = DIRECTIVE.match(phys[0].rstrip("\n"))
        if not m:
            if VERSION_INCLUDE.fullmatch(phys[0].rstrip("\n")) and len(phys) == 1:
                continue
            if keeping():
                out.extend(phys)
            continue
        word, rest = m.group(1), m.group(2)
        cont = len(phys) > 1
        if word in ("if", "elif"):
            cond = "".join(p.rstrip("\n").rstrip("\\") for p in phys)
            cond = DIRECTIVE.match(cond).group(2)
            if cont and VERSION_WORD.search(cond):
                raise StripError("%s: a version test continued on the next line" % where)
            t = version_test(cond, linux, where)
        else:
            t = None
        if word in ("if", "ifdef", "ifndef"):
            if t is None:
                stack.append({"kind": "other", "line": where})
                if keeping():
                    out.extend(phys)
            else:
                stack.append({"kind": "version", "line": where, "taken": t, "done": t})
            continue
        if not stack:
            raise StripError("%s: #%s without #if" % (where, word))
        f = stack[-1]
        if f["kind"] == "other":
            if word == "elif" and t is not None:
                raise StripError("%s: a version test in the #elif of another test (%s)"
                                 % (where, f["line"]))
            if word == "endif":
                stack.pop()
            # the directive itself belongs to the enclosing frames
            if all(g["taken"] for g in stack if g["kind"] == "version"):
                out.extend(phys)
            continue
        if word == "elif":
            if t is None:
                raise StripError("%s: an #elif that is no version test in the version "
                                 "test of %s" % (where, f["line"]))
            f["taken"] = t and not f["done"]
            f["done"] = f["done"] or t
        elif word == "else":
            f["taken"] = not f["done"]
            f["done"] = True
        else:
            stack.pop()
    if stack:
        raise StripError("%s: #if without #endif" % stack[-1]["line"])
    result = "".join(out)
    for n, line in enumerate(result.split("\n"), 1):
        if VERSION_WORD.search(line):
            raise StripError("%s: LINUX_VERSION_CODE or KERNEL_VERSION outside a version "
                             "test (line %d of the output: '%s')" % (name, n, line.strip()))
    return result


def strip_file(path, linux, name=None):
    with open(path, encoding="utf-8", newline="") as f:
        return strip_text(f.read(), linux, name or path)


def strip_tree(src, dst, linux):
    """Every file under SRC, stripped, into DST (created; must not exist)."""
    os.makedirs(dst)
    for d, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(d, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in sorted(files):
            p = os.path.join(d, f)
            text = strip_file(p, linux, os.path.relpath(p, os.path.dirname(src.rstrip("/"))))
            with open(os.path.join(dst, rel, f), "w", encoding="utf-8", newline="") as o:
                o.write(text)
            shutil.copymode(p, os.path.join(dst, rel, f))


def series_names(path):
    with open(path) as f:
        return [w.split()[0] for w in f if w.strip() and not w.startswith("#")]


def overlay_map(top, series):
    """drivers/ file -> the patch of SERIES that adds it (patches/overlay.map),
    every drivers/ file mapped."""
    intro = {}
    with open(os.path.join(top, "patches", "overlay.map")) as f:
        for line in f:
            if not line.strip():
                continue
            fname, p = line.split()
            if not os.path.isfile(os.path.join(top, fname)):
                raise StripError("patches/overlay.map names %s, which is not in drivers/" % fname)
            if p not in series:
                raise StripError("patches/overlay.map: %s: %s is not in the series" % (fname, p))
            intro[fname] = p
    for d, _, files in os.walk(os.path.join(top, "drivers")):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), top)
            if rel not in intro:
                raise StripError("%s is in drivers/ but not in patches/overlay.map (which patch "
                                 "adds it?)" % rel)
    return intro


def steps(top, series_file, out, linux):
    """OUT/<k>/ (k = 1..n): the drivers/ overlay after patch k, stripped for
    LINUX; OUT must not exist."""
    series = series_names(series_file)
    intro = overlay_map(top, series)
    raw = out + ".raw"
    if os.path.lexists(out) or os.path.lexists(raw):
        raise StripError("%s exists" % out)
    try:
        _steps(top, series, intro, raw, out, linux)
    finally:
        shutil.rmtree(raw, ignore_errors=True)


def _steps(top, series, intro, raw, out, linux):
    n = len(series)
    shutil.copytree(os.path.join(top, "drivers"), os.path.join(raw, str(n)), symlinks=True)
    for k in range(n, 1, -1):
        p = series[k - 1]
        prev = os.path.join(raw, str(k - 1))
        shutil.copytree(os.path.join(raw, str(k)), prev, symlinks=True)
        for fname, q in intro.items():
            if q == p:
                os.remove(os.path.join(prev, os.path.relpath(fname, "drivers")))
        delta = os.path.join(top, "patches", "overlay", p)
        if os.path.isfile(delta):
            with open(delta, "rb") as d:
                r = subprocess.run(["patch", "-s", "-d", prev, "-p2", "-R", "--batch",
                                    "--no-backup-if-mismatch"], stdin=d,
                                   capture_output=True, text=True)
            if r.returncode != 0:
                raise StripError(
                    "patches/overlay/%s does not reverse-apply to drivers/: drivers/ was "
                    "edited where a later patch changes it; edit the development tree and run "
                    "patches/refresh.sh\n%s" % (p, (r.stdout + r.stderr).strip()))
    os.makedirs(out)
    for k in range(1, n + 1):
        strip_tree(os.path.join(raw, str(k)), os.path.join(out, str(k)), linux)


USAGE = ("usage: overlay.py strip LINUX FILE | tree LINUX SRC DST | "
         "steps LINUX SERIES OUT")


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "strip":
            sys.stdout.write(strip_file(argv[3], parse_linux(argv[2])))
        elif len(argv) == 5 and argv[1] == "tree":
            if os.path.lexists(argv[4]):
                raise StripError("%s exists" % argv[4])
            strip_tree(argv[3], argv[4], parse_linux(argv[2]))
        elif len(argv) == 5 and argv[1] == "steps":
            steps(TOP, argv[3], argv[4], parse_linux(argv[2]))
        else:
            print(USAGE, file=sys.stderr)
            return 2
    except (StripError, OSError, UnicodeDecodeError) as e:
        print("overlay.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""Test the soak's console scanner (scan.py) on canned consoles: every kind
of report the debug kernel prints must be found, once per report, with its
kind, and a clean debug console (boot banners, fault-injection noise) must
give none. KTAP on stdout; exit status 1 on any failure."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import scan  # noqa: E402

# file -> the kinds of its reports, in order
EXPECTED = {
    "clean.log": [],
    "kasan.log": ["kasan"],
    "ubsan.log": ["ubsan"],
    "lockdep.log": ["lockdep", "lockdep"],
    "warning.log": ["warning"],
    # the panic right after the kernel BUG is part of that report
    "bug.log": ["bug", "atomic_sleep", "bug"],
    "rcu-stall.log": ["rcu_stall"],
    "soft-lockup.log": ["soft_lockup"],
    "hard-lockup.log": ["hard_lockup"],
    "hung-task.log": ["hung_task"],
    "kmemleak.log": ["kmemleak", "kmemleak"],
    "kmemleak-quiet.log": ["kmemleak_summary"],
    # the soak's rescan: suspects referenced again are no report, the rest are
    "kmemleak-rescan-clean.log": [],
    "kmemleak-rescan-leak.log": ["kmemleak"],
    "kmemleak-tcp-ack.log": ["kmemleak", "kmemleak"],
    "refcount.log": ["refcount"],
    "list-corruption.log": ["list_corruption"],
    "gpf-workqueue.log": ["bug", "workqueue_lockup"],
    # the first soak's find (patched kernel, e1000 tracepoint toggled)
    "die-int3.log": ["bug"],
    "panic-alone.log": ["panic"],
}
# file -> report index -> a word its attribution must contain
CODE = {
    "kasan.log": {0: "e1000"},
    "ubsan.log": {0: "upstream"},
    "lockdep.log": {0: "e1000", 1: "upstream"},
    "refcount.log": {0: "upstream"},
    "gpf-workqueue.log": {0: "weight knob"},
    "kmemleak.log": {0: "e1000", 1: "upstream"},
    "die-int3.log": {0: "e1000"},
}

results = []


def check(name, ok, diag=""):
    results.append((name, ok, diag))


def read(f):
    with open(os.path.join(here, "testdata", f), encoding="utf-8") as fh:
        return fh.readlines()


for f, kinds in sorted(EXPECTED.items()):
    got = scan.scan(read(f))
    check("kinds_" + f[:-4].replace("-", "_"), [r["kind"] for r in got] == kinds,
          "%s: expected %s, got %s" % (f, kinds, [(r["kind"], r["line"]) for r in got]))
    for i, word in CODE.get(f, {}).items():
        code = got[i]["code"] if i < len(got) else "(no report)"
        check("code_%s_%d" % (f[:-4].replace("-", "_"), i), word in code,
              "%s report %d: expected '%s' in '%s'" % (f, i + 1, word, code))

# Known upstream reports (qemu/soak/known-upstream.txt): the pure-ACK leak in
# upstream code alone is known; the same frames through e1000 never are.
known = scan.read_known(os.path.join(here, "known-upstream.txt"))
k = scan.mark_known(scan.scan(read("kmemleak-tcp-ack.log")), known)
check("known_upstream_tcp_ack", len(k) == 2 and bool(k[0]["known"]),
      "report 1 should be known: %s" % [(r["code"], r["known"]) for r in k])
check("known_never_in_lab_code", len(k) == 2 and k[1]["known"] is None,
      "report 2 runs through e1000 and must not be known: %s" % [(r["code"], r["known"]) for r in k])
k = scan.mark_known(scan.scan(read("kasan.log")), known)
check("known_leaves_others", all(r["known"] is None for r in k), "kasan.log: %s" % k)
# The command line: --known turns a known report's exit 1 into 0 only when
# every report is known, says how many were, and refuses a malformed list.
def cli(*args):
    p = subprocess.run([sys.executable, os.path.join(here, "scan.py")] + list(args),
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout
tcp = os.path.join(here, "testdata", "kmemleak-tcp-ack.log")
kfile = os.path.join(here, "known-upstream.txt")
rc0, out0 = cli(tcp)
rc1, out1 = cli("--known", kfile, tcp)
check("cli_known_counts", rc0 == 1 and rc1 == 1 and "1 of them known upstream, 1 not" in out1,
      "without: %d, with: %d %r" % (rc0, rc1, out1[-120:]))
with tempfile.TemporaryDirectory() as d:
    one = os.path.join(d, "one.log")
    with open(tcp, encoding="utf-8") as f:
        lines = f.readlines()
    with open(one, "w", encoding="utf-8") as f:
        f.writelines(lines[:11] + lines[-1:])
    rc2, out2 = cli("--known", kfile, one)
    bad = os.path.join(d, "bad.txt")
    with open(bad, "w", encoding="utf-8") as f:
        f.write("kmemleak only-two-fields\n")
    rc3, _ = cli("--known", bad, one)
check("cli_known_all_known_exit_0", rc2 == 0 and "1 of them known upstream, 0 not" in out2,
      "exit %d %r" % (rc2, out2[-120:]))
check("cli_known_malformed_list", rc3 == 2, "exit %d" % rc3)

# Every kind the issue names is among the canned reports.
needed = {"kasan", "ubsan", "lockdep", "warning", "bug", "rcu_stall", "soft_lockup",
          "hard_lockup", "hung_task", "kmemleak", "refcount"}
seen = {k for kinds in EXPECTED.values() for k in kinds}
check("every_kind_canned", needed <= seen, "missing: %s" % sorted(needed - seen))

# Frames: the first real frame of a report, noise (dump_stack, kasan_report) left out.
k = scan.scan(read("kasan.log"))[0]
check("frames_skip_reporting_code", k["frames"][:2] == ["e1000_clean_rx_irq [e1000]", "e1000_clean [e1000]"],
      "got %s" % k["frames"][:3])

# On the baseline kernel every report is upstream code.
b = scan.scan(read("kasan.log"), baseline=True)[0]
check("baseline_is_upstream", b["code"].startswith("upstream"), b["code"])

# The command line: exit 1 and "N reports" on a report, 0 on a clean console.
script = os.path.join(here, "scan.py")
data = os.path.join(here, "testdata")
p = subprocess.run([sys.executable, script, os.path.join(data, "refcount.log")],
                   capture_output=True, text=True, timeout=30)
check("cli_flags_report", p.returncode == 1 and p.stdout.rstrip().endswith("1 reports"),
      "exit %d: %s" % (p.returncode, p.stdout[-200:]))
p = subprocess.run([sys.executable, script, os.path.join(data, "clean.log")],
                   capture_output=True, text=True, timeout=30)
check("cli_clean", p.returncode == 0 and p.stdout.strip() == "0 reports",
      "exit %d: %s" % (p.returncode, p.stdout[-200:]))

print("KTAP version 1")
print("1..%d" % len(results))
failed = 0
for n, (name, ok, diag) in enumerate(results, 1):
    if not ok:
        failed += 1
        for line in diag.splitlines():
            print("# " + line)
    print("%sok %d %s" % ("" if ok else "not ", n, name))
sys.exit(1 if failed else 0)

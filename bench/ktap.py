#!/usr/bin/env python3
"""The bench's pytest suite as one KTAP document (Documentation/dev-tools/
ktap.rst), so that make test (qemu/test.sh, host_ktap) counts every pytest
test as one result of its own:

    ktap.py [PYTEST_ARGS...]         default: bench/tests

pytest runs in this process, its terminal output discarded, with a plugin
that prints "KTAP version 1", the plan once the tests are collected, and per
test "ok N NODEID", "ok N NODEID # SKIP reason" or, after the failure's
report (--tb=short) as "# " lines, "not ok N NODEID". A test module that
cannot be collected is a failed result of its own (the others still run).
Exit status: pytest's (0 when every test passed or was skipped).
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


class Ktap:
    """The pytest plugin: results in KTAP on `out`, one line per test."""

    def __init__(self, out):
        self.out = out
        self.n = 0
        self.planned = False
        self.broken = []  # collection reports that failed
        self.reports = []  # the current test's reports (setup, call, teardown)

    def line(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def result(self, name, outcome, why=""):
        """One line: outcome passed, skipped (why: the reason) or failed
        (why: its report, "# " lines before the result)."""
        self.n += 1
        name = "_".join(name.split())  # a KTAP name has no white space
        if outcome == "failed":
            for d in why.splitlines():
                self.line(("# " + d).rstrip())
            self.line("not ok %d %s" % (self.n, name))
        elif outcome == "skipped":
            self.line("ok %d %s # SKIP %s" % (self.n, name, " ".join(why.split())))
        else:
            self.line("ok %d %s" % (self.n, name))

    def pytest_collectreport(self, report):
        if report.failed:
            self.broken.append(report)

    def pytest_collection_finish(self, session):
        self.line("KTAP version 1")
        self.line("1..%d" % (len(session.items) + len(self.broken)))
        self.planned = True
        for rep in self.broken:
            self.result(rep.nodeid or "collection", "failed", rep.longreprtext)

    def pytest_runtest_logreport(self, report):
        self.reports.append(report)

    def pytest_runtest_logfinish(self, nodeid):
        reps, self.reports = self.reports, []
        failed = [r for r in reps if r.failed]
        skipped = [r for r in reps if r.skipped]
        if failed:
            self.result(nodeid, "failed", "\n".join(r.longreprtext for r in failed))
        elif skipped:
            reason = skipped[0].longrepr
            reason = reason[2] if isinstance(reason, tuple) else str(reason)
            reason = reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
            if hasattr(skipped[0], "wasxfail"):
                reason = "expected to fail: %s" % skipped[0].wasxfail
            self.result(nodeid, "skipped", reason)
        else:
            self.result(nodeid, "passed")


def main(args):
    # pytest captures fd 1 around each test: the plugin writes to a copy of
    # it taken before pytest starts; pytest's own terminal report (its
    # plugin stays: assertion messages need its options) goes nowhere.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    plugin = Ktap(out)
    tests = os.path.join(HERE, "tests")
    stdout = sys.stdout
    with open(os.devnull, "w") as sys.stdout:
        rc = pytest.main(["-p", "no:cacheprovider", "--tb=short",
                          "--continue-on-collection-errors", "--rootdir", tests]
                         + (args or [tests]), plugins=[plugin])
    sys.stdout = stdout
    if not plugin.planned:  # pytest stopped before its plan (a usage error)
        plugin.line("KTAP version 1")
        plugin.line("1..1")
        plugin.result("pytest", "failed", "pytest exit %d before any test ran" % rc)
    out.close()
    return int(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

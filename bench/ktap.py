"""KTAP output for the bench's Python tests (Documentation/dev-tools/ktap.rst).

    CASES = []
    case = ktap.collector(CASES)     # @case on each test: returns (ok, diag)
    sys.exit(ktap.run(CASES))

A test that raises fails with its exception as the diagnostic.
"""


def collector(cases):
    def case(fn):
        cases.append(fn)
        return fn
    return case


def run(cases):
    print("KTAP version 1")
    print("1..%d" % len(cases))
    failed = 0
    for i, fn in enumerate(cases, 1):
        try:
            ok, diag = fn()
        except Exception as e:  # a crash is a failure, with its reason
            ok, diag = False, "%s: %s" % (type(e).__name__, e)
        for line in str(diag).splitlines():
            print("# %s: %s" % (fn.__name__, line))
        print("%s %d %s" % ("ok" if ok else "not ok", i, fn.__name__))
        failed += not ok
    return 1 if failed else 0

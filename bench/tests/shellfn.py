"""A function of bench/run.sh as text, for the tests that run or read one
(test_schema, test_hostspeed): from its "NAME() {" line to its closing "}"
line, both included."""
import os

RUN_SH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run.sh")


def run_sh_function(name):
    with open(RUN_SH) as f:
        text = f.read()
    start = text.index("\n%s() {\n" % name) + 1
    return text[start:text.index("\n}\n", start) + 3]

"""The bench's tests (pytest): `make unit`, and `make test` through
bench/ktap.py. No kernel, no root, no network: the bench's Python modules on
synthetic data and on the sweeps recorded in docs/results/ (read, never
written).

    /usr/bin/python3 -m pytest -q bench/tests

The bench's modules are scripts in bench/, imported here by their names
(paired, report, row, layout, ...).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

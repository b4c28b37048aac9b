#!/usr/bin/env python
"""Taste Memory benchmark: ``python scripts/bench.py [--quick] [--out FILE] [--only SECTIONS]``.

The benchmark lives in the package ``scripts/benchmarks/`` (one module per section); this file
is its command, kept at the path the README, CI and docs/PERFORMANCE.md name."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the service's packages (service, tools, models)
sys.path.insert(0, str(HERE))  # benchmarks and bench_floor_server

from benchmarks.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(__file__))

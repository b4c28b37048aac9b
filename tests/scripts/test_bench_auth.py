"""``scripts/bench_auth.py`` keeps working: it runs at small sizes and prints every row (timings are
reported in docs/PERFORMANCE.md, never asserted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    "SSE get_profile",
    "SSE mutation",
    "in-process mutation (journal on)",
    "verify a token, 10 in the file",
    "verify a token, 1,000 in the file",
    "ops.audit, 100 newest of one user, 300 entries",
]


@pytest.mark.slow
def test_bench_auth_prints_every_row(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    done = subprocess.run(
        [sys.executable, "scripts/bench_auth.py", "--calls", "40", "--audit-sizes", "300"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = {
        parts[0]: parts[1:] for parts in (re.split(r"\s{2,}", line.strip()) for line in done.stdout.splitlines())
    }
    for row in ROWS:
        cells = next((c for label, c in printed.items() if label.startswith(row)), None)
        assert cells, f"row {row!r} missing from:\n{done.stdout}"
        assert all(float(c.lstrip("+")) == float(c.lstrip("+")) for c in cells), (row, cells)  # numbers, not NaN

"""The committed static table of search by meaning is what ``scripts/distill_meaning_table.py`` makes
from the pinned model: a sample of its rows, rebuilt now through the ONNX model, points the same way
(cosine > 0.99 each; int8 storage and the CPU's arithmetic account for the rest). And the check can
fail: a table whose rows were shuffled is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from service.search.semantic.table import TABLE_FILE

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "distill_meaning_table.py"


def run_check(table: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--check"] + ([f"--table={table}"] if table else [])
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_committed_table_is_rebuilt_from_the_pinned_model() -> None:
    done = run_check()
    assert done.returncode == 0, done.stdout + done.stderr
    worst = float(done.stdout.rsplit(":", 1)[1])
    assert worst > 0.99, done.stdout


def test_a_table_not_made_by_the_model_is_refused(tmp_path: Path) -> None:
    stored = dict(np.load(TABLE_FILE))
    stored["rows"] = np.random.default_rng(1).permutation(stored["rows"])
    shuffled = tmp_path / "shuffled.npz"
    np.savez(shuffled, **stored)
    done = run_check(shuffled)
    assert done.returncode == 1, done.stdout + done.stderr
    assert float(done.stdout.rsplit(":", 1)[1]) < 0.9

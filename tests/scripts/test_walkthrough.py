"""The README's walkthrough is what ``scripts/walkthrough.py`` prints today.

The script starts a real server and makes the five calls; its output must equal the README's block
once the values that differ from run to run (generated ids, the server's clock) are masked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server_process import child_environment

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- walkthrough -->\s*```text\n(.*?)```\s*<!-- /walkthrough -->", re.DOTALL)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CLOCK = re.compile(r'"updated_at": "[^"]+"')  # the one time the server takes from its clock


def masked(text: str) -> list[str]:
    text = UUID.sub("<uuid>", text)
    text = CLOCK.sub('"updated_at": "<now>"', text)
    return [line.rstrip() for line in text.strip().splitlines()]


def readme_block() -> str:
    found = BLOCK.findall((ROOT / "README.md").read_text())
    assert len(found) == 1, "the README has one walkthrough block between <!-- walkthrough --> markers"
    return found[0]


def test_the_readme_shows_what_the_walkthrough_answers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "walkthrough.py")],
        cwd=tmp_path,
        env=child_environment(),
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    printed, shown = masked(done.stdout), masked(readme_block())
    assert len([line for line in printed if line.startswith(">>> ")]) == 5
    assert all('"success": true' in line for line in printed if not line.startswith(">>> "))
    assert shown == printed, "regenerate the README's block with: .venv/bin/python scripts/walkthrough.py"

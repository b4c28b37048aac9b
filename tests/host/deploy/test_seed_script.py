"""scripts/seed.py, run for real: it loads the PRD profile once (a second run changes nothing) with
the CLI code of this checkout.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.host.deploy.files import REPO, SEED_SCRIPT, clean_env


def _run_seed(data_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SEED_SCRIPT), "--user-id", "7", "--data-dir", str(data_dir)],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_seed_script_loads_once_and_the_second_run_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = _run_seed(data, tmp_path)
    assert first.returncode == 0, first.stderr
    first_text = " ".join(first.stderr.split())
    assert "seed profile for user 7: loaded (profile version" in first_text, first_text
    second = _run_seed(data, tmp_path)
    assert second.returncode == 0, second.stderr
    second_text = " ".join(second.stderr.split())
    assert "seed profile for user 7: already loaded, nothing changed" in second_text, second_text
    version = re.search(r"profile version (\d+)", first_text)
    assert version and f"(profile version {version.group(1)})" in second_text


@pytest.mark.slow
def test_seed_script_runs_the_cli_code_of_this_checkout(tmp_path: Path) -> None:
    probe = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='probe'); print(sys.modules['host.cli.main'].__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(SEED_SCRIPT)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == REPO / "host" / "cli" / "main.py"
    bad = subprocess.run(
        [sys.executable, str(SEED_SCRIPT), "--user-id", "0", "--data-dir", str(tmp_path)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "--user-id" in bad.stderr

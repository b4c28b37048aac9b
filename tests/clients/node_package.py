"""Install the pinned npm package in tests/clients/typescript once, for every test and worker.

The tests run on two xdist workers, and two ``npm ci`` in one directory at once would break each
other: an exclusive file lock serialises them, and an install already at the pinned version is
kept (a fresh clone, as in CI, installs once: about 10 s).
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent / "typescript"
SDK = "@modelcontextprotocol/sdk"
INSTALL_TIMEOUT = 300.0

NO_NODE = "node and npm are needed to run the official TypeScript MCP SDK client (install Node.js >= 18)"
skip_without_node = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason=NO_NODE)


def pinned(name: str = SDK) -> str:
    return json.loads((PACKAGE / "package.json").read_text())["dependencies"][name]


def installed(name: str = SDK) -> str | None:
    manifest = PACKAGE / "node_modules" / name / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (FileNotFoundError, ValueError, KeyError):
        return None


def ensure_installed() -> None:
    """``npm ci`` from the committed lock file unless the pinned SDK is already there."""
    with open(PACKAGE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed() == pinned():
            return
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PACKAGE,
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"npm ci failed in {PACKAGE}:\n{done.stdout}\n{done.stderr}"
        assert installed() == pinned(), f"npm ci installed {SDK} {installed()}, package.json pins {pinned()}"

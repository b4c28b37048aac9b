"""Install a pinned npm package under tests/clients once, for every test and worker.

The tests run on two xdist workers, and two ``npm ci`` in one directory at once would break each
other: an exclusive file lock serialises them, and an install already at the pinned version is
kept (a fresh clone, as in CI, installs once: the TypeScript SDK about 10 s, the Inspector 20 s).
Install scripts are not run: neither package needs one to be used from here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

INSTALL_TIMEOUT = 300.0

NO_NODE = "node and npm are needed to run the official TypeScript MCP SDK client (install Node.js >= 18)"
skip_without_node = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason=NO_NODE)


@dataclass(frozen=True)
class NodePackage:
    directory: Path  # holds package.json (the exact pin) and package-lock.json
    name: str  # the dependency whose version tells whether the install is current

    def pinned(self) -> str:
        return json.loads((self.directory / "package.json").read_text())["dependencies"][self.name]

    def installed(self) -> str | None:
        manifest = self.directory / "node_modules" / self.name / "package.json"
        try:
            return json.loads(manifest.read_text())["version"]
        except (FileNotFoundError, ValueError, KeyError):
            return None

    def ensure_installed(self) -> None:
        """``npm ci`` from the committed lock file unless the pinned version is already there."""
        with FileLock(self.directory / ".install.lock", thread_local=False):
            if self.installed() == self.pinned():
                return
            done = subprocess.run(
                ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=self.directory,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode == 0, f"npm ci failed in {self.directory}:\n{done.stdout}\n{done.stderr}"
            assert self.installed() == self.pinned(), (
                f"npm ci installed {self.name} {self.installed()}, not {self.pinned()}"
            )


HERE = Path(__file__).parent
TYPESCRIPT_SDK = NodePackage(HERE / "typescript", "@modelcontextprotocol/sdk")
INSPECTOR = NodePackage(HERE / "inspector", "@modelcontextprotocol/inspector")

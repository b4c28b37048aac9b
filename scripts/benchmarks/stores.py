"""Store templates built once per run, handed out as fresh copies.

Several sections need the same stores (50 realistic users: scale, bootstrap, start-up; 1,000 small
users: bootstrap, start-up). Building the 50-user store of the full run takes a minute; copying the
closed data directory takes a moment, and every section then starts from the same bytes whatever
the sections before it wrote."""

from __future__ import annotations

import shutil
from pathlib import Path

from .loader import build_small_store, build_store
from .plan import Plan


class StoreCache:
    def __init__(self, work: Path, plan: Plan) -> None:
        self.root = work / "templates"
        self.plan = plan
        self.build_seconds: dict[str, float] = {}
        self.copies = 0

    async def realistic(self, users: int, into: Path) -> Path:
        """A copy at ``into`` of users 1..``users`` of the plan's realistic size plus the writer user."""
        key = f"realistic-{users}"
        template = self.root / key
        if key not in self.build_seconds:
            self.build_seconds[key] = await build_store(template, users, self.plan.user, writer_playlists=1)
            print(
                f"  ({users} realistic {'user' if users == 1 else 'users'} built in {self.build_seconds[key]:.1f} s)",
                flush=True,
            )
        return self._copy(template, into)

    async def small(self, users: int, into: Path) -> Path:
        """A copy at ``into`` of users 1..``users``, each small (profile, 2 events, 1 playlist)."""
        key = f"small-{users}"
        template = self.root / key
        if key not in self.build_seconds:
            self.build_seconds[key] = await build_small_store(template, users)
            print(f"  ({users:,} small users built in {self.build_seconds[key]:.1f} s)", flush=True)
        return self._copy(template, into)

    def _copy(self, template: Path, into: Path) -> Path:
        # The template is closed (its service stopped) when copied, so the copy is consistent.
        if into.exists():
            shutil.rmtree(into)
        shutil.copytree(template, into)
        self.copies += 1
        return into


def store_mib(data_dir: Path) -> float:
    """Bytes on disk of a data directory, in MiB."""
    return sum(f.stat().st_size for f in data_dir.rglob("*") if f.is_file()) / 2**20

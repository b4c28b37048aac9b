"""Running an import inside a test and reading what it stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import Caller


async def run_import(call: Caller, user_id: int, path: Path, **options: Any) -> dict[str, Any]:
    """The report as ``--json`` prints it, through the entry point the CLI and the page call."""
    outcome = await call.service.history.import_history(user_id, path, **options)
    return outcome.report.as_json()


def _entry(p: dict[str, Any]) -> tuple[Any, ...]:
    return (p["artist"], p.get("track"), p.get("album"), p.get("track_id"), p["played_at"].isoformat())


async def stored(call: Caller, user_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every stored play and skip of the user, in a fixed order."""
    buckets = await call.service.database.plays.find({"user_id": user_id})
    plays = sorted(_entry(p) for b in buckets for p in b["plays"])
    skips = sorted(_entry(p) for b in buckets for p in b.get("skips") or ())
    return plays, skips


async def raw_buckets(call: Caller, user_id: int) -> list[dict[str, Any]]:
    return await call.service.database.plays.find({"user_id": user_id}, sort=[("_id", 1)])

"""What the aging tests share: a fixed now, memories added at an age, the rule's boundary cases,
and a snapshot of what aging may write."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

from service.storage.database import Database
from service.timeutil import format_iso, utc_now
from tests.support import Caller

ALICE, BOB = 1, 2
NOW = utc_now() - timedelta(hours=1)  # the fixed "now" of every run here: every timestamp is in the past
DAY, MS = timedelta(days=1), timedelta(milliseconds=1)
_numbers = itertools.count(1)


async def add(call: Caller, importance: int, age: timedelta, user_id: int = ALICE, **fields: Any) -> str:
    n = next(_numbers)
    arguments = {
        "user_id": user_id,
        "type": "insight",
        "entities": [f"Artist {n}"],
        "summary": f"Listener note {n} about a band. It goes on with detail.",
        "importance": importance,
        "timestamp": format_iso(NOW - age),
        "skip_dedup": True,
        **fields,
    }
    return (await call.ok("memory_add", arguments))["memory_id"]


async def boundary_cases(call: Caller, user_id: int = ALICE) -> dict[str, str]:
    """One memory per rule and boundary, named by what aging at NOW must do to it."""
    cases = {
        "keep 10, 3 years": (10, 1000 * DAY),
        "keep 8, 400 days": (8, 400 * DAY),
        "gist 7, 30 days + 1 ms": (7, 30 * DAY + MS),
        "keep 7, exactly 30 days": (7, 30 * DAY),
        "gist 5, 31 days": (5, 31 * DAY),
        "keep 5, exactly 30 days": (5, 30 * DAY),
        "keep 6, 1 day": (6, DAY),
        "drop 4, 60 days + 1 ms": (4, 60 * DAY + MS),
        "keep 4, exactly 60 days": (4, 60 * DAY),
        "keep 4, 45 days": (4, 45 * DAY),
        "drop 1, 61 days": (1, 61 * DAY),
    }
    return {name: await add(call, importance, age, user_id) for name, (importance, age) in cases.items()}


async def snapshot(db: Database) -> dict[str, list[dict[str, Any]]]:
    names = ("memories", "memory_aging", "audit_log", "user_stats")
    return {name: sorted(await getattr(db, name).find({}), key=lambda d: str(d["_id"])) for name in names}


async def memories_by_id(call: Caller) -> dict[str, dict[str, Any]]:
    rows = (await call.ok("memory_query", {"user_id": ALICE, "limit": 50}))["memories"]
    return {row["memory_id"]: row for row in rows}

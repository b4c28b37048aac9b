"""``verify``: every check a store can be put through without changing it.

SQLite's integrity check of the file (done by the caller, which holds the file), every record's
checksum (done as the store loads: its damage list), and the rederive comparisons of every derived
view against its records, as a dry run.
"""

from __future__ import annotations

from typing import Any

from service.facade import MemoryService


async def verify(service: MemoryService) -> dict[str, Any]:
    """The findings on an open (read-only) store: damaged records and rederive differences;
    ``clean`` when there are neither."""
    engine = service.database.embedded
    damage = [d.as_json() for d in engine.damage] if engine is not None else []
    report = await service.rederiver.rederive(None, dry_run=True)
    differences = [{"user_id": row["user_id"], **found} for row in report["users"] for found in row["differences"]]
    return {
        "damaged": damage,
        "quarantined_users": sorted(engine.quarantined) if engine is not None else [],
        "differences": differences,
        "users_checked": len(report["users"]),
        "clean": not damage and not differences,
    }

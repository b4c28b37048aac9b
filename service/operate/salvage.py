"""``salvage``: a quarantined user served again, with exactly what was lost reported.

Everything happens in one unit of work, so one SQLite transaction: the damaged records dropped
(or the user's records taken from a backup), the history a damaged bucket cut off dropped, every
derived view rebuilt. A crash at any point leaves the store as it was before or after, never a mix.
"""

from __future__ import annotations

from typing import Any

from service.errors import InvalidArgument
from service.facade import MemoryService
from service.operate.losses import describe, drop_unreachable_history
from service.storage.embedded.records import Damage


async def salvage(
    service: MemoryService, user_id: int, backup: list[tuple[str, dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """The report: the damaged records dropped, what was lost in the user's terms, and the
    rederive report of the views rebuilt. ``backup``: the user's records from a backup instead."""
    engine = service.database.embedded
    if engine is None:
        raise InvalidArgument("salvage works on the embedded store; on MongoDB restore the user from mongodump")
    if user_id not in engine.quarantined and backup is None:
        return {"user_id": user_id, "damaged": [], "lost": [], "rederive": None, "salvaged": False}
    async with service.database.unit():
        dropped: list[Damage]
        if backup is None:
            dropped = engine.release(user_id)
            losses = [{"record": d.record, "what": describe(d)} for d in dropped if d.collection != "playlist_history"]
            losses += [loss.as_json() for loss in await drop_unreachable_history(service.database, user_id, dropped)]
        else:
            dropped = engine.replace_user(user_id, backup)
            losses = [{"record": d.record, "what": describe(d) + " (replaced from the backup)"} for d in dropped]
        await service.search.user_reloaded(user_id)
        report = await service.rederiver.rederive(user_id, dry_run=False)
    return {
        "user_id": user_id,
        "damaged": [d.as_json() for d in dropped],
        "lost": losses,
        "rederive": report,
        "salvaged": True,
    }

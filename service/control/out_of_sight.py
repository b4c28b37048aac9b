"""What ``memory_inspect`` shows of the things kept out of sight (``service.text.sensitive``):
they stay out of the context block and of search unless named, but the person can always see what
is stored about them. The newest few of each kind, with exact counts; on the first page only.
"""

from __future__ import annotations

from typing import Any

from service.memories.views import query_row
from service.paging import fitting
from service.pointers import pointer
from service.storage.database import Database
from service.text.sensitive import event_names, sensitive_paths
from service.timeutil import as_utc, utc_now

LISTED = 20  # per kind, and at most ``ROOM`` bytes of them: counts say the rest
ROOM = 3_000
SAID_CHARS = 200


def _cut(said: Any) -> str | None:
    if not isinstance(said, str):
        return None
    return said if len(said) <= SAID_CHARS else said[: SAID_CHARS - 1] + "…"


def _newest(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (as_utc(r[field]).timestamp(), str(r["_id"])), reverse=True)


async def out_of_sight(db: Database, user_id: int, profile: dict[str, Any]) -> dict[str, Any]:
    """``{memories, memory_count, events, event_count, fields, field_count}``: sensitive memories as
    ``memory_query`` rows, sensitive preference events, and the pointers of ``sensitive_fields``."""
    now = utc_now()
    memories = _newest(await db.memories.find({"user_id": user_id, "sensitive": True}), "timestamp")
    events = _newest(
        await db.preference_events.find(
            {"user_id": user_id, "payload.sensitive": True}, {"type": 1, "payload": 1, "timestamp": 1, "source": 1}
        ),
        "timestamp",
    )
    fields = [pointer(p) for p in sensitive_paths(profile)]
    memory_rows = [query_row(m, now, 1.0) for m in memories[:LISTED]]
    event_rows = [
        {
            "event_id": str(e["_id"]),
            "type": e["type"],
            "subjects": event_names(e["payload"])[:LISTED],
            "said": _cut(e["payload"].get("raw_text")),
            "source": e.get("source"),
            "timestamp": as_utc(e["timestamp"]),
        }
        for e in events[:LISTED]
    ]
    return {
        "memories": memory_rows[: fitting(memory_rows, ROOM)],
        "memory_count": len(memories),
        "events": event_rows[: fitting(event_rows, ROOM)],
        "event_count": len(events),
        "fields": fields[:LISTED],
        "field_count": len(fields),
    }

"""The answer of a playlist diff: exact track changes, metadata changes and the events between.

Lists are bounded so one answer fits a message the stock MCP client accepts whatever the playlist
(10,000 tracks replaced would be ~1.4 MB of entries): each list keeps its first entries within its
share of the budget, the counts stay exact, and ``truncated`` says whether anything was left out.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from service.ledger.edits import diff_report
from service.ledger.history import events_between
from service.ledger.records import Bucket, LedgerEvent
from service.ledger.state import META_FIELDS, PlaylistState

# A change's own fields that say what it did, without its track lists.
_DETAIL = {"UNDO": ("undoes", "undoes_type", "redo"), "RESYNC": ("reason",), "FORK": ("forked_from",)}


def event_summary(event: LedgerEvent) -> dict[str, Any]:
    payload = event["payload"] or {}
    detail = {k: payload[k] for k in _DETAIL.get(event["type"], ()) if k in payload}
    if event["type"] in ("ADD_TRACKS", "REMOVE_TRACKS", "REORDER"):
        detail["track_count"] = len(payload.get("track_ids", ()))
    elif event["type"] in ("RESYNC", "UNDO"):
        detail.update(added_count=len(payload["added"]), removed_count=len(payload["removed"]))
    elif event["type"] == "UPDATE_META":
        detail["fields"] = [k for k in META_FIELDS if k in payload]
    return {
        "event_id": event["event_id"],
        "seq": event["seq"],
        "type": event["type"],
        "timestamp": event["timestamp"],
        "detail": detail,
    }


def _within(items: list[Any], budget: int) -> list[Any]:
    kept, used = [], 0
    for item in items:
        used += len(json.dumps(item, default=str, ensure_ascii=False)) + 1
        if used > budget:
            break
        kept.append(item)
    return kept


def diff_answer(
    playlist_id: str,
    from_time: datetime,
    to_time: datetime,
    before: PlaylistState,
    after: PlaylistState,
    existed: bool,
    buckets: list[Bucket],
    budget_bytes: int,
) -> dict[str, Any]:
    report = diff_report(before.track_ids, after.track_ids)
    meta_changes = [
        {"field": k, "from": before.meta.get(k), "to": after.meta.get(k)}
        for k in META_FIELDS
        if before.meta.get(k) != after.meta.get(k)
    ]
    events = [event_summary(e) for e in events_between(buckets, from_time if existed else None, to_time)]
    share = max(1, budget_bytes // 4)
    counts = {
        "added": len(report["added"]),
        "removed": len(report["removed"]),
        "moved": len(report["moved"]),
        "events": len(events),
    }
    answer: dict[str, Any] = {
        "playlist_id": playlist_id,
        "from_time": from_time,
        "to_time": to_time,
        "existed_at_from_time": existed,
        "added": _within(report["added"], share),
        "removed": _within(report["removed"], share),
        "moved": _within(report["moved"], share),
        "meta_changes": meta_changes,
        # The newest events are the ones a person asks about first: kept from the end.
        "events": _within(events[::-1], share)[::-1],
        "counts": counts,
    }
    answer["truncated"] = any(len(answer[k]) < counts[k] for k in ("added", "removed", "moved", "events"))
    return answer

"""The answer of a playlist diff: exact track changes, metadata changes and the events between.

Lists are paged so one answer stays small whatever the playlist (10,000 tracks replaced would be
~1.4 MB of entries): each list shows its next entries within its share of the page, the counts stay
exact, ``truncated`` says the answer is not the whole diff, and ``next_cursor`` goes on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.errors import InvalidArgument
from service.ledger.edits import diff_report
from service.ledger.history import events_between
from service.ledger.records import Bucket, LedgerEvent
from service.ledger.state import META_FIELDS, PlaylistState
from service.paging import PAGE_BYTES, encode_cursor, shares

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


def diff_answer(
    playlist_id: str,
    from_time: datetime,
    to_time: datetime,
    before: PlaylistState,
    after: PlaylistState,
    existed: bool,
    buckets: list[Bucket],
    offsets: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One page of the diff: each list goes on from ``offsets`` (none: the first page) within its
    share of ``PAGE_BYTES``; ``next_cursor`` names the next page, with ``to_time`` pinned."""
    report = diff_report(before.track_ids, after.track_ids)
    meta_changes = [
        {"field": k, "from": before.meta.get(k), "to": after.meta.get(k)}
        for k in META_FIELDS
        if before.meta.get(k) != after.meta.get(k)
    ]
    events = [event_summary(e) for e in events_between(buckets, from_time if existed else None, to_time)]
    # The newest events are the ones a person asks about first: paged from the end.
    lists = {"added": report["added"], "removed": report["removed"], "moved": report["moved"], "events": events[::-1]}
    counts = {k: len(v) for k, v in lists.items()}
    at = offsets or dict.fromkeys(lists, 0)
    if any(at[k] > counts[k] for k in lists):
        raise InvalidArgument("cursor is not one this read issued; call again without it", {"field": "cursor"})
    taken = shares(lists, at, PAGE_BYTES)
    answer: dict[str, Any] = {
        "playlist_id": playlist_id,
        "from_time": from_time,
        "to_time": to_time,
        "existed_at_from_time": existed,
        **{k: lists[k][at[k] : at[k] + taken[k]] for k in ("added", "removed", "moved")},
        "meta_changes": meta_changes,
        "events": lists["events"][at["events"] : at["events"] + taken["events"]][::-1],
        "counts": counts,
    }
    after_page = {k: at[k] + taken[k] for k in lists}
    more = any(after_page[k] < counts[k] for k in lists)
    answer["truncated"] = more or any(at[k] for k in lists)
    answer["next_cursor"] = (
        encode_cursor("diff", {**after_page, "from": from_time.isoformat(), "to": to_time.isoformat()})
        if more
        else None
    )
    return answer

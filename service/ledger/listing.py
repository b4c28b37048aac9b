"""The playlist listing: newest-updated first, paged by an opaque cursor over a fixed moment.

The first page fixes ``as_of`` (a server clock reading). Every later page orders playlists as
they stood at ``as_of``: one created afterwards is left out, one changed afterwards keeps the
position it had then. So writes between pages neither skip nor repeat an item, and ties on
``updated_at`` are broken by ``playlist_id``.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from datetime import datetime
from typing import Any

from service.errors import InvalidArgument
from service.ledger.projection import load_bucket
from service.storage import Database
from service.timeutil import as_utc

_FIELDS = {"playlist_id": 1, "name": 1, "created_at": 1, "updated_at": 1, "intent_tags": 1, "track_count": 1,
           "created_ns": 1, "touched_ns": 1, "recent_events": 1, "open_base_seq": 1, "user_id": 1, "seq": 1}


def _encode(as_of_ns: int, last: tuple[int, str]) -> str:
    body = {"t": as_of_ns, "u": last[0], "p": last[1]}
    return base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).decode().rstrip("=")


def _decode(cursor: str) -> tuple[int, tuple[int, str] | None]:
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        as_of = int(body["t"])
        last = (int(body["u"]), str(body["p"])) if "u" in body else None
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise InvalidArgument("cursor is not one this service issued", {"field": "cursor"}) from None
    return as_of, last


async def _updated_at_as_of(db: Database, head: dict[str, Any], as_of_ns: int) -> datetime:
    """When the playlist had last changed, as seen at ``as_of_ns``."""
    latest = None
    for event in head["recent_events"]:
        if event["recorded_ns"] <= as_of_ns:
            latest = event["timestamp"]
    if latest is not None or (head["recent_events"] and head["recent_events"][0]["seq"] == 1):
        return latest or head["created_at"]
    base: int | None = head["open_base_seq"]
    while base is not None:
        bucket = await load_bucket(db, head["user_id"], head["playlist_id"], base)
        if bucket is None:
            break
        earlier = [e["timestamp"] for e in bucket["events"] if e["recorded_ns"] <= as_of_ns]
        if earlier:
            return earlier[-1]
        base = bucket.get("prev_base_seq")
    return head["created_at"]


def _sort_key(updated_at: datetime, playlist_id: str) -> tuple[int, str]:
    return int(as_utc(updated_at).timestamp() * 1000), playlist_id


async def list_playlists(db: Database, user_id: int, limit: int, cursor: str | None) -> dict[str, Any]:
    if cursor is None:
        as_of, last = time.time_ns(), None
    else:
        as_of, last = _decode(cursor)
    heads = await db.playlists.find({"user_id": user_id}, _FIELDS)
    ranked: list[tuple[tuple[int, str], dict[str, Any]]] = []
    for head in heads:
        if head["created_ns"] > as_of:
            continue
        updated = head["updated_at"] if head["touched_ns"] <= as_of else await _updated_at_as_of(db, head, as_of)
        key = _sort_key(updated, head["playlist_id"])
        if last is None or key < last:
            ranked.append((key, head))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    page = ranked[:limit]
    items = [
        {
            "playlist_id": head["playlist_id"],
            "name": head["name"],
            "created_at": head["created_at"],
            "updated_at": head["updated_at"],
            "intent_tags": head["intent_tags"],
            "track_count": head["track_count"],
        }
        for _, head in page
    ]
    next_cursor = _encode(as_of, page[-1][0]) if len(ranked) > limit else None
    return {"items": items, "next_cursor": next_cursor}

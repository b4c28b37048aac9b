"""The playlist listing: newest-updated first, paged by an opaque cursor over a fixed order.

The first page ranks the user's playlists (``updated_at`` descending, ties broken by
``playlist_id``) and, if there is more, stores the rest of that order server-side; the cursor
names it. Later pages walk the stored order, so writes between pages can neither skip nor repeat
an item, whatever the clocks of the writers; each item still shows its current name, tags,
``updated_at`` and ``track_count``. A cursor lives ``CURSOR_TTL`` and is the caller user's only.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import timedelta
from typing import Any

from service.errors import InvalidArgument
from service.ledger.keys import head_id
from service.limits import json_bytes
from service.storage.database import Database
from service.timeutil import as_utc, utc_now

CURSOR_TTL = timedelta(hours=1)
_FIELDS = {"playlist_id": 1, "name": 1, "created_at": 1, "updated_at": 1, "intent_tags": 1, "track_count": 1}


def _encode(cursor_id: str, offset: int) -> str:
    body = json.dumps({"c": cursor_id, "o": offset}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(body).decode().rstrip("=")


def _decode(cursor: str) -> tuple[str, int]:
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        cursor_id, offset = body["c"], body["o"]
        if not (isinstance(cursor_id, str) and isinstance(offset, int) and offset >= 0):
            raise ValueError("cursor shape")
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument("cursor is not one this service issued", {"field": "cursor"}) from None
    return cursor_id, offset


def _item(head: dict[str, Any]) -> dict[str, Any]:
    return {k: head[k] for k in ("playlist_id", "name", "created_at", "updated_at", "intent_tags", "track_count")}


def _fitting(items: list[dict[str, Any]], budget: int) -> int:
    """How many items fit the answer budget (at least one): a page of 200 long-named, many-tagged
    playlists must still fit one SSE message; the cursor carries on where the page stopped."""
    used = 0
    for count, item in enumerate(items):
        used += json_bytes(item)
        if used > budget and count > 0:
            return count
    return len(items)


async def _first_page(db: Database, user_id: int, limit: int, budget: int) -> dict[str, Any]:
    heads = await db.playlists.find({"user_id": user_id}, _FIELDS)
    heads.sort(key=lambda h: (as_utc(h["updated_at"]), h["playlist_id"]), reverse=True)
    limit = _fitting([_item(h) for h in heads[:limit]], budget)
    next_cursor = None
    if len(heads) > limit:
        now = utc_now()
        await db.cursors.delete_many({"user_id": user_id, "expires_at": {"$lt": now}})
        cursor_id = str(uuid.uuid4())
        await db.cursors.insert_one(
            {
                "_id": cursor_id,
                "user_id": user_id,
                "playlist_ids": [h["playlist_id"] for h in heads[limit:]],
                "created_at": now,
                "expires_at": now + CURSOR_TTL,
            }
        )
        next_cursor = _encode(cursor_id, 0)
    return {"items": [_item(h) for h in heads[:limit]], "next_cursor": next_cursor}


async def list_playlists(db: Database, user_id: int, limit: int, cursor: str | None, budget: int) -> dict[str, Any]:
    """A page of at most ``limit`` items and about ``budget`` bytes."""
    if cursor is None:
        return await _first_page(db, user_id, limit, budget)
    cursor_id, offset = _decode(cursor)
    stored = await db.cursors.find_one({"_id": cursor_id, "user_id": user_id})
    if stored is None or stored["user_id"] != user_id or as_utc(stored["expires_at"]) < utc_now():
        raise InvalidArgument("cursor expired or unknown; list again from the first page", {"field": "cursor"})
    window = stored["playlist_ids"][offset : offset + limit]
    items: list[dict[str, Any]] = []
    consumed, used = 0, 0
    for playlist_id in window:
        head = await db.playlists.find_one({"_id": head_id(user_id, playlist_id), "user_id": user_id}, _FIELDS)
        if head is not None:  # deleted since the first page
            item = _item(head)
            used += json_bytes(item)
            if used > budget and items:
                break
            items.append(item)
        consumed += 1
    more = offset + consumed < len(stored["playlist_ids"])
    return {"items": items, "next_cursor": _encode(cursor_id, offset + consumed) if more else None}

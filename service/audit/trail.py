"""The audit log: entries from the embedded write path, a deleted user's tombstone, and the
operator's query (``ops.audit``)."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from datetime import datetime
from typing import Any

from service.audit.entries import TOMBSTONE, entry_from_change, tombstone
from service.audit.origin import source_of
from service.errors import InvalidArgument
from service.paging import PAGE_BYTES, fitting
from service.storage.collection import DuplicateDocument, OnChange, TrackedCollection
from service.timeutil import as_utc, format_iso, parse_iso

ENTRY_FIELDS = (
    "time",
    "collection",
    "operation",
    "user_id",
    "playlist_id",
    "document_key",
    "tool",
    "request_id",
    "principal",
    "via",
)


def write_path_recorder(audit_log: TrackedCollection) -> OnChange:
    """The embedded engine's stand-in for the change-stream watcher: the entry is written in the
    same unit of work as the change, so the journal commits both or neither."""

    async def record(change: dict[str, Any]) -> None:
        entry = entry_from_change(change, via="write_path")
        if entry is None:
            return
        with contextlib.suppress(DuplicateDocument):  # the same request wrote one document twice: one entry
            await audit_log.insert_one(entry)

    return record


async def replace_with_tombstone(audit_log: TrackedCollection, user_id: int) -> None:
    """After a user's data is deleted, their trail is one entry saying so, by whom and when.
    (``user_id`` stays a top-level equality: only that user's entries are visited.)"""
    await audit_log.delete_many({"user_id": user_id, "operation": {"$ne": TOMBSTONE}})
    await audit_log.insert_one(tombstone(user_id))


def _encode_cursor(entry: dict[str, Any]) -> str:
    raw = json.dumps([format_iso(entry["time"]), entry["_id"]]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        moment, entry_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return parse_iso(moment), str(entry_id)
    except (ValueError, TypeError, binascii.Error):
        raise InvalidArgument("cursor is not one this tool issued", {"field": "cursor"}) from None


def entries_filter(
    user_id: int | None, playlist_id: str | None, since: datetime | None, until: datetime | None, cursor: str | None
) -> dict[str, Any]:
    """One flat filter with ``user_id`` as a top-level equality when a user is given: MongoDB then
    uses the (user_id, time, _id) index (and a sharded cluster routes to one shard), and the
    embedded engine visits only that user's entries instead of the whole log."""
    query: dict[str, Any] = {}
    if user_id is not None:
        query["user_id"] = user_id
    if playlist_id is not None:
        query["playlist_id"] = playlist_id
    window: dict[str, Any] = {}
    if since is not None:
        window["$gte"] = since
    if until is not None:
        window["$lt"] = until
    if window:
        query["time"] = window
    if cursor is not None:
        moment, last_id = _decode_cursor(cursor)
        query["$or"] = [{"time": {"$lt": moment}}, {"time": moment, "_id": {"$lt": last_id}}]
    return query


async def list_entries(
    audit_log: TrackedCollection,
    user_id: int | None,
    playlist_id: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    cursor: str | None,
) -> dict[str, Any]:
    """Newest first, a page within ``PAGE_BYTES``; the cursor continues strictly after the last
    entry shown (time, then id), so entries written between pages neither shift nor repeat the
    pages already read."""
    found = await audit_log.find(
        entries_filter(user_id, playlist_id, since, until, cursor), sort=[("time", -1), ("_id", -1)], limit=limit + 1
    )
    page = found[:limit]
    entries = [{"entry_id": e["_id"], **{k: e.get(k) for k in ENTRY_FIELDS}} for e in page]
    for entry in entries:
        entry["time"] = as_utc(entry["time"])
        entry["source"] = source_of(entry["principal"], entry["tool"])
    # At most ``limit`` entries, and no more than fit one small answer: the cursor goes on after
    # the last one shown either way.
    shown = fitting(entries, PAGE_BYTES) if entries else 0
    more = len(found) > limit or shown < len(entries)
    return {"entries": entries[:shown], "next_cursor": _encode_cursor(page[shown - 1]) if more else None}

"""Rebuild audit entries from the canonical records themselves, for when the change stream could
not resume (its history is gone) and the changes since the watcher's last position were never seen.

Every record carries the ``written_by`` stamp of the call that wrote it, so the entry the live
change would have produced can be rebuilt with the same ``_id`` (``entry_id`` of collection,
document key and request id): the backfill and the stream overlap harmlessly.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

from service.audit.entries import TOMBSTONE, make_entry
from service.storage.collection import DuplicateDocument, TrackedCollection
from service.storage.database import Database
from service.timeutil import as_utc

log = logging.getLogger("taste_memory.audit")

PAGE = 500
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_PROFILE_FIELDS = {"history.version": 1, "history.applied_at": 1, "history.written_by": 1}
_EVENT_FIELDS = {"user_id": 1, "recorded_at": 1, "written_by": 1, "imported_by": 1}
_BUCKET_FIELDS = {
    "user_id": 1,
    "playlist_id": 1,
    "base_seq": 1,
    "events.seq": 1,
    "events.recorded_at": 1,
    "events.written_by": 1,
    "created.created_at": 1,
    "created.recorded_ns": 1,
    "created.written_by": 1,
}


def _ns(moment: datetime) -> int:
    return (as_utc(moment) - _EPOCH) // timedelta(microseconds=1) * 1000


def _from_ns(value: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=value // 1_000_000)


def _entry(
    collection: str,
    operation: str,
    key: Any,
    user_id: int,
    playlist_id: str | None,
    stamp: dict[str, Any] | None,
    moment: datetime,
    record: str,
) -> dict[str, Any]:
    # Unstamped records (written before auth existed) have no request: the record's own
    # identity keeps their entry unique and a repeated backfill idempotent.
    return make_entry(
        collection,
        operation,
        key,
        user_id,
        playlist_id,
        stamp or {},
        as_utc(moment),
        "backfill",
        f"backfill\x00{collection}\x00{key!r}\x00{record}",
    )


async def _pages(
    collection: TrackedCollection, query: dict[str, Any], fields: dict[str, int]
) -> AsyncIterator[dict[str, Any]]:
    """Every matching document, a page at a time in ``_id`` order (bounded memory)."""
    last: Any = None
    while True:
        page_query = query if last is None else {"$and": [query, {"_id": {"$gt": last}}]}
        page = await collection.find(page_query, fields, sort=[("_id", 1)], limit=PAGE)
        for document in page:
            yield document
        if len(page) < PAGE:
            return
        last = page[-1]["_id"]


async def _records(db: Database, since: datetime | None, user_id: int | None) -> AsyncIterator[dict[str, Any]]:
    user = {} if user_id is None else {"user_id": user_id}

    def after(moment: datetime | None) -> bool:
        return moment is not None and (since is None or as_utc(moment) >= since)

    query = {**user, **({} if since is None else {"history.applied_at": {"$gte": since}})}
    async for profile in _pages(db.profiles, query, _PROFILE_FIELDS):
        for patch in profile.get("history") or []:
            if after(patch.get("applied_at")):
                operation = "insert" if patch.get("version") == 1 else "update"
                yield _entry(
                    "profiles",
                    operation,
                    profile["_id"],
                    profile["_id"],
                    None,
                    patch.get("written_by"),
                    patch["applied_at"],
                    f"v{patch.get('version')}",
                )

    query = {**user, **({} if since is None else {"recorded_at": {"$gte": since}})}
    async for event in _pages(db.preference_events, query, _EVENT_FIELDS):
        yield _entry(
            "preference_events",
            "insert",
            event["_id"],
            event["user_id"],
            None,
            event.get("imported_by") or event.get("written_by"),
            event["recorded_at"],
            "event",
        )

    # A bucket-0 creation is filtered and dated by its server-side ``recorded_ns``: ``created_at``
    # is the client's claim and may lie far in the past.
    if since is None:
        query = dict(user)
    else:
        query = {
            **user,
            "$or": [{"events.recorded_at": {"$gte": since}}, {"created.recorded_ns": {"$gte": _ns(since)}}],
        }
    async for bucket in _pages(db.history, query, _BUCKET_FIELDS):
        uid, pid, key = bucket["user_id"], bucket["playlist_id"], bucket["_id"]
        created = bucket.get("created")
        if created:
            moment = _from_ns(created["recorded_ns"]) if created.get("recorded_ns") else created.get("created_at")
            if after(moment):
                yield _entry("playlist_history", "insert", key, uid, pid, created.get("written_by"), moment, "created")
        for event in bucket.get("events") or []:
            if after(event.get("recorded_at")):
                operation = "insert" if event.get("seq") == bucket.get("base_seq") else "update"
                yield _entry(
                    "playlist_history",
                    operation,
                    key,
                    uid,
                    pid,
                    event.get("written_by"),
                    event["recorded_at"],
                    f"seq{event.get('seq')}",
                )


async def _insert_missing(audit_log: TrackedCollection, batch: list[dict[str, Any]]) -> int:
    known = {e["_id"] for e in await audit_log.find({"_id": {"$in": [e["_id"] for e in batch]}}, {"_id": 1})}
    written = 0
    for entry in batch:
        if entry["_id"] in known:
            continue
        known.add(entry["_id"])
        try:
            await audit_log.insert_one(entry)
            written += 1
        except DuplicateDocument:  # the live stream got there first
            pass
    return written


async def backfill(db: Database, since: datetime | None, user_id: int | None = None) -> int:
    """Write the entries of every canonical record written at or after ``since`` (None: all), of
    one user or of everyone; return how many entries were new."""
    since = None if since is None else as_utc(since)
    written, batch = 0, []
    async for entry in _records(db, since, user_id):
        batch.append(entry)
        if len(batch) >= PAGE:
            written += await _insert_missing(db.audit_log, batch)
            batch = []
    if batch:
        written += await _insert_missing(db.audit_log, batch)
    return written


async def reapply_tombstones(db: Database, since: datetime | None) -> set[int]:
    """Purge again the trail of every user deleted at or after ``since``; return those users.

    A watcher that lagged behind a deletion may have written that user's entries after the
    deletion purged them; normally the tombstone's own change event purges them again, but when
    the stream's history is lost that event is never seen."""
    query: dict[str, Any] = {"operation": TOMBSTONE}
    if since is not None:
        query["time"] = {"$gte": since}
    users = {t["user_id"] for t in await db.audit_log.find(query, {"user_id": 1}) if t.get("user_id") is not None}
    for user in sorted(users):
        await db.audit_log.delete_many({"user_id": user, "operation": {"$ne": TOMBSTONE}})
    return users


async def recover(db: Database, since: datetime | None) -> int:
    """What the watcher runs when it restarts without a usable position: re-purge the users
    deleted in the gap, then backfill everything since ``since`` (and, for a user deleted in the
    gap who has data again, all of that data: its entries were purged with the stale ones)."""
    purged = await reapply_tombstones(db, since)
    written = await backfill(db, since)
    if since is not None:
        for user in sorted(purged):
            written += await backfill(db, None, user_id=user)
    return written

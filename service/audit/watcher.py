"""The audit log on real MongoDB: a change stream on the database, one entry per audited change.

The watcher follows the writes to the canonical collections (and the tombstones in ``audit_log``)
in the order the server applied them, writes the entry of each change (``entry_from_change``, a
deterministic ``_id``, so a change seen twice is stored once) and persists its position (resume
token and time of the last change) in ``audit_state``. After a restart it resumes from there;
when that position can no longer be resumed (the oplog rolled past it, the stream was
invalidated) it opens a fresh stream and rebuilds the entries of the gap from the records' own
``written_by`` stamps (``backfill.recover``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime, timedelta
from typing import Any, Protocol

from bson import Timestamp
from pymongo.errors import OperationFailure, PyMongoError

from service.audit.backfill import recover
from service.audit.entries import AUDITED, AUDITED_OPERATIONS, TOMBSTONE, entry_from_change
from service.errors import StorageUnavailable
from service.storage.collection import DuplicateDocument
from service.storage.database import Database
from service.timeutil import as_utc, format_iso, utc_now

log = logging.getLogger("taste_memory.audit")

STATE_ID = "change_stream"
# The stored position cannot be resumed: start a fresh stream and backfill the gap.
POSITION_LOST = {260: "InvalidResumeToken", 280: "ChangeStreamFatalError", 286: "ChangeStreamHistoryLost"}
# Record times come from the service's clock, change times from the server's: backfill a little
# earlier than the last change seen (the overlap costs only duplicate-id lookups).
CLOCK_SKEW_MARGIN = timedelta(minutes=5)


class ChangeStream(Protocol):
    """What the watcher uses of motor's ``AsyncIOMotorChangeStream``."""

    resume_token: dict[str, Any] | None
    alive: bool

    async def try_next(self) -> dict[str, Any] | None: ...


# (pipeline, resume_after) -> an async context manager yielding the stream, like ``db.watch(...)``.
StreamOpener = Callable[[list[dict[str, Any]], dict[str, Any] | None], AbstractAsyncContextManager[ChangeStream]]


def pipeline() -> list[dict[str, Any]]:
    """Audited writes, tombstones, and the events that end a stream; not the watcher's own
    ``audit_log`` inserts (that would feed it its own output)."""
    return [
        {
            "$match": {
                "$or": [
                    {"ns.coll": {"$in": list(AUDITED)}, "operationType": {"$in": list(AUDITED_OPERATIONS)}},
                    {"ns.coll": "audit_log", "operationType": "insert", "fullDocument.operation": TOMBSTONE},
                    {"operationType": "invalidate"},
                ]
            }
        }
    ]


def motor_opener(db: Database) -> StreamOpener:
    def open_stream(stages: list[dict[str, Any]], resume_after: dict[str, Any] | None) -> Any:
        # updateLookup: an update's event carries the document, so its entry names the owner of a
        # record keyed without it (a preference event's supersession mark).
        return db.raw.watch(stages, resume_after=resume_after, max_await_time_ms=1000, full_document="updateLookup")

    return open_stream


def change_time(change: dict[str, Any]) -> datetime | None:
    """``wallTime`` (MongoDB ≥ 6), else the ``clusterTime`` (seconds)."""
    wall = change.get("wallTime")
    if isinstance(wall, datetime):
        return as_utc(wall)
    cluster = change.get("clusterTime")
    return cluster.as_datetime() if isinstance(cluster, Timestamp) else None


class _Gap:
    def __init__(self, since: datetime | None) -> None:
        self.since = since


class AuditWatcher:
    def __init__(
        self,
        db: Database,
        open_stream: StreamOpener | None = None,
        *,
        clock: Callable[[], datetime] = utc_now,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        save_every: int = 100,
        idle_save_seconds: float = 60.0,
    ) -> None:
        self._db = db
        self._open = open_stream or motor_opener(db)
        self._clock = clock
        self._backoff = (backoff_initial, backoff_max)
        self._save_every = save_every
        self._idle_save_seconds = idle_save_seconds
        self._token: dict[str, Any] | None = None
        self._saved_token: dict[str, Any] | None = None
        self._last_time: datetime | None = None
        self._gap: _Gap | None = None  # set while a backfill is owed
        self._unsaved = 0
        self.stats = {"changes": 0, "entries": 0, "purges": 0, "backfilled": 0, "errors": 0}

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the stream until ``stop`` is set (or the task is cancelled); never raises otherwise:
        on an error it logs, waits (bounded backoff) and starts again."""
        delay, loaded = self._backoff[0], False
        while not stop.is_set():
            try:
                if not loaded:
                    await self._load_position()
                    loaded = True
                if await self._follow(stop):
                    delay = self._backoff[0]
                    continue
            except OperationFailure as exc:
                if exc.code in POSITION_LOST and self._gap is None and self._token is not None:
                    self._lose_position(
                        f"its stored position can no longer be resumed ({POSITION_LOST[exc.code]}, code {exc.code})"
                    )
                    continue
                self._failed(exc, delay)
            except (PyMongoError, StorageUnavailable) as exc:
                self._failed(exc, delay)
            except Exception as exc:  # a bug must not end the audit trail for good
                self._failed(exc, delay, unexpected=True)
            if stop.is_set():
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
            delay = min(delay * 2, self._backoff[1])

    def _failed(self, exc: BaseException, delay: float, unexpected: bool = False) -> None:
        self.stats["errors"] += 1
        if unexpected:
            log.exception("audit change stream watcher failed; retrying in %.1f s", delay)
        else:
            log.warning("audit change stream interrupted (%s: %s); retrying in %.1f s", type(exc).__name__, exc, delay)

    async def _load_position(self) -> None:
        state = await self._db.audit_state.find_one({"_id": STATE_ID})
        if state is None:
            log.info("audit change stream: no stored position, backfilling every record once")
            self._gap = _Gap(None)
            return
        self._last_time = as_utc(state["last_time"]) if state.get("last_time") else None
        self._token = self._saved_token = state.get("resume_token")
        if self._token is None:  # a fresh stream's position was known only by time
            self._gap = _Gap(self._last_time)

    def _lose_position(self, reason: str) -> None:
        since = self._last_time - CLOCK_SKEW_MARGIN if self._last_time else None
        log.warning(
            "audit change stream: %s; opening a fresh stream and backfilling the audit log from %s",
            reason,
            format_iso(since) if since else "the beginning",
        )
        self._token = None
        self._gap = _Gap(since)

    async def _follow(self, stop: asyncio.Event) -> bool:
        """One stream session. True when it ended for a reason that needs no pause (stop set, or
        a backfill is now owed)."""
        opened_at = self._clock()
        async with self._open(pipeline(), self._token) as stream:
            try:
                if self._gap is not None:
                    written = await recover(self._db, self._gap.since)
                    self.stats["backfilled"] += written
                    log.info("audit backfill: %d entries written", written)
                    # Everything before the stream opened is now backfilled; the stream has the rest.
                    self._gap, self._token, self._last_time = None, stream.resume_token, opened_at
                    await self._save()
                idle_since = time.monotonic()
                while not stop.is_set():
                    change = await stream.try_next()
                    if change is None:
                        # A drained batch: save what was processed; while idle, the advancing token
                        # now and then (at once if only a time was saved, after a fresh start).
                        moved = stream.resume_token not in (None, self._saved_token)
                        due = self._saved_token is None or time.monotonic() - idle_since >= self._idle_save_seconds
                        if self._unsaved or (moved and due):
                            self._token = stream.resume_token or self._token
                            await self._save()
                            idle_since = time.monotonic()
                        if not stream.alive:
                            return False
                        continue
                    if change.get("operationType") == "invalidate":
                        self._lose_position("the change stream was invalidated")
                        return True
                    await self._apply(change)
                    self._token = change["_id"]
                    self._last_time = change_time(change) or self._last_time
                    self._unsaved += 1
                    if self._unsaved >= self._save_every:
                        await self._save()
                return True
            finally:
                if self._unsaved and self._token is not None:
                    with contextlib.suppress(Exception):
                        await self._save()

    async def _save(self) -> None:
        await self._db.audit_state.replace_one(
            {"_id": STATE_ID, "resume_token": self._token, "last_time": self._last_time, "updated_at": self._clock()}
        )
        self._saved_token, self._unsaved = self._token, 0

    async def _apply(self, change: dict[str, Any]) -> None:
        self.stats["changes"] += 1
        if (change.get("ns") or {}).get("coll") == "audit_log":
            document = change.get("fullDocument") or {}
            user_id = document.get("user_id")
            is_tombstone = change.get("operationType") == "insert" and document.get("operation") == TOMBSTONE
            if is_tombstone and isinstance(user_id, int):
                # Ordered stream: the entries of every change before the deletion are written by
                # now, including any this watcher wrote after the deletion purged the trail.
                await self._db.audit_log.delete_many({"user_id": user_id, "operation": {"$ne": TOMBSTONE}})
                self.stats["purges"] += 1
            return
        try:
            entry = entry_from_change(change, via="change_stream", now=change_time(change))
        except Exception:  # a malformed event: retrying cannot help
            log.exception("audit change stream: skipping an unreadable change event %r", change.get("_id"))
            return
        if entry is None:
            return
        try:
            await self._db.audit_log.insert_one(entry)
            self.stats["entries"] += 1
        except DuplicateDocument:  # seen before (a replay after restart, or the backfill)
            pass


@asynccontextmanager
async def watching_audit(
    db: Database, grace_seconds: float = 5.0, **options: Any
) -> AsyncIterator[AuditWatcher | None]:
    """Run the watcher in the background for the duration of the block (real MongoDB only: on
    the embedded engine the write path records the entries, and this yields None)."""
    if db.engine != "mongodb" and "open_stream" not in options:
        yield None
        return
    watcher = AuditWatcher(db, **options)
    stop = asyncio.Event()
    task = asyncio.create_task(watcher.run(stop), name="audit-change-stream")
    try:
        yield watcher
    finally:
        stop.set()
        done, _ = await asyncio.wait({task}, timeout=grace_seconds)
        if not done:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

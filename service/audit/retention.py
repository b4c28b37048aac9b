"""Audit retention: ``MEMORY_AUDIT_RETENTION_DAYS`` (default 0: keep every entry forever).

Off by default because an audit entry holds no user content (who changed which record, when,
through which tool) and an operator investigating a change should not find its trail silently
gone; a deployment with a retention policy sets the number of days. A deleted user's tombstone
(``operation: "delete_user_data"``) is never expired: it is the proof that the deletion happened,
and the only entry left of that user. MongoDB expires entries with a TTL index
(``ensure_retention``), the embedded engine with an hourly purge (``purge_expired``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pymongo import ASCENDING, IndexModel

from service.background import in_background, repeating
from service.storage.collection import TrackedCollection
from service.timeutil import utc_now

if TYPE_CHECKING:
    from service.storage.database import Database

log = logging.getLogger("taste_memory")

AUDIT_COLLECTION = "audit_log"
RETENTION_INDEX = "retention"
# Tombstones are the only entries whose ``collection`` is null, so "expirable" is "``collection`` is a
# string" on both engines (a partial index cannot say ``$ne``; ``$type`` it can).
EXPIRABLE: dict[str, Any] = {"collection": {"$type": "string"}}  # every entry but a tombstone
PURGE_EVERY_SECONDS = 3600.0
DAY_SECONDS = 86_400


def retention_index(days: int) -> IndexModel | None:
    """The TTL index for a retention of ``days`` (None: keep forever)."""
    if days <= 0:
        return None
    return IndexModel(
        [("time", ASCENDING)],
        name=RETENTION_INDEX,
        expireAfterSeconds=days * DAY_SECONDS,
        partialFilterExpression=EXPIRABLE,
    )


def _matches(info: dict[str, Any], model: IndexModel) -> bool:
    wanted = model.document
    return (
        list(info.get("key", [])) == list(wanted["key"].items())
        and info.get("partialFilterExpression") == wanted["partialFilterExpression"]
    )


async def ensure_retention(raw_db: Any, days: int) -> str:
    """Make the MongoDB audit log's TTL index match the setting (motor database); return what
    was done: "created", "updated", "recreated", "dropped" or "unchanged".

    The index is on ``time`` (``expireAfterSeconds``) with the ``EXPIRABLE`` partial filter, set at
    start-up to match the setting; the server's TTL monitor deletes about once a minute."""
    collection = raw_db[AUDIT_COLLECTION]
    existing = (await collection.index_information()).get(RETENTION_INDEX)
    model = retention_index(days)
    if model is None:
        if existing is None:
            return "unchanged"
        await collection.drop_index(RETENTION_INDEX)
        return "dropped"
    seconds = model.document["expireAfterSeconds"]
    if existing is None:
        await collection.create_indexes([model])
        return "created"
    if not _matches(existing, model):  # not the index this code makes: replace it
        await collection.drop_index(RETENTION_INDEX)
        await collection.create_indexes([model])
        return "recreated"
    if existing.get("expireAfterSeconds") != seconds:
        # Changing a TTL in place keeps the index (no rebuild of a large collection).
        await raw_db.command(
            "collMod", AUDIT_COLLECTION, index={"name": RETENTION_INDEX, "expireAfterSeconds": seconds}
        )
        return "updated"
    return "unchanged"


async def purge_expired(audit_log: TrackedCollection, cutoff: datetime) -> int:
    """Embedded engine: delete every entry older than ``cutoff`` except tombstones, one user at a
    time (each filter has ``user_id`` as a top-level equality, so it visits only that user's
    entries), yielding to the event loop between users; return how many were deleted.

    A purge rather than a TTL index: mongomock enforces one by scanning every document on every
    access of the collection."""
    purged = 0
    for user_id in sorted(await audit_log.count_by_user()):
        purged += await audit_log.delete_many({"user_id": user_id, "time": {"$lt": cutoff}, **EXPIRABLE})
        await asyncio.sleep(0)
    return purged


@contextlib.asynccontextmanager
async def retaining_audit(
    database: Database, days: int, every: float = PURGE_EVERY_SECONDS, now: Callable[[], datetime] = utc_now
) -> AsyncIterator[asyncio.Task[None] | None]:
    """For the server's lifetime: on MongoDB, the TTL index set to match ``days`` at start-up; on
    the embedded engine (``days`` > 0), a purge at start-up and then every ``every`` seconds."""
    if database.engine != "embedded":
        done = await ensure_retention(database.raw, days)
        if done != "unchanged":
            log.info("audit retention index %s (%s)", done, f"{days} days" if days else "keep forever")
        yield None
        return
    if days <= 0:
        yield None
        return

    async def purge_once() -> None:
        async with database.unit():
            purged = await purge_expired(database.audit_log, now() - timedelta(days=days))
        if purged:
            log.info("audit retention: %d entries older than %d days deleted", purged, days)

    async with in_background(repeating(purge_once, every, 0, "audit retention purge"), "audit-retention") as task:
        yield task

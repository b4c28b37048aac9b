"""The backfill and the purge, fed real-format change events through a fake stream (mongomock has
no ``watch``), with the embedded engine as the storage side: a lost stream position backfilled,
entries of a deleted user purged (also when the deletion fell in the gap), and the backfill's own
entries, with the fields and ids of the live ones, from a given moment on.

Tests that use the service take the write path's own entries as the reference and then delete
them, as if the writes had happened while no watcher ran.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from pymongo.errors import OperationFailure

from service.audit.backfill import backfill
from service.audit.entries import TOMBSTONE, entry_from_change
from service.audit.origin import acting_as
from service.audit.watcher import CLOCK_SKEW_MARGIN, STATE_ID
from service.facade import MemoryService
from service.settings import Settings
from service.storage.database import Database
from service.timeutil import format_iso, utc_now
from tests.audit import change_events as ce
from tests.audit.change_events import FakeChangeStream
from tests.audit.watcher_support import (
    HOUR_AGO,
    U7,
    U8,
    entries,
    identity,
    live_changes,
    origin,
    preference_event,
    run,
    save_position,
    service_writes,
    stamp,
)


def _losing_streams(kind: Any, fresh: list[dict[str, Any]]) -> list[FakeChangeStream]:
    """The resumed stream fails the way ``kind`` says; then a fresh stream with ``fresh``."""
    fresh_stream = FakeChangeStream(fresh, resume_token=ce.resume_token(int(utc_now().timestamp()), 999))
    if kind == "invalidate":
        return [FakeChangeStream([ce.invalidate(utc_now())]), fresh_stream]
    message = {
        286: "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
        260: "Invalid resume token: the resume token was not found",
    }[kind]
    return [FakeChangeStream([], open_error=OperationFailure(message, code=kind)), fresh_stream]


@pytest.mark.parametrize("kind", ["invalidate", 286, 260])
async def test_a_lost_position_warns_opens_a_fresh_stream_and_backfills_the_gap(
    store: tuple[Database, Settings], caplog: pytest.LogCaptureFixture, kind: Any
) -> None:
    db, settings = store
    caplog.set_level(logging.INFO, logger="taste_memory.audit")
    seen = [ce.insert("preference_events", preference_event(U8, stamp("t"), HOUR_AGO), HOUR_AGO)]
    await run(db, [FakeChangeStream(seen)])
    before = await entries(db)
    token = seen[-1]["_id"]

    # While no watcher runs: the service writes, and an old record is loaded with no entry.
    service = MemoryService(db, settings)
    await service_writes(service, U7)
    reference = {e["_id"]: e for e in await db.audit_log.find({"via": "write_path"})}
    assert len(reference) == 7  # 2 profile patches, 1 event, bucket 0, 3 mutations (one opens a bucket)
    await db.audit_log.delete_many({"via": "write_path"})
    expected_live = {entry_from_change(c, "change_stream")["_id"]: c for c in await live_changes(db, U7, utc_now())}
    old = preference_event(U7, stamp("t"), HOUR_AGO - timedelta(days=1))
    await db.raw["preference_events"].insert_one(old)

    later = ce.insert("preference_events", preference_event(U8, stamp("t"), utc_now()), utc_now())
    watcher, opener = await run(db, _losing_streams(kind, [later]))

    assert opener.resumed_after == [token, None]
    since = HOUR_AGO - CLOCK_SKEW_MARGIN
    warnings = [r for r in caplog.records if r.name == "taste_memory.audit" and r.levelno == logging.WARNING]
    assert len(warnings) == 1
    reason = {"invalidate": "invalidated", 286: "ChangeStreamHistoryLost", 260: "InvalidResumeToken"}[kind]
    assert reason in warnings[0].getMessage() and format_iso(since) in warnings[0].getMessage()

    found = await entries(db)
    backfilled = {k: e for k, e in found.items() if e["via"] == "backfill"}
    # Exactly the entries the live changes would have produced, with the same ids and fields.
    assert set(backfilled) == set(reference) == set(expected_live)
    assert {identity(e) for e in backfilled.values()} == {identity(e) for e in reference.values()}
    assert {identity(e) for e in backfilled.values()} == {
        identity(entry_from_change(c, "change_stream")) for c in expected_live.values()
    }
    assert {e["operation"] for e in backfilled.values()} == {"insert", "update"}
    # The entries seen before stay, the record older than the gap is not backfilled, and the
    # fresh stream is followed afterwards.
    assert all(found[k] == v for k, v in before.items())
    assert not [e for e in found.values() if e["document_key"] == old["_id"]]
    assert entry_from_change(later, "change_stream")["_id"] in found
    assert len(found) == len(before) + len(reference) + 1
    state = await db.audit_state.find_one({"_id": STATE_ID})
    assert state["resume_token"] == later["_id"]
    assert watcher.stats["backfilled"] == len(reference)


async def test_a_tombstone_purges_the_entries_a_lagging_watcher_wrote_for_a_deleted_user(
    store: tuple[Database, Settings],
) -> None:
    db, settings = store
    service = MemoryService(db, settings)
    for user_id in (U7, U8):
        with acting_as(origin("memory.append_preference_event")):
            await service.profiles.append_event(user_id, "like", {"raw_text": "fuzz"}, "chat", None)
    [old7] = await db.preference_events.find({"user_id": U7})
    [ev8] = await db.preference_events.find({"user_id": U8})
    with acting_as(origin("memory.delete_user_data")):
        await service.users.delete(U7)
    with acting_as(origin("memory.append_preference_event")):
        await service.profiles.append_event(U7, "like", {"raw_text": "back again"}, "chat", None)
    [new7] = await db.preference_events.find({"user_id": U7})
    [tomb] = await db.audit_log.find({"operation": TOMBSTONE})
    await db.audit_log.delete_many({"operation": {"$ne": TOMBSTONE}})  # the watcher has seen none of it
    await save_position(db, ce.resume_token(1, 1), HOUR_AGO)

    now = utc_now()
    changes = [
        ce.insert("preference_events", old7, now),
        ce.insert("preference_events", ev8, now),
        ce.delete("preference_events", old7["_id"], now),
        ce.insert("audit_log", tomb, now),
        ce.insert("preference_events", new7, now),
    ]
    watcher, _ = await run(db, [FakeChangeStream(changes)])
    assert watcher.stats["entries"] == 3 and watcher.stats["purges"] == 1
    assert {e["document_key"] or e["operation"] for e in (await entries(db, user_id=U7)).values()} == {
        TOMBSTONE,
        new7["_id"],
    }
    assert [e["document_key"] for e in (await entries(db, user_id=U8)).values()] == [ev8["_id"]]


async def test_after_lost_history_a_deletion_in_the_gap_is_purged_again(store: tuple[Database, Settings]) -> None:
    db, settings = store
    await save_position(db, ce.resume_token(1, 1), HOUR_AGO)
    gone = entry_from_change(
        ce.insert("preference_events", preference_event(U7, stamp("t"), HOUR_AGO), HOUR_AGO), "change_stream"
    )
    kept = entry_from_change(
        ce.insert("preference_events", preference_event(U8, stamp("t"), HOUR_AGO), HOUR_AGO), "change_stream"
    )
    tomb = {
        **gone,
        "_id": "tomb",
        "operation": TOMBSTONE,
        "collection": None,
        "document_key": None,
        "time": HOUR_AGO + timedelta(minutes=30),
    }
    for entry in (gone, kept, tomb):  # ``gone`` was written by the lagging watcher after the deletion
        await db.audit_log.insert_one(entry)
    service = MemoryService(db, settings)
    with acting_as(origin("memory.append_preference_event")):
        await service.profiles.append_event(U7, "like", {"raw_text": "back again"}, "chat", None)
    [again] = await db.audit_log.find({"via": "write_path"})
    await db.audit_log.delete_many({"via": "write_path"})

    error = OperationFailure("Resume of change stream was not possible", code=286)
    fresh = ce.resume_token(int(utc_now().timestamp()), 5)
    opened = utc_now()
    await run(db, [FakeChangeStream([], open_error=error), FakeChangeStream([], resume_token=fresh)])
    found = await entries(db)
    assert set(found) == {kept["_id"], tomb["_id"], again["_id"]}
    assert found[again["_id"]]["via"] == "backfill"
    # Backfilled up to the fresh stream's opening: that is the new position, even with no change yet.
    state = await db.audit_state.find_one({"_id": STATE_ID})
    assert state["resume_token"] == fresh and state["last_time"] >= opened


async def test_backfill_gives_every_record_the_id_and_fields_of_its_live_entry(
    store: tuple[Database, Settings],
) -> None:
    db, settings = store
    await service_writes(MemoryService(db, settings), U7)
    reference = {identity(e) for e in await db.audit_log.find({})}
    await db.audit_log.delete_many({})
    assert await backfill(db, None) == len(reference) == 7
    assert {identity(e) for e in await db.audit_log.find({})} == reference
    assert await backfill(db, None) == 0  # idempotent


async def test_backfill_honours_since_and_lists_unstamped_records(store: tuple[Database, Settings]) -> None:
    db, _ = store
    now = utc_now()
    unstamped = preference_event(U7, None, now)
    older = preference_event(U7, stamp("t"), now - timedelta(days=2))
    for document in (unstamped, older):
        await db.raw["preference_events"].insert_one(document)
    assert await backfill(db, now - timedelta(days=1)) == 1
    [entry] = await db.audit_log.find({})
    assert entry["document_key"] == unstamped["_id"] and entry["principal"] is None and entry["request_id"] is None
    assert entry["time"] == now and entry["via"] == "backfill"
    assert await backfill(db, now - timedelta(days=1)) == 0
    assert await backfill(db, None) == 1  # the older one

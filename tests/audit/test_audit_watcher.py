"""The change-stream watcher and the backfill, fed real-format change events through a fake stream
(mongomock has no ``watch``), with the embedded engine as the storage side.

On the embedded engine the write path also records an entry for every service write. Tests that
use the service therefore take those entries as the reference (same collection, key and request
as the live change) and then delete them, as if the writes had happened while no watcher ran.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mongomock.filtering import filter_applies
from pymongo.errors import AutoReconnect, OperationFailure

from service.audit import watcher as watcher_module
from service.audit.backfill import backfill
from service.audit.entries import TOMBSTONE, entry_from_change
from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.audit.watcher import CLOCK_SKEW_MARGIN, STATE_ID, AuditWatcher, pipeline, watching_audit
from service.audit.write_path import record_audit_on_write_path
from service.errors import StorageUnavailable
from service.facade import MemoryService
from service.settings import Settings
from service.storage.database import Database, open_database
from service.timeutil import format_iso, utc_now
from tests.audit import change_events as ce
from tests.audit.change_events import FakeChangeStream, FakeOpener
from tests.support import playlist, track
from tests.support.backends import make_settings

U7, U8 = 7, 8
PID = playlist(3)
IDENTITY = (
    "_id",
    "collection",
    "operation",
    "user_id",
    "playlist_id",
    "document_key",
    "tool",
    "request_id",
    "principal",
)
HOUR_AGO = utc_now() - timedelta(hours=1)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[Database, Settings]]:
    # snapshot_every=2 with no size condition: the second mutation of a playlist opens a bucket.
    settings = make_settings("embedded", tmp_path / "data", snapshot_every=2, snapshot_min_event_share=0.0)
    async with open_database(settings) as db:
        record_audit_on_write_path(db)
        yield db, settings


def stamp(tool: str, principal: str = "tok-alice") -> dict[str, str]:
    return {"principal": principal, "tool": tool, "request_id": new_request_id()}


def origin(tool: str, principal: str = "tok-alice") -> CallOrigin:
    return CallOrigin(**stamp(tool, principal))


async def run(db: Database, streams: list[FakeChangeStream], **options: Any) -> tuple[AuditWatcher, FakeOpener]:
    stop = asyncio.Event()
    opener = FakeOpener(stop, streams)
    watcher = AuditWatcher(db, opener, backoff_initial=0.001, backoff_max=0.01, **options)
    await asyncio.wait_for(watcher.run(stop), timeout=10)
    return watcher, opener


async def entries(db: Database, **query: Any) -> dict[str, dict[str, Any]]:
    return {e["_id"]: e for e in await db.audit_log.find(query)}


async def save_position(db: Database, token: dict[str, Any], last_time: datetime) -> None:
    await db.audit_state.replace_one(
        {"_id": STATE_ID, "resume_token": token, "last_time": last_time, "updated_at": last_time}
    )


def preference_event(user_id: int, written_by: dict[str, Any] | None, at: datetime) -> dict[str, Any]:
    document = {
        "_id": new_request_id(),
        "user_id": user_id,
        "type": "like",
        "source": "chat",
        "payload": {"raw_text": "more shoegaze"},
        "timestamp": at,
        "recorded_at": at,
        "recorded_ns": int(at.timestamp() * 1e9),
    }
    if written_by is not None:
        document["written_by"] = written_by
    return document


def identity(entry: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(entry[k] for k in IDENTITY)


async def service_writes(service: MemoryService, user_id: int) -> None:
    """Every kind of audited write: profile created and patched, a preference event, a playlist
    created (bucket 0), a mutation appended, one opening a new bucket, one appended to it."""
    with acting_as(origin("memory.update_profile")):
        await service.profiles.update(user_id, {"genres": {"like": ["shoegaze"]}}, "said so", "chat", True)
    with acting_as(origin("memory.update_profile", "tok-bob")):
        await service.profiles.update(user_id, {"genres": {"avoid": ["eurodance"]}}, None, "chat", True)
    with acting_as(origin("memory.append_preference_event")):
        await service.profiles.append_event(user_id, "like", {"raw_text": "more fuzz"}, "chat", None)
    with acting_as(origin("memory.log_playlist_create")):
        await service.playlists.create(
            {"user_id": user_id, "playlist_id": PID, "name": "Fuzz", "track_ids": [track(1), track(2)]}, None
        )
    for n in (3, 4, 5):
        with acting_as(origin("memory.log_playlist_mutation")):
            await service.playlists.mutate(
                {"user_id": user_id, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": [track(n)]}},
                None,
            )


async def live_changes(db: Database, user_id: int, when: datetime) -> list[dict[str, Any]]:
    """The change events MongoDB would have emitted for the user's stored records."""
    changes = []
    for profile in await db.profiles.find({"user_id": user_id}):
        for index, patch in enumerate(profile["history"]):
            if patch["version"] == 1:
                changes.append(ce.insert("profiles", {**profile, "written_by": patch["written_by"]}, when))
            else:
                changes.append(
                    ce.update(
                        "profiles",
                        profile["_id"],
                        {
                            "profile": profile["profile"],
                            "version": patch["version"],
                            "updated_at": patch["applied_at"],
                            "written_by": patch["written_by"],
                            f"history.{index}": patch,
                        },
                        when,
                    )
                )
    for event in await db.preference_events.find({"user_id": user_id}):
        changes.append(ce.insert("preference_events", event, when))
    for bucket in await db.history.find({"user_id": user_id}):
        opening = [e for e in bucket["events"] if e["seq"] == bucket["base_seq"]]
        opener_stamp = bucket["created"]["written_by"] if bucket["created"] else opening[0]["written_by"]
        changes.append(ce.insert("playlist_history", {**bucket, "events": opening, "written_by": opener_stamp}, when))
        for index, event in enumerate(bucket["events"]):
            if event["seq"] != bucket["base_seq"]:
                changes.append(
                    ce.update(
                        "playlist_history",
                        bucket["_id"],
                        {
                            f"events.{index}": event,
                            "last_seq": event["seq"],
                            "end_time": event["timestamp"],
                            "written_by": event["written_by"],
                            "track_id_volume": 1,
                        },
                        when,
                    )
                )
    return changes


def test_pipeline_lets_through_audited_writes_tombstones_and_invalidate_only() -> None:
    [stage] = pipeline()
    match = stage["$match"]
    now = utc_now()
    own_entry = entry_from_change(ce.insert("preference_events", preference_event(U7, None, now), now), "change_stream")
    tombstone = {**own_entry, "_id": "t", "operation": TOMBSTONE, "collection": None}
    passes = [
        ce.RECORDED_PREFERENCE_INSERT,
        ce.update("profiles", U7, {"version": 2, "written_by": stamp("memory.update_profile")}, now),
        ce.insert("audit_log", tombstone, now),
        ce.invalidate(now),
    ]
    blocked = [
        ce.insert("audit_log", own_entry, now),  # the watcher's own output must not come back to it
        ce.update("playlists", f"{U7}:{PID}", {"seq": 3}, now),
        ce.insert("idempotency", {"_id": "k", "user_id": U7}, now),
        ce.update("audit_state", STATE_ID, {"resume_token": {"_data": "82"}}, now),
        ce.delete("preference_events", "e1", now),
    ]
    assert [filter_applies(match, c) for c in passes] == [True] * len(passes)
    assert [filter_applies(match, c) for c in blocked] == [False] * len(blocked)


async def test_inserts_and_updates_become_entries_and_deletes_do_not(store: tuple[Database, Settings]) -> None:
    db, _ = store
    t = [HOUR_AGO + timedelta(seconds=s) for s in range(10)]
    s_pref, s_prof1, s_prof2 = stamp("memory.append_preference_event"), stamp("memory.update_profile"), stamp("x")
    s_create, s_mut = stamp("memory.log_playlist_create", "tok-bob"), stamp("memory.log_playlist_mutation", "tok-bob")
    bucket0 = f"{U7}:{PID}:0000000000"
    pref = preference_event(U7, s_pref, t[0])
    event = {
        "event_id": "ev1",
        "seq": 1,
        "type": "ADD_TRACKS",
        "payload": {"track_ids": [track(9)]},
        "timestamp": t[4],
        "recorded_at": t[4],
        "recorded_ns": 1,
        "written_by": s_mut,
    }
    changes = [
        ce.RECORDED_PREFERENCE_INSERT,
        ce.insert("preference_events", pref, t[0]),
        ce.insert(
            "profiles", {"_id": U7, "user_id": U7, "profile": {"a": 1}, "version": 1, "written_by": s_prof1}, t[1]
        ),
        ce.update(
            "profiles",
            U7,
            {
                "profile": {"a": 2},
                "version": 2,
                "updated_at": t[2],
                "written_by": s_prof2,
                "history.1": {"version": 2, "patch": {"a": 2}, "written_by": s_prof2},
            },
            t[2],
        ),
        ce.insert(
            "playlist_history",
            {
                "_id": bucket0,
                "user_id": U7,
                "playlist_id": PID,
                "base_seq": 0,
                "events": [],
                "created": {"written_by": s_create},
                "written_by": s_create,
            },
            t[3],
        ),
        ce.update(
            "playlist_history",
            bucket0,
            {"events.0": event, "last_seq": 1, "end_time": t[4], "track_id_volume": 1, "written_by": s_mut},
            t[4],
        ),
        ce.delete("preference_events", pref["_id"], t[5]),
        ce.update("playlists", f"{U7}:{PID}", {"seq": 1}, t[6]),
        ce.insert("idempotency", {"_id": "claim", "user_id": U7}, t[7]),
    ]
    watcher, opener = await run(db, [FakeChangeStream(changes)])

    found = await entries(db)
    assert opener.resumed_after == [None]  # first start: nothing stored
    assert len(found) == 6 and watcher.stats["entries"] == 6
    expected = {
        # (collection, operation, user, playlist, key, tool, request, principal, time)
        (
            "preference_events",
            "insert",
            1,
            None,
            "0b6e2f7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
            "memory.append_preference_event",
            "5f0c0e4a9d6b4c1f8e2a7b3c9d0e1f2a",
            "tok-desktop",
            ce.RECORDED_PREFERENCE_INSERT["wallTime"],
        ),
        ("preference_events", "insert", U7, None, pref["_id"], s_pref["tool"], s_pref["request_id"], "tok-alice", t[0]),
        ("profiles", "insert", U7, None, str(U7), s_prof1["tool"], s_prof1["request_id"], "tok-alice", t[1]),
        ("profiles", "update", U7, None, str(U7), "x", s_prof2["request_id"], "tok-alice", t[2]),
        ("playlist_history", "insert", U7, PID, bucket0, s_create["tool"], s_create["request_id"], "tok-bob", t[3]),
        ("playlist_history", "update", U7, PID, bucket0, s_mut["tool"], s_mut["request_id"], "tok-bob", t[4]),
    }
    fields = (*IDENTITY[1:], "time")
    assert {tuple(e[k] for k in fields) for e in found.values()} == expected
    assert {e["via"] for e in found.values()} == {"change_stream"}
    assert set(found) == {entry_from_change(c, "change_stream")["_id"] for c in changes[:6]}
    state = await db.audit_state.find_one({"_id": STATE_ID})
    assert state["resume_token"] == changes[-1]["_id"] and state["last_time"] == t[7]


async def test_restart_resumes_after_the_persisted_token_without_duplicates_or_loss(
    store: tuple[Database, Settings],
) -> None:
    db, _ = store
    changes = [
        ce.insert("preference_events", preference_event(U7, stamp("t"), HOUR_AGO), HOUR_AGO + timedelta(seconds=i))
        for i in range(5)
    ]
    await run(db, [FakeChangeStream(changes[:3])])
    state = await db.audit_state.find_one({"_id": STATE_ID})
    assert state["resume_token"] == changes[2]["_id"]

    # A new process: it must ask the server for what follows the third change, and gets it.
    second, opener = await run(db, [FakeChangeStream(changes[3:])])
    assert opener.resumed_after == [changes[2]["_id"]]
    found = await entries(db)
    assert set(found) == {entry_from_change(c, "change_stream")["_id"] for c in changes}
    assert second.stats == {**second.stats, "entries": 2, "errors": 0}

    # A crash after the entries of changes 2-5 were written but before the position was saved:
    # the replay from change 1 rewrites nothing and raises nothing.
    await save_position(db, changes[0]["_id"], changes[0]["wallTime"])
    third, opener = await run(db, [FakeChangeStream(changes[1:])])
    assert opener.resumed_after == [changes[0]["_id"]]
    assert await entries(db) == found
    assert third.stats == {**third.stats, "changes": 4, "entries": 0, "errors": 0}


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


async def test_network_and_storage_errors_are_retried_without_losing_a_change(
    store: tuple[Database, Settings], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _ = store
    caplog.set_level(logging.WARNING, logger="taste_memory.audit")
    start = ce.resume_token(1, 1)
    await save_position(db, start, HOUR_AGO)
    e1, e2, e3 = (
        ce.insert("preference_events", preference_event(U7, stamp("t"), HOUR_AGO), HOUR_AGO) for _ in range(3)
    )

    insert_one, failed = db.audit_log.insert_one, []

    async def flaky_insert(entry: dict[str, Any]) -> None:
        if entry["document_key"] == e2["documentKey"]["_id"] and not failed:
            failed.append(entry)
            raise StorageUnavailable("the database did not complete the operation")
        await insert_one(entry)

    monkeypatch.setattr(db.audit_log, "insert_one", flaky_insert)
    watcher, opener = await run(
        db,
        [
            FakeChangeStream([], open_error=AutoReconnect("connection refused")),
            FakeChangeStream([e1, AutoReconnect("connection reset by peer")]),
            FakeChangeStream([e2]),  # writing its entry fails: e2 must come again
            FakeChangeStream([e2, e3]),
        ],
    )
    assert opener.resumed_after == [start, start, e1["_id"], e1["_id"]]
    assert set(await entries(db)) == {entry_from_change(c, "change_stream")["_id"] for c in (e1, e2, e3)}
    assert watcher.stats["errors"] == 3 and failed
    messages = [r.getMessage() for r in caplog.records if r.name == "taste_memory.audit"]
    assert len(messages) == 3 and all("retrying" in m for m in messages)
    assert "AutoReconnect" in messages[0] and "StorageUnavailable" in messages[2]


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


async def test_watching_audit_is_idle_on_the_embedded_engine_and_stops_cleanly(
    store: tuple[Database, Settings],
) -> None:
    db, _ = store
    async with watching_audit(db) as nothing:
        assert nothing is None
    stop = asyncio.Event()
    blocking = FakeChangeStream([ce.RECORDED_PREFERENCE_INSERT], block_when_drained=True)
    opener = FakeOpener(stop, [blocking])
    async with watching_audit(db, grace_seconds=0.05, open_stream=opener, backoff_initial=0.001) as watcher:
        for _ in range(200):
            if watcher.stats["entries"]:
                break
            await asyncio.sleep(0.005)
    assert watcher.stats["entries"] == 1 and blocking.closed
    state = await db.audit_state.find_one({"_id": STATE_ID})  # saved on the way out
    assert state["resume_token"] == ce.RECORDED_PREFERENCE_INSERT["_id"]


async def test_a_quiet_fresh_stream_saves_the_servers_token_once_it_has_one(store: tuple[Database, Settings]) -> None:
    db, _ = store
    token = ce.resume_token(int(utc_now().timestamp()), 3)
    opened = utc_now()
    # A fresh motor stream has no resume token until its first getMore brings a postBatchResumeToken.
    await run(db, [FakeChangeStream([], post_batch_token=token)])
    state = await db.audit_state.find_one({"_id": STATE_ID})
    assert state["resume_token"] == token and state["last_time"] >= opened


def test_change_time_prefers_wall_time_then_cluster_time() -> None:
    change = dict(ce.RECORDED_PREFERENCE_INSERT)
    assert watcher_module.change_time(change) == datetime(2024, 7, 31, 8, 20, 18, 412000, tzinfo=UTC)
    del change["wallTime"]
    assert watcher_module.change_time(change) == datetime(2024, 7, 31, 8, 20, 18, tzinfo=UTC)


async def test_the_motor_opener_is_called_as_motor_expects_and_an_unreachable_server_is_retried(
    store: tuple[Database, Settings], caplog: pytest.LogCaptureFixture
) -> None:
    from motor.motor_asyncio import AsyncIOMotorClient

    db, _ = store
    caplog.set_level(logging.INFO, logger="taste_memory.audit")
    # Nothing listens on port 1: opening the stream fails as it does while MongoDB is down.
    client = AsyncIOMotorClient("mongodb://127.0.0.1:1/?directConnection=true", serverSelectionTimeoutMS=20)
    try:
        unreachable = dataclasses.replace(db, _raw_database=client["taste_memory"])
        stop = asyncio.Event()
        watcher = AuditWatcher(unreachable, backoff_initial=0.001, backoff_max=0.01)
        task = asyncio.create_task(watcher.run(stop))
        for _ in range(400):
            if watcher.stats["errors"] >= 2:
                break
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(task, timeout=5)
    finally:
        client.close()
    assert watcher.stats["errors"] >= 2
    problems = [r for r in caplog.records if r.name == "taste_memory.audit" and r.levelno >= logging.WARNING]
    assert problems and all("ServerSelectionTimeoutError" in r.getMessage() for r in problems)
    assert all(r.levelno == logging.WARNING for r in problems)  # an expected outage, not a crash

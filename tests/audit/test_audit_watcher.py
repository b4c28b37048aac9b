"""The change-stream watcher, fed real-format change events through a fake stream (mongomock has
no ``watch``), with the embedded engine as the storage side: which changes become entries, resuming
after a restart, retries, and how it opens the stream and times a change.

On the embedded engine the write path also records an entry for every service write. Tests that
use the service therefore take those entries as the reference (same collection, key and request
as the live change) and then delete them, as if the writes had happened while no watcher ran.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mongomock.filtering import filter_applies
from pymongo.errors import AutoReconnect

from service.audit import watcher as watcher_module
from service.audit.entries import TOMBSTONE, entry_from_change
from service.audit.watcher import STATE_ID, AuditWatcher, pipeline, watching_audit
from service.errors import StorageUnavailable
from service.settings import Settings
from service.storage.database import Database
from service.timeutil import utc_now
from tests.audit import change_events as ce
from tests.audit.change_events import FakeChangeStream, FakeOpener
from tests.audit.watcher_support import (
    HOUR_AGO,
    IDENTITY,
    PID,
    U7,
    entries,
    preference_event,
    run,
    save_position,
    stamp,
)
from tests.support import track


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

"""Audit retention (``MEMORY_AUDIT_RETENTION_DAYS``): a TTL index on MongoDB, a periodic purge on
the embedded engine; tombstones are never expired."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mongomock_motor import AsyncMongoMockClient

from service.audit.entries import TOMBSTONE
from service.audit.retention import (
    EXPIRABLE,
    RETENTION_INDEX,
    ensure_retention,
    purge_expired,
    retaining_audit,
    retention_index,
)
from service.settings import Settings
from service.storage.embedded.engine import _mock_collection
from tests.support import connected, playlist, track

OLD = datetime(2020, 1, 1, tzinfo=UTC)


def test_the_ttl_index_expires_entries_on_time_but_never_a_tombstone() -> None:
    assert retention_index(0) is None
    spec = retention_index(30).document
    assert spec == {
        "key": {"time": 1},
        "name": RETENTION_INDEX,
        "expireAfterSeconds": 30 * 86_400,
        "partialFilterExpression": {"collection": {"$type": "string"}},
    }
    # What the partial filter selects: every kind of entry but a tombstone (collection null).
    import mongomock

    log = mongomock.MongoClient().db.audit_log
    log.insert_many(
        [
            {"_id": "a", "collection": "profiles", "operation": "update"},
            {"_id": "b", "collection": "playlist_history", "operation": "insert"},
            {"_id": "t", "collection": None, "operation": TOMBSTONE},
        ]
    )
    assert {d["_id"] for d in log.find(EXPIRABLE)} == {"a", "b"}


class _FakeCollection:
    """A motor collection as a real server answers ``index_information`` (key as a list of pairs,
    TTL and partial filter reported), recording what is asked of it."""

    def __init__(self) -> None:
        self.indexes: dict[str, dict[str, Any]] = {"_id_": {"key": [("_id", 1)], "v": 2}}
        self.calls: list[tuple[str, Any]] = []

    async def index_information(self) -> dict[str, dict[str, Any]]:
        return {name: dict(info) for name, info in self.indexes.items()}

    async def create_indexes(self, models: list[Any]) -> list[str]:
        for model in models:
            document = dict(model.document)
            name = document.pop("name")
            document["key"] = list(document["key"].items())
            self.indexes[name] = {**document, "v": 2}
            self.calls.append(("create", name))
        return [m.document["name"] for m in models]

    async def drop_index(self, name: str) -> None:
        del self.indexes[name]
        self.calls.append(("drop", name))


class _FakeDatabase:
    def __init__(self) -> None:
        self.audit_log = _FakeCollection()

    def __getitem__(self, name: str) -> _FakeCollection:
        assert name == "audit_log"
        return self.audit_log

    async def command(self, name: str, collection: str, **options: Any) -> dict[str, Any]:
        assert (name, collection) == ("collMod", "audit_log")
        index = options["index"]
        self.audit_log.indexes[index["name"]]["expireAfterSeconds"] = index["expireAfterSeconds"]
        self.audit_log.calls.append(("collMod", index))
        return {"ok": 1}


async def test_mongodb_retention_index_follows_the_setting() -> None:
    db = _FakeDatabase()
    assert await ensure_retention(db, 0) == "unchanged"
    assert db.audit_log.calls == []
    assert await ensure_retention(db, 30) == "created"
    ttl = db.audit_log.indexes[RETENTION_INDEX]
    assert ttl["key"] == [("time", 1)] and ttl["expireAfterSeconds"] == 30 * 86_400
    assert ttl["partialFilterExpression"] == {"collection": {"$type": "string"}}
    assert await ensure_retention(db, 30) == "unchanged"
    assert await ensure_retention(db, 7) == "updated"  # collMod: the index is not rebuilt
    assert db.audit_log.calls[-1] == ("collMod", {"name": RETENTION_INDEX, "expireAfterSeconds": 7 * 86_400})
    db.audit_log.indexes[RETENTION_INDEX]["partialFilterExpression"] = {"operation": "update"}  # an edit by hand
    assert await ensure_retention(db, 7) == "recreated"
    assert db.audit_log.indexes[RETENTION_INDEX]["partialFilterExpression"] == EXPIRABLE
    assert await ensure_retention(db, 0) == "dropped"
    assert RETENTION_INDEX not in db.audit_log.indexes


async def test_the_index_options_are_accepted_by_a_motor_style_driver() -> None:
    database = AsyncMongoMockClient()["retention"]
    assert await ensure_retention(database, 90) == "created"
    info = (await database["audit_log"].index_information())[RETENTION_INDEX]
    assert info["expireAfterSeconds"] == 90 * 86_400
    assert await ensure_retention(database, 0) == "dropped"


@pytest.fixture
def embedded(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


async def _write(call, user_id: int) -> None:
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": {"notes": "x"}})
    await call.ok("memory_append_preference_event", {"user_id": user_id, "type": "like", "payload": {"raw_text": "y"}})
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user_id, "playlist_id": playlist(user_id), "name": "z", "track_ids": [track(1)]},
    )


def _age(settings: Settings, call, user_id: int, moment: datetime) -> None:
    """Backdate every audit entry of the user (as if written at ``moment``)."""
    store = _mock_collection(call.service.database._embedded.client, settings.database_name, "audit_log")._store
    for document in store._documents.values():
        if document["user_id"] == user_id:
            document["time"] = moment.replace(tzinfo=None)  # stored as BSON keeps it: naive UTC


async def _trail(call, user_id: int) -> list[dict[str, Any]]:
    return (await call.ok("ops_audit", {"user_id": user_id, "limit": 500}))["entries"]


async def test_the_embedded_purge_deletes_old_entries_and_keeps_tombstones(embedded: Settings) -> None:
    async with connected(embedded) as call:
        for user_id in (1, 2, 3):
            await _write(call, user_id)
        await call.ok("memory_delete_user_data", {"user_id": 3, "confirm": True})
        _age(embedded, call, 1, OLD)
        _age(embedded, call, 3, OLD)  # the tombstone is old too
        recent = await _trail(call, 2)
        purged = await purge_expired(call.service.database.audit_log, datetime.now(UTC) - timedelta(days=30))
        assert purged == 3
        assert await _trail(call, 1) == []
        assert await _trail(call, 2) == recent  # newer than the retention: kept
        tombstones = await _trail(call, 3)
        assert [e["operation"] for e in tombstones] == [TOMBSTONE]


async def test_the_server_purges_in_the_background_and_the_purge_is_durable(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _write(call, 1)
        await _write(call, 2)
        _age(embedded, call, 1, OLD)
        database = call.service.database
        async with retaining_audit(database, 30, every=3600) as task:
            assert task is not None
            for _ in range(1000):
                if not await _trail(call, 1):
                    break
                await asyncio.sleep(0.01)
        assert task.cancelled()
        assert await _trail(call, 1) == [] and len(await _trail(call, 2)) == 3
    async with connected(embedded) as call:  # the purge was committed to the journal
        assert await _trail(call, 1) == [] and len(await _trail(call, 2)) == 3


async def test_no_retention_means_no_purge_task(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _write(call, 1)
        _age(embedded, call, 1, OLD)
        async with retaining_audit(call.service.database, 0) as task:
            assert task is None
        assert len(await _trail(call, 1)) == 3

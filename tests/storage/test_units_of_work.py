"""Units of work on the embedded store, through the storage layer's own interface
(``Database.unit`` and the collections): each call commits its own changes, a failed call leaves
nothing, and a call whose changes another call's failure undid is refused, never half applied.
Embedded-only: on MongoDB each write is acknowledged by the server itself."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from service.errors import StorageFault
from service.settings import Settings
from service.storage.database import Database, open_database


def on_disk(data_dir: Path) -> set[str]:
    with sqlite3.connect(data_dir / "memory.sqlite3") as db:
        return {key for (key,) in db.execute("SELECT doc_key FROM fields WHERE collection = 'track_choices'")}


async def stored(db: Database, doc_id: str) -> dict[str, object] | None:
    return await db.track_choices.find_one({"_id": doc_id})


class Boom(Exception):
    pass


async def test_a_failed_call_leaves_nothing_in_memory_or_on_disk(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with open_database(settings) as db:
        async with db.unit():
            await db.track_choices.insert_one({"_id": "kept", "user_id": 1, "n": 0})
        with pytest.raises(Boom):
            async with db.unit():
                await db.track_choices.insert_one({"_id": "new", "user_id": 1})
                await db.track_choices.update_one({"_id": "kept"}, {"$set": {"n": 1}})
                raise Boom
        assert await stored(db, "new") is None
        assert (await stored(db, "kept")) == {"_id": "kept", "user_id": 1, "n": 0}
        assert on_disk(settings.data_dir) == {'"kept"'}


async def test_a_commit_carries_only_its_own_calls_changes(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with open_database(settings) as db:
        halfway, finish = asyncio.Event(), asyncio.Event()

        async def slow_call() -> None:
            async with db.unit():
                await db.track_choices.insert_one({"_id": "slow-1", "user_id": 2})
                halfway.set()
                await finish.wait()
                await db.track_choices.insert_one({"_id": "slow-2", "user_id": 2})

        slow = asyncio.create_task(slow_call())
        await halfway.wait()
        async with db.unit():
            await db.track_choices.insert_one({"_id": "quick", "user_id": 1})
        assert on_disk(settings.data_dir) == {'"quick"'}  # not the other call's first half
        finish.set()
        await slow
        assert on_disk(settings.data_dir) == {'"quick"', '"slow-1"', '"slow-2"'}


async def test_a_call_whose_changes_another_failure_undid_is_refused_whole(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with open_database(settings) as db:
        async with db.unit():
            await db.track_choices.insert_one({"_id": "shared", "user_id": 3, "n": 0})
        first_wrote, second_failed = asyncio.Event(), asyncio.Event()

        async def survivor() -> None:
            async with db.unit():
                await db.track_choices.update_one({"_id": "shared"}, {"$inc": {"n": 1}})
                first_wrote.set()
                await second_failed.wait()
                await db.track_choices.insert_one({"_id": "later", "user_id": 3})

        async def failing() -> None:
            await first_wrote.wait()
            try:
                async with db.unit():
                    await db.track_choices.update_one({"_id": "shared"}, {"$inc": {"n": 10}})
                    raise Boom
            finally:
                second_failed.set()

        results = await asyncio.gather(survivor(), failing(), return_exceptions=True)
        assert isinstance(results[0], StorageFault) and results[0].details == {"reason": "storage_error"}
        assert isinstance(results[1], Boom)
        # Neither call's change remains: the shared document is as last committed, nothing else landed.
        assert (await stored(db, "shared")) == {"_id": "shared", "user_id": 3, "n": 0}
        assert await stored(db, "later") is None
        assert on_disk(settings.data_dir) == {'"shared"'}

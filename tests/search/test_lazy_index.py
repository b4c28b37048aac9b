"""Embedded engine: a user's search index is built on first use from that user's documents only,
kept up to date by writes from then on, and a write that lands while the index is being built is
not lost; nothing is indexed at start-up, a background warm-up builds users one at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.search.engine import SearchEngine
from service.search.warmup import warming_search
from service.settings import Settings
from tests.support import connected, playlist, track


@pytest.fixture
def embedded(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


async def _seed(call, user_id: int, word: str) -> None:
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": {"notes": f"loves {word}"}})
    await call.ok(
        "memory_append_preference_event",
        {"user_id": user_id, "type": "like", "payload": {"raw_text": f"more {word} please"}},
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user_id, "playlist_id": playlist(user_id), "name": f"{word} nights", "track_ids": [track(1)]},
    )


async def _ids(call, user_id: int, query: str, by_words: bool = False) -> set[str]:
    """The ids found; ``by_words``: only those the query's words found, not its meaning alone."""
    found = await call.ok("memory_search", {"user_id": user_id, "query": query, "limit": 200})
    return {
        hit["id"] for hit in found["results"] if not by_words or hit.get("metadata", {}).get("matched_by") != "meaning"
    }


def _engine(call) -> SearchEngine:
    return call.service.search


class _Gate:
    """Holds the first read of preference events (a user's index build) after it has read them
    from the store, until opened: a write made meanwhile is one the build did not read. Later reads
    (writes, deletes) pass."""

    def __init__(self, engine: SearchEngine) -> None:
        self.opened = asyncio.Event()
        self.reads = 0
        collection = engine._db.preference_events
        real: Callable[..., Any] = collection.find

        async def gated_find(filter_: Any, *args: Any, **kwargs: Any) -> list[dict]:
            documents = await real(filter_, *args, **kwargs)
            if filter_ == {"user_id": 1} and not args and not kwargs:  # the index build's read
                self.reads += 1
                if self.reads == 1:
                    await self.opened.wait()
            return documents

        self.collection, self.real = collection, real
        collection.find = gated_find  # type: ignore[method-assign]

    def close(self) -> None:
        self.opened.set()
        self.collection.find = self.real  # type: ignore[method-assign]


async def test_start_up_indexes_nothing_and_a_search_builds_only_its_user(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _seed(call, 1, "marimba")
        await _seed(call, 2, "kalimba")
    async with connected(embedded) as call:
        engine = _engine(call)
        assert engine.built_users == 0 and engine.indexed_entries == 0
        assert await _ids(call, 1, "marimba") == {playlist(1), "profile:notes"} | await _ids(call, 1, "please")
        assert engine.built_users == 1 and set(engine._users) == {1}
        assert await _ids(call, 2, "marimba", by_words=True) == set()  # "kalimba" is near in meaning only
        assert engine.built_users == 2


async def test_a_write_to_a_user_not_built_is_found_by_the_first_search(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _seed(call, 1, "marimba")
    async with connected(embedded) as call:
        await call.ok(
            "memory_append_preference_event",
            {"user_id": 1, "type": "like", "payload": {"raw_text": "some theremin too"}},
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": playlist(1), "type": "UPDATE_META", "payload": {"name": "Vibraphone"}},
        )
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "loves glockenspiel"}})
        assert _engine(call).built_users == 0  # writes leave an unbuilt index unbuilt
        assert len(await _ids(call, 1, "theremin")) == 1
        assert await _ids(call, 1, "vibraphone") == {playlist(1)}
        assert await _ids(call, 1, "glockenspiel") == {"profile:notes"}
        # The renamed playlist and the replaced notes no longer match; the event (append-only) does.
        assert await _ids(call, 1, "marimba") == await _ids(call, 1, "please")
        # Built now: the next writes update it in place.
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(9), "name": "Celesta", "track_ids": [track(2)]},
        )
        assert await _ids(call, 1, "celesta") == {playlist(9)}


async def test_writes_made_while_the_index_is_built_are_applied_to_it(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _seed(call, 1, "marimba")
    async with connected(embedded) as call:
        engine = _engine(call)
        gate = _Gate(engine)
        try:
            first = asyncio.create_task(call.service.search.search(1, "marimba", 50))
            second = asyncio.create_task(call.service.search.search(1, "celesta", 50))
            while not gate.reads:
                await asyncio.sleep(0)
            # The build has read the events and waits; these writes are not in what it read.
            await call.ok(
                "memory_append_preference_event",
                {"user_id": 1, "type": "like", "payload": {"raw_text": "celesta and theremin"}},
            )
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": 1, "playlist_id": playlist(7), "name": "Celesta hour", "track_ids": [track(3)]},
            )
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": 1, "playlist_id": playlist(1), "type": "UPDATE_META", "payload": {"name": "Vibraphone"}},
            )
            await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "loves celesta"}})
            assert engine.built_users == 0 and len(engine._building[1].pending) == 4  # queued, not lost
        finally:
            gate.close()
        await first
        await second
        assert gate.reads == 1, "concurrent first searches share one build"
        assert await _ids(call, 1, "celesta") == {playlist(7), "profile:notes"} | await _ids(call, 1, "theremin")
        assert await _ids(call, 1, "vibraphone") == {playlist(1)}
        assert await _ids(call, 1, "marimba") == await _ids(call, 1, "please")


async def test_a_user_deleted_while_the_index_is_built_is_not_indexed(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _seed(call, 1, "marimba")
    async with connected(embedded) as call:
        engine = _engine(call)
        gate = _Gate(engine)
        try:
            pending = asyncio.create_task(call.service.search.search(1, "marimba", 50))
            while not gate.reads:
                await asyncio.sleep(0)
            await call.ok("memory_delete_user_data", {"user_id": 1, "confirm": True})
        finally:
            gate.close()
        assert await pending == []  # the build that read the data before the delete was discarded
        assert await _ids(call, 1, "marimba") == set()


async def test_warm_up_builds_every_user_one_at_a_time(embedded: Settings) -> None:
    async with connected(embedded) as call:
        for user_id in range(1, 6):
            await _seed(call, user_id, f"word{user_id}x")
    async with connected(embedded) as call:
        engine = _engine(call)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        running = asyncio.create_task(ticker())
        try:
            entries, _ = await call.service.build_search_index()
        finally:
            running.cancel()
        assert engine.built_users == 5 and entries == 5 * 3
        assert ticks >= 5, "the warm-up yields to other tasks between users"
        assert await _ids(call, 3, "word3x") == {playlist(3), "profile:notes"} | await _ids(call, 3, "please")


async def test_the_warm_up_task_runs_in_the_background_and_stops_with_the_server() -> None:
    started, finished = asyncio.Event(), asyncio.Event()

    async def slow_build() -> tuple[int, float]:
        started.set()
        await asyncio.sleep(3600)
        finished.set()
        return 0, 0.0

    async with warming_search(slow_build) as task:
        assert task is not None
        await started.wait()
    assert task.cancelled() and not finished.is_set()
    async with warming_search(slow_build, enabled=False) as task:
        assert task is None


async def test_a_failed_warm_up_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> tuple[int, float]:
        raise RuntimeError("store unavailable")

    async with warming_search(broken) as task:
        assert task is not None
        await asyncio.wait([task])
    assert "warm-up failed" in caplog.text

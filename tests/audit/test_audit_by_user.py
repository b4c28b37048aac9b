"""``ops.audit`` by user: newest first, paged by cursor without gaps or repeats, filtered by
playlist and time window, and every query (and the delete purge) has ``user_id`` as a top-level
equality, so the embedded engine visits only that user's entries and MongoDB uses its
(user_id, time, _id) index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.audit.trail import entries_filter
from service.settings import Settings
from service.timeutil import format_iso
from tests.support import connected, playlist, track


@pytest.fixture
def embedded(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


class _Recording:
    """Records the filters sent to a collection's ``find`` and ``delete_many``."""

    def __init__(self, collection: Any) -> None:
        self.filters: list[tuple[str, dict[str, Any]]] = []
        for name in ("find", "delete_many"):
            real = getattr(collection, name)

            async def recorded(filter_: Any, *args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
                self.filters.append((_name, dict(filter_)))
                return await _real(filter_, *args, **kwargs)

            setattr(collection, name, recorded)


async def _activity(call) -> None:
    for round_ in range(4):
        for user_id in (1, 2, 3):
            pid = playlist(user_id * 10 + round_ % 2)
            if round_ < 2:
                await call.ok(
                    "memory_log_playlist_create",
                    {"user_id": user_id, "playlist_id": pid, "name": f"p{round_}", "track_ids": [track(round_)]},
                )
            else:
                await call.ok(
                    "memory_log_playlist_mutation",
                    {
                        "user_id": user_id,
                        "playlist_id": pid,
                        "type": "ADD_TRACKS",
                        "payload": {"track_ids": [track(50 + round_)]},
                    },
                )
            await call.ok(
                "memory_append_preference_event",
                {"user_id": user_id, "type": "like", "payload": {"raw_text": f"r{round_}"}},
            )


async def _pages(call, limit: int, **arguments: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await call.ok("ops_audit", {**arguments, "limit": limit, **({"cursor": cursor} if cursor else {})})
        assert len(page["entries"]) <= limit
        entries += page["entries"]
        cursor = page["next_cursor"]
        if cursor is None:
            return entries


def _expected(every: list[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
    found = [e for e in every if all(e[k] == v for k, v in where.items())]
    return sorted(found, key=lambda e: (e["time"], e["entry_id"]), reverse=True)


async def test_audit_by_user_is_newest_first_and_pages_exactly(embedded: Settings) -> None:
    async with connected(embedded) as call:
        await _activity(call)
        every = await _pages(call, 500)
        assert {e["user_id"] for e in every} == {1, 2, 3}
        recording = _Recording(call.service.database.audit_log)
        mine = await _pages(call, 3, user_id=2)
        assert mine == _expected(every, user_id=2) and len(mine) == 8
        in_playlist = await _pages(call, 2, user_id=2, playlist_id=playlist(21))
        assert in_playlist == _expected(every, user_id=2, playlist_id=playlist(21)) and in_playlist
        middle = mine[3:7]
        window = await _pages(call, 4, user_id=2, since=middle[-1]["time"], until=mine[2]["time"])
        assert window == [e for e in mine if middle[-1]["time"] <= e["time"] < mine[2]["time"]]
        assert window
        for _, filter_ in recording.filters:
            assert filter_["user_id"] == 2 and "$and" not in filter_, filter_
        await call.ok("memory_delete_user_data", {"user_id": 2, "confirm": True})
        purge = [f for name, f in recording.filters if name == "delete_many"]
        assert purge and all(f["user_id"] == 2 for f in purge)
        assert [e["operation"] for e in await _pages(call, 10, user_id=2)] == ["delete_user_data"]
        assert await _pages(call, 7, user_id=1) == _expected(every, user_id=1)


def test_the_filter_is_flat_with_user_id_at_the_top() -> None:
    from datetime import UTC, datetime

    since, until = datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 2, 1, tzinfo=UTC)
    assert entries_filter(7, None, None, None, None) == {"user_id": 7}
    assert entries_filter(7, "p", since, until, None) == {
        "user_id": 7,
        "playlist_id": "p",
        "time": {"$gte": since, "$lt": until},
    }
    assert entries_filter(None, None, None, None, None) == {}
    from service.audit.trail import _encode_cursor

    cursor = _encode_cursor({"time": until, "_id": "abc"})
    paged = entries_filter(7, None, since, None, cursor)
    assert next(iter(paged)) == "user_id" and paged["time"] == {"$gte": since}
    assert paged["$or"][1]["_id"] == {"$lt": "abc"} and format_iso(paged["$or"][0]["time"]["$lt"]) == format_iso(until)


async def test_an_update_of_a_record_keyed_without_its_user_is_that_users_entry(settings: Settings) -> None:
    """A later opinion of the same subject marks the earlier one superseded (an update of an event,
    whose key does not name its user): the audit entry of that update is the user's, found by
    ``ops_audit`` for them and for nobody else."""
    async with connected(settings) as call:
        like = {"user_id": 1, "type": "like", "source": "user", "payload": {"artist": "Creed"}}
        liked = await call.ok("memory_append_preference_event", {**like, "timestamp": "2025-01-01T00:00:00Z"})
        dislike = {**like, "type": "dislike", "timestamp": "2025-02-01T00:00:00Z"}
        await call.ok("memory_append_preference_event", dislike)
        entries = (await call.ok("ops_audit", {"user_id": 1, "limit": 50}))["entries"]
        updates = [e for e in entries if e["collection"] == "preference_events" and e["operation"] == "update"]
        assert [e["document_key"] for e in updates] == [liked["event_id"]]
        assert all(e["user_id"] == 1 for e in entries)
        others = (await call.ok("ops_audit", {"user_id": 2, "limit": 50}))["entries"]
        assert liked["event_id"] not in [e["document_key"] for e in others]

"""A read racing ``delete_user_data`` does not resurrect the playlist document after the hard delete.

``users.delete_user`` deletes collection by collection. A read of the playlist (get_playlist,
reconstruct, a mutation) between the playlists and the history deletes finds no playlist document
and could *roll it forward* from the history buckets still there; the history is then deleted but
a rebuilt document would not be, leaving a listed playlist after the delete was acknowledged. On
real MongoDB every storage call is a network round trip, so the interleaving needs no help; on the
embedded engine it is forced by holding the history delete until the concurrent read has run (as
``tests/support/ledger_model.yielding_storage`` does).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.storage.collection import TrackedCollection
from tests.support import connected, playlist, track

USER = 31
PID = playlist(1)


async def test_read_during_delete_does_not_resurrect_the_playlist(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    playlists_deleted = asyncio.Event()
    reader_done = asyncio.Event()
    original = TrackedCollection.delete_many

    async def delete_many(self: TrackedCollection, filter_: Any) -> int:
        if self.name == "playlist_history":
            playlists_deleted.set()
            await asyncio.wait_for(reader_done.wait(), 10)
        return await original(self, filter_)

    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": PID,
                "name": "secret",
                "track_ids": [track(1)],
                "seed_context": {"notes": "private"},
            },
        )
        monkeypatch.setattr(TrackedCollection, "delete_many", delete_many)

        async def reader() -> dict[str, Any]:
            await playlists_deleted.wait()
            try:
                return await call("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
            finally:
                reader_done.set()

        deleted, _ = await asyncio.gather(
            call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True}), reader()
        )
        assert deleted["deleted"] is True
        monkeypatch.setattr(TrackedCollection, "delete_many", original)

        # After an acknowledged hard delete nothing of the user remains.
        listed = await call.ok("memory_get_playlists", {"user_id": USER})
        assert listed["items"] == [], "the playlist document was resurrected by the concurrent read"
        await call.error("memory_get_playlist", {"user_id": USER, "playlist_id": PID}, "NOT_FOUND")
        users = await call.ok("ops_list_users", {})
        assert [u for u in users["users"] if u["user_id"] == USER] == []

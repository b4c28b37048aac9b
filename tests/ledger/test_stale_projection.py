"""A change whose playlist-document write failed (the fault injected at the storage adapter).

MongoDB: the commit point of a creation is the insert of bucket 0, of a mutation the bucket append;
if the playlist-document write after it fails (a failover, a timeout, the 16 MB limit) the change is
committed (a retry answers CONFLICT "already logged"), so get_playlists, ops.list_users and
get_playlist must not answer from the stale document (SPEC §4: the document is a projection rolled
forward). The embedded store: a call is one unit of work, and a call answered with an error leaves
no trace, so the same fault leaves nothing committed and a retry succeeds.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.errors import StorageUnavailable
from service.storage.collection import TrackedCollection
from tests.support import connected, playlist, track

USER = 61
PID = playlist(1)


def _fail_next_playlist_document_write(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    state = {"armed": 1}
    replace, update = TrackedCollection.replace_one, TrackedCollection.update_one

    def fire(self: TrackedCollection) -> None:
        if state["armed"] and self.name == "playlists":
            state["armed"] = 0
            raise StorageUnavailable("the database did not complete the operation")

    async def replace_one(self: TrackedCollection, document: Any, condition: Any = None) -> bool:
        fire(self)
        return await replace(self, document, condition)

    async def update_one(self: TrackedCollection, filter_: Any, upd: Any, upsert: bool = False) -> int:
        fire(self)
        return await update(self, filter_, upd, upsert)

    monkeypatch.setattr(TrackedCollection, "replace_one", replace_one)
    monkeypatch.setattr(TrackedCollection, "update_one", update_one)
    return state


async def test_committed_create_is_listed(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    create = {"user_id": USER, "playlist_id": PID, "name": "p", "track_ids": [track(1)]}
    async with connected(settings) as call:
        _fail_next_playlist_document_write(monkeypatch)
        await call.error("memory_log_playlist_create", create, "DB_ERROR")
        if settings.mongodb_uri:
            await call.error("memory_log_playlist_create", create, "CONFLICT")  # it is committed
        else:  # undone whole: nothing listed, and the retry is the creation
            assert (await call.ok("memory_get_playlists", {"user_id": USER}))["items"] == []
            await call.ok("memory_log_playlist_create", create)
        listed = await call.ok("memory_get_playlists", {"user_id": USER})
        assert [i["playlist_id"] for i in listed["items"]] == [PID]
        users = await call.ok("ops_list_users", {})
        assert [u["playlist_count"] for u in users["users"] if u["user_id"] == USER] == [1]


async def test_committed_mutation_is_visible(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": USER, "playlist_id": PID, "name": "p", "track_ids": [track(1)]}
        )
        _fail_next_playlist_document_write(monkeypatch)
        await call.error(
            "memory_log_playlist_mutation",
            {"user_id": USER, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": [track(2)]}},
            "DB_ERROR",
        )
        now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
        # MongoDB: committed, the ledger has it. Embedded: the call was undone whole.
        expected = [track(1), track(2)] if settings.mongodb_uri else [track(1)]
        assert now["track_ids"] == expected
        listed = await call.ok("memory_get_playlists", {"user_id": USER})
        assert listed["items"][0]["track_count"] == len(expected)
        details = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
        assert len(details["recent_events"]) == len(expected) - 1

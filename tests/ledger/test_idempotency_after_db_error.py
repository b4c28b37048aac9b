"""A retry after a DB_ERROR that struck *after* the commit point applies the change once.

The idempotency claim must survive a ``StorageUnavailable`` raised after the event was committed
(an acknowledgement lost on the network, or the projection update failing), or the retry would
find no claim and commit the same ``client_event_id`` a second time. The embedded engine never
raises PyMongoError by itself, so the fault is injected at the storage adapter
(``TrackedCollection``): the write is performed, then the driver error is reported, exactly what
a real MongoDB client sees when the reply to a successful write is lost.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.errors import StorageUnavailable
from service.storage.collection import TrackedCollection
from tests.support import connected, playlist, track

USER = 7
PID = playlist(1)
KEY = "6f0f8f8e-2d7b-4c61-9a53-0f1b0c7e9a11"


def _lose_reply_once(monkeypatch: pytest.MonkeyPatch, collection: str, marker: str) -> dict[str, int]:
    """The next update_one on ``collection`` whose update has ``marker`` runs, then fails."""
    original = TrackedCollection.update_one
    state = {"armed": 1, "fired": 0}

    async def update_one(self: TrackedCollection, filter_: Any, update: Any, upsert: bool = False) -> int:
        matched = await original(self, filter_, update, upsert)
        if state["armed"] and self.name == collection and marker in str(update):
            state["armed"] = 0
            state["fired"] += 1
            raise StorageUnavailable("the database did not complete the operation")
        return matched

    monkeypatch.setattr(TrackedCollection, "update_one", update_one)
    return state


@pytest.mark.parametrize(
    ("collection", "marker"),
    [("playlist_history", "events"), ("playlists", "recent_events")],
    ids=["reply-of-commit-lost", "projection-update-failed"],
)
async def test_retry_with_same_client_event_id_after_db_error_applies_once(
    settings: Any, monkeypatch: pytest.MonkeyPatch, collection: str, marker: str
) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": USER, "playlist_id": PID, "name": "p", "track_ids": [track(1)]}
        )
        fault = _lose_reply_once(monkeypatch, collection, marker)
        mutation = {
            "user_id": USER,
            "playlist_id": PID,
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [track(2)]},
            "client_event_id": KEY,
        }
        first = await call("memory_log_playlist_mutation", mutation)
        assert fault["fired"] == 1
        assert not first["success"] and first["error"]["code"] == "DB_ERROR"

        # The agent does what the contract tells it to: retry with the same client_event_id.
        await call.ok("memory_log_playlist_mutation", mutation)
        await call.ok("memory_log_playlist_mutation", mutation)

        now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
        assert now["track_ids"] == [track(1), track(2)], "the keyed change was applied more than once"
        details = await call.ok(
            "memory_get_playlist", {"user_id": USER, "playlist_id": PID, "include_events_limit": 50}
        )
        assert len(details["recent_events"]) == 1

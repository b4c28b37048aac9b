"""get_playlists does not skip a playlist whose change was in flight when the first page was served.

Later pages are ordered "as of" the first page's clock reading, deciding per event by
``recorded_ns``, which is read before the commit and before the playlist document is advanced. A
first page served in between sees the playlist at its old position; if a later page then saw the
event as "recorded before as_of" and moved the playlist above the cursor, it would never be
returned. SPEC §5: the cursor "neither skips nor repeats items when ... writes happen between
pages". On real MongoDB the window is the commit's network latency; on the embedded engine it is
forced by holding the commit write until the first page has been served.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.storage.collection import TrackedCollection
from tests.support import connected, playlist, track

USER = 51
A, B, C = playlist(1), playlist(2), playlist(3)


async def test_change_in_flight_during_first_page_is_not_skipped(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer_paused = asyncio.Event()
    first_page_served = asyncio.Event()
    original = TrackedCollection.update_one

    async def update_one(self: TrackedCollection, filter_: Any, update: Any, upsert: bool = False) -> int:
        if self.name == "playlist_history" and not writer_paused.is_set():
            writer_paused.set()
            await asyncio.wait_for(first_page_served.wait(), 10)
        return await original(self, filter_, update, upsert)

    async with connected(settings) as call:
        for pid, created in ((A, "2025-01-01T02:00:00Z"), (B, "2025-01-01T01:00:00Z"), (C, "2025-01-01T00:00:00Z")):
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": pid, "name": pid, "track_ids": [track(1)], "created_at": created},
            )
        monkeypatch.setattr(TrackedCollection, "update_one", update_one)
        writer = asyncio.create_task(
            call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": C,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(2)]},
                    "timestamp": "2025-01-01T03:00:00Z",
                },
            )
        )
        await asyncio.wait_for(writer_paused.wait(), 10)
        page = await call.ok("memory_get_playlists", {"user_id": USER, "limit": 1})
        first_page_served.set()
        await writer
        seen = [item["playlist_id"] for item in page["items"]]
        while page["next_cursor"] is not None:
            page = await call.ok("memory_get_playlists", {"user_id": USER, "limit": 1, "cursor": page["next_cursor"]})
            seen += [item["playlist_id"] for item in page["items"]]
    assert sorted(seen) == sorted([A, B, C]), f"pages returned {seen}"

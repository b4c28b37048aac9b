"""The playlist document (the projection) stays under MongoDB's 16 MB with large events.

SPEC §4: "a 10,000-track playlist must still work". The playlist document keeps ``track_ids``,
``latest_snapshot`` and the last ``recent_events_cap`` events, and one ADD_TRACKS / REMOVE_TRACKS
event may carry 10,000 track IDs of up to 80 characters (~0.9 MB of BSON): kept whole, about 17
such events would put the document past 16 MiB, and on real MongoDB its updates would then be
refused after the event's commit point. The embedded engine has no size limit, so the test measures
the BSON it stores for the document (the same BSON it journals).
"""

from __future__ import annotations

from typing import Any

import bson

from tests.support import connected

MONGODB_MAX_BSON = 16 * 1024 * 1024
USER = 41
PID = "p" * 30


def long_track(n: int) -> str:
    return f"{n:080d}"  # the PRD allows track IDs of up to 80 characters


async def test_playlist_document_stays_under_16_mib_with_large_events(settings_factory: Any) -> None:
    settings = settings_factory()
    tracks = [long_track(i) for i in range(10_000)]
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": USER, "playlist_id": PID, "name": "big", "track_ids": tracks}
        )
        for _ in range(10):  # 20 events, each carrying 10,000 IDs of 80 characters
            for kind in ("REMOVE_TRACKS", "ADD_TRACKS"):
                await call.ok(
                    "memory_log_playlist_mutation",
                    {"user_id": USER, "playlist_id": PID, "type": kind, "payload": {"track_ids": tracks}},
                )
        head = await call.service.database.playlists.find_one({"user_id": USER, "playlist_id": PID})
        buckets = await call.service.database.history.find({"user_id": USER, "playlist_id": PID})
    assert head is not None
    for bucket in buckets:
        assert len(bson.encode(bucket)) < MONGODB_MAX_BSON
    size = len(bson.encode(head))
    assert size < MONGODB_MAX_BSON, f"playlist document is {size / 2**20:.1f} MiB, over MongoDB's 16 MiB limit"

"""``include_tracks``: playlist answers name their tracks from the caller's own catalog."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success

P = playlist(1)


def _described(n: int) -> dict[str, Any]:
    return {"track_id": track(n), "name": f"Song {n}", "artists": [f"Artist {n % 3}"], "duration_ms": 200_000 + n}


async def test_playlist_answers_name_known_tracks_and_leave_unknown_ones_null(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": 1, "tracks": [_described(1), _described(3)]})
        await call.ok("memory_upsert_tracks", {"user_id": 2, "tracks": [_described(2)]})  # another user's catalog
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": P, "name": "Mix", "track_ids": [track(1), track(2), track(3), track(1)]},
        )
        rebuilt = assert_valid_success(
            "memory.reconstruct_playlist",
            await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": P, "include_tracks": True}),
        )
        unknown = {"name": None, "artists": None, "duration_ms": None}
        assert rebuilt["tracks"] == [_described(1), {"track_id": track(2), **unknown}, _described(3), _described(1)]
        assert rebuilt["tracks_truncated"] is False
        details = assert_valid_success(
            "memory.get_playlist",
            await call("memory_get_playlist", {"user_id": 1, "playlist_id": P, "include_tracks": True}),
        )
        assert details["latest_snapshot"]["tracks"] == rebuilt["tracks"]
        # Without the flag the answers are the PRD's, unchanged.
        plain = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": P})
        assert (
            "tracks" not in plain
            and "tracks"
            not in (await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": P}))["latest_snapshot"]
        )


async def test_names_stop_within_the_answer_budget_and_say_so(settings_factory: Any) -> None:
    settings = settings_factory(result_budget_bytes=10_000)
    ids = [track(n) for n in range(300)]
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": 1, "tracks": [_described(n) for n in range(300)]})
        await call.ok("memory_log_playlist_create", {"user_id": 1, "playlist_id": P, "name": "Long", "track_ids": ids})
        rebuilt = assert_valid_success(
            "memory.reconstruct_playlist",
            await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": P, "include_tracks": True}),
        )
    assert rebuilt["track_ids"] == ids, "the IDs are never cut"
    assert rebuilt["tracks_truncated"] is True and 0 < len(rebuilt["tracks"]) < len(ids)
    assert rebuilt["tracks"] == [_described(n) for n in range(len(rebuilt["tracks"]))]

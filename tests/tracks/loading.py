"""Load a catalog and the user's playlists through the tools, as an agent would."""

from __future__ import annotations

from typing import Any

from tests.support import Caller, playlist
from tests.tracks.catalog_data import by_title


async def upsert_all(call: Caller, user_id: int, tracks: list[dict[str, Any]], batch: int = 500) -> None:
    for start in range(0, len(tracks), batch):
        await call.ok("memory_upsert_tracks", {"user_id": user_id, "tracks": tracks[start : start + batch]})


async def log_kept(
    call: Caller, user_id: int, tracks: list[dict[str, Any]], kept: dict[str, list[tuple[str, str]]]
) -> None:
    """Log one playlist per entry of ``kept`` holding those (artist, title start) tracks."""
    for n, (name, items) in enumerate(kept.items(), start=1):
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": user_id,
                "playlist_id": playlist(n),
                "name": name,
                "track_ids": [by_title(tracks, artist, title) for artist, title in items],
            },
        )

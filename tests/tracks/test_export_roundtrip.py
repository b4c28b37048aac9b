"""Export → delete → import keeps the catalog and the confirmations, whole or in continuation
parts; exports made before the catalog existed still import; cursors of the new sections decode."""

from __future__ import annotations

from typing import Any

import pytest

from service.errors import InvalidArgument
from service.settings import Settings
from service.transfer.export import decode_cursor, encode_cursor
from tests.support import Caller, connected, playlist, track

USER = 31


def catalog(count: int) -> list[dict[str, Any]]:
    return [
        {
            "track_id": track(n),
            "name": f"Song number {n} " + "la " * (n % 40),
            "artists": [f"Band {n % 17}"],
            "album": f"Album {n % 9}",
            "duration_ms": 180_000 + n,
            "popularity": n % 100,
            "genres": ["rock", "pop"][: 1 + n % 2],
            "energy": (n % 10) / 10,
        }
        for n in range(1, count + 1)
    ]


async def write(call: Caller, count: int) -> None:
    tracks = catalog(count)
    for start in range(0, count, 500):
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": tracks[start : start + 500]})
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": USER, "playlist_id": playlist(1), "name": "p", "track_ids": [track(1), track(2)]},
    )
    for n in range(1, 40):
        await call.ok("memory_confirm_track", {"user_id": USER, "text": f"that song {n}", "track_id": track(n)})
    await call.ok("memory_confirm_track", {"user_id": USER, "text": "That song 1!", "track_id": track(1)})


async def stored(call: Caller) -> dict[str, Any]:
    db = call.service.database
    strip = ("written_by",)
    return {
        "tracks": [
            {k: v for k, v in d.items() if k not in strip}
            for d in await db.tracks.find({"user_id": USER}, sort=[("_id", 1)])
        ],
        "choices": [
            {k: v for k, v in d.items() if k not in strip}
            for d in await db.track_choices.find({"user_id": USER}, sort=[("_id", 1)])
        ],
    }


async def parts(call: Caller) -> list[dict[str, Any]]:
    found, arguments = [], {"user_id": USER}
    while True:
        data = (await call.ok("memory_export_user_data", arguments))["data"]
        found.append(data)
        if data["continuation"]["next_cursor"] is None:
            return found
        arguments = {"user_id": USER, "cursor": data["continuation"]["next_cursor"]}


async def test_round_trip_keeps_catalog_and_confirmations(settings: Settings) -> None:
    async with connected(settings) as call:
        await write(call, 60)
        before = await stored(call)
        answer = await call.ok("memory_resolve_track", {"user_id": USER, "text": "that song 7"})
        exported = await call.service.transfer.export_all(USER)
        assert len(exported["tracks"]) == 60 and len(exported["track_choices"]) == 39
        assert exported["track_choices"][0].keys() == {"text", "folded", "track_id", "confirmations", "confirmed_at"}
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        counts = await call.service.transfer.import_counts([exported], USER)
        assert counts["tracks"] == 60 and counts["track_choices"] == 39
        assert await stored(call) == before
        assert await call.ok("memory_resolve_track", {"user_id": USER, "text": "that song 7"}) == answer


async def test_round_trip_in_parts(settings_factory: Any) -> None:
    settings = settings_factory(export_part_bytes=10_000)
    async with connected(settings) as call:
        await write(call, 700)
        before = await stored(call)
        exported = await parts(call)
        assert len(exported) > 10
        assert sum(len(p["tracks"]) for p in exported) == 700  # nothing repeated, nothing skipped
        assert sum(len(p["track_choices"]) for p in exported) == 39
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        await call.service.transfer.import_counts(exported, USER)
        assert await stored(call) == before


async def test_an_export_without_the_catalog_sections_imports(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": USER, "playlist_id": playlist(1), "name": "p", "track_ids": [track(1)]},
        )
        exported = await call.service.transfer.export_all(USER)
        old = {k: v for k, v in exported.items() if k not in ("tracks", "track_choices")}
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        counts = await call.service.transfer.import_counts([old], USER)
        assert counts["playlists"] == 1 and counts["tracks"] == 0
        # Tracks written later make the user one that an import refuses, like any other data.
        await call.ok("memory_upsert_tracks", {"user_id": USER + 1, "tracks": catalog(1)})
        with pytest.raises(Exception, match="already has data"):
            await call.service.transfer.import_counts([old], USER + 1)


def test_cursors_of_the_catalog_sections_decode_and_others_do_not() -> None:
    for key in ([3, track(5)], [3, track(5), 2], [4, "ab" * 32], [4, "ab" * 32, 0]):
        assert decode_cursor(encode_cursor(10**18, key, 2)) == (10**18, key, 2)
    for key in ([3, 5], [4, track(1), "x"], [5, 7], [9, "x"], [3, track(1), 1, 1]):
        with pytest.raises(InvalidArgument):
            decode_cursor(encode_cursor(10**18, key, 2))

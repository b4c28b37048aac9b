"""memory_playlist_portability over the MCP client: per track in playlist order, the id on the target
or why there is none, exact counts, pages within the answer budget that neither skip nor repeat a
track when the playlist changes between them, and another user's playlist answered as missing."""

from __future__ import annotations

import json
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_error, assert_valid_success

ALICE, BOB = 51, 52
PID = playlist(1)
ISRC = "GBUM71029604"
APPLE = "1440857781"
MBID = "b1a9c0e9-d987-4042-ae91-78d6a3267d69"
ODD_ID = "local:track:summer-mix-01"  # a track id that is not a Spotify id


async def report(call: Caller, user_id: int, target: str, **extra: Any) -> dict[str, Any]:
    arguments = {"user_id": user_id, "playlist_id": PID, "target": target, **extra}
    return assert_valid_success("memory.playlist_portability", await call("memory_playlist_portability", arguments))


async def all_pages(call: Caller, user_id: int, target: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    pages = [await report(call, user_id, target)]
    while pages[-1]["next_cursor"] is not None:
        pages.append(await report(call, user_id, target, cursor=pages[-1]["next_cursor"]))
    return pages, [row for page in pages for row in page["tracks"]]


async def test_each_track_in_order_with_its_target_id_or_the_reason(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_upsert_tracks",
            {
                "user_id": ALICE,
                "tracks": [
                    {
                        "track_id": track(1),
                        "name": "One",
                        "artists": ["A"],
                        "external_ids": {"isrc": ISRC, "apple_music": APPLE},
                    },
                    {
                        "track_id": track(2),
                        "name": "Two",
                        "artists": ["B"],
                        "external_ids": {"musicbrainz_recording": MBID},
                    },
                    {"track_id": track(3), "name": "Three", "artists": ["C"]},
                    {"track_id": ODD_ID, "name": "Summer mix", "artists": ["D"]},
                ],
            },
        )
        order = [track(3), track(1), track(4), track(2), ODD_ID, track(1)]
        await call.ok(
            "memory_log_playlist_create", {"user_id": ALICE, "playlist_id": PID, "name": "P", "track_ids": order}
        )
        apple = await report(call, ALICE, "apple_music")
        spotify = await report(call, ALICE, "spotify")
        isrc = await report(call, ALICE, "isrc")
    assert [r["track_id"] for r in apple["tracks"]] == order and [r["position"] for r in apple["tracks"]] == list(
        range(6)
    )
    assert [(r["status"], r["target_id"], r["reason"]) for r in apple["tracks"]] == [
        ("unmatched", None, "name_only"),
        ("matched", APPLE, "external_id"),
        ("unmatched", None, "no_external_id"),
        ("unmatched", None, "other_ids_only"),
        ("unmatched", None, "name_only"),
        ("matched", APPLE, "external_id"),
    ]
    assert apple["counts"] == {"matched": 2, "unmatched": 4} and apple["track_count"] == 6
    assert apple["tracks"][2]["name"] is None and apple["tracks"][1]["artists"] == ["A"]
    # Spotify: the ledger's ids are Spotify ids, so a Spotify-shaped track id is its own match.
    assert [(r["target_id"], r["reason"]) for r in spotify["tracks"]] == [
        (track(3), "track_id"),
        (track(1), "track_id"),
        (track(4), "track_id"),
        (track(2), "track_id"),
        (None, "name_only"),
        (track(1), "track_id"),
    ]
    assert spotify["counts"] == {"matched": 5, "unmatched": 1}
    assert [r["target_id"] for r in isrc["tracks"]] == [None, ISRC, None, None, None, ISRC]
    assert isrc["counts"] == {"matched": 2, "unmatched": 4} and isrc["next_cursor"] is None


async def test_a_long_playlist_is_paged_within_16_kb_and_a_change_between_pages_moves_nothing(
    settings: Settings,
) -> None:
    tracks = [track(n) for n in range(1, 1201)]
    async with connected(settings) as call:
        catalog = [
            {
                "track_id": t,
                "name": f"Song {n} " + "la " * 20,
                "artists": ["Band"],
                "external_ids": {"apple_music": str(n)},
            }
            for n, t in enumerate(tracks[:600])
        ]
        for start in range(0, len(catalog), 500):
            await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": catalog[start : start + 500]})
        await call.ok(
            "memory_log_playlist_create", {"user_id": ALICE, "playlist_id": PID, "name": "Long", "track_ids": tracks}
        )
        first = await report(call, ALICE, "apple_music")
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": ALICE, "playlist_id": PID, "type": "REMOVE_TRACKS", "payload": {"track_ids": tracks[:10]}},
        )
        rest: list[dict[str, Any]] = []
        page = first
        pages = 1
        while page["next_cursor"] is not None:
            page = await report(call, ALICE, "apple_music", cursor=page["next_cursor"])
            assert page["counts"] == first["counts"] and page["as_of"] == first["as_of"]
            rest.extend(page["tracks"])
            pages += 1
            assert len(json.dumps({"success": True, "result": page}, separators=(",", ":"))) <= 16_384
        wrong = await call(
            "memory_playlist_portability",
            {"user_id": ALICE, "playlist_id": PID, "target": "isrc", "cursor": first["next_cursor"]},
        )
        after, _ = await all_pages(call, ALICE, "apple_music")
    assert len(json.dumps({"success": True, "result": first}, separators=(",", ":"))) <= 16_384
    rows = first["tracks"] + rest
    assert pages > 2 and [r["track_id"] for r in rows] == tracks  # as it stood at the first page
    assert [r["position"] for r in rows] == list(range(1200))
    assert first["counts"] == {"matched": 600, "unmatched": 600}
    assert assert_valid_error(wrong)["details"]["field"] == "cursor"
    assert after[0]["counts"] == {"matched": 590, "unmatched": 600} and after[0]["track_count"] == 1190


async def test_another_users_playlist_is_not_found_like_a_missing_one(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": ALICE, "playlist_id": PID, "name": "P", "track_ids": [track(1)]}
        )
        theirs = await call.error(
            "memory_playlist_portability", {"user_id": BOB, "playlist_id": PID, "target": "isrc"}, "NOT_FOUND"
        )
        missing = await call.error(
            "memory_playlist_portability", {"user_id": BOB, "playlist_id": playlist(9), "target": "isrc"}, "NOT_FOUND"
        )
        bad = await call.error(
            "memory_playlist_portability",
            {"user_id": ALICE, "playlist_id": PID, "target": "deezer"},
            "INVALID_ARGUMENT",
        )
    assert theirs["details"] == missing["details"] and theirs["message"] == missing["message"]
    assert bad["details"]["field"] == "target"

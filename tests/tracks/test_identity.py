"""Tracks that keep their identity across services: external ids through memory_upsert_tracks (checked,
spelled one way, merged when two tracks are one recording), a pasted link or code resolved exactly by
memory_resolve_track, and the ids kept through export and import."""

from __future__ import annotations

from typing import Any

import pytest

from service.settings import Settings
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_error, assert_valid_success

ALICE, BOB = 41, 42
SPOTIFY = "4uLU6hMCjMI75M1A2tKUQC"
ISRC = "GBUM71029604"
MBID = "b1a9c0e9-d987-4042-ae91-78d6a3267d69"
LASTFM = "f5a3c1d2-0000-4000-8000-00000000abcd"
APPLE = "1440857781"
HOLDER = track(1)


def song(n: int | str, name: str, **ids: str) -> dict[str, Any]:
    track_id = n if isinstance(n, str) else track(n)
    return {"track_id": track_id, "name": name, "artists": ["Rick Astley"], **({"external_ids": ids} if ids else {})}


async def upsert(call: Caller, user_id: int, *tracks: dict[str, Any]) -> dict[str, Any]:
    envelope = await call("memory_upsert_tracks", {"user_id": user_id, "tracks": list(tracks)})
    return assert_valid_success("memory.upsert_tracks", envelope)


async def resolve(call: Caller, user_id: int, text: str) -> dict[str, Any]:
    envelope = await call("memory_resolve_track", {"user_id": user_id, "text": text})
    return assert_valid_success("memory.resolve_track", envelope)


async def stored_ids(call: Caller, user_id: int, track_id: str) -> dict[str, str] | None:
    doc = await call.service.database.tracks.find_one({"_id": f"{user_id}:{track_id}", "user_id": user_id})
    return None if doc is None else doc.get("external_ids", {})


async def test_external_ids_are_stored_in_one_spelling_and_kept_by_a_call_that_does_not_know_them(
    settings: Settings,
) -> None:
    async with connected(settings) as call:
        first = await upsert(
            call, ALICE, song(1, "Never Gonna Give You Up", isrc=ISRC.lower(), musicbrainz_recording=MBID.upper())
        )
        assert first == {"user_id": ALICE, "inserted": 1, "updated": 0, "unchanged": 0}
        assert await stored_ids(call, ALICE, HOLDER) == {"isrc": ISRC, "musicbrainz_recording": MBID}
        again = await upsert(call, ALICE, song(1, "Never Gonna Give You Up", isrc=ISRC))
        assert again == {"user_id": ALICE, "inserted": 0, "updated": 0, "unchanged": 1}
        plain = await upsert(call, ALICE, song(1, "Never Gonna Give You Up"))
        assert plain["unchanged"] == 1  # ids are added to, never forgotten by a call without them
        more = await upsert(call, ALICE, song(1, "Never Gonna Give You Up", apple_music=APPLE))
        assert more["updated"] == 1
        assert await stored_ids(call, ALICE, HOLDER) == {
            "isrc": ISRC,
            "musicbrainz_recording": MBID,
            "apple_music": APPLE,
        }
        plain_track = await upsert(call, ALICE, song(2, "Together Forever"))
        assert plain_track["inserted"] == 1 and await stored_ids(call, ALICE, track(2)) == {}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("isrc", "GBUM7102960"),  # one digit short
        ("isrc", "GB-UM7-10-29604"),
        ("spotify", "4uLU6hMCjMI75M1A2tKUQ"),  # 21 characters
        ("spotify", "4uLU6hMCjMI75M1A2tKUQ!"),
        ("apple_music", "id1440857781"),
        ("musicbrainz_recording", "b1a9c0e9d98740 42ae9178d6a3267d69"),
        ("lastfm_mbid", "not-a-uuid"),
        ("deezer", "3135556"),  # not a key this service knows
    ],
)
async def test_a_malformed_external_id_is_refused_naming_the_field_and_nothing_is_written(
    settings: Settings, field: str, value: str
) -> None:
    async with connected(settings) as call:
        envelope = await call(
            "memory_upsert_tracks", {"user_id": ALICE, "tracks": [song(2, "Fine"), song(1, "Bad", **{field: value})]}
        )
        error = assert_valid_error(envelope)
        assert error["code"] == "INVALID_ARGUMENT"
        assert error["details"]["field"] == f"tracks[1].external_ids.{field}"
        assert await call.service.database.tracks.find({"user_id": ALICE}) == []


async def test_a_new_track_naming_a_held_id_is_merged_into_the_existing_track(settings: Settings) -> None:
    async with connected(settings) as call:
        await upsert(call, ALICE, song(1, "Never Gonna Give You Up", isrc=ISRC))
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": ALICE, "playlist_id": playlist(1), "name": "Rick", "track_ids": [HOLDER]},
        )
        merged = await upsert(
            call, ALICE, song(5, "Never Gonna Give You Up - 2022 Remaster", isrc=ISRC, apple_music=APPLE)
        )
        assert merged == {
            "user_id": ALICE,
            "inserted": 0,
            "updated": 1,
            "unchanged": 0,
            "merged": [{"track_id": track(5), "into": HOLDER, "by": "isrc"}],
        }
        assert await stored_ids(call, ALICE, track(5)) is None  # no second track
        assert await stored_ids(call, ALICE, HOLDER) == {"isrc": ISRC, "apple_music": APPLE}
        holder = await call.service.database.tracks.find_one({"_id": f"{ALICE}:{HOLDER}", "user_id": ALICE})
        assert holder["name"] == "Never Gonna Give You Up"  # the existing track's description wins
        repeated = await upsert(call, ALICE, song(5, "Never Gonna Give You Up - 2022 Remaster", isrc=ISRC))
        assert repeated["unchanged"] == 1 and repeated["merged"] == [
            {"track_id": track(5), "into": HOLDER, "by": "isrc"}
        ]
        kept = await call.ok("memory_reconstruct_playlist", {"user_id": ALICE, "playlist_id": playlist(1)})
        assert kept["track_ids"] == [HOLDER]  # the ledger is not rewritten
        # Two new tracks of one call that are one recording: the first listed is kept.
        both = await upsert(
            call, ALICE, song(6, "Take On Me", lastfm_mbid=LASTFM), song(7, "Take on me", lastfm_mbid=LASTFM)
        )
        assert both["inserted"] == 1 and both["merged"] == [
            {"track_id": track(7), "into": track(6), "by": "lastfm_mbid"}
        ]
        # A Spotify id is also a catalog track's own id (the ledger's ids are Spotify ids).
        await upsert(call, ALICE, song(SPOTIFY, "Never Gonna Stop"))
        by_own_id = await upsert(call, ALICE, song(8, "Never Gonna Stop (Live)", spotify=SPOTIFY))
        assert by_own_id["merged"] == [{"track_id": track(8), "into": SPOTIFY, "by": "spotify"}]


async def test_a_catalogued_track_given_another_tracks_id_is_a_conflict_that_writes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await upsert(call, ALICE, song(1, "One", isrc=ISRC), song(2, "Two"))
        envelope = await call(
            "memory_upsert_tracks", {"user_id": ALICE, "tracks": [song(3, "Three"), song(2, "Two", isrc=ISRC)]}
        )
        error = assert_valid_error(envelope)
        assert error["code"] == "CONFLICT" and error["details"]["field"] == "tracks[1].external_ids.isrc"
        assert error["details"]["reason"] == "external_id_held"
        assert await stored_ids(call, ALICE, track(3)) is None and await stored_ids(call, ALICE, track(2)) == {}


async def test_a_pasted_link_or_code_resolves_exactly(settings: Settings) -> None:
    async with connected(settings) as call:
        await upsert(
            call,
            ALICE,
            song(1, "Never Gonna Give You Up", isrc=ISRC, musicbrainz_recording=MBID, apple_music=APPLE),
            song(SPOTIFY, "Together Forever"),
            song(3, "Whenever You Need Somebody", spotify="0VjIjW4GlUZAMYd2vXMi3b", lastfm_mbid=LASTFM),
        )
        pasted = {
            f"spotify:track:{SPOTIFY}": SPOTIFY,
            f"https://open.spotify.com/track/{SPOTIFY}?si=1a2b3c4d5e6f": SPOTIFY,
            f"https://open.spotify.com/intl-de/track/{SPOTIFY}": SPOTIFY,
            "https://open.spotify.com/track/0VjIjW4GlUZAMYd2vXMi3b": track(3),
            f"https://music.apple.com/gb/album/whenever-you-need-somebody/1440857000?i={APPLE}": HOLDER,
            f"https://music.apple.com/us/song/never-gonna-give-you-up/{APPLE}": HOLDER,
            ISRC: HOLDER,
            ISRC.lower(): HOLDER,
            f"  {MBID.upper()} ": HOLDER,
            f"https://musicbrainz.org/recording/{MBID}": HOLDER,
            LASTFM: track(3),
        }
        for text, expected in pasted.items():
            answer = await resolve(call, ALICE, text)
            assert answer["resolved"] is True, text
            assert answer["best"]["track_id"] == expected, text
            assert answer["best"]["confidence"] == 1.0 and answer["best"]["reason"] == "external_id", text
            assert answer["alternatives"] == []
        unknown = [
            "spotify:track:7ouMYWpwJ422jRcDASZB7P",
            "https://open.spotify.com/track/7ouMYWpwJ422jRcDASZB7P?si=x",
            "https://music.apple.com/us/album/x/1?i=999",
            "USRC17607839",
            "00000000-0000-4000-8000-000000000000",
            "https://open.spotify.com/album/4uLU6hMCjMI75M1A2tKUQC",
            "https://example.com/track/4uLU6hMCjMI75M1A2tKUQC",
        ]
        for text in unknown:
            assert await resolve(call, ALICE, text) == {
                "user_id": ALICE,
                "resolved": False,
                "best": None,
                "alternatives": [],
            }
        # Words still resolve by words.
        assert (await resolve(call, ALICE, "never gonna give you up"))["best"]["track_id"] == HOLDER


async def test_another_users_ids_resolve_to_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await upsert(call, ALICE, song(1, "Never Gonna Give You Up", isrc=ISRC), song(SPOTIFY, "Together Forever"))
        for text in (ISRC, f"spotify:track:{SPOTIFY}"):
            assert (await resolve(call, BOB, text))["resolved"] is False
        merged = await upsert(call, BOB, song(9, "Never Gonna Give You Up", isrc=ISRC))
        assert merged["inserted"] == 1 and "merged" not in merged  # Bob's catalog is his own


async def test_export_and_import_keep_external_ids(settings: Settings) -> None:
    async with connected(settings) as call:
        await upsert(call, ALICE, song(1, "Never Gonna Give You Up", isrc=ISRC, spotify=SPOTIFY), song(2, "Plain"))
        exported = await call.service.transfer.export_all(ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert (await resolve(call, ALICE, ISRC))["resolved"] is False  # deleted with the user
        await call.service.transfer.import_counts([exported], ALICE)
        assert await stored_ids(call, ALICE, HOLDER) == {"isrc": ISRC, "spotify": SPOTIFY}
        assert (await resolve(call, ALICE, f"spotify:track:{SPOTIFY}"))["best"]["track_id"] == HOLDER

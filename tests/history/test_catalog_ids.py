"""Tracks go into the catalog with the ids their file carries: a Last.fm scrobble's mbid makes a
track ``mbid-<mbid>`` that a pasted MusicBrainz id resolves exactly, a Spotify id makes the
track a pasted Spotify link resolves, and a recording the catalog holds already (by its id, or
as another track holding the same Spotify id or mbid) is never added a second time."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.history.history_fixtures import START, extended, lastfm_page, minutes, track_id, write_json
from tests.history.history_support import run_import, stored
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2
MBID = "1f6f2a2c-9e4b-4c1a-8d3e-6a1b2c3d4e5f"  # made up, MusicBrainz's shape
HELD_AS_LASTFM = "2a7b3c4d-0e1f-4a2b-9c3d-4e5f6a7b8c9d"
HELD_AS_MUSICBRAINZ = "3b8c4d5e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"


def scrobbles_with(mbids: dict[str, str], scrobbles: list[tuple[datetime, str, str]]) -> dict[str, Any]:
    """A ``user.getRecentTracks`` page whose tracks named in ``mbids`` carry that mbid."""
    page = lastfm_page(scrobbles)
    for row in page["recenttracks"]["track"]:
        row["mbid"] = mbids.get(row["name"], "")
    return page


async def resolved(call: Caller, user_id: int, text: str) -> dict[str, Any]:
    envelope = await call("memory_resolve_track", {"user_id": user_id, "text": text})
    return assert_valid_success("memory.resolve_track", envelope)


async def test_lastfm_mbid_tracks_resolve_exactly(settings: Settings, tmp_path: Path) -> None:
    page = scrobbles_with(
        {"Hunter": MBID.upper(), "Army of Me": "", "Jóga": "not-a-musicbrainz-id"},
        [
            (START, "Björk", "Hunter"),
            (START + minutes(5), "Björk", "Army of Me"),
            (START + minutes(10), "Björk", "Jóga"),
            (START + minutes(15), "Björk", "Hunter"),
        ],
    )
    write_json(tmp_path / "lastfm.json", page)
    async with connected(settings) as call:
        report = await run_import(call, ALICE, tmp_path / "lastfm.json")
        assert (report["plays"], report["tracks_added"]) == (4, 1)  # only the scrobble with a real mbid
        plays, _ = await stored(call, ALICE)
        assert [(p[1], p[3]) for p in plays] == [  # in name order
            ("Army of Me", None),
            ("Hunter", f"mbid-{MBID}"),
            ("Hunter", f"mbid-{MBID}"),
            ("Jóga", None),
        ]

        found = await resolved(call, ALICE, MBID)
        assert found["resolved"] is True
        assert found["best"] == {
            "track_id": f"mbid-{MBID}",
            "name": "Hunter",
            "artists": ["Björk"],
            "confidence": 1.0,
            "reason": "external_id",
        }
        assert (await resolved(call, BOB, MBID))["resolved"] is False  # another user's track is no one's
        again = await run_import(call, ALICE, tmp_path / "lastfm.json")
        assert (again["plays"], again["duplicates"], again["tracks_added"]) == (0, 4, 0)


async def test_a_recording_held_already_is_not_added_again(settings: Settings, tmp_path: Path) -> None:
    catalog = [
        {"track_id": track(1), "name": "Hunter", "artists": ["Björk"], "external_ids": {"lastfm_mbid": HELD_AS_LASTFM}},
        {
            "track_id": track(2),
            "name": "Jóga",
            "artists": ["Björk"],
            "external_ids": {"musicbrainz_recording": HELD_AS_MUSICBRAINZ},
        },
        {"track_id": track(3), "name": "Song 5", "artists": ["Artist 5"], "external_ids": {"spotify": track_id(5)}},
        {"track_id": track_id(6), "name": "Song 6 (stored)", "artists": ["Artist 6"], "genres": ["folk"]},
    ]
    write_json(
        tmp_path / "lastfm.json",
        scrobbles_with(
            {"Hunter": HELD_AS_LASTFM, "Jóga": HELD_AS_MUSICBRAINZ, "Bachelorette": MBID},
            [
                (START, "Björk", "Hunter"),
                (START + minutes(5), "Björk", "Jóga"),
                (START + minutes(9), "Björk", "Bachelorette"),
            ],
        ),
    )
    write_json(
        tmp_path / "Streaming_History_Audio_2021.json", [extended(n, START + minutes(60 + 4 * n)) for n in (5, 6, 7)]
    )
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": catalog})
        await call.ok("memory_upsert_tracks", {"user_id": BOB, "tracks": [{**catalog[0], "track_id": track(9)}]})
        lastfm = await run_import(call, ALICE, tmp_path / "lastfm.json")
        spotify = await run_import(call, ALICE, tmp_path / "Streaming_History_Audio_2021.json")
        # Only Bachelorette (a new mbid) and Song 7 (a new Spotify id) are new recordings.
        assert (lastfm["tracks_added"], spotify["tracks_added"]) == (1, 1)
        tracks = await call.service.tracks.describe(
            ALICE, [f"mbid-{HELD_AS_LASTFM}", f"mbid-{HELD_AS_MUSICBRAINZ}", f"mbid-{MBID}", track_id(5), track_id(7)]
        )
        assert sorted(tracks) == sorted([f"mbid-{MBID}", track_id(7)])
        stored_six = await call.service.tracks.describe(ALICE, [track_id(6)])
        assert stored_six[track_id(6)]["genres"] == ["folk"]  # a stored track is not rewritten

        assert (await resolved(call, ALICE, HELD_AS_LASTFM))["best"]["track_id"] == track(1)
        assert (await resolved(call, ALICE, HELD_AS_MUSICBRAINZ))["best"]["track_id"] == track(2)
        assert (await resolved(call, ALICE, f"spotify:track:{track_id(5)}"))["best"]["track_id"] == track(3)
        link = await resolved(call, ALICE, f"https://open.spotify.com/track/{track_id(7)}?si=abc")
        assert (link["best"]["track_id"], link["best"]["reason"], link["best"]["confidence"]) == (
            track_id(7),
            "external_id",
            1.0,
        )
        # Bob holding the same mbid does not keep it out of Alice's catalog, nor the other way round.
        bob = await run_import(call, BOB, tmp_path / "lastfm.json")
        assert bob["tracks_added"] == 2  # Jóga and Bachelorette: Bob holds only Hunter's mbid
        assert (await resolved(call, BOB, HELD_AS_LASTFM))["best"]["track_id"] == track(9)

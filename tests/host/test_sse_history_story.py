"""Years of listening, end to end: a Spotify extended history and a Last.fm page imported by the
real ``memory-service import-history --json``, then a real ``serve`` process asked over the
official MCP SSE client whether a recommendation was played, what pasted links name, and how a
playlist carries to Spotify. Every envelope is checked against its tool's schema by ``WireCaller``.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.history.history_fixtures import START, episode, extended, lastfm_page, minutes, track_id, write_json
from tests.support import playlist
from tests.support.mcp_sessions import WireCaller, serving
from tests.support.server_process import run_cli

pytestmark = pytest.mark.slow

USER = 11
DAY = timedelta(days=1)
SAYS, SAMAN, SECRET = track_id(1), track_id(2), track_id(3)  # Spotify ids of the history's tracks
SAYS_PLAYED = [START, START + DAY, START + 2 * DAY]
EDEN_MBID = "0c8a7b6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"  # made up, MusicBrainz's shape
LOCAL = "localdemo01"  # a track the catalog knows by name only
NEVER_CATALOGUED = "uncatalogued01"
MIX = playlist(1101)


def history(folder: Path) -> None:
    """One extended-history file (a track played three times, one played once and skipped once,
    a private stream, a podcast, a row twice) and one Last.fm page (a scrobble with an mbid, one
    without)."""
    says = [extended(1, at, artist="Nils Frahm", track="Says") for at in SAYS_PLAYED]
    rows = [
        *says,
        extended(2, START + minutes(10), artist="Ólafur Arnalds", track="Saman"),
        extended(2, START + minutes(20), ms=12_000, artist="Ólafur Arnalds", track="Saman"),
        extended(3, START + minutes(30), artist="Quiet Artist", track="Secret Song", private=True),
        episode(START + minutes(40)),
        says[0],
    ]
    write_json(folder / "Spotify Extended Streaming History" / "Streaming_History_Audio_2021.json", rows)
    page = lastfm_page([(START + 3 * DAY, "Hania Rani", "Eden"), (START + 3 * DAY + minutes(6), "Hania Rani", "Glass")])
    for row in page["recenttracks"]["track"]:
        row["mbid"] = EDEN_MBID if row["name"] == "Eden" else ""
    write_json(folder / "lastfm" / "recenttracks_1.json", page)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", ".000Z")


async def validated(call: WireCaller, entities: list[str], recommended_at: datetime) -> dict[str, Any]:
    memory = await call.ok(
        "memory_add",
        {
            "user_id": USER,
            "type": "recommendation",
            "entities": entities,
            "summary": f"Suggested {' – '.join(entities)}",
            "importance": 6,
            "timestamp": iso(recommended_at),
            "skip_dedup": True,  # the same track recommended again a day later is a recommendation of its own
        },
    )
    answer = await call.ok("memory_validate_recommendation", {"user_id": USER, "memory_id": memory["memory_id"]})
    return dict(answer["validation"])


async def resolved(call: WireCaller, text: str) -> dict[str, Any]:
    return dict(await call.ok("memory_resolve_track", {"user_id": USER, "text": text}))


async def test_imported_history_over_sse(settings: Settings, tmp_path: Path) -> None:
    history(tmp_path / "download")
    # On the embedded store the data directory admits one process: the import runs before serve.
    done = run_cli(
        ["import-history", str(tmp_path / "download"), "--user-id", str(USER), "--json"], settings, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "entries": 10,
        "plays": 6,  # Says three times, Saman once, both scrobbles
        "skips": 1,
        "private_skipped": 1,
        "not_music": 1,
        "duplicates": 1,
        "tracks_added": 3,  # Says and Saman by their Spotify ids, Eden by its mbid
        "first_played": iso(START),
        "last_played": iso(START + 3 * DAY + minutes(6)),
    }

    async with serving("sse", settings, tmp_path) as session, session() as call:
        await call.ok("memory_enable_toolsets", {"toolsets": ["all"]})

        # The imported plays answer a follow-up: all three before, the last one after a day.
        before_all = await validated(call, ["Nils Frahm", "Says"], START - DAY)
        counted = (before_all["plays_since_rec"], before_all["plays_before_rec"], before_all["matched_on"])
        assert counted == (3, 0, "work")
        assert before_all["first_play_after"] == iso(SAYS_PLAYED[0])
        late = await validated(call, ["Nils Frahm", "Says"], START + DAY + minutes(1))
        assert (late["plays_since_rec"], late["plays_before_rec"], late["user_heard_before"]) == (1, 2, True)
        assert late["first_play_after"] == iso(SAYS_PLAYED[-1])  # the last play
        saman = await validated(call, ["Saman"], START - DAY)
        assert saman["plays_since_rec"] == 1  # the skip is no play
        secret = await validated(call, ["Secret Song"], START - DAY)
        assert (secret["plays_since_rec"], secret["matched_on"], secret["plays_logged"]) == (0, None, True)

        # Pasted links and ids name the imported tracks exactly.
        for text in (f"https://open.spotify.com/track/{SAYS}?si=x", f"spotify:track:{SAYS}"):
            answer = await resolved(call, text)
            assert answer["resolved"] is True, answer
            best = answer["best"]
            assert (best["track_id"], best["name"], best["confidence"], best["reason"]) == (
                SAYS,
                "Says",
                1.0,
                "external_id",
            )
        unknown = await resolved(call, f"spotify:track:{'7' * 22}")
        assert (unknown["resolved"], unknown["best"]) == (False, None)
        assert (await resolved(call, f"spotify:track:{SECRET}"))["resolved"] is False  # private: not imported
        eden = await resolved(call, EDEN_MBID)
        assert (eden["best"]["track_id"], eden["best"]["name"], eden["best"]["reason"]) == (
            f"mbid-{EDEN_MBID}",
            "Eden",
            "external_id",
        )

        # A playlist of imported and other tracks, carried to Spotify.
        await call.ok(
            "memory_upsert_tracks",
            {"user_id": USER, "tracks": [{"track_id": LOCAL, "name": "Home Demo", "artists": ["Me"]}]},
        )
        order = [SAYS, LOCAL, SAMAN, f"mbid-{EDEN_MBID}", NEVER_CATALOGUED]
        await call.ok(
            "memory_log_playlist_create", {"user_id": USER, "playlist_id": MIX, "name": "Mix", "track_ids": order}
        )
        report = await call.ok(
            "memory_playlist_portability", {"user_id": USER, "playlist_id": MIX, "target": "spotify"}
        )
        assert (report["track_count"], report["counts"], report["next_cursor"]) == (
            5,
            {"matched": 2, "unmatched": 3},
            None,
        )
        rows = [(t["position"], t["track_id"], t["target_id"], t["status"], t["reason"]) for t in report["tracks"]]
        assert rows == [
            (0, SAYS, SAYS, "matched", "track_id"),
            (1, LOCAL, None, "unmatched", "name_only"),
            (2, SAMAN, SAMAN, "matched", "track_id"),
            (3, f"mbid-{EDEN_MBID}", None, "unmatched", "other_ids_only"),
            (4, NEVER_CATALOGUED, None, "unmatched", "no_external_id"),
        ]

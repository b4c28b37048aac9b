"""Each format's rows counted exactly (not music, private, duplicate, skip, play, in that order),
stored as plays and skips, tracks added with the ids the file carries, a second import inert,
and a broken file leaving nothing of itself behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import InvalidArgument
from service.settings import Settings
from tests.history.history_fixtures import (
    START,
    account,
    episode,
    extended,
    lastfm_page,
    minutes,
    spotify_zip,
    track_id,
    write_json,
)
from tests.history.history_support import raw_buckets, run_import, stored
from tests.support import connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2


def extended_rows() -> tuple[list[dict], list[dict]]:
    """Two files: 6 plays, 2 skips, 2 private, 2 not music, 3 duplicates."""
    first = [
        extended(1, START),
        extended(2, START + minutes(4)),
        extended(3, START + minutes(8), ms=30_000),  # exactly 30 s: a play
        extended(4, START + minutes(12), skipped=True),  # Spotify says skipped, but it played 200 s: a play
        extended(5, START + minutes(16), ms=12_000, skipped=False),  # 12 s: a skip whatever the flag says
        extended(6, START + minutes(20), private=True),
        episode(START + minutes(24)),
        extended(1, START),  # the same play twice in one file
    ]
    second = [
        extended(7, START + minutes(60 * 24 * 40)),  # next month
        extended(8, START + minutes(60 * 24 * 40 + 4), ms=29_999),
        extended(9, START + minutes(60 * 24 * 40 + 8), ms=5_000, private=True),
        episode(START + minutes(60 * 24 * 40 + 12), audiobook=True),
        extended(10, START + minutes(60 * 24 * 40 + 16)),
        extended(2, START + minutes(4)),  # a play of the first file again
        extended(8, START + minutes(60 * 24 * 40 + 4), ms=29_999),  # a skip again
    ]
    return first, second


async def test_extended_history_counts_each_row_once(settings: Settings, tmp_path: Path) -> None:
    first, second = extended_rows()
    folder = tmp_path / "history"
    write_json(folder / "Streaming_History_Audio_2021_0.json", first)
    write_json(folder / "Streaming_History_Audio_2021_1.json", second)
    async with connected(settings) as call:
        report = await run_import(call, ALICE, folder)
        assert report == {
            "entries": 15,
            "plays": 6,
            "skips": 2,
            "private_skipped": 2,
            "not_music": 2,
            "duplicates": 3,
            "tracks_added": 8,
            "first_played": "2021-03-01T08:00:00.000Z",
            "last_played": "2021-04-10T08:16:00.000Z",
        }
        plays, skips = await stored(call, ALICE)
        assert sorted(p[1] for p in plays) == ["Song 1", "Song 10", "Song 2", "Song 3", "Song 4", "Song 7"]
        assert sorted(s[1] for s in skips) == ["Song 5", "Song 8"]
        assert min(plays, key=lambda p: p[4]) == (
            "Artist 1",
            "Song 1",
            "Album 1",
            track_id(1),
            "2021-03-01T08:00:00+00:00",
        )
        catalog = assert_valid_success(
            "memory.resolve_track", await call("memory_resolve_track", {"user_id": ALICE, "text": "Song 10 Artist 3"})
        )
        assert catalog["best"]["track_id"] == track_id(10)
        # Skips are not plays: the tools count only the six.
        status = assert_valid_success("memory.status", await call("memory_status", {"user_id": ALICE}))
        assert status["counts"]["play_buckets"] == 2

        before = await raw_buckets(call, ALICE)
        again = await run_import(call, ALICE, folder)
        assert again == {
            "entries": 15,
            "plays": 0,
            "skips": 0,
            "private_skipped": 2,
            "not_music": 2,
            "duplicates": 11,
            "tracks_added": 0,
            "first_played": None,
            "last_played": None,
        }
        assert await raw_buckets(call, ALICE) == before  # not one write

        private = await run_import(call, ALICE, folder, include_private=True)
        assert (private["plays"], private["skips"], private["private_skipped"]) == (1, 1, 0)
        assert await stored(call, BOB) == ([], [])


async def test_the_zip_as_spotify_ships_it(settings: Settings, tmp_path: Path) -> None:
    first, second = extended_rows()
    archive = spotify_zip(
        tmp_path / "my_spotify_data.zip",
        {"Streaming_History_Audio_2019-2021_0.json": first, "Streaming_History_Audio_2021_1.json": second},
        {"StreamingHistory_music_0.json": [account(START, "Artist 1", "Song 1")]},
    )
    async with connected(settings) as call:
        report = await run_import(call, ALICE, archive)
        # The account data repeats the extended history to the minute: left out beside it.
        assert (report["entries"], report["plays"], report["skips"], report["duplicates"]) == (15, 6, 2, 3)
        only_account = await run_import(call, BOB, archive, wanted="spotify-account")
        assert (only_account["entries"], only_account["plays"], only_account["tracks_added"]) == (1, 1, 0)


async def test_account_data_and_its_podcasts(settings: Settings, tmp_path: Path) -> None:
    folder = tmp_path / "MyData"
    write_json(
        folder / "StreamingHistory_music_0.json",
        [
            account(START, "Nina Simone", "Sinnerman"),
            account(START + minutes(1), "Nina Simone", "Feeling Good", ms=2_000),
            account(START, "nina simone", "SINNERMAN"),  # folded alike: the same play
        ],
    )
    write_json(
        folder / "StreamingHistory_podcast_0.json",
        [{"endTime": "2021-03-02 09:00", "podcastName": "A Show", "episodeName": "Episode 1", "msPlayed": 900_000}],
    )
    async with connected(settings) as call:
        report = await run_import(call, ALICE, folder)
        assert (report["entries"], report["plays"], report["skips"], report["duplicates"]) == (4, 1, 1, 1)
        assert (report["not_music"], report["tracks_added"]) == (1, 0)  # no Spotify id: no catalog entry


async def test_lastfm_pages(settings: Settings, tmp_path: Path) -> None:
    older = [(START + minutes(i * 5), "Björk", f"Track {i}") for i in range(3)]
    newer = [(START + minutes(100 + i * 5), "Bjork", f"Track {i}") for i in range(2)]
    write_json(tmp_path / "lastfm" / "page_2.json", lastfm_page(older))
    write_json(tmp_path / "lastfm" / "page_1.json", [lastfm_page([*newer, older[2]], now_playing=("Björk", "Jóga"))])
    async with connected(settings) as call:
        report = await run_import(call, ALICE, tmp_path / "lastfm", wanted="lastfm")
        # The now-playing row is not history yet; the scrobble on both pages is stored once.
        assert (report["entries"], report["plays"], report["skips"], report["duplicates"]) == (6, 5, 0, 1)
        plays, _ = await stored(call, ALICE)
        assert plays[0][2] == "Bjork album"


async def test_a_broken_file_leaves_nothing_of_itself(settings: Settings, tmp_path: Path) -> None:
    first, second = extended_rows()
    folder = tmp_path / "history"
    write_json(folder / "Streaming_History_Audio_2021_0.json", first)
    broken = folder / "Streaming_History_Audio_2021_1.json"
    text = write_json(broken, second).read_text()
    broken.write_text(text[: len(text) - 40])  # cut off, as a download interrupted
    async with connected(settings) as call:
        with pytest.raises(InvalidArgument, match=r"Streaming_History_Audio_2021_1\.json"):
            await run_import(call, ALICE, folder)
        plays, skips = await stored(call, ALICE)
        assert (len(plays), len(skips)) == (4, 1)  # the first file whole, nothing of the second
        write_json(broken, second)
        report = await run_import(call, ALICE, folder)
        assert (report["plays"], report["skips"], report["duplicates"]) == (2, 1, 8)

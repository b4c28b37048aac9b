"""Imported plays and skips travel with the user: an export imported as another user holds the
same plays and skips, and forgetting a month's only play keeps that month's skips. Imported plays
count as plays for the conflicts between what was said and what was played, and for rest; an
imported skip counts for neither."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from service.memories.plays import counting
from service.settings import Settings
from tests.history.history_fixtures import START, extended, minutes, track_id, write_json
from tests.history.history_support import run_import, stored
from tests.support import connected
from tests.transfer.export_support import export_parts

ALICE, BOB = 1, 2


async def test_export_import_and_forget_carry_the_skips(settings: Settings, tmp_path: Path) -> None:
    rows = [extended(1, START), extended(2, START + minutes(3), ms=4_000), extended(3, START + minutes(6), ms=9_000)]
    write_json(tmp_path / "Streaming_History_Audio_0.json", rows)
    async with connected(settings) as call:
        report = await run_import(call, ALICE, tmp_path / "Streaming_History_Audio_0.json")
        assert (report["plays"], report["skips"]) == (1, 2)
        parts = [result["data"] for result, _, _ in await export_parts(call, ALICE)]
        await call.ok("memory_import_user_data", {"user_id": BOB, "data": parts, "confirm": True})
        assert await stored(call, BOB) == await stored(call, ALICE)
        # A re-import into the imported user finds every row stored already.
        again = await run_import(call, BOB, tmp_path / "Streaming_History_Audio_0.json")
        assert (again["plays"], again["skips"], again["duplicates"]) == (0, 0, 3)

        play_id = f"Artist 1|Song 1|{rows[0]['ts']}"
        await call.ok("memory_forget", {"user_id": ALICE, "kind": "play", "id": play_id, "confirm": True})
        plays, skips = await stored(call, ALICE)
        assert (plays, len(skips)) == ([], 2)
        status = await call.ok("memory_status", {"user_id": ALICE})
        assert status["counts"]["play_buckets"] == 1


async def test_imported_plays_count_for_conflicts_and_rest(settings: Settings, tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    rows = [
        *(extended(1, now - timedelta(hours=h), artist="Nickelback") for h in (2, 20, 40, 60)),
        *(extended(2, now - timedelta(hours=h), artist="Nickelback") for h in (5, 30)),
        extended(1, now - timedelta(hours=1), ms=5_000, artist="Nickelback"),  # a skip: neither
    ]
    path = tmp_path / "Streaming_History_Audio_0.json"
    write_json(path, rows)
    async with connected(settings) as call:
        said = {"user_id": ALICE, "type": "dislike", "source": "user", "payload": {"artist": "Nickelback"}}
        await call.ok("memory_append_preference_event", said)
        report = await run_import(call, ALICE, path)
        assert (report["plays"], report["skips"], report["tracks_added"]) == (6, 1, 2)

        [conflict] = (await call.ok("memory_list_conflicts", {"user_id": ALICE}))["conflicts"]
        assert conflict["kind"] == "played_despite_dislike" and conflict["subject"] == {"artist": "Nickelback"}
        assert conflict["played"]["count"] == 6

        rest = {"rest": {"max_plays": 3, "days": 7}}
        checked = await call.ok(
            "memory_check_playlist", {"user_id": ALICE, "track_ids": [track_id(1), track_id(2)], "rules": rest}
        )
        rested = {v["track_ids"][0]: v["message"] for v in checked["violations"] if v["rule"] == "rest"}
        assert rested == {track_id(1): "Song 1 – Nickelback played 4 times in the last 7 days (rest limit 3)"}
        assert (await call.ok("memory_list_conflicts", {"user_id": BOB}))["conflicts"] == []

        counts = (await call.ok("memory_status", {"user_id": ALICE}))["counts"]
        assert (counts["plays"], counts["skips"]) == (6, 1)
        # The pipeline MongoDB counts with gives the same on the stored buckets.
        [summed] = await call.service.database.plays.aggregate(counting(ALICE))
        assert (summed["plays"], summed["skips"]) == (6, 1)

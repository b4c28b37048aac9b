"""Imported plays and skips travel with the user: an export imported as another user holds the
same plays and skips, and forgetting a month's only play keeps that month's skips."""

from __future__ import annotations

from pathlib import Path

from service.settings import Settings
from tests.history.history_fixtures import START, extended, minutes, write_json
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

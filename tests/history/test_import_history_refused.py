"""``memory-service import-history`` writes as every tool writes: for a user whose memory is paused
or turned off it is refused with the switch's own message and a nonzero exit, and nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings
from tests.history.history_fixtures import START, extended, minutes, spotify_zip
from tests.history.history_support import stored
from tests.support import connected
from tests.support.server_process import run_cli

pytestmark = pytest.mark.slow

PAUSED, OFF = 5, 6


async def test_a_paused_and_a_disabled_user_are_refused_and_nothing_is_stored(
    settings: Settings, tmp_path: Path
) -> None:
    rows = [extended(n, START + minutes(5 * n)) for n in range(1, 4)]
    archive = spotify_zip(tmp_path / "my_spotify_data.zip", {"Streaming_History_Audio_2021_0.json": rows}, {})
    async with connected(settings) as call:
        await call.ok("memory_pause", {"user_id": PAUSED, "until": "2099-01-01T00:00:00Z"})
        await call.ok("memory_set_enabled", {"user_id": OFF, "enabled": False})

    paused = run_cli(["import-history", str(archive), "--user-id", str(PAUSED), "--json"], settings, cwd=tmp_path)
    assert paused.returncode == 1, paused.stderr
    assert "memory is paused for this user: nothing is stored until the pause ends" in paused.stderr
    assert paused.stdout == ""
    off = run_cli(["import-history", str(archive), "--user-id", str(OFF)], settings, cwd=tmp_path)
    assert off.returncode == 1, off.stderr
    assert "memory is turned off for this user" in off.stderr
    assert off.stdout == ""

    async with connected(settings) as call:
        for user in (PAUSED, OFF):
            assert await stored(call, user) == ([], [])
            assert (await call.service.tracks.describe(user, [f"{n:022d}" for n in range(1, 4)])) == {}
        await call.ok("memory_set_enabled", {"user_id": OFF, "enabled": True})
        await call.ok("memory_pause", {"user_id": PAUSED, "until": None})
        for user in (PAUSED, OFF):  # nothing counted either, once the switches let the counts show
            counts = (await call.ok("memory_status", {"user_id": user}))["counts"]
            assert (counts["play_buckets"], counts["tracks"]) == (0, 0)

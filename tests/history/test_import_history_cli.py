"""``memory-service import-history`` as a script runs it: ``--json`` prints the report alone on
stdout, a second run of the same ZIP changes nothing, and the plays are there for the tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.settings import Settings
from tests.history.history_fixtures import START, extended, minutes, spotify_zip
from tests.history.history_support import stored
from tests.support import connected
from tests.support.server_process import run_cli

pytestmark = pytest.mark.slow


def history_zip(tmp_path: Path) -> Path:
    rows = [extended(n, START + minutes(5 * n), ms=8_000 if n == 3 else 200_000) for n in range(1, 6)]
    rows.append(extended(9, START + minutes(90), private=True))
    return spotify_zip(tmp_path / "my_spotify_data.zip", {"Streaming_History_Audio_2021_0.json": rows}, {})


async def test_import_history_json_report_and_rerun(settings: Settings, tmp_path: Path) -> None:
    archive = history_zip(tmp_path)
    first = run_cli(["import-history", str(archive), "--user-id", "4", "--json"], settings, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {
        "entries": 6,
        "plays": 4,
        "skips": 1,
        "private_skipped": 1,
        "not_music": 0,
        "duplicates": 0,
        "tracks_added": 5,
        "first_played": "2021-03-01T08:05:00.000Z",
        "last_played": "2021-03-01T08:25:00.000Z",
    }
    assert "history imported for user 4: 4 plays, 1 skips" in first.stderr

    again = run_cli(
        [
            "import-history",
            str(archive),
            "--user-id",
            "4",
            "--json",
            "--format",
            "spotify-extended",
            "--include-private",
        ],
        settings,
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["plays"], report["skips"], report["duplicates"]) == (1, 0, 5)  # only the private row is new

    async with connected(settings) as call:
        plays, skips = await stored(call, 4)
        assert (len(plays), len(skips)) == (5, 1)
        memory = await call.ok(
            "memory_add",
            {
                "user_id": 4,
                "type": "recommendation",
                "entities": ["Artist 2"],
                "summary": "Suggested Artist 2",
                "importance": 8,
                "timestamp": "2021-03-01T07:00:00Z",
            },
        )
        checked = await call.ok("memory_validate_recommendation", {"user_id": 4, "memory_id": memory["memory_id"]})
        assert checked["validation"]["plays_since_rec"] == 2  # Song 2 and Song 9 (Artist 2), both imported


def test_unknown_path_and_format_fail_cleanly(tmp_path: Path) -> None:
    missing = run_cli(
        ["import-history", str(tmp_path / "nope.json"), "--user-id", "1", "--data-dir", "d"], cwd=tmp_path
    )
    assert missing.returncode == 1 and "no such file or folder" in missing.stderr
    (tmp_path / "notes.json").write_text('{"hello": "world"}')
    other = run_cli(["import-history", str(tmp_path / "notes.json"), "--user-id", "1", "--data-dir", "d"], cwd=tmp_path)
    assert other.returncode == 1 and "no listening history" in other.stderr

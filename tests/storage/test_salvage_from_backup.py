"""``salvage --from-backup``: a damaged user taken back whole from a backup, the others untouched.

The user's records are replaced by the backup's in one transaction, the derived views rebuilt, and
the report says which backup (and so which later changes are gone). Embedded-only by nature.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.server_process import run_cli

KEPT, DAMAGED = 1, 2


def without_time(export: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in export.items() if k != "as_of"}


async def exports(settings: Settings) -> dict[int, dict[str, Any]]:
    async with connected(settings) as call:
        return {u: without_time(await call.service.transfer.export_all(u)) for u in (KEPT, DAMAGED)}


async def test_salvage_from_a_backup_takes_the_user_back_as_it_was(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with connected(settings) as call:
        for user in (KEPT, DAMAGED):
            await call.ok("memory_update_profile", {"user_id": user, "patch": {"mood": "calm"}, "source": "user"})
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": user, "playlist_id": playlist(1), "name": "p", "track_ids": [track(i) for i in range(9)]},
            )
    backed_up = await exports(settings)
    backup = tmp_path / "backup.sqlite3"
    assert run_cli(["backup", str(backup)], settings, cwd=tmp_path).returncode == 0
    async with connected(settings) as call:  # after the backup: what the salvage will not bring back
        for user in (KEPT, DAMAGED):
            await call.ok(
                "memory_append_preference_event",
                {"user_id": user, "type": "note", "source": "user", "payload": {"raw_text": "later"}},
            )
    kept_after = (await exports(settings))[KEPT]
    with sqlite3.connect(settings.data_dir / "memory.sqlite3") as db:
        db.execute(
            "UPDATE fields SET body = substr(body, 1, 9) WHERE collection = 'profiles' AND user_id = ?", (DAMAGED,)
        )

    done = run_cli(
        ["salvage", "--user-id", str(DAMAGED), "--from-backup", str(backup), "--json"], settings, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["salvaged"] and report["from_backup"]["path"] == str(backup)
    assert [d["record"] for d in report["damaged"]] == [f"profiles/{DAMAGED}"]
    assert "changes after it are gone" in done.stderr
    verified = run_cli(["verify"], settings, cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    now = await exports(settings)
    assert now[DAMAGED] == backed_up[DAMAGED]  # as at the backup: the later note is gone
    assert now[KEPT] == kept_after  # the other user keeps everything, the later note too

"""An import is audited as the import: the entries of what ``memory-service import`` wrote name the
CLI command, not the calls that originally recorded the data (which the records keep)."""

from __future__ import annotations

from pathlib import Path

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.server_process import run_cli

USER = 5


async def test_import_entries_name_the_import_and_records_keep_their_author(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    export_file = tmp_path / "export.json"
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"genre": "metal"}})
        await call.ok(
            "memory_append_preference_event", {"user_id": USER, "type": "like", "payload": {"raw_text": "more metal"}}
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": USER, "playlist_id": playlist(1), "name": "p", "track_ids": [track(1)]},
        )
        original = {e["request_id"] for e in (await call.ok("ops_audit", {"user_id": USER}))["entries"]}
    exported = run_cli(["export", "--user-id", str(USER), "--out", str(export_file)], settings, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    async with connected(settings) as call:
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
    imported = run_cli(["import", "--file", str(export_file)], settings, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    async with connected(settings) as call:
        entries = (await call.ok("ops_audit", {"user_id": USER}))["entries"]
        data = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    written = [e for e in entries if e["operation"] != "delete_user_data"]
    assert {e["collection"] for e in written} == {"profiles", "preference_events", "playlist_history"}
    assert {(e["tool"], e["principal"]) for e in written} == {("cli.import", "local")}, written
    assert not original & {e["request_id"] for e in written}, "an import entry reused an original request id"
    # The records themselves still say which call recorded them.
    assert data["preference_events"][0]["written_by"]["tool"] == "memory.append_preference_event"
    assert "imported_by" not in data["preference_events"][0]

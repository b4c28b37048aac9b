"""After ``delete_user_data`` the deleted text is gone from the embedded store's files, not only
from its answers: SQLite keeps old page images in its WAL (and free pages in the main file) until
they are overwritten, which can be long after the delete was acknowledged."""

from __future__ import annotations

from pathlib import Path

from service.settings import Settings
from tests.support import connected, playlist, track

MARKER = "zebrasecretmarker"


def on_disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("memory.sqlite3*")) if p.is_file())


async def test_a_deleted_users_text_is_not_left_in_the_journal_files(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"note": f"{MARKER} profile"}})
        await call.ok(
            "memory_append_preference_event", {"user_id": 1, "type": "note", "payload": {"raw_text": f"{MARKER} said"}}
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": f"{MARKER} list", "track_ids": [track(1)]},
        )
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"note": "other user stays"}})
        assert MARKER.encode() in on_disk(settings.data_dir), "the test must see the text before the delete"
        await call.ok("memory_delete_user_data", {"user_id": 1, "confirm": True})
        # While the server still runs: the acknowledged delete has already scrubbed the files.
        assert MARKER.encode() not in on_disk(settings.data_dir)
        assert b"other user stays" in on_disk(settings.data_dir)
        assert (await call.ok("memory_get_profile", {"user_id": 2}))["profile"] == {"note": "other user stays"}

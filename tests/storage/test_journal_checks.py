"""The journal's own guarantees, on real SQLite files: every row carries its owner and a checksum
(rows of an older store get theirs on the first open), damage is found whether or not the body
still decodes, and a commit that cannot be made durable leaves the file exactly as it was and
says why (a full disk is SQLite's real SQLITE_FULL, from a page cap on the file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from service.errors import StorageFault, StorageFull
from service.settings import Settings
from service.storage.embedded.journal import DocumentWrite, Journal
from tests.support import connected, playlist, track
from tests.support.server_process import run_cli


def all_rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT collection, doc_key, field, body, user_id, sum FROM fields ORDER BY 1, 2, 3"
        ).fetchall()


async def make_store(data_dir: Path) -> Path:
    async with connected(Settings(data_dir=data_dir)) as call:
        for user in (4, 5):
            await call.ok("memory_update_profile", {"user_id": user, "patch": {"mood": "calm"}, "source": "user"})
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": user,
                    "playlist_id": playlist(user),
                    "name": "p",
                    "track_ids": [track(i) for i in range(400)],
                },
            )
    return data_dir / "memory.sqlite3"


async def test_rows_of_a_store_without_checksums_get_them_on_first_open(tmp_path: Path) -> None:
    path = await make_store(tmp_path / "data")
    current = all_rows(path)
    assert current and all(r[4] is not None or r[0] == "audit_state" for r in current)
    assert all(r[5] is not None for r in current)
    # The file as the previous release wrote it: no owner or checksum columns.
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE fields DROP COLUMN sum")
        db.execute("ALTER TABLE fields DROP COLUMN user_id")
    Journal(path).close()  # a writable open migrates
    assert all_rows(path) == current


async def test_a_changed_body_is_found_whether_or_not_it_still_decodes(tmp_path: Path) -> None:
    path = await make_store(tmp_path / "data")
    with sqlite3.connect(path) as db:
        (key,) = db.execute("SELECT doc_key FROM fields WHERE collection = 'profiles' AND user_id = 5").fetchone()
        body = db.execute("SELECT body FROM fields WHERE collection = 'profiles' AND doc_key = ?", (key,)).fetchone()[0]
        # Same length, still valid BSON: one letter of a string value changed.
        still_bson = body.replace(b"calm", b"calM")
        assert still_bson != body
        db.execute("UPDATE fields SET body = ? WHERE collection = 'profiles' AND doc_key = ?", (still_bson, key))
        (pid_key,) = db.execute(
            "SELECT doc_key FROM fields WHERE collection = 'playlists' AND user_id = 4 LIMIT 1"
        ).fetchone()
        db.execute(
            "UPDATE fields SET body = substr(body, 1, 7) WHERE collection = 'playlists' AND doc_key = ?", (pid_key,)
        )
    journal = Journal(path, readonly=True)
    loaded = list(journal.load())
    found = sorted((d.collection, d.user_id, d.reason) for d in journal.damage)
    journal.close()
    assert ("profiles", 5, "checksum mismatch") in found
    assert any(c == "playlists" and u == 4 for c, u, _ in found)
    assert not any(name == "profiles" and doc["user_id"] == 5 for name, doc in loaded)


def test_a_commit_past_a_full_disk_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    journal = Journal(path)
    journal.write(journal.encode([DocumentWrite("notes", 1, {"_id": 1, "user_id": 7, "text": "kept"})]))
    before = all_rows(path)
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: a full disk to SQLite
    big = {"_id": 2, "user_id": 7, "text": "x" * 200_000}
    with pytest.raises(StorageFull) as refused:
        journal.write(journal.encode([DocumentWrite("notes", 2, big)]))
    assert refused.value.details == {"reason": "storage_full"}
    assert all_rows(path) == before
    journal._db.execute("PRAGMA max_page_count = 1073741823")  # space freed: the same write goes through
    journal.write(journal.encode([DocumentWrite("notes", 2, big)]))
    assert len(all_rows(path)) == 2
    journal.close()


def test_a_write_to_a_read_only_store_is_a_storage_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    Journal(path).close()
    journal = Journal(path, readonly=True)
    with pytest.raises(StorageFault) as refused:
        journal.write(journal.encode([DocumentWrite("notes", 1, {"_id": 1, "user_id": 7})]))
    assert refused.value.details == {"reason": "storage_error"}
    journal.close()


async def test_read_only_commands_work_beside_the_store_lock(tmp_path: Path) -> None:
    """export, verify, backup and age --dry-run do not take the data directory's lock."""
    data_dir = tmp_path / "data"
    await make_store(data_dir)
    settings = Settings(data_dir=data_dir)
    async with connected(settings):  # holds the lock, as a running server does
        for args in (
            ["export", "--user-id", "4", "--out", "-"],
            ["verify"],
            ["backup", str(tmp_path / "b.sqlite3")],
            ["age", "--dry-run"],
        ):
            done = run_cli(args, settings, cwd=tmp_path)
            assert done.returncode == 0, (args, done.stderr)
        refused = run_cli(["rederive"], settings, cwd=tmp_path)
        assert refused.returncode == 1 and "in use" in refused.stderr
    assert '"playlist_id"' in run_cli(["export", "--user-id", "4", "--out", "-"], settings, cwd=tmp_path).stdout
